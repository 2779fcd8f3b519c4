/**
 * The Services table's data: every row as a compact tuple with its repeated strings interned, the
 * cluster's zones as columns, the columns zonescope cannot know, the price; and the whole as one
 * JSON body (memoised per table) that the Services page's client table loads.
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
/**
 * The table's data as one JSON text, ASCII only: characters beyond it (a reason's dash, a price's
 * ×) are written as `\uXXXX` escapes, which `JSON.parse` reads back the same. The Services page's
 * client table loads it from `GET /api/v1/services/table` ({@link serviceTableBody}) and parses it
 * with one `JSON.parse`.
 */
export function serviceTableJson(table: ServiceTableData): string {
  return JSON.stringify(table).replace(BEYOND_ASCII, escapeUnit);
}

/**
 * What `GET /api/v1/services/table` answers for one table: made once per table, shared by every
 * request. Not compressed here: Next.js drops a route's own `Content-Encoding` and compresses the
 * response itself when the client takes it (`compress`, on by default; zlib runs off the main thread).
 */
export interface ServiceTableBody {
  /** Changes whenever the table does (a new analysis or traffic snapshot): the page puts it in the table's address. */
  readonly version: string;
  /** {@link serviceTableJson} as bytes (ASCII, so UTF-8 and Latin-1 alike). */
  readonly bytes: Uint8Array<ArrayBuffer>;
}

const BODIES = new WeakMap<ServiceTableData, ServiceTableBody>();
let bodiesMade = 0;

/**
 * The table's body for its route, memoised per table. Why the page does not hand the JSON to its
 * client component as a prop, as it did until 2026-12-06: a prop is copied into the RSC payload,
 * escaped again into the HTML and encoded and compressed per page view — ~25 MiB allocated per
 * view of `/services` at 10,000 Services (0.9 MB of JSON), garbage in the large-object space that
 * only a full collection frees, and the largest part of the server's peak RSS under concurrent
 * views (BENCHMARKS.md). As one body per table, a view costs the bytes it sends.
 */
export function serviceTableBody(table: ServiceTableData): ServiceTableBody {
  let body = BODIES.get(table);
  if (body === undefined) {
    // Copied into a buffer of their own (not a slice of Node's shared pool), as a body must be.
    const bytes = new Uint8Array(Buffer.from(serviceTableJson(table), 'latin1'));
    body = { version: (++bodiesMade).toString(36), bytes };
    BODIES.set(table, body);
  }
  return body;
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
