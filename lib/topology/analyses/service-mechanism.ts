/**
 * Which mechanism sets a Service's hints (the topology annotation — current or legacy key —,
 * `spec.trafficDistribution`, or none), and policy lints: settings that override hints, contradict
 * each other, or do nothing on the modelled release.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/master/staging/src/k8s.io/endpointslice/reconciler.go
 * @see https://kubernetes.io/docs/concepts/services-networking/topology-aware-routing/
 * @see https://kubernetes.io/docs/reference/networking/virtual-ips/#traffic-distribution
 */
import type { DataplaneAnalysis } from './analyze-dataplane';
import { topologyAnnotationFor } from './analyze-dataplane';
import { effectiveTopologyAnnotation, hintsEnabled } from '../upstream/annotations';
import type { ClusterContext } from '../model/cluster-context';
import type { ServiceRecord } from '../model/cluster-model';
import type { ProxyServicePort } from '../upstream/proxy-service-port';
import { effectiveHintsAnnotation } from '../upstream/proxy-service-port';
import {
  ANNOTATION_TOPOLOGY_MODE,
  DEPRECATED_ANNOTATION_TOPOLOGY_AWARE_HINTS,
  TRAFFIC_DISTRIBUTION_PREFER_CLOSE,
  TRAFFIC_DISTRIBUTION_PREFER_SAME_NODE,
  TRAFFIC_DISTRIBUTION_PREFER_SAME_ZONE,
} from '../upstream/constants';
import { canUseTrafficDistribution } from '../upstream/reconciler';
import type { TrafficDistributionHeuristic } from '../upstream/traffic-distribution';
import { trafficDistributionHeuristic } from '../upstream/traffic-distribution';
import type { FeatureGates, KubeMinor } from '../upstream/version';
import { formatKubeMinor } from '../upstream/version';

/** The mechanism that decides a Service's hints. */
export type ServiceMechanism = 'topology-mode' | 'legacy-annotation' | 'trafficDistribution' | 'none';

/** Result of {@link determineMechanism}. */
export interface MechanismAnalysis {
  readonly mechanism: ServiceMechanism;
  /** The annotation key that counts on this release (`null` when none is set). */
  readonly annotationKey: string | null;
  readonly annotationValue: string | null;
  /** The controller runs the `Auto` heuristic for this value (`Auto`/`auto`, cache present). */
  readonly annotationActive: boolean;
  /** Both keys are set and the deprecated one shadows `topology-mode`. */
  readonly shadowsTopologyMode: boolean;
  readonly trafficDistribution: string | null;
  /** The trafficdist heuristic when the field is in effect, else `null`. */
  readonly trafficDistributionHeuristic: TrafficDistributionHeuristic | null;
  readonly explanation: string;
}

/**
 * The mechanism in effect for a Service at release `minor` (topology-semantics §3): the `Auto`
 * annotation wins when the topology cache exists; otherwise `trafficDistribution` when the
 * reconciler hands the Service to the trafficdist step with a zone- or node-preferring value;
 * otherwise none.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/master/staging/src/k8s.io/endpointslice/reconciler.go (reconcileByAddressType)
 */
export function determineMechanism(service: ServiceRecord, minor: KubeMinor, gates: FeatureGates, topologyCacheEnabled: boolean): MechanismAnalysis {
  const effective = effectiveTopologyAnnotation(service.annotations, minor);
  const annotationOn = hintsEnabled(service.annotations, minor);
  const annotationActive = annotationOn && topologyCacheEnabled;
  const base = {
    annotationKey: effective?.key ?? null,
    annotationValue: effective?.value ?? null,
    annotationActive,
    shadowsTopologyMode: effective?.shadowsTopologyMode ?? false,
    trafficDistribution: service.trafficDistribution,
  };
  if (annotationActive && effective) {
    const mechanism: ServiceMechanism = effective.key === ANNOTATION_TOPOLOGY_MODE ? 'topology-mode' : 'legacy-annotation';
    return {
      ...base,
      mechanism,
      trafficDistributionHeuristic: null,
      explanation: `${effective.key}: ${effective.value} — the controller hints endpoints in proportion to zone CPU (Auto heuristic).`,
    };
  }
  const spec = { key: `${service.namespace}/${service.name}`, annotations: service.annotations, trafficDistribution: service.trafficDistribution };
  if (canUseTrafficDistribution(spec, minor, gates)) {
    const heuristic = trafficDistributionHeuristic(service.trafficDistribution, minor);
    if (heuristic !== 'default') {
      return {
        ...base,
        mechanism: 'trafficDistribution',
        trafficDistributionHeuristic: heuristic,
        explanation:
          heuristic === 'preferSameNode'
            ? `trafficDistribution: ${service.trafficDistribution} — every ready endpoint is hinted for its own node and zone.`
            : `trafficDistribution: ${service.trafficDistribution} — every ready endpoint is hinted for its own zone (no CPU proportions, no minimums).`,
      };
    }
  }
  return { ...base, mechanism: 'none', trafficDistributionHeuristic: null, explanation: 'No mechanism sets hints: kube-proxy spreads traffic over all ready endpoints.' };
}

