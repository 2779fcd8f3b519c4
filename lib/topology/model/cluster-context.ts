/**
 * Per-cluster facts every Service analysis shares, computed once per analysis run: the release
 * and feature gates being modelled (modelled-release.ts), the resolved options
 * (analysis-options.ts), the topology cache's CPU ratios (SetNodes), the nodes that originate
 * client traffic per zone, and lazily built pod lookups per namespace.
 *
 * Building the context is O(nodes); pod lookups are built per namespace on first use, so a single
 * Service analysis never walks the pods of other namespaces.
 */
import type { AnalysisOptions, ResolvedAnalysisOptions } from './analysis-options';
import { resolveAnalysisOptions } from './analysis-options';
import type { ClusterIndex, NodeRecord, PodRecord, ServiceRecord } from './cluster-model';
import { objectKey } from './cluster-model';
import type { ReleaseInfo } from './modelled-release';
import { isTopologyCacheEnabled, resolveRelease } from './modelled-release';
import { LABEL_TOPOLOGY_ZONE } from '../upstream/constants';
import type { ProxyNode, ProxyRelease } from '../upstream/proxy-topology';
import { quantityToMilli } from '../upstream/quantity';
import type { NodeTopology, NodeTopologyStatus } from '../upstream/topology-cache';
import { classifyNode, setNodes } from '../upstream/topology-cache';
import type { TopologyNode, ValueByZone } from '../upstream/types';
import type { FeatureGates, KubeMinor } from '../upstream/version';
import { resolveFeatureGates } from '../upstream/version';
import { serviceMemo, type ServiceRecordMemo } from './record-memo';

/** A node that originates client traffic (a ready worker with a zone and CPU). */
export interface ClientNode {
  readonly name: string;
  readonly zone: string;
  readonly cpuMilli: number;
  readonly proxyNode: ProxyNode;
}

/** Pods of one namespace, indexed for the analyses. */
export interface NamespacePods {
  readonly byName: ReadonlyMap<string, PodRecord>;
  /** Pods by `Kind/name` of their controller owner. */
  readonly byOwner: ReadonlyMap<string, readonly PodRecord[]>;
}

/** Everything per cluster an analysis run shares. */
export interface ClusterContext {
  readonly index: ClusterIndex;
  readonly options: ResolvedAnalysisOptions;
  readonly release: ReleaseInfo;
  readonly gates: FeatureGates;
  /** The kube-proxy release (same minor and gates). */
  readonly proxyRelease: ProxyRelease;
  /** Whether the EndpointSlice controller runs a topology cache (TopologyAwareHints gate on). */
  readonly topologyCacheEnabled: boolean;
  /** Nodes as the topology cache sees them, in snapshot order. */
  readonly topologyNodes: readonly TopologyNode[];
  /** How SetNodes treats each node, by name. */
  readonly nodeStatusByName: ReadonlyMap<string, NodeTopologyStatus>;
  /** SetNodes result for all nodes. */
  readonly nodeTopology: NodeTopology;
  /** The topology cache's CPU ratios (`null` when node information is insufficient). */
  readonly cpuRatiosByZone: Readonly<ValueByZone<number>> | null;
  /** Zones with at least one node carrying the label, sorted. */
  readonly zoneNames: readonly string[];
  /** Client nodes per zone (sorted by zone, then node name). */
  readonly clientNodesByZone: ReadonlyMap<string, readonly ClientNode[]>;
  /** Share of client traffic per zone (sums to 1 when any client node exists). */
  readonly clientShareByZone: Readonly<ValueByZone<number>>;
  /** How the client shares were obtained. */
  readonly clientShareSource: 'cpu' | 'cpu-with-overrides' | 'equal';
  /** Zone of each node by name (`null` when the node has no or an empty zone label). */
  readonly nodeZoneByName: ReadonlyMap<string, string | null>;
  /** Pods of a namespace, indexed on first use. */
  podsIn(namespace: string): NamespacePods;
  /**
   * Per-run memo for results that depend only on cluster-wide inputs and `key` (e.g. an HPA scan
   * for a replica range): computed once, shared by every Service of the run.
   */
  memo<T>(key: string, compute: () => T): T;
}

/** A node record as the topology cache sees it. */
export function toTopologyNode(node: NodeRecord): TopologyNode {
  return { name: node.name, zone: node.zone, allocatableCpu: node.allocatableCpu, ready: node.ready, labels: node.labels };
}

const PROXY_NODES = new WeakMap<NodeRecord, ProxyNode>();

/**
 * A node record as kube-proxy sees it (its labels, with the zone label as recorded): one object per
 * record, so a context built after another Node changed hands the same object for this one, and
 * what kube-proxy's model keeps by node object (decisions, selections) is found again.
 */
export function toProxyNode(node: NodeRecord): ProxyNode {
  let known = PROXY_NODES.get(node);
  if (known === undefined) {
    const labels: Record<string, string> = Object.fromEntries(Object.entries(node.labels).filter(([key]) => key !== LABEL_TOPOLOGY_ZONE));
    if (node.zone !== null) labels[LABEL_TOPOLOGY_ZONE] = node.zone;
    known = Object.freeze({ name: node.name, labels: Object.freeze(labels) });
    PROXY_NODES.set(node, known);
  }
  return known;
}

