/**
 * What every page and route needs to know about the cluster source before it shows anything: the
 * read-only flag, data freshness for the header, and whether the data can be served yet (and if
 * not, why). Cheap: nothing here runs an analysis or calls the API server.
 */
import 'server-only';

import { getConfig } from '../config/process-config';
import type { ClusterSource, RelistState } from '../k8s/cluster-source';
import { permanentFailure, RELISTING_MESSAGE } from '../k8s/cluster-source';
import { isPermanent } from '../k8s/errors';
import type { ResourceStatus } from '../k8s/informer/status';
import type { ResourceId } from '../k8s/resources';
import { clusterRoleSnippet, identityLabel, knownIdentity, readGrantFor, ruleLine } from '../k8s/self-subject-review';
import { unknownMessage, unreadableReport } from '../topology/report/unknowns';
import { analysisPass, isServing, prepared, renderGeneration, servedGeneration, source } from '../server/analysis';
import type { PassState } from '../server/analysis-scheduler';
import { REASON_WORDS } from '../server/analysis-scheduler';
import type { ClusterScope } from '../server/clusters';
import { configuredReadOnlyReason } from '../server/clusters';
import type { TrafficStatus } from './traffic';
import { getMetricsStatus } from './traffic';
import type { LiveMark, ResourceHealthEntry } from '../shared/live-refresh';
import { healthKey } from '../shared/live-refresh';

/**
 * `ZONESCOPE_READ_ONLY=1` (every cluster) or the cluster's context in
 * `ZONESCOPE_READ_ONLY_CONTEXTS` hides the cluster's write controls and refuses its writes.
 */
export function isReadOnly(scope: Pick<ClusterScope, 'entry'>): boolean {
  return configuredReadOnlyReason(scope) !== null;
}

/**
 * The cluster analysis pass running in slices: the first one (nothing is shown until it is done)
 * or a background re-analysis after a change of cluster-wide inputs (pages show the previous
 * generation's analysis meanwhile).
 */
export interface AnalysisProgress {
  readonly kind: 'first' | 'reanalysis';
  /** What started a re-analysis, in words (`a node change`); `null` for the first pass. */
  readonly reason: string | null;
  /** Services with a report so far, and in the pass. */
  readonly done: number;
  readonly total: number;
  /** When the pass began (ISO). */
  readonly since: string;
  /** The generation being analysed, and the one shown meanwhile (`null` during the first pass). */
  readonly generation: number;
  readonly shownGeneration: number | null;
  /** "Analysing Services: 4,210 of 9,913" / "Re-analysing after a node change: 3,100 of 9,913 Services". */
  readonly message: string;
}

/** The header's words and figures of a pass in progress. */
export function analysisProgress(pass: PassState | null): AnalysisProgress | null {
  if (pass === null) return null;
  const count = (n: number) => n.toLocaleString('en-US');
  const reason = pass.reason === null ? null : REASON_WORDS[pass.reason];
  const message =
    pass.kind === 'first'
      ? `Analysing Services: ${count(pass.done)} of ${count(pass.total)}`
      : `Re-analysing after ${reason ?? 'a cluster change'}: ${count(pass.done)} of ${count(pass.total)} Services`;
  return {
    kind: pass.kind,
    reason,
    done: pass.done,
    total: pass.total,
    since: new Date(pass.startedAt).toISOString(),
    generation: pass.generation,
    shownGeneration: pass.shownGeneration,
    message,
  };
}

/** Data freshness for the header: syncing progress, stale or forbidden types. */
export interface Freshness {
  /** Whether the data is served: every type finished its first sync and the first analysis pass is done. */
  readonly synced: boolean;
  /** The analysis pass running in the background (first or re-analysis), `null` when none. */
  readonly analysis: AnalysisProgress | null;
  /** Earliest `staleSince` of any stale type (ISO), `null` when all are current. */
  readonly staleSince: string | null;
  /** `permanent`: the failure does not go away without the user fixing its cause (credentials, TLS, configuration). */
  readonly stale: readonly { readonly title: string; readonly since: string | null; readonly message: string | null; readonly permanent: boolean }[];
  readonly forbidden: readonly ForbiddenType[];
  readonly syncing: readonly { readonly title: string; readonly listed: number }[];
  /** Sync progress over every type, as the page body counts it ({@link syncProgress}). */
  readonly progress: SyncProgress;
  readonly problems: readonly string[];
  /**
   * The re-list after the API server's history went backwards, `null` when none: pages show the
   * previous data while every type is listed again; all are swapped in at once.
   */
  readonly relisting: { readonly message: string; readonly since: string; readonly reason: string } | null;
}

