/**
 * The PromQL that reads zonescope's history back from Prometheus: `query_range` over the
 * exporter's own `zonescope_*` series (docs/metrics.md), for one Service and for the cluster.
 *
 * Every selector carries the optional `ZONESCOPE_HISTORY_SELECTOR` matchers (e.g.
 * `job="zonescope",cluster="prod"`), so a Prometheus that scrapes several zonescopes reads the
 * right one; every query aggregates with `max by (…)`, so replicas and duplicate targets merge into
 * one series. Info series (`*_info`: a label that changes) are read as `timestamp()` so the reader
 * can keep, at each step, the label value of the newest sample (a replaced series lingers for
 * Prometheus' lookback otherwise). Hints and eligibility are the worst value within each step
 * (a subquery at the refinement resolution), so a flap shorter than a step still shows.
 *
 * A Service view runs {@link SERVICE_QUERY_COUNT} range queries, the cluster view
 * {@link CLUSTER_QUERY_COUNT}, plus at most {@link MAX_REFINEMENTS} short refinement queries each.
 */
import { escapeLabelValue } from '../../config/prometheus-syntax';

/** Points per series a view aims at. */
export const TARGET_POINTS = 720;

/** Step of a range: `max(1, ceil(rangeSeconds / 720))` seconds (1h → 5 s, 6h → 30 s, 24h → 120 s, 7d → 840 s). */
export function stepForRange(rangeSeconds: number): number {
  return Math.max(1, Math.ceil(rangeSeconds / TARGET_POINTS));
}

/** Resolution of a refinement query over one step: `max(1, step / 60)` seconds. */
export function refinementStep(stepSeconds: number): number {
  return Math.max(1, Math.ceil(stepSeconds / 60));
}

/** At most this many transitions (newest first) are refined per answer. */
export const MAX_REFINEMENTS = 20;

function selector(parts: readonly string[]): string {
  return `{${parts.filter((p) => p !== '').join(',')}}`;
}

/** The selector of one Service's series. */
export function serviceSelector(namespace: string, name: string, extra: string): string {
  return selector([`namespace="${escapeLabelValue(namespace)}"`, `service="${escapeLabelValue(name)}"`, extra]);
}

/** The selector of the cluster's series. */
export function clusterSelector(extra: string): string {
  return selector([extra]);
}

function tagged(series: string, expression: string): string {
  return `label_replace(${expression}, "series", "${series}", "", "")`;
}

/** One series per `series` label: several scalar metrics in one query. */
function scalars(entries: readonly (readonly [string, string])[]): string {
  return entries.map(([key, expression]) => tagged(key, expression)).join(' or ');
}

/** Keys of the Service's scalar series (the `series` label of {@link ServiceQueries.scalars}). */
export const SERVICE_SCALARS = ['observed', 'expected', 'predicted', 'measured', 'cost'] as const;
/** Keys of the cluster's scalar series. */
export const CLUSTER_SCALARS = ['eligible', 'nodes', 'hints-expected-on', 'hints-observed-on', 'needing-attention'] as const;

/** The range queries of a Service view. */
export interface ServiceQueries {
  /** observed ratio and expected (worst in each step), predicted/measured cross-zone share, $/month (label `series`). */
  readonly scalars: string;
  /** `timestamp()` of the reason info series, by `reason`. */
  readonly reasons: string;
  /** `timestamp()` of the info series, by `mechanism`, `topology_mode`, `traffic_distribution`. */
  readonly info: string;
  /** Ready endpoints, by `zone`. */
  readonly readyEndpoints: string;
  /** Per-zone minimum, by `zone`. */
  readonly minimumEndpoints: string;
  /** All nodes of the cluster (marks). */
  readonly nodes: string;
  /** Refinement of an observed-hints transition: the raw ratio, and the reason info series. */
  readonly observed: string;
  /** Refinement of an expected-hints transition: the raw value, and the reason info series. */
  readonly expected: string;
  /** Refinement of a mechanism change (`timestamp()` of the info series, by `mechanism`). */
  readonly mechanism: string;
}

