/**
 * `GET /api/v1/services/table`: the Services table's own data, what the Services page's client
 * table loads — every Service as a compact tuple with its repeated strings interned
 * (lib/views/services/table.ts `SlimServiceRow`). Made once per analysis and traffic snapshot and
 * sent as it is (Next.js compresses it for a client that takes gzip), so a view of the page costs
 * the bytes it sends. `v` is the table's version as the page wrote it into the address: any value is
 * accepted, and the answer is always the current table (its version in `X-Table-Version`).
 * Not a stable interface: scripts use `GET /api/v1/services` (filters, paging, exports).
 */
import { scopeFromRequest } from '@/lib/server/clusters';
import { API_HEADERS, errorResponse, methodNotAllowed, truncate } from '@/lib/server/http';
import { notReadyResponse } from '@/lib/views/responses';
import { getServiceTable, serviceTableBody } from '@/lib/views/services/table';

export const dynamic = 'force-dynamic';

export function GET(request: Request): Response {
  const scope = scopeFromRequest(request);
  if (scope instanceof Response) return scope;
  const params = new URL(request.url).searchParams;
  for (const key of params.keys()) {
    if (key !== 'v') return errorResponse(400, 'bad-request', 'services', `Unknown query parameter "${truncate(key)}"; known: v.`);
  }
  const table = getServiceTable(scope);
  if (table === null) return notReadyResponse(scope, 'services');
  const body = serviceTableBody(table);
  return new Response(body.bytes, { status: 200, headers: { ...API_HEADERS, 'Content-Type': 'application/json', 'X-Table-Version': body.version } });
}

const notAllowed = (): Response => methodNotAllowed('services', ['GET']);
export { notAllowed as POST, notAllowed as PUT, notAllowed as PATCH, notAllowed as DELETE, notAllowed as OPTIONS };
