/**
 * The live source: one informer per resource type over one connection, the server version read
 * from `/version` (again every half hour; after a failure, with a backoff), and the coordination of
 * the atomic re-list when the API server's history goes backwards (see `RelistState`): every type
 * re-lists, and all are swapped in at once. The `kube-system` Namespace's UID tells whether the
 * same cluster still answers at the address. The connection's liveness probe (./liveness) shows
 * every synced type as stale while the API server answers nothing, and restarts the watches when
 * it answers again.
 */
import type { ClusterSnapshot, ServerVersionRecord } from '../../topology/model/cluster-model';
import type { BackoffPolicy } from '../backoff';
import { backoffDelay } from '../backoff';
import type { ClusterSource, RelistState } from '../cluster-source';
import type { KubeConnection } from '../connection';
import type { KubeError } from '../errors';
import { errorFromException, errorFromResponse } from '../errors';
import { ResourceInformer } from '../informer/informer';
import type { InformerLogEvent, InformerOptions, RelistCoordinator } from '../informer/options';
import { DEFAULT_BACKOFF } from '../informer/options';
import { compareResourceVersions } from '../informer/resource-versions';
import type { ResourceStatus } from '../informer/status';
import { notReadStatus } from '../informer/status';
import type { RecordById, ResourceId } from '../resources';
import { assembleSnapshot, RESOURCE_IDS, RESOURCES } from '../resources';
import { obj } from '../wire-to-record/json';
import { projectServerVersion } from '../wire-to-record/server-version';
import type { LivenessOptions, Silence } from './liveness';
import { LivenessProbe } from './liveness';
import { ClusterSourceBase } from './source-base';

/** The type whose resourceVersions may come from another etcd (`--etcd-servers-overrides=/events#…`). */
const SEPARATE_HISTORY: ResourceId = 'events';

/** Retries of a failed `/version` read: 0.5 s (an informer's first retry) doubling to 60 s, jittered. */
export const VERSION_BACKOFF: BackoffPolicy = { initialMs: DEFAULT_BACKOFF.initialMs, maxMs: 60_000 };

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
  /** The liveness probe's timing (default: ./liveness `DEFAULT_LIVENESS`, every 15 s, 5 s each, silent after 2). */
  readonly liveness?: Partial<LivenessOptions>;
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
  /** One `/readyz` probe for the whole connection (./liveness), not one per type. */
  private readonly liveness: LivenessProbe;

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
    this.liveness = new LivenessProbe(connection, options.liveness, (silence) => this.livenessChanged(silence), () => this.lastWatchDelivery());
  }

  /**
   * The API server went silent (every synced type is shown stale: {@link statuses}) or answers
   * again: then every watch is restarted, so a stream that died unnoticed during the silence is
   * replaced at once (each resumes from its resourceVersion, after its resume check).
   */
  private livenessChanged(silence: Silence | null): void {
    if (!this.running) return;
    const first = RESOURCE_IDS.find((id) => this.informers.has(id)) ?? 'nodes';
    if (silence !== null) {
      this.log({ resource: first, level: 'warn', message: `${silence.error.message} Every resource type is shown as stale until it answers again.` });
    } else {
      this.log({ resource: first, level: 'info', message: 'the API server answers again; restarting the watches' });
      for (const informer of this.informers.values()) informer.restartWatch();
    }
    this.changed(false);
  }

  /** When any watch last delivered an event or a bookmark (ms since the epoch), `null` for never. */
  private lastWatchDelivery(): number | null {
    let newest: number | null = null;
    for (const informer of this.informers.values()) {
      const at = informer.status().lastEventAt;
      if (at === null) continue;
      const ms = Date.parse(at);
      if (newest === null || ms > newest) newest = ms;
    }
    return newest;
  }

  private makeInformer<Id extends ResourceId>(id: Id, options: InformerOptions): ResourceInformer<Id> {
    return new ResourceInformer(this.connection, RESOURCES[id], (dataChanged) => this.changed(dataChanged), options);
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    for (const informer of this.informers.values()) informer.start();
    this.liveness.start();
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
    this.liveness.stop();
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
      delay = backoffDelay(VERSION_BACKOFF, this.versionFailures++, Math.random);
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
    return [...this.informers.values()].map((informer) => this.withLiveness(informer.status()));
  }

  status(id: ResourceId): ResourceStatus {
    const informer = this.informers.get(id);
    if (informer) return this.withLiveness(informer.status());
    return notReadStatus(id);
  }

  /** A synced type's status while the API server is silent: stale since its last answer, with the reason. */
  private withLiveness(status: ResourceStatus): ResourceStatus {
    const silence = this.liveness.silence();
    if (silence === null || status.health !== 'synced') return status;
    return { ...status, health: 'stale', staleSince: silence.since, error: silence.error };
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
