/**
 * The three patch formats of the Kubernetes API: JSON merge patch (RFC 7386), strategic merge
 * patch (maps merged, lists merged by their upstream merge key where we know it, else replaced,
 * `$patch` / `$retainKeys` / `$deleteFromPrimitiveList` directives) and JSON patch (RFC 6902).
 *
 * All functions are pure: they never modify their inputs. The merge functions may share
 * unpatched subtrees with `target`; {@link applyPatch} returns an independent copy.
 *
 * @see https://github.com/kubernetes/community/blob/master/contributors/devel/sig-api-machinery/strategic-merge-patch.md
 */
import { cloneJson, deepEqual, isRecord } from './types';

/** Patch content types the API accepts. */
export type PatchType = 'merge' | 'strategic' | 'json';

/** Maps a request `Content-Type` to a patch type (`undefined` when unsupported). */
export function patchTypeOf(contentType: string | undefined): PatchType | undefined {
  const media = (contentType ?? '').split(';')[0]?.trim().toLowerCase();
  if (media === 'application/merge-patch+json') return 'merge';
  if (media === 'application/strategic-merge-patch+json') return 'strategic';
  if (media === 'application/json-patch+json') return 'json';
  return undefined;
}

/**
 * A patch that cannot be applied. `malformed` patches are the client's syntax error (400);
 * others failed against the object (422), as upstream distinguishes them.
 */
export class PatchError extends Error {
  constructor(
    message: string,
    readonly malformed: boolean,
  ) {
    super(message);
    this.name = 'PatchError';
  }
}

/** RFC 7386 JSON merge patch. */
export function applyMergePatch(target: unknown, patch: unknown): unknown {
  if (!isRecord(patch)) return cloneJson(patch);
  const result: Record<string, unknown> = isRecord(target) ? { ...target } : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) Reflect.deleteProperty(result, key);
    else result[key] = applyMergePatch(result[key], value);
  }
  return result;
}

const NAME_KEYED = new Set([
  'containers', 'initContainers', 'ephemeralContainers', 'env', 'volumes', 'imagePullSecrets', 'resourceClaims',
]);
const CONTAINER_LISTS = new Set(['containers', 'initContainers', 'ephemeralContainers']);

/**
 * The merge key upstream declares (`patchMergeKey`) for a list at `path` (object keys from the
 * root, array positions omitted), `'$primitive'` for merged primitive lists, or `undefined` for
 * lists that a patch replaces.
 */
export function mergeKeyFor(path: readonly string[]): string | undefined {
  const field = path[path.length - 1];
  const parent = path[path.length - 2];
  if (field === undefined) return undefined;
  if (NAME_KEYED.has(field)) return 'name';
  if (field === 'volumeMounts') return 'mountPath';
  if (field === 'volumeDevices') return 'devicePath';
  if (field === 'ports') {
    if (parent !== undefined && CONTAINER_LISTS.has(parent)) return 'containerPort';
    if (path.length === 2 && path[0] === 'spec') return 'port';
    return undefined;
  }
  if (field === 'conditions') return 'type';
  if (field === 'ownerReferences') return 'uid';
  if (field === 'hostAliases') return 'ip';
  if (field === 'topologySpreadConstraints') return 'topologyKey';
  if (field === 'addresses' && path[0] === 'status' && path.length === 2) return 'type';
  if (field === 'finalizers') return '$primitive';
  return undefined;
}

function smpList(original: unknown, patch: unknown[], path: readonly string[]): unknown[] {
  const mergeKey = mergeKeyFor(path);
  if (patch.some((item) => isRecord(item) && item.$patch === 'replace')) {
    return patch.filter((item) => !(isRecord(item) && item.$patch === 'replace')).map((item) => cloneJson(item));
  }
  if (mergeKey === undefined || !Array.isArray(original)) {
    return patch.filter((item) => !(isRecord(item) && item.$patch === 'delete')).map((item) => cloneJson(item));
  }
  if (mergeKey === '$primitive') {
    const result = [...original];
    for (const item of patch) if (!result.some((existing) => deepEqual(existing, item))) result.push(cloneJson(item));
    return result;
  }
  const result: unknown[] = [...original];
  for (const item of patch) {
    if (!isRecord(item)) {
      result.push(cloneJson(item));
      continue;
    }
    const key = item[mergeKey];
    const index = result.findIndex((existing) => isRecord(existing) && deepEqual(existing[mergeKey], key));
    if (item.$patch === 'delete') {
      if (index >= 0) result.splice(index, 1);
      continue;
    }
    if (index >= 0) result[index] = applyStrategicMergePatch(result[index], item, path);
    else result.push(applyStrategicMergePatch(undefined, item, path));
  }
  return result;
}

