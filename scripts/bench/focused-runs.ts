/**
 * The two cut-down runs of a generator, after the cold sync: `--metrics-only` (the metrics phase,
 * issue 14: the exporter's cost, without Prometheus) and `--traffic-only` (`GET /api/v1/cluster`
 * timed, the traffic phase, issue 13, and the traffic block's compute cost in-process). Each stops
 * the run's processes, prints its own tables and hands back its own, smaller JSON object.
 */
import type { BenchOptions } from './args';
import { log } from './environment';
import { measure } from './http';
import type { MetricsFigures } from './metrics';
import { metricsFields, metricsTable } from './metrics';
import type { GeneratorRun, RunHeader } from './generator-report';
import { coldSyncFloorTable } from './generator-report';
import { stop } from './processes';
import { stopPrometheus } from './prometheus';
import { GOALS, latencyTable, r1, REALISTIC_GOALS } from './report';
import type { RunningServer } from './server';
import type { RunningSimulator } from './simulator';
import { runAnalyzeAll } from './timed-commands';
import type { TrafficFigures } from './traffic';
import { trafficFields, trafficTable } from './traffic';

/** A generator's run once the server has synced, and its phases (each `null` when it failed; the failure is logged). */
export interface SyncedRun {
  readonly options: BenchOptions;
  readonly sim: RunningSimulator;
  readonly server: RunningServer;
  readonly kubeconfig: string;
  readonly header: RunHeader;
  readonly prometheusNote: string;
  readonly buildSeconds: number | null;
  readonly machine: string;
  readonly runTraffic: (requests: number) => Promise<TrafficFigures | null>;
  readonly runMetrics: () => Promise<MetricsFigures | null>;
}

/** `--metrics-only`: the metrics phase alone. Completed when the phase measured. */
export async function metricsOnlyRun(run: SyncedRun): Promise<GeneratorRun> {
  const { header, server, sim, machine } = run;
  const figures = await run.runMetrics();
  await stop(server.child);
  await stop(sim.child);
  console.log(`\nzonescope bench (metrics only) — ${header.scenario} (${header.services} Services), ${machine}\n`);
  const floor = coldSyncFloorTable(header);
  if (floor !== null) console.log(`${floor}\n`);
  if (figures !== null) console.log(metricsTable(figures));
  else console.log(`metrics phase failed; server output (last lines):\n${server.child.lines.slice(-15).join('\n')}`);
  return { json: { ...header, ...(figures ? metricsFields(figures) : {}), simStartSeconds: sim.startSeconds, buildSeconds: run.buildSeconds, machine }, ok: figures !== null };
}

/** `--traffic-only`: `/api/v1/cluster` timed, the traffic phase, and the traffic block alone in-process (a short analyze-all run). */
export async function trafficOnlyRun(run: SyncedRun): Promise<GeneratorRun> {
  const { options, header, server, sim, machine, prometheusNote } = run;
  const cluster = await measure(`${server.url}/api/v1/cluster`, options.requests);
  log(`api.cluster: p50 ${r1(cluster.p50)} ms, p95 ${r1(cluster.p95)} ms`);
  const figures = await run.runTraffic(options.requests);
  if (figures === null || figures.load.some((l) => l.errors > 0)) log(`server output (last lines):\n${server.child.lines.slice(-15).join('\n')}`);
  // The block's own compute cost, in-process (a short analyze-all run).
  const inProcess = options.analyzeRuns > 0 ? await runAnalyzeAll(run.kubeconfig, 2) : null;
  await stop(server.child);
  await stopPrometheus();
  await stop(sim.child);
  console.log(`\nzonescope bench (traffic only) — ${header.scenario} (${header.services} Services), ${machine}\n`);
  const floor = coldSyncFloorTable(header);
  if (floor !== null) console.log(`${floor}\n`);
  console.log(latencyTable([{ label: 'GET /api/v1/cluster', stats: cluster, budget: header.generator === 'realistic' ? REALISTIC_GOALS.clusterP95Ms : GOALS.clusterP95Ms }]));
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
