/**
 * `ClusterSource`: the one cluster model the rest of the app reads, from one of two sources —
 * live (informers over a `KubeConnection`) or a snapshot (files loaded once). This module is the
 * contract; the sources are in ./cluster-sources (`createClusterSource` chooses one from the
 * configuration).
 *
 * Reads never call the API server: {@link ClusterSource.snapshot} and {@link ClusterSource.index}
 * assemble cached slim records, memoised per change generation (rebuilt lazily, at most once per
 * generation, and per resource type only when that type changed).
 *
 * The process-wide singleton (one set of watches whatever the number of callers) lives in
 * `./source` (`getClusterSource()`), which is server-only.
 */
import type { ClusterIndex, ClusterSnapshot, ServerVersionRecord } from '../topology/model/cluster-model';
import type { KubeConnection } from './connection';
import type { KubeError } from './errors';
import { isPermanent } from './errors';
import type { ResourceStatus } from './informer/status';
import type { ResourceId } from './resources';

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
