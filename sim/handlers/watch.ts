/**
 * The `watch` verb: its query parameters (selectors, resourceVersion, `timeoutSeconds`,
 * `allowWatchBookmarks`, `sendInitialEvents`) checked and handed to the watch hub with the
 * Accept header's form (JSON, Table rows, metadata only); the hub streams the events.
 */
import type { ServerResponse } from 'node:http';
import { badRequest, invalid } from '../status';
import type { ApiDeps, ResourceRequest } from './request';
import { parseIncludeObject, parseResourceVersion, requestPredicate, storageOf } from './request';

/** Starts a watch stream on `res` (errors before the stream starts are thrown). */
export function watch(deps: ApiDeps, request: ResourceRequest, res: ServerResponse): void {
  const { resource, query: q } = request;
  const storage = storageOf(resource);
  const predicate = requestPredicate(resource, q) ?? (() => true);
  const rawRV = q.get('resourceVersion') ?? '';
  const rv = rawRV === '' ? undefined : parseResourceVersion(rawRV);
  const rawTimeout = q.get('timeoutSeconds');
  let timeoutSeconds: number | undefined;
  if (rawTimeout !== null && rawTimeout !== '') {
    if (!/^\d+$/.test(rawTimeout)) throw badRequest(`timeoutSeconds: Invalid value: "${rawTimeout}"`);
    // 0 means "the server's default", as upstream treats it.
    timeoutSeconds = Number(rawTimeout) > 0 ? Number(rawTimeout) : undefined;
  }
  const rawInitial = q.get('sendInitialEvents');
  const sendInitialEvents = rawInitial === null ? undefined : rawInitial === 'true' || rawInitial === '1';
  if (sendInitialEvents === true && q.get('allowWatchBookmarks') !== 'true' && q.get('allowWatchBookmarks') !== '1') {
    throw invalid('ListOptions', 'meta.k8s.io', '', [{ field: 'allowWatchBookmarks', message: 'Required value: allowWatchBookmarks required when sendInitialEvents is true' }]);
  }
  deps.hub.serve(res, {
    resource,
    storage,
    statsKey: resource.plural,
    namespace: request.namespace,
    predicate,
    resourceVersion: rv === 0 ? undefined : rv,
    allowBookmarks: q.get('allowWatchBookmarks') === 'true' || q.get('allowWatchBookmarks') === '1',
    timeoutSeconds,
    sendInitialEvents,
    table: request.accept.table !== undefined ? { apiVersion: request.accept.table, includeObject: parseIncludeObject(q) } : undefined,
    metadataOnly: request.accept.partial,
  });
}
