/**
 * Measured traffic for the simulated cluster: `GET /__sim/metrics` serves Prometheus counters as
 * Beyla (eBPF network flows) and cAdvisor (pod network bytes) would export them, generated from
 * the simulator's own traffic model, and `GET /__sim/traffic-rates` says exactly which rate each
 * exported series grows at (JSON), so tests can compare what zonescope reads from Prometheus with
 * what was sent.
 *
 * Series (text exposition format 0.0.4):
 * - `beyla_network_flow_bytes_total{k8s_src_namespace, k8s_src_owner_name, k8s_src_owner_type,
 *   k8s_dst_namespace, k8s_dst_owner_name, k8s_dst_owner_type, src_zone, dst_zone, k8s_cluster_name}`:
 *   per Service, request flows from a client workload `loadgen` (a Deployment in the Service's
 *   namespace) in each client zone to the workload behind the Service's endpoints in each
 *   endpoint zone, and reply flows back, {@link REPLY_FACTOR}× the request bytes. Flows with the
 *   same labels (two Services of one workload) are one series, their rates summed.
 * - `beyla_network_inter_zone_bytes_total{src_zone, dst_zone, k8s_cluster_name}`: the flows above
 *   between two different known zones, summed per zone pair.
 * - `container_network_receive_bytes_total` / `container_network_transmit_bytes_total{namespace,
 *   pod, interface="eth0"}` per endpoint pod: the request bytes it receives and the reply bytes
 *   it sends (a pod behind several Services sums them).
 *
 * The model, per Service (re-run whenever the store changed, at the next scrape):
 * 1. The engine's traffic matrix *now* (lib/topology `computeTrafficMatrix` on the observed
 *    EndpointSlices of the primary address type, clients on every counted node in proportion to
 *    its CPU, the cluster's release and dataplane — what the dashboard predicts).
 * 2. Request bytes/s = a per-endpoint rate seeded from the Service key (2–10 kB/s, an integer)
 *    × ready endpoints; split over client zone → endpoint zone by the matrix (dropped traffic is
 *    never delivered, so it sends nothing). Each endpoint pod gets its zone's bytes in proportion
 *    to its modelled load.
 * 3. Coverage: nothing at all for namespace `kube-system` (its Services stay "assumed"); only pod
 *    bytes for `platform` (Beyla is not deployed there, so they fall back to pod bytes); flows and
 *    pod bytes for every other namespace.
 * 4. Deliberate deviations, for the eks-demo scenario only (recognised by its Services, or named
 *    with `scenarioName`): `shop/catalog` is keep-alive skewed — {@link KEEP_ALIVE_PINNED_SHARE}
 *    of each client zone's requests stay on the endpoints of one other zone (the next zone by
 *    name), as long-lived connections balanced once do — and `shop/storefront` moves
 *    {@link STOREFRONT_VOLUME_FACTOR}× its modelled volume.
 *
 * Counters = ∫ rate dt since the series appeared: a Service present at start counts rate ×
 * seconds since the simulator started, a Service that appears starts at 0, one that disappears
 * stops being exported; when a rate changes the counter carries on from where it was (monotonic),
 * so Prometheus' `rate()` recovers the rates exactly. The model is cached per store generation
 * (resourceVersion, resets and restores) and per Service (a Service whose record, EndpointSlices
 * and the nodes are the same objects keeps its results; its pods' changes reach its slices), and the exposition reuses each series'
 * label text, so a scrape of an unchanged cluster only formats numbers. A model run that takes
 * over a second (realistic-L: ~2 s of CPU after a change, 18 s cold) is not repeated within 10×
 * its duration (at most 30 s): on a cluster that keeps changing, rates then follow the changes
 * that much later, and the simulator stays responsive.
 */
import { projectDataplaneObject, projectEndpointSlice, projectNode, projectPod, projectReplicaSet, projectServerVersion, projectService, combineDataplaneFacts, KUBE_SYSTEM } from '../lib/k8s/wire-to-record';
import type { DataplaneFactRecord } from '../lib/k8s/wire-to-record';
import { createSeededRandom, hashSeed } from '../lib/topology/analyses/seeded-random';
import { isExternallyAccessible } from '../lib/topology/analyses/service-mechanism';
import type { TrafficMatrix } from '../lib/topology/analyses/traffic';
import { computeTrafficMatrix, OTHER_ZONES, toTrafficEndpoints, UNKNOWN_ZONE } from '../lib/topology/analyses/traffic';
import type { ClusterSnapshot, EndpointSliceRecord, NodeRecord, PodRecord, ReplicaSetRecord, ServiceRecord } from '../lib/topology/model/cluster-model';
import { indexCluster, objectKey } from '../lib/topology/model/cluster-model';
import type { PreparedAnalysis } from '../lib/topology/report/prepared-analysis';
import { prepareAnalysis } from '../lib/topology/report/prepared-analysis';
import type { ProxyServicePort } from '../lib/topology/upstream/proxy-topology';
import { effectiveHintsAnnotation } from '../lib/topology/upstream/proxy-topology';
import type { AddressType } from '../lib/topology/upstream/types';
import type { VersionInfo } from './discovery';
import type { ResourceKey } from './resources';
import type { ObjectStore } from './store';
import type { KubeObject } from './types';

