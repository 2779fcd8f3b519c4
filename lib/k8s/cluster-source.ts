/**
 * `ClusterSource`: the one cluster model the rest of the app reads, from one of two sources —
 * live (informers over a {@link KubeConnection}) or a snapshot (files loaded once).
 *
 * Reads never call the API server: {@link ClusterSource.snapshot} and {@link ClusterSource.index}
 * assemble cached slim records, memoised per change generation (rebuilt lazily, at most once per
 * generation, and per resource type only when that type changed).
 *
 * The process-wide singleton (one set of watches whatever the number of callers) lives in
 * `./source` (`getClusterSource()`), which is server-only.
 */
import path from 'node:path';
import type { ClusterIndex, ClusterSnapshot, ServerVersionRecord } from '../topology/model/cluster-model';
import { EMPTY_SNAPSHOT, INDEX_KEYS, indexCluster } from '../topology/model/cluster-model';
import type { ConnectionEnv, KubeConnection } from './connection';
import { connectionOptionsFromEnv, createConnection } from './connection';
import type { KubeError } from './errors';
import { errorFromException, errorFromResponse, isPermanent } from './errors';
import type { InformerLogEvent, InformerOptions, RelistCoordinator, ResourceStatus } from './informer';
import { compareResourceVersions, DEFAULT_BACKOFF, ResourceInformer } from './informer';
import { obj, projectServerVersion } from './wire-to-record';
import type { RecordById, ResourceId } from './resources';
import { assembleSnapshot, RESOURCE_IDS, RESOURCES } from './resources';
import type { SnapshotProblem, SnapshotResult, SnapshotSummary } from './snapshot';
import { formatProblem, loadSnapshot } from './snapshot';

/** A change notification. */
export interface ClusterChange {
  /** The generation after the change(s) this notification covers. */
  readonly generation: number;
  /** Whether records changed (otherwise only statuses did). */
  readonly dataChanged: boolean;
}

/** Where the data comes from. */
export type ClusterSourceMode = 'live' | 'snapshot';

/**
 * A re-list of every type after the API server's history went backwards: readers keep the
 * previous data until all types are listed, then every type is swapped at once.
 */
export interface RelistState {
  /** When it began (ISO). */
  readonly since: string;
  /** What showed it (safe to show). */
  readonly reason: string;
}

/** The type whose resourceVersions may come from another etcd (`--etcd-servers-overrides=/events#…`). */
const SEPARATE_HISTORY: ResourceId = 'events';

/** The header's words for a {@link RelistState}. */
export const RELISTING_MESSAGE = "Re-listing after the API server's history went backwards";

/** The cluster model, whatever its source. */
export interface ClusterSource {
  readonly mode: ClusterSourceMode;
  /** Kubeconfig context (live), `null` for snapshots. */
  readonly contextName: string | null;
  /** API server URL without credentials (live), `null` for snapshots. */
  readonly serverUrl: string | null;
  /** Snapshot path(s) (snapshot mode), `null` when live. */
  readonly snapshotPath: string | null;
  /** The connection for writes (live only). */
  readonly connection: KubeConnection | null;
  /** Incremented on every change of the records (or the server version). */
  readonly generation: number;
  /** Starts syncing (idempotent). */
  start(): void;
  /** Stops watches and timers; the data stays readable. */
  stop(): Promise<void>;
  /** The whole cluster as plain data (memoised per generation). */
  snapshot(): ClusterSnapshot;
  /** Lookups over {@link snapshot} (memoised per generation, rebuilt per changed type). */
  index(): ClusterIndex;
  /** Status of every resource type read. */
  statuses(): readonly ResourceStatus[];
  /** Status of one resource type. */
  status(id: ResourceId): ResourceStatus;
  /** The server version, `null` while unknown. */
  serverVersion(): ServerVersionRecord | null;
  /** The re-list in progress after the API server's history went backwards, `null` when none. */
  relisting(): RelistState | null;
  /** Whether every resource type finished its first sync (synced, or forbidden). */
  isSynced(): boolean;
  /**
   * Resolves `true` once {@link isSynced}; `false` after `timeoutMs`, or as soon as a resource type
   * failed its first sync permanently (see {@link permanentFailure}: a context, TLS or credential
   * problem does not fix itself, so waiting for it is pointless).
   */
  waitForSync(timeoutMs?: number): Promise<boolean>;
  /** Problems of the source as a whole (snapshot load errors, version lookup failure). Safe to show. */
  problems(): readonly string[];
  /**
   * Subscribes to changes; notifications are coalesced (at most one per `notifyDelayMs`, default
   * one macrotask). Returns the unsubscribe function.
   */
  onChange(listener: (change: ClusterChange) => void): () => void;
}

