/**
 * The fleet: one summary row per cluster of the registry, for `/fleet` and `GET /api/v1/clusters`.
 *
 * A row is a mapping of what each cluster's own analysis already computes (release, platform,
 * eligibility, proxy mode, the Services' hint counts, the cross-zone cost now and at best, the
 * Service costing most and the most common reason for attention): {@link fleetRow} is pure, so it
 * is tested on real analyses of fixture clusters. {@link fleetView} opens every cluster up to the
 * registry's limit and builds the rows; the last row of every cluster is kept (keyed by cluster
 * id, with the time it was taken), so a cluster closed after being idle — or one the limit keeps
 * closed — still shows its last figures, marked with their time, and a cluster syncing again shows
 * its previous figures until the new analysis is there.
 */
import 'server-only';

import type { ClusterEntry, ClusterState } from '../../k8s/clusters';
import type { ClusterPlatform, ServiceProxyImplementation } from '../../topology/analyses/analyze-dataplane';
import type { ClusterTrafficReport } from '../../topology/analyses/traffic-volume';
import type { AttentionReason, ClusterAnalysis, ServiceReport } from '../../topology/report/analysis-schema';
import type { ProxyMode } from '../../topology/model/cluster-model';
import { getClusterRegistry } from '../../k8s/source';
import { getClusterAnalysis } from '../../server/analysis';
import type { ClusterScope } from '../../server/clusters';
import { clusterHref, isScopeError, scopeFor } from '../../server/clusters';
import { clusterBaseOf } from '../../shared/cluster-path';
import type { ClusterStatusView, HeaderView } from '../header';
import { getClusterStatus, getHeader } from '../header';
import { getClusterTraffic } from '../traffic';
import type { FleetPrometheusSnapshot, FleetPrometheusStatus } from './fleet-prometheus';
import { FleetPrometheusCache, fleetPrometheusConfigFromEnv, sameCluster } from './fleet-prometheus';

export type { ClusterEntry, ClusterState } from '../../k8s/clusters';
export type { FleetAnswers, FleetPrometheusStatus } from './fleet-prometheus';
/** The fleet Prometheus's answers as fleet rows (pure; lib/views/fleet/fleet-prometheus.ts). */
export { FLEET_QUERY_NAMES, fleetRowsFromAnswers } from './fleet-prometheus';

/** How fresh a row's figures are, in one word (`kind`) and one line (`label`). */
export interface FleetFreshness {
  /**
   * `synced`: the cluster is open and its analysis current; `syncing`: the first list or analysis
   * pass is running (progress in `label`); `stale`: a watch is down since `since`; `error`: the
   * cluster cannot be read (`message` says why); `not-connected`: never opened (the open-cluster
   * limit, or a configuration error, kept it closed); `closed-idle`: closed after being unused (or, if
   * only the fleet page had opened it, to make room for a cluster a user opened), the figures are
   * from `asOf`; `snapshot`: a snapshot file, it does not change.
   */
  readonly kind: 'synced' | 'syncing' | 'stale' | 'error' | 'not-connected' | 'closed-idle' | 'snapshot';
  /** `Synced`, `Syncing: 1,204 objects listed`, `Stale since 10:04:11 UTC`, `Error`, `Not connected`, `Closed after idle`, `Closed to make room`. */
  readonly label: string;
  /** The cause (error), the limit or configuration message, the forbidden types; `null` when there is nothing more to say. */
  readonly message: string | null;
  /** When it became stale, failed or closed (ISO), `null` when not known or not applicable. */
  readonly since: string | null;
  /** Services analysed so far during the first analysis pass, `null` otherwise. */
  readonly progress: { readonly done: number; readonly total: number } | null;
}

/** The Service costing most in cross-zone traffic, with why and the smallest fix. */
export interface FleetTopService {
  readonly namespace: string;
  readonly name: string;
  /**
   * Its Service page in that cluster (`/c/{id}/services/{ns}/{name}`, or without the prefix for the
   * default cluster); `null` for a cluster known only from the fleet Prometheus.
   */
  readonly href: string | null;
  /** USD per month now, and at its best mechanism (`null`: not known, as from the fleet Prometheus). */
  readonly monthlyCost: number;
  readonly bestMonthlyCost: number | null;
  /** Why it crosses zones (the controller's warning, the attention message, or an unknown answer); `null` when nothing is wrong with it. */
  readonly reason: string | null;
  /** Title of the smallest fix, `null` when none applies. */
  readonly fix: string | null;
}

