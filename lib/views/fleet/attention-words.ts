/**
 * The fleet's "most common reason for attention" in words that hold for every Service it counts
 * (pure, safe for client components): the reason's own sentence, and for `hints-off` the
 * controller's reasons by their bounded code (lib/topology/report/hints-reason.ts), counted — never
 * one Service's message with its numbers, which would be read as everyone's.
 */
import type { HintsReasonCode } from '../../topology/report/hints-reason';
import type { AttentionReason } from '../../topology/report/analysis-schema';

/** What every Service with this reason has in common, as one sentence. */
export const ATTENTION_REASON_SENTENCE: Readonly<Record<AttentionReason, string>> = {
  'hints-off': 'Hints are asked for, but the controller turns them off.',
  'annotation-ineffective': 'An annotation asks for hints but has no effect on this release.',
  'dataplane-ignores-hints': 'The Service proxy does not read EndpointSlice hints.',
  'hints-unused': 'Another policy decides routing, so hints are never used.',
  'out-of-sync': 'The slices differ from what the controller would write.',
  'partial-hints': 'Some ready endpoints lack a hint, so kube-proxy ignores the hints of the others too.',
  'cross-zone-leak': 'Hints are on, but endpoints are donated across zones.',
  'costly-fixable': 'Cross-zone traffic costs money that a verified change would save.',
};

/** Why the controller turns hints off, as a short phrase that holds for every Service with that code ("Hints off — fewer ready endpoints than zones"). */
export const HINTS_OFF_CAUSE: Readonly<Record<HintsReasonCode, string>> = {
  enabled: 'hints on',
  'traffic-distribution': 'spec.trafficDistribution decides',
  'not-requested': 'nothing asks for hints',
  'not-managed': 'not managed by the EndpointSlice controller',
  'insufficient-node-info': 'a ready node lacks a zone label or allocatable CPU',
  'nodes-ready-in-one-zone-only': 'ready nodes in one zone only',
  'insufficient-number-of-endpoints': 'fewer ready endpoints than zones',
  'min-allocation-exceeds-overload-threshold': 'a zone cannot get its minimum share of endpoints',
  'no-zone-specified': 'some endpoints have no zone',
  'no-allocated-hints-for-zones': 'the allocation left a zone without hints',
  'topology-cache-disabled': 'no topology cache on this release',
  unknown: 'a reason zonescope does not know',
};

/** Services of one `hints-off` cause. */
export interface AttentionCause {
  readonly code: HintsReasonCode;
  readonly services: number;
}

/**
 * The sentence of a fleet's common reason: the reason's own sentence, or for `hints-off` its
 * causes with how many Services each (most first): "Hints off: fewer ready endpoints than zones."
 * for one cause, "Hints off: fewer ready endpoints than zones (9), some endpoints have no zone (3)."
 * for several.
 */
export function commonAttentionSentence(reason: AttentionReason, causes: readonly AttentionCause[]): string {
  if (reason !== 'hints-off' || causes.length === 0) return ATTENTION_REASON_SENTENCE[reason];
  if (causes.length === 1) return `Hints off: ${HINTS_OFF_CAUSE[(causes[0] as AttentionCause).code]}.`;
  return `Hints off: ${causes.map((c) => `${HINTS_OFF_CAUSE[c.code]} (${c.services})`).join(', ')}.`;
}
