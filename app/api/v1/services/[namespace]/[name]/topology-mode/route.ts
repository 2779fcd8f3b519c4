/**
 * `GET …/topology-mode`: the toggle's state. `PUT …/topology-mode` with exactly
 * `{"mode":"Auto"|"Disabled"}` and `If-Match: "<resourceVersion>"`: the guarded write
 * (same-origin only; beyond loopback only behind the auth proxy or with the explicit opt-in;
 * see docs/api.md for every status).
 */
import { scopeFromRequest } from '@/lib/server/clusters';
import { dataErrorResponse, jsonResponse, methodNotAllowed } from '@/lib/server/http';
import { parseServiceRef, parseTopologyModeRequest } from '@/lib/server/requests';
import { auditUser, refuseCrossSite, refuseUnauthenticatedWrite } from '@/lib/server/origin';
import { getTopologyModeState } from '@/lib/views/topology-mode/state';
import { setTopologyMode } from '@/lib/views/topology-mode/write';

export const dynamic = 'force-dynamic';

type Context = { params: Promise<{ namespace: string; name: string }> };

export async function GET(request: Request, context: Context): Promise<Response> {
  const scope = scopeFromRequest(request);
  if (scope instanceof Response) return scope;
  const { namespace, name } = await context.params;
  const ref = parseServiceRef(namespace, name, 'topology-mode');
  if (!ref.ok) return ref.response;
  const result = await getTopologyModeState(scope, ref.value.namespace, ref.value.name);
  return result.ok ? jsonResponse(result.value, 200, { ETag: `"${result.value.resourceVersion}"` }) : dataErrorResponse('topology-mode', result.error);
}

export async function PUT(request: Request, context: Context): Promise<Response> {
  const { namespace, name } = await context.params;
  const refused = refuseCrossSite(request, 'topology-mode');
  if (refused) return refused;
  const unauthenticated = refuseUnauthenticatedWrite(request, 'topology-mode');
  if (unauthenticated) return unauthenticated;
  const scope = scopeFromRequest(request);
  if (scope instanceof Response) return scope;
  const ref = parseServiceRef(namespace, name, 'topology-mode');
  if (!ref.ok) return ref.response;
  const body = await parseTopologyModeRequest(request);
  if (!body.ok) return body.response;
  const result = await setTopologyMode(scope, { ...ref.value, ...body.value, user: auditUser(request.headers) });
  return result.ok ? jsonResponse({ result: result.value }, 200, { ETag: `"${result.value.resourceVersion}"` }) : dataErrorResponse('topology-mode', result.error);
}

const notAllowed = (): Response => methodNotAllowed('topology-mode', ['GET', 'PUT']);
export { notAllowed as POST, notAllowed as PATCH, notAllowed as DELETE, notAllowed as OPTIONS };
