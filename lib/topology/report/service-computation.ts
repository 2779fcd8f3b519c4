/**
 * One Service's analysis, in numbered steps: (1) hints, (2) traffic in four scenarios, (3) workload
 * and HPA, (4) fixes and the load-balancer path; then the report. Steps 1–2 are what a cluster-wide
 * report can share between Services of the same shape (report-shape.ts) and, per scenario,
 * between Services with the same traffic figures (`trafficFiguresKey`).
 */
import { gitOpsManager, type GitOpsManager } from '../analyses/gitops';
import type { IfAutoPrediction, ServiceHintsAnalysis, ServiceHintSlices } from '../analyses/analyze-service';
import type { HintsEngineResult } from '../analyses/hints-engine';
import type { ExpectedHints } from '../analyses/analyze-service';
import { analyzeServiceHints, NO_HINTS_VERDICT, serviceLints } from '../analyses/analyze-service';
import type { HintsDiff } from '../analyses/hints-diff';
import { observeHints } from '../analyses/observed-hints';
import { plainAutoRun, plainSlices } from '../analyses/plain-auto-run';
import { hintsEnabled as annotationRequestsHints } from '../upstream/annotations';
import { canUseTrafficDistribution } from '../upstream/reconciler';
import { isControllerManaged } from '../analyses/managed-slices';
import type { Fix, FixedState, FixInput, FixTrafficModel } from '../analyses/fixes';
import type { AutoState } from '../analyses/fixes';
import { autoStateOf, findFixes, fixAfterMatrix, withMonthlySaving } from '../analyses/fixes';
import type { LoadBalancerAnalysis } from '../analyses/load-balancer';
import { analyzeLoadBalancer } from '../analyses/load-balancer';
import { loadBalancerLegCost } from '../analyses/load-balancer-leg';
import type { ServiceLint } from '../analyses/service-mechanism';
import { proxyServicePort, topologyAnnotationChange } from '../analyses/service-mechanism';
import type { KubeMinor } from '../upstream/version';
import type { ModelScenarios } from '../analyses/scenario-costs';
import { resolveServiceVolume } from '../analyses/service-volume';
import type { ServiceVolume } from '../analyses/traffic-volume';
import type { CrossZonePricing } from '../model/cloud-pricing';
import { applyModelChange, measuredCrossZoneFraction } from '../analyses/measured-projection';
import { scenarioFractions } from '../analyses/scenario-costs';
import { sharedAllocationTable, sharedCrossZoneCost, sharedEnableChange, sharedMechanism } from '../analyses/shared-values';
import type { ServiceFlowScenario } from '../analyses/cluster-traffic';
import type { TrafficEndpoint, TrafficFigures, TrafficMatrix } from '../analyses/traffic';
import { computeTrafficFigures, computeTrafficMatrix, figuresInput, toTrafficEndpoints } from '../analyses/traffic';
import { firstAddressesDistinct } from '../analyses/endpoint-shape';
import { groupSliceList, sharedGroupedFigures } from '../analyses/traffic-figures-memo';
import type { TrafficScenario } from '../analyses/traffic-scenarios';
import type { ClusterContext } from '../model/cluster-context';
import { proxyReleaseWithHintsGate, serviceKey, serviceRecordKey } from '../model/cluster-context';
import type { EndpointSliceRecord, ServiceRecord } from '../model/cluster-model';
import type { ProxyServicePort } from '../upstream/proxy-service-port';
import type { AddressType, EndpointSlice, ValueByZone } from '../upstream/types';
import type { ServiceAttention, ServiceReport, TrafficSummary } from './analysis-schema';
import { attentionFor } from './attention';
import type { PreparedAnalysis } from './prepared-analysis';
import { reportShapeKey, ReportShapeMemo } from './report-shape';
import { WorkloadCell } from './workload-cell';
import { serviceMemo, type ServiceRecordMemo } from '../model/record-memo';
import { memoOnObject } from '../model/object-memo';

/** What both the full matrices and their figures carry. */
export type TrafficCommon = Pick<TrafficMatrix, 'crossZoneFraction' | 'droppedFraction' | 'maxRelativeLoad' | 'clientShareByZone' | 'selectionByZone' | 'matrix'>;

/** What the traffic step yields per scenario: full matrices (detail) or their figures (cluster-wide report). */
type TrafficScenarios<M extends TrafficCommon> = Readonly<Record<TrafficScenario, M>>;

/** A Service's report plus what the cluster summary needs from its traffic now. */
export interface ServiceComputation<M extends TrafficCommon> {
  /** The report; in a cached cluster pass it carries `needsAttention` and lazy `hpa`/`workload` already. */
  readonly report: Omit<ServiceReport, 'needsAttention'> & { readonly needsAttention?: ServiceAttention | null };
  readonly needsAttention: ServiceAttention | null;
  /**
   * The hints analysis with every detail (the Service view's panels); only computed with the
   * detail: a report shares its shape's, and keeps its own lints and toggle edit in `report`.
   */
  readonly analysis?: ServiceHintsAnalysis;
  /** Ready endpoints now. */
  readonly readyEndpoints: number;
  readonly traffic: TrafficScenarios<M>;
  /** The lazy workload cell of a cached cluster pass (`null` when the report was built eagerly). */
  readonly cell: WorkloadCell | null;
  /** The lazy fixes of a cached cluster pass (`null` when the report was built eagerly). */
  readonly fixesCell: FixesCell | null;
  /**
   * What the Services of this one's shape share once one of them has worked it out: what follows
   * from the shape's figures, the traffic summary at a shared volume, the primary fix and the
   * traffic after it (none of them depends on the Service's name, only on what its shape holds).
   * Empty until first needed (see `PassFlow` of cluster-analysis.ts).
   */
  readonly shapeShared: ShapeShared;
}

/**
 * What the cluster pass derives from a shape's traffic figures alone (cluster-analysis.ts): the
 * same for every Service of the shape, so worked out once.
 */
export interface ShapeFlow {
  /** The scenarios as fractions of the Service's traffic (see `flowScenario` there). */
  readonly now: ServiceFlowScenario;
  readonly expected: ServiceFlowScenario;
  readonly ifAuto: ServiceFlowScenario;
  /** Σ of the client shares now. */
  readonly shareTotal: number;
  /** Endpoints an average client node programs now (the rule estimates' input). */
  readonly endpointsPerNode: number;
}

