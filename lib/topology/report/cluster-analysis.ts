/**
 * The cluster pass: every Service's report (sorted by namespace and name), the attention list, the
 * summary and the rule estimates, on top of the per-cluster preparation — the analyze JSON (see
 * analysis-schema.ts and `docs/analyze-schema.md`). With a cache, Services whose inputs did not
 * change keep their previous result.
 */
import type { ServiceFlow, ServiceFlowScenario } from '../analyses/cluster-traffic';
import { computeClusterTraffic } from '../analyses/cluster-traffic';
import type { RuleEstimateService } from '../analyses/rule-estimates';
import { estimateRules } from '../analyses/rule-estimates';
import type { ServiceMechanism } from '../analyses/service-mechanism';
import type { TrafficFigures } from '../analyses/traffic';
import { serviceRecordKey } from '../model/cluster-context';
import type { ClusterIndex, EndpointSliceRecord, ServiceRecord } from '../model/cluster-model';
import type { CrossZonePricing, PriceSetting } from '../model/cloud-pricing';
import { resolvePricing } from '../model/cloud-pricing';
import type { MeasuredTraffic, VolumeSettings } from '../analyses/traffic-volume';
import { fixAfterMatrix } from '../analyses/fixes';
import type { AnalysisCache } from './analysis-cache';
import { attentionByMoney } from './attention';
import { sameItems } from './analysis-cache';
import type { ClusterAnalysis, ServiceAttention, ServiceReport } from './analysis-schema';
import { ANALYSIS_SCHEMA } from './analysis-schema';
import type { ClusterAnalysisOptions, PreparedAnalysis } from './prepared-analysis';
import { prepareAnalysis } from './prepared-analysis';
import type { FixesCell, PrimaryFix, ShapeShared, ShapeFlow, ShapeMemo } from './service-computation';
import { computeServiceInto, NO_SLICE_RECORDS, primaryFixSharable, serviceParts, shapeMemoFor } from './service-computation';
import type { WorkloadCell } from './workload-cell';
import { serviceMemo, type ServiceRecordMemo } from '../model/record-memo';

const NORMALISED = new WeakMap<TrafficFigures, ServiceFlowScenario>();

/** Σ of the client shares of a scenario's figures (1 unless per-zone overrides name every zone and sum to less). */
function clientShareTotal(figures: Pick<TrafficFigures, 'clientShareByZone'>): number {
  let total = 0;
  for (const zone in figures.clientShareByZone) total += figures.clientShareByZone[zone] as number;
  return total;
}

/** `matrix` divided by `total` (the client shares' sum), as the model's cross-zone fraction is. */
function normalisedMatrix(matrix: TrafficFigures['matrix'], total: number): TrafficFigures['matrix'] {
  if (total <= 0 || Math.abs(total - 1) < 1e-9) return matrix;
  const out: Record<string, Record<string, number>> = {};
  for (const client in matrix) {
    const row: Record<string, number> = {};
    for (const zone in matrix[client]) row[zone] = (matrix[client]?.[zone] as number) / total;
    out[client] = row;
  }
  return out;
}

/**
 * A scenario's figures as fractions of the Service's traffic. Client shares sum to 1 except when
 * per-zone overrides name every zone and sum to less; the matrix is then divided by their sum, as
 * the model's cross-zone fraction is. Figures are shared between Services, and so is this.
 */
function flowScenario(figures: TrafficFigures): ServiceFlowScenario {
  const total = clientShareTotal(figures);
  if (total <= 0 || Math.abs(total - 1) < 1e-9) return figures;
  let scenario = NORMALISED.get(figures);
  if (!scenario) {
    scenario = { crossZoneFraction: figures.crossZoneFraction, matrix: normalisedMatrix(figures.matrix, total) };
    NORMALISED.set(figures, scenario);
  }
  return scenario;
}

const FIX_SCENARIOS = new WeakMap<TrafficFigures['matrix'], ServiceFlowScenario>();

/** A fix's `after` as a flow scenario, one object per fix matrix (equal fixed states share one), so Services add up alike however they group. */
function fixScenario(crossZoneFraction: number, matrix: TrafficFigures['matrix'], shareTotal: number): ServiceFlowScenario {
  let scenario = FIX_SCENARIOS.get(matrix);
  if (!scenario) {
    scenario = { crossZoneFraction, matrix: normalisedMatrix(matrix, shareTotal) };
    FIX_SCENARIOS.set(matrix, scenario);
  }
  return scenario;
}

