/**
 * The Services filter and sort: one definition for `GET /api/v1/services` and the Services table.
 * Pure (no `server-only`): the table runs it in the browser over every row on each keystroke, so
 * rows carry their search text and natural sort key precomputed ({@link serviceSearchText},
 * {@link serviceNaturalKey}) and a sort computes each row's sort value once.
 *
 * There is one set of sort columns ({@link SERVICE_SORTS}); the two public surfaces name them
 * their own way, mapped here and nowhere else: the API's documented `sort` values
 * ({@link SERVICE_SORT_KEYS}, through {@link API_SORT_ALIASES}) and the table's URL values
 * ({@link TABLE_SORT_KEYS}, `?q=&ns=&mechanism=&reason=&type=&sort=&order=&attention=1`, see
 * {@link parseTableQuery}). The mechanism, reason and type filters have the same names and values
 * on both surfaces ({@link parseServiceFilterParams} for the API).
 */
import type { ServiceMechanism } from '../topology/analyses/service-mechanism';
import type { ServiceRecord } from '../topology/model/cluster-model';
import type { TrafficScenario } from '../topology/analyses/traffic-scenarios';
import type { AttentionReason } from '../topology/report/analysis-schema';

/** Every topology mechanism a Service can have (the `mechanism` filter's values). */
export const SERVICE_MECHANISMS = ['topology-mode', 'legacy-annotation', 'trafficDistribution', 'none'] as const satisfies readonly ServiceMechanism[];
/** Every Service type (the `type` filter's values). */
export const SERVICE_TYPES = ['ClusterIP', 'NodePort', 'LoadBalancer', 'ExternalName'] as const satisfies readonly ServiceRecord['type'][];
/** Every "needs attention" reason (the `reason` filter's values), in the order the filter lists them. */
export const ATTENTION_REASONS = [
  'hints-off',
  'annotation-ineffective',
  'dataplane-ignores-hints',
  'hints-unused',
  'out-of-sync',
  'partial-hints',
  'cross-zone-leak',
  'costly-fixable',
] as const satisfies readonly AttentionReason[];

/** What filtering and sorting read of a Service row. */
export interface QueryableService {
  readonly namespace: string;
  readonly name: string;
  readonly mechanism: string;
  readonly type: string;
  readonly hintsExpected: boolean;
  readonly hintsObserved: 'all' | 'some' | 'none';
  /** Why hints are off or what needs attention, `null` when fine. */
  readonly reason: string | null;
  readonly attention: AttentionReason | null;
  readonly readyEndpoints: number;
  readonly crossZoneFraction: number;
  /** Volume per month in GB (measured, set or assumed); `null` when the Service carries no traffic figures (ExternalName). */
  readonly gbPerMonth: number | null;
  /** Cross-zone cost now in USD per month; `null` as for {@link gbPerMonth}. */
  readonly monthlyCost: number | null;
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
export const SERVICE_SORTS = ['service', 'name', 'mechanism', 'hints', 'reason', 'endpoints', 'crossZone', 'volume', 'cost'] as const;
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
  // Services without traffic figures rank below every figure (last when descending).
  volume: (row) => row.gbPerMonth ?? -1,
  cost: (row) => row.monthlyCost ?? -1,
};

/** What column `sort` orders rows by (ties: {@link QueryableService.naturalKey}, ascending), for callers that sort with their own precomputed keys. */
export function serviceSortValue(sort: ServiceSort): (row: QueryableService) => string | number {
  return SORT_VALUE[sort];
}

/** The columns that hold numbers: they sort descending on the first click (largest first), the others ascending. */
const NUMERIC_SORTS: ReadonlySet<ServiceSort> = new Set<ServiceSort>(['endpoints', 'crossZone', 'volume', 'cost']);

/** The order a column sorts in when first chosen: descending for numbers, ascending for names and categories. */
export function firstSortOrder(sort: ServiceSort): SortOrder {
  return NUMERIC_SORTS.has(sort) ? 'desc' : 'asc';
}

