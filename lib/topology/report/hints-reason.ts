/**
 * A bounded code for why a Service's hints are what they are, for the `/metrics` exporter's
 * `zonescope_service_hints_reason_info{reason}` series (a label must come from a small fixed set;
 * the engine's reason is a free sentence). Pure: reads one {@link ServiceReport}.
 *
 * The code comes from the mechanism in effect and, for the `Auto` heuristic, from the message of
 * the controller's decision (`expected.reason`, the `, addressType: …` suffix removed), matched
 * against upstream's messages (`upstream/constants.ts`). A cluster whose ready nodes are all in one
 * zone gets `insufficient-node-info`, as upstream's topology cache reports it.
 */
import {
  MESSAGE_INSUFFICIENT_NODE_INFO,
  MESSAGE_INSUFFICIENT_NUMBER_OF_ENDPOINTS,
  MESSAGE_MIN_ALLOCATION_EXCEEDS_OVERLOAD_THRESHOLD,
  MESSAGE_NO_ALLOCATED_HINTS_FOR_ZONES,
  MESSAGE_NO_ZONE_SPECIFIED,
  MESSAGE_NODES_READY_IN_ONE_ZONE_ONLY,
} from '../upstream/constants';
import type { ServiceReport } from './analysis-schema';

/** Every reason code, in the order the docs list them. */
export const HINTS_REASON_CODES = [
  'enabled',
  'traffic-distribution',
  'not-requested',
  'not-managed',
  'insufficient-node-info',
  'nodes-ready-in-one-zone-only',
  'insufficient-number-of-endpoints',
  'min-allocation-exceeds-overload-threshold',
  'no-zone-specified',
  'no-allocated-hints-for-zones',
  'topology-cache-disabled',
  'unknown',
] as const;

/** A bounded reason code (see {@link HINTS_REASON_CODES}). */
export type HintsReasonCode = (typeof HINTS_REASON_CODES)[number];

/** One short sentence per code, for docs and tooltips. */
export const HINTS_REASON_TEXT: Readonly<Record<HintsReasonCode, string>> = {
  enabled: 'Topology mode Auto is in effect and the controller writes zone hints.',
  'traffic-distribution': 'spec.trafficDistribution decides the hints (same-zone or same-node, no CPU proportions).',
  'not-requested': 'Nothing asks for hints: no Auto annotation or trafficDistribution value in effect.',
  'not-managed': 'The EndpointSlice controller does not manage this Service (no selector, or ExternalName), so it writes no hints.',
  'insufficient-node-info': 'Hints are off cluster-wide: a ready node lacks a zone label or allocatable CPU.',
  'nodes-ready-in-one-zone-only': 'Hints are off: ready nodes are in one zone only.',
  'insufficient-number-of-endpoints': 'Hints are off: the Service has fewer ready endpoints than the cluster has zones.',
  'min-allocation-exceeds-overload-threshold': 'Hints are off: some zone cannot get its minimum share of endpoints without exceeding the overload threshold.',
  'no-zone-specified': 'Hints are off: one or more endpoints have no zone.',
  'no-allocated-hints-for-zones': 'Hints are off: the allocation left some zone without hints.',
  'topology-cache-disabled': 'The Auto annotation is set, but this release or its feature gates have no topology cache, so it does nothing.',
  unknown: 'zonescope cannot tell: a resource type it needs was unreadable, or the controller gave a reason zonescope does not know.',
};

const MESSAGE_CODES: readonly (readonly [string, HintsReasonCode])[] = [
  [MESSAGE_INSUFFICIENT_NODE_INFO, 'insufficient-node-info'],
  [MESSAGE_NODES_READY_IN_ONE_ZONE_ONLY, 'nodes-ready-in-one-zone-only'],
  [MESSAGE_INSUFFICIENT_NUMBER_OF_ENDPOINTS, 'insufficient-number-of-endpoints'],
  [MESSAGE_MIN_ALLOCATION_EXCEEDS_OVERLOAD_THRESHOLD, 'min-allocation-exceeds-overload-threshold'],
  [MESSAGE_NO_ZONE_SPECIFIED, 'no-zone-specified'],
  [MESSAGE_NO_ALLOCATED_HINTS_FOR_ZONES, 'no-allocated-hints-for-zones'],
];

/** An event message without upstream's `, addressType: <type>` suffix. */
function withoutAddressType(message: string): string {
  const at = message.indexOf(', addressType:');
  return at === -1 ? message : message.slice(0, at);
}

/**
 * The code of a controller message (`unknown` for a message not in upstream's list). Upstream's
 * messages may carry details after the fixed text (`… overload threshold (11 endpoints, 3 zones)`),
 * so the fixed text is matched as a prefix.
 */
export function reasonCodeOfMessage(message: string): HintsReasonCode {
  const bare = withoutAddressType(message).trim();
  return MESSAGE_CODES.find(([text]) => bare === text || bare.startsWith(`${text} `) || bare.startsWith(`${text}:`))?.[1] ?? 'unknown';
}

/**
 * Whether the Service asks for hints: a mechanism is in effect, or its topology annotation (the
 * key that counts on this release) says Auto in any case, even where that does nothing (wrong
 * case, no topology cache).
 */
export function hintsRequested(report: Pick<ServiceReport, 'mechanism' | 'mechanismDetail'>): boolean {
  if (report.mechanism !== 'none') return true;
  const value = report.mechanismDetail.annotationValue;
  return value !== null && value.trim().toLowerCase() === 'auto';
}

/** Why the Service's hints are what they are, as a bounded code. */
export function hintsReasonCode(report: ServiceReport): HintsReasonCode {
  if (report.unknown.expectedHints !== undefined) return 'unknown';
  if (report.type === 'ExternalName' || !report.expected.applicable) return 'not-managed';
  if (report.mechanism === 'trafficDistribution') return 'traffic-distribution';
  if (report.mechanism === 'none') {
    return report.lints.some((lint) => lint.id === 'topology-aware-hints-gate-off') ? 'topology-cache-disabled' : 'not-requested';
  }
  if (report.expected.hintsEnabled) return 'enabled';
  const message = report.expected.reason?.message;
  return message === undefined ? 'unknown' : reasonCodeOfMessage(message);
}
