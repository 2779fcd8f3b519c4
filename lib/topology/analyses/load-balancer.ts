/**
 * The path external traffic takes into a LoadBalancer or NodePort Service: load balancer → node
 * (NodePort, then kube-proxy) or load balancer → pod IP directly; what `externalTrafficPolicy`
 * does on that path; and which nodes have no local endpoint under `Local`. The AWS load balancer's
 * settings are aws-load-balancer.ts, the cost of its own leg load-balancer-leg.ts.
 *
 * Facts used:
 * - `externalTrafficPolicy: Cluster`: any node accepts the traffic and kube-proxy forwards it to an
 *   endpoint anywhere (an extra hop, possibly to another zone, with SNAT so the pod sees the node's
 *   IP). Topology hints do narrow this cluster set.
 * - `externalTrafficPolicy: Local`: only endpoints on the receiving node; no extra hop, the client
 *   source IP is preserved; nodes without a local endpoint answer the health check node port with
 *   503 and drop (time out) traffic that still reaches them.
 *
 * @see https://kubernetes.io/docs/tasks/access-application-cluster/create-external-load-balancer/#preserving-the-client-source-ip
 */
import type { ClusterContext } from '../model/cluster-context';
import type { ServiceRecord } from '../model/cluster-model';
import type { AwsLoadBalancer, LoadBalancerFix, LoadBalancerMode } from './aws-load-balancer';
import { awsFixes, awsLoadBalancer, awsModes, clusterLooksLikeAws, looksLikeAws } from './aws-load-balancer';
import type { LoadBalancerLeg } from './load-balancer-leg';
import { nlbLeg } from './load-balancer-leg';
import { isExternallyAccessible } from './service-mechanism';
import type { EndpointSlice } from '../upstream/types';
import { serviceMemo, type ServiceRecordMemo } from '../model/record-memo';

/** Result of {@link analyzeLoadBalancer}. */
export interface LoadBalancerAnalysis {
  readonly type: ServiceRecord['type'];
  readonly externalTrafficPolicy: 'Cluster' | 'Local';
  readonly provider: 'aws' | 'unknown';
  readonly aws: AwsLoadBalancer | null;
  /** `lb-to-pod` (IP targets), `lb-to-node` (instance targets / other clouds), `node-port` (no load balancer). */
  readonly path: 'lb-to-pod' | 'lb-to-node' | 'node-port';
  /** NodePort, kube-proxy and externalTrafficPolicy are out of the path. */
  readonly bypassesKubeProxy: boolean;
  readonly sourceIpPreserved: boolean;
  /** Nodes that can receive external traffic (ready workers) and their local ready endpoints. */
  readonly nodesWithLocalEndpoints: number;
  /** Under Local: candidate nodes without a ready local endpoint (they fail the health check). */
  readonly nodesWithoutLocalEndpoints: { readonly count: number; readonly names: readonly string[]; readonly truncated: boolean } | null;
  /** A node may forward to an endpoint on another node. */
  readonly extraHopPossible: boolean;
  /** External traffic may cross zones somewhere on its way, and where. */
  readonly crossZonePossible: boolean;
  readonly explanation: readonly string[];
  /** AWS only: what cross-zone load balancing costs, one line; `null` elsewhere. */
  readonly crossZoneCost: string | null;
  /**
   * The load balancer's own leg (LB node → target): the share of the external traffic it sends to
   * a target in another zone, and how that follows from its settings. Modelled for AWS NLBs (a
   * billed leg); `null` elsewhere.
   */
  readonly leg: LoadBalancerLeg | null;
  /** AWS only: IP vs instance targets × externalTrafficPolicy Local vs Cluster. */
  readonly modes: readonly LoadBalancerMode[];
  /** AWS only: annotation changes worth making (cross-zone, client IP). */
  readonly fixes: readonly LoadBalancerFix[];
}

const MAX_NODE_NAMES = 50;

/** The candidate nodes of a cluster (ready workers), sorted by name, how often each name occurs, and under which client zones. */
interface CandidateNodes {
  readonly sorted: readonly string[];
  readonly count: ReadonlyMap<string, number>;
  /** The client zones each node is listed under, once per listing. */
  readonly zones: ReadonlyMap<string, readonly string[]>;
}

const CANDIDATES = new WeakMap<ClusterContext['clientNodesByZone'], CandidateNodes>();

