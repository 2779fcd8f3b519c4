/**
 * Watch streams: newline-delimited JSON `{"type", "object"}` events over a chunked response,
 * fed from the store's ordered change notifications.
 *
 * Semantics follow the API server's watch cache: no resourceVersion (or `0`) sends the current
 * state as ADDED events first; a resourceVersion resumes after it from the per-kind history, or
 * answers with an ERROR event carrying a 410 Expired Status when history no longer covers it;
 * objects moving into or out of a selector arrive as ADDED / DELETED; `allowWatchBookmarks`
 * adds periodic BOOKMARK events; `timeoutSeconds` ends the stream cleanly.
 *
 * A resourceVersion ahead of the store (the client saw a newer history: the server was restarted
 * on an older state, or another server answers at the address) is what kube-apiserver does with
 * it (kubernetes/kubernetes staging/src/k8s.io/apiserver/pkg/storage/cacher): a plain watch is
 * accepted and stays silent — no event and no bookmark older than the version asked for — until
 * the store's history passes it (cacher.go `Watch`, cache_watcher.go `process`; "a watch request
 * for an unrecognized resource version may wait indefinitely", the API concepts page); a watch
 * with `sendInitialEvents=true` waits {@link BLOCK_TIMEOUT_MS} for the store to catch up
 * (watch_cache.go `waitUntilFreshAndBlock`) and then gets an ERROR event carrying the 504
 * {@link tooLargeResourceVersion} Status. Lists are ./handlers/list.ts.
 */
import type { ServerResponse } from 'node:http';
import type { ApiResource, ResourceKey } from './resources';
import { apiVersionOf } from './resources';
import { ApiError, expired } from './status';
import type { SimStats } from './stats';
import type { ObjectStore, StoreEvent } from './store';
import { HistoryExpiredError } from './store/history';
import type { IncludeObject } from './tables';
import { toPartialObjectMetadata, toTable } from './tables';
import type { KubeObject } from './types';

/**
 * How long a read from the watch cache waits for a resourceVersion the store has not reached
 * (watch_cache.go `blockTimeout`, 3 s) before it is answered {@link tooLargeResourceVersion}.
 */
export const BLOCK_TIMEOUT_MS = 3000;

/**
 * The API server's answer to a read whose resourceVersion is newer than its own
 * (`storage.NewTooLargeResourceVersionError`): 504 Timeout, "Too large resource version: R,
 * current: C", cause `ResourceVersionTooLarge`. From the watch cache (after
 * {@link BLOCK_TIMEOUT_MS}) it asks for a retry after 1 s (`resourceVersionTooHighRetrySeconds`,
 * also as `Retry-After`); from etcd (a list with `limit`, or `Exact`: `validateMinimumResourceVersion`
 * in storage/etcd3/store.go) it asks for none (`retrySeconds` 0).
 */
export function tooLargeResourceVersion(requested: number, current: number, retrySeconds = 1): ApiError {
  return new ApiError(
    504,
    'Timeout',
    `Timeout: Too large resource version: ${requested}, current: ${current}`,
    { causes: [{ reason: 'ResourceVersionTooLarge', message: 'Too large resource version' }], ...(retrySeconds > 0 ? { retryAfterSeconds: retrySeconds } : {}) },
    retrySeconds > 0 ? { 'Retry-After': String(retrySeconds) } : {},
  );
}

/**
 * Resolves `true` once the store's resourceVersion is at least `resourceVersion` (at once when it
 * is), `false` after `timeoutMs` or when `signal` aborts — the wait of watch_cache.go
 * `waitUntilFreshAndBlock`.
 */
