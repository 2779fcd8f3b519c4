/**
 * The Services table's filtered and sorted views, for the browser: the same rows in the same
 * order as `queryTable` (lib/shared/services-table-url.ts) gives, but cheaper per interaction.
 *
 * - Every row's place in the natural order (`namespace/name`, the tie-break of every column) is
 *   computed once, so a sort compares two numbers or two short values and then two integers,
 *   instead of the two rows' natural-key strings on every tie.
 * - Every column and direction is sorted at most once per table: filtering keeps the relative
 *   order of the rows it keeps, so a filtered view is the column's full order, filtered (one pass
 *   over the rows, no sort at all).
 * - The last few views are kept, so going back to a previous query costs nothing.
 *
 * Pure (no DOM): the unit tests check it against `queryTable` itself.
 */
import type { QueryableService, SortOrder } from '@/lib/shared/service-query';
import { compareValues, serviceSortValue, sortServices } from '@/lib/shared/service-query';
import type { TableQuery, TableSortKey } from '@/lib/shared/services-table-url';
import { tableFilter, tableQueryFilters } from '@/lib/shared/services-table-url';

/** Views kept per table by default (the initial one, and the last few the user asked for). */
export const VIEWS_KEPT = 8;

/** The cache key of a query: every field that changes which rows show or their order. */
export function tableQueryKey(query: TableQuery): string {
  return JSON.stringify([query.q, query.ns, query.mechanism, query.reason, query.type, query.hpa, query.measuredDiff, query.sort, query.order, query.attention]);
}

/** The filtered and sorted views of one table's rows (the rows are never copied or changed). */
export class TableViews<T extends QueryableService> {
  /** `rank[i]`: the place of `rows[i]` in the natural order (ties: the rows' own order). */
  private rank: Int32Array | null = null;
  private readonly orders = new Map<string, readonly T[]>();
  private readonly views = new Map<string, readonly T[]>();

  constructor(
    readonly rows: readonly T[],
    private readonly kept: number = VIEWS_KEPT,
  ) {}

  private naturalRank(): Int32Array {
    if (this.rank === null) {
      const index = new Map<T, number>(this.rows.map((row, i) => [row, i]));
      const rank = new Int32Array(this.rows.length);
      // The service column is the natural key itself, ties in the rows' order: the natural order.
      const natural = sortServices(this.rows, 'service', 'asc');
      this.orders.set('service:asc', natural);
      natural.forEach((row, place) => {
        rank[index.get(row) ?? 0] = place;
      });
      this.rank = rank;
    }
    return this.rank;
  }

  /** Every row in the order of `sort` and `order` (sorted once per column and direction; read-only). */
  ordered(sort: TableSortKey, order: SortOrder): readonly T[] {
    const key = `${sort}:${order}`;
    let rows = this.orders.get(key);
    if (rows === undefined) {
      const rank = this.naturalRank();
      rows = this.orders.get(key);
      if (rows === undefined) {
        const value = serviceSortValue(sort);
        const values = this.rows.map(value);
        const direction = order === 'desc' ? -1 : 1;
        const index = Array.from(this.rows, (_, i) => i);
        index.sort((a, b) => direction * compareValues(values[a] as string | number, values[b] as string | number) || (rank[a] as number) - (rank[b] as number));
        rows = index.map((i) => this.rows[i] as T);
        this.orders.set(key, rows);
      }
    }
    return rows;
  }

  /** The rows `query` shows, in its order (the same as `queryTable(rows, query)`; read-only). */
  view(query: TableQuery): readonly T[] {
    const key = tableQueryKey(query);
    let view = this.views.get(key);
    if (view === undefined) {
      const ordered = this.ordered(query.sort, query.order);
      view = tableQueryFilters(query) ? ordered.filter(tableFilter(query)) : ordered;
      if (this.views.size >= this.kept) this.views.delete(this.views.keys().next().value as string);
    } else {
      // Most recently used last, so the oldest is dropped first.
      this.views.delete(key);
    }
    this.views.set(key, view);
    return view;
  }
}
