/**
 * The verbs of the resource API (list, get, create, update, patch, delete, deletecollection,
 * watch), the `scale` and `status` subresources and the self-reviews, with the semantics of a
 * real API server: resourceVersion rules for lists, consistent paging with opaque continue
 * tokens, optimistic-concurrency preconditions, status preserved across main-resource writes.
 * This file sends a request to its verb's handler in sim/handlers/ (one module per verb family).
 */
import type { ServerResponse } from 'node:http';
import { selfSubjectAccessReview, selfSubjectReview } from './handlers/access-reviews';
import { isApplyPatch, serverSideApply } from './handlers/apply';
import { deleteCollection, remove } from './handlers/delete';
import { get } from './handlers/get';
import { list } from './handlers/list';
import type { ApiDeps, ApiResult, ResourceRequest } from './handlers/request';
import { watch } from './handlers/watch';
import { create, patch, update } from './handlers/write';
import { ApiError } from './status';

/**
 * Handles an authorised resource request. Watches stream on `res` and resolve to `undefined`;
 * everything else resolves to the response to write.
 * @throws ApiError for every error response.
 */
export async function handleResourceRequest(deps: ApiDeps, request: ResourceRequest, res: ServerResponse): Promise<ApiResult | undefined> {
  if (request.resource.storage === undefined) {
    if (request.verb === 'create') return request.resource.plural === 'selfsubjectreviews' ? selfSubjectReview(deps, request) : selfSubjectAccessReview(deps, request);
    throw new ApiError(405, 'MethodNotAllowed', 'the server does not allow this method on the requested resource');
  }
  switch (request.verb) {
    case 'list':
      return list(deps, request);
    case 'watch':
      watch(deps, request, res);
      return undefined;
    case 'get':
      return get(deps, request);
    case 'create':
      return create(deps, request);
    case 'update':
      return update(deps, request);
    case 'patch':
      return isApplyPatch(request) ? serverSideApply(deps, request) : patch(deps, request);
    case 'delete':
      return remove(deps, request);
    case 'deletecollection':
      return deleteCollection(deps, request);
  }
}
