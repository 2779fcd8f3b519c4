/**
 * `GET /api/v1/services/{namespace}/{name}/yaml[?managedFields=1]`: the Service and its
 * EndpointSlices as the API server has them, as multi-document YAML (`managedFields` left out
 * unless asked for). See docs/api.md.
 */
import { scopeFromRequest } from '@/lib/server/clusters';
import { errorResponse, methodNotAllowed } from '@/lib/server/http';
import { parseServiceRef } from '@/lib/server/requests';
import { readErrorResponse } from '@/lib/views/responses';
import { getServiceYaml } from '@/lib/views/service-yaml';

export const dynamic = 'force-dynamic';

export async function GET(request: Request, context: { params: Promise<{ namespace: string; name: string }> }): Promise<Response> {
  const scope = scopeFromRequest(request);
  if (scope instanceof Response) return scope;
  const { namespace, name } = await context.params;
  const ref = parseServiceRef(namespace, name, 'service');
  if (!ref.ok) return ref.response;
  const params = new URL(request.url).searchParams;
  for (const key of params.keys()) {
    if (key !== 'managedFields') return errorResponse(400, 'bad-request', 'service', `Unknown query parameter "${key.slice(0, 40)}"; known: managedFields.`);
  }
  const values = params.getAll('managedFields');
  if (values.length > 1) return errorResponse(400, 'bad-request', 'service', 'The query parameter "managedFields" is given more than once.');
  const value = values[0] ?? '';
  if (!['', '0', '1', 'true', 'false'].includes(value)) return errorResponse(400, 'bad-request', 'service', 'managedFields must be true, false, 1 or 0.');
  const result = await getServiceYaml(scope, ref.value.namespace, ref.value.name, value === '1' || value === 'true');
  if (!result.ok) return readErrorResponse(scope, 'service', result.error);
  return new Response(result.value.yaml, {
    status: 200,
    headers: { 'Content-Type': 'application/yaml; charset=utf-8', 'Cache-Control': 'no-store', 'X-Content-Type-Options': 'nosniff' },
  });
}

const notAllowed = (): Response => methodNotAllowed('service', ['GET']);
export { notAllowed as POST, notAllowed as PUT, notAllowed as PATCH, notAllowed as DELETE, notAllowed as OPTIONS };
