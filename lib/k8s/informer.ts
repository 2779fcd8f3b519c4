/**
 * One informer per resource type: a paged LIST, then a WATCH from the list's resourceVersion,
 * caching only slim records (projected before they are stored).
 *
 * Lifecycle (numbered as in the loop below):
 * 1. LIST with `limit` pages, following `continue`; an expired continue token (410) restarts
 *    the list; a failing page is retried a few times before the whole list is given up. The new
 *    cache replaces the old one atomically when the last page arrives (no phantoms, nothing
 *    missing). With `pagesAhead`, the next page is asked for as soon as the current one's head
 *    shows its continue token, before the current one is parsed (1a), so the server works while
 *    we parse.
 * 2. WATCH from the list's resourceVersion with bookmarks; every event and bookmark advances the
 *    resourceVersion, so a watch that ends is resumed from where it stopped, without a re-list.
 * 3. 410 Gone (HTTP or an `ERROR` event with code 410) → back to 1.
 * 4. Failures wait a jittered exponential backoff (0.5 s → 30 s by default, reset after a
 *    healthy watch period), at least as long as a 429's `Retry-After`; 403 marks the type
 *    forbidden, empties its cache and retries slowly. A watchdog cuts watches silent for longer
 *    than a bound (bookmarks count as activity).
 * 6. The API server's history going backwards (restarted on an etcd restored from an older
 *    backup, another cluster on the same address): a watch answered 504 `ResourceVersionTooLarge`
 *    (HTTP or `ERROR` event), or a re-list whose resourceVersion is older than the cache's. With a
 *    {@link RelistCoordinator} (the ClusterSource) every type then re-lists into a staged map the
 *    readers do not see, and the coordinator swaps them all at once; alone, the informer re-lists.
 *    A list cut between pages by a lost connection, or whose pages disagree on the
 *    resourceVersion, restarts from the first page (the server behind the next page may not be
 *    the one that served the first).
 * 5. Size limits (see `MAX_WATCH_LINE_BYTES`, `MAX_RESPONSE_BYTES` in `./connection`): a watch
 *    event over the line limit aborts the watch, marks the type stale ("A watch event exceeded
 *    N MiB …") and, after the backoff, re-lists (the cut event is unknown, so only a list tells
 *    what the cache is missing); a list page over the response limit is fetched again with half
 *    the page size, down to one object, before the list is given up.
 *
 * `makeInformer` from client-node is deliberately not used: it stops for good on an error.
 */
import type { KubeConnection, KubeHttpResponse, OpenStreamResult } from './connection';
import type { KubeError } from './errors';
import { errorFromException, errorFromResponse, errorFromWatchStatus, isRetryable, redact, ResponseTooLargeError } from './errors';
import type { Json } from './wire-to-record';
import { isJsonObject, obj, str } from './wire-to-record';
import type { RecordById, ResourceDescriptor, ResourceId } from './resources';
import { cacheKey } from './resources';

/**
 * Coordinates the atomic re-list of every type after the API server's history went backwards
 * (implemented by the live ClusterSource).
 */
export interface RelistCoordinator {
  /** An informer saw the history go backwards (`reason` is safe to show and log). */
  historyWentBackwards(id: ResourceId, reason: string): void;
  /** A re-list asked by {@link ResourceInformer.beginRelist} is staged (or the type is forbidden): commit when all are. */
  staged(id: ResourceId): void;
  /**
   * The newest resourceVersion any other type has seen (resourceVersions are one counter across
   * types: etcd's revision). A list started after it was seen cannot be older, unless the history
   * went backwards — which is how a type listed for the first time notices it. `null` for types
   * that may live in another etcd (Events: `--etcd-servers-overrides`), whose counter differs.
   */
  newestSeen(id: ResourceId): string | null;
  /**
   * Before a type swaps in a re-list (after 410, a forbidden or cut watch): whether the same
   * cluster still answers. `false` means it is another one; the coordinator has then begun a
   * coordinated re-list, which this list joins.
   */
  confirmSameServer(): Promise<boolean>;
}

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
  /**
   * Ask for the next LIST page before parsing the current one (default `false`). It hides the
   * server's time and the round trip behind our parsing, at the cost of one more page body in
   * memory (at most {@link MAX_PAGES_AHEAD} per process); measured at realistic-L on a loaded
   * two-core machine it raised the cold sync's peak RSS by ~80–100 MiB without a wall-time gain
   * that could be told from the noise, so it is off until measured on a remote server.
   */
  readonly pagesAhead?: boolean;
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
  /** The coordinator of atomic re-lists across types (the ClusterSource sets it; alone, each type re-lists by itself). */
  readonly coordinator?: RelistCoordinator;
}

