/**
 * The source when nothing can be connected to: no configuration, an unknown context, a kubeconfig
 * that cannot be read. It holds no data and says why on every type (a permanent failure).
 */
import type { ClusterSnapshot, ServerVersionRecord } from '../../topology/model/cluster-model';
import { EMPTY_SNAPSHOT } from '../../topology/model/cluster-model';
import type { ClusterSource, RelistState } from '../cluster-source';
import type { ResourceStatus } from '../informer/status';
import { notReadStatus } from '../informer/status';
import type { ResourceId } from '../resources';
import { RESOURCE_IDS } from '../resources';
import { redact } from '../redact';
import { ClusterSourceBase } from './source-base';

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
  private started = false;

  constructor(
    private readonly message: string,
    contextName: string | null = null,
  ) {
    super(0);
    this.contextName = contextName;
  }

  /** Says why once, on stderr: the log is where an operator looks when a Pod never turns ready. */
  start(): void {
    if (this.started) return;
    this.started = true;
    console.error(`[zonescope] ${this.contextName !== null ? `[${this.contextName}] ` : ''}cannot read the cluster: ${redact(this.message)}`);
  }

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
