/**
 * The Services view: one slim row per Service, for `GET /api/v1/services` (filtered, sorted and
 * paged here) and the Services table (sent whole as compact tuples, filtered and sorted in the
 * browser). Both filter and sort with the one definition of `./service-query`.
 */
import 'server-only';

import type { ClusterAnalysis, ServiceReport } from '../topology/report/analysis-schema';
import { UNKNOWN_ZONE } from '../topology/analyses/traffic';
import type { ServiceTrafficCost, VolumeSourceKind } from '../topology/analyses/traffic-volume';
import type { CrossZonePricing } from '../topology/model/cloud-pricing';
import type { UnreadableResource } from '../topology/report/unknowns';
import { serviceUnknowns } from '../topology/report/unknowns';
import type { AttentionItem } from '../topology/report/attention';
import { attentionByMoney, costlyFixable, DEFAULT_ATTENTION_MIN_SAVING } from '../topology/report/attention';
import { getClusterAnalysis, prepared } from '../server/analysis';
import type { ClusterScope } from '../server/clusters';
import { getClusterTraffic } from './traffic';
import type { QueryableService, ServiceQuery } from '../shared/service-query';
import { API_SORT_ALIASES, serviceFilter, serviceNaturalKey, serviceSearchText, sortServices, toCsv } from '../shared/service-query';

/** One row of the Services table (slim, so 10,000 rows travel cheaply). */
export interface ServiceRow {
  readonly namespace: string;
  readonly name: string;
  readonly type: ServiceReport['type'];
  readonly mechanism: ServiceReport['mechanism'];
  readonly hintsExpected: boolean;
  readonly hintsObserved: 'all' | 'some' | 'none';
  /** Why hints are off (upstream event message) or what needs attention, `null` when fine. */
  readonly reason: string | null;
  readonly attention: ServiceReport['needsAttention'];
  readonly endpointsByZone: Readonly<Record<string, number>>;
  readonly readyEndpoints: number;
  readonly crossZoneFraction: number;
  readonly crossZoneFractionIfAuto: number;
  /**
   * Volume per 30-day month in GB, as the cluster-wide traffic figures count it (measured, set or
   * assumed: see {@link volumeSource}); `null` when the Service is not counted (no traffic figures).
   */
  readonly gbPerMonth: number | null;
  /** Where {@link gbPerMonth} comes from; `null` with it. */
  readonly volumeSource: VolumeSourceKind | null;
  /** Cross-zone cost now, USD per month (cross-zone GB × price × 2); `null` with {@link gbPerMonth}. */
  readonly monthlyCost: number | null;
  /**
   * The cross-zone share measured by zone-resolved flows (what {@link monthlyCost} uses instead of
   * {@link crossZoneFraction}, the model's), `null` unless the volume source is `measured-flows`.
   */
  readonly measuredCrossZoneFraction: number | null;
}

function toRow(report: ServiceReport, traffic: ServiceTrafficCost | undefined, minSaving: number): ServiceRow {
  const observed = report.observed;
  const hinted = Object.values(observed.hintCountsByZone).reduce((a, b) => a + b, 0);
  return {
    namespace: report.namespace,
    name: report.name,
    type: report.type,
    mechanism: report.mechanism,
    hintsExpected: report.expected.hintsEnabled,
    hintsObserved: hinted === 0 ? 'none' : observed.readyEndpointsWithoutHints === 0 ? 'all' : 'some',
    // Nodes or EndpointSlices forbidden: the controller's event is unknown, not "insufficient node information".
    reason: report.unknown.expectedHints ?? (report.expected.event?.type === 'Warning' ? report.expected.event.message : (report.needsAttention?.message ?? null)),
    // A Service the rules do not list is listed when its best change saves money (as the Overview's list).
    attention: report.needsAttention ?? (traffic ? costlyFixable(traffic, minSaving) : null),
    endpointsByZone: Object.fromEntries(Object.entries(observed.endpointsByZone).map(([zone, counts]) => [zone, counts.ready])),
    readyEndpoints: observed.readyEndpoints,
    crossZoneFraction: report.traffic.crossZoneFraction,
    crossZoneFractionIfAuto: report.traffic.crossZoneFractionIfAuto,
    gbPerMonth: traffic ? round6(traffic.volume.gbPerMonth) : null,
    volumeSource: traffic ? traffic.volume.source.kind : null,
    monthlyCost: traffic ? round6(traffic.monthlyCost) : null,
    measuredCrossZoneFraction: traffic?.volume.source.kind === 'measured-flows' ? round6(traffic.crossZoneFraction) : null,
  };
}

