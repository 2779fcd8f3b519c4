/**
 * The verbs of the resource API (list, get, create, update, patch, delete, deletecollection,
 * watch), the `scale` and `status` subresources and SelfSubjectAccessReview, with the semantics
 * of a real API server: resourceVersion rules for lists, consistent paging with opaque continue
 * tokens, optimistic-concurrency preconditions, status preserved across main-resource writes.
 */
import type { ServerResponse } from 'node:http';
import type { SimFaults } from './faults';
import type { AcceptInfo } from './http';
import { parseBody } from './http';
import { applyPatch, PatchError, patchTypeOf } from './patch';
import type { ApiResource, ResourceKey } from './resources';
import { apiVersionOf, RESOURCE_KEYS, STORAGE } from './resources';
import type { LabelSelector } from './selectors';
import {
  compileFieldSelector,
  formatLabelSelector,
  labelSelectorFromObject,
  matchesLabels,
  parseFieldSelector,
  parseLabelSelector,
  SelectorError,
} from './selectors';
import { ApiError, badRequest, conflict, expired, invalid, notFound, successStatus } from './status';
import type { ObjectStore } from './store';
import { HistoryExpiredError } from './store';
import type { IncludeObject } from './tables';
import { toPartialObjectMetadata, toTable } from './tables';
import type { KubeObject } from './types';
import { asKubeObject, cloneJson, isRecord, kubeObjectProblem, numberField, recordField, stringField } from './types';
import type { ServiceAllocator } from './validation';
import { applyCreateDefaults, validateObject, validateScaleReplicas } from './validation';
import type { WatchHub } from './watch';
import { tooLargeResourceVersion } from './watch';

/** Kubernetes verbs. */
export type Verb = 'get' | 'list' | 'watch' | 'create' | 'update' | 'patch' | 'delete' | 'deletecollection';

/** What the handlers need from the server. */
export interface ApiDeps {
  store: ObjectStore;
  faults: SimFaults;
  hub: WatchHub;
  allocator: ServiceAllocator;
  now: () => Date;
  /** Seeded random source (generateName suffixes). */
  random: () => number;
}

/** A parsed resource request. */
export interface ResourceRequest {
  verb: Verb;
  resource: ApiResource;
  namespace: string | undefined;
  name: string | undefined;
  subresource: 'status' | 'scale' | undefined;
  query: URLSearchParams;
  accept: AcceptInfo;
  contentType: string | undefined;
  readBody: () => Promise<Buffer>;
}

/** A response to write (watches write their own). */
export interface ApiResult {
  code: number;
  /** A value to serialise, or ready JSON text. */
  body: unknown;
}

const TOKEN_VERSION = 'meta.k8s.io/v1';

/** The state a continue token carries. */
export interface ContinueToken {
  /** resourceVersion of the list's first page: every page shows the store as of it. */
  rv: number;
  /** Last key returned (exclusive start of the next page). */
  start: string;
  /** Page number of the page this token fetches (2 for the first continue). */
  page: number;
  /** Storage kind the token belongs to. */
  resource: ResourceKey;
}

/** Encodes an opaque continue token. */
export function encodeContinue(token: ContinueToken): string {
  return Buffer.from(JSON.stringify({ v: TOKEN_VERSION, rv: token.rv, start: token.start, p: token.page, r: token.resource })).toString('base64url');
}

/**
 * Decodes a continue token.
 * @throws ApiError 400 when it is not one of ours.
 */
export function decodeContinue(raw: string): ContinueToken {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8'));
  } catch {
    throw badRequest('continue key is not valid: illegal base64 data');
  }
  const rv = numberField(parsed, 'rv');
  const start = stringField(parsed, 'start');
  const page = numberField(parsed, 'p');
  const resource = stringField(parsed, 'r');
  if (stringField(parsed, 'v') !== TOKEN_VERSION || rv === undefined || start === undefined || page === undefined || resource === undefined) {
    throw badRequest('continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)');
  }
  const key = RESOURCE_KEYS.find((k) => k === resource);
  if (key === undefined) throw badRequest('continue key is not valid: unknown resource');
  return { rv, start, page, resource: key };
}

