/**
 * Per-cluster facts every Service analysis shares, computed once per analysis run: the release
 * and feature gates being modelled, the topology cache's CPU ratios (SetNodes), the nodes that
 * originate client traffic per zone, and lazily built pod lookups per namespace.
 *
 * Building the context is O(nodes); pod lookups are built per namespace on first use, so a single
 * Service analysis never walks the pods of other namespaces.
 */
import type { PriceSetting } from './cloud-pricing';
import { pricePerGbSetting } from './cloud-pricing';
import type { ClusterIndex, NodeRecord, PodRecord, SourceResource } from './cluster-model';
import { objectKey, SOURCE_RESOURCES } from './cluster-model';
import { LABEL_TOPOLOGY_ZONE } from '../upstream/constants';
import type { ProxyNode, ProxyRelease } from '../upstream/proxy-topology';
import { quantityToMilli } from '../upstream/quantity';
import type { NodeTopology, NodeTopologyStatus } from '../upstream/topology-cache';
import { classifyNode, setNodes } from '../upstream/topology-cache';
import type { TopologyNode, ValueByZone } from '../upstream/types';
import type { FeatureGateOverrides, FeatureGates, KubeMinor } from '../upstream/version';
import { formatKubeMinor, MAX_MODELLED_MINOR, MIN_MODELLED_MINOR, parseKubeMinor, resolveFeatureGates } from '../upstream/version';

/**
 * Release assumed when neither the cluster nor the caller says which one runs: 1.33, the first
 * release in which topology hints and `trafficDistribution` are GA. Every release from 1.33 on
 * behaves the same for the controller and kube-proxy, so the assumption is the least surprising one.
 */
export const DEFAULT_KUBERNETES_MINOR: KubeMinor = 33;

/**
 * Monthly volume of a Service's traffic that earlier releases assumed for every Service. No longer
 * a default: without a measurement or a set volume a Service is assumed to move
 * {@link DEFAULT_GB_PER_ENDPOINT} GB per ready endpoint; a flat volume per Service applies only
 * when given ({@link AnalysisOptions.gbPerMonth}).
 */
export const DEFAULT_GB_PER_MONTH = 1000;

/**
 * GB per month assumed for each ready endpoint of a Service when nothing is measured or set (the
 * same figure as `DEFAULT_GB_PER_ENDPOINT` of analyses/traffic-volume.ts, which this layer cannot import).
 */
export const DEFAULT_GB_PER_ENDPOINT = 50;

/** Largest accepted volume in GB per month (per Service or per endpoint): 1 EB. */
export const MAX_GB_PER_MONTH = 1e9;

/** Largest accepted price per GB in USD (the legacy {@link AnalysisOptions.pricePerGb}). */
export const MAX_PRICE_PER_GB = 100;

/** Options of an analysis run. Every field is optional. */
export interface AnalysisOptions {
  /** Release to model instead of the cluster's own (`"1.30"`, `"v1.30.2"` or `30`). */
  readonly kubernetesVersion?: string | number | null;
  /** Feature gate overrides; absent gates take the modelled release's defaults. */
  readonly featureGates?: FeatureGateOverrides | null;
  /**
   * Share (0–1) of a Service's client traffic originating in each listed zone; unlisted zones
   * split the rest in proportion to their CPU (see {@link computeClientShareByZone}).
   */
  readonly trafficByZone?: Readonly<Record<string, number>> | null;
  /**
   * Flat monthly traffic volume of every Service in GB, for Services with no measurement and no
   * volume of their own. Unset: {@link gbPerEndpoint} × ready endpoints.
   */
  readonly gbPerMonth?: number | null;
  /** GB per month assumed for each ready endpoint when nothing is measured or set (default {@link DEFAULT_GB_PER_ENDPOINT}). */
  readonly gbPerEndpoint?: number | null;
  /** Monthly volume in GB set for single Services, by `namespace/name`; wins over the assumptions, not over measurements. */
  readonly volumesByService?: Readonly<Record<string, number>> | null;
  /**
   * The price of cross-zone traffic: a cloud's price list or a price of the operator's own (see
   * model/cloud-pricing.ts). Unset: the price list of the cloud the cluster runs on, AWS's when
   * the platform is not recognised.
   */
  readonly crossZonePrice?: PriceSetting | null;
  /**
   * Legacy single price: USD per cross-zone GB in each of two directions (`N/GB x2`, AWS's way).
   * Ignored (and named in `problems`) when {@link crossZonePrice} is given too.
   */
  readonly pricePerGb?: number | null;
  /**
   * Resource types the source could not read (forbidden): their lists are empty because of the
   * identity's permissions, not because the cluster has none. Answers that depend on them are
   * reported as unknown (see `report/unknowns.ts`).
   */
  readonly unreadable?: readonly SourceResource[] | null;
}

