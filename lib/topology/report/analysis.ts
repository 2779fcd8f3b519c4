/**
 * The analyses of a whole cluster and of single Services, as plain JSON-able data. This is what
 * `npm run analyze -- --format json` prints and what the dashboard's `lib/data` composes views
 * from; the field names are documented in `docs/analyze-schema.md`.
 *
 * Per-cluster work (SetNodes, CPU ratios, client nodes, dataplane, zone analysis) is done once
 * per {@link prepareAnalysis}; each Service then costs roughly its own endpoints (pods are looked
 * up per namespace, never scanned cluster-wide).
 */
import type { DataplaneAnalysis } from '../analyses/analyze-dataplane';
import { analyzeDataplane } from '../analyses/analyze-dataplane';
import type { AddressTypeAnalysis, EndpointView, ExpectedHints, HintsDiff, IfAutoPrediction, MinimumTable, ObservedHints, ServiceHintsAnalysis } from '../analyses/analyze-service';
import type { ServiceHintSlices } from '../analyses/analyze-service';
import { analyzeServiceHints, isControllerManaged, serviceLints } from '../analyses/analyze-service';
import type { NodeFix, NodeReport, ZoneAnalysis, ZoneReport } from '../analyses/analyze-zones';
import { analyzeZones } from '../analyses/analyze-zones';
import type { AnalysisOptions, ClusterContext, ReleaseInfo } from '../model/cluster-context';
import { buildClusterContext, rebaseClusterContext, serviceKey } from '../model/cluster-context';
import type { AnalysisCache } from './analysis-cache';
import type { ClusterIndex, EndpointSliceRecord, EventRecord, ProxyMode, ServiceRecord } from '../model/cluster-model';
import type { Fix, FixWorkload } from '../analyses/fixes';
import { findFixes } from '../analyses/fixes';
import type { HpaAnalysis } from '../analyses/hpa';
import { analyzeHpa, findServiceWorkload } from '../analyses/hpa';
import type { LoadBalancerAnalysis } from '../analyses/load-balancer';
import { analyzeLoadBalancer } from '../analyses/load-balancer';
import type { ProxyServicePort } from '../upstream/proxy-topology';
import { effectiveHintsAnnotation } from '../upstream/proxy-topology';
import type { RuleEstimates, RuleEstimateService } from '../analyses/rule-estimates';
import { estimateRules } from '../analyses/rule-estimates';
import { reportShapeKey, ReportShapeMemo } from './report-shape';
import type { MechanismAnalysis, ServiceLint, ServiceMechanism } from '../analyses/service-mechanism';
import { isExternallyAccessible } from '../analyses/service-mechanism';
import type { CrossZoneCost, TrafficClientZone, TrafficEndpoint, TrafficFigures, TrafficMatrix } from '../analyses/traffic';
import { sharedCrossZoneCost } from '../analyses/shared-values';
import { computeTrafficFigures, computeTrafficMatrix, toTrafficEndpoints, trafficFiguresKey, TrafficFiguresMemo } from '../analyses/traffic';
import type { EndpointSlice, ValueByZone } from '../upstream/types';
import type { FeatureGates } from '../upstream/version';

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
  /**
   * Per-Service results of earlier generations (see {@link AnalysisCache}): when set,
   * {@link analyzeClusterIn} and {@link analyzeServiceIn} reuse the results of Services whose
   * inputs did not change. Results are the same with or without it.
   */
  readonly cache?: AnalysisCache;
}

/** What a preparation was built from besides the nodes (compared to decide whether it can be reused). */
const PREPARED_INPUTS = new WeakMap<PreparedAnalysis, string>();

function preparedInputs(index: ClusterIndex, options: AnalysisOptions): string {
  const { version, proxy, cni } = index.snapshot;
  return JSON.stringify([version, proxy, cni, options]);
}

/**
 * Builds the per-cluster part of an analysis once (O(nodes)); reuse it for many Services.
 *
 * With `previous` (an earlier preparation, typically of the previous cluster generation) whose
 * nodes (same array), server version, dataplane and options are unchanged, the per-cluster work
 * is reused and only the index is replaced — the result equals a fresh preparation — and
 * `previous.cache` is carried over.
 */
