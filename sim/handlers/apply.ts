/**
 * Server-side apply: `PATCH` with `Content-Type: application/apply-patch+yaml` (kubectl sends
 * JSON, which is YAML), after the API server's applyPatcher (staging/src/k8s.io/apiserver/pkg/
 * endpoints/handlers/patch.go): `fieldManager` required, the configuration's apiVersion and kind
 * those of the endpoint, no managedFields in it; the object is created when it does not exist
 * (201), else the configuration is merged into it with the field manager's rules (sim/
 * managed-fields/field-manager.ts) and written back through an update's rules.
 */
import { parse as parseYaml } from 'yaml';
import { mediaType } from '../http';
import { applyConfiguration } from '../managed-fields/field-manager';
import { apiVersionOf } from '../resources';
import { badRequest, conflict, notFound } from '../status';
import type { KubeObject } from '../types';
import { asKubeObject, cloneJson, isRecord, kubeObjectProblem } from '../types';
import { applyCreateDefaults, validateObject } from '../validation';
import { managerScope, writeOptions } from './field-management';
import type { ApiDeps, ApiResult, ResourceRequest } from './request';
import { fromWire, isDryRun, storageOf, target, toWire } from './request';
import { prepareUpdate } from './write';

/** `group/version, Kind=Kind` (`/v1, Kind=Service` for the core group), as upstream prints a GVK. */
function gvkString(apiVersion: unknown, kind: unknown): string {
  const version = typeof apiVersion === 'string' ? apiVersion : '';
  const gv = version.includes('/') ? version : `/${version}`;
  return `${gv}, Kind=${typeof kind === 'string' ? kind : ''}`;
}

/** The configuration of an apply request, checked against the URL. */
async function readConfiguration(request: ResourceRequest): Promise<KubeObject> {
  const { resource } = request;
  const text = (await request.readBody()).toString('utf8');
  let body: unknown;
  try {
    body = parseYaml(text) as unknown;
  } catch (error) {
    throw badRequest(`error decoding YAML: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (!isRecord(body)) throw badRequest('error decoding YAML: the apply configuration must be a mapping');
  if (body.apiVersion !== apiVersionOf(resource.group, resource.version) || body.kind !== resource.kind) {
    throw badRequest(`invalid object type: ${gvkString(body.apiVersion, body.kind)}`);
  }
  const problem = kubeObjectProblem(body);
  const config = asKubeObject(body);
  if (problem !== undefined || config === undefined) throw badRequest(`error decoding YAML: ${problem ?? 'not an object'}`);
  if (config.metadata.managedFields !== undefined && config.metadata.managedFields !== null) throw badRequest('metadata.managedFields must be nil');
  delete config.metadata.managedFields;
  if (config.metadata.name !== request.name) {
    throw badRequest(`the name of the object (${config.metadata.name}) does not match the name on the URL (${request.name ?? ''})`);
  }
  if (resource.namespaced) {
    const ns = config.metadata.namespace;
    if (ns !== undefined && ns !== '' && ns !== request.namespace) {
      throw badRequest('the namespace of the provided object does not match the namespace sent on the request');
    }
    config.metadata.namespace = request.namespace ?? '';
  } else {
    delete config.metadata.namespace;
  }
  return config;
}

/** The part of a configuration a write through this endpoint may set (status only through /status). */
function applicablePart(request: ResourceRequest, config: KubeObject): KubeObject {
  const part = cloneJson(config);
  if (request.subresource === 'status') {
    for (const key of Object.keys(part)) if (!['apiVersion', 'kind', 'metadata', 'status'].includes(key)) Reflect.deleteProperty(part, key);
  } else if (request.resource.subresources.includes('status')) {
    delete part.status;
  }
  return part;
}

/** Whether a patch request is an apply patch. */
export function isApplyPatch(request: ResourceRequest): boolean {
  return mediaType(request.contentType) === 'application/apply-patch+yaml';
}

/** Answers an apply patch (201 when it created the object). */
export async function serverSideApply(deps: ApiDeps, request: ResourceRequest): Promise<ApiResult> {
  const { resource } = request;
  const storage = storageOf(resource);
  const dryRun = isDryRun(request.query);
  const options = writeOptions(request, 'PatchOptions', true);
  if (request.subresource === 'scale') {
    throw badRequest('the simulator does not support apply patches on the scale subresource; apply the object, or patch its scale');
  }
  const config = await readConfiguration(request);
  const name = request.name ?? '';
  const current = deps.store.get(storage, request.namespace, name);
  if (current === undefined && request.subresource !== undefined) throw notFound(target(resource, name));
  if (current === undefined && resource.namespaced && deps.store.get('namespaces', undefined, request.namespace ?? '') === undefined) {
    throw notFound({ group: '', resource: 'namespaces', name: request.namespace ?? '' });
  }
  const scope = managerScope(deps, resource, request.subresource);
  const live = current === undefined ? undefined : toWire(resource, current);
  const { object } = applyConfiguration(scope, live, applicablePart(request, config), options.manager, options.force);

  if (current === undefined) {
    if (config.metadata.uid) {
      throw conflict(target(resource, name), `uid mismatch: the provided object specified uid ${config.metadata.uid}, and no existing object was found`);
    }
    if (config.metadata.resourceVersion) throw badRequest('resourceVersion should not be set on objects to be created');
    for (const key of ['uid', 'creationTimestamp', 'deletionTimestamp', 'deletionGracePeriodSeconds', 'selfLink', 'generation'] as const) Reflect.deleteProperty(object.metadata, key);
    const stored = fromWire(resource, object);
    validateObject(storage, stored);
    applyCreateDefaults(storage, stored, deps.allocator);
    const created = deps.store.create(storage, stored, { dryRun });
    return { code: 201, body: toWire(resource, created) };
  }

  const wantedRV = config.metadata.resourceVersion;
  if (wantedRV && wantedRV !== current.metadata.resourceVersion) throw conflict(target(resource, name));
  const wantedUid = config.metadata.uid;
  if (wantedUid && wantedUid !== current.metadata.uid) {
    throw conflict(target(resource, name), `Precondition failed: UID in precondition: ${wantedUid}, UID in object meta: ${current.metadata.uid ?? ''}`);
  }
  object.metadata.resourceVersion = current.metadata.resourceVersion ?? '';
  const incoming = fromWire(resource, object);
  const stored = prepareUpdate(resource, current, incoming, request.subresource);
  if (incoming.metadata.managedFields !== undefined) stored.metadata.managedFields = incoming.metadata.managedFields;
  else delete stored.metadata.managedFields;
  validateObject(storage, stored);
  const updated = deps.store.update(storage, stored, { dryRun });
  return { code: 200, body: toWire(resource, updated) };
}
