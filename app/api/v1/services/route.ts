/**
 * `GET /api/v1/services`: the Services table, filtered, sorted and paged (see docs/api.md);
 * `format=csv` or `format=json` exports every matching row as a download instead.
 */
import { clusterDisplayName } from '@/lib/shared/cluster-name';
import type { ClusterScope } from '@/lib/server/clusters';
import { scopeFromRequest } from '@/lib/server/clusters';
import { getHeader } from '@/lib/views/header';
import { API_HEADERS, errorResponse, jsonResponse, methodNotAllowed } from '@/lib/server/http';
import { parseServiceFilterParams, parseServiceQuery } from '@/lib/server/requests';
import { notReadyResponse } from '@/lib/views/responses';
import { servicesCsv } from '@/lib/views/services/csv';
import { exportServiceRows, queryServiceRows } from '@/lib/views/services/query';
import { getServiceRows, rowZones, serviceNamespaces } from '@/lib/views/services/rows';

export const dynamic = 'force-dynamic';

/** `services-<cluster>.<ext>`, with only characters every file system and header accepts. */
function exportFileName(scope: ClusterScope, extension: string): string {
  const cluster = (clusterDisplayName(getHeader(scope)) ?? '').replace(/[^A-Za-z0-9._-]+/g, '-').replace(/^[-.]+|[-.]+$/g, '').slice(0, 60);
  return `services${cluster ? `-${cluster}` : ''}.${extension}`;
}

export function GET(request: Request): Response {
  const scope = scopeFromRequest(request);
  if (scope instanceof Response) return scope;
  const params = new URL(request.url).searchParams;
  const query = parseServiceQuery(params);
  if (!query.ok) return query.response;
  const filters = parseServiceFilterParams(params);
  if (!filters.ok) return filters.response;
  const { format, ...filter } = filters.value;
  if (format !== undefined && (params.has('offset') || params.has('limit'))) {
    return errorResponse(400, 'bad-request', 'services', 'offset and limit do not apply to an export: format=csv and format=json hold every matching Service.');
  }
  const rows = getServiceRows(scope);
  if (rows === null) return notReadyResponse(scope, 'services');
  const full = { ...query.value, ...filter };
  if (format === 'csv') {
    const items = exportServiceRows(rows, full);
    return new Response(servicesCsv(items, rowZones(rows)), {
      status: 200,
      headers: { ...API_HEADERS, 'Content-Type': 'text/csv; charset=utf-8', 'Content-Disposition': `attachment; filename="${exportFileName(scope, 'csv')}"` },
    });
  }
  if (format === 'json') {
    const items = exportServiceRows(rows, full);
    return jsonResponse({ total: items.length, items, namespaces: serviceNamespaces(rows) }, 200, { 'Content-Disposition': `attachment; filename="${exportFileName(scope, 'json')}"` });
  }
  const { total, items } = queryServiceRows(rows, full);
  return jsonResponse({ total, offset: query.value.offset, limit: query.value.limit, items, namespaces: serviceNamespaces(rows) });
}

const notAllowed = (): Response => methodNotAllowed('services', ['GET']);
export { notAllowed as POST, notAllowed as PUT, notAllowed as PATCH, notAllowed as DELETE, notAllowed as OPTIONS };
