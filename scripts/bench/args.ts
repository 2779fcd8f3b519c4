/**
 * Arguments of `npm run bench`, read by `parseArgs` from `node:util` with the project's checks
 * (lib/shared/command-line.ts). Pure: parsing only, so it is unit-tested.
 */
import { parseArgs } from 'node:util';

import { checkedOptions, nonNegativeNumber, oneOf, wholeNumber } from '../../lib/shared/command-line';
import type { OptionSpecs } from '../../lib/shared/command-line';

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
  /** Append the dashboard server's output lines to this file, each after the milliseconds since the bench started (`--server-log`). */
  readonly serverLog: string | null;
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
  /** Measure the cold sync's floor before the server starts (issue 30; `--no-floor` skips it). */
  readonly floor: boolean;
}

export const USAGE = `usage: npm run bench -- --scale S|M|L [options]
       npm run bench -- --scale-checks [CASE…]   the full-scale runs of what the unit tests check
                         small, in-process (scripts/bench/scale-checks.ts; no build, no server)

  --scale S|M|L          reference cluster (S: 50 nodes/200 Services, M: 500/1,000, L: 5,000/10,000)
  --requests N           timed requests per endpoint in the warm phase (default 100)
  --churn-minutes M      then M minutes of churn at 20 changes/s, sampling server RSS every 10 s (default 0)
  --churn-rate R         changes per second during churn (default 20)
  --clients C            concurrent clients of the concurrency phase (default 8)
  --analyze-runs N       in-process full analyses timed for analyzeAllMs (default 9: the first, cold, is left out; 0 skips)
  --build auto|always|never   production build into .next-prod, shared with the e2e suite (or
                         $ZONESCOPE_DIST_DIR): when the sources changed since it was built (default),
                         always, or never
  --no-kubectl           skip the kubectl comparison
  --lcp-loads N          page loads per Service view LCP figure, the median reported (default 3)
  --no-browser           skip the browser phase (Services page DOM/sort/filter, Service view LCP)
  --timeout-minutes T    stop everything after T minutes (default per generator run: 30, realistic L 45,
                         each + churn minutes; both = the sum)
  --json-out FILE        also write the final JSON object to FILE
  --server-log FILE      append the server's output from readiness on to FILE (with ZONESCOPE_ANALYSIS_LOG=1:
                         its passes, metrics mappings and idle collections), each line after the ms since the start
  --server-node-options "FLAGS"   NODE_OPTIONS for the server (e.g. "--max-old-space-size=640")
  --no-floor             skip the cold sync's floor (every list of the cold start fetched and
                         parsed alone, twice, before the server starts; issue 30)
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

/** The options, as `parseArgs` takes them. */
const OPTIONS = {
  help: { type: 'boolean', short: 'h' },
  scale: { type: 'string' },
  requests: { type: 'string' },
  'churn-minutes': { type: 'string' },
  'churn-rate': { type: 'string' },
  clients: { type: 'string' },
  'analyze-runs': { type: 'string' },
  'lcp-loads': { type: 'string' },
  build: { type: 'string' },
  'no-kubectl': { type: 'boolean' },
  'no-browser': { type: 'boolean' },
  'timeout-minutes': { type: 'string' },
  'json-out': { type: 'string' },
  'server-log': { type: 'string' },
  'server-node-options': { type: 'string' },
  'no-prometheus': { type: 'boolean' },
  'no-floor': { type: 'boolean' },
  'prometheus-refresh-seconds': { type: 'string' },
  'traffic-seconds': { type: 'string' },
  'traffic-only': { type: 'boolean' },
  'metrics-seconds': { type: 'string' },
  'metrics-only': { type: 'boolean' },
  generator: { type: 'string' },
  realistic: { type: 'boolean' },
} as const satisfies OptionSpecs;

/** The options that take a value. */
type ValueOption = { [K in keyof typeof OPTIONS]: (typeof OPTIONS)[K]['type'] extends 'string' ? K : never }[keyof typeof OPTIONS];

/**
 * Parses the arguments (`--flag value` or `--flag=value`; given again, the last counts; a `--` is
 * skipped); returns a message for bad ones, `'help'` for `--help`.
 */
export function parseBenchArgs(argv: readonly string[]): BenchOptions | 'help' | string {
  const args = argv.filter((arg) => arg !== '--');
  const parsed = parseArgs({ args, options: OPTIONS, strict: false, tokens: true });
  if (parsed.tokens.some((token) => token.kind === 'option' && token.name === 'help')) return 'help';
  const values = checkedOptions(args, parsed, OPTIONS, { dashValues: ['server-node-options'] });
  if (typeof values === 'string') return values;
  // Each value is read with its default; the first bad one is the answer.
  const problems: string[] = [];
  const checked = <T>(result: T | string, fallback: T): T => {
    if (typeof result !== 'string') return result;
    problems.push(result);
    return fallback;
  };
  const integer = (name: ValueOption, min: number, fallback: number) => checked(values[name] === undefined ? fallback : wholeNumber(`--${name}`, values[name], { min }), fallback);
  const number = (name: ValueOption, fallback: number) => checked(values[name] === undefined ? fallback : nonNegativeNumber(`--${name}`, values[name]), fallback);
  const choice = <const C extends string>(name: ValueOption, choices: readonly C[], fallback: C) => checked(values[name] === undefined ? { value: fallback } : oneOf(`--${name}`, values[name], choices), { value: fallback }).value;
  const scale = choice('scale', ['S', 'M', 'L'], 'S');
  // --realistic is --generator realistic: of the two, the last one given counts.
  const last = parsed.tokens.findLast((token) => token.kind === 'option' && (token.name === 'generator' || token.name === 'realistic'));
  const chosen = choice('generator', ['reference', 'realistic', 'both'], 'both');
  const generator = last?.kind === 'option' && last.name === 'realistic' ? 'realistic' : chosen;
  const churnMinutes = number('churn-minutes', 0);
  const options: BenchOptions = {
    scale,
    requests: integer('requests', 1, 100),
    churnMinutes,
    churnRate: integer('churn-rate', 1, 20),
    clients: integer('clients', 1, 8),
    analyzeRuns: integer('analyze-runs', 0, 9),
    lcpLoads: integer('lcp-loads', 1, 3),
    build: choice('build', ['auto', 'always', 'never'], 'auto'),
    kubectl: !values['no-kubectl'],
    browser: !values['no-browser'],
    timeoutMinutes: number('timeout-minutes', generatorsOf(generator).reduce((sum, g) => sum + defaultMinutes(g, scale) + churnMinutes, 0)),
    jsonOut: values['json-out'] ?? null,
    serverLog: values['server-log'] ?? null,
    serverNodeOptions: values['server-node-options'] ?? null,
    prometheus: !values['no-prometheus'],
    prometheusRefreshSeconds: integer('prometheus-refresh-seconds', 1, 10),
    trafficSeconds: integer('traffic-seconds', 0, 30),
    trafficOnly: values['traffic-only'] ?? false,
    metricsSeconds: integer('metrics-seconds', 0, 30),
    metricsOnly: values['metrics-only'] ?? false,
    generator,
    floor: !values['no-floor'],
  };
  if (problems[0] !== undefined) return problems[0];
  if (values.scale === undefined) return '--scale is required';
  if (options.trafficOnly && options.metricsOnly) return '--traffic-only and --metrics-only exclude each other';
  if (options.metricsOnly && options.metricsSeconds === 0) return '--metrics-only needs --metrics-seconds of at least 1';
  return options;
}
