/**
 * `GET /api/v1/cluster/generation`: the cache's change generation and per-type health — what an
 * open page polls to know whether it is behind the watch (lib/shared/live-refresh.ts). O(resource
 * types): no analysis, no API server call; answers before the first sync too (with `synced: false`).
 * `/c/{id}/api/v1/cluster/generation` answers for that cluster.
 */
import { scopeFromRequest } from '@/lib/server/clusters';
import { jsonResponse, methodNotAllowed } from '@/lib/server/http';
import { getLiveState } from '@/lib/views/header';

export const dynamic = 'force-dynamic';

export function GET(request: Request): Response {
  const scope = scopeFromRequest(request);
  if (scope instanceof Response) return scope;
  return jsonResponse(getLiveState(scope));
}

const notAllowed = (): Response => methodNotAllowed('cluster', ['GET']);
export { notAllowed as POST, notAllowed as PUT, notAllowed as PATCH, notAllowed as DELETE, notAllowed as OPTIONS };
