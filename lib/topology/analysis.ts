/**
 * The analyses of a whole cluster and of single Services, as plain JSON-able data. This is what
 * `npm run analyze -- --format json` prints and what the dashboard's `lib/data` composes views
 * from; the field names are documented in `docs/analyze-schema.md`.
 *
 * Per-cluster work (SetNodes, CPU ratios, client nodes, dataplane, zone analysis) is done once
 * per {@link prepareAnalysis}; each Service then costs roughly its own endpoints (pods are looked
 * up per namespace, never scanned cluster-wide).
 */
import type { DataplaneAnalysis } from './analyze-dataplane';
import { analyzeDataplane } from './analyze-dataplane';
import type { AddressTypeAnalysis, EndpointView, ExpectedHints, HintsDiff, IfAutoPrediction, MinimumTable, ObservedHints, ServiceHintSlices } from './analyze-service';
import { analyzeServiceHints } from './analyze-service';
import type { NodeFix, NodeReport, ZoneAnalysis, ZoneReport } from './analyze-zones';
import { analyzeZones } from './analyze-zones';
import type { AnalysisOptions, ClusterContext, ReleaseInfo } from './cluster-context';
import { buildClusterContext, serviceKey } from './cluster-context';
import type { ClusterIndex, EventRecord, ProxyMode, ServiceRecord } from './cluster-model';
import type { Fix } from './fixes';
import { findFixes } from './fixes';
import type { HpaAnalysis } from './hpa';
import { analyzeHpa, findServiceWorkload } from './hpa';
import type { LoadBalancerAnalysis } from './load-balancer';
import { analyzeLoadBalancer } from './load-balancer';
import type { ProxyServicePort } from './proxy-topology';
import { effectiveHintsAnnotation } from './proxy-topology';
import type { RuleEstimates, RuleEstimateService } from './rule-estimates';
import { estimateRules } from './rule-estimates';
import type { MechanismAnalysis, ServiceLint, ServiceMechanism } from './service-mechanism';
import { isExternallyAccessible } from './service-mechanism';
import type { CrossZoneCost, TrafficClientZone, TrafficMatrix } from './traffic';
import { computeTrafficMatrix, crossZoneCost, toTrafficEndpoints } from './traffic';
import type { EndpointSlice, ValueByZone } from './types';
import type { FeatureGates } from './version';

/** Identifier of the JSON layout; bumped on incompatible changes. */
export const ANALYSIS_SCHEMA = 'zonescope.analysis/v1';

/** The release modelled, with its gates. */
export interface KubernetesReport extends ReleaseInfo {
  readonly featureGates: FeatureGates;
  readonly topologyCacheEnabled: boolean;
}

/** Why a Service shows up in "needs attention". */
export type AttentionReason =
  | 'hints-off'
  | 'annotation-ineffective'
  | 'dataplane-ignores-hints'
  | 'hints-unused'
  | 'out-of-sync'
  | 'partial-hints'
  | 'cross-zone-leak';

/** A Service needing attention, with the reason. */
export interface ServiceAttention {
  readonly reason: AttentionReason;
  readonly message: string;
}

/** Traffic figures of one Service (fractions 0–1 of its traffic). */
export interface TrafficSummary {
  /** Following the hints on the slices now, as kube-proxy does. */
  readonly crossZoneFraction: number;
  /** With the hints the controller is expected to write on its next sync. */
  readonly crossZoneFractionExpected: number;
  /** With topology mode Auto enabled (the engine's hints). */
  readonly crossZoneFractionIfAuto: number;
  /** Without any hints. */
  readonly crossZoneFractionIfNone: number;
  /** Traffic dropped now (no endpoint selectable from the client node). */
  readonly droppedFraction: number;
  /** Busiest endpoint now, relative to a fair share (1 = fair). */
  readonly maxRelativeLoad: number;
  readonly monthlyCost: { readonly now: CrossZoneCost; readonly ifAuto: CrossZoneCost; readonly ifNone: CrossZoneCost };
  readonly clientShareByZone: Readonly<ValueByZone<number>>;
}

