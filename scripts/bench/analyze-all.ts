/**
 * In-process timing of the full-cluster analysis (`analyzeAllMs`), run by the benchmark as a child
 * process: loads the cluster through LiveClusterSource (the dashboard's own list+watch path), then
 * times `analyzeClusterIn` `--runs` times as the dashboard runs it after a Node change (its
 * per-Service cache carried from run to run, each Node change emptying it: HPA/workload
 * panels are computed when first read; one Node's allocatable CPU moved by a core before each run
 * after the first), the same with every field computed up
 * front (`analyzeAllEagerMs`, the analyze command's path), the same with report sharing between
 * Services of one shape switched off (`analyzeAllDistinctMs`: a cluster where no two Services look
 * alike; `serviceShapes` says how many distinct shapes this cluster has), and the incremental pass after one
 * EndpointSlice changes; and the cluster-wide traffic block on its own (`trafficBlockMs`: one
 * `computeClusterTraffic` pass over the analysis's per-Service flows, what a what-if or a new
 * Prometheus answer costs; `trafficBlockJsonMs`: serialising it). Prints one JSON object as its last line.
 *
 * Between the sync and the timed runs, with `--settle-sim URL --settle-pid PID`, the simulator is
 * asked to collect the garbage that serving every list left it (`POST /__sim/gc`) and waited for
 * until it is idle, as before each floor pass (list-floor.ts): on two cores its full collection of
 * a ~6 GB heap otherwise lands in the timed runs (runs of one bench ranged 514–1,000 ms). The
 * simulator is then stopped (SIGSTOP, its process tree) until the timed parts are done: nothing
 * needs it once the source is stopped, and left idle it started yet another collection (V8's
 * memory reducer) during one bench's runs. The bench stops the dashboard's server meanwhile too.
 *
 * usage: node --expose-gc --import tsx scripts/bench/analyze-all.ts --kubeconfig FILE [--runs N] [--settle-sim URL --settle-pid PID] (the bench runs it bundled: timed-commands.ts)
 */
import { configFromEnv } from '../../lib/config/config';
import { createClusterSource } from '../../lib/k8s/cluster-sources/create-source';
import { indexIncrementally } from '../../lib/k8s/cluster-sources/index-incremental';
import { AnalysisCache } from '../../lib/topology/report/analysis-cache';
import { computeClusterTraffic } from '../../lib/topology/analyses/cluster-traffic';
import { defaultVolumeSettings } from '../../lib/topology/analyses/service-volume';
import { analyzeClusterIn, pricingOf, serviceFlowsOf } from '../../lib/topology/report/cluster-analysis';
import { pricePerGbSetting } from '../../lib/topology/model/cloud-pricing';
import { prepareAnalysis, withAnalysisCache, withoutShapeSharing, type PreparedAnalysis } from '../../lib/topology/report/prepared-analysis';
import { reportShapeKey } from '../../lib/topology/report/report-shape';
import type { ClusterIndex, ClusterSnapshot } from '../../lib/topology/model/cluster-model';
import { quantityToMilli } from '../../lib/topology/upstream/quantity';
import { PerformanceObserver, type PerformanceEntry } from 'node:perf_hooks';
import { percentile } from './http';
import { settleSimulator } from './list-floor';
import { busiestBetween, machineCpuMs, processCpuTimes, whileStopped } from './process-tree';

function arg(name: string): string | undefined {
  const at = process.argv.indexOf(name);
  return at >= 0 ? process.argv[at + 1] : undefined;
}

/**
 * `index` after a Node change: the `step`-th Node of a fixed stride through the list gets one core
 * more allocatable CPU on odd steps, one less on even ones (a Node without a readable CPU quantity,
 * or with a core or less, is left alone, and the index is then unchanged).
 */
function withNodeChange(index: ClusterIndex, step: number): ClusterIndex {
  const nodes = [...index.snapshot.nodes];
  const at = (step * 7919) % Math.max(1, nodes.length);
  const node = nodes[at];
  const current = node?.allocatableCpu == null ? null : quantityToMilli(node.allocatableCpu);
  if (!node || current === null) return index;
  const millis = current + (step % 2 === 1 ? 1000 : -1000);
  if (millis <= 0) return index;
  nodes[at] = { ...node, allocatableCpu: `${millis}m` };
  return indexIncrementally({ ...index.snapshot, nodes }, index);
}

