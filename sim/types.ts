/**
 * Wire shapes shared by the simulator modules: Kubernetes objects as plain JSON, plus the small
 * narrowing helpers every module needs to read `unknown` input safely.
 */

/** `metadata.ownerReferences[]` entry. */
export interface OwnerReference {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  controller?: boolean;
  blockOwnerDeletion?: boolean;
}

/** `metadata` of a Kubernetes object. Fields the simulator does not interpret are kept as they are. */
export interface ObjectMeta {
  name: string;
  namespace?: string;
  generateName?: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  creationTimestamp?: string;
  deletionTimestamp?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  ownerReferences?: OwnerReference[];
  [field: string]: unknown;
}

/** A Kubernetes object as it travels over the wire (JSON). */
export interface KubeObject {
  apiVersion: string;
  kind: string;
  metadata: ObjectMeta;
  [field: string]: unknown;
}

/** Recursively read-only view, handed to controllers so they cannot mutate stored objects. */
export type DeepReadonly<T> = T extends (infer U)[]
  ? readonly DeepReadonly<U>[]
  : T extends object
    ? { readonly [K in keyof T]: DeepReadonly<T[K]> }
    : T;

/** A stored object as controllers see it. */
export type ReadonlyKubeObject = DeepReadonly<KubeObject>;

/** True for a plain JSON object (not null, not an array). */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** `value[key]` when it is a string. */
export function stringField(value: unknown, key: string): string | undefined {
  if (!isRecord(value)) return undefined;
  const field = value[key];
  return typeof field === 'string' ? field : undefined;
}

/** `value[key]` when it is a finite number. */
export function numberField(value: unknown, key: string): number | undefined {
  if (!isRecord(value)) return undefined;
  const field = value[key];
  return typeof field === 'number' && Number.isFinite(field) ? field : undefined;
}

/** `value[key]` when it is a JSON object. */
export function recordField(value: unknown, key: string): Record<string, unknown> | undefined {
  if (!isRecord(value)) return undefined;
  const field = value[key];
  return isRecord(field) ? field : undefined;
}

/** `value[key]` when it is an array (else an empty array). */
export function arrayField(value: unknown, key: string): unknown[] {
  if (!isRecord(value)) return [];
  const field = value[key];
  return Array.isArray(field) ? field : [];
}

/** Follows a dotted path of object keys (`spec.template.metadata`). */
export function pathValue(value: unknown, path: readonly string[]): unknown {
  let current: unknown = value;
  for (const key of path) {
    if (!isRecord(current)) return undefined;
    current = current[key];
  }
  return current;
}

/** Structural equality of JSON values (key order ignored). */
export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!deepEqual(a[i], b[i])) return false;
    return true;
  }
  if (isRecord(a)) {
    if (!isRecord(b)) return false;
    const aKeys = Object.keys(a).filter((k) => a[k] !== undefined);
    const bKeys = Object.keys(b).filter((k) => b[k] !== undefined);
    if (aKeys.length !== bKeys.length) return false;
    for (const key of aKeys) if (!deepEqual(a[key], b[key])) return false;
    return true;
  }
  return false;
}

/** Deep copy of a JSON value. */
export function cloneJson<T>(value: T): T {
  return structuredClone(value);
}

/** Whether every value of a record is a string (labels and annotations must be). */
export function isStringMap(value: unknown): value is Record<string, string> {
  return isRecord(value) && Object.values(value).every((v) => typeof v === 'string');
}

/**
 * Checks the minimum shape of a Kubernetes object: string `apiVersion` and `kind`, object
 * `metadata` whose `labels` and `annotations` (if present) are string maps.
 * Returns the problem as a sentence, or `undefined` when the shape is fine. The name is not
 * checked here (creates may use `generateName`).
 */
export function kubeObjectProblem(value: unknown): string | undefined {
  if (!isRecord(value)) return 'the object is not a JSON/YAML mapping';
  if (typeof value.apiVersion !== 'string' || value.apiVersion === '') return 'apiVersion is missing or not a string';
  if (typeof value.kind !== 'string' || value.kind === '') return 'kind is missing or not a string';
  const metadata = value.metadata;
  if (metadata === undefined || metadata === null) return 'metadata is missing';
  if (!isRecord(metadata)) return 'metadata is not a mapping';
  if (metadata.name !== undefined && typeof metadata.name !== 'string') return 'metadata.name is not a string';
  if (metadata.namespace !== undefined && metadata.namespace !== null && typeof metadata.namespace !== 'string') {
    return 'metadata.namespace is not a string';
  }
  for (const key of ['labels', 'annotations'] as const) {
    const map = metadata[key];
    if (map !== undefined && map !== null && !isStringMap(map)) return `metadata.${key} must map strings to strings`;
  }
  return undefined;
}

/** Narrows after {@link kubeObjectProblem} returned `undefined`; normalises `metadata.name` to a string. */
export function asKubeObject(value: unknown): KubeObject | undefined {
  if (kubeObjectProblem(value) !== undefined || !isRecord(value)) return undefined;
  const metadata = value.metadata;
  if (!isRecord(metadata)) return undefined;
  if (metadata.name === undefined) metadata.name = '';
  if (metadata.namespace === null) delete metadata.namespace;
  for (const key of ['labels', 'annotations'] as const) if (metadata[key] === null) Reflect.deleteProperty(metadata, key);
  return value as KubeObject;
}

/** RFC 3339 timestamp with second precision, as Kubernetes writes them. */
export function rfc3339(date: Date): string {
  return date.toISOString().replace(/\.\d{3}Z$/, 'Z');
}