/** Range queries run for every Service view (without refinements). */
export const SERVICE_QUERY_COUNT = 6;
/** Range queries run for every cluster view (without refinements). */
export const CLUSTER_QUERY_COUNT = 5;

/**
 * The worst (lowest) value of `expression` within each step `(t − step, t]`, sampled every
 * refinement step: a state that lasted less than a step still shows (hints off for a minute in a
 * 7-day view).
 */
export function worstInStep(expression: string, stepSeconds: number): string {
  return `min_over_time(${expression}[${stepSeconds}s:${refinementStep(stepSeconds)}s])`;
}

/** The PromQL of a Service view at `stepSeconds`. */
export function serviceQueries(namespace: string, name: string, extra: string, stepSeconds: number): ServiceQueries {
  const sel = serviceSelector(namespace, name, extra);
  const cluster = clusterSelector(extra);
  const observed = `max(zonescope_service_hints_observed_ratio${sel})`;
  const expected = `max(zonescope_service_hints_expected${sel})`;
  const reasons = `max by (reason) (timestamp(zonescope_service_hints_reason_info${sel}))`;
  return {
    scalars: scalars([
      ['observed', worstInStep(observed, stepSeconds)],
      ['expected', worstInStep(expected, stepSeconds)],
      ['predicted', `max(zonescope_service_predicted_cross_zone_ratio${sel})`],
      ['measured', `max(zonescope_service_measured_cross_zone_ratio${sel})`],
      ['cost', `max(zonescope_service_cross_zone_cost_dollars_per_month${sel})`],
    ]),
    reasons,
    info: `max by (mechanism, topology_mode, traffic_distribution) (timestamp(zonescope_service_info${sel}))`,
    readyEndpoints: `max by (zone) (zonescope_service_ready_endpoints${sel})`,
    minimumEndpoints: `max by (zone) (zonescope_service_zone_minimum_endpoints${sel})`,
    nodes: `max(zonescope_cluster_nodes${cluster})`,
    observed: `${observed} or ${reasons}`,
    expected: `${expected} or ${reasons}`,
    mechanism: `max by (mechanism) (timestamp(zonescope_service_info${sel}))`,
  };
}

/** The range queries of the cluster view. */
export interface ClusterQueries {
  /** eligible (worst in each step), nodes, Services counts (label `series`). */
  readonly scalars: string;
  /** $/month by `scenario`. */
  readonly spend: string;
  /** Nodes by `zone`. */
  readonly zoneNodes: string;
  /** `timestamp()` of the ineligible-node info series, by `node`, `cause`. */
  readonly ineligibleNodes: string;
  /** `timestamp()` of the insufficient-cause info series, by `cause`. */
  readonly insufficientCause: string;
  /** Refinement of an eligibility transition. */
  readonly eligible: string;
}

/** The PromQL of the cluster view at `stepSeconds`. */
export function clusterQueries(extra: string, stepSeconds: number): ClusterQueries {
  const sel = clusterSelector(extra);
  const eligible = `max(zonescope_cluster_eligible${sel})`;
  return {
    scalars: scalars([
      ['eligible', worstInStep(eligible, stepSeconds)],
      ['nodes', `max(zonescope_cluster_nodes${sel})`],
      ['hints-expected-on', `max(zonescope_services_hints_expected${sel})`],
      ['hints-observed-on', `max(zonescope_services_hints_observed${sel})`],
      ['needing-attention', `max(zonescope_services_needing_attention${sel})`],
    ]),
    spend: `max by (scenario) (zonescope_cross_zone_cost_dollars_per_month${sel})`,
    zoneNodes: `max by (zone) (zonescope_zone_nodes${sel})`,
    ineligibleNodes: `max by (node, cause) (timestamp(zonescope_cluster_ineligible_node_info${sel}))`,
    insufficientCause: `max by (cause) (timestamp(zonescope_cluster_insufficient_cause_info${sel}))`,
    eligible,
  };
}
