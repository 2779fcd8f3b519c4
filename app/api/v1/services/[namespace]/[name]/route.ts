/** `GET /api/v1/services/{namespace}/{name}`: the analyze per-Service object plus the detail panels; `ETag` is the resourceVersion. */
import { scopeFromRequest } from '@/lib/server/clusters';
import { API_HEADERS, methodNotAllowed } from '@/lib/server/http';
import { parseServiceRef, parseTrafficOptions } from '@/lib/server/requests';
import { readErrorResponse } from '@/lib/views/responses';
import { getServiceDetailBody } from '@/lib/views/service/detail-body';

export const dynamic = 'force-dynamic';

export async function GET(request: Request, context: { params: Promise<{ namespace: string; name: string }> }): Promise<Response> {
  const scope = scopeFromRequest(request);
  if (scope instanceof Response) return scope;
  const { namespace, name } = await context.params;
  const ref = parseServiceRef(namespace, name, 'service');
  if (!ref.ok) return ref.response;
  const options = parseTrafficOptions(new URL(request.url).searchParams);
  if (!options.ok) return options.response;
  // The same body as `jsonResponse(getServiceDetailView(…))`, the unchanged analysis detail serialised and encoded once.
  const result = getServiceDetailBody(scope, ref.value.namespace, ref.value.name, options.value);
  if (result.ok) return new Response(result.body, { status: 200, headers: { ...API_HEADERS, 'Content-Type': 'application/json', ETag: `"${result.resourceVersion}"` } });
  return readErrorResponse(scope, 'service', result.error);
}

const notAllowed = (): Response => methodNotAllowed('service', ['GET']);
export { notAllowed as POST, notAllowed as PUT, notAllowed as PATCH, notAllowed as DELETE, notAllowed as OPTIONS };
