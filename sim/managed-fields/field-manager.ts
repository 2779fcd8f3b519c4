/**
 * `metadata.managedFields` as the API server's field manager keeps them
 * (k8s.io/apimachinery/pkg/util/managedfields/internal: fieldmanager.go, managedfieldsupdater.go,
 * stripmeta.go, capmanagers.go, lastappliedmanager.go, lastappliedupdater.go, conflict.go, and
 * structured-merge-diff's merge/update.go):
 *
 * - an update (create, update, patch) takes the fields it added or changed from whoever owned
 *   them and records them under `{manager, Update, apiVersion, subresource}`, merged with that
 *   entry's earlier fields; fields it removed leave every owner; the entry's time moves only when
 *   it took something;
 * - an apply records exactly the applied configuration's fields under `{manager, Apply}`,
 *   removes fields the manager applied before and no longer applies (unless another applier
 *   owns them), and fails with a conflict when it would change a field another manager owns
 *   (unless forced); `kubectl` may take over the fields of a client-side apply whose
 *   last-applied configuration still matches the object, and keeps that annotation up to date;
 * - metadata the server owns (name, namespace, uid, resourceVersion, ...) is never recorded;
 *   more than ten update entries are folded, oldest first, into `ancient-changes`.
 */
import type { FieldType } from '../openapi/schema';
import { ApiError } from '../status';
import type { KubeObject } from '../types';
import { cloneJson, deepEqual, isRecord } from '../types';
import { FieldSet, fieldElement, pathString } from './field-set';
import { compare, merge, removeItems, SchemaError, toFieldSet } from './typed';

/** The annotation kubectl's client-side apply keeps the applied configuration in. */
export const LAST_APPLIED_ANNOTATION = 'kubectl.kubernetes.io/last-applied-configuration';

/** Longest field manager name the API server accepts (and keeps of a User-Agent). */
export const FIELD_MANAGER_MAX_LENGTH = 128;

/** Update entries kept before the oldest are folded together. */
export const MAX_UPDATE_MANAGERS = 10;

/** One entry of `metadata.managedFields`. */
export interface ManagedFieldsEntry {
  manager: string;
  operation: 'Apply' | 'Update';
  apiVersion: string;
  time?: string;
  fieldsType: 'FieldsV1';
  fieldsV1: Record<string, unknown>;
  subresource?: string;
}

interface Owner {
  manager: string;
  operation: 'Apply' | 'Update';
  apiVersion: string;
  subresource: string;
  set: FieldSet;
  time: string | undefined;
}

/** Owners by identifier (manager, operation, subresource and, for updates, apiVersion). */
type Owners = Map<string, Owner>;

function identifier(manager: string, operation: 'Apply' | 'Update', apiVersion: string, subresource: string): string {
  return JSON.stringify({ manager, operation, apiVersion: operation === 'Apply' ? '' : apiVersion, subresource });
}

/** The fields that are never owned (stripmeta.go). */
const STRIPPED = FieldSet.of(
  [fieldElement('apiVersion')],
  [fieldElement('kind')],
  [fieldElement('metadata')],
  ...['name', 'namespace', 'creationTimestamp', 'selfLink', 'uid', 'clusterName', 'generation', 'managedFields', 'resourceVersion'].map((f) => [
    fieldElement('metadata'),
    fieldElement(f),
  ]),
);

/**
 * The manager a write without `fieldManager` is recorded under: the User-Agent up to its first
 * `/`, printable characters only, at most 128 bytes (the API server's prefixFromUserAgent).
 */
export function managerFromUserAgent(userAgent: string): string {
  const head = userAgent.split('/')[0] ?? '';
  let out = '';
  for (const char of head) {
    if (!/^[\p{L}\p{M}\p{N}\p{P}\p{S} ]$/u.test(char)) continue;
    if (Buffer.byteLength(out + char) > FIELD_MANAGER_MAX_LENGTH) break;
    out += char;
  }
  return out;
}

/**
 * Reads `metadata.managedFields` (`undefined` when they are not a valid list of entries: the
 * caller then keeps the live object's, as the API server does).
 */
