/**
 * kube-proxy endpoint selection: which of a Service's endpoints one node's kube-proxy programs,
 * and which topology mode (none / PreferSameZone / PreferSameNode) it applies, release by release.
 *
 * Generations modelled (topology-semantics.md §11, §12):
 *
 * | releases  | generation |
 * |-----------|------------|
 * | 1.21      | `FilterEndpoints`; annotation must be exactly `auto`; hints checked readiness-blind |
 * | 1.22      | `FilterEndpoints`; `Auto` or `auto`; readiness-blind |
 * | 1.23      | `FilterEndpoints`; `Auto` or `auto`; unready endpoints ignored when deciding |
 * | 1.24–1.26 | `CategorizeEndpoints`; TopologyAwareHints gate + `Auto`/`auto` + zone label required |
 * | 1.27–1.29 | any non-empty annotation other than `disabled`/`Disabled` enables hint use |
 * | 1.30–1.32 | with the ServiceTrafficDistribution gate on the annotation is not consulted |
 * | 1.33+     | no annotation or gate checks; PreferSameNode via node hints (PreferSameTrafficDistribution gate) |
 * | 1.35+     | empty endpoint list → every result `null` (newest source; see {@link categorizeEndpoints}) |
 *
 * The 1.21–1.23 functions themselves (`FilterEndpoints` and friends) live in `proxy-legacy.ts`;
 * {@link categorizeEndpoints} projects those releases onto the same result shape.
 * What the Service port itself settles (its traffic policies, `UsesClusterEndpoints` /
 * `UsesLocalEndpoints`, the hints annotation it reads) is `proxy-service-port.ts`.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/master/pkg/proxy/topology.go
 */
import { LABEL_TOPOLOGY_ZONE } from './constants';
import type { ProxyServicePort } from './proxy-service-port';
import { externalPolicyLocal, internalPolicyLocal, usesClusterEndpoints, usesLocalEndpoints } from './proxy-service-port';
import { formatKubeMinor } from './version';
import type { FeatureGates, KubeMinor } from './version';

/** The node a kube-proxy instance runs on. */
export interface ProxyNode {
  /** Node name, compared with endpoint node hints. */
  name: string;
  /** Node labels; only {@link LABEL_TOPOLOGY_ZONE} is read (absent counts as `""`). */
  labels: Readonly<Record<string, string>>;
}

/** One endpoint as kube-proxy sees it after reading the EndpointSlices (§11.1). */
export interface ProxyEndpoint {
  /** Identity, `"ip:port"`. */
  endpoint: string;
  /** `hints.forZones` names; `null` or `[]` = no zone hint. */
  zoneHints: readonly string[] | null;
  /** `hints.forNodes` names (1.33+); `null` or `[]` = no node hint. */
  nodeHints: readonly string[] | null;
  /** `conditions.ready` absent or true. */
  ready: boolean;
  /** `conditions.serving` absent or true. */
  serving: boolean;
  /** `conditions.terminating` present and true. */
  terminating: boolean;
  /** The endpoint's `nodeName` is this kube-proxy's node. */
  isLocal: boolean;
}

/**
 * Gates that only the 1.21 `FilterEndpoints` consulted and that {@link FeatureGates} does not
 * carry: `EndpointSliceProxying` (beta and on in 1.21, GA 1.22) and `ServiceTopology` (alpha,
 * off; its `topologyKeys` filter took precedence over hints and was removed in 1.22).
 */
export interface LegacyProxyFeatureGates {
  EndpointSliceProxying: boolean;
  ServiceTopology: boolean;
}

/** 1.21 defaults of {@link LegacyProxyFeatureGates}. */
export const DEFAULT_LEGACY_PROXY_FEATURE_GATES: Readonly<LegacyProxyFeatureGates> = {
  EndpointSliceProxying: true,
  ServiceTopology: false,
};

/** The kube-proxy release being modelled: minor number and resolved gates. */
export interface ProxyRelease {
  minor: KubeMinor;
  gates: FeatureGates;
  /** 1.21-only gates; absent entries take {@link DEFAULT_LEGACY_PROXY_FEATURE_GATES}. */
  legacyGates?: Partial<LegacyProxyFeatureGates>;
}