/** See {@link ServiceComputation.shapeShared}: each field is `undefined` until a Service of the shape has looked. */
export interface ShapeShared {
  /** See {@link ShapeFlow}. */
  flow?: ShapeFlow;
  /**
   * The last traffic summary built for a Service of the shape without a measured matrix or a
   * load-balancer leg, with the volume object and pricing it was priced at: a Service of the shape
   * with the same (shared, assumed) volume gets the same summary.
   */
  summary?: { readonly volume: ServiceVolume; readonly pricing: CrossZonePricing; readonly traffic: TrafficSummary };
  after?: { readonly crossZoneFraction: number; readonly matrix: Readonly<ValueByZone<ValueByZone<number>>> } | null;
  /**
   * The primary fix as the first Service of the shape to look found it, for the cluster-wide
   * figures (its title and its `after`): what it says follows from the shape — the topology
   * annotations, the endpoints' counts and zones, the cluster — except when it names the nodes of
   * endpoints without a zone, which the shape does not hold; that one is never shared.
   */
  primary?: PrimaryFix | null;
}

/** What the cluster-wide figures read of a Service's primary fix (its matrix after: `fixAfterMatrix`). */
export type PrimaryFix = Pick<Fix, 'kind' | 'title' | 'after'>;

/** Whether Services of one shape may share `fix` as their primary fix (see {@link ShapeShared.primary}). */
export function primaryFixSharable(fix: PrimaryFix | null): boolean {
  return fix === null || fix.kind !== 'label-endpoint-nodes';
}

const noWorkload = () => null;

const NO_SLICES: readonly EndpointSlice[] = [];

/** The fixes of a Service no fix is sought for (what `findFixes` returns for it). */
const NO_FIXES: readonly Fix[] = Object.freeze([]);

const WITHOUT_SLICES = new WeakMap<HintsEngineResult, HintsEngineResult>();

/** An Auto run without its slices (see {@link fixAutoRun}): one copy per run, which a shape's Services share. */
function withoutSlices(result: HintsEngineResult): HintsEngineResult {
  if (result.slices.length === 0) return result;
  let copy = WITHOUT_SLICES.get(result);
  if (copy === undefined) {
    copy = { ...result, slices: [] };
    WITHOUT_SLICES.set(result, copy);
  }
  return copy;
}

/**
 * What finding and pricing a Service's fixes reads, kept as data: the closures `findFixes` takes
 * (the traffic model of a fixed state, the workload lookup) and the pricing are made when the fixes
 * are read, so a cluster pass does not keep three closures per Service for the many it never asks.
 */
interface FixSource {
  readonly prepared: PreparedAnalysis;
  readonly service: ServiceRecord;
  readonly mechanism: FixInput['mechanism'];
  readonly addressType: FixInput['addressType'];
  readonly managedSlices: FixInput['managedSlices'];
  readonly ifAutoResult: HintsEngineResult;
  readonly autoState: AutoState | null;
  /** No two of the Service's observed endpoints share a first address (see {@link fixTrafficModel}). */
  readonly addressesDistinct: boolean;
  readonly cell: WorkloadCell;
  /** The Service's volume, its traffic matrix now and what that costs a month: a fix's saving is priced against them. */
  readonly volume: ServiceVolume;
  readonly nowMatrix: TrafficCommon['matrix'];
  readonly nowMonthlyCost: number;
}

/** `findFixes`' input for `source` (see {@link FixSource}); `primaryOnly` skips the alternatives and the workload lookup. */
function fixInputOf(source: FixSource, context: ClusterContext, primaryOnly: boolean): FixInput {
  const { cell } = source;
  return {
    context,
    service: source.service,
    mechanism: source.mechanism,
    addressType: source.addressType,
    managedSlices: source.managedSlices,
    // findFixes is only asked for Services whose hints are not expected on.
    expectedHintsEnabled: false,
    ifAutoResult: source.ifAutoResult,
    workload: null,
    workloadOf: primaryOnly ? noWorkload : () => cell.fixWorkload(),
    trafficAfter: fixTrafficModel(source.prepared, source.service, source.addressesDistinct),
    autoState: source.autoState,
    primaryOnly,
  };
}

/** A fix with its saving: its `after` priced like the Service's scenarios, against now. */
function priceFix(context: ClusterContext, source: FixSource, fix: Fix): Fix {
  const matrix = fixAfterMatrix(fix);
  if (fix.after === null || matrix === null) return fix;
  const { volume } = source;
  const fraction = volume.measuredMatrix === null ? fix.after.crossZoneFraction : measuredCrossZoneFraction(applyModelChange(volume.measuredMatrix, source.nowMatrix, matrix));
  const cost = sharedCrossZoneCost(context, source.prepared.pricing, fraction, volume.gbPerMonth);
  return withMonthlySaving(fix, Math.max(0, source.nowMonthlyCost - cost.monthlyCost), fraction);
}

/** A Service's fixes, found and priced now. */
function fixesNow(context: ClusterContext, source: FixSource): readonly Fix[] {
  return findFixes(fixInputOf(source, context, false)).map((fix) => priceFix(context, source, fix));
}

/**
 * A Service's fixes, found when first read (a cached cluster pass reads them for the few Services
 * it lists; the Service view computes its own). Like the workload cell, it is rebound to each newer
 * context while its Service's inputs are unchanged, and keeps only what `findFixes` reads.
 */
export class FixesCell {
  private context: ClusterContext;
  private source: FixSource | null;
  private found: readonly Fix[] | null = null;
  private first: PrimaryFix | null | undefined;

  constructor(context: ClusterContext, source: FixSource) {
    this.context = context;
    this.source = source;
  }

  /** Points an unevaluated cell at a newer context with the same inputs for this Service. */
  rebind(context: ClusterContext): void {
    if (this.found === null) this.context = context;
  }

  /** `ServiceReport.fixes`. */
  fixes(): readonly Fix[] {
    if (this.found === null) {
      this.found = fixesNow(this.context, this.source as FixSource);
      this.first = this.found.find((fix) => fix.primary) ?? null;
      this.source = null;
    }
    return this.found;
  }

  /**
   * The primary fix's kind, title and traffic after it (what the cluster-wide figures read of
   * every Service with something to save): found without the alternatives' searches and without
   * the workload lookup (only the commands and the placement note read the workload) until the
   * whole list is asked for, and not priced (its saving is the report's, which `fixes` prices;
   * pricing keeps the kind, title and traffic after as they are).
   */
  primary(): PrimaryFix | null {
    if (this.first === undefined) {
      const [fix] = findFixes(fixInputOf(this.source as FixSource, this.context, true));
      this.first = fix ?? null;
    }
    return this.first;
  }
}