function decode(raw: unknown): Owners | undefined {
  const owners: Owners = new Map();
  if (raw === undefined || raw === null) return owners;
  if (!Array.isArray(raw)) return undefined;
  for (const entry of raw) {
    if (!isRecord(entry)) return undefined;
    const { manager, operation, apiVersion, fieldsType, fieldsV1, subresource, time } = entry;
    if (operation !== 'Apply' && operation !== 'Update') return undefined;
    if (typeof apiVersion !== 'string' || apiVersion === '') return undefined;
    if (fieldsType !== 'FieldsV1') return undefined;
    if (manager !== undefined && typeof manager !== 'string') return undefined;
    if (subresource !== undefined && typeof subresource !== 'string') return undefined;
    let set: FieldSet;
    try {
      set = FieldSet.fromFieldsV1(fieldsV1 ?? {});
    } catch {
      return undefined;
    }
    const name = typeof manager === 'string' ? manager : '';
    const sub = typeof subresource === 'string' ? subresource : '';
    owners.set(identifier(name, operation, apiVersion, sub), { manager: name, operation, apiVersion, subresource: sub, set, time: typeof time === 'string' ? time : undefined });
  }
  return owners;
}

function seconds(time: string | undefined): number {
  if (time === undefined) return 0;
  const ms = Date.parse(time);
  return Number.isNaN(ms) ? 0 : Math.floor(ms / 1000);
}

/** The entries in the API server's order: Apply before Update, then by time, manager, apiVersion, subresource. */
function encode(owners: Owners): ManagedFieldsEntry[] | undefined {
  if (owners.size === 0) return undefined;
  const sorted = [...owners.values()].sort((p, q) => {
    if (p.operation !== q.operation) return p.operation < q.operation ? -1 : 1;
    const dt = seconds(p.time) - seconds(q.time);
    if (dt !== 0) return dt;
    for (const [a, b] of [[p.manager, q.manager], [p.apiVersion, q.apiVersion], [p.subresource, q.subresource]] as const) {
      if (a !== b) return a < b ? -1 : 1;
    }
    return 0;
  });
  return sorted.map((o) => ({
    manager: o.manager,
    operation: o.operation,
    apiVersion: o.apiVersion,
    ...(o.time !== undefined ? { time: o.time } : {}),
    fieldsType: 'FieldsV1',
    fieldsV1: o.set.toFieldsV1(),
    ...(o.subresource !== '' ? { subresource: o.subresource } : {}),
  }));
}

/** `[]` or `[{}]`: the request asks to clear managedFields. */
function isReset(raw: unknown): boolean {
  if (!Array.isArray(raw)) return false;
  if (raw.length === 0) return true;
  return raw.length === 1 && isRecord(raw[0]) && Object.keys(raw[0]).length === 0;
}

/** Folds the oldest update entries into `ancient-changes` per apiVersion until at most ten remain (capmanagers.go). */
function capUpdateManagers(owners: Owners): void {
  const updaters = [...owners].filter(([, o]) => o.operation === 'Update').map(([key]) => key);
  if (updaters.length <= MAX_UPDATE_MANAGERS) return;
  updaters.sort((a, b) => {
    const dt = seconds(owners.get(a)?.time) - seconds(owners.get(b)?.time);
    return dt !== 0 ? dt : a < b ? -1 : a > b ? 1 : 0;
  });
  const firstOfVersion = new Map<string, string>();
  let length = updaters.length;
  for (let i = 0; i < updaters.length && length > MAX_UPDATE_MANAGERS; i++) {
    const key = updaters[i] as string;
    const owner = owners.get(key);
    if (owner === undefined) continue;
    const bucketKey = identifier('ancient-changes', 'Update', owner.apiVersion, '');
    const first = firstOfVersion.get(owner.apiVersion);
    if (first === undefined) {
      firstOfVersion.set(owner.apiVersion, key);
      continue;
    }
    if (!owners.has(bucketKey)) {
      const firstOwner = owners.get(first);
      owners.delete(first);
      if (firstOwner !== undefined) owners.set(bucketKey, { ...firstOwner, manager: 'ancient-changes', subresource: '' });
    }
    const bucket = owners.get(bucketKey);
    if (bucket !== undefined) owners.set(bucketKey, { ...bucket, set: owner.set.union(bucket.set), time: owner.time });
    owners.delete(key);
    length--;
  }
}

