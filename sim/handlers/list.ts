/**
 * The `list` verb: the resourceVersion rules of a list (`resourceVersion`, `resourceVersionMatch`,
 * a continue token pinning its first page's version, 410 Expired and 504 too-large answers),
 * one page from the store, and the answer as JSON (each object's JSON kept while it is stored),
 * a Table or PartialObjectMetadataList.
 *
 * A resourceVersion newer than the store is answered where kube-apiserver answers it
 * (staging/src/k8s.io/apiserver/pkg/storage/cacher/cacher.go `shouldDelegateList`): a list the
 * watch cache serves (no `limit`, `NotOlderThan`) waits up to 3 s for the store to catch up
 * (`waitUntilFreshAndBlock`), then 504 with a retry after 1 s; one it hands to etcd (`limit` set,
 * or `Exact`) is 504 at once, without a retry (etcd3/store.go `validateMinimumResourceVersion`).
 */
import type { ApiResource } from '../resources';
import { apiVersionOf } from '../resources';
import { badRequest, expired } from '../status';
import { HistoryExpiredError } from '../store/history';
import { toPartialObjectMetadata, toTable } from '../tables';
import type { KubeObject } from '../types';
import { BLOCK_TIMEOUT_MS, tooLargeResourceVersion, waitUntilFresh } from '../watch';
import { decodeContinue, encodeContinue } from './continue-token';
import type { ApiDeps, ApiResult, ResourceRequest } from './request';
import { parseIncludeObject, parseResourceVersion, requestPredicate, storageOf, toWire } from './request';

/**
 * Answers a `list` request (one page); a list the watch cache would serve at a resourceVersion the
 * store has not reached first waits for it (see the module comment).
 */
export function list(deps: ApiDeps, request: ResourceRequest): ApiResult | Promise<ApiResult> {
  const { store } = deps;
  const rawRV = request.query.get('resourceVersion') ?? '';
  const match = request.query.get('resourceVersionMatch') ?? '';
  const rawLimit = request.query.get('limit') ?? '';
  const fromCache = rawRV !== '' && /^\d+$/.test(rawRV) && (match === '' || match === 'NotOlderThan') && (request.query.get('continue') ?? '') === '' && !/^[1-9]\d*$/.test(rawLimit);
  const wanted = fromCache ? Number(rawRV) : 0;
  if (fromCache && wanted > store.resourceVersion) {
    return waitUntilFresh(store, wanted, BLOCK_TIMEOUT_MS).then((fresh) => {
      if (!fresh) throw tooLargeResourceVersion(wanted, store.resourceVersion);
      return listPage(deps, request);
    });
  }
  return listPage(deps, request);
}