/** The per-Service object of the analyze JSON (`services[]`). */
export interface ServiceReport {
  readonly namespace: string;
  readonly name: string;
  readonly type: ServiceRecord['type'];
  readonly mechanism: ServiceMechanism;
  readonly mechanismDetail: MechanismAnalysis;
  readonly lints: readonly ServiceLint[];
  readonly expected: Omit<ExpectedHints, 'donated'>;
  readonly observed: ObservedHints;
  readonly diff: Omit<HintsDiff, 'entries'>;
  readonly ifAuto: IfAutoPrediction;
  readonly traffic: TrafficSummary;
  /** The Deployment and HPA behind the Service; `null` when no HPA scales it. */
  readonly hpa: HpaAnalysis | null;
  /** The Deployment behind the Service when no HPA scales it (same shape, `autoscaler: null`). */
  readonly workload: HpaAnalysis | null;
  readonly fixes: readonly Fix[];
  readonly loadBalancer: LoadBalancerAnalysis | null;
  readonly needsAttention: ServiceAttention | null;
}

/** Everything the Service view needs: the report plus the detail panels. */
export interface ServiceDetail extends ServiceReport {
  readonly byAddressType: readonly AddressTypeAnalysis[];
  readonly diffEntries: HintsDiff['entries'];
  readonly donatedEndpoints: ExpectedHints['donated'];
  readonly minimumTable: MinimumTable | null;
  readonly endpoints: readonly EndpointView[];
  readonly trafficMatrix: { readonly now: TrafficMatrix; readonly expected: TrafficMatrix; readonly ifAuto: TrafficMatrix; readonly ifNone: TrafficMatrix };
  /** TopologyAwareHints and other events recorded on the Service, oldest first. */
  readonly events: readonly EventRecord[];
}

/** The `cluster` object of the analyze JSON. */
export interface ClusterReport {
  readonly zones: readonly ZoneReport[];
  readonly eligible: boolean;
  readonly proxyMode: ProxyMode;
  readonly verdict: string;
  readonly insufficientCause: ZoneAnalysis['insufficientCause'];
  readonly ineligibleNodes: readonly NodeFix[];
  readonly eligibilityVerification: ZoneAnalysis['verification'];
  readonly nodes: readonly NodeReport[];
  readonly excludedNodes: ZoneAnalysis['excludedNodes'];
  readonly totalCpuMillis: number;
  /** `kubectl get nodes -L topology.kubernetes.io/zone`. */
  readonly inspectCommand: string;
  readonly clientShareByZone: Readonly<ValueByZone<number>>;
  readonly clientShareSource: ClusterContext['clientShareSource'];
  readonly dataplane: DataplaneAnalysis;
  readonly ruleEstimates: RuleEstimates;
  readonly summary: {
    readonly services: number;
    readonly byMechanism: Readonly<Record<ServiceMechanism, number>>;
    readonly hintsExpectedOn: number;
    readonly hintsObservedOn: number;
    readonly needingAttention: number;
  };
  readonly needsAttention: readonly (ServiceAttention & { readonly namespace: string; readonly name: string })[];
}

/** The whole analyze JSON. */
export interface ClusterAnalysis {
  readonly schema: typeof ANALYSIS_SCHEMA;
  readonly kubernetes: KubernetesReport;
  /** Assumptions the figures rest on (release, client traffic, cost inputs). */
  readonly assumptions: readonly string[];
  readonly cluster: ClusterReport;
  /** Sorted by namespace, then name. */
  readonly services: readonly ServiceReport[];
}

/** Per-cluster work shared by every Service analysis. */
export interface PreparedAnalysis {
  readonly context: ClusterContext;
  readonly zones: ZoneAnalysis;
  readonly dataplane: DataplaneAnalysis;
  readonly clients: readonly TrafficClientZone[];
  readonly kubernetes: KubernetesReport;
  readonly assumptions: readonly string[];
}