/** Steps 1–2 of a Service's analysis: what {@link reportShapeKey} determines for a report. */
export interface HintsAndTraffic<M extends TrafficCommon> {
  readonly analysis: ServiceHintsAnalysis;
  /** `analysis.expected` without the donated list, and `analysis.diff` without its entries (what reports keep). */
  readonly expectedSummary: ServiceReport['expected'];
  readonly diffSummary: ServiceReport['diff'];
  readonly slices: ServiceHintSlices;
  readonly traffic: TrafficScenarios<M>;
  /** Shared by every Service of this shape in one pass (the spread copies of `core` keep the same object). */
  readonly shapeShared: ShapeShared;
  /**
   * The Auto run's state as the annotation fix reads it (`FixInput.autoState`), when every slice
   * is managed and the run turns hints on; the fixes then keep the run without its slices.
   */
  readonly autoState: AutoState | null;
}

/**
 * What {@link scenarioTraffic} reads for one Service's scenarios. A record and module functions
 * rather than closures over {@link hintsAndTraffic}'s locals: a pass runs that function for
 * thousands of shapes, and its closures were made for each and compiled again every pass.
 */
interface ScenarioModel {
  readonly prepared: PreparedAnalysis;
  readonly service: ServiceRecord;
  /** The observed slices, whose endpoints are made once when several scenarios need them. */
  readonly observed: readonly EndpointSlice[];
  observedEndpoints: TrafficEndpoint[] | null;
  /** No two observed endpoints share a first address (nor, then, do those of the other scenarios). */
  readonly addressesDistinct: boolean;
  readonly proxied: boolean;
  readonly withDetail: boolean;
}

/** The endpoints of `sliceSet` as the traffic model reads them (the observed ones made once). */
function scenarioEndpoints(model: ScenarioModel, sliceSet: readonly EndpointSlice[]): TrafficEndpoint[] {
  if (sliceSet === model.observed) return (model.observedEndpoints ??= endpointsOf(model, sliceSet));
  return endpointsOf(model, sliceSet);
}

function endpointsOf(model: ScenarioModel, sliceSet: readonly EndpointSlice[]): TrafficEndpoint[] {
  return model.service.type === 'ExternalName' ? [] : toTrafficEndpoints(sliceSet, model.prepared.context.nodeZoneByName, model.addressesDistinct);
}

/**
 * One scenario's traffic: full matrices for the detail, else figures. A report keeps only figures,
 * which depend on the endpoints' zones, hints and conditions, not on addresses: Services with the
 * same shape share them (per clients and release, see sharedGroupedFigures). Grouped once per
 * slice list (groupSliceList keeps them): scenarios on the same slices (now and without hints,
 * often expected and if Auto) share them, and so do later passes, for the observed list and the
 * engine's lists of a run it kept (analyses/hints-engine.ts).
 */
function scenarioTraffic(model: ScenarioModel, sliceSet: readonly EndpointSlice[], svc: ProxyServicePort, honoursHints: boolean): TrafficCommon {
  const { context } = model.prepared;
  const input = figuresInput(context.proxyRelease, model.prepared.clients, honoursHints, model.proxied, model.withDetail, true, svc);
  if (model.withDetail) return computeTrafficMatrix({ ...input, endpoints: scenarioEndpoints(model, sliceSet) });
  const keySlices = model.service.type === 'ExternalName' ? NO_SLICES : sliceSet;
  const grouped = svc.internalTrafficPolicy === 'Local' ? null : groupSliceList(keySlices, context.nodeZoneByName, model.addressesDistinct);
  return (grouped === null ? null : sharedGroupedFigures(input, grouped)) ?? computeTrafficFigures({ ...input, endpoints: scenarioEndpoints(model, sliceSet) });
}

/**
 * `expected` without its donated list, as a report keeps it: its fields in its order, spelled out
 * (a rest spread copies them one by one at run time, for every shape of a pass).
 */
function expectedSummaryOf(expected: ExpectedHints): ServiceReport['expected'] {
  return {
    addressType: expected.addressType,
    applicable: expected.applicable,
    mechanism: expected.mechanism,
    hintsEnabled: expected.hintsEnabled,
    event: expected.event,
    reason: expected.reason,
    allocationsByZone: expected.allocationsByZone,
    minimumTotal: expected.minimumTotal,
    readyEndpoints: expected.readyEndpoints,
    hintCountsByZone: expected.hintCountsByZone,
    donatedEndpoints: expected.donatedEndpoints,
    slicesToWrite: expected.slicesToWrite,
    verdict: expected.verdict,
  };
}

/**
 * Whether any endpoint of `slices` carries node hints, by slice list: a Service's list is immutable
 * and read again by every pass after a Node change, and the walk reads every endpoint (thousands
 * for the largest Services).
 */
function anyNodeHints(slices: readonly EndpointSlice[]): boolean {
  return memoOnObject(NODE_HINTED, slices, scanNodeHints);
}

const NODE_HINTED = new WeakMap<readonly EndpointSlice[], boolean>();

function scanNodeHints(slices: readonly EndpointSlice[]): boolean {
  for (const slice of slices) for (const endpoint of slice.endpoints) if ((endpoint.hints?.forNodes?.length ?? 0) > 0) return true;
  return false;
}