/** The reason for attention that most Services of the cluster share. */
export interface FleetAttention {
  readonly reason: AttentionReason;
  /** Services with this reason. */
  readonly services: number;
  /** The message most of them carry (numbers and all, from one of them). */
  readonly message: string;
  /** The Services table of that cluster filtered by the reason. */
  readonly href: string;
}

/** One cluster of the fleet (`clusters[]` of `GET /api/v1/clusters`). */
export interface FleetRow {
  readonly id: string;
  readonly displayName: string;
  readonly context: string | null;
  readonly server: string | null;
  readonly isDefault: boolean;
  /** The registry's state: `idle` (never opened), `open`, `closed-idle` (closed after being unused) or `error` (misconfigured). */
  readonly state: ClusterState;
  /**
   * Where the row comes from: `connected` — this installation reads the cluster (a registry entry);
   * `prometheus` — a cluster seen only in the fleet's Prometheus (`ZONESCOPE_FLEET_PROMETHEUS_URL`),
   * never opened from here.
   */
  readonly source: 'connected' | 'prometheus';
  /** Its Overview (`/` for the default cluster, `/c/{id}` otherwise); `null` for a cluster known only from the fleet Prometheus. */
  readonly href: string | null;
  readonly freshness: FleetFreshness;
  /** Why the cluster is not open: the open-cluster limit or a configuration error; `null` when open or closed after idle. */
  readonly refused: { readonly reason: 'limit' | 'config'; readonly message: string } | null;
  /** The modelled release (`1.31`) and the server's gitVersion; `null` until known. */
  readonly release: string | null;
  readonly gitVersion: string | null;
  /** As the Dataplane view detects it from the server version and the nodes. */
  readonly platform: ClusterPlatform | null;
  /** `null` when unknown (not analysed yet, or Nodes forbidden: `eligibilityVerdict` says so). */
  readonly eligible: boolean | null;
  /** The verdict (`Eligible: 3 zones …`, `Not eligible: node … lacks a zone label …`) or why it is unknown. */
  readonly eligibilityVerdict: string | null;
  readonly proxyMode: ProxyMode | null;
  /** Who implements Services (kube-proxy, or a replacement whose mode does not apply). */
  readonly serviceProxy: ServiceProxyImplementation | null;
  readonly honoursHints: boolean | null;
  /** Counts of Services: all, asking for hints (any mechanism), with hints on the EndpointSlices now, needing attention. */
  readonly services: number | null;
  readonly askingForHints: number | null;
  readonly hintsOn: number | null;
  readonly needingAttention: number | null;
  /** Cross-zone USD per month now, at each Service's best mechanism, and the difference. */
  readonly crossZoneMonthly: number | null;
  readonly bestMonthly: number | null;
  readonly saving: number | null;
  /**
   * Whether some of the volumes are measured (the cluster's own Prometheus: `ZONESCOPE_PROMETHEUS_URL`
   * for the default cluster, its `ZONESCOPE_PROMETHEUS_BY_CONTEXT` entry for the others) rather
   * than set or assumed.
   */
  readonly measured: boolean | null;
  /** Where the volumes behind the costs come from, for every Service of the cluster ({@link volumeSourceOf}); `null` without figures or for a cluster known only from the fleet Prometheus. */
  readonly volumeSource: FleetVolumeSource | null;
  /** The "why": the costliest Service and the most common reason for attention. */
  readonly topService: FleetTopService | null;
  readonly commonAttention: FleetAttention | null;
  /** Answers left unknown because a type could not be read (`unknown: zonescope could not read Nodes (forbidden)`). */
  readonly unknown: readonly string[];
  /** When these figures were taken (ISO), `null` when the cluster was never analysed. */
  readonly asOf: string | null;
}

