/**
 * One cluster's row of the fleet, for `/fleet` and `GET /api/v1/clusters` (pure): a mapping of what
 * the cluster's own analysis already computes (release, platform, eligibility, proxy mode, the
 * Services' hint counts, the cross-zone cost now and at best, the Service costing most and the
 * most common reason for attention), with its freshness; and a row without figures completed from
 * the cluster's last row. Tested on real analyses of fixture clusters.
 */
import type { ClusterEntry } from '../../k8s/cluster-entries';
import type { ClusterState } from '../../k8s/clusters';
import type { ClusterPlatform, ServiceProxyImplementation } from '../../topology/analyses/analyze-dataplane';
import type { ClusterTrafficReport } from '../../topology/analyses/traffic-volume';
import type { AttentionReason, ClusterAnalysis, ServiceReport } from '../../topology/report/analysis-schema';
import type { ProxyMode } from '../../topology/model/cluster-model';
import type { HintsReasonCode } from '../../topology/report/hints-reason';
import { HINTS_REASON_CODES, hintsReasonCode } from '../../topology/report/hints-reason';
import type { ClusterStatusView, HeaderView } from '../header';
import type { AttentionCause } from './attention-words';
import { commonAttentionSentence } from './attention-words';
import type { FleetFreshness } from './freshness';
import { openFreshness } from './freshness';

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
  /**
   * What holds for every one of them ({@link commonAttentionSentence}): the reason's sentence, or
   * for `hints-off` the controller's reasons by bounded code — never one Service's message.
   */
  readonly message: string;
  /** For `hints-off`: the Services by the bounded code of the controller's reason (lib/topology/report/hints-reason.ts), most first; empty otherwise. */
  readonly causes: readonly AttentionCause[];
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

/**
 * The reason most Services need attention for, in words that hold for all of them. Ties go to the
 * reason seen first: the list is ordered by cost, so the costlier one. For `hints-off`, the
 * Services are counted by the bounded code of the controller's reason (most first, ties by the
 * codes' documented order).
 */
function commonAttention(analysis: ClusterAnalysis, link: (path: string) => string): FleetAttention | null {
  const counts = new Map<AttentionReason, number>();
  for (const item of analysis.cluster.needsAttention) counts.set(item.reason, (counts.get(item.reason) ?? 0) + 1);
  let best: { reason: AttentionReason; services: number } | null = null;
  for (const [reason, services] of counts) if (best === null || services > best.services) best = { reason, services };
  if (best === null) return null;
  const causes: AttentionCause[] = [];
  if (best.reason === 'hints-off') {
    const byCode = new Map<HintsReasonCode, number>();
    for (const report of analysis.services) {
      if (report.needsAttention?.reason !== 'hints-off') continue;
      const code = hintsReasonCode(report);
      byCode.set(code, (byCode.get(code) ?? 0) + 1);
    }
    for (const code of HINTS_REASON_CODES) {
      const services = byCode.get(code);
      if (services !== undefined) causes.push({ code, services });
    }
    causes.sort((a, b) => b.services - a.services);
  }
  return {
    ...best,
    message: commonAttentionSentence(best.reason, causes),
    causes,
    href: link(`/services?attention=1&reason=${best.reason}&sort=crossZone&order=desc`),
  };
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
 * fills them from the cluster's last row, marked with its `asOf` (lib/views/fleet/fleet.ts).
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
