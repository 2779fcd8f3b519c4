/**
 * The Services filter and sort: one definition for `GET /api/v1/services` and the Services table.
 * Pure (no `server-only`): the table runs it in the browser over every row on each keystroke, so
 * rows carry their search text and natural sort key precomputed ({@link serviceSearchText},
 * {@link serviceNaturalKey}) and a sort computes each row's sort value once.
 *
 * There is one set of sort columns ({@link SERVICE_SORTS}); the two public surfaces name them
 * their own way: the API's documented `sort` values ({@link SERVICE_SORT_KEYS}, through
 * {@link API_SORT_ALIASES}, here) and the table's URL values (`TABLE_SORT_KEYS` in
 * ./services-table-url.ts, with the rest of the table's URL state). The mechanism, reason, type,
 * `hpa` and `measuredDiff` filters have the same names and values on both surfaces (the API's
 * parameters are parsed by lib/server/requests.ts).
 */
import type { ServiceMechanism } from '../topology/analyses/service-mechanism';
import type { ServiceRecord } from '../topology/model/cluster-model';
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

/**
 * What an HPA's scale-down does to a Service's hints, by the count rule alone (Σ per-zone minimums
 * ≤ ready endpoints, checked at every replica count from minReplicas to maxReplicas):
 * - `off-at-min`: hints are off at minReplicas, where the HPA settles when load drops;
 * - `off-in-range`: on at minReplicas, off at some other count of the range;
 * - `on`: on at every count of the range;
 * - `not-applicable`: an HPA scales it, but its hints do not come from the `Auto` heuristic
 *   (trafficDistribution, or nothing asks for hints) or the cluster has no zone CPU ratios;
 * - `none`: no HPA scales the Deployment behind it;
 * - `unknown`: zonescope could not read a type the workload lookup needs.
 * In the order the column sorts them (worst first).
 */
export const HPA_SCALE_DOWN_STATES = ['off-at-min', 'off-in-range', 'on', 'not-applicable', 'none', 'unknown'] as const;
/** One {@link HPA_SCALE_DOWN_STATES} value. */
export type HpaScaleDownState = (typeof HPA_SCALE_DOWN_STATES)[number];

/**
 * The `hpa` filter's values: `off` (hints off at minReplicas or at another count of the HPA's
 * range), `off-at-min`, `on` (on at every count of the range) and `none` (no HPA).
 */
export const HPA_FILTERS = ['off', 'off-at-min', 'on', 'none'] as const;
/** One {@link HPA_FILTERS} value. */
export type HpaFilter = (typeof HPA_FILTERS)[number];

/** Whether a Service's HPA state passes an `hpa` filter value. */
export function hpaFilterMatches(filter: HpaFilter, state: HpaScaleDownState): boolean {
  return filter === 'off' ? state === 'off-at-min' || state === 'off-in-range' : state === filter;
}

/** Largest `measuredDiff` (points of cross-zone share: measured minus predicted, either sign). */
export const MAX_MEASURED_DIFF = 100;
/** The `measuredDiff` thresholds the table offers, in points (0: every Service measured with zone-resolved flows). */
export const MEASURED_DIFF_CHOICES = [0, 5, 10, 20] as const;
/** The threshold the Overview counts by, in points. */
export const MEASURED_DIFF_ATTENTION = 10;

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
  /** What the HPA's scale-down does to the hints (see {@link HPA_SCALE_DOWN_STATES}). */
  readonly hpaScaleDown: HpaScaleDownState;
  /**
   * The cross-zone share measured by zone-resolved flows minus the model's prediction, in
   * percentage points (−100 to 100); `null` unless measured with flows.
   */
  readonly measuredMinusPredicted: number | null;
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
export const SERVICE_SORTS = ['service', 'name', 'mechanism', 'hints', 'reason', 'endpoints', 'hpa', 'crossZone', 'measuredDiff', 'volume', 'cost'] as const;
/** One sort column (see {@link SERVICE_SORTS}). */
export type ServiceSort = (typeof SERVICE_SORTS)[number];

/** Sort direction of both surfaces. */
export type SortOrder = 'asc' | 'desc';

function hintsScore(row: QueryableService): number {
  // Problems first when ascending: expected on but not on the slices, then partial, then the rest.
  const observed = row.hintsObserved === 'all' ? 2 : row.hintsObserved === 'some' ? 1 : 0;
  return (row.hintsExpected ? 10 : 0) + observed;
}

