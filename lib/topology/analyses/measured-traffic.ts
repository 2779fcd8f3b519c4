/**
 * Measured traffic: Prometheus series (already evaluated into bytes per second by the caller)
 * mapped onto the cluster's Services, as Beyla / OBI and cAdvisor emit them. Pure: the caller
 * passes the series, the window and the evaluation time; nothing here reads a clock or the network.
 *
 * Rules (docs/traffic.md, "Attribution"; the exporters' facts are cited there):
 * - A workload is the top owner of a pod: Pod → ReplicaSet → Deployment; a StatefulSet, DaemonSet,
 *   Job or any other owner by its own name; a pod without an owner by the pod's name. That is the
 *   name Beyla / OBI put in `k8s_*_owner_name`. A `hostNetwork` pod is named by its Node
 *   (`k8s_*_owner_type="Node"`). The workloads behind a Service are the top owners of the pods its
 *   EndpointSlices point at; a workload behind N Services gives each 1/N of its bytes.
 * - **A conversation belongs to its server.** Requests and responses are separate series told
 *   apart by `direction`: a request's destination and a response's source is the server, and the
 *   bytes both ways count for the Service(s) behind the server's workload; client zone = the
 *   client side's zone, endpoint zone = the server side's. Without `direction` (removed from the
 *   attribute set) the destination is the server when it backs a Service, else the source.
 * - **One count per byte.** Each node's agent reports what it sees and de-duplicates only within
 *   its host, so a flow between two nodes is in the series of both agents (summing over `instance`
 *   counts it twice) and a flow within one node once. A cross-zone flow is always between two
 *   nodes: its sum is halved. A same-zone flow is halved except for its same-node part: the sum is
 *   divided by 2 − s, where s is the chance that the two ends share a node — Σ over the zone's
 *   nodes of (client side's share on the node × server side's share on it), from where the
 *   workloads' pods run (an unknown client workload: spread over the zone's nodes by CPU, the
 *   traffic model's own assumption). A flow from outside the cluster (no metadata, no zone) is seen
 *   only by the server's agent: counted once, as the Service's external (north-south) bytes.
 * - Series naming a Service as an end (`owner_type="Service"`: the client's agent saw the packet
 *   before kube-proxy translated the ClusterIP) repeat workload series: not counted.
 * - Zones: flow series carry `src_zone`/`dst_zone` only when the user adds them (Beyla's and
 *   OBI's default attribute set has none). Without them no flow is attributed: Services use pod
 *   bytes, and {@link MeasuredTraffic.flowZones} says `missing`.
 * - A Service whose workload Beyla sees (it appears in some flow series) but that no flow reaches
 *   as a server is measured at 0: nobody calls it.
 * - Pod bytes (cAdvisor receive + transmit of the pod's sandbox) of a Service = Σ over its endpoint
 *   pods, a pod behind N Services giving each 1/N; `hostNetwork` pods are left out (their counters
 *   are the node's). Used for Services no flow measured.
 * - The inter-zone counter (`*_network_inter_zone_bytes_total`) is reported by both agents of
 *   every inter-zone flow: its sum is halved, and compared with the flows' cross-zone bytes.
 * - GB per month = bytes/s × {@link SECONDS_PER_MONTH} / 10⁹.
 */
import { toTopologyNode } from '../model/cluster-context';
import type { ClusterIndex, EndpointSliceRecord, PodRecord } from '../model/cluster-model';
import { objectKey } from '../model/cluster-model';
import { quantityToMilli } from '../upstream/quantity';
import { classifyNode } from '../upstream/topology-cache';
import type { ValueByZone } from '../upstream/types';
import type { FlowZones, InterZoneReconciliation, MeasuredServiceTraffic, MeasuredTraffic, MeasurementQuality } from './traffic-volume';
import { RECONCILE_TOLERANCE, SECONDS_PER_MONTH } from './traffic-volume';

/**
 * One series of the flow query (summed over the agents that reported it): bytes/s from a source
 * to a destination, with the labels of Beyla's / OBI's default attribute set and, when added, the
 * zones. A label the series does not carry is `''` (or absent).
 */
export interface FlowSeries {
  /** `src_zone` (`''`: not in the attribute set, or outside the cluster). */
  readonly srcZone: string;
  readonly dstZone: string;
  readonly srcNamespace: string;
  readonly srcOwner: string;
  readonly dstNamespace: string;
  readonly dstOwner: string;
  /** `k8s_src_owner_type` (`Deployment`, `StatefulSet`, `Pod`, `Node`, `Service`, …). */
  readonly srcOwnerType?: string;
  readonly dstOwnerType?: string;
  /** `direction`: `request` (source = client) or `response` (source = server); `''`/absent when removed from the attribute set. */
  readonly direction?: string;
  readonly bytesPerSecond: number;
}