/** Topology mode kube-proxy applies to the cluster endpoint set (upstream `""` is `'none'`). */
export type TopologyMode = 'none' | 'PreferSameZone' | 'PreferSameNode';

/** Reasons shared by the same-zone and same-node decisions. */
export type CommonTopologyFallbackReason =
  /** 1.24+: the Service never uses the cluster set; 1.21–1.23: `FilterEndpoints` kept only local endpoints. */
  | 'internal-traffic-policy-local'
  /** 1.21–1.23: `FilterEndpoints` skips all filtering for `externalTrafficPolicy: Local` Services. */
  | 'external-traffic-policy-local'
  /** 1.21: EndpointSliceProxying gate off, kube-proxy reads Endpoints (no hints). */
  | 'endpoint-slice-proxying-gate-off'
  /** 1.21: ServiceTopology gate on, its `topologyKeys` filter is used instead of hints. */
  | 'service-topology-gate-on'
  /** The Service has no endpoints at all. */
  | 'no-endpoints'
  /** 1.23+: no endpoint is ready, so there are no hints to consider. */
  | 'no-ready-endpoints';

/** Why kube-proxy does not use same-zone topology. */
export type SameZoneFallbackReason =
  | CommonTopologyFallbackReason
  /** ≤ 1.32: the TopologyAwareHints gate is off. */
  | 'topology-aware-hints-gate-off'
  /** ≤ 1.32: the annotation value is not one this release accepts ({@link hintsAnnotationRule}). */
  | 'annotation-not-accepted'
  /** Node has no (or an empty) zone label; 1.33+ only when no endpoint is hinted for `""`. */
  | 'node-missing-zone-label'
  /** An endpoint (a ready one from 1.23) has no zone hint — transition safety. */
  | 'endpoint-missing-zone-hint'
  /** No endpoint (no ready one from 1.23) is hinted for this node's zone. */
  | 'no-endpoint-for-zone';

/** Why kube-proxy does not use same-node topology. */
export type SameNodeFallbackReason =
  | CommonTopologyFallbackReason
  /** Releases before 1.33 do not read node hints. */
  | 'node-hints-not-supported'
  /** 1.33+: the PreferSameTrafficDistribution gate is off. */
  | 'prefer-same-traffic-distribution-gate-off'
  /** A ready endpoint has no node hint. */
  | 'endpoint-missing-node-hint'
  /** No ready endpoint is hinted for this node. */
  | 'no-endpoint-for-node';

/** Any reason a narrower topology mode was not used. */
export type TopologyFallbackReason = SameZoneFallbackReason | SameNodeFallbackReason;

/** The topology decision for one Service on one node, with the reasons it fell back. */
export interface TopologyModeDecision {
  mode: TopologyMode;
  /** Node name the decision was made for. */
  nodeName: string;
  /** Zone matched against zone hints (`""` when the label is absent or empty). */
  zone: string;
  /** Why same-zone topology is not used; `null` when mode is PreferSameZone or PreferSameNode. */
  reason: SameZoneFallbackReason | null;
  /** Why same-node topology is not used; `null` when mode is PreferSameNode. */
  sameNodeReason: SameNodeFallbackReason | null;
  /** One-sentence explanation for display. */
  message: string;
}

/**
 * Result of {@link categorizeEndpoints}. `null` means the Service never uses that policy on this
 * node; `[]` means it does but no endpoint qualifies.
 */
export interface CategorizedEndpoints<E extends ProxyEndpoint = ProxyEndpoint> {
  /** Usable endpoints for Cluster traffic policy, topology applied. */
  clusterEndpoints: E[] | null;
  /** Usable endpoints for Local traffic policy (this node's endpoints). */
  localEndpoints: E[] | null;
  /** Union of the two lists: everything this node may send traffic to. */
  allReachableEndpoints: E[] | null;
  /** Some usable endpoint exists somewhere in the cluster (may be true with an empty reachable list). */
  hasAnyEndpoints: boolean;
}

/**
 * How a release treats the hints annotation:
 * `lowercase-auto-only` (1.21: exactly `auto`), `auto-either-case` (1.22–1.26: `Auto` or `auto`),
 * `any-except-disabled` (1.27–1.29, and 1.30–1.32 with ServiceTrafficDistribution off: any
 * non-empty value except `disabled`/`Disabled`), `not-consulted` (1.30–1.32 with the gate on, 1.33+).
 */
