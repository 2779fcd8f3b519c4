/**
 * The simulator's object store: objects per resource kind, one global monotonically increasing
 * resourceVersion assigned on every write, a bounded per-kind event history for watch resume and
 * consistent paged lists, and ordered change notifications.
 *
 * Scale: objects are kept in a map per kind plus a per-namespace index; API lists walk a sorted
 * key array (like etcd's key order `namespace/name`) that is maintained lazily, so creating 150k
 * pods costs one sort at the next list rather than a sorted insert per write
 * (sim/store/key-order.ts). The event history is sim/store/history.ts, the ordered change
 * notifications sim/store/change-feed.ts; this file holds the objects, the writes with their
 * preconditions, and the paged, point-in-time lists.
 *
 * Stored objects are never mutated: every write stores a new object. Callers must treat what they
 * read as immutable (clone before editing).
 */
import { randomUUID } from 'node:crypto';
import type { ResourceKey, StorageDef } from './resources';
import { RESOURCE_KEYS, STORAGE } from './resources';
import { alreadyExists, badRequest, conflict, notFound } from './status';
import { ChangeFeed } from './store/change-feed';
import { EventHistory } from './store/history';
import { bound, KeyOrder } from './store/key-order';
import type { KubeObject } from './types';
import { deepEqual, rfc3339 } from './types';

/** Kind of change. */
export type StoreEventType = 'ADDED' | 'MODIFIED' | 'DELETED';

/** One committed change. */
export interface StoreEvent {
  readonly type: StoreEventType;
  readonly resource: ResourceKey;
  /** The new state; for DELETED the last state, carrying the deletion's resourceVersion. */
  readonly object: KubeObject;
  /** The state before the change (`undefined` for ADDED). */
  readonly previous: KubeObject | undefined;
  /** resourceVersion of this change. */
  readonly resourceVersion: number;
  /** Store key: `namespace/name` or `name`. */
  readonly key: string;
}

/** Receives committed changes, in resourceVersion order. */
export type StoreListener = (event: StoreEvent) => void;

/** Options of {@link ObjectStore}. */
export interface StoreOptions {
  /** Events kept per resource kind for watch resume and paged lists (default 10,000). */
  historySize?: number;
  /** Clock for creationTimestamp (default: the system clock). */
  now?: () => Date;
  /** UID generator (default: random UUIDs). */
  uid?: () => string;
  /** Called when a listener throws (default: logs to stderr). */
  onListenerError?: (error: unknown, event: StoreEvent) => void;
}

/** What {@link ObjectStore.list} returns: one page. */
export interface StoreListPage {
  items: KubeObject[];
  /** resourceVersion the page reflects. */
  resourceVersion: number;
  /** Key of the last item returned (continue from here). */
  lastKey: string | undefined;
  /** Whether keys remain after `lastKey` (the page was cut by the limit). */
  more: boolean;
  /** Items remaining after this page when it is exactly known (no predicate). */
  remainingItemCount: number | undefined;
}

/** Options of {@link ObjectStore.list}. */
export interface StoreListOptions {
  namespace?: string;
  /** Only objects it accepts are returned (selectors). */
  predicate?: (object: KubeObject) => boolean;
  /** Maximum items (0 or absent: all). */
  limit?: number;
  /** Exclusive start key (from a continue token). */
  startAfter?: string;
  /** Reconstruct the state at this resourceVersion (default: now). */
  atResourceVersion?: number;
}

/** Preconditions of updates and deletes. */
export interface WritePreconditions {
  resourceVersion?: string;
  uid?: string;
}

/** Options common to writes. */
export interface WriteOptions {
  /** Validate and compute the result, but do not commit or notify. */
  dryRun?: boolean;
}

interface Table {
  readonly def: StorageDef;
  readonly objects: Map<string, KubeObject>;
  readonly byNamespace: Map<string, Map<string, KubeObject>>;
  readonly keys: KeyOrder;
  readonly history: EventHistory<StoreEvent>;
}

/** The store key of an object: `namespace/name` for namespaced kinds, `name` otherwise. */
export function storeKey(namespaced: boolean, namespace: string | undefined, name: string): string {
  return namespaced ? `${namespace ?? ''}/${name}` : name;
}

/** Top-level fields whose change does not bump metadata.generation. */
const NON_SPEC_FIELDS = new Set(['apiVersion', 'kind', 'metadata', 'status']);

function specChanged(a: KubeObject, b: KubeObject): boolean {
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
  for (const key of keys) if (!NON_SPEC_FIELDS.has(key) && !deepEqual(a[key], b[key])) return true;
  return false;
}