/** One series of the pod-bytes query (receive, transmit, or both summed) for one pod. */
export interface PodBytesSeries {
  readonly namespace: string;
  readonly pod: string;
  readonly bytesPerSecond: number;
}

/** One series of the inter-zone query: bytes/s from one zone to another, cluster-wide. */
export interface InterZoneSeries {
  readonly srcZone: string;
  readonly dstZone: string;
  readonly bytesPerSecond: number;
}

/** What {@link measuredTrafficFromSeries} maps. */
export interface MeasuredSeriesInput {
  readonly flows: readonly FlowSeries[];
  readonly podBytes: readonly PodBytesSeries[];
  readonly interZone: readonly InterZoneSeries[];
  /** PromQL window of the rates (`7d`). */
  readonly window: string;
  /** ISO time of the evaluation. */
  readonly measuredAt: string;
  /** Flow metric the flows were read from (`beyla_network_flow_bytes_total`). */
  readonly flowMetric: string;
  /** Pod metric(s) the pod bytes were read from. */
  readonly podMetric: string;
}

/** At most this many notes are kept in {@link MeasurementQuality.notes}. */
export const MAX_QUALITY_NOTES = 6;

/** At most this many client workloads are kept per Service ({@link MeasuredServiceTraffic.clientWorkloads}). */
export const MAX_CLIENT_WORKLOADS = 5;

/** Bytes per second as GB per 30-day month. */
export function gbPerMonthOf(bytesPerSecond: number): number {
  return (bytesPerSecond * SECONDS_PER_MONTH) / 1e9;
}

/** `ns/name` of a workload. */
function workloadKey(namespace: string, owner: string): string {
  return `${namespace}/${owner}`;
}

/** The top owner's name of a pod: ReplicaSet → its Deployment when the ReplicaSet has one; any other owner as is; the pod's own name without one. */
export function topOwnerName(pod: PodRecord, index: ClusterIndex): string {
  const owner = pod.owner;
  if (owner === null) return pod.name;
  if (owner.kind === 'ReplicaSet') {
    const rs = index.replicaSetsByKey.get(objectKey(pod.namespace, owner.name));
    if (rs?.owner) return rs.owner.name;
    if (rs === undefined) {
      // ReplicaSet not indexed: a Deployment's ReplicaSets are named <deployment>-<pod-template-hash>.
      const dash = owner.name.lastIndexOf('-');
      const candidate = dash > 0 ? owner.name.slice(0, dash) : null;
      if (candidate !== null && index.deploymentsByKey.has(objectKey(pod.namespace, candidate))) return candidate;
    }
  }
  return owner.name;
}

/** Which Services each workload and each pod backs. */
interface Backing {
  /** workload `ns/owner` → Service keys. */
  readonly servicesByWorkload: ReadonlyMap<string, readonly string[]>;
  /** pod `ns/pod` → Service keys. */
  readonly servicesByPod: ReadonlyMap<string, readonly string[]>;
}

function addUnique(map: Map<string, string[]>, key: string, value: string): void {
  const list = map.get(key);
  if (list === undefined) map.set(key, [value]);
  else if (!list.includes(value)) list.push(value);
}

/**
 * Top owner by pod name of one namespace's pods, kept per pod list (the cluster source keeps a
 * namespace's list while its pods are unchanged) and the ReplicaSet/Deployment lookups it used, so
 * a new cluster generation only re-reads the namespaces that changed.
 */
const OWNERS = new WeakMap<
  readonly PodRecord[],
  { readonly replicaSets: ClusterIndex['replicaSetsByKey']; readonly deployments: ClusterIndex['deploymentsByKey']; readonly owners: ReadonlyMap<string, string> }
>();

function ownersIn(namespace: string, index: ClusterIndex): ReadonlyMap<string, string> | null {
  const pods = index.podsByNamespace.get(namespace);
  if (pods === undefined) return null;
  const cached = OWNERS.get(pods);
  if (cached && cached.replicaSets === index.replicaSetsByKey && cached.deployments === index.deploymentsByKey) return cached.owners;
  const owners = new Map<string, string>();
  for (const pod of pods) owners.set(pod.name, topOwnerName(pod, index));
  OWNERS.set(pods, { replicaSets: index.replicaSetsByKey, deployments: index.deploymentsByKey, owners });
  return owners;
}

/** The Services behind each workload and pod, from the EndpointSlices' pod references. O(endpoints), plus O(pods) of the namespaces whose pods changed. */
export function serviceBacking(index: ClusterIndex): Backing {
  return drain(backingSteps(index, Number.POSITIVE_INFINITY));
}

/** Runs a step generator to its end. */
function drain<T>(steps: Generator<number, T, void>): T {
  for (;;) {
    const step = steps.next();
    if (step.done === true) return step.value;
  }
}