/**
 * Where a cluster's volumes come from: `measured` — every Service's from Prometheus;
 * `partly-measured` — some; `set` — none measured, all set (`ZONESCOPE_TRAFFIC_VOLUMES`);
 * `assumed` — none measured, some assumed.
 */
export type FleetVolumeSource = 'measured' | 'partly-measured' | 'set' | 'assumed';

/** The {@link FleetVolumeSource} of a cluster's traffic figures (pure). */
export function volumeSourceOf(traffic: Pick<ClusterTrafficReport, 'sources'>): FleetVolumeSource {
  const { sources } = traffic;
  const measured = sources['measured-flows'].services + sources['measured-pod-bytes'].services;
  const others = sources.set.services + sources.assumed.services;
  if (measured > 0) return others === 0 ? 'measured' : 'partly-measured';
  return sources.assumed.services === 0 && sources.set.services > 0 ? 'set' : 'assumed';
}

/** What {@link fleetRow} maps: the cluster's entry and state and whatever its source can tell now. */
export interface FleetRowInput {
  readonly entry: ClusterEntry;
  readonly state: ClusterState;
  /** The path in that cluster (`clusterHref(entry, path)`). */
  readonly link: (path: string) => string;
  /** Now (ISO): the row's `asOf` when it has an analysis. */
  readonly now: string;
  /** The registry refused to open it. */
  readonly refused?: FleetRow['refused'];
  /** The cluster's header data and status; absent when the cluster is not open. */
  readonly header?: Pick<HeaderView, 'mode' | 'freshness' | 'gitVersion' | 'release' | 'platform'> | null;
  readonly status?: ClusterStatusView | null;
  /** Its analysis (`null` until the first pass is done) and cluster-wide traffic figures (defaults to the analysis's). */
  readonly analysis?: ClusterAnalysis | null;
  readonly traffic?: ClusterTrafficReport | null;
  /** When the registry closed it after idleness or to make room (ms), for `closed-idle`. */
  readonly closedAt?: number | null;
  /** The display name of the cluster a user opened in its place, when it closed to make room. */
  readonly closedFor?: string | null;
}

/** Why a Service's traffic crosses zones, in the Services table's words. */
function serviceReason(report: ServiceReport): string | null {
  return report.unknown.expectedHints ?? (report.expected.event?.type === 'Warning' ? report.expected.event.message : (report.needsAttention?.message ?? null));
}

/** A message with its numbers taken out: messages of one shape say the same thing ("2 endpoints, 3 zones"). */
const shapeOf = (message: string) => message.replace(/\d+(\.\d+)?/g, '#');

/**
 * The reason most Services need attention for, with the message most of them carry. Ties go to
 * the reason seen first: the list is ordered by cost, so the costlier one.
 */
function commonAttention(analysis: ClusterAnalysis, link: (path: string) => string): FleetAttention | null {
  const byReason = new Map<AttentionReason, { services: number; shapes: Map<string, { count: number; message: string }> }>();
  for (const item of analysis.cluster.needsAttention) {
    const entry = byReason.get(item.reason) ?? { services: 0, shapes: new Map<string, { count: number; message: string }>() };
    entry.services++;
    const shape = shapeOf(item.message);
    const seen = entry.shapes.get(shape) ?? { count: 0, message: item.message };
    seen.count++;
    entry.shapes.set(shape, seen);
    byReason.set(item.reason, entry);
  }
  let best: { reason: AttentionReason; services: number; message: string } | null = null;
  for (const [reason, entry] of byReason) {
    if (best !== null && entry.services <= best.services) continue;
    let message = '';
    let most = 0;
    for (const shape of entry.shapes.values()) if (shape.count > most) [message, most] = [shape.message, shape.count];
    best = { reason, services: entry.services, message };
  }
  if (best === null) return null;
  return { ...best, href: link(`/services?attention=1&reason=${best.reason}&sort=crossZone&order=desc`) };
}