/** One page of a `list` request, at once. */
function listPage(deps: ApiDeps, request: ResourceRequest): ApiResult {
  const { store } = deps;
  const { resource, query } = request;
  const storage = storageOf(resource);
  const predicate = requestPredicate(resource, query);
  const rawLimit = query.get('limit');
  let limit = 0;
  if (rawLimit !== null && rawLimit !== '') {
    if (!/^-?\d+$/.test(rawLimit)) throw badRequest(`limit: Invalid value: "${rawLimit}": invalid syntax`);
    limit = Math.max(0, Number(rawLimit));
  }
  const rawRV = query.get('resourceVersion') ?? '';
  const match = query.get('resourceVersionMatch') ?? '';
  const rawContinue = query.get('continue') ?? '';

  // 1. Where to read from: a continue token pins its first page's resourceVersion.
  let at: number | undefined;
  let startAfter: string | undefined;
  let page = 1;
  if (rawContinue !== '') {
    if (rawRV !== '' && rawRV !== '0') throw badRequest('specifying resource version is not allowed when using continue');
    const token = decodeContinue(rawContinue);
    if (token.resource !== storage) throw badRequest('continue key is not valid: it belongs to another resource');
    // Older than history (expired), or newer than the store (a token from before the server was
    // restored from an older state, or from another server): no consistent continuation exists.
    if (token.rv < store.compactedResourceVersion(storage) || token.rv > store.resourceVersion) {
      const fresh = encodeContinue({ ...token, rv: store.resourceVersion });
      throw expired(
        'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.',
        fresh,
      );
    }
    at = token.rv;
    startAfter = token.start;
    page = token.page;
  } else if (match !== '' && rawRV === '') {
    throw badRequest('resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided');
  } else if (match !== '' && match !== 'Exact' && match !== 'NotOlderThan') {
    throw badRequest(`resourceVersionMatch: Unsupported value: "${match}": supported values: "Exact", "NotOlderThan"`);
  } else if (rawRV !== '') {
    const rv = parseResourceVersion(rawRV);
    if (match === 'Exact') {
      if (rv === 0) throw badRequest('resourceVersionMatch "exact" is forbidden for resourceVersion "0"');
      if (rv > store.resourceVersion) throw tooLargeResourceVersion(rv, store.resourceVersion, 0);
      at = rv;
    } else if (rv > store.resourceVersion) {
      // Read from etcd (a paged list), or from the watch cache after its wait ran out (`list`).
      throw tooLargeResourceVersion(rv, store.resourceVersion, limit > 0 ? 0 : 1);
    }
  }

  // 2. Read one page.
  let result;
  try {
    result = store.list(storage, {
      namespace: request.namespace,
      ...(predicate !== undefined ? { predicate } : {}),
      limit,
      ...(startAfter !== undefined ? { startAfter } : {}),
      ...(at !== undefined ? { atResourceVersion: at } : {}),
    });
  } catch (error) {
    if (error instanceof HistoryExpiredError) throw expired(error.message);
    throw error;
  }

  // 3. Render.
  const listMeta: Record<string, unknown> = { resourceVersion: String(result.resourceVersion) };
  if (result.more && result.lastKey !== undefined) {
    listMeta.continue = encodeContinue({ rv: result.resourceVersion, start: result.lastKey, page: page + 1, resource: storage });
    if (result.remainingItemCount !== undefined) listMeta.remainingItemCount = result.remainingItemCount;
  }
  if (request.accept.table === undefined && request.accept.partial === undefined) {
    // Serialised item by item (one big JSON.stringify of 150k pods would need a second copy), each
    // object's JSON kept while the object is stored, as kube-apiserver's watch cache keeps objects
    // serialised: a page of 500 pods is then mostly a join of strings.
    const head = JSON.stringify({ kind: resource.listKind, apiVersion: apiVersionOf(resource.group, resource.version), metadata: listMeta });
    const parts: string[] = [];
    for (const item of result.items) parts.push(wireJson(resource, item));
    return { code: 200, body: `${head.slice(0, -1)},"items":[${parts.join(',')}]}` };
  }
  const items = result.items.map((item) => toWire(resource, item));
  if (request.accept.table !== undefined) {
    return {
      code: 200,
      body: toTable(resource, items, { apiVersion: request.accept.table, includeObject: parseIncludeObject(query), now: deps.now(), listMeta }),
    };
  }
  const apiVersion = request.accept.partial ?? 'meta.k8s.io/v1';
  return {
    code: 200,
    body: { kind: 'PartialObjectMetadataList', apiVersion, metadata: listMeta, items: items.map((i) => toPartialObjectMetadata(i, apiVersion)) },
  };
}

/**
 * JSON of stored objects as served, per resource (a resource may convert, e.g. autoscaling/v1).
 * The store replaces an object on every write and never changes a stored one, and each write sets
 * a new resourceVersion: an entry whose resourceVersion differs from the object's is stale.
 */
const WIRE_JSON = new WeakMap<ApiResource, WeakMap<KubeObject, { readonly resourceVersion: string | undefined; readonly json: string }>>();

function wireJson(resource: ApiResource, object: KubeObject): string {
  let byObject = WIRE_JSON.get(resource);
  if (byObject === undefined) {
    byObject = new WeakMap();
    WIRE_JSON.set(resource, byObject);
  }
  const resourceVersion = object.metadata.resourceVersion;
  const cached = byObject.get(object);
  if (cached !== undefined && cached.resourceVersion === resourceVersion) return cached.json;
  const json = JSON.stringify(toWire(resource, object));
  byObject.set(object, { resourceVersion, json });
  return json;
}
