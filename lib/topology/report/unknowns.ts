/**
 * Answers the analysis cannot give because the identity could not read a resource type. A
 * forbidden type reaches the engine as an empty list, which is indistinguishable from "the cluster
 * has none": without Nodes every zone, CPU ratio and eligibility verdict would be a confident
 * guess ("not eligible", 0 % cross-zone). Which types were unreadable is an analysis option
 * (`AnalysisOptions.unreadable`); this file says which answers depend on which types, and the
 * message every such answer carries instead of a verdict.
 */
import type { SourceResource } from '../model/cluster-model';
import { SOURCE_RESOURCE_NAMES, SOURCE_RESOURCES } from '../model/cluster-model';

/** Cluster-wide answers that depend on resource types. */
export type ClusterAnswer = 'services' | 'zones' | 'eligibility' | 'dataplane' | 'ruleEstimates';

/** Per-Service answers that depend on resource types. */
export type ServiceAnswer = 'expectedHints' | 'observedHints' | 'endpoints' | 'crossZone' | 'hpa' | 'events' | 'fixes';

/**
 * The types each cluster-wide answer reads (lib/topology/analyses): the Service list, the zone map
 * and CPU ratios (SetNodes over Nodes), eligibility (Nodes), the kube-proxy mode and whether the
 * dataplane honours hints (kube-system ConfigMaps and DaemonSets), and the rule estimates (Services,
 * their EndpointSlices, the node count).
 */
export const CLUSTER_ANSWER_NEEDS: Readonly<Record<ClusterAnswer, readonly SourceResource[]>> = {
  services: ['services'],
  zones: ['nodes'],
  eligibility: ['nodes'],
  dataplane: ['configmaps', 'daemonsets'],
  ruleEstimates: ['services', 'endpointslices', 'nodes'],
};

/**
 * The types each per-Service answer reads besides the Service itself: the controller's expected
 * hints (its endpoints and the CPU ratios of the Nodes), the hints on the slices, the endpoints,
 * the traffic matrix (client Nodes per zone and the endpoints), the HPA scan and scale-down risk
 * (Pods → ReplicaSet → Deployment → HPA), the Service's events, and the fixes (hints, and the HPA
 * that would undo a `kubectl scale`).
 */
export const SERVICE_ANSWER_NEEDS: Readonly<Record<ServiceAnswer, readonly SourceResource[]>> = {
  expectedHints: ['endpointslices', 'nodes'],
  observedHints: ['endpointslices'],
  endpoints: ['endpointslices'],
  crossZone: ['endpointslices', 'nodes'],
  hpa: ['pods', 'replicasets', 'deployments', 'hpas'],
  events: ['events'],
  fixes: ['endpointslices', 'nodes', 'hpas'],
};

/** Answers left unknown, each with its message (absent answers are known). */
export type UnknownAnswers<A extends string> = Readonly<Partial<Record<A, string>>>;

/** One resource type the analysis could not read (`ClusterAnalysis.unreadable[]`). */
export interface UnreadableResource {
  /** Identifier (`nodes`, `endpointslices`, …). */
  readonly resource: SourceResource;
  /** How messages name it (`Nodes`, `ConfigMaps (kube-system)`). */
  readonly name: string;
  /** Why: the API server refused the identity (403). */
  readonly reason: 'forbidden';
  /** The answers that are unknown because of it: `cluster.<answer>` and `services[].<answer>`. */
  readonly affects: readonly string[];
}

/** `unknown: zonescope could not read Nodes, EndpointSlices (forbidden)`. */
export function unknownMessage(resources: readonly SourceResource[]): string {
  return `unknown: zonescope could not read ${resources.map((id) => SOURCE_RESOURCE_NAMES[id]).join(', ')} (forbidden)`;
}

function unknownsOf<A extends string>(needs: Readonly<Record<A, readonly SourceResource[]>>, unreadable: readonly SourceResource[]): UnknownAnswers<A> {
  const out: Partial<Record<A, string>> = {};
  if (unreadable.length === 0) return out;
  for (const answer of Object.keys(needs) as A[]) {
    const missing = needs[answer].filter((id) => unreadable.includes(id));
    if (missing.length > 0) out[answer] = unknownMessage(missing);
  }
  return out;
}

/** The unknown cluster-wide answers given the unreadable types. */
export function clusterUnknowns(unreadable: readonly SourceResource[]): UnknownAnswers<ClusterAnswer> {
  return unknownsOf(CLUSTER_ANSWER_NEEDS, unreadable);
}

/** The unknown per-Service answers given the unreadable types (the same for every Service). */
export function serviceUnknowns(unreadable: readonly SourceResource[]): UnknownAnswers<ServiceAnswer> {
  return unknownsOf(SERVICE_ANSWER_NEEDS, unreadable);
}

/** `ClusterAnalysis.unreadable`: each unreadable type with the answers it leaves unknown. */
export function unreadableReport(unreadable: readonly SourceResource[]): readonly UnreadableResource[] {
  return SOURCE_RESOURCES.filter((id) => unreadable.includes(id)).map((resource) => ({
    resource,
    name: SOURCE_RESOURCE_NAMES[resource],
    reason: 'forbidden' as const,
    affects: [
      ...(Object.keys(CLUSTER_ANSWER_NEEDS) as ClusterAnswer[]).filter((a) => CLUSTER_ANSWER_NEEDS[a].includes(resource)).map((a) => `cluster.${a}`),
      ...(Object.keys(SERVICE_ANSWER_NEEDS) as ServiceAnswer[]).filter((a) => SERVICE_ANSWER_NEEDS[a].includes(resource)).map((a) => `services[].${a}`),
    ],
  }));
}
