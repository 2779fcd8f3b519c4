/**
 * The cache of one informer: a type's slim records by `namespace/name` (or `name`), replaced whole
 * by a list and changed one object at a time by watch events. An object whose record did not
 * change keeps the record held, so updates that touch nothing the record keeps change nothing.
 * Every change bumps {@link RecordCache.version} and is told (`onChange(true)`).
 */
import type { RecordById, ResourceDescriptor, ResourceId } from '../resources';
import { cacheKey } from '../resources';
import type { Json } from '../wire-to-record/json';
import { sameRecord } from './same-record';

export class RecordCache<Id extends ResourceId> {
  private map = new Map<string, RecordById[Id]>();
  private memo: { version: number; records: readonly RecordById[Id][] } | null = null;
  private dataVersion = 0;

  constructor(
    private readonly descriptor: ResourceDescriptor<Id>,
    private readonly onChange: (dataChanged: boolean) => void,
  ) {}

  /** Incremented on every change. */
  get version(): number {
    return this.dataVersion;
  }

  /** The records by key. Do not mutate. */
  get records(): ReadonlyMap<string, RecordById[Id]> {
    return this.map;
  }

  get size(): number {
    return this.map.size;
  }

  /** The records as an array, rebuilt only when the cache changed since the last call. */
  items(): readonly RecordById[Id][] {
    if (this.memo === null || this.memo.version !== this.dataVersion) {
      this.memo = { version: this.dataVersion, records: [...this.map.values()] };
    }
    return this.memo.records;
  }

  /** Replaces every record (a list swapped in, or nothing kept after a 403). */
  replace(next: Map<string, RecordById[Id]>): void {
    this.map = next;
    this.changed();
  }

  /** The object added or modified (`present`) or deleted, as a watch event says. */
  apply(object: Json, present: boolean): void {
    const key = cacheKey(object);
    const record = present ? this.descriptor.project(object) : null;
    if (record !== null) {
      // Updates that touch nothing the record keeps (status heartbeats, managed fields…) change nothing.
      const known = this.map.get(key);
      if (known === undefined || !sameRecord(known, record)) {
        this.map.set(key, record);
        this.changed();
      }
    } else if (this.map.delete(key)) {
      this.changed();
    }
  }

  private changed(): void {
    this.dataVersion++;
    this.onChange(true);
  }
}