/** The in-memory object store. */
export class ObjectStore {
  private rv = 0;
  private readonly tables: Map<ResourceKey, Table>;
  private readonly feed: ChangeFeed;
  private readonly historySize: number;
  private readonly now: () => Date;
  private readonly newUid: () => string;

  constructor(options: StoreOptions = {}) {
    this.historySize = Math.max(1, Math.floor(options.historySize ?? 10_000));
    this.now = options.now ?? (() => new Date());
    this.newUid = options.uid ?? randomUUID;
    this.feed = new ChangeFeed(
      options.onListenerError ??
        ((error, event) => console.error(`sim: store listener failed on ${event.type} ${event.resource} ${event.key}:`, error)),
    );
    this.tables = new Map(RESOURCE_KEYS.map((key) => [key, this.emptyTable(key)]));
  }

  private emptyTable(key: ResourceKey): Table {
    return {
      def: STORAGE[key],
      objects: new Map(),
      byNamespace: new Map(),
      keys: new KeyOrder(),
      history: new EventHistory(this.historySize, this.rv),
    };
  }

  private table(resource: ResourceKey): Table {
    const table = this.tables.get(resource);
    if (table === undefined) throw new Error(`unknown resource ${String(resource)}`);
    return table;
  }

  /** The current (newest) resourceVersion. */
  get resourceVersion(): number {
    return this.rv;
  }

  /** Number of objects of a kind (optionally in one namespace). */
  count(resource: ResourceKey, namespace?: string): number {
    const table = this.table(resource);
    if (namespace === undefined) return table.objects.size;
    return table.byNamespace.get(namespace)?.size ?? 0;
  }

  /** One object, or `undefined`. */
  get(resource: ResourceKey, namespace: string | undefined, name: string): KubeObject | undefined {
    const table = this.table(resource);
    return table.objects.get(storeKey(table.def.namespaced, namespace, name));
  }

  /** All objects of a kind (optionally one namespace), in no particular order. O(result). */
  all(resource: ResourceKey, namespace?: string): KubeObject[] {
    const table = this.table(resource);
    if (namespace === undefined) return [...table.objects.values()];
    const ns = table.byNamespace.get(namespace);
    return ns ? [...ns.values()] : [];
  }

  /** Namespaces that currently hold objects of a kind. */
  namespacesOf(resource: ResourceKey): string[] {
    return [...this.table(resource).byNamespace.keys()];
  }

  /** Newest resourceVersion that history no longer covers for a kind (watch/list from older → 410). */
  compactedResourceVersion(resource: ResourceKey): number {
    return this.table(resource).history.compactedRV;
  }

  /**
   * Committed events of a kind with resourceVersion greater than `since`, oldest first.
   * @throws HistoryExpiredError when events after `since` were already dropped from history.
   */
  eventsSince(resource: ResourceKey, since: number): StoreEvent[] {
    return this.table(resource).history.since(since, this.rv);
  }

  /**
   * One page of objects in key order, optionally as of an older resourceVersion (reconstructed
   * from history: the consistent snapshot a continue token promises).
   * @throws HistoryExpiredError when `atResourceVersion` is older than history covers.
   */
  list(resource: ResourceKey, options: StoreListOptions = {}): StoreListPage {
    const table = this.table(resource);
    const sorted = table.keys.keys();
    const prefix = table.def.namespaced && options.namespace !== undefined ? `${options.namespace}/` : '';
    const inRange = (key: string): boolean => prefix === '' || key.startsWith(prefix);
    let i = prefix === '' ? 0 : bound(sorted, prefix, false);
    if (options.startAfter !== undefined) i = Math.max(i, bound(sorted, options.startAfter, true));
    const limit = options.limit !== undefined && options.limit > 0 ? options.limit : Infinity;
    const at = options.atResourceVersion !== undefined && options.atResourceVersion < this.rv ? options.atResourceVersion : undefined;

    // 1. Undo the changes made after `at`: the first event per key after it holds the old state.
    let overrides: Map<string, KubeObject | null> | undefined;
    let extras: string[] = [];
    if (at !== undefined) {
      const events = this.eventsSince(resource, at);
      if (events.length > 0) {
        overrides = new Map();
        for (const event of events) if (!overrides.has(event.key)) overrides.set(event.key, event.previous ?? null);
        for (const [key, value] of overrides) {
          if (value !== null && !table.objects.has(key) && inRange(key) && (options.startAfter === undefined || key > options.startAfter)) {
            extras.push(key);
          }
        }
        extras = extras.sort();
      }
    }

    // 2. Merge-walk current keys and keys deleted since `at`, in order.
    const items: KubeObject[] = [];
    let j = 0;
    let lastKey: string | undefined;
    const hasNext = (): boolean => (i < sorted.length && inRange(sorted[i] as string)) || j < extras.length;
    while (items.length < limit && hasNext()) {
      const a = i < sorted.length && inRange(sorted[i] as string) ? (sorted[i] as string) : undefined;
      const b = extras[j];
      let key: string;
      if (a !== undefined && (b === undefined || a < b)) {
        key = a;
        i++;
      } else {
        key = b as string;
        j++;
      }
      const object = overrides?.has(key) ? overrides.get(key) : table.objects.get(key);
      lastKey = key;
      if (object === null || object === undefined) continue;
      if (options.predicate !== undefined && !options.predicate(object)) continue;
      items.push(object);
    }
    const more = hasNext();
    let remainingItemCount: number | undefined;
    if (more && options.predicate === undefined && overrides === undefined) {
      const end = prefix === '' ? sorted.length : bound(sorted, `${prefix.slice(0, -1)}0`, false);
      remainingItemCount = end - i;
    }
    return { items, resourceVersion: at ?? this.rv, lastKey, more, remainingItemCount };
  }

