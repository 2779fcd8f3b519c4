/**
 * Arguments of `npm run bench`. Pure: parsing only, so it is unit-tested.
 */

/** Reference cluster sizes (see `sim/scenarios/generator.ts`). */
export type Scale = 'S' | 'M' | 'L';

/**
 * Which generated cluster the simulator serves: `reference` = `generated:S|M|L` (equal Services in
 * equal zones, sim/scenarios/generator.ts), `realistic` = `generated:realistic-S|M|L` (an untidy EKS
 * dump where almost no two Services look alike, sim/scenarios/realistic.ts); `both` runs the whole
 * benchmark on each, reference first, one simulator at a time.
 */
export type Generator = 'reference' | 'realistic';
export type GeneratorChoice = Generator | 'both';

/** The generators a choice runs, in order. */
export function generatorsOf(choice: GeneratorChoice): readonly Generator[] {
  return choice === 'both' ? ['reference', 'realistic'] : [choice];
}

/** Default deadline of one generator's run in minutes (the realistic L simulator alone takes 2–4 min to start). */
export function defaultMinutes(generator: Generator, scale: Scale): number {
  return generator === 'realistic' && scale === 'L' ? 45 : 30;
}

/** Options of one benchmark run. */
/**
 * The benchmark's build folder (relative to the project root): the production build it shares
 * with the e2e suite (`PRODUCTION_DIST_DIR` of scripts/build-folder.ts; kept apart here so this
 * file stays free of I/O).
 */
export const BENCH_DIST_DIR = '.next-prod';

export interface BenchOptions {
  readonly scale: Scale;
  /** Timed requests per endpoint in the warm phase. */
  readonly requests: number;
  /** Minutes of churn at {@link BenchOptions.churnRate} changes/s (0 = no churn run). */
  readonly churnMinutes: number;
  /** Changes per second during churn. */
  readonly churnRate: number;
  /** Concurrent clients of the concurrency phase. */
  readonly clients: number;
  /** Analyses timed in-process for `analyzeAllMs` (0 = skip). */
  readonly analyzeRuns: number;
  /** Page loads per Service view LCP figure (the median is reported). */
  readonly lcpLoads: number;
  /** `always` build; `auto`: build when the build folder holds no build of the current sources; `never`: use what is there. */
  readonly build: 'auto' | 'always' | 'never';
  /** Run the kubectl comparison (when kubectl is installed). */
  readonly kubectl: boolean;
  /** Run the browser phase (when chromium is installed). */
  readonly browser: boolean;
  /** Hard limit of the whole run in minutes (children are stopped when it is reached). */
  readonly timeoutMinutes: number;
  /** Where to write the final JSON object as well (optional). */
  readonly jsonOut: string | null;
  /** NODE_OPTIONS of the server process (e.g. a heap limit), `null` for none. */
  readonly serverNodeOptions: string | null;
  /** Start a real Prometheus (sim/prometheus.ts) scraping the simulator's metrics, when the binary is there. */
  readonly prometheus: boolean;
  /** Seconds between the server's Prometheus refreshes (`ZONESCOPE_PROMETHEUS_REFRESH_SECONDS`). */
  readonly prometheusRefreshSeconds: number;
  /** Seconds of each load level of the queries-per-minute measurement (0 skips the traffic phase). */
  readonly trafficSeconds: number;
  /** Only the cold sync, `/api/v1/cluster` and the traffic phase. */
  readonly trafficOnly: boolean;
  /** Seconds of the metrics phase's scraping window (scrapes of `/metrics` at 1/s; 0 skips the phase). */
  readonly metricsSeconds: number;
  /** Only the cold sync and the metrics phase (issue 14: the exporter's cost). */
  readonly metricsOnly: boolean;
  /** The generated clusters to run on (`--generator`; `--realistic` = `realistic`). */
  readonly generator: GeneratorChoice;
}

