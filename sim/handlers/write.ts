/**
 * The write verbs `create`, `update` and `patch` (JSON merge, strategic merge, JSON patch), on
 * the main resource and the `status` and `scale` subresources: the body decoded and checked
 * against the URL (kind, apiVersion, namespace, name), `generateName`, optimistic-concurrency
 * preconditions (resourceVersion, and a uid a patch carries), status kept across main-resource
 * writes, validation and create defaults, `dryRun`; unknown fields per `fieldValidation` and
 * `metadata.managedFields` recorded for the writer (sim/handlers/field-management.ts).
 */
import { parseBody } from '../http';
import { recordUpdate } from '../managed-fields/field-manager';
import { applyPatch, PatchError, patchTypeOf } from '../patch';
import type { ApiResource } from '../resources';
import { apiVersionOf } from '../resources';
import { ApiError, badRequest, conflict, notFound } from '../status';
import type { KubeObject } from '../types';
import { asKubeObject, cloneJson, kubeObjectProblem, recordField } from '../types';
import { applyCreateDefaults, validateObject, validateScaleReplicas } from '../validation';
import { checkBodyFields, checkPatchedFields, managerScope, writeOptions } from './field-management';
import type { ApiDeps, ApiResult, ResourceRequest } from './request';
import { fromWire, isDryRun, mustGet, storageOf, target, toWire } from './request';
import { scaleUpdate, toScale } from './scale';

const GENERATE_ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';

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

/** Answers a `create` request (201 with the stored object). */
export async function create(deps: ApiDeps, request: ResourceRequest): Promise<ApiResult> {
  const { resource } = request;
  const storage = storageOf(resource);
  const dryRun = isDryRun(request.query);
  const options = writeOptions(request, 'CreateOptions');
  const object = await readObject(request);
  checkKind(request, object, resource.kind, apiVersionOf(resource.group, resource.version));
  const headers = checkBodyFields(resource, object, options.validation);
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
  // The fields the request set are the creator's (defaults the server adds are no one's).
  recordUpdate(managerScope(deps, resource, undefined), undefined, object, options.manager);
  const stored = fromWire(resource, object);
  validateObject(storage, stored);
  applyCreateDefaults(storage, stored, deps.allocator);
  const created = deps.store.create(storage, stored, { dryRun });
  return { code: 201, body: toWire(resource, created), ...(headers ? { headers } : {}) };
}

/** Merges an incoming write with the stored object per subresource (status is written only via /status). */
export function prepareUpdate(resource: ApiResource, current: KubeObject, incoming: KubeObject, subresource: 'status' | undefined): KubeObject {
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

/** Answers an `update` (PUT) of an object, its status or its scale. */
export async function update(deps: ApiDeps, request: ResourceRequest): Promise<ApiResult> {
  const { resource } = request;
  const storage = storageOf(resource);
  const dryRun = isDryRun(request.query);
  const options = writeOptions(request, 'UpdateOptions');
  const object = await readObject(request);
  const current = mustGet(deps, request);
  if (request.subresource === 'scale') {
    checkKind(request, object, 'Scale', 'autoscaling/v1');
    checkName(request, object);
    const replicas = validateScaleReplicas(object.metadata.name, recordField(object, 'spec')?.replicas);
    const wanted = object.metadata.resourceVersion;
    if (wanted && wanted !== current.metadata.resourceVersion) throw conflict(target(resource, request.name));
    const updated = deps.store.update(storage, withManagedFields(deps, request, current, scaleUpdate(current, replicas), options.manager), { dryRun });
    return { code: 200, body: toScale(updated) };
  }
  checkKind(request, object, resource.kind, apiVersionOf(resource.group, resource.version));
  const headers = checkBodyFields(resource, object, options.validation);
  checkNamespace(request, object);
  checkName(request, object);
  const stored = prepareUpdate(resource, current, fromWire(resource, object), request.subresource);
  validateObject(storage, stored);
  const updated = deps.store.update(storage, withManagedFields(deps, request, current, stored, options.manager), { dryRun });
  return { code: 200, body: toWire(resource, updated), ...(headers ? { headers } : {}) };
}

/**
 * The stored object a write stores, with its managedFields recorded: computed on the request's
 * version of the object (the parent's for `scale`), as the API server does.
 */
function withManagedFields(deps: ApiDeps, request: ResourceRequest, current: KubeObject, next: KubeObject, manager: string): KubeObject {
  const { resource } = request;
  const wire = toWire(resource, next);
  recordUpdate(managerScope(deps, resource, request.subresource), toWire(resource, current), wire, manager);
  return fromWire(resource, wire);
}

/**
 * Answers a `patch` of an object, its status or its scale (written back through the rules of an
 * update); apply patches are sim/handlers/apply.ts's.
 */
export async function patch(deps: ApiDeps, request: ResourceRequest): Promise<ApiResult> {
  const { resource } = request;
  const storage = storageOf(resource);
  const dryRun = isDryRun(request.query);
  const type = patchTypeOf(request.contentType);
  if (type === undefined) {
    throw new ApiError(
      415,
      'UnsupportedMediaType',
      `the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml, application/strategic-merge-patch+json`,
    );
  }
  const options = writeOptions(request, 'PatchOptions');
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
    const updated = deps.store.update(storage, withManagedFields(deps, request, current, scaleUpdate(current, replicas), options.manager), { dryRun });
    return { code: 200, body: toScale(updated) };
  }
  const headers = checkPatchedFields(resource, base, result, patchDoc, options.validation);
  result.metadata.resourceVersion = current.metadata.resourceVersion ?? '';
  if (resource.namespaced) result.metadata.namespace = request.namespace ?? '';
  const stored = prepareUpdate(resource, current, fromWire(resource, result), request.subresource);
  validateObject(storage, stored);
  const updated = deps.store.update(storage, withManagedFields(deps, request, current, stored, options.manager), { dryRun });
  return { code: 200, body: toWire(resource, updated), ...(headers ? { headers } : {}) };
}
