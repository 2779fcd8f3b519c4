/**
 * One Service's traffic as the simulator sends it, from the engine's matrix *now*: request
 * bytes/s = a per-endpoint rate seeded from the Service key (2–10 kB/s, an integer) × ready
 * endpoints, split over client zone → endpoint zone by the matrix (dropped traffic is never
 * delivered, so it sends nothing), then the profile's deviation; each endpoint pod gets its
 * zone's bytes in proportion to its modelled load. Requests come from a client workload
 * {@link LOADGEN_WORKLOAD} (a Deployment in the Service's namespace); replies are
 * {@link REPLY_FACTOR}× the request bytes.
 *
 * Who reports what: per (client zone c, endpoint zone e) cell, the client-side agent — one
 * client node of zone c — reports the whole cell, and the server-side agent — the node of the
 * zone-e endpoint with the highest modelled load — the cell's cross-node part,
 * cell × (1 − sameNodeFraction), where sameNodeFraction is 0 across zones and Σₙ w(n)·q(n) within
 * one (w: node n's share of zone c's client CPU; q: the share of the Service's zone-e endpoint
 * load on n). One node being both agents gives one series. Summed over `instance`, a series is
 * same-node + 2 × cross-node bytes. On a kube-proxy dataplane the client-side agent also sees
 * the packets addressed to the ClusterIP: a request series to the Service
 * (`k8s_dst_owner_type="Service"`, `dst_zone=""`) and a response series from it, with the client
 * zone's bytes (Services with a ClusterIP only). cAdvisor reports each endpoint pod's bytes
 * wherever something is measured.
 */
import { createSeededRandom, hashSeed } from '../../lib/topology/analyses/seeded-random';
import type { TrafficMatrix } from '../../lib/topology/analyses/traffic';
import { OTHER_ZONES, UNKNOWN_ZONE } from '../../lib/topology/analyses/traffic';
import type { PodRecord, ServiceRecord } from '../../lib/topology/model/cluster-model';
import { objectKey } from '../../lib/topology/model/cluster-model';
import type { AgentFlow, FlowPeer } from './beyla-series';
import type { PodNetwork } from './cadvisor-series';
import type { ClientZoneNodes } from './client-nodes';
import { clientNodeOf } from './client-nodes';
import type { EndpointInfo, PeerOwner } from './endpoint-owners';
import { UNKNOWN_OWNER } from './endpoint-owners';
import type { TrafficProfile } from './profile';
import type { PodRate, ServiceTrafficRates, TrafficCoverage, TrafficWorkload, ZonePairRate } from './rates';

/** The client workload of every Service (a Deployment in the Service's namespace). */
export const LOADGEN_WORKLOAD = 'loadgen';
/** Reply bytes per request byte. */
export const REPLY_FACTOR = 3;
/** Request bytes/s per ready endpoint lie in [MIN, MAX) (seeded per Service). */
export const MIN_REQUEST_BYTES_PER_ENDPOINT = 2_000;
export const MAX_REQUEST_BYTES_PER_ENDPOINT = 10_000;

/** What the per-Service model reads besides the Service and its matrix. */
export interface ServiceContext {
  readonly profile: TrafficProfile;
  readonly clientZones: ReadonlyMap<string, ClientZoneNodes>;
  /** kube-proxy routes Services: the client-side agent sees packets addressed to the ClusterIP. */
  readonly kubeProxy: boolean;
  /** The flow agent (`instance`) on a node. */
  readonly agentOf: (node: string) => string;
  /** The kubelet (`instance`) of a node. */
  readonly kubeletOf: (node: string) => string;
  readonly podUid: (namespace: string, name: string) => string;
}

/** Whether a Service has a virtual IP that kube-proxy translates (not headless, not ExternalName). */
function hasClusterIP(service: ServiceRecord): boolean {
  return service.type !== 'ExternalName' && service.clusterIP !== null && service.clusterIP !== '' && service.clusterIP !== 'None';
}

/** Seeded request bytes/s per ready endpoint of a Service (an integer in [MIN, MAX)). */
export function requestRatePerEndpoint(key: string): number {
  const random = createSeededRandom(hashSeed(`zonescope-sim-traffic:${key}`));
  return Math.floor(MIN_REQUEST_BYTES_PER_ENDPOINT + random() * (MAX_REQUEST_BYTES_PER_ENDPOINT - MIN_REQUEST_BYTES_PER_ENDPOINT));
}

function labelZone(zone: string): string {
  return zone === UNKNOWN_ZONE ? '' : zone;
}

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Adds what one agent reports of a conversation: the request series and the response series (src/dst swapped, {@link REPLY_FACTOR}× the bytes). */
function addConversation(flows: AgentFlow[], instance: string, client: FlowPeer, server: FlowPeer, requestBytesPerSecond: number): void {
  if (!(requestBytesPerSecond > 0)) return;
  flows.push(
    { instance, direction: 'request', src: client, dst: server, bytesPerSecond: requestBytesPerSecond },
    { instance, direction: 'response', src: server, dst: client, bytesPerSecond: requestBytesPerSecond * REPLY_FACTOR },
  );
}