/** How the field manager sees the objects of one request. */
export interface FieldManagerScope {
  /** The request's apiVersion (the endpoint's group/version). */
  readonly apiVersion: string;
  /** `status`, `scale`, or `''` for the object itself. */
  readonly subresource: string;
  /** The field type of the kind at an apiVersion (`undefined`: not served there). */
  readonly typeAt: (apiVersion: string) => FieldType | undefined;
  /** An object (in the request's version) converted to another apiVersion (`undefined`: not convertible). */
  readonly convert: (object: KubeObject, apiVersion: string) => KubeObject | undefined;
  /** Whether `status` is the status subresource's alone (left out of main-resource field sets). */
  readonly statusSeparate: boolean;
  /** RFC 3339 time of this write. */
  readonly now: string;
}

/** The part of an object field sets are computed on: without managedFields (and status, where it is separate). */
function comparable(scope: FieldManagerScope, object: KubeObject | undefined): Record<string, unknown> {
  if (object === undefined) return {};
  const copy: Record<string, unknown> = { ...object, metadata: { ...object.metadata } };
  delete (copy.metadata as Record<string, unknown>).managedFields;
  if (scope.statusSeparate && scope.subresource === '') delete copy.status;
  return copy;
}

function typeOrThrow(scope: FieldManagerScope, apiVersion: string): FieldType {
  const type = scope.typeAt(apiVersion);
  if (type === undefined) throw new ApiError(500, 'InternalError', `Internal error occurred: no schema for ${apiVersion}`);
  return type;
}

/**
 * Takes the fields a change took from their other owners (all of them when `force`) and the
 * removed fields from everyone; returns the conflicts instead when not forced.
 */
function settleOthers(
  scope: FieldManagerScope,
  owners: Owners,
  self: string,
  live: KubeObject | undefined,
  next: KubeObject,
  force: boolean,
): { owner: string; path: string[] }[] {
  const conflicts: { owner: string; path: string[] }[] = [];
  const changes: { key: string; taken: FieldSet; removed: FieldSet }[] = [];
  const byVersion = new Map<string, { taken: FieldSet; removed: FieldSet } | undefined>();
  for (const [key, owner] of owners) {
    if (key === self) continue;
    let diff = byVersion.get(owner.apiVersion);
    if (!byVersion.has(owner.apiVersion)) {
      const type = scope.typeAt(owner.apiVersion);
      const l = live === undefined ? undefined : owner.apiVersion === scope.apiVersion ? live : scope.convert(live, owner.apiVersion);
      const n = owner.apiVersion === scope.apiVersion ? next : scope.convert(next, owner.apiVersion);
      if (type === undefined || n === undefined || (live !== undefined && l === undefined)) {
        diff = undefined;
      } else {
        const c = compare(comparable(scope, l), comparable(scope, n), type);
        diff = { taken: c.modified.union(c.added), removed: c.removed };
      }
      byVersion.set(owner.apiVersion, diff);
    }
    if (diff === undefined) {
      // An owner in a version the object cannot be converted to is forgotten.
      owners.delete(key);
      continue;
    }
    const taken = owner.set.intersection(diff.taken);
    if (!taken.isEmpty()) for (const path of taken.paths()) conflicts.push({ owner: key, path });
    changes.push({ key, taken, removed: diff.removed });
  }
  if (conflicts.length > 0 && !force) return conflicts;
  for (const { key, taken, removed } of changes) {
    const owner = owners.get(key);
    if (owner === undefined) continue;
    const set = owner.set.difference(taken).difference(removed);
    if (set.isEmpty()) owners.delete(key);
    else owners.set(key, { ...owner, set });
  }
  return [];
}

/**
 * Records an update (create, update, patch) in `next.metadata.managedFields` (mutates `next`).
 * `live` is the stored object in the request's version (`undefined` for a create); managedFields
 * the request carries replace the live ones when they are valid (`[]` clears them), except on a
 * subresource.
 */
