/**
 * The first rows of the Service page's per-endpoint tables, rendered with the page (the rest load
 * on demand from `GET /api/v1/services/{namespace}/{name}/endpoints`). Memoised per analysis
 * result: the per-Service cache hands out the same object until the Service's inputs change, so
 * a 5,000-endpoint Service is sorted once, not on every request.
 */
import type { ServiceDetail } from '@/lib/topology/report/analysis-schema';
import type { EndpointView } from '@/lib/topology/analyses/analyze-service';
import type { HintsDiffEntry } from '@/lib/topology/analyses/hints-diff';
import { sortDiffEntries, sortEndpoints } from './endpoint-order';

/** Endpoints rendered with the page. */
export const FIRST_ENDPOINTS = 10;
/** Differing endpoints rendered with the page. */
export const FIRST_DIFF_ENTRIES = 10;
/** A list this short is rendered whole (a button for the last few rows would only cost a click). */
export const WHOLE_LIST_UP_TO = 15;

function first<T>(rows: readonly T[], count: number): T[] {
  return rows.length <= WHOLE_LIST_UP_TO ? [...rows] : rows.slice(0, count);
}

export interface FirstRows {
  readonly endpoints: readonly EndpointView[];
  readonly diffEntries: readonly HintsDiffEntry[];
}

const MEMO = new WeakMap<ServiceDetail, FirstRows>();

export function firstRows(detail: ServiceDetail): FirstRows {
  const cached = MEMO.get(detail);
  if (cached) return cached;
  const rows: FirstRows = {
    endpoints: first(sortEndpoints(detail.endpoints), FIRST_ENDPOINTS),
    diffEntries: first(sortDiffEntries(detail.diffEntries), FIRST_DIFF_ENTRIES),
  };
  MEMO.set(detail, rows);
  return rows;
}
