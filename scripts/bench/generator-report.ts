/**
 * One generator's report: the figures its phases measured assembled into the final JSON object
 * (report.ts's `BenchResult`, its fields in BENCHMARKS.md's order, the missed goals named), and
 * the tables printed before it — latencies against their budgets, the summary, then the traffic,
 * metrics and churn sections of the phases that ran, and the goals line.
 */
import type { Generator } from './args';
import type { BrowserResult } from './browser';
import type { ChangeLatency } from './change-latency';
import type { ChurnResult } from './churn';
import type { LatencyStats } from './http';
import type { FloorFields } from './list-floor';
import { floorTable } from './list-floor';
import type { MetricsFigures } from './metrics';
import { metricsFields, metricsTable } from './metrics';
import type { BenchResult } from './report';
import { GOALS, latencyTable, missedGoals, r1, REALISTIC_GOALS, summaryTable } from './report';
import type { ColdStartLists } from './server';
import type { BenchTargets } from './targets';
import { targetPath } from './targets';
import type { AnalyzeAllFigures } from './timed-commands';
import type { TrafficFigures } from './traffic';
import { trafficFields, trafficTable } from './traffic';
import type { WarmFigures } from './warm-phase';

/** What a generator's run hands back: its figures (the JSON object) and whether it completed. */
export interface GeneratorRun {
  readonly json: Record<string, unknown>;
  readonly ok: boolean;
}

/** The fields every run of a generator starts its JSON object with: which cluster, and the cold start against its floor (issue 30). */
export type RunHeader = Pick<
  BenchResult,
  'scale' | 'generator' | 'scenario' | 'services' | 'coldSyncSeconds' | 'firstClusterMs' | 'clusterAfterSyncMs' | 'firstOverviewMs' | 'coldSyncServerCpuSeconds' | 'coldSyncSimCpuSeconds' | 'coldSyncLoadAverage'
> &
  Partial<FloorFields> &
  ColdStartLists;

/** The cold sync against its floor as a table, when the floor was measured (list-floor.ts). */
export function coldSyncFloorTable(header: RunHeader): string | null {
  const { floorSeconds, floorPassSeconds, floorFirstPassSeconds, coldSyncFloorRatio, floorClientCpuSeconds, floorSimCpuSeconds, floorByType, floorLoadAverage } = header;
  if (
    floorSeconds === undefined ||
    floorPassSeconds === undefined ||
    floorFirstPassSeconds === undefined ||
    coldSyncFloorRatio === undefined ||
    floorClientCpuSeconds === undefined ||
    floorSimCpuSeconds === undefined ||
    floorByType === undefined ||
    floorLoadAverage === undefined
  ) {
    return null;
  }
  return floorTable({ floorSeconds, floorPassSeconds, floorFirstPassSeconds, coldSyncFloorRatio, floorClientCpuSeconds, floorSimCpuSeconds, floorByType, floorLoadAverage }, header);
}

/** Everything a generator's full run measured. */
export interface GeneratorFigures {
  readonly header: RunHeader;
  readonly targets: BenchTargets;
  readonly warm: WarmFigures;
  /** Concurrent clients of the warm phase (a table label). */
  readonly clients: number;
  readonly change: ChangeLatency;
  readonly analyzeAll: AnalyzeAllFigures | null;
  readonly analyzeCommand: { readonly seconds: number; readonly bytes: number } | null;
  /** The server's first full analysis pass, from its log (ms), `null` when it did not log one. */
  readonly serverFullAnalysisMs: number | null;
  readonly rssPeakRunMiB: number;
  readonly kubectlListMs: number | null;
  readonly browser: BrowserResult | null;
  readonly churn: ChurnResult | null;
  readonly traffic: TrafficFigures | null;
  /** What the traffic figures were measured against (prometheus.ts). */
  readonly prometheusNote: string;
  readonly metrics: MetricsFigures | null;
  readonly simStartSeconds: number;
  readonly buildSeconds: number | null;
  readonly machine: string;
}

