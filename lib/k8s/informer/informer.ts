/**
 * One informer per resource type: a paged LIST, then a WATCH from the list's resourceVersion,
 * caching only slim records (projected before they are stored). This module is the loop that
 * drives them: failures and their backoff, and what a list or a watch outcome leads to. The cache
 * is ./cache, the status ./status, the staging of a coordinated re-list ./relist-stage.
 *
 * Lifecycle (numbered as in the loop below):
 * 1. LIST (./list-pages): `limit` pages following `continue`, restarted on an expired continue
 *    token; the new cache replaces the old one atomically when the last page arrives (no
 *    phantoms, nothing missing).
 * 2. WATCH (./watch) from the list's resourceVersion with bookmarks; every event and bookmark
 *    advances the resourceVersion, so a watch that ends is resumed from where it stopped, without
 *    a re-list.
 * 3. 410 Gone (HTTP or an `ERROR` event with code 410) → back to 1.
 * 4. Failures wait a jittered exponential backoff (../backoff; 0.5 s → 30 s by default, reset
 *    after a healthy watch period), at least as long as a 429's `Retry-After`; the type is `stale`
 *    meanwhile. 403 marks it `forbidden`, empties its cache and retries slowly.
 * 5. Size limits: a watch event over the line limit ends the watch, marks the type stale and,
 *    after the backoff, re-lists (the cut event is unknown, so only a list tells what the cache is
 *    missing).
 * 6. The API server's history going backwards (restarted on an etcd restored from an older
 *    backup, another cluster on the same address): a watch about to resume from a version the
 *    server's history does not reach (6a, ./watch `checkResume`: kube-apiserver would accept that
 *    watch and never send anything), a watch answered 504 `ResourceVersionTooLarge` (HTTP or
 *    `ERROR` event), or a re-list whose resourceVersion is older than the cache's. With a
 *    {@link RelistCoordinator} (the ClusterSource) every type then re-lists into a staged map the
 *    readers do not see, and the coordinator swaps them all at once; alone, the informer re-lists.
 *
 * `makeInformer` from client-node is deliberately not used: it stops for good on an error.
 */
import { backoffDelay } from '../backoff';
import type { KubeConnection } from '../connection';
import type { KubeError } from '../errors';
import { errorFromException } from '../errors';
import { redact } from '../redact';
import type { RecordById, ResourceDescriptor, ResourceId } from '../resources';
import type { Json } from '../wire-to-record/json';
import { obj, str } from '../wire-to-record/json';
import { RecordCache } from './cache';
import type { ListHost } from './list-pages';
import { listPages } from './list-pages';
import type { InformerLogEvent, InformerOptions, RelistCoordinator, ResolvedInformerOptions } from './options';
import { resolveInformerOptions } from './options';
import { RelistStage } from './relist-stage';
import { compareResourceVersions } from './resource-versions';
import type { ResourceStatus } from './status';
import { StatusBook } from './status';
import type { CacheEvent, WatchHost } from './watch';
import { checkResume, watchOnce } from './watch';

type ListOutcome = { readonly ok: true } | { readonly ok: false; readonly error: KubeError };

/**
 * A list+watch cache of one resource type's slim records.
 *
 * `onChange(dataChanged)` is called synchronously after every cache change (`true`) and every
 * status change (`false`).
 */
export class ResourceInformer<Id extends ResourceId> {
  private readonly cache: RecordCache<Id>;
  private readonly book: StatusBook;
  private readonly relist = new RelistStage<RecordById[Id]>();
  private resourceVersion: string | null = null;
  private pathIndex = 0;
  private running = false;
  private loop: Promise<void> | null = null;
  private stopController = new AbortController();
  private stream: { close(): void } | null = null;
  private failures = 0;
  private consecutiveExpired = 0;
  private wake: (() => void) | null = null;
  /** The history going backwards was logged (standalone): the re-list it causes does not log it again. */
  private backwardsLogged = false;
  private readonly coordinator: RelistCoordinator | undefined;
  private readonly options: ResolvedInformerOptions;
  private readonly log: (event: InformerLogEvent) => void;
  /** What a list (./list-pages) and a watch (./watch) see of this informer. */
  private readonly lister: ListHost<Id>;
  private readonly watcher: WatchHost;