type WatchOutcome =
  | { readonly type: 'ended'; readonly durationMs: number; readonly events: number }
  | { readonly type: 'expired' }
  | { readonly type: 'silent' }
  | { readonly type: 'too-large'; readonly error: KubeError }
  | { readonly type: 'error'; readonly error: KubeError; readonly opened: boolean; readonly durationMs: number; readonly relist?: boolean };

type ListOutcome = { readonly ok: true } | { readonly ok: false; readonly error: KubeError };

/** A LIST page asked for before the previous one was parsed. */
interface PageAhead {
  readonly path: string;
  readonly limit: number;
  readonly continueToken: string;
  readonly response: Promise<KubeHttpResponse>;
  /** It is taken up as the current page: it no longer counts as a page ahead. */
  readonly release: () => void;
  /** It is not needed: cancel it. */
  readonly abort: () => void;
}

/**
 * The `metadata.continue` of a list page from its first bytes, without parsing it: API servers
 * write `kind`, `apiVersion`, then `metadata` (resourceVersion, continue) before `items`. `null`
 * when the page does not start that way or has no continue token (the list then goes on one page
 * at a time, from the parsed page).
 */
export function leadingContinueToken(body: string): string | null {
  const head = LIST_HEAD.exec(body.length > 4096 ? body.slice(0, 4096) : body);
  if (head === null) return null;
  const token = CONTINUE_FIELD.exec(head[1] ?? '');
  return token === null || token[1] === '' ? null : (token[1] ?? null);
}

/**
 * Pages asked for ahead at once ({@link InformerOptions.pagesAhead}), across every informer of the
 * process. Each one is a page body (~3 MB at 500 realistic pods) received while another is
 * parsed; the long lists (pods) are the ones that gain, and the short ones end early and leave
 * them the places.
 */
export const MAX_PAGES_AHEAD = 2;
let pagesAheadInFlight = 0;

