/**
 * The cluster block of `GET /metrics`, built per scrape (a few dozen series): build info, the
 * cluster's eligibility, zones, totals and spend, the informers' health and sync age, and the
 * traffic source's state, with prom-client `Gauge`s on a fresh `Registry`.
 */
import { Gauge, Registry } from 'prom-client';

import packageJson from '../../../package.json';
import type { ResourceStatus } from '../../k8s/informer/status';
import type { ExporterInput } from './input';
import type { ServiceBlock } from './service-block';
import { gbPerMonthToBytesPerSecond } from './text-format';

/** At most this many `zonescope_cluster_ineligible_node_info` series. */
export const MAX_INELIGIBLE_NODE_SERIES = 50;

const RESOURCE_STATES = ['syncing', 'synced', 'stale', 'forbidden'] as const;

function seconds(iso: string | null): number | null {
  if (iso === null) return null;
  const ms = Date.parse(iso);
  return Number.isNaN(ms) ? null : ms / 1000;
}

/** Seconds since the resource type that heard from the API server longest ago last did; `null` when none has yet. */
export function syncAgeSeconds(statuses: readonly ResourceStatus[], nowMs: number): number | null {
  let age: number | null = null;
  for (const status of statuses) {
    const heard = [seconds(status.lastEventAt), seconds(status.syncedAt)].filter((s): s is number => s !== null);
    if (heard.length === 0) continue;
    const typeAge = Math.max(0, nowMs / 1000 - Math.max(...heard));
    age = age === null ? typeAge : Math.max(age, typeAge);
  }
  return age;
}

function gauge(registry: Registry, name: string, help: string, labelNames: readonly string[] = []): Gauge {
  return new Gauge({ name, help, labelNames: [...labelNames], registers: [registry] });
}