  constructor(
    private readonly connection: KubeConnection,
    readonly descriptor: ResourceDescriptor<Id>,
    private readonly onChange: (dataChanged: boolean) => void = () => undefined,
    options: InformerOptions = {},
  ) {
    this.cache = new RecordCache(descriptor, onChange);
    this.book = new StatusBook(onChange);
    this.options = resolveInformerOptions(options, connection.requestTimeoutMs);
    this.coordinator = options.coordinator;
    const log = options.log;
    // Messages are built from safe errors; redacting again costs little and guards future messages.
    this.log = log === undefined ? () => undefined : (event) => log({ ...event, message: redact(event.message) });
    const { pageSize, pageAttempts, pagesAhead, listTimeoutMs, maxListResponseBytes, watchTimeoutSeconds, watchdogMs, random, maxWatchLineBytes } = this.options;
    const common = {
      connection,
      running: () => this.running,
      stopSignal: () => this.stopController.signal,
      epoch: () => this.relist.epoch,
      path: () => this.path(),
    };
    this.lister = {
      ...common,
      descriptor,
      settings: { pageSize, pageAttempts, pagesAhead, listTimeoutMs, maxListResponseBytes, retryMs: this.options.backoff.initialMs },
      newestSeen: () => this.newestSeen(),
      olderPath: () => {
        if (this.pathIndex >= this.descriptor.paths.length - 1) return false;
        this.pathIndex++;
        return true;
      },
      known: (key) => this.cache.records.get(key),
      listed: (count) => {
        this.book.listed = count;
      },
      progressed: () => this.onChange(false),
      sleep: (ms) => this.sleep(ms),
      log: (level, message) => this.log({ resource: this.descriptor.id, level, message }),
    };
    this.watcher = {
      ...common,
      descriptor,
      settings: { watchTimeoutSeconds, watchdogMs, random, maxWatchLineBytes },
      resourceVersion: () => this.resourceVersion,
      activity: (at) => {
        this.book.lastEventAt = new Date(at).toISOString();
      },
      apply: (type, object) => this.applyEvent(type, object),
      streamOpened: (stream) => {
        this.stream = stream;
      },
      watchStarted: (synced) => {
        this.book.watches++;
        if (synced) this.book.markSynced();
      },
      streamClosed: () => {
        this.stream = null;
      },
    };
  }

  /** Incremented on every cache change. */
  get version(): number {
    return this.cache.version;
  }

  /** The cached records by `namespace/name` (or `name`). Do not mutate. */
  get records(): ReadonlyMap<string, RecordById[Id]> {
    return this.cache.records;
  }

  /** The cached records as an array, rebuilt only when the cache changed since the last call. */
  items(): readonly RecordById[Id][] {
    return this.cache.items();
  }

  /** Current status. */
  status(): ResourceStatus {
    return this.book.status(this.descriptor.id, this.descriptor.title, this.resourceVersion, this.cache.size);
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
    return this.relist.pending;
  }

  /**
   * Starts a coordinated re-list (the coordinator calls it on every type): the watch is closed,
   * a wait cut short, a list in progress restarted; the new list is staged, readers keep the
   * current cache, and {@link RelistCoordinator.staged} is called when it is complete. A staged
   * list not committed yet is discarded (the history moved again).
   */
  beginRelist(): void {
    this.relist.begin();
    this.stream?.close();
    this.wake?.();
    this.relist.wakeWaiter();
  }

  /**
   * Swaps in the staged list (the coordinator calls it for every type at once, synchronously, so
   * no reader sees a mix). Returns whether anything was swapped.
   */
  commitStaged(): boolean {
    const staged = this.relist.take();
    if (staged === null) return false;
    this.resourceVersion = staged.resourceVersion;
    this.book.listCompleted();
    this.cache.replace(staged.cache);
    this.book.markSynced();
    this.relist.wakeWaiter();
    return true;
  }

  /** Whether a staged list of the current epoch is ready (or the type is forbidden and takes no part). */
  isStaged(): boolean {
    return !this.relisting || this.relist.hasStaged() || this.book.health === 'forbidden';
  }

  /**
   * Ends the current watch (or a backoff wait) so that it resumes now from its resourceVersion,
   * after 6a's check: the connection's liveness probe calls it when the API server answers again
   * after a silence, so a stream that died unnoticed meanwhile is replaced at once.
   */
  restartWatch(): void {
    this.stream?.close();
    this.wake?.();
  }

  /** Stops the loop, closes the watch and waits until nothing is in flight. The cache is kept. */
  async stop(): Promise<void> {
    if (!this.running) return;
    this.running = false;
    this.stopController.abort();
    this.stream?.close();
    this.relist.wakeWaiter();
    await this.loop;
    this.loop = null;
  }

  // ------------------------------------------------------------------------------------------

