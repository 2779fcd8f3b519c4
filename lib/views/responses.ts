/**
 * The 503 of a route whose cluster is not synced yet: what is still syncing, stale or forbidden
 * (the header view's freshness) as `progress`, with `Retry-After`.
 */
import 'server-only';

import type { ApiSurface, DataError } from '../server/http';
import { dataErrorResponse, errorResponse } from '../server/http';
import type { ClusterScope } from '../server/clusters';
import { getHeader, getSourceProblem, SYNCING } from './header';

/**
 * 503 `syncing:<surface>` (first sync still running) or `unavailable:<surface>` (no cluster
 * connected) with `progress` (the header's freshness: what is still syncing, stale or
 * forbidden) and `Retry-After: 2`. Call it when the data layer answered "not synced".
 */
export function notReadyResponse(scope: ClusterScope, surface: ApiSurface): Response {
  const problem = getSourceProblem(scope) ?? SYNCING;
  return errorResponse(503, problem.kind, surface, problem.message, { progress: getHeader(scope).freshness }, { 'Retry-After': '2' });
}

/**
 * The response for a data-layer error of a read: {@link notReadyResponse} for `syncing` (with
 * `progress` and `Retry-After`), else {@link dataErrorResponse}.
 */
export function readErrorResponse(scope: ClusterScope, surface: ApiSurface, error: DataError): Response {
  return error.kind === 'syncing' ? notReadyResponse(scope, surface) : dataErrorResponse(surface, error);
}
