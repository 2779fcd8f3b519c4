/**
 * `npm run bench -- --scale S|M|L [--generator reference|realistic|both] [--requests N] [--churn-minutes M]`:
 * the scale benchmark of issues 6 and 17. For each generated cluster — the reference one
 * (`generated:S|M|L`, equal Services) and the realistic one (`generated:realistic-S|M|L`, an
 * untidy EKS dump where almost no two Services look alike), one after the other, one simulator at
 * a time — it starts the simulator and the production server against it (both as child processes,
 * stopped on exit, Ctrl-C and at the deadline), then measures:
 *
 * 1. cold sync — server start until `/api/v1/cluster` answers 200 (every type synced) and the
 *    overview page is served; the first 200 of each timed on its own, a fresh `/api/v1/cluster`
 *    right after, and the lists the server started per resource type (`/__sim/stats`);
 * 2. warm latencies at the HTTP client (p50/p95 over `--requests` sequential requests) of the API
 *    and the pages, then a concurrency phase with several clients — on the reference cluster's
 *    bench Services, on the realistic one on Services picked from it (scripts/bench/targets.ts);
 * 3. simulator request counts over the warm phase (read path: no API requests besides watches)
 *    and open watches per resource type;
 * 4. server RSS (VmRSS of the process tree, steady) and its peak (VmHWM);
 * 5. change latency — an EndpointSlice edited on the simulator until the Service API shows it —
 *    and how many Services the server re-analysed for it (its analysis log);
 * 6. the full-cluster analysis in-process (`scripts/bench/analyze-all.ts`), and a real
 *    `npm run analyze -- --format json` end to end;
 * 7. `kubectl get endpointslices -A -o json` against the same simulator;
 * 8. optionally churn at 20 changes/s with RSS sampled every 10 s;
 * 9. issue 13's traffic figures (`scripts/bench/traffic.ts`): the `traffic` block's cost on
 *    `/api/v1/cluster` and Prometheus queries per minute with 1 and 20 clients, against a real
 *    Prometheus (`sim/prometheus.ts`) scraping the simulator's traffic metrics when the binary is
 *    installed (else unconfigured, and the output says so). `--traffic-only` runs just the cold
 *    sync, `/api/v1/cluster` and this phase.
 * 10. issue 14's exporter figures (`scripts/bench/metrics.ts`): `/metrics` series and bytes, the
 *    first and warm scrapes beside `/api/v1/cluster` and a page view, scrapes at 1/s while a reader
 *    requests `/api/v1/cluster`, simulator requests meanwhile (0), RSS, `promtool check metrics`.
 *    `--metrics-only` runs just the cold sync and this phase (without Prometheus).
 *
 * `npm run bench -- --scale-checks [CASE…]` runs instead, in this process, the full-scale checks of
 * behaviours the unit tests check at a small size (scripts/bench/scale-checks.ts: 100,000 zones,
 * 10,000 Services, a 150,000-object dump, …), printing each one's time and heap.
 *
 * Issue 6's goals are checked on both generators, issue 17's on the realistic one
 * (scripts/bench/report.ts). Prints each generator's tables, then one JSON object as the last line:
 * the generator's figures, or with `both` `{ scale, generator: "both", reference, realistic,
 * goalsMissed }` (fields in BENCHMARKS.md).
 */
import { closeSync, mkdirSync, openSync, readSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BenchOptions, Generator } from './bench/args';
import { BENCH_DIST_DIR, generatorsOf, parseBenchArgs, USAGE } from './bench/args';
import { buildWithStamp, hasBuild, isBuildCurrent, withBuildLock } from './build-folder';
import type { BrowserResult } from './bench/browser';
import { browserPhase } from './bench/browser';
import { churn } from './bench/churn';
import type { SimStats } from './bench/cluster';
import { CHANGE_NAMESPACE, CHANGE_SERVICE, churnPods, createChangeTarget, listsStarted, nonWatchRequests, resetSimStats, setChangeEndpointReady, simStats, someNodes, watchRequests } from './bench/cluster';
import type { LatencyStats, Timed } from './bench/http';
import { closeConnections, getJson, latencyStats, measure, poll, timedRequest } from './bench/http';
import type { Child } from './bench/processes';
import { run, startChild, stop, stopAll, treeHwmMiB, treeRssMiB } from './bench/processes';
import type { BenchResult } from './bench/report';
import { GOALS, latencyTable, missedGoals, r1, REALISTIC_GOALS, summaryTable } from './bench/report';
import { discoverTargets, referenceTargets, targetPath } from './bench/targets';
import type { TrafficFigures } from './bench/traffic';
import { trafficPhase, trafficTable } from './bench/traffic';
import type { MetricsFigures } from './bench/metrics';
import { closeScrapeConnections, metricsFields, metricsPhase, metricsTable, treeCpuMs } from './bench/metrics';
import { startPrometheus } from '../sim/prometheus';
import { SERVER_NODE_FLAGS, serverNodeArgs } from './node-flags';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);

/** Endpoints of the two named large Services per scale (sim/scenarios/generator.ts). */
const BIG_SERVICES: Record<BenchOptions['scale'], readonly number[]> = { S: [250], M: [250, 2000], L: [250, 5000] };

/** Stops the Prometheus the run started (it is not a tracked child of processes.ts). */
let stopPrometheus: () => Promise<void> = async () => undefined;

/** Pauses (SIGSTOP) or resumes (SIGCONT) the bench's Prometheus; a process already gone is fine. */
function signalPrometheus(pid: number, signal: 'SIGSTOP' | 'SIGCONT'): void {
  try {
    process.kill(pid, signal);
  } catch {
    // (exited)
  }
}

