/**
 * The vocabulary of the simulator's schema table: named definitions (structs with their fields,
 * or named scalars) and field types. One table (sim/openapi/definitions-*.ts) written in it feeds
 * the OpenAPI v3 documents (`/openapi/v3/...`), the strict field validation of writes and the
 * field sets of managedFields and server-side apply (sim/managed-fields/), so the three agree.
 *
 * The list and map semantics are upstream's (`x-kubernetes-list-type`, `-list-map-keys`,
 * `-map-type`, `-patch-merge-key`, `-patch-strategy` on the same fields); `zero` marks the fields
 * Go always serialises (not `omitempty`, not a pointer), which the API server's objects therefore
 * always carry: it decides whether a field set names a container itself (`.`) when a write adds
 * it, as upstream's field sets do.
 */

/** A group/version/kind, as `x-kubernetes-group-version-kind` lists it. */
export interface GroupVersionKind {
  readonly group: string;
  readonly version: string;
  readonly kind: string;
}

/** The type of one field. */
export type FieldType =
  | { readonly kind: 'string' | 'integer' | 'number' | 'boolean'; readonly format?: string; readonly enum?: readonly string[] }
  /** A named definition (a struct, or a named scalar such as Time or Quantity). */
  | { readonly kind: 'ref'; readonly name: string }
  /** A map of string keys to values of one type (labels, annotations, resource lists). */
  | { readonly kind: 'map'; readonly values: FieldType; readonly atomic?: boolean }
  | {
      readonly kind: 'list';
      readonly items: FieldType;
      /** How writes merge it: replaced whole, a set of scalars, or items identified by `keys`. */
      readonly listType: 'atomic' | 'set' | 'map';
      readonly keys?: readonly string[];
      /** Strategic merge patch: `merge` with `mergeKey`, or `merge,retainKeys`. */
      readonly patchStrategy?: string;
      readonly patchMergeKey?: string;
    }
  /** An object the simulator stores as given and does not describe field by field. */
  | { readonly kind: 'object' };

/** One field of a struct. */
export interface FieldDef {
  readonly type: FieldType;
  readonly description: string;
  readonly required?: boolean;
  /** Present in every object the API server holds (Go serialises it even when empty). */
  readonly zero?: boolean;
  /** The value the API server defaults it to (listed in the document; completes list-map keys). */
  readonly default?: unknown;
}

/** A named definition: a struct (`properties`), a named scalar (`scalar`), or, with neither, an object kept as given. */
export interface Definition {
  /** Upstream's definition name, e.g. `io.k8s.api.core.v1.Service`. */
  readonly name: string;
  readonly description: string;
  readonly properties?: Readonly<Record<string, FieldDef>>;
  readonly scalar?: { readonly type: 'string' | 'integer' | 'number'; readonly format?: string };
  /** A struct replaced whole by writes (`x-kubernetes-map-type: atomic`). */
  readonly atomic?: boolean;
  /** The kinds it is the schema of (top-level objects only). */
  readonly gvk?: readonly GroupVersionKind[];
}

const META = 'io.k8s.apimachinery.pkg.apis.meta.v1';

/** Definition names shared by every group. */
export const NAMES = {
  objectMeta: `${META}.ObjectMeta`,
  listMeta: `${META}.ListMeta`,
  time: `${META}.Time`,
  microTime: `${META}.MicroTime`,
  labelSelector: `${META}.LabelSelector`,
  patch: `${META}.Patch`,
  status: `${META}.Status`,
  deleteOptions: `${META}.DeleteOptions`,
  quantity: 'io.k8s.apimachinery.pkg.api.resource.Quantity',
  intOrString: 'io.k8s.apimachinery.pkg.util.intstr.IntOrString',
} as const;

// --- Field builders -------------------------------------------------------------------------

/** A string field. */
export function str(description: string, extra: { enum?: readonly string[]; default?: string; required?: boolean } = {}): FieldDef {
  const type: FieldType = extra.enum ? { kind: 'string', enum: extra.enum } : { kind: 'string' };
  return { type, description, ...(extra.default !== undefined ? { default: extra.default } : {}), ...(extra.required ? { required: true } : {}) };
}