/** Steps 1–2 of a Service's analysis (see {@link computeService}). Exported for the tests that hold {@link plainHintsAndTraffic} to it. */
export function hintsAndTraffic(prepared: PreparedAnalysis, service: ServiceRecord, allSlices: readonly EndpointSliceRecord[], withDetail: boolean): HintsAndTraffic<TrafficCommon> {
  const { context, dataplane } = prepared;

  // 1. Hints: mechanism, lints, expected, observed, diff, if-Auto.
  const { analysis, slices } = analyzeServiceHints(context, dataplane, service, allSlices, withDetail ? true : 'report');

  // 2. Traffic in four scenarios (full matrices for the detail, their figures for a report).
  const proxied = service.type !== 'ExternalName' && service.clusterIP !== 'None';
  const svcNow = proxyServicePort(service, service.annotations, context);
  // The expected and if-Auto slices are the observed endpoints with other hints (or fewer of them):
  // when no two observed endpoints share a first address, none of theirs do either.
  const scenarios: ScenarioModel = {
    prepared,
    service,
    observed: slices.observed,
    observedEndpoints: null,
    addressesDistinct: firstAddressesDistinct(allSlices),
    proxied,
    withDetail,
  };
  const honours = dataplane.honoursHints;
  // Scenarios whose hints equal another's share its matrix (same zone hints, no node hints).
  const svcAuto = proxyServicePort(service, analysis.ifAuto.change.annotations, context);
  const noNodeHints = !anyNodeHints(slices.observed) && analysis.mechanism.trafficDistributionHeuristic !== 'preferSameNode';
  const now = scenarioTraffic(scenarios, slices.observed, svcNow, honours);
  const expected = analysis.diff.inSync && noNodeHints ? now : scenarioTraffic(scenarios, slices.expected, svcNow, honours);
  const ifAuto =
    analysis.mechanism.annotationActive && svcAuto.hintsAnnotation === svcNow.hintsAnnotation && analysis.ifAuto.change.remove.length === 0
      ? expected
      : scenarioTraffic(scenarios, slices.ifAuto, svcAuto, honours);
  const ifNone = analysis.observed.hintsPresent ? scenarioTraffic(scenarios, slices.observed, svcNow, false) : now;
  const expectedSummary = expectedSummaryOf(analysis.expected);
  const { entries: _entries, ...diffSummary } = analysis.diff;
  // The annotation fix leaves the Auto state: with every slice managed, the if-Auto scenario is its traffic.
  const autoState = slices.ifAutoResult.hintsEnabled && slices.managed.length === slices.observed.length ? autoStateOf(slices.ifAutoResult, ifAuto) : null;
  return { analysis, expectedSummary, diffSummary, slices, traffic: { now, expected, ifAuto, ifNone }, shapeShared: {}, autoState };
}

/**
 * Steps 1–2 of a cluster pass's report ({@link hintsAndTraffic} with `withDetail: false`) for the
 * most common Service: nothing asks for hints (no topology annotation, no trafficDistribution, on a
 * release whose controller leaves such slices alone), its slices are managed by the controller, of
 * one address type, without hints and with distinct addresses. The expected sync then writes
 * nothing, so expected and observed are the same, and the `Auto` run is worked out in one walk
 * (analyses/plain-auto-run.ts) instead of the engine's copies of every endpoint. The result is
 * {@link hintsAndTraffic}'s, field for field (plain-shape.test.ts); `null` for any other Service.
 */
export function plainHintsAndTraffic(
  prepared: PreparedAnalysis,
  service: ServiceRecord,
  allSlices: readonly EndpointSliceRecord[],
  memo: ServiceRecordMemo = serviceMemo(service),
): HintsAndTraffic<TrafficCommon> | null {
  const { context, dataplane } = prepared;
  const { minor } = context.release;
  if (minor < 26 || !context.topologyCacheEnabled || allSlices.length === 0) return null;
  if (service.selector === null || service.type === 'ExternalName' || service.trafficDistribution !== null || service.internalTrafficPolicy === 'Local') return null;
  const mechanism = sharedMechanism(context, service, memo);
  if (mechanism.mechanism !== 'none' || mechanism.annotationActive) return null;
  // The expected sync leaves the slices as they are: nothing asks for hints (runHintsEngine's first
  // test), or, where the reconciler hands every Service without `Auto` to the trafficdist step
  // (1.30–1.32), that step strips hints that are not there.
  if (annotationRequestsHints(service.annotations, minor)) return null;
  const expectedMechanism = canUseTrafficDistribution({ key: '', annotations: service.annotations, trafficDistribution: null }, minor, context.gates) ? 'trafficDistribution' : 'none';
  // The if-Auto one takes the annotation path.
  const change = sharedEnableChange(context, service.annotations);
  if (!annotationRequestsHints(change.annotations, minor)) return null;
  const addressType = (allSlices[0] as EndpointSliceRecord).addressType;
  if (addressType !== 'IPv4' && addressType !== 'IPv6') return null;
  for (const slice of allSlices) if (slice.addressType !== addressType || !isControllerManaged(slice)) return null;
  if (!plainSlices(allSlices)) return null;

  // 1. Hints: observed, expected (the same: nothing written), no diff, if-Auto.
  const observed = observeHints(addressType, allSlices);
  const ratios = context.cpuRatiosByZone;
  const table = ratios ? sharedAllocationTable(context, ratios, observed.readyEndpoints) : null;
  const auto = plainAutoRun({ addressType, slices: allSlices, cpuRatiosByZone: ratios, table, minor, nodeZoneByName: context.nodeZoneByName });
  if (auto === null) return null;
  const run = auto.result;
  const expected: ExpectedHints = {
    addressType,
    applicable: true,
    mechanism: expectedMechanism,
    hintsEnabled: false,
    event: null,
    reason: null,
    allocationsByZone: table?.allocations ?? null,
    minimumTotal: table?.minimumTotal ?? null,
    readyEndpoints: observed.readyEndpoints,
    hintCountsByZone: observed.hintCountsByZone,
    donatedEndpoints: observed.donatedEndpoints,
    donated: [],
    slicesToWrite: 0,
    verdict: NO_HINTS_VERDICT,
  };
  const diff = PLAIN_DIFF;
  const written = run.slicesToWrite > 0;
  const ifAutoPrediction: IfAutoPrediction = {
    change,
    hintsEnabled: run.hintsEnabled,
    event: run.event,
    reason: run.reason,
    hintCountsByZone: written ? auto.hintCountsByZone : observed.hintCountsByZone,
    donatedEndpoints: written ? auto.donated : observed.donatedEndpoints,
  };
  const analysis: ServiceHintsAnalysis = {
    mechanism,
    lints: serviceLints(context, dataplane, service, mechanism, observed.readyEndpoints, allSlices, memo),
    primaryAddressType: addressType,
    byAddressType: [{ addressType, expected, observed, diff }],
    expected,
    observed,
    diff,
    ifAuto: ifAutoPrediction,
    minimumTable: null,
    endpoints: [],
  };

  // 2. Traffic: now (also expected and without hints: no hints now, none expected) and if Auto.
  const proxied = service.clusterIP !== 'None';
  const observedGroups = groupSliceList(allSlices, context.nodeZoneByName, true);
  const now = sharedGroupedFigures(figuresInput(context.proxyRelease, prepared.clients, dataplane.honoursHints, proxied, false, true, proxyServicePort(service, service.annotations, context)), observedGroups);
  const ifAuto = sharedGroupedFigures(
    figuresInput(context.proxyRelease, prepared.clients, dataplane.honoursHints, proxied, false, true, proxyServicePort(service, change.annotations, context)),
    auto.grouped ?? observedGroups,
  );
  if (now === null || ifAuto === null) return null;
  const expectedSummary = expectedSummaryOf(expected);
  return {
    analysis,
    expectedSummary,
    diffSummary: PLAIN_DIFF_SUMMARY,
    slices: { addressType, observed: allSlices, managed: allSlices, expected: allSlices, ifAuto: NO_SLICES, ifAutoResult: run },
    traffic: { now, expected: now, ifAuto, ifNone: now },
    shapeShared: {},
    autoState: run.hintsEnabled ? { traffic: ifAuto, donated: auto.donated } : null,
  };
}