/**
 * A Service's share of a cluster pass, one object per Service (the cache keeps it while the
 * Service's inputs stay the same): its report, its flow for the cluster-wide traffic figures, its
 * entry of the attention list and its input to the rule estimates. The primary fix (its title and
 * the traffic after it) is read only for the Services with something to save and those the traffic
 * block lists, so it is looked up then: with lazy fixes (a cached pass), the fixes are found at that moment.
 */
class PassFlow implements ServiceFlow, RuleEstimateService {
  // What the shape and the record share are kept by reference (the shape's flow, the record's rule
  // input), not copied field by field: a pass keeps ~10,000 of these, and each field more is copied
  // by every young-generation collection while the pass runs.
  readonly #shapeFlow: ShapeFlow;
  readonly #shapeShared: ShapeShared;
  readonly #rules: RuleInput;
  #primary: PrimaryFix | null | undefined;
  readonly loadBalancerCrossZoneFraction: number | null;
  /** Its entry of `cluster.needsAttention`, `null` when it needs none. */
  readonly attention: (ServiceAttention & { readonly namespace: string; readonly name: string }) | null;
  /** Endpoints kube-proxy counts as usable now. */
  readonly endpoints: number;

  constructor(
    readonly report: ServiceReport,
    readonly key: string,
    readonly readyEndpoints: number,
    service: ServiceRecord,
    memo: ServiceRecordMemo,
    loadedEndpoints: number,
    shapeFlow: ShapeFlow,
    shapeShared: ShapeShared,
    /** The report's lazy workload cell, rebound to each newer context while the entry is reused. */
    readonly cell: WorkloadCell | null,
    /** The report's lazy fixes, rebound likewise. */
    readonly fixesCell: FixesCell | null,
    needsAttention: ServiceAttention | null,
  ) {
    this.#shapeFlow = shapeFlow;
    this.#shapeShared = shapeShared;
    this.#rules = ruleInputOf(service, memo);
    this.#primary = report.unknown.fixes !== undefined ? null : undefined;
    this.loadBalancerCrossZoneFraction = report.loadBalancer?.leg?.crossZoneFraction ?? null;
    this.attention = needsAttention === null ? null : { namespace: report.namespace, name: report.name, ...needsAttention };
    this.endpoints = loadedEndpoints;
  }

  get namespace(): string {
    return this.report.namespace;
  }

  get name(): string {
    return this.report.name;
  }

  get now(): ServiceFlowScenario {
    return this.#shapeFlow.now;
  }

  get expected(): ServiceFlowScenario {
    return this.#shapeFlow.expected;
  }

  get ifAuto(): ServiceFlowScenario {
    return this.#shapeFlow.ifAuto;
  }

  get endpointsPerNode(): number {
    return this.#shapeFlow.endpointsPerNode;
  }

  /** Whether kube-proxy programs the Service (not ExternalName, not headless): only then is it an input to the rule estimates. */
  get programmed(): boolean {
    return this.#rules.programmed;
  }

  get ports(): number {
    return this.#rules.ports;
  }

  get nodePorts(): number {
    return this.#rules.nodePorts;
  }

  get externalAddresses(): number {
    return this.#rules.externalAddresses;
  }

  get externalTrafficPolicyLocal(): boolean {
    return this.#rules.externalTrafficPolicyLocal;
  }

  /** The primary fix: the one its shape's first Service found when it may be shared (see `ShapeShared.primary`), else its own. */
  private primary(): PrimaryFix | null {
    if (this.#primary === undefined) {
      const shared = this.#shapeShared;
      if (shared.primary !== undefined) this.#primary = shared.primary;
      else {
        const own = this.fixesCell !== null ? this.fixesCell.primary() : (this.report.fixes.find((candidate) => candidate.primary) ?? null);
        if (primaryFixSharable(own)) shared.primary = own;
        this.#primary = own;
      }
    }
    return this.#primary;
  }

  get fix(): string | null {
    return this.primary()?.title ?? null;
  }