/** {@link serviceBacking}, yielding once about every `stepItems` endpoints or lists (checked between Services). */
function* backingSteps(index: ClusterIndex, stepItems: number): Generator<number, Backing, void> {
  const servicesByWorkload = new Map<string, string[]>();
  const servicesByPod = new Map<string, string[]>();
  let work = 0;
  for (const [serviceKey, slices] of index.slicesByService) {
    if (!index.servicesByKey.has(serviceKey)) continue;
    for (const slice of slices) {
      const owners = ownersIn(slice.namespace, index);
      for (const endpoint of slice.endpoints) {
        const podName = endpoint.podName;
        if (podName === null || podName === undefined || podName === '') continue;
        const podKey = objectKey(slice.namespace, podName);
        addUnique(servicesByPod, podKey, serviceKey);
        const owner = owners?.get(podName) ?? podName;
        addUnique(servicesByWorkload, workloadKey(slice.namespace, owner), serviceKey);
      }
      work += slice.endpoints.length;
    }
    if (work >= stepItems) {
      yield work;
      work = 0;
    }
  }
  for (const lists of [servicesByWorkload.values(), servicesByPod.values()]) {
    for (const list of lists) {
      if (list.length > 1) list.sort();
      if (++work >= stepItems) {
        yield work;
        work = 0;
      }
    }
  }
  return { servicesByWorkload, servicesByPod };
}

function sameSet(a: ReadonlySet<string>, b: ReadonlySet<string>): boolean {
  if (a.size !== b.size) return false;
  for (const item of a) if (!b.has(item)) return false;
  return true;
}

/** The zones the nodes name (what a flow's zones are checked against). */
function nodeZones(index: ClusterIndex): Set<string> {
  const zones = new Set<string>();
  for (const node of index.snapshot.nodes) if (node.zone !== null && node.zone !== '') zones.add(node.zone);
  return zones;
}

/** `ns/pod` of every endpoint of `slices` with a pod name: what a Service's slices give {@link serviceBacking}. */
function podRefsOf(slices: readonly EndpointSliceRecord[]): Set<string> {
  const refs = new Set<string>();
  for (const slice of slices) {
    for (const endpoint of slice.endpoints) {
      const podName = endpoint.podName;
      if (podName !== null && podName !== undefined && podName !== '') refs.add(objectKey(slice.namespace, podName));
    }
  }
  return refs;
}

/** What the one-count-per-byte rule reads of a namespace's pods: where each runs, and whether on the host's network. */
function placementKey(pods: readonly PodRecord[] | undefined): string {
  if (pods === undefined) return '';
  const parts: string[] = [];
  for (const pod of pods) parts.push(`${pod.name}\u0000${pod.nodeName ?? ''}\u0000${pod.hostNetwork === true ? 1 : 0}\u0000${pod.terminating ? 1 : 0}`);
  return parts.sort().join('\u0001');
}

/** What the rule reads of the nodes: zones and the client weights (ready workers' CPU). */
function nodesKey(index: ClusterIndex): string {
  return index.snapshot.nodes
    .map((n) => `${n.name}\u0000${n.zone ?? ''}\u0000${n.allocatableCpu ?? ''}\u0000${n.ready === true ? 1 : 0}\u0000${n.unschedulable ? 1 : 0}\u0000${Object.keys(n.labels).sort().join(',')}`)
    .sort()
    .join('\u0001');
}

function sameOwners(a: ReadonlyMap<string, string> | null, b: ReadonlyMap<string, string> | null): boolean {
  if (a === b) return true;
  if (a === null || b === null || a.size !== b.size) return false;
  for (const [pod, owner] of a) if (b.get(pod) !== owner) return false;
  return true;
}

/**
 * Whether {@link measuredTrafficFromSeries} maps any series onto `next` exactly as onto
 * `previous`: the same zones and nodes, the same Services, the same pods behind each Service, the
 * same top owner and node for every pod. Then the mapping of `previous` can be kept for `next` — a change that
 * only flips an endpoint's conditions, moves hints or edits a pod's status costs an identity scan
 * of the lookups (O(Services + namespaces)) plus the Services and namespaces that changed, not a
 * new pass over every series. `false` whenever any of it may differ (the caller maps again).
 */
export function sameAttribution(previous: ClusterIndex, next: ClusterIndex): boolean {
  if (previous === next) return true;
  if (previous.snapshot.nodes !== next.snapshot.nodes && (!sameSet(nodeZones(previous), nodeZones(next)) || nodesKey(previous) !== nodesKey(next))) return false;
  if (previous.servicesByKey !== next.servicesByKey) {
    if (previous.servicesByKey.size !== next.servicesByKey.size) return false;
    for (const key of next.servicesByKey.keys()) if (!previous.servicesByKey.has(key)) return false;
  }
  if (previous.slicesByService !== next.slicesByService) {
    if (previous.slicesByService.size !== next.slicesByService.size) return false;
    for (const [key, slices] of next.slicesByService) {
      const before = previous.slicesByService.get(key);
      if (before === slices) continue;
      if (before === undefined || !sameSet(podRefsOf(before), podRefsOf(slices))) return false;
    }
  }
  const ownerLookupsKept = previous.replicaSetsByKey === next.replicaSetsByKey && previous.deploymentsByKey === next.deploymentsByKey;
  if (ownerLookupsKept && previous.podsByNamespace === next.podsByNamespace) return true;
  if (previous.podsByNamespace.size !== next.podsByNamespace.size) return false;
  for (const [namespace, pods] of next.podsByNamespace) {
    const before = previous.podsByNamespace.get(namespace);
    if (before === undefined) return false;
    if (ownerLookupsKept && before === pods) continue;
    if (!sameOwners(ownersIn(namespace, previous), ownersIn(namespace, next))) return false;
    if (before !== pods && placementKey(before) !== placementKey(pods)) return false;
  }
  return true;
}

