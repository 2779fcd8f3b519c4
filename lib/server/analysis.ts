/**
 * One analysis per cluster generation: every page and route reads the same memoised result, so
 * the read path never talks to the API server and never recomputes what did not change.
 *
 * Across generations the per-cluster preparation is reused while nodes, version and dataplane are
 * unchanged, and an {@link AnalysisCache} keeps each Service's result until one of its inputs
 * changes, so a change to one EndpointSlice re-analyses one Service, not ten thousand.
 *
 * Full passes (the first after the sync, and later ones after a node, version or dataplane change)
 * run in slices between other requests, and readers get the previous analysis meanwhile; see
 * {@link AnalysisScheduler} (analysis-scheduler.ts). Until the first pass is done nothing is
 * served: pages, `/api/v1/*` and `/api/health/ready` answer "syncing" with its progress.
 *
 * Per cluster: every reader takes the cluster's source (lib/server/clusters.ts `ClusterScope`), and
 * each open source has its own scheduler, memo and per-Service cache.
 *
 * `ZONESCOPE_ANALYSIS_LOG=1` logs one line per cluster pass (Services analysed and reused, time),
 * which the benchmark reads. `ZONESCOPE_ANALYSIS_SLICE_MS` sets the work per slice of a sliced
 * pass (default 15 ms; 0 runs one Service per slice).
 */
import 'server-only';

import { cache } from 'react';

import { getConfig } from '../config/process-config';
import type { ClusterSource } from '../k8s/cluster-source';
import type { ResourceId } from '../k8s/resources';
import { getClusterRegistry, getClusterSource } from '../k8s/source';
import type { ClusterAnalysis } from '../topology/report/analysis-schema';
import type { PreparedAnalysis } from '../topology/report/prepared-analysis';
import { prepareAnalysis } from '../topology/report/prepared-analysis';
import type { AnalysisOptions } from '../topology/model/analysis-options';
import type { AnalysisMemo, PassReport, PassState } from './analysis-scheduler';
import { AnalysisScheduler, sliceBudgetMs } from './analysis-scheduler';
import { limitHeapGrowth } from './heap-growth';
import { IdleCollector } from './idle-collector';
import { volumeAnalysisOptions } from './volume-settings';

/** The newest generation's memo of the default cluster, mirrored for diagnostics and tests (`Symbol.for('zonescope.analysisMemo')`). */
const KEY = Symbol.for('zonescope.analysisMemo');
const SCHEDULERS = Symbol.for('zonescope.analysisSchedulers');
type Holder = { [KEY]?: AnalysisMemo; [SCHEDULERS]?: Map<ClusterSource, AnalysisScheduler> };

/**
 * The schedulers of the open sources. A source the registry closed (idle) or replaced (a reset)
 * loses its scheduler the next time one is looked up, so a closed cluster's analysis is freed.
 */
function schedulers(): Map<ClusterSource, AnalysisScheduler> {
  const holder = globalThis as unknown as Holder;
  return (holder[SCHEDULERS] ??= new Map());
}

/** Whether `state` is still one of the registry's open sources (looked up without opening anything). */
function isOpen(state: ClusterSource): boolean {
  const registry = getClusterRegistry();
  return registry.openIds().some((id) => registry.peek(id) === state);
}

/** Whether `state` is the default cluster's open source. */
function isDefaultSource(state: ClusterSource): boolean {
  const registry = getClusterRegistry();
  return registry.peek(registry.defaultEntry().id) === state;
}

/**
 * Stops and forgets the schedulers (and so the analyses) of sources no longer open: a cluster
 * closed for idleness, a registry reset. Cheap (at most the open clusters); lib/server/clusters.ts
 * calls it once per request, and creating a scheduler does too.
 */
export function releaseClosedAnalyses(): void {
  const all = schedulers();
  if (all.size === 0) return;
  for (const [other, stale] of all) {
    if (!isOpen(other)) {
      stale.stop();
      all.delete(other);
    }
  }
}

/** The scheduler of `state` (created on first use). */
function scheduler(state: ClusterSource): AnalysisScheduler {
  const all = schedulers();
  const current = all.get(state);
  if (current !== undefined) return current;
  releaseClosedAnalyses();
  const holder = globalThis as unknown as Holder;
  const isDefault = isDefaultSource(state);
  const created = new AnalysisScheduler(state, {
    options: volumeAnalysisOptions,
    sliceMs: sliceBudgetMs(),
    onPass: logPass,
    onMemo: (memo) => {
      if (isDefault) holder[KEY] = memo;
    },
  });
  all.set(state, created);
  return created;
}

/**
 * Starts the default cluster's source and its analysis scheduler (the server's start-up hook calls
 * it), so that the first pass runs as soon as the sync completes, whether or not anything is read.
 */
export function startAnalysis(): void {
  scheduler(getClusterSource());
  startIdleCollector();
}

/**
 * The source a render reads (its first read in a server render records the render's generation).
 * Every lib/views reader goes through it.
 */
export function source(state: ClusterSource): ClusterSource {
  firstGeneration(state);
  return state;
}