/** Objects listed so far over every resource type, and how many types are done (synced or forbidden). */
export interface SyncProgress {
  readonly listed: number;
  readonly done: number;
  readonly types: number;
}

/** The one count of sync progress the header badge and the page body both show. */
export function syncProgress(statuses: readonly ResourceStatus[]): SyncProgress {
  let listed = 0;
  let done = 0;
  for (const s of statuses) {
    listed += s.listed;
    if (s.syncedAt !== null || s.health === 'forbidden') done++;
  }
  return { listed, done, types: statuses.length };
}

/** A resource type the identity may not read, and what that leaves unknown. */
export interface ForbiddenType {
  readonly resource: ResourceId;
  readonly title: string;
  /** The API server's message (safe to show). */
  readonly message: string | null;
  /** `unknown: zonescope could not read Nodes (forbidden)`: what the answers depending on it say. */
  readonly unknown: string;
  /** The answers left unknown (`cluster.eligibility`, `services[].crossZone`, …; see docs/analyze-schema.md). */
  readonly affects: readonly string[];
  /** The RBAC rule that grants it: `apiGroups: [""], resources: ["nodes"], verbs: ["get", "list", "watch"]`. */
  readonly rule: string;
}

/** Who zonescope reads as, and the RBAC change that lets it read what it may not; `null` when nothing is forbidden. */
export interface PermissionsView {
  /** The username from a SelfSubjectReview, or "the current identity" when the server could not say (yet). */
  readonly identity: string;
  /** Whether {@link identity} came from the API server. */
  readonly identityKnown: boolean;
  /**
   * Ready-to-apply YAML granting get, list and watch on every forbidden type: a ClusterRole for the
   * types read cluster-wide, a Role in kube-system for its ConfigMaps and DaemonSets.
   */
  readonly clusterRole: string;
  /** The `kubectl create clusterrolebinding` / `rolebinding` commands binding them to the identity. */
  readonly bind: readonly string[];
}

/** What the header shows about the cluster. */
export interface HeaderView {
  /** The cluster's id (its URL slug), whether it is the default one (no `/c/` prefix), and its display name from the registry. */
  readonly clusterId: string;
  readonly isDefault: boolean;
  readonly displayName: string;
  /** `ZONESCOPE_CLUSTER_NAME` (`null`: not set), which names the default cluster in the header and titles. */
  readonly configuredName: string | null;
  readonly mode: 'live' | 'snapshot';
  readonly contextName: string | null;
  readonly serverUrl: string | null;
  readonly snapshotPath: string | null;
  readonly gitVersion: string | null;
  readonly release: string;
  readonly platform: string | null;
  readonly readOnly: boolean;
  /** Why the cluster is read-only (ZONESCOPE_READ_ONLY, ZONESCOPE_READ_ONLY_CONTEXTS, a snapshot), `null` when it is not. */
  readonly readOnlyReason: string | null;
  readonly freshness: Freshness;
  readonly permissions: PermissionsView | null;
  /**
   * The metrics source's health (Prometheus: ok, stale since T, unreachable, no matching series,
   * not configured and how to add it), beside the informers' freshness. Read from the process-wide
   * traffic source's last answer: never waits for Prometheus. `settingsError` says when the volumes
   * file (`ZONESCOPE_TRAFFIC_VOLUMES`) could not be used; the other volume settings stop the start
   * when they cannot be read.
   */
  readonly metrics: TrafficStatus;
}

function forbiddenType(status: ResourceStatus): ForbiddenType {
  return {
    resource: status.id,
    title: status.title,
    message: status.error?.message ?? null,
    unknown: unknownMessage([status.id]),
    affects: unreadableReport([status.id])[0]?.affects ?? [],
    rule: ruleLine([readGrantFor(status.id)]),
  };
}