/**
 * The failure that keeps the first sync from completing until the user changes something (see
 * `isPermanent`: credentials refused, a credential plugin failing, a TLS certificate that does not
 * match, no usable configuration): the error of the first type never synced that failed that way.
 * `null` when there is none (still syncing, or failing in ways that may pass: connection refused,
 * 5xx, timeouts).
 */
export function permanentFailure(statuses: readonly ResourceStatus[]): KubeError | null {
  for (const status of statuses) {
    if (status.syncedAt === null && status.health === 'stale' && status.error !== null && isPermanent(status.error)) return status.error;
  }
  return null;
}

// ---------------------------------------------------------------------------------------------
// Incremental index

/** Which snapshot array each index lookup is built from. */
const INDEX_SOURCES = {
  nodesByName: 'nodes',
  servicesByKey: 'services',
  slicesByService: 'endpointSlices',
  podsByNamespace: 'pods',
  deploymentsByKey: 'deployments',
  replicaSetsByKey: 'replicaSets',
  hpasByTarget: 'hpas',
  eventsByService: 'events',
} as const satisfies Record<Exclude<keyof ClusterIndex, 'snapshot'>, keyof ClusterSnapshot>;

type IndexField = keyof typeof INDEX_SOURCES;


/** Lookups that group records into lists (by Service or namespace). */
const GROUPED_FIELDS: ReadonlySet<IndexField> = new Set<IndexField>(['slicesByService', 'podsByNamespace', 'eventsByService']);

/** The key each lookup files a record under, as {@link indexCluster} files it. */
const LOOKUP_KEYS: { readonly [F in IndexField]: (record: never) => string | null } = INDEX_KEYS;

/** At most this many replaced records are patched into a lookup; more, and it is rebuilt. */
const PATCH_LIMIT = 64;

