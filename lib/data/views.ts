/**
 * View composition for pages and route handlers: one data path. Everything here reads the
 * memoised analysis of the current cluster generation; nothing calls the API server.
 */
import 'server-only';

import type { ResourceStatus } from '../k8s/informer';
import type { ServiceRecord } from '../topology/model/cluster-model';
import { objectKey } from '../topology/model/cluster-model';
import type { AnalysisOptions } from '../topology/model/cluster-context';
import type { ClusterAnalysis, ServiceDetail, ServiceReport } from '../topology/report/analysis';
import { analyzeServiceIn } from '../topology/report/analysis';
import { clusterAnalysis, preparedWith, source } from './analysis';
import { topologyAnnotationFor } from '../topology/analyses/analyze-dataplane';
import { hintsAnnotationRule } from '../topology/upstream/proxy-topology';
import type { HintsAnnotationRule } from '../topology/upstream/proxy-topology';
import { defaultFeatureGates, formatKubeMinor, MAX_MODELLED_MINOR, MIN_MODELLED_MINOR } from '../topology/upstream/version';

/** `ZONESCOPE_READ_ONLY=1` hides every write control and refuses writes. */
export function isReadOnly(): boolean {
  const value = process.env.ZONESCOPE_READ_ONLY;
  return value === '1' || value === 'true';
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

/** Header data (cheap; no analysis). */
export function getHeader(): HeaderView {
  const state = source();
  const version = state.serverVersion();
  const analysis = state.isSynced() ? clusterAnalysis() : null;
  return {
    mode: state.mode,
    contextName: state.contextName,
    serverUrl: state.serverUrl,
    snapshotPath: state.snapshotPath,
    gitVersion: version?.gitVersion ?? null,
    release: analysis?.kubernetes.release ?? (version?.minor !== null && version?.minor !== undefined ? `1.${version.minor}` : 'unknown'),
    platform: version?.platform ?? null,
    readOnly: isReadOnly() || state.mode !== 'live',
    freshness: freshness(state.statuses(), state.isSynced(), state.problems()),
  };
}

/** Why the cluster data cannot be served yet: no cluster at all, or the first sync still running. */
export interface SourceProblem {
  readonly kind: 'unavailable' | 'syncing';
  /** Safe to show. */
  readonly message: string;
}

/** `null` when the cluster data is ready to serve (first sync done), else why not. */
export function getSourceProblem(): SourceProblem | null {
  const state = source();
  if (state.mode === 'live' && state.connection === null) {
    return { kind: 'unavailable', message: state.problems()[0] ?? 'No cluster is connected.' };
  }
  if (!state.isSynced()) return { kind: 'syncing', message: 'The dashboard is still reading the cluster; try again in a moment.' };
  return null;
}

/** `null` while the first sync is still running (pages render a "syncing" panel then). */
export function getClusterAnalysis(): ClusterAnalysis | null {
  const state = source();
  if (!state.isSynced()) return null;
  return clusterAnalysis();
}

/** One row of the Services table (slim, so 10,000 rows travel cheaply). */
export interface ServiceRow {
  readonly namespace: string;
  readonly name: string;
  readonly type: ServiceReport['type'];
  readonly mechanism: ServiceReport['mechanism'];
  readonly hintsExpected: boolean;
  readonly hintsObserved: 'all' | 'some' | 'none';
  /** Why hints are off (upstream event message) or what needs attention, `null` when fine. */
  readonly reason: string | null;
  readonly attention: ServiceReport['needsAttention'];
  readonly endpointsByZone: Readonly<Record<string, number>>;
  readonly readyEndpoints: number;
  readonly crossZoneFraction: number;
  readonly crossZoneFractionIfAuto: number;
}

function toRow(report: ServiceReport): ServiceRow {
  const observed = report.observed;
  const hinted = Object.values(observed.hintCountsByZone).reduce((a, b) => a + b, 0);
  return {
    namespace: report.namespace,
    name: report.name,
    type: report.type,
    mechanism: report.mechanism,
    hintsExpected: report.expected.hintsEnabled,
    hintsObserved: hinted === 0 ? 'none' : observed.readyEndpointsWithoutHints === 0 ? 'all' : 'some',
    reason: report.expected.event?.type === 'Warning' ? report.expected.event.message : (report.needsAttention?.message ?? null),
    attention: report.needsAttention,
    endpointsByZone: Object.fromEntries(Object.entries(observed.endpointsByZone).map(([zone, counts]) => [zone, counts.ready])),
    readyEndpoints: observed.readyEndpoints,
    crossZoneFraction: report.traffic.crossZoneFraction,
    crossZoneFractionIfAuto: report.traffic.crossZoneFractionIfAuto,
  };
}

const ROWS = new WeakMap<ClusterAnalysis, readonly ServiceRow[]>();

/** Every Service as a table row (memoised per analysis). */
export function getServiceRows(): readonly ServiceRow[] | null {
  const analysis = getClusterAnalysis();
  if (!analysis) return null;
  let rows = ROWS.get(analysis);
  if (!rows) {
    rows = analysis.services.map(toRow);
    ROWS.set(analysis, rows);
  }
  return rows;
}

/** Sortable columns of the Services table and API. */
export const SERVICE_SORT_KEYS = ['name', 'namespace', 'mechanism', 'hints', 'endpoints', 'crossZone'] as const;
export type ServiceSortKey = (typeof SERVICE_SORT_KEYS)[number];

/** A Services query (validated by the caller). */
export interface ServiceQuery {
  readonly q?: string;
  readonly namespace?: string;
  readonly attention?: boolean;
  readonly sort?: ServiceSortKey;
  readonly order?: 'asc' | 'desc';
  readonly offset?: number;
  readonly limit?: number;
}

const COMPARE: Record<ServiceSortKey, (a: ServiceRow, b: ServiceRow) => number> = {
  name: (a, b) => a.name.localeCompare(b.name) || a.namespace.localeCompare(b.namespace),
  namespace: (a, b) => a.namespace.localeCompare(b.namespace) || a.name.localeCompare(b.name),
  mechanism: (a, b) => a.mechanism.localeCompare(b.mechanism),
  hints: (a, b) => Number(a.hintsExpected) - Number(b.hintsExpected),
  endpoints: (a, b) => a.readyEndpoints - b.readyEndpoints,
  crossZone: (a, b) => a.crossZoneFraction - b.crossZoneFraction,
};

/** Filters, sorts and pages the Service rows; stable, with namespace/name as the tie-break. */
export function queryServiceRows(rows: readonly ServiceRow[], query: ServiceQuery): { total: number; items: ServiceRow[] } {
  const q = query.q?.trim().toLowerCase() ?? '';
  let filtered = rows.filter(
    (row) =>
      (query.namespace === undefined || row.namespace === query.namespace) &&
      (!query.attention || row.attention !== null) &&
      (q === '' || `${row.namespace}/${row.name}`.toLowerCase().includes(q)),
  );
  const sort = query.sort ?? 'namespace';
  const direction = query.order === 'desc' ? -1 : 1;
  filtered = [...filtered].sort((a, b) => direction * (COMPARE[sort](a, b) || COMPARE.namespace(a, b)));
  const offset = Math.max(0, query.offset ?? 0);
  const limit = Math.min(500, Math.max(1, query.limit ?? 100));
  return { total: filtered.length, items: filtered.slice(offset, offset + limit) };
}

/** Namespaces that have Services, sorted. */
export function serviceNamespaces(rows: readonly ServiceRow[]): string[] {
  return [...new Set(rows.map((row) => row.namespace))].sort();
}

/** The Service view: the analysis detail plus the object's own state for the toggle. */
export interface ServiceView {
  readonly detail: ServiceDetail;
  readonly service: ServiceRecord;
  readonly release: string;
  readonly minor: number;
  readonly readOnly: boolean;
  /**
   * Changes whenever this Service's analysis changes (its endpoints, hints, events…) and only
   * then: client components that fetched a full per-endpoint list refetch when it changes.
   */
  readonly version: number;
}

const DETAIL_VERSIONS = new WeakMap<ServiceDetail, number>();
let nextDetailVersion = 1;

/** A number per analysis result: the per-Service cache hands out the same object until an input changes. */
function detailVersion(detail: ServiceDetail): number {
  let version = DETAIL_VERSIONS.get(detail);
  if (version === undefined) {
    version = nextDetailVersion++;
    DETAIL_VERSIONS.set(detail, version);
  }
  return version;
}

/**
 * One Service with every panel; `null` when the cluster has no such Service, `'syncing'` before
 * the first sync. `options` override traffic per zone, GB/month and $/GB.
 */
export function getServiceView(namespace: string, name: string, options: AnalysisOptions = {}): ServiceView | null | 'syncing' {
  const state = source();
  if (!state.isSynced()) return 'syncing';
  const service = state.index().servicesByKey.get(objectKey(namespace, name));
  if (!service) return null;
  const prepared = preparedWith(options);
  const detail = analyzeServiceIn(prepared, namespace, name);
  if (!detail) return null;
  return {
    detail,
    service,
    release: prepared.kubernetes.release,
    minor: prepared.kubernetes.minor,
    readOnly: isReadOnly() || state.mode !== 'live',
    version: detailVersion(detail),
  };
}

// ---------------------------------------------------------------------------------------------
// Dashboard view helpers

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

/**
 * One Services-table row as a tuple, so 10,000 rows travel to the browser in about 1 MB:
 * `[namespace, name, type, mechanism, hintsExpected (0/1), hintsObserved, reason index (-1 none),
 *   attention reason, ready endpoints per zone (aligned with `zones`), ready endpoints,
 *   cross-zone fraction now, cross-zone fraction with topology mode Auto]`.
 */
export type SlimServiceRow = readonly [
  namespace: string,
  name: string,
  type: ServiceRow['type'],
  mechanism: ServiceRow['mechanism'],
  hintsExpected: 0 | 1,
  hintsObserved: ServiceRow['hintsObserved'],
  reason: number,
  attention: NonNullable<ServiceRow['attention']>['reason'] | null,
  endpointsByZone: readonly number[],
  readyEndpoints: number,
  crossZone: number,
  crossZoneIfAuto: number,
];

/** The Services table's data: slim rows plus the interned zone names and reason texts. */
export interface ServiceTableData {
  readonly zones: readonly string[];
  /** Distinct reason texts; rows point into this list (many Services share one message). */
  readonly reasons: readonly string[];
  readonly namespaces: readonly string[];
  readonly rows: readonly SlimServiceRow[];
}

const TABLES = new WeakMap<readonly ServiceRow[], ServiceTableData>();

/** Every Service as a slim table row (memoised per analysis); `null` before the first sync. */
export function getServiceTable(): ServiceTableData | null {
  const rows = getServiceRows();
  if (!rows) return null;
  const cached = TABLES.get(rows);
  if (cached) return cached;
  const zoneSet = new Set<string>((getClusterAnalysis()?.cluster.zones ?? []).map((zone) => zone.name));
  for (const row of rows) for (const zone of Object.keys(row.endpointsByZone)) zoneSet.add(zone);
  const zones = [...zoneSet].sort((a, b) => (a === '(no zone)' ? 1 : b === '(no zone)' ? -1 : a < b ? -1 : a > b ? 1 : 0));
  const reasonIndex = new Map<string, number>();
  const reasons: string[] = [];
  const round = (value: number) => Math.round(value * 10000) / 10000;
  const slim = rows.map((row): SlimServiceRow => {
    let reason = -1;
    if (row.reason !== null) {
      reason = reasonIndex.get(row.reason) ?? -1;
      if (reason < 0) {
        reason = reasons.length;
        reasons.push(row.reason);
        reasonIndex.set(row.reason, reason);
      }
    }
    return [
      row.namespace,
      row.name,
      row.type,
      row.mechanism,
      row.hintsExpected ? 1 : 0,
      row.hintsObserved,
      reason,
      row.attention?.reason ?? null,
      zones.map((zone) => row.endpointsByZone[zone] ?? 0),
      row.readyEndpoints,
      round(row.crossZoneFraction),
      round(row.crossZoneFractionIfAuto),
    ];
  });
  const table: ServiceTableData = { zones, reasons, namespaces: serviceNamespaces(rows), rows: slim };
  TABLES.set(rows, table);
  return table;
}

/** `GET /api/v1/services/{namespace}/{name}`: the analyze per-Service object, the detail panels and the Service's resourceVersion. */
export interface ServiceDetailView extends ServiceDetail {
  /** The Service's resourceVersion (also the `ETag`; send it as `If-Match` to the toggle). */
  readonly resourceVersion: string;
  /** The modelled release (`"1.31"`). */
  readonly release: string;
  readonly readOnly: boolean;
}

/** Result of {@link getServiceDetailView}. */
export type ServiceDetailResult =
  | { readonly ok: true; readonly value: ServiceDetailView }
  | { readonly ok: false; readonly error: { readonly kind: 'not-found' | 'bad-request' | 'syncing'; readonly message: string } };

/**
 * One Service with every panel and its resourceVersion, with optional traffic/cost overrides.
 * `trafficByZone` naming a zone the cluster does not have is a `bad-request`.
 */
export function getServiceDetailView(namespace: string, name: string, options: AnalysisOptions = {}): ServiceDetailResult {
  const analysis = getClusterAnalysis();
  if (analysis === null) return { ok: false, error: { kind: 'syncing', message: 'The dashboard is still reading the cluster; try again in a moment.' } };
  const zones = new Set(analysis.cluster.zones.map((zone) => zone.name));
  const unknownZone = Object.keys(options.trafficByZone ?? {}).find((zone) => !zones.has(zone));
  if (unknownZone !== undefined) {
    return { ok: false, error: { kind: 'bad-request', message: `traffic.${unknownZone}: the cluster has no zone "${unknownZone}" (zones: ${[...zones].join(', ') || 'none'}).` } };
  }
  const view = getServiceView(namespace, name, options);
  if (view === 'syncing') return { ok: false, error: { kind: 'syncing', message: 'The dashboard is still reading the cluster; try again in a moment.' } };
  if (view === null) return { ok: false, error: { kind: 'not-found', message: `Service ${namespace}/${name} was not found.` } };
  return { ok: true, value: { ...view.detail, resourceVersion: view.service.resourceVersion, release: view.release, readOnly: view.readOnly } };
}

/** The per-endpoint lists of the Service page, each served in full by {@link getServiceEndpointList}. */
export const ENDPOINT_LISTS = ['endpoints', 'diff', 'loads'] as const;
export type EndpointListKind = (typeof ENDPOINT_LISTS)[number];

/** The four traffic scenarios of a Service (the keys of `trafficMatrix`). */
export const TRAFFIC_SCENARIOS = ['now', 'expected', 'ifAuto', 'ifNone'] as const;
export type TrafficScenarioKey = (typeof TRAFFIC_SCENARIOS)[number];

/** Which list `GET /api/v1/services/{namespace}/{name}/endpoints` returns. */
export interface EndpointListQuery {
  readonly list: EndpointListKind;
  /** The traffic scenario of `list=loads` (ignored otherwise). */
  readonly scenario: TrafficScenarioKey;
}

interface EndpointListBase {
  readonly namespace: string;
  readonly name: string;
  /** Number of items (all of them are returned). */
  readonly total: number;
}

/** `GET /api/v1/services/{namespace}/{name}/endpoints`: one per-endpoint list of the Service, complete. */
export type EndpointListView =
  | (EndpointListBase & { readonly list: 'endpoints'; readonly scenario: null; readonly items: ServiceDetail['endpoints'] })
  | (EndpointListBase & { readonly list: 'diff'; readonly scenario: null; readonly items: ServiceDetail['diffEntries'] })
  | (EndpointListBase & { readonly list: 'loads'; readonly scenario: TrafficScenarioKey; readonly items: ServiceDetail['trafficMatrix']['now']['endpointLoads'] });

/** Result of {@link getServiceEndpointList}. */
export type EndpointListResult =
  | { readonly ok: true; readonly value: EndpointListView }
  | { readonly ok: false; readonly error: { readonly kind: 'not-found' | 'syncing'; readonly message: string } };

/**
 * One per-endpoint list of a Service in full, for the panels of the Service page that render only
 * the first rows on the server: every endpoint (address, pod, node, zone, conditions, hints now and
 * expected), every endpoint whose hints differ from the controller's, or the load of every
 * endpoint in one traffic scenario (default traffic options, as the page).
 */
export function getServiceEndpointList(namespace: string, name: string, query: EndpointListQuery): EndpointListResult {
  const view = getServiceView(namespace, name);
  if (view === 'syncing') return { ok: false, error: { kind: 'syncing', message: 'The dashboard is still reading the cluster; try again in a moment.' } };
  if (view === null) return { ok: false, error: { kind: 'not-found', message: `Service ${namespace}/${name} was not found.` } };
  const { detail } = view;
  const base = { namespace, name };
  switch (query.list) {
    case 'endpoints':
      return { ok: true, value: { ...base, list: 'endpoints', scenario: null, total: detail.endpoints.length, items: detail.endpoints } };
    case 'diff':
      return { ok: true, value: { ...base, list: 'diff', scenario: null, total: detail.diffEntries.length, items: detail.diffEntries } };
    case 'loads': {
      const loads = detail.trafficMatrix[query.scenario].endpointLoads;
      return { ok: true, value: { ...base, list: 'loads', scenario: query.scenario, total: loads.length, items: loads } };
    }
  }
}

/** Which annotation enables hints, and how kube-proxy treats it, over a range of releases. */
export interface ReleaseAnnotationRow {
  /** `1.21`, or a range `1.24–1.26`. */
  readonly releases: string;
  readonly firstMinor: number;
  readonly lastMinor: number;
  readonly key: string;
  readonly value: string;
  /** TopologyAwareHints is on by default (else it must be enabled on the controller and kube-proxy). */
  readonly gateOnByDefault: boolean;
  /** `spec.trafficDistribution` exists and is on by default. */
  readonly trafficDistribution: boolean;
  readonly kubeProxyRule: HintsAnnotationRule;
}

/**
 * The annotation key per release (1.21–1.36, release defaults), grouped into ranges that behave
 * the same: static knowledge from the engine, shown on the Dataplane view.
 */
export function getReleaseAnnotationTable(): readonly ReleaseAnnotationRow[] {
  const rows: ReleaseAnnotationRow[] = [];
  for (let minor = MIN_MODELLED_MINOR; minor <= MAX_MODELLED_MINOR; minor++) {
    const gates = defaultFeatureGates(minor);
    const { key, value } = topologyAnnotationFor(minor);
    const row = { key, value, gateOnByDefault: gates.TopologyAwareHints, trafficDistribution: gates.ServiceTrafficDistribution, kubeProxyRule: hintsAnnotationRule({ minor, gates }) };
    const last = rows[rows.length - 1];
    if (last && last.key === row.key && last.value === row.value && last.gateOnByDefault === row.gateOnByDefault && last.trafficDistribution === row.trafficDistribution && last.kubeProxyRule === row.kubeProxyRule) {
      rows[rows.length - 1] = { ...last, lastMinor: minor, releases: `${formatKubeMinor(last.firstMinor)}\u2013${formatKubeMinor(minor)}` };
    } else {
      rows.push({ ...row, firstMinor: minor, lastMinor: minor, releases: formatKubeMinor(minor) });
    }
  }
  return rows;
}