function validRate(value: number): boolean {
  return Number.isFinite(value) && value >= 0;
}

function addCell(matrix: ValueByZone<ValueByZone<number>>, from: string, to: string, value: number): void {
  const row = (matrix[from] ??= {});
  row[to] = (row[to] ?? 0) + value;
}

function formatRate(bytesPerSecond: number): string {
  if (bytesPerSecond >= 1e6) return `${(bytesPerSecond / 1e6).toFixed(1)} MB/s`;
  if (bytesPerSecond >= 1e3) return `${(bytesPerSecond / 1e3).toFixed(1)} kB/s`;
  return `${bytesPerSecond.toFixed(0)} B/s`;
}

function plural(count: number, one: string, many = `${one}s`): string {
  return `${count} ${count === 1 ? one : many}`;
}

/**
 * Maps the series onto the cluster's Services by the attribution rule above. Invalid samples (NaN,
 * ±Inf, negative) are dropped and counted; flow series naming a zone no node has are not counted
 * (their bytes are reported); bytes of workloads and pods behind no Service are reported as
 * unattributed. O(pods + endpoints + series).
 */
export function measuredTrafficFromSeries(input: MeasuredSeriesInput, index: ClusterIndex): MeasuredTraffic {
  return drain(measuredTrafficSteps(input, index, Number.POSITIVE_INFINITY));
}

/** Work items (endpoints, series, Services) between two yields of {@link measuredTrafficSteps} by default: a few milliseconds. */
export const MAPPING_STEP_ITEMS = 4096;

/**
 * {@link measuredTrafficFromSeries} in steps: it yields (the work done since the last yield) after
 * about every `stepItems` endpoints, series or Services, and returns the same result, so that a
 * caller can map a large measurement (at scale ~150k flow series over ~150k endpoints) a few
 * milliseconds at a time between other work.
 */