/** Beyla's flow counter. */
export const FLOW_METRIC = 'beyla_network_flow_bytes_total';
/** Beyla's inter-zone counter. */
export const INTER_ZONE_METRIC = 'beyla_network_inter_zone_bytes_total';
/** cAdvisor's received bytes per pod. */
export const POD_RECEIVE_METRIC = 'container_network_receive_bytes_total';
/** cAdvisor's transmitted bytes per pod. */
export const POD_TRANSMIT_METRIC = 'container_network_transmit_bytes_total';
/** The client workload of every Service (a Deployment in the Service's namespace). */
export const LOADGEN_WORKLOAD = 'loadgen';
/** Reply bytes per request byte. */
export const REPLY_FACTOR = 3;
/** Request bytes/s per ready endpoint lie in [MIN, MAX) (seeded per Service). */
export const MIN_REQUEST_BYTES_PER_ENDPOINT = 2_000;
export const MAX_REQUEST_BYTES_PER_ENDPOINT = 10_000;
/** Share of each client zone's requests the keep-alive deviation pins to another zone's endpoints. */
export const KEEP_ALIVE_PINNED_SHARE = 0.8;
/** Volume factor of eks-demo's `shop/storefront`. */
export const STOREFRONT_VOLUME_FACTOR = 100;
/** `k8s_cluster_name` when the scenario has no name. */
export const DEFAULT_TRAFFIC_CLUSTER_NAME = 'zonescope-sim';
/** Namespaces without Beyla (pod bytes only). */
export const POD_BYTES_ONLY_NAMESPACES: readonly string[] = ['platform'];
/** Namespaces with no series at all. */
export const UNMEASURED_NAMESPACES: readonly string[] = [KUBE_SYSTEM];

/** A deliberate difference between the exported traffic and the engine's prediction. */
export type TrafficDeviation =
  | { readonly kind: 'keep-alive'; readonly pinnedShare: number; readonly description: string }
  | { readonly kind: 'volume'; readonly factor: number; readonly description: string };

/** Which series the simulator exports and which deviations it applies. */
export interface TrafficProfile {
  /** `k8s_cluster_name` of the Beyla series. */
  readonly clusterName: string;
  /** `namespace/name` → deviation. */
  readonly deviations: ReadonlyMap<string, TrafficDeviation>;
  readonly podBytesOnlyNamespaces: readonly string[];
  readonly unmeasuredNamespaces: readonly string[];
}

/** Services only the eks-demo scenario has (fixtures/eks-demo.yaml), all of them. */
const EKS_DEMO_SIGNATURE = ['shop/catalog', 'shop/storefront', 'payments/ledger', 'platform/config'];

const EKS_DEMO_DEVIATIONS: ReadonlyMap<string, TrafficDeviation> = new Map<string, TrafficDeviation>([
  [
    'shop/catalog',
    {
      kind: 'keep-alive',
      pinnedShare: KEEP_ALIVE_PINNED_SHARE,
      description: `keep-alive skew: ${KEEP_ALIVE_PINNED_SHARE * 100} % of each client zone's requests stay on the endpoints of one other zone (long-lived connections balanced once)`,
    },
  ],
  ['shop/storefront', { kind: 'volume', factor: STOREFRONT_VOLUME_FACTOR, description: `volume: ${STOREFRONT_VOLUME_FACTOR}× the modelled bytes` }],
]);

/**
 * The traffic profile of a scenario: eks-demo's deviations when `scenarioName` is `eks-demo`, or,
 * without a name, when the objects hold every Service of eks-demo's signature; none otherwise.
 * The coverage rules (no Beyla in `platform`, nothing for `kube-system`) hold for every scenario.
 */
export function trafficProfileFor(objects: readonly KubeObject[], scenarioName?: string): TrafficProfile {
  let eksDemo: boolean;
  if (scenarioName !== undefined) eksDemo = scenarioName === 'eks-demo';
  else {
    const services = new Set(objects.filter((o) => o.kind === 'Service').map((o) => `${o.metadata.namespace ?? ''}/${o.metadata.name}`));
    eksDemo = EKS_DEMO_SIGNATURE.every((key) => services.has(key));
  }
  return {
    clusterName: scenarioName ?? (eksDemo ? 'eks-demo' : DEFAULT_TRAFFIC_CLUSTER_NAME),
    deviations: eksDemo ? EKS_DEMO_DEVIATIONS : new Map(),
    podBytesOnlyNamespaces: POD_BYTES_ONLY_NAMESPACES,
    unmeasuredNamespaces: UNMEASURED_NAMESPACES,
  };
}