/** The place of each HPA state in the `hpa` sort (see {@link HPA_SCALE_DOWN_STATES}). */
const HPA_RANK = Object.fromEntries(HPA_SCALE_DOWN_STATES.map((state, i) => [state, i])) as Readonly<Record<HpaScaleDownState, number>>;

/** What each column sorts by; ties always fall back to {@link QueryableService.naturalKey}, ascending. */
const SORT_VALUE: Readonly<Record<ServiceSort, (row: QueryableService) => string | number>> = {
  service: (row) => row.naturalKey,
  // Name, then namespace, field by field (U+0000 sorts below every character of a name).
  name: (row) => `${naturalKey(row.name)}\u0000${naturalKey(row.namespace)}`,
  mechanism: (row) => row.mechanism,
  hints: hintsScore,
  reason: (row) => (row.attention ? `0${row.attention}` : `1${row.reason ?? ''}`),
  endpoints: (row) => row.readyEndpoints,
  // Worst first when ascending: off at minReplicas, off within the range, on, then the rest.
  hpa: (row) => HPA_RANK[row.hpaScaleDown],
  crossZone: (row) => row.crossZoneFraction,
  // The size of the disagreement, either sign; Services not measured with flows rank below every figure.
  measuredDiff: (row) => (row.measuredMinusPredicted === null ? -1 : Math.abs(row.measuredMinusPredicted)),
  // Services without traffic figures rank below every figure (last when descending).
  volume: (row) => row.gbPerMonth ?? -1,
  cost: (row) => row.monthlyCost ?? -1,
};

/** What column `sort` orders rows by (ties: {@link QueryableService.naturalKey}, ascending), for callers that sort with their own precomputed keys. */
export function serviceSortValue(sort: ServiceSort): (row: QueryableService) => string | number {
  return SORT_VALUE[sort];
}

/** The columns that hold numbers: they sort descending on the first click (largest first), the others ascending. */
const NUMERIC_SORTS: ReadonlySet<ServiceSort> = new Set<ServiceSort>(['endpoints', 'crossZone', 'measuredDiff', 'volume', 'cost']);

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
export const SERVICE_SORT_KEYS = ['name', 'namespace', 'mechanism', 'hints', 'reason', 'endpoints', 'hpa', 'crossZone', 'measuredDiff', 'volume', 'cost'] as const;
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
  hpa: 'hpa',
  crossZone: 'crossZone',
  measuredDiff: 'measuredDiff',
  volume: 'volume',
  cost: 'cost',
};

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
  /** Only Services whose HPA state passes this filter (see {@link HPA_FILTERS}; `''`/`undefined`: every one). */
  readonly hpa?: string;
  /**
   * Only Services measured with zone-resolved flows whose measured cross-zone share differs from
   * the prediction by at least this many points, either way (`undefined`: every Service).
   */
  readonly measuredDiff?: number;
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
  const hpa = (HPA_FILTERS as readonly string[]).includes(filter.hpa ?? '') ? (filter.hpa as HpaFilter) : null;
  const measuredDiff = filter.measuredDiff ?? null;
  return (row) =>
    (namespace === '' || row.namespace === namespace) &&
    (!attention || row.attention !== null) &&
    (mechanism === '' || row.mechanism === mechanism) &&
    (type === '' || row.type === type) &&
    (reason === '' || row.attention === reason) &&
    (hpa === null || hpaFilterMatches(hpa, row.hpaScaleDown)) &&
    (measuredDiff === null || (row.measuredMinusPredicted !== null && Math.abs(row.measuredMinusPredicted) >= measuredDiff - 1e-9)) &&
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

/** Longest search string either surface accepts (the API refuses longer, the table cuts). */
export const MAX_QUERY_LENGTH = 200;

/** Export formats of `GET /api/v1/services?format=` (the default answer is the paged JSON). */
export const EXPORT_FORMATS = ['csv', 'json'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

/** A Services query of the API (validated by `parseServiceQuery`, lib/server/requests.ts): the shared filter plus sort and page. */
export interface ServiceQuery extends ServiceFilter {
  readonly sort?: ServiceSortKey;
  readonly order?: SortOrder;
  readonly offset?: number;
  readonly limit?: number;
}
