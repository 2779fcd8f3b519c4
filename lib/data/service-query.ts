/**
 * The Services filter and sort: one definition for `GET /api/v1/services` and the Services table.
 * Pure (no `server-only`): the table runs it in the browser over every row on each keystroke, so
 * rows carry their search text and natural sort key precomputed ({@link serviceSearchText},
 * {@link serviceNaturalKey}) and a sort computes each row's sort value once.
 *
 * There is one set of sort columns ({@link SERVICE_SORTS}); the two public surfaces name them
 * their own way, mapped here and nowhere else: the API's documented `sort` values
 * ({@link SERVICE_SORT_KEYS}, through {@link API_SORT_ALIASES}) and the table's URL values
 * ({@link TABLE_SORT_KEYS}, `?q=&ns=&sort=&order=&attention=1`, see {@link parseTableQuery}).
 */
import type { AttentionReason } from '../topology/report/analysis-schema';

/** What filtering and sorting read of a Service row. */
export interface QueryableService {
  readonly namespace: string;
  readonly name: string;
  readonly mechanism: string;
  readonly hintsExpected: boolean;
  readonly hintsObserved: 'all' | 'some' | 'none';
  /** Why hints are off or what needs attention, `null` when fine. */
  readonly reason: string | null;
  readonly attention: AttentionReason | null;
  readonly readyEndpoints: number;
  readonly crossZoneFraction: number;
  /** {@link serviceSearchText}: what `q` matches. */
  readonly search: string;
  /** {@link serviceNaturalKey}: the default order and every tie-break. */
  readonly naturalKey: string;
}

/** `namespace/name` in lowercase: the text a search matches (precompute it once per row). */
export function serviceSearchText(namespace: string, name: string): string {
  return `${namespace}/${name}`.toLowerCase();
}

/** `text` with digit runs zero-padded, so `svc-154` sorts before `svc-1454` with a plain comparison. */
export function naturalKey(text: string): string {
  return text.replace(/\d+/g, (digits) => digits.padStart(12, '0'));
}

/** The natural key of `namespace/name` (precompute it once per row). */
export function serviceNaturalKey(namespace: string, name: string): string {
  return naturalKey(`${namespace}/${name}`);
}

/** Every column the Services can be sorted by (each surface exposes its own names for them). */
export const SERVICE_SORTS = ['service', 'name', 'mechanism', 'hints', 'reason', 'endpoints', 'crossZone'] as const;
/** One sort column (see {@link SERVICE_SORTS}). */
export type ServiceSort = (typeof SERVICE_SORTS)[number];

/** Sort direction of both surfaces. */
export type SortOrder = 'asc' | 'desc';

function hintsScore(row: QueryableService): number {
  // Problems first when ascending: expected on but not on the slices, then partial, then the rest.
  const observed = row.hintsObserved === 'all' ? 2 : row.hintsObserved === 'some' ? 1 : 0;
  return (row.hintsExpected ? 10 : 0) + observed;
}

/** What each column sorts by; ties always fall back to {@link QueryableService.naturalKey}, ascending. */
const SORT_VALUE: Readonly<Record<ServiceSort, (row: QueryableService) => string | number>> = {
  service: (row) => row.naturalKey,
  // Name, then namespace, field by field (U+0000 sorts below every character of a name).
  name: (row) => `${naturalKey(row.name)}\u0000${naturalKey(row.namespace)}`,
  mechanism: (row) => row.mechanism,
  hints: hintsScore,
  reason: (row) => (row.attention ? `0${row.attention}` : `1${row.reason ?? ''}`),
  endpoints: (row) => row.readyEndpoints,
  crossZone: (row) => row.crossZoneFraction,
};

/** The `sort` values of `GET /api/v1/services` (documented in docs/api.md), in documented order. */
export const SERVICE_SORT_KEYS = ['name', 'namespace', 'mechanism', 'hints', 'endpoints', 'crossZone'] as const;
/** One API `sort` value (see {@link SERVICE_SORT_KEYS}). */
export type ServiceSortKey = (typeof SERVICE_SORT_KEYS)[number];

/** The column each API `sort` value sorts by (`namespace` is namespace, then name: the table's `service`). */
export const API_SORT_ALIASES: Readonly<Record<ServiceSortKey, ServiceSort>> = {
  name: 'name',
  namespace: 'service',
  mechanism: 'mechanism',
  hints: 'hints',
  endpoints: 'endpoints',
  crossZone: 'crossZone',
};

