/**
 * The PromQL zonescope runs, one set per refresh for the whole cluster (never per Service or per
 * request). docs/traffic.md prints the same text so a user can paste it into their own Prometheus;
 * a test keeps the two in step.
 */

/** The flow-metric families, tried in this order until one returns series (Beyla, then OpenTelemetry eBPF Instrumentation). */
export const FLOW_PREFIXES = ['beyla', 'obi'] as const;

/** A flow-metric family. */
export type FlowPrefix = (typeof FLOW_PREFIXES)[number];

/**
 * Labels the flow query keeps: Beyla's / OBI's default attribute set of the flow metric
 * (`direction`, the owners, their types and namespaces; `k8s_cluster_name` is summed away) plus
 * `src_zone`/`dst_zone`, which exist only when the user adds them (`attributes.select`). A label a
 * series does not carry reads as `""`. The scrape's `instance` (one per node's agent) is summed
 * away: the mapping de-duplicates what several agents report (docs/traffic.md, "One count per byte").
 */
export const FLOW_LABELS = [
  'direction',
  'src_zone',
  'dst_zone',
  'k8s_src_namespace',
  'k8s_src_owner_name',
  'k8s_src_owner_type',
  'k8s_dst_namespace',
  'k8s_dst_owner_name',
  'k8s_dst_owner_type',
] as const;

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

/** `{matchers}` of a metric, or nothing without matchers (a cluster's label matchers on a shared Prometheus). */
function braces(matchers: readonly string[]): string {
  const kept = matchers.filter((m) => m !== '');
  return kept.length === 0 ? '' : `{${kept.join(', ')}}`;
}

/** Bytes/s per (direction, zones, source workload, destination workload) over `window`, summed over the agents. */
export function flowQuery(prefix: FlowPrefix, window: string, selector = ''): string {
  return `sum by (${FLOW_LABELS.join(', ')}) (rate(${flowMetric(prefix)}${braces([selector])}[${window}]))`;
}

/** Cluster-wide bytes/s per (source zone, destination zone) over `window`, summed over the agents. */
export function interZoneQuery(prefix: FlowPrefix, window: string, selector = ''): string {
  return `sum by (src_zone, dst_zone) (rate(${interZoneMetric(prefix)}${braces([selector])}[${window}]))`;
}

/**
 * Received + sent bytes/s per pod over `window`: pod-level series of the pod's sandbox only
 * (`container=""` on containerd and CRI-O, `"POD"` on dockershim; the root cgroup has no `pod`).
 * `rate()` drops the metric name, so each side is tagged with a `direction` label before the
 * union, else a pod's receive and transmit rates would collide ("vector cannot contain metrics
 * with the same labelset").
 */
export function podBytesQuery(window: string, excludeNamespaces: readonly string[] = [], selector = ''): string {
  const matchers = podSelector(excludeNamespaces, selector);
  const side = (metric: string, direction: string): string => `label_replace(rate(${metric}${matchers}[${window}]), "direction", "${direction}", "", "")`;
  return `sum by (namespace, pod) (${side(POD_RECEIVE_METRIC, 'rx')} or ${side(POD_TRANSMIT_METRIC, 'tx')})`;
}

/** A Kubernetes namespace name (RFC 1123 label): only these can name a pod's namespace, and they need no regex escaping. */
const NAMESPACE_NAME = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;

/** Past this length of the exclusion regex the pod-bytes query is sent unrestricted (the query travels in a GET URL). */
export const MAX_EXCLUDE_REGEX_CHARS = 64_000;

/**
 * The namespaces the pod-bytes query leaves out: those that zone-labelled flow series name as an
 * end (their Services are measured from flows, at 0 when nobody calls them), sorted and deduplicated. Labels that are no namespace name (empty for traffic from outside the
 * cluster, or anything else) are dropped: no pod lives there, and a namespace name is a regex of
 * itself. `[]` (no restriction) when none is left or the regex would be too long for a URL.
 */
export function podBytesExclusions(flowDestinationNamespaces: Iterable<string>): string[] {
  const names = [...new Set([...flowDestinationNamespaces].filter((ns) => NAMESPACE_NAME.test(ns)))].sort();
  return names.join('|').length > MAX_EXCLUDE_REGEX_CHARS ? [] : names;
}

/** The sandbox series of pods: `pod!=""` and the sandbox's `container` label on every runtime. */
const POD_SANDBOX = ['pod!=""', 'container=~"|POD"'];

/** The sandbox matchers, plus `namespace!~"a|b"` when some namespaces are left out, plus the cluster's matchers. */
function podSelector(excludeNamespaces: readonly string[], selector: string): string {
  return braces([...POD_SANDBOX, excludeNamespaces.length === 0 ? '' : `namespace!~"${excludeNamespaces.join('|')}"`, selector]);
}

/** The series the pod-bytes coverage probe counts (the receive side stands for both). */
export function podProbeSelector(selector = ''): string {
  return `${POD_RECEIVE_METRIC}${braces([...POD_SANDBOX, selector])}`;
}

/** The flow metric's series of a cluster, as the coverage probe counts them. */
export function flowProbeSelector(prefix: FlowPrefix, selector = ''): string {
  return `${flowMetric(prefix)}${braces([selector])}`;
}

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
    { name: 'Pod bytes (cAdvisor), when no zone-labelled flow series names a namespace', promql: podBytesQuery(window) },
    { name: 'Pod bytes (cAdvisor), leaving out the namespaces N1…Nk that zone-labelled flow series name', promql: podBytesQuery(window, ['N1', 'Nk']) },
  ];
}

/** The coverage probes (only while the data may be younger than the window; `D` = the offset probed). */
export function probeQueries(): { readonly name: string; readonly promql: string }[] {
  return [
    { name: 'Flows present?', promql: `count(${flowProbeSelector('beyla')})` },
    { name: 'Flows reach back D?', promql: `count(${flowProbeSelector('beyla')} offset D)` },
    { name: 'Pod bytes present?', promql: `count(${podProbeSelector()})` },
    { name: 'Pod bytes reach back D?', promql: `count(${podProbeSelector()} offset D)` },
  ];
}

/**
 * What a user can run to check the one-count-per-byte rule on their own Prometheus (`W` = the
 * window): the zone pairs of the flows and of the inter-zone counter, each halved (every cross-zone
 * byte is in the series of both nodes' agents; the off-diagonal pairs of the two should agree), and
 * how many agents report each conversation.
 */
export function checkQueries(prefix: FlowPrefix = 'beyla'): { readonly name: string; readonly promql: string }[] {
  const workloads = '{k8s_src_owner_type!="Service", k8s_dst_owner_type!="Service"}';
  return [
    { name: 'Flow bytes/s per zone pair, each cross-zone byte once (read the pairs of two different zones)', promql: `sum by (src_zone, dst_zone) (rate(${flowMetric(prefix)}${workloads}[W])) / 2` },
    { name: 'Inter-zone bytes/s per zone pair, each byte once', promql: `sum by (src_zone, dst_zone) (rate(${interZoneMetric(prefix)}[W])) / 2` },
    { name: 'Agents reporting each conversation (2 for a flow between two nodes)', promql: `count by (direction, src_zone, dst_zone, k8s_src_owner_name, k8s_dst_owner_name) (rate(${flowMetric(prefix)}${workloads}[W]) > 0)` },
  ];
}