/**
 * Who zonescope reads as (the SelfSubjectReview answer, looked up once per connection in the
 * background: a render never waits for it) and the ClusterRole that grants the forbidden types.
 */
function permissionsView(state: ClusterSource, forbidden: readonly ResourceId[]): PermissionsView | null {
  if (forbidden.length === 0) return null;
  const identity = knownIdentity(state.connection);
  const { yaml, bind } = clusterRoleSnippet(forbidden, identity);
  return { identity: identityLabel(identity), identityKnown: identity?.ok === true, clusterRole: yaml, bind };
}

function freshness(statuses: readonly ResourceStatus[], synced: boolean, problems: readonly string[], relist: RelistState | null = null, pass: PassState | null = null): Freshness {
  const stale = statuses.filter((s) => s.health === 'stale');
  const since = stale.map((s) => s.staleSince).filter((s): s is string => s !== null).sort()[0] ?? null;
  return {
    synced,
    analysis: analysisProgress(pass),
    staleSince: since,
    stale: stale.map((s) => ({ title: s.title, since: s.staleSince, message: s.error?.message ?? null, permanent: s.error !== null && isPermanent(s.error) })),
    forbidden: statuses.filter((s) => s.health === 'forbidden').map(forbiddenType),
    syncing: statuses.filter((s) => s.health === 'syncing').map((s) => ({ title: s.title, listed: s.listed })),
    progress: syncProgress(statuses),
    problems,
    relisting: relist === null ? null : { message: RELISTING_MESSAGE, since: relist.since, reason: relist.reason },
  };
}

/**
 * Header data (cheap; no analysis): the modelled release comes from the memoised per-cluster
 * preparation (O(nodes), once per generation) once synced, else from the server version.
 */