export type HintsAnnotationRule = 'lowercase-auto-only' | 'auto-either-case' | 'any-except-disabled' | 'not-consulted';

// Release thresholds (first minor with the behaviour).
const SINCE_CATEGORIZE = 24;
const SINCE_READINESS_AWARE_HINTS = 23;
const SINCE_TOPOLOGY_MODE_ANNOTATION = 27;
const SINCE_TRAFFIC_DISTRIBUTION = 30;
const SINCE_NODE_HINTS = 33;
/** ProxyTerminatingEndpoints existed from 1.22; GA and locked on from 1.28. */
const SINCE_TERMINATING_GATE = 22;
const SINCE_TERMINATING_GA = 28;
/** Cluster-wide fallback to serving-terminating endpoints arrived with the 1.26 generation. */
const SINCE_CLUSTER_TERMINATING_FALLBACK = 26;
/**
 * The newest source returns early (all `null`) for an empty endpoint list; the 1.24–1.34 tests
 * still expected `localEndpoints: []` there, so the early return is placed at 1.35.
 */
const SINCE_EMPTY_LIST_EARLY_RETURN = 35;

/**
 * Which annotation rule kube-proxy applies in `release` (see {@link HintsAnnotationRule}).
 *
 * @see https://github.com/kubernetes/kubernetes/blob/master/pkg/proxy/topology.go
 */
export function hintsAnnotationRule(release: ProxyRelease): HintsAnnotationRule {
  const { minor, gates } = release;
  if (minor < 22) return 'lowercase-auto-only';
  if (minor < SINCE_TOPOLOGY_MODE_ANNOTATION) return 'auto-either-case';
  if (minor < SINCE_TRAFFIC_DISTRIBUTION) return 'any-except-disabled';
  if (minor < SINCE_NODE_HINTS) return gates.ServiceTrafficDistribution ? 'not-consulted' : 'any-except-disabled';
  return 'not-consulted';
}

/**
 * Whether the annotation value lets kube-proxy use hints in `release` (always true where the
 * annotation is not consulted). E.g. `"Auto"` is refused by 1.21, `"example.com/x"` by 1.22–1.26
 * but accepted by 1.27–1.29.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/master/pkg/proxy/topology.go
 */
export function isHintsAnnotationAccepted(value: string, release: ProxyRelease): boolean {
  switch (hintsAnnotationRule(release)) {
    case 'lowercase-auto-only':
      return value === 'auto';
    case 'auto-either-case':
      return value === 'Auto' || value === 'auto';
    case 'any-except-disabled':
      return value !== '' && value !== 'disabled' && value !== 'Disabled';
    case 'not-consulted':
      return true;
  }
}

function nodeZone(node: ProxyNode): string {
  return node.labels[LABEL_TOPOLOGY_ZONE] ?? '';
}

function hintsInclude(hints: readonly string[] | null, name: string): boolean {
  return hints !== null && hints.includes(name);
}

function hasHints(hints: readonly string[] | null): boolean {
  return hints !== null && hints.length > 0;
}

function isServingTerminating(endpoint: ProxyEndpoint): boolean {
  return endpoint.serving && endpoint.terminating;
}

/** Serving-terminating endpoints count (for Local policy) once ProxyTerminatingEndpoints exists and is on. */
function terminatingFallbackEnabled(release: ProxyRelease): boolean {
  if (release.minor < SINCE_TERMINATING_GATE) return false;
  return release.minor >= SINCE_TERMINATING_GA || release.gates.ProxyTerminatingEndpoints;
}

/** Cluster-policy fallback to serving-terminating endpoints (1.26 generation onwards). */
function clusterTerminatingFallbackEnabled(release: ProxyRelease): boolean {
  return release.minor >= SINCE_CLUSTER_TERMINATING_FALLBACK && terminatingFallbackEnabled(release);
}

interface DecisionFacts {
  minor: KubeMinor;
  nodeName: string;
  zone: string;
  hintsAnnotation: string;
  rule: HintsAnnotationRule;
}

/** What a decision is asked of: the annotation value, the node and the release (its facts follow from them). */
interface DecisionAsked {
  readonly hintsAnnotation: string;
  readonly node: ProxyNode;
  readonly release: ProxyRelease;
}