const WITH_HINTS_GATE = new WeakMap<ProxyRelease, ProxyRelease>();

/** `release` with the TopologyAwareHints gate on (what a fix that turns the gate on leaves), one shared object per release. */
export function proxyReleaseWithHintsGate(release: ProxyRelease): ProxyRelease {
  let known = WITH_HINTS_GATE.get(release);
  if (known === undefined) {
    known = release.legacyGates === undefined ? sharedProxyRelease(release.minor, { ...release.gates, TopologyAwareHints: true }) : { ...release, gates: { ...release.gates, TopologyAwareHints: true } };
    WITH_HINTS_GATE.set(release, known);
  }
  return known;
}

/** Release objects {@link sharedProxyRelease} hands out, by minor and gate values. */
const PROXY_RELEASES = new Map<string, ProxyRelease>();

/** Distinct releases {@link PROXY_RELEASES} keeps before it starts over (a process models a handful). */
const PROXY_RELEASES_KEPT = 64;

/**
 * The kube-proxy release of `minor` with `gates`: one frozen object per minor and gate values, so
 * contexts built one after another (a Node change builds a new one) hand the same object, and what
 * kube-proxy's model keeps by release object (proxy-topology.ts, traffic.ts) is found again.
 */
export function sharedProxyRelease(minor: KubeMinor, gates: FeatureGates): ProxyRelease {
  const key = `${minor}|${JSON.stringify(gates)}`;
  let known = PROXY_RELEASES.get(key);
  if (known === undefined) {
    if (PROXY_RELEASES.size >= PROXY_RELEASES_KEPT) PROXY_RELEASES.clear();
    known = Object.freeze({ minor, gates: Object.freeze({ ...gates }) });
    PROXY_RELEASES.set(key, known);
  }
  return known;
}

/**
 * Client share per zone. By default a zone's share is its CPU share (the controller's own
 * assumption). `overrides` fix the share (0–1) of the listed zones; the other zones split what is
 * left in proportion to their CPU. Overrides summing to more than 1 are scaled down to 1 and leave
 * nothing for the other zones. With no CPU at all the zones share equally.
 */
export function computeClientShareByZone(
  cpuMilliByZone: Readonly<ValueByZone<number>>,
  overrides: Readonly<Record<string, number>> | null,
): { shareByZone: ValueByZone<number>; source: ClusterContext['clientShareSource'] } {
  const zones = Object.keys(cpuMilliByZone).sort();
  const fixed = new Map<string, number>();
  for (const zone of zones) {
    const value = overrides?.[zone];
    if (typeof value === 'number' && Number.isFinite(value) && value >= 0) fixed.set(zone, value);
  }
  const shareByZone: ValueByZone<number> = {};
  let fixedTotal = 0;
  for (const value of fixed.values()) fixedTotal += value;
  const scale = fixedTotal > 1 ? 1 / fixedTotal : 1;
  const rest = Math.max(0, 1 - fixedTotal * scale);
  const freeZones = zones.filter((zone) => !fixed.has(zone));
  const freeCpu = freeZones.reduce((sum, zone) => sum + (cpuMilliByZone[zone] ?? 0), 0);
  for (const zone of zones) {
    const value = fixed.get(zone);
    if (value !== undefined) shareByZone[zone] = value * scale;
    else shareByZone[zone] = freeCpu > 0 ? (rest * (cpuMilliByZone[zone] ?? 0)) / freeCpu : rest / freeZones.length;
  }
  const source: ClusterContext['clientShareSource'] = fixed.size > 0 ? 'cpu-with-overrides' : freeCpu > 0 ? 'cpu' : 'equal';
  return { shareByZone, source };
}

/**
 * Builds the shared per-cluster facts once: release and gates, SetNodes over every node, client
 * nodes per zone and their traffic shares.
 */
