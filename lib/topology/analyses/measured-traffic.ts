/**
 * Measured traffic: Prometheus series (already evaluated into bytes per second by the caller)
 * mapped onto the cluster's Services. Pure: the caller passes the series, the window and the
 * evaluation time; nothing here reads a clock or the network.
 *
 * Attribution rule (docs/traffic.md, "Attribution"):
 * - A workload is the top owner of a pod: Pod → ReplicaSet → Deployment; a StatefulSet, DaemonSet,
 *   Job or any other owner by its own name; a pod without an owner by the pod's name. That is the
 *   name Beyla / OBI put in `k8s_*_owner_name`.
 * - The workloads behind a Service are the top owners of the pods its EndpointSlices point at
 *   (`targetRef` / `podName`). A workload behind N Services gives each 1/N of its bytes.
 * - A flow counts for the Service(s) behind its destination workload, as a request: client zone =
 *   `src_zone`, endpoint zone = `dst_zone`. When the destination backs no Service but the source
 *   does, the flow is reply traffic of the source's Service(s): client zone = `dst_zone`, endpoint
 *   zone = `src_zone`. Each byte counts once; flows where neither side backs a Service are
 *   unattributed.
 * - Pod bytes (cAdvisor receive + transmit) of a Service = Σ over its endpoint pods; a pod behind
 *   N Services gives each 1/N. Used only for Services no flow was attributed to.
 * - GB per month = bytes/s × {@link SECONDS_PER_MONTH} / 10⁹.
 */
import type { ClusterIndex, EndpointSliceRecord, PodRecord } from '../model/cluster-model';
import { objectKey } from '../model/cluster-model';
import type { ValueByZone } from '../upstream/types';
import type { MeasuredServiceTraffic, MeasuredTraffic, MeasurementQuality } from './traffic-volume';
import { SECONDS_PER_MONTH } from './traffic-volume';

/** One series of the flow query: bytes/s from a source workload in one zone to a destination workload in another. */
export interface FlowSeries {
  readonly srcZone: string;
  readonly dstZone: string;
  readonly srcNamespace: string;
  readonly srcOwner: string;
  readonly dstNamespace: string;
  readonly dstOwner: string;
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

function sameOwners(a: ReadonlyMap<string, string> | null, b: ReadonlyMap<string, string> | null): boolean {
  if (a === b) return true;
  if (a === null || b === null || a.size !== b.size) return false;
  for (const [pod, owner] of a) if (b.get(pod) !== owner) return false;
  return true;
}

/**
 * Whether {@link measuredTrafficFromSeries} maps any series onto `next` exactly as onto
 * `previous`: the same zones, the same Services, the same pods behind each Service and the same
 * top owner for every pod. Then the mapping of `previous` can be kept for `next` — a change that
 * only flips an endpoint's conditions, moves hints or edits a pod's status costs an identity scan
 * of the lookups (O(Services + namespaces)) plus the Services and namespaces that changed, not a
 * new pass over every series. `false` whenever any of it may differ (the caller maps again).
 */
export function sameAttribution(previous: ClusterIndex, next: ClusterIndex): boolean {
  if (previous === next) return true;
  if (previous.snapshot.nodes !== next.snapshot.nodes && !sameSet(nodeZones(previous), nodeZones(next))) return false;
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
  let work = 0;

  let invalidSamples = 0;
  let unknownZoneBytesPerSecond = 0;
  let unattributedBytesPerSecond = 0;
  const unknownZones = new Map<string, number>();
  const unattributedWorkloads = new Map<string, number>();
  let unattributedPods = 0;
  const invalidByQuery = { flows: 0, podBytes: 0, interZone: 0 };

  // 1. Flows → per-Service zone matrices (bytes/s).
  const flowMatrices = new Map<string, ValueByZone<ValueByZone<number>>>();
  const flowTotals = new Map<string, number>();
  const flowClients = new Map<string, Map<string, number>>();
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
    const dstServices = servicesByWorkload.get(workloadKey(flow.dstNamespace, flow.dstOwner));
    const srcServices = dstServices === undefined ? servicesByWorkload.get(workloadKey(flow.srcNamespace, flow.srcOwner)) : undefined;
    const services = dstServices ?? srcServices;
    if (services === undefined || services.length === 0) {
      unattributedBytesPerSecond += flow.bytesPerSecond;
      const key = workloadKey(flow.dstNamespace || '(none)', flow.dstOwner || '(none)');
      unattributedWorkloads.set(key, (unattributedWorkloads.get(key) ?? 0) + flow.bytesPerSecond);
      continue;
    }
    // Zones checked after attribution, so that flows of no Service count as unattributed only.
    const srcUnknown = unknownZone(flow.srcZone, flow.bytesPerSecond);
    if (srcUnknown) continue;
    if (flow.dstZone !== flow.srcZone && unknownZone(flow.dstZone, flow.bytesPerSecond)) continue;
    const [clientZone, endpointZone] = dstServices !== undefined ? [flow.srcZone, flow.dstZone] : [flow.dstZone, flow.srcZone];
    const share = flow.bytesPerSecond / services.length;
    const client = dstServices !== undefined ? workloadKey(flow.srcNamespace, flow.srcOwner) : workloadKey(flow.dstNamespace, flow.dstOwner);
    for (const service of services) {
      let clients = flowClients.get(service);
      if (clients === undefined) {
        clients = new Map();
        flowClients.set(service, clients);
      }
      clients.set(client, (clients.get(client) ?? 0) + share);
      let matrix = flowMatrices.get(service);
      if (matrix === undefined) {
        matrix = {};
        flowMatrices.set(service, matrix);
      }
      addCell(matrix, clientZone, endpointZone, share);
      flowTotals.set(service, (flowTotals.get(service) ?? 0) + share);
    }
  }