function sameZoneReasonText(reason: SameZoneFallbackReason, facts: DecisionFacts): string {
  switch (reason) {
    case 'internal-traffic-policy-local':
      return facts.minor < SINCE_CATEGORIZE
        ? 'internalTrafficPolicy is Local: kube-proxy keeps only this node’s endpoints'
        : 'internalTrafficPolicy is Local and the Service is not reachable from outside: the cluster endpoint set is never used';
    case 'external-traffic-policy-local':
      return `externalTrafficPolicy is Local: kube-proxy ${formatKubeMinor(facts.minor)} does not filter by topology for such Services`;
    case 'endpoint-slice-proxying-gate-off':
      return 'the EndpointSliceProxying feature gate is off: kube-proxy reads Endpoints, which carry no hints';
    case 'service-topology-gate-on':
      return 'the ServiceTopology feature gate is on: its topologyKeys filter takes precedence over hints';
    case 'topology-aware-hints-gate-off':
      return `the TopologyAwareHints feature gate is off in kube-proxy ${formatKubeMinor(facts.minor)}`;
    case 'annotation-not-accepted':
      return annotationRefusalText(facts);
    case 'node-missing-zone-label':
      return facts.minor < SINCE_NODE_HINTS
        ? `the node has no ${LABEL_TOPOLOGY_ZONE} label (or it is empty)`
        : `the node has no ${LABEL_TOPOLOGY_ZONE} label and no endpoint is hinted for the empty zone`;
    case 'no-endpoints':
      return 'the Service has no endpoints';
    case 'no-ready-endpoints':
      return 'no endpoint is ready, so there are no hints to follow';
    case 'endpoint-missing-zone-hint':
      return facts.minor < SINCE_READINESS_AWARE_HINTS
        ? 'an endpoint has no zone hint'
        : 'a ready endpoint has no zone hint';
    case 'no-endpoint-for-zone':
      return facts.minor < SINCE_READINESS_AWARE_HINTS
        ? `no endpoint is hinted for zone "${facts.zone}"`
        : `no ready endpoint is hinted for zone "${facts.zone}"`;
  }
}

function sameNodeReasonText(reason: SameNodeFallbackReason, facts: DecisionFacts): string {
  switch (reason) {
    case 'node-hints-not-supported':
      return `kube-proxy ${formatKubeMinor(facts.minor)} does not read node hints`;
    case 'prefer-same-traffic-distribution-gate-off':
      return 'the PreferSameTrafficDistribution feature gate is off';
    case 'endpoint-missing-node-hint':
      return 'a ready endpoint has no node hint';
    case 'no-endpoint-for-node':
      return `no ready endpoint is hinted for node "${facts.nodeName}"`;
    default:
      return sameZoneReasonText(reason, facts);
  }
}

function annotationRefusalText(facts: DecisionFacts): string {
  const got = facts.hintsAnnotation === '' ? 'it is not set' : `it is ${JSON.stringify(facts.hintsAnnotation)}`;
  const kubeProxy = `kube-proxy ${formatKubeMinor(facts.minor)}`;
  switch (facts.rule) {
    case 'lowercase-auto-only':
      return `${kubeProxy} uses hints only when the annotation is exactly "auto"; ${got}`;
    case 'auto-either-case':
      return `${kubeProxy} uses hints only when the annotation is "Auto" or "auto"; ${got}`;
    case 'any-except-disabled':
      return `${kubeProxy} uses hints only when the annotation is set to a value other than "disabled"/"Disabled"; ${got}`;
    case 'not-consulted':
      return `${kubeProxy} does not consult the annotation`;
  }
}

/**
 * Decisions made, by release, node, annotation and outcome: a traffic model asks the same few of
 * every zone's node for thousands of Services, and each one spelled its message out again. The
 * decisions are shared, so they are never changed once made.
 */
const DECISIONS = new WeakMap<ProxyRelease, WeakMap<ProxyNode, Map<string, TopologyModeDecision>>>();

