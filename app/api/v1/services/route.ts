/** `GET /api/v1/services`: the Services table, filtered, sorted and paged (see docs/api.md). */
import { jsonResponse, methodNotAllowed, notReadyResponse, parseServiceQuery } from '@/lib/data/http';
import { getServiceRows, queryServiceRows, serviceNamespaces } from '@/lib/data/services';

export const dynamic = 'force-dynamic';

export function GET(request: Request): Response {
  const query = parseServiceQuery(new URL(request.url).searchParams);
  if (!query.ok) return query.response;
  const rows = getServiceRows();
  if (rows === null) return notReadyResponse('services');
  const { total, items } = queryServiceRows(rows, query.value);
  return jsonResponse({ total, offset: query.value.offset, limit: query.value.limit, items, namespaces: serviceNamespaces(rows) });
}

const notAllowed = (): Response => methodNotAllowed('services', ['GET']);
export { notAllowed as POST, notAllowed as PUT, notAllowed as PATCH, notAllowed as DELETE, notAllowed as OPTIONS };