function gc(): void {
  (globalThis as { gc?: () => void }).gc?.();
}

const mib = (bytes: number) => Math.round((bytes / 1048576) * 10) / 10;

/** What one timed run cost besides its wall time: this process's CPU, its GC pauses, and what else the machine did meanwhile. */
interface RunCost {
  readonly startMs: number;
  readonly endMs: number;
  /** User + system CPU of this process, every thread (V8's parallel scavenge and concurrent marking included). */
  readonly cpuMs: number;
  /** CPU the rest of the machine used meanwhile (every core's busy time, minus this process's). `null` without /proc/stat. */
  readonly otherCpuMs: number | null;
  /** Time the hypervisor ran other guests while this machine's cores wanted to run. `null` without /proc/stat. */
  readonly stealMs: number | null;
}

/**
 * Times a run and what it cost (see RunCost), so that a slow run says whether it was this
 * process's work, its garbage collector, another process or the host.
 */
function costOf(work: () => void): RunCost {
  const machineBefore = machineCpuMs();
  const cpuBefore = process.cpuUsage();
  const startMs = performance.now();
  work();
  const endMs = performance.now();
  const cpu = process.cpuUsage(cpuBefore);
  const machineAfter = machineCpuMs();
  const cpuMs = (cpu.user + cpu.system) / 1000;
  const otherCpuMs = machineBefore && machineAfter ? Math.max(0, machineAfter.busyMs - machineBefore.busyMs - cpuMs) : null;
  const stealMs = machineBefore && machineAfter ? machineAfter.stealMs - machineBefore.stealMs : null;
  return { startMs, endMs, cpuMs, otherCpuMs, stealMs };
}

/** The GC pauses (PerformanceObserver's `gc` entries) that started within each run, summed per run. */
function gcPausesIn(entries: readonly PerformanceEntry[], runs: readonly RunCost[]): number[] {
  return runs.map((run) => entries.filter((e) => e.startTime >= run.startMs && e.startTime < run.endMs).reduce((sum, e) => sum + e.duration, 0));
}

/**
 * A fixed piece of JavaScript work of the pass's kind (small objects, string keys in a Map,
 * floating-point sums), timed in the same process just before the timed runs: the machine's speed
 * that day, so that runs on different days (this machine's host varies up to twice) can be set
 * side by side. Median of 5, in ms; it does the same work whatever the code under test is.
 */
function cpuReferenceMs(): number {
  const times: number[] = [];
  let check = 0;
  for (let round = 0; round < 5; round++) {
    const started = performance.now();
    const byKey = new Map<string, { zone: string; share: number; count: number }>();
    for (let i = 0; i < 200_000; i++) {
      const key = `ns-${i % 997}/svc-${i % 5003}`;
      const known = byKey.get(key);
      if (known === undefined) byKey.set(key, { zone: `zone-${i % 3}`, share: i / 7, count: 1 });
      else {
        known.share += i / 7;
        known.count++;
      }
    }
    let sum = 0;
    for (const entry of byKey.values()) sum += entry.share / entry.count;
    check += sum;
    times.push(performance.now() - started);
  }
  if (!Number.isFinite(check)) throw new Error('cpu reference: the sum is not finite');
  return percentile([...times].sort((a, b) => a - b), 50);
}

/** Lets the event loop turn, so that GC entries queued during synchronous work are delivered. */
const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

async function main(): Promise<void> {
  const kubeconfig = arg('--kubeconfig');
  const runs = Math.max(1, Number(arg('--runs') ?? 5));
  if (!kubeconfig) throw new Error('--kubeconfig is required');
  const startedAt = performance.now();
  const state = createClusterSource(configFromEnv({ KUBECONFIG: kubeconfig, HOME: process.env.HOME }));
  state.start();
  if (!(await state.waitForSync(10 * 60_000))) throw new Error('the cluster did not sync within 10 minutes');
  const syncSeconds = (performance.now() - startedAt) / 1000;
  await state.stop();
  const index = state.index();
  gc();
  const heapAfterSync = process.memoryUsage();
  const settleSim = arg('--settle-sim');
  const settlePid = Number(arg('--settle-pid') ?? Number.NaN);
  const settled = settleSim !== undefined && Number.isInteger(settlePid) ? await settleSimulator(settleSim, settlePid) : null;

  // Nothing needs the simulator from here on (the source is stopped): its process is stopped
  // (SIGSTOP) while the engine is timed, as the bench stops the dashboard's server. Left running
  // after the settle, it started another collection of its multi-GiB heap once idle (V8's memory
  // reducer) and took most of a core through one bench's timed runs (8.9 s of CPU, 0.4–1 s a run).
  const time = () => timeEngine(runs, index, { syncSeconds, settled, heapAfterSync });
  const figures = settled !== null ? await whileStopped(settlePid, time) : await time();
  console.log(JSON.stringify({ ...figures, simulatorStopped: settled !== null }));
}