/** What the simulator exports for a Service. */
export type TrafficCoverage = 'flows-and-pod-bytes' | 'pod-bytes' | 'none';

/** A workload as Beyla names it (`k8s_*_owner_name` / `k8s_*_owner_type`); empty when the pod is unknown. */
export interface TrafficWorkload {
  readonly kind: string;
  readonly name: string;
}

/** Request and reply bytes/s between one client zone and one endpoint zone (`''` = unknown zone). */
export interface ZonePairRate {
  readonly clientZone: string;
  readonly endpointZone: string;
  readonly requestBytesPerSecond: number;
  readonly replyBytesPerSecond: number;
}

/** A pod's received and transmitted bytes/s (one Service's part, or the pod's series). */
export interface PodRate {
  readonly namespace: string;
  readonly pod: string;
  readonly rxBytesPerSecond: number;
  readonly txBytesPerSecond: number;
}

/** One Service's traffic, as the simulator sends it. */
export interface ServiceTrafficRates {
  readonly namespace: string;
  readonly name: string;
  readonly readyEndpoints: number;
  readonly coverage: TrafficCoverage;
  readonly deviation: TrafficDeviation | null;
  /** Seeded request rate per ready endpoint, before deviations. */
  readonly requestBytesPerSecondPerEndpoint: number;
  /** Delivered request bytes/s (Σ `byZonePair`), after deviations. */
  readonly requestBytesPerSecond: number;
  readonly replyBytesPerSecond: number;
  /** Request + reply: what the Service's flows add up to. */
  readonly totalBytesPerSecond: number;
  /** Share of the bytes between two different known zones, as sent. */
  readonly crossZoneFraction: number;
  /** The engine's cross-zone share now (what the dashboard predicts). */
  readonly predictedCrossZoneFraction: number;
  /** Sorted by client zone, then endpoint zone. */
  readonly byZonePair: readonly ZonePairRate[];
  /** Workloads behind the endpoints (the `k8s_dst_owner_*` of the request flows). */
  readonly workloads: readonly TrafficWorkload[];
  /** This Service's part of each endpoint pod's bytes (sorted by pod). */
  readonly pods: readonly PodRate[];
  /** Σ rx + tx of `pods` (less than `totalBytesPerSecond` when endpoints name no known pod). */
  readonly podBytesPerSecond: number;
  /** Request + reply bytes/s the model could not place in a named zone (lumped matrices beyond 64 zones), not exported. */
  readonly unexportedBytesPerSecond: number;
}

/** One exported series and the rate its counter grows at. */
export interface SeriesRate {
  readonly metric: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly bytesPerSecond: number;
}

/** `GET /__sim/traffic-rates`. */
export interface TrafficRatesDocument {
  readonly clusterName: string;
  /** When the counters started (the simulator's start). */
  readonly startedAt: string;
  /** When these rates were read. */
  readonly at: string;
  /** Increases whenever the model was re-run on a changed store. */
  readonly generation: number;
  readonly replyFactor: number;
  readonly clientWorkload: TrafficWorkload;
  readonly metrics: { readonly flows: string; readonly interZone: string; readonly podReceive: string; readonly podTransmit: string };
  /** Every Service with ready endpoints (kube-system ones too, with coverage `none`), by namespace/name. */
  readonly services: readonly ServiceTrafficRates[];
  /** Exactly the series of `/__sim/metrics` and their rates (omitted with `series=false`). */
  readonly series?: readonly SeriesRate[];
  /** Series exported, per metric. */
  readonly seriesCount: Readonly<Record<string, number>>;
}

// ---------------------------------------------------------------------------------------------
// The model over records

/** The records the model reads (projected from the store). */
export interface TrafficRecords {
  readonly nodes: readonly NodeRecord[];
  readonly services: readonly ServiceRecord[];
  readonly endpointSlices: readonly EndpointSliceRecord[];
  readonly pods: readonly PodRecord[];
  readonly replicaSets: readonly ReplicaSetRecord[];
  readonly dataplane: readonly DataplaneFactRecord[];
  readonly version: VersionInfo;
}

/** A series' labels in export order, and its rate. */
interface SeriesModel {
  readonly metric: string;
  readonly labels: readonly (readonly [string, string])[];
  bytesPerSecond: number;
}

/** The model of one store generation. */
export interface TrafficModel {
  readonly services: readonly ServiceTrafficRates[];
  /** By series id (metric + label text). */
  readonly series: ReadonlyMap<string, SeriesModel>;
}

/** What one Service adds to the series (before Services sharing a series are summed). */
interface SeriesPart {
  readonly id: string;
  readonly metric: string;
  readonly labels: readonly (readonly [string, string])[];
  readonly bytesPerSecond: number;
}