/** The final JSON object of a generator's full run, with the goals it misses. */
export function generatorResult(f: GeneratorFigures): BenchResult {
  const { stats } = f.warm;
  const { analyzeAll, analyzeCommand, browser, churn: churnResult } = f;
  const servicePath = targetPath(f.targets.service);
  const bigPath = targetPath(f.targets.big);
  const overviewP50 = stats['page.overview']?.p50 ?? Number.NaN;
  const clusterP50 = stats['api.cluster']?.p50 ?? Number.NaN;
  const partial: Omit<BenchResult, 'goalsMissed'> = {
    ...f.header,
    clusterP50Ms: r1(clusterP50),
    clusterP95Ms: r1(stats['api.cluster']?.p95 ?? Number.NaN),
    servicesP50Ms: r1(stats['api.services']?.p50 ?? Number.NaN),
    servicesP95Ms: r1(stats['api.services']?.p95 ?? Number.NaN),
    serviceP50Ms: r1(stats['api.service']?.p50 ?? Number.NaN),
    serviceP95Ms: r1(stats['api.service']?.p95 ?? Number.NaN),
    bigServiceP50Ms: r1(stats['api.big']?.p50 ?? Number.NaN),
    bigServiceP95Ms: r1(stats['api.big']?.p95 ?? Number.NaN),
    serviceTarget: servicePath,
    serviceEndpoints: f.targets.service.readyEndpoints,
    bigServiceTarget: bigPath,
    bigServiceEndpoints: f.targets.big.readyEndpoints,
    targetsNote: f.targets.note,
    filterTexts: f.targets.filterTexts,
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
    analyzeCommandVsColdSync: analyzeCommand && f.header.coldSyncSeconds > 0 ? Math.round((analyzeCommand.seconds / f.header.coldSyncSeconds) * 100) / 100 : null,
    analyzeAllDistinctMs: analyzeAll ? r1(analyzeAll.analyzeAllDistinctMs) : null,
    serviceShapes: analyzeAll ? analyzeAll.serviceShapes : null,
    analyzeIncrementalMs: analyzeAll ? r1(analyzeAll.incrementalMs) : null,
    ...(analyzeAll?.trafficBlockMs !== undefined ? { trafficBlockComputeMs: r1(analyzeAll.trafficBlockMs), trafficBlockJsonMs: r1(analyzeAll.trafficBlockJsonMs ?? Number.NaN) } : {}),
    serverFullAnalysisMs: f.serverFullAnalysisMs,
    changeLatencyMs: f.change.changeLatencyMs,
    changeLatencyMedianMs: f.change.changeLatencyMedianMs,
    changeSimAckMaxMs: f.change.changeSimAckMaxMs,
    changeReanalysedServices: f.change.changeReanalysedServices,
    rssMiB: f.warm.rssMiB,
    rssPeakMiB: f.warm.rssPeakMiB,
    rssPeakRunMiB: f.rssPeakRunMiB,
    rssAfterWarmMiB: f.warm.rssAfterWarmMiB,
    readPathApiRequests: f.warm.readPath.total,
    watchesPerType: f.warm.watchesPerType,
    kubectlListMs: f.kubectlListMs,
    overviewVsKubectl: f.kubectlListMs !== null ? r1(f.kubectlListMs / overviewP50) : null,
    overviewApiVsKubectl: f.kubectlListMs !== null ? r1(f.kubectlListMs / clusterP50) : null,
    servicesRows: browser?.servicesRows ?? null,
    servicesDomNodes: browser?.servicesDomNodes ?? null,
    sortMaxMs: browser?.sortMaxMs ?? null,
    filterMaxMs: browser?.filterMaxMs ?? null,
    serviceLcpMs: browser?.lcpMs[`/services/${servicePath}`] ?? null,
    bigServiceLcpMs: browser?.lcpMs[`/services/${bigPath}`] ?? null,
    ...(churnResult
      ? { churnRssGrowthMiB: churnResult.rssGrowthMiB, churnRssMaxMiB: churnResult.rssMaxMiB, churnChanges: churnResult.changesSent, churnReadP95Ms: r1(churnResult.readsDuringChurn.p95), churnMinutes: churnResult.minutes }
      : {}),
    ...trafficFields(f.traffic, f.prometheusNote),
    ...(f.metrics ? metricsFields(f.metrics) : {}),
    simStartSeconds: f.simStartSeconds,
    buildSeconds: f.buildSeconds,
    machine: f.machine,
  };
  return { ...partial, goalsMissed: missedGoals(partial) };
}

/** Prints a generator's tables (stdout), ending with the goals it met or missed. */
export function printGeneratorReport(generator: Generator, result: BenchResult, f: GeneratorFigures): void {
  const { stats, readPath } = f.warm;
  const { targets, churn: churnResult, traffic } = f;
  const servicePath = targetPath(targets.service);
  const bigPath = targetPath(targets.big);
  const servicePage = `/services/${servicePath}`;
  const bigPage = `/services/${bigPath}`;
  const clusterBudget = generator === 'realistic' ? REALISTIC_GOALS.clusterP95Ms : GOALS.clusterP95Ms;
  const biggest = (label: string) => `${label}${targets.big.readyEndpoints < 5000 ? ' (biggest)' : ''}`;
  console.log(`\nzonescope bench — ${f.header.scenario} (${result.services} Services), ${f.machine}\n`);
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
      { label: `${f.clients} concurrent clients (mixed)`, stats: stats.concurrent, budget: null },
      ...(churnResult ? [{ label: 'reads during churn (cluster + Service)', stats: churnResult.readsDuringChurn, budget: null }] : []),
    ]),
  );
  console.log('');
  console.log(summaryTable(result));
  const floor = coldSyncFloorTable(f.header);
  if (floor !== null) console.log(`\n${floor}`);
  if (readPath.total > 0) console.log(`\nnon-watch API requests during the warm phase: ${JSON.stringify(readPath.byResourceVerb)}`);
  if (traffic !== null) console.log(`\n${trafficTable(traffic, stats['api.cluster']?.p95 ?? Number.NaN, f.prometheusNote)}`);
  if (f.metrics !== null) console.log(`\n${metricsTable(f.metrics)}`);
  if (churnResult) console.log(`\nchurn: ${churnResult.changesSent} changes (${churnResult.changeErrors} failed); RSS samples (MiB): ${churnResult.rssSamplesMiB.join(' ')}`);
  console.log(result.goalsMissed.length === 0 ? `\n${generator}: all goals met` : `\n${generator}: goals missed: ${result.goalsMissed.join('; ')}`);
}
