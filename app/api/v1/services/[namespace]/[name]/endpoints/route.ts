/**
 * `GET /api/v1/services/{namespace}/{name}/endpoints?list=endpoints|diff|loads[&scenario=…]`: one
 * per-endpoint list of the Service in full. The Service page renders only the first rows of its
 * per-endpoint tables and loads the rest from here when asked, so the page stays small at
 * thousands of endpoints.
 */
import { scopeFromRequest } from '@/lib/server/clusters';
import { jsonResponse, methodNotAllowed } from '@/lib/server/http';
import { parseEndpointListQuery, parseServiceRef } from '@/lib/server/requests';
import { readErrorResponse } from '@/lib/views/responses';
import { getServiceEndpointList } from '@/lib/views/service/endpoint-lists';

export const dynamic = 'force-dynamic';

export async function GET(request: Request, context: { params: Promise<{ namespace: string; name: string }> }): Promise<Response> {
  const scope = scopeFromRequest(request);
  if (scope instanceof Response) return scope;
  const { namespace, name } = await context.params;
  const ref = parseServiceRef(namespace, name, 'service');
  if (!ref.ok) return ref.response;
  const query = parseEndpointListQuery(new URL(request.url).searchParams);
  if (!query.ok) return query.response;
  const result = getServiceEndpointList(scope, ref.value.namespace, ref.value.name, query.value);
  if (result.ok) return jsonResponse(result.value);
  return readErrorResponse(scope, 'service', result.error);
}

const notAllowed = (): Response => methodNotAllowed('service', ['GET']);
export { notAllowed as POST, notAllowed as PUT, notAllowed as PATCH, notAllowed as DELETE, notAllowed as OPTIONS };