/** Builds the per-cluster part of an analysis once (O(nodes)); reuse it for many Services. */
export function prepareAnalysis(index: ClusterIndex, options: AnalysisOptions = {}): PreparedAnalysis {
  const context = buildClusterContext(index, options);
  const zones = analyzeZones(index.snapshot.nodes, context.release.minor, context.nodeTopology);
  const dataplane = analyzeDataplane(index.snapshot.proxy, index.snapshot.cni, context.proxyRelease);
  const clients: TrafficClientZone[] = [...context.clientNodesByZone.entries()].map(([zone, nodes]) => ({
    zone,
    share: context.clientShareByZone[zone] ?? 0,
    nodes: nodes.map((node) => ({ weight: node.cpuMilli, proxyNode: node.proxyNode })),
    totalWeight: nodes.reduce((sum, node) => sum + node.cpuMilli, 0),
  }));
  const assumptions: string[] = [];
  if (context.release.note) assumptions.push(context.release.note);
  assumptions.push(
    context.clientShareSource === 'equal'
      ? 'Client traffic is split equally between zones (no CPU information).'
      : `Client traffic per zone is proportional to zone CPU${context.clientShareSource === 'cpu-with-overrides' ? ', with the given per-zone overrides' : ''} (the controller's own assumption).`,
    `Monthly cost assumes ${context.options.gbPerMonth} GB per Service per month at $${context.options.pricePerGb}/GB in each direction.`,
    'Expected hints are the EndpointSlice controller\'s next sync on the observed slices; an enabled outcome carries the event recorded on the transition.',
  );
  return {
    context,
    zones,
    dataplane,
    clients,
    kubernetes: { ...context.release, featureGates: context.gates, topologyCacheEnabled: context.topologyCacheEnabled },
    assumptions,
  };
}

function proxyServicePort(service: ServiceRecord, annotations: Readonly<Record<string, string>>, context: ClusterContext): ProxyServicePort {
  return {
    internalTrafficPolicy: service.internalTrafficPolicy ?? 'Cluster',
    externalTrafficPolicy: service.externalTrafficPolicy ?? 'Cluster',
    externallyAccessible: isExternallyAccessible(service),
    hintsAnnotation: effectiveHintsAnnotation(annotations, context.release.minor),
  };
}

const ATTENTION_LINTS: Readonly<Partial<Record<ServiceLint['id'], AttentionReason>>> = {
  'annotation-value-ignored': 'annotation-ineffective',
  'topology-mode-key-unsupported': 'annotation-ineffective',
  'topology-aware-hints-gate-off': 'annotation-ineffective',
  'legacy-key-overrides-topology-mode': 'annotation-ineffective',
  'traffic-distribution-unsupported': 'annotation-ineffective',
  'traffic-distribution-ignored': 'annotation-ineffective',
  'dataplane-ignores-hints': 'dataplane-ignores-hints',
  'internal-traffic-policy-local': 'hints-unused',
  'no-selector': 'hints-unused',
  headless: 'hints-unused',
};