  /**
   * Creates an object. Assigns uid, creationTimestamp and (for kinds with generations) generation 1
   * unless `keepIdentity` is set and they are present (it also keeps a deletionTimestamp), and
   * always a new resourceVersion.
   * Takes ownership of `object` (do not touch it afterwards).
   * @throws ApiError AlreadyExists.
   */
  create(resource: ResourceKey, object: KubeObject, options: WriteOptions & { keepIdentity?: boolean } = {}): KubeObject {
    const table = this.table(resource);
    const { def } = table;
    const metadata = object.metadata;
    if (def.namespaced && !metadata.namespace) throw badRequest(`${def.kind} "${metadata.name}": a namespace is required`);
    if (!def.namespaced) delete metadata.namespace;
    if (!metadata.name) throw badRequest(`${def.kind}: metadata.name is required`);
    const key = storeKey(def.namespaced, metadata.namespace, metadata.name);
    if (table.objects.has(key)) throw alreadyExists({ group: def.group, resource, name: metadata.name });
    if (!options.keepIdentity || !metadata.uid) metadata.uid = this.newUid();
    if (!options.keepIdentity || !metadata.creationTimestamp) metadata.creationTimestamp = rfc3339(this.now());
    if (!def.generation) delete metadata.generation;
    else if (!options.keepIdentity || typeof metadata.generation !== 'number') metadata.generation = 1;
    // A loaded dump keeps its terminating objects terminating; a new object is never being deleted.
    if (!options.keepIdentity) delete metadata.deletionTimestamp;
    if (options.dryRun) {
      metadata.resourceVersion = String(this.rv);
      return object;
    }
    const rv = ++this.rv;
    metadata.resourceVersion = String(rv);
    this.put(table, key, object);
    table.keys.insert(key);
    this.record(table, { type: 'ADDED', resource, object, previous: undefined, resourceVersion: rv, key });
    return object;
  }

  /**
   * Replaces an object. `metadata.resourceVersion` of the new object (if set) and
   * `preconditions` must match the stored object, else 409 Conflict. uid and creationTimestamp
   * are kept; for kinds with generations it is bumped when anything outside metadata/status changed. An update that
   * changes nothing commits nothing and returns the stored object. Takes ownership of `object`.
   * @throws ApiError NotFound or Conflict.
   */
  update(resource: ResourceKey, object: KubeObject, options: WriteOptions & { preconditions?: WritePreconditions } = {}): KubeObject {
    const table = this.table(resource);
    const { def } = table;
    const metadata = object.metadata;
    if (!def.namespaced) delete metadata.namespace;
    const key = storeKey(def.namespaced, metadata.namespace, metadata.name);
    const old = table.objects.get(key);
    const target = { group: def.group, resource, name: metadata.name };
    if (old === undefined) throw notFound(target);
    const wantedRV = metadata.resourceVersion || options.preconditions?.resourceVersion;
    if (wantedRV && wantedRV !== old.metadata.resourceVersion) throw conflict(target);
    const wantedUid = options.preconditions?.uid;
    if (wantedUid && wantedUid !== old.metadata.uid) {
      throw conflict(target, `Precondition failed: UID in precondition: ${wantedUid}, UID in object meta: ${old.metadata.uid ?? ''}`);
    }
    metadata.uid = old.metadata.uid;
    metadata.creationTimestamp = old.metadata.creationTimestamp;
    metadata.resourceVersion = old.metadata.resourceVersion;
    if (def.generation) {
      const generation = old.metadata.generation ?? 1;
      metadata.generation = specChanged(old, object) ? generation + 1 : generation;
    } else {
      delete metadata.generation;
    }
    if (old.metadata.deletionTimestamp !== undefined) metadata.deletionTimestamp = old.metadata.deletionTimestamp;
    if (options.dryRun) return object;
    if (deepEqual(old, object)) return old;
    const rv = ++this.rv;
    metadata.resourceVersion = String(rv);
    this.put(table, key, object);
    this.record(table, { type: 'MODIFIED', resource, object, previous: old, resourceVersion: rv, key });
    return object;
  }