function decide(
  mode: TopologyMode,
  reason: SameZoneFallbackReason | null,
  sameNodeReason: SameNodeFallbackReason | null,
  asked: DecisionAsked,
): TopologyModeDecision {
  let byNode = DECISIONS.get(asked.release);
  if (byNode === undefined) {
    byNode = new WeakMap();
    DECISIONS.set(asked.release, byNode);
  }
  let made = byNode.get(asked.node);
  if (made === undefined) {
    made = new Map();
    byNode.set(asked.node, made);
  }
  const key = `${mode}\u0000${reason ?? ''}\u0000${sameNodeReason ?? ''}\u0000${asked.hintsAnnotation}`;
  let decision = made.get(key);
  if (decision === undefined) {
    if (made.size >= DECISIONS_PER_NODE) made.clear();
    decision = Object.freeze(newDecision(mode, reason, sameNodeReason, factsFor(asked)));
    made.set(key, decision);
  }
  return decision;
}

/** Decisions {@link DECISIONS} keeps per release and node before it starts over (annotation values are free text). */
const DECISIONS_PER_NODE = 256;

function newDecision(
  mode: TopologyMode,
  reason: SameZoneFallbackReason | null,
  sameNodeReason: SameNodeFallbackReason | null,
  facts: DecisionFacts,
): TopologyModeDecision {
  let message: string;
  if (mode === 'PreferSameNode') {
    // The message names what kube-proxy does, not its internal mode name: "PreferSameZone" is also a
    // trafficDistribution value, and a topology-mode Service on 1.31 never asked for it.
    message = `Same node: kube-proxy uses the endpoints hinted for node "${facts.nodeName}"`;
  } else if (mode === 'PreferSameZone') {
    message = `Same zone: kube-proxy uses the endpoints hinted for zone "${facts.zone}"`;
    if (sameNodeReason !== null && sameNodeReason !== 'node-hints-not-supported' && sameNodeReason !== 'prefer-same-traffic-distribution-gate-off') {
      message += ` (same-node hints not used: ${sameNodeReasonText(sameNodeReason, facts)})`;
    }
  } else {
    message = `No topology: every ready endpoint is used because ${reason === null ? 'no hints apply' : sameZoneReasonText(reason, facts)}`;
  }
  return { mode, nodeName: facts.nodeName, zone: facts.zone, reason, sameNodeReason, message };
}

/**
 * Falls back to 'none'. Before 1.33 node hints do not exist; from 1.33 only the shared reasons
 * (traffic policy, no endpoints) can stop the decision early, and they stop both modes.
 */
function fallBack(reason: SameZoneFallbackReason, asked: DecisionAsked): TopologyModeDecision {
  const sameNodeReason: SameNodeFallbackReason =
    asked.release.minor >= SINCE_NODE_HINTS && isCommonReason(reason) ? reason : 'node-hints-not-supported';
  return decide('none', reason, sameNodeReason, asked);
}

const COMMON_REASONS: ReadonlySet<string> = new Set<CommonTopologyFallbackReason>([
  'internal-traffic-policy-local',
  'external-traffic-policy-local',
  'endpoint-slice-proxying-gate-off',
  'service-topology-gate-on',
  'no-endpoints',
  'no-ready-endpoints',
]);

function isCommonReason(reason: TopologyFallbackReason): reason is CommonTopologyFallbackReason {
  return COMMON_REASONS.has(reason);
}

function factsFor({ hintsAnnotation, node, release }: DecisionAsked): DecisionFacts {
  return {
    minor: release.minor,
    nodeName: node.name,
    zone: nodeZone(node),
    hintsAnnotation,
    rule: hintsAnnotationRule(release),
  };
}

/**
 * The hint-driven part of kube-proxy's topology decision: annotation check, node zone label, and
 * the endpoint hints. Traffic policies and the TopologyAwareHints gate are checked by
 * {@link topologyModeForService}; the 1.21–1.23 `filterEndpointsWithHints` is exactly this check.
 *
 * Steps (first failing one wins):
 * 1. ≤ 1.32: the annotation must be accepted ({@link isHintsAnnotationAccepted}).
 * 2. ≤ 1.32: the node must have a non-empty zone label.
 * 3. Endpoints examined: every endpoint in 1.21–1.22, ready ones from 1.23. None → `'none'`.
 * 4. 1.33+ with PreferSameTrafficDistribution: every examined endpoint has a node hint and one
 *    names this node → PreferSameNode.
 * 5. Every examined endpoint has a zone hint and one names this node's zone → PreferSameZone
 *    (1.33+: a node without zone label matches endpoints hinted for `""`).
 *
 * @see https://github.com/kubernetes/kubernetes/blob/master/pkg/proxy/topology.go
 */
