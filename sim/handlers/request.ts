/**
 * What every verb handler shares: the parsed request, the server parts the handlers use, the
 * answer they return, and the reading of common query parameters (selectors, resourceVersion,
 * `includeObject`, `dryRun`), wire conversion and the error targets.
 */
import type { AcceptInfo } from '../http';
import type { SimFaults } from '../faults';
import type { ApiResource, ResourceKey } from '../resources';
import { STORAGE } from '../resources';
import type { LabelSelector } from '../selectors';
import { compileFieldSelector, matchesLabels, parseFieldSelector, parseLabelSelector, SelectorError } from '../selectors';
import { ApiError, badRequest, notFound } from '../status';
import type { ObjectStore } from '../store';
import type { IncludeObject } from '../tables';
import type { KubeObject } from '../types';
import type { ServiceAllocator } from '../validation';
import type { WatchHub } from '../watch';

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
  /** The User-Agent header (`''` without one): writes without `fieldManager` are recorded under its start. */
  userAgent: string;
  readBody: () => Promise<Buffer>;
}

/** A response to write (watches write their own). */
export interface ApiResult {
  code: number;
  /** A value to serialise, or ready JSON text. */
  body: unknown;
  /** Extra response headers (`Warning` for unknown fields under `fieldValidation=Warn`). */
  headers?: Record<string, string>;
}

/** The storage kind of a resource (405 MethodNotAllowed for the review resources, which have none). */
export function storageOf(resource: ApiResource): ResourceKey {
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

/** A `resourceVersion` query parameter (400 when it is not a number). */
export function parseResourceVersion(raw: string, what = 'resourceVersion'): number {
  if (!/^\d+$/.test(raw)) throw badRequest(`${what}: Invalid value: "${raw}": strconv.ParseUint: parsing "${raw}": invalid syntax`);
  return Number(raw);
}

/** The `includeObject` query parameter of a Table request (default `Metadata`). */
export function parseIncludeObject(query: URLSearchParams): IncludeObject {
  const raw = query.get('includeObject');
  if (raw === null || raw === '') return 'Metadata';
  if (raw === 'None' || raw === 'Metadata' || raw === 'Object') return raw;
  throw badRequest(`includeObject: Unsupported value: "${raw}": supported values: "Metadata", "None", "Object"`);
}

/** The object as the endpoint serves it (a resource may convert the stored form). */
export function toWire(resource: ApiResource, object: KubeObject): KubeObject {
  return resource.toWire ? resource.toWire(object) : object;
}

/** The stored form of an object the endpoint received. */
export function fromWire(resource: ApiResource, object: KubeObject): KubeObject {
  return resource.fromWire ? resource.fromWire(object) : object;
}

/** What an error Status names: the group, the resource and the name when there is one. */
export function target(resource: ApiResource, name: string | undefined): { group: string; resource: string; name?: string } {
  return name === undefined ? { group: resource.group, resource: resource.plural } : { group: resource.group, resource: resource.plural, name };
}

/** `dryRun=All` (400 for other values). */
export function isDryRun(query: URLSearchParams): boolean {
  const values = query.getAll('dryRun');
  for (const value of values) {
    if (value !== 'All') throw badRequest(`dryRun: Unsupported value: "${value}": supported values: "All"`);
  }
  return values.length > 0;
}

/** The object a request names (404 NotFound when there is none). */
export function mustGet(deps: ApiDeps, request: ResourceRequest): KubeObject {
  const storage = storageOf(request.resource);
  const name = request.name ?? '';
  const object = deps.store.get(storage, request.namespace, name);
  if (object === undefined) throw notFound(target(request.resource, name));
  return object;
}