export function getHeader(scope: ClusterScope): HeaderView {
  const state = source(scope.source);
  const version = state.serverVersion();
  const synced = isServing(state);
  const fresh = freshness(state.statuses(), synced, state.problems(), state.relisting(), analysisPass(state));
  return {
    clusterId: scope.entry.id,
    isDefault: scope.entry.isDefault,
    displayName: scope.entry.displayName,
    configuredName: getConfig().ZONESCOPE_CLUSTER_NAME ?? null,
    mode: state.mode,
    contextName: state.contextName,
    serverUrl: state.serverUrl,
    snapshotPath: state.snapshotPath,
    gitVersion: version?.gitVersion ?? null,
    release: synced ? prepared(state).kubernetes.release : version?.minor !== null && version?.minor !== undefined ? `1.${version.minor}` : 'unknown',
    platform: version?.platform ?? null,
    readOnly: isReadOnly(scope) || state.mode !== 'live',
    readOnlyReason: configuredReadOnlyReason(scope) ?? (state.mode !== 'live' ? 'A snapshot cannot be changed.' : null),
    freshness: fresh,
    permissions: permissionsView(state, fresh.forbidden.map((f) => f.resource)),
    metrics: getMetricsStatus(scope),
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

/**
 * `null` when the cluster data is ready to serve (first sync done), else why not: `unavailable`
 * with the cause when nothing is connected or the first sync failed permanently (credentials,
 * TLS, configuration — see `permanentFailure`), `syncing` otherwise.
 */
export function getSourceProblem(scope: ClusterScope): SourceProblem | null {
  const state = source(scope.source);
  if (state.mode === 'live' && state.connection === null) {
    return { kind: 'unavailable', message: state.problems()[0] ?? 'No cluster is connected.' };
  }
  if (!state.isSynced()) {
    const failure = permanentFailure(state.statuses());
    return failure === null ? SYNCING : { kind: 'unavailable', message: failure.message };
  }
  if (!isServing(state)) {
    const pass = analysisProgress(analysisPass(state));
    return { kind: 'syncing', message: pass === null ? SYNCING.message : `The dashboard is analysing the cluster (${pass.message}); try again in a moment.` };
  }
  return null;
}

/** What a page shows instead of its panels until the data is there (never thrown). */
export type ClusterStatusView =
  | { readonly state: 'ready' }
  | {
      readonly state: 'syncing';
      /** Objects listed so far over every type, and the types done (the header's badge counts the same). */
      readonly progress: SyncProgress;
      /** The first analysis pass, once every type is listed (`null` or absent while listing). */
      readonly analysis?: AnalysisProgress | null;
      readonly types: readonly { readonly title: string; readonly listed: number; readonly done: boolean; readonly forbidden: boolean }[];
    }
  | {
      readonly state: 'unavailable';
      /** Safe message saying why (no credentials, no raw API bodies). */
      readonly reason: string;
      readonly since: string | null;
      /** Live sources keep retrying in the background. */
      readonly retrying: boolean;
      /** The cause does not go away on its own (credentials, TLS, configuration): the user must fix it. */
      readonly permanent: boolean;
    };

/** Whether pages can render their panels, and if not, why (syncing progress or the source's problem). */
export function getClusterStatus(scope: ClusterScope): ClusterStatusView {
  const state = source(scope.source);
  if (isServing(state)) return { state: 'ready' };
  const statuses = state.statuses();
  if (state.isSynced()) {
    // Listed; the first analysis pass runs (or is about to).
    return {
      state: 'syncing',
      progress: syncProgress(statuses),
      analysis: analysisProgress(analysisPass(state)),
      types: statuses.map((s) => ({ title: s.title, listed: s.listed, done: s.syncedAt !== null, forbidden: s.health === 'forbidden' })),
    };
  }
  const problems = state.problems();
  const failed = statuses.filter((s) => s.health === 'stale' && s.syncedAt === null);
  if (failed.length > 0 || (problems.length > 0 && statuses.every((s) => s.health !== 'syncing'))) {
    const failure = permanentFailure(statuses);
    const reason = failure?.message ?? failed.find((s) => s.error)?.error?.message ?? problems[0] ?? 'The cluster cannot be read.';
    const since = failed.map((s) => s.staleSince).filter((s): s is string => s !== null).sort()[0] ?? null;
    return { state: 'unavailable', reason, since, retrying: state.mode === 'live' && state.connection !== null, permanent: failure !== null };
  }
  return {
    state: 'syncing',
    progress: syncProgress(statuses),
    analysis: null,
    types: statuses.map((s) => ({ title: s.title, listed: s.listed, done: s.syncedAt !== null, forbidden: s.health === 'forbidden' })),
  };
}

/** `GET /api/v1/cluster/generation`: how far the cache is, for pages that follow the watch. */
export interface LiveState extends LiveMark {
  readonly mode: 'live' | 'snapshot';
  /** Health of every resource type read, in a fixed order ({@link LiveMark.health} is their key). */
  readonly resources: readonly ResourceHealthEntry[];
}

function liveState(scope: ClusterScope, generation: number): LiveState {
  const state = source(scope.source);
  const synced = isServing(state);
  const resources = state.statuses().map((s) => ({ resource: s.id, health: s.health }));
  // The metrics source's state is part of the key: open pages re-render when Prometheus goes down
  // or comes back, so the header and the traffic figures say what they rest on. So is a
  // background re-analysis: pages re-render when it starts (the header says so) and ends.
  const reanalysing = analysisPass(state)?.kind === 'reanalysis' ? '|analysis:reanalysing' : '';
  return { mode: state.mode, generation, synced, health: `${healthKey(synced, resources)}|metrics:${getMetricsStatus(scope).state}${reanalysing}`, resources };
}

/**
 * The generation of what a read gets now (the cache's, or during a background re-analysis the
 * analysis still served) and per-type health: O(resource types), no analysis, no API server call.
 */
export function getLiveState(scope: ClusterScope): LiveState {
  return liveState(scope, servedGeneration(scope.source));
}

/**
 * What the page being rendered is built from: the generation at the render's first read of the
 * cluster (never newer than any view of the render) and the health now. The header hands it to the
 * live-refresh leaf, which compares it with {@link getLiveState} answers.
 */
export function getRenderedLiveMark(scope: ClusterScope): LiveMark {
  const { generation, health, synced } = liveState(scope, renderGeneration(scope.source));
  return { generation, health, synced };
}