export const USAGE = `usage: npm run bench -- --scale S|M|L [options]
       npm run bench -- --scale-checks [CASE…]   the full-scale runs of what the unit tests check
                         small, in-process (scripts/bench/scale-checks.ts; no build, no server)

  --scale S|M|L          reference cluster (S: 50 nodes/200 Services, M: 500/1,000, L: 5,000/10,000)
  --requests N           timed requests per endpoint in the warm phase (default 100)
  --churn-minutes M      then M minutes of churn at 20 changes/s, sampling server RSS every 10 s (default 0)
  --churn-rate R         changes per second during churn (default 20)
  --clients C            concurrent clients of the concurrency phase (default 8)
  --analyze-runs N       in-process full analyses timed for analyzeAllMs (default 5; 0 skips)
  --build auto|always|never   production build into .next-prod, shared with the e2e suite (or
                         $ZONESCOPE_DIST_DIR): when the sources changed since it was built (default),
                         always, or never
  --no-kubectl           skip the kubectl comparison
  --lcp-loads N          page loads per Service view LCP figure, the median reported (default 3)
  --no-browser           skip the browser phase (Services page DOM/sort/filter, Service view LCP)
  --timeout-minutes T    stop everything after T minutes (default per generator run: 30, realistic L 45,
                         each + churn minutes; both = the sum)
  --json-out FILE        also write the final JSON object to FILE
  --server-node-options "FLAGS"   NODE_OPTIONS for the server (e.g. "--max-old-space-size=640")
  --no-prometheus        do not start Prometheus (the traffic figures are then measured unconfigured)
  --prometheus-refresh-seconds R  the server's Prometheus refresh interval (default 10)
  --traffic-seconds N    seconds of each load level (1 and 20 clients) of the Prometheus
                         queries-per-minute measurement (default 30; 0 skips the traffic phase)
  --traffic-only         only the cold sync, GET /api/v1/cluster and the traffic phase
  --metrics-seconds N    seconds of scraping /metrics once a second while a reader requests
                         GET /api/v1/cluster, in the metrics phase (default 30; 0 skips the phase)
  --metrics-only         only the cold sync and the metrics phase (no Prometheus is started)
  --generator reference|realistic|both   the generated cluster: reference (generated:S|M|L, equal
                         Services), realistic (generated:realistic-S|M|L, an untidy EKS dump whose
                         Services almost all differ; issue 17's goals are judged on it) or both, one
                         after the other (default both)
  --realistic            the same as --generator realistic

The last line printed is one JSON object with the figures (see BENCHMARKS.md).`;

function positiveInt(flag: string, value: string | undefined, min = 0): number | string {
  if (value === undefined || !/^\d+$/.test(value)) return `${flag} needs a whole number`;
  const n = Number(value);
  return n < min ? `${flag} must be at least ${min}` : n;
}

function positiveNumber(flag: string, value: string | undefined): number | string {
  const n = Number(value);
  return value === undefined || value === '' || !Number.isFinite(n) || n < 0 ? `${flag} needs a non-negative number` : n;
}