function topService(analysis: ClusterAnalysis, traffic: ClusterTrafficReport, link: (path: string) => string): FleetTopService | null {
  const top = traffic.topByCost[0];
  if (top === undefined || !(top.monthlyCost > 0)) return null;
  const report = analysis.services.find((s) => s.namespace === top.namespace && s.name === top.name);
  return {
    namespace: top.namespace,
    name: top.name,
    href: link(`/services/${encodeURIComponent(top.namespace)}/${encodeURIComponent(top.name)}`),
    monthlyCost: top.monthlyCost,
    bestMonthlyCost: top.bestMonthlyCost,
    reason: report ? serviceReason(report) : null,
    fix: top.fix,
  };
}

const TIME = (iso: string | null) => (iso ? `${new Date(iso).toISOString().slice(11, 19)} UTC` : 'an unknown time');

/** The freshness of an open cluster, from its header and status. */
function openFreshness(header: NonNullable<FleetRowInput['header']>, status: ClusterStatusView | null): FleetFreshness {
  const f = header.freshness;
  if (status?.state === 'unavailable') return { kind: 'error', label: 'Error', message: status.reason, since: status.since, progress: null };
  if (header.mode === 'snapshot') return { kind: 'snapshot', label: 'Snapshot', message: null, since: null, progress: null };
  if (f.stale.length > 0) {
    const first = f.stale.find((s) => s.message !== null) ?? f.stale[0];
    return { kind: 'stale', label: `Stale since ${TIME(f.staleSince)}`, message: first ? `${f.stale.map((s) => s.title).join(', ')}: ${first.message ?? 'the watch is down'}` : null, since: f.staleSince, progress: null };
  }
  if (f.relisting !== null) return { kind: 'stale', label: `Re-listing since ${TIME(f.relisting.since)}`, message: f.relisting.reason, since: f.relisting.since, progress: null };
  if (!f.synced) {
    if (f.analysis) return { kind: 'syncing', label: f.analysis.message, message: null, since: f.analysis.since, progress: { done: f.analysis.done, total: f.analysis.total } };
    return {
      kind: 'syncing',
      label: `Syncing: ${f.progress.listed.toLocaleString('en-US')} objects listed`,
      message: `${f.progress.done} of ${f.progress.types} resource types done`,
      since: null,
      progress: null,
    };
  }
  const forbidden = f.forbidden.length > 0 ? f.forbidden.map((t) => t.unknown).join('; ') : null;
  return { kind: 'synced', label: f.forbidden.length > 0 ? `Synced, ${f.forbidden.length} type${f.forbidden.length === 1 ? '' : 's'} forbidden` : 'Synced', message: forbidden, since: null, progress: null };
}

/** The figures part of a row (everything an analysis gives), all `null` without one. */
type Figures = Pick<
  FleetRow,
  | 'release'
  | 'gitVersion'
  | 'platform'
  | 'eligible'
  | 'eligibilityVerdict'
  | 'proxyMode'
  | 'serviceProxy'
  | 'honoursHints'
  | 'services'
  | 'askingForHints'
  | 'hintsOn'
  | 'needingAttention'
  | 'crossZoneMonthly'
  | 'bestMonthly'
  | 'saving'
  | 'measured'
  | 'volumeSource'
  | 'topService'
  | 'commonAttention'
  | 'unknown'
  | 'asOf'
>;

const NO_FIGURES: Figures = {
  release: null,
  gitVersion: null,
  platform: null,
  eligible: null,
  eligibilityVerdict: null,
  proxyMode: null,
  serviceProxy: null,
  honoursHints: null,
  services: null,
  askingForHints: null,
  hintsOn: null,
  needingAttention: null,
  crossZoneMonthly: null,
  bestMonthly: null,
  saving: null,
  measured: null,
  volumeSource: null,
  topService: null,
  commonAttention: null,
  unknown: [],
  asOf: null,
};