export function waitUntilFresh(store: ObjectStore, resourceVersion: number, timeoutMs: number, signal?: AbortSignal): Promise<boolean> {
  if (store.resourceVersion >= resourceVersion) return Promise.resolve(true);
  return new Promise((resolve) => {
    const done = (fresh: boolean): void => {
      clearTimeout(timer);
      unsubscribe();
      signal?.removeEventListener('abort', aborted);
      resolve(fresh);
    };
    const aborted = (): void => done(false);
    const timer = setTimeout(() => done(store.resourceVersion >= resourceVersion), timeoutMs);
    const unsubscribe = store.subscribe('*', () => {
      if (store.resourceVersion >= resourceVersion) done(true);
    });
    signal?.addEventListener('abort', aborted, { once: true });
  });
}

/** Watch event types on the wire. */
export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';

/** What a client asked to watch. */
export interface WatchRequest {
  resource: ApiResource;
  storage: ResourceKey;
  /** Key for statistics (`pods`, `events`). */
  statsKey: string;
  namespace: string | undefined;
  /** Label and field selectors, applied to the stored form. */
  predicate: (object: KubeObject) => boolean;
  /** Parsed resourceVersion; `undefined` when absent or `0` (start with the current state). */
  resourceVersion: number | undefined;
  allowBookmarks: boolean;
  timeoutSeconds: number | undefined;
  /** `sendInitialEvents=true` (watch-list): initial state, then a bookmark marking its end. */
  sendInitialEvents: boolean | undefined;
  /** Render objects as Tables (kubectl get -w). */
  table: { apiVersion: string; includeObject: IncludeObject } | undefined;
  /** Render objects as PartialObjectMetadata of this apiVersion. */
  metadataOnly: string | undefined;
}

/** Options of {@link WatchHub}. */
export interface WatchHubOptions {
  /** Interval between BOOKMARK events for watches that allow them (default 60 s). */
  bookmarkIntervalMs?: number;
  /** Stream lifetime when the client sets no timeoutSeconds (default 1800 s). */
  defaultTimeoutSeconds?: number;
  /** A stream whose unsent output exceeds this is closed, as a slow client would be (default 256 MiB). */
  maxBufferedBytes?: number;
  now?: () => Date;
}

interface Watcher {
  readonly request: WatchRequest;
  readonly res: ServerResponse;
  closed: boolean;
  headerSent: boolean;
  timers: ReturnType<typeof setTimeout>[];
  close(abrupt: boolean): void;
}

/** Serves and tracks every open watch stream. */
export class WatchHub {
  private readonly watchers = new Map<ResourceKey, Set<Watcher>>();
  private readonly unsubscribe: () => void;
  private readonly bookmarkIntervalMs: number;
  private readonly defaultTimeoutSeconds: number;
  private readonly maxBufferedBytes: number;
  private readonly now: () => Date;

  constructor(
    private readonly store: ObjectStore,
    private readonly stats: SimStats,
    options: WatchHubOptions = {},
  ) {
    this.bookmarkIntervalMs = options.bookmarkIntervalMs ?? 60_000;
    this.defaultTimeoutSeconds = options.defaultTimeoutSeconds ?? 1800;
    this.maxBufferedBytes = options.maxBufferedBytes ?? 256 * 1024 * 1024;
    this.now = options.now ?? (() => new Date());
    this.unsubscribe = store.subscribe('*', (event) => this.dispatch(event));
  }

  /** Open watches (of one storage kind when given). */
  openCount(storage?: ResourceKey): number {
    if (storage !== undefined) return this.watchers.get(storage)?.size ?? 0;
    let n = 0;
    for (const set of this.watchers.values()) n += set.size;
    return n;
  }