export function recordUpdate(scope: FieldManagerScope, live: KubeObject | undefined, next: KubeObject, manager: string): void {
  const type = typeOrThrow(scope, scope.apiVersion);
  const requested = next.metadata.managedFields;
  let owners: Owners;
  if (scope.subresource !== '') {
    owners = decode(live?.metadata.managedFields) ?? new Map();
  } else if (isReset(requested)) {
    owners = new Map();
  } else {
    const fromRequest = decode(requested);
    owners = fromRequest !== undefined && fromRequest.size > 0 ? fromRequest : (decode(live?.metadata.managedFields) ?? new Map());
  }
  delete next.metadata.managedFields;
  const selfKey = identifier(manager, 'Update', scope.apiVersion, scope.subresource);
  const previous = owners.get(selfKey);
  settleOthers(scope, owners, '', live, next, true);
  const c = compare(comparable(scope, live), comparable(scope, next), type);
  const took = c.modified.union(c.added).difference(STRIPPED);
  if (!took.isEmpty()) {
    const kept = owners.get(selfKey)?.set ?? previous?.set.difference(c.removed) ?? new FieldSet();
    owners.set(selfKey, {
      manager, operation: 'Update', apiVersion: scope.apiVersion, subresource: scope.subresource, set: took.union(kept), time: scope.now,
    });
  }
  capUpdateManagers(owners);
  const entries = encode(owners);
  if (entries !== undefined) next.metadata.managedFields = entries;
}

/** Formats an owner as conflict messages name it (conflict.go printManager). */
function ownerName(owners: Owners, key: string): string {
  const owner = owners.get(key);
  if (owner === undefined) return JSON.stringify(key);
  let name = JSON.stringify(owner.manager);
  if (owner.subresource !== '') name += ` with subresource ${JSON.stringify(owner.subresource)}`;
  return owner.operation === 'Update' ? `${name} using ${owner.apiVersion}` : name;
}

/** The 409 of an apply that would change fields other managers own (conflict.go NewConflictError). */
function conflictError(owners: Owners, conflicts: { owner: string; path: string[] }[]): ApiError {
  const causes = conflicts.map((c) => ({ reason: 'FieldManagerConflict', message: `conflict with ${ownerName(owners, c.owner)}`, field: pathString(c.path) }));
  let message: string;
  const first = conflicts[0];
  if (conflicts.length === 1 && first !== undefined) {
    message = `Apply failed with 1 conflict: conflict with ${ownerName(owners, first.owner)}: ${pathString(first.path)}`;
  } else {
    const byOwner = new Map<string, string[]>();
    for (const c of conflicts) byOwner.set(c.owner, [...(byOwner.get(c.owner) ?? []), pathString(c.path)]);
    const lines: string[] = [];
    for (const key of [...byOwner.keys()].sort()) {
      lines.push(`conflicts with ${ownerName(owners, key)}:`);
      for (const path of byOwner.get(key) ?? []) lines.push(`- ${path}`);
    }
    message = `Apply failed with ${conflicts.length} conflicts: ${lines.join('\n')}`;
  }
  return new ApiError(409, 'Conflict', message, { causes });
}

/**
 * The fields a still-accurate client-side apply declared: those of the last-applied
 * configuration whose values the live object still has (lastappliedmanager.go).
 */
function lastAppliedFields(scope: FieldManagerScope, live: KubeObject, type: FieldType): FieldSet | undefined {
  const raw = live.metadata.annotations?.[LAST_APPLIED_ANNOTATION];
  if (raw === undefined || raw === '') return undefined;
  let lastApplied: unknown;
  try {
    lastApplied = JSON.parse(raw) as unknown;
  } catch {
    return undefined;
  }
  if (!isRecord(lastApplied) || lastApplied.apiVersion !== scope.apiVersion) return undefined;
  try {
    const set = toFieldSet(lastApplied, type);
    const c = compare(lastApplied, comparable(scope, live), type);
    return set.difference(c.modified).difference(c.added).difference(c.removed);
  } catch {
    return undefined;
  }
}

function sortedJson(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortedJson);
  if (!isRecord(value)) return value;
  return Object.fromEntries(Object.keys(value).sort().map((k) => [k, sortedJson(value[k])]));
}

/** An object identified as the typed-conversion errors do: `ns/name; group/version, Kind=Kind`. */
function objectName(config: KubeObject): string {
  const slash = config.apiVersion.indexOf('/');
  const gv = slash < 0 ? `/${config.apiVersion}` : config.apiVersion;
  return `${config.metadata.namespace ?? ''}/${config.metadata.name}; ${gv}, Kind=${config.kind}`;
}

/** What an apply produced. */
export interface ApplyResult {
  /** The object after the apply (request version), managedFields set. */
  readonly object: KubeObject;
  /** Whether the apply changed anything but managedFields. */
  readonly changed: boolean;
}

/**
 * Server-side apply of `config` by `manager` onto `live` (`undefined`: the object does not
 * exist yet). Returns the merged object with its managedFields.
 * @throws ApiError 409 Conflict (not forced), 500 for a configuration the schema rejects (as
 * the API server answers both).
 */
