/**
 * `GET /api/v1/cluster/history?range=1h|6h|24h|7d`: the cluster's eligibility, cross-zone spend,
 * nodes and Services counts over time, read back from the Prometheus that scrapes zonescope's
 * `/metrics` (docs/api.md, "History"). Needs no cluster connection; Prometheus problems are a 200
 * with `status`; a bad range is 400.
 */
import { scopeFromRequest } from '@/lib/server/clusters';
import { jsonResponse, methodNotAllowed } from '@/lib/server/http';
import { getClusterHistory, parseHistoryQuery } from '@/lib/views/history';

export const dynamic = 'force-dynamic';

export async function GET(request: Request): Promise<Response> {
  const scope = scopeFromRequest(request);
  if (scope instanceof Response) return scope;
  const range = parseHistoryQuery(new URL(request.url).searchParams);
  if (!range.ok) return range.response;
  return jsonResponse(await getClusterHistory(scope, range.value));
}

const notAllowed = (): Response => methodNotAllowed('cluster', ['GET']);
export { notAllowed as POST, notAllowed as PUT, notAllowed as PATCH, notAllowed as DELETE, notAllowed as OPTIONS };
