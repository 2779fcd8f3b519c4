/**
 * The cluster registry: every cluster the dashboard can show, one {@link ClusterEntry} per
 * kubeconfig context (or per name of `ZONESCOPE_CONTEXTS`), and the {@link ClusterSource}s of
 * those opened so far.
 *
 * - Entries are read once, when the registry is built, from the kubeconfig exactly as
 *   `createConnection` reads it (`KUBECONFIG` lists merged as kubectl merges them, else
 *   `~/.kube/config`). `ZONESCOPE_CONTEXTS` (comma-separated; `*` or unset = every context, in
 *   kubeconfig order) chooses and orders them; a name the kubeconfig lacks becomes an entry with a
 *   {@link ClusterEntry.configError}. The default cluster is `ZONESCOPE_CONTEXT`, else the
 *   kubeconfig's current context (when it is one of the entries), else the first entry; it comes
 *   first.
 * - Snapshot (`ZONESCOPE_SNAPSHOT`), in-cluster and unconfigured installations have exactly one
 *   entry, id `default`, whose source is what `createClusterSource(config)` makes today.
 * - Sources are created lazily by {@link ClusterRegistry.open} (one set of watches per cluster),
 *   at most {@link ClusterRegistry.maxOpen} at once (`ZONESCOPE_MAX_OPEN_CLUSTERS`, default 8; the
 *   default cluster always has its place), and closed again by {@link ClusterRegistry.sweep}
 *   once unused for {@link ClusterRegistry.idleMs} (`ZONESCOPE_CLUSTER_IDLE_MINUTES`, default 15,
 *   0 = never), run every minute by an unref'd timer. The default cluster never closes.
 * - The fleet page opens clusters too ({@link OpenOptions} `for: 'fleet'`), but its reads are not
 *   use: they never restart a cluster's idle clock, and at the limit a cluster only the fleet page
 *   opened closes to make room for one a user opens, so a fleet page cannot hold every place.
 * - A source that fails (unreachable, credentials refused, a broken context) is open like any
 *   other and says so through its own statuses and problems; nothing a source does throws out of
 *   the registry or touches another entry.
 *
 * Not server-only (the analyze CLI and benchmarks use it); the clock is injectable for tests. The
 * entries themselves are ./cluster-entries, their ids ./cluster-ids.
 */
import type { ClusterSource } from './cluster-source';
import type { ClusterEntry, ClusterRegistryMode, RegistryConfig } from './cluster-entries';
import { clusterEntriesFromEnv } from './cluster-entries';
import type { SourceConfig } from './cluster-sources/create-source';
import { createClusterSource } from './cluster-sources/create-source';
import { UnavailableClusterSource } from './cluster-sources/unavailable-source';

/**
 * `idle`: never opened; `open`: a source exists (synced, syncing or failing: see its statuses);
 * `closed-idle`: its source was stopped after {@link ClusterRegistry.idleMs} unused; `error`: not
 * open and cannot be ({@link ClusterEntry.configError}).
 */
export type ClusterState = 'idle' | 'open' | 'closed-idle' | 'error';

/** Options of {@link ClusterRegistry}. */
export interface ClusterRegistryOptions {
  /** The configuration (the process' in the server). */
  readonly config: RegistryConfig;
  /** Clock in ms (default `Date.now`). */
  readonly now?: () => number;
  /**
   * Creates an entry's source, not started (default: `createClusterSource` with the configuration
   * and `ZONESCOPE_CONTEXT` set to the entry's context, warnings logged to stderr).
   */
  readonly createSource?: (entry: ClusterEntry) => ClusterSource;
  /** Idle time after which a cluster closes (default `ZONESCOPE_CLUSTER_IDLE_MINUTES`, 15 min; 0 = never). */
  readonly idleMs?: number;
  /** Most clusters open at once, the default counted (default `ZONESCOPE_MAX_OPEN_CLUSTERS`, 8). */
  readonly maxOpen?: number;
  /** How often the timer runs {@link ClusterRegistry.sweep} (default one minute; 0 = no timer, tests). */
  readonly sweepIntervalMs?: number;
}

/** Result of {@link ClusterRegistry.open}. */
export type OpenResult =
  | { readonly ok: true; readonly source: ClusterSource }
  | { readonly ok: false; readonly reason: 'unknown' | 'limit' | 'config'; readonly message: string };