/** The diff of a plain Service (the expected sync writes nothing), and that without its entries: shared (read-only) by every such Service. */
const PLAIN_DIFF: HintsDiff = Object.freeze({ inSync: true, missing: 0, unexpected: 0, stale: 0, entries: Object.freeze([]) });
const PLAIN_DIFF_SUMMARY: ServiceReport['diff'] = Object.freeze({ inSync: true, missing: 0, unexpected: 0, stale: 0 });

/** What the controller and kube-proxy would do with a Service's annotations replaced (see {@link predictWithAnnotations}). */
export interface AnnotationPrediction {
  /** The mechanism that would set hints. */
  readonly mechanism: ServiceHintsAnalysis['mechanism'];
  /** The controller's next sync on the observed slices with those annotations. */
  readonly expected: ServiceHintsAnalysis['expected'];
  /** Traffic once the controller has written that (cross-zone and dropped shares, 0–1, and the client zone → endpoint zone fractions). */
  readonly traffic: Pick<TrafficCommon, 'crossZoneFraction' | 'droppedFraction' | 'matrix'>;
}

/**
 * The same analysis as {@link computeService}'s steps 1–2 on the Service with `annotations` in
 * place of its own (what a patch of the annotations leaves): the whole mechanism precedence
 * (topology annotation, the legacy key that wins over it, trafficDistribution), the controller's
 * next sync on the observed slices, and kube-proxy's routing with the traffic policies — the
 * prediction of the topology-mode toggle for one of its edits.
 */
export function predictWithAnnotations(prepared: PreparedAnalysis, service: ServiceRecord, annotations: Readonly<Record<string, string>>): AnnotationPrediction {
  const allSlices = prepared.context.index.slicesByService.get(serviceKey(service.namespace, service.name)) ?? [];
  const { analysis, traffic } = hintsAndTraffic(prepared, { ...service, annotations }, allSlices, false);
  return {
    mechanism: analysis.mechanism,
    expected: analysis.expected,
    traffic: { crossZoneFraction: traffic.expected.crossZoneFraction, droppedFraction: traffic.expected.droppedFraction, matrix: traffic.expected.matrix },
  };
}

/** Results by Service shape within one cluster pass (see report-shape.ts). */
export type ShapeMemo = ReportShapeMemo<HintsAndTraffic<TrafficCommon>>;

/**
 * The shape memo of a cluster pass, `null` when the preparation shares no shapes (see
 * `withoutShapeSharing`): with a cache, the one kept for the same nodes and cluster-wide inputs
 * but the measured traffic (a shape's hints and traffic figures do not read it: a pass after a new
 * measurement re-prices every Service without running the engine again), else a fresh one.
 */
export function shapeMemoFor(prepared: PreparedAnalysis): ShapeMemo | null {
  if (!prepared.shareShapes) return null;
  const { cache } = prepared;
  return cache ? cache.shapesFor(prepared.context.index.snapshot.nodes, prepared.shapeInputsKey, () => new ReportShapeMemo()) : new ReportShapeMemo();
}

/** The slices of a Service without any (frozen: shared by every such Service). */
export const NO_SLICE_RECORDS: readonly EndpointSliceRecord[] = Object.freeze([]);

/** The ones of `slices` of `addressType`: `slices` itself when all are (the usual case), so nothing is copied. */
function ofAddressType(slices: readonly EndpointSliceRecord[], addressType: AddressType): readonly EndpointSliceRecord[] {
  // Indexed loops here and below: a for…of makes an iterator result per step until the JIT has
  // optimised the function, and these run for every Service of every pass.
  for (let i = 0; i < slices.length; i++) if ((slices[i] as EndpointSliceRecord).addressType !== addressType) return slices.filter((s) => s.addressType === addressType);
  return slices;
}

/** The controller-managed ones of `slices`: `slices` itself when all are (the usual case), so nothing is copied. */
function controllerManaged(slices: readonly EndpointSliceRecord[]): readonly EndpointSliceRecord[] {
  for (let i = 0; i < slices.length; i++) if (!isControllerManaged(slices[i] as EndpointSliceRecord)) return slices.filter(isControllerManaged);
  return slices;
}

/**
 * What a shape memo keeps of a Service's steps 1–2: the other Services of the shape read only the
 * address type and the Auto run of its slices (they take their own observed slices), so the
 * slice lists are not kept alive with it.
 */
function memoEntry(core: HintsAndTraffic<TrafficCommon>): HintsAndTraffic<TrafficCommon> {
  return { ...core, slices: { ...core.slices, observed: NO_SLICE_RECORDS, managed: NO_SLICES, expected: NO_SLICES, ifAuto: NO_SLICES, ifAutoResult: fixAutoRun(core) } };
}

/**
 * The Auto run as the fixes need it: without its slices when findFixes will not read them (the
 * run does not turn hints on, or its state is known: `autoState`), so neither the shape memo nor
 * the fixes cells keep the engine's copies of every endpoint alive.
 */
function fixAutoRun(core: Pick<HintsAndTraffic<TrafficCommon>, 'slices' | 'autoState'>): HintsEngineResult {
  const run = core.slices.ifAutoResult;
  return !run.hintsEnabled || core.autoState !== null ? withoutSlices(run) : run;
}

/**
 * Analyses one Service of a prepared cluster: with `withDetail`, everything the Service view needs
 * (full traffic matrices); otherwise what a cluster-wide report keeps, sharing steps 1–2 with the
 * Services of the same shape in `shapes` (this cluster pass's memo, `null` for none).
 */
