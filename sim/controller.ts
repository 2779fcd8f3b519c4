/**
 * The hook for in-process controllers (the EndpointSlice controller and ReplicaSet scaler live in
 * `sim/controllers/`): they read the store, write as the system (no RBAC, no faults, still a new
 * resourceVersion and watch events for every write) and subscribe to changes by resource.
 */
import type { ResourceKey } from './resources';
import type { ObjectStore, StoreEventType } from './store';
import type { KubeObject, ReadonlyKubeObject } from './types';
import { cloneJson } from './types';

/** Read access to the store. Returned objects are the stored ones: never mutate them. */
export interface StoreReader {
  /** One object, or `undefined`. */
  get(resource: ResourceKey, namespace: string | undefined, name: string): ReadonlyKubeObject | undefined;
  /** All objects of a kind (optionally in one namespace), in no particular order. */
  list(resource: ResourceKey, namespace?: string): readonly ReadonlyKubeObject[];
  /** Number of objects of a kind (optionally in one namespace). */
  count(resource: ResourceKey, namespace?: string): number;
  /** The current global resourceVersion. */
  resourceVersion(): number;
}

/**
 * Writes as the system. Objects are copied, so callers may keep and reuse what they pass.
 * Conflicts and missing objects throw `ApiError` (409 Conflict, 409 AlreadyExists, 404 NotFound).
 */
export interface SystemWriter {
  /** Creates an object (assigns uid, creationTimestamp, resourceVersion). */
  create(resource: ResourceKey, object: KubeObject): ReadonlyKubeObject;
  /**
   * Replaces an object. A `metadata.resourceVersion` on it is a precondition (409 when stale);
   * leave it empty for an unconditional write. Unchanged objects are not rewritten.
   */
  update(resource: ResourceKey, object: KubeObject): ReadonlyKubeObject;
  /** Creates the object or replaces the existing one unconditionally. */
  upsert(resource: ResourceKey, object: KubeObject): ReadonlyKubeObject;
  /** Deletes an object; returns its last state, or `undefined` when it did not exist. */
  delete(resource: ResourceKey, namespace: string | undefined, name: string): ReadonlyKubeObject | undefined;
}

/** A committed change as controllers see it. */
export interface SimChange {
  readonly type: StoreEventType;
  readonly resource: ResourceKey;
  /** New state (for DELETED: the last state). */
  readonly object: ReadonlyKubeObject;
  /** State before the change (`undefined` for ADDED). */
  readonly previous: ReadonlyKubeObject | undefined;
  readonly resourceVersion: number;
}

/** Everything a controller gets from the simulator. */
export interface SimContext {
  readonly store: StoreReader;
  readonly system: SystemWriter;
  /**
   * Calls `listener` for every committed change of a kind (`'*'`: all kinds), in
   * resourceVersion order, synchronously after the write. Writes made inside a listener are
   * delivered after the current change reached every listener. Returns the unsubscribe function;
   * subscriptions are also removed when the controller is stopped.
   */
  subscribe(resource: ResourceKey | '*', listener: (change: SimChange) => void): () => void;
  /** The simulator's clock. */
  now(): Date;
  /** A seeded random source in [0, 1) (deterministic per simulator seed). */
  random(): number;
  /** The served Kubernetes version, e.g. `v1.31.4`. */
  readonly serverVersion: string;
  /** Writes a diagnostic line (stderr by default). */
  log(message: string): void;
}

/** An in-process controller. `start` is called after the scenario is loaded; `stop` on shutdown and before a reset. */
export interface SimController {
  /** Name used in logs. */
  readonly name: string;
  start(ctx: SimContext): void;
  stop(): void;
}

/** Options of {@link createSimContext}. */
export interface SimContextOptions {
  now: () => Date;
  random: () => number;
  serverVersion: string;
  log: (message: string) => void;
}

/** Builds the context handed to one controller, plus `dispose()` that drops its subscriptions. */
export function createSimContext(store: ObjectStore, options: SimContextOptions): { context: SimContext; dispose: () => void } {
  const unsubscribers = new Set<() => void>();
  const reader: StoreReader = {
    get: (resource, namespace, name) => store.get(resource, namespace, name),
    list: (resource, namespace) => store.all(resource, namespace),
    count: (resource, namespace) => store.count(resource, namespace),
    resourceVersion: () => store.resourceVersion,
  };
  const system: SystemWriter = {
    create: (resource, object) => store.create(resource, cloneJson(object)),
    update: (resource, object) => store.update(resource, cloneJson(object)),
    upsert: (resource, object) => {
      const copy = cloneJson(object);
      const existing = store.get(resource, copy.metadata.namespace, copy.metadata.name);
      if (existing === undefined) return store.create(resource, copy);
      copy.metadata.resourceVersion = existing.metadata.resourceVersion ?? '';
      return store.update(resource, copy);
    },
    delete: (resource, namespace, name) =>
      store.get(resource, namespace, name) === undefined ? undefined : store.delete(resource, namespace, name),
  };
  const context: SimContext = {
    store: reader,
    system,
    subscribe: (resource, listener) => {
      const unsubscribe = store.subscribe(resource, (event) =>
        listener({
          type: event.type,
          resource: event.resource,
          object: event.object,
          previous: event.previous,
          resourceVersion: event.resourceVersion,
        }));
      unsubscribers.add(unsubscribe);
      return () => {
        unsubscribe();
        unsubscribers.delete(unsubscribe);
      };
    },
    now: options.now,
    random: options.random,
    serverVersion: options.serverVersion,
    log: options.log,
  };
  return {
    context,
    dispose: () => {
      for (const unsubscribe of unsubscribers) unsubscribe();
      unsubscribers.clear();
    },
  };
}