  private async run(): Promise<void> {
    let needList = true;
    while (this.running) {
      // Whether the watch below starts from a list's resourceVersion (else it resumes an earlier watch's: 6a).
      let fromList = false;
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
          if (!this.relist.hasStaged() || !(await this.relist.waitForCommit(() => this.coordinator?.staged(this.descriptor.id), () => this.running))) continue;
        }
        needList = false;
        fromList = true;
      }
      // 2. WATCH from the last resourceVersion — after 6a's check when it resumes an earlier watch.
      const outcome = (fromList ? null : await checkResume(this.watcher)) ?? (this.running ? await watchOnce(this.watcher) : null);
      if (outcome === null) return;
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
      if (this.book.health !== 'forbidden') {
        this.log({ resource: this.descriptor.id, level: 'warn', message: `forbidden: ${error.message}` });
      }
      // We can no longer tell what exists: keep nothing rather than possibly phantom objects.
      if (this.cache.size > 0) this.cache.replace(new Map());
      delay = Math.max(delay, this.options.forbiddenRetryMs);
    } else if (this.book.health !== 'stale') {
      this.log({ resource: this.descriptor.id, level: 'warn', message: `stale: ${error.message}` });
    }
    if (error.retryAfterSeconds !== undefined) delay = Math.max(delay, error.retryAfterSeconds * 1000);
    this.book.failed(error);
    afterRecord?.();
    await this.sleep(delay);
  }

  /** The jittered delay before the next attempt (../backoff); each call counts one failure. */
  private nextBackoff(): number {
    const delay = backoffDelay(this.options.backoff, this.failures, this.options.random);
    this.failures = Math.min(this.failures + 1, 60);
    return delay;
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

  private path(): string {
    return this.descriptor.paths[this.pathIndex] ?? this.descriptor.paths[0] ?? '/';
  }

  /**
   * 1. One complete paged LIST (./list-pages) swapped in at the end — or, while a coordinated
   * re-list is pending, staged for the coordinator to swap. 6. A list older than what was seen
   * before shows the history went backwards.
   */
  private async listAll(): Promise<ListOutcome> {
    this.book.listing = true;
    this.book.listed = 0;
    this.onChange(false);
    try {
      const listed = await listPages(this.lister);
      if (listed.type === 'stopped') return { ok: true };
      if (listed.type === 'failed') return { ok: false, error: listed.error };
      const { cache: fresh, resourceVersion: listResourceVersion, epoch, floor } = listed;
      if (!this.relisting && this.coordinator !== undefined && compareResourceVersions(listResourceVersion, floor) === -1) {
        // 6. A list older than what had been seen: the server's history went backwards. Every
        // type must be listed again and swapped together; this list is already one of them.
        this.coordinator.historyWentBackwards(
          this.descriptor.id,
          `a new list of ${this.descriptor.title} is at resourceVersion ${listResourceVersion ?? ''}, older than the ${floor ?? ''} already seen`,
        );
        if (!this.relisting) this.beginRelist();
      }
      if (!this.relisting && this.coordinator !== undefined && this.book.syncedAt !== null) {
        // A re-list of a type already shown: another cluster at this address would be shown
        // type by type, mixed with this one, unless all types are swapped together.
        await this.coordinator.confirmSameServer();
        if (!this.running) return { ok: true };
        if (epoch !== this.relist.epoch && !this.relisting) return this.listAll();
      }
      if (this.relisting) {
        this.relist.stage(fresh, listResourceVersion);
        return { ok: true };
      }
      if (compareResourceVersions(listResourceVersion, this.resourceVersion) === -1 && !this.backwardsLogged) {
        this.log({ resource: this.descriptor.id, level: 'warn', message: `the API server's history went backwards (list at resourceVersion ${listResourceVersion ?? ''}, ${this.resourceVersion ?? ''} seen before); cache replaced by the new list` });
      }
      this.backwardsLogged = false;
      this.resourceVersion = listResourceVersion;
      this.book.listCompleted();
      this.cache.replace(fresh);
      this.book.markSynced();
      return { ok: true };
    } finally {
      this.book.listing = false;
    }
  }

  /** 2. Applies one watch event to the cache and moves the resourceVersion on. */
  private applyEvent(type: CacheEvent, object: Json): void {
    const rv = str(obj(object.metadata).resourceVersion);
    if (type !== 'BOOKMARK') this.cache.apply(object, type !== 'DELETED');
    if (rv !== null && rv !== '') this.resourceVersion = rv;
    // The watch made progress: a later 410 is not part of a list/expire loop.
    this.consecutiveExpired = 0;
  }
}