/** Clients of the two load levels of the queries-per-minute measurement. */
const TRAFFIC_CLIENTS = [1, 20] as const;

function log(line: string): void {
  process.stderr.write(`bench: ${line}\n`);
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** The environment of a child without zonescope settings of the caller. */
function childEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: Record<string, string | undefined> = {};
  for (const [key, value] of Object.entries(process.env)) if (!key.startsWith('ZONESCOPE_') && key !== 'KUBECONFIG') env[key] = value;
  return { ...env, NEXT_TELEMETRY_DISABLED: '1', ...extra } as unknown as NodeJS.ProcessEnv;
}

interface AnalysisLogLine {
  readonly services: number;
  readonly analysed: number;
  readonly reused: number;
  readonly ms: number;
  readonly full: boolean;
}

const ANALYSIS_LINE = /\[zonescope\] analysis: (\d+) services, (\d+) analysed, (\d+) reused, ([\d.]+) ms( \(full\))?/;

function parseAnalysisLine(line: string): AnalysisLogLine | null {
  const m = ANALYSIS_LINE.exec(line);
  return m ? { services: Number(m[1]), analysed: Number(m[2]), reused: Number(m[3]), ms: Number(m[4]), full: m[5] !== undefined } : null;
}

async function kubectlList(kubeconfig: string): Promise<number | null> {
  const times: number[] = [];
  for (let i = 0; i < 3; i++) {
    const result = await run('kubectl', 'kubectl', ['--kubeconfig', kubeconfig, 'get', 'endpointslices', '-A', '-o', 'json'], { cwd: ROOT, env: childEnv({}), timeoutMs: 5 * 60_000 });
    if (result.code !== 0) {
      log(`kubectl failed (${result.code}): ${result.output.slice(-3).join(' | ')}`);
      return null;
    }
    times.push(result.ms);
  }
  times.sort((a, b) => a - b);
  return r1(times[1] ?? times[0] ?? 0);
}

/** What `scripts/bench/analyze-all.ts` prints as its last line (the fields used here). */
interface AnalyzeAllFigures {
  readonly analyzeAllMs: number;
  readonly analyzeAllEagerMs: number;
  readonly analyzeAllDistinctMs: number;
  readonly serviceShapes: number;
  readonly incrementalMs: number;
  readonly trafficBlockMs?: number;
  readonly trafficBlockJsonMs?: number;
}

/** The flat traffic fields of the final JSON object. */
function trafficFields(figures: TrafficFigures | null, prometheus: string): Partial<BenchResult> {
  if (figures === null) return { prometheus };
  const perMinute = (clients: number) => figures.load.find((l) => l.clients === clients)?.queriesPerMinute;
  const one = perMinute(1);
  const twenty = perMinute(20);
  return {
    prometheus,
    trafficBlockKiB: r1(figures.trafficBlockBytes / 1024),
    clusterWhatIfP95Ms: r1(figures.whatIf.p95),
    ...(one !== undefined ? { promQueriesPerMin1: r1(one) } : {}),
    ...(twenty !== undefined ? { promQueriesPerMin20: r1(twenty) } : {}),
  };
}

/** `scripts/bench/analyze-all.ts` as a child: the in-process analysis figures, `null` when it failed. */
async function runAnalyzeAll(kubeconfig: string, runs: number): Promise<AnalyzeAllFigures | null> {
  const child = await run('analyze-all', process.execPath, [...SERVER_NODE_FLAGS, '--expose-gc', '--import', 'tsx', 'scripts/bench/analyze-all.ts', '--kubeconfig', kubeconfig, '--runs', String(runs)], {
    cwd: ROOT,
    env: childEnv({}),
    timeoutMs: 15 * 60_000,
  });
  const last = child.output.filter((l) => l.startsWith('{')).pop();
  if (child.code === 0 && last) {
    log(`in-process analysis: ${last}`);
    return JSON.parse(last) as AnalyzeAllFigures;
  }
  log(`analyze-all failed (${child.code}): ${child.output.slice(-5).join(' | ')}`);
  return null;
}

/** `npm run analyze -- --format json` against the simulator as a child, timed from start to exit (sync included). */
async function runAnalyzeCommand(kubeconfig: string, outFile: string): Promise<{ seconds: number; bytes: number } | null> {
  const child = await run('analyze', process.execPath, [...SERVER_NODE_FLAGS, '--import', 'tsx', 'cli/analyze.ts', '--format', 'json', '--timeout', '900'], {
    cwd: ROOT,
    env: childEnv({ KUBECONFIG: kubeconfig }),
    stdoutFile: outFile,
    timeoutMs: 20 * 60_000,
  });
  let bytes = 0;
  let starts = '';
  try {
    bytes = statSync(outFile).size;
    const fd = openSync(outFile, 'r');
    const head = Buffer.alloc(16);
    readSync(fd, head, 0, 16, 0);
    closeSync(fd);
    starts = head.toString('utf8').trimStart();
    rmSync(outFile, { force: true });
  } catch {
    // No output file.
  }
  if (child.code !== 0 || !starts.startsWith('{')) {
    log(`npm run analyze failed (${child.code}): ${child.output.slice(-5).join(' | ')}`);
    return null;
  }
  return { seconds: r1(child.ms / 1000), bytes };
}

/** What the whole run shares between generators. */
interface RunContext {
  readonly options: BenchOptions;
  readonly nextBin: string;
  readonly distDir: string;
  readonly buildSeconds: number | null;
  readonly machine: string;
}

/** One generator's run: its figures (the JSON object) and whether it completed. */
interface GeneratorRun {
  readonly json: Record<string, unknown>;
  readonly ok: boolean;
}

