/**
 * The fleet read from the fleet's Prometheus (or Thanos) instead of connecting to each cluster.
 *
 * For a large fleet the documented deployment is one zonescope per cluster, each scraped by the
 * fleet's Prometheus, which puts a label naming the installation's cluster on its series
 * (`ZONESCOPE_FLEET_CLUSTER_LABEL`, default `cluster`: a target label of the scrape configuration,
 * or an external label of each cluster's Prometheus feeding Thanos). The fleet page then asks that
 * Prometheus a few instant queries over the exporter's per-cluster series (docs/metrics.md),
 * grouped by that label, and shows one row per cluster seen there.
 *
 * | variable | default | meaning |
 * |---|---|---|
 * | `ZONESCOPE_FLEET_PROMETHEUS_URL` | (none: not used) | base URL of the fleet's Prometheus HTTP API (may carry a path prefix or `user:password@`) |
 * | `ZONESCOPE_FLEET_CLUSTER_LABEL` | `cluster` | the label naming each installation's cluster |
 * | `ZONESCOPE_FLEET_PROMETHEUS_TOKEN_FILE` | none | file holding a bearer token, read again for every request |
 * | `ZONESCOPE_FLEET_PROMETHEUS_CA_FILE` | system CAs | PEM bundle that signs the server's certificate (https) |
 * | `ZONESCOPE_FLEET_PROMETHEUS_TIMEOUT_MS` | `10000` | deadline of one query |
 *
 * The same client and validation as the traffic source's `ZONESCOPE_PROMETHEUS_*` (config.ts,
 * prometheus-client.ts): messages name the `ZONESCOPE_FLEET_PROMETHEUS_*` variables, never a
 * credential. {@link fleetRowsFromAnswers} is pure; {@link FleetPrometheusCache} runs the queries in
 * the background, at most once per refresh interval, and never makes a caller wait for them.
 */
import type { ClusterPlatform } from '../../topology/analyses/analyze-dataplane';
import type { ProxyMode } from '../../topology/model/cluster-model';
import { HINTS_REASON_CODES, HINTS_REASON_TEXT, type HintsReasonCode } from '../../topology/report/hints-reason';
import type { FleetRow } from './fleet';
import { metricsConfigFromEnv, type MetricsConfig } from '../../prometheus/config';
import { PrometheusError, queryInstant, type VectorSample } from '../../prometheus/client';

/** Default of `ZONESCOPE_FLEET_CLUSTER_LABEL`. */
export const DEFAULT_FLEET_CLUSTER_LABEL = 'cluster';
/** Seconds between two sets of queries (the fleet page's refresh cadence). */
export const FLEET_PROMETHEUS_REFRESH_SECONDS = 30;
/** Above this `zonescope_sync_age_seconds` an installation's data counts as stale. */
export const FLEET_STALE_SYNC_AGE_SECONDS = 300;

/** A usable fleet Prometheus. */
export interface FleetPrometheusConfig {
  readonly metrics: MetricsConfig;
  /** The label naming the cluster (a valid Prometheus label name). */
  readonly clusterLabel: string;
}

export type FleetPrometheusConfigResult =
  | { readonly kind: 'not-configured' }
  | { readonly kind: 'error'; readonly message: string; readonly url: string | null }
  | { readonly kind: 'ok'; readonly config: FleetPrometheusConfig };

type Env = Readonly<Record<string, string | undefined>>;

const LABEL_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** The traffic source's variable names in a message of the shared config code, as the fleet's. */
const fleetWords = (message: string): string => message.replace(/ZONESCOPE_PROMETHEUS_/g, 'ZONESCOPE_FLEET_PROMETHEUS_');