export function prepareAnalysis(index: ClusterIndex, options: AnalysisOptions = {}, previous: PreparedAnalysis | null = null): PreparedAnalysis {
  const inputs = preparedInputs(index, options);
  if (previous !== null && previous.context.index.snapshot.nodes === index.snapshot.nodes && PREPARED_INPUTS.get(previous) === inputs) {
    const rebased: PreparedAnalysis = { ...previous, context: rebaseClusterContext(previous.context, index) };
    PREPARED_INPUTS.set(rebased, inputs);
    return rebased;
  }
  const prepared = prepareFresh(index, options);
  PREPARED_INPUTS.set(prepared, inputs);
  return previous?.cache ? { ...prepared, cache: previous.cache } : prepared;
}

/** The preparation with `cache` attached (see {@link PreparedAnalysis.cache}). */
export function withAnalysisCache(prepared: PreparedAnalysis, cache: AnalysisCache): PreparedAnalysis {
  const attached = { ...prepared, cache };
  const inputs = PREPARED_INPUTS.get(prepared);
  if (inputs !== undefined) PREPARED_INPUTS.set(attached, inputs);
  return attached;
}

function prepareFresh(index: ClusterIndex, options: AnalysisOptions): PreparedAnalysis {
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

function attentionFor(report: Pick<ServiceReport, 'mechanism' | 'expected' | 'lints' | 'diff' | 'observed' | 'traffic'>): ServiceAttention | null {
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

/** What both the full matrices and their figures carry. */
type TrafficCommon = Pick<TrafficMatrix, 'crossZoneFraction' | 'droppedFraction' | 'maxRelativeLoad' | 'clientShareByZone' | 'selectionByZone'>;

/** What the traffic step yields: full matrices (detail) or their figures (cluster-wide report). */
interface TrafficScenarios<M extends TrafficCommon> {
  readonly now: M;
  readonly expected: M;
  readonly ifAuto: M;
  readonly ifNone: M;
}

/** A Service's report plus what the cluster summary needs from its traffic now. */
interface ServiceComputation<M extends TrafficCommon> {
  /** The report; in a cached cluster pass it carries `needsAttention` and lazy `hpa`/`workload` already. */
  readonly report: Omit<ServiceReport, 'needsAttention'> & { readonly needsAttention?: ServiceAttention | null };
  readonly needsAttention: ServiceAttention | null;
  readonly analysis: ServiceHintsAnalysis;
  readonly traffic: TrafficScenarios<M>;
  /** The lazy workload cell of a cached cluster pass (`null` when the report was built eagerly). */
  readonly cell: WorkloadCell | null;
}

/** Steps 1–2 of a Service's analysis: what {@link reportShapeKey} determines for a report. */
interface HintsAndTraffic<M extends TrafficCommon> {
  readonly analysis: ServiceHintsAnalysis;
  /** `analysis.expected` without the donated list, and `analysis.diff` without its entries (what reports keep). */
  readonly expectedSummary: ServiceReport['expected'];
  readonly diffSummary: ServiceReport['diff'];
  readonly slices: ServiceHintSlices;
  readonly traffic: TrafficScenarios<M>;
}

function hintsAndTraffic(prepared: PreparedAnalysis, service: ServiceRecord, allSlices: readonly EndpointSliceRecord[], withDetail: boolean): HintsAndTraffic<TrafficCommon> {
  const { context, dataplane } = prepared;

  // 1. Hints: mechanism, lints, expected, observed, diff, if-Auto.
  const { analysis, slices } = analyzeServiceHints(context, dataplane, service, allSlices, withDetail ? true : 'report');

  // 2. Traffic in four scenarios (full matrices for the detail, their figures for a report).
  const proxied = service.type !== 'ExternalName' && service.clusterIP !== 'None';
  const base = { release: context.proxyRelease, clients: prepared.clients, honoursHints: dataplane.honoursHints, proxied, sortLoads: withDetail, uniqueEndpoints: true };
  const svcNow = proxyServicePort(service, service.annotations, context);
  const endpointsOf = (sliceSet: readonly EndpointSlice[]) => (service.type === 'ExternalName' ? [] : toTrafficEndpoints(sliceSet, context.nodeZoneByName));
  let observedEndpoints: TrafficEndpoint[] | null = null;
  const endpointsFor = (sliceSet: readonly EndpointSlice[]) =>
    sliceSet === slices.observed ? (observedEndpoints ??= endpointsOf(sliceSet)) : endpointsOf(sliceSet);
  // A report keeps only figures, which depend on the endpoints' zones, hints and conditions, not on
  // addresses: Services with the same shape share them (a bounded memo per clients and release).
  const memo = withDetail ? null : figuresMemo(prepared);
  const model = (sliceSet: readonly EndpointSlice[], svc: ProxyServicePort, honoursHints: boolean): TrafficCommon => {
    const input = { ...base, honoursHints, service: svc };
    if (withDetail) return computeTrafficMatrix({ ...input, endpoints: endpointsFor(sliceSet) });
    const key = memo ? trafficFiguresKey(service.type === 'ExternalName' ? [] : sliceSet, context.nodeZoneByName, input) : null;
    if (memo === null || key === null) return computeTrafficFigures({ ...input, endpoints: endpointsFor(sliceSet) });
    return memo.get(key, () => computeTrafficFigures({ ...input, endpoints: endpointsFor(sliceSet) }));
  };
  const matrix = (sliceSet: readonly EndpointSlice[], svc: ProxyServicePort) => model(sliceSet, svc, dataplane.honoursHints);
  // Scenarios whose hints equal another's share its matrix (same zone hints, no node hints).
  const svcAuto = proxyServicePort(service, analysis.ifAuto.change.annotations, context);
  const noNodeHints = !slices.observed.some((s) => s.endpoints.some((e) => (e.hints?.forNodes?.length ?? 0) > 0)) && analysis.mechanism.trafficDistributionHeuristic !== 'preferSameNode';
  const now = matrix(slices.observed, svcNow);
  const expected = analysis.diff.inSync && noNodeHints ? now : matrix(slices.expected, svcNow);
  const ifAuto =
    analysis.mechanism.annotationActive && svcAuto.hintsAnnotation === svcNow.hintsAnnotation && analysis.ifAuto.change.remove.length === 0 ? expected : matrix(slices.ifAuto, svcAuto);
  const ifNone = analysis.observed.hintsPresent ? model(slices.observed, svcNow, false) : now;
  const { donated: _donated, ...expectedSummary } = analysis.expected;
  const { entries: _entries, ...diffSummary } = analysis.diff;
  return { analysis, expectedSummary, diffSummary, slices, traffic: { now, expected, ifAuto, ifNone } };
}

/** Results by Service shape within one cluster pass (see report-shape.ts). */
type ShapeMemo = ReportShapeMemo<HintsAndTraffic<TrafficCommon>>;

const NO_SHAPE_MEMO = new WeakSet<PreparedAnalysis>();

/**
 * The preparation with report sharing between Services of the same shape switched off: every
 * Service is analysed on its own. Results are the same; benchmarks use it for the worst case of a
 * cluster where no two Services look alike.
 */
export function withoutShapeSharing(prepared: PreparedAnalysis): PreparedAnalysis {
  const copy = { ...prepared };
  const inputs = PREPARED_INPUTS.get(prepared);
  if (inputs !== undefined) PREPARED_INPUTS.set(copy, inputs);
  NO_SHAPE_MEMO.add(copy);
  return copy;
}

function computeService(prepared: PreparedAnalysis, service: ServiceRecord, withDetail: true): ServiceComputation<TrafficMatrix>;
function computeService(prepared: PreparedAnalysis, service: ServiceRecord, withDetail: false, shapes: ShapeMemo | null): ServiceComputation<TrafficFigures>;
function computeService(prepared: PreparedAnalysis, service: ServiceRecord, withDetail: boolean, shapes: ShapeMemo | null = null): ServiceComputation<TrafficCommon> {
  const { context, dataplane } = prepared;
  const key = serviceKey(service.namespace, service.name);
  const allSlices = context.index.slicesByService.get(key) ?? [];

  // 1–2. Hints and traffic. A report of a Service whose shape was seen in this cluster generation
  // shares that shape's result (see report-shape.ts); only what names the Service is its own.
  const shapeKey = shapes === null || withDetail ? null : reportShapeKey(service, allSlices, context.nodeZoneByName);
  let core = shapeKey === null ? undefined : shapes?.get(shapeKey);
  if (core === undefined) {
    core = hintsAndTraffic(prepared, service, allSlices, withDetail);
    if (shapeKey !== null) shapes?.set(shapeKey, core);
  } else {
    const observed = allSlices.filter((s) => s.addressType === core?.slices.addressType);
    const lints = serviceLints(context, dataplane, service, core.analysis.mechanism, core.analysis.observed.readyEndpoints, allSlices);
    core = {
      ...core,
      analysis: { ...core.analysis, lints },
      // The shape's engine results carry another Service's endpoints: only their counts and events are read below.
      slices: { ...core.slices, observed, managed: observed.filter(isControllerManaged) },
    };
  }
  const { analysis, slices, traffic: scenarios } = core;
  const { now, ifAuto, ifNone } = scenarios;
  const traffic: TrafficSummary = {
    crossZoneFraction: now.crossZoneFraction,
    crossZoneFractionExpected: scenarios.expected.crossZoneFraction,
    crossZoneFractionIfAuto: ifAuto.crossZoneFraction,
    crossZoneFractionIfNone: ifNone.crossZoneFraction,
    droppedFraction: now.droppedFraction,
    maxRelativeLoad: now.maxRelativeLoad,
    monthlyCost: {
      now: sharedCrossZoneCost(context, now.crossZoneFraction),
      ifAuto: sharedCrossZoneCost(context, ifAuto.crossZoneFraction),
      ifNone: sharedCrossZoneCost(context, ifNone.crossZoneFraction),
    },
    clientShareByZone: now.clientShareByZone,
  };

  // 3. Workload and HPA: now, or (cluster pass with a cache) on first read.
  const cell = new WorkloadCell(context, service, allSlices, key, analysis.ifAuto.donatedEndpoints);

  // 4. Fixes, load-balancer path.
  const fixes = findFixes({
    context,
    service,
    mechanism: analysis.mechanism,
    addressType: slices.addressType,
    managedSlices: slices.managed,
    expectedHintsEnabled: analysis.expected.hintsEnabled,
    ifAutoResult: slices.ifAutoResult,
    workload: null,
    workloadOf: () => cell.fixWorkload(),
  });
  const loadBalancer = analyzeLoadBalancer(context, service, slices.observed);

  const { expectedSummary, diffSummary } = core;
  const common = {
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
  };
  const needsAttention = attentionFor(common);
  const lazy = !withDetail && prepared.cache !== undefined;
  const report: Omit<ServiceReport, 'needsAttention'> & { readonly needsAttention?: ServiceAttention | null } = lazy
    ? lazyReport(common, cell, fixes, loadBalancer, needsAttention)
    : { ...common, hpa: cell.hpa(), workload: cell.workloadOnly(), fixes, loadBalancer };
  return { report, needsAttention, analysis, traffic: scenarios, cell: lazy ? cell : null };
}

/**
 * A report whose `hpa` and `workload` are read from `cell` on first access. Built here, outside
 * computeService, so its getters keep only the cell alive — not the engine results of the pass.
 */
function lazyReport(
  common: Omit<ServiceReport, 'hpa' | 'workload' | 'fixes' | 'loadBalancer' | 'needsAttention'>,
  cell: WorkloadCell,
  fixes: readonly Fix[],
  loadBalancer: LoadBalancerAnalysis | null,
  needsAttention: ServiceAttention | null,
): ServiceReport {
  return {
    // Spelled out, not spread: compilers may move getters after spread properties, and the key order is part of the JSON.
    namespace: common.namespace,
    name: common.name,
    type: common.type,
    mechanism: common.mechanism,
    mechanismDetail: common.mechanismDetail,
    lints: common.lints,
    expected: common.expected,
    observed: common.observed,
    diff: common.diff,
    ifAuto: common.ifAuto,
    traffic: common.traffic,
    get hpa() {
      return cell.hpa();
    },
    get workload() {
      return cell.workloadOnly();
    },
    fixes,
    loadBalancer,
    needsAttention,
  };
}

/**
 * The Deployment and HPA behind a Service, looked up and analysed once, when first needed. A cell
 * held by an {@link AnalysisCache} is rebound to each newer context while its Service's inputs are
 * unchanged (same results, and no older generation is kept alive); a cell of a replaced report
 * keeps its own context, so a holder of an old analysis still reads that generation's values.
 */
export class WorkloadCell {
  private context: ClusterContext;
  private found: ReturnType<typeof findServiceWorkload> | undefined;
  private analysed: HpaAnalysis | null | undefined;

  constructor(
    context: ClusterContext,
    private readonly service: ServiceRecord,
    private readonly slices: readonly EndpointSliceRecord[],
    private readonly key: string,
    private readonly donatedNow: number,
  ) {
    this.context = context;
  }

  /** Points an unevaluated cell at a newer context with the same inputs for this Service. */
  rebind(context: ClusterContext): void {
    if (this.analysed === undefined) this.context = context;
  }

  private workload(): ReturnType<typeof findServiceWorkload> {
    if (this.found === undefined) this.found = this.service.selector !== null ? findServiceWorkload(this.context, this.service, this.slices) : null;
    return this.found;
  }

  private analysis(): HpaAnalysis | null {
    if (this.analysed === undefined) {
      const workload = this.workload();
      this.analysed = workload ? analyzeHpa(this.context, workload, this.key, this.donatedNow) : null;
    }
    return this.analysed;
  }

  /** `ServiceReport.hpa`. */
  hpa(): HpaAnalysis | null {
    const analysis = this.analysis();
    return analysis?.autoscaler ? analysis : null;
  }

  /** `ServiceReport.workload`. */
  workloadOnly(): HpaAnalysis | null {
    const analysis = this.analysis();
    return analysis && !analysis.autoscaler ? analysis : null;
  }

  /** What {@link findFixes} needs of the workload. */
  fixWorkload(): FixWorkload | null {
    const workload = this.workload();
    return workload
      ? {
          deployment: workload.deployment.name,
          replicas: workload.deployment.replicas,
          hpa: workload.hpa ? { name: workload.hpa.name, minReplicas: workload.hpa.minReplicas, maxReplicas: workload.hpa.maxReplicas } : null,
        }
      : null;
  }
}

function timestampOf(event: EventRecord): string {
  return event.lastTimestamp ?? event.firstTimestamp ?? '';
}

const FIGURES_MEMOS = new WeakMap<readonly TrafficClientZone[], TrafficFiguresMemo>();

/** The traffic figures memo of a preparation's clients (shared by the preparations rebased from it). */
function figuresMemo(prepared: PreparedAnalysis): TrafficFiguresMemo {
  let memo = FIGURES_MEMOS.get(prepared.clients);
  if (!memo) {
    memo = new TrafficFiguresMemo();
    FIGURES_MEMOS.set(prepared.clients, memo);
  }
  return memo;
}

/** The Service view's detail: the report plus the panels. */
function serviceDetail(prepared: PreparedAnalysis, service: ServiceRecord): ServiceDetail {
  const { report, needsAttention, analysis, traffic } = computeService(prepared, service, true);
  const events = [...(prepared.context.index.eventsByService.get(serviceKey(service.namespace, service.name)) ?? [])].sort((a, b) =>
    timestampOf(a) < timestampOf(b) ? -1 : timestampOf(a) > timestampOf(b) ? 1 : 0,
  );
  return {
    ...report,
    needsAttention,
    byAddressType: analysis.byAddressType,
    diffEntries: analysis.diff.entries,
    donatedEndpoints: analysis.expected.donated,
    minimumTable: analysis.minimumTable,
    endpoints: analysis.endpoints,
    trafficMatrix: traffic,
    events,
  };
}

const KEYS = new WeakMap<ServiceRecord, string>();

/** `namespace/name` of a Service record, built once per record (cluster passes run for every generation). */
function keyOf(service: ServiceRecord): string {
  let key = KEYS.get(service);
  if (key === undefined) {
    key = serviceKey(service.namespace, service.name);
    KEYS.set(service, key);
  }
  return key;
}

/** A Service's share of a cluster pass: its report and its input to the rule estimates. */
interface ClusterPassResult {
  readonly report: ServiceReport;
  readonly ruleInput: RuleEstimateService | null;
  /** The report's lazy workload cell, rebound to each newer context while the entry is reused. */
  readonly cell: WorkloadCell | null;
  /** Its entry of `cluster.needsAttention`, `null` when it needs none. */
  readonly attention: (ServiceAttention & { readonly namespace: string; readonly name: string }) | null;
}

function clusterPassResult(prepared: PreparedAnalysis, service: ServiceRecord, shapes: ShapeMemo | null): ClusterPassResult {
  const { report: partial, needsAttention, traffic, cell } = computeService(prepared, service, false, shapes);
  // A lazy report is final as built (spreading it would evaluate its getters).
  const report: ServiceReport = cell ? (partial as ServiceReport) : { ...partial, needsAttention };
  const attention = needsAttention === null ? null : { namespace: report.namespace, name: report.name, ...needsAttention };
  if (service.type === 'ExternalName' || service.clusterIP === 'None') return { report, ruleInput: null, cell, attention };
  const ready = traffic.now.loadedEndpoints;
  return {
    report,
    cell,
    attention,
    ruleInput: {
      ports: Math.max(1, service.ports.length),
      nodePorts: service.ports.filter((p) => (p.nodePort ?? 0) !== 0).length,
      externalAddresses: service.loadBalancerIngress.length + service.externalIPs.length,
      externalTrafficPolicyLocal: service.externalTrafficPolicy === 'Local',
      endpoints: ready,
      endpointsPerNode: endpointsPerNode(traffic.now, ready),
    },
  };
}

/** Endpoints an average client node programs for the Service now (all, unless hints narrow the set). */
function endpointsPerNode(matrixNow: TrafficFigures, endpoints: number): number {
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
  const { context, cache } = prepared;
  cache?.sync(context);
  const compare = (a: ServiceRecord, b: ServiceRecord) =>
    a.namespace === b.namespace ? (a.name < b.name ? -1 : a.name > b.name ? 1 : 0) : a.namespace < b.namespace ? -1 : 1;
  const services = cache ? cache.sortedServices(context.index.snapshot.services, compare) : [...context.index.snapshot.services].sort(compare);
  const reports: ServiceReport[] = [];
  const ruleInputs: RuleEstimateService[] = [];
  const byMechanism: Record<ServiceMechanism, number> = { 'topology-mode': 0, 'legacy-annotation': 0, trafficDistribution: 0, none: 0 };
  let hintsExpectedOn = 0;
  let hintsObservedOn = 0;
  let computed = 0;
  let shapes: ShapeMemo | null | undefined;
  const needsAttention: (ServiceAttention & { readonly namespace: string; readonly name: string })[] = [];
  for (const service of services) {
    const key = keyOf(service);
    const slices = context.index.slicesByService.get(key);
    let result = cache?.report<ClusterPassResult>(key, service, slices);
    if (result !== undefined) result.cell?.rebind(context);
    else {
      // Kept for this pass only: a later pass recomputes few Services, or (new cluster-wide inputs) all of them anew.
      shapes ??= NO_SHAPE_MEMO.has(prepared) ? null : new ReportShapeMemo();
      result = clusterPassResult(prepared, service, shapes);
      computed++;
      cache?.storeReport(key, service, slices, result);
    }
    const { report, ruleInput, attention } = result;
    reports.push(report);
    if (attention) needsAttention.push(attention);
    byMechanism[report.mechanism]++;
    if (report.expected.hintsEnabled) hintsExpectedOn++;
    if (report.observed.hintsPresent) hintsObservedOn++;
    if (ruleInput) ruleInputs.push(ruleInput);
  }
  if (cache && cache.reportCount !== services.length) cache.retainReports(new Set(services.map(keyOf)));
  const zones = prepared.zones;
  const analysis: ClusterAnalysis = {
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
  if (cache) cache.lastRun = { services: services.length, computed, reused: services.length - computed, full: cache.isFullPass };
  return analysis;
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
  const { context, cache } = prepared;
  const key = serviceKey(namespace, name);
  const service = context.index.servicesByKey.get(key);
  if (!service) return null;
  if (!cache) return serviceDetail(prepared, service);
  cache.sync(context);
  const slices = context.index.slicesByService.get(key);
  const events = context.index.eventsByService.get(key);
  const cached = cache.detail<ServiceDetail>(key, service, slices, events);
  if (cached) return cached;
  const detail = serviceDetail(prepared, service);
  cache.storeDetail(key, service, slices, events, detail);
  return detail;
}

/**
 * Analyzes one Service with every detail panel (the analyze JSON's per-Service object plus what the
 * Service view needs); `null` when the Service does not exist.
 */
export function analyzeService(index: ClusterIndex, namespace: string, name: string, options: AnalysisOptions = {}): ServiceDetail | null {
  return analyzeServiceIn(prepareAnalysis(index, options), namespace, name);
}