/** Identifier of a policy lint. */
export type ServiceLintId =
  | 'internal-traffic-policy-local'
  | 'external-traffic-policy-local'
  | 'legacy-key-overrides-topology-mode'
  | 'legacy-key-deprecated'
  | 'topology-mode-key-unsupported'
  | 'topology-mode-overrides-traffic-distribution'
  | 'annotation-value-ignored'
  | 'topology-aware-hints-gate-off'
  | 'traffic-distribution-unsupported'
  | 'traffic-distribution-ignored'
  | 'no-selector'
  | 'slices-not-managed-by-controller'
  | 'headless'
  | 'external-name'
  | 'dataplane-ignores-hints'
  | 'few-endpoints-per-zone'
  | 'too-many-zones';

/**
 * Zones beyond which the search for the fewest endpoints to add or remove (`fixes.ts`) is not run:
 * each candidate count costs O(zones²), so 10,000 zones would take minutes and 100,000 never
 * answer. A region has a handful of zones; a cluster with more is usually mislabelled.
 */
export const MAX_SEARCH_ZONES = 64;

/** Why the endpoint-count search is skipped for this many zones, `null` when it runs. */
export function endpointSearchSkipped(zoneCount: number): string | null {
  return zoneCount > MAX_SEARCH_ZONES
    ? `The cluster has ${zoneCount} zones with CPU, more than the ${MAX_SEARCH_ZONES} zonescope searches: no "add or remove endpoints" fix is computed, and traffic figures lump other zones into one "(other zones)" column. So many zones usually means a wrong topology.kubernetes.io/zone label.`
    : null;
}

/** A policy lint on a Service. */
export interface ServiceLint {
  readonly id: ServiceLintId;
  readonly severity: 'error' | 'warning' | 'info';
  readonly message: string;
  /** A command that resolves it, when there is a single obvious one. */
  readonly fix: string | null;
}

/** Extra facts the lints need beyond the Service itself. */
export interface LintContext {
  readonly minor: KubeMinor;
  readonly gates: FeatureGates;
  readonly topologyCacheEnabled: boolean;
  readonly dataplane: Pick<DataplaneAnalysis, 'honoursHints' | 'honoursHintsReason'>;
  /** Ready endpoints (controller view) across the Service's slices. */
  readonly readyEndpoints: number;
  /** Zones with CPU ratios (0 when the cluster has none). */
  readonly zoneCount: number;
  /** Some of the Service's slices are managed by something other than the EndpointSlice controller. */
  readonly hasForeignSlices: boolean;
}

/** Whether the Service is reachable from outside through a NodePort, a load balancer or external IPs. */
export function isExternallyAccessible(service: ServiceRecord): boolean {
  return service.ports.some((port) => (port.nodePort ?? 0) !== 0) || service.loadBalancerIngress.length > 0 || service.externalIPs.length > 0 || service.type === 'LoadBalancer' || service.type === 'NodePort';
}

/**
 * The Service as kube-proxy's endpoint selection reads it, with `annotations` in place of its own
 * (its own, or those a topology-mode edit would leave): traffic policies, external reachability
 * and the hints annotation in effect on the context's release.
 */
export function proxyServicePort(service: ServiceRecord, annotations: Readonly<Record<string, string>>, context: ClusterContext): ProxyServicePort {
  return {
    internalTrafficPolicy: service.internalTrafficPolicy ?? 'Cluster',
    externalTrafficPolicy: service.externalTrafficPolicy ?? 'Cluster',
    externallyAccessible: isExternallyAccessible(service),
    hintsAnnotation: effectiveHintsAnnotation(annotations, context.release.minor),
  };
}

