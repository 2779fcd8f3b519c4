/**
 * Field sets as structured-merge-diff keeps them (sigs.k8s.io/structured-merge-diff, fieldpath):
 * a trie of path elements, each node possibly a member itself. Path elements are kept in their
 * FieldsV1 spelling — `f:<field>`, `k:<JSON of the key fields>`, `v:<JSON value>`, `i:<index>` —
 * so a set is written as FieldsV1 directly: a member with children carries `".": {}`, a member
 * without children is `{}`.
 */
import { isRecord } from '../types';

/** A field name element (`f:name`); map keys are field names too. */
export function fieldElement(name: string): string {
  return `f:${name}`;
}

function sortedJson(value: unknown): string {
  if (isRecord(value)) {
    const keys = Object.keys(value).sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${sortedJson(value[k])}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** A list item identified by its key fields (`k:{"port":80,"protocol":"TCP"}`, keys sorted). */
export function keyElement(keys: Record<string, unknown>): string {
  return `k:${sortedJson(keys)}`;
}

/** A set item (`v:"value"`). */
export function valueElement(value: unknown): string {
  return `v:${sortedJson(value)}`;
}

/** A list item by position (lists without keys that are not atomic; rare). */
export function indexElement(index: number): string {
  return `i:${index}`;
}

const TYPE_ORDER: Readonly<Record<string, number>> = { f: 0, k: 1, v: 2, i: 3 };

/** structured-merge-diff's order of path elements: fields, then keys, values, indexes. */
export function compareElements(a: string, b: string): number {
  const ta = TYPE_ORDER[a.charAt(0)] ?? 4;
  const tb = TYPE_ORDER[b.charAt(0)] ?? 4;
  if (ta !== tb) return ta - tb;
  if (a.startsWith('i:') && b.startsWith('i:')) return Number(a.slice(2)) - Number(b.slice(2));
  return a < b ? -1 : a > b ? 1 : 0;
}

function valueString(value: unknown): string {
  return typeof value === 'string' ? JSON.stringify(value) : sortedJson(value);
}

/** One element as structured-merge-diff prints paths: `.name`, `[port=80,protocol="TCP"]`, `[=value]`, `[3]`. */
export function elementString(element: string): string {
  const body = element.slice(2);
  switch (element.slice(0, 2)) {
    case 'f:':
      return `.${body}`;
    case 'k:': {
      let keys: unknown;
      try {
        keys = JSON.parse(body) as unknown;
      } catch {
        return `[${body}]`;
      }
      if (!isRecord(keys)) return `[${body}]`;
      return `[${Object.keys(keys).sort().map((k) => `${k}=${valueString(keys[k])}`).join(',')}]`;
    }
    case 'v:': {
      try {
        return `[=${valueString(JSON.parse(body))}]`;
      } catch {
        return `[=${body}]`;
      }
    }
    case 'i:':
      return `[${body}]`;
    default:
      return element;
  }
}

/** A path as structured-merge-diff prints it (`.metadata.annotations.service.kubernetes.io/topology-mode`). */
export function pathString(path: readonly string[]): string {
  return path.map(elementString).join('');
}

/** A set of paths (immutable by convention: the operations return new sets). */
export class FieldSet {
  member = false;
  readonly children = new Map<string, FieldSet>();

  /** A set of these paths. */
  static of(...paths: (readonly string[])[]): FieldSet {
    const set = new FieldSet();
    for (const path of paths) set.insert(path);
    return set;
  }

  /** Adds a path (mutates: for building sets). */
  insert(path: readonly string[]): void {
    if (path.length === 0) {
      this.member = true;
      return;
    }
    const [first, ...rest] = path as [string, ...string[]];
    let next = this.children.get(first);
    if (next === undefined) {
      next = new FieldSet();
      this.children.set(first, next);
    }
    next.insert(rest);
  }

  /** The node under a path, if any. */
  at(path: readonly string[]): FieldSet | undefined {
    if (path.length === 0) return this;
    const [first, ...rest] = path as [string, ...string[]];
    return this.children.get(first)?.at(rest);
  }

  /** Whether a path is a member. */
  has(path: readonly string[]): boolean {
    return this.at(path)?.member === true;
  }

  /** Whether the set has no member. */
  isEmpty(): boolean {
    if (this.member) return false;
    for (const child of this.children.values()) if (!child.isEmpty()) return false;
    return true;
  }

  private static combine(a: FieldSet | undefined, b: FieldSet | undefined, member: (x: boolean, y: boolean) => boolean, keep: 'a' | 'both' | 'either'): FieldSet {
    const out = new FieldSet();
    out.member = member(a?.member === true, b?.member === true);
    const keys = new Set<string>();
    if (a) for (const k of a.children.keys()) keys.add(k);
    if (b && keep === 'either') for (const k of b.children.keys()) keys.add(k);
    for (const key of keys) {
      const ca = a?.children.get(key);
      const cb = b?.children.get(key);
      if (keep === 'both' && (ca === undefined || cb === undefined)) continue;
      const child = FieldSet.combine(ca, cb, member, keep);
      if (!child.isEmpty()) out.children.set(key, child);
    }
    return out;
  }

  /** Members of either set. */
  union(other: FieldSet): FieldSet {
    return FieldSet.combine(this, other, (x, y) => x || y, 'either');
  }

  /** Members of this set that are not members of `other`. */
  difference(other: FieldSet): FieldSet {
    return FieldSet.combine(this, other, (x, y) => x && !y, 'a');
  }

  /** Members of both sets. */
  intersection(other: FieldSet): FieldSet {
    return FieldSet.combine(this, other, (x, y) => x && y, 'both');
  }

  /** Whether both sets have the same members. */
  equals(other: FieldSet): boolean {
    return this.difference(other).isEmpty() && other.difference(this).isEmpty();
  }

  /** Every member path, in structured-merge-diff's order (a node before its children). */
  paths(): string[][] {
    const out: string[][] = [];
    const walk = (node: FieldSet, prefix: string[]): void => {
      if (node.member) out.push(prefix);
      for (const key of [...node.children.keys()].sort(compareElements)) walk(node.children.get(key) as FieldSet, [...prefix, key]);
    };
    walk(this, []);
    return out;
  }

  /** The FieldsV1 form. */
  toFieldsV1(): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    const keys = [...this.children.keys()].sort(compareElements);
    if (this.member && keys.length > 0) out['.'] = {};
    for (const key of keys) {
      const child = this.children.get(key) as FieldSet;
      if (child.isEmpty()) continue;
      out[key] = child.toFieldsV1();
    }
    return out;
  }

  /**
   * Reads a FieldsV1 object.
   * @throws Error when it is not a trie of objects with known element prefixes.
   */
  static fromFieldsV1(fields: unknown): FieldSet {
    const set = new FieldSet();
    const read = (value: unknown, node: FieldSet): void => {
      if (!isRecord(value)) throw new Error('FieldsV1 entries must be objects');
      for (const [key, child] of Object.entries(value)) {
        if (key === '.') {
          node.member = true;
          continue;
        }
        const prefix = key.slice(0, 2);
        if (prefix !== 'f:' && prefix !== 'k:' && prefix !== 'v:' && prefix !== 'i:') throw new Error(`unknown FieldsV1 path element ${JSON.stringify(key)}`);
        let element = key;
        if (prefix === 'k:' || prefix === 'v:') {
          try {
            element = `${prefix}${sortedJson(JSON.parse(key.slice(2)))}`;
          } catch {
            throw new Error(`malformed FieldsV1 path element ${JSON.stringify(key)}`);
          }
        }
        const next = new FieldSet();
        read(child, next);
        if (isRecord(child) && Object.keys(child).length === 0) next.member = true;
        node.children.set(element, next);
      }
    };
    read(fields, set);
    return set;
  }
}
