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

const strings = new Table<string>();
const stringMaps = new Table<Readonly<Record<string, string>>>();
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
  let key = '';
  for (const name in map) key += `${name}\u0000${map[name]}\u0001`;
  return stringMaps.get(key, () => {
    const shared: Record<string, string> = {};
    for (const name in map) shared[internString(name)] = internString(map[name] as string);
    return Object.freeze(shared);
  });
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
