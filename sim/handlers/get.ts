/**
 * The `get` verb: one object (404 when it is missing) as JSON, a one-row Table or
 * PartialObjectMetadata per the Accept header, or its Scale.
 */
import { toPartialObjectMetadata, toTable } from '../tables';
import type { KubeObject } from '../types';
import type { ApiDeps, ApiResult, ResourceRequest } from './request';
import { mustGet, parseIncludeObject, toWire } from './request';
import { toScale } from './scale';

/** Renders a single object per the Accept header. */
function renderObject(deps: ApiDeps, request: ResourceRequest, object: KubeObject): unknown {
  const wire = toWire(request.resource, object);
  if (request.accept.table !== undefined && (request.verb === 'get' || request.verb === 'list')) {
    return toTable(request.resource, [wire], {
      apiVersion: request.accept.table, includeObject: parseIncludeObject(request.query), now: deps.now(),
      listMeta: { resourceVersion: wire.metadata.resourceVersion },
    });
  }
  if (request.accept.partial !== undefined && request.verb === 'get') return toPartialObjectMetadata(wire, request.accept.partial);
  return wire;
}

/** Answers a `get` request. */
export function get(deps: ApiDeps, request: ResourceRequest): ApiResult {
  const object = mustGet(deps, request);
  if (request.subresource === 'scale') return { code: 200, body: toScale(object) };
  return { code: 200, body: renderObject(deps, request, object) };
}
