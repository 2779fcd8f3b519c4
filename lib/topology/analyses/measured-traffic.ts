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
 * - GB per month = bytes/s × `SECONDS_PER_MONTH` (traffic-volume.ts) / 10⁹.
 *
 * Here the mapping itself; which Services a workload or pod backs is workload-backing.ts, the
 * one-count-per-byte rule flow-deduplication.ts, the inter-zone counter against the flows
 * inter-zone-reconciliation.ts, and whether a new cluster generation maps alike same-attribution.ts.
 */
import type { ClusterIndex } from '../model/cluster-model';
import { objectKey } from '../model/cluster-model';
import type { ValueByZone } from '../upstream/types';
import type { FlowEnd } from './flow-deduplication';
import { Placement } from './flow-deduplication';
import { reconcileInterZone } from './inter-zone-reconciliation';
import type { FlowZones, MeasuredServiceTraffic, MeasuredTraffic, MeasurementQuality } from './traffic-volume';
import { gbPerMonthOf } from './traffic-volume';
import { backingSteps, drain, workloadKey } from './workload-backing';

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

/**
 * Flow series as the mapping reads them: how many, and each in order. A plain list, or the
 * columns a traffic source keeps between refreshes (flow-series-table.ts).
 */
export type FlowSeriesList = Iterable<FlowSeries> & { readonly length: number };

/** What {@link measuredTrafficFromSeries} maps. */
export interface MeasuredSeriesInput {
  readonly flows: FlowSeriesList;
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

/** The zones the nodes name (what a flow's zones are checked against). */
export function nodeZones(index: ClusterIndex): Set<string> {
  const zones = new Set<string>();
  for (const node of index.snapshot.nodes) if (node.zone !== null && node.zone !== '') zones.add(node.zone);
  return zones;
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
    // One count per byte however many agents saw it.
    const bytes = placement.countedOnce(flow.bytesPerSecond, client, server, external, zones);
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
  const reconciliation = flowZones === 'labelled' && interZone !== null ? reconcileInterZone(servicesCrossZone, otherCrossZone, interZone) : null;

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

/** The exporter setting that adds zones to the flow series (docs/traffic.md, "Zone labels"). */
export function zoneLabelsHint(flowMetric: string): string {
  const obi = flowMetric.startsWith('obi_');
  const section = obi ? 'obi_network_flow_bytes' : 'beyla_network_flow_bytes';
  return `Add src.zone and dst.zone to ${obi ? 'OBI' : 'Beyla'}'s attributes.select.${section}.include (with the defaults you keep: k8s.src.owner.name, k8s.src.owner.type, k8s.src.namespace, k8s.dst.owner.name, k8s.dst.owner.type, k8s.dst.namespace, k8s.cluster.name, direction) in its configuration YAML (there is no environment variable for it).`;
}