export function computeService(prepared: PreparedAnalysis, service: ServiceRecord, withDetail: true): ServiceComputation<TrafficMatrix> & { readonly analysis: ServiceHintsAnalysis };
export function computeService(
  prepared: PreparedAnalysis,
  service: ServiceRecord,
  withDetail: false,
  shapes: ShapeMemo | null,
  knownSlices?: readonly EndpointSliceRecord[],
  knownKey?: string,
  knownMemo?: ServiceRecordMemo,
): ServiceComputation<TrafficFigures>;
export function computeService(
  prepared: PreparedAnalysis,
  service: ServiceRecord,
  withDetail: boolean,
  shapes: ShapeMemo | null = null,
  knownSlices?: readonly EndpointSliceRecord[],
  knownKey?: string,
  knownMemo?: ServiceRecordMemo,
): ServiceComputation<TrafficCommon> {
  return computeServiceInto(serviceParts(), prepared, service, withDetail, shapes, knownSlices, knownKey, knownMemo);
}

/** {@link ServiceComputation} as {@link computeServiceInto} fills it. */
export type ServiceParts = { -readonly [K in keyof ServiceComputation<TrafficCommon>]: ServiceComputation<TrafficCommon>[K] };

/** An unfilled {@link ServiceParts} (one hidden class for every filler). */
export function serviceParts(): ServiceParts {
  return { report: NO_REPORT, needsAttention: null, analysis: undefined, readyEndpoints: 0, traffic: NO_SCENARIOS, cell: null, fixesCell: null, shapeShared: NO_SHAPE_SHARED };
}

const NO_REPORT = {} as ServiceParts['report'];
const NO_SCENARIOS = {} as ServiceParts['traffic'];
const NO_SHAPE_SHARED = {} as ShapeShared;

/**
 * {@link computeService}, its parts written into `out` (returned): the cluster pass passes one
 * record for all its Services and reads each one's parts at once, rather than a fresh object for
 * each of ~10,000 Services a pass.
 */
