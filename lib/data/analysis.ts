/**
 * One analysis per cluster generation: every page and route reads the same memoised result, so
 * the read path never talks to the API server and never recomputes what did not change.
 *
 * Across generations the per-cluster preparation is reused while nodes, version and dataplane are
 * unchanged, and an {@link AnalysisCache} keeps each Service's result until one of its inputs
 * changes, so a change to one EndpointSlice re-analyses one Service, not ten thousand.
 *
 * `ZONESCOPE_ANALYSIS_LOG=1` logs one line per cluster pass (Services analysed and reused, time),
 * which the benchmark reads.
 */
import 'server-only';

import { cache } from 'react';

import type { ClusterSource } from '../k8s/cluster-source';
import type { ResourceId } from '../k8s/resources';
import { getClusterSource } from '../k8s/source';
import { AnalysisCache } from '../topology/report/analysis-cache';
import type { ClusterAnalysis } from '../topology/report/analysis-schema';
import type { PreparedAnalysis } from '../topology/report/prepared-analysis';
import { analyzeClusterIn } from '../topology/report/cluster-analysis';
import { prepareAnalysis, withAnalysisCache } from '../topology/report/prepared-analysis';
import type { AnalysisOptions } from '../topology/model/cluster-context';
import { volumeAnalysisOptions } from './volume-settings';

interface Memo {
  readonly source: ClusterSource;
  readonly generation: number;
  /** The types the source could not read when prepared (a status change, not a new generation). */
  readonly unreadable: string;
  readonly prepared: PreparedAnalysis;
  analysis: ClusterAnalysis | null;
}

const KEY = Symbol.for('zonescope.analysisMemo');
type Holder = { [KEY]?: Memo };

/** The process-wide cluster source (its first read in a server render records the render's generation). */
export function source(): ClusterSource {
  const state = getClusterSource();
  firstGeneration(state);
  return state;
}

/**
 * The source's generation at the first read of the current server render (React `cache`: one
 * value per request; outside a render it is the current generation). Every view of a render reads
 * through {@link source}, so what a page shows is never older than this: the header sends it to
 * the live-refresh leaf, which re-renders when the server is past it (lib/data/live-refresh.ts).
 */
const firstGeneration = cache((state: ClusterSource): number => state.generation);

/** {@link firstGeneration} of the process-wide source. */
export function renderGeneration(): number {
  return firstGeneration(source());
}

/** Per-cluster preparation with default options, memoised per generation (carrying the per-Service cache). */
export function prepared(): PreparedAnalysis {
  const state = source();
  const holder = globalThis as unknown as Holder;
  const memo = holder[KEY];
  const unreadableOnly = unreadableOptions(state);
  const unreadable = unreadableOnly.unreadable.join(',');
  // The volume settings are read once per process, so they never change a generation's key.
  const options: AnalysisOptions = { ...volumeAnalysisOptions(), ...unreadableOnly };
  if (memo && memo.source === state && memo.generation === state.generation && memo.unreadable === unreadable) return memo.prepared;
  const generation = state.generation;
  const previous = memo && memo.source === state ? memo.prepared : null;
  const index = state.index();
  const next: Memo = {
    source: state,
    generation,
    unreadable,
    prepared: previous ? prepareAnalysis(index, options, previous) : withAnalysisCache(prepareAnalysis(index, options), new AnalysisCache()),
    analysis: null,
  };
  holder[KEY] = next;
  return next.prepared;
}

/** The whole-cluster analysis (default options), memoised per generation. */
export function clusterAnalysis(): ClusterAnalysis {
  const p = prepared();
  const memo = (globalThis as unknown as Holder)[KEY];
  if (memo && memo.prepared === p) {
    if (memo.analysis === null) {
      const startedAt = performance.now();
      memo.analysis = analyzeClusterIn(p);
      logPass(p, performance.now() - startedAt);
    }
    return memo.analysis;
  }
  return analyzeClusterIn(p);
}

function logPass(p: PreparedAnalysis, ms: number): void {
  const run = p.cache?.lastRun;
  if (!run || process.env.ZONESCOPE_ANALYSIS_LOG !== '1') return;
  console.log(`[zonescope] analysis: ${run.services} services, ${run.computed} analysed, ${run.reused} reused, ${ms.toFixed(1)} ms${run.full ? ' (full)' : ''}`);
}

/** The whole-cluster analysis, or `null` while the first sync is still running (pages render a "syncing" panel then). */
export function getClusterAnalysis(): ClusterAnalysis | null {
  return source().isSynced() ? clusterAnalysis() : null;
}

/** A preparation with custom traffic/cost options (cheap: O(nodes)). */
export function preparedWith(options: AnalysisOptions): PreparedAnalysis {
  const hasOptions = Object.values(options).some((value) => value !== undefined && value !== null);
  if (!hasOptions) return prepared();
  const defined = Object.fromEntries(Object.entries(options).filter(([, value]) => value !== undefined && value !== null));
  return prepareAnalysis(source().index(), { ...volumeAnalysisOptions(), ...defined, ...unreadableOptions(source()) });
}

/** The types the source could not read (forbidden), as the analysis option that makes their answers "unknown". */
function unreadableOptions(state: ClusterSource): { readonly unreadable: readonly ResourceId[] } {
  return { unreadable: state.statuses().filter((s) => s.health === 'forbidden').map((s) => s.id) };
}