/** The sort after choosing column `sort`: the same column flips its order, another one starts at its {@link firstSortOrder}. */
export function nextSort(current: { readonly sort: ServiceSort; readonly order: SortOrder }, sort: ServiceSort): { sort: ServiceSort; order: SortOrder } {
  if (current.sort === sort) return { sort, order: current.order === 'asc' ? 'desc' : 'asc' };
  return { sort, order: firstSortOrder(sort) };
}

/** The `sort` values of `GET /api/v1/services` (documented in docs/api.md), in documented order. */
export const SERVICE_SORT_KEYS = ['name', 'namespace', 'mechanism', 'hints', 'reason', 'endpoints', 'crossZone', 'volume', 'cost'] as const;
/** One API `sort` value (see {@link SERVICE_SORT_KEYS}). */
export type ServiceSortKey = (typeof SERVICE_SORT_KEYS)[number];

/** The column each API `sort` value sorts by (`namespace` is namespace, then name: the table's `service`). */
export const API_SORT_ALIASES: Readonly<Record<ServiceSortKey, ServiceSort>> = {
  name: 'name',
  namespace: 'service',
  mechanism: 'mechanism',
  hints: 'hints',
  reason: 'reason',
  endpoints: 'endpoints',
  crossZone: 'crossZone',
  volume: 'volume',
  cost: 'cost',
};

/** The table's sortable columns, in column order: its `?sort=` values (the same names as {@link SERVICE_SORTS}). */
export const TABLE_SORT_KEYS = ['service', 'mechanism', 'hints', 'reason', 'endpoints', 'crossZone', 'volume', 'cost'] as const satisfies readonly ServiceSort[];
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
  /** Only Services with this mechanism (`''`/`undefined`: every one). */
  readonly mechanism?: string;
  /** Only Services of this type. */
  readonly type?: string;
  /** Only Services needing attention for this reason. */
  readonly reason?: string;
}

/** The filter predicate of a query (normalises `q` once). */
export function serviceFilter(filter: ServiceFilter): (row: QueryableService) => boolean {
  const q = filter.q?.trim().toLowerCase() ?? '';
  const namespace = filter.namespace ?? '';
  const attention = filter.attention === true;
  const reasons = filter.searchReasons === true;
  const mechanism = filter.mechanism ?? '';
  const type = filter.type ?? '';
  const reason = filter.reason ?? '';
  return (row) =>
    (namespace === '' || row.namespace === namespace) &&
    (!attention || row.attention !== null) &&
    (mechanism === '' || row.mechanism === mechanism) &&
    (type === '' || row.type === type) &&
    (reason === '' || row.attention === reason) &&
    (q === '' || row.search.includes(q) || (reasons && (row.reason?.toLowerCase().includes(q) ?? false)));
}