export function* measuredTrafficSteps(input: MeasuredSeriesInput, index: ClusterIndex, stepItems: number = MAPPING_STEP_ITEMS): Generator<number, MeasuredTraffic, void> {
  const zones = nodeZones(index);
  const { servicesByWorkload, servicesByPod } = yield* backingSteps(index, stepItems);
  const placement = new Placement(index);
  let work = 0;

  let invalidSamples = 0;
  let unknownZoneBytesPerSecond = 0;
  let unattributedBytesPerSecond = 0;
  let serviceAddressedBytesPerSecond = 0;
  let zonelessBytesPerSecond = 0;
  let nodeServerBytesPerSecond = 0;
  let namelessServerBytesPerSecond = 0;
  let otherCrossZone = 0;
  const unknownZones = new Map<string, number>();
  const unattributedWorkloads = new Map<string, number>();
  let unattributedPods = 0;
  let hostNetworkPods = 0;
  const invalidByQuery = { flows: 0, podBytes: 0, interZone: 0 };

  // 0. Do the flows carry zones at all (Beyla's default attribute set has none)?
  let flowZones: FlowZones = input.flows.length === 0 ? 'none' : 'missing';
  for (const flow of input.flows) {
    if (flow.srcZone !== '' || flow.dstZone !== '') {
      flowZones = 'labelled';
      break;
    }
  }

  // 1. Flows → per-Service zone matrices (bytes/s, each byte once).
  const flowMatrices = new Map<string, ValueByZone<ValueByZone<number>>>();
  const flowTotals = new Map<string, number>();
  const externalTotals = new Map<string, number>();
  const flowClients = new Map<string, Map<string, number>>();
  /** Workloads some flow series names as an end: Beyla sees their pods. */
  const seenWorkloads = new Set<string>();
  const unknownZone = (zone: string, bytes: number): boolean => {
    if (zones.has(zone)) return false;
    unknownZones.set(zone, (unknownZones.get(zone) ?? 0) + 1);
    unknownZoneBytesPerSecond += bytes;
    return true;
  };
  for (const flow of input.flows) {
    if (++work >= stepItems) {
      yield work;
      work = 0;
    }
    if (!validRate(flow.bytesPerSecond)) {
      invalidSamples += 1;
      invalidByQuery.flows += 1;
      continue;
    }
    if (flow.bytesPerSecond === 0) continue;
    if (flow.srcOwnerType === 'Service' || flow.dstOwnerType === 'Service') {
      serviceAddressedBytesPerSecond += flow.bytesPerSecond;
      continue;
    }
    const src: FlowEnd = { namespace: flow.srcNamespace, owner: flow.srcOwner, type: flow.srcOwnerType ?? '', zone: flow.srcZone };
    const dst: FlowEnd = { namespace: flow.dstNamespace, owner: flow.dstOwner, type: flow.dstOwnerType ?? '', zone: flow.dstZone };
    if (src.namespace !== '' && src.owner !== '') seenWorkloads.add(workloadKey(src.namespace, src.owner));
    if (dst.namespace !== '' && dst.owner !== '') seenWorkloads.add(workloadKey(dst.namespace, dst.owner));
    if (flowZones !== 'labelled') {
      zonelessBytesPerSecond += flow.bytesPerSecond;
      continue;
    }
    // The server: by direction; without it, the end that backs a Service (the destination first).
    const direction = flow.direction ?? '';
    let serverIsDst: boolean;
    if (direction === 'request') serverIsDst = true;
    else if (direction === 'response') serverIsDst = false;
    else serverIsDst = servicesByWorkload.has(workloadKey(dst.namespace, dst.owner)) || !servicesByWorkload.has(workloadKey(src.namespace, src.owner));
    const server = serverIsDst ? dst : src;
    const client = serverIsDst ? src : dst;
    const services = server.type === 'Node' ? undefined : servicesByWorkload.get(workloadKey(server.namespace, server.owner));
    const external = client.zone === '' && client.namespace === '' && (client.owner === '' || client.type === '');
    // One count per byte: a flow from outside is seen by the server's agent only; a cross-zone
    // flow by both agents; a same-zone flow by both unless its ends share a node.
    let bytes = flow.bytesPerSecond;
    if (server.zone !== '' && zones.has(server.zone) && !external && client.zone !== '' && zones.has(client.zone)) {
      bytes /= client.zone === server.zone ? 2 - placement.sameNodeShare(client, server, server.zone) : 2;
    }
    if (services === undefined || services.length === 0) {
      unattributedBytesPerSecond += bytes;
      if (server.type === 'Node') nodeServerBytesPerSecond += bytes;
      else if (server.namespace === '' && server.owner === '') namelessServerBytesPerSecond += bytes;
      else {
        const key = workloadKey(server.namespace || '(none)', server.owner || '(none)');
        unattributedWorkloads.set(key, (unattributedWorkloads.get(key) ?? 0) + bytes);
      }
      if (client.zone !== server.zone && zones.has(client.zone) && zones.has(server.zone)) otherCrossZone += bytes;
      continue;
    }
    if (unknownZone(server.zone, bytes)) continue;
    const share = bytes / services.length;
    if (external) {
      for (const service of services) externalTotals.set(service, (externalTotals.get(service) ?? 0) + share);
      continue;
    }
    if (unknownZone(client.zone, bytes)) continue;
    const clientKey = workloadKey(client.namespace || '(none)', client.owner || '(none)');
    for (const service of services) {
      let clients = flowClients.get(service);
      if (clients === undefined) {
        clients = new Map();
        flowClients.set(service, clients);
      }
      clients.set(clientKey, (clients.get(clientKey) ?? 0) + share);
      let matrix = flowMatrices.get(service);
      if (matrix === undefined) {
        matrix = {};
        flowMatrices.set(service, matrix);
      }
      addCell(matrix, client.zone, server.zone, share);
      flowTotals.set(service, (flowTotals.get(service) ?? 0) + share);
    }
  }

  // 2. Services Beyla sees but no flow reaches as a server: measured at 0 (nobody calls them).
  if (flowZones === 'labelled' && seenWorkloads.size > 0) {
    for (const [workload, services] of servicesByWorkload) {
      if (!seenWorkloads.has(workload)) continue;
      for (const service of services) if (!flowTotals.has(service) && !externalTotals.has(service)) flowTotals.set(service, 0);
    }
    for (const service of externalTotals.keys()) if (!flowTotals.has(service)) flowTotals.set(service, 0);
  }

  // 3. Pod bytes → per-Service totals (bytes/s), for Services without flows; hostNetwork pods report the node's counters.
  const podTotals = new Map<string, number>();
  for (const series of input.podBytes) {
    if (++work >= stepItems) {
      yield work;
      work = 0;
    }
    if (!validRate(series.bytesPerSecond)) {
      invalidSamples += 1;
      invalidByQuery.podBytes += 1;
      continue;
    }
    if (series.bytesPerSecond === 0) continue;
    if (placement.isHostNetwork(series.namespace, series.pod)) {
      hostNetworkPods += 1;
      continue;
    }
    const services = servicesByPod.get(objectKey(series.namespace, series.pod));
    if (services === undefined || services.length === 0) {
      unattributedBytesPerSecond += series.bytesPerSecond;
      unattributedPods += 1;
      continue;
    }
    const share = series.bytesPerSecond / services.length;
    for (const service of services) podTotals.set(service, (podTotals.get(service) ?? 0) + share);
  }

  // 4. Inter-zone counter → cluster-wide cross-zone bytes/s, each byte once (both agents report it).
  let interZone: number | null = null;
  for (const series of input.interZone) {
    if (!validRate(series.bytesPerSecond)) {
      invalidSamples += 1;
      invalidByQuery.interZone += 1;
      continue;
    }
    if (series.srcZone === series.dstZone || series.srcZone === '' || series.dstZone === '') continue;
    interZone = (interZone ?? 0) + series.bytesPerSecond / 2;
  }
  if (interZone === null && input.interZone.length > 0) interZone = 0;

  // 5. One entry per Service: flows first, pod bytes otherwise.
  const byService = new Map<string, MeasuredServiceTraffic>();
  let servicesCrossZone = 0;
  for (const key of [...flowTotals.keys()].sort()) {
    if (++work >= stepItems) {
      yield work;
      work = 0;
    }
    const matrix = flowMatrices.get(key) ?? {};
    const gbMatrix: ValueByZone<ValueByZone<number>> = {};
    for (const clientZone of Object.keys(matrix).sort()) {
      const row: ValueByZone<number> = {};
      const source = matrix[clientZone] ?? {};
      for (const endpointZone of Object.keys(source).sort()) {
        row[endpointZone] = gbPerMonthOf(source[endpointZone] ?? 0);
        if (endpointZone !== clientZone) servicesCrossZone += source[endpointZone] ?? 0;
      }
      gbMatrix[clientZone] = row;
    }
    const clientWorkloads = [...(flowClients.get(key) ?? new Map<string, number>()).entries()]
      .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
      .slice(0, MAX_CLIENT_WORKLOADS)
      .map(([client]) => client);
    const external = externalTotals.get(key);
    byService.set(key, {
      kind: 'measured-flows',
      metric: input.flowMetric,
      gbPerMonth: gbPerMonthOf(flowTotals.get(key) ?? 0),
      matrix: gbMatrix,
      clientWorkloads,
      ...(external !== undefined ? { externalGbPerMonth: gbPerMonthOf(external) } : {}),
    });
  }
  for (const key of [...podTotals.keys()].sort()) {
    if (byService.has(key)) continue;
    byService.set(key, { kind: 'measured-pod-bytes', metric: input.podMetric, gbPerMonth: gbPerMonthOf(podTotals.get(key) ?? 0), matrix: null });
  }

  // 6. The inter-zone counter against the flows.
  const reconciliation = flowZones === 'labelled' && interZone !== null ? reconcile(servicesCrossZone, otherCrossZone, interZone) : null;

  // 7. Notes, most telling first.
  const notes: string[] = [];
  if (flowZones === 'missing') {
    notes.push(
      `The ${plural(input.flows.length, 'flow series', 'flow series')} of ${input.flowMetric} carry no src_zone/dst_zone (the exporter's default attribute set): no zone can be measured from them, and Services use pod bytes with the model's zone split. ${zoneLabelsHint(input.flowMetric)}`,
    );
  }
  if (reconciliation !== null && !reconciliation.agrees) notes.push(reconciliation.note);
  if (invalidSamples > 0) {
    const parts = [
      invalidByQuery.flows > 0 ? `${invalidByQuery.flows} flow` : null,
      invalidByQuery.podBytes > 0 ? `${invalidByQuery.podBytes} pod-bytes` : null,
      invalidByQuery.interZone > 0 ? `${invalidByQuery.interZone} inter-zone` : null,
    ].filter((part) => part !== null);
    notes.push(`${plural(invalidSamples, 'sample')} ${invalidSamples === 1 ? 'was' : 'were'} NaN, infinite or negative and ${invalidSamples === 1 ? 'was' : 'were'} dropped (${parts.join(', ')}).`);
  }
  for (const [zone, count] of [...unknownZones.entries()].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).slice(0, 2)) {
    const one = count === 1;
    notes.push(zone === '' ? `${count} flow series ${one ? 'has' : 'have'} no zone label; not counted.` : `${count} flow series ${one ? 'names' : 'name'} zone "${zone}", which no node has; not counted.`);
  }
  if (unknownZones.size > 2) notes.push(`${unknownZones.size - 2} more unknown zones; ${formatRate(unknownZoneBytesPerSecond)} not counted in all.`);
  const topUnattributed = [...unattributedWorkloads.entries()].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
  if (topUnattributed.length > 0) {
    const names = topUnattributed.slice(0, 3).map(([key]) => key).join(', ');
    notes.push(`${plural(topUnattributed.length, 'workload')} serving in flow series ${topUnattributed.length === 1 ? 'backs' : 'back'} no Service (${names}${topUnattributed.length > 3 ? ', …' : ''}); their bytes are unattributed.`);
  }
  if (namelessServerBytesPerSecond > 0) notes.push(`${formatRate(namelessServerBytesPerSecond)} of flows go to servers without Kubernetes metadata (outside the cluster, or pods the exporter could not name); not attributed to a Service.`);
  if (nodeServerBytesPerSecond > 0) notes.push(`${formatRate(nodeServerBytesPerSecond)} of flows are served by a node (hostNetwork pods, which Beyla names by their node); not attributed to a Service.`);
  if (serviceAddressedBytesPerSecond > 0) {
    notes.push(`${formatRate(serviceAddressedBytesPerSecond)} of flow series name a Service as an end (seen before kube-proxy translated its ClusterIP); they repeat the workload series and are not counted.`);
  }
  if (hostNetworkPods > 0) notes.push(`${plural(hostNetworkPods, 'hostNetwork pod')} ${hostNetworkPods === 1 ? 'reports' : 'report'} the node's network counters in cAdvisor; not counted.`);
  if (unattributedPods > 0) notes.push(`${plural(unattributedPods, 'pod')} with network bytes ${unattributedPods === 1 ? 'backs' : 'back'} no Service; their bytes are unattributed.`);

  const quality: MeasurementQuality = {
    seriesRead: input.flows.length + input.podBytes.length + input.interZone.length,
    invalidSamples,
    unknownZoneBytesPerSecond,
    unattributedBytesPerSecond: unattributedBytesPerSecond + (flowZones === 'missing' ? zonelessBytesPerSecond : 0),
    serviceAddressedBytesPerSecond,
    hostNetworkPods,
    notes: notes.slice(0, MAX_QUALITY_NOTES),
  };
  return {
    window: input.window,
    measuredAt: input.measuredAt,
    byService,
    interZoneGbPerMonth: interZone === null ? null : gbPerMonthOf(interZone),
    flowZones,
    reconciliation,
    quality,
  };
}