/**
 * Strategic merge patch: like a merge patch for maps (null deletes), lists merged by their
 * upstream merge key where {@link mergeKeyFor} knows it and replaced otherwise.
 * @throws PatchError for an unknown `$patch` directive.
 */
export function applyStrategicMergePatch(target: unknown, patch: unknown, path: readonly string[] = []): unknown {
  if (!isRecord(patch)) return cloneJson(patch);
  const directive = patch.$patch;
  if (directive === 'replace') {
    const replaced: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(patch)) if (key !== '$patch') replaced[key] = cloneJson(value);
    return replaced;
  }
  if (directive === 'delete') return undefined;
  if (directive !== undefined && directive !== 'merge') {
    throw new PatchError(`unknown patch type: ${String(directive)} in map: ${JSON.stringify(patch)}`, true);
  }
  const result: Record<string, unknown> = isRecord(target) ? { ...target } : {};
  for (const [key, value] of Object.entries(patch)) {
    if (key === '$patch' || key === '$retainKeys' || key.startsWith('$setElementOrder/')) continue;
    if (key.startsWith('$deleteFromPrimitiveList/')) {
      const field = key.slice('$deleteFromPrimitiveList/'.length);
      const current = result[field];
      if (Array.isArray(current) && Array.isArray(value)) {
        result[field] = current.filter((item) => !value.some((gone) => deepEqual(gone, item)));
      }
      continue;
    }
    if (value === null) {
      Reflect.deleteProperty(result, key);
    } else if (isRecord(value)) {
      const merged = applyStrategicMergePatch(result[key], value, [...path, key]);
      if (merged === undefined) Reflect.deleteProperty(result, key);
      else result[key] = merged;
    } else if (Array.isArray(value)) {
      result[key] = smpList(result[key], value, [...path, key]);
    } else {
      result[key] = value;
    }
  }
  const retain = patch.$retainKeys;
  if (Array.isArray(retain)) {
    for (const key of Object.keys(result)) if (!retain.includes(key)) Reflect.deleteProperty(result, key);
  }
  return result;
}

/** One RFC 6902 operation. */
export interface JsonPatchOperation {
  op: 'add' | 'remove' | 'replace' | 'move' | 'copy' | 'test';
  path: string;
  value?: unknown;
  from?: string;
}

/** Parses a JSON pointer (RFC 6901) into reference tokens. */
export function parseJsonPointer(pointer: string): string[] {
  if (pointer === '') return [];
  if (!pointer.startsWith('/')) throw new PatchError(`JSON pointer must be empty or start with "/": ${JSON.stringify(pointer)}`, false);
  return pointer
    .slice(1)
    .split('/')
    .map((token) => token.replace(/~1/g, '/').replace(/~0/g, '~'));
}

/**
 * Validates the structure of a JSON patch document.
 * @throws PatchError (malformed) when it is not an array of well-formed operations.
 */
export function parseJsonPatch(patch: unknown): JsonPatchOperation[] {
  if (!Array.isArray(patch)) throw new PatchError('json: cannot unmarshal object into Go value of type jsonpatch.Patch', true);
  return patch.map((raw, index) => {
    if (!isRecord(raw)) throw new PatchError(`operation ${index} is not an object`, true);
    const op = raw.op;
    if (op !== 'add' && op !== 'remove' && op !== 'replace' && op !== 'move' && op !== 'copy' && op !== 'test') {
      throw new PatchError(`Unexpected kind: ${String(op)}`, true);
    }
    if (typeof raw.path !== 'string') throw new PatchError(`operation ${index} (${op}) is missing path`, true);
    if ((op === 'move' || op === 'copy') && typeof raw.from !== 'string') {
      throw new PatchError(`operation ${index} (${op}) is missing from`, true);
    }
    if ((op === 'add' || op === 'replace' || op === 'test') && !('value' in raw)) {
      throw new PatchError(`operation ${index} (${op}) is missing value`, true);
    }
    const operation: JsonPatchOperation = { op, path: raw.path };
    if ('value' in raw) operation.value = raw.value;
    if (typeof raw.from === 'string') operation.from = raw.from;
    return operation;
  });
}

type Container = Record<string, unknown> | unknown[];

function arrayIndex(token: string, length: number, allowEnd: boolean, path: string): number {
  if (allowEnd && token === '-') return length;
  if (!/^(0|[1-9]\d*)$/.test(token)) throw new PatchError(`invalid array index ${JSON.stringify(token)} in ${path}`, false);
  const index = Number(token);
  if (index > length || (!allowEnd && index === length)) throw new PatchError(`index out of range in ${path}`, false);
  return index;
}