/** Reads `ZONESCOPE_FLEET_PROMETHEUS_*` and `ZONESCOPE_FLEET_CLUSTER_LABEL` (token and CA files are checked now, as for the traffic source). */
export function fleetPrometheusConfigFromEnv(env: Env = process.env): FleetPrometheusConfigResult {
  const url = env.ZONESCOPE_FLEET_PROMETHEUS_URL?.trim() ?? '';
  if (url === '') return { kind: 'not-configured' };
  const clusterLabel = env.ZONESCOPE_FLEET_CLUSTER_LABEL?.trim() || DEFAULT_FLEET_CLUSTER_LABEL;
  const result = metricsConfigFromEnv({
    ZONESCOPE_PROMETHEUS_URL: url,
    ZONESCOPE_PROMETHEUS_TOKEN_FILE: env.ZONESCOPE_FLEET_PROMETHEUS_TOKEN_FILE,
    ZONESCOPE_PROMETHEUS_CA_FILE: env.ZONESCOPE_FLEET_PROMETHEUS_CA_FILE,
    ZONESCOPE_PROMETHEUS_TIMEOUT_MS: env.ZONESCOPE_FLEET_PROMETHEUS_TIMEOUT_MS,
  });
  if (result.kind === 'error') return { kind: 'error', message: fleetWords(result.message), url: result.url };
  if (result.kind !== 'ok') return { kind: 'not-configured' };
  if (!LABEL_NAME.test(clusterLabel) || clusterLabel.startsWith('__')) {
    return { kind: 'error', message: `ZONESCOPE_FLEET_CLUSTER_LABEL must be a Prometheus label name such as cluster, not "${clusterLabel.slice(0, 40)}".`, url: result.config.baseUrl };
  }
  return { kind: 'ok', config: { metrics: result.config, clusterLabel } };
}

// ---------------------------------------------------------------------------------------------
// Queries

export const FLEET_QUERY_NAMES = [
  'info',
  'instances',
  'minor',
  'eligible',
  'insufficientCause',
  'services',
  'hintsObserved',
  'attention',
  'cost',
  'synced',
  'syncAge',
  'sampleTime',
  'top',
  'topReason',
] as const;
export type FleetQueryName = (typeof FLEET_QUERY_NAMES)[number];
export type FleetAnswers = Readonly<Record<FleetQueryName, readonly VectorSample[]>>;

/**
 * The `zonescope_cluster_info` of each cluster label value, with the installation's own display
 * name. With `honor_labels: true` (docs/metrics.md's scrape configuration) and the fleet label
 * `cluster`, that series keeps the exporter's own `cluster` label (the display name) rather than the
 * target's, so it is matched to its cluster through its scrape target (`instance`, `job`) when that
 * target belongs to one cluster only; otherwise by its label.
 */
export function clusterInfo(answers: Pick<FleetAnswers, 'info' | 'instances'>, clusterLabel: string): Map<string, { readonly labels: Readonly<Record<string, string>>; readonly ownName: string | null }> {
  const targets = new Map<string, Set<string>>();
  for (const sample of answers.instances) {
    const cluster = sample.metric[clusterLabel];
    if (cluster === undefined || cluster === '') continue;
    const key = `${sample.metric.instance ?? ''}\u0000${sample.metric.job ?? ''}`;
    const set = targets.get(key) ?? new Set<string>();
    set.add(cluster);
    targets.set(key, set);
  }
  const info = new Map<string, { labels: Readonly<Record<string, string>>; ownName: string | null }>();
  for (const sample of answers.info) {
    const labelled = sample.metric[clusterLabel];
    const byTarget = targets.get(`${sample.metric.instance ?? ''}\u0000${sample.metric.job ?? ''}`);
    const cluster = byTarget !== undefined && byTarget.size === 1 ? [...byTarget][0] : labelled;
    if (cluster === undefined || cluster === '' || info.has(cluster)) continue;
    const exported = sample.metric[displayNameLabel(clusterLabel)];
    const ownName = exported !== undefined && exported !== '' ? exported : labelled !== undefined && labelled !== '' && labelled !== cluster ? labelled : null;
    info.set(cluster, { labels: sample.metric, ownName });
  }
  return info;
}

/**
 * The label of `zonescope_cluster_info` that carries the installation's own display name once
 * stored: a scrape that adds a `cluster` target label renames the exporter's `cluster` label to
 * `exported_cluster` (honor_labels: false); with another fleet label it stays `cluster`.
 */
export function displayNameLabel(clusterLabel: string): string {
  return clusterLabel === 'cluster' ? 'exported_cluster' : 'cluster';
}

/** The PromQL of every query, grouped by the cluster label `L` (series without it are not counted). */
export function fleetQueries(L: string): Readonly<Record<FleetQueryName, string>> {
  const by = (expr: string, extra = ''): string => `max by (${L}${extra}) (${expr})`;
  const top = `topk by (${L}) (1, zonescope_service_cross_zone_cost_dollars_per_month)`;
  return {
    info: `max by (${L}, ${displayNameLabel(L)}, instance, job, kubernetes_version, platform, proxy_mode) (zonescope_cluster_info)`,
    instances: `max by (${L}, instance, job) (zonescope_cluster_synced)`,
    minor: by('zonescope_cluster_kubernetes_minor'),
    eligible: by('zonescope_cluster_eligible'),
    insufficientCause: by('zonescope_cluster_insufficient_cause_info', ', cause'),
    services: by('zonescope_services', ', mechanism'),
    hintsObserved: by('zonescope_services_hints_observed'),
    attention: by('zonescope_services_needing_attention'),
    cost: by('zonescope_cross_zone_cost_dollars_per_month', ', scenario'),
    synced: by('zonescope_cluster_synced'),
    syncAge: by('zonescope_sync_age_seconds'),
    sampleTime: by('timestamp(zonescope_cluster_synced)'),
    top,
    topReason: `zonescope_service_hints_reason_info and on (${L}, namespace, service) ${top}`,
  };
}