  // 2. Pod bytes → per-Service totals (bytes/s), for Services without flows.
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
    const services = servicesByPod.get(objectKey(series.namespace, series.pod));
    if (services === undefined || services.length === 0) {
      unattributedBytesPerSecond += series.bytesPerSecond;
      unattributedPods += 1;
      continue;
    }
    const share = series.bytesPerSecond / services.length;
    for (const service of services) podTotals.set(service, (podTotals.get(service) ?? 0) + share);
  }

  // 3. Inter-zone family → cluster-wide cross-zone bytes/s.
  let interZone: number | null = null;
  for (const series of input.interZone) {
    if (!validRate(series.bytesPerSecond)) {
      invalidSamples += 1;
      invalidByQuery.interZone += 1;
      continue;
    }
    if (series.srcZone === series.dstZone) continue;
    interZone = (interZone ?? 0) + series.bytesPerSecond;
  }
  if (interZone === null && input.interZone.length > 0) interZone = 0;

  // 4. One entry per Service: flows first, pod bytes otherwise.
  const byService = new Map<string, MeasuredServiceTraffic>();
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
      for (const endpointZone of Object.keys(source).sort()) row[endpointZone] = gbPerMonthOf(source[endpointZone] ?? 0);
      gbMatrix[clientZone] = row;
    }
    const clientWorkloads = [...(flowClients.get(key) ?? new Map<string, number>()).entries()]
      .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
      .slice(0, MAX_CLIENT_WORKLOADS)
      .map(([client]) => client);
    byService.set(key, { kind: 'measured-flows', metric: input.flowMetric, gbPerMonth: gbPerMonthOf(flowTotals.get(key) ?? 0), matrix: gbMatrix, clientWorkloads });
  }
  for (const key of [...podTotals.keys()].sort()) {
    if (byService.has(key)) continue;
    byService.set(key, { kind: 'measured-pod-bytes', metric: input.podMetric, gbPerMonth: gbPerMonthOf(podTotals.get(key) ?? 0), matrix: null });
  }

  // 5. Notes, most telling first.
  const notes: string[] = [];
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
    notes.push(`${plural(topUnattributed.length, 'workload')} in flow series ${topUnattributed.length === 1 ? 'backs' : 'back'} no Service (${names}${topUnattributed.length > 3 ? ', …' : ''}); their bytes are unattributed.`);
  }
  if (unattributedPods > 0) notes.push(`${plural(unattributedPods, 'pod')} with network bytes ${unattributedPods === 1 ? 'backs' : 'back'} no Service; their bytes are unattributed.`);

  const quality: MeasurementQuality = {
    seriesRead: input.flows.length + input.podBytes.length + input.interZone.length,
    invalidSamples,
    unknownZoneBytesPerSecond,
    unattributedBytesPerSecond,
    notes: notes.slice(0, MAX_QUALITY_NOTES),
  };
  return {
    window: input.window,
    measuredAt: input.measuredAt,
    byService,
    interZoneGbPerMonth: interZone === null ? null : gbPerMonthOf(interZone),
    quality,
  };
}