function resolveParent(doc: unknown, tokens: string[], path: string, op: string): { parent: Container; last: string } {
  let current: unknown = doc;
  for (let i = 0; i < tokens.length - 1; i++) {
    const token = tokens[i] as string;
    if (Array.isArray(current)) current = current[arrayIndex(token, current.length, false, path)];
    else if (isRecord(current) && Object.prototype.hasOwnProperty.call(current, token)) current = current[token];
    else throw new PatchError(`${op} operation does not apply: doc is missing path: "${path}": missing value`, false);
  }
  if (!Array.isArray(current) && !isRecord(current)) {
    throw new PatchError(`${op} operation does not apply: doc is missing path: "${path}": missing value`, false);
  }
  return { parent: current, last: tokens[tokens.length - 1] as string };
}

function getAt(doc: unknown, path: string, op: string): unknown {
  const tokens = parseJsonPointer(path);
  if (tokens.length === 0) return doc;
  const { parent, last } = resolveParent(doc, tokens, path, op);
  if (Array.isArray(parent)) return parent[arrayIndex(last, parent.length, false, path)];
  if (!Object.prototype.hasOwnProperty.call(parent, last)) {
    throw new PatchError(`${op} operation does not apply: doc is missing path: "${path}": missing value`, false);
  }
  return parent[last];
}

function removeAt(doc: unknown, path: string, op: string): unknown {
  const tokens = parseJsonPointer(path);
  if (tokens.length === 0) throw new PatchError('cannot remove the whole document', false);
  const { parent, last } = resolveParent(doc, tokens, path, op);
  if (Array.isArray(parent)) return parent.splice(arrayIndex(last, parent.length, false, path), 1)[0];
  if (!Object.prototype.hasOwnProperty.call(parent, last)) {
    throw new PatchError(`Unable to remove nonexistent key: ${last}: missing value`, false);
  }
  const value = parent[last];
  Reflect.deleteProperty(parent, last);
  return value;
}

function addAt(doc: unknown, path: string, value: unknown, op: string): unknown {
  const tokens = parseJsonPointer(path);
  if (tokens.length === 0) return value;
  const { parent, last } = resolveParent(doc, tokens, path, op);
  if (Array.isArray(parent)) parent.splice(arrayIndex(last, parent.length, true, path), 0, value);
  else parent[last] = value;
  return doc;
}

/**
 * RFC 6902 JSON patch (add, remove, replace, move, copy, test; RFC 6901 pointer escaping).
 * @throws PatchError malformed (400) for a bad document, not malformed (422) when an
 * operation does not apply or a test fails.
 */
export function applyJsonPatch(target: unknown, patch: unknown): unknown {
  const operations = parseJsonPatch(patch);
  let doc = cloneJson(target);
  for (const operation of operations) {
    const { op, path } = operation;
    switch (op) {
      case 'add':
        doc = addAt(doc, path, cloneJson(operation.value), op);
        break;
      case 'remove':
        removeAt(doc, path, op);
        break;
      case 'replace': {
        if (parseJsonPointer(path).length === 0) {
          doc = cloneJson(operation.value);
          break;
        }
        getAt(doc, path, op);
        const tokens = parseJsonPointer(path);
        const { parent, last } = resolveParent(doc, tokens, path, op);
        if (Array.isArray(parent)) parent[arrayIndex(last, parent.length, false, path)] = cloneJson(operation.value);
        else parent[last] = cloneJson(operation.value);
        break;
      }
      case 'move': {
        const from = operation.from ?? '';
        if (path.startsWith(`${from}/`)) throw new PatchError(`cannot move ${from} into its own child ${path}`, false);
        const value = removeAt(doc, from, op);
        doc = addAt(doc, path, value, op);
        break;
      }
      case 'copy':
        doc = addAt(doc, path, cloneJson(getAt(doc, operation.from ?? '', op)), op);
        break;
      case 'test': {
        let actual: unknown;
        try {
          actual = getAt(doc, path, op);
        } catch {
          actual = undefined;
        }
        if (!deepEqual(actual, operation.value)) throw new PatchError(`testing value ${path} failed: test failed`, false);
        break;
      }
    }
  }
  return doc;
}

/**
 * Applies a patch of the given type to a deep copy of a document (the result shares nothing
 * with `target` or `patch`).
 * @throws PatchError when the patch is malformed or does not apply.
 */
export function applyPatch(type: PatchType, target: unknown, patch: unknown): unknown {
  switch (type) {
    case 'merge':
      if (!isRecord(patch)) throw new PatchError('merge patch must be a JSON object', true);
      return applyMergePatch(cloneJson(target), patch);
    case 'strategic':
      if (!isRecord(patch)) throw new PatchError('strategic merge patch must be a JSON object', true);
      return applyStrategicMergePatch(cloneJson(target), patch);
    case 'json':
      return applyJsonPatch(target, patch);
  }
}