/** Runs every query at `timeSeconds` (concurrently). Rejects with the first failure. */
export async function queryFleet(config: FleetPrometheusConfig, timeSeconds: number): Promise<FleetAnswers> {
  const queries = fleetQueries(config.clusterLabel);
  const answers = await Promise.all(FLEET_QUERY_NAMES.map((name) => queryInstant(config.metrics, queries[name], timeSeconds)));
  return Object.fromEntries(FLEET_QUERY_NAMES.map((name, i) => [name, answers[i] ?? []])) as unknown as FleetAnswers;
}

// ---------------------------------------------------------------------------------------------
// Mapping (pure)

const PLATFORMS: readonly ClusterPlatform[] = ['eks', 'gke', 'aks', 'other'];
const PROXY_MODES: readonly ProxyMode[] = ['iptables', 'ipvs', 'nftables', 'kernelspace', 'unknown'];

/** `zonescope_cluster_insufficient_cause_info{cause}` in words. */
const CAUSE_TEXT: Readonly<Record<string, string>> = {
  'no-counted-nodes': 'no ready node with a zone label and allocatable CPU',
  'node-missing-zone': 'a ready node lacks a zone label',
  'node-missing-cpu': 'a ready node lacks allocatable CPU',
  'single-zone': 'ready nodes are in one zone only',
};

/** The row id of a cluster known only from the fleet Prometheus (not a URL: nothing here opens it). */
export function prometheusRowId(cluster: string): string {
  return `prometheus:${cluster}`;
}

interface Acc {
  labels: Readonly<Record<string, string>> | null;
  ownName: string | null;
  values: Partial<Record<FleetQueryName, number>>;
  cost: Partial<Record<string, number>>;
  mechanisms: Map<string, number>;
  cause: string | null;
  top: { namespace: string; name: string; cost: number } | null;
  reason: HintsReasonCode | null;
}

const finite = (value: number | undefined): number | null => (value !== undefined && Number.isFinite(value) ? value : null);

function reasonCode(value: string | undefined): HintsReasonCode | null {
  return value !== undefined && (HINTS_REASON_CODES as readonly string[]).includes(value) ? (value as HintsReasonCode) : null;
}

/**
 * One fleet row per value of the cluster label on `zonescope_cluster_synced`, in label order. `nowMs` is when
 * the queries ran; each row's `asOf` is the time of its installation's last scraped sample.
 */
export function fleetRowsFromAnswers(answers: FleetAnswers, clusterLabel: string, nowMs: number): FleetRow[] {
  const clusters = new Map<string, Acc>();
  const acc = (sample: VectorSample): Acc | null => {
    const name = sample.metric[clusterLabel];
    if (name === undefined || name === '') return null;
    let entry = clusters.get(name);
    if (entry === undefined) {
      entry = { labels: null, ownName: null, values: {}, cost: {}, mechanisms: new Map(), cause: null, top: null, reason: null };
      clusters.set(name, entry);
    }
    return entry;
  };
  for (const name of FLEET_QUERY_NAMES) {
    for (const sample of answers[name]) {
      const a = acc(sample);
      if (a === null) continue;
      switch (name) {
        case 'info':
        case 'instances':
          break; // resolved by clusterInfo
        case 'insufficientCause':
          if (sample.value === 1 && sample.metric.cause !== undefined) a.cause = sample.metric.cause;
          break;
        case 'services':
          a.mechanisms.set(sample.metric.mechanism ?? '', (a.mechanisms.get(sample.metric.mechanism ?? '') ?? 0) + sample.value);
          break;
        case 'cost':
          if (sample.metric.scenario !== undefined) a.cost[sample.metric.scenario] = sample.value;
          break;
        case 'top':
          if (Number.isFinite(sample.value) && (a.top === null || sample.value > a.top.cost)) {
            a.top = { namespace: sample.metric.namespace ?? '', name: sample.metric.service ?? '', cost: sample.value };
          }
          break;
        case 'topReason':
          break; // matched below, once the top Service is known
        default:
          a.values[name] = sample.value;
      }
    }
  }
  for (const [cluster, info] of clusterInfo(answers, clusterLabel)) {
    const a = clusters.get(cluster);
    if (a !== undefined) {
      a.labels = info.labels;
      a.ownName = info.ownName;
    }
  }
  for (const sample of answers.topReason) {
    const a = acc(sample);
    if (a?.top && sample.metric.namespace === a.top.namespace && sample.metric.service === a.top.name) a.reason = reasonCode(sample.metric.reason) ?? a.reason;
  }
  // Every installation exports zonescope_cluster_synced. A value seen only on other series is not a
  // cluster: e.g. zonescope_cluster_info's own `cluster` label (the installation's display name)
  // where a scrape added no cluster label.
  return [...clusters.entries()]
    .filter(([, a]) => a.values.synced !== undefined)
    .sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0)).map(([name, a]) => rowOf(name, a, nowMs));
}

