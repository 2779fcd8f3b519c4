/**
 * The store's key order per kind (etcd's `namespace/name` order, which paged lists walk),
 * maintained lazily: writes only note inserted and deleted keys, and the next read merges them
 * into the sorted array — creating 150k pods costs one sort at the next list rather than a sorted
 * insert per write.
 */

/** First index in `sorted` whose key is >= `key` (or > when `strict`). */
export function bound(sorted: readonly string[], key: string, strict: boolean): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const k = sorted[mid] as string;
    if (k < key || (strict && k === key)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The sorted keys of one kind, with the changes since the last read pending. */
export class KeyOrder {
  private sorted: string[] = [];
  private readonly pendingInserts = new Set<string>();
  private readonly pendingDeletes = new Set<string>();

  /** A key now holds an object (it did not before). */
  insert(key: string): void {
    if (this.pendingDeletes.has(key)) this.pendingDeletes.delete(key);
    else this.pendingInserts.add(key);
  }

  /** A key no longer holds an object. */
  remove(key: string): void {
    if (this.pendingInserts.has(key)) this.pendingInserts.delete(key);
    else this.pendingDeletes.add(key);
  }

  /** Replaces every key (a store loaded whole). */
  reset(keys: Iterable<string>): void {
    this.sorted = [...keys].sort();
    this.pendingInserts.clear();
    this.pendingDeletes.clear();
  }

  /** The keys in order, pending changes merged in first. */
  keys(): readonly string[] {
    if (this.pendingDeletes.size > 0) {
      const deletes = this.pendingDeletes;
      this.sorted = this.sorted.filter((k) => !deletes.has(k));
      deletes.clear();
    }
    if (this.pendingInserts.size > 0) {
      const inserts = [...this.pendingInserts].sort();
      this.pendingInserts.clear();
      const old = this.sorted;
      const merged = new Array<string>(old.length + inserts.length);
      let i = 0;
      let j = 0;
      let k = 0;
      while (i < old.length && j < inserts.length) {
        const a = old[i] as string;
        const b = inserts[j] as string;
        if (a < b) {
          merged[k++] = a;
          i++;
        } else {
          merged[k++] = b;
          j++;
        }
      }
      while (i < old.length) merged[k++] = old[i++] as string;
      while (j < inserts.length) merged[k++] = inserts[j++] as string;
      this.sorted = merged;
    }
    return this.sorted;
  }
}
