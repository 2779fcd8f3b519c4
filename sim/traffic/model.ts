/**
 * The traffic model of one store generation: every Service's traffic (sim/traffic/service-traffic.ts)
 * from the engine's matrix *now* — lib/topology `computeTrafficMatrix` on the observed
 * EndpointSlices of the primary address type, clients on every counted node in proportion to its
 * CPU, the cluster's release and dataplane: what the dashboard predicts — and the series they
 * make with the exporter options. Cached between generations: the preparation while nodes and
 * release are the same, and per Service (a Service whose record, EndpointSlices and the nodes are
 * the same objects keeps its traffic; its pods' changes reach its slices; an options switch only
 * renders its series again).
 */
import { combineDataplaneFacts } from '../../lib/k8s/wire-to-record/dataplane';
import type { DataplaneFactRecord } from '../../lib/k8s/wire-to-record/dataplane';
import { projectServerVersion } from '../../lib/k8s/wire-to-record/server-version';
import { isExternallyAccessible } from '../../lib/topology/analyses/service-mechanism';
import type { TrafficMatrix } from '../../lib/topology/analyses/traffic';
import { computeTrafficMatrix, toTrafficEndpoints } from '../../lib/topology/analyses/traffic';
import type { ClusterSnapshot, EndpointSliceRecord, NodeRecord, PodRecord, ReplicaSetRecord, ServiceRecord } from '../../lib/topology/model/cluster-model';
import { indexCluster, objectKey } from '../../lib/topology/model/cluster-model';
import type { PreparedAnalysis } from '../../lib/topology/report/prepared-analysis';
import { prepareAnalysis } from '../../lib/topology/report/prepared-analysis';
import type { ProxyServicePort } from '../../lib/topology/upstream/proxy-service-port';
import { effectiveHintsAnnotation } from '../../lib/topology/upstream/proxy-service-port';
import type { AddressType } from '../../lib/topology/upstream/types';
import type { VersionInfo } from '../discovery';
import type { AgentFlow } from './beyla-series';
import { BEYLA_AGENT_PORT, flowSeriesParts } from './beyla-series';
import { KUBELET_PORT, podSeriesParts } from './cadvisor-series';
import type { ClientZoneNodes } from './client-nodes';
import { clientZoneNodes } from './client-nodes';
import { endpointInfos } from './endpoint-owners';
import type { TrafficMetricsOptions } from './exporter-options';
import { DEFAULT_TRAFFIC_METRICS_OPTIONS, trafficOptionsKey } from './exporter-options';
import type { SeriesPart } from './exposition';
import type { TrafficProfile } from './profile';
import type { ServiceTrafficRates } from './rates';
import type { ServiceContext } from './service-traffic';
import { serviceTraffic } from './service-traffic';

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

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