/** Rows per analysis, then per traffic snapshot (the cluster-wide figures change when Prometheus answers anew, the analysis not). */
const ROWS = new WeakMap<ClusterAnalysis, WeakMap<object, readonly ServiceRow[]>>();
/** Stands for "no traffic figures yet" in {@link ROWS}. */
const NO_TRAFFIC: object = {};

/** Every Service as a table row (memoised per analysis and traffic snapshot); `null` before the first sync. */
export function getServiceRows(scope: ClusterScope): readonly ServiceRow[] | null {
  const analysis = getClusterAnalysis(scope.source);
  if (!analysis) return null;
  const byService = getClusterTraffic(scope)?.byService ?? null;
  let perTraffic = ROWS.get(analysis);
  if (!perTraffic) {
    perTraffic = new WeakMap();
    ROWS.set(analysis, perTraffic);
  }
  const key = byService ?? NO_TRAFFIC;
  let rows = perTraffic.get(key);
  if (!rows) {
    rows = serviceRows(analysis, byService, prepared(scope.source).attentionMinSaving);
    perTraffic.set(key, rows);
  }
  return rows;
}

/** The row last built from each report, with the traffic figures it was built with. */
const ROW_OF = new WeakMap<ServiceReport, { readonly traffic: ServiceTrafficCost | undefined; readonly row: ServiceRow }>();

/** Whether two traffic figures give the same row (what {@link toRow} reads of them). */
function sameFigures(a: ServiceTrafficCost | undefined, b: ServiceTrafficCost | undefined): boolean {
  if (a === b) return true;
  if (a === undefined || b === undefined) return false;
  return (
    a.volume.source.kind === b.volume.source.kind &&
    a.volume.gbPerMonth === b.volume.gbPerMonth &&
    a.monthlyCost === b.monthlyCost &&
    a.crossZoneFraction === b.crossZoneFraction &&
    a.saving === b.saving &&
    a.bestScenario === b.bestScenario
  );
}

/**
 * The rows of an analysis with its traffic figures. The engine keeps an unchanged Service's report
 * object from one cluster generation to the next, so after a change only the Services it touched
 * (or whose traffic figures moved) get a new row.
 */
export function serviceRows(analysis: ClusterAnalysis, byService: ReadonlyMap<string, ServiceTrafficCost> | null, minSaving: number = DEFAULT_ATTENTION_MIN_SAVING): readonly ServiceRow[] {
  return analysis.services.map((report) => {
    const traffic = byService?.get(`${report.namespace}/${report.name}`);
    const cached = ROW_OF.get(report);
    if (cached !== undefined && sameFigures(cached.traffic, traffic)) return cached.row;
    const row = toRow(report, traffic, minSaving);
    ROW_OF.set(report, { traffic, row });
    return row;
  });
}

const ATTENTION_LISTS = new WeakMap<ClusterAnalysis, WeakMap<object, readonly AttentionItem[]>>();

/**
 * The Overview's attention list: the rules' Services and those whose best change saves money,
 * costliest first (see `attentionByMoney`), with the cluster's traffic figures now (measured where
 * Prometheus answers); memoised per analysis and traffic snapshot.
 */
export function getAttentionList(scope: ClusterScope): readonly AttentionItem[] | null {
  const analysis = getClusterAnalysis(scope.source);
  if (!analysis) return null;
  const byService = getClusterTraffic(scope)?.byService ?? null;
  if (byService === null) return analysis.cluster.needsAttention;
  let perTraffic = ATTENTION_LISTS.get(analysis);
  if (!perTraffic) {
    perTraffic = new WeakMap();
    ATTENTION_LISTS.set(analysis, perTraffic);
  }
  let list = perTraffic.get(byService);
  if (!list) {
    list = attentionByMoney(analysis.cluster.needsAttention, byService, prepared(scope.source).attentionMinSaving);
    perTraffic.set(byService, list);
  }
  return list;
}


