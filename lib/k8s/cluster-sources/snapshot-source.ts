/**
 * The snapshot source: a file, a folder or several of them loaded once (and again on
 * {@link SnapshotClusterSource.reload}), or a snapshot given directly. A load that fails keeps the
 * previous snapshot and lists the problems; every type then reads `stale`.
 */
import type { ClusterSnapshot, ServerVersionRecord } from '../../topology/model/cluster-model';
import { EMPTY_SNAPSHOT } from '../../topology/model/cluster-model';
import type { ClusterSource, RelistState } from '../cluster-source';
import type { KubeError } from '../errors';
import type { ResourceStatus } from '../informer/status';
import { notReadStatus } from '../informer/status';
import type { ResourceId } from '../resources';
import { RESOURCE_IDS } from '../resources';
import { loadSnapshot } from '../snapshot/load';
import type { SnapshotProblem, SnapshotResult, SnapshotSummary } from '../snapshot/results';
import { formatProblem } from '../snapshot/results';
import { ClusterSourceBase } from './source-base';

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