  /** The traffic after the primary fix: found once per Service shape in a pass (the same for every Service of it). */
  get fixAfter(): ServiceFlowScenario | null {
    const shared = this.#shapeShared;
    if (shared.after === undefined) {
      const fix = this.primary();
      const matrix = fix === null ? null : fixAfterMatrix(fix);
      shared.after = fix === null || fix.after === null || matrix === null ? null : fixScenario(fix.after.crossZoneFraction, matrix, this.#shapeFlow.shareTotal);
    }
    return shared.after;
  }
}

/** What the pass derives from a shape's figures (see `ShapeFlow`). */
function shapeFlowOf(traffic: Readonly<Record<'now' | 'expected' | 'ifAuto', TrafficFigures>>): ShapeFlow {
  return {
    now: flowScenario(traffic.now),
    expected: flowScenario(traffic.expected),
    ifAuto: flowScenario(traffic.ifAuto),
    shareTotal: clientShareTotal(traffic.now),
    endpointsPerNode: endpointsPerNode(traffic.now, traffic.now.loadedEndpoints),
  };
}

/** The parts of the Service being computed (see {@link clusterPassResult}). */
const PARTS = serviceParts();

function clusterPassResult(prepared: PreparedAnalysis, service: ServiceRecord, key: string, memo: ServiceRecordMemo, shapes: ShapeMemo | null, slices: readonly EndpointSliceRecord[]): PassFlow {
  // One record for the parts of every Service of the pass, read at once below (not re-entrant).
  const { report: partial, needsAttention, traffic: scenarios, cell, fixesCell, readyEndpoints, shapeShared } = computeServiceInto(PARTS, prepared, service, false, shapes, slices, key, memo);
  const traffic = scenarios as Readonly<Record<'now' | 'expected' | 'ifAuto' | 'ifNone', TrafficFigures>>;
  // A lazy report is final as built (spreading it would evaluate its getters).
  const report: ServiceReport = cell ? (partial as ServiceReport) : { ...partial, needsAttention };
  // Services of one shape share its figures, so what follows from them alone is worked out once.
  const shapeFlow = (shapeShared.flow ??= shapeFlowOf(traffic));
  return new PassFlow(report, key, readyEndpoints, service, memo, traffic.now.loadedEndpoints, shapeFlow, shapeShared, cell, fixesCell, needsAttention);
}

function nodePortCount(service: ServiceRecord): number {
  let count = 0;
  for (const port of service.ports) if ((port.nodePort ?? 0) !== 0) count++;
  return count;
}

/** What the rule estimates read of a Service record (see `PassFlow`). */
type RuleInput = Pick<RuleEstimateService, 'ports' | 'nodePorts' | 'externalAddresses' | 'externalTrafficPolicyLocal'> & { readonly programmed: boolean };

/** The record's {@link RuleInput}, read once per record (kept in its memo): a pass would otherwise walk its ports again. */
function ruleInputOf(service: ServiceRecord, memo: ServiceRecordMemo): RuleInput {
  let input = memo.ruleInput as RuleInput | undefined;
  if (input === undefined) {
    input = {
      programmed: service.type !== 'ExternalName' && service.clusterIP !== 'None',
      ports: Math.max(1, service.ports.length),
      nodePorts: nodePortCount(service),
      externalAddresses: service.loadBalancerIngress.length + service.externalIPs.length,
      externalTrafficPolicyLocal: service.externalTrafficPolicy === 'Local',
    };
    memo.ruleInput = input;
  }
  return input;
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
 * Progress of a cluster pass driven step by step (see {@link analyzeClusterSteps}): one object per
 * pass, whose figures each step brings up to date.
 */
export interface ClusterPassProgress {
  /** Services whose report is in place so far (computed or reused). */
  readonly done: number;
  /** Services in the pass. */
  readonly total: number;
  /** Services computed so far (not reused from the cache). */
  readonly computed: number;
}

/** A cluster pass's Services in report order, with their keys and slices (see {@link passOrder}). */
interface PassOrder {
  readonly services: readonly ServiceRecord[];
  readonly keys: readonly string[];
  /** Each Service's record memo (see model/record-memo.ts), by position. */
  readonly memos: readonly ServiceRecordMemo[];
  /** The slice lists of `bySlices`, by position; `undefined` for a Service without any. */
  readonly slices: readonly (readonly EndpointSliceRecord[] | undefined)[];
  readonly bySlices: ClusterIndex['slicesByService'];
}

/** By the snapshot's Service list: sorted, keyed and with the slices of the index it was last asked with. */
const PASS_ORDERS = new WeakMap<readonly ServiceRecord[], PassOrder>();

const byNamespaceAndName = (a: ServiceRecord, b: ServiceRecord) =>
  a.namespace === b.namespace ? (a.name < b.name ? -1 : a.name > b.name ? 1 : 0) : a.namespace < b.namespace ? -1 : 1;

/**
 * The index's Services sorted by namespace and name, with each one's key and slice list: kept
 * while the Service list is the same array and (for the slices) the slices map the same object,
 * as after a Node change, so a pass neither sorts nor looks 10,000 Services up again.
 */
function passOrder(index: ClusterIndex): PassOrder {
  const list = index.snapshot.services;
  const known = PASS_ORDERS.get(list);
  if (known !== undefined && known.bySlices === index.slicesByService) return known;
  const services = known?.services ?? [...list].sort(byNamespaceAndName);
  const memos = known?.memos ?? services.map(serviceMemo);
  const keys = known?.keys ?? services.map((service, at) => serviceRecordKey(service, memos[at]));
  const order: PassOrder = { services, keys, memos, slices: keys.map((key) => index.slicesByService.get(key)), bySlices: index.slicesByService };
  PASS_ORDERS.set(list, order);
  return order;
}

/**
 * Analyzes a prepared cluster: zones and eligibility, dataplane, rule estimates, and every Service
 * (sorted by namespace and name) with the attention list.
 */
export function analyzeClusterIn(prepared: PreparedAnalysis): ClusterAnalysis {
  const steps = analyzeClusterSteps(prepared);
  for (;;) {
    const step = steps.next();
    if (step.done === true) return step.value;
  }
}

/**
 * {@link analyzeClusterIn} as a generator that yields its progress after every Service it computes
 * (reused Services yield nothing) and once more before the cluster totals, and returns the same
 * analysis. A caller can stop between steps
 * to let other work run (the engine has no clock: when to stop is the caller's decision), or drop
 * the generator: the cache then holds the Services computed so far, each under its own inputs.
 * The preparation must not change while the generator is alive.
 */
export function* analyzeClusterSteps(prepared: PreparedAnalysis): Generator<ClusterPassProgress, ClusterAnalysis, void> {
  const { context, cache } = prepared;
  cache?.sync(context);
  const order = passOrder(context.index);
  const services = order.services;
  // A cache with nothing stored since the last cluster-wide change (the first pass, or a Node
  // change) has nothing to give this pass either: each Service comes once.
  const lookUp = cache !== undefined && cache.hasReports;
  const reports: ServiceReport[] = [];
  const ruleInputs: RuleEstimateService[] = [];
  const byMechanism: Record<ServiceMechanism, number> = { 'topology-mode': 0, 'legacy-annotation': 0, trafficDistribution: 0, none: 0 };
  let hintsExpectedOn = 0;
  let hintsObservedOn = 0;
  let computed = 0;
  let shapes: ShapeMemo | null | undefined;
  const needsAttention: (ServiceAttention & { readonly namespace: string; readonly name: string })[] = [];
  const flows: ServiceFlow[] = [];
  // One progress object, updated before each step (a pass steps ~10,000 times): a reader sees the
  // latest figures through it.
  const progress: { done: number; total: number; computed: number } = { done: 0, total: services.length, computed: 0 };
  for (let at = 0; at < services.length; at++) {
    const service = services[at] as ServiceRecord;
    const key = order.keys[at] as string;
    const slices = order.slices[at];
    const memo = order.memos[at] as ServiceRecordMemo;
    let result = lookUp ? cache.report<PassFlow>(memo, service, slices) : undefined;
    if (result !== undefined) {
      result.cell?.rebind(context);
      result.fixesCell?.rebind(context);
    } else {
      // With a cache, kept while the nodes and the cluster-wide inputs but the measurement stay the same.
      shapes ??= shapeMemoFor(prepared);
      result = clusterPassResult(prepared, service, key, memo, shapes, slices ?? NO_SLICE_RECORDS);
      computed++;
      cache?.storeReport(memo, service, slices, result);
      progress.done = reports.length + 1;
      progress.computed = computed;
      yield progress;
    }
    const { report, attention } = result;
    reports.push(report);
    flows.push(result);
    if (attention) needsAttention.push(attention);
    byMechanism[report.mechanism]++;
    if (report.expected.hintsEnabled) hintsExpectedOn++;
    if (report.observed.hintsPresent) hintsObservedOn++;
    if (result.programmed) ruleInputs.push(result);
  }
  // The parts record holds nothing of this pass once its Services are done (it would keep the last one's context alive).
  Object.assign(PARTS, serviceParts());
  // The totals below (rule estimates, the cluster traffic block) are one more step of their own
  // when anything was computed, so a caller slicing the pass can run other work before them.
  if (computed > 0) {
    progress.done = services.length;
    progress.computed = computed;
    yield progress;
  }
  const zones = prepared.zones;
  const passTraffic = clusterTraffic(prepared, flows);
  const attentionList = attentionByMoney(needsAttention, passTraffic.result.byService, prepared.attentionMinSaving);
  const analysis: ClusterAnalysis = {
    schema: ANALYSIS_SCHEMA,
    kubernetes: prepared.kubernetes,
    assumptions: prepared.assumptions,
    unreadable: prepared.unreadable,
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
      summary: { services: reports.length, byMechanism, hintsExpectedOn, hintsObservedOn, needingAttention: attentionList.length },
      needsAttention: attentionList,
      unknown: prepared.clusterUnknown,
    },
    traffic: passTraffic.result.report,
    services: reports,
  };
  // On the analysis itself (a registered symbol, not enumerable, so never in the JSON): a server
  // bundle may load this module more than once, and a module-local map would then miss an
  // analysis built by the other copy.
  Object.defineProperty(analysis, FLOWS, { value: flows, enumerable: false });
  Object.defineProperty(analysis, PASS_TRAFFIC, { value: passTraffic, enumerable: false });
  if (cache) cache.lastRun = { services: services.length, computed, reused: services.length - computed, full: cache.isFullPass };
  return analysis;
}

const FLOWS = Symbol.for('zonescope.serviceFlows');

/** The traffic block of a cache's last pass, with what it was computed from. */
const LAST_TRAFFIC = new WeakMap<AnalysisCache, PassTraffic & { readonly flows: readonly ServiceFlow[] }>();

/** A pass's cluster-wide traffic figures (the block and every Service's row), with the settings and measurement they were computed with. */
export interface PassTraffic {
  readonly volume: PreparedAnalysis['volume'];
  readonly measured: PreparedAnalysis['measured'];
  readonly result: ReturnType<typeof computeClusterTraffic>;
}

const PASS_TRAFFIC = Symbol.for('zonescope.passTraffic');

/**
 * The cluster-wide traffic block of a pass. With a cache, a pass that reused every Service's flow
 * (the same objects, in the same order) under the same settings and measurement gets the previous
 * block: nothing it sums changed.
 */
function clusterTraffic(prepared: PreparedAnalysis, flows: readonly ServiceFlow[]): PassTraffic {
  const { cache } = prepared;
  const last = cache ? LAST_TRAFFIC.get(cache) : undefined;
  if (last && last.volume === prepared.volume && last.measured === prepared.measured && sameItems(last.flows, flows)) return last;
  const computed: PassTraffic = { volume: prepared.volume, measured: prepared.measured, result: computeClusterTraffic(flows, prepared.volume, prepared.measured, prepared.pricing) };
  if (cache) LAST_TRAFFIC.set(cache, { ...computed, flows });
  return computed;
}

/**
 * The traffic figures a pass computed for its `traffic` block, every Service's row included (a
 * reader with the same settings and measurement needs not compute them again); `null` for an
 * analysis not built by {@link analyzeClusterIn}.
 */
export function passTrafficOf(analysis: ClusterAnalysis): PassTraffic | null {
  return (analysis as unknown as { readonly [PASS_TRAFFIC]?: PassTraffic })[PASS_TRAFFIC] ?? null;
}

/**
 * The per-Service zone fractions a cluster pass kept (sorted like `analysis.services`), for
 * `computeClusterTraffic` with other volume settings or measurements than the analysis was run
 * with. Empty for an analysis not built by {@link analyzeClusterIn} (e.g. parsed from JSON).
 */
export function serviceFlowsOf(analysis: ClusterAnalysis): readonly ServiceFlow[] {
  return (analysis as unknown as { readonly [FLOWS]?: readonly ServiceFlow[] })[FLOWS] ?? [];
}

/**
 * Analyzes a whole cluster: `cluster` (zones, eligibility, dataplane, rule estimates, attention
 * list), `traffic` (the cluster's zone traffic and its cost) and `services[]`, as documented in
 * `docs/analyze-schema.md`.
 */
export function analyzeCluster(index: ClusterIndex, options: ClusterAnalysisOptions = {}): ClusterAnalysis {
  return analyzeClusterIn(prepareAnalysis(index, options));
}

/** The pricing of an analysis' cluster (its detected platform) under `setting` (`null`: the platform's own). */
export function pricingOf(analysis: ClusterAnalysis, setting: PriceSetting | null): CrossZonePricing {
  const { platform } = analysis.cluster.dataplane;
  return resolvePricing(platform.platform, platform.evidence, setting);
}

/**
 * `computeClusterTraffic` of an analysis with other volume settings or another measurement than
 * its pass used, priced for its cluster (see {@link pricingOf}).
 */
export function clusterTrafficOf(analysis: ClusterAnalysis, settings: VolumeSettings, measured: MeasuredTraffic | null): ReturnType<typeof computeClusterTraffic> {
  return computeClusterTraffic(serviceFlowsOf(analysis), settings, measured, pricingOf(analysis, settings.priceSetting));
}
