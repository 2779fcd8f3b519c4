/**
 * The `delete` and `deletecollection` verbs: DeleteOptions (preconditions, `dryRun`,
 * `propagationPolicy`), background garbage collection of what the object owns (Deployment →
 * ReplicaSets → Pods, DaemonSet → Pods, Service → EndpointSlices) unless orphaned, and a
 * namespace's deletion taking everything in it.
 */
import { parseBody } from '../http';
import type { ResourceKey } from '../resources';
import { apiVersionOf, RESOURCE_KEYS, STORAGE } from '../resources';
import { successStatus } from '../status';
import type { KubeObject } from '../types';
import { isRecord, recordField, stringField } from '../types';
import type { ApiDeps, ApiResult, ResourceRequest } from './request';
import { isDryRun, requestPredicate, storageOf, toWire } from './request';

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

/** Answers a `delete` of one object (a Status naming it). */
export async function remove(deps: ApiDeps, request: ResourceRequest): Promise<ApiResult> {
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

/** Answers a `deletecollection`: every object the selectors pick, deleted (the list of them). */
export function deleteCollection(deps: ApiDeps, request: ResourceRequest): ApiResult {
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
