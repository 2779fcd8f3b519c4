/**
 * One informer per resource type: a paged LIST, then a WATCH from the list's resourceVersion,
 * caching only slim records (projected before they are stored).
 *
 * Lifecycle (numbered as in the loop below):
 * 1. LIST with `limit` pages, following `continue`; an expired continue token (410) restarts
 *    the list; a failing page is retried a few times before the whole list is given up. The new
 *    cache replaces the old one atomically when the last page arrives (no phantoms, nothing
 *    missing).
 * 2. WATCH from the list's resourceVersion with bookmarks; every event and bookmark advances the
 *    resourceVersion, so a watch that ends is resumed from where it stopped, without a re-list.
 * 3. 410 Gone (HTTP or an `ERROR` event with code 410) → back to 1.
 * 4. Failures wait a jittered exponential backoff (0.5 s → 30 s by default, reset after a
 *    healthy watch period), at least as long as a 429's `Retry-After`; 403 marks the type
 *    forbidden, empties its cache and retries slowly. A watchdog cuts watches silent for longer
 *    than a bound (bookmarks count as activity).
 * 5. Size limits (see `MAX_WATCH_LINE_BYTES`, `MAX_RESPONSE_BYTES` in `./connection`): a watch
 *    event over the line limit aborts the watch, marks the type stale ("A watch event exceeded
 *    N MiB …") and, after the backoff, re-lists (the cut event is unknown, so only a list tells
 *    what the cache is missing); a list page over the response limit is fetched again with half
 *    the page size, down to one object, before the list is given up.
 *
 * `makeInformer` from client-node is deliberately not used: it stops for good on an error.
 */
import type { KubeConnection, OpenStreamResult } from './connection';
import type { KubeError } from './errors';
import { errorFromException, errorFromResponse, errorFromWatchStatus, isRetryable, redact, ResponseTooLargeError } from './errors';
import type { Json } from './wire-to-record';
import { isJsonObject, obj, str } from './wire-to-record';
import type { RecordById, ResourceDescriptor, ResourceId } from './resources';
import { cacheKey } from './resources';

/** Health of one resource type's cache. */
export type ResourceHealth = 'syncing' | 'synced' | 'stale' | 'forbidden';

/** What a status panel shows about one resource type. */
export interface ResourceStatus {
  readonly id: ResourceId;
  readonly title: string;
  readonly health: ResourceHealth;
  /** Last resourceVersion seen (list, event or bookmark); `null` before the first list. */
  readonly resourceVersion: string | null;
  /** When the last full list completed (ISO); `null` before the first one. */
  readonly syncedAt: string | null;
  /** When the watch last delivered anything (event or bookmark; ISO). */
  readonly lastEventAt: string | null;
  /** Since when the cache may be out of date (ISO), while `stale` or `forbidden`. */
  readonly staleSince: string | null;
  /** The last error while `stale` or `forbidden` (safe to show). */
  readonly error: KubeError | null;
  /** Whether a list is in progress. */
  readonly listing: boolean;
  /** Objects received by the current (or last) list so far. */
  readonly listed: number;
  /** Records in the cache. */
  readonly count: number;
  /** Lists completed and watches opened since start (diagnostics, tests). */
  readonly lists: number;
  readonly watches: number;
}

/** Backoff parameters. */
export interface BackoffOptions {
  readonly initialMs: number;
  readonly maxMs: number;
  readonly factor: number;
  /** A watch open at least this long resets the failure count. */
  readonly resetAfterMs: number;
}

/** Default backoff: 0.5 s doubling to 30 s, reset after 60 s of healthy watching. */
export const DEFAULT_BACKOFF: BackoffOptions = { initialMs: 500, maxMs: 30_000, factor: 2, resetAfterMs: 60_000 };

/** A log event (messages are safe). */
export interface InformerLogEvent {
  readonly resource: ResourceId;
  readonly level: 'info' | 'warn';
  readonly message: string;
}

