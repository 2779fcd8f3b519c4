/**
 * `GET /api/v1/services/{namespace}/{name}/history?range=1h|6h|24h|7d`: the Service's hints,
 * reasons, mechanism, ready endpoints per zone and cross-zone share over time, read back from the
 * Prometheus that scrapes zonescope's `/metrics` (docs/api.md, "History"). Prometheus problems are
 * a 200 with `status`; a bad range is 400, an unknown Service 404, the first sync 503.
 */
import { scopeFromRequest } from '@/lib/server/clusters';
import { jsonResponse, methodNotAllowed } from '@/lib/server/http';
import { parseServiceRef } from '@/lib/server/requests';
import { readErrorResponse } from '@/lib/views/responses';
import { getServiceHistory, parseHistoryQuery } from '@/lib/views/history';

export const dynamic = 'force-dynamic';

export async function GET(request: Request, context: { params: Promise<{ namespace: string; name: string }> }): Promise<Response> {
  const scope = scopeFromRequest(request);
  if (scope instanceof Response) return scope;
  const { namespace, name } = await context.params;
  const ref = parseServiceRef(namespace, name, 'service');
  if (!ref.ok) return ref.response;
  const range = parseHistoryQuery(new URL(request.url).searchParams);
  if (!range.ok) return range.response;
  const result = await getServiceHistory(scope, ref.value.namespace, ref.value.name, range.value);
  if (result.ok) return jsonResponse(result.value);
  return readErrorResponse(scope, 'service', result.error);
}

const notAllowed = (): Response => methodNotAllowed('service', ['GET']);
export { notAllowed as POST, notAllowed as PUT, notAllowed as PATCH, notAllowed as DELETE, notAllowed as OPTIONS };