function figures(analysis: ClusterAnalysis, trafficReport: ClusterTrafficReport | null | undefined, link: (path: string) => string, now: string): Figures {
  const { cluster, kubernetes } = analysis;
  const traffic = trafficReport ?? analysis.traffic;
  const s = cluster.summary;
  const eligibilityUnknown = cluster.unknown.eligibility;
  const servicesUnknown = cluster.unknown.services;
  return {
    release: kubernetes.release,
    gitVersion: kubernetes.gitVersion,
    platform: cluster.dataplane.platform.platform,
    eligible: eligibilityUnknown !== undefined ? null : cluster.eligible,
    eligibilityVerdict: eligibilityUnknown ?? cluster.verdict,
    proxyMode: cluster.dataplane.proxyMode,
    serviceProxy: cluster.dataplane.serviceProxy,
    honoursHints: cluster.dataplane.honoursHints,
    services: s.services,
    askingForHints: s.services - s.byMechanism.none,
    hintsOn: s.hintsObservedOn,
    needingAttention: s.needingAttention,
    crossZoneMonthly: servicesUnknown !== undefined ? null : traffic.totals.now.monthlyCost,
    bestMonthly: servicesUnknown !== undefined ? null : traffic.totals.best.monthlyCost,
    saving: servicesUnknown !== undefined ? null : traffic.saving.best,
    measured: traffic.sources['measured-flows'].services + traffic.sources['measured-pod-bytes'].services > 0,
    volumeSource: volumeSourceOf(traffic),
    topService: topService(analysis, traffic, link),
    commonAttention: commonAttention(analysis, link),
    unknown: [...new Set(Object.values(cluster.unknown).filter((m): m is string => typeof m === 'string'))],
    asOf: now,
  };
}

/**
 * One cluster's row from what its source and analysis say now (pure). Without an analysis (not
 * open, syncing, failed) the figures are `null` and `freshness` says why; {@link fleetView} then
 * fills them from the cluster's last row, marked with its `asOf`.
 */
export function fleetRow(input: FleetRowInput): FleetRow {
  const { entry, state, link } = input;
  const base = {
    id: entry.id,
    displayName: entry.displayName,
    context: entry.context,
    server: entry.server,
    isDefault: entry.isDefault,
    state,
    source: 'connected' as const,
    href: link('/'),
    refused: input.refused ?? null,
  };
  let freshness: FleetFreshness;
  if (entry.configError !== null) {
    freshness = { kind: 'error', label: 'Configuration error', message: entry.configError, since: null, progress: null };
  } else if (input.header) {
    freshness = openFreshness(input.header, input.status ?? null);
  } else if (state === 'closed-idle') {
    // Closed, and perhaps kept closed by the limit: why it closed first, then what keeps it closed.
    const since = input.closedAt != null ? new Date(input.closedAt).toISOString() : null;
    const kept = input.refused ? ` ${input.refused.message}` : '';
    const [label, why] =
      input.closedFor != null
        ? ['Closed to make room', `Its watches were closed when ${input.closedFor} was opened at the open-cluster limit (ZONESCOPE_MAX_OPEN_CLUSTERS): only the fleet page had opened it. Opening it connects again.`]
        : ['Closed after idle', 'Its watches were closed after it was unused; opening it connects again.'];
    freshness = { kind: 'closed-idle', label, message: `${why}${kept}`, since, progress: null };
  } else if (input.refused) {
    freshness = { kind: 'not-connected', label: 'Not connected', message: input.refused.message, since: null, progress: null };
  } else {
    freshness = { kind: 'not-connected', label: 'Not connected', message: null, since: null, progress: null };
  }
  if (input.analysis && input.header) {
    const header = input.header;
    const f = figures(input.analysis, input.traffic, link, input.now);
    return { ...base, ...f, gitVersion: f.gitVersion ?? header.gitVersion, freshness };
  }
  // No analysis: whatever the header knows (release and platform from the server version).
  const header = input.header;
  const platform = header?.platform ? platformOf(header.platform) : null;
  return { ...base, ...NO_FIGURES, release: header && header.release !== 'unknown' ? header.release : null, gitVersion: header?.gitVersion ?? null, platform, freshness };
}

/** The header's platform word (`eks`, `gke`, …) as a {@link ClusterPlatform}. */
function platformOf(platform: string): ClusterPlatform {
  const p = platform.toLowerCase();
  return p === 'eks' || p === 'gke' || p === 'aks' ? p : 'other';
}