/** Tuning of an informer. Every field is optional. */
export interface InformerOptions {
  /** LIST page size (default 500). */
  readonly pageSize?: number;
  /** Timeout of one LIST page (default: the connection's request timeout). */
  readonly listTimeoutMs?: number;
  /** Server-side watch lifetime, chosen uniformly in this range (default 300–600 s). */
  readonly watchTimeoutSeconds?: readonly [number, number];
  /** A watch silent (no event, no bookmark) for longer than this is restarted (default 90 s). */
  readonly watchdogMs?: number;
  readonly backoff?: Partial<BackoffOptions>;
  /** Minimum wait before retrying a forbidden resource (default 30 s). */
  readonly forbiddenRetryMs?: number;
  /** Attempts per LIST page before the list is given up (default 3). */
  readonly pageAttempts?: number;
  /** Random source for jitter (tests). */
  readonly random?: () => number;
  /** Longest watch event accepted, in bytes (default `MAX_WATCH_LINE_BYTES`, 8 MiB). */
  readonly maxWatchLineBytes?: number;
  /** Largest list page accepted, in bytes (default `MAX_RESPONSE_BYTES`, 32 MiB). */
  readonly maxListResponseBytes?: number;
  /** Log sink; messages pass {@link redact} once more before they reach it. */
  readonly log?: (event: InformerLogEvent) => void;
}

type WatchOutcome =
  | { readonly type: 'ended'; readonly durationMs: number; readonly events: number }
  | { readonly type: 'expired' }
  | { readonly type: 'silent' }
  | { readonly type: 'error'; readonly error: KubeError; readonly opened: boolean; readonly durationMs: number; readonly relist?: boolean };

type ListOutcome = { readonly ok: true } | { readonly ok: false; readonly error: KubeError };

function nowIso(): string {
  return new Date().toISOString();
}

/**
 * A list+watch cache of one resource type's slim records.
 *
 * `onChange(dataChanged)` is called synchronously after every cache change (`true`) and every
 * status change (`false`).
 */
export class ResourceInformer<Id extends ResourceId> {
  private cache = new Map<string, RecordById[Id]>();
  private memo: { version: number; records: readonly RecordById[Id][] } | null = null;
  private dataVersion = 0;
  private resourceVersion: string | null = null;
  private pathIndex = 0;
  private running = false;
  private loop: Promise<void> | null = null;
  private stopController = new AbortController();
  private stream: { close(): void } | null = null;
  private failures = 0;
  private consecutiveExpired = 0;
  private health: ResourceHealth = 'syncing';
  private syncedAt: string | null = null;
  private lastEventAt: string | null = null;
  private staleSince: string | null = null;
  private error: KubeError | null = null;
  private listing = false;
  private listed = 0;
  private lists = 0;
  private watches = 0;
  private readonly options: Required<Omit<InformerOptions, 'backoff' | 'log' | 'listTimeoutMs' | 'maxWatchLineBytes' | 'maxListResponseBytes'>> & {
    backoff: BackoffOptions;
    listTimeoutMs: number;
    maxWatchLineBytes: number | undefined;
    maxListResponseBytes: number | undefined;
  };
  private readonly log: (event: InformerLogEvent) => void;

  constructor(
    private readonly connection: KubeConnection,
    readonly descriptor: ResourceDescriptor<Id>,
    private readonly onChange: (dataChanged: boolean) => void = () => undefined,
    options: InformerOptions = {},
  ) {
    this.options = {
      pageSize: options.pageSize ?? 500,
      listTimeoutMs: options.listTimeoutMs ?? connection.requestTimeoutMs,
      watchTimeoutSeconds: options.watchTimeoutSeconds ?? [300, 600],
      watchdogMs: options.watchdogMs ?? 90_000,
      backoff: { ...DEFAULT_BACKOFF, ...options.backoff },
      forbiddenRetryMs: options.forbiddenRetryMs ?? 30_000,
      pageAttempts: options.pageAttempts ?? 3,
      random: options.random ?? Math.random,
      maxWatchLineBytes: options.maxWatchLineBytes,
      maxListResponseBytes: options.maxListResponseBytes,
    };
    const log = options.log;
    // Messages are built from safe errors; redacting again costs little and guards future messages.
    this.log = log === undefined ? () => undefined : (event) => log({ ...event, message: redact(event.message) });
  }

  /** Incremented on every cache change. */
  get version(): number {
    return this.dataVersion;
  }

  /** The cached records by `namespace/name` (or `name`). Do not mutate. */
  get records(): ReadonlyMap<string, RecordById[Id]> {
    return this.cache;
  }

  /** The cached records as an array, rebuilt only when the cache changed since the last call. */
  items(): readonly RecordById[Id][] {
    if (this.memo === null || this.memo.version !== this.dataVersion) {
      this.memo = { version: this.dataVersion, records: [...this.cache.values()] };
    }
    return this.memo.records;
  }

  /** Current status. */
  status(): ResourceStatus {
    return {
      id: this.descriptor.id,
      title: this.descriptor.title,
      health: this.health,
      resourceVersion: this.resourceVersion,
      syncedAt: this.syncedAt,
      lastEventAt: this.lastEventAt,
      staleSince: this.staleSince,
      error: this.error,
      listing: this.listing,
      listed: this.listed,
      count: this.cache.size,
      lists: this.lists,
      watches: this.watches,
    };
  }

