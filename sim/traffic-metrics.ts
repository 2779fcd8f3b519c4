/**
 * Measured traffic for the simulated cluster: `GET /__sim/metrics` serves Prometheus counters in
 * the exact shapes Beyla/OBI (eBPF network flows, one agent per node) and the kubelet's cAdvisor
 * (pod network bytes on containerd) export, generated from the simulator's own traffic model, and
 * `GET /__sim/traffic-rates` says exactly what was sent (each byte once) and which rate each
 * exported series grows at (JSON), so tests can compare what zonescope reads from Prometheus with
 * the truth. What each label is and why, with sources: docs/traffic-simulator.md.
 *
 * Series (text exposition format 0.0.4; labels in ascending order; sim/traffic-series.ts):
 * - `beyla_network_flow_bytes_total{direction, instance, k8s_cluster_name, k8s_dst_namespace,
 *   k8s_dst_owner_name, k8s_dst_owner_type, k8s_src_namespace, k8s_src_owner_name,
 *   k8s_src_owner_type}` (Beyla's default attribute set in Kubernetes), plus `src_zone`/`dst_zone`
 *   only with the `flowZoneLabels` switch (Beyla's default is off). Per Service, request flows
 *   (`direction="request"`) from a client workload `loadgen` (a Deployment in the Service's
 *   namespace) to the workload behind its endpoints, and response flows (`direction="response"`,
 *   src and dst swapped) of {@link REPLY_FACTOR}× the request bytes. A hostNetwork endpoint pod is
 *   named by its Node (`k8s_*_owner_type="Node"`, empty namespace), as Beyla cannot name it.
 * - Each node's agent reports what it sees (`instance` = `<node InternalIP>:9090`, kept by a
 *   scrape with `honor_labels: true`): per Service and (client zone c, endpoint zone e) cell, the
 *   client-side agent — one client node of zone c, picked by a seed from the Service key — reports
 *   the whole cell, and the server-side agent — the node of the zone-e endpoint with the highest
 *   modelled load — the cell's cross-node part, cell × (1 − sameNodeFraction), where
 *   sameNodeFraction is 0 across zones and Σₙ w(n)·q(n) within one (w: node n's share of zone c's
 *   client CPU; q: the share of the Service's zone-e endpoint load on n). One node being both
 *   agents gives one series. Summed over `instance`, a series is same-node + 2 × cross-node bytes.
 * - On a kube-proxy dataplane the client-side agent also sees the packets addressed to the
 *   ClusterIP: a request series to the Service (`k8s_dst_owner_type="Service"`, `dst_zone=""`)
 *   and a response series from it, with the client zone's bytes (Services with a ClusterIP only).
 * - `beyla_network_inter_zone_bytes_total{dst_zone, instance, k8s_cluster_name, src_zone}` (unless
 *   `interZone` is off): per agent, its workload-typed flow bytes between two different known zones.
 * - With the `obi` exporter the same series are named `obi_network_*`.
 * - `container_network_receive_bytes_total` / `container_network_transmit_bytes_total` per
 *   endpoint pod on its sandbox series only (`container=""`, the pause image, the cgroup `id`,
 *   `interface="eth0"`, `instance` = the kubelet's `<node InternalIP>:10250`): the request bytes it
 *   receives and the reply bytes it sends; plus each node's root cgroup (`id="/"`,
 *   `interface="ens5"`, no pod) with its pods' total. A hostNetwork pod's sandbox reports the
 *   host's interface, so its series repeat the node's total (cAdvisor does; not the pod's bytes).
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
 * so Prometheus' `rate()` recovers the rates exactly. Switching the options
 * ({@link SimTrafficMetrics.setOptions}) keeps every series that stays the same; the others stop,
 * and new ones start at 0. The model is cached per store generation (resourceVersion, resets and
 * restores) and per Service (a Service whose record, EndpointSlices and the nodes are the same
 * objects keeps its traffic; its pods' changes reach its slices; an options switch only renders its
 * series again), and the exposition reuses each series' label text, so a scrape of an unchanged
 * cluster only formats numbers. A model run that takes over a second (realistic-L: seconds after a
 * change, more cold) is not repeated within 10× its duration (at most 30 s) for store changes: on a
 * cluster that keeps changing, rates then follow the changes that much later, and the simulator
 * stays responsive.
 */