export function applyConfiguration(scope: FieldManagerScope, live: KubeObject | undefined, config: KubeObject, manager: string, force: boolean): ApplyResult {
  const type = typeOrThrow(scope, scope.apiVersion);
  const owners = live === undefined ? new Map<string, Owner>() : decode(live.metadata.managedFields);
  if (owners === undefined) throw new ApiError(500, 'InternalError', 'failed to decode managed fields');
  const liveBase = comparable(scope, live);
  let configSet: FieldSet;
  try {
    configSet = toFieldSet(config, type);
  } catch (error) {
    if (error instanceof SchemaError) throw new ApiError(500, 'InternalError', `failed to create typed patch object (${objectName(config)}): ${error.message}`);
    throw error;
  }
  const selfKey = identifier(manager, 'Apply', scope.apiVersion, scope.subresource);
  const lastSet = owners.get(selfKey)?.set;
  let merged = merge(liveBase, config, type) as Record<string, unknown>;

  // Prune: the items and leaves this manager applied before and applies no more, unless another
  // applier owns them (update.go prune: only what the merged object itself names is removed,
  // not the structs around it).
  if (lastSet !== undefined) {
    let keep = configSet;
    for (const [key, owner] of owners) if (key !== selfKey && owner.operation === 'Apply') keep = keep.union(owner.set);
    const gone = lastSet.difference(keep).intersection(toFieldSet(merged, type, true));
    if (!gone.isEmpty()) merged = removeItems(merged, gone, type) as Record<string, unknown>;
  }
  const mergedObject = merged as unknown as KubeObject;
  const before = new Map(owners);
  owners.set(selfKey, { manager, operation: 'Apply', apiVersion: scope.apiVersion, subresource: scope.subresource, set: configSet, time: owners.get(selfKey)?.time });
  let conflicts = settleOthers(scope, owners, selfKey, live, mergedObject, force);
  if (conflicts.length > 0 && manager === 'kubectl' && live !== undefined) {
    // lastappliedmanager.go: fields a client-side apply declared and the object still has may be taken over.
    const allowed = lastAppliedFields(scope, live, type);
    if (allowed !== undefined) {
      conflicts = conflicts.filter((c) => !allowed.has(c.path));
      if (conflicts.length === 0) {
        owners.clear();
        for (const [k, v] of before) owners.set(k, v);
        owners.set(selfKey, { manager, operation: 'Apply', apiVersion: scope.apiVersion, subresource: scope.subresource, set: configSet, time: before.get(selfKey)?.time });
        settleOthers(scope, owners, selfKey, live, mergedObject, true);
      }
    }
  }
  if (conflicts.length > 0) throw conflictError(before, conflicts);

  const own = configSet.difference(STRIPPED);
  const changed = !deepEqual(liveBase, merged);
  const previous = before.get(selfKey);
  if (own.isEmpty()) {
    owners.delete(selfKey);
  } else {
    const entryChanged = previous === undefined || !previous.set.equals(own) || previous.apiVersion !== scope.apiVersion;
    owners.set(selfKey, {
      manager, operation: 'Apply', apiVersion: scope.apiVersion, subresource: scope.subresource, set: own,
      time: changed || entryChanged ? scope.now : previous.time,
    });
  }

  const object = cloneJson(mergedObject);
  if (scope.statusSeparate && scope.subresource === '' && live?.status !== undefined) object.status = cloneJson(live.status);
  // lastappliedupdater.go: kubectl's server-side apply keeps a client-side apply's annotation current.
  if (manager === 'kubectl' && live !== undefined && (live.metadata.annotations?.[LAST_APPLIED_ANNOTATION] ?? '') !== '') {
    const applied = cloneJson(config);
    if (applied.metadata.annotations) {
      Reflect.deleteProperty(applied.metadata.annotations, LAST_APPLIED_ANNOTATION);
      if (Object.keys(applied.metadata.annotations).length === 0) delete applied.metadata.annotations;
    }
    object.metadata.annotations = { ...object.metadata.annotations, [LAST_APPLIED_ANNOTATION]: `${JSON.stringify(sortedJson(applied))}\n` };
  }
  const entries = encode(owners);
  if (entries !== undefined) object.metadata.managedFields = entries;
  else delete object.metadata.managedFields;
  return { object, changed };
}