function rowOf(cluster: string, a: Acc, nowMs: number): FleetRow {
  const labels = a.labels ?? {};
  const minor = finite(a.values.minor);
  const release = minor !== null ? `1.${minor}` : (labels.kubernetes_version ?? null);
  const platform = PLATFORMS.find((p) => p === labels.platform) ?? null;
  const proxyMode = PROXY_MODES.find((p) => p === labels.proxy_mode) ?? null;
  const eligibleValue = finite(a.values.eligible);
  const eligible = eligibleValue === null ? null : eligibleValue === 1;
  const eligibilityVerdict =
    eligible === null ? null : eligible ? 'Eligible: the topology cache has CPU ratios' : `Not eligible: ${a.cause !== null && a.cause !== 'none' ? (CAUSE_TEXT[a.cause] ?? a.cause) : 'the topology cache has no CPU ratios'}`;
  const services = a.mechanisms.size > 0 ? [...a.mechanisms.values()].reduce((s, n) => s + n, 0) : null;
  const now = finite(a.cost.now);
  const best = finite(a.cost.best);
  const synced = finite(a.values.synced);
  const syncAge = finite(a.values.syncAge);
  const sampleTime = finite(a.values.sampleTime);
  const asOf = new Date(sampleTime !== null ? sampleTime * 1000 : nowMs).toISOString();
  const named = a.ownName !== null ? ` (it calls itself "${a.ownName}")` : '';
  let freshness: FleetRow['freshness'];
  if (synced === 0) {
    freshness = { kind: 'syncing', label: 'Syncing', message: `From the fleet Prometheus${named}: the installation's first sync still runs.`, since: null, progress: null };
  } else if (syncAge !== null && syncAge > FLEET_STALE_SYNC_AGE_SECONDS) {
    const since = new Date((sampleTime ?? nowMs / 1000) * 1000 - syncAge * 1000).toISOString();
    freshness = { kind: 'stale', label: `Stale since ${since.slice(11, 19)} UTC`, message: `From the fleet Prometheus${named}: its data is ${Math.round(syncAge)} s old (zonescope_sync_age_seconds).`, since, progress: null };
  } else {
    freshness = { kind: 'synced', label: 'Synced', message: named === '' ? null : `From the fleet Prometheus${named}.`, since: null, progress: null };
  }
  const top = a.top !== null && a.top.cost > 0 ? a.top : null;
  return {
    id: prometheusRowId(cluster),
    displayName: cluster,
    context: null,
    server: null,
    isDefault: false,
    state: 'idle',
    source: 'prometheus',
    href: null,
    freshness,
    refused: null,
    release,
    gitVersion: null,
    platform,
    eligible,
    eligibilityVerdict,
    proxyMode,
    serviceProxy: null,
    honoursHints: null,
    services,
    askingForHints: services === null ? null : services - (a.mechanisms.get('none') ?? 0),
    hintsOn: finite(a.values.hintsObserved),
    needingAttention: finite(a.values.attention),
    crossZoneMonthly: now,
    bestMonthly: best,
    saving: now !== null && best !== null ? Math.max(0, now - best) : null,
    measured: null,
    volumeSource: null,
    topService:
      top === null
        ? null
        : { namespace: top.namespace, name: top.name, href: null, monthlyCost: top.cost, bestMonthlyCost: null, reason: a.reason !== null ? HINTS_REASON_TEXT[a.reason] : null, fix: null },
    commonAttention: null,
    unknown: [],
    asOf,
  };
}

