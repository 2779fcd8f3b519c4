/**
 * The Overview's attention list: the Services the rules list and those whose best change saves
 * money, costliest first, with the cluster's traffic figures now (measured where Prometheus
 * answers); memoised per analysis and traffic snapshot, as the Services rows are. And the two
 * cluster-level answers above it, counted over the Services rows: whose HPA turns hints off when
 * it scales, and where measured cross-zone traffic disagrees with the prediction.
 */
import 'server-only';

import type { ClusterAnalysis } from '../../topology/report/analysis-schema';
import type { AttentionItem } from '../../topology/report/attention';
import { attentionByMoney } from '../../topology/report/attention';
import { getClusterAnalysis, prepared } from '../../server/analysis';
import type { ClusterScope } from '../../server/clusters';
import { MEASURED_DIFF_ATTENTION } from '../../shared/service-query';
import { getClusterTraffic } from '../traffic';
import type { ServiceRow } from './rows';
import { getServiceRows } from './rows';

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

/** The Overview's two cluster-level answers, counted over the Services rows (each a filter of the Services table). */
export interface ClusterAnswers {
  /** Services whose Deployment an HPA scales (known states only). */
  readonly withHpa: number;
  /** Of them, hints off at minReplicas (`?hpa=off-at-min`). */
  readonly hpaOffAtMin: number;
  /** Of them, on at minReplicas but off at another count of the range (with the above: `?hpa=off`). */
  readonly hpaOffInRange: number;
  /** Services whose HPA state is unknown (a type the lookup needs was unreadable). */
  readonly hpaUnknown: number;
  /** Services measured with zone-resolved flows. */
  readonly measured: number;
  /** Of them, measured cross-zone share at least {@link threshold} points from the prediction, either way (`?measuredDiff=`). */
  readonly measuredDiffers: number;
  /** The threshold of {@link measuredDiffers}, in points. */
  readonly threshold: number;
}

const ANSWERS = new WeakMap<readonly ServiceRow[], ClusterAnswers>();

/** The two cluster-level answers of `rows` (memoised per rows: one pass). */
export function clusterAnswers(rows: readonly ServiceRow[]): ClusterAnswers {
  let answers = ANSWERS.get(rows);
  if (answers === undefined) {
    let withHpa = 0;
    let hpaOffAtMin = 0;
    let hpaOffInRange = 0;
    let hpaUnknown = 0;
    let measured = 0;
    let measuredDiffers = 0;
    for (const row of rows) {
      const state = row.hpaScaleDown.state;
      if (state === 'unknown') hpaUnknown++;
      else if (state !== 'none') withHpa++;
      if (state === 'off-at-min') hpaOffAtMin++;
      if (state === 'off-in-range') hpaOffInRange++;
      if (row.measuredMinusPredicted !== null) {
        measured++;
        if (Math.abs(row.measuredMinusPredicted) >= MEASURED_DIFF_ATTENTION - 1e-9) measuredDiffers++;
      }
    }
    answers = { withHpa, hpaOffAtMin, hpaOffInRange, hpaUnknown, measured, measuredDiffers, threshold: MEASURED_DIFF_ATTENTION };
    ANSWERS.set(rows, answers);
  }
  return answers;
}

/** The Overview's two cluster-level answers now; `null` before the first sync. */
export function getClusterAnswers(scope: ClusterScope): ClusterAnswers | null {
  const rows = getServiceRows(scope);
  return rows === null ? null : clusterAnswers(rows);
}
