/**
 * Schema-aware walks over objects, after structured-merge-diff's typed package
 * (sigs.k8s.io/structured-merge-diff typed/tofieldset.go, typed.go `Compare`, merge.go,
 * remove.go): the field set an object mentions, what changed between two objects, the merge of
 * an applied configuration into a live object, and the removal of items. The types come from
 * the simulator's schema table (sim/openapi/).
 *
 * Structs list their fields; maps (labels, annotations) are granular, their keys field names;
 * lists are atomic, sets (`v:` items) or maps (`k:` items by their key fields, completed with the
 * fields' defaults); atomic structs, maps and lists are leaves. Parts the table keeps as opaque
 * objects are "deduced" as upstream deduces untyped values: objects granular, lists atomic.
 * Fields that Go always serialises (`zero` in the table) count as present when absent, so a
 * write adding one does not own the container itself — as on a real API server, whose objects
 * always carry them.
 */
import { definition } from '../openapi/definitions';
import type { FieldDef, FieldType } from '../openapi/schema';
import { deepEqual, isRecord } from '../types';
import { FieldSet, fieldElement, indexElement, keyElement, pathString, valueElement } from './field-set';

/** A type resolved for walking. */
type Node =
  | { readonly kind: 'leaf' }
  | { readonly kind: 'struct'; readonly fields: Readonly<Record<string, FieldDef>>; readonly atomic: boolean }
  | { readonly kind: 'map'; readonly values: FieldType; readonly atomic: boolean }
  | { readonly kind: 'list'; readonly items: FieldType; readonly listType: 'atomic' | 'set' | 'map'; readonly keys: readonly string[] }
  | { readonly kind: 'deduced' };

function resolve(type: FieldType): Node {
  switch (type.kind) {
    case 'string':
    case 'integer':
    case 'number':
    case 'boolean':
      return { kind: 'leaf' };
    case 'ref': {
      const def = definition(type.name);
      if (def.scalar !== undefined) return { kind: 'leaf' };
      if (def.properties === undefined) return { kind: 'deduced' };
      return { kind: 'struct', fields: def.properties, atomic: def.atomic === true };
    }
    case 'map':
      return { kind: 'map', values: type.values, atomic: type.atomic === true };
    case 'list':
      return { kind: 'list', items: type.items, listType: type.listType, keys: type.keys ?? [] };
    case 'object':
      return { kind: 'deduced' };
  }
}

const DEDUCED: FieldType = { kind: 'object' };

/** Whether a node is a leaf for this value (atomic containers, scalars, deduced non-objects). */
function isLeaf(node: Node, value: unknown): boolean {
  switch (node.kind) {
    case 'leaf':
      return true;
    case 'struct':
    case 'map':
      return node.atomic;
    case 'list':
      return node.listType === 'atomic';
    case 'deduced':
      return value !== undefined && value !== null && !isRecord(value);
  }
}

function isEmptyContainer(value: unknown): boolean {
  return value === undefined || value === null || (isRecord(value) && Object.keys(value).length === 0) || (Array.isArray(value) && value.length === 0);
}

/** The type of a struct or map child: `undefined` for a field a struct does not declare. */
function childType(node: Node, key: string): FieldType | undefined {
  if (node.kind === 'struct') return node.fields[key]?.type;
  if (node.kind === 'map') return node.values;
  return DEDUCED;
}

/** The value Go's zero object has for a field the table marks `zero`. */
function zeroValue(type: FieldType): unknown {
  const node = resolve(type);
  if (node.kind === 'struct') {
    const out: Record<string, unknown> = {};
    for (const [name, field] of Object.entries(node.fields)) if (field.zero) out[name] = zeroValue(field.type);
    return out;
  }
  if (node.kind === 'deduced') return {};
  return null;
}

/** A struct's child as a Go round trip would have it: absent `zero` fields are present (empty). */
function structChild(node: Node, parent: unknown, key: string): unknown {
  if (!isRecord(parent)) return undefined;
  if (key in parent) return parent[key];
  if (node.kind === 'struct') {
    const field = node.fields[key];
    if (field?.zero) return zeroValue(field.type);
  }
  return undefined;
}

function childKeys(node: Node, ...values: unknown[]): string[] {
  const keys = new Set<string>();
  for (const value of values) if (isRecord(value)) for (const k of Object.keys(value)) keys.add(k);
  if (node.kind === 'struct' && values.some((v) => isRecord(v))) {
    for (const [name, field] of Object.entries(node.fields)) if (field.zero) keys.add(name);
  }
  return [...keys];
}

/** A schema problem in a value (an undeclared field, a list item without its keys). */
export class SchemaError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SchemaError';
  }
}

