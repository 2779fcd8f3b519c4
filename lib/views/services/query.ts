/**
 * `GET /api/v1/services`: the Services rows filtered, sorted and paged with the one definition of
 * lib/shared/service-query.ts, and every matching row for an export. The rows are sorted once per
 * (rows, column, direction) and filtered per request, so a request costs one pass, not a sort.
 */
import 'server-only';

import type { QueryableService, ServiceQuery } from '../../shared/service-query';
import { API_SORT_ALIASES, serviceFilter, serviceNaturalKey, serviceSearchText, sortServices } from '../../shared/service-query';
import type { ServiceRow } from './rows';

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
      hpaScaleDown: row.hpaScaleDown.state,
      measuredMinusPredicted: row.measuredMinusPredicted,
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
    serviceFilter({
      q: query.q,
      searchReasons: query.searchReasons,
      namespace: query.namespace,
      attention: query.attention,
      mechanism: query.mechanism,
      type: query.type,
      reason: query.reason,
      hpa: query.hpa,
      measuredDiff: query.measuredDiff,
    }),
  );
}

/** Every row matching the query, in its order (no paging): what an export holds. */
export function exportServiceRows(rows: readonly ServiceRow[], query: ServiceQuery): ServiceRow[] {
  return sortedRows(rows, query).map((entry) => entry.row);
}