const LIST_HEAD = /^\s*\{\s*(?:"(?:kind|apiVersion)"\s*:\s*"[^"\\]*"\s*,\s*)*"metadata"\s*:\s*\{([^{}]*)\}/;
const CONTINUE_FIELD = /(?:^|,)\s*"continue"\s*:\s*"([A-Za-z0-9_\-=+/.]*)"\s*(?:,|$)/;

/** A complete list held back from readers until the coordinator commits every type at once. */
interface StagedList<Record> {
  readonly epoch: number;
  readonly cache: Map<string, Record>;
  readonly resourceVersion: string | null;
}

/**
 * Whether an error is the API server's "Too large resource version" (504 Timeout with cause
 * `ResourceVersionTooLarge`, `storage.NewTooLargeResourceVersionError` upstream): the version we
 * sent is newer than its history. `body` is the raw response or the watch event's Status.
 */
export function isResourceVersionTooLarge(error: KubeError, body?: unknown): boolean {
  if (error.kind !== 'timeout' || (error.status !== undefined && error.status !== 504)) return false;
  const status = typeof body === 'string' ? safeJson(body) : body;
  if (isJsonObject(status)) {
    const causes = obj(status.details).causes;
    if (Array.isArray(causes) && causes.some((cause) => isJsonObject(cause) && cause.reason === 'ResourceVersionTooLarge')) return true;
  }
  return /too large resource version/i.test(error.message);
}

/** -1, 0, 1 when both resourceVersions are decimal (etcd revisions, as every API server sends); `null` when they cannot be ordered. */
export function compareResourceVersions(a: string | null, b: string | null): number | null {
  if (a === null || b === null || !/^\d{1,30}$/.test(a) || !/^\d{1,30}$/.test(b)) return null;
  const x = BigInt(a);
  const y = BigInt(b);
  return x < y ? -1 : x > y ? 1 : 0;
}

/** Errors of a lost connection (no HTTP answer): the server behind the next request may be another. */
function connectionLost(error: KubeError): boolean {
  return error.status === undefined && (error.kind === 'unavailable' || error.kind === 'timeout' || error.kind === 'unknown');
}

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
  /** Bumped by {@link beginRelist}; a list started in an older epoch starts again. */
  private relistEpoch = 0;
  /** The epoch whose re-list is committed (equal to `relistEpoch` when none is pending). */
  private committedEpoch = 0;
  private staged: StagedList<RecordById[Id]> | null = null;
  private commitWaiter: (() => void) | null = null;
  private wake: (() => void) | null = null;
  /** The history going backwards was logged (standalone): the re-list it causes does not log it again. */
  private backwardsLogged = false;
  private readonly coordinator: RelistCoordinator | undefined;
  private readonly options: Required<Omit<InformerOptions, 'backoff' | 'log' | 'coordinator' | 'listTimeoutMs' | 'maxWatchLineBytes' | 'maxListResponseBytes'>> & {
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
      pagesAhead: options.pagesAhead ?? false,
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
    this.coordinator = options.coordinator;
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

  /** Whether a coordinated re-list is pending (listing, or listed and waiting for the other types). */
  get relisting(): boolean {
    return this.relistEpoch !== this.committedEpoch;
  }

  /**
   * Starts a coordinated re-list (the coordinator calls it on every type): the watch is closed,
   * a wait cut short, a list in progress restarted; the new list is staged, readers keep the
   * current cache, and {@link RelistCoordinator.staged} is called when it is complete. A staged
   * list not committed yet is discarded (the history moved again).
   */
  beginRelist(): void {
    this.relistEpoch++;
    this.staged = null;
    this.stream?.close();
    this.wake?.();
    this.commitWaiter?.();
  }

  /**
   * Swaps in the staged list (the coordinator calls it for every type at once, synchronously, so
   * no reader sees a mix). Returns whether anything was swapped.
   */
  commitStaged(): boolean {
    const staged = this.staged;
    if (staged === null || staged.epoch !== this.relistEpoch) return false;
    this.staged = null;
    this.committedEpoch = staged.epoch;
    this.resourceVersion = staged.resourceVersion;
    this.syncedAt = nowIso();
    this.lists++;
    this.replace(staged.cache);
    this.markSynced();
    this.commitWaiter?.();
    return true;
  }

  /** Whether a staged list of the current epoch is ready (or the type is forbidden and takes no part). */
  isStaged(): boolean {
    return !this.relisting || (this.staged !== null && this.staged.epoch === this.relistEpoch) || this.health === 'forbidden';
  }

  /** Stops the loop, closes the watch and waits until nothing is in flight. The cache is kept. */
  async stop(): Promise<void> {
    if (!this.running) return;
    this.running = false;
    this.stopController.abort();
    this.stream?.close();
    this.commitWaiter?.();
    await this.loop;
    this.loop = null;
  }

  // ------------------------------------------------------------------------------------------

  private async run(): Promise<void> {
    let needList = true;
    while (this.running) {
      // 1. LIST (first time, after 410 Gone, and staged while a coordinated re-list is pending).
      if (needList || this.relisting) {
        const listed = await this.listAll();
        if (!this.running) return;
        if (!listed.ok) {
          if (listed.error.kind === 'forbidden' && this.relisting && this.coordinator !== undefined) {
            // A forbidden type takes no part in the swap (it is emptied now): do not hold the others back.
            await this.fail(listed.error, () => this.coordinator?.staged(this.descriptor.id));
          } else {
            await this.fail(listed.error);
          }
          continue;
        }
        if (this.relisting) {
          // Staged: wait until every type is listed and the coordinator swapped them all.
          if (this.staged?.epoch !== this.relistEpoch || !(await this.waitForCommit())) continue;
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
        case 'too-large':
          // 6. Our resourceVersion is ahead of the server: its history went backwards. Retrying
          // the watch can never succeed; only a new list can tell what the server holds now.
          if (this.coordinator !== undefined) {
            this.coordinator.historyWentBackwards(this.descriptor.id, `the API server answered "${outcome.error.message}"`);
            if (!this.relisting) this.beginRelist();
          } else {
            this.log({ resource: this.descriptor.id, level: 'warn', message: `the API server's history went backwards (${outcome.error.message}); re-listing` });
            this.backwardsLogged = true;
            needList = true;
            await this.sleep(this.nextBackoff());
          }
          break;
        case 'ended':
          if (outcome.durationMs >= this.options.backoff.resetAfterMs) this.failures = 0;
          // A server that closes watches at once, repeatedly, must not make us spin.
          if (outcome.durationMs < 1000 && outcome.events === 0 && !this.relisting) await this.sleep(this.nextBackoff());
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

  /** The newest resourceVersion seen by this type or (through the coordinator) any other. */
  private newestSeen(): string | null {
    const other = this.coordinator?.newestSeen(this.descriptor.id) ?? null;
    const order = compareResourceVersions(other, this.resourceVersion);
    if (order === null) return this.resourceVersion ?? other;
    return order > 0 ? other : this.resourceVersion;
  }

  /** Records a failure in the status and waits before the next attempt (`afterRecord` runs before the wait). */
  private async fail(error: KubeError, afterRecord?: () => void): Promise<void> {
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
    afterRecord?.();
    await this.sleep(delay);
  }

  /** Waits until the staged list is committed (`true`) or discarded / the informer stopped (`false`). */
  private async waitForCommit(): Promise<boolean> {
    const epoch = this.relistEpoch;
    const committed = new Promise<void>((resolve) => {
      this.commitWaiter = resolve;
    });
    this.coordinator?.staged(this.descriptor.id);
    if (this.relisting && this.relistEpoch === epoch && this.running) await committed;
    this.commitWaiter = null;
    return this.running && this.committedEpoch === epoch;
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
      const timer = setTimeout(() => done(), ms);
      const done = (): void => {
        clearTimeout(timer);
        signal.removeEventListener('abort', done);
        if (this.wake === done) this.wake = null;
        resolve();
      };
      signal.addEventListener('abort', done, { once: true });
      // A coordinated re-list does not wait for a backoff to end.
      this.wake = done;
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

  /**
   * 1. One complete paged LIST into a fresh map, swapped in at the end — or, while a coordinated
   * re-list is pending, staged for the coordinator to swap.
   */
  private async listAll(): Promise<ListOutcome> {
    const { pageSize, pageAttempts } = this.options;
    let fresh = new Map<string, RecordById[Id]>();
    let continueToken: string | undefined;
    let listResourceVersion: string | null = null;
    let restarts = 0;
    let attempt = 0;
    let epoch = this.relistEpoch;
    // The newest resourceVersion seen before this list began: the list cannot be older.
    let floor = this.newestSeen();
    // Halved when a page is over the response limit (a continue token accepts any limit).
    let limit = pageSize;
    /** The next page, asked for while the current one is parsed (see 1a). */
    let ahead: PageAhead | null = null;
    const dropAhead = (): void => {
      ahead?.abort();
      ahead = null;
    };
    this.listing = true;
    this.listed = 0;
    this.onChange(false);
    /** Starts the list again from the first page (what was read so far is dropped). */
    const restart = (why: string | null): void => {
      if (why !== null) this.log({ resource: this.descriptor.id, level: 'warn', message: `list ${why}; restarting it from the first page` });
      fresh = new Map();
      continueToken = undefined;
      listResourceVersion = null;
      this.listed = 0;
      epoch = this.relistEpoch;
      floor = this.newestSeen();
    };
    try {
      while (this.running) {
        if (epoch !== this.relistEpoch) restart(null); // a coordinated re-list began: list the new history
        let error: KubeError | null = null;
        let errorBody: unknown;
        let tooLarge = false;
        let body: Json | null = null;
        try {
          const path = this.path();
          // The page asked for ahead of time (below) when it is this one; otherwise it is of no use.
          let pending: Promise<KubeHttpResponse>;
          if (ahead !== null && ahead.path === path && ahead.limit === limit && ahead.continueToken === continueToken) {
            pending = ahead.response;
            ahead.release();
            ahead = null;
          } else {
            dropAhead();
            pending = this.requestPage(path, limit, continueToken, this.stopController.signal);
          }
          const response = await pending;
          if (response.status >= 200 && response.status < 300) {
            // 1a. With `pagesAhead`, the next page is asked for before this one is parsed, so the
            // server computes it while we parse and project (the continue token leads the metadata).
            // At most MAX_PAGES_AHEAD across the process: each holds one more page body in memory.
            const nextToken = this.options.pagesAhead && pagesAheadInFlight < MAX_PAGES_AHEAD ? leadingContinueToken(response.body) : null;
            if (nextToken !== null && this.running) ahead = this.requestAhead(path, limit, nextToken);
            const parsed = safeJson(response.body);
            if (isJsonObject(parsed) && Array.isArray(parsed.items)) body = parsed;
            else error = { kind: 'unknown', status: response.status, message: 'The API server sent a list that is not a JSON list.' };
          } else {
            error = errorFromResponse(response.status, response.body, response.headers);
            errorBody = response.body;
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
          if (continueToken !== undefined && restarts < 3) {
            if (error.kind === 'gone') {
              // Expired continue token (or one the server does not know): start the list again from scratch.
              restarts++;
              restart(null);
              continue;
            }
            if (isResourceVersionTooLarge(error, errorBody) || connectionLost(error)) {
              // The server behind the next page may not be the one that served the first (it
              // restarted, maybe on another state): continuing could mix two histories.
              restarts++;
              restart(`interrupted between pages (${error.message})`);
              await this.sleep(this.options.backoff.initialMs * restarts);
              continue;
            }
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
        const pageResourceVersion = str(metadata.resourceVersion);
        if (continueToken !== undefined && restarts < 3 && pageResourceVersion !== listResourceVersion) {
          // Every page of one list is served at its first page's resourceVersion: this one is not.
          restarts++;
          restart(`pages disagree on the resourceVersion (${listResourceVersion ?? 'none'}, then ${pageResourceVersion ?? 'none'})`);
          continue;
        }
        listResourceVersion ??= pageResourceVersion;
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
        if (next === null || next === '') {
          if (epoch !== this.relistEpoch) continue; // the history moved while listing: list again
          break;
        }
        continueToken = next;
      }
      if (!this.running) return { ok: true };
      if (!this.relisting && this.coordinator !== undefined && compareResourceVersions(listResourceVersion, floor) === -1) {
        // 6. A list older than what had been seen: the server's history went backwards. Every
        // type must be listed again and swapped together; this list is already one of them.
        this.coordinator.historyWentBackwards(
          this.descriptor.id,
          `a new list of ${this.descriptor.title} is at resourceVersion ${listResourceVersion ?? ''}, older than the ${floor ?? ''} already seen`,
        );
        if (!this.relisting) this.beginRelist();
      }
      if (!this.relisting && this.coordinator !== undefined && this.syncedAt !== null) {
        // A re-list of a type already shown: another cluster at this address would be shown
        // type by type, mixed with this one, unless all types are swapped together.
        await this.coordinator.confirmSameServer();
        if (!this.running) return { ok: true };
        if (epoch !== this.relistEpoch && !this.relisting) return this.listAll();
      }
      if (this.relisting) {
        this.staged = { epoch: this.relistEpoch, cache: fresh, resourceVersion: listResourceVersion };
        return { ok: true };
      }
      if (compareResourceVersions(listResourceVersion, this.resourceVersion) === -1 && !this.backwardsLogged) {
        this.log({ resource: this.descriptor.id, level: 'warn', message: `the API server's history went backwards (list at resourceVersion ${listResourceVersion ?? ''}, ${this.resourceVersion ?? ''} seen before); cache replaced by the new list` });
      }
      this.backwardsLogged = false;
      this.resourceVersion = listResourceVersion;
      this.syncedAt = nowIso();
      this.lists++;
      this.replace(fresh);
      this.markSynced();
      return { ok: true };
    } finally {
      dropAhead();
      this.listing = false;
    }
  }

  /** One LIST page. */
  private requestPage(path: string, limit: number, continueToken: string | undefined, signal: AbortSignal): Promise<KubeHttpResponse> {
    return this.connection.request({
      path,
      query: { limit, continue: continueToken, fieldSelector: this.descriptor.fieldSelector },
      timeoutMs: this.options.listTimeoutMs,
      signal,
      ...(this.options.maxListResponseBytes !== undefined ? { maxResponseBytes: this.options.maxListResponseBytes } : {}),
    });
  }

  /** A page asked for ahead of time: abortable on its own (when it turns out not to be needed) and with the informer. */
  private requestAhead(path: string, limit: number, continueToken: string): PageAhead {
    const controller = new AbortController();
    const stop = this.stopController.signal;
    const onStop = (): void => controller.abort();
    stop.addEventListener('abort', onStop, { once: true });
    const response = this.requestPage(path, limit, continueToken, controller.signal);
    // Answered or failed: the informer's stop has nothing left to cancel. (An abandoned page's
    // failure is nobody's: it must not surface as an unhandled rejection.)
    const settled = (): void => stop.removeEventListener('abort', onStop);
    response.then(settled, settled);
    pagesAheadInFlight++;
    let held = true;
    const release = (): void => {
      if (held) pagesAheadInFlight--;
      held = false;
    };
    return {
      path,
      limit,
      continueToken,
      response,
      release,
      abort: () => {
        release();
        controller.abort();
      },
    };
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
    // A coordinated re-list that begins while the watch is being opened finds no stream to close:
    // the watch closes itself once open (below), so the type takes part in the re-list.
    const epoch = this.relistEpoch;
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
      if (error.kind === 'gone') return { type: 'expired' };
      if (isResourceVersionTooLarge(error, opened.response.body)) return { type: 'too-large', error };
      return { type: 'error', error, opened: false, durationMs: 0 };
    }
    const stream = opened.stream;
    close = () => stream.close();
    this.stream = stream;
    if (epoch !== this.relistEpoch) stream.close();
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
        if (error.kind === 'gone') settle({ type: 'expired' });
        else if (isResourceVersionTooLarge(error, object)) settle({ type: 'too-large', error });
        else settle({ type: 'error', error, opened: true, durationMs: 0 });
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