/**
 * The generation of what the current server render shows of a cluster, taken at its first read
 * (React `cache`: one value per request and source; outside a render it is the generation now):
 * the source's, or during a background re-analysis the generation of the analysis still served.
 * Every view of a render reads through {@link source}, so what a page shows is never older than
 * this: the header sends it to the live-refresh leaf, which re-renders when the server is past it
 * (lib/shared/live-refresh.ts) — after a re-analysis too.
 */
const firstGeneration = cache((state: ClusterSource): number => {
  const s = scheduler(state);
  s.settle();
  return s.servedGeneration();
});

/** {@link firstGeneration} of the source. */
export function renderGeneration(state: ClusterSource): number {
  return firstGeneration(source(state));
}

/** The generation of what a read gets now (see {@link AnalysisScheduler.servedGeneration}): what `GET /api/v1/cluster/generation` reports. */
export function servedGeneration(state: ClusterSource): number {
  return scheduler(state).servedGeneration();
}

/** Whether the cluster data is served: the first sync and the first analysis pass are done. */
export function isServing(state: ClusterSource): boolean {
  return scheduler(source(state)).isServing();
}

/** The sliced pass in progress (the first, or a background re-analysis), `null` when none. */
export function analysisPass(state: ClusterSource): PassState | null {
  return scheduler(state).passState();
}

/**
 * Per-cluster preparation with default options (carrying the per-Service cache) that goes with
 * the analysis readers get: during a background re-analysis the previous generation's.
 */
export function prepared(state: ClusterSource): PreparedAnalysis {
  return scheduler(source(state)).prepared();
}

/** The whole-cluster analysis (default options) readers get now; `null` until the first pass is done. */
export function clusterAnalysis(state: ClusterSource): ClusterAnalysis | null {
  return scheduler(source(state)).analysis();
}

const COLLECTOR = Symbol.for('zonescope.idleCollector');

/** Starts the process's idle collector (one, whichever copy of this module asks) unless `ZONESCOPE_IDLE_GC=0`. */
function startIdleCollector(): void {
  if (!getConfig().ZONESCOPE_IDLE_GC) return;
  const holder = globalThis as unknown as { [COLLECTOR]?: IdleCollector };
  holder[COLLECTOR] ??= new IdleCollector({
    onCollect: ({ rssBeforeMiB, rssAfterMiB, heapBeforeMiB, heapAfterMiB, ms }) => {
      if (getConfig().ZONESCOPE_ANALYSIS_LOG) console.log(`[zonescope] idle collection: resident ${rssBeforeMiB} → ${rssAfterMiB} MiB, heap in use ${heapBeforeMiB} → ${heapAfterMiB} MiB, ${ms} ms`);
    },
  });
  holder[COLLECTOR].start();
}

function logPass(report: PassReport): void {
  // The first full pass ends the cold sync: from now on the live size stays near what it is.
  if (report.full && limitHeapGrowth(getConfig().ZONESCOPE_HEAP_GROWING_PERCENT) && getConfig().ZONESCOPE_ANALYSIS_LOG) {
    console.log(`[zonescope] heap growth: at most ${1 + getConfig().ZONESCOPE_HEAP_GROWING_PERCENT / 100}× the live heap between full collections from now on`);
  }
  if (!getConfig().ZONESCOPE_ANALYSIS_LOG) return;
  const sliced = report.mode === 'sliced' ? `, in ${report.slices} slices (longest ${report.longestSliceMs.toFixed(1)} ms, ${report.wallMs.toFixed(0)} ms wall${report.restarts > 0 ? `, ${report.restarts} restarts` : ''})` : '';
  console.log(`[zonescope] analysis: ${report.services} services, ${report.computed} analysed, ${report.reused} reused, ${report.workMs.toFixed(1)} ms${report.full ? ' (full)' : ''}${sliced}`);
}

/** The whole-cluster analysis, or `null` until the first sync and the first pass are done (pages render a "syncing" panel then). */
export function getClusterAnalysis(state: ClusterSource): ClusterAnalysis | null {
  return clusterAnalysis(state);
}

/**
 * Resolves `true` once an analysis is served (first sync and first pass done), `false` after
 * `timeoutMs` (tests and scripts that read right after start-up); the default cluster unless `state` says otherwise.
 */
export async function waitForAnalysis(timeoutMs = 60_000, state: ClusterSource = getClusterSource()): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (clusterAnalysis(state) !== null) return true;
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** A preparation with custom traffic/cost options (cheap: O(nodes)), over the index of the analysis readers get. */
export function preparedWith(state: ClusterSource, options: AnalysisOptions): PreparedAnalysis {
  const hasOptions = Object.values(options).some((value) => value !== undefined && value !== null);
  if (!hasOptions) return prepared(state);
  const defined = Object.fromEntries(Object.entries(options).filter(([, value]) => value !== undefined && value !== null));
  return prepareAnalysis(prepared(state).context.index, { ...volumeAnalysisOptions(), ...defined, ...unreadableOptions(source(state)) });
}

/** The types the source could not read (forbidden), as the analysis option that makes their answers "unknown". */
function unreadableOptions(state: ClusterSource): { readonly unreadable: readonly ResourceId[] } {
  return { unreadable: state.statuses().filter((s) => s.health === 'forbidden').map((s) => s.id) };
}
