/**
 * The Services table's data: every row as a compact tuple with its repeated strings interned, the
 * cluster's zones as columns, the columns zonescope cannot know, the price; and the whole as one
 * JSON string for the page to hand its client table (memoised per rows).
 */
import 'server-only';

import type { CrossZonePricing } from '../../topology/model/cloud-pricing';
import type { UnreadableResource } from '../../topology/report/unknowns';
import { serviceUnknowns } from '../../topology/report/unknowns';
import { getClusterAnalysis } from '../../server/analysis';
import type { ClusterScope } from '../../server/clusters';
import { getClusterTraffic } from '../traffic';
import type { ServiceRow } from './rows';
import { getServiceRows, round6, rowZones, serviceNamespaces } from './rows';

/**
 * One Services-table row as a tuple, so 10,000 rows travel to the browser in under 1 MB; every
 * repeated string is an index into a list of the table (`-1` for none):
 * `[namespace (into `namespaces`), name, type, mechanism (into `labels`), hintsExpected (0/1),
 *   hintsObserved (into `labels`), reason (into `reasons`), attention reason (into `labels`),
 *   ready endpoints per zone (aligned with `zones`), ready endpoints, cross-zone fraction now,
 *   cross-zone fraction with topology mode Auto, GB per month, volume source (into `labels`),
 *   cross-zone USD per month (GB, source and USD `null`/-1 without traffic figures), measured
 *   cross-zone fraction (`null` unless measured with flows), measured minus predicted in points
 *   (`null` likewise), HPA state (into `labels`), HPA range `[minReplicas, maxReplicas,
 *   ...counts where hints are off]` (`null` without an HPA)]`.
 */
export type SlimServiceRow = readonly [
  namespace: number,
  name: string,
  type: number,
  mechanism: number,
  hintsExpected: 0 | 1,
  hintsObserved: number,
  reason: number,
  attention: number,
  endpointsByZone: readonly number[],
  readyEndpoints: number,
  crossZone: number,
  crossZoneIfAuto: number,
  gbPerMonth: number | null,
  volumeSource: number,
  monthlyCost: number | null,
  measuredCrossZone: number | null,
  measuredMinusPredicted: number | null,
  hpaState: number,
  hpaRange: readonly number[] | null,
];

/** The Services table's data: slim rows plus the interned zone names and reason texts. */
export interface ServiceTableData {
  /** Zone names, sorted, with the engine's `UNKNOWN_ZONE` last when present. */
  readonly zones: readonly string[];
  /** Distinct reason texts; rows point into this list (many Services share one message). */
  readonly reasons: readonly string[];
  /** The Services' namespaces, sorted; rows point into this list. */
  readonly namespaces: readonly string[];
  /** The type, mechanism, hints-observed, attention, volume-source and HPA-state values rows point into. */
  readonly labels: readonly string[];
  readonly rows: readonly SlimServiceRow[];
  /**
   * Columns whose figures are unknown because zonescope could not read a type they depend on
   * (the same for every row), with the message to show instead of the figure.
   */
  readonly unknown: { readonly hints: string | null; readonly endpoints: string | null; readonly crossZone: string | null; readonly hpa: string | null };
  /** The price of the cost column (the cluster's cloud, or as set), `null` before the traffic figures exist. */
  readonly pricing: CrossZonePricing | null;
}

const TABLES = new WeakMap<readonly ServiceRow[], ServiceTableData>();

/** Distinct strings in first-seen order, each with its index (`-1` for `null`). */
class Interned {
  readonly values: string[] = [];
  private readonly indices = new Map<string, number>();

  index(value: string | null): number {
    if (value === null) return -1;
    let index = this.indices.get(value);
    if (index === undefined) {
      index = this.values.length;
      this.values.push(value);
      this.indices.set(value, index);
    }
    return index;
  }
}
const TABLE_JSON = new WeakMap<ServiceTableData, string>();

/**
 * The table's data as one JSON string (memoised per table), what the Services page hands its
 * client table: React serialises a string prop as one chunk, where 10,000 tuples cost it a
 * walk of every row and field on every request (about 100 ms at 10,000 Services), and the
 * browser and the server render parse it with one `JSON.parse`.
 *
 * ASCII only: characters beyond it (a reason's dash, a price's ×) are written as `\uXXXX`
 * escapes, which `JSON.parse` reads back the same. One such character makes V8 store the whole
 * string with two bytes per character, and so every copy a page view makes of it (the RSC
 * payload's string, its escaped copy in the HTML): at 10,000 Services ~1.9 MiB each instead of
 * ~0.95, garbage that piles up in the large-object space between full collections. Measured at
 * realistic L (`--trace-gc-nvp`, 40 views of `/services` after a warm-up): 27.3 → 25.0 MiB
 * allocated per view; most of the rest is Next.js inlining the RSC payload into the HTML.
 */