export function topologyModeFromHints(
  endpoints: readonly ProxyEndpoint[],
  hintsAnnotation: string,
  node: ProxyNode,
  release: ProxyRelease,
): TopologyModeDecision {
  const asked: DecisionAsked = { hintsAnnotation, node, release };
  const { minor } = release;

  // 1. Annotation (not consulted from 1.33, nor in 1.30–1.32 with ServiceTrafficDistribution on).
  if (!isHintsAnnotationAccepted(hintsAnnotation, release)) return fallBack('annotation-not-accepted', asked);

  // 2. Zone label required before 1.33.
  const zone = nodeZone(node);
  if (minor < SINCE_NODE_HINTS && zone === '') return fallBack('node-missing-zone-label', asked);

  // 3. Scan the endpoints that count for this generation (ready ones from 1.23; walked in place).
  if (endpoints.length === 0) return fallBack('no-endpoints', asked);
  const readyOnly = minor >= SINCE_READINESS_AWARE_HINTS;
  let examined = 0;
  let allHaveNodeHints = true;
  let hasEndpointForNode = false;
  let allHaveZoneHints = true;
  let hasEndpointForZone = false;
  for (const ep of endpoints) {
    if (readyOnly && !ep.ready) continue;
    examined++;
    if (!hasHints(ep.nodeHints)) allHaveNodeHints = false;
    else if (hintsInclude(ep.nodeHints, node.name)) hasEndpointForNode = true;
    if (!hasHints(ep.zoneHints)) allHaveZoneHints = false;
    else if (hintsInclude(ep.zoneHints, zone)) hasEndpointForZone = true;
  }
  if (examined === 0) return fallBack('no-ready-endpoints', asked);

  // 4. Same node (1.33+, behind PreferSameTrafficDistribution).
  let sameNodeReason: SameNodeFallbackReason;
  if (minor < SINCE_NODE_HINTS) sameNodeReason = 'node-hints-not-supported';
  else if (!release.gates.PreferSameTrafficDistribution) sameNodeReason = 'prefer-same-traffic-distribution-gate-off';
  else if (!allHaveNodeHints) sameNodeReason = 'endpoint-missing-node-hint';
  else if (!hasEndpointForNode) sameNodeReason = 'no-endpoint-for-node';
  else return decide('PreferSameNode', null, null, asked);

  // 5. Same zone.
  let reason: SameZoneFallbackReason;
  if (!allHaveZoneHints) reason = 'endpoint-missing-zone-hint';
  else if (!hasEndpointForZone) reason = zone === '' ? 'node-missing-zone-label' : 'no-endpoint-for-zone';
  else return decide('PreferSameZone', null, sameNodeReason, asked);
  return decide('none', reason, sameNodeReason, asked);
}

/**
 * The topology mode kube-proxy applies to a Service's cluster endpoint set on one node, and why
 * it fell back when it is not the narrowest one. This is the decision {@link categorizeEndpoints}
 * uses; the dashboard shows its typed reasons.
 *
 * Steps (first failing one wins):
 * 1. Traffic policy. 1.21–1.23 (`FilterEndpoints` order): externalTrafficPolicy Local on an
 *    externally accessible Service → no filtering; 1.21 only: EndpointSliceProxying off → none,
 *    ServiceTopology on → its filter instead; internalTrafficPolicy Local → only local endpoints.
 *    1.24+: a Service that never uses the cluster set → none.
 * 2. ≤ 1.32: the TopologyAwareHints gate must be on.
 * 3. {@link topologyModeFromHints}.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/master/pkg/proxy/topology.go
 */