/** Parses the arguments; returns a message for bad ones, `'help'` for `--help`. */
export function parseBenchArgs(argv: readonly string[]): BenchOptions | 'help' | string {
  let scale: Scale | null = null;
  let requests = 100;
  let churnMinutes = 0;
  let churnRate = 20;
  let clients = 8;
  let analyzeRuns = 5;
  let lcpLoads = 3;
  let build: BenchOptions['build'] = 'auto';
  let kubectl = true;
  let browser = true;
  let timeoutMinutes: number | null = null;
  let jsonOut: string | null = null;
  let serverNodeOptions: string | null = null;
  let prometheus = true;
  let prometheusRefreshSeconds = 10;
  let trafficSeconds = 30;
  let trafficOnly = false;
  let metricsSeconds = 30;
  let metricsOnly = false;
  let generator: GeneratorChoice = 'both';
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i] ?? '';
    const value = argv[i + 1];
    const take = <T>(parsed: T | string): T | string => {
      i++;
      return parsed;
    };
    let result: unknown;
    switch (flag) {
      case '--':
        continue;
      case '-h':
      case '--help':
        return 'help';
      case '--scale':
        if (value !== 'S' && value !== 'M' && value !== 'L') return '--scale takes S, M or L';
        scale = value;
        i++;
        continue;
      case '--requests':
        result = take(positiveInt(flag, value, 1));
        if (typeof result === 'number') requests = result;
        break;
      case '--churn-minutes':
        result = take(positiveNumber(flag, value));
        if (typeof result === 'number') churnMinutes = result;
        break;
      case '--churn-rate':
        result = take(positiveInt(flag, value, 1));
        if (typeof result === 'number') churnRate = result;
        break;
      case '--clients':
        result = take(positiveInt(flag, value, 1));
        if (typeof result === 'number') clients = result;
        break;
      case '--analyze-runs':
        result = take(positiveInt(flag, value, 0));
        if (typeof result === 'number') analyzeRuns = result;
        break;
      case '--lcp-loads':
        result = take(positiveInt(flag, value, 1));
        if (typeof result === 'number') lcpLoads = result;
        break;
      case '--build':
        if (value !== 'auto' && value !== 'always' && value !== 'never') return '--build takes auto, always or never';
        build = value;
        i++;
        continue;
      case '--no-kubectl':
        kubectl = false;
        continue;
      case '--no-browser':
        browser = false;
        continue;
      case '--timeout-minutes':
        result = take(positiveNumber(flag, value));
        if (typeof result === 'number') timeoutMinutes = result;
        break;
      case '--server-node-options':
        if (value === undefined) return '--server-node-options needs a value';
        serverNodeOptions = value;
        i++;
        continue;
      case '--no-prometheus':
        prometheus = false;
        continue;
      case '--traffic-only':
        trafficOnly = true;
        continue;
      case '--metrics-only':
        metricsOnly = true;
        continue;
      case '--realistic':
        generator = 'realistic';
        continue;
      case '--generator':
        if (value !== 'reference' && value !== 'realistic' && value !== 'both') return '--generator takes reference, realistic or both';
        generator = value;
        i++;
        continue;
      case '--metrics-seconds':
        result = take(positiveInt(flag, value, 0));
        if (typeof result === 'number') metricsSeconds = result;
        break;
      case '--prometheus-refresh-seconds':
        result = take(positiveInt(flag, value, 1));
        if (typeof result === 'number') prometheusRefreshSeconds = result;
        break;
      case '--traffic-seconds':
        result = take(positiveInt(flag, value, 0));
        if (typeof result === 'number') trafficSeconds = result;
        break;
      case '--json-out':
        if (value === undefined || value.startsWith('--')) return '--json-out needs a file';
        jsonOut = value;
        i++;
        continue;
      default:
        return `unknown argument "${flag}"`;
    }
    if (typeof result === 'string') return result;
  }
  if (scale === null) return '--scale is required';
  if (trafficOnly && metricsOnly) return '--traffic-only and --metrics-only exclude each other';
  if (metricsOnly && metricsSeconds === 0) return '--metrics-only needs --metrics-seconds of at least 1';
  return {
    scale,
    requests,
    churnMinutes,
    churnRate,
    clients,
    analyzeRuns,
    lcpLoads,
    build,
    kubectl,
    browser,
    timeoutMinutes: timeoutMinutes ?? generatorsOf(generator).reduce((sum, g) => sum + defaultMinutes(g, scale as Scale) + churnMinutes, 0),
    jsonOut,
    serverNodeOptions,
    prometheus,
    prometheusRefreshSeconds,
    trafficSeconds,
    trafficOnly,
    metricsSeconds,
    metricsOnly,
    generator,
  };
}
