/**
 * What every cluster source shares: change notifications coalesced (at most one per delay), the
 * snapshot and index memoised per change generation, and waiting for the first sync (which a
 * permanent failure ends at once).
 */
import type { ClusterIndex, ClusterSnapshot } from '../../topology/model/cluster-model';
import type { ClusterChange } from '../cluster-source';
import { permanentFailure } from '../cluster-source';
import type { ResourceStatus } from '../informer/status';
import { indexIncrementally } from './index-incremental';

/** Coalesces change notifications and memoises snapshot/index per generation. */
export abstract class ClusterSourceBase {
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