/**
 * A fresh row without figures, completed from the cluster's last row: the figures and their
 * `asOf` of the last analysis, this row's identity, state and freshness (pure).
 */
export function withLastFigures(row: FleetRow, last: FleetRow | undefined): FleetRow {
  if (row.asOf !== null || last === undefined || last.asOf === null) return row;
  const kept: Figures = {
    release: last.release,
    gitVersion: last.gitVersion,
    platform: last.platform,
    eligible: last.eligible,
    eligibilityVerdict: last.eligibilityVerdict,
    proxyMode: last.proxyMode,
    serviceProxy: last.serviceProxy,
    honoursHints: last.honoursHints,
    services: last.services,
    askingForHints: last.askingForHints,
    hintsOn: last.hintsOn,
    needingAttention: last.needingAttention,
    crossZoneMonthly: last.crossZoneMonthly,
    bestMonthly: last.bestMonthly,
    saving: last.saving,
    measured: last.measured,
    volumeSource: last.volumeSource,
    topService: last.topService,
    commonAttention: last.commonAttention,
    unknown: last.unknown,
    asOf: last.asOf,
  };
  return { ...row, ...kept };
}

/** The answer to "which cluster spends most on cross-zone traffic, and why" (pure); `null` when no cluster has a cost. */
export interface FleetLeader {
  readonly row: FleetRow;
  /** Its share of the cross-zone spend of every cluster with a figure (0–1). */
  readonly share: number;
  /** USD per month of every cluster with a figure. */
  readonly total: number;
  /** Clusters with a figure. */
  readonly counted: number;
}

export function fleetLeader(rows: readonly FleetRow[]): FleetLeader | null {
  const costed = rows.filter((r): r is FleetRow & { crossZoneMonthly: number } => r.crossZoneMonthly !== null);
  if (costed.length === 0) return null;
  const row = costed.reduce((a, b) => (b.crossZoneMonthly > a.crossZoneMonthly ? b : a));
  const total = costed.reduce((sum, r) => sum + r.crossZoneMonthly, 0);
  return { row, share: total > 0 ? row.crossZoneMonthly / total : 0, total, counted: costed.length };
}

// ---------------------------------------------------------------------------------------------
// The registry's clusters, now

/** `GET /api/v1/clusters` and the fleet page's data. */
export interface FleetView {
  /** One row per cluster, in registry order (default first). */
  readonly clusters: readonly FleetRow[];
  readonly defaultId: string;
  /** Clusters open now, and the most that may be (`ZONESCOPE_MAX_OPEN_CLUSTERS`, the default counted). */
  readonly openCount: number;
  readonly maxOpen: number;
  /** Idle minutes after which a cluster closes (`ZONESCOPE_CLUSTER_IDLE_MINUTES`; 0 = never). */
  readonly idleMinutes: number;
  readonly generatedAt: string;
  /**
   * The fleet Prometheus (`ZONESCOPE_FLEET_PROMETHEUS_URL`) whose clusters are rows too (`source:
   * 'prometheus'`, after the connected ones), `null` when not configured. Its `message` says when
   * it cannot be read (`fleet Prometheus unreachable: …`); the connected rows are shown regardless.
   */
  readonly fleetPrometheus: FleetPrometheusStatus | null;
}

/** The last row with figures of every cluster (by id): what a closed or refused cluster still shows. */
const SUMMARIES = Symbol.for('zonescope.fleetSummaries');
type Holder = { [SUMMARIES]?: Map<string, FleetRow> };

function summaries(): Map<string, FleetRow> {
  const holder = globalThis as unknown as Holder;
  return (holder[SUMMARIES] ??= new Map());
}

/** The row of an open cluster from what its source and analysis say now. */
function openRow(scope: ClusterScope, now: string): FleetRow {
  return fleetRow({
    entry: scope.entry,
    state: 'open',
    link: (path) => clusterHref(scope, path),
    now,
    header: getHeader(scope),
    status: getClusterStatus(scope),
    analysis: getClusterAnalysis(scope.source),
    traffic: getClusterTraffic(scope)?.report ?? null,
  });
}