/** The order of two sort values (see {@link serviceSortValue}). */
export function compareValues(a: string | number, b: string | number): number {
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

/** The Services table's state, kept in its URL as `?q=&ns=&mechanism=&reason=&type=&sort=&order=&attention=1`. */
export interface TableQuery {
  readonly q: string;
  /** `''`: every namespace. */
  readonly ns: string;
  /** `''`: every mechanism, else one of {@link SERVICE_MECHANISMS}. */
  readonly mechanism: string;
  /** `''`: any reason, else one of {@link ATTENTION_REASONS}. */
  readonly reason: string;
  /** `''`: every type, else one of {@link SERVICE_TYPES}. */
  readonly type: string;
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
  const known = (list: readonly string[], value: string) => (list.includes(value) ? value : '');
  return {
    q: one(params.q).slice(0, MAX_QUERY_LENGTH),
    ns: namespaces.includes(ns) ? ns : '',
    mechanism: known(SERVICE_MECHANISMS, one(params.mechanism)),
    reason: known(ATTENTION_REASONS, one(params.reason)),
    type: known(SERVICE_TYPES, one(params.type)),
    sort: (TABLE_SORT_KEYS as readonly string[]).includes(sort) ? (sort as TableSortKey) : 'service',
    order: one(params.order) === 'desc' ? 'desc' : 'asc',
    attention: attention === '1' || attention === 'true',
  };
}

/**
 * The table's query from a URL search string as the browser has it (`?sort=cost&order=desc`, the
 * leading `?` optional): the same as {@link parseTableQuery} gives for the page's `searchParams`
 * (a parameter given twice counts once, its first value).
 */
export function parseTableSearch(search: string | URLSearchParams, namespaces: readonly string[]): TableQuery {
  const params = typeof search === 'string' ? new URLSearchParams(search) : search;
  const record: Record<string, string> = {};
  for (const [key, value] of params) if (!(key in record)) record[key] = value;
  return parseTableQuery(record, namespaces);
}

/** The URL search string of a table query (`''` for the defaults), the inverse of {@link parseTableQuery}. */
export function tableQuerySearch(query: TableQuery): string {
  const params = new URLSearchParams();
  if (query.q) params.set('q', query.q);
  if (query.ns) params.set('ns', query.ns);
  if (query.mechanism) params.set('mechanism', query.mechanism);
  if (query.reason) params.set('reason', query.reason);
  if (query.type) params.set('type', query.type);
  if (query.attention) params.set('attention', '1');
  if (query.sort !== 'service') params.set('sort', query.sort);
  if (query.order !== 'asc') params.set('order', query.order);
  const search = params.toString();
  return search ? `?${search}` : '';
}

/** The filter of a table query (the search covers reasons too). */
function tableServiceFilter(query: TableQuery): ServiceFilter {
  return { q: query.q, searchReasons: true, namespace: query.ns, attention: query.attention, mechanism: query.mechanism, reason: query.reason, type: query.type };
}

/** The filter predicate of a table query (see {@link serviceFilter}). */
export function tableFilter(query: TableQuery): (row: QueryableService) => boolean {
  return serviceFilter(tableServiceFilter(query));
}

/** Filters and sorts the table's rows by its query (the search covers reasons too). */
export function queryTable<T extends QueryableService>(rows: readonly T[], query: TableQuery): T[] {
  return queryServices(rows, { ...tableServiceFilter(query), sort: query.sort, order: query.order });
}

/** Whether a table query filters anything out (sort aside). */
export function tableQueryFilters(query: TableQuery): boolean {
  return query.q.trim() !== '' || query.ns !== '' || query.mechanism !== '' || query.reason !== '' || query.type !== '' || query.attention;
}

/** The table's sort columns as the API names them (the API's `namespace` is the table's `service`). */
const API_SORT_OF_TABLE: Readonly<Record<TableSortKey, ServiceSortKey>> = {
  service: 'namespace',
  mechanism: 'mechanism',
  hints: 'hints',
  reason: 'reason',
  endpoints: 'endpoints',
  crossZone: 'crossZone',
  volume: 'volume',
  cost: 'cost',
};

/** Export formats of `GET /api/v1/services?format=` (the default answer is the paged JSON). */
export const EXPORT_FORMATS = ['csv', 'json'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

/**
 * The `GET /api/v1/services` address that exports what the table shows with `query`: every
 * matching row (no paging) in the table's order, as CSV or JSON.
 */
export function tableExportHref(query: TableQuery, format: ExportFormat): string {
  const params = new URLSearchParams();
  params.set('format', format);
  if (query.q.trim()) {
    params.set('q', query.q.slice(0, MAX_QUERY_LENGTH));
    params.set('searchReasons', '1');
  }
  if (query.ns) params.set('namespace', query.ns);
  if (query.mechanism) params.set('mechanism', query.mechanism);
  if (query.reason) params.set('reason', query.reason);
  if (query.type) params.set('type', query.type);
  if (query.attention) params.set('attention', '1');
  params.set('sort', API_SORT_OF_TABLE[query.sort]);
  params.set('order', query.order);
  return `/api/v1/services?${params.toString()}`;
}

// ---------------------------------------------------------------------------------------------
// The API's filter and export parameters

/** The `GET /api/v1/services` parameters parsed by {@link parseServiceFilterParams} (on top of `q`, `namespace`, `attention`, paging and sort). */
export const SERVICE_FILTER_PARAMS = ['mechanism', 'reason', 'type', 'searchReasons', 'format'] as const;

/** The mechanism/reason/type filters, the reason search and the export format of an API query. */
export interface ServiceFilterParams {
  readonly mechanism?: string;
  readonly reason?: string;
  readonly type?: string;
  readonly searchReasons?: boolean;
  readonly format?: ExportFormat;
}

/**
 * Parses {@link SERVICE_FILTER_PARAMS}: each at most once, an empty value meaning "not given";
 * anything else than the listed values is an error message (the caller answers 400 with it).
 */
export function parseServiceFilterParams(params: URLSearchParams): { ok: true; value: ServiceFilterParams } | { ok: false; message: string } {
  const value: { -readonly [K in keyof ServiceFilterParams]: ServiceFilterParams[K] } = {};
  const choices: Readonly<Record<'mechanism' | 'reason' | 'type' | 'format', readonly string[]>> = {
    mechanism: SERVICE_MECHANISMS,
    reason: ATTENTION_REASONS,
    type: SERVICE_TYPES,
    format: EXPORT_FORMATS,
  };
  for (const key of SERVICE_FILTER_PARAMS) {
    const all = params.getAll(key);
    if (all.length > 1) return { ok: false, message: `The query parameter "${key}" is given more than once.` };
    const text = all[0];
    if (text === undefined || text === '') continue;
    if (key === 'searchReasons') {
      if (text === '1' || text === 'true') value.searchReasons = true;
      else if (text === '0' || text === 'false') value.searchReasons = false;
      else return { ok: false, message: 'searchReasons must be true, false, 1 or 0.' };
      continue;
    }
    const allowed = choices[key];
    if (!allowed.includes(text)) return { ok: false, message: `${key} must be one of ${allowed.join(', ')}.` };
    if (key === 'format') value.format = text as ExportFormat;
    else value[key] = text;
  }
  return { ok: true, value };
}

// ---------------------------------------------------------------------------------------------
// CSV

/**
 * One CSV field (RFC 4180): quoted when it holds a comma, quote, CR or LF, quotes doubled. A text
 * that a spreadsheet would run as a formula (starting with `=`, `+`, `-`, `@`, tab or CR; event
 * messages come from the cluster) gets a leading `'`, as OWASP recommends against CSV injection.
 */
export function csvField(value: string | number | boolean | null): string {
  if (value === null) return '';
  if (typeof value !== 'string') return String(value);
  const text = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** CSV text (CRLF line ends, as RFC 4180 has them) from a header row and rows of fields. */
export function toCsv(header: readonly string[], rows: readonly (readonly (string | number | boolean | null)[])[]): string {
  return [header, ...rows].map((fields) => fields.map(csvField).join(',')).join('\r\n') + '\r\n';
}

/** A Services query of the API (validated by the caller, see `parseServiceQuery`): the shared filter plus sort and page. */
export interface ServiceQuery extends ServiceFilter {
  readonly sort?: ServiceSortKey;
  readonly order?: SortOrder;
  readonly offset?: number;
  readonly limit?: number;
}

/** The per-endpoint lists of the Service page, each served in full by `getServiceEndpointList` (lib/views/service.ts). */
export const ENDPOINT_LISTS = ['endpoints', 'diff', 'loads'] as const;
/** One per-endpoint list (see {@link ENDPOINT_LISTS}). */
export type EndpointListKind = (typeof ENDPOINT_LISTS)[number];

/** Which list `GET /api/v1/services/{namespace}/{name}/endpoints` returns. */
export interface EndpointListQuery {
  readonly list: EndpointListKind;
  /** The traffic scenario of `list=loads` (ignored otherwise). */
  readonly scenario: TrafficScenario;
}
