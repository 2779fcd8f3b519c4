/**
 * The cluster pass: every Service's report (sorted by namespace and name), the attention list, the
 * summary and the rule estimates, on top of the per-cluster preparation — the analyze JSON (see
 * analysis-schema.ts and `docs/analyze-schema.md`). With a cache, Services whose inputs did not
 * change keep their previous result.
 */
import type { RuleEstimateService } from '../analyses/rule-estimates';
import { estimateRules } from '../analyses/rule-estimates';
import type { ServiceMechanism } from '../analyses/service-mechanism';
import type { TrafficFigures } from '../analyses/traffic';
import type { AnalysisOptions } from '../model/cluster-context';
import { serviceKey } from '../model/cluster-context';
import type { ClusterIndex, ServiceRecord } from '../model/cluster-model';
import type { ClusterAnalysis, ServiceAttention, ServiceReport } from './analysis-schema';
import { ANALYSIS_SCHEMA } from './analysis-schema';
import type { PreparedAnalysis } from './prepared-analysis';
import { prepareAnalysis } from './prepared-analysis';
import type { ShapeMemo } from './service-computation';
import { computeService, shapeMemoFor } from './service-computation';
import type { WorkloadCell } from './workload-cell';

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
      shapes ??= shapeMemoFor(prepared);
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
      summary: { services: reports.length, byMechanism, hintsExpectedOn, hintsObservedOn, needingAttention: needsAttention.length },
      needsAttention,
      unknown: prepared.clusterUnknown,
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