function storageOf(resource: ApiResource): ResourceKey {
  if (resource.storage === undefined) throw new ApiError(405, 'MethodNotAllowed', 'the server does not allow this method on the requested resource');
  return resource.storage;
}

function selectorError(error: unknown): never {
  if (error instanceof SelectorError) throw badRequest(error.message);
  throw error;
}

/** Builds the selector predicate of a request (applied to the stored form). */
export function requestPredicate(resource: ApiResource, query: URLSearchParams): ((object: KubeObject) => boolean) | undefined {
  const storage = storageOf(resource);
  let labels: LabelSelector = [];
  let fields: ((object: KubeObject) => boolean) | undefined;
  try {
    labels = parseLabelSelector(query.get('labelSelector') ?? '');
    const fieldSelector = parseFieldSelector(query.get('fieldSelector') ?? '');
    if (fieldSelector.length > 0) fields = compileFieldSelector(fieldSelector, STORAGE[storage].fields, resource.fieldAliases);
  } catch (error) {
    selectorError(error);
  }
  if (labels.length === 0 && fields === undefined) return undefined;
  const check = fields;
  return (object) => matchesLabels(labels, object.metadata.labels) && (check === undefined || check(object));
}

function parseResourceVersion(raw: string, what = 'resourceVersion'): number {
  if (!/^\d+$/.test(raw)) throw badRequest(`${what}: Invalid value: "${raw}": strconv.ParseUint: parsing "${raw}": invalid syntax`);
  return Number(raw);
}

function parseIncludeObject(query: URLSearchParams): IncludeObject {
  const raw = query.get('includeObject');
  if (raw === null || raw === '') return 'Metadata';
  if (raw === 'None' || raw === 'Metadata' || raw === 'Object') return raw;
  throw badRequest(`includeObject: Unsupported value: "${raw}": supported values: "Metadata", "None", "Object"`);
}

function toWire(resource: ApiResource, object: KubeObject): KubeObject {
  return resource.toWire ? resource.toWire(object) : object;
}

function fromWire(resource: ApiResource, object: KubeObject): KubeObject {
  return resource.fromWire ? resource.fromWire(object) : object;
}

function target(resource: ApiResource, name: string | undefined): { group: string; resource: string; name?: string } {
  return name === undefined ? { group: resource.group, resource: resource.plural } : { group: resource.group, resource: resource.plural, name };
}

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

// ---------------------------------------------------------------------------------------------
// list