export function computeServiceInto(
  out: ServiceParts,
  prepared: PreparedAnalysis,
  service: ServiceRecord,
  withDetail: boolean,
  shapes: ShapeMemo | null,
  knownSlices?: readonly EndpointSliceRecord[],
  knownKey?: string,
  knownMemo?: ServiceRecordMemo,
): ServiceParts {
  const { context, dataplane } = prepared;
  // `knownKey`, `knownSlices`, `knownMemo`: the cluster pass has them already (an empty list for a Service without slices).
  const memo = knownMemo ?? serviceMemo(service);
  const key = knownKey ?? serviceRecordKey(service, memo);
  const allSlices = knownSlices ?? context.index.slicesByService.get(key) ?? NO_SLICE_RECORDS;

  // 1–2. Hints and traffic. A report of a Service whose shape was seen in this cluster generation
  // shares that shape's result (see report-shape.ts); only what names the Service is its own.
  const shapeKey = shapes === null || withDetail ? null : reportShapeKey(service, allSlices, context.nodeZoneByName, memo);
  let core = shapeKey === null ? undefined : shapes?.get(shapeKey);
  // What names the Service: its lints (with their commands), the toggle's edit (it carries all of
  // the Service's annotations) and its own slices. Kept apart rather than spread into copies of
  // the shape's objects: this runs for every Service of a pass.
  // A cached cluster pass builds lazy reports (hpa, workload, fixes and the toggle's prediction on first read).
  const lazy = !withDetail && prepared.cache !== undefined;
  let lints: readonly ServiceLint[];
  // `null`: a lazy report of a shape seen before works it out when read (the toggle's edit is this Service's own).
  let ifAutoPrediction: IfAutoPrediction | null;
  let observedSlices: readonly EndpointSliceRecord[];
  let managedSlices: readonly EndpointSlice[];
  if (core === undefined) {
    core = (withDetail ? null : plainHintsAndTraffic(prepared, service, allSlices, memo)) ?? hintsAndTraffic(prepared, service, allSlices, withDetail);
    if (shapeKey !== null) shapes?.set(shapeKey, memoEntry(core));
    lints = core.analysis.lints;
    ifAutoPrediction = core.analysis.ifAuto;
    observedSlices = core.slices.observed;
    managedSlices = core.slices.managed;
  } else {
    const addressType = core.slices.addressType;
    observedSlices = ofAddressType(allSlices, addressType);
    // The shape's engine results carry another Service's endpoints: only their counts and events are read below.
    managedSlices = controllerManaged(observedSlices);
    lints = serviceLints(context, dataplane, service, core.analysis.mechanism, core.analysis.observed.readyEndpoints, allSlices, memo);
    // The toggle's edit carries the Service's own annotations (the shape has only its topology keys):
    // made now for an eager report, on first read for a lazy one (the pass itself never reads it).
    ifAutoPrediction = lazy ? null : withOwnChange(core.analysis.ifAuto, sharedEnableChange(context, service.annotations));
  }
  const { analysis, slices, traffic: scenarios, shapeShared } = core;
  const { now, ifAuto, ifNone } = scenarios;
  const readyEndpoints = analysis.observed.readyEndpoints;
  // The Service's volume (measured, set or assumed) prices its cross-zone share; measured flows also
  // give the share now, and the other scenarios are the model's change applied to the measurement.
  const volume = resolveServiceVolume(key, readyEndpoints, prepared.volume, prepared.measured);
  const gb = volume.gbPerMonth;
  const loadBalancer = analyzeLoadBalancer(context, service, observedSlices, memo);
  const loadBalancerLeg = loadBalancerLegCost(loadBalancer?.leg ?? null, prepared.measured?.byService.get(key)?.externalGbPerMonth ?? null, prepared.pricing);
  // Without a leg of its own, the summary is the shape's figures priced at the volume: Services of
  // the shape with the same (shared, assumed) volume object share one summary.
  const known = shapeShared.summary;
  let traffic: TrafficSummary;
  if (loadBalancerLeg === null && known !== undefined && known.volume === volume && known.pricing === prepared.pricing) traffic = known.traffic;
  else {
    const modelled = scenarios.expected;
    // Priced at the model's shares unless the volume carries a measured matrix (scenarioFractions);
    // the model's shares need no object of their own then (this runs for many Services of a pass).
    const priced =
      volume.measuredMatrix === null
        ? null
        : scenarioFractions(
            { crossZoneFraction: now.crossZoneFraction, crossZoneFractionExpected: modelled.crossZoneFraction, crossZoneFractionIfAuto: ifAuto.crossZoneFraction, crossZoneFractionIfNone: ifNone.crossZoneFraction },
            volume,
            { now: now.matrix, expected: modelled.matrix, ifAuto: ifAuto.matrix, ifNone: ifNone.matrix } satisfies ModelScenarios,
          );
    const atNow = priced === null ? now.crossZoneFraction : priced.now;
    const atExpected = priced === null ? modelled.crossZoneFraction : priced.expected;
    const atIfAuto = priced === null ? ifAuto.crossZoneFraction : priced.ifAuto;
    const atIfNone = priced === null ? ifNone.crossZoneFraction : priced.ifNone;
    // Scenarios often share their fraction (nothing expected to change, no hints now): one lookup each.
    const nowCost = sharedCrossZoneCost(context, prepared.pricing, atNow, gb);
    const expectedCost = atExpected === atNow ? nowCost : sharedCrossZoneCost(context, prepared.pricing, atExpected, gb);
    const ifAutoCost = atIfAuto === atExpected ? expectedCost : sharedCrossZoneCost(context, prepared.pricing, atIfAuto, gb);
    const ifNoneCost = atIfNone === atNow ? nowCost : sharedCrossZoneCost(context, prepared.pricing, atIfNone, gb);
    // Spelled out rather than spread: this object is built for many Services of a pass, and a
    // spread followed by more keys cost ~3 µs each.
    traffic = {
      crossZoneFraction: now.crossZoneFraction,
      crossZoneFractionExpected: modelled.crossZoneFraction,
      crossZoneFractionIfAuto: ifAuto.crossZoneFraction,
      crossZoneFractionIfNone: ifNone.crossZoneFraction,
      droppedFraction: now.droppedFraction,
      maxRelativeLoad: now.maxRelativeLoad,
      volume,
      monthlyCost: { now: nowCost, expected: expectedCost, ifAuto: ifAutoCost, ifNone: ifNoneCost },
      clientShareByZone: now.clientShareByZone,
      loadBalancerLeg,
    };
    if (loadBalancerLeg === null && volume.measuredMatrix === null) shapeShared.summary = { volume, pricing: prepared.pricing, traffic };
  }
  // 3. Workload and HPA: now, or (cluster pass with a cache) on first read.
  // (What Auto would donate follows from the shape: the same for every Service of it.)
  const cell = new WorkloadCell(context, service, allSlices, core.analysis.ifAuto.donatedEndpoints);

  // 4. Fixes (now, or in a cached cluster pass on first read), load-balancer path.
  let fixes: readonly Fix[] | null = null;
  let fixesCell: FixesCell | null = null;
  // No fix is sought for a Service whose hints are expected on or that the controller does not
  // manage (findFixes' own first test): nothing to look for, nothing to defer.
  if (analysis.expected.hintsEnabled || service.selector === null || service.type === 'ExternalName') fixes = NO_FIXES;
  else {
    const source: FixSource = {
      prepared,
      service,
      mechanism: analysis.mechanism,
      addressType: slices.addressType,
      managedSlices,
      ifAutoResult: fixAutoRun(core),
      autoState: core.autoState,
      addressesDistinct: firstAddressesDistinct(allSlices),
      cell,
      volume,
      nowMatrix: now.matrix,
      nowMonthlyCost: traffic.monthlyCost.now.monthlyCost,
    };
    if (lazy) fixesCell = new FixesCell(context, source);
    else fixes = fixesNow(context, source);
  }

  const { diffSummary } = core;
  const unknown = prepared.serviceUnknown;
  // The controller's decision needs the Nodes (CPU ratios) and the endpoints: without them, no verdict.
  const expectedSummary = unknown.expectedHints === undefined ? core.expectedSummary : { ...core.expectedSummary, verdict: unknown.expectedHints };
  // The report is built from its parts directly (no intermediate object: this runs for every
  // Service of a pass), then asked what needs attention, which reads only its fields.
  const lazyReport = new LazyServiceReport(
    service,
    analysis.mechanism,
    lints,
    expectedSummary,
    analysis.observed,
    diffSummary,
    traffic,
    unknown,
    ifAutoPrediction,
    core.analysis.ifAuto,
    context.release.minor,
    cell,
    fixesCell ?? (fixes as readonly Fix[]),
    loadBalancer,
    gitOpsManager(service, memo),
  );
  const needsAttention = attentionFor(lazyReport);
  lazyReport.needsAttention = needsAttention;
  // A cached cluster pass keeps the lazy report; otherwise every field is worked out now, as plain data in the schema's key order.
  const report: Omit<ServiceReport, 'needsAttention'> & { readonly needsAttention?: ServiceAttention | null } = lazy ? lazyReport : lazyReport.toJSON();
  out.report = report;
  out.needsAttention = needsAttention;
  out.analysis = withDetail ? analysis : undefined;
  out.readyEndpoints = readyEndpoints;
  out.traffic = scenarios;
  out.cell = lazy ? cell : null;
  out.fixesCell = fixesCell;
  out.shapeShared = shapeShared;
  return out;
}

/** A shape's toggle prediction with a Service's own annotation edit (`shared` itself when the edit is the same object). */
function withOwnChange(shared: IfAutoPrediction, change: IfAutoPrediction['change']): IfAutoPrediction {
  return change === shared.change
    ? shared
    : { change, hintsEnabled: shared.hintsEnabled, event: shared.event, reason: shared.reason, hintCountsByZone: shared.hintCountsByZone, donatedEndpoints: shared.donatedEndpoints };
}

/**
 * A report whose `hpa` and `workload` are read from `cell` on first access, and `fixes` from its
 * cell when it has one. Built outside computeService, so it keeps only the cells alive — not the
 * engine results of the pass. A class, not an object literal with getters: such a literal costs
 * ~1.7 µs to build (its accessors are defined one by one at run time), ten times a class instance,
 * and a cluster pass builds one per Service. Its `hpa`, `workload` and `fixes` are getters of the
 * class, so `toJSON` writes the report with every field, in the schema's key order; readers use
 * the fields, never the instance's own keys.
 */