/**
 * Whether the navigation offers the fleet page: with several clusters, or with a fleet Prometheus
 * (`ZONESCOPE_FLEET_PROMETHEUS_URL`: one zonescope per cluster, the fleet read from where they are
 * scraped — an in-cluster installation has one cluster of its own and still a fleet to show).
 */
export function fleetOffered(clusterCount: number, env: Readonly<Record<string, string | undefined>> = process.env): boolean {
  return clusterCount > 1 || (env.ZONESCOPE_FLEET_PROMETHEUS_URL ?? '').trim() !== '';
}

/**
 * Every cluster of the registry as a fleet row. Opens each cluster not open yet, in registry
 * order, until the registry's limit refuses (those rows say so, with the registry's message);
 * a cluster with figures updates its kept summary, one without (syncing, failing, refused,
 * closed) shows the kept one with its time. Never throws for one cluster: a cluster whose data
 * cannot be read is a row with its error.
 */
export function fleetView(now: Date = new Date()): FleetView {
  const registry = getClusterRegistry();
  const at = now.toISOString();
  const kept = summaries();
  const prometheus = fleetPrometheusSnapshot();
  const rows = registry.entries().map((entry): FleetRow => {
    const link = (path: string) => clusterHref(entry, path);
    let row: FleetRow;
    // Reading a cluster's figures for the fleet does not count as using it (OpenOptions).
    const scope = scopeFor(entry.id, { for: 'fleet' });
    if (isScopeError(scope)) {
      const state = registry.state(entry.id) ?? 'idle';
      const refused = scope.reason === 'limit' || scope.reason === 'config' ? { reason: scope.reason, message: scope.message } : null;
      row = fleetRow({ entry, state, link, now: at, refused, closedAt: registry.closedAt(entry.id), closedFor: registry.closedFor(entry.id)?.displayName ?? null });
    } else {
      try {
        row = openRow(scope, at);
      } catch (error) {
        // One cluster's failure is its row's error, never the page's.
        const message = error instanceof Error ? error.message : 'The cluster could not be read.';
        row = { ...fleetRow({ entry, state: 'open', link, now: at }), freshness: { kind: 'error', label: 'Error', message, since: null, progress: null } };
      }
    }
    if (row.asOf === at) kept.set(entry.id, row);
    const last = kept.get(entry.id);
    // Only the same cluster's figures (an id names another context after a configuration change).
    return last !== undefined && last.context === entry.context && last.server === entry.server ? withLastFigures(row, last) : row;
  });
  return {
    clusters: [...rows, ...fleetPrometheusRows(rows, prometheus)],
    fleetPrometheus: prometheus?.status ?? null,
    defaultId: registry.defaultEntry().id,
    openCount: registry.openIds().length,
    maxOpen: registry.maxOpen,
    idleMinutes: registry.idleMs / 60_000,
    generatedAt: at,
  };
}

// ---------------------------------------------------------------------------------------------
// The fleet Prometheus

const FLEET_PROMETHEUS = Symbol.for('zonescope.fleetPrometheus');
type PrometheusHolder = { [FLEET_PROMETHEUS]?: { readonly key: string; readonly cache: FleetPrometheusCache | null; readonly error: FleetPrometheusStatus | null } };

/**
 * What the fleet Prometheus said last (its queries run in the background, at most every 30 s;
 * a page view never waits for them), `null` when `ZONESCOPE_FLEET_PROMETHEUS_URL` is unset. A
 * configuration error is a status with its message and no rows.
 */