/** The simulator's `lists`/`connections` counters, or the estimate from list pages (cluster.ts). */
function coldStartFigures(stats: SimStats): Pick<BenchResult, 'coldStartLists' | 'coldStartListsMax' | 'coldStartListsSource' | 'coldStartConnections'> {
  const lists = listsStarted(stats);
  return {
    coldStartLists: lists.byResource,
    coldStartListsMax: Math.max(0, ...Object.values(lists.byResource)),
    coldStartListsSource: lists.source,
    coldStartConnections: stats.connections ?? null,
  };
}

async function runGenerator(context: RunContext, generator: Generator): Promise<GeneratorRun> {
  const { options, nextBin, distDir, buildSeconds, machine } = context;
  const tmp = path.join(ROOT, '.bench-tmp', `run-${options.scale}-${generator}-${process.pid}`);
  mkdirSync(tmp, { recursive: true });
  const kubeconfig = path.join(tmp, 'kubeconfig');
  const realistic = generator === 'realistic';

  // 1. The simulator with the generated cluster.
  const simPort = await freePort();
  const simUrl = `http://127.0.0.1:${simPort}`;
  const simStartedAt = performance.now();
  const scenario = realistic ? `generated:realistic-${options.scale}` : `generated:${options.scale}`;
  // The realistic L dump holds ~4.5 GiB in the simulator (BENCHMARKS.md, "The simulator on a realistic dump").
  const simHeap = realistic && options.scale === 'L' ? ['--max-old-space-size=12288'] : [];
  log(`${generator}: starting the simulator (${scenario})…`);
  // Its Beyla selects the zone attributes (docs/traffic.md), so the measured flows resolve zones.
  const sim = startChild('sim', process.execPath, [...simHeap, '--import', 'tsx', 'sim/cli.ts', '--scenario', scenario, '--port', String(simPort), '--kubeconfig', kubeconfig, '--flow-zone-labels'], {
    cwd: ROOT,
    env: childEnv({}),
  });
  await sim.waitForLine(/^kubeconfig: /, 10 * 60_000);
  const simStartSeconds = r1((performance.now() - simStartedAt) / 1000);
  // The change-latency phase's own Service (bench/zonescope-bench-manual), on either generator.
  await createChangeTarget(simUrl, await someNodes(simUrl));
  log(`simulator (${scenario}) up in ${simStartSeconds} s at ${simUrl}`);

  // 1b. A real Prometheus scraping the simulator's traffic metrics (issue 13), when installed.
  let prometheusUrl: string | null = null;
  let prometheusPid: number | null = null;
  let prometheusNote = 'not configured (--no-prometheus)';
  if (options.prometheus && !options.metricsOnly && (options.trafficSeconds > 0 || options.trafficOnly)) {
    try {
      // At L the simulator exports hundreds of thousands of series (hundreds of MiB a scrape): scrape less often there.
      const scrapeSeconds = options.scale === 'L' ? 15 : 5;
      const prom = await startPrometheus({ scrapeTargets: [`127.0.0.1:${simPort}`], metricsPath: '/__sim/metrics', scrapeIntervalSeconds: scrapeSeconds, dataDir: path.join(tmp, 'prometheus') });
      stopPrometheus = async () => {
        stopPrometheus = async () => undefined;
        signalPrometheus(prom.pid, 'SIGCONT');
        await prom.stop();
      };
      await prom.waitForSeries('beyla_network_flow_bytes_total', 5 * 60_000);
      prometheusUrl = prom.url;
      prometheusPid = prom.pid;
      prometheusNote = `a real Prometheus scraping the simulator's /__sim/metrics every ${scrapeSeconds} s; server refresh every ${options.prometheusRefreshSeconds} s`;
      log(`Prometheus up at ${prom.url}`);
    } catch (error) {
      await stopPrometheus();
      prometheusNote = `not configured: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`;
      log(`Prometheus: ${prometheusNote}`);
    }
  }

  // 2. The server, cold; the simulator's counters start with it (the cold-start lists).
  // Prometheus is paused until the cold sync is measured: the simulator renders its flow metrics
  // (hundreds of MiB a scrape at L) on the thread that serves the lists, which a real API server does not
  // (its flows come from agents on the nodes); scraping during the sync made it 2–5 times slower.
  if (prometheusPid !== null) signalPrometheus(prometheusPid, 'SIGSTOP');
  await resetSimStats(simUrl);
  const port = await freePort();
  const serverUrl = `http://127.0.0.1:${port}`;
  const serverStartedAt = performance.now();
  const server: Child = startChild('server', process.execPath, [...serverNodeArgs({ NODE_OPTIONS: options.serverNodeOptions ?? '' }), nextBin, 'start', '-p', String(port), '-H', '127.0.0.1'], {
    cwd: ROOT,
    env: childEnv({
      KUBECONFIG: kubeconfig,
      ZONESCOPE_ANALYSIS_LOG: '1',
      ...(prometheusUrl !== null
        ? { ZONESCOPE_PROMETHEUS_URL: prometheusUrl, ZONESCOPE_PROMETHEUS_REFRESH_SECONDS: String(options.prometheusRefreshSeconds), ZONESCOPE_PROMETHEUS_TIMEOUT_MS: '60000' }
        : {}),
      NODE_ENV: 'production',
      PORT: String(port),
      ZONESCOPE_DIST_DIR: distDir,
      ...(options.serverNodeOptions ? { NODE_OPTIONS: options.serverNodeOptions } : {}),
    }),
  });
  const analysisLines: AnalysisLogLine[] = [];
  server.onLine((line) => {
    const parsedLine = parseAnalysisLine(line);
    if (parsedLine) analysisLines.push(parsedLine);
  });
  let sawSyncing = false;
  const apiReady = await poll(async () => {
    const response = await timedRequest(`${serverUrl}/api/v1/cluster`, { keepBody: false, timeoutMs: 120_000 });
    if (response.status === 503) sawSyncing = true;
    return response.status === 200 ? response : null;
  }, 10 * 60_000, 250);
  if (!apiReady) throw new Error(`the server did not serve /api/v1/cluster within 10 minutes; last output:\n${server.lines.slice(-20).join('\n')}`);
  const overview = await poll(async () => {
    const response = await timedRequest(`${serverUrl}/`, { keepBody: false, timeoutMs: 120_000 });
    return response.status === 200 ? response : null;
  }, 5 * 60_000, 250);
  if (!overview) throw new Error('the overview page did not answer 200');
  const coldSyncSeconds = r1((performance.now() - serverStartedAt) / 1000);
  if (prometheusPid !== null) signalPrometheus(prometheusPid, 'SIGCONT');
  const firstClusterMs = r1(apiReady.ms);
  const firstOverviewMs = r1(overview.ms);
  const clusterAfterSyncMs = r1((await timedRequest(`${serverUrl}/api/v1/cluster`, { keepBody: false, timeoutMs: 120_000 })).ms);
  const clusterSummary = await getJson<{ cluster: { summary: { services: number } } }>(`${serverUrl}/api/v1/cluster`);
  log(`cold sync: ${coldSyncSeconds} s${sawSyncing ? ' (answered 503 syncing meanwhile)' : ''}; first 200 of /api/v1/cluster ${firstClusterMs} ms, the next ${clusterAfterSyncMs} ms; first 200 of / ${firstOverviewMs} ms`);
  if (prometheusUrl !== null) {
    // The warm phase measures the measured path: wait for the server's first Prometheus answer with
    // flows in it (Prometheus was paused during the sync, so its first scrapes, which create every
    // series, and the server's first mapping of them happen now, not during the warm phase).
    const state = await poll(async () => {
      const metrics = (await getJson<{ metrics?: { state: string; message: string } }>(`${serverUrl}/api/v1/cluster`)).metrics;
      return metrics && metrics.state !== 'pending' && metrics.state !== 'no-series' ? metrics : null;
    }, 5 * 60_000, 1000);
    log(`metrics source: ${state ? `${state.state} — ${state.message}` : 'still pending after 5 minutes'}`);
  }

  // What the phases request: the reference generator's bench Services, or picked from the cluster.
  const targets = realistic ? await discoverTargets(serverUrl, new Set([`${CHANGE_NAMESPACE}/${CHANGE_SERVICE}`])) : referenceTargets(BIG_SERVICES[options.scale]);
  const servicePath = targetPath(targets.service);
  const bigPath = targetPath(targets.big);
  log(`targets: ${targets.note}`);
  const targetFields = {
    serviceTarget: servicePath,
    serviceEndpoints: targets.service.readyEndpoints,
    bigServiceTarget: bigPath,
    bigServiceEndpoints: targets.big.readyEndpoints,
    targetsNote: targets.note,
    filterTexts: targets.filterTexts,
  };

  const runTraffic = (requests: number): Promise<TrafficFigures | null> =>
    trafficPhase({ serverUrl, requests, seconds: options.trafficSeconds, clientCounts: TRAFFIC_CLIENTS, servicePath, log }).catch((error: unknown) => {
      log(`traffic phase failed: ${error instanceof Error ? error.message : String(error)}`);
      return null;
    });
  const runMetrics = (): Promise<MetricsFigures | null> =>
    metricsPhase({ serverUrl, simUrl, requests: options.requests, seconds: options.metricsSeconds, rssMiB: () => treeRssMiB(server.pid).total, cpuMs: () => treeCpuMs(server.pid), log }).catch((error: unknown) => {
      log(`metrics phase failed: ${error instanceof Error ? error.message : String(error)}`);
      return null;
    });
  // The cold start's lists, a second after readiness (a second list right after sync counts too).
  await new Promise((r) => setTimeout(r, 1000));
  const coldStart = coldStartFigures(await simStats(simUrl));
  log(`cold start: lists per type (${coldStart.coldStartListsSource}) ${JSON.stringify(coldStart.coldStartLists)}${coldStart.coldStartConnections !== null ? `, ${coldStart.coldStartConnections} TCP connections` : ''}`);
  const header = { scale: options.scale, generator, scenario, services: clusterSummary.cluster.summary.services, coldSyncSeconds, firstClusterMs, clusterAfterSyncMs, firstOverviewMs, ...coldStart };

  if (options.metricsOnly) {
    const figures = await runMetrics();
    await stop(server);
    await stop(sim);
    console.log(`\nzonescope bench (metrics only) — ${scenario} (${clusterSummary.cluster.summary.services} Services), ${machine}\n`);
    if (figures !== null) console.log(metricsTable(figures));
    else console.log(`metrics phase failed; server output (last lines):\n${server.lines.slice(-15).join('\n')}`);
    return { json: { ...header, ...(figures ? metricsFields(figures) : {}), simStartSeconds, buildSeconds, machine }, ok: figures !== null };
  }
  if (options.trafficOnly) {
    const cluster = await measure(`${serverUrl}/api/v1/cluster`, options.requests);
    log(`api.cluster: p50 ${r1(cluster.p50)} ms, p95 ${r1(cluster.p95)} ms`);
    const figures = await runTraffic(options.requests);
    if (figures === null || figures.load.some((l) => l.errors > 0)) log(`server output (last lines):\n${server.lines.slice(-15).join('\n')}`);
    // The block's own compute cost, in-process (a short analyze-all run).
    const inProcess = options.analyzeRuns > 0 ? await runAnalyzeAll(kubeconfig, 2) : null;
    await stop(server);
    await stopPrometheus();
    await stop(sim);
    console.log(`\nzonescope bench (traffic only) — ${scenario} (${clusterSummary.cluster.summary.services} Services), ${machine}\n`);
    console.log(latencyTable([{ label: 'GET /api/v1/cluster', stats: cluster, budget: realistic ? REALISTIC_GOALS.clusterP95Ms : GOALS.clusterP95Ms }]));
    if (figures !== null) console.log(`\n${trafficTable(figures, cluster.p95, prometheusNote)}`);
    if (inProcess?.trafficBlockMs !== undefined) console.log(`  cluster traffic block alone, in-process         ${r1(inProcess.trafficBlockMs)} ms compute, ${r1(inProcess.trafficBlockJsonMs ?? Number.NaN)} ms JSON (${inProcess.serviceShapes} shapes; full analysis ${r1(inProcess.analyzeAllMs)} ms)`);
    return {
      json: {
        ...header,
        clusterP50Ms: r1(cluster.p50),
        clusterP95Ms: r1(cluster.p95),
        ...trafficFields(figures, prometheusNote),
        ...(inProcess?.trafficBlockMs !== undefined ? { trafficBlockComputeMs: r1(inProcess.trafficBlockMs), trafficBlockJsonMs: r1(inProcess.trafficBlockJsonMs ?? Number.NaN), analyzeAllMs: r1(inProcess.analyzeAllMs) } : {}),
        machine,
      },
      ok: true,
    };
  }

  // 3. Warm phase: sequential timings, then concurrent clients; simulator requests counted around it.
  await resetSimStats(simUrl);
  const n = options.requests;
  const api = {
    cluster: `${serverUrl}/api/v1/cluster`,
    services: `${serverUrl}/api/v1/services?limit=100&offset=0`,
    service: `${serverUrl}/api/v1/services/${servicePath}`,
    big: `${serverUrl}/api/v1/services/${bigPath}`,
  };
  const pages = {
    overview: `${serverUrl}/`,
    services: `${serverUrl}/services`,
    service: `${serverUrl}/services/${servicePath}`,
    big: `${serverUrl}/services/${bigPath}`,
  };
  const stats: Record<string, LatencyStats> = {};
  for (const [label, url] of [...Object.entries(api).map(([k, u]) => [`api.${k}`, u]), ...Object.entries(pages).map(([k, u]) => [`page.${k}`, u])] as [string, string][]) {
    stats[label] = await measure(url, n);
    log(`${label}: p50 ${r1(stats[label].p50)} ms, p95 ${r1(stats[label].p95)} ms`);
  }
  const concurrent: Timed[] = [];
  const urls = [api.cluster, api.services, api.service, pages.overview, pages.services];
  await Promise.all(
    Array.from({ length: options.clients }, async (_, c) => {
      for (let i = 0; i < Math.max(5, Math.ceil(n / 4)); i++) concurrent.push(await timedRequest(urls[(c + i) % urls.length] as string, { keepBody: false }));
    }),
  );
  stats.concurrent = latencyStats(concurrent);
  const afterWarm = await simStats(simUrl);
  const readPath = nonWatchRequests(afterWarm);
  const watchesPerType = Math.max(0, ...Object.values(afterWarm.openWatches));
  const rssAfterWarmRaw = treeRssMiB(server.pid).total;
  const rssAfterWarmMiB = r1(rssAfterWarmRaw);
  // Steady RSS: after 10 s without requests (V8 shrinks its heap when idle), the median of 5 samples 1 s apart.
  await new Promise((r) => setTimeout(r, 10_000));
  const rssSamples: number[] = [];
  for (let i = 0; i < 5; i++) {
    rssSamples.push(treeRssMiB(server.pid).total);
    await new Promise((r) => setTimeout(r, 1000));
  }
  const rssMiB = r1([...rssSamples].sort((a, b) => a - b)[2] as number);
  // Peak RSS (VmHWM) so far: cold sync, the first full analysis, the warm and concurrency phases and
  // the idle samples. Read after every RSS figure it must bound (a high-water mark read before an RSS
  // sample can be below it: the heap may grow in between). The kernel updates VmHWM lazily (on unmap
  // and at exit, not when pages are dropped with madvise), and a worker process may have exited since,
  // so the peak is also at least every RSS figure the bench saw itself.
  const rssPeakMiB = r1(Math.max(treeHwmMiB(server.pid), rssAfterWarmRaw, ...rssSamples));
  log(`read path: ${readPath.total} API requests besides watches (${watchRequests(afterWarm)} watch requests); open watches ${JSON.stringify(afterWarm.openWatches)}; RSS ${rssMiB} MiB steady, peak ${rssPeakMiB} MiB, ${rssAfterWarmMiB} MiB right after the warm phase`);

  // 4. Change latency: flip one endpoint of the benchmark's slice until the Service API shows it.
  const serviceUrl = `${serverUrl}/api/v1/services/${CHANGE_NAMESPACE}/${CHANGE_SERVICE}`;
  const readyNow = async () => (await getJson<{ observed: { readyEndpoints: number } }>(serviceUrl)).observed.readyEndpoints;
  const baseline = await readyNow();
  const latencies: number[] = [];
  const simAcks: number[] = [];
  let reanalysed: number | null = null;
  for (let i = 0; i < 6; i++) {
    const ready = i % 2 === 1;
    const linesBefore = analysisLines.length;
    const sentAt = performance.now();
    await setChangeEndpointReady(simUrl, 0, ready);
    // The clock starts when the simulator has accepted the patch (as an API server's write is
    // committed before its watchers hear of it): at L the simulator itself can take seconds to
    // answer while it renders its own metrics for Prometheus, which is not the dashboard's latency.
    const acceptedAt = performance.now();
    simAcks.push(acceptedAt - sentAt);
    const want = ready ? baseline : baseline - 1;
    const seen = await poll(async () => ((await readyNow()) === want ? true : null), 5000, 10);
    latencies.push(seen ? performance.now() - acceptedAt : 5000);
    // The Service API analyses its own Service; the cluster pass (what the count below reads from the
    // server's analysis log) runs on the next cluster-wide read.
    await timedRequest(api.cluster, { keepBody: false });
    await new Promise((r) => setTimeout(r, 100));
    const passes = analysisLines.slice(linesBefore).filter((l) => !l.full);
    if (passes.length > 0) reanalysed = Math.max(reanalysed ?? 0, ...passes.map((l) => l.analysed));
  }
  const sortedLatencies = [...latencies].sort((a, b) => a - b);
  log(`change latency: ${latencies.map((l) => Math.round(l)).join(', ')} ms after the simulator accepted each patch (which took ${simAcks.map((l) => Math.round(l)).join(', ')} ms); Services re-analysed per change: ${reanalysed ?? 'unknown'}`);

  // 4b. The traffic figures (issue 13).
  const traffic = options.trafficSeconds > 0 ? await runTraffic(n) : null;

  // 4c. The exporter's figures (issue 14): nothing has scraped /metrics yet.
  const metricsFigures = options.metricsSeconds > 0 ? await runMetrics() : null;

  // 5. kubectl against the same simulator.
  const kubectlListMs = options.kubectl ? await kubectlList(kubeconfig) : null;
  if (kubectlListMs !== null) log(`kubectl get endpointslices -A -o json: ${kubectlListMs} ms`);

  // 5b. The browser: Services page DOM size, sort and filter; Service view LCP.
  let browserResult: BrowserResult | null = null;
  if (options.browser) {
    browserResult = await browserPhase({ serverUrl, servicePaths: [`/services/${servicePath}`, `/services/${bigPath}`], filterTexts: targets.filterTexts, lcpLoads: options.lcpLoads, log }).catch((error: unknown) => {
      log(`browser phase failed: ${error instanceof Error ? error.message : String(error)}`);
      return null;
    });
  }

  // 6. The full analysis in-process, then the analyze command end to end (both sync on their own).
  const analyzeAll = options.analyzeRuns > 0 ? await runAnalyzeAll(kubeconfig, options.analyzeRuns) : null;
  const analyzeCommand = options.analyzeRuns > 0 ? await runAnalyzeCommand(kubeconfig, path.join(tmp, 'analyze.json')) : null;
  if (analyzeCommand !== null) log(`npm run analyze -- --format json: ${analyzeCommand.seconds} s, ${Math.round(analyzeCommand.bytes / 1024)} KiB of JSON`);

  // 7. Churn.
  let churnResult: Awaited<ReturnType<typeof churn>> | null = null;
  if (options.churnMinutes > 0) {
    const pods = await churnPods(simUrl, 10, 20);
    log(`churn: ${options.churnMinutes} min at ${options.churnRate} changes/s over ${pods.length} pods and the benchmark slice`);
    churnResult = await churn({ simUrl, serverUrl, pods, minutes: options.churnMinutes, rate: options.churnRate, rssMiB: () => treeRssMiB(server.pid).total, log });
  }
  const rssPeakRunMiB = r1(Math.max(treeHwmMiB(server.pid), rssPeakMiB, churnResult?.rssMaxMiB ?? 0));

  const fullPass = analysisLines.find((l) => l.full);
  const overviewP50 = stats['page.overview']?.p50 ?? Number.NaN;
  const clusterP50 = stats['api.cluster']?.p50 ?? Number.NaN;
  const servicePage = `/services/${servicePath}`;
  const bigPage = `/services/${bigPath}`;
  const partial: Omit<BenchResult, 'goalsMissed'> = {
    ...header,
    clusterP50Ms: r1(clusterP50),
    clusterP95Ms: r1(stats['api.cluster']?.p95 ?? Number.NaN),
    servicesP50Ms: r1(stats['api.services']?.p50 ?? Number.NaN),
    servicesP95Ms: r1(stats['api.services']?.p95 ?? Number.NaN),
    serviceP50Ms: r1(stats['api.service']?.p50 ?? Number.NaN),
    serviceP95Ms: r1(stats['api.service']?.p95 ?? Number.NaN),
    bigServiceP50Ms: r1(stats['api.big']?.p50 ?? Number.NaN),
    bigServiceP95Ms: r1(stats['api.big']?.p95 ?? Number.NaN),
    ...targetFields,
    overviewPageP50Ms: r1(overviewP50),
    overviewPageP95Ms: r1(stats['page.overview']?.p95 ?? Number.NaN),
    servicesPageP95Ms: r1(stats['page.services']?.p95 ?? Number.NaN),
    servicePageP95Ms: r1(stats['page.service']?.p95 ?? Number.NaN),
    bigServicePageP95Ms: r1(stats['page.big']?.p95 ?? Number.NaN),
    concurrentP95Ms: r1(stats.concurrent.p95),
    analyzeAllMs: analyzeAll ? r1(analyzeAll.analyzeAllMs) : null,
    analyzeAllEagerMs: analyzeAll ? r1(analyzeAll.analyzeAllEagerMs) : null,
    analyzeCliMs: analyzeAll ? r1(analyzeAll.analyzeAllEagerMs) : null,
    analyzeCommandSeconds: analyzeCommand?.seconds ?? null,
    analyzeCommandBytes: analyzeCommand?.bytes ?? null,
    analyzeAllDistinctMs: analyzeAll ? r1(analyzeAll.analyzeAllDistinctMs) : null,
    serviceShapes: analyzeAll ? analyzeAll.serviceShapes : null,
    analyzeIncrementalMs: analyzeAll ? r1(analyzeAll.incrementalMs) : null,
    ...(analyzeAll?.trafficBlockMs !== undefined ? { trafficBlockComputeMs: r1(analyzeAll.trafficBlockMs), trafficBlockJsonMs: r1(analyzeAll.trafficBlockJsonMs ?? Number.NaN) } : {}),
    serverFullAnalysisMs: fullPass ? r1(fullPass.ms) : null,
    changeLatencyMs: r1(sortedLatencies[sortedLatencies.length - 1] ?? Number.NaN),
    changeLatencyMedianMs: r1(sortedLatencies[Math.floor(sortedLatencies.length / 2)] ?? Number.NaN),
    changeSimAckMaxMs: r1(Math.max(...simAcks)),
    changeReanalysedServices: reanalysed,
    rssMiB,
    rssPeakMiB,
    rssPeakRunMiB,
    rssAfterWarmMiB,
    readPathApiRequests: readPath.total,
    watchesPerType,
    kubectlListMs,
    overviewVsKubectl: kubectlListMs !== null ? r1(kubectlListMs / overviewP50) : null,
    overviewApiVsKubectl: kubectlListMs !== null ? r1(kubectlListMs / clusterP50) : null,
    servicesRows: browserResult?.servicesRows ?? null,
    servicesDomNodes: browserResult?.servicesDomNodes ?? null,
    sortMaxMs: browserResult?.sortMaxMs ?? null,
    filterMaxMs: browserResult?.filterMaxMs ?? null,
    serviceLcpMs: browserResult?.lcpMs[servicePage] ?? null,
    bigServiceLcpMs: browserResult?.lcpMs[bigPage] ?? null,
    ...(churnResult
      ? { churnRssGrowthMiB: churnResult.rssGrowthMiB, churnRssMaxMiB: churnResult.rssMaxMiB, churnChanges: churnResult.changesSent, churnReadP95Ms: r1(churnResult.readsDuringChurn.p95), churnMinutes: churnResult.minutes }
      : {}),
    ...trafficFields(traffic, prometheusNote),
    ...(metricsFigures ? metricsFields(metricsFigures) : {}),
    simStartSeconds,
    buildSeconds,
    machine,
  };
  const result: BenchResult = { ...partial, goalsMissed: missedGoals(partial) };

  await stop(server);
  await stopPrometheus();
  await stop(sim);

  const clusterBudget = realistic ? REALISTIC_GOALS.clusterP95Ms : GOALS.clusterP95Ms;
  const biggest = (label: string) => `${label}${targets.big.readyEndpoints < 5000 ? ' (biggest)' : ''}`;
  console.log(`\nzonescope bench — ${scenario} (${result.services} Services), ${machine}\n`);
  console.log(
    latencyTable([
      { label: 'GET /api/v1/cluster', stats: stats['api.cluster'] as LatencyStats, budget: clusterBudget },
      { label: 'GET /api/v1/services (first page)', stats: stats['api.services'] as LatencyStats, budget: GOALS.servicesP95Ms },
      { label: `GET /api/v1/services/${servicePath}`, stats: stats['api.service'] as LatencyStats, budget: GOALS.serviceP95Ms },
      { label: biggest(`GET /api/v1/services/${bigPath}`), stats: stats['api.big'] as LatencyStats, budget: GOALS.bigServiceP95Ms },
      { label: 'page /', stats: stats['page.overview'] as LatencyStats, budget: GOALS.clusterP95Ms },
      { label: 'page /services', stats: stats['page.services'] as LatencyStats, budget: GOALS.servicesP95Ms },
      { label: `page ${servicePage}`, stats: stats['page.service'] as LatencyStats, budget: GOALS.serviceP95Ms },
      { label: biggest(`page ${bigPage}`), stats: stats['page.big'] as LatencyStats, budget: GOALS.bigServiceP95Ms },
      { label: `${options.clients} concurrent clients (mixed)`, stats: stats.concurrent, budget: null },
      ...(churnResult ? [{ label: 'reads during churn (cluster + Service)', stats: churnResult.readsDuringChurn, budget: null }] : []),
    ]),
  );
  console.log('');
  console.log(summaryTable(result));
  if (readPath.total > 0) console.log(`\nnon-watch API requests during the warm phase: ${JSON.stringify(readPath.byResourceVerb)}`);
  if (traffic !== null) console.log(`\n${trafficTable(traffic, stats['api.cluster']?.p95 ?? Number.NaN, prometheusNote)}`);
  if (metricsFigures !== null) console.log(`\n${metricsTable(metricsFigures)}`);
  if (churnResult) console.log(`\nchurn: ${churnResult.changesSent} changes (${churnResult.changeErrors} failed); RSS samples (MiB): ${churnResult.rssSamplesMiB.join(' ')}`);
  console.log(result.goalsMissed.length === 0 ? `\n${generator}: all goals met` : `\n${generator}: goals missed: ${result.goalsMissed.join('; ')}`);
  return { json: result as unknown as Record<string, unknown>, ok: true };
}