  /**
   * Starts streaming a watch on `res` (the request was already authorised). Headers are flushed
   * at once so clients see the stream open; the client going away is noticed via `res` 'close'.
   * A resourceVersion ahead of the store opens a silent stream (see the module comment); with
   * `sendInitialEvents=true` the stream opens only after the store caught up, or with the 504
   * ERROR event after {@link BLOCK_TIMEOUT_MS}.
   */
  serve(res: ServerResponse, request: WatchRequest): void {
    const ahead = request.resourceVersion !== undefined && request.resourceVersion > this.store.resourceVersion;
    if (ahead && request.sendInitialEvents === true && request.resourceVersion !== undefined) {
      const requested = request.resourceVersion;
      const gone = new AbortController();
      res.once('close', () => gone.abort());
      void waitUntilFresh(this.store, requested, BLOCK_TIMEOUT_MS, gone.signal).then((fresh) => {
        if (res.destroyed || res.writableEnded) return;
        if (fresh) {
          this.open(res, request);
          return;
        }
        res.writeHead(200, { 'Content-Type': 'application/json', 'Cache-Control': 'no-cache, private' });
        const status = tooLargeResourceVersion(requested, this.store.resourceVersion).toStatus();
        res.end(`${JSON.stringify({ type: 'ERROR', object: status })}\n`);
        this.stats.watchEventsSent(request.statsKey);
      });
      return;
    }
    this.open(res, request);
  }

  /** Streams a watch on `res`: the initial events, then every change the request sees. */
  private open(res: ServerResponse, request: WatchRequest): void {
    res.writeHead(200, { 'Content-Type': 'application/json', 'Cache-Control': 'no-cache, private' });
    res.flushHeaders();

    // 1. Work out the initial events before subscribing (all synchronous: nothing can interleave).
    let initial: { type: WatchEventType; object: KubeObject }[];
    const wantsInitialState = request.resourceVersion === undefined || request.sendInitialEvents === true;
    if (wantsInitialState && request.sendInitialEvents !== false) {
      const page = this.store.list(request.storage, { namespace: request.namespace, predicate: request.predicate });
      initial = page.items.map((object) => ({ type: 'ADDED', object }));
    } else if (request.resourceVersion === undefined) {
      initial = [];
    } else {
      try {
        initial = [];
        for (const event of this.store.eventsSince(request.storage, request.resourceVersion)) {
          const translated = this.translate(request, event);
          if (translated !== undefined) initial.push(translated);
        }
      } catch (error) {
        if (!(error instanceof HistoryExpiredError)) throw error;
        const status = expired(error.message).toStatus();
        res.end(`${JSON.stringify({ type: 'ERROR', object: status })}\n`);
        this.stats.watchEventsSent(request.statsKey);
        return;
      }
    }

    // 2. Register, then write the initial events.
    const watcher: Watcher = {
      request, res, closed: false, headerSent: false, timers: [],
      close: (abrupt) => {
        if (watcher.closed) return;
        watcher.closed = true;
        for (const timer of watcher.timers) clearTimeout(timer);
        this.watchers.get(request.storage)?.delete(watcher);
        this.stats.watchClosed(request.statsKey);
        if (abrupt) res.destroy();
        else res.end();
      },
    };
    let set = this.watchers.get(request.storage);
    if (set === undefined) {
      set = new Set();
      this.watchers.set(request.storage, set);
    }
    set.add(watcher);
    this.stats.watchOpened(request.statsKey);
    res.on('close', () => watcher.close(false));

    for (const event of initial) this.write(watcher, event.type, event.object);
    if (request.sendInitialEvents === true && request.allowBookmarks) {
      this.writeBookmark(watcher, { 'k8s.io/initial-events-end': 'true' });
    }

    // 3. Timers: bookmarks and the stream's lifetime.
    if (request.allowBookmarks && request.table === undefined) {
      watcher.timers.push(setInterval(() => this.writeBookmark(watcher), this.bookmarkIntervalMs));
    }
    const timeout = request.timeoutSeconds ?? this.defaultTimeoutSeconds;
    watcher.timers.push(setTimeout(() => watcher.close(false), timeout * 1000));
  }