import { projectNode } from '../lib/k8s/wire-to-record/node';
import { projectService } from '../lib/k8s/wire-to-record/service';
import { projectEndpointSlice } from '../lib/k8s/wire-to-record/endpoint-slice';
import { projectPod, projectReplicaSet } from '../lib/k8s/wire-to-record/workloads';
import { projectDataplaneObject, combineDataplaneFacts, KUBE_SYSTEM } from '../lib/k8s/wire-to-record/dataplane';
import { projectServerVersion } from '../lib/k8s/wire-to-record/server-version';
import type { DataplaneFactRecord } from '../lib/k8s/wire-to-record/dataplane';
import { createSeededRandom, hashSeed } from '../lib/topology/analyses/seeded-random';
import { isExternallyAccessible } from '../lib/topology/analyses/service-mechanism';
import type { TrafficMatrix } from '../lib/topology/analyses/traffic';
import { computeTrafficMatrix, OTHER_ZONES, toTrafficEndpoints, UNKNOWN_ZONE } from '../lib/topology/analyses/traffic';
import type { ClusterSnapshot, EndpointSliceRecord, NodeRecord, PodRecord, ReplicaSetRecord, ServiceRecord } from '../lib/topology/model/cluster-model';
import { indexCluster, objectKey } from '../lib/topology/model/cluster-model';
import type { PreparedAnalysis } from '../lib/topology/report/prepared-analysis';
import { prepareAnalysis } from '../lib/topology/report/prepared-analysis';
import type { ProxyServicePort } from '../lib/topology/upstream/proxy-service-port';
import { effectiveHintsAnnotation } from '../lib/topology/upstream/proxy-service-port';
import type { AddressType } from '../lib/topology/upstream/types';
import type { VersionInfo } from './discovery';
import type { ResourceKey } from './resources';
import type { ObjectStore } from './store';
import type { AgentFlow, FlowPeer, PodNetwork, SeriesPart, TrafficMetricsOptions } from './traffic-series';
import { BEYLA_AGENT_PORT, DEFAULT_TRAFFIC_METRICS_OPTIONS, FLOW_EXPORTERS, flowMetricName, flowSeriesParts, interZoneMetricName, KUBELET_PORT, metricHelp, metricOrder, parseSeriesId, POD_RECEIVE_METRIC, POD_TRANSMIT_METRIC, podSeriesParts } from './traffic-series';
import type { KubeObject } from './types';
import { isRecord } from './types';

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

/** A flow end as Beyla names it (`k8s_*_owner_name` / `k8s_*_owner_type`): a workload, a Node (hostNetwork pods), empty when unknown. */
export interface TrafficWorkload {
  readonly kind: string;
  readonly name: string;
}

/** Request and reply bytes/s between one client zone and one endpoint zone (`''` = unknown zone), and who reports them. */
export interface ZonePairRate {
  readonly clientZone: string;
  readonly endpointZone: string;
  readonly requestBytesPerSecond: number;
  readonly replyBytesPerSecond: number;
  /** Share of the cell's bytes whose client and endpoint run on one node (0 across zones). */
  readonly sameNodeFraction: number;
  /** `instance` of the client-side agent, which reports the whole cell (`null`: no client node in the zone). */
  readonly clientAgent: string | null;
  /** `instance` of the server-side agent, which reports the cross-node part (`null`: no endpoint node known). */
  readonly serverAgent: string | null;
}