export function topologyModeForService(
  endpoints: readonly ProxyEndpoint[],
  svcInfo: ProxyServicePort,
  node: ProxyNode,
  release: ProxyRelease,
): TopologyModeDecision {
  const asked: DecisionAsked = { hintsAnnotation: svcInfo.hintsAnnotation, node, release };
  const { minor } = release;

  // 1. Traffic policies (and the 1.21-only gates).
  if (minor < SINCE_CATEGORIZE) {
    const legacyGates = { ...DEFAULT_LEGACY_PROXY_FEATURE_GATES, ...definedOnly(release.legacyGates) };
    if (externalPolicyLocal(svcInfo)) return fallBack('external-traffic-policy-local', asked);
    if (minor < 22 && !legacyGates.EndpointSliceProxying) return fallBack('endpoint-slice-proxying-gate-off', asked);
    if (minor < 22 && legacyGates.ServiceTopology) return fallBack('service-topology-gate-on', asked);
    if (internalPolicyLocal(svcInfo, release)) return fallBack('internal-traffic-policy-local', asked);
  } else if (!usesClusterEndpoints(svcInfo, release)) {
    return fallBack('internal-traffic-policy-local', asked);
  }

  // 2. TopologyAwareHints gate (GA and no longer checked from 1.33).
  if (minor < SINCE_NODE_HINTS && !release.gates.TopologyAwareHints) return fallBack('topology-aware-hints-gate-off', asked);

  // 3. Annotation, zone label and hints.
  return topologyModeFromHints(endpoints, svcInfo.hintsAnnotation, node, release);
}

function definedOnly(gates: Partial<LegacyProxyFeatureGates> | undefined): Partial<LegacyProxyFeatureGates> {
  const out: Partial<LegacyProxyFeatureGates> = {};
  if (typeof gates?.EndpointSliceProxying === 'boolean') out.EndpointSliceProxying = gates.EndpointSliceProxying;
  if (typeof gates?.ServiceTopology === 'boolean') out.ServiceTopology = gates.ServiceTopology;
  return out;
}

/**
 * Whether an endpoint may serve this node under `mode`. There is no fallback here: falling back
 * happens when the mode is chosen. Multiple hints per endpoint are allowed; any match counts.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/master/pkg/proxy/topology.go
 */
export function availableForTopology(endpoint: ProxyEndpoint, mode: TopologyMode, nodeName: string, zone: string): boolean {
  switch (mode) {
    case 'none':
      return true;
    case 'PreferSameNode':
      return hintsInclude(endpoint.nodeHints, nodeName);
    case 'PreferSameZone':
      return hintsInclude(endpoint.zoneHints, zone);
  }
}

/** Union by endpoint string, keeping first-seen order; a later (local) copy replaces an earlier one. */
function mergeByEndpoint<E extends ProxyEndpoint>(first: readonly E[], second: readonly E[]): E[] {
  const byEndpoint = new Map<string, E>();
  for (const ep of first) byEndpoint.set(ep.endpoint, ep);
  for (const ep of second) byEndpoint.set(ep.endpoint, ep);
  return [...byEndpoint.values()];
}

/**
 * kube-proxy's `CategorizeEndpoints`: the endpoints one node uses for a Service port.
 *
 * Steps:
 * 1. (1.35+) no endpoints at all → every list `null`, `hasAnyEndpoints` false.
 * 2. If the Service uses the cluster set: choose the topology mode
 *    ({@link topologyModeForService}); cluster = ready endpoints available for that mode; if
 *    empty, fall back to serving-terminating endpoints ignoring topology (1.26+, with
 *    ProxyTerminatingEndpoints; locked on from 1.28). `hasAnyEndpoints` = cluster non-empty.
 * 3. If it never uses the Local policy: reachable = cluster, local = `null`.
 * 4. Scan: ready endpoints (and serving-terminating ones where the gate allows) set
 *    `hasAnyEndpoints`; local = local ready endpoints, else local serving-terminating ones, else `[]`.
 * 5. Reachable = local if the cluster set is unused; = cluster when no topology and no
 *    terminating fallback (cluster is then a superset); otherwise the union by endpoint string.
 *
 * Releases 1.21–1.23 are projected onto this shape: the cluster set is the ready part of what
 * their `FilterEndpoints` returns (see `proxy-legacy.ts`), so the readiness-blind 1.21–1.22 hint
 * check can leave it empty, and `internalTrafficPolicy: Local` restricts it to local endpoints;
 * there is no cluster-wide terminating fallback.
 *
 * The input is not modified; returned lists hold the input endpoint objects.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/master/pkg/proxy/topology.go
 */
