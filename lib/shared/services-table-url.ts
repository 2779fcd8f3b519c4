/**
 * The Services table's URL state, `?q=&ns=&mechanism=&reason=&type=&hpa=&measuredDiff=&sort=&order=&attention=1`:
 * read from the page's parameters or the address bar, written back, turned into the shared filter
 * and sort of ./service-query.ts, and the `GET /api/v1/services` export link of what the table
 * shows. Pure and safe for client components: the table runs it in the browser.
 */
import type { ExportFormat, QueryableService, ServiceFilter, ServiceSort, ServiceSortKey, SortOrder } from './service-query';
import { API_SORT_ALIASES, ATTENTION_REASONS, HPA_FILTERS, MAX_QUERY_LENGTH, MEASURED_DIFF_CHOICES, queryServices, SERVICE_MECHANISMS, SERVICE_SORT_KEYS, SERVICE_TYPES, serviceFilter } from './service-query';

/** The table's sortable columns, in column order: its `?sort=` values (the same names as {@link SERVICE_SORTS}). */
export const TABLE_SORT_KEYS = ['service', 'mechanism', 'hints', 'reason', 'endpoints', 'hpa', 'crossZone', 'measuredDiff', 'volume', 'cost'] as const satisfies readonly ServiceSort[];
/** One table `?sort=` value (see {@link TABLE_SORT_KEYS}). */
export type TableSortKey = (typeof TABLE_SORT_KEYS)[number];

/** The Services table's state, kept in its URL as `?q=&ns=&mechanism=&reason=&type=&hpa=&measuredDiff=&sort=&order=&attention=1`. */
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
  /** `''`: every Service, else one of {@link HPA_FILTERS}. */
  readonly hpa: string;
  /** `null`: every Service, else one of {@link MEASURED_DIFF_CHOICES} (points). */
  readonly measuredDiff: number | null;
  readonly sort: TableSortKey;
  readonly order: SortOrder;
  readonly attention: boolean;
}

function one(value: string | string[] | undefined): string {
  return (Array.isArray(value) ? value[0] : value) ?? '';
}

/** One of the table's {@link MEASURED_DIFF_CHOICES} written as a plain number (`10`), else `null`. */
function measuredDiffChoice(text: string): number | null {
  const choice = MEASURED_DIFF_CHOICES.find((points) => String(points) === text);
  return choice ?? null;
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
    hpa: known(HPA_FILTERS, one(params.hpa)),
    measuredDiff: measuredDiffChoice(one(params.measuredDiff)),
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
  setFilterParams(params, query);
  if (query.sort !== 'service') params.set('sort', query.sort);
  if (query.order !== 'asc') params.set('order', query.order);
  const search = params.toString();
  return search ? `?${search}` : '';
}

/** The filter of a table query (the search covers reasons too). */
function tableServiceFilter(query: TableQuery): ServiceFilter {
  return {
    q: query.q,
    searchReasons: true,
    namespace: query.ns,
    attention: query.attention,
    mechanism: query.mechanism,
    reason: query.reason,
    type: query.type,
    hpa: query.hpa,
    measuredDiff: query.measuredDiff ?? undefined,
  };
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
  return (
    query.q.trim() !== '' || query.ns !== '' || query.mechanism !== '' || query.reason !== '' || query.type !== '' || query.hpa !== '' || query.measuredDiff !== null || query.attention
  );
}

/** The filters the table's URL and the API name alike (`q` and the namespace differ), set on `params` when given. */
function setFilterParams(params: URLSearchParams, query: TableQuery): void {
  if (query.mechanism) params.set('mechanism', query.mechanism);
  if (query.reason) params.set('reason', query.reason);
  if (query.type) params.set('type', query.type);
  if (query.hpa) params.set('hpa', query.hpa);
  if (query.measuredDiff !== null) params.set('measuredDiff', String(query.measuredDiff));
  if (query.attention) params.set('attention', '1');
}

/** The API `sort` value of each table column: the inverse of {@link API_SORT_ALIASES} (the API's `namespace` is the table's `service`). */
const API_SORT_OF_TABLE = Object.fromEntries(
  SERVICE_SORT_KEYS.filter((key) => key !== 'name').map((key) => [API_SORT_ALIASES[key], key]),
) as Readonly<Record<TableSortKey, ServiceSortKey>>;

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
  setFilterParams(params, query);
  params.set('sort', API_SORT_OF_TABLE[query.sort]);
  params.set('order', query.order);
  return `/api/v1/services?${params.toString()}`;
}