const SWEEP_INTERVAL_MS = 60_000;

/** "15 min", "90 s", "2 h" for the limit message. */
function formatDuration(ms: number): string {
  if (ms % 3_600_000 === 0) return `${ms / 3_600_000} h`;
  if (ms % 60_000 === 0) return `${ms / 60_000} min`;
  return `${Math.round(ms / 1000)} s`;
}

/** The default source factory: today's `createClusterSource`, for the entry's context. */
function defaultSourceFactory(config: SourceConfig): (entry: ClusterEntry) => ClusterSource {
  return (entry) => {
    const prefix = entry.isDefault ? '[zonescope]' : `[zonescope ${entry.context ?? entry.id}]`;
    return createClusterSource(entry.context === null ? config : { ...config, ZONESCOPE_CONTEXT: entry.context }, {
      live: {
        log: (event) => {
          if (event.level === 'warn') console.warn(`${prefix} ${event.resource}: ${event.message}`);
        },
      },
    });
  };
}

interface OpenCluster {
  readonly source: ClusterSource;
  lastUsed: number;
  /** Opened by the fleet page and not viewed since: at the limit it gives its place to a cluster a user opens. */
  fleetOnly: boolean;
}

/** Who opens a cluster (see {@link ClusterRegistry.open}). */
export interface OpenOptions {
  /**
   * `page` (the default): a user works in the cluster — its idle clock restarts, and at the limit a
   * cluster only the fleet page opened closes to make room. `fleet`: the fleet page reads its
   * figures — an open cluster's idle clock is left alone (a fleet page left open keeps nothing
   * alive), and at the limit nothing closes for it.
   */
  readonly for?: 'page' | 'fleet';
}

/** The clusters of one installation and the sources of those open (see the module comment). */
export class ClusterRegistry {
  readonly mode: ClusterRegistryMode;
  /** Idle time (ms) after which a non-default cluster closes; 0 = never. */
  readonly idleMs: number;
  /** Most clusters open at once, the default counted. */
  readonly maxOpen: number;
  private readonly list: readonly ClusterEntry[];
  private readonly byId = new Map<string, ClusterEntry>();
  private readonly now: () => number;
  private readonly createSource: (entry: ClusterEntry) => ClusterSource;
  private readonly opened = new Map<string, OpenCluster>();
  /** Last use of every cluster used so far (kept after it closes). */
  private readonly used = new Map<string, number>();
  /** When each cluster closed for idleness or to make room (until it opens again). */
  private readonly closedIdle = new Map<string, number>();
  /** The cluster whose opening closed it, for those closed to make room (until it opens again). */
  private readonly closedForRoom = new Map<string, string>();
  private timer: ReturnType<typeof setInterval> | null = null;
  private readonly closeListeners = new Set<(entry: ClusterEntry, source: ClusterSource) => void>();

  constructor(options: ClusterRegistryOptions) {
    const built = clusterEntriesFromEnv(options.config);
    this.mode = built.mode;
    this.list = built.entries;
    for (const entry of this.list) this.byId.set(entry.id, entry);
    this.now = options.now ?? Date.now;
    this.createSource = options.createSource ?? defaultSourceFactory(options.config);
    this.idleMs = Math.max(0, options.idleMs ?? Math.round(options.config.ZONESCOPE_CLUSTER_IDLE_MINUTES * 60_000));
    this.maxOpen = Math.max(1, Math.floor(options.maxOpen ?? options.config.ZONESCOPE_MAX_OPEN_CLUSTERS));
    const interval = options.sweepIntervalMs ?? SWEEP_INTERVAL_MS;
    if (this.idleMs > 0 && interval > 0 && this.list.length > 1) {
      this.timer = setInterval(() => this.sweep(), interval);
      this.timer.unref();
    }
  }

  /** Every cluster, default first, then in kubeconfig (or `ZONESCOPE_CONTEXTS`) order. */
  entries(): readonly ClusterEntry[] {
    return this.list;
  }

  defaultEntry(): ClusterEntry {
    const first = this.list[0];
    if (first === undefined) throw new Error('cluster registry without entries');
    return first;
  }