export function categorizeEndpoints<E extends ProxyEndpoint>(
  endpoints: readonly E[],
  svcInfo: ProxyServicePort,
  node: ProxyNode,
  release: ProxyRelease,
): CategorizedEndpoints<E> {
  return categorizeEndpointsWithDecision(endpoints, svcInfo, node, release).categorized;
}

/**
 * {@link categorizeEndpoints} together with the {@link topologyModeForService} decision it made for
 * the cluster set (`null` when it made none: the Service never uses the cluster set, or 1.35+ with
 * no endpoints), so callers that show the decision need not compute it twice.
 */
export function categorizeEndpointsWithDecision<E extends ProxyEndpoint>(
  endpoints: readonly E[],
  svcInfo: ProxyServicePort,
  node: ProxyNode,
  release: ProxyRelease,
): { readonly categorized: CategorizedEndpoints<E>; readonly decision: TopologyModeDecision | null } {
  const { minor } = release;
  let decision: TopologyModeDecision | null = null;

  // 1. Nothing to categorize (newest source only).
  if (minor >= SINCE_EMPTY_LIST_EARLY_RETURN && endpoints.length === 0) {
    return { categorized: { clusterEndpoints: null, localEndpoints: null, allReachableEndpoints: null, hasAnyEndpoints: false }, decision };
  }

  const usesCluster = usesClusterEndpoints(svcInfo, release);
  const usesLocal = usesLocalEndpoints(svcInfo, release);
  const terminatingCounts = terminatingFallbackEnabled(release);
  let clusterEndpoints: E[] | null = null;
  let hasAnyEndpoints = false;
  let topologyApplied = false;

  // 2. Cluster set.
  if (usesCluster) {
    const chosen = topologyModeForService(endpoints, svcInfo, node, release);
    decision = chosen;
    const legacyLocalOnly = minor < SINCE_CATEGORIZE && chosen.reason === 'internal-traffic-policy-local';
    topologyApplied = chosen.mode !== 'none' || legacyLocalOnly;
    clusterEndpoints = endpoints.filter(
      (ep) => ep.ready && (legacyLocalOnly ? ep.isLocal : availableForTopology(ep, chosen.mode, chosen.nodeName, chosen.zone)),
    );
    if (clusterEndpoints.length === 0 && clusterTerminatingFallbackEnabled(release)) {
      clusterEndpoints = endpoints.filter(isServingTerminating);
    }
    hasAnyEndpoints = clusterEndpoints.length > 0;
  }

  // 3. Local policy never used.
  if (!usesLocal) {
    return { categorized: { clusterEndpoints, localEndpoints: null, allReachableEndpoints: clusterEndpoints, hasAnyEndpoints }, decision };
  }

  // 4. Scan for the kind of local endpoints to use and for usable endpoints anywhere.
  let hasLocalReady = false;
  let hasLocalServingTerminating = false;
  for (const ep of endpoints) {
    if (ep.ready) {
      hasAnyEndpoints = true;
      if (ep.isLocal) hasLocalReady = true;
    } else if (terminatingCounts && isServingTerminating(ep)) {
      hasAnyEndpoints = true;
      if (ep.isLocal) hasLocalServingTerminating = true;
    }
  }
  let localEndpoints: E[] = [];
  let usesServingTerminating = false;
  if (hasLocalReady) {
    localEndpoints = endpoints.filter((ep) => ep.isLocal && ep.ready);
  } else if (hasLocalServingTerminating) {
    usesServingTerminating = true;
    localEndpoints = endpoints.filter((ep) => ep.isLocal && isServingTerminating(ep));
  }

  // 5. Everything reachable from this node.
  if (clusterEndpoints === null) {
    return { categorized: { clusterEndpoints, localEndpoints, allReachableEndpoints: localEndpoints, hasAnyEndpoints }, decision };
  }
  if (!topologyApplied && !usesServingTerminating && minor >= SINCE_CATEGORIZE) {
    // No topology: the cluster set holds every ready endpoint, a superset of the local ready ones.
    return { categorized: { clusterEndpoints, localEndpoints, allReachableEndpoints: clusterEndpoints, hasAnyEndpoints }, decision };
  }
  return { categorized: { clusterEndpoints, localEndpoints, allReachableEndpoints: mergeByEndpoint(clusterEndpoints, localEndpoints), hasAnyEndpoints }, decision };
}