/** Where the modelled release came from. */
export type ReleaseSource = 'override' | 'cluster' | 'assumed';

/** The Kubernetes release an analysis models. */
export interface ReleaseInfo {
  /** Minor number modelled (clamped to 1.21–1.36). */
  readonly minor: KubeMinor;
  /** `"1.33"`. */
  readonly release: string;
  readonly source: ReleaseSource;
  /** The server's `gitVersion`, when known. */
  readonly gitVersion: string | null;
  /** Platform guess (`eks`, `gke`, …) from the server version, when known. */
  readonly platform: string | null;
  /** Why the modelled release differs from what the cluster reports, or `null`. */
  readonly note: string | null;
}

/** Options with defaults applied (see {@link resolveAnalysisOptions}); invalid values are left out and named in `problems`. */
export interface ResolvedAnalysisOptions {
  /** Flat GB per Service per month, `null` when not given (volumes are then per ready endpoint). */
  readonly gbPerMonth: number | null;
  readonly gbPerEndpoint: number;
  /** Volumes set per Service (`namespace/name` → GB per month), keys sorted. */
  readonly volumesByService: Readonly<Record<string, number>>;
  /** The operator's price setting (from {@link AnalysisOptions.crossZonePrice} or the legacy `pricePerGb`), `null` for the platform's own. */
  readonly priceSetting: PriceSetting | null;
  readonly trafficByZone: Readonly<Record<string, number>> | null;
  readonly featureGates: FeatureGateOverrides;
  /** {@link AnalysisOptions.unreadable}, deduplicated, in {@link SOURCE_RESOURCES} order. */
  readonly unreadable: readonly SourceResource[];
  /** Option values that were rejected (the default is used instead), one sentence each. */
  readonly problems: readonly string[];
  /**
   * Identity of the measured traffic the report layer analyses with (`report/prepared-analysis.ts`
   * sets it; this layer does not read it), so that caches keyed on the options re-key when it changes.
   */
  readonly measuredKey?: string | null;
}

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

/** Whether the EndpointSlice controller creates its topology cache: the gate is on, or GA (1.33+). */
export function isTopologyCacheEnabled(minor: KubeMinor, gates: FeatureGates): boolean {
  return minor >= 33 || gates.TopologyAwareHints;
}

/**
 * Resolves the release to model: the caller's override, else the cluster's version, else
 * {@link DEFAULT_KUBERNETES_MINOR}. Releases outside 1.21–1.36 are clamped and the clamp is noted.
 */
export function resolveRelease(
  override: string | number | null | undefined,
  version: ClusterIndex['snapshot']['version'],
): ReleaseInfo {
  const gitVersion = version?.gitVersion ?? null;
  const platform = version?.platform ?? null;
  let requested: KubeMinor | null = null;
  let source: ReleaseSource = 'assumed';
  if (override !== null && override !== undefined && override !== '') {
    requested = typeof override === 'number' ? Math.trunc(override) : parseKubeMinor(override.startsWith('1.') || override.startsWith('v') ? override : `1.${override}`);
    if (requested !== null) source = 'override';
  }
  if (requested === null && version?.minor !== null && version?.minor !== undefined) {
    requested = version.minor;
    source = 'cluster';
  }
  let note: string | null = null;
  if (requested === null) {
    requested = DEFAULT_KUBERNETES_MINOR;
    note = `The cluster's Kubernetes version is unknown; release ${formatKubeMinor(DEFAULT_KUBERNETES_MINOR)} is assumed (pass a version to change it).`;
  }
  let minor = requested;
  if (minor < MIN_MODELLED_MINOR) {
    minor = MIN_MODELLED_MINOR;
    note = `Kubernetes ${formatKubeMinor(requested)} predates topology hints; modelled as ${formatKubeMinor(minor)}, the first release that has them.`;
  } else if (minor > MAX_MODELLED_MINOR) {
    minor = MAX_MODELLED_MINOR;
    note = `Kubernetes ${formatKubeMinor(requested)} is newer than the newest modelled release; modelled as ${formatKubeMinor(minor)}.`;
  }
  return { minor, release: formatKubeMinor(minor), source, gitVersion, platform, note };
}