  /** Starts listing and watching (idempotent). */
  start(): void {
    if (this.running) return;
    this.running = true;
    this.stopController = new AbortController();
    this.loop = this.run().catch((error: unknown) => {
      // The loop handles every expected failure; this is a bug guard that keeps the process up.
      this.log({ resource: this.descriptor.id, level: 'warn', message: `informer loop crashed: ${errorFromException(error).message}` });
    });
  }

  /** Stops the loop, closes the watch and waits until nothing is in flight. The cache is kept. */
  async stop(): Promise<void> {
    if (!this.running) return;
    this.running = false;
    this.stopController.abort();
    this.stream?.close();
    await this.loop;
    this.loop = null;
  }

  // ------------------------------------------------------------------------------------------

  private async run(): Promise<void> {
    let needList = true;
    while (this.running) {
      // 1. LIST (first time, and after 410 Gone).
      if (needList) {
        const listed = await this.listAll();
        if (!this.running) return;
        if (!listed.ok) {
          await this.fail(listed.error);
          continue;
        }
        needList = false;
      }
      // 2. WATCH from the last resourceVersion.
      const outcome = await this.watchOnce();
      if (!this.running) return;
      switch (outcome.type) {
        case 'expired':
          // 3. 410: re-list. Two in a row (history shorter than our reconnect) get a backoff.
          this.consecutiveExpired++;
          this.log({ resource: this.descriptor.id, level: 'info', message: 'watch history expired (410); re-listing' });
          if (this.consecutiveExpired > 1) await this.sleep(this.nextBackoff());
          needList = true;
          break;
        case 'silent':
          this.log({ resource: this.descriptor.id, level: 'info', message: `watch silent for over ${this.options.watchdogMs} ms; restarting it` });
          break;
        case 'ended':
          if (outcome.durationMs >= this.options.backoff.resetAfterMs) this.failures = 0;
          // A server that closes watches at once, repeatedly, must not make us spin.
          if (outcome.durationMs < 1000 && outcome.events === 0) await this.sleep(this.nextBackoff());
          break;
        case 'error':
          if (outcome.opened && outcome.durationMs >= this.options.backoff.resetAfterMs) this.failures = 0;
          await this.fail(outcome.error);
          // A forbidden watch emptied the cache: only a new list can fill it again. After a cut
          // (oversized) event we cannot know what it said: only a new list can tell.
          if (outcome.error.kind === 'forbidden' || outcome.relist === true) needList = true;
          break;
      }
    }
  }

  /** Records a failure in the status and waits before the next attempt. */
  private async fail(error: KubeError): Promise<void> {
    let delay = this.nextBackoff();
    if (error.kind === 'forbidden') {
      if (this.health !== 'forbidden') {
        this.log({ resource: this.descriptor.id, level: 'warn', message: `forbidden: ${error.message}` });
      }
      // We can no longer tell what exists: keep nothing rather than possibly phantom objects.
      if (this.cache.size > 0) this.replace(new Map());
      this.health = 'forbidden';
      delay = Math.max(delay, this.options.forbiddenRetryMs);
    } else {
      if (this.health !== 'stale') this.log({ resource: this.descriptor.id, level: 'warn', message: `stale: ${error.message}` });
      this.health = 'stale';
    }
    this.staleSince ??= nowIso();
    this.error = error;
    if (error.retryAfterSeconds !== undefined) delay = Math.max(delay, error.retryAfterSeconds * 1000);
    this.onChange(false);
    await this.sleep(delay);
  }

  /** Equal-jitter exponential backoff; each call counts one failure. */
  private nextBackoff(): number {
    const { initialMs, maxMs, factor } = this.options.backoff;
    const base = Math.min(maxMs, initialMs * factor ** this.failures);
    this.failures = Math.min(this.failures + 1, 60);
    return base / 2 + this.options.random() * (base / 2);
  }