/** The path element of a list item. */
function itemElement(list: Extract<Node, { kind: 'list' }>, item: unknown, index: number, path: readonly string[]): string {
  if (list.listType === 'set') return valueElement(item);
  if (list.listType === 'map' && list.keys.length > 0) {
    const itemNode = resolve(list.items);
    const fields = itemNode.kind === 'struct' ? itemNode.fields : {};
    const keys: Record<string, unknown> = {};
    for (const key of list.keys) {
      const value = isRecord(item) ? item[key] : undefined;
      const fallback = fields[key]?.default;
      if (value !== undefined && value !== null) keys[key] = value;
      else if (fallback !== undefined) keys[key] = fallback;
      else throw new SchemaError(`${pathString(path)}: element ${index}: associative list with keys has an element that omits key field ${JSON.stringify(key)} (and doesn't have default value)`);
    }
    return keyElement(keys);
  }
  return indexElement(index);
}

/** Items of a list by element, first occurrence wins, in order. */
function indexItems(list: Extract<Node, { kind: 'list' }>, value: unknown, path: readonly string[], lenient: boolean): { order: string[]; items: Map<string, unknown> } {
  const order: string[] = [];
  const items = new Map<string, unknown>();
  if (!Array.isArray(value)) return { order, items };
  value.forEach((item, index) => {
    let element: string;
    try {
      element = itemElement(list, item, index, path);
    } catch (error) {
      if (!lenient) throw error;
      element = indexElement(index);
    }
    if (items.has(element)) return;
    items.set(element, item);
    order.push(element);
  });
  return { order, items };
}

/**
 * The field set a (partial) object mentions, as structured-merge-diff's ToFieldSet builds it for
 * an applied configuration: every leaf, every list item, and map keys the type does not declare.
 * `lenient` (for stored objects) deduces undeclared fields and numbers keyed items without their
 * keys instead of failing.
 * @throws SchemaError for a field the schema does not declare, or a keyed item without its keys.
 */
export function toFieldSet(value: unknown, type: FieldType, lenient = false): FieldSet {
  const set = new FieldSet();
  const walk = (v: unknown, t: FieldType, path: string[]): void => {
    const node = resolve(t);
    if (isLeaf(node, v)) {
      set.insert(path);
      return;
    }
    if (v === null || v === undefined) return;
    if (node.kind === 'list') {
      const { order, items } = indexItems(node, v, path, lenient);
      for (const element of order) {
        const itemPath = [...path, element];
        walk(items.get(element), node.items, itemPath);
        set.insert(itemPath);
      }
      return;
    }
    if (!isRecord(v)) {
      set.insert(path);
      return;
    }
    for (const [key, child] of Object.entries(v)) {
      const declared = childType(node, key);
      const childPath = [...path, fieldElement(key)];
      if (declared === undefined && !lenient) throw new SchemaError(`${pathString(childPath)}: field not declared in schema`);
      walk(child, declared ?? DEDUCED, childPath);
      if (child === null || (isRecord(child) && Object.keys(child).length === 0) || node.kind !== 'struct' || declared === undefined) set.insert(childPath);
    }
  };
  walk(value, type, []);
  return set;
}

/** What changed between two objects (structured-merge-diff's Comparison). */
export interface Comparison {
  readonly added: FieldSet;
  readonly modified: FieldSet;
  readonly removed: FieldSet;
}

/**
 * Compares two objects of a type: leaves added, removed or modified, and containers (map keys,
 * list items, optional structs) that appeared or disappeared. Keyed items without their keys
 * are compared by position rather than failing.
 */
export function compare(lhs: unknown, rhs: unknown, type: FieldType): Comparison {
  const added = new FieldSet();
  const modified = new FieldSet();
  const removed = new FieldSet();
  const walk = (l: unknown, r: unknown, t: FieldType, path: string[]): void => {
    const node = resolve(t);
    const leaf = isLeaf(node, l) || isLeaf(node, r) || (isEmptyContainer(l) && isEmptyContainer(r));
    const shapeMismatch = !leaf && ((l !== undefined && l !== null && !(node.kind === 'list' ? Array.isArray(l) : isRecord(l))) || (r !== undefined && r !== null && !(node.kind === 'list' ? Array.isArray(r) : isRecord(r))));
    if (leaf || shapeMismatch) {
      if (l === undefined) added.insert(path);
      else if (r === undefined) removed.insert(path);
      else if (!deepEqual(l, r)) modified.insert(path);
      return;
    }
    if (node.kind === 'list') {
      const left = indexItems(node, l, path, true);
      const right = indexItems(node, r, path, true);
      const elements = [...left.order, ...right.order.filter((e) => !left.items.has(e))];
      for (const element of elements) walk(left.items.get(element), right.items.get(element), node.items, [...path, element]);
    } else {
      for (const key of childKeys(node, l, r)) {
        const ct = childType(node, key) ?? DEDUCED;
        walk(structChild(node, l, key), structChild(node, r, key), ct, [...path, fieldElement(key)]);
      }
    }
    if (l === undefined) added.insert(path);
    else if (r === undefined) removed.insert(path);
  };
  walk(lhs, rhs, type, []);
  return { added, modified, removed };
}