  entry(id: string): ClusterEntry | null {
    return this.byId.get(id) ?? null;
  }

  /**
   * The cluster's source, created and started on first use (and again after it closed), its
   * last-use time touched for a page (see {@link OpenOptions}). Refuses an unknown id, a non-default
   * entry with a configuration error, and a cluster beyond {@link maxOpen} — after closing those
   * idle by now and, for a page, the least recently opened cluster only the fleet page opened. The
   * default cluster always opens: when its configuration is broken, its source reports that, as a
   * single cluster did before.
   */
  open(id: string, options: OpenOptions = {}): OpenResult {
    const forPage = options.for !== 'fleet';
    const entry = this.byId.get(id);
    if (entry === undefined) return { ok: false, reason: 'unknown', message: `There is no cluster "${id}".` };
    const current = this.opened.get(id);
    if (current !== undefined) {
      if (forPage) {
        this.touchOpen(id, current);
        current.fleetOnly = false;
      }
      return { ok: true, source: current.source };
    }
    if (entry.configError !== null && !entry.isDefault) return { ok: false, reason: 'config', message: entry.configError };
    // The default always has its place, open yet or not; at the limit, clusters idle by now close
    // first (the timer runs only every minute), then for a page one the fleet page alone opened.
    if (!entry.isDefault && this.atLimit() && (this.sweep().length === 0 || this.atLimit()) && !(forPage && this.makeRoom(id))) {
      return { ok: false, reason: 'limit', message: this.limitMessage(entry) };
    }
    const source = this.startSource(entry);
    const opened: OpenCluster = { source, lastUsed: this.now(), fleetOnly: !forPage };
    this.opened.set(id, opened);
    this.closedIdle.delete(id);
    this.closedForRoom.delete(id);
    this.used.set(id, opened.lastUsed);
    return { ok: true, source };
  }

  /** The source if open, without opening it or touching its last use. */
  peek(id: string): ClusterSource | null {
    return this.opened.get(id)?.source ?? null;
  }

  /** Marks an open cluster used now (no effect on others). */
  touch(id: string): void {
    const current = this.opened.get(id);
    if (current !== undefined) this.touchOpen(id, current);
  }

  /**
   * Calls `listener` for every cluster the registry closes — unused for {@link idleMs}, to make
   * room at the limit, or when the registry stops — with the source it had, right after telling
   * that source to stop: what lives as long as a cluster is open (its traffic source) stops with
   * it. A listener that throws is ignored. Returns the unsubscribe function.
   */
  onClose(listener: (entry: ClusterEntry, source: ClusterSource) => void): () => void {
    this.closeListeners.add(listener);
    return () => {
      this.closeListeners.delete(listener);
    };
  }

  /** Ids of the open clusters, in {@link entries} order. */
  openIds(): readonly string[] {
    return this.list.filter((entry) => this.opened.has(entry.id)).map((entry) => entry.id);
  }

  /** See {@link ClusterState}. */
  state(id: string): ClusterState | null {
    const entry = this.byId.get(id);
    if (entry === undefined) return null;
    if (this.opened.has(id)) return 'open';
    if (entry.configError !== null && !entry.isDefault) return 'error';
    return this.closedIdle.has(id) ? 'closed-idle' : 'idle';
  }

  /** When the cluster closed for idleness or to make room (ms), `null` unless its state is `closed-idle`. */
  closedAt(id: string): number | null {
    return this.closedIdle.get(id) ?? null;
  }

  /** The cluster a user opened in its place, when it closed to make room (else `null`). */
  closedFor(id: string): ClusterEntry | null {
    const by = this.closedForRoom.get(id);
    return by === undefined ? null : (this.byId.get(by) ?? null);
  }

  /** Last use (ms) of the cluster, kept after it closes; `null` when never used. */
  lastUsed(id: string): number | null {
    return this.used.get(id) ?? null;
  }

  /**
   * Stops the sources unused for {@link idleMs} (never the default; nothing when 0) and returns
   * their ids. Their data is dropped with them; opening again starts afresh.
   */
  sweep(): readonly string[] {
    if (this.idleMs <= 0) return [];
    const now = this.now();
    const closed: string[] = [];
    for (const entry of this.list) {
      const current = this.opened.get(entry.id);
      if (current === undefined || entry.isDefault || now - current.lastUsed < this.idleMs) continue;
      this.opened.delete(entry.id);
      this.closedIdle.set(entry.id, now);
      closed.push(entry.id);
      stopQuietly(current.source, entry);
      this.closed(entry, current.source);
    }
    return closed;
  }

