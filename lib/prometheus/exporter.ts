/**
 * The Prometheus exposition of `GET /metrics` (text format 0.0.4): per-Service hint state,
 * endpoints, cross-zone share and cost; the cluster's eligibility, zones, totals and spend; the
 * informers' health; prom-client's default `process_*` / `nodejs_*` metrics. Series names, labels
 * and meanings are in docs/metrics.md.
 *
 * Two parts with different costs:
 *
 * - The **per-Service block** (about 14 series per Service, 10,000 Services at size L) depends only
 *   on the analysis object and the traffic figures object, both memoised per cluster generation /
 *   Prometheus answer by lib/views. It is rendered once per (analysis, traffic figures, cap) and
 *   kept as UTF-8 bytes ({@link serviceBlock}): a scrape of an unchanged cluster sends those bytes
 *   again. Each Service's lines are also kept with its report object, which the engine reuses for
 *   unchanged Services across generations, so a render after a change writes only what changed.
 *   It is written directly in prom-client's text format (same HELP/TYPE lines, label escaping and
 *   number formatting) rather than through `Gauge.set()` per label set, which is several times
 *   slower at that size and formats everything again per scrape (figures in docs/metrics.md).
 * - The **cluster block** (a few dozen series: cluster, zones, totals, informers, sync age) is built
 *   per scrape with prom-client `Gauge`s on a fresh `Registry`, and prom-client's default metrics
 *   come from one registry created once per process.
 *
 * Never reads the environment, the clock or the cluster itself: lib/views/metrics-endpoint.ts
 * gathers the inputs.
 */
import { collectDefaultMetrics, Gauge, Registry } from 'prom-client';

import packageJson from '../../package.json';
import type { ResourceStatus } from '../k8s/informer';
import { UNKNOWN_ZONE } from '../topology/analyses/traffic';
import type { ClusterTrafficReport, ServiceTrafficCost, VolumeSourceKind } from '../topology/analyses/traffic-volume';
import type { ClusterAnalysis, ServiceReport } from '../topology/report/analysis-schema';
import { hintsReasonCode, hintsRequested } from '../topology/report/hints-reason';

/** The response's content type (Prometheus text format 0.0.4). */
export const METRICS_CONTENT_TYPE = Registry.PROMETHEUS_CONTENT_TYPE;

/** Default of `ZONESCOPE_METRICS_MAX_SERVICES`. */
export const DEFAULT_MAX_SERVICES = 20_000;

/** At most this many `zonescope_cluster_ineligible_node_info` series. */
export const MAX_INELIGIBLE_NODE_SERIES = 50;

/** Seconds in the 30-day month the GB/month figures are per. */
const SECONDS_PER_MONTH = 30 * 24 * 3600;

/** GB (10⁹ bytes) per 30-day month → bytes per second. */
export function gbPerMonthToBytesPerSecond(gbPerMonth: number): number {
  return (gbPerMonth * 1e9) / SECONDS_PER_MONTH;
}

/** The cluster-wide traffic figures the pages show (lib/views/traffic.ts `getClusterTraffic`). */
export interface ExporterTraffic {
  readonly report: ClusterTrafficReport;
  readonly byService: ReadonlyMap<string, ServiceTrafficCost>;
}

/** Everything one scrape renders. */
export interface ExporterInput {
  /** The memoised analysis; `null` while the first sync runs (cluster block only). */
  readonly analysis: ClusterAnalysis | null;
  /** The memoised traffic figures (measured where Prometheus has series); `null` → the analysis's own. */
  readonly traffic: ExporterTraffic | null;
  readonly statuses: readonly ResourceStatus[];
  readonly synced: boolean;
  /** The display name the header shows (`null`: unnamed). */
  readonly clusterName: string | null;
  /** The Prometheus traffic source's last refresh: `true` succeeded, `false` failed, `null` not configured / none yet. */
  readonly trafficSourceUp: boolean | null;
  /** `ZONESCOPE_CROSS_ZONE_BUDGET_DOLLARS`, `null` when unset or invalid. */
  readonly budgetDollarsPerMonth: number | null;
  /** `ZONESCOPE_METRICS_MAX_SERVICES`. */
  readonly maxServices: number;
  /** The scrape's time (ms since the epoch). */
  readonly nowMs: number;
  /** Append prom-client's default process/nodejs metrics (default `true`). */
  readonly defaultMetrics?: boolean;
}