/** A 32-bit integer field. */
export function int32(description: string, extra: { default?: number; required?: boolean } = {}): FieldDef {
  return { type: { kind: 'integer', format: 'int32' }, description, ...extra };
}

/** A 64-bit integer field. */
export function int64(description: string): FieldDef {
  return { type: { kind: 'integer', format: 'int64' }, description };
}

/** A boolean field. */
export function bool(description: string): FieldDef {
  return { type: { kind: 'boolean' }, description };
}

/** A field of a named definition. */
export function ref(name: string, description: string, extra: { required?: boolean; zero?: boolean } = {}): FieldDef {
  return { type: { kind: 'ref', name }, description, ...extra };
}

/** A timestamp field (RFC 3339). */
export function time(description: string): FieldDef {
  return ref(NAMES.time, description);
}

/** A map of strings (`atomic`: replaced whole by writes). */
export function strMap(description: string, atomic = false): FieldDef {
  return { type: { kind: 'map', values: { kind: 'string' }, ...(atomic ? { atomic: true } : {}) }, description };
}

/** A map of resource quantities. */
export function quantities(description: string): FieldDef {
  return { type: { kind: 'map', values: { kind: 'ref', name: NAMES.quantity } }, description };
}

/** A list replaced whole by writes. */
export function atomicList(items: FieldType, description: string, extra: { zero?: boolean } = {}): FieldDef {
  return { type: { kind: 'list', items, listType: 'atomic' }, description, ...extra };
}

/** A list of strings merged as a set. */
export function stringSet(description: string, patchStrategy?: string): FieldDef {
  return { type: { kind: 'list', items: { kind: 'string' }, listType: 'set', ...(patchStrategy ? { patchStrategy } : {}) }, description };
}

/** A list of structs identified by `keys`; a strategic merge patch merges it by `mergeKey`. */
export function keyedList(
  itemName: string,
  keys: readonly string[],
  description: string,
  extra: { mergeKey?: string; patchStrategy?: string; zero?: boolean; required?: boolean } = {},
): FieldDef {
  const mergeKey = extra.mergeKey ?? keys[0];
  return {
    type: {
      kind: 'list', items: { kind: 'ref', name: itemName }, listType: 'map', keys,
      patchStrategy: extra.patchStrategy ?? 'merge', ...(mergeKey !== undefined ? { patchMergeKey: mergeKey } : {}),
    },
    description,
    ...(extra.zero ? { zero: true } : {}),
    ...(extra.required ? { required: true } : {}),
  };
}

/** A field the simulator keeps as given without describing its inside. */
export function opaque(description: string): FieldDef {
  return { type: { kind: 'object' }, description };
}

/** A list of objects the simulator keeps as given (replaced whole by writes). */
export function opaqueList(description: string): FieldDef {
  return atomicList({ kind: 'object' }, description);
}

/** Marks a field as always present (Go serialises it even when empty). */
export function zero(field: FieldDef): FieldDef {
  return { ...field, zero: true };
}

/** Marks a field as required. */
export function required(field: FieldDef): FieldDef {
  return { ...field, required: true };
}

/** The three fields every top-level kind starts with. */
export function kindHeader(): Record<string, FieldDef> {
  return {
    apiVersion: str('The versioned schema of this representation of the object (group/version).'),
    kind: str('The type of the object, in CamelCase.'),
    metadata: zero(ref(NAMES.objectMeta, 'Standard object metadata: name, namespace, labels, annotations, owners, managedFields.')),
  };
}

/** A struct definition. */
export function struct(name: string, description: string, properties: Record<string, FieldDef>, extra: { atomic?: boolean; gvk?: GroupVersionKind[] } = {}): Definition {
  return { name, description, properties, ...extra };
}

/** A top-level kind: `apiVersion`, `kind`, `metadata` and the given fields. */
export function kindDef(name: string, gvk: GroupVersionKind, description: string, properties: Record<string, FieldDef>): Definition {
  return { name, description, properties: { ...kindHeader(), ...properties }, gvk: [gvk] };
}