/** One Service's traffic (see the file header): what it sends, what each agent reports, and each pod's bytes. */
export function serviceTraffic(
  service: ServiceRecord,
  matrix: TrafficMatrix,
  endpoints: readonly EndpointInfo[],
  context: ServiceContext,
): { rates: ServiceTrafficRates; flows: AgentFlow[]; pods: PodNetwork[] } {
  const { profile } = context;
  const key = objectKey(service.namespace, service.name);
  const coverage: TrafficCoverage = profile.unmeasuredNamespaces.includes(service.namespace)
    ? 'none'
    : profile.podBytesOnlyNamespaces.includes(service.namespace)
      ? 'pod-bytes'
      : 'flows-and-pod-bytes';
  const deviation = profile.deviations.get(key) ?? null;
  const readyEndpoints = matrix.endpointLoads.length;
  const perEndpoint = requestRatePerEndpoint(key);
  const request = perEndpoint * readyEndpoints * (deviation?.kind === 'volume' ? deviation.factor : 1);

  // 1. Request fractions per zone pair (the matrix, then the keep-alive skew).
  let unexportedFraction = 0;
  const rows = new Map<string, Map<string, number>>();
  for (const clientZone of Object.keys(matrix.matrix).sort(compareText)) {
    const row = new Map<string, number>();
    const cells = matrix.matrix[clientZone] ?? {};
    for (const endpointZone of Object.keys(cells).sort(compareText)) {
      const fraction = cells[endpointZone] ?? 0;
      if (!(fraction > 0)) continue;
      if (endpointZone === OTHER_ZONES) unexportedFraction += fraction;
      else row.set(endpointZone, fraction);
    }
    if (row.size > 0) rows.set(clientZone, row);
  }
  if (deviation?.kind === 'keep-alive') {
    const zones = [...new Set(matrix.endpointLoads.map((e) => e.zone))].filter((z) => z !== UNKNOWN_ZONE).sort(compareText);
    for (const [clientZone, row] of rows) {
      const pinned = zones.find((z) => z > clientZone) ?? zones.find((z) => z !== clientZone);
      if (pinned === undefined) continue;
      let rowTotal = 0;
      for (const [zone, fraction] of row) {
        rowTotal += fraction;
        row.set(zone, fraction * (1 - deviation.pinnedShare));
      }
      row.set(pinned, (row.get(pinned) ?? 0) + rowTotal * deviation.pinnedShare);
    }
  }

  // 2. Per endpoint zone: each endpoint's share of the zone's bytes (its modelled load; equal
  //    shares when the zone had none), and the server-side agent's node (the busiest endpoint's).
  type Share = { readonly owner: PeerOwner; readonly ownerKey: string; readonly pod: PodRecord | null; readonly node: string | null; readonly share: number };
  const byZone = new Map<string, { index: number; load: number }[]>();
  matrix.endpointLoads.forEach((load, index) => {
    const list = byZone.get(load.zone);
    if (list) list.push({ index, load: load.load });
    else byZone.set(load.zone, [{ index, load: load.load }]);
  });
  const zoneEndpoints = new Map<string, { readonly shares: readonly Share[]; readonly serverNode: string | null }>();
  const endpointsIn = (zone: string): { readonly shares: readonly Share[]; readonly serverNode: string | null } => {
    const known = zoneEndpoints.get(zone);
    if (known) return known;
    const list = byZone.get(zone) ?? [];
    const total = list.reduce((sum, e) => sum + e.load, 0);
    let serverNode: string | null = null;
    let serverLoad = -1;
    const shares: Share[] = [];
    for (const { index, load } of list) {
      const info = endpoints[index] ?? { pod: null, owner: UNKNOWN_OWNER, node: null };
      if (info.node !== null && (load > serverLoad || (load === serverLoad && serverNode !== null && info.node < serverNode))) {
        serverNode = info.node;
        serverLoad = load;
      }
      const { owner } = info;
      shares.push({ owner, ownerKey: `${owner.ownerType}\u0000${owner.namespace}\u0000${owner.ownerName}`, pod: info.pod, node: info.node, share: total > 0 ? load / total : 1 / list.length });
    }
    const computed = { shares, serverNode };
    zoneEndpoints.set(zone, computed);
    return computed;
  };

  // 3. Per cell: the truth, each pod's bytes, and what the two agents report.
  const exportFlows = coverage === 'flows-and-pod-bytes';
  const serviceTypedFlows = exportFlows && context.kubeProxy && hasClusterIP(service);
  const ns = service.namespace;
  const servicePeer: FlowPeer = { namespace: ns, ownerName: service.name, ownerType: 'Service', zone: '' };
  const flows: AgentFlow[] = [];
  const byZonePair: ZonePairRate[] = [];
  const podRates = new Map<string, { pod: PodRecord; rx: number }>();
  const workloads = new Map<string, TrafficWorkload>();
  let cross = 0;
  let delivered = 0;
  for (const [clientZone, row] of rows) {
    const clientNodes = context.clientZones.get(clientZone);
    const clientNode = clientNodes === undefined ? null : clientNodeOf(key, clientZone, clientNodes.names);
    const clientAgent = clientNode === null ? null : context.agentOf(clientNode);
    const client: FlowPeer = { namespace: ns, ownerName: LOADGEN_WORKLOAD, ownerType: 'Deployment', zone: labelZone(clientZone) };
    let zoneRequest = 0;
    for (const [endpointZone, fraction] of row) {
      const pairRequest = request * fraction;
      if (!(pairRequest > 0)) continue;
      zoneRequest += pairRequest;
      delivered += pairRequest;
      if (endpointZone !== clientZone && endpointZone !== UNKNOWN_ZONE) cross += pairRequest;
      const { shares, serverNode } = endpointsIn(endpointZone);
      // Within one zone, a client on node n reaches an endpoint on n with probability q(n).
      const clientShares = endpointZone === clientZone ? clientNodes?.shareByNode : undefined;
      const cell = new Map<string, { owner: PeerOwner; request: number; sameNode: number }>();
      let sameNode = 0;
      for (const { owner, ownerKey, pod, node, share } of shares) {
        const part = pairRequest * share;
        const same = clientShares !== undefined && node !== null ? part * (clientShares.get(node) ?? 0) : 0;
        sameNode += same;
        workloads.set(ownerKey, { kind: owner.ownerType, name: owner.ownerName });
        const known = cell.get(ownerKey);
        if (known) {
          known.request += part;
          known.sameNode += same;
        } else cell.set(ownerKey, { owner, request: part, sameNode: same });
        if (pod) {
          const rate = podRates.get(pod.name);
          if (rate) rate.rx += part;
          else podRates.set(pod.name, { pod, rx: part });
        }
      }
      const serverAgent = serverNode === null ? null : context.agentOf(serverNode);
      byZonePair.push({
        clientZone: labelZone(clientZone),
        endpointZone: labelZone(endpointZone),
        requestBytesPerSecond: pairRequest,
        replyBytesPerSecond: pairRequest * REPLY_FACTOR,
        sameNodeFraction: Math.min(1, sameNode / pairRequest),
        clientAgent,
        serverAgent,
      });
      if (!exportFlows) continue;
      const endpointZoneLabel = labelZone(endpointZone);
      for (const { owner, request: bytes, sameNode: same } of cell.values()) {
        const server: FlowPeer = { ...owner, zone: endpointZoneLabel };
        if (clientAgent !== null) addConversation(flows, clientAgent, client, server, bytes);
        // Rounding must not leave a sliver of cross-node bytes where every flow stays on its node.
        const crossNode = bytes - same;
        if (serverAgent !== null && crossNode > bytes * 1e-9) addConversation(flows, serverAgent, client, server, crossNode);
      }
    }
    if (serviceTypedFlows && clientAgent !== null) addConversation(flows, clientAgent, client, servicePeer, zoneRequest);
  }
  byZonePair.sort((a, b) => compareText(a.clientZone, b.clientZone) || compareText(a.endpointZone, b.endpointZone));
  const pods: PodRate[] = [...podRates.values()]
    .map(({ pod, rx }) => ({ namespace: pod.namespace, pod: pod.name, node: pod.nodeName, hostNetwork: pod.hostNetwork === true, rxBytesPerSecond: rx, txBytesPerSecond: rx * REPLY_FACTOR }))
    .sort((a, b) => compareText(a.pod, b.pod));

  // 4. cAdvisor's view of the pods wherever something is measured (a kubelet runs on every node).
  const podNetwork: PodNetwork[] = [];
  if (coverage !== 'none') {
    for (const pod of pods) {
      if (pod.node === null) continue;
      podNetwork.push({
        namespace: pod.namespace,
        pod: pod.pod,
        uid: context.podUid(pod.namespace, pod.pod),
        kubelet: context.kubeletOf(pod.node),
        hostNetwork: pod.hostNetwork,
        rxBytesPerSecond: pod.rxBytesPerSecond,
        txBytesPerSecond: pod.txBytesPerSecond,
      });
    }
  }
  const rates: ServiceTrafficRates = {
    namespace: service.namespace,
    name: service.name,
    readyEndpoints,
    coverage,
    deviation,
    requestBytesPerSecondPerEndpoint: perEndpoint,
    requestBytesPerSecond: delivered,
    replyBytesPerSecond: delivered * REPLY_FACTOR,
    totalBytesPerSecond: delivered * (1 + REPLY_FACTOR),
    crossZoneBytesPerSecond: cross * (1 + REPLY_FACTOR),
    crossZoneFraction: delivered > 0 ? cross / delivered : 0,
    predictedCrossZoneFraction: matrix.crossZoneFraction,
    serviceTypedFlows,
    byZonePair,
    workloads: [...workloads.values()].sort((a, b) => compareText(a.kind, b.kind) || compareText(a.name, b.name)),
    pods,
    podBytesPerSecond: pods.reduce((sum, p) => sum + p.rxBytesPerSecond + p.txBytesPerSecond, 0),
    unexportedBytesPerSecond: request * unexportedFraction * (1 + REPLY_FACTOR),
  };
  return { rates, flows: exportFlows ? flows : [], pods: podNetwork };
}