/** One end of a flow series. */
interface FlowEnd {
  readonly namespace: string;
  readonly owner: string;
  /** `k8s_*_owner_type`, `''` when absent. */
  readonly type: string;
  readonly zone: string;
}

/** The exporter setting that adds zones to the flow series (docs/traffic.md, "Zone labels"). */
export function zoneLabelsHint(flowMetric: string): string {
  const obi = flowMetric.startsWith('obi_');
  const section = obi ? 'obi_network_flow_bytes' : 'beyla_network_flow_bytes';
  return `Add src.zone and dst.zone to ${obi ? 'OBI' : 'Beyla'}'s attributes.select.${section}.include (with the defaults you keep: k8s.src.owner.name, k8s.src.owner.type, k8s.src.namespace, k8s.dst.owner.name, k8s.dst.owner.type, k8s.dst.namespace, k8s.cluster.name, direction) in its configuration YAML (there is no environment variable for it).`;
}

/** The flows' cross-zone bytes/s (attributed and not) against the inter-zone counter's (each byte once). */
function reconcile(servicesBps: number, otherBps: number, interZoneBps: number): InterZoneReconciliation {
  const flows = servicesBps + otherBps;
  const largest = Math.max(flows, interZoneBps);
  const agrees = largest === 0 || Math.abs(flows - interZoneBps) <= RECONCILE_TOLERANCE * largest;
  const gb = (bps: number) => formatGb(gbPerMonthOf(bps));
  const both = `flows ${gb(flows)} GB/month (Services ${gb(servicesBps)}, other workloads ${gb(otherBps)}) against the inter-zone counter's ${gb(interZoneBps)} GB/month`;
  const note = agrees
    ? `Cross-zone bytes agree: ${both}.`
    : flows > interZoneBps
      ? `Cross-zone bytes disagree: ${both}. The flows count more: are some nodes without an agent, or zone labels that differ between the two metrics' attribute sets?`
      : `Cross-zone bytes disagree: ${both}. The counter counts more: traffic of ends without Kubernetes metadata (outside the cluster) or series left out of the flow query's attribute set.`;
  return { servicesGbPerMonth: gbPerMonthOf(servicesBps), otherGbPerMonth: gbPerMonthOf(otherBps), interZoneGbPerMonth: gbPerMonthOf(interZoneBps), agrees, note };
}