interface QueryableRow extends QueryableService {
  readonly row: ServiceRow;
}

const QUERYABLE = new WeakMap<readonly ServiceRow[], readonly QueryableRow[]>();

/** The rows with their search text and natural key precomputed (memoised per rows). */
function queryable(rows: readonly ServiceRow[]): readonly QueryableRow[] {
  let out = QUERYABLE.get(rows);
  if (!out) {
    out = rows.map((row) => ({
      row,
      namespace: row.namespace,
      name: row.name,
      mechanism: row.mechanism,
      type: row.type,
      hintsExpected: row.hintsExpected,
      hintsObserved: row.hintsObserved,
      reason: row.reason,
      attention: row.attention?.reason ?? null,
      readyEndpoints: row.readyEndpoints,
      crossZoneFraction: row.crossZoneFraction,
      gbPerMonth: row.gbPerMonth,
      monthlyCost: row.monthlyCost,
      search: serviceSearchText(row.namespace, row.name),
      naturalKey: serviceNaturalKey(row.namespace, row.name),
    }));
    QUERYABLE.set(rows, out);
  }
  return out;
}

/**
 * Filters, sorts and pages the Service rows (`q` matches `namespace/name`), with namespace/name
 * as the tie-break; `limit` is clamped to 1–500 (default 100).
 */
export function queryServiceRows(rows: readonly ServiceRow[], query: ServiceQuery): { total: number; items: ServiceRow[] } {
  const sorted = sortedRows(rows, query);
  const offset = Math.max(0, query.offset ?? 0);
  const limit = Math.min(500, Math.max(1, query.limit ?? 100));
  return { total: sorted.length, items: sorted.slice(offset, offset + limit).map((entry) => entry.row) };
}

/** Every row in each order asked for so far (at most one per column and direction), per queryable rows. */
const SORTED = new WeakMap<readonly QueryableRow[], Map<string, readonly QueryableRow[]>>();

/**
 * The rows of the query in its order: the rows sorted once per (rows, column, direction), then
 * filtered (filtering keeps the order, so this is what sorting the filtered rows gives), so a
 * request costs one pass over the rows, not a sort.
 */
function sortedRows(rows: readonly ServiceRow[], query: ServiceQuery): QueryableRow[] {
  const all = queryable(rows);
  const sort = API_SORT_ALIASES[query.sort ?? 'namespace'];
  const order = query.order ?? 'asc';
  let orders = SORTED.get(all);
  if (!orders) {
    orders = new Map();
    SORTED.set(all, orders);
  }
  let sorted = orders.get(`${sort} ${order}`);
  if (!sorted) {
    sorted = sortServices(all, sort, order);
    orders.set(`${sort} ${order}`, sorted);
  }
  return sorted.filter(
    serviceFilter({ q: query.q, searchReasons: query.searchReasons, namespace: query.namespace, attention: query.attention, mechanism: query.mechanism, type: query.type, reason: query.reason }),
  );
}

/** Every row matching the query, in its order (no paging): what an export holds. */
export function exportServiceRows(rows: readonly ServiceRow[], query: ServiceQuery): ServiceRow[] {
  return sortedRows(rows, query).map((entry) => entry.row);
}

/** The zones the rows have endpoints in, sorted, the engine's `UNKNOWN_ZONE` last. */
export function rowZones(rows: readonly ServiceRow[], clusterZones: readonly string[] = []): string[] {
  const zoneSet = new Set<string>(clusterZones);
  for (const row of rows) for (const zone of Object.keys(row.endpointsByZone)) zoneSet.add(zone);
  return [...zoneSet].sort((a, b) => (a === UNKNOWN_ZONE ? 1 : b === UNKNOWN_ZONE ? -1 : a < b ? -1 : a > b ? 1 : 0));
}

/**
 * The rows as CSV, one line per Service: the table's columns, one `ready <zone>` column per zone
 * (`zones`, e.g. {@link rowZones}), fractions as numbers 0–1, the volume (GB per month, with its
 * source) and the cross-zone cost (USD per month); empty when a Service has no traffic figures.
 */
