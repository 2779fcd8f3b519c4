/**
 * Interning for slim records: equal strings (zone, node and namespace names, label values, owner
 * names…) and equal small records (label maps, owner references, endpoint hints) share one copy.
 *
 * At 150,000 pods most record fields repeat — every pod of a ReplicaSet has the same labels and
 * owner, every endpoint of a zone the same hints — so sharing them roughly halves the memory the
 * caches need, and Map lookups keyed by shared strings compare by reference.
 *
 * Shared records are frozen: records are read-only data, and a write would otherwise change every
 * record sharing the object. The tables are bounded: when one outgrows its limit it starts over
 * (records keep what they point to; only future sharing with older copies is lost), so churn that
 * keeps creating new values cannot grow them without bound.
 */

/** Entries a table holds before it starts over. */
export const INTERN_TABLE_LIMIT = 200_000;

class Table<T> {
  private map = new Map<string, T>();

  get(key: string, create: () => T): T {
    const found = this.map.get(key);
    if (found !== undefined) return found;
    if (this.map.size >= INTERN_TABLE_LIMIT) this.map = new Map();
    const value = create();
    this.map.set(key, value);
    return value;
  }

  get size(): number {
    return this.map.size;
  }

  clear(): void {
    this.map.clear();
  }
}

/**
 * Shared string maps, by a hash of their entries. Keyed by hash rather than by the maps' text, so
 * the table holds no key strings of its own: at 150,000 pods those were ~8 MiB of label text
 * kept only to find equal maps. Equal hashes are told apart by comparing entries.
 */
class StringMapTable {
  private map = new Map<number, SharedMap | SharedMap[]>();
  private entries = 0;

  get(map: Record<string, string>): SharedMap {
    const hash = hashStringMap(map);
    const found = this.map.get(hash);
    if (found !== undefined) {
      if (!Array.isArray(found)) {
        if (sameEntries(found, map)) return found;
      } else {
        for (const candidate of found) if (sameEntries(candidate, map)) return candidate;
      }
    }
    if (this.entries >= INTERN_TABLE_LIMIT) this.clear();
    const shared: Record<string, string> = {};
    for (const name in map) shared[internString(name)] = internString(map[name] as string);
    Object.freeze(shared);
    const bucket = this.map.get(hash);
    if (bucket === undefined) this.map.set(hash, shared);
    else if (Array.isArray(bucket)) bucket.push(shared);
    else this.map.set(hash, [bucket, shared]);
    this.entries++;
    return shared;
  }

  get size(): number {
    return this.entries;
  }

  clear(): void {
    this.map = new Map();
    this.entries = 0;
  }
}

type SharedMap = Readonly<Record<string, string>>;

/** FNV-1a over names and values, with separators (so `{a: 'bc'}` and `{ab: 'c'}` differ). */
function hashStringMap(map: Record<string, string>): number {
  let hash = 0x811c9dc5;
  for (const name in map) {
    for (let i = 0; i < name.length; i++) hash = Math.imul(hash ^ name.charCodeAt(i), 0x01000193);
    hash = Math.imul(hash ^ 0x10000, 0x01000193);
    const value = map[name] as string;
    for (let i = 0; i < value.length; i++) hash = Math.imul(hash ^ value.charCodeAt(i), 0x01000193);
    hash = Math.imul(hash ^ 0x10001, 0x01000193);
  }
  return hash;
}

/** Same entries in the same order (key order is kept: it shows in JSON and YAML). */
function sameEntries(shared: SharedMap, map: Record<string, string>): boolean {
  let count = 0;
  for (const name in map) {
    if (shared[name] !== map[name] || !Object.prototype.hasOwnProperty.call(shared, name)) return false;
    count++;
  }
  const names = Object.keys(shared);
  if (names.length !== count) return false;
  let i = 0;
  for (const name in map) if (names[i++] !== name) return false;
  return true;
}

const strings = new Table<string>();
const stringMaps = new StringMapTable();
const objects = new Table<object>();

/** The shared copy of `value`. */
export function internString(value: string): string {
  return strings.get(value, () => value);
}

/** {@link internString}, passing `null` through. */
export function internNullable(value: string | null): string | null {
  return value === null ? null : internString(value);
}

/** The shared (frozen) copy of a string map such as labels, annotations or a selector; keys keep their order. */
export function internStringMap(map: Record<string, string>): Readonly<Record<string, string>> {
  return stringMaps.get(map);
}

/** The shared (deep-frozen) copy of a small JSON-like record, compared by its JSON. */
export function internRecord<T extends object>(value: T): T {
  return objects.get(JSON.stringify(value), () => deepFreeze(value)) as T;
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    for (const inner of Object.values(value)) deepFreeze(inner);
    Object.freeze(value);
  }
  return value;
}

/** Sizes of the tables (diagnostics, tests). */
export function internStats(): { strings: number; stringMaps: number; records: number } {
  return { strings: strings.size, stringMaps: stringMaps.size, records: objects.size };
}

/** Empties the tables (tests). */
export function resetInternTables(): void {
  strings.clear();
  stringMaps.clear();
  objects.clear();
}