function attentionFor(report: Omit<ServiceReport, 'needsAttention'>): ServiceAttention | null {
  const active = report.mechanism === 'topology-mode' || report.mechanism === 'legacy-annotation';
  if (active && !report.expected.hintsEnabled) return { reason: 'hints-off', message: report.expected.verdict };
  for (const lint of report.lints) {
    const reason = ATTENTION_LINTS[lint.id];
    if (!reason) continue;
    if (lint.severity === 'error' || (reason === 'hints-unused' && lint.severity === 'warning')) return { reason, message: lint.message };
  }
  if (!report.diff.inSync) {
    const parts = [
      report.diff.missing > 0 ? `${report.diff.missing} missing` : null,
      report.diff.unexpected > 0 ? `${report.diff.unexpected} unexpected` : null,
      report.diff.stale > 0 ? `${report.diff.stale} stale` : null,
    ].filter(Boolean);
    return { reason: 'out-of-sync', message: `The slices differ from what the controller would write: ${parts.join(', ')} hint(s).` };
  }
  if (report.observed.hintsPresent && report.observed.readyEndpointsWithoutHints > 0) {
    return { reason: 'partial-hints', message: `${report.observed.readyEndpointsWithoutHints} ready endpoint(s) have no zone hint, so kube-proxy ignores the hints of the others too.` };
  }
  if (report.expected.hintsEnabled && report.expected.donatedEndpoints > 0) {
    return {
      reason: 'cross-zone-leak',
      message: `Hints are on but ${report.expected.donatedEndpoints} endpoint(s) are donated across zones (uneven placement): ${(report.traffic.crossZoneFractionExpected * 100).toFixed(1)} % of traffic crosses zones.`,
    };
  }
  return null;
}

interface ServiceComputation {
  readonly detail: ServiceDetail;
  readonly slices: ServiceHintSlices;
}

function computeService(prepared: PreparedAnalysis, service: ServiceRecord, withDetail: boolean): ServiceComputation {
  const { context, dataplane } = prepared;
  const key = serviceKey(service.namespace, service.name);
  const allSlices = context.index.slicesByService.get(key) ?? [];

  // 1. Hints: mechanism, lints, expected, observed, diff, if-Auto.
  const { analysis, slices } = analyzeServiceHints(context, dataplane, service, allSlices, withDetail);

  // 2. Traffic in four scenarios.
  const proxied = service.type !== 'ExternalName' && service.clusterIP !== 'None';
  const base = { release: context.proxyRelease, clients: prepared.clients, honoursHints: dataplane.honoursHints, proxied, sortLoads: withDetail };
  const svcNow = proxyServicePort(service, service.annotations, context);
  const endpointsOf = (sliceSet: readonly EndpointSlice[]) => (service.type === 'ExternalName' ? [] : toTrafficEndpoints(sliceSet, context.nodeZoneByName));
  const observedEndpoints = endpointsOf(slices.observed);
  const matrix = (sliceSet: readonly EndpointSlice[], svc: ProxyServicePort) =>
    computeTrafficMatrix({ ...base, service: svc, endpoints: sliceSet === slices.observed ? observedEndpoints : endpointsOf(sliceSet) });
  // Scenarios whose hints equal another's share its matrix (same zone hints, no node hints).
  const svcAuto = proxyServicePort(service, analysis.ifAuto.change.annotations, context);
  const noNodeHints = !slices.observed.some((s) => s.endpoints.some((e) => (e.hints?.forNodes?.length ?? 0) > 0)) && analysis.mechanism.trafficDistributionHeuristic !== 'preferSameNode';
  const now = matrix(slices.observed, svcNow);
  const expected = analysis.diff.inSync && noNodeHints ? now : matrix(slices.expected, svcNow);
  const ifAuto =
    analysis.mechanism.annotationActive && svcAuto.hintsAnnotation === svcNow.hintsAnnotation && analysis.ifAuto.change.remove.length === 0 ? expected : matrix(slices.ifAuto, svcAuto);
  const ifNone = analysis.observed.hintsPresent ? computeTrafficMatrix({ ...base, honoursHints: false, service: svcNow, endpoints: observedEndpoints }) : now;
  const { gbPerMonth, pricePerGb } = context.options;
  const traffic: TrafficSummary = {
    crossZoneFraction: now.crossZoneFraction,
    crossZoneFractionExpected: expected.crossZoneFraction,
    crossZoneFractionIfAuto: ifAuto.crossZoneFraction,
    crossZoneFractionIfNone: ifNone.crossZoneFraction,
    droppedFraction: now.droppedFraction,
    maxRelativeLoad: now.maxRelativeLoad,
    monthlyCost: {
      now: crossZoneCost(now.crossZoneFraction, gbPerMonth, pricePerGb),
      ifAuto: crossZoneCost(ifAuto.crossZoneFraction, gbPerMonth, pricePerGb),
      ifNone: crossZoneCost(ifNone.crossZoneFraction, gbPerMonth, pricePerGb),
    },
    clientShareByZone: now.clientShareByZone,
  };

  // 3. Workload and HPA.
  const workload = service.selector !== null ? findServiceWorkload(context, service, allSlices) : null;
  const workloadAnalysis = workload ? analyzeHpa(context, workload, key, analysis.ifAuto.donatedEndpoints) : null;

  // 4. Fixes, load-balancer path.
  const fixes = findFixes({
    context,
    service,
    mechanism: analysis.mechanism,
    addressType: slices.addressType,
    managedSlices: slices.managed,
    expectedHintsEnabled: analysis.expected.hintsEnabled,
    ifAutoResult: slices.ifAutoResult,
    workload: workload
      ? {
          deployment: workload.deployment.name,
          replicas: workload.deployment.replicas,
          hpa: workload.hpa ? { name: workload.hpa.name, minReplicas: workload.hpa.minReplicas, maxReplicas: workload.hpa.maxReplicas } : null,
        }
      : null,
  });
  const loadBalancer = analyzeLoadBalancer(context, service, slices.observed);

  const { donated, ...expectedSummary } = analysis.expected;
  const { entries, ...diffSummary } = analysis.diff;
  const partial = {
    namespace: service.namespace,
    name: service.name,
    type: service.type,
    mechanism: analysis.mechanism.mechanism,
    mechanismDetail: analysis.mechanism,
    lints: analysis.lints,
    expected: expectedSummary,
    observed: analysis.observed,
    diff: diffSummary,
    ifAuto: analysis.ifAuto,
    traffic,
    hpa: workloadAnalysis?.autoscaler ? workloadAnalysis : null,
    workload: workloadAnalysis && !workloadAnalysis.autoscaler ? workloadAnalysis : null,
    fixes,
    loadBalancer,
  };
  const events = [...(context.index.eventsByService.get(key) ?? [])].sort((a, b) =>
    (a.lastTimestamp ?? a.firstTimestamp ?? '') < (b.lastTimestamp ?? b.firstTimestamp ?? '') ? -1 : (a.lastTimestamp ?? a.firstTimestamp ?? '') > (b.lastTimestamp ?? b.firstTimestamp ?? '') ? 1 : 0,
  );
  return {
    detail: {
      ...partial,
      needsAttention: attentionFor(partial),
      byAddressType: analysis.byAddressType,
      diffEntries: entries,
      donatedEndpoints: donated,
      minimumTable: analysis.minimumTable,
      endpoints: analysis.endpoints,
      trafficMatrix: { now, expected, ifAuto, ifNone },
      events,
    },
    slices,
  };
}