class LazyServiceReport implements ServiceReport {
  readonly namespace: string;
  readonly name: string;
  readonly type: ServiceReport['type'];
  readonly mechanism: ServiceReport['mechanism'];
  readonly mechanismDetail: ServiceReport['mechanismDetail'];
  readonly lints: ServiceReport['lints'];
  readonly expected: ServiceReport['expected'];
  readonly observed: ServiceReport['observed'];
  readonly diff: ServiceReport['diff'];
  readonly traffic: ServiceReport['traffic'];
  readonly unknown: ServiceReport['unknown'];
  readonly loadBalancer: LoadBalancerAnalysis | null;
  readonly gitOps: GitOpsManager | null;
  /** Set once, right after construction (it reads the report's own fields: `attentionFor`). */
  needsAttention: ServiceAttention | null = null;
  readonly #cell: WorkloadCell;
  readonly #fixes: FixesCell | readonly Fix[];
  // The toggle's prediction, or (null) what it is made from on first read: the shape's, with this
  // Service's own annotation edit. A cluster pass never reads it, and making the edit for every
  // Service (a copy of its annotations, Helm's included) cost three objects each. Kept as fields,
  // not an object of its own, and with no context, so a report reused by later passes keeps no
  // older preparation alive.
  #ifAuto: IfAutoPrediction | null;
  readonly #sharedIfAuto: IfAutoPrediction;
  readonly #annotations: Readonly<Record<string, string>>;
  readonly #minor: KubeMinor;

  constructor(
    service: ServiceRecord,
    mechanismDetail: ServiceReport['mechanismDetail'],
    lints: ServiceReport['lints'],
    expected: ServiceReport['expected'],
    observed: ServiceReport['observed'],
    diff: ServiceReport['diff'],
    traffic: ServiceReport['traffic'],
    unknown: ServiceReport['unknown'],
    ifAuto: IfAutoPrediction | null,
    sharedIfAuto: IfAutoPrediction,
    minor: KubeMinor,
    cell: WorkloadCell,
    fixes: FixesCell | readonly Fix[],
    loadBalancer: LoadBalancerAnalysis | null,
    gitOps: GitOpsManager | null,
  ) {
    this.namespace = service.namespace;
    this.name = service.name;
    this.type = service.type;
    this.mechanism = mechanismDetail.mechanism;
    this.mechanismDetail = mechanismDetail;
    this.lints = lints;
    this.expected = expected;
    this.observed = observed;
    this.diff = diff;
    this.traffic = traffic;
    this.unknown = unknown;
    this.loadBalancer = loadBalancer;
    this.gitOps = gitOps;
    this.#cell = cell;
    this.#fixes = fixes;
    this.#ifAuto = ifAuto;
    this.#sharedIfAuto = sharedIfAuto;
    this.#annotations = service.annotations;
    this.#minor = minor;
  }

  /** The toggle's prediction: the shape's, with this Service's own annotation edit (made on first read). */
  get ifAuto(): ServiceReport['ifAuto'] {
    this.#ifAuto ??= withOwnChange(this.#sharedIfAuto, topologyAnnotationChange(this.#annotations, this.#minor, true));
    return this.#ifAuto;
  }

  get hpa(): ServiceReport['hpa'] {
    return this.#cell.hpa();
  }

  get workload(): ServiceReport['workload'] {
    return this.#cell.workloadOnly();
  }

  get fixes(): readonly Fix[] {
    const fixes = this.#fixes;
    return fixes instanceof FixesCell ? fixes.fixes() : fixes;
  }

  /** The report as plain data, in the schema's key order (what `JSON.stringify` writes). */
  toJSON(): ServiceReport {
    return {
      namespace: this.namespace,
      name: this.name,
      type: this.type,
      mechanism: this.mechanism,
      mechanismDetail: this.mechanismDetail,
      lints: this.lints,
      expected: this.expected,
      observed: this.observed,
      diff: this.diff,
      ifAuto: this.ifAuto,
      traffic: this.traffic,
      unknown: this.unknown,
      hpa: this.hpa,
      workload: this.workload,
      fixes: this.fixes,
      loadBalancer: this.loadBalancer,
      gitOps: this.gitOps,
      needsAttention: this.needsAttention,
    };
  }
}

/**
 * The traffic model of a state a fix leaves (see `FixInput.trafficAfter`): kube-proxy's selection
 * on the fixed slices' hints with the fixed annotations, for the preparation's clients, as figures
 * (fractions of the Service's traffic). `addressesDistinct`: no two of the Service's observed
 * endpoints share a first address; a fixed state keeps that (its endpoints are some of them with
 * other hints or a zone filled in, plus simulated ones whose `added-<zone>-<n>` addresses are no IP
 * address and differ from each other), so no repeat is looked for.
 */
function fixTrafficModel(prepared: PreparedAnalysis, service: ServiceRecord, addressesDistinct: boolean): (state: FixedState) => FixTrafficModel | null {
  // Only a forwarder: a closure's optimised code goes with the last closure made from it, and
  // every Service's fixes make one.
  return (state) => fixedStateTraffic(prepared, service, addressesDistinct, state);
}

/** {@link fixTrafficModel}'s model of one fixed state. */
function fixedStateTraffic(prepared: PreparedAnalysis, service: ServiceRecord, addressesDistinct: boolean, state: FixedState): FixTrafficModel | null {
  if (service.type === 'ExternalName') return null;
  const { context, dataplane } = prepared;
  const release = state.gatesOn ? proxyReleaseWithHintsGate(context.proxyRelease) : context.proxyRelease;
  const input = figuresInput(release, prepared.clients, dataplane.honoursHints, service.clusterIP !== 'None', false, true, proxyServicePort(service, state.annotations, context));
  // Equal fixed states share one figures object (the memo of the scenarios, per clients and
  // release; the gate change keyed apart), computed on one endpoint per shape.
  if (state.grouped !== undefined && input.service.internalTrafficPolicy === 'Local') throw new Error('fix traffic model: grouped endpoints cannot be evaluated node by node');
  const grouped = input.service.internalTrafficPolicy === 'Local' ? null : (state.grouped ?? groupSliceList(state.slices, context.nodeZoneByName, addressesDistinct));
  const figures =
    (grouped === null ? null : sharedGroupedFigures(input, grouped, state.gatesOn ? 'gates-on|' : '')) ??
    computeTrafficFigures({ ...input, endpoints: toTrafficEndpoints(state.slices, context.nodeZoneByName, addressesDistinct) });
  return { crossZoneFraction: figures.crossZoneFraction, droppedFraction: figures.droppedFraction, matrix: figures.matrix };
}