function list(deps: ApiDeps, request: ResourceRequest): ApiResult {
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
      if (rv > store.resourceVersion) throw tooLargeResourceVersion(rv, store.resourceVersion);
      at = rv;
    } else if (rv > store.resourceVersion) {
      throw tooLargeResourceVersion(rv, store.resourceVersion);
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

// ---------------------------------------------------------------------------------------------
// get / scale

/** The autoscaling/v1 Scale of a Deployment or ReplicaSet. */
export function toScale(object: KubeObject): KubeObject {
  const spec = recordField(object, 'spec');
  let selector: string;
  try {
    selector = formatLabelSelector(labelSelectorFromObject(spec?.selector));
  } catch {
    selector = '';
  }
  const metadata: KubeObject['metadata'] = { name: object.metadata.name };
  for (const key of ['namespace', 'uid', 'resourceVersion', 'creationTimestamp'] as const) {
    const value = object.metadata[key];
    if (value !== undefined) metadata[key] = value;
  }
  return {
    kind: 'Scale',
    apiVersion: 'autoscaling/v1',
    metadata,
    spec: { replicas: numberField(spec, 'replicas') ?? 1 },
    status: { replicas: numberField(object.status, 'replicas') ?? 0, selector },
  };
}

function mustGet(deps: ApiDeps, request: ResourceRequest): KubeObject {
  const storage = storageOf(request.resource);
  const name = request.name ?? '';
  const object = deps.store.get(storage, request.namespace, name);
  if (object === undefined) throw notFound(target(request.resource, name));
  return object;
}

function get(deps: ApiDeps, request: ResourceRequest): ApiResult {
  const object = mustGet(deps, request);
  if (request.subresource === 'scale') return { code: 200, body: toScale(object) };
  return { code: 200, body: renderObject(deps, request, object) };
}

// ---------------------------------------------------------------------------------------------
// writes

const GENERATE_ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';

function isDryRun(query: URLSearchParams): boolean {
  const values = query.getAll('dryRun');
  for (const value of values) {
    if (value !== 'All') throw badRequest(`dryRun: Unsupported value: "${value}": supported values: "All"`);
  }
  return values.length > 0;
}

async function readObject(request: ResourceRequest): Promise<KubeObject> {
  const body = parseBody(await request.readBody(), request.contentType);
  const problem = kubeObjectProblem(body);
  if (problem !== undefined) throw badRequest(`the object could not be decoded: ${problem}`);
  const object = asKubeObject(body);
  if (object === undefined) throw badRequest('the object could not be decoded');
  return object;
}

function checkKind(request: ResourceRequest, object: KubeObject, kind: string, apiVersion: string): void {
  if (object.apiVersion !== apiVersion) {
    throw badRequest(`the API version in the data (${object.apiVersion}) does not match the expected API version (${apiVersion})`);
  }
  if (object.kind !== kind) {
    throw badRequest(`the kind in the data (${object.kind}) does not match the expected kind (${kind}) for ${request.resource.plural}`);
  }
}

function checkNamespace(request: ResourceRequest, object: KubeObject): void {
  if (!request.resource.namespaced) {
    delete object.metadata.namespace;
    return;
  }
  const ns = object.metadata.namespace;
  if (ns !== undefined && ns !== '' && ns !== request.namespace) {
    throw badRequest('the namespace of the provided object does not match the namespace sent on the request');
  }
  object.metadata.namespace = request.namespace ?? '';
}

function checkName(request: ResourceRequest, object: KubeObject): void {
  if (object.metadata.name !== request.name) {
    throw badRequest(`the name of the object (${object.metadata.name}) does not match the name on the URL (${request.name ?? ''})`);
  }
}

async function create(deps: ApiDeps, request: ResourceRequest): Promise<ApiResult> {
  const { resource } = request;
  const storage = storageOf(resource);
  const dryRun = isDryRun(request.query);
  const object = await readObject(request);
  checkKind(request, object, resource.kind, apiVersionOf(resource.group, resource.version));
  checkNamespace(request, object);
  if (object.metadata.resourceVersion) throw badRequest('resourceVersion should not be set on objects to be created');
  if (!object.metadata.name && object.metadata.generateName) {
    let suffix = '';
    for (let i = 0; i < 5; i++) suffix += GENERATE_ALPHABET.charAt(Math.floor(deps.random() * GENERATE_ALPHABET.length));
    object.metadata.name = `${object.metadata.generateName}${suffix}`;
  }
  if (resource.namespaced && deps.store.get('namespaces', undefined, request.namespace ?? '') === undefined) {
    throw notFound({ group: '', resource: 'namespaces', name: request.namespace ?? '' });
  }
  const stored = fromWire(resource, object);
  validateObject(storage, stored);
  applyCreateDefaults(storage, stored, deps.allocator);
  const created = deps.store.create(storage, stored, { dryRun });
  return { code: 201, body: toWire(resource, created) };
}

/** Merges an incoming write with the stored object per subresource (status is written only via /status). */
function prepareUpdate(resource: ApiResource, current: KubeObject, incoming: KubeObject, subresource: 'status' | undefined): KubeObject {
  if (subresource === 'status') {
    const next = cloneJson(current);
    next.metadata.resourceVersion = incoming.metadata.resourceVersion ?? '';
    if (incoming.status === undefined) delete next.status;
    else next.status = incoming.status;
    return next;
  }
  if (resource.subresources.includes('status')) {
    if (current.status === undefined) delete incoming.status;
    else incoming.status = current.status;
  }
  return incoming;
}

function scaleUpdate(current: KubeObject, replicas: number): KubeObject {
  const next = cloneJson(current);
  const spec = isRecord(next.spec) ? next.spec : {};
  spec.replicas = replicas;
  next.spec = spec;
  return next;
}

async function update(deps: ApiDeps, request: ResourceRequest): Promise<ApiResult> {
  const { resource } = request;
  const storage = storageOf(resource);
  const dryRun = isDryRun(request.query);
  const object = await readObject(request);
  const current = mustGet(deps, request);
  if (request.subresource === 'scale') {
    checkKind(request, object, 'Scale', 'autoscaling/v1');
    checkName(request, object);
    const replicas = validateScaleReplicas(object.metadata.name, recordField(object, 'spec')?.replicas);
    const wanted = object.metadata.resourceVersion;
    if (wanted && wanted !== current.metadata.resourceVersion) throw conflict(target(resource, request.name));
    const updated = deps.store.update(storage, scaleUpdate(current, replicas), { dryRun });
    return { code: 200, body: toScale(updated) };
  }
  checkKind(request, object, resource.kind, apiVersionOf(resource.group, resource.version));
  checkNamespace(request, object);
  checkName(request, object);
  const stored = prepareUpdate(resource, current, fromWire(resource, object), request.subresource);
  validateObject(storage, stored);
  const updated = deps.store.update(storage, stored, { dryRun });
  return { code: 200, body: toWire(resource, updated) };
}

async function patch(deps: ApiDeps, request: ResourceRequest): Promise<ApiResult> {
  const { resource } = request;
  const storage = storageOf(resource);
  const dryRun = isDryRun(request.query);
  const type = patchTypeOf(request.contentType);
  if (type === undefined) {
    throw new ApiError(
      415,
      'UnsupportedMediaType',
      `the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/strategic-merge-patch+json`,
    );
  }
  const raw = (await request.readBody()).toString('utf8');
  let patchDoc: unknown;
  try {
    patchDoc = JSON.parse(raw) as unknown;
  } catch (error) {
    throw badRequest(`error decoding patch: ${error instanceof Error ? error.message : String(error)}`);
  }
  const current = mustGet(deps, request);
  const base: KubeObject = request.subresource === 'scale' ? toScale(current) : toWire(resource, current);

  // 1. Apply the patch to the wire form.
  let patched: unknown;
  try {
    patched = applyPatch(type, base, patchDoc);
  } catch (error) {
    if (error instanceof PatchError) {
      if (error.malformed) throw badRequest(error.message);
      throw new ApiError(422, 'Invalid', error.message);
    }
    throw error;
  }
  const problem = kubeObjectProblem(patched);
  const result = asKubeObject(patched);
  if (problem !== undefined || result === undefined) throw new ApiError(422, 'Invalid', `the patched object is not valid: ${problem ?? 'unknown'}`);

  // 2. Preconditions carried by the patch: resourceVersion and uid.
  const name = request.name ?? '';
  const wantedRV = result.metadata.resourceVersion;
  if (wantedRV && wantedRV !== base.metadata.resourceVersion) throw conflict(target(resource, name));
  const wantedUid = result.metadata.uid;
  if (wantedUid && wantedUid !== base.metadata.uid) {
    throw conflict(target(resource, name), `Precondition failed: UID in precondition: ${wantedUid}, UID in object meta: ${base.metadata.uid ?? ''}`);
  }
  if (result.metadata.name !== name) {
    throw badRequest(`the name of the object (${result.metadata.name}) does not match the name on the URL (${name})`);
  }
  if (result.kind !== base.kind || result.apiVersion !== base.apiVersion) {
    throw badRequest(`the patch changes the object's kind or apiVersion (${result.apiVersion}/${result.kind})`);
  }

  // 3. Write it back through the same rules as an update.
  if (request.subresource === 'scale') {
    const replicas = validateScaleReplicas(name, recordField(result, 'spec')?.replicas);
    const updated = deps.store.update(storage, scaleUpdate(current, replicas), { dryRun });
    return { code: 200, body: toScale(updated) };
  }
  result.metadata.resourceVersion = current.metadata.resourceVersion ?? '';
  if (resource.namespaced) result.metadata.namespace = request.namespace ?? '';
  const stored = prepareUpdate(resource, current, fromWire(resource, result), request.subresource);
  validateObject(storage, stored);
  const updated = deps.store.update(storage, stored, { dryRun });
  return { code: 200, body: toWire(resource, updated) };
}

/** Kinds whose objects own others via ownerReferences (garbage collection after delete). */
const DEPENDENTS: Partial<Record<ResourceKey, ResourceKey[]>> = {
  deployments: ['replicasets'],
  replicasets: ['pods'],
  daemonsets: ['pods'],
  services: ['endpointslices'],
};

/** Deletes what `owner` owns (recursively), as the garbage collector does for background deletion. */
function collectGarbage(deps: ApiDeps, ownerKind: ResourceKey, owner: KubeObject): void {
  const uid = owner.metadata.uid;
  if (uid === undefined) return;
  for (const kind of DEPENDENTS[ownerKind] ?? []) {
    for (const candidate of deps.store.all(kind, owner.metadata.namespace)) {
      if (!(candidate.metadata.ownerReferences ?? []).some((ref) => ref.uid === uid)) continue;
      const removed = deps.store.delete(kind, candidate.metadata.namespace, candidate.metadata.name);
      collectGarbage(deps, kind, removed);
    }
  }
}

/** Deletes a namespace and everything in it. */
function deleteNamespaceContents(deps: ApiDeps, namespace: string): void {
  for (const kind of RESOURCE_KEYS) {
    if (!STORAGE[kind].namespaced) continue;
    for (const object of deps.store.all(kind, namespace)) deps.store.delete(kind, namespace, object.metadata.name);
  }
}

async function readDeleteOptions(request: ResourceRequest): Promise<Record<string, unknown>> {
  const body = await request.readBody();
  if (body.length === 0) return {};
  const parsed = parseBody(body, request.contentType);
  return isRecord(parsed) ? parsed : {};
}

async function remove(deps: ApiDeps, request: ResourceRequest): Promise<ApiResult> {
  const { resource } = request;
  const storage = storageOf(resource);
  const options = await readDeleteOptions(request);
  const dryRun = isDryRun(request.query) || (Array.isArray(options.dryRun) && options.dryRun.includes('All'));
  const preconditions = recordField(options, 'preconditions');
  const pre: { uid?: string; resourceVersion?: string } = {};
  const uid = stringField(preconditions, 'uid');
  const rv = stringField(preconditions, 'resourceVersion');
  if (uid !== undefined) pre.uid = uid;
  if (rv !== undefined) pre.resourceVersion = rv;
  const name = request.name ?? '';
  const deleted = deps.store.delete(storage, request.namespace, name, { dryRun, preconditions: pre });
  if (!dryRun) {
    const propagation = stringField(options, 'propagationPolicy') ?? query(request, 'propagationPolicy');
    if (storage === 'namespaces') deleteNamespaceContents(deps, name);
    else if (propagation !== 'Orphan') collectGarbage(deps, storage, deleted);
  }
  const details = { name, group: resource.group, kind: resource.plural, ...(deleted.metadata.uid ? { uid: deleted.metadata.uid } : {}) };
  return { code: 200, body: successStatus(details) };
}

function query(request: ResourceRequest, key: string): string | undefined {
  return request.query.get(key) ?? undefined;
}

function deleteCollection(deps: ApiDeps, request: ResourceRequest): ApiResult {
  const { resource } = request;
  const storage = storageOf(resource);
  const dryRun = isDryRun(request.query);
  const predicate = requestPredicate(resource, request.query);
  const page = deps.store.list(storage, { namespace: request.namespace, ...(predicate ? { predicate } : {}) });
  const deleted = page.items.map((item) =>
    deps.store.delete(storage, item.metadata.namespace, item.metadata.name, { dryRun }));
  return {
    code: 200,
    body: {
      kind: resource.listKind,
      apiVersion: apiVersionOf(resource.group, resource.version),
      metadata: { resourceVersion: String(deps.store.resourceVersion) },
      items: deleted.map((item) => toWire(resource, item)),
    },
  };
}

// ---------------------------------------------------------------------------------------------
// watch

function watch(deps: ApiDeps, request: ResourceRequest, res: ServerResponse): void {
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

// ---------------------------------------------------------------------------------------------
// SelfSubjectAccessReview

async function selfSubjectAccessReview(deps: ApiDeps, request: ResourceRequest): Promise<ApiResult> {
  const body = parseBody(await request.readBody(), request.contentType);
  if (!isRecord(body) || body.kind !== 'SelfSubjectAccessReview') {
    throw badRequest('the object could not be decoded: expected a SelfSubjectAccessReview');
  }
  const spec = recordField(body, 'spec');
  const attrs = recordField(spec, 'resourceAttributes');
  let status: Record<string, unknown>;
  if (attrs !== undefined) {
    const resourceName = stringField(attrs, 'resource') ?? '';
    const subresource = stringField(attrs, 'subresource');
    const namespace = stringField(attrs, 'namespace');
    const name = stringField(attrs, 'name');
    const decision = deps.faults.authorize({
      verb: stringField(attrs, 'verb') ?? '',
      group: stringField(attrs, 'group') ?? '',
      resource: resourceName,
      ...(subresource ? { subresource } : {}),
      ...(namespace ? { namespace } : {}),
      ...(name ? { name } : {}),
    });
    // Like RBAC upstream, a denial carries no reason (kubectl prints a reason after "no").
    status = decision.allowed ? { allowed: true, reason: decision.reason } : { allowed: false };
  } else if (recordField(spec, 'nonResourceAttributes') !== undefined) {
    status = { allowed: true, reason: 'non-resource URLs are allowed by the simulator' };
  } else {
    throw invalid('SelfSubjectAccessReview', 'authorization.k8s.io', '', [
      { field: 'spec.resourceAttributes', reason: 'FieldValueRequired', message: 'Required value: exactly one of nonResourceAttributes or resourceAttributes must be specified' },
    ]);
  }
  return {
    code: 201,
    body: { kind: 'SelfSubjectAccessReview', apiVersion: 'authorization.k8s.io/v1', metadata: { creationTimestamp: null }, spec, status },
  };
}

// ---------------------------------------------------------------------------------------------
// SelfSubjectReview

/** The groups upstream's authenticators give a user: service accounts get theirs, everyone `system:authenticated`. */
function groupsOf(user: string): string[] {
  const serviceAccount = /^system:serviceaccount:([^:]+):[^:]+$/.exec(user);
  return serviceAccount ? ['system:serviceaccounts', `system:serviceaccounts:${serviceAccount[1] ?? ''}`, 'system:authenticated'] : ['system:authenticated'];
}

async function selfSubjectReview(deps: ApiDeps, request: ResourceRequest): Promise<ApiResult> {
  const body = parseBody(await request.readBody(), request.contentType);
  if (!isRecord(body) || body.kind !== 'SelfSubjectReview') {
    throw badRequest('the object could not be decoded: expected a SelfSubjectReview');
  }
  const user = deps.faults.rbac.user;
  return {
    code: 201,
    body: {
      kind: 'SelfSubjectReview',
      apiVersion: apiVersionOf(request.resource.group, request.resource.version),
      metadata: { creationTimestamp: null },
      status: { userInfo: { username: user, groups: groupsOf(user) } },
    },
  };
}

// ---------------------------------------------------------------------------------------------

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
      return patch(deps, request);
    case 'delete':
      return remove(deps, request);
    case 'deletecollection':
      return deleteCollection(deps, request);
  }
}