/** The timed parts (see the module comment), on the synced `index`; the figures the bench reads, in its order. */
async function timeEngine(runs: number, index: ClusterIndex, sync: { readonly syncSeconds: number; readonly settled: string | null; readonly heapAfterSync: NodeJS.MemoryUsage }) {
  const { syncSeconds, settled, heapAfterSync } = sync;
  // 1. From scratch, `runs` times (the first run includes JIT warm-up), as the dashboard runs it:
  //    with a (fresh) per-Service cache, HPA panels computed when first read. The dashboard runs a
  //    full pass when the Nodes change (new CPU ratios and clients move every Service): before each
  //    run after the first, one Node's allocatable CPU moves by a core, as a node replaced by one
  //    of another size would, so what a pass keeps for the next (by slice list, by plan) is met as
  //    after a real Node change, not after none.
  //    The per-Service cache is the dashboard's: made with the first preparation and carried from
  //    one preparation to the next, as the server's scheduler does (analysis-scheduler.ts, latest()).
  const referenceMs = cpuReferenceMs();
  const analyze: number[] = [];
  const prepare: number[] = [];
  const costs: RunCost[] = [];
  const gcEntries: PerformanceEntry[] = [];
  const gcObserver = new PerformanceObserver((list) => gcEntries.push(...list.getEntries()));
  gcObserver.observe({ entryTypes: ['gc'] });
  let nodeChanged = index;
  let carried: PreparedAnalysis | null = null;
  // Who else used the cores while the runs were timed (each run's share is `otherCpuMs`).
  const processesBefore = processCpuTimes();
  for (let i = 0; i < runs; i++) {
    if (i > 0) nodeChanged = withNodeChange(nodeChanged, i);
    gc();
    const a = performance.now();
    const prepared: PreparedAnalysis = carried === null ? withAnalysisCache(prepareAnalysis(nodeChanged), new AnalysisCache()) : prepareAnalysis(nodeChanged, {}, carried);
    carried = prepared;
    const cost = costOf(() => analyzeClusterIn(prepared));
    costs.push(cost);
    analyze.push(cost.endMs - cost.startMs);
    prepare.push(cost.startMs - a);
    await turn();
  }
  const otherProcesses = busiestBetween(processesBefore, processCpuTimes(), process.pid);
  await turn();
  await turn();
  gcObserver.disconnect();
  const gcMs = gcPausesIn(gcEntries, costs);
  // 1a. The worst case: no two Services share a shape (report sharing off), everything else as in 1.
  const distinct: number[] = [];
  for (let i = 0; i < Math.max(2, Math.ceil(runs / 2)); i++) {
    gc();
    const prepared = withoutShapeSharing(withAnalysisCache(prepareAnalysis(index), new AnalysisCache()));
    const b = performance.now();
    analyzeClusterIn(prepared);
    distinct.push(performance.now() - b);
  }
  const shapes = new Set<string>();
  let unshareable = 0;
  const nodeZones = prepareAnalysis(index).context.nodeZoneByName;
  for (const service of index.snapshot.services) {
    const key = reportShapeKey(service, index.slicesByService.get(`${service.namespace}/${service.name}`) ?? [], nodeZones);
    if (key === null) unshareable++;
    else shapes.add(key);
  }

  // 1b. Every field computed up front (the `npm run analyze` path).
  const eager: number[] = [];
  for (let i = 0; i < Math.max(2, Math.ceil(runs / 2)); i++) {
    gc();
    const prepared = prepareAnalysis(index);
    const b = performance.now();
    analyzeClusterIn(prepared);
    eager.push(performance.now() - b);
  }

  // 1c. The cluster-wide traffic block alone, over the flows of one analysis (no re-analysis).
  const analysis = analyzeClusterIn(withAnalysisCache(prepareAnalysis(index), new AnalysisCache()));
  const flows = serviceFlowsOf(analysis);
  const trafficBlock: number[] = [];
  const trafficJson: number[] = [];
  let trafficBytes = 0;
  for (let i = 0; i < Math.max(5, runs); i++) {
    const settings = defaultVolumeSettings({ priceSetting: pricePerGbSetting(0.01 + i * 1e-6) });
    const a = performance.now();
    const { report } = computeClusterTraffic(flows, settings, null, pricingOf(analysis, settings.priceSetting));
    const b = performance.now();
    trafficBytes = JSON.stringify(report).length;
    trafficJson.push(performance.now() - b);
    trafficBlock.push(b - a);
  }

  // 2. Incremental: one EndpointSlice changes; the cache re-analyses only its Service.
  let previous = withAnalysisCache(prepareAnalysis(index), new AnalysisCache());
  analyzeClusterIn(previous);
  let snapshot: ClusterSnapshot = index.snapshot;
  let currentIndex = index;
  const incremental: number[] = [];
  let reanalysed = 0;
  for (let i = 0; i < Math.max(3, runs); i++) {
    const slices = [...snapshot.endpointSlices];
    const at = (i * 7919) % Math.max(1, slices.length);
    const slice = slices[at];
    if (!slice) break;
    slices[at] = { ...slice, resourceVersion: `${slice.resourceVersion}-bench${i}`, endpoints: slice.endpoints.slice(0, Math.max(0, slice.endpoints.length - 1)) };
    snapshot = { ...snapshot, endpointSlices: slices };
    const a = performance.now();
    currentIndex = indexIncrementally(snapshot, currentIndex);
    previous = prepareAnalysis(currentIndex, {}, previous);
    analyzeClusterIn(previous);
    incremental.push(performance.now() - a);
    reanalysed = Math.max(reanalysed, previous.cache?.lastRun?.computed ?? 0);
  }
  const sorted = (values: number[]) => [...values].sort((x, y) => x - y);
  const round = (value: number) => Math.round(value * 10) / 10;
  const warm = analyze.length > 1 ? analyze.slice(1) : analyze;
  return {
    services: index.snapshot.services.length,
    syncSeconds: round(syncSeconds),
    settled,
    analyzeAllMs: round(percentile(sorted(warm), 50)),
    analyzeAllMinMs: round(Math.min(...warm)),
    analyzeAllFirstMs: round(analyze[0] ?? 0),
    analyzeAllRunsMs: analyze.map(round),
    cpuReferenceMs: round(referenceMs),
    analyzeAllRunsCpuMs: costs.map((c) => round(c.cpuMs)),
    analyzeAllRunsGcMs: gcMs.map(round),
    analyzeAllRunsOtherCpuMs: costs.map((c) => (c.otherCpuMs === null ? null : round(c.otherCpuMs))),
    analyzeAllRunsStealMs: costs.map((c) => (c.stealMs === null ? null : round(c.stealMs))),
    analyzeAllOtherProcesses: otherProcesses.map((p) => ({ name: p.name, pid: p.pid, cpuMs: round(p.cpuMs) })),
    analyzeAllEagerMs: round(percentile(sorted(eager.slice(1)), 50)),
    analyzeAllDistinctMs: round(percentile(sorted(distinct.slice(1)), 50)),
    serviceShapes: shapes.size,
    unshareableServices: unshareable,
    prepareMs: round(percentile(sorted(prepare), 50)),
    incrementalMs: round(percentile(sorted(incremental), 50)),
    incrementalReanalysed: reanalysed,
    trafficBlockMs: round(percentile(sorted(trafficBlock.slice(1)), 50)),
    trafficBlockJsonMs: round(percentile(sorted(trafficJson.slice(1)), 50)),
    trafficBlockKiB: round(trafficBytes / 1024),
    trafficFlows: flows.length,
    heapUsedAfterSyncMiB: mib(heapAfterSync.heapUsed),
    rssAfterSyncMiB: mib(heapAfterSync.rss),
  };
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(`analyze-all: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  },
);