  private sleep(ms: number): Promise<void> {
    if (!this.running) return Promise.resolve();
    const signal = this.stopController.signal;
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      function done(): void {
        clearTimeout(timer);
        signal.removeEventListener('abort', done);
        resolve();
      }
      signal.addEventListener('abort', done, { once: true });
    });
  }

  private markSynced(): void {
    const changed = this.health !== 'synced' || this.error !== null;
    this.health = 'synced';
    this.staleSince = null;
    this.error = null;
    if (changed) this.onChange(false);
  }

  private replace(next: Map<string, RecordById[Id]>): void {
    this.cache = next;
    this.dataVersion++;
    this.onChange(true);
  }

  private path(): string {
    return this.descriptor.paths[this.pathIndex] ?? this.descriptor.paths[0] ?? '/';
  }

  /** 1. One complete paged LIST into a fresh map, swapped in at the end. */
  private async listAll(): Promise<ListOutcome> {
    const { pageSize, listTimeoutMs, pageAttempts } = this.options;
    let fresh = new Map<string, RecordById[Id]>();
    let continueToken: string | undefined;
    let listResourceVersion: string | null = null;
    let restarts = 0;
    let attempt = 0;
    // Halved when a page is over the response limit (a continue token accepts any limit).
    let limit = pageSize;
    this.listing = true;
    this.listed = 0;
    this.onChange(false);
    try {
      while (this.running) {
        let error: KubeError | null = null;
        let tooLarge = false;
        let body: Json | null = null;
        try {
          const response = await this.connection.request({
            path: this.path(),
            query: { limit, continue: continueToken, fieldSelector: this.descriptor.fieldSelector },
            timeoutMs: listTimeoutMs,
            signal: this.stopController.signal,
            ...(this.options.maxListResponseBytes !== undefined ? { maxResponseBytes: this.options.maxListResponseBytes } : {}),
          });
          if (response.status >= 200 && response.status < 300) {
            const parsed = safeJson(response.body);
            if (isJsonObject(parsed) && Array.isArray(parsed.items)) body = parsed;
            else error = { kind: 'unknown', status: response.status, message: 'The API server sent a list that is not a JSON list.' };
          } else {
            error = errorFromResponse(response.status, response.body, response.headers);
          }
        } catch (thrown) {
          error = errorFromException(thrown);
          tooLarge = thrown instanceof ResponseTooLargeError;
        }
        if (!this.running) return { ok: true };
        if (error !== null) {
          if (tooLarge) {
            if (limit > 1) {
              limit = Math.max(1, Math.floor(limit / 2));
              this.log({ resource: this.descriptor.id, level: 'info', message: `list page over the size limit; retrying with ${limit} per page` });
              continue;
            }
            return { ok: false, error: { ...error, message: `${error.message} Even one object per page is too large.` } };
          }
          if (error.kind === 'not-found' && continueToken === undefined && this.pathIndex < this.descriptor.paths.length - 1) {
            this.pathIndex++; // an older API version (autoscaling/v1 without v2)
            continue;
          }
          if (error.kind === 'gone' && continueToken !== undefined && restarts < 3) {
            // Expired continue token: start the list again from scratch.
            restarts++;
            fresh = new Map();
            continueToken = undefined;
            listResourceVersion = null;
            this.listed = 0;
            continue;
          }
          if (isRetryable(error) && ++attempt < pageAttempts) {
            await this.sleep(Math.max(error.retryAfterSeconds !== undefined ? error.retryAfterSeconds * 1000 : 0, this.options.backoff.initialMs * attempt));
            continue;
          }
          return { ok: false, error };
        }
        attempt = 0;
        const page = body ?? {};
        const metadata = obj(page.metadata);
        listResourceVersion ??= str(metadata.resourceVersion);
        for (const item of page.items as unknown[]) {
          if (!isJsonObject(item)) continue;
          const record = this.descriptor.project(item);
          if (record !== null) {
            const key = cacheKey(item);
            // An unchanged object keeps its record, so a re-list does not look like a change to everything.
            const known = this.cache.get(key);
            fresh.set(key, known !== undefined && sameRecord(known, record) ? known : record);
          }
          this.listed++;
        }
        this.onChange(false);
        const next = str(metadata.continue);
        if (next === null || next === '') break;
        continueToken = next;
      }
      if (!this.running) return { ok: true };
      this.resourceVersion = listResourceVersion;
      this.syncedAt = nowIso();
      this.lists++;
      this.replace(fresh);
      this.markSynced();
      return { ok: true };
    } finally {
      this.listing = false;
    }
  }

  /** 2. One WATCH from the current resourceVersion until it ends, fails, expires or goes silent. */
  private async watchOnce(): Promise<WatchOutcome> {
    const [minTimeout, maxTimeout] = this.options.watchTimeoutSeconds;
    const timeoutSeconds = Math.round(minTimeout + this.options.random() * Math.max(0, maxTimeout - minTimeout));
    let outcome: WatchOutcome | null = null;
    let lastActivity = Date.now();
    let events = 0;
    const startedAt = Date.now();
    let close: () => void = () => undefined;
    const settle = (value: WatchOutcome): void => {
      outcome ??= value;
      close();
    };
    const onLine = (line: string): void => {
      if (outcome !== null) return;
      lastActivity = Date.now();
      this.lastEventAt = new Date(lastActivity).toISOString();
      const event = safeJson(line);
      if (!isJsonObject(event) || typeof event.type !== 'string' || !isJsonObject(event.object)) {
        // A line we cannot read may have been a real event: resume from the last good version.
        settle({ type: 'error', error: { kind: 'unknown', message: 'The API server sent a malformed watch event.' }, opened: true, durationMs: Date.now() - startedAt });
        return;
      }
      this.applyEvent(event.type, event.object, settle);
      events++;
    };
    let opened: OpenStreamResult;
    try {
      opened = await this.connection.openStream(
        {
          path: this.path(),
          query: {
            watch: 1,
            resourceVersion: this.resourceVersion ?? undefined,
            allowWatchBookmarks: true,
            timeoutSeconds,
            fieldSelector: this.descriptor.fieldSelector,
          },
          signal: this.stopController.signal,
          ...(this.options.maxWatchLineBytes !== undefined ? { maxLineBytes: this.options.maxWatchLineBytes } : {}),
        },
        onLine,
      );
    } catch (thrown) {
      return { type: 'error', error: errorFromException(thrown), opened: false, durationMs: 0 };
    }
    if (!opened.ok) {
      const error = errorFromResponse(opened.response.status, opened.response.body, opened.response.headers);
      return error.kind === 'gone' ? { type: 'expired' } : { type: 'error', error, opened: false, durationMs: 0 };
    }
    const stream = opened.stream;
    close = () => stream.close();
    this.stream = stream;
    this.watches++;
    if (outcome === null) this.markSynced();
    const watchdog = setInterval(() => {
      if (Date.now() - lastActivity > this.options.watchdogMs) settle({ type: 'silent' });
    }, Math.max(10, Math.min(5000, Math.floor(this.options.watchdogMs / 4))));
    if (outcome !== null) stream.close();
    const ended = await stream.done;
    clearInterval(watchdog);
    this.stream = null;
    if (outcome !== null) return outcome;
    const durationMs = Date.now() - startedAt;
    if (ended instanceof ResponseTooLargeError) return { type: 'error', error: errorFromException(ended), opened: true, durationMs, relist: true };
    if (ended !== null) return { type: 'error', error: errorFromException(ended), opened: true, durationMs };
    return { type: 'ended', durationMs, events };
  }

  /** Applies one watch event to the cache. */
  private applyEvent(type: string, object: Json, settle: (outcome: WatchOutcome) => void): void {
    const rv = str(obj(object.metadata).resourceVersion);
    switch (type) {
      case 'ADDED':
      case 'MODIFIED': {
        const key = cacheKey(object);
        const record = this.descriptor.project(object);
        if (record !== null) {
          // Updates that touch nothing the record keeps (status heartbeats, managed fields…) change nothing.
          const known = this.cache.get(key);
          if (known === undefined || !sameRecord(known, record)) {
            this.cache.set(key, record);
            this.changed();
          }
        } else if (this.cache.delete(key)) {
          this.changed();
        }
        break;
      }
      case 'DELETED':
        if (this.cache.delete(cacheKey(object))) this.changed();
        break;
      case 'BOOKMARK':
        break;
      case 'ERROR': {
        const error = errorFromWatchStatus(object);
        settle(error.kind === 'gone' ? { type: 'expired' } : { type: 'error', error, opened: true, durationMs: 0 });
        return;
      }
      default:
        settle({ type: 'error', error: { kind: 'unknown', message: `The API server sent an unknown watch event type.` }, opened: true, durationMs: 0 });
        return;
    }
    if (rv !== null && rv !== '') this.resourceVersion = rv;
    // The watch made progress: a later 410 is not part of a list/expire loop.
    this.consecutiveExpired = 0;
  }

  private changed(): void {
    this.dataVersion++;
    this.onChange(true);
  }
}

/** Structural equality of two slim records (plain data: objects, arrays, primitives). */
export function sameRecord(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!sameRecord(a[i], b[i])) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  const keysA = Object.keys(a);
  const keysB = Object.keys(b);
  if (keysA.length !== keysB.length) return false;
  for (let i = 0; i < keysA.length; i++) {
    const key = keysA[i] as string;
    if (key !== keysB[i] || !sameRecord((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key])) return false;
  }
  return true;
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}