/** {@link CandidateNodes} of the context, built once per set of client nodes (every LoadBalancer and NodePort Service reads them). */
function candidateNodes(context: ClusterContext): CandidateNodes {
  let found = CANDIDATES.get(context.clientNodesByZone);
  if (!found) {
    // A context after a Node change that left every node where it was (its CPU moved) gets the
    // same object, so what was analysed on it is found again (see KEPT). Told by the client
    // zones and node names in order, read once without building anything: the maps of ~5,000
    // nodes made every pass only to be compared and dropped were ~2 MB of a pass's allocation.
    const last = lastCandidates;
    if (last !== null && sameZonesAndNames(last.pairs, context.clientNodesByZone)) found = last.candidates;
    else {
      const sorted: string[] = [];
      const count = new Map<string, number>();
      const zones = new Map<string, string[]>();
      const pairs: string[] = [];
      for (const [zone, nodes] of context.clientNodesByZone) {
        for (let i = 0; i < nodes.length; i++) {
          const { name } = nodes[i] as { readonly name: string };
          sorted.push(name);
          pairs.push(zone, name);
          count.set(name, (count.get(name) ?? 0) + 1);
          const listed = zones.get(name);
          if (listed) listed.push(zone);
          else zones.set(name, [zone]);
        }
      }
      sorted.sort();
      found = { sorted, count, zones };
      lastCandidates = { pairs, candidates: found };
    }
    CANDIDATES.set(context.clientNodesByZone, found);
  }
  return found;
}

/** The candidate nodes last made, with the client zones and node names they were made from (zone, name, zone, name, … in the map's order). */
let lastCandidates: { readonly pairs: readonly string[]; readonly candidates: CandidateNodes } | null = null;

/** Whether `clientNodesByZone` names the zones and nodes of `pairs`, in the same order. */
function sameZonesAndNames(pairs: readonly string[], clientNodesByZone: ClusterContext['clientNodesByZone']): boolean {
  let at = 0;
  for (const [zone, nodes] of clientNodesByZone) {
    if (at + 2 * nodes.length > pairs.length) return false;
    for (let i = 0; i < nodes.length; i++) {
      if (pairs[at] !== zone || pairs[at + 1] !== (nodes[i] as { readonly name: string }).name) return false;
      at += 2;
    }
  }
  return at === pairs.length;
}

/**
 * The analysis last made for a Service record, with what it read besides the record: its slices,
 * the candidate nodes and whether the cluster looks like AWS (a pass after a Node change, which
 * moves none of them, finds every LoadBalancer and NodePort Service's here).
 */
interface KeptPath {
  readonly slices: readonly EndpointSlice[];
  readonly candidates: CandidateNodes;
  readonly aws: boolean;
  readonly analysis: LoadBalancerAnalysis;
}

/** The first `limit` of `sorted` not in `hosts`. */
function firstWithout(sorted: readonly string[], hosts: ReadonlySet<string>, limit: number): string[] {
  const names: string[] = [];
  for (const name of sorted) {
    if (names.length >= limit) break;
    if (!hosts.has(name)) names.push(name);
  }
  return names;
}

/**
 * The external path of a LoadBalancer or NodePort Service; `null` for other Services.
 *
 * @see https://kubernetes.io/docs/tasks/access-application-cluster/create-external-load-balancer/#preserving-the-client-source-ip
 * @see https://kubernetes-sigs.github.io/aws-load-balancer-controller/latest/guide/service/annotations/
 */
export function analyzeLoadBalancer(
  context: ClusterContext,
  service: ServiceRecord,
  slices: readonly EndpointSlice[],
  memo: ServiceRecordMemo = serviceMemo(service),
): LoadBalancerAnalysis | null {
  if (service.type !== 'LoadBalancer' && service.type !== 'NodePort') return null;
  const candidates = candidateNodes(context);
  const aws = clusterLooksLikeAws(context);
  const kept = memo.loadBalancer as KeptPath | undefined;
  if (kept !== undefined && kept.slices === slices && kept.candidates === candidates && kept.aws === aws) return kept.analysis;
  const analysis = analyzeExternalPath(context, service, slices, candidates);
  memo.loadBalancer = { slices, candidates, aws, analysis } satisfies KeptPath;
  return analysis;
}