function fleetPrometheusSnapshot(env: Readonly<Record<string, string | undefined>> = process.env): FleetPrometheusSnapshot | null {
  const holder = globalThis as unknown as PrometheusHolder;
  const key = ['URL', 'TOKEN_FILE', 'CA_FILE', 'TIMEOUT_MS'].map((name) => env[`ZONESCOPE_FLEET_PROMETHEUS_${name}`] ?? '').join('\n') + `\n${env.ZONESCOPE_FLEET_CLUSTER_LABEL ?? ''}`;
  let held = holder[FLEET_PROMETHEUS];
  if (held === undefined || held.key !== key) {
    const result = fleetPrometheusConfigFromEnv(env);
    held =
      result.kind === 'ok'
        ? { key, cache: new FleetPrometheusCache({ config: result.config }), error: null }
        : {
            key,
            cache: null,
            error:
              result.kind === 'error'
                ? { url: result.url ?? '(invalid URL)', clusterLabel: env.ZONESCOPE_FLEET_CLUSTER_LABEL?.trim() || 'cluster', state: 'error', message: `fleet Prometheus misconfigured: ${result.message}`, answeredAt: null, clusters: 0 }
                : null,
          };
    holder[FLEET_PROMETHEUS] = held;
  }
  if (held.cache !== null) return held.cache.snapshot();
  return held.error !== null ? { status: held.error, rows: [] } : null;
}

/** The fleet Prometheus's rows of clusters not connected here (a cluster both connected and there shows its connected row). Pure. */
export function fleetPrometheusRows(connected: readonly FleetRow[], snapshot: FleetPrometheusSnapshot | null): FleetRow[] {
  if (snapshot === null) return [];
  return snapshot.rows.filter(({ row, exportedName }) => !connected.some((c) => sameCluster(c, row.displayName, exportedName))).map(({ row }) => row);
}

// ---------------------------------------------------------------------------------------------
// The header's switcher

/** One cluster as the header's switcher lists it (plain data for the client leaf). */
export interface SwitcherCluster {
  readonly id: string;
  readonly displayName: string;
  readonly context: string | null;
  readonly server: string | null;
  /** `open · synced`, `open · syncing`, `error: …`, `not connected`, `closed after idle`. */
  readonly state: string;
  readonly tone: 'ok' | 'warn' | 'error' | 'info' | 'neutral';
  /** Its URL prefix: `''` for the default cluster, `/c/{id}` otherwise. */
  readonly base: string;
}

/** The state words of one cluster, without opening it (pure). */
/** `Stale since 10:04:11 UTC` → `stale since 10:04:11 UTC`. */
const lowerFirst = (text: string) => text.charAt(0).toLowerCase() + text.slice(1);

export function switcherState(state: ClusterState, entry: ClusterEntry, freshness: FleetFreshness | null): Pick<SwitcherCluster, 'state' | 'tone'> {
  if (entry.configError !== null && state !== 'open') return { state: `error: ${entry.configError}`, tone: 'error' };
  if (state === 'closed-idle') return { state: 'closed after idle', tone: 'neutral' };
  if (state !== 'open' || freshness === null) return { state: 'not connected', tone: 'neutral' };
  switch (freshness.kind) {
    case 'synced':
      return { state: freshness.message === null ? 'open · synced' : `open · ${lowerFirst(freshness.label)}`, tone: freshness.message === null ? 'ok' : 'warn' };
    case 'syncing':
      return { state: 'open · syncing', tone: 'info' };
    case 'stale':
      return { state: `open · ${lowerFirst(freshness.label)}`, tone: 'warn' };
    case 'snapshot':
      return { state: 'snapshot', tone: 'neutral' };
    default:
      return { state: `error: ${freshness.message ?? freshness.label}`, tone: 'error' };
  }
}

/**
 * Every cluster for the header's switcher, without opening any (the open ones say how their data
 * is, the others that they are not connected or closed after idle).
 */
export function switcherClusters(): readonly SwitcherCluster[] {
  const registry = getClusterRegistry();
  return registry.entries().map((entry) => {
    const state = registry.state(entry.id) ?? 'idle';
    const source = registry.peek(entry.id);
    let freshness: FleetFreshness | null = null;
    if (source !== null) {
      const scope: ClusterScope = { id: entry.id, entry, source };
      try {
        freshness = openFreshness(getHeader(scope), getClusterStatus(scope));
      } catch (error) {
        freshness = { kind: 'error', label: 'Error', message: error instanceof Error ? error.message : 'The cluster could not be read.', since: null, progress: null };
      }
    }
    return { id: entry.id, displayName: entry.displayName, context: entry.context, server: entry.server, base: clusterBaseOf(entry), ...switcherState(state, entry, freshness) };
  });
}