export function serviceTableJson(table: ServiceTableData): string {
  let json = TABLE_JSON.get(table);
  if (json === undefined) {
    // The escaped text is ASCII, but a string built from pieces of a two-byte one stays two-byte
    // in V8: a Latin-1 round trip (lossless for ASCII) lays it out one byte per character.
    json = Buffer.from(JSON.stringify(table).replace(BEYOND_ASCII, escapeUnit), 'latin1').toString('latin1');
    TABLE_JSON.set(table, json);
  }
  return json;
}

/** Every UTF-16 unit beyond ASCII (a surrogate pair's halves each: `\ud83d\ude00` is valid JSON). */
const BEYOND_ASCII = /[\u0080-\uffff]/g;

function escapeUnit(unit: string): string {
  return `\\u${unit.charCodeAt(0).toString(16).padStart(4, '0')}`;
}

/** Every Service as a slim table row (memoised per analysis and traffic snapshot); `null` before the first sync. */
export function getServiceTable(scope: ClusterScope): ServiceTableData | null {
  const rows = getServiceRows(scope);
  if (!rows) return null;
  const cached = TABLES.get(rows);
  if (cached) return cached;
  const analysis = getClusterAnalysis(scope.source);
  const table = serviceTable(rows, {
    clusterZones: (analysis?.cluster.zones ?? []).map((zone) => zone.name),
    unreadable: (analysis?.unreadable ?? []).map((entry) => entry.resource),
    pricing: getClusterTraffic(scope)?.report.pricing ?? null,
  });
  TABLES.set(rows, table);
  return table;
}

/**
 * The table data of `rows` (slim tuples, interned strings; see {@link SlimServiceRow}), with the
 * cluster's zones as columns even where no row has endpoints, the unknown columns of the types
 * zonescope could not read, and the price (`null` before the traffic figures exist).
 */
export function serviceTable(
  rows: readonly ServiceRow[],
  cluster: { readonly clusterZones: readonly string[]; readonly unreadable: readonly UnreadableResource['resource'][]; readonly pricing: CrossZonePricing | null },
): ServiceTableData {
  const zones = rowZones(rows, cluster.clusterZones);
  const reasons = new Interned();
  const labels = new Interned();
  const namespaces = serviceNamespaces(rows);
  const namespaceIndex = new Map(namespaces.map((namespace, i) => [namespace, i]));
  const slim = rows.map((row): SlimServiceRow => [
    namespaceIndex.get(row.namespace) as number,
    row.name,
    labels.index(row.type),
    labels.index(row.mechanism),
    row.hintsExpected ? 1 : 0,
    labels.index(row.hintsObserved),
    reasons.index(row.reason),
    labels.index(row.attention?.reason ?? null),
    zones.map((zone) => row.endpointsByZone[zone] ?? 0),
    row.readyEndpoints,
    round6(row.crossZoneFraction),
    round6(row.crossZoneFractionIfAuto),
    row.gbPerMonth === null ? null : Math.round(row.gbPerMonth * 100) / 100,
    labels.index(row.volumeSource),
    row.monthlyCost === null ? null : Math.round(row.monthlyCost * 10_000) / 10_000,
    row.measuredCrossZoneFraction,
    row.measuredMinusPredicted,
    labels.index(row.hpaScaleDown.state),
    row.hpaScaleDown.minReplicas === null || row.hpaScaleDown.maxReplicas === null ? null : [row.hpaScaleDown.minReplicas, row.hpaScaleDown.maxReplicas, ...row.hpaScaleDown.hintsOffAt],
  ]);
  const unknown = serviceUnknowns(cluster.unreadable);
  return {
    zones,
    reasons: reasons.values,
    namespaces,
    labels: labels.values,
    rows: slim,
    unknown: { hints: unknown.expectedHints ?? unknown.observedHints ?? null, endpoints: unknown.endpoints ?? null, crossZone: unknown.crossZone ?? null, hpa: unknown.hpa ?? null },
    pricing: cluster.pricing,
  };
}
