/**
 * The fleet Prometheus's queries: a few instant queries over the exporter's per-cluster series
 * (docs/metrics.md), grouped by the fleet's cluster label, a few at a time, each answer read up to
 * `ZONESCOPE_FLEET_PROMETHEUS_MAX_RESPONSE_MIB` and sample by sample (a sample whose value or
 * timestamp is not a number carries its problem instead of failing the answer); and which
 * `zonescope_cluster_info` series belongs to which cluster label value.
 */
import { PrometheusError, queryInstant, type VectorSample } from '../../prometheus/client';
import type { FleetPrometheusConfig } from './prometheus-config';

/** The queries of one refresh, by name. */
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
/** The answer of each query. */
export type FleetAnswers = Readonly<Record<FleetQueryName, readonly VectorSample[]>>;

/** The series each query reads, as a per-row note names it. */
export const FLEET_QUERY_SERIES: Readonly<Record<FleetQueryName, string>> = {
  info: 'zonescope_cluster_info',
  instances: 'zonescope_cluster_synced',
  minor: 'zonescope_cluster_kubernetes_minor',
  eligible: 'zonescope_cluster_eligible',
  insufficientCause: 'zonescope_cluster_insufficient_cause_info',
  services: 'zonescope_services',
  hintsObserved: 'zonescope_services_hints_observed',
  attention: 'zonescope_services_needing_attention',
  cost: 'zonescope_cross_zone_cost_dollars_per_month',
  synced: 'zonescope_cluster_synced',
  syncAge: 'zonescope_sync_age_seconds',
  sampleTime: 'timestamp(zonescope_cluster_synced)',
  top: 'zonescope_service_cross_zone_cost_dollars_per_month',
  topReason: 'zonescope_service_hints_reason_info',
};

/** Queries in flight at once: with each answer capped, this bounds what a refresh holds. */
export const FLEET_QUERY_CONCURRENCY = 4;

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

/** The error of a query whose answer is over the cap, naming the query and how to raise the cap. */
function tooLargeError(config: FleetPrometheusConfig, name: FleetQueryName, promql: string): PrometheusError {
  const cap = config.metrics.maxResponseBytes / (1024 * 1024);
  const shown = promql.length > 120 ? `${promql.slice(0, 120)}…` : promql;
  return new PrometheusError(
    'too-large',
    `Prometheus at ${config.metrics.baseUrl} answered the fleet query "${name}" (${shown}) with more than ${Number.isInteger(cap) ? cap : cap.toFixed(2)} MiB, the cap ` +
      '(ZONESCOPE_FLEET_PROMETHEUS_MAX_RESPONSE_MIB). The query aggregates by the cluster label, a few hundred bytes per cluster: check that ZONESCOPE_FLEET_CLUSTER_LABEL names the cluster, or raise the cap for a very large fleet.',
  );
}

/**
 * Runs every query at `timeSeconds`, {@link FLEET_QUERY_CONCURRENCY} at a time, each answer read
 * sample by sample. Rejects with the first failure (no further query is started); an answer over
 * the cap is a `too-large` error naming the query.
 */
export async function queryFleet(config: FleetPrometheusConfig, timeSeconds: number): Promise<FleetAnswers> {
  const queries = fleetQueries(config.clusterLabel);
  const answers = new Map<FleetQueryName, readonly VectorSample[]>();
  let next = 0;
  let failed = false;
  const worker = async (): Promise<void> => {
    while (!failed && next < FLEET_QUERY_NAMES.length) {
      const name = FLEET_QUERY_NAMES[next++] as FleetQueryName;
      try {
        answers.set(name, await queryInstant(config.metrics, queries[name], timeSeconds, { perSample: true }));
      } catch (error) {
        failed = true;
        throw error instanceof PrometheusError && error.kind === 'too-large' ? tooLargeError(config, name, queries[name]) : error;
      }
    }
  };
  await Promise.all(Array.from({ length: FLEET_QUERY_CONCURRENCY }, worker));
  return Object.fromEntries(FLEET_QUERY_NAMES.map((name) => [name, answers.get(name) ?? []])) as unknown as FleetAnswers;
}