/**
 * Whether a connected cluster and a cluster label value name the same cluster: the value is the
 * connected cluster's id, context or display name, or the display name the installation exports.
 */
export function sameCluster(connected: Pick<FleetRow, 'id' | 'context' | 'displayName'>, cluster: string, exportedName: string | null): boolean {
  const names = new Set([connected.id, connected.context, connected.displayName].filter((n): n is string => n !== null && n !== ''));
  return names.has(cluster) || (exportedName !== null && exportedName !== '' && names.has(exportedName));
}

// ---------------------------------------------------------------------------------------------
// Background refresh

/** What the fleet page shows of the fleet Prometheus. */
export interface FleetPrometheusStatus {
  /** Where it is (no credentials). */
  readonly url: string;
  readonly clusterLabel: string;
  /** `pending`: the first set of queries has not answered yet. */
  readonly state: 'ok' | 'error' | 'pending';
  /** `fleet Prometheus unreachable: …` when the last set of queries failed (the rows are then the last good ones, if any). */
  readonly message: string | null;
  /** When the last good answer came (ISO), `null` before the first. */
  readonly answeredAt: string | null;
  /** Clusters seen there (before the connected ones are taken out). */
  readonly clusters: number;
}

export interface FleetPrometheusSnapshot {
  readonly status: FleetPrometheusStatus;
  /** The last good rows, with each row's exported display name (for matching with connected clusters). */
  readonly rows: readonly { readonly row: FleetRow; readonly exportedName: string | null }[];
}

export interface FleetPrometheusCacheOptions {
  readonly config: FleetPrometheusConfig;
  readonly now?: () => number;
  readonly refreshMs?: number;
  readonly query?: (config: FleetPrometheusConfig, timeSeconds: number) => Promise<FleetAnswers>;
}

/** The message of a failed set of queries. */
export function unreachableMessage(error: unknown): string {
  const text = error instanceof PrometheusError || error instanceof Error ? error.message : String(error);
  return `fleet Prometheus unreachable: ${fleetWords(text)}`;
}

/** The fleet Prometheus's rows, refreshed in the background at most once per `refreshMs`. */
export class FleetPrometheusCache {
  private readonly config: FleetPrometheusConfig;
  private readonly now: () => number;
  private readonly refreshMs: number;
  private readonly query: (config: FleetPrometheusConfig, timeSeconds: number) => Promise<FleetAnswers>;
  private rows: FleetPrometheusSnapshot['rows'] = [];
  private answeredAt: number | null = null;
  private error: string | null = null;
  private startedAt: number | null = null;
  private inflight: Promise<void> | null = null;

  constructor(options: FleetPrometheusCacheOptions) {
    this.config = options.config;
    this.now = options.now ?? Date.now;
    this.refreshMs = options.refreshMs ?? FLEET_PROMETHEUS_REFRESH_SECONDS * 1000;
    this.query = options.query ?? queryFleet;
  }

  /** What is known now; starts a refresh in the background when the last one started `refreshMs` ago or more (never waits for it). */
  snapshot(): FleetPrometheusSnapshot {
    const now = this.now();
    if (this.inflight === null && (this.startedAt === null || now - this.startedAt >= this.refreshMs)) void this.refresh();
    return {
      status: {
        url: this.config.metrics.baseUrl,
        clusterLabel: this.config.clusterLabel,
        state: this.error !== null ? 'error' : this.answeredAt === null ? 'pending' : 'ok',
        message: this.error,
        answeredAt: this.answeredAt === null ? null : new Date(this.answeredAt).toISOString(),
        clusters: this.rows.length,
      },
      rows: this.rows,
    };
  }

  /** Runs one set of queries now (the one in flight, if any); resolves when it is done, never rejects. */
  refresh(): Promise<void> {
    if (this.inflight !== null) return this.inflight;
    const started = this.now();
    this.startedAt = started;
    const label = this.config.clusterLabel;
    this.inflight = this.query(this.config, started / 1000)
      .then((answers) => {
        const info = clusterInfo(answers, label);
        this.rows = fleetRowsFromAnswers(answers, label, started).map((row) => ({ row, exportedName: info.get(row.displayName)?.ownName ?? null }));
        this.answeredAt = this.now();
        this.error = null;
      })
      .catch((error: unknown) => {
        this.error = unreachableMessage(error);
      })
      .finally(() => {
        this.inflight = null;
      });
    return this.inflight;
  }
}