/** {@link analyzeLoadBalancer} of a LoadBalancer or NodePort Service, on its context's candidate nodes. */
function analyzeExternalPath(context: ClusterContext, service: ServiceRecord, slices: readonly EndpointSlice[], candidates: CandidateNodes): LoadBalancerAnalysis {
  const policy = service.externalTrafficPolicy ?? 'Cluster';
  const aws = service.type === 'LoadBalancer' && looksLikeAws(context, service) ? awsLoadBalancer(service) : null;
  const path: LoadBalancerAnalysis['path'] = service.type === 'NodePort' ? 'node-port' : aws?.targetType === 'ip' ? 'lb-to-pod' : 'lb-to-node';
  const bypassesKubeProxy = path === 'lb-to-pod';

  // 1. Nodes with and without a ready local endpoint (candidate nodes: ready workers, the same for every Service).
  const hosts = new Set<string>();
  for (const slice of slices) for (const e of slice.endpoints) if (e.ready !== false && e.nodeName) hosts.add(e.nodeName);
  let withLocal = 0;
  for (const host of hosts) withLocal += candidates.count.get(host) ?? 0;
  const withoutCount = candidates.sorted.length - withLocal;

  // 2. Hops and zones.
  const explanation: string[] = [];
  let extraHopPossible = false;
  let crossZonePossible = false;
  let sourceIpPreserved = policy === 'Local';
  if (bypassesKubeProxy) {
    sourceIpPreserved = aws?.clientIpPreserved ?? false;
    crossZonePossible = aws?.crossZoneEnabled ?? false;
    explanation.push(
      `IP targets (${aws?.targetTypeSource}): the load balancer sends straight to pod IPs, bypassing NodePort, kube-proxy and externalTrafficPolicy; there is no extra hop.`,
      sourceIpPreserved
        ? `Client IP preserved (${aws?.clientIpSource}).`
        : `Client IP not preserved (${aws?.clientIpSource}): pods see the load balancer's private IP.`,
      aws?.crossZoneEnabled
        ? `Cross-zone load balancing is on (${aws.crossZoneSource}): each load-balancer node spreads over pods in every zone, so about (zones − 1)/zones of the traffic crosses zones.`
        : 'Cross-zone load balancing is off: each load-balancer node only sends to pods in its own zone (a zone without pods gets no traffic from its LB node).',
    );
  } else {
    if (aws) {
      explanation.push(
        `Instance targets (${aws.targetTypeSource === 'default' ? 'the default' : aws.targetTypeSource}): the load balancer sends to a NodePort on the nodes, then kube-proxy picks an endpoint.`,
      );
      if (aws.crossZoneEnabled) {
        crossZonePossible = true;
        explanation.push(`Cross-zone load balancing is on (${aws.crossZoneSource}): the load balancer itself may send to nodes in other zones.`);
      }
    }
    if (policy === 'Cluster') {
      extraHopPossible = true;
      crossZonePossible = true;
      explanation.push(
        'externalTrafficPolicy: Cluster: the receiving node forwards to any ready endpoint — an extra hop, possibly into another zone, and SNAT hides the client IP. Topology hints narrow that choice to the node\'s zone when they are on.',
      );
    } else {
      explanation.push(
        `externalTrafficPolicy: Local: only endpoints on the receiving node are used — no extra hop, client source IP preserved. ${withoutCount} of ${candidates.sorted.length} nodes have no ready local endpoint: they fail the health check, and traffic that still reaches them is dropped (timeouts).`,
      );
    }
  }
  if (!bypassesKubeProxy && aws === null && service.type === 'LoadBalancer') explanation.push('Provider not recognised: assuming the load balancer targets the nodes.');

  // 3. The load balancer's own leg: targets per zone (pods for IP targets, candidate nodes otherwise).
  let leg: LoadBalancerLeg | null = null;
  if (aws !== null && service.type === 'LoadBalancer') {
    const targets = new Map<string, number>();
    if (aws.targetType === 'ip') {
      for (const slice of slices) for (const e of slice.endpoints) if (e.ready !== false && e.zone) targets.set(e.zone, (targets.get(e.zone) ?? 0) + 1);
    } else {
      // Local: the zone's candidate nodes hosting a ready endpoint, counted from the hosts (a few)
      // rather than by scanning every node of every zone (thousands, for each such Service).
      const hostedByZone = new Map<string, number>();
      if (policy !== 'Cluster') for (const host of hosts) for (const zone of candidates.zones.get(host) ?? []) hostedByZone.set(zone, (hostedByZone.get(zone) ?? 0) + 1);
      for (const [zone, nodes] of context.clientNodesByZone) {
        const count = policy === 'Cluster' ? nodes.length : (hostedByZone.get(zone) ?? 0);
        if (policy === 'Cluster' || count > 0) targets.set(zone, count);
      }
    }
    leg = nlbLeg(aws, targets);
  }
  return {
    type: service.type,
    externalTrafficPolicy: policy,
    provider: aws ? 'aws' : 'unknown',
    aws,
    path,
    bypassesKubeProxy,
    sourceIpPreserved,
    nodesWithLocalEndpoints: withLocal,
    nodesWithoutLocalEndpoints:
      policy === 'Local' && !bypassesKubeProxy && isExternallyAccessible(service)
        ? { count: withoutCount, names: firstWithout(candidates.sorted, hosts, MAX_NODE_NAMES), truncated: withoutCount > MAX_NODE_NAMES }
        : null,
    extraHopPossible,
    crossZonePossible,
    explanation,
    crossZoneCost:
      aws === null
        ? null
        : aws.kind === 'nlb'
          ? `NLB cross-zone load balancing is ${aws.crossZoneEnabled ? 'on' : 'off (the NLB default)'}; when on, traffic an NLB node sends to a target in another zone is billed at the inter-AZ data transfer rate (ALBs: on by default, no charge).`
          : `Classic Load Balancer cross-zone load balancing is ${aws.crossZoneEnabled ? 'on' : 'off'} (${aws.crossZoneSource}).`,
    leg,
    modes: aws ? awsModes({ targetType: aws.targetType, policy }) : [],
    fixes: aws ? awsFixes(service, aws) : [],
  };
}