/** A pod's received and transmitted bytes/s (one Service's part): what the pod itself sent. */
export interface PodRate {
  readonly namespace: string;
  readonly pod: string;
  /** The pod's node (`null`: not scheduled; cAdvisor then exports nothing for it). */
  readonly node: string | null;
  /** The pod uses the host's network: its sandbox series carry the node's interface and total instead. */
  readonly hostNetwork: boolean;
  readonly rxBytesPerSecond: number;
  readonly txBytesPerSecond: number;
}

/** One Service's traffic, as the simulator sends it (each byte once). */
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
  /** Request + reply. */
  readonly totalBytesPerSecond: number;
  /** Request + reply bytes/s between two different known zones. */
  readonly crossZoneBytesPerSecond: number;
  /** Share of the bytes between two different known zones, as sent. */
  readonly crossZoneFraction: number;
  /** The engine's cross-zone share now (what the dashboard predicts). */
  readonly predictedCrossZoneFraction: number;
  /** Whether the client-side agents also export Service-typed duplicates (flows exported, a ClusterIP, a kube-proxy dataplane). */
  readonly serviceTypedFlows: boolean;
  /** Sorted by client zone, then endpoint zone. */
  readonly byZonePair: readonly ZonePairRate[];
  /** Flow ends behind the endpoints (the `k8s_dst_owner_*` of the request flows). */
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
  /** Increases whenever the model was re-run (a changed store, a switched option). */
  readonly generation: number;
  /** The switches in force. */
  readonly options: TrafficMetricsOptions;
  readonly replyFactor: number;
  readonly clientWorkload: TrafficWorkload;
  /** The metric names in force. */
  readonly metrics: { readonly flows: string; readonly interZone: string; readonly podReceive: string; readonly podTransmit: string };
  /** Every Service with ready endpoints (kube-system ones too, with coverage `none`), by namespace/name. */
  readonly services: readonly ServiceTrafficRates[];
  /** Bytes/s the cluster sends between two different known zones, each byte once (Σ `crossZoneBytesPerSecond` of every Service, whatever its coverage). */
  readonly interZoneBytesPerSecond: number;
  /** The part of {@link interZoneBytesPerSecond} of Services whose flows are exported. */
  readonly flowInterZoneBytesPerSecond: number;
  /** Exactly the series of `/__sim/metrics` and their rates (omitted with `series=false`). */
  readonly series?: readonly SeriesRate[];
  /** Series exported, per metric. */
  readonly seriesCount: Readonly<Record<string, number>>;
}

// ---------------------------------------------------------------------------------------------
// The model over records

/** The records the model reads (projected from the store), and two facts the records leave out. */
export interface TrafficRecords {
  readonly nodes: readonly NodeRecord[];
  readonly services: readonly ServiceRecord[];
  readonly endpointSlices: readonly EndpointSliceRecord[];
  readonly pods: readonly PodRecord[];
  readonly replicaSets: readonly ReplicaSetRecord[];
  readonly dataplane: readonly DataplaneFactRecord[];
  readonly version: VersionInfo;
  /** A Node's `InternalIP` address (`null`: none, or no such Node). */
  readonly nodeInternalIP: (name: string) => string | null;
  /** A pod's `metadata.uid` (`''` when unknown). */
  readonly podUid: (namespace: string, name: string) => string;
}

/** A series' family and rate. */
interface SeriesModel {
  readonly metric: string;
  bytesPerSecond: number;
  readonly mirrors?: string;
}

/** The model of one store generation and set of options. */
export interface TrafficModel {
  readonly services: readonly ServiceTrafficRates[];
  /** By series id (metric + label text, see `parseSeriesId`). */
  readonly series: ReadonlyMap<string, { readonly metric: string; readonly bytesPerSecond: number }>;
}

/** One Service's traffic and series, with the inputs they were computed from (reused while those are the same objects). */
interface ServiceEntry {
  readonly service: ServiceRecord;
  readonly slices: readonly EndpointSliceRecord[];
  readonly nodes: readonly NodeRecord[];
  readonly inputsKey: string;
  readonly rates: ServiceTrafficRates | null;
  /** What each agent reports (rendered per options into `flowParts`). */
  readonly flows: readonly AgentFlow[];
  readonly podParts: readonly SeriesPart[];
  /** The flow series for the options of `optionsKey`. */
  flowParts: { readonly optionsKey: string; readonly parts: readonly SeriesPart[] } | null;
}

