/**
 * The cluster's history assembled from its range answers (pure): the queries of queries.ts
 * (`clusterQueries`) turned into eligibility intervals with the nodes or cause that make the cluster
 * ineligible, eligibility transitions, the spend, node and Service-count series and node marks.
 */
import type { ClusterHistory, HistorySeries, HistoryTransition } from '../../shared/history-types';
import type { MatrixSeries } from '../client';
import { changesOf, intervalsOf, sortTransitions, worstStatePrecision } from './changes';
import { alignValues, historyGrid, newestInfo, newestLabel, pick, pointsOf, zoneSeries } from './grid';
import { nodeMarks } from './marks';

/** The range answers of the cluster view (see queries.ts, `clusterQueries`). */
export interface ClusterHistoryInput {
  readonly frame: Omit<ClusterHistory, 'eligibility' | 'transitions' | 'spend' | 'nodes' | 'services' | 'marks'>;
  readonly scalars: readonly MatrixSeries[];
  readonly spend: readonly MatrixSeries[];
  readonly zoneNodes: readonly MatrixSeries[];
  readonly ineligibleNodes: readonly MatrixSeries[];
  readonly insufficientCause: readonly MatrixSeries[];
}

const NODE_CAUSE_TEXT: Readonly<Record<string, string>> = {
  'missing-zone': 'has no zone label',
  'missing-cpu': 'reports no allocatable CPU',
};

/** Sentence parts per `zonescope_cluster_insufficient_cause_info` cause. */
export const INSUFFICIENT_CAUSE_TEXT: Readonly<Record<string, string>> = {
  'no-counted-nodes': 'no Ready node is counted',
  'node-missing-zone': 'a Ready node has no zone label',
  'node-missing-cpu': 'a Ready node reports no allocatable CPU',
  'single-zone': 'all Ready nodes are in one zone',
};

const MAX_NAMED_NODES = 3;

function ineligibleDetail(nodes: readonly Readonly<Record<string, string>>[] | null, cause: string | null): string | null {
  const named = (nodes ?? []).filter((m) => m.node !== undefined).sort((a, b) => (a.node ?? '').localeCompare(b.node ?? ''));
  if (named.length > 0) {
    const shown = named.slice(0, MAX_NAMED_NODES).map((m) => `node ${m.node} ${NODE_CAUSE_TEXT[m.cause ?? ''] ?? `(${m.cause ?? 'unknown cause'})`}`);
    const more = named.length > MAX_NAMED_NODES ? ` and ${named.length - MAX_NAMED_NODES} more` : '';
    return `${shown.join(', ')}${more}`;
  }
  if (cause !== null && cause !== 'none') return INSUFFICIENT_CAUSE_TEXT[cause] ?? cause;
  return null;
}

/** Whether the cluster view's answers hold any zonescope series. */
export function clusterHasData(input: Pick<ClusterHistoryInput, 'scalars' | 'spend' | 'zoneNodes'>): boolean {
  return [input.scalars, input.spend, input.zoneNodes].some((m) => m.some((s) => s.values.length > 0));
}

const SPEND_KEYS: readonly (readonly [string, string, string])[] = [
  ['now', 'now', 'Now'],
  ['after_sync', 'after-sync', 'After sync'],
  ['best', 'best', 'Best'],
];
const SERVICE_COUNT_KEYS: readonly (readonly [string, string])[] = [
  ['hints-expected-on', 'Hints expected on'],
  ['hints-observed-on', 'Hints on'],
  ['needing-attention', 'Needing attention'],
];

/** The cluster's history from its range answers (transitions not yet refined). */
export function assembleClusterHistory(input: ClusterHistoryInput): ClusterHistory {
  const { frame } = input;
  const grid = historyGrid(frame.start, frame.end, frame.stepSeconds);
  const scalar = (key: string): (number | null)[] => alignValues(pick(input.scalars, 'series', key), grid);
  const eligibleStates = scalar('eligible').map((v) => (v === null ? null : v >= 0.5 ? 'eligible' : 'ineligible'));
  const nodesInfo = newestInfo(input.ineligibleNodes, grid);
  const causes = newestLabel(input.insufficientCause, grid, 'cause');
  const detailAt = (k: number): string | null => ineligibleDetail(nodesInfo[k] ?? null, causes[k] ?? null);
  const causeAt = (k: number): string | null => {
    const node = (nodesInfo[k] ?? [])[0];
    if (node?.cause !== undefined) return node.cause;
    const cause = causes[k] ?? null;
    return cause === 'none' ? null : cause;
  };

  const eligibility = intervalsOf(eligibleStates, grid, (value, k) => {
    if (value === 'eligible') return 'Eligible';
    const detail = detailAt(k);
    return detail === null ? 'Ineligible' : `Ineligible — ${detail}`;
  });
  const transitions: HistoryTransition[] = changesOf(eligibleStates, grid).map((c) => {
    const detail = detailAt(c.index);
    const text = c.to === 'eligible'
      ? 'The cluster became eligible: the topology cache has CPU ratios again.'
      : `The cluster became ineligible${detail === null ? '' : `: ${detail}`}.`;
    return { at: c.at, precisionSeconds: worstStatePrecision(c, grid.step), kind: c.to === 'eligible' ? 'eligible' : 'ineligible', from: c.from, to: c.to, reason: c.to === 'eligible' ? null : causeAt(c.index), text };
  });
  const totalNodes = scalar('nodes');
  const nodes: HistorySeries[] = [
    { key: 'nodes', label: 'All nodes', points: pointsOf(totalNodes, grid) },
    ...zoneSeries(input.zoneNodes, grid),
  ];
  return {
    ...frame,
    eligibility,
    transitions: sortTransitions(transitions),
    spend: SPEND_KEYS.map(([scenario, key, label]) => ({ key, label, points: pointsOf(alignValues(pick(input.spend, 'scenario', scenario), grid), grid) })),
    nodes,
    services: SERVICE_COUNT_KEYS.map(([key, label]) => ({ key, label, points: pointsOf(scalar(key), grid) })),
    marks: nodeMarks(totalNodes, grid),
  };
}