/** `--scale-checks [CASE…]`: the full-scale runs of what the unit tests check small (scripts/bench/scale-checks.ts). */
async function scaleChecks(argv: readonly string[]): Promise<number> {
  const rest = argv.filter((a) => a !== '--scale-checks' && a !== '--');
  const flag = rest.find((a) => a.startsWith('-'));
  if (flag !== undefined) {
    console.error(`bench: --scale-checks takes case names only, not "${flag}"\n\n${USAGE}`);
    return 2;
  }
  const { runScaleChecks } = await import('./bench/scale-checks');
  const machine = `${os.cpus().length} cores, ${Math.round(os.totalmem() / 2 ** 30)} GiB, Node ${process.versions.node}`;
  console.log(`zonescope scale checks, in-process, ${machine}\n`);
  const results = await runScaleChecks(rest);
  const failed = results.filter((r) => !r.ok).map((r) => r.name);
  console.log(failed.length === 0 ? '\nall scale checks hold' : `\nscale checks failed: ${failed.join(', ')}`);
  console.log(JSON.stringify({ scaleChecks: results, machine }));
  return failed.length === 0 ? 0 : 1;
}

async function main(argv: readonly string[]): Promise<number> {
  if (argv.includes('--scale-checks')) return scaleChecks(argv);
  const parsed = parseBenchArgs(argv);
  if (parsed === 'help') {
    console.log(USAGE);
    return 0;
  }
  if (typeof parsed === 'string') {
    console.error(`bench: ${parsed}\n\n${USAGE}`);
    return 2;
  }
  const options = parsed;
  const deadline = setTimeout(() => {
    log(`deadline of ${options.timeoutMinutes} min reached; stopping`);
    void Promise.all([stopAll(1500), stopPrometheus()]).finally(() => process.exit(1));
  }, options.timeoutMinutes * 60_000);
  const nextBin = require.resolve('next/dist/bin/next');
  // The build folder: the caller's ZONESCOPE_DIST_DIR, else the benchmark's own.
  const distDir = process.env.ZONESCOPE_DIST_DIR || BENCH_DIST_DIR;
  const machine = `${os.cpus().length} cores, ${Math.round(os.totalmem() / 2 ** 30)} GiB, Node ${process.versions.node}`;
  const generators = generatorsOf(options.generator);
  log(`scale ${options.scale}, ${generators.join(' then ')}, on ${machine}; deadline ${options.timeoutMinutes} min${options.serverNodeOptions ? `; server NODE_OPTIONS=${options.serverNodeOptions}` : ''}`);

  // The production build the e2e suite shares (once, before any simulator starts; under the
  // folder's lock, so an e2e run building it at the same time is waited for, not raced).
  const buildSeconds = await withBuildLock(
    ROOT,
    distDir,
    async (): Promise<number | null> => {
      if (options.build !== 'always' && (options.build !== 'auto' || isBuildCurrent(ROOT, distDir))) return null;
      log(`building into ${distDir} (next build)…`);
      const startedAt = performance.now();
      let output: string[] = [];
      const code = await buildWithStamp(ROOT, distDir, async () => {
        const build = await run('build', process.execPath, [nextBin, 'build'], { cwd: ROOT, env: childEnv({ NODE_ENV: 'production', ZONESCOPE_DIST_DIR: distDir }), timeoutMs: 20 * 60_000 });
        output = build.output;
        return build.code;
      });
      if (code !== 0) throw new Error(`next build failed (${code}):\n${output.slice(-30).join('\n')}`);
      const seconds = r1((performance.now() - startedAt) / 1000);
      log(`built in ${seconds} s`);
      return seconds;
    },
    (lock) => log(`waiting for the build another process is making (${lock})…`),
  );
  if (buildSeconds === null && !hasBuild(ROOT, distDir)) {
    throw new Error(`no production build in ${distDir} and --build never`);
  } else if (buildSeconds === null && options.build === 'never' && !isBuildCurrent(ROOT, distDir)) {
    log(`warning: ${distDir} was built from other sources than the current ones (--build never)`);
  }

  // One generator after the other: one simulator at a time.
  const results: Partial<Record<Generator, GeneratorRun>> = {};
  for (const generator of generators) {
    try {
      results[generator] = await runGenerator({ options, nextBin, distDir, buildSeconds, machine }, generator);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      log(`${generator} run failed: ${message}`);
      await Promise.all([stopAll(1500), stopPrometheus()]);
      results[generator] = { json: { scale: options.scale, generator, error: message.split('\n')[0] }, ok: false };
    }
  }
  clearTimeout(deadline);
  closeConnections();
  closeScrapeConnections();

  const ok = generators.every((g) => results[g]?.ok === true);
  let json: string;
  if (generators.length === 1) {
    json = JSON.stringify(results[generators[0] as Generator]?.json ?? {});
  } else {
    // Both: one object per generator, and every missed goal named with its generator.
    const goalsMissed = generators.flatMap((g) => ((results[g]?.json.goalsMissed as string[] | undefined) ?? []).map((goal) => `${g}: ${goal}`));
    json = JSON.stringify({ scale: options.scale, generator: 'both', reference: results.reference?.json ?? null, realistic: results.realistic?.json ?? null, goalsMissed });
  }
  if (options.jsonOut) writeFileSync(options.jsonOut, `${json}\n`);
  console.log(json);
  return ok ? 0 : 1;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  async (error: unknown) => {
    console.error(`bench: ${error instanceof Error ? error.message : String(error)}`);
    await Promise.all([stopAll(1500), stopPrometheus()]);
    process.exit(1);
  },
);
