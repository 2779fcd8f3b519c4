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
 * `ZONESCOPE_ANALYSIS_LOG=1` logs one line per cluster pass (Services analysed and reused, time),
 * which the benchmark reads. `ZONESCOPE_ANALYSIS_SLICE_MS` sets the work per slice of a sliced
 * pass (default 15 ms; 0 runs one Service per slice).
 */
import 'server-only';

import { cache } from 'react';

import type { ClusterSource } from '../k8s/cluster-source';
import type { ResourceId } from '../k8s/resources';
import { getClusterSource } from '../k8s/source';
import type { ClusterAnalysis } from '../topology/report/analysis-schema';
import type { PreparedAnalysis } from '../topology/report/prepared-analysis';
import { prepareAnalysis } from '../topology/report/prepared-analysis';
import type { AnalysisOptions } from '../topology/model/cluster-context';
import type { AnalysisMemo, PassReport, PassState } from './analysis-scheduler';
import { AnalysisScheduler, sliceBudgetMs } from './analysis-scheduler';
import { volumeAnalysisOptions } from './volume-settings';

/** The newest generation's memo, mirrored for diagnostics and tests (`Symbol.for('zonescope.analysisMemo')`). */
const KEY = Symbol.for('zonescope.analysisMemo');
const SCHEDULER = Symbol.for('zonescope.analysisScheduler');
type Holder = { [KEY]?: AnalysisMemo; [SCHEDULER]?: { readonly source: ClusterSource; readonly scheduler: AnalysisScheduler } };

/** The scheduler of the process-wide source (created on first use, replaced with the source). */
function scheduler(state: ClusterSource = getClusterSource()): AnalysisScheduler {
  const holder = globalThis as unknown as Holder;
  const current = holder[SCHEDULER];
  if (current && current.source === state) return current.scheduler;
  current?.scheduler.stop();
  // Registered before the scheduler starts: its constructor may already prepare the first memo.
  holder[SCHEDULER] = undefined;
  const created = new AnalysisScheduler(state, {
    options: volumeAnalysisOptions,
    sliceMs: sliceBudgetMs(),
    onPass: logPass,
    onMemo: (memo) => {
      holder[KEY] = memo;
    },
  });
  holder[SCHEDULER] = { source: state, scheduler: created };
  return created;
}

/**
 * Starts the process-wide source and its analysis scheduler (the server's start-up hook calls it),
 * so that the first pass runs as soon as the sync completes, whether or not anything is read.
 */
export function startAnalysis(): void {
  scheduler();
}

/** The process-wide cluster source (its first read in a server render records the render's generation). */
export function source(): ClusterSource {
  const state = getClusterSource();
  firstGeneration(state);
  return state;
}

/**
 * The generation of what the current server render shows, taken at its first read of the cluster
 * (React `cache`: one value per request; outside a render it is the generation now): the source's,
 * or during a background re-analysis the generation of the analysis still served. Every view of a
 * render reads through {@link source}, so what a page shows is never older than this: the header
 * sends it to the live-refresh leaf, which re-renders when the server is past it
 * (lib/data/live-refresh.ts) — after a re-analysis too.
 */
const firstGeneration = cache((state: ClusterSource): number => {
  const s = scheduler(state);
  s.settle();
  return s.servedGeneration();
});

/** {@link firstGeneration} of the process-wide source. */
export function renderGeneration(): number {
  return firstGeneration(source());
}

/** The generation of what a read gets now (see {@link AnalysisScheduler.servedGeneration}): what `GET /api/v1/cluster/generation` reports. */
export function servedGeneration(): number {
  return scheduler().servedGeneration();
}

/** Whether the cluster data is served: the first sync and the first analysis pass are done. */
export function isServing(): boolean {
  return scheduler(source()).isServing();
}

/** The sliced pass in progress (the first, or a background re-analysis), `null` when none. */
export function analysisPass(): PassState | null {
  return scheduler().passState();
}

/**
 * Per-cluster preparation with default options (carrying the per-Service cache) that goes with
 * the analysis readers get: during a background re-analysis the previous generation's.
 */
export function prepared(): PreparedAnalysis {
  return scheduler(source()).prepared();
}

/** The whole-cluster analysis (default options) readers get now; `null` until the first pass is done. */
export function clusterAnalysis(): ClusterAnalysis | null {
  return scheduler(source()).analysis();
}

function logPass(report: PassReport): void {
  if (process.env.ZONESCOPE_ANALYSIS_LOG !== '1') return;
  const sliced = report.mode === 'sliced' ? `, in ${report.slices} slices (longest ${report.longestSliceMs.toFixed(1)} ms, ${report.wallMs.toFixed(0)} ms wall${report.restarts > 0 ? `, ${report.restarts} restarts` : ''})` : '';
  console.log(`[zonescope] analysis: ${report.services} services, ${report.computed} analysed, ${report.reused} reused, ${report.workMs.toFixed(1)} ms${report.full ? ' (full)' : ''}${sliced}`);
}

/** The whole-cluster analysis, or `null` until the first sync and the first pass are done (pages render a "syncing" panel then). */
export function getClusterAnalysis(): ClusterAnalysis | null {
  return clusterAnalysis();
}

/**
 * Resolves `true` once an analysis is served (first sync and first pass done), `false` after
 * `timeoutMs` (tests and scripts that read right after start-up).
 */
export async function waitForAnalysis(timeoutMs = 60_000): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (clusterAnalysis() !== null) return true;
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** A preparation with custom traffic/cost options (cheap: O(nodes)), over the index of the analysis readers get. */
export function preparedWith(options: AnalysisOptions): PreparedAnalysis {
  const hasOptions = Object.values(options).some((value) => value !== undefined && value !== null);
  if (!hasOptions) return prepared();
  const defined = Object.fromEntries(Object.entries(options).filter(([, value]) => value !== undefined && value !== null));
  return prepareAnalysis(prepared().context.index, { ...volumeAnalysisOptions(), ...defined, ...unreadableOptions(source()) });
}

/** The types the source could not read (forbidden), as the analysis option that makes their answers "unknown". */
function unreadableOptions(state: ClusterSource): { readonly unreadable: readonly ResourceId[] } {
  return { unreadable: state.statuses().filter((s) => s.health === 'forbidden').map((s) => s.id) };
}