/** The table's sortable columns, in column order: its `?sort=` values (the same names as {@link SERVICE_SORTS}). */
export const TABLE_SORT_KEYS = ['service', 'mechanism', 'hints', 'reason', 'endpoints', 'crossZone'] as const satisfies readonly ServiceSort[];
/** One table `?sort=` value (see {@link TABLE_SORT_KEYS}). */
export type TableSortKey = (typeof TABLE_SORT_KEYS)[number];

/** Which Services a query keeps. */
export interface ServiceFilter {
  /** Case-insensitive substring of `namespace/name` (trimmed; empty keeps every Service). */
  readonly q?: string;
  /** Match `q` against the reason text too (the table does; the API's `q` is `namespace/name` only). */
  readonly searchReasons?: boolean;
  /** Exact namespace; `undefined` or `''` keeps every namespace. */
  readonly namespace?: string;
  /** Only Services needing attention. */
  readonly attention?: boolean;
}

/** The filter predicate of a query (normalises `q` once). */
export function serviceFilter(filter: ServiceFilter): (row: QueryableService) => boolean {
  const q = filter.q?.trim().toLowerCase() ?? '';
  const namespace = filter.namespace ?? '';
  const attention = filter.attention === true;
  const reasons = filter.searchReasons === true;
  return (row) =>
    (namespace === '' || row.namespace === namespace) &&
    (!attention || row.attention !== null) &&
    (q === '' || row.search.includes(q) || (reasons && (row.reason?.toLowerCase().includes(q) ?? false)));
}

function compareValues(a: string | number, b: string | number): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Sorts rows by one column (each row's value computed once), ties by namespace/name ascending. */
export function sortServices<T extends QueryableService>(rows: readonly T[], sort: ServiceSort, order: SortOrder = 'asc'): T[] {
  const value = SORT_VALUE[sort];
  const direction = order === 'desc' ? -1 : 1;
  const keyed = rows.map((row) => ({ row, value: value(row) }));
  keyed.sort((a, b) => direction * compareValues(a.value, b.value) || compareValues(a.row.naturalKey, b.row.naturalKey));
  return keyed.map((k) => k.row);
}

/** Filters and sorts rows (pure; a few ms for 10,000 rows). */
export function queryServices<T extends QueryableService>(rows: readonly T[], query: ServiceFilter & { readonly sort: ServiceSort; readonly order?: SortOrder }): T[] {
  return sortServices(rows.filter(serviceFilter(query)), query.sort, query.order);
}

// ---------------------------------------------------------------------------------------------
// The table's URL state

/** Longest search string either surface accepts (the API refuses longer, the table cuts). */
export const MAX_QUERY_LENGTH = 200;

/** The Services table's state, kept in its URL as `?q=&ns=&sort=&order=&attention=1`. */
export interface TableQuery {
  readonly q: string;
  /** `''`: every namespace. */
  readonly ns: string;
  readonly sort: TableSortKey;
  readonly order: SortOrder;
  readonly attention: boolean;
}

function one(value: string | string[] | undefined): string {
  return (Array.isArray(value) ? value[0] : value) ?? '';
}

/** The table's query from its URL parameters; unknown values fall back to the defaults. */
export function parseTableQuery(params: Readonly<Record<string, string | string[] | undefined>>, namespaces: readonly string[]): TableQuery {
  const sort = one(params.sort);
  const ns = one(params.ns);
  const attention = one(params.attention);
  return {
    q: one(params.q).slice(0, MAX_QUERY_LENGTH),
    ns: namespaces.includes(ns) ? ns : '',
    sort: (TABLE_SORT_KEYS as readonly string[]).includes(sort) ? (sort as TableSortKey) : 'service',
    order: one(params.order) === 'desc' ? 'desc' : 'asc',
    attention: attention === '1' || attention === 'true',
  };
}

/** The URL search string of a table query (`''` for the defaults), the inverse of {@link parseTableQuery}. */
export function tableQuerySearch(query: TableQuery): string {
  const params = new URLSearchParams();
  if (query.q) params.set('q', query.q);
  if (query.ns) params.set('ns', query.ns);
  if (query.attention) params.set('attention', '1');
  if (query.sort !== 'service') params.set('sort', query.sort);
  if (query.order !== 'asc') params.set('order', query.order);
  const search = params.toString();
  return search ? `?${search}` : '';
}

/** Filters and sorts the table's rows by its query (the search covers reasons too). */
export function queryTable<T extends QueryableService>(rows: readonly T[], query: TableQuery): T[] {
  return queryServices(rows, { q: query.q, searchReasons: true, namespace: query.ns, attention: query.attention, sort: query.sort, order: query.order });
}
