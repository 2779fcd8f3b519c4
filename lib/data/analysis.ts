/**
 * One analysis per cluster generation: every page and route reads the same memoised result, so
 * the read path never talks to the API server and never recomputes what did not change.
 */
import 'server-only';

import type { ClusterState } from '../k8s/cluster-state';
import { getClusterSource } from '../k8s/source';
import type { ClusterAnalysis, PreparedAnalysis } from '../topology/analysis';
import { analyzeClusterIn, prepareAnalysis } from '../topology/analysis';
import type { AnalysisOptions } from '../topology/cluster-context';

interface Memo {
  readonly source: ClusterState;
  readonly generation: number;
  readonly prepared: PreparedAnalysis;
  analysis: ClusterAnalysis | null;
}

const KEY = Symbol.for('zonescope.analysisMemo');
type Holder = { [KEY]?: Memo };

/** The process-wide cluster source. */
export function source(): ClusterState {
  return getClusterSource();
}

/** Per-cluster preparation with default options, memoised per generation. */
export function prepared(): PreparedAnalysis {
  const state = source();
  const holder = globalThis as unknown as Holder;
  const memo = holder[KEY];
  if (memo && memo.source === state && memo.generation === state.generation) return memo.prepared;
  const generation = state.generation;
  const next: Memo = { source: state, generation, prepared: prepareAnalysis(state.index()), analysis: null };
  holder[KEY] = next;
  return next.prepared;
}

/** The whole-cluster analysis (default options), memoised per generation. */
export function clusterAnalysis(): ClusterAnalysis {
  const p = prepared();
  const memo = (globalThis as unknown as Holder)[KEY];
  if (memo && memo.prepared === p) {
    memo.analysis ??= analyzeClusterIn(p);
    return memo.analysis;
  }
  return analyzeClusterIn(p);
}

/** A preparation with custom traffic/cost options (cheap: O(nodes)). */
export function preparedWith(options: AnalysisOptions): PreparedAnalysis {
  const hasOptions = Object.values(options).some((value) => value !== undefined && value !== null);
  return hasOptions ? prepareAnalysis(source().index(), options) : prepared();
}