function toReport(detail: ServiceDetail): ServiceReport {
  const { byAddressType: _b, diffEntries: _d, donatedEndpoints: _e, minimumTable: _m, endpoints: _p, trafficMatrix: _t, events: _v, ...report } = detail;
  return report;
}

/** Endpoints an average client node programs for the Service now (all, unless hints narrow the set). */
function endpointsPerNode(matrixNow: TrafficMatrix, endpoints: number): number {
  let weighted = 0;
  let totalShare = 0;
  for (const selection of matrixNow.selectionByZone) {
    const share = matrixNow.clientShareByZone[selection.zone] ?? 0;
    weighted += share * Math.min(endpoints, selection.selectedEndpoints);
    totalShare += share;
  }
  return totalShare > 0 ? weighted / totalShare : endpoints;
}

/**
 * Analyzes a prepared cluster: zones and eligibility, dataplane, rule estimates, and every Service
 * (sorted by namespace and name) with the attention list.
 */
export function analyzeClusterIn(prepared: PreparedAnalysis): ClusterAnalysis {
  const { context } = prepared;
  const services = [...context.index.snapshot.services].sort((a, b) =>
    a.namespace === b.namespace ? (a.name < b.name ? -1 : a.name > b.name ? 1 : 0) : a.namespace < b.namespace ? -1 : 1,
  );
  const reports: ServiceReport[] = [];
  const ruleInputs: RuleEstimateService[] = [];
  const byMechanism: Record<ServiceMechanism, number> = { 'topology-mode': 0, 'legacy-annotation': 0, trafficDistribution: 0, none: 0 };
  let hintsExpectedOn = 0;
  let hintsObservedOn = 0;
  for (const service of services) {
    const { detail } = computeService(prepared, service, false);
    reports.push(toReport(detail));
    byMechanism[detail.mechanism]++;
    if (detail.expected.hintsEnabled) hintsExpectedOn++;
    if (detail.observed.hintsPresent) hintsObservedOn++;
    if (service.type !== 'ExternalName' && service.clusterIP !== 'None') {
      const ready = detail.trafficMatrix.now.endpointLoads.length;
      ruleInputs.push({
        ports: Math.max(1, service.ports.length),
        nodePorts: service.ports.filter((p) => (p.nodePort ?? 0) !== 0).length,
        externalAddresses: service.loadBalancerIngress.length + service.externalIPs.length,
        externalTrafficPolicyLocal: service.externalTrafficPolicy === 'Local',
        endpoints: ready,
        endpointsPerNode: endpointsPerNode(detail.trafficMatrix.now, ready),
      });
    }
  }
  const needsAttention = reports
    .filter((r) => r.needsAttention !== null)
    .map((r) => ({ namespace: r.namespace, name: r.name, ...(r.needsAttention as ServiceAttention) }));
  const zones = prepared.zones;
  return {
    schema: ANALYSIS_SCHEMA,
    kubernetes: prepared.kubernetes,
    assumptions: prepared.assumptions,
    cluster: {
      zones: zones.zones,
      eligible: zones.eligible,
      proxyMode: prepared.dataplane.proxyMode,
      verdict: zones.verdict,
      insufficientCause: zones.insufficientCause,
      ineligibleNodes: zones.ineligibleNodes,
      eligibilityVerification: zones.verification,
      nodes: zones.nodes,
      excludedNodes: zones.excludedNodes,
      totalCpuMillis: zones.totalCpuMillis,
      inspectCommand: zones.inspectCommand,
      clientShareByZone: context.clientShareByZone,
      clientShareSource: context.clientShareSource,
      dataplane: prepared.dataplane,
      ruleEstimates: estimateRules(ruleInputs, context.index.snapshot.nodes.length, prepared.dataplane.proxyMode),
      summary: { services: reports.length, byMechanism, hintsExpectedOn, hintsObservedOn, needingAttention: needsAttention.length },
      needsAttention,
    },
    services: reports,
  };
}

/**
 * Analyzes a whole cluster: `cluster` (zones, eligibility, dataplane, rule estimates, attention
 * list) and `services[]`, as documented in `docs/analyze-schema.md`.
 */
export function analyzeCluster(index: ClusterIndex, options: AnalysisOptions = {}): ClusterAnalysis {
  return analyzeClusterIn(prepareAnalysis(index, options));
}

/** Analyzes one Service of a prepared cluster with every detail panel; `null` when it does not exist. */
export function analyzeServiceIn(prepared: PreparedAnalysis, namespace: string, name: string): ServiceDetail | null {
  const service = prepared.context.index.servicesByKey.get(serviceKey(namespace, name));
  return service ? computeService(prepared, service, true).detail : null;
}

/**
 * Analyzes one Service with every detail panel (the analyze JSON's per-Service object plus what the
 * Service view needs); `null` when the Service does not exist.
 */
export function analyzeService(index: ClusterIndex, namespace: string, name: string, options: AnalysisOptions = {}): ServiceDetail | null {
  return analyzeServiceIn(prepareAnalysis(index, options), namespace, name);
}