// ---------------------------------------------------------------------------------------------
// Text format (as prom-client writes it).

/** A HELP text escaped as prom-client does (`\` and newline). */
export function escapeHelp(text: string): string {
  return text.replace(/\\/g, '\\\\').replace(/\n/g, '\\n');
}

const NEEDS_ESCAPE = /[\\"\n]/;

/** A label value escaped as prom-client does (`\`, `"`, newline). */
export function escapeLabelValue(value: string): string {
  if (!NEEDS_ESCAPE.test(value)) return value;
  return value.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/"/g, '\\"');
}

/** A sample value as prom-client formats it. */
export function formatValue(value: number): string {
  if (Number.isNaN(value)) return 'Nan';
  if (!Number.isFinite(value)) return value < 0 ? '-Inf' : '+Inf';
  return `${value}`;
}

// ---------------------------------------------------------------------------------------------
// Per-Service block.

/** The per-Service block of one (analysis, traffic figures, cap), with its aggregates. */
export interface ServiceBlock {
  /** The text as UTF-8 (families separated by a blank line, ending in a newline); empty when there are no Services. */
  readonly bytes: Uint8Array;
  /** The same as a string (decoded when first read). */
  readonly text: string;
  /** Services with per-Service series / left out by the cap. */
  readonly exported: number;
  readonly omitted: number;
  /** Sample lines written. */
  readonly series: number;
  /** Over every Service (exported or not): `hints_expected` 1, and hints on now (observed ratio 1). */
  readonly hintsExpected: number;
  readonly hintsObserved: number;
}

/** Normalised `spec.trafficDistribution` for the `traffic_distribution` label. */
export function trafficDistributionLabel(value: string | null): string {
  if (value === null || value === '') return '';
  return value === 'PreferClose' || value === 'PreferSameZone' || value === 'PreferSameNode' ? value : 'other';
}

/** Normalised topology annotation value (the key that counts) for the `topology_mode` label. */
export function topologyModeLabel(value: string | null): string {
  if (value === null || value === '') return '';
  return value === 'Auto' || value === 'auto' || value === 'Disabled' || value === 'disabled' || value === 'PreferZone' ? value : 'other';
}

const SOURCE_LABEL: Readonly<Record<VolumeSourceKind, string>> = {
  'measured-flows': 'measured-flows',
  'measured-pod-bytes': 'pod-bytes',
  set: 'set',
  assumed: 'assumed',
};

/** Share of ready endpoints carrying a zone hint on the slices now (0 without ready endpoints). */
export function observedHintsRatio(report: Pick<ServiceReport, 'observed'>): number {
  const { readyEndpoints, readyEndpointsWithoutHints } = report.observed;
  return readyEndpoints === 0 ? 0 : (readyEndpoints - readyEndpointsWithoutHints) / readyEndpoints;
}

function serviceKey(report: Pick<ServiceReport, 'namespace' | 'name'>): string {
  return `${report.namespace}/${report.name}`;
}

/** The Services that get series when there are more than `max`: asking for hints or needing attention first, then cross-zone $ descending, then namespace/name. */
export function servicesWithinCap(reports: readonly ServiceReport[], costOf: (report: ServiceReport) => number, max: number): readonly ServiceReport[] {
  if (reports.length <= max) return reports;
  const ranked = reports.map((report, order) => ({ order, first: hintsRequested(report) || report.needsAttention !== null ? 0 : 1, cost: costOf(report) }));
  ranked.sort((a, b) => a.first - b.first || b.cost - a.cost || a.order - b.order);
  const kept = new Set(ranked.slice(0, Math.max(0, max)).map((r) => r.order));
  // Keep the analysis's order (namespace, name) in the output.
  return reports.filter((_, order) => kept.has(order));
}

/** The per-Service families, in output order. */
const SERVICE_FAMILIES = [
  ['zonescope_service_info', 'A Service: its type, the mechanism that sets its hints, spec.trafficDistribution and the topology annotation value in effect (normalised). Always 1.'],
  ['zonescope_service_hints_requested', 'Whether the Service asks for hints (a mechanism in effect, or an Auto annotation even where it does nothing).'],
  ['zonescope_service_hints_expected', 'Whether the EndpointSlice controller should write hints on its next sync.'],
  ['zonescope_service_hints_observed_ratio', 'Share of ready endpoints carrying a zone hint on the slices now: 1 on, 0 off, between partial (kube-proxy ignores partial hints).'],
  ['zonescope_service_hints_in_sync', 'Whether the hints on the slices equal what the controller is expected to write, endpoint by endpoint.'],
  ['zonescope_service_hints_reason_info', 'Why the hints are what they are, as a bounded code (docs/metrics.md). Always 1; one series per Service.'],
  ['zonescope_service_ready_endpoints', 'Ready endpoints of the Service in the zone ("unknown": endpoints without a zone).'],
  ['zonescope_service_zone_minimum_endpoints', "The Auto heuristic's per-zone minimum, ceil(total × CPU ratio / 1.2); only where Auto allocates and the cluster has CPU ratios."],
  ['zonescope_service_donated_endpoints', 'Endpoints the controller is expected to hint for another zone than their own.'],
  ['zonescope_service_predicted_cross_zone_ratio', "Predicted share of the Service's traffic crossing zones now (0-1), following the hints on the slices as kube-proxy does."],
  ['zonescope_service_measured_cross_zone_ratio', "Measured share of the Service's traffic crossing zones (0-1); only when Prometheus has zone-resolved flows for it."],
  ['zonescope_service_traffic_bytes_per_second', "The Service's traffic volume used for cost, in bytes per second; source says where it comes from."],
  ['zonescope_service_cross_zone_cost_dollars_per_month', "USD per month of the Service's cross-zone traffic now."],
] as const;

const F_INFO = 0;
const F_REQUESTED = 1;
const F_EXPECTED = 2;
const F_OBSERVED = 3;
const F_IN_SYNC = 4;
const F_REASON = 5;
const F_READY = 6;
const F_MINIMUM = 7;
const F_DONATED = 8;
const F_PREDICTED = 9;
const F_MEASURED = 10;
const F_BYTES = 11;
const F_COST = 12;

/** The cluster's zones as the per-zone series need them. */
interface ZoneLabels {
  readonly key: string;
  readonly names: readonly string[];
  readonly escaped: readonly string[];
  readonly set: ReadonlySet<string>;
}

/** One Service's sample lines per family (each line ending in a newline), with what they were built from. */
interface Fragment {
  readonly zonesKey: string;
  /** The traffic figures read from the cluster-wide traffic block (`''` when there was none). */
  readonly costKey: string;
  readonly parts: readonly string[];
  /** UTF-8 length of each part. */
  readonly byteLengths: readonly number[];
  readonly series: number;
}

/**
 * Fragments of the reports seen: the engine keeps an unchanged Service's report object from one
 * cluster generation to the next (analysis-cache.ts), so after a change only the Services it
 * touched are written again; the block is then a concatenation of kept strings.
 */
const fragments = new WeakMap<ServiceReport, Fragment>();

function costKeyOf(cost: ServiceTrafficCost | null): string {
  if (cost === null) return '';
  return `${cost.volume.source.kind}|${cost.volume.gbPerMonth}|${cost.crossZoneFraction}|${cost.monthlyCost}`;
}

function serviceFragment(report: ServiceReport, cost: ServiceTrafficCost | null, zones: ZoneLabels, costKey: string): Fragment {
  const cached = fragments.get(report);
  if (cached !== undefined && cached.zonesKey === zones.key && cached.costKey === costKey) return cached;
  const lines: string[][] = SERVICE_FAMILIES.map(() => []);
  let series = 0;
  const add = (family: number, labels: string, value: string): void => {
    (lines[family] as string[]).push(`${SERVICE_FAMILIES[family]?.[0]}{${labels}} ${value}\n`);
    series++;
  };
  const base = `namespace="${escapeLabelValue(report.namespace)}",service="${escapeLabelValue(report.name)}"`;
  const detail = report.mechanismDetail;
  const td = trafficDistributionLabel(detail.trafficDistribution);
  const mode = topologyModeLabel(detail.annotationValue);
  add(F_INFO, `${base},type="${escapeLabelValue(report.type)}",mechanism="${report.mechanism}",traffic_distribution="${td}",topology_mode="${mode}"`, '1');
  add(F_REQUESTED, base, hintsRequested(report) ? '1' : '0');
  add(F_EXPECTED, base, report.expected.hintsEnabled ? '1' : '0');
  add(F_OBSERVED, base, formatValue(observedHintsRatio(report)));
  add(F_IN_SYNC, base, report.diff.inSync ? '1' : '0');
  add(F_REASON, `${base},reason="${hintsReasonCode(report)}"`, '1');
  // Endpoints per zone: every zone of the cluster for Services that can have endpoints, plus any other zone and "unknown" when > 0.
  if (report.expected.applicable || report.observed.slices > 0) {
    const byZone = report.observed.endpointsByZone;
    for (let z = 0; z < zones.names.length; z++) add(F_READY, `${base},zone="${zones.escaped[z]}"`, String(byZone[zones.names[z] as string]?.ready ?? 0));
    for (const zone in byZone) {
      const ready = byZone[zone]?.ready ?? 0;
      if (ready === 0 || zones.set.has(zone)) continue;
      add(F_READY, `${base},zone="${escapeLabelValue(zone === UNKNOWN_ZONE ? 'unknown' : zone)}"`, String(ready));
    }
  }
  const allocations = report.expected.allocationsByZone;
  if (allocations !== null && (report.mechanism === 'topology-mode' || report.mechanism === 'legacy-annotation')) {
    for (const zone in allocations) add(F_MINIMUM, `${base},zone="${escapeLabelValue(zone)}"`, formatValue(allocations[zone]?.minimum ?? Number.NaN));
  }
  add(F_DONATED, base, String(report.expected.donatedEndpoints));
  add(F_PREDICTED, base, formatValue(report.traffic.crossZoneFraction));
  if (cost !== null && cost.volume.source.kind === 'measured-flows') add(F_MEASURED, base, formatValue(cost.crossZoneFraction));
  const volume = cost?.volume ?? report.traffic.volume;
  add(F_BYTES, `${base},source="${SOURCE_LABEL[volume.source.kind]}"`, formatValue(gbPerMonthToBytesPerSecond(volume.gbPerMonth)));
  add(F_COST, base, formatValue(cost?.monthlyCost ?? report.traffic.monthlyCost.now.monthlyCost));
  // One flat string per family: writing them into the block is then a plain copy each.
  const parts = lines.map((family) => family.join(''));
  const fragment: Fragment = { zonesKey: zones.key, costKey, parts, byteLengths: parts.map((part) => Buffer.byteLength(part)), series };
  fragments.set(report, fragment);
  return fragment;
}

/**
 * Renders the per-Service block (see {@link serviceBlock} for the cache of whole blocks). Each
 * Service's lines are kept with its report object, so a render after a change writes only the
 * Services whose report or traffic figures changed.
 */
export function renderServiceBlock(analysis: ClusterAnalysis, traffic: ExporterTraffic | null, maxServices: number): ServiceBlock {
  const byService = traffic?.byService ?? null;
  const costOf = (report: ServiceReport): number => byService?.get(serviceKey(report))?.monthlyCost ?? report.traffic.monthlyCost.now.monthlyCost;
  const names = analysis.cluster.zones.map((zone) => zone.name);
  const zones: ZoneLabels = { key: names.join('\u0000'), names, escaped: names.map(escapeLabelValue), set: new Set(names) };
  const exportedReports = servicesWithinCap(analysis.services, costOf, maxServices);
  const fragmentsInOrder: Fragment[] = [];
  let series = 0;
  for (const report of exportedReports) {
    const cost = byService?.get(serviceKey(report)) ?? null;
    const fragment = serviceFragment(report, cost, zones, costKeyOf(cost));
    series += fragment.series;
    fragmentsInOrder.push(fragment);
  }
  let hintsExpected = 0;
  let hintsObserved = 0;
  for (const report of analysis.services) {
    if (report.expected.hintsEnabled) hintsExpected++;
    if (report.observed.readyEndpoints > 0 && observedHintsRatio(report) === 1) hintsObserved++;
  }
  // Family by family, every Service's part written straight into one buffer (no 13 MB string in between).
  const headers = SERVICE_FAMILIES.map(([name, help]) => `# HELP ${name} ${escapeHelp(help)}\n# TYPE ${name} gauge\n`);
  let total = 0;
  const familyBytes = SERVICE_FAMILIES.map((_, f) => {
    let sum = 0;
    for (const fragment of fragmentsInOrder) sum += fragment.byteLengths[f] as number;
    return sum;
  });
  familyBytes.forEach((sum, f) => {
    if (sum > 0) total += (total === 0 ? 0 : 1) + Buffer.byteLength(headers[f] as string) + sum;
  });
  const bytes = Buffer.allocUnsafe(total);
  let offset = 0;
  familyBytes.forEach((sum, f) => {
    if (sum === 0) return;
    if (offset > 0) offset += bytes.write('\n', offset);
    offset += bytes.write(headers[f] as string, offset);
    for (const fragment of fragmentsInOrder) {
      const part = fragment.parts[f] as string;
      if (part !== '') offset += bytes.write(part, offset);
    }
  });
  let text: string | null = null;
  return {
    bytes,
    get text(): string {
      return (text ??= bytes.toString('utf8'));
    },
    exported: exportedReports.length,
    omitted: analysis.services.length - exportedReports.length,
    series,
    hintsExpected,
    hintsObserved,
  };
}

interface BlockCache {
  readonly analysis: ClusterAnalysis;
  readonly byService: ReadonlyMap<string, ServiceTrafficCost> | null;
  readonly maxServices: number;
  readonly block: ServiceBlock;
}

/** The last block rendered (module state: only the `/metrics` route renders it). */
let blockCache: BlockCache | null = null;

/**
 * The per-Service block, rendered once per (analysis object, traffic figures object, cap) and
 * returned as the same object while all three are unchanged.
 */
export function serviceBlock(analysis: ClusterAnalysis, traffic: ExporterTraffic | null, maxServices: number): ServiceBlock {
  const cached = blockCache;
  const byService = traffic?.byService ?? null;
  if (cached && cached.analysis === analysis && cached.byService === byService && cached.maxServices === maxServices) return cached.block;
  const block = renderServiceBlock(analysis, traffic, maxServices);
  blockCache = { analysis, byService, maxServices, block };
  return block;
}

const encoder = new TextEncoder();

// ---------------------------------------------------------------------------------------------
// Cluster block (per scrape, prom-client).

const RESOURCE_STATES = ['syncing', 'synced', 'stale', 'forbidden'] as const;

function seconds(iso: string | null): number | null {
  if (iso === null) return null;
  const ms = Date.parse(iso);
  return Number.isNaN(ms) ? null : ms / 1000;
}

/** Seconds since the resource type that heard from the API server longest ago last did; `null` when none has yet. */
export function syncAgeSeconds(statuses: readonly ResourceStatus[], nowMs: number): number | null {
  let age: number | null = null;
  for (const status of statuses) {
    const heard = [seconds(status.lastEventAt), seconds(status.syncedAt)].filter((s): s is number => s !== null);
    if (heard.length === 0) continue;
    const typeAge = Math.max(0, nowMs / 1000 - Math.max(...heard));
    age = age === null ? typeAge : Math.max(age, typeAge);
  }
  return age;
}

function gauge(registry: Registry, name: string, help: string, labelNames: readonly string[] = []): Gauge {
  return new Gauge({ name, help, labelNames: [...labelNames], registers: [registry] });
}

async function renderClusterBlock(input: ExporterInput, block: ServiceBlock | null): Promise<string> {
  const registry = new Registry();
  gauge(registry, 'zonescope_build_info', 'zonescope\'s version and the Node.js release it runs on. Always 1.', ['version', 'node_version']).set(
    { version: packageJson.version, node_version: process.version },
    1,
  );
  gauge(registry, 'zonescope_cluster_synced', 'Whether every resource type finished its first list (1) or the first sync still runs (0).').set(input.synced && input.analysis !== null ? 1 : 0);

  const { analysis } = input;
  if (analysis !== null) {
    const { cluster, kubernetes } = analysis;
    gauge(registry, 'zonescope_cluster_info', 'The cluster: the name the header shows, the modelled Kubernetes release, the platform and kube-proxy\'s mode. Always 1.', [
      'cluster',
      'kubernetes_version',
      'platform',
      'proxy_mode',
    ]).set({ cluster: input.clusterName ?? '', kubernetes_version: kubernetes.release, platform: cluster.dataplane.platform.platform, proxy_mode: cluster.proxyMode }, 1);
    gauge(registry, 'zonescope_cluster_kubernetes_minor', 'The modelled Kubernetes minor release (33 for 1.33).').set(kubernetes.minor);
    gauge(registry, 'zonescope_cluster_eligible', 'Whether the topology cache has CPU ratios, so Auto can enable hints at all (1) or not (0).').set(cluster.eligible ? 1 : 0);
    const ineligible = gauge(registry, 'zonescope_cluster_ineligible_node_info', `A ready node that makes the cluster ineligible, and why (at most ${MAX_INELIGIBLE_NODE_SERIES} series). Always 1.`, ['node', 'cause']);
    for (const fix of cluster.ineligibleNodes.slice(0, MAX_INELIGIBLE_NODE_SERIES)) ineligible.set({ node: fix.node, cause: fix.cause }, 1);
    gauge(registry, 'zonescope_cluster_ineligible_nodes', 'Ready nodes that make the cluster ineligible (missing zone label or allocatable CPU).').set(cluster.ineligibleNodes.length);
    gauge(registry, 'zonescope_cluster_insufficient_cause_info', 'Why the topology cache has no CPU ratios ("none" when it has them). Always 1.', ['cause']).set({ cause: cluster.insufficientCause ?? 'none' }, 1);
    const ratio = gauge(registry, 'zonescope_zone_cpu_ratio', 'The topology cache\'s CPU ratio of the zone (absent when the cluster has none).', ['zone']);
    const nodes = gauge(registry, 'zonescope_zone_nodes', 'Nodes labelled with the zone.', ['zone']);
    const readyNodes = gauge(registry, 'zonescope_zone_ready_nodes', 'Ready nodes labelled with the zone.', ['zone']);
    for (const zone of cluster.zones) {
      if (zone.cpuRatio !== null) ratio.set({ zone: zone.name }, zone.cpuRatio);
      nodes.set({ zone: zone.name }, zone.nodes);
      readyNodes.set({ zone: zone.name }, zone.readyNodes);
    }
    gauge(registry, 'zonescope_cluster_nodes', 'All nodes of the cluster.').set(cluster.nodes.length);
    const services = gauge(registry, 'zonescope_services', 'Services per mechanism that sets their hints.', ['mechanism']);
    for (const [mechanism, count] of Object.entries(cluster.summary.byMechanism)) services.set({ mechanism }, count);
    gauge(registry, 'zonescope_services_hints_expected', 'Services the controller should write hints for on its next sync.').set(block?.hintsExpected ?? cluster.summary.hintsExpectedOn);
    gauge(registry, 'zonescope_services_hints_observed', 'Services whose ready endpoints all carry zone hints now.').set(block?.hintsObserved ?? 0);
    gauge(registry, 'zonescope_services_needing_attention', 'Services the Overview lists as needing attention.').set(cluster.summary.needingAttention);
    const totals = (input.traffic?.report ?? analysis.traffic).totals;
    const cost = gauge(registry, 'zonescope_cross_zone_cost_dollars_per_month', 'The cluster\'s cross-zone traffic cost in USD per month: now, after the controller\'s next sync, and with every Service at its best mechanism.', ['scenario']);
    const bytes = gauge(registry, 'zonescope_cross_zone_bytes_per_second', 'The cluster\'s cross-zone traffic in bytes per second, per scenario as the cost.', ['scenario']);
    for (const [scenario, key] of [['now', 'now'], ['after_sync', 'expected'], ['best', 'best']] as const) {
      cost.set({ scenario }, totals[key].monthlyCost);
      bytes.set({ scenario }, gbPerMonthToBytesPerSecond(totals[key].crossZoneGbPerMonth));
    }
    gauge(registry, 'zonescope_metrics_services_exported', 'Services with per-Service series (capped by ZONESCOPE_METRICS_MAX_SERVICES).').set(block?.exported ?? 0);
    gauge(registry, 'zonescope_metrics_services_omitted', 'Services left out of the per-Service series by ZONESCOPE_METRICS_MAX_SERVICES.').set(block?.omitted ?? 0);
  }
  if (input.budgetDollarsPerMonth !== null) {
    gauge(registry, 'zonescope_cross_zone_budget_dollars_per_month', 'The cross-zone spend budget in USD per month (ZONESCOPE_CROSS_ZONE_BUDGET_DOLLARS).').set(input.budgetDollarsPerMonth);
  }

  const state = gauge(registry, 'zonescope_informer_state', 'State of the resource type\'s cache: 1 for the current state, 0 for the others.', ['resource', 'state']);
  const lastSync = gauge(registry, 'zonescope_informer_last_sync_timestamp_seconds', 'When the resource type\'s last full list completed (Unix seconds).', ['resource']);
  const lastEvent = gauge(registry, 'zonescope_informer_last_event_timestamp_seconds', 'When the resource type\'s watch last delivered an event or bookmark (Unix seconds).', ['resource']);
  const objects = gauge(registry, 'zonescope_informer_objects', 'Records of the resource type in the cache.', ['resource']);
  for (const status of input.statuses) {
    for (const s of RESOURCE_STATES) state.set({ resource: status.id, state: s }, status.health === s ? 1 : 0);
    const synced = seconds(status.syncedAt);
    if (synced !== null) lastSync.set({ resource: status.id }, synced);
    const event = seconds(status.lastEventAt);
    if (event !== null) lastEvent.set({ resource: status.id }, event);
    objects.set({ resource: status.id }, status.count);
  }
  const age = syncAgeSeconds(input.statuses, input.nowMs);
  if (age !== null) gauge(registry, 'zonescope_sync_age_seconds', 'Seconds since the resource type that heard from the API server longest ago last did: how old the data may be.').set(age);
  if (input.trafficSourceUp !== null) {
    gauge(registry, 'zonescope_traffic_source_up', 'Whether the Prometheus traffic source\'s last refresh succeeded (1) or failed (0).').set(input.trafficSourceUp ? 1 : 0);
  }
  return dropEmptyFamilies(await registry.metrics());
}

/** prom-client writes HELP/TYPE for gauges that got no value; a family without samples helps no one. */
function dropEmptyFamilies(text: string): string {
  const kept = text
    .trimEnd()
    .split('\n\n')
    .filter((chunk) => chunk.split('\n').some((line) => line !== '' && !line.startsWith('#')));
  return kept.length === 0 ? '' : `${kept.join('\n\n')}\n`;
}

// ---------------------------------------------------------------------------------------------
// Default metrics (process_*, nodejs_*): one registry per process.

const LINT_FAILING_DEFAULT_METRICS = ['nodejs_active_handles_total', 'nodejs_active_requests_total', 'nodejs_active_resources_total'];

const DEFAULT_KEY = Symbol.for('zonescope.metricsDefaultRegistry');
type DefaultHolder = { [DEFAULT_KEY]?: Registry };

function defaultRegistry(): Registry {
  const holder = globalThis as unknown as DefaultHolder;
  let registry = holder[DEFAULT_KEY];
  if (registry === undefined) {
    registry = new Registry();
    collectDefaultMetrics({ register: registry });
    // Gauges named like counters, which promtool's lint refuses; nodejs_active_{handles,requests,resources}{type} carry the same counts.
    for (const name of LINT_FAILING_DEFAULT_METRICS) registry.removeSingleMetric(name);
    holder[DEFAULT_KEY] = registry;
  }
  return registry;
}

/**
 * The exposition of one scrape as UTF-8 chunks: the cluster block, the cached per-Service block
 * (the same bytes every scrape while the analysis is unchanged: no copy, no re-encoding) and the
 * default metrics, separated by blank lines.
 */
export async function renderMetricsChunks(input: ExporterInput): Promise<Uint8Array[]> {
  const block = input.analysis !== null ? serviceBlock(input.analysis, input.traffic, input.maxServices) : null;
  const cluster = await renderClusterBlock(input, block);
  const defaults = input.defaultMetrics !== false ? await defaultRegistry().metrics() : '';
  const chunks: Uint8Array[] = [];
  const push = (chunk: Uint8Array) => {
    if (chunk.length === 0) return;
    if (chunks.length > 0) chunks.push(BLANK_LINE);
    chunks.push(chunk);
  };
  push(encoder.encode(cluster));
  if (block !== null) push(block.bytes);
  push(encoder.encode(defaults));
  return chunks;
}

const BLANK_LINE = new Uint8Array([0x0a]);

/** The whole exposition of one scrape, as text ({@link renderMetricsChunks} decoded: one assembly for both). */
export async function renderMetrics(input: ExporterInput): Promise<string> {
  return Buffer.concat(await renderMetricsChunks(input)).toString('utf8');
}

// ---------------------------------------------------------------------------------------------
// Settings.

/** Parses `ZONESCOPE_METRICS_MAX_SERVICES` (a whole number ≥ 0); a bad value gives the default and `warn` is called with why. */
export function parseMaxServices(value: string | undefined, warn: (message: string) => void): number {
  if (value === undefined || value.trim() === '') return DEFAULT_MAX_SERVICES;
  const trimmed = value.trim();
  if (!/^\d{1,9}$/.test(trimmed)) {
    warn(`ZONESCOPE_METRICS_MAX_SERVICES="${trimmed.slice(0, 40)}" is not a whole number ≥ 0; using the default ${DEFAULT_MAX_SERVICES}.`);
    return DEFAULT_MAX_SERVICES;
  }
  return Number(trimmed);
}

/** Parses `ZONESCOPE_CROSS_ZONE_BUDGET_DOLLARS` (a number ≥ 0); unset or bad gives `null`, and a bad value calls `warn`. */
export function parseBudget(value: string | undefined, warn: (message: string) => void): number | null {
  if (value === undefined || value.trim() === '') return null;
  const trimmed = value.trim();
  const parsed = /^\d+(?:\.\d+)?$/.test(trimmed) ? Number(trimmed) : Number.NaN;
  if (!Number.isFinite(parsed) || parsed < 0) {
    warn(`ZONESCOPE_CROSS_ZONE_BUDGET_DOLLARS="${trimmed.slice(0, 40)}" is not a number ≥ 0 (US dollars per month); zonescope_cross_zone_budget_dollars_per_month is not exported.`);
    return null;
  }
  return parsed;
}