/** The client nodes of one zone: names (sorted) and each one's share of the zone's client weight. */
interface ClientZoneNodes {
  readonly names: readonly string[];
  readonly shareByNode: ReadonlyMap<string, number>;
}

/** Results kept between generations: the preparation, its client nodes by zone and each Service's entry. */
export interface TrafficModelCache {
  prepared: PreparedAnalysis | null;
  clientZones: ReadonlyMap<string, ClientZoneNodes>;
  nodes: readonly NodeRecord[];
  readonly services: Map<string, ServiceEntry>;
}

/** An empty {@link TrafficModelCache}. */
export function newTrafficModelCache(): TrafficModelCache {
  return { prepared: null, clientZones: new Map(), nodes: [], services: new Map() };
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

/** A flow end without its zone. */
type PeerOwner = Omit<FlowPeer, 'zone'>;

/** An IP Beyla cannot name: every k8s label empty. */
const UNKNOWN_OWNER: PeerOwner = { namespace: '', ownerName: '', ownerType: '' };

/** An endpoint of the matrix (`endpointLoads` order): its pod, how Beyla names it, and its node. */
interface EndpointInfo {
  readonly pod: PodRecord | null;
  readonly owner: PeerOwner;
  readonly node: string | null;
}

/** What the per-Service model reads besides the Service and its matrix. */
interface ServiceContext {
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

/**
 * Beyla's name for a pod (OBI's kube metadata): its top owner (Pod → ReplicaSet → Deployment;
 * other kinds as they are; the pod itself without one); a hostNetwork pod's IP is its node's,
 * which Beyla resolves to the Node; an unknown pod is an IP it cannot name.
 */
function ownerOf(pod: PodRecord | null, replicaSets: ReadonlyMap<string, ReplicaSetRecord>): PeerOwner {
  if (pod === null) return UNKNOWN_OWNER;
  if (pod.hostNetwork === true) return pod.nodeName === null ? UNKNOWN_OWNER : { namespace: '', ownerName: pod.nodeName, ownerType: 'Node' };
  const owner = pod.owner;
  if (owner === null) return { namespace: pod.namespace, ownerName: pod.name, ownerType: 'Pod' };
  if (owner.kind === 'ReplicaSet') {
    const rs = replicaSets.get(objectKey(pod.namespace, owner.name));
    if (rs?.owner) return { namespace: pod.namespace, ownerName: rs.owner.name, ownerType: rs.owner.kind };
  }
  return { namespace: pod.namespace, ownerName: owner.name, ownerType: owner.kind };
}

/** The endpoints of a matrix with their pods, names and nodes. */
function endpointInfos(matrix: TrafficMatrix, pods: ReadonlyMap<string, PodRecord>, replicaSets: ReadonlyMap<string, ReplicaSetRecord>): EndpointInfo[] {
  return matrix.endpointLoads.map((load) => {
    const pod = load.podName === null ? null : (pods.get(load.podName) ?? null);
    return { pod, owner: ownerOf(pod, replicaSets), node: load.nodeName ?? pod?.nodeName ?? null };
  });
}

/** Each zone's client nodes (sorted) and their shares of the zone's client weight (CPU; equal shares without any). */
function clientZoneNodes(prepared: PreparedAnalysis): Map<string, ClientZoneNodes> {
  const zones = new Map<string, ClientZoneNodes>();
  for (const zone of prepared.clients) {
    const nodes = [...zone.nodes].sort((a, b) => compareText(a.proxyNode.name, b.proxyNode.name));
    const total = zone.totalWeight ?? nodes.reduce((sum, node) => sum + node.weight, 0);
    const shareByNode = new Map<string, number>();
    for (const node of nodes) shareByNode.set(node.proxyNode.name, total > 0 ? node.weight / total : 1 / nodes.length);
    zones.set(zone.zone, { names: nodes.map((node) => node.proxyNode.name), shareByNode });
  }
  return zones;
}

/** The client-side agent's node of a Service in a zone: one of the zone's client nodes, picked by a seed from the Service key. */
function clientNodeOf(serviceKey: string, zone: string, names: readonly string[]): string | null {
  const random = createSeededRandom(hashSeed(`zonescope-sim-agent:${serviceKey}:${zone}`));
  return names[Math.floor(random() * names.length)] ?? null;
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

/** Steps 2–4 of the file header for one Service: what it sends, what each agent reports, and each pod's bytes. */
function serviceTraffic(
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

/** A function of a node name, remembered per name. */
function perNode<T>(compute: (node: string) => T): (node: string) => T {
  const known = new Map<string, T>();
  return (node) => {
    let value = known.get(node);
    if (value === undefined) {
      value = compute(node);
      known.set(node, value);
    }
    return value;
  };
}

/** The options' identity (an entry's flow series are rendered again when it changes). */
function trafficOptionsKey(options: TrafficMetricsOptions): string {
  return `${options.exporter}|zones=${options.flowZoneLabels}|interZone=${options.interZone}`;
}

/**
 * The rates of one store generation: every Service's traffic (see the file header) and the
 * series they make with `options`. With `cache` (kept between generations), a Service whose
 * record, slices, nodes and endpoint workloads are the same objects as last time keeps its
 * traffic, and its series while the options are the same too.
 */
export function computeTrafficModel(
  records: TrafficRecords,
  profile: TrafficProfile,
  options: TrafficMetricsOptions = DEFAULT_TRAFFIC_METRICS_OPTIONS,
  cache: TrafficModelCache = newTrafficModelCache(),
): TrafficModel {
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
  if (prepared !== cache.prepared) cache.clientZones = clientZoneNodes(prepared);
  cache.prepared = prepared;
  const address = perNode((node) => records.nodeInternalIP(node) ?? node);
  const context: ServiceContext = {
    profile,
    clientZones: cache.clientZones,
    kubeProxy: prepared.dataplane.serviceProxy === 'kube-proxy',
    agentOf: perNode((node) => `${address(node)}:${BEYLA_AGENT_PORT}`),
    kubeletOf: perNode((node) => `${address(node)}:${KUBELET_PORT}`),
    podUid: records.podUid,
  };
  const optionsKey = trafficOptionsKey(options);

  const series = new Map<string, SeriesModel>();
  const merge = (part: SeriesPart): void => {
    const known = series.get(part.id);
    if (known) known.bytesPerSecond += part.bytesPerSecond;
    else series.set(part.id, { metric: part.metric, bytesPerSecond: part.bytesPerSecond, ...(part.mirrors !== undefined ? { mirrors: part.mirrors } : {}) });
  };
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
      entry = { service, slices, nodes, inputsKey: prepared.inputsKey, rates: null, flows: [], podParts: [], flowParts: null };
    } else if (!inputsSame && matrix !== null) {
      const endpoints = endpointInfos(matrix, prepared.context.podsIn(service.namespace).byName, index.replicaSetsByKey);
      const { rates, flows, pods } = serviceTraffic(service, matrix, endpoints, context);
      entry = { service, slices, nodes, inputsKey: prepared.inputsKey, rates, flows, podParts: podSeriesParts(pods), flowParts: null };
    }
    if (entry === undefined) continue;
    cache.services.set(key, entry);
    if (entry.rates === null) continue;
    services.push(entry.rates);
    if (entry.flowParts?.optionsKey !== optionsKey) entry.flowParts = { optionsKey, parts: flowSeriesParts(entry.flows, profile.clusterName, options) };
    for (const part of entry.flowParts.parts) merge(part);
    for (const part of entry.podParts) merge(part);
  }
  for (const key of cache.services.keys()) if (!seen.has(key)) cache.services.delete(key);
  // A hostNetwork pod's sandbox repeats its node's interface total.
  for (const s of series.values()) if (s.mirrors !== undefined) s.bytesPerSecond = series.get(s.mirrors)?.bytesPerSecond ?? 0;
  return { services, series };
}

// ---------------------------------------------------------------------------------------------
// Counters over time

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
  /** The switches at start (default {@link DEFAULT_TRAFFIC_METRICS_OPTIONS}). */
  readonly trafficMetrics?: Partial<TrafficMetricsOptions>;
}

/**
 * `base` with the switches `change` sets.
 * @throws Error when `exporter` is not one of {@link FLOW_EXPORTERS} (callers outside TypeScript).
 */
export function withTrafficMetricsOptions(base: TrafficMetricsOptions, change: Partial<TrafficMetricsOptions>): TrafficMetricsOptions {
  const exporter = change.exporter ?? base.exporter;
  if (!FLOW_EXPORTERS.includes(exporter)) throw new Error(`unknown flow exporter "${String(exporter)}" (${FLOW_EXPORTERS.join(', ')})`);
  return { flowZoneLabels: change.flowZoneLabels ?? base.flowZoneLabels, exporter, interZone: change.interZone ?? base.interZone };
}

/** The `InternalIP` of a Node object (`null`: none). */
function internalIPOf(node: KubeObject | undefined): string | null {
  const status = node?.status;
  const addresses = isRecord(status) && Array.isArray(status.addresses) ? (status.addresses as unknown[]) : [];
  for (const address of addresses) {
    if (isRecord(address) && address.type === 'InternalIP' && typeof address.address === 'string' && address.address !== '') return address.address;
  }
  return null;
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
  private readonly initialOptions: TrafficMetricsOptions;
  private trafficOptions: TrafficMetricsOptions;
  private model: TrafficModel | null = null;
  /** The store generation and the options the model was computed for. */
  private modelStoreKey = '';
  private modelOptionsKey = '';
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
    private readonly config: SimTrafficMetricsOptions,
  ) {
    this.profile = config.profile;
    this.initialOptions = withTrafficMetricsOptions(DEFAULT_TRAFFIC_METRICS_OPTIONS, config.trafficMetrics ?? {});
    this.trafficOptions = this.initialOptions;
    this.startedAt = config.now().getTime();
    this.unsubscribe = store.subscribe('*', () => {
      this.changedAt ??= this.config.now().getTime();
    });
  }

  /** Marks the store as replaced (reset, restore: the store notifies no one then). */
  invalidate(): void {
    this.epoch++;
    this.changedAt ??= this.config.now().getTime();
  }

  /** The switches in force. */
  get options(): TrafficMetricsOptions {
    return this.trafficOptions;
  }

  /**
   * Switches options (those left out keep their value) and returns the options in force. From
   * the next read, series that stay the same carry on, the others stop, and new ones start at 0.
   * @throws Error on an unknown exporter (nothing changes then).
   */
  setOptions(change: Partial<TrafficMetricsOptions>): TrafficMetricsOptions {
    const next = withTrafficMetricsOptions(this.trafficOptions, change);
    if (trafficOptionsKey(next) !== trafficOptionsKey(this.trafficOptions)) {
      this.trafficOptions = next;
      this.changedAt ??= this.config.now().getTime();
    }
    return this.trafficOptions;
  }

  /** Returns to the options of the start. */
  resetOptions(): TrafficMetricsOptions {
    return this.setOptions(this.initialOptions);
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
      version: this.config.version,
      nodeInternalIP: (name) => internalIPOf(this.store.get('nodes', undefined, name)),
      podUid: (namespace, name) => this.store.get('pods', namespace, name)?.metadata.uid ?? '',
    };
  }

  /** The model of the current store and options, re-run when either changed; counters folded at the change. */
  private current(): { model: TrafficModel; at: number } {
    const storeKey = `${this.store.resourceVersion}/${this.epoch}`;
    const optionsKey = trafficOptionsKey(this.trafficOptions);
    const now = this.config.now().getTime();
    // An expensive model (a large cluster) is re-run for a changed store at most every 10× its
    // cost, so that a store that keeps changing does not keep the simulator busy; the counters grow
    // at the old rates meanwhile. A switched option always applies at once.
    const throttled = this.lastCostMs > SLOW_MODEL_MS && performance.now() - this.lastComputedAt < Math.min(10 * this.lastCostMs, MAX_THROTTLE_MS);
    if (this.model !== null && optionsKey === this.modelOptionsKey && (storeKey === this.modelStoreKey || throttled)) {
      this.servedAt = now;
      return { model: this.model, at: now };
    }
    const started = performance.now();
    const model = computeTrafficModel(this.records(), this.profile, this.trafficOptions, this.cache);
    const at = this.config.now().getTime();
    // New rates apply from the change, but never before a value already served at the old rates (counters only grow).
    const foldAt = this.model === null ? this.startedAt : Math.min(Math.max(this.changedAt ?? at, this.servedAt), at);
    const previous = new Map<string, Counter>();
    for (const counter of this.counters) previous.set(counter.id, counter);
    // Families in metricOrder; inside one, the model's order (Services by namespace/name).
    const byMetric = new Map<string, Counter[]>(metricOrder(this.trafficOptions).map((metric) => [metric, []]));
    for (const [id, s] of model.series) {
      const old = previous.get(id);
      const valueAtSince = old ? old.valueAtSince + (old.rate * Math.max(0, foldAt - old.since)) / 1000 : 0;
      byMetric.get(s.metric)?.push({ id, metric: s.metric, prefix: old?.prefix ?? `${id} `, rate: s.bytesPerSecond, valueAtSince, since: foldAt });
    }
    this.counters = [...byMetric.values()].flat();
    this.model = model;
    this.modelStoreKey = storeKey;
    this.modelOptionsKey = optionsKey;
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
        lines.push(`# HELP ${family} ${escapeHelp(metricHelp(family))}`, `# TYPE ${family} counter`);
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
    for (const metric of metricOrder(this.trafficOptions)) seriesCount[metric] = 0;
    for (const counter of this.counters) seriesCount[counter.metric] = (seriesCount[counter.metric] ?? 0) + 1;
    const services = options.service === undefined ? model.services : model.services.filter((s) => `${s.namespace}/${s.name}` === options.service);
    let interZone = 0;
    let flowInterZone = 0;
    for (const service of model.services) {
      interZone += service.crossZoneBytesPerSecond;
      if (service.coverage === 'flows-and-pod-bytes') flowInterZone += service.crossZoneBytesPerSecond;
    }
    const { exporter } = this.trafficOptions;
    return {
      clusterName: this.profile.clusterName,
      startedAt: new Date(this.startedAt).toISOString(),
      at: new Date(at).toISOString(),
      generation: this.generationCount,
      options: this.trafficOptions,
      replyFactor: REPLY_FACTOR,
      clientWorkload: { kind: 'Deployment', name: LOADGEN_WORKLOAD },
      metrics: { flows: flowMetricName(exporter), interZone: interZoneMetricName(exporter), podReceive: POD_RECEIVE_METRIC, podTransmit: POD_TRANSMIT_METRIC },
      services,
      interZoneBytesPerSecond: interZone,
      flowInterZoneBytesPerSecond: flowInterZone,
      ...(options.series === false ? {} : { series: this.counters.map((c) => ({ metric: c.metric, labels: parseSeriesId(c.id).labels, bytesPerSecond: c.rate })) }),
      seriesCount,
    };
  }
}

/** A counter value as the exposition writes it (a float; Prometheus parses Go's and JavaScript's forms alike). */
function formatValue(value: number): string {
  return Number.isFinite(value) ? String(value) : '0';
}

/** Escapes HELP text (`\\`, `\n`). */
function escapeHelp(text: string): string {
  return text.replace(/[\\\n]/g, (c) => (c === '\\' ? '\\\\' : '\\n'));
}