/** One Service's traffic and series, with the inputs they were computed from (reused while those are the same objects). */
interface ServiceEntry {
  readonly service: ServiceRecord;
  readonly slices: readonly EndpointSliceRecord[];
  readonly nodes: readonly NodeRecord[];
  readonly inputsKey: string;
  readonly rates: ServiceTrafficRates | null;
  readonly parts: readonly SeriesPart[];
}

/** Results kept between generations: the preparation and each Service's entry. */
export interface TrafficModelCache {
  prepared: PreparedAnalysis | null;
  nodes: readonly NodeRecord[];
  readonly services: Map<string, ServiceEntry>;
}

/** An empty {@link TrafficModelCache}. */
export function newTrafficModelCache(): TrafficModelCache {
  return { prepared: null, nodes: [], services: new Map() };
}

function proxyServicePort(service: ServiceRecord, prepared: PreparedAnalysis): ProxyServicePort {
  return {
    internalTrafficPolicy: service.internalTrafficPolicy ?? 'Cluster',
    externalTrafficPolicy: service.externalTrafficPolicy ?? 'Cluster',
    externallyAccessible: isExternallyAccessible(service),
    hintsAnnotation: effectiveHintsAnnotation(service.annotations, prepared.context.release.minor),
  };
}

/** The primary address type of a Service's slices, as the engine picks it (the first of `spec.ipFamilies` that has slices). */
function primaryAddressType(service: ServiceRecord, slices: readonly EndpointSliceRecord[]): AddressType {
  const present = new Set<AddressType>();
  for (const slice of slices) if (slice.addressType !== 'FQDN') present.add(slice.addressType);
  for (const family of service.ipFamilies) if ((family === 'IPv4' || family === 'IPv6') && present.has(family)) return family;
  for (const family of ['IPv4', 'IPv6'] as const) if (present.has(family)) return family;
  return 'IPv4';
}