/** A node record as the topology cache sees it. */
export function toTopologyNode(node: NodeRecord): TopologyNode {
  return { name: node.name, zone: node.zone, allocatableCpu: node.allocatableCpu, ready: node.ready, labels: node.labels };
}

/** A node record as kube-proxy sees it (its labels, with the zone label as recorded). */
export function toProxyNode(node: NodeRecord): ProxyNode {
  const labels: Record<string, string> = Object.fromEntries(Object.entries(node.labels).filter(([key]) => key !== LABEL_TOPOLOGY_ZONE));
  if (node.zone !== null) labels[LABEL_TOPOLOGY_ZONE] = node.zone;
  return { name: node.name, labels };
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

/** `unreadable` as a canonical list: known identifiers only, each once, in display order. */
export function resolveUnreadable(unreadable: readonly SourceResource[] | null | undefined): readonly SourceResource[] {
  if (!unreadable || unreadable.length === 0) return [];
  return SOURCE_RESOURCES.filter((id) => unreadable.includes(id));
}

/** Whether `value` is a number from 0 to `max`. */
function inRange(value: unknown, max: number): value is number {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 && value <= max;
}

/**
 * Options with defaults applied. A value that is not a number from 0 to its maximum (volumes
 * {@link MAX_GB_PER_MONTH}, price {@link MAX_PRICE_PER_GB}), or a per-Service volume whose key is not
 * `namespace/name`, is left out (its default applies) and named in `problems`.
 */
export function resolveAnalysisOptions(options: AnalysisOptions = {}): ResolvedAnalysisOptions {
  const problems: string[] = [];
  const number = (name: string, value: number | null | undefined, max: number): number | null => {
    if (value === null || value === undefined) return null;
    if (inRange(value, max)) return value;
    problems.push(`${name} must be a number from 0 to ${max}, got ${String(value)}; ignored.`);
    return null;
  };
  const volumesByService: Record<string, number> = {};
  const given = options.volumesByService ?? {};
  for (const key of Object.keys(given).sort()) {
    const value = given[key];
    const parts = key.split('/');
    if (parts.length !== 2 || !parts[0] || !parts[1]) problems.push(`volumesByService: "${key}" is not namespace/name; ignored.`);
    else if (!inRange(value, MAX_GB_PER_MONTH)) problems.push(`volumesByService["${key}"] must be a number of GB from 0 to ${MAX_GB_PER_MONTH}, got ${String(value)}; ignored.`);
    else volumesByService[key] = value;
  }
  return {
    gbPerMonth: number('gbPerMonth', options.gbPerMonth, MAX_GB_PER_MONTH),
    gbPerEndpoint: number('gbPerEndpoint', options.gbPerEndpoint, MAX_GB_PER_MONTH) ?? DEFAULT_GB_PER_ENDPOINT,
    volumesByService,
    priceSetting: priceSettingOf(options, number, problems),
    trafficByZone: options.trafficByZone ?? null,
    featureGates: options.featureGates ?? {},
    unreadable: resolveUnreadable(options.unreadable),
    problems,
  };
}

/** The price setting of the options: `crossZonePrice`, else the legacy `pricePerGb` (both given: the first, and a problem). */
function priceSettingOf(options: AnalysisOptions, number: (name: string, value: number | null | undefined, max: number) => number | null, problems: string[]): PriceSetting | null {
  const legacy = number('pricePerGb', options.pricePerGb, MAX_PRICE_PER_GB);
  if (options.crossZonePrice) {
    if (legacy !== null) problems.push('pricePerGb is ignored: crossZonePrice is given too.');
    return options.crossZonePrice;
  }
  return legacy === null ? null : pricePerGbSetting(legacy);
}

/**
 * Builds the shared per-cluster facts once: release and gates, SetNodes over every node, client
 * nodes per zone and their traffic shares.
 */
export function buildClusterContext(index: ClusterIndex, options: AnalysisOptions = {}): ClusterContext {
  const release = resolveRelease(options.kubernetesVersion, index.snapshot.version);
  const featureGates = options.featureGates ?? {};
  const gates = resolveFeatureGates(release.minor, featureGates);
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
    proxyRelease: { minor: release.minor, gates },
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
    for (const pod of source ?? []) {
      byName.set(pod.name, pod);
      if (pod.owner) {
        const key = `${pod.owner.kind}/${pod.owner.name}`;
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