function hasAnnotation(service: ServiceRecord, key: string): boolean {
  return Object.prototype.hasOwnProperty.call(service.annotations, key);
}

function annotateCommand(service: ServiceRecord, key: string, value: string | null): string {
  const target = `kubectl annotate service ${service.name} -n ${service.namespace}`;
  return value === null ? `${target} ${key}-` : `${target} ${key}=${value} --overwrite`;
}

/**
 * Policy lints for one Service at release `minor`. Each lint names a setting that overrides hints
 * (traffic policies `Local`), contradicts another (legacy key over `topology-mode`, annotation over
 * `trafficDistribution`), does nothing on this release (values other than `Auto`/`auto`, unknown or
 * unsupported `trafficDistribution`, the `topology-mode` key before 1.27, a gate that is off), or
 * makes hints moot (no selector, headless, a dataplane that ignores hints).
 *
 * @see https://kubernetes.io/docs/concepts/services-networking/topology-aware-routing/
 */
export function lintService(service: ServiceRecord, mechanism: MechanismAnalysis, ctx: LintContext): ServiceLint[] {
  const lints: ServiceLint[] = [];
  const { minor } = ctx;
  const r = formatKubeMinor(minor);
  const wantsHints = mechanism.mechanism !== 'none' || (mechanism.annotationValue !== null && /auto/i.test(mechanism.annotationValue)) || service.trafficDistribution !== null;
  const preferred = topologyAnnotationFor(minor);

  // 1. What kind of Service it is.
  if (service.type === 'ExternalName') {
    lints.push({ id: 'external-name', severity: wantsHints ? 'warning' : 'info', message: 'ExternalName Services have no endpoints; topology settings do nothing.', fix: null });
    return lints;
  }
  if (service.selector === null && wantsHints) {
    lints.push({
      id: 'no-selector',
      severity: 'warning',
      message: "The Service has no selector, so the EndpointSlice controller does not manage its slices: the annotation and trafficDistribution do nothing here; hints come only from whoever writes the slices.",
      fix: null,
    });
  }
  if (ctx.hasForeignSlices) {
    lints.push({ id: 'slices-not-managed-by-controller', severity: 'info', message: 'Some EndpointSlices of this Service are managed by another controller; their hints are whatever that controller writes.', fix: null });
  }
  if (service.clusterIP === 'None' && wantsHints) {
    lints.push({ id: 'headless', severity: 'warning', message: 'Headless Service: kube-proxy does not proxy it; clients get pod IPs from DNS, so hints have no effect.', fix: null });
  }

  // 2. Traffic policies.
  const active = mechanism.mechanism !== 'none';
  if (service.internalTrafficPolicy === 'Local') {
    lints.push({
      id: 'internal-traffic-policy-local',
      severity: active ? 'error' : 'warning',
      message:
        'internalTrafficPolicy: Local overrides hints: in-cluster traffic goes only to endpoints on the client\'s own node, and is dropped on nodes without one.' +
        (active ? ' The hints this Service gets are never used.' : ''),
      fix: null,
    });
  }
  if (service.externalTrafficPolicy === 'Local' && isExternallyAccessible(service)) {
    lints.push({
      id: 'external-traffic-policy-local',
      severity: active ? 'warning' : 'info',
      message:
        'externalTrafficPolicy: Local: traffic from the load balancer or a NodePort goes only to endpoints on the receiving node (no extra hop, client source IP kept); hints do not apply to it, ' +
        'and nodes without a local endpoint fail the health check and drop such traffic until the load balancer stops sending to them. In-cluster traffic still follows hints.',
      fix: null,
    });
  }

  // 3. Annotation keys and values.
  if (minor < 27 && hasAnnotation(service, ANNOTATION_TOPOLOGY_MODE)) {
    lints.push({
      id: 'topology-mode-key-unsupported',
      severity: /^auto$/i.test(service.annotations[ANNOTATION_TOPOLOGY_MODE] ?? '') ? 'error' : 'warning',
      message: `${ANNOTATION_TOPOLOGY_MODE} is only read from 1.27; on ${r} use ${DEPRECATED_ANNOTATION_TOPOLOGY_AWARE_HINTS}: auto.`,
      fix: annotateCommand(service, DEPRECATED_ANNOTATION_TOPOLOGY_AWARE_HINTS, 'auto'),
    });
  }
  if (mechanism.shadowsTopologyMode) {
    const legacy = service.annotations[DEPRECATED_ANNOTATION_TOPOLOGY_AWARE_HINTS] ?? '';
    const current = service.annotations[ANNOTATION_TOPOLOGY_MODE] ?? '';
    const differs = hintsEnabled({ [ANNOTATION_TOPOLOGY_MODE]: current }, minor) !== hintsEnabled({ [DEPRECATED_ANNOTATION_TOPOLOGY_AWARE_HINTS]: legacy }, minor);
    lints.push({
      id: 'legacy-key-overrides-topology-mode',
      severity: differs ? 'error' : 'warning',
      message: `${DEPRECATED_ANNOTATION_TOPOLOGY_AWARE_HINTS}: "${legacy}" is present and wins over ${ANNOTATION_TOPOLOGY_MODE}: "${current}"${differs ? ', so topology-mode has no effect' : ''}. Remove the deprecated key.`,
      fix: annotateCommand(service, DEPRECATED_ANNOTATION_TOPOLOGY_AWARE_HINTS, null),
    });
  } else if (minor >= 27 && hasAnnotation(service, DEPRECATED_ANNOTATION_TOPOLOGY_AWARE_HINTS)) {
    lints.push({
      id: 'legacy-key-deprecated',
      severity: 'info',
      message: `${DEPRECATED_ANNOTATION_TOPOLOGY_AWARE_HINTS} is deprecated since 1.27; use ${ANNOTATION_TOPOLOGY_MODE}.`,
      fix: null,
    });
  }
  const value = mechanism.annotationValue;
  if (value !== null && value !== 'Auto' && value !== 'auto' && value !== 'Disabled' && value !== 'disabled' && value !== '') {
    const nearAuto = value.trim().toLowerCase() === 'auto';
    const proxyAccepts = (minor >= 27 && minor < 30) || (minor >= 30 && minor < 33 && !ctx.gates.ServiceTrafficDistribution);
    lints.push({
      id: 'annotation-value-ignored',
      severity: 'error',
      message:
        `${mechanism.annotationKey}: "${value}" does nothing: the EndpointSlice controller only acts on "Auto" (or "auto")` +
        (nearAuto ? ' — check case and whitespace.' : '.') +
        (proxyAccepts ? ` kube-proxy ${r} would accept this value, but no hints will be written for it to use.` : ''),
      fix: annotateCommand(service, mechanism.annotationKey ?? preferred.key, preferred.value),
    });
  } else if (minor <= 21 && value === 'Auto') {
    lints.push({ id: 'annotation-value-ignored', severity: 'error', message: '1.21 accepts only the lowercase value "auto".', fix: annotateCommand(service, DEPRECATED_ANNOTATION_TOPOLOGY_AWARE_HINTS, 'auto') });
  }
  if (hintsEnabled(service.annotations, minor) && !ctx.topologyCacheEnabled) {
    lints.push({
      id: 'topology-aware-hints-gate-off',
      severity: 'error',
      message: `The TopologyAwareHints feature gate is off on ${r} (on by default from 1.24), so the annotation does nothing. Enable it on kube-apiserver, kube-controller-manager and kube-proxy.`,
      fix: '--feature-gates=TopologyAwareHints=true',
    });
  }

  // 4. trafficDistribution.
  const td = service.trafficDistribution;
  if (td !== null) {
    const known = td === TRAFFIC_DISTRIBUTION_PREFER_CLOSE || td === TRAFFIC_DISTRIBUTION_PREFER_SAME_ZONE || td === TRAFFIC_DISTRIBUTION_PREFER_SAME_NODE;
    if (minor < 30) {
      lints.push({ id: 'traffic-distribution-unsupported', severity: 'error', message: `spec.trafficDistribution does not exist before 1.30; ${r} ignores it.`, fix: null });
    } else if (minor < 33 && !ctx.gates.ServiceTrafficDistribution) {
      lints.push({ id: 'traffic-distribution-unsupported', severity: 'error', message: `The ServiceTrafficDistribution gate is off on ${r} (on by default from 1.31), so spec.trafficDistribution is ignored.`, fix: null });
    } else if (!known || (td !== TRAFFIC_DISTRIBUTION_PREFER_CLOSE && minor < 33)) {
      lints.push({ id: 'traffic-distribution-ignored', severity: 'error', message: `trafficDistribution "${td}" is not a value ${r} knows; it sets no hints.`, fix: null });
    } else if (td !== TRAFFIC_DISTRIBUTION_PREFER_CLOSE && !ctx.gates.PreferSameTrafficDistribution) {
      lints.push({ id: 'traffic-distribution-ignored', severity: 'error', message: `trafficDistribution "${td}" needs the PreferSameTrafficDistribution gate (on by default from 1.34); it sets no hints on ${r}.`, fix: null });
    }
    if (mechanism.annotationActive) {
      lints.push({
        id: 'topology-mode-overrides-traffic-distribution',
        severity: 'warning',
        message: `The ${mechanism.annotationKey}: ${mechanism.annotationValue} annotation wins over trafficDistribution "${td}": the controller uses the CPU-proportional Auto heuristic, not same-zone hints.`,
        fix: annotateCommand(service, mechanism.annotationKey ?? preferred.key, null),
      });
    }
  }

  // 5. Dataplane and sizing.
  if (active && !ctx.dataplane.honoursHints) {
    lints.push({ id: 'dataplane-ignores-hints', severity: 'error', message: `Hints are set but not used: ${ctx.dataplane.honoursHintsReason}`, fix: null });
  }
  const skipped = endpointSearchSkipped(ctx.zoneCount);
  if (skipped !== null && wantsHints) lints.push({ id: 'too-many-zones', severity: 'info', message: skipped, fix: null });
  if (active && ctx.zoneCount > 0 && ctx.readyEndpoints < 3 * ctx.zoneCount) {
    lints.push({
      id: 'few-endpoints-per-zone',
      severity: 'info',
      message: `${ctx.readyEndpoints} ready endpoints over ${ctx.zoneCount} zones: Topology Aware Routing works best with at least 3 endpoints per zone.`,
      fix: null,
    });
  }
  return lints;
}