/**
 * Merges an applied configuration into a live object (structured-merge-diff's Merge): the
 * configuration's leaves win, maps and structs merge key by key, keyed lists and sets merge item
 * by item (in the configuration's order where it names items, the live order otherwise),
 * atomic values are replaced. Nothing is removed.
 */
export function merge(live: unknown, config: unknown, type: FieldType): unknown {
  if (config === undefined) return live;
  if (live === undefined) return structuredClone(config);
  const node = resolve(type);
  if (isLeaf(node, live) || isLeaf(node, config) || (isEmptyContainer(live) && isEmptyContainer(config))) return structuredClone(config);
  if (node.kind === 'list') {
    if (!Array.isArray(live) || !Array.isArray(config)) return structuredClone(config);
    return mergeList(node, live, config);
  }
  if (!isRecord(live) || !isRecord(config)) return structuredClone(config);
  const out: Record<string, unknown> = { ...live };
  for (const [key, value] of Object.entries(config)) out[key] = merge(live[key], value, childType(node, key) ?? DEDUCED);
  return out;
}

function mergeList(node: Extract<Node, { kind: 'list' }>, live: unknown[], config: unknown[]): unknown[] {
  const lhs = indexItems(node, live, [], true);
  const rhs = indexItems(node, config, [], true);
  const shared = rhs.order.filter((e) => lhs.items.has(e));
  let nextShared: string | undefined = shared.shift();
  const out: unknown[] = [];
  const take = (element: string): void => {
    out.push(merge(lhs.items.get(element), rhs.items.get(element), node.items));
  };
  let l = 0;
  let r = 0;
  while (l < lhs.order.length || r < rhs.order.length) {
    if (l < lhs.order.length && r < rhs.order.length) {
      const element = lhs.order[l] as string;
      if (element === rhs.order[r]) {
        take(element);
        l++;
        r++;
        nextShared = shared.shift();
        continue;
      }
      if (rhs.items.has(element) && nextShared !== undefined && nextShared !== element) {
        l++;
        continue;
      }
    }
    if (l < lhs.order.length) {
      const element = lhs.order[l] as string;
      if (!rhs.items.has(element)) {
        out.push(structuredClone(lhs.items.get(element)));
        l++;
        continue;
      }
    }
    if (r < rhs.order.length) {
      const element = rhs.order[r] as string;
      take(element);
      r++;
      if (nextShared === element) nextShared = shared.shift();
      continue;
    }
    l++;
  }
  return out;
}

/**
 * The value without the map keys, struct fields and list items the set names (with everything
 * under them); structured-merge-diff's RemoveItems.
 */
export function removeItems(value: unknown, set: FieldSet, type: FieldType): unknown {
  if (set.isEmpty()) return value;
  const node = resolve(type);
  if (isLeaf(node, value) || value === null || value === undefined) return value;
  if (node.kind === 'list') {
    if (!Array.isArray(value)) return value;
    const out: unknown[] = [];
    value.forEach((item, index) => {
      let element: string;
      try {
        element = itemElement(node, item, index, []);
      } catch {
        element = indexElement(index);
      }
      const child = set.children.get(element);
      if (child?.member) return;
      out.push(child === undefined ? item : removeItems(item, child, node.items));
    });
    return out;
  }
  if (!isRecord(value)) return value;
  const out: Record<string, unknown> = {};
  for (const [key, child] of Object.entries(value)) {
    const sub = set.children.get(fieldElement(key));
    if (sub?.member) continue;
    out[key] = sub === undefined ? child : removeItems(child, sub, childType(node, key) ?? DEDUCED);
  }
  return out;
}

/**
 * The fields of a value its type does not declare, as Go's strict decoding names them
 * (`spec.ports[0].nodeport`): what `fieldValidation=Strict` rejects and `Warn` warns about.
 */
export function unknownFields(value: unknown, type: FieldType): string[] {
  const out: string[] = [];
  const walk = (v: unknown, t: FieldType, path: string): void => {
    const node = resolve(t);
    if (node.kind === 'leaf' || node.kind === 'deduced') return;
    if (node.kind === 'list') {
      if (Array.isArray(v)) v.forEach((item, i) => walk(item, node.items, `${path}[${i}]`));
      return;
    }
    if (!isRecord(v)) return;
    for (const [key, child] of Object.entries(v)) {
      const childPath = path === '' ? key : `${path}.${key}`;
      const ct = childType(node, key);
      if (ct === undefined) out.push(childPath);
      else walk(child, ct, childPath);
    }
  };
  walk(value, type, '');
  return out;
}
