/**
 * What a status panel, the header and the exporter know of one resource type's cache: its health
 * (`syncing` until the first list, `synced`, `stale` after a failure, `forbidden` after a 403), since
 * when it may be out of date and why, and list/watch progress — and the bookkeeping that keeps it.
 */
import type { KubeError } from '../errors';
import type { ResourceId } from '../resources';
import { RESOURCES } from '../resources';

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

function nowIso(): string {
  return new Date().toISOString();
}

/**
 * The bookkeeping behind one informer's {@link ResourceStatus}: health moves to `stale` (or
 * `forbidden`) on a failure, with the time of the first one and the last error, and back to
 * `synced` when a list completes or a watch opens; list and watch progress is counted. Every
 * health change is a status change (`onChange(false)`).
 */
export class StatusBook {
  health: ResourceHealth = 'syncing';
  syncedAt: string | null = null;
  lastEventAt: string | null = null;
  staleSince: string | null = null;
  error: KubeError | null = null;
  listing = false;
  listed = 0;
  lists = 0;
  watches = 0;

  constructor(private readonly onChange: (dataChanged: boolean) => void) {}

  /** A full list is in: when it completed, and one more list. */
  listCompleted(): void {
    this.syncedAt = nowIso();
    this.lists++;
  }

  /** In sync again (a list completed, a watch opened): no longer stale, no error. */
  markSynced(): void {
    const changed = this.health !== 'synced' || this.error !== null;
    this.health = 'synced';
    this.staleSince = null;
    this.error = null;
    if (changed) this.onChange(false);
  }

  /** A failure: `forbidden` for a 403, else `stale`; stale since the first failure of the run. */
  failed(error: KubeError): void {
    this.health = error.kind === 'forbidden' ? 'forbidden' : 'stale';
    this.staleSince ??= nowIso();
    this.error = error;
    this.onChange(false);
  }

  /** The status of type `id` whose cache is at `resourceVersion` and holds `count` records. */
  status(id: ResourceId, title: string, resourceVersion: string | null, count: number): ResourceStatus {
    return {
      id,
      title,
      health: this.health,
      resourceVersion,
      syncedAt: this.syncedAt,
      lastEventAt: this.lastEventAt,
      staleSince: this.staleSince,
      error: this.error,
      listing: this.listing,
      listed: this.listed,
      count,
      lists: this.lists,
      watches: this.watches,
    };
  }
}

/** The status of a type that is not read (no informer): synced, empty, never listed. */
export function notReadStatus(id: ResourceId): ResourceStatus {
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