  /** Maps a store event to what this watcher sees (selector transitions become ADDED/DELETED). */
  private translate(request: WatchRequest, event: StoreEvent): { type: WatchEventType; object: KubeObject } | undefined {
    // Only what comes after the watch's resourceVersion (history replayed at the start may hold older events).
    if (request.resourceVersion !== undefined && event.resourceVersion <= request.resourceVersion) return undefined;
    if (request.namespace !== undefined && event.object.metadata.namespace !== request.namespace) return undefined;
    const matchesNow = request.predicate(event.object);
    if (event.type === 'ADDED') return matchesNow ? { type: 'ADDED', object: event.object } : undefined;
    if (event.type === 'DELETED') return matchesNow ? { type: 'DELETED', object: event.object } : undefined;
    const matchedBefore = event.previous !== undefined && request.predicate(event.previous);
    if (matchesNow && matchedBefore) return { type: 'MODIFIED', object: event.object };
    if (matchesNow) return { type: 'ADDED', object: event.object };
    if (matchedBefore) return { type: 'DELETED', object: event.object };
    return undefined;
  }

  private dispatch(event: StoreEvent): void {
    const set = this.watchers.get(event.resource);
    if (set === undefined || set.size === 0) return;
    const cache = new Map<string, string>();
    for (const watcher of [...set]) {
      const translated = this.translate(watcher.request, event);
      if (translated !== undefined) this.write(watcher, translated.type, translated.object, cache);
    }
  }

  private render(watcher: Watcher, type: WatchEventType, object: KubeObject, cache?: Map<string, string>): string {
    const { request } = watcher;
    const cacheKey = request.table === undefined
      ? `${type}|${request.resource.group}|${request.resource.version}|${request.metadataOnly ?? ''}`
      : undefined;
    const cached = cacheKey !== undefined ? cache?.get(cacheKey) : undefined;
    if (cached !== undefined) return cached;
    let wire = request.resource.toWire ? request.resource.toWire(object) : object;
    let out: unknown = wire;
    if (request.metadataOnly !== undefined) {
      wire = toPartialObjectMetadata(wire, request.metadataOnly);
      out = wire;
    } else if (request.table !== undefined) {
      out = toTable(request.resource, [wire], {
        apiVersion: request.table.apiVersion,
        includeObject: request.table.includeObject,
        now: this.now(),
        listMeta: { resourceVersion: wire.metadata.resourceVersion },
        noHeaders: watcher.headerSent,
      });
      watcher.headerSent = true;
    }
    const line = `${JSON.stringify({ type, object: out })}\n`;
    if (cacheKey !== undefined) cache?.set(cacheKey, line);
    return line;
  }

  private write(watcher: Watcher, type: WatchEventType, object: KubeObject, cache?: Map<string, string>): void {
    if (watcher.closed) return;
    watcher.res.write(this.render(watcher, type, object, cache));
    this.stats.watchEventsSent(watcher.request.statsKey);
    if (watcher.res.writableLength > this.maxBufferedBytes) watcher.close(true);
  }

  private writeBookmark(watcher: Watcher, annotations?: Record<string, string>): void {
    if (watcher.closed) return;
    // No bookmark older than the version asked for (cache_watcher.go sends a bookmark only at or after it).
    const asked = watcher.request.resourceVersion;
    if (asked !== undefined && this.store.resourceVersion < asked) return;
    const { resource } = watcher.request;
    const metadata: Record<string, unknown> = { resourceVersion: String(this.store.resourceVersion) };
    if (annotations !== undefined) metadata.annotations = annotations;
    const object = { kind: resource.kind, apiVersion: apiVersionOf(resource.group, resource.version), metadata };
    watcher.res.write(`${JSON.stringify({ type: 'BOOKMARK', object })}\n`);
    this.stats.watchEventsSent(watcher.request.statsKey);
  }

  /**
   * Closes open watches (of one resource when given: plural name or storage key). Clean closes
   * end the stream; abrupt ones destroy the connection. Returns how many were closed.
   */
  drop(resource?: string, abrupt = false): number {
    let n = 0;
    for (const set of this.watchers.values()) {
      for (const watcher of [...set]) {
        if (resource !== undefined && watcher.request.statsKey !== resource && watcher.request.storage !== resource) continue;
        watcher.close(abrupt);
        n++;
      }
    }
    return n;
  }

  /** Closes everything and stops listening to the store. */
  shutdown(): void {
    this.drop(undefined, true);
    this.unsubscribe();
  }
}
