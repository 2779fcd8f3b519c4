/**
 * The flow exporter's series, label for label as Beyla (or standalone OBI, `obi_*` names) exports
 * them with its default Kubernetes attribute set: `beyla_network_flow_bytes_total{direction,
 * instance, k8s_cluster_name, k8s_dst_namespace, k8s_dst_owner_name, k8s_dst_owner_type,
 * k8s_src_namespace, k8s_src_owner_name, k8s_src_owner_type}`, plus `src_zone`/`dst_zone` only
 * with the `flowZoneLabels` switch (Beyla's default is off), and
 * `beyla_network_inter_zone_bytes_total{dst_zone, instance, k8s_cluster_name, src_zone}` (unless
 * `interZone` is off): per agent, its flow bytes between two different known zones. Each node's
 * agent reports what it sees (`instance` = `<node InternalIP>:9090`); which agent reports which
 * bytes is the traffic model's (sim/traffic/service-traffic.ts). Why each label is what it is,
 * with sources: docs/traffic-simulator.md.
 */
import type { TrafficMetricsOptions } from './exporter-options';
import type { SeriesPart } from './exposition';
import { escapeLabelValue, PartSums, seriesId } from './exposition';

/** Which product exports the flow metrics: `beyla_*` names, or standalone OBI's `obi_*`. */
export type FlowExporter = 'beyla' | 'obi';

/** The flow exporters, for messages and parsing. */
export const FLOW_EXPORTERS: readonly FlowExporter[] = ['beyla', 'obi'];

/** `<exporter>_network_flow_bytes_total`. */
export function flowMetricName(exporter: FlowExporter): string {
  return `${exporter}_network_flow_bytes_total`;
}

/** `<exporter>_network_inter_zone_bytes_total`. */
export function interZoneMetricName(exporter: FlowExporter): string {
  return `${exporter}_network_inter_zone_bytes_total`;
}

/** Beyla's flow counter (the default exporter's name). */
export const FLOW_METRIC = flowMetricName('beyla');
/** Beyla's inter-zone counter (the default exporter's name). */
export const INTER_ZONE_METRIC = interZoneMetricName('beyla');

/** Port in every flow series' `instance`: Beyla's Prometheus endpoint on its (host-network) agent pod. */
export const BEYLA_AGENT_PORT = 9090;

/** One end of a flow as Beyla names it: the top owner of a pod, a Service (its ClusterIP), a Node, or nothing (an IP it cannot name). */
export interface FlowPeer {
  readonly namespace: string;
  readonly ownerName: string;
  readonly ownerType: string;
  /** The zone of the peer's node (`''`: unknown, and always for a Service). */
  readonly zone: string;
}

/** Bytes/s that one agent reports for one direction of one conversation. */
export interface AgentFlow {
  /** The agent (`instance`: `<node InternalIP>:9090`). */
  readonly instance: string;
  readonly direction: 'request' | 'response';
  readonly src: FlowPeer;
  readonly dst: FlowPeer;
  readonly bytesPerSecond: number;
}

/**
 * The flow metric's series id: Beyla's default attribute set in Kubernetes, the zones when
 * selected, and the agent's `instance` (written out directly: this runs for every flow of a large
 * cluster).
 */
export function flowSeriesId(metric: string, flow: AgentFlow, clusterName: string, zones: boolean): string {
  const { src, dst } = flow;
  const e = escapeLabelValue;
  return (
    `${metric}{direction="${flow.direction}"${zones ? `,dst_zone="${e(dst.zone)}"` : ''},instance="${e(flow.instance)}",k8s_cluster_name="${e(clusterName)}"` +
    `,k8s_dst_namespace="${e(dst.namespace)}",k8s_dst_owner_name="${e(dst.ownerName)}",k8s_dst_owner_type="${e(dst.ownerType)}"` +
    `,k8s_src_namespace="${e(src.namespace)}",k8s_src_owner_name="${e(src.ownerName)}",k8s_src_owner_type="${e(src.ownerType)}"${zones ? `,src_zone="${e(src.zone)}"` : ''}}`
  );
}

/** The parts of every flow (and, with `interZone`, of the inter-zone metric: flows between two different known zones, per agent). */
export function flowSeriesParts(flows: readonly AgentFlow[], clusterName: string, options: TrafficMetricsOptions): SeriesPart[] {
  const flowMetric = flowMetricName(options.exporter);
  const interZoneMetric = interZoneMetricName(options.exporter);
  const sums = new PartSums();
  for (const flow of flows) {
    if (!(flow.bytesPerSecond > 0)) continue;
    sums.add(flowMetric, flowSeriesId(flowMetric, flow, clusterName, options.flowZoneLabels), flow.bytesPerSecond);
    const srcZone = flow.src.zone;
    const dstZone = flow.dst.zone;
    if (options.interZone && srcZone !== '' && dstZone !== '' && srcZone !== dstZone) {
      sums.add(interZoneMetric, seriesId(interZoneMetric, [['dst_zone', dstZone], ['instance', flow.instance], ['k8s_cluster_name', clusterName], ['src_zone', srcZone]]), flow.bytesPerSecond);
    }
  }
  return sums.list();
}