  /** Stops the timer and every open source (open() afterwards starts sources again, without the timer). */
  async stop(): Promise<void> {
    if (this.timer !== null) clearInterval(this.timer);
    this.timer = null;
    const open = [...this.opened].map(([id, current]) => ({ entry: this.byId.get(id), source: current.source }));
    this.opened.clear();
    const stopped = Promise.all(open.map(({ source }) => source.stop().catch(() => undefined)));
    for (const { entry, source } of open) if (entry !== undefined) this.closed(entry, source);
    await stopped;
  }

  /** Tells the close listeners (see {@link onClose}). */
  private closed(entry: ClusterEntry, source: ClusterSource): void {
    for (const listener of this.closeListeners) {
      try {
        listener(entry, source);
      } catch {
        // One listener's failure is not the registry's.
      }
    }
  }

  /** Whether one more non-default cluster would exceed {@link maxOpen} (the default keeps its place). */
  private atLimit(): boolean {
    return this.openOthers() + 1 >= this.maxOpen;
  }

  /** Closes the least recently opened cluster only the fleet page opened, for `forId`; whether one closed. */
  private makeRoom(forId: string): boolean {
    let victim: { id: string; current: OpenCluster } | null = null;
    for (const [id, current] of this.opened) {
      if (!current.fleetOnly || this.byId.get(id)?.isDefault) continue;
      if (victim === null || current.lastUsed < victim.current.lastUsed) victim = { id, current };
    }
    if (victim === null) return false;
    const entry = this.byId.get(victim.id);
    this.opened.delete(victim.id);
    this.closedIdle.set(victim.id, this.now());
    this.closedForRoom.set(victim.id, forId);
    if (entry) {
      stopQuietly(victim.current.source, entry);
      this.closed(entry, victim.current.source);
    }
    return true;
  }

  /** Open clusters other than the default. */
  private openOthers(): number {
    let count = 0;
    for (const id of this.opened.keys()) if (!this.byId.get(id)?.isDefault) count++;
    return count;
  }

  private touchOpen(id: string, current: OpenCluster): void {
    current.lastUsed = this.now();
    this.used.set(id, current.lastUsed);
  }

  private limitMessage(entry: ClusterEntry): string {
    const closing =
      this.idleMs > 0
        ? `Clusters unused for ${formatDuration(this.idleMs)} close (ZONESCOPE_CLUSTER_IDLE_MINUTES); raise the limit or try again later.`
        : 'Clusters do not close for idleness (ZONESCOPE_CLUSTER_IDLE_MINUTES=0); raise the limit.';
    const count = this.maxOpen === 1 ? '1 cluster is open' : `${this.maxOpen} clusters are open`;
    return `Cannot open cluster "${entry.context ?? entry.id}": ${count}, the most ZONESCOPE_MAX_OPEN_CLUSTERS allows. ${closing}`;
  }

  /** Creates and starts the entry's source; a factory or start that throws becomes a source reporting it. */
  private startSource(entry: ClusterEntry): ClusterSource {
    let source: ClusterSource;
    try {
      source = this.createSource(entry);
    } catch (error) {
      return new UnavailableClusterSource(`Cannot connect to cluster "${entry.context ?? entry.id}": ${error instanceof Error ? error.message : String(error)}`, entry.context);
    }
    try {
      source.start();
    } catch (error) {
      stopQuietly(source, entry);
      return new UnavailableClusterSource(`Cannot start cluster "${entry.context ?? entry.id}": ${error instanceof Error ? error.message : String(error)}`, entry.context);
    }
    return source;
  }
}

function stopQuietly(source: ClusterSource, entry: ClusterEntry): void {
  try {
    source.stop().catch((error: unknown) => console.warn(`[zonescope] stopping cluster "${entry.context ?? entry.id}": ${error instanceof Error ? error.message : String(error)}`));
  } catch {
    // A source whose stop() throws synchronously has nothing left to stop.
  }
}