function sameItems<T>(a: readonly T[], b: readonly T[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** The engine's matrix now for one Service, `null` when it has no ready endpoint to send to. */
function matrixOf(prepared: PreparedAnalysis, service: ServiceRecord, slices: readonly EndpointSliceRecord[]): TrafficMatrix | null {
  if (service.type === 'ExternalName') return null;
  const addressType = primaryAddressType(service, slices);
  const observed = slices.filter((s) => s.addressType === addressType);
  const endpoints = toTrafficEndpoints(observed, prepared.context.nodeZoneByName);
  if (!endpoints.some((e) => e.ready)) return null;
  return computeTrafficMatrix({
    endpoints,
    service: proxyServicePort(service, prepared),
    release: prepared.context.proxyRelease,
    clients: prepared.clients,
    honoursHints: prepared.dataplane.honoursHints,
    proxied: service.clusterIP !== 'None',
    sortLoads: false,
    uniqueEndpoints: true,
  });
}

/** Beyla's owner of a pod: the top controller (Pod → ReplicaSet → Deployment; other kinds as they are; the pod itself without one). */
function workloadOf(pod: PodRecord | null, replicaSets: ReadonlyMap<string, ReplicaSetRecord>): TrafficWorkload {
  if (pod === null) return UNKNOWN_WORKLOAD;
  const owner = pod.owner;
  if (owner === null) return { kind: 'Pod', name: pod.name };
  if (owner.kind === 'ReplicaSet') {
    const rs = replicaSets.get(objectKey(pod.namespace, owner.name));
    if (rs?.owner) return { kind: rs.owner.kind, name: rs.owner.name };
  }
  return { kind: owner.kind, name: owner.name };
}

const UNKNOWN_WORKLOAD: TrafficWorkload = { kind: '', name: '' };

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

/** Escapes a label value as the text exposition format requires (`\\`, `\"`, `\n`). */
export function escapeLabelValue(value: string): string {
  return value.replace(/[\\"\n]/g, (c) => (c === '\\' ? '\\\\' : c === '"' ? '\\"' : '\\n'));
}

/** Escapes HELP text (`\\`, `\n`). */
function escapeHelp(text: string): string {
  return text.replace(/[\\\n]/g, (c) => (c === '\\' ? '\\\\' : '\\n'));
}

function seriesId(metric: string, labels: readonly (readonly [string, string])[]): string {
  return `${metric}{${labels.map(([name, value]) => `${name}="${escapeLabelValue(value)}"`).join(',')}}`;
}

/** The endpoint pods and their workloads, in the matrix's endpoint order. */
function endpointWorkloads(matrix: TrafficMatrix, pods: ReadonlyMap<string, PodRecord>, replicaSets: ReadonlyMap<string, ReplicaSetRecord>): { readonly pods: (PodRecord | null)[]; readonly workloads: TrafficWorkload[] } {
  const podList: (PodRecord | null)[] = [];
  const workloads: TrafficWorkload[] = [];
  for (const load of matrix.endpointLoads) {
    const pod = load.podName === null ? null : (pods.get(load.podName) ?? null);
    podList.push(pod);
    workloads.push(workloadOf(pod, replicaSets));
  }
  return { pods: podList, workloads };
}

/** Steps 2–4 of the file header for one Service: its rates and the series parts it adds. */
function serviceTraffic(
  service: ServiceRecord,
  matrix: TrafficMatrix,
  endpoints: { readonly pods: readonly (PodRecord | null)[]; readonly workloads: readonly TrafficWorkload[] },
  profile: TrafficProfile,
): { rates: ServiceTrafficRates; parts: SeriesPart[] } {
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

  // 2. Each endpoint's share of its zone's bytes: its modelled load (equal shares when the zone had none).
  type Share = { readonly workload: TrafficWorkload; readonly workloadKey: string; readonly pod: PodRecord | null; readonly share: number };
  const byZone = new Map<string, { index: number; load: number }[]>();
  matrix.endpointLoads.forEach((load, index) => {
    const list = byZone.get(load.zone);
    if (list) list.push({ index, load: load.load });
    else byZone.set(load.zone, [{ index, load: load.load }]);
  });
  const shares = new Map<string, Share[]>();
  const sharesIn = (zone: string): Share[] => {
    const known = shares.get(zone);
    if (known) return known;
    const list = byZone.get(zone) ?? [];
    const total = list.reduce((sum, e) => sum + e.load, 0);
    const computed = list.map(({ index, load }) => {
      const workload = endpoints.workloads[index] ?? UNKNOWN_WORKLOAD;
      return { workload, workloadKey: `${workload.kind}/${workload.name}`, pod: endpoints.pods[index] ?? null, share: total > 0 ? load / total : 1 / list.length };
    });
    shares.set(zone, computed);
    return computed;
  };

  // 3. Rates per zone pair, per workload and per pod.
  const byZonePair: ZonePairRate[] = [];
  const flows = new Map<string, { workload: TrafficWorkload; clientZone: string; endpointZone: string; request: number }>();
  const podRates = new Map<string, { pod: PodRecord; rx: number }>();
  const workloads = new Map<string, TrafficWorkload>();
  let cross = 0;
  let delivered = 0;
  for (const [clientZone, row] of rows) {
    for (const [endpointZone, fraction] of [...row].sort(([a], [b]) => compareText(a, b))) {
      const pairRequest = request * fraction;
      if (!(pairRequest > 0)) continue;
      byZonePair.push({ clientZone: labelZone(clientZone), endpointZone: labelZone(endpointZone), requestBytesPerSecond: pairRequest, replyBytesPerSecond: pairRequest * REPLY_FACTOR });
      delivered += pairRequest;
      if (endpointZone !== clientZone && endpointZone !== UNKNOWN_ZONE) cross += pairRequest;
      for (const { workload, workloadKey, pod, share } of sharesIn(endpointZone)) {
        const part = pairRequest * share;
        workloads.set(workloadKey, workload);
        const flowKey = `${workloadKey}\u0000${clientZone}\u0000${endpointZone}`;
        const flow = flows.get(flowKey);
        if (flow) flow.request += part;
        else flows.set(flowKey, { workload, clientZone, endpointZone, request: part });
        if (pod) {
          const rate = podRates.get(pod.name);
          if (rate) rate.rx += part;
          else podRates.set(pod.name, { pod, rx: part });
        }
      }
    }
  }
  byZonePair.sort((a, b) => compareText(a.clientZone, b.clientZone) || compareText(a.endpointZone, b.endpointZone));
  const pods: PodRate[] = [...podRates.values()]
    .map(({ pod, rx }) => ({ namespace: pod.namespace, pod: pod.name, rxBytesPerSecond: rx, txBytesPerSecond: rx * REPLY_FACTOR }))
    .sort((a, b) => compareText(a.pod, b.pod));

  // 4. The series parts (flows only where Beyla runs, pod bytes wherever something is measured).
  const parts: SeriesPart[] = [];
  const add = (metric: string, labels: readonly (readonly [string, string])[], bytesPerSecond: number): void => {
    if (bytesPerSecond > 0) parts.push({ id: seriesId(metric, labels), metric, labels, bytesPerSecond });
  };
  const ns = service.namespace;
  const cluster = profile.clusterName;
  if (coverage === 'flows-and-pod-bytes') {
    for (const { workload, clientZone, endpointZone, request: bytes } of flows.values()) {
      const src = labelZone(clientZone);
      const dst = labelZone(endpointZone);
      add(FLOW_METRIC, [
        ['k8s_src_namespace', ns], ['k8s_src_owner_name', LOADGEN_WORKLOAD], ['k8s_src_owner_type', 'Deployment'],
        ['k8s_dst_namespace', ns], ['k8s_dst_owner_name', workload.name], ['k8s_dst_owner_type', workload.kind],
        ['src_zone', src], ['dst_zone', dst], ['k8s_cluster_name', cluster],
      ], bytes);
      add(FLOW_METRIC, [
        ['k8s_src_namespace', ns], ['k8s_src_owner_name', workload.name], ['k8s_src_owner_type', workload.kind],
        ['k8s_dst_namespace', ns], ['k8s_dst_owner_name', LOADGEN_WORKLOAD], ['k8s_dst_owner_type', 'Deployment'],
        ['src_zone', dst], ['dst_zone', src], ['k8s_cluster_name', cluster],
      ], bytes * REPLY_FACTOR);
      if (src !== '' && dst !== '' && src !== dst) {
        add(INTER_ZONE_METRIC, [['src_zone', src], ['dst_zone', dst], ['k8s_cluster_name', cluster]], bytes);
        add(INTER_ZONE_METRIC, [['src_zone', dst], ['dst_zone', src], ['k8s_cluster_name', cluster]], bytes * REPLY_FACTOR);
      }
    }
  }
  if (coverage !== 'none') {
    for (const pod of pods) {
      const labels = [['namespace', pod.namespace], ['pod', pod.pod], ['interface', 'eth0']] as const;
      add(POD_RECEIVE_METRIC, labels, pod.rxBytesPerSecond);
      add(POD_TRANSMIT_METRIC, labels, pod.txBytesPerSecond);
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
    crossZoneFraction: delivered > 0 ? cross / delivered : 0,
    predictedCrossZoneFraction: matrix.crossZoneFraction,
    byZonePair,
    workloads: [...workloads.values()].sort((a, b) => compareText(a.kind, b.kind) || compareText(a.name, b.name)),
    pods,
    podBytesPerSecond: pods.reduce((sum, p) => sum + p.rxBytesPerSecond + p.txBytesPerSecond, 0),
    unexportedBytesPerSecond: request * unexportedFraction * (1 + REPLY_FACTOR),
  };
  return { rates, parts };
}

/**
 * The rates of one store generation: every Service's traffic (see the file header) and the
 * series they make. With `cache` (kept between generations), a Service whose record, slices,
 * nodes and endpoint workloads are the same objects as last time keeps its results.
 */
export function computeTrafficModel(records: TrafficRecords, profile: TrafficProfile, cache: TrafficModelCache = newTrafficModelCache()): TrafficModel {
  const providerIDs = records.nodes.map((n) => n.providerID);
  const { proxy, cni } = combineDataplaneFacts(records.dataplane);
  // Keep the node list's identity while its records are the same, so the preparation is reused.
  const nodes = sameItems(cache.nodes, records.nodes) ? cache.nodes : records.nodes;
  cache.nodes = nodes;
  const snapshot: ClusterSnapshot = {
    version: projectServerVersion(records.version, providerIDs),
    nodes,
    services: records.services,
    endpointSlices: records.endpointSlices,
    pods: records.pods,
    deployments: [],
    replicaSets: records.replicaSets,
    hpas: [],
    events: [],
    proxy,
    cni,
  };
  const index = indexCluster(snapshot);
  const prepared = prepareAnalysis(index, {}, cache.prepared);
  cache.prepared = prepared;

  const series = new Map<string, SeriesModel>();
  const services: ServiceTrafficRates[] = [];
  const seen = new Set<string>();
  const sortedServices = [...records.services].sort((a, b) => compareText(a.namespace, b.namespace) || compareText(a.name, b.name));
  for (const service of sortedServices) {
    const key = objectKey(service.namespace, service.name);
    if (seen.has(key)) continue;
    seen.add(key);
    const slices = index.slicesByService.get(key) ?? [];
    let entry = cache.services.get(key);
    const inputsSame = entry !== undefined && entry.service === service && entry.nodes === nodes && entry.inputsKey === prepared.inputsKey && sameItems(entry.slices, slices);
    const matrix = inputsSame ? null : matrixOf(prepared, service, slices);
    if (!inputsSame && matrix === null) {
      entry = { service, slices, nodes, inputsKey: prepared.inputsKey, rates: null, parts: [] };
    } else if (!inputsSame && matrix !== null) {
      const workloads = endpointWorkloads(matrix, prepared.context.podsIn(service.namespace).byName, index.replicaSetsByKey);
      const { rates, parts } = serviceTraffic(service, matrix, workloads, profile);
      entry = { service, slices, nodes, inputsKey: prepared.inputsKey, rates, parts };
    }
    if (entry === undefined) continue;
    cache.services.set(key, entry);
    if (entry.rates === null) continue;
    services.push(entry.rates);
    for (const part of entry.parts) {
      const known = series.get(part.id);
      if (known) known.bytesPerSecond += part.bytesPerSecond;
      else series.set(part.id, { metric: part.metric, labels: part.labels, bytesPerSecond: part.bytesPerSecond });
    }
  }
  for (const key of cache.services.keys()) if (!seen.has(key)) cache.services.delete(key);
  return { services, series };
}

// ---------------------------------------------------------------------------------------------
// Counters over time

const HELP: Readonly<Record<string, string>> = {
  [FLOW_METRIC]: 'Bytes of network flows between two workloads, by zone (Beyla-style, generated by the zonescope simulator from its traffic model).',
  [INTER_ZONE_METRIC]: 'Bytes of network flows between two different zones (Beyla-style, generated by the zonescope simulator).',
  [POD_RECEIVE_METRIC]: 'Bytes received by the pod (cAdvisor-style, generated by the zonescope simulator).',
  [POD_TRANSMIT_METRIC]: 'Bytes transmitted by the pod (cAdvisor-style, generated by the zonescope simulator).',
};

const METRIC_ORDER = [FLOW_METRIC, INTER_ZONE_METRIC, POD_RECEIVE_METRIC, POD_TRANSMIT_METRIC];

/** A model run slower than this (ms) is not repeated within 10× its duration, at most {@link MAX_THROTTLE_MS} (see `current`). */
const SLOW_MODEL_MS = 1_000;
const MAX_THROTTLE_MS = 30_000;

/** A counter: its value at `since` and the rate it grows at from then. */
interface Counter {
  /** The series id (metric and label text). */
  readonly id: string;
  readonly metric: string;
  /** `metric{labels} ` (the line before the value). */
  readonly prefix: string;
  readonly labels: readonly (readonly [string, string])[];
  readonly rate: number;
  readonly valueAtSince: number;
  readonly since: number;
}

/** Options of {@link SimTrafficMetrics}. */
export interface SimTrafficMetricsOptions {
  readonly profile: TrafficProfile;
  readonly version: VersionInfo;
  /** Clock (the simulator's). */
  readonly now: () => Date;
}

/** Records projected from store objects, kept while the object (and its resourceVersion) is the same. */
class ProjectionCache<R> {
  private readonly records = new WeakMap<object, { readonly resourceVersion: string | undefined; readonly record: R | null }>();

  constructor(private readonly project: (raw: KubeObject) => R | null) {}

  all(objects: readonly KubeObject[]): R[] {
    const out: R[] = [];
    for (const object of objects) {
      const resourceVersion = object.metadata.resourceVersion;
      let entry = this.records.get(object);
      if (entry === undefined || entry.resourceVersion !== resourceVersion) {
        entry = { resourceVersion, record: this.project(object) };
        this.records.set(object, entry);
      }
      if (entry.record !== null) out.push(entry.record);
    }
    return out;
  }
}

/**
 * The simulator's traffic counters over its store (see the file header). The model is re-run at
 * the first read after the store changed; counters carry on from the moment of the change.
 */
export class SimTrafficMetrics {
  readonly profile: TrafficProfile;
  private readonly startedAt: number;
  private readonly cache = newTrafficModelCache();
  private readonly projections = {
    nodes: new ProjectionCache(projectNode),
    services: new ProjectionCache(projectService),
    endpointslices: new ProjectionCache(projectEndpointSlice),
    pods: new ProjectionCache(projectPod),
    replicasets: new ProjectionCache(projectReplicaSet),
    configmaps: new ProjectionCache((raw) => projectDataplaneObject(raw, 'ConfigMap')),
    daemonsets: new ProjectionCache((raw) => projectDataplaneObject(raw, 'DaemonSet')),
  };
  private model: TrafficModel | null = null;
  private modelKey = '';
  private epoch = 0;
  private generationCount = 0;
  private counters: Counter[] = [];
  /** When the store first changed after the model was computed (`null`: unchanged since). */
  private changedAt: number | null = null;
  /** When values were last served (a re-run never folds new rates in before this). */
  private servedAt = 0;
  /** Wall-clock cost and end (performance.now) of the last model run. */
  private lastCostMs = 0;
  private lastComputedAt = 0;
  private readonly unsubscribe: () => void;

  constructor(
    private readonly store: ObjectStore,
    private readonly options: SimTrafficMetricsOptions,
  ) {
    this.profile = options.profile;
    this.startedAt = options.now().getTime();
    this.unsubscribe = store.subscribe('*', () => {
      this.changedAt ??= this.options.now().getTime();
    });
  }

  /** Marks the store as replaced (reset, restore: the store notifies no one then). */
  invalidate(): void {
    this.epoch++;
    this.changedAt ??= this.options.now().getTime();
  }

  /** Stops following the store. */
  dispose(): void {
    this.unsubscribe();
  }

  private records(): TrafficRecords {
    const p = this.projections;
    const all = (key: ResourceKey, namespace?: string) => this.store.all(key, namespace);
    return {
      nodes: p.nodes.all(all('nodes')),
      services: p.services.all(all('services')),
      endpointSlices: p.endpointslices.all(all('endpointslices')),
      pods: p.pods.all(all('pods')),
      replicaSets: p.replicasets.all(all('replicasets')),
      dataplane: [...p.configmaps.all(all('configmaps', KUBE_SYSTEM)), ...p.daemonsets.all(all('daemonsets', KUBE_SYSTEM))],
      version: this.options.version,
    };
  }

  /** The model of the current store, re-run when it changed; counters folded at the change. */
  private current(): { model: TrafficModel; at: number } {
    const key = `${this.store.resourceVersion}/${this.epoch}`;
    const now = this.options.now().getTime();
    // An expensive model (a large cluster) is re-run at most every 10× its cost, so that a store
    // that keeps changing does not keep the simulator busy; the counters grow at the old rates meanwhile.
    const throttled = this.lastCostMs > SLOW_MODEL_MS && performance.now() - this.lastComputedAt < Math.min(10 * this.lastCostMs, MAX_THROTTLE_MS);
    if (this.model !== null && (key === this.modelKey || throttled)) {
      this.servedAt = now;
      return { model: this.model, at: now };
    }
    const started = performance.now();
    const model = computeTrafficModel(this.records(), this.profile, this.cache);
    const at = this.options.now().getTime();
    // New rates apply from the change, but never before a value already served at the old rates (counters only grow).
    const foldAt = this.model === null ? this.startedAt : Math.min(Math.max(this.changedAt ?? at, this.servedAt), at);
    const previous = new Map<string, Counter>();
    for (const counter of this.counters) previous.set(counter.id, counter);
    // Families in METRIC_ORDER; inside one, the model's order (Services by namespace/name).
    const byMetric = new Map<string, Counter[]>(METRIC_ORDER.map((metric) => [metric, []]));
    for (const [id, s] of model.series) {
      const old = previous.get(id);
      const valueAtSince = old ? old.valueAtSince + (old.rate * Math.max(0, foldAt - old.since)) / 1000 : 0;
      byMetric.get(s.metric)?.push({ id, metric: s.metric, prefix: old?.prefix ?? `${id} `, labels: s.labels, rate: s.bytesPerSecond, valueAtSince, since: foldAt });
    }
    this.counters = [...byMetric.values()].flat();
    this.model = model;
    this.modelKey = key;
    this.changedAt = null;
    this.generationCount++;
    this.servedAt = at;
    this.lastComputedAt = performance.now();
    this.lastCostMs = this.lastComputedAt - started;
    return { model, at };
  }

  /** The exposition (text format 0.0.4) at this moment. */
  exposition(): string {
    const { at } = this.current();
    const lines: string[] = [];
    let family = '';
    for (const counter of this.counters) {
      if (counter.metric !== family) {
        family = counter.metric;
        lines.push(`# HELP ${family} ${escapeHelp(HELP[family] ?? family)}`, `# TYPE ${family} counter`);
      }
      lines.push(counter.prefix + formatValue(counter.valueAtSince + counter.rate * Math.max(0, at - counter.since) / 1000));
    }
    lines.push('');
    return lines.join('\n');
  }

  /** What `GET /__sim/traffic-rates` answers: every Service's rates and (unless `series` is false) every series' rate. */
  rates(options: { readonly service?: string; readonly series?: boolean } = {}): TrafficRatesDocument {
    const { model, at } = this.current();
    const seriesCount: Record<string, number> = {};
    for (const metric of METRIC_ORDER) seriesCount[metric] = 0;
    for (const counter of this.counters) seriesCount[counter.metric] = (seriesCount[counter.metric] ?? 0) + 1;
    const services = options.service === undefined ? model.services : model.services.filter((s) => `${s.namespace}/${s.name}` === options.service);
    return {
      clusterName: this.profile.clusterName,
      startedAt: new Date(this.startedAt).toISOString(),
      at: new Date(at).toISOString(),
      generation: this.generationCount,
      replyFactor: REPLY_FACTOR,
      clientWorkload: { kind: 'Deployment', name: LOADGEN_WORKLOAD },
      metrics: { flows: FLOW_METRIC, interZone: INTER_ZONE_METRIC, podReceive: POD_RECEIVE_METRIC, podTransmit: POD_TRANSMIT_METRIC },
      services,
      ...(options.series === false ? {} : { series: this.counters.map((c) => ({ metric: c.metric, labels: Object.fromEntries(c.labels), bytesPerSecond: c.rate })) }),
      seriesCount,
    };
  }
}

/** A counter value as the exposition writes it (a float; Prometheus parses Go's and JavaScript's forms alike). */
function formatValue(value: number): string {
  return Number.isFinite(value) ? String(value) : '0';
}