  /**
   * Deletes an object (immediately: no finalizers or grace periods) and returns its last state.
   * @throws ApiError NotFound or Conflict (failed preconditions).
   */
  delete(
    resource: ResourceKey,
    namespace: string | undefined,
    name: string,
    options: WriteOptions & { preconditions?: WritePreconditions } = {},
  ): KubeObject {
    const table = this.table(resource);
    const { def } = table;
    const key = storeKey(def.namespaced, namespace, name);
    const old = table.objects.get(key);
    const target = { group: def.group, resource, name };
    if (old === undefined) throw notFound(target);
    const pre = options.preconditions;
    if (pre?.uid && pre.uid !== old.metadata.uid) {
      throw conflict(target, `Precondition failed: UID in precondition: ${pre.uid}, UID in object meta: ${old.metadata.uid ?? ''}`);
    }
    if (pre?.resourceVersion && pre.resourceVersion !== old.metadata.resourceVersion) {
      throw conflict(
        target,
        `Precondition failed: ResourceVersion in precondition: ${pre.resourceVersion}, ResourceVersion in object meta: ${old.metadata.resourceVersion ?? ''}`,
      );
    }
    if (options.dryRun) return old;
    const rv = ++this.rv;
    table.objects.delete(key);
    const ns = old.metadata.namespace ?? '';
    const nsMap = table.byNamespace.get(ns);
    nsMap?.delete(old.metadata.name);
    if (nsMap?.size === 0) table.byNamespace.delete(ns);
    table.keys.remove(key);
    const last: KubeObject = { ...old, metadata: { ...old.metadata, resourceVersion: String(rv) } };
    this.record(table, { type: 'DELETED', resource, object: last, previous: old, resourceVersion: rv, key });
    return last;
  }

  private put(table: Table, key: string, object: KubeObject): void {
    table.objects.set(key, object);
    const ns = object.metadata.namespace ?? '';
    let nsMap = table.byNamespace.get(ns);
    if (nsMap === undefined) {
      nsMap = new Map();
      table.byNamespace.set(ns, nsMap);
    }
    nsMap.set(object.metadata.name, object);
  }

  private record(table: Table, event: StoreEvent): void {
    table.history.record(event);
    this.feed.publish(event);
  }

  /**
   * Subscribes to committed changes of one kind (or `'*'` for all), delivered in resourceVersion
   * order. Returns the unsubscribe function.
   */
  subscribe(resource: ResourceKey | '*', listener: StoreListener): () => void {
    return this.feed.subscribe(resource, listener);
  }

  /**
   * Replaces the whole content (used for the initial load, resets and restores): assigns fresh
   * resourceVersions, keeps uids and creationTimestamps when present, drops history (older versions become 410) and
   * notifies no one. Takes ownership of the objects.
   *
   * `fromResourceVersion` numbers the new objects after it instead of after the current
   * resourceVersion: lower than the current one, the store's history goes backwards, as an API
   * server restarted on an etcd restored from an older backup (clients' resourceVersions are
   * then ahead of the store).
   * @throws ApiError AlreadyExists for duplicates; RangeError for a negative or fractional
   * `fromResourceVersion`; nothing is replaced then.
   */
  replaceAll(objects: readonly { resource: ResourceKey; object: KubeObject }[], options: { fromResourceVersion?: number } = {}): void {
    const from = options.fromResourceVersion ?? this.rv;
    if (!Number.isSafeInteger(from) || from < 0) throw new RangeError(`fromResourceVersion must be a non-negative integer, not ${String(from)}`);
    const staging = new ObjectStore({ historySize: 1, now: this.now, uid: this.newUid });
    staging.rv = from;
    for (const { resource, object } of objects) staging.create(resource, object, { keepIdentity: true });
    this.rv = staging.rv;
    for (const key of RESOURCE_KEYS) {
      const source = staging.table(key);
      const table = this.emptyTable(key);
      for (const [k, v] of source.objects) this.put(table, k, v);
      table.keys.reset(table.objects.keys());
      table.history.compactedRV = this.rv;
      this.tables.set(key, table);
    }
  }
}
