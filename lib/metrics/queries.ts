/**
 * The PromQL zonescope runs, one set per refresh for the whole cluster (never per Service or per
 * request). docs/traffic.md prints the same text so a user can paste it into their own Prometheus;
 * a test keeps the two in step.
 */

/** The flow-metric families, tried in this order until one returns series (Beyla, then OpenTelemetry eBPF Instrumentation). */
export const FLOW_PREFIXES = ['beyla', 'obi'] as const;

/** A flow-metric family. */
export type FlowPrefix = (typeof FLOW_PREFIXES)[number];

/** Labels the flow query keeps. */
export const FLOW_LABELS = ['src_zone', 'dst_zone', 'k8s_src_namespace', 'k8s_src_owner_name', 'k8s_dst_namespace', 'k8s_dst_owner_name'] as const;

/** cAdvisor / kubelet pod network counters (bytes received and sent). */
export const POD_RECEIVE_METRIC = 'container_network_receive_bytes_total';
export const POD_TRANSMIT_METRIC = 'container_network_transmit_bytes_total';
/** How the pod-bytes source is named beside a figure. */
export const POD_METRIC_LABEL = `${POD_RECEIVE_METRIC}+${POD_TRANSMIT_METRIC}`;

/** `<prefix>_network_flow_bytes_total`. */
export function flowMetric(prefix: FlowPrefix): string {
  return `${prefix}_network_flow_bytes_total`;
}

/** `<prefix>_network_inter_zone_bytes_total`. */
export function interZoneMetric(prefix: FlowPrefix): string {
  return `${prefix}_network_inter_zone_bytes_total`;
}

/** Bytes/s per (source zone, destination zone, source workload, destination workload) over `window`. */
export function flowQuery(prefix: FlowPrefix, window: string): string {
  return `sum by (${FLOW_LABELS.join(', ')}) (rate(${flowMetric(prefix)}[${window}]))`;
}

/** Cluster-wide bytes/s per (source zone, destination zone) over `window`. */
export function interZoneQuery(prefix: FlowPrefix, window: string): string {
  return `sum by (src_zone, dst_zone) (rate(${interZoneMetric(prefix)}[${window}]))`;
}

/**
 * Received + sent bytes/s per pod over `window` (pod-level series only). `rate()` drops the metric
 * name, so each side is tagged with a `direction` label before the union, else a pod's receive and
 * transmit rates would collide ("vector cannot contain metrics with the same labelset").
 */
export function podBytesQuery(window: string, excludeNamespaces: readonly string[] = []): string {
  const selector = podSelector(excludeNamespaces);
  const side = (metric: string, direction: string): string => `label_replace(rate(${metric}${selector}[${window}]), "direction", "${direction}", "", "")`;
  return `sum by (namespace, pod) (${side(POD_RECEIVE_METRIC, 'rx')} or ${side(POD_TRANSMIT_METRIC, 'tx')})`;
}

/** A Kubernetes namespace name (RFC 1123 label): only these can name a pod's namespace, and they need no regex escaping. */
const NAMESPACE_NAME = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;

/** Past this length of the exclusion regex the pod-bytes query is sent unrestricted (the query travels in a GET URL). */
export const MAX_EXCLUDE_REGEX_CHARS = 64_000;

/**
 * The namespaces the pod-bytes query leaves out: those that flow series name as a destination,
 * sorted and deduplicated. Labels that are no namespace name (empty for traffic from outside the
 * cluster, or anything else) are dropped: no pod lives there, and a namespace name is a regex of
 * itself. `[]` (no restriction) when none is left or the regex would be too long for a URL.
 */
export function podBytesExclusions(flowDestinationNamespaces: Iterable<string>): string[] {
  const names = [...new Set([...flowDestinationNamespaces].filter((ns) => NAMESPACE_NAME.test(ns)))].sort();
  return names.join('|').length > MAX_EXCLUDE_REGEX_CHARS ? [] : names;
}

/** `{pod!=""}`, plus `namespace!~"a|b"` when some namespaces are left out. */
function podSelector(excludeNamespaces: readonly string[]): string {
  return excludeNamespaces.length === 0 ? '{pod!=""}' : `{pod!="", namespace!~"${excludeNamespaces.join('|')}"}`;
}

/** The series the pod-bytes coverage probe counts (the receive side stands for both). */
export const POD_PROBE_SELECTOR = `${POD_RECEIVE_METRIC}{pod!=""}`;

/**
 * Coverage probe: does `selector` have series `offsetSeconds` ago? One instant vector, no range,
 * so it is cheap whatever the window. `count(x offset d)` answers only when a sample at or before
 * `now − d` exists, which tells how far back the data reaches.
 */
export function coverageProbeQuery(selector: string, offsetSeconds: number): string {
  return offsetSeconds <= 0 ? `count(${selector})` : `count(${selector} offset ${formatPromDuration(offsetSeconds)})`;
}

const UNIT_SECONDS: Record<string, number> = { ms: 0.001, s: 1, m: 60, h: 3600, d: 86_400, w: 604_800, y: 31_536_000 };

/** Seconds of a PromQL duration (`7d` → 604800, `1h30m` → 5400); NaN when it is not one. */
export function promDurationSeconds(duration: string): number {
  if (!/^(\d+(ms|s|m|h|d|w|y))+$/.test(duration)) return Number.NaN;
  let total = 0;
  for (const match of duration.matchAll(/(\d+)(ms|s|m|h|d|w|y)/g)) total += Number(match[1]) * (UNIT_SECONDS[match[2] ?? 's'] ?? 1);
  return total;
}

/**
 * A PromQL duration of at most `seconds`, rounded down to a readable step: whole seconds under an
 * hour (`16s`, `2m30s`), whole minutes under a day (`3h5m`), whole hours beyond (`1d12h`).
 */
export function formatPromDuration(seconds: number): string {
  const step = seconds >= 86_400 ? 3600 : seconds >= 3600 ? 60 : 1;
  let rest = Math.max(1, Math.floor(seconds / step) * step);
  let out = '';
  for (const [unit, size] of [['d', 86_400], ['h', 3600], ['m', 60], ['s', 1]] as const) {
    const n = Math.floor(rest / size);
    if (n > 0) out += `${n}${unit}`;
    rest -= n * size;
  }
  return out;
}

/** Every query of one refresh, in the order they run, for the docs and the status. */
export function allQueries(window: string): { readonly name: string; readonly promql: string }[] {
  return [
    { name: 'Flows (Beyla)', promql: flowQuery('beyla', window) },
    { name: 'Flows (OBI, when Beyla has none)', promql: flowQuery('obi', window) },
    { name: 'Inter-zone total (family of the flows)', promql: interZoneQuery('beyla', window) },
    { name: 'Pod bytes (cAdvisor), when no flow series names a destination namespace', promql: podBytesQuery(window) },
    { name: 'Pod bytes (cAdvisor), leaving out the namespaces N1…Nk that flow series name as destination', promql: podBytesQuery(window, ['N1', 'Nk']) },
  ];
}

/** The coverage probes (only while the data may be younger than the window; `D` = the offset probed). */
export function probeQueries(): { readonly name: string; readonly promql: string }[] {
  return [
    { name: 'Flows present?', promql: `count(${flowMetric('beyla')})` },
    { name: 'Flows reach back D?', promql: `count(${flowMetric('beyla')} offset D)` },
    { name: 'Pod bytes present?', promql: `count(${POD_PROBE_SELECTOR})` },
    { name: 'Pod bytes reach back D?', promql: `count(${POD_PROBE_SELECTOR} offset D)` },
  ];
}