/** The annotation edit that enables or disables topology hints on a release. */
export interface TopologyAnnotationChange {
  /** Annotations to set: one key to enable, none to disable. */
  readonly set: Readonly<Record<string, string>>;
  /** Annotations to remove: a leftover deprecated key on 1.27+ when enabling; every topology key present when disabling. */
  readonly remove: readonly string[];
  /** The Service's annotations after the change. */
  readonly annotations: Readonly<Record<string, string>>;
}

/**
 * The version-aware annotation edit for the topology-mode toggle.
 *
 * Enable: on 1.27+ `topology-mode: Auto` and removal of a leftover deprecated key (kube-proxy
 * reads the deprecated key first, so it would otherwise win); before 1.27 `topology-aware-hints: auto`.
 *
 * Disable: removal of every topology annotation the Service carries, nothing set. Upstream's
 * `hintsEnabled` is false for an absent key and kube-proxy treats an empty value as off, so
 * absence already means off: writing `Disabled` would add a key nobody declared (a new diff for
 * a GitOps tool) where removing the one that was added restores the Service as it was. A Service
 * that carries none is off already and the edit is empty.
 *
 * @see https://kubernetes.io/docs/concepts/services-networking/topology-aware-routing/#enabling-topology-aware-routing
 */
export function topologyAnnotationChange(annotations: Readonly<Record<string, string>>, minor: KubeMinor, enable: boolean): TopologyAnnotationChange {
  const has = (key: string) => Object.prototype.hasOwnProperty.call(annotations, key);
  if (!enable) {
    const remove = [ANNOTATION_TOPOLOGY_MODE, DEPRECATED_ANNOTATION_TOPOLOGY_AWARE_HINTS].filter(has);
    const after: Record<string, string> = Object.fromEntries(Object.entries(annotations).filter(([key]) => !remove.includes(key)));
    return { set: {}, remove, annotations: after };
  }
  const preferred = topologyAnnotationFor(minor);
  const set = { [preferred.key]: preferred.value };
  const remove = minor >= 27 && has(DEPRECATED_ANNOTATION_TOPOLOGY_AWARE_HINTS) ? [DEPRECATED_ANNOTATION_TOPOLOGY_AWARE_HINTS] : [];
  // Built for every Service of a pass (the toggle's edit): one copy, unless a key is to go (rare).
  const merged: Record<string, string> = { ...annotations, ...set };
  const after = remove.length === 0 ? merged : Object.fromEntries(Object.entries(merged).filter(([key]) => !remove.includes(key)));
  return { set, remove, annotations: after };
}
