/**
 * The `--fail-on` rules of `npm run analyze`: their syntax (`cross-zone>0.3`, `hints-off`, …),
 * how each is written back, and their verdict on one cluster's analysis. A rule whose answer is
 * unknown (a type it needs was forbidden, or the cross-zone figures are unknown) fails closed.
 */
import type { SourceResource } from '../lib/topology/model/cluster-model';
import { formatAmount } from '../lib/topology/analyses/service-volume';
import type { ClusterAnalysis, ServiceReport } from '../lib/topology/report/analysis-schema';
import { CLUSTER_ANSWER_NEEDS, SERVICE_ANSWER_NEEDS, unknownMessage } from '../lib/topology/report/unknowns';
import { crossZoneUnknown, pct, usd } from './report-format';

export type FailRule = { kind: 'cross-zone' | 'cross-zone-if-auto' | 'cross-zone-cost' | 'attention'; threshold: number } | { kind: 'hints-off' | 'ineligible' };

/** A rule as `--fail-on` gives it, or why it is none. */
export function parseRule(text: string): FailRule | string {
  if (text === 'hints-off' || text === 'ineligible') return { kind: text };
  const match = /^(cross-zone|cross-zone-if-auto|cross-zone-cost|attention)>(\d+(?:\.\d+)?)$/.exec(text);
  if (!match) return `unknown --fail-on rule "${text}"`;
  const kind = match[1] as 'cross-zone' | 'cross-zone-if-auto' | 'cross-zone-cost' | 'attention';
  const threshold = Number(match[2]);
  if ((kind === 'cross-zone' || kind === 'cross-zone-if-auto') && threshold > 1) return `--fail-on ${kind} takes a fraction from 0 to 1, got ${threshold}`;
  return { kind, threshold };
}

/** The rule as given on the command line (`cross-zone>0.3`). */
export function ruleText(rule: FailRule): string {
  return 'threshold' in rule ? `${rule.kind}>${rule.threshold}` : rule.kind;
}

/**
 * Why a rule cannot be evaluated (an answer it needs is unknown because a type was forbidden), as
 * "zonescope could not read Nodes (forbidden)"; `null` when it can be.
 */
function unevaluable(analysis: ClusterAnalysis, rule: FailRule): string | null {
  const needs: readonly SourceResource[] =
    rule.kind === 'ineligible'
      ? CLUSTER_ANSWER_NEEDS.eligibility
      : [
          ...CLUSTER_ANSWER_NEEDS.services,
          ...(rule.kind === 'cross-zone' || rule.kind === 'cross-zone-if-auto' || rule.kind === 'cross-zone-cost' ? SERVICE_ANSWER_NEEDS.crossZone : SERVICE_ANSWER_NEEDS.expectedHints),
        ];
  const missing = analysis.unreadable.map((u) => u.resource).filter((id) => needs.includes(id));
  if (missing.length > 0) return unknownMessage(missing).replace(/^unknown: /, '');
  // Cross-zone figures can also be unknown for another reason (more zones than the model takes).
  const crossZone = rule.kind === 'cross-zone-cost' ? crossZoneUnknown(analysis) : null;
  return crossZone === null ? null : `the cross-zone figures are ${crossZone}`;
}

/** The rules that held (or could not be evaluated, which fails closed), as messages. */
export function evaluateRules(analysis: ClusterAnalysis, services: readonly ServiceReport[], rules: readonly FailRule[]): string[] {
  const failures: string[] = [];
  for (const rule of rules) {
    const why = unevaluable(analysis, rule);
    if (why !== null) {
      failures.push(`${ruleText(rule)}: could not be evaluated because ${why}; failing closed`);
      continue;
    }
    switch (rule.kind) {
      case 'cross-zone':
      case 'cross-zone-if-auto': {
        const key = rule.kind === 'cross-zone' ? 'crossZoneFraction' : 'crossZoneFractionIfAuto';
        const over = services.filter((s) => s.traffic[key] > rule.threshold);
        if (over.length > 0) failures.push(`${rule.kind}>${rule.threshold}: ${over.map((s) => `${s.namespace}/${s.name} (${pct(s.traffic[key])})`).join(', ')}`);
        break;
      }
      case 'hints-off': {
        const off = services.filter((s) => s.mechanism === 'topology-mode' || s.mechanism === 'legacy-annotation').filter((s) => !s.expected.hintsEnabled);
        if (off.length > 0) failures.push(`hints-off: ${off.map((s) => `${s.namespace}/${s.name}`).join(', ')}`);
        break;
      }
      case 'cross-zone-cost': {
        const limit = `$${formatAmount(rule.threshold)}`;
        // With --service the rule is about that Service (the list is not the analysis's own).
        const service = services !== analysis.services && services.length === 1 ? services[0] : undefined;
        if (service !== undefined) {
          const cost = service.traffic.monthlyCost.now.monthlyCost;
          if (cost > rule.threshold) failures.push(`cross-zone-cost>${rule.threshold}: ${service.namespace}/${service.name}'s cross-zone traffic costs ${usd(cost)} a month now, over the limit of ${limit}`);
        } else {
          const cost = analysis.traffic.totals.now.monthlyCost;
          if (cost > rule.threshold) failures.push(`cross-zone-cost>${rule.threshold}: the cluster's cross-zone traffic costs ${usd(cost)} a month now, over the limit of ${limit}`);
        }
        break;
      }
      case 'attention': {
        const n = analysis.cluster.needsAttention.length;
        if (n > rule.threshold) failures.push(`attention>${rule.threshold}: ${n} Services need attention`);
        break;
      }
      case 'ineligible':
        if (!analysis.cluster.eligible) failures.push(`ineligible: ${analysis.cluster.verdict}`);
        break;
    }
  }
  return failures;
}
