/**
 * What every page and route needs to know about the cluster source before it shows anything: the
 * read-only flag, data freshness for the header, and whether the data can be served yet (and if
 * not, why). Cheap: nothing here runs an analysis or calls the API server.
 */
import 'server-only';

import type { ResourceStatus } from '../k8s/informer';
import { prepared, renderGeneration, source } from './analysis';
import { envFlag } from './exposure';
import type { LiveMark, ResourceHealthEntry } from './live-refresh';
import { healthKey } from './live-refresh';

/** `ZONESCOPE_READ_ONLY=1` hides every write control and refuses writes. */
export function isReadOnly(): boolean {
  return envFlag(process.env, 'ZONESCOPE_READ_ONLY');
}

/** Data freshness for the header: syncing progress, stale or forbidden types. */
export interface Freshness {
  readonly synced: boolean;
  /** Earliest `staleSince` of any stale type (ISO), `null` when all are current. */
  readonly staleSince: string | null;
  readonly stale: readonly { readonly title: string; readonly since: string | null; readonly message: string | null }[];
  readonly forbidden: readonly { readonly title: string; readonly message: string | null }[];
  readonly syncing: readonly { readonly title: string; readonly listed: number }[];
  readonly problems: readonly string[];
}

/** What the header shows about the cluster. */
export interface HeaderView {
  readonly mode: 'live' | 'snapshot';
  readonly contextName: string | null;
  readonly serverUrl: string | null;
  readonly snapshotPath: string | null;
  readonly gitVersion: string | null;
  readonly release: string;
  readonly platform: string | null;
  readonly readOnly: boolean;
  readonly freshness: Freshness;
}

function freshness(statuses: readonly ResourceStatus[], synced: boolean, problems: readonly string[]): Freshness {
  const stale = statuses.filter((s) => s.health === 'stale');
  const since = stale.map((s) => s.staleSince).filter((s): s is string => s !== null).sort()[0] ?? null;
  return {
    synced,
    staleSince: since,
    stale: stale.map((s) => ({ title: s.title, since: s.staleSince, message: s.error?.message ?? null })),
    forbidden: statuses.filter((s) => s.health === 'forbidden').map((s) => ({ title: s.title, message: s.error?.message ?? null })),
    syncing: statuses.filter((s) => s.health === 'syncing').map((s) => ({ title: s.title, listed: s.listed })),
    problems,
  };
}

/**
 * Header data (cheap; no analysis): the modelled release comes from the memoised per-cluster
 * preparation (O(nodes), once per generation) once synced, else from the server version.
 */
export function getHeader(): HeaderView {
  const state = source();
  const version = state.serverVersion();
  const synced = state.isSynced();
  return {
    mode: state.mode,
    contextName: state.contextName,
    serverUrl: state.serverUrl,
    snapshotPath: state.snapshotPath,
    gitVersion: version?.gitVersion ?? null,
    release: synced ? prepared().kubernetes.release : version?.minor !== null && version?.minor !== undefined ? `1.${version.minor}` : 'unknown',
    platform: version?.platform ?? null,
    readOnly: isReadOnly() || state.mode !== 'live',
    freshness: freshness(state.statuses(), synced, state.problems()),
  };
}

/** Why the cluster data cannot be served yet: no cluster at all, or the first sync still running. */
export interface SourceProblem {
  readonly kind: 'unavailable' | 'syncing';
  /** Safe to show. */
  readonly message: string;
}

/**
 * The one "first sync still running" problem: what every data function returns as its error and
 * every route answers (503 `syncing:<surface>`, see `notReadyResponse`) until the first sync is done.
 */
export const SYNCING: SourceProblem & { readonly kind: 'syncing' } = Object.freeze({
  kind: 'syncing',
  message: 'The dashboard is still reading the cluster; try again in a moment.',
});

/** `null` when the cluster data is ready to serve (first sync done), else why not. */
export function getSourceProblem(): SourceProblem | null {
  const state = source();
  if (state.mode === 'live' && state.connection === null) {
    return { kind: 'unavailable', message: state.problems()[0] ?? 'No cluster is connected.' };
  }
  if (!state.isSynced()) return SYNCING;
  return null;
}

/** What a page shows instead of its panels until the data is there (never thrown). */
export type ClusterStatusView =
  | { readonly state: 'ready' }
  | {
      readonly state: 'syncing';
      /** Objects listed so far over every type. */
      readonly listed: number;
      readonly types: readonly { readonly title: string; readonly listed: number; readonly done: boolean; readonly forbidden: boolean }[];
    }
  | {
      readonly state: 'unavailable';
      /** Safe message saying why (no credentials, no raw API bodies). */
      readonly reason: string;
      readonly since: string | null;
      /** Live sources keep retrying in the background. */
      readonly retrying: boolean;
    };

/** Whether pages can render their panels, and if not, why (syncing progress or the source's problem). */
export function getClusterStatus(): ClusterStatusView {
  const state = source();
  if (state.isSynced()) return { state: 'ready' };
  const statuses = state.statuses();
  const problems = state.problems();
  const failed = statuses.filter((s) => s.health === 'stale' && s.syncedAt === null);
  if (failed.length > 0 || (problems.length > 0 && statuses.every((s) => s.health !== 'syncing'))) {
    const reason = failed.find((s) => s.error)?.error?.message ?? problems[0] ?? 'The cluster cannot be read.';
    const since = failed.map((s) => s.staleSince).filter((s): s is string => s !== null).sort()[0] ?? null;
    return { state: 'unavailable', reason, since, retrying: state.mode === 'live' && state.connection !== null };
  }
  return {
    state: 'syncing',
    listed: statuses.reduce((sum, s) => sum + s.listed, 0),
    types: statuses.map((s) => ({ title: s.title, listed: s.listed, done: s.syncedAt !== null, forbidden: s.health === 'forbidden' })),
  };
}

/** `GET /api/v1/cluster/generation`: how far the cache is, for pages that follow the watch. */
export interface LiveState extends LiveMark {
  readonly mode: 'live' | 'snapshot';
  /** Health of every resource type read, in a fixed order ({@link LiveMark.health} is their key). */
  readonly resources: readonly ResourceHealthEntry[];
}

function liveState(generation: number): LiveState {
  const state = source();
  const synced = state.isSynced();
  const resources = state.statuses().map((s) => ({ resource: s.id, health: s.health }));
  return { mode: state.mode, generation, synced, health: healthKey(synced, resources), resources };
}

/** The cache's generation and per-type health now: O(resource types), no analysis, no API server call. */
export function getLiveState(): LiveState {
  return liveState(source().generation);
}

/**
 * What the page being rendered is built from: the generation at the render's first read of the
 * cluster (never newer than any view of the render) and the health now. The header hands it to the
 * live-refresh leaf, which compares it with {@link getLiveState} answers.
 */
export function getRenderedLiveMark(): LiveMark {
  const { generation, health, synced } = liveState(renderGeneration());
  return { generation, health, synced };
}
