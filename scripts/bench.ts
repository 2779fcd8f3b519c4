/**
 * `npm run bench -- --scale S|M|L [--generator reference|realistic|both] [--requests N] [--churn-minutes M]`:
 * the scale benchmark of issues 6 and 17. For each generated cluster — the reference one
 * (`generated:S|M|L`, equal Services) and the realistic one (`generated:realistic-S|M|L`, an
 * untidy EKS dump where almost no two Services look alike), one after the other, one simulator at
 * a time — it starts the simulator and the production server against it (both as child processes,
 * stopped on exit, Ctrl-C and at the deadline; scripts/bench/simulator.ts, server.ts), then measures:
 *
 * 0. the cold sync's floor (issue 30; scripts/bench/list-floor.ts) — before the server starts, every
 *    list it makes at start fetched as plain HTTP (same pages, same compression) and parsed,
 *    nothing else, in a process of its own: `floorSeconds`, and `coldSyncFloorRatio` below;
 * 1. cold sync — server start until `/api/v1/cluster` answers 200 (every type synced) and the
 *    overview page is served; the first 200 of each timed on its own, a fresh `/api/v1/cluster`
 *    right after, and the lists the server started per resource type (`/__sim/stats`)
 *    (scripts/bench/server.ts);
 * 2. warm latencies at the HTTP client (p50/p95 over `--requests` sequential requests) of the API
 *    and the pages, then a concurrency phase with several clients — on the reference cluster's
 *    bench Services, on the realistic one on Services picked from it (scripts/bench/targets.ts);
 * 3. simulator request counts over the warm phase (read path: no API requests besides watches)
 *    and open watches per resource type;
 * 4. server RSS (VmRSS of the process tree, steady) and its peak (VmHWM) (2–4:
 *    scripts/bench/warm-phase.ts);
 * 5. change latency — an EndpointSlice edited on the simulator until the Service API shows it —
 *    and how many Services the server re-analysed for it (its analysis log;
 *    scripts/bench/change-latency.ts);
 * 6. the full-cluster analysis in-process (`scripts/bench/analyze-all.ts`), and a real
 *    `npm run analyze -- --format json` end to end (scripts/bench/timed-commands.ts);
 * 7. `kubectl get endpointslices -A -o json` against the same simulator (the same);
 * 8. optionally churn at 20 changes/s with RSS sampled every 10 s (scripts/bench/churn.ts);
 * 9. issue 13's traffic figures (`scripts/bench/traffic.ts`): the `traffic` block's cost on
 *    `/api/v1/cluster` and Prometheus queries per minute with 1 and 20 clients, against a real
 *    Prometheus (`sim/prometheus.ts`) scraping the simulator's traffic metrics when the binary is
 *    installed (else unconfigured, and the output says so; scripts/bench/prometheus.ts).
 *    `--traffic-only` runs just the cold sync, `/api/v1/cluster` and this phase
 *    (scripts/bench/focused-runs.ts).
 * 10. issue 14's exporter figures (`scripts/bench/metrics.ts`): `/metrics` series and bytes, the
 *    first and warm scrapes beside `/api/v1/cluster` and a page view, scrapes at 1/s while a reader
 *    requests `/api/v1/cluster`, simulator requests meanwhile (0), RSS, `promtool check metrics`.
 *    `--metrics-only` runs just the cold sync and this phase (without Prometheus; the same).
 *
 * 11. where chromium is installed, the browser phase (scripts/bench/browser.ts): the Services
 *    page's DOM size, sort and filter, and the Service view's largest contentful paint.
 *
 * `npm run bench -- --scale-checks [CASE…]` runs instead, in this process, the full-scale checks of
 * behaviours the unit tests check at a small size (scripts/bench/scale-checks.ts: 100,000 zones,
 * 10,000 Services, a 150,000-object dump, …), printing each one's time and heap.
 *
 * Issue 6's goals are checked on both generators, issue 17's on the realistic one
 * (scripts/bench/report.ts). Prints each generator's tables (scripts/bench/generator-report.ts),
 * then one JSON object as the last line: the generator's figures, or with `both` `{ scale,
 * generator: "both", reference, realistic, goalsMissed }` (fields in BENCHMARKS.md).
 *
 * This file is the entry point and the order of things: the production build
 * (scripts/bench/production-build.ts), then per generator its processes and phases in the order
 * they run. Each step is its own module in scripts/bench/ (its README maps them).
 */
import { appendFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import type { BenchOptions, Generator } from './bench/args';
import { BENCH_DIST_DIR, generatorsOf, parseBenchArgs, USAGE } from './bench/args';
import type { BrowserResult } from './bench/browser';
import { browserPhase } from './bench/browser';
import { changeLatencyPhase } from './bench/change-latency';
import { churn } from './bench/churn';
import { CHANGE_NAMESPACE, CHANGE_SERVICE, churnPods } from './bench/cluster';
import { log, machineLine, ROOT } from './bench/environment';
import type { SyncedRun } from './bench/focused-runs';
import { metricsOnlyRun, trafficOnlyRun } from './bench/focused-runs';
import type { GeneratorFigures, GeneratorRun, RunHeader } from './bench/generator-report';
import { generatorResult, printGeneratorReport } from './bench/generator-report';
import { closeConnections } from './bench/http';
import type { MetricsFigures } from './bench/metrics';
import { metricsPhase } from './bench/metrics';
import { treeCpuMs, treeHwmMiB, treeRssMiB, whileStopped } from './bench/process-tree';
import { stop, stopAll } from './bench/processes';
import { ensureProductionBuild } from './bench/production-build';
import { startRunPrometheus, stopPrometheus } from './bench/prometheus';
import { r1 } from './bench/report';
import { closeScrapeConnections } from './bench/scrape';
import { coldStartLists, startServerCold } from './bench/server';
import { startSimulator } from './bench/simulator';
import { discoverTargets, REFERENCE_BIG_SERVICES, referenceTargets, targetPath } from './bench/targets';
import { floorFields, measureFloor, settleSimulator } from './bench/list-floor';
import { kubectlList, runAnalyzeAll, runAnalyzeCommand } from './bench/timed-commands';
import type { TrafficFigures } from './bench/traffic';
import { trafficPhase } from './bench/traffic';
import { warmPhase } from './bench/warm-phase';

const require = createRequire(import.meta.url);

/** Clients of the two load levels of the queries-per-minute measurement. */
const TRAFFIC_CLIENTS = [1, 20] as const;

/** What the whole run shares between generators. */
interface RunContext {
  readonly options: BenchOptions;
  readonly nextBin: string;
  readonly distDir: string;
  readonly buildSeconds: number | null;
  readonly machine: string;
}

/** One generator's run: its processes started, its phases in order, its report printed. */
async function runGenerator(context: RunContext, generator: Generator): Promise<GeneratorRun> {
  const { options, nextBin, distDir, buildSeconds, machine } = context;
  const tmp = path.join(ROOT, '.bench-tmp', `run-${options.scale}-${generator}-${process.pid}`);
  mkdirSync(tmp, { recursive: true });
  const kubeconfig = path.join(tmp, 'kubeconfig');
  const realistic = generator === 'realistic';

  // 1. The simulator with the generated cluster.
  const sim = await startSimulator({ generator, scale: options.scale, kubeconfig });

  // 1b. A real Prometheus scraping the simulator's traffic metrics (issue 13), when installed.
  const prometheus = await startRunPrometheus(options, sim.port, path.join(tmp, 'prometheus'));

  // 1c. The cold sync's floor (issue 30): every list the server makes, fetched and parsed in a
  // process of its own, nothing else — before the server starts and with Prometheus paused, so
  // nothing competes with it; its second pass finds the simulator as the server will (list-floor.ts).
  prometheus.pause();
  const floor = options.floor ? await measureFloor({ kubeconfig, simPid: sim.child.pid, simUrl: sim.url, loadAverage: os.loadavg()[0] ?? 0 }) : null;

  // 2. The server, cold (Prometheus paused meanwhile); the simulator's counters start with it.
  const server = await startServerCold({ options, nextBin, distDir, kubeconfig, simUrl: sim.url, prometheus, simPid: sim.child.pid });
  const serverUrl = server.url;
  // The server's lines from here on, for reading what it did between the figures (`--server-log`).
  const serverLog = options.serverLog;
  if (serverLog !== null) server.child.onLine((line) => appendFileSync(serverLog, `${Math.round(performance.now())} ${line}\n`));

  // What the phases request: the reference generator's bench Services, or picked from the cluster.
  const targets = realistic ? await discoverTargets(serverUrl, new Set([`${CHANGE_NAMESPACE}/${CHANGE_SERVICE}`])) : referenceTargets(REFERENCE_BIG_SERVICES[options.scale]);
  const servicePath = targetPath(targets.service);
  const bigPath = targetPath(targets.big);
  log(`targets: ${targets.note}`);

  const runTraffic = (requests: number): Promise<TrafficFigures | null> =>
    trafficPhase({ serverUrl, requests, seconds: options.trafficSeconds, clientCounts: TRAFFIC_CLIENTS, servicePath, log }).catch((error: unknown) => {
      log(`traffic phase failed: ${error instanceof Error ? error.message : String(error)}`);
      return null;
    });
  const runMetrics = (): Promise<MetricsFigures | null> =>
    metricsPhase({ serverUrl, simUrl: sim.url, requests: options.requests, seconds: options.metricsSeconds, rssMiB: () => treeRssMiB(server.child.pid).total, cpuMs: () => treeCpuMs(server.child.pid), log }).catch((error: unknown) => {
      log(`metrics phase failed: ${error instanceof Error ? error.message : String(error)}`);
      return null;
    });
  // The cold start's lists, a second after readiness.
  const coldStart = await coldStartLists(sim.url, server.child.lines);
  const { coldSync } = server;
  const header: RunHeader = {
    scale: options.scale,
    generator,
    scenario: sim.scenario,
    services: coldSync.services,
    coldSyncSeconds: coldSync.coldSyncSeconds,
    firstClusterMs: coldSync.firstClusterMs,
    clusterAfterSyncMs: coldSync.clusterAfterSyncMs,
    firstOverviewMs: coldSync.firstOverviewMs,
    coldSyncServerCpuSeconds: coldSync.coldSyncServerCpuSeconds,
    coldSyncSimCpuSeconds: coldSync.coldSyncSimCpuSeconds,
    coldSyncLoadAverage: coldSync.coldSyncLoadAverage,
    ...(floor !== null ? floorFields(floor, coldSync.coldSyncSeconds) : {}),
    ...coldStart,
  };

  const synced: SyncedRun = { options, sim, server, kubeconfig, header, prometheusNote: prometheus.note, buildSeconds, machine, runTraffic, runMetrics };
  if (options.metricsOnly) return metricsOnlyRun(synced);
  if (options.trafficOnly) return trafficOnlyRun(synced);

  // 3. Warm phase: sequential timings, then concurrent clients; simulator requests counted around it; RSS.
  const warm = await warmPhase({ serverUrl, simUrl: sim.url, serverPid: server.child.pid, servicePath, bigPath, requests: options.requests, clients: options.clients, onPart: (part) => server.rss.enter(part) });
  log(`server RSS by phase so far (MiB, highest sample every 250 ms): ${server.rss.line()}`);
  server.rss.enter('after the warm phase');

  // 4. Change latency: flip one endpoint of the benchmark's slice until the Service API shows it.
  const change = await changeLatencyPhase({ serverUrl, simUrl: sim.url, analysisLines: server.analysisLines });

  // 4b. The traffic figures (issue 13).
  const traffic = options.trafficSeconds > 0 ? await runTraffic(options.requests) : null;

  // 4c. The exporter's figures (issue 14): nothing has scraped /metrics yet.
  const metrics = options.metricsSeconds > 0 ? await runMetrics() : null;

  // 5. kubectl against the same simulator.
  const kubectlListMs = options.kubectl ? await kubectlList(kubeconfig) : null;
  if (kubectlListMs !== null) log(`kubectl get endpointslices -A -o json: ${kubectlListMs} ms`);

  // 5b. The browser: Services page DOM size, sort and filter; Service view LCP.
  let browser: BrowserResult | null = null;
  if (options.browser) {
    browser = await browserPhase({ serverUrl, servicePaths: [`/services/${servicePath}`, `/services/${bigPath}`], filterTexts: targets.filterTexts, lcpLoads: options.lcpLoads, log }).catch((error: unknown) => {
      log(`browser phase failed: ${error instanceof Error ? error.message : String(error)}`);
      return null;
    });
  }

  // 6. The full analysis in-process, then the analyze command end to end (both sync on their own).
  //    Prometheus is paused as during the cold sync the command is judged against: its scrapes make
  //    the simulator render ~145k flow series every 15 s at L, and the server re-query it, on the
  //    same two cores (they made the command 35 s against 24 s without them). The in-process runs
  //    time the engine alone: the dashboard's server is stopped (SIGSTOP) meanwhile, and the child
  //    lets the simulator collect its garbage after the sync (analyze-all.ts). The command is
  //    judged against the cold sync, so it runs as the cold sync did: the simulator settled first
  //    (the in-process child's sync left it a collection of its multi-GiB heap, 13–22 s on a slow
  //    host, that otherwise lands in the command's sync) and nothing else working, the server
  //    still stopped.
  prometheus.pause();
  const { analyzeAll, analyzeCommand } = await (async () => {
    try {
      if (options.analyzeRuns === 0) return { analyzeAll: null, analyzeCommand: null };
      return await whileStopped(server.child.pid, async () => {
        const inProcess = await runAnalyzeAll(kubeconfig, options.analyzeRuns, { simUrl: sim.url, simPid: sim.child.pid });
        log(`simulator quiet before npm run analyze ${await settleSimulator(sim.url, sim.child.pid)}`);
        return { analyzeAll: inProcess, analyzeCommand: await runAnalyzeCommand(kubeconfig, path.join(tmp, 'analyze.json')) };
      });
    } finally {
      prometheus.resume();
    }
  })();
  if (analyzeCommand !== null) log(`npm run analyze -- --format json: ${analyzeCommand.seconds} s, ${Math.round(analyzeCommand.bytes / 1024)} KiB of JSON`);

  // 7. Churn.
  let churnResult: Awaited<ReturnType<typeof churn>> | null = null;
  if (options.churnMinutes > 0) {
    const pods = await churnPods(sim.url, 10, 20);
    log(`churn: ${options.churnMinutes} min at ${options.churnRate} changes/s over ${pods.length} pods and the benchmark slice`);
    churnResult = await churn({ simUrl: sim.url, serverUrl, pods, minutes: options.churnMinutes, rate: options.churnRate, rssMiB: () => treeRssMiB(server.child.pid).total, log });
  }
  server.rss.stop();
  log(`server RSS by phase (MiB, highest sample every 250 ms; the phases after the warm one together): ${server.rss.line()}`);
  const rssPeakRunMiB = r1(Math.max(treeHwmMiB(server.child.pid), warm.rssPeakMiB, churnResult?.rssMaxMiB ?? 0));
  const fullPass = server.analysisLines.find((l) => l.full);

  const figures: GeneratorFigures = {
    header,
    targets,
    warm,
    clients: options.clients,
    change,
    analyzeAll,
    analyzeCommand,
    serverFullAnalysisMs: fullPass ? r1(fullPass.ms) : null,
    rssPeakRunMiB,
    kubectlListMs,
    browser,
    churn: churnResult,
    traffic,
    prometheusNote: prometheus.note,
    metrics,
    simStartSeconds: sim.startSeconds,
    buildSeconds,
    machine,
  };
  const result = generatorResult(figures);

  await stop(server.child);
  await stopPrometheus();
  await stop(sim.child);

  printGeneratorReport(generator, result, figures);
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
  const machine = machineLine();
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
  const machine = machineLine();
  const generators = generatorsOf(options.generator);
  log(`scale ${options.scale}, ${generators.join(' then ')}, on ${machine}; deadline ${options.timeoutMinutes} min${options.serverNodeOptions ? `; server NODE_OPTIONS=${options.serverNodeOptions}` : ''}`);

  // The production build the e2e suite shares (once, before any simulator starts; under the
  // folder's lock, so an e2e run building it at the same time is waited for, not raced).
  const buildSeconds = await ensureProductionBuild({ build: options.build, distDir, nextBin });

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