function formatGb(gb: number): string {
  return gb >= 100 ? Math.round(gb).toLocaleString('en-US') : gb >= 1 ? gb.toFixed(1) : gb.toFixed(3);
}

/**
 * Where the two ends of same-zone flows run, for the one-count-per-byte rule: the chance that both
 * ends of a flow between two workloads in one zone share a node.
 */
class Placement {
  private readonly index: ClusterIndex;
  /** zone → node → client weight (the traffic model's clients: counted nodes by CPU). */
  private clientWeights: Map<string, Map<string, number>> | null = null;
  /** namespace → workload → zone → node → pods. */
  private readonly pods = new Map<string, Map<string, Map<string, Map<string, number>>>>();
  /** namespace → pod name → hostNetwork. */
  private readonly hostNetwork = new Map<string, ReadonlySet<string>>();
  private readonly shares = new Map<string, number>();

  constructor(index: ClusterIndex) {
    this.index = index;
  }

  /** Whether the pod runs with `hostNetwork` (its cAdvisor counters are the node's). */
  isHostNetwork(namespace: string, pod: string): boolean {
    let set = this.hostNetwork.get(namespace);
    if (set === undefined) {
      const names = new Set<string>();
      for (const record of this.index.podsByNamespace.get(namespace) ?? []) if (record.hostNetwork === true) names.add(record.name);
      set = names;
      this.hostNetwork.set(namespace, set);
    }
    return set.has(pod);
  }

