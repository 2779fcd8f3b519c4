/**
 * One Service's series of `GET /metrics`: the per-Service metric families (names, HELP text, label
 * values normalised to a bounded set) and each Service's sample lines per family. The lines are
 * kept with the Service's report object, which the engine reuses for an unchanged Service across
 * cluster generations, so a render after a change writes only the Services it touched.
 */
import { UNKNOWN_ZONE } from '../../topology/analyses/traffic';
import type { ServiceTrafficCost, VolumeSourceKind } from '../../topology/analyses/traffic-volume';
import type { ServiceReport } from '../../topology/report/analysis-schema';
import { hintsReasonCode, hintsRequested } from '../../topology/report/hints-reason';
import { escapeLabelValue, formatValue, gbPerMonthToBytesPerSecond } from './text-format';

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

/** `namespace/name`: the key of the traffic figures per Service. */
export function serviceKey(report: Pick<ServiceReport, 'namespace' | 'name'>): string {
  return `${report.namespace}/${report.name}`;
}

/** The per-Service families, in output order. */
export const SERVICE_FAMILIES = [
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
export interface ZoneLabels {
  readonly key: string;
  readonly names: readonly string[];
  readonly escaped: readonly string[];
  readonly set: ReadonlySet<string>;
}

/** One Service's sample lines per family (each line ending in a newline), with what they were built from. */
export interface Fragment {
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

/** What a fragment reads of the Service's traffic figures, as one comparable string. */
export function costKeyOf(cost: ServiceTrafficCost | null): string {
  if (cost === null) return '';
  return `${cost.volume.source.kind}|${cost.volume.gbPerMonth}|${cost.crossZoneFraction}|${cost.monthlyCost}`;
}

/** The Service's lines, reused while its report object, the zones and its traffic figures are unchanged. */
export function serviceFragment(report: ServiceReport, cost: ServiceTrafficCost | null, zones: ZoneLabels, costKey: string): Fragment {
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