export function servicesCsv(rows: readonly ServiceRow[], zones: readonly string[]): string {
  const header = [
    'namespace',
    'name',
    'type',
    'mechanism',
    'hints expected',
    'hints on slices',
    'attention',
    'reason',
    'ready endpoints',
    ...zones.map((zone) => `ready ${zone === UNKNOWN_ZONE ? '(no zone)' : zone}`),
    'cross-zone fraction',
    'cross-zone fraction if Auto',
    'GB per month',
    'volume source',
    'cross-zone USD per month',
    'measured cross-zone fraction',
  ];
  return toCsv(
    header,
    rows.map((row) => [
      row.namespace,
      row.name,
      row.type,
      row.mechanism,
      row.hintsExpected ? 'on' : 'off',
      row.hintsObserved,
      row.attention?.reason ?? null,
      row.reason,
      row.readyEndpoints,
      ...zones.map((zone) => row.endpointsByZone[zone] ?? 0),
      round6(row.crossZoneFraction),
      round6(row.crossZoneFractionIfAuto),
      row.gbPerMonth,
      row.volumeSource,
      row.monthlyCost === null ? null : Math.round(row.monthlyCost * 100) / 100,
      row.measuredCrossZoneFraction,
    ]),
  );
}

/** Six decimals: exact enough for a share, short enough to read (and one rounding only: `formatPercent` shows one decimal of it). */
function round6(value: number): number {
  return Math.round(value * 1e6) / 1e6;
}

const NAMESPACES = new WeakMap<readonly ServiceRow[], readonly string[]>();

/** Namespaces that have Services, sorted (memoised per rows). */
export function serviceNamespaces(rows: readonly ServiceRow[]): readonly string[] {
  let namespaces = NAMESPACES.get(rows);
  if (!namespaces) {
    namespaces = [...new Set(rows.map((row) => row.namespace))].sort();
    NAMESPACES.set(rows, namespaces);
  }
  return namespaces;
}

/**
 * One Services-table row as a tuple, so 10,000 rows travel to the browser in under 1 MB; every
 * repeated string is an index into a list of the table (`-1` for none):
 * `[namespace (into `namespaces`), name, type, mechanism (into `labels`), hintsExpected (0/1),
 *   hintsObserved (into `labels`), reason (into `reasons`), attention reason (into `labels`),
 *   ready endpoints per zone (aligned with `zones`), ready endpoints, cross-zone fraction now,
 *   cross-zone fraction with topology mode Auto, GB per month, volume source (into `labels`),
 *   cross-zone USD per month (GB, source and USD `null`/-1 without traffic figures), measured
 *   cross-zone fraction (`null` unless measured with flows)]`.
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
];

/** The Services table's data: slim rows plus the interned zone names and reason texts. */
export interface ServiceTableData {
  /** Zone names, sorted, with the engine's `UNKNOWN_ZONE` last when present. */
  readonly zones: readonly string[];
  /** Distinct reason texts; rows point into this list (many Services share one message). */
  readonly reasons: readonly string[];
  /** The Services' namespaces, sorted; rows point into this list. */
  readonly namespaces: readonly string[];
  /** The type, mechanism, hints-observed, attention and volume-source values rows point into. */
  readonly labels: readonly string[];
  readonly rows: readonly SlimServiceRow[];
  /**
   * Columns whose figures are unknown because zonescope could not read a type they depend on
   * (the same for every row), with the message to show instead of the figure.
   */
  readonly unknown: { readonly hints: string | null; readonly endpoints: string | null; readonly crossZone: string | null };
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
 */
export function serviceTableJson(table: ServiceTableData): string {
  let json = TABLE_JSON.get(table);
  if (json === undefined) {
    json = JSON.stringify(table);
    TABLE_JSON.set(table, json);
  }
  return json;
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
  ]);
  const unknown = serviceUnknowns(cluster.unreadable);
  return {
    zones,
    reasons: reasons.values,
    namespaces,
    labels: labels.values,
    rows: slim,
    unknown: { hints: unknown.expectedHints ?? unknown.observedHints ?? null, endpoints: unknown.endpoints ?? null, crossZone: unknown.crossZone ?? null },
    pricing: cluster.pricing,
  };
}