  /** Σ over the zone's nodes of the client end's share × the server end's share on that node. */
  sameNodeShare(client: FlowEnd, server: FlowEnd, zone: string): number {
    const key = `${client.type}\u0000${client.namespace}\u0000${client.owner}\u0000${server.type}\u0000${server.namespace}\u0000${server.owner}\u0000${zone}`;
    let share = this.shares.get(key);
    if (share === undefined) {
      const p = this.where(client, zone);
      const q = this.where(server, zone);
      share = 0;
      for (const [node, weight] of p) share += weight * (q.get(node) ?? 0);
      share = Math.min(1, Math.max(0, share));
      this.shares.set(key, share);
    }
    return share;
  }

  /** Node → share of one end's traffic in `zone` (sums to 1, or empty when the zone has no node). */
  private where(end: FlowEnd, zone: string): ReadonlyMap<string, number> {
    if (end.type === 'Node') return new Map([[end.owner, 1]]);
    const counts = this.workloadPods(end.namespace).get(end.owner)?.get(zone);
    return counts !== undefined && counts.size > 0 ? normalised(counts) : (this.clients().get(zone) ?? new Map());
  }

  private workloadPods(namespace: string): Map<string, Map<string, Map<string, number>>> {
    let byWorkload = this.pods.get(namespace);
    if (byWorkload === undefined) {
      byWorkload = new Map();
      const owners = ownersIn(namespace, this.index);
      const zoneOf = this.nodeZones();
      for (const pod of this.index.podsByNamespace.get(namespace) ?? []) {
        if (pod.nodeName === null || pod.terminating || pod.hostNetwork === true) continue;
        const zone = zoneOf.get(pod.nodeName);
        if (zone === undefined) continue;
        const owner = owners?.get(pod.name) ?? pod.name;
        let byZone = byWorkload.get(owner);
        if (byZone === undefined) {
          byZone = new Map();
          byWorkload.set(owner, byZone);
        }
        let byNode = byZone.get(zone);
        if (byNode === undefined) {
          byNode = new Map();
          byZone.set(zone, byNode);
        }
        byNode.set(pod.nodeName, (byNode.get(pod.nodeName) ?? 0) + 1);
      }
      this.pods.set(namespace, byWorkload);
    }
    return byWorkload;
  }

  private zoneByNode: Map<string, string> | null = null;

  private nodeZones(): Map<string, string> {
    if (this.zoneByNode === null) {
      this.zoneByNode = new Map();
      for (const node of this.index.snapshot.nodes) if (node.zone !== null && node.zone !== '') this.zoneByNode.set(node.name, node.zone);
    }
    return this.zoneByNode;
  }

  private clients(): Map<string, Map<string, number>> {
    if (this.clientWeights === null) {
      const weights = new Map<string, Map<string, number>>();
      for (const node of this.index.snapshot.nodes) {
        // The traffic model's client nodes (1.23+ rules: control-plane nodes excluded).
        if (node.zone === null || node.zone === '' || classifyNode(toTopologyNode(node), 36) !== 'counted') continue;
        const cpu = node.allocatableCpu === null ? 0 : (quantityToMilli(node.allocatableCpu) ?? 0);
        let byNode = weights.get(node.zone);
        if (byNode === undefined) {
          byNode = new Map();
          weights.set(node.zone, byNode);
        }
        byNode.set(node.name, cpu);
      }
      this.clientWeights = new Map([...weights].map(([zone, byNode]) => [zone, normalised(byNode)]));
    }
    return this.clientWeights;
  }
}

/** The weights divided by their sum (equal shares when they sum to 0). */
function normalised(weights: ReadonlyMap<string, number>): Map<string, number> {
  let total = 0;
  for (const weight of weights.values()) total += weight;
  const out = new Map<string, number>();
  for (const [key, weight] of weights) out.set(key, total > 0 ? weight / total : 1 / weights.size);
  return out;
}