/** The cluster block of one scrape, as text (families without samples left out). */
export async function renderClusterBlock(input: ExporterInput, block: ServiceBlock | null): Promise<string> {
  const registry = new Registry();
  gauge(registry, 'zonescope_build_info', 'zonescope\'s version and the Node.js release it runs on. Always 1.', ['version', 'node_version']).set(
    { version: packageJson.version, node_version: process.version },
    1,
  );
  gauge(registry, 'zonescope_cluster_synced', 'Whether every resource type finished its first list (1) or the first sync still runs (0).').set(input.synced && input.analysis !== null ? 1 : 0);

  const { analysis } = input;
  if (analysis !== null) {
    const { cluster, kubernetes } = analysis;
    gauge(registry, 'zonescope_cluster_info', 'The cluster: the name the header shows, the modelled Kubernetes release, the platform and kube-proxy\'s mode. Always 1.', [
      'cluster',
      'kubernetes_version',
      'platform',
      'proxy_mode',
    ]).set({ cluster: input.clusterName ?? '', kubernetes_version: kubernetes.release, platform: cluster.dataplane.platform.platform, proxy_mode: cluster.proxyMode }, 1);
    gauge(registry, 'zonescope_cluster_kubernetes_minor', 'The modelled Kubernetes minor release (33 for 1.33).').set(kubernetes.minor);
    gauge(registry, 'zonescope_cluster_eligible', 'Whether the topology cache has CPU ratios, so Auto can enable hints at all (1) or not (0).').set(cluster.eligible ? 1 : 0);
    const ineligible = gauge(registry, 'zonescope_cluster_ineligible_node_info', `A ready node that makes the cluster ineligible, and why (at most ${MAX_INELIGIBLE_NODE_SERIES} series). Always 1.`, ['node', 'cause']);
    for (const fix of cluster.ineligibleNodes.slice(0, MAX_INELIGIBLE_NODE_SERIES)) ineligible.set({ node: fix.node, cause: fix.cause }, 1);
    gauge(registry, 'zonescope_cluster_ineligible_nodes', 'Ready nodes that make the cluster ineligible (missing zone label or allocatable CPU).').set(cluster.ineligibleNodes.length);
    gauge(registry, 'zonescope_cluster_insufficient_cause_info', 'Why the topology cache has no CPU ratios ("none" when it has them). Always 1.', ['cause']).set({ cause: cluster.insufficientCause ?? 'none' }, 1);
    const ratio = gauge(registry, 'zonescope_zone_cpu_ratio', 'The topology cache\'s CPU ratio of the zone (absent when the cluster has none).', ['zone']);
    const nodes = gauge(registry, 'zonescope_zone_nodes', 'Nodes labelled with the zone.', ['zone']);
    const readyNodes = gauge(registry, 'zonescope_zone_ready_nodes', 'Ready nodes labelled with the zone.', ['zone']);
    for (const zone of cluster.zones) {
      if (zone.cpuRatio !== null) ratio.set({ zone: zone.name }, zone.cpuRatio);
      nodes.set({ zone: zone.name }, zone.nodes);
      readyNodes.set({ zone: zone.name }, zone.readyNodes);
    }
    gauge(registry, 'zonescope_cluster_nodes', 'All nodes of the cluster.').set(cluster.nodes.length);
    const services = gauge(registry, 'zonescope_services', 'Services per mechanism that sets their hints.', ['mechanism']);
    for (const [mechanism, count] of Object.entries(cluster.summary.byMechanism)) services.set({ mechanism }, count);
    gauge(registry, 'zonescope_services_hints_expected', 'Services the controller should write hints for on its next sync.').set(block?.hintsExpected ?? cluster.summary.hintsExpectedOn);
    gauge(registry, 'zonescope_services_hints_observed', 'Services whose ready endpoints all carry zone hints now.').set(block?.hintsObserved ?? 0);
    gauge(registry, 'zonescope_services_needing_attention', 'Services the Overview lists as needing attention.').set(cluster.summary.needingAttention);
    const totals = (input.traffic?.report ?? analysis.traffic).totals;
    const cost = gauge(registry, 'zonescope_cross_zone_cost_dollars_per_month', 'The cluster\'s cross-zone traffic cost in USD per month: now, after the controller\'s next sync, and with every Service at its best mechanism.', ['scenario']);
    const bytes = gauge(registry, 'zonescope_cross_zone_bytes_per_second', 'The cluster\'s cross-zone traffic in bytes per second, per scenario as the cost.', ['scenario']);
    for (const [scenario, key] of [['now', 'now'], ['after_sync', 'expected'], ['best', 'best']] as const) {
      cost.set({ scenario }, totals[key].monthlyCost);
      bytes.set({ scenario }, gbPerMonthToBytesPerSecond(totals[key].crossZoneGbPerMonth));
    }
    gauge(registry, 'zonescope_metrics_services_exported', 'Services with per-Service series (capped by ZONESCOPE_METRICS_MAX_SERVICES).').set(block?.exported ?? 0);
    gauge(registry, 'zonescope_metrics_services_omitted', 'Services left out of the per-Service series by ZONESCOPE_METRICS_MAX_SERVICES.').set(block?.omitted ?? 0);
  }
  if (input.budgetDollarsPerMonth !== null) {
    gauge(registry, 'zonescope_cross_zone_budget_dollars_per_month', 'The cross-zone spend budget in USD per month (ZONESCOPE_CROSS_ZONE_BUDGET_DOLLARS).').set(input.budgetDollarsPerMonth);
  }

  const state = gauge(registry, 'zonescope_informer_state', 'State of the resource type\'s cache: 1 for the current state, 0 for the others.', ['resource', 'state']);
  const lastSync = gauge(registry, 'zonescope_informer_last_sync_timestamp_seconds', 'When the resource type\'s last full list completed (Unix seconds).', ['resource']);
  const lastEvent = gauge(registry, 'zonescope_informer_last_event_timestamp_seconds', 'When the resource type\'s watch last delivered an event or bookmark (Unix seconds).', ['resource']);
  const objects = gauge(registry, 'zonescope_informer_objects', 'Records of the resource type in the cache.', ['resource']);
  for (const status of input.statuses) {
    for (const s of RESOURCE_STATES) state.set({ resource: status.id, state: s }, status.health === s ? 1 : 0);
    const synced = seconds(status.syncedAt);
    if (synced !== null) lastSync.set({ resource: status.id }, synced);
    const event = seconds(status.lastEventAt);
    if (event !== null) lastEvent.set({ resource: status.id }, event);
    objects.set({ resource: status.id }, status.count);
  }
  const age = syncAgeSeconds(input.statuses, input.nowMs);
  if (age !== null) gauge(registry, 'zonescope_sync_age_seconds', 'Seconds since the resource type that heard from the API server longest ago last did: how old the data may be.').set(age);
  if (input.trafficSourceUp !== null) {
    gauge(registry, 'zonescope_traffic_source_up', 'Whether the Prometheus traffic source\'s last refresh succeeded (1) or failed (0).').set(input.trafficSourceUp ? 1 : 0);
  }
  return dropEmptyFamilies(await registry.metrics());
}

/** prom-client writes HELP/TYPE for gauges that got no value; a family without samples helps no one. */
function dropEmptyFamilies(text: string): string {
  const kept = text
    .trimEnd()
    .split('\n\n')
    .filter((chunk) => chunk.split('\n').some((line) => line !== '' && !line.startsWith('#')));
  return kept.length === 0 ? '' : `${kept.join('\n\n')}\n`;
}
