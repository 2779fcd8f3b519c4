/**
 * A full garbage collection when the server is idle and its heap has grown well past what it keeps.
 *
 * A cold sync parses hundreds of MB of list pages, a full analysis pass builds every Service's
 * report, and page views of a large cluster build big responses: each leaves a heap far larger than
 * what it keeps. V8 collects that garbage when it needs the room, and its memory reducer, which
 * gives pages back to the system, starts only some seconds into a quiet period and often does not
 * act at all — so the resident memory (what a Pod's memory limit and the kubelet's eviction count)
 * stays near the last burst's peak. At realistic L (150k pods), a server that had synced and
 * answered a warm-up of page views stayed at ~700–750 MiB resident with ~440 MB of heap in use
 * after 10 s without requests; one full collection left ~510 MiB and ~320 MB.
 *
 * So every {@link CHECK_MS} the collector looks: when the event loop was less than
 * {@link IDLE_UTILIZATION} busy since the last look (no requests being served, no pass running), the
 * process's resident memory is {@link MIN_GROWTH_MIB} MiB and an eighth above its lowest since the
 * last collection, and the last collection is {@link MIN_INTERVAL_MS} ago, it collects once.
 * (Resident memory, not the heap in use: V8 may have collected on its own meanwhile and still hold
 * the pages.) A collection is a pause of a
 * few hundred ms at L, which is why it waits for an idle loop. The timer does not keep the process
 * alive.
 *
 * The collection is the one the inspector protocol's `HeapProfiler.collectGarbage` makes (V8's
 * low-memory notification: every available garbage, old pages compacted and given back at once),
 * through an in-process `node:inspector` session — no port is opened, and the session is closed
 * right after. A plain `gc()` (`--expose-gc`) frees the same objects but leaves the fragmented
 * pages resident: on a synthetic 530 MiB heap with a tenth kept, `gc()` left 452 MiB resident two
 * seconds later, the low-memory collection 304 MiB at once.
 *
 * `ZONESCOPE_IDLE_GC=0` turns it off.
 */
import { Session } from 'node:inspector/promises';
import { performance } from 'node:perf_hooks';

/** How often the collector looks, milliseconds (the window whose event-loop use must be low). */
export const CHECK_MS = 1_500;
/** Event-loop utilisation (0–1) below which the server counts as idle. */
export const IDLE_UTILIZATION = 0.05;
/** Growth of the resident memory over its lowest since the last collection before another is worth it, MiB (and at least an eighth more). */
export const MIN_GROWTH_MIB = 48;
/** The least time between two collections, milliseconds. */
export const MIN_INTERVAL_MS = 10_000;

/** Event-loop utilisation since a mark (`performance.eventLoopUtilization` in Node). */
export interface LoopMeter {
  mark(): unknown;
  utilizationSince(mark: unknown): number;
}

/** What the collector needs from its surroundings (replaced in tests). */
export interface CollectorHooks {
  /** A full collection. */
  readonly collect: () => Promise<void>;
  readonly meter: LoopMeter;
  readonly setTimer: (run: () => void, ms: number) => { unref?: () => void };
  readonly now: () => number;
  /** Told of every collection: resident memory and heap in use before and after, and how long it took. */
  readonly onCollect: (event: { readonly rssBeforeMiB: number; readonly rssAfterMiB: number; readonly heapBeforeMiB: number; readonly heapAfterMiB: number; readonly ms: number }) => void;
  /** The heap in use, bytes. */
  readonly heapUsed: () => number;
  /** The process's resident memory, bytes. */
  readonly rss: () => number;
}

/** V8's low-memory collection through an in-process inspector session (see the module comment). */
export async function lowMemoryCollect(): Promise<void> {
  const session = new Session();
  session.connect();
  // The promise form on purpose: disconnect() called inside the callback form's reply callback blocks
  // the thread for good (Node 20 and 24); after the awaited reply the dispatch is over.
  await session.post('HeapProfiler.collectGarbage');
  session.disconnect();
}

const defaultMeter: LoopMeter = {
  mark: () => performance.eventLoopUtilization(),
  utilizationSince: (mark) => performance.eventLoopUtilization(mark as ReturnType<typeof performance.eventLoopUtilization>).utilization,
};

const mib = (bytes: number) => Math.round(bytes / 1048576);

/** Collects garbage when the server is idle and its heap has grown (see the module comment). */
export class IdleCollector {
  private readonly hooks: Required<CollectorHooks>;
  private baseline: number;
  private lastAt = Number.NEGATIVE_INFINITY;
  private mark: unknown = null;
  private running = false;

  constructor(hooks: Partial<CollectorHooks> = {}) {
    this.hooks = {
      collect: hooks.collect ?? lowMemoryCollect,
      meter: hooks.meter ?? defaultMeter,
      setTimer: hooks.setTimer ?? ((run, ms) => setTimeout(run, ms)),
      now: hooks.now ?? (() => performance.now()),
      onCollect: hooks.onCollect ?? (() => undefined),
      rss: hooks.rss ?? (() => process.memoryUsage.rss()),
      heapUsed: hooks.heapUsed ?? (() => process.memoryUsage().heapUsed),
    };
    this.baseline = this.hooks.rss();
  }

  /** Starts looking (once; later calls do nothing). */
  start(): void {
    if (this.running) return;
    this.running = true;
    this.next();
  }

  private next(): void {
    this.mark = this.hooks.meter.mark();
    const timer = this.hooks.setTimer(() => void this.check(), CHECK_MS);
    timer.unref?.();
  }

  /** One look (public for tests, which drive the timer themselves); resolves when it is done. */
  async check(): Promise<void> {
    const idle = this.hooks.meter.utilizationSince(this.mark) < IDLE_UTILIZATION;
    const rss = this.hooks.rss();
    if (rss < this.baseline) this.baseline = rss;
    const grown = rss - this.baseline >= Math.max(MIN_GROWTH_MIB * 1048576, this.baseline / 8);
    if (idle && grown && this.hooks.now() - this.lastAt >= MIN_INTERVAL_MS) {
      const heapBefore = this.hooks.heapUsed();
      const startedAt = this.hooks.now();
      await this.hooks.collect();
      this.lastAt = this.hooks.now();
      this.baseline = this.hooks.rss();
      this.hooks.onCollect({ rssBeforeMiB: mib(rss), rssAfterMiB: mib(this.baseline), heapBeforeMiB: mib(heapBefore), heapAfterMiB: mib(this.hooks.heapUsed()), ms: Math.round(this.lastAt - startedAt) });
    }
    if (this.running) this.next();
  }
}