function sameItems<T>(a: readonly T[] | undefined, b: readonly T[]): boolean {
  if (a === undefined || a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/**
 * The lookup `field` for `after`, from its lookup `before` over `prior` when `after` only replaced a
 * few records of `prior` in place (same positions, same keys: informers replace a modified record
 * where it was). Only the affected keys are recomputed; everything else, lists included, is kept.
 * `null` when that does not hold (the caller rebuilds the lookup).
 */
function patchLookup(field: IndexField, before: ReadonlyMap<string, unknown>, prior: readonly unknown[], after: readonly unknown[]): Map<string, unknown> | null {
  if (prior.length !== after.length) return null;
  const keyOf = LOOKUP_KEYS[field] as (record: unknown) => string | null;
  const affected = new Set<string>();
  let changed = 0;
  for (let i = 0; i < after.length; i++) {
    if (prior[i] === after[i]) continue;
    if (++changed > PATCH_LIMIT) return null;
    const key = keyOf(after[i]);
    if (key !== keyOf(prior[i])) return null;
    if (key !== null) affected.add(key);
  }
  const patched = new Map(before);
  const grouped = GROUPED_FIELDS.has(field);
  for (const key of affected) {
    if (grouped) {
      // The group's records in list order, as a fresh grouping would list them.
      const list: unknown[] = [];
      for (const record of after) if (keyOf(record) === key) list.push(record);
      patched.set(key, list);
    } else {
      // A fresh map keeps the last record with the key.
      for (let i = after.length - 1; i >= 0; i--) {
        if (keyOf(after[i]) === key) {
          patched.set(key, after[i]);
          break;
        }
      }
    }
  }
  return patched;
}

/**
 * {@link indexCluster}, reusing the lookups of `previous` whose source array is the same object
 * (unchanged resource type), and patching those where only a few records were replaced in place.
 * Equal to `indexCluster(snapshot)` in content. In grouped lookups (slices by Service, pods by
 * namespace, events by Service) a group whose records are the same objects as before keeps its
 * previous list, so list identity tells consumers what changed.
 */
export function indexIncrementally(snapshot: ClusterSnapshot, previous: ClusterIndex | null): ClusterIndex {
  const pick = <F extends IndexField>(field: F): ClusterIndex[F] => {
    const source = INDEX_SOURCES[field];
    if (previous !== null && previous.snapshot[source] === snapshot[source]) return previous[field];
    if (previous !== null) {
      const patched = patchLookup(field, previous[field] as ReadonlyMap<string, unknown>, previous.snapshot[source] as readonly unknown[], snapshot[source] as readonly unknown[]);
      if (patched !== null) return patched as unknown as ClusterIndex[F];
    }
    const fresh = indexCluster({ ...EMPTY_SNAPSHOT, [source]: snapshot[source] })[field];
    if (previous === null || !GROUPED_FIELDS.has(field)) return fresh;
    const before = previous[field] as ReadonlyMap<string, readonly unknown[]>;
    const stable = new Map<string, readonly unknown[]>();
    for (const [key, list] of fresh as ReadonlyMap<string, readonly unknown[]>) {
      const old = before.get(key);
      stable.set(key, old !== undefined && sameItems(old, list) ? old : list);
    }
    return stable as unknown as ClusterIndex[F];
  };
  return {
    snapshot,
    nodesByName: pick('nodesByName'),
    servicesByKey: pick('servicesByKey'),
    slicesByService: pick('slicesByService'),
    podsByNamespace: pick('podsByNamespace'),
    deploymentsByKey: pick('deploymentsByKey'),
    replicaSetsByKey: pick('replicaSetsByKey'),
    hpasByTarget: pick('hpasByTarget'),
    eventsByService: pick('eventsByService'),
  };
}

// ---------------------------------------------------------------------------------------------
// Shared plumbing

/** Coalesces change notifications and memoises snapshot/index per generation. */
abstract class ClusterSourceBase {
  protected gen = 0;
  private listeners = new Set<(change: ClusterChange) => void>();
  private pending: { timer: ReturnType<typeof setTimeout>; dataChanged: boolean } | null = null;
  private memoSnapshot: { generation: number; snapshot: ClusterSnapshot } | null = null;
  private memoIndex: { generation: number; index: ClusterIndex } | null = null;
  private syncWaiters = new Set<(synced: boolean) => void>();

  constructor(private readonly notifyDelayMs: number) {}

  get generation(): number {
    return this.gen;
  }

  protected abstract buildSnapshot(): ClusterSnapshot;
  abstract isSynced(): boolean;
  abstract statuses(): readonly ResourceStatus[];

  snapshot(): ClusterSnapshot {
    if (this.memoSnapshot === null || this.memoSnapshot.generation !== this.gen) {
      this.memoSnapshot = { generation: this.gen, snapshot: this.buildSnapshot() };
    }
    return this.memoSnapshot.snapshot;
  }

  index(): ClusterIndex {
    if (this.memoIndex === null || this.memoIndex.generation !== this.gen) {
      const snapshot = this.snapshot();
      this.memoIndex = { generation: this.gen, index: indexIncrementally(snapshot, this.memoIndex?.index ?? null) };
    }
    return this.memoIndex.index;
  }

  onChange(listener: (change: ClusterChange) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  waitForSync(timeoutMs = 60_000): Promise<boolean> {
    if (this.isSynced()) return Promise.resolve(true);
    if (permanentFailure(this.statuses()) !== null) return Promise.resolve(false);
    return new Promise((resolve) => {
      const done = (synced: boolean): void => {
        clearTimeout(timer);
        this.syncWaiters.delete(done);
        resolve(synced);
      };
      const timer = setTimeout(() => {
        this.syncWaiters.delete(done);
        resolve(false);
      }, timeoutMs);
      this.syncWaiters.add(done);
    });
  }

  /** Records a change; `dataChanged` bumps the generation. */
  protected changed(dataChanged: boolean): void {
    if (dataChanged) this.gen++;
    if (this.syncWaiters.size > 0) {
      const synced = this.isSynced();
      if (synced || permanentFailure(this.statuses()) !== null) for (const waiter of [...this.syncWaiters]) waiter(synced);
    }
    if (this.listeners.size === 0) return;
    if (this.pending !== null) {
      this.pending.dataChanged ||= dataChanged;
      return;
    }
    const timer = setTimeout(() => {
      const pending = this.pending;
      this.pending = null;
      const change: ClusterChange = { generation: this.gen, dataChanged: pending?.dataChanged ?? dataChanged };
      for (const listener of [...this.listeners]) {
        try {
          listener(change);
        } catch {
          // A failing listener must not break the others or the informers.
        }
      }
    }, this.notifyDelayMs);
    this.pending = { timer, dataChanged };
  }

  protected cancelNotifications(): void {
    if (this.pending !== null) clearTimeout(this.pending.timer);
    this.pending = null;
  }
}

// ---------------------------------------------------------------------------------------------
// Live

/** Options of {@link LiveClusterSource}. */
export interface LiveClusterSourceOptions {
  /** Resource types to read (default: all). Others stay empty and are not reported. */
  readonly resources?: readonly ResourceId[];
  readonly informer?: InformerOptions;
  /** How often to re-read `/version` once known (default 30 min). */
  readonly versionRefreshMs?: number;
  /** Coalescing delay of change notifications (default 0: one macrotask). */
  readonly notifyDelayMs?: number;
  /** Diagnostics (safe messages); default: none. */
  readonly log?: (event: InformerLogEvent) => void;
}

/**
 * The live source: one informer per resource type over one connection. It coordinates the
 * atomic re-list when the API server's history goes backwards (see {@link RelistState}).
 */
export class LiveClusterSource extends ClusterSourceBase implements ClusterSource, RelistCoordinator {
  readonly mode = 'live' as const;
  readonly snapshotPath = null;
  readonly contextName: string;
  readonly serverUrl: string;
  private readonly informers: Map<ResourceId, ResourceInformer<ResourceId>>;
  private rawVersion: unknown = null;
  private versionError: KubeError | null = null;
  private versionTimer: ReturnType<typeof setTimeout> | null = null;
  private versionAbort: AbortController | null = null;
  private versionFailures = 0;
  private running = false;
  private relist: RelistState | null = null;
  /** UID of the `kube-system` Namespace: the cluster's identity (`null` until known, or when it cannot be read). */
  private identity: string | null = null;
  private identityCheck: Promise<boolean> | null = null;
  private readonly log: (event: InformerLogEvent) => void;
  private readonly versionRefreshMs: number;

  constructor(
    readonly connection: KubeConnection,
    options: LiveClusterSourceOptions = {},
  ) {
    super(options.notifyDelayMs ?? 0);
    this.contextName = connection.contextName;
    this.serverUrl = connection.serverUrl;
    this.versionRefreshMs = options.versionRefreshMs ?? 30 * 60_000;
    const ids = options.resources ?? RESOURCE_IDS;
    this.log = options.log ?? (() => undefined);
    const informerOptions: InformerOptions = { ...options.informer, ...(options.log ? { log: options.log } : {}), coordinator: this };
    this.informers = new Map();
    for (const id of RESOURCE_IDS) {
      if (!ids.includes(id)) continue;
      this.informers.set(id, this.makeInformer(id, informerOptions));
    }
  }

  private makeInformer<Id extends ResourceId>(id: Id, options: InformerOptions): ResourceInformer<Id> {
    return new ResourceInformer(this.connection, RESOURCES[id], (dataChanged) => this.changed(dataChanged), options);
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    for (const informer of this.informers.values()) informer.start();
    this.versionAbort = new AbortController();
    void this.fetchVersion();
    void this.confirmSameServer();
  }

  async stop(): Promise<void> {
    this.running = false;
    this.relist = null;
    if (this.versionTimer !== null) clearTimeout(this.versionTimer);
    this.versionTimer = null;
    this.versionAbort?.abort();
    await Promise.all([...this.informers.values()].map((informer) => informer.stop()));
    this.cancelNotifications();
  }

  relisting(): RelistState | null {
    return this.relist;
  }

  /** {@link RelistCoordinator}: starts the re-list of every type (once per episode, one log line). */
  historyWentBackwards(id: ResourceId, reason: string): void {
    this.startRelist(id, `${RESOURCES[id].title}: ${reason}`, reason);
  }

  private startRelist(id: ResourceId, shown: string, reason: string): void {
    if (!this.running || this.relist !== null) return;
    this.relist = { since: new Date().toISOString(), reason: shown };
    this.log({
      resource: id,
      level: 'warn',
      message: `the API server's history went backwards (${reason}); re-listing every resource type, all swapped in together once listed (pages keep the previous data meanwhile)`,
    });
    for (const informer of this.informers.values()) informer.beginRelist();
    // The history changed: the cluster's identity is read again (it may be another cluster).
    this.identity = null;
    void this.confirmSameServer();
    this.changed(false);
  }

  /**
   * {@link RelistCoordinator}: reads the `kube-system` Namespace's UID (one request shared by
   * every type asking at once). A UID other than the one known means another cluster answers at
   * this address: every type is re-listed and swapped together. When it cannot be read (RBAC
   * without `get namespaces`, errors) nothing can be told, and `true` is answered.
   */
  confirmSameServer(): Promise<boolean> {
    this.identityCheck ??= this.readIdentity().then((uid) => {
      this.identityCheck = null;
      if (uid === null || !this.running) return true;
      const known = this.identity;
      this.identity = uid;
      if (known === null || known === uid) return true;
      const reason = `the kube-system namespace UID changed from ${known} to ${uid}: another cluster answers at this address`;
      this.startRelist('nodes', reason, reason);
      return false;
    });
    return this.identityCheck;
  }

  private async readIdentity(): Promise<string | null> {
    try {
      const response = await this.connection.request({ path: '/api/v1/namespaces/kube-system', signal: this.versionAbort?.signal });
      if (response.status < 200 || response.status >= 300) return null;
      const uid = obj(obj(JSON.parse(response.body) as unknown).metadata).uid;
      return typeof uid === 'string' && uid !== '' ? uid : null;
    } catch {
      return null;
    }
  }

  /** {@link RelistCoordinator}: the newest resourceVersion of any type (Events aside: they may have their own etcd). */
  newestSeen(id: ResourceId): string | null {
    if (id === SEPARATE_HISTORY) return null;
    let newest: string | null = null;
    for (const informer of this.informers.values()) {
      const status = informer.status();
      // A forbidden type keeps nothing of the history it last saw.
      if (status.health === 'forbidden' || status.id === SEPARATE_HISTORY) continue;
      const rv = status.resourceVersion;
      if (newest === null || compareResourceVersions(rv, newest) === 1) newest = rv ?? newest;
    }
    return newest;
  }

  /** {@link RelistCoordinator}: swaps every staged list in at once when the last type is listed. */
  staged(id: ResourceId): void {
    if (this.relist === null) {
      // A type that was forbidden during the episode lists later, alone.
      this.informers.get(id)?.commitStaged();
      return;
    }
    for (const informer of this.informers.values()) if (!informer.isStaged()) return;
    // Synchronous: no reader can see some types swapped and others not.
    let swapped = 0;
    for (const informer of this.informers.values()) if (informer.commitStaged()) swapped++;
    const since = this.relist.since;
    this.relist = null;
    this.log({ resource: id, level: 'info', message: `re-list after the history went backwards complete: ${swapped} resource types swapped in together (began ${since})` });
    this.changed(false);
  }

  /** The informer of one type (tests, diagnostics). */
  informer<Id extends ResourceId>(id: Id): ResourceInformer<Id> | undefined {
    return this.informers.get(id) as ResourceInformer<Id> | undefined;
  }

  private async fetchVersion(): Promise<void> {
    if (!this.running) return;
    let delay = this.versionRefreshMs;
    try {
      const response = await this.connection.request({ path: '/version', signal: this.versionAbort?.signal });
      if (response.status >= 200 && response.status < 300) {
        const parsed: unknown = JSON.parse(response.body);
        const changed = JSON.stringify(parsed) !== JSON.stringify(this.rawVersion);
        this.rawVersion = parsed;
        this.versionFailures = 0;
        if (this.versionError !== null || changed) {
          this.versionError = null;
          this.changed(changed);
        }
      } else {
        throw errorFromResponse(response.status, response.body, response.headers);
      }
    } catch (error) {
      if (!this.running) return;
      this.versionError = errorFromException(error);
      const base = Math.min(60_000, DEFAULT_BACKOFF.initialMs * 2 ** this.versionFailures++);
      delay = base / 2 + Math.random() * (base / 2);
      this.changed(false);
    }
    if (!this.running) return;
    this.versionTimer = setTimeout(() => void this.fetchVersion(), delay);
  }

  protected buildSnapshot(): ClusterSnapshot {
    const items = <Id extends ResourceId>(id: Id): readonly RecordById[Id][] => {
      const informer = this.informers.get(id) as ResourceInformer<Id> | undefined;
      return informer ? informer.items() : [];
    };
    const nodes = items('nodes');
    return assembleSnapshot(
      {
        nodes,
        services: items('services'),
        endpointslices: items('endpointslices'),
        pods: items('pods'),
        deployments: items('deployments'),
        replicasets: items('replicasets'),
        hpas: items('hpas'),
        events: items('events'),
        configmaps: items('configmaps'),
        daemonsets: items('daemonsets'),
      },
      this.serverVersionWith(nodes.map((n) => n.providerID)),
    );
  }

  private serverVersionWith(providerIDs: readonly (string | null)[]): ServerVersionRecord | null {
    return this.rawVersion === null ? null : projectServerVersion(obj(this.rawVersion), providerIDs);
  }

  serverVersion(): ServerVersionRecord | null {
    return this.snapshot().version;
  }

  statuses(): readonly ResourceStatus[] {
    return [...this.informers.values()].map((informer) => informer.status());
  }

  status(id: ResourceId): ResourceStatus {
    const informer = this.informers.get(id);
    if (informer) return informer.status();
    return notReadStatus(id);
  }

  isSynced(): boolean {
    // The version counts once it is known or its lookup failed (it is retried in the background).
    if (this.rawVersion === null && this.versionError === null) return false;
    for (const informer of this.informers.values()) {
      const status = informer.status();
      if (status.health === 'forbidden') continue;
      if (status.syncedAt === null) return false;
    }
    return true;
  }

  problems(): readonly string[] {
    return this.versionError ? [`Server version unknown: ${this.versionError.message}`] : [];
  }
}

function notReadStatus(id: ResourceId): ResourceStatus {
  return {
    id,
    title: RESOURCES[id].title,
    health: 'synced',
    resourceVersion: null,
    syncedAt: null,
    lastEventAt: null,
    staleSince: null,
    error: null,
    listing: false,
    listed: 0,
    count: 0,
    lists: 0,
    watches: 0,
  };
}

// ---------------------------------------------------------------------------------------------
// Snapshot

/** The snapshot source: files loaded once (or a snapshot given directly). */
export class SnapshotClusterSource extends ClusterSourceBase implements ClusterSource {
  readonly mode = 'snapshot' as const;
  readonly contextName = null;
  readonly serverUrl = null;
  readonly connection = null;
  readonly snapshotPath: string | null;
  private current: ClusterSnapshot = EMPTY_SNAPSHOT;
  private loadedAt: string | null = null;
  private summary: SnapshotSummary | null = null;
  private errors: readonly SnapshotProblem[] = [];
  private loading: Promise<SnapshotResult> | null = null;
  private readonly paths: readonly string[];

  /**
   * @param source a path or paths to load on {@link start}, or a ready snapshot.
   */
  constructor(source: string | readonly string[] | { readonly snapshot: ClusterSnapshot; readonly label?: string }, options: { readonly notifyDelayMs?: number } = {}) {
    super(options.notifyDelayMs ?? 0);
    if (typeof source === 'string' || Array.isArray(source)) {
      this.paths = typeof source === 'string' ? [source] : (source as readonly string[]);
      this.snapshotPath = this.paths.join(', ');
    } else {
      const given = source as { readonly snapshot: ClusterSnapshot; readonly label?: string };
      this.paths = [];
      this.snapshotPath = given.label ?? null;
      this.current = given.snapshot;
      this.loadedAt = new Date().toISOString();
      this.gen = 1;
    }
  }

  start(): void {
    if (this.paths.length > 0 && this.loading === null) void this.reload();
  }

  async stop(): Promise<void> {
    await this.loading;
    this.cancelNotifications();
  }

  /**
   * (Re)loads the files. On success the snapshot is replaced as a whole; on failure the
   * previous one (if any) stays and {@link problems} lists what is wrong.
   */
  reload(): Promise<SnapshotResult> {
    const run = loadSnapshot(this.paths).then((result) => {
      if (result.ok) {
        this.current = result.snapshot;
        this.summary = result.summary;
        this.errors = [];
        this.loadedAt = new Date().toISOString();
        this.changed(true);
      } else {
        this.errors = result.errors;
        this.changed(false);
      }
      return result;
    });
    this.loading = run;
    return run;
  }

  /** What the last successful load read. */
  loadSummary(): SnapshotSummary | null {
    return this.summary;
  }

  protected buildSnapshot(): ClusterSnapshot {
    return this.current;
  }

  serverVersion(): ServerVersionRecord | null {
    return this.current.version;
  }

  relisting(): RelistState | null {
    return null;
  }

  statuses(): readonly ResourceStatus[] {
    return RESOURCE_IDS.map((id) => this.status(id));
  }

  status(id: ResourceId): ResourceStatus {
    const counts: Record<ResourceId, number> = {
      nodes: this.current.nodes.length,
      services: this.current.services.length,
      endpointslices: this.current.endpointSlices.length,
      pods: this.current.pods.length,
      deployments: this.current.deployments.length,
      replicasets: this.current.replicaSets.length,
      hpas: this.current.hpas.length,
      events: this.current.events.length,
      configmaps: this.summary?.records.configmaps ?? 0,
      daemonsets: this.summary?.records.daemonsets ?? 0,
    };
    const failed = this.errors.length > 0;
    const error: KubeError | null = failed
      ? { kind: 'invalid', message: `The snapshot has ${this.errors.length} problem(s); first: ${formatProblem(this.errors[0] as SnapshotProblem)}` }
      : null;
    return {
      ...notReadStatus(id),
      health: failed ? 'stale' : this.loadedAt === null ? 'syncing' : 'synced',
      syncedAt: this.loadedAt,
      staleSince: failed ? (this.loadedAt ?? new Date(0).toISOString()) : null,
      error,
      count: counts[id],
      listed: counts[id],
      lists: this.loadedAt === null ? 0 : 1,
    };
  }

  isSynced(): boolean {
    return this.loadedAt !== null;
  }

  problems(): readonly string[] {
    return this.errors.map(formatProblem);
  }
}

// ---------------------------------------------------------------------------------------------
// Unavailable (no configuration)

/**
 * The source when nothing can be connected to (no kubeconfig, unknown context…): empty data,
 * every type `stale` with the reason, never synced.
 */
export class UnavailableClusterSource extends ClusterSourceBase implements ClusterSource {
  readonly mode = 'live' as const;
  readonly contextName: string | null;
  readonly serverUrl = null;
  readonly snapshotPath = null;
  readonly connection = null;
  private readonly since = new Date().toISOString();

  constructor(
    private readonly message: string,
    contextName: string | null = null,
  ) {
    super(0);
    this.contextName = contextName;
  }

  start(): void {}

  async stop(): Promise<void> {}

  protected buildSnapshot(): ClusterSnapshot {
    return EMPTY_SNAPSHOT;
  }

  serverVersion(): ServerVersionRecord | null {
    return null;
  }

  relisting(): RelistState | null {
    return null;
  }

  statuses(): readonly ResourceStatus[] {
    return RESOURCE_IDS.map((id) => this.status(id));
  }

  status(id: ResourceId): ResourceStatus {
    // No configuration to connect with does not fix itself: permanent.
    return { ...notReadStatus(id), health: 'stale', staleSince: this.since, error: { kind: 'unavailable', message: this.message, permanent: true } };
  }

  isSynced(): boolean {
    return false;
  }

  problems(): readonly string[] {
    return [this.message];
  }
}

// ---------------------------------------------------------------------------------------------
// Factory

/** Options of {@link createClusterSource}. */
export interface CreateClusterSourceOptions {
  readonly live?: LiveClusterSourceOptions;
}

/**
 * Chooses the source from the environment (not started):
 * 1. `ZONESCOPE_SNAPSHOT=path[,path…]` (or paths separated by the platform delimiter) → snapshot;
 * 2. `KUBECONFIG` (else `~/.kube/config`), context `ZONESCOPE_CONTEXT` or the current one → live;
 * 3. `KUBERNETES_SERVICE_HOST` without a kubeconfig → live, in-cluster service account;
 * 4. otherwise an {@link UnavailableClusterSource} saying why.
 */
export function createClusterSource(env: ConnectionEnv = process.env, options: CreateClusterSourceOptions = {}): ClusterSource {
  const snapshot = env.ZONESCOPE_SNAPSHOT?.trim();
  if (snapshot) {
    const paths = snapshot.split(path.delimiter === ';' ? /[,;]/ : /[,:]/).map((p) => p.trim()).filter((p) => p !== '');
    return new SnapshotClusterSource(paths);
  }
  const connectionOptions = connectionOptionsFromEnv(env);
  if (connectionOptions === null) {
    return new UnavailableClusterSource('No cluster configured: set KUBECONFIG (and optionally ZONESCOPE_CONTEXT), run in a cluster, or set ZONESCOPE_SNAPSHOT to a snapshot file or folder.');
  }
  const connection = createConnection(connectionOptions);
  if (!connection.ok) return new UnavailableClusterSource(connection.message, connectionOptions.context ?? null);
  const pagesAhead = listPagesAhead(env.ZONESCOPE_LIST_PAGES_AHEAD);
  const live = pagesAhead === undefined ? options.live : { ...options.live, informer: { ...options.live?.informer, pagesAhead } };
  return new LiveClusterSource(connection.connection, live);
}

/**
 * `ZONESCOPE_LIST_PAGES_AHEAD`: `1`/`true`/`on`/`yes` asks for each list's next page while the
 * current one is parsed (see `InformerOptions.pagesAhead`), `0`/`false`/`off`/`no` does not;
 * `undefined` when unset or anything else (the informers' default: off).
 */
export function listPagesAhead(value: string | undefined): boolean | undefined {
  const v = value?.trim().toLowerCase();
  if (v === '1' || v === 'true' || v === 'on' || v === 'yes') return true;
  if (v === '0' || v === 'false' || v === 'off' || v === 'no') return false;
  return undefined;
}
