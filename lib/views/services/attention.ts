/**
 * The Overview's attention list: the Services the rules list and those whose best change saves
 * money, costliest first, with the cluster's traffic figures now (measured where Prometheus
 * answers); memoised per analysis and traffic snapshot, as the Services rows are.
 */
import 'server-only';

import type { ClusterAnalysis } from '../../topology/report/analysis-schema';
import type { AttentionItem } from '../../topology/report/attention';
import { attentionByMoney } from '../../topology/report/attention';
import { getClusterAnalysis, prepared } from '../../server/analysis';
import type { ClusterScope } from '../../server/clusters';
import { getClusterTraffic } from '../traffic';

const ATTENTION_LISTS = new WeakMap<ClusterAnalysis, WeakMap<object, readonly AttentionItem[]>>();

/**
 * The Overview's attention list: the rules' Services and those whose best change saves money,
 * costliest first (see `attentionByMoney`), with the cluster's traffic figures now (measured where
 * Prometheus answers); memoised per analysis and traffic snapshot.
 */
export function getAttentionList(scope: ClusterScope): readonly AttentionItem[] | null {
  const analysis = getClusterAnalysis(scope.source);
  if (!analysis) return null;
  const byService = getClusterTraffic(scope)?.byService ?? null;
  if (byService === null) return analysis.cluster.needsAttention;
  let perTraffic = ATTENTION_LISTS.get(analysis);
  if (!perTraffic) {
    perTraffic = new WeakMap();
    ATTENTION_LISTS.set(analysis, perTraffic);
  }
  let list = perTraffic.get(byService);
  if (!list) {
    list = attentionByMoney(analysis.cluster.needsAttention, byService, prepared(scope.source).attentionMinSaving);
    perTraffic.set(byService, list);
  }
  return list;
}