export function buildClusterContext(index: ClusterIndex, options: AnalysisOptions = {}): ClusterContext {
  const release = resolveRelease(options.kubernetesVersion, index.snapshot.version);
  const featureGates = options.featureGates ?? {};
  // One frozen release object, and its gates, per minor and gate values: what is kept by them is found by the next context.
  const proxyRelease = sharedProxyRelease(release.minor, resolveFeatureGates(release.minor, featureGates));
  const gates = proxyRelease.gates;
  const topologyNodes = index.snapshot.nodes.map(toTopologyNode);
  const nodeTopology = setNodes(topologyNodes, release.minor);

  // 1. Classify nodes; collect zones and client nodes.
  const nodeStatusByName = new Map<string, NodeTopologyStatus>();
  const nodeZoneByName = new Map<string, string | null>();
  const zoneSet = new Set<string>();
  const clients = new Map<string, ClientNode[]>();
  for (const node of index.snapshot.nodes) {
    const status = classifyNode(toTopologyNode(node), release.minor);
    nodeStatusByName.set(node.name, status);
    const zone = node.zone === null || node.zone === '' ? null : node.zone;
    nodeZoneByName.set(node.name, zone);
    if (zone !== null) zoneSet.add(zone);
    if (status !== 'counted' || zone === null) continue;
    const cpuMilli = node.allocatableCpu === null ? 0 : (quantityToMilli(node.allocatableCpu) ?? 0);
    const list = clients.get(zone) ?? [];
    list.push({ name: node.name, zone, cpuMilli, proxyNode: toProxyNode(node) });
    clients.set(zone, list);
  }
  const clientNodesByZone = new Map<string, readonly ClientNode[]>();
  const cpuMilliByZone: ValueByZone<number> = {};
  for (const zone of [...clients.keys()].sort()) {
    const list = (clients.get(zone) ?? []).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    clientNodesByZone.set(zone, list);
    cpuMilliByZone[zone] = list.reduce((sum, node) => sum + node.cpuMilli, 0);
  }

  // 2. Client traffic shares.
  const { shareByZone, source } = computeClientShareByZone(cpuMilliByZone, options.trafficByZone ?? null);

  // 3. Pods per namespace, on demand.
  const podsIn = namespacePodsLookup(index, null);

  const memoCache = new Map<string, unknown>();
  const memo = <T>(key: string, compute: () => T): T => {
    if (memoCache.has(key)) return memoCache.get(key) as T;
    const value = compute();
    memoCache.set(key, value);
    return value;
  };

  return {
    index,
    options: resolveAnalysisOptions(options),
    release,
    gates,
    proxyRelease,
    topologyCacheEnabled: isTopologyCacheEnabled(release.minor, gates),
    topologyNodes,
    nodeStatusByName,
    nodeTopology,
    cpuRatiosByZone: nodeTopology.cpuRatiosByZone,
    zoneNames: [...zoneSet].sort(),
    clientNodesByZone,
    clientShareByZone: shareByZone,
    clientShareSource: source,
    nodeZoneByName,
    podsIn,
    memo,
  };
}

/** Namespace pod indexes a context built, with the pod list each was built from. */
const POD_INDEXES = new WeakMap<ClusterContext['podsIn'], Map<string, { readonly source: readonly PodRecord[] | undefined; readonly pods: NamespacePods }>>();

/**
 * `podsIn` over `index`, indexing a namespace on first use. With `previous` (the lookup of an
 * earlier context), a namespace whose pod list is the same array as then reuses that index.
 */
function namespacePodsLookup(index: ClusterIndex, previous: ClusterContext['podsIn'] | null): ClusterContext['podsIn'] {
  const podCache = new Map<string, { readonly source: readonly PodRecord[] | undefined; readonly pods: NamespacePods }>();
  const earlier = previous ? POD_INDEXES.get(previous) : undefined;
  const podsIn = (namespace: string): NamespacePods => {
    const cached = podCache.get(namespace);
    if (cached) return cached.pods;
    const source = index.podsByNamespace.get(namespace);
    const reusable = earlier?.get(namespace);
    if (reusable && reusable.source === source) {
      podCache.set(namespace, reusable);
      return reusable.pods;
    }
    const byName = new Map<string, PodRecord>();
    const byOwner = new Map<string, PodRecord[]>();
    // Owner references are shared records (the sources intern them): each one's key is spelled
    // once, not once per pod (a fresh string for each of ~150,000 pods, hashed on every lookup).
    const keyOf = new Map<NonNullable<PodRecord['owner']>, string>();
    for (const pod of source ?? []) {
      byName.set(pod.name, pod);
      if (pod.owner) {
        let key = keyOf.get(pod.owner);
        if (key === undefined) {
          key = `${pod.owner.kind}/${pod.owner.name}`;
          keyOf.set(pod.owner, key);
        }
        const list = byOwner.get(key);
        if (list) list.push(pod);
        else byOwner.set(key, [pod]);
      }
    }
    const pods = { byName, byOwner };
    podCache.set(namespace, { source, pods });
    return pods;
  };
  POD_INDEXES.set(podsIn, podCache);
  return podsIn;
}

/**
 * The context of `previous` over a newer `index` whose nodes, version and dataplane are unchanged
 * (the caller checks): the per-cluster facts and the memo are shared; pod indexes are rebuilt only
 * for namespaces whose pod list changed (lists are compared by identity).
 */
export function rebaseClusterContext(previous: ClusterContext, index: ClusterIndex): ClusterContext {
  return { ...previous, index, podsIn: namespacePodsLookup(index, previous.podsIn) };
}

/** `namespace/name` of a Service, as the controller keys it. */
export function serviceKey(namespace: string, name: string): string {
  return objectKey(namespace, name);
}

/** {@link serviceKey} of a Service record, built once per record (kept in its memo): every cluster pass looks each Service up by it. */
export function serviceRecordKey(service: ServiceRecord, memo: ServiceRecordMemo = serviceMemo(service)): string {
  let key = memo.key;
  if (key === undefined) {
    key = serviceKey(service.namespace, service.name);
    memo.key = key;
  }
  return key;
}
