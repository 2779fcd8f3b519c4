/**
 * The inputs of `GET /metrics`, gathered from what pages already hold in memory: the memoised
 * cluster analysis (lib/server/analysis.ts — no extra analysis pass), the memoised traffic figures
 * (lib/views/traffic.ts — measured where Prometheus has series), the informers' statuses, the
 * cluster's display name as the header shows it, and two settings of the configuration (lib/config,
 * which stops the start on a value it cannot read), taken once per process:
 *
 * - `ZONESCOPE_METRICS_MAX_SERVICES` (default 20000): the cap on Services with per-Service series;
 * - `ZONESCOPE_CROSS_ZONE_BUDGET_DOLLARS`: the monthly cross-zone budget exported for the spend alert.
 *
 * A scrape never calls the API server and never waits for Prometheus.
 */
import 'server-only';

import type { Config } from '../config/variables';
import { getConfig } from '../config/process-config';
import { clusterDisplayName } from '../shared/cluster-name';
import type { MetricsStatus } from '../prometheus/traffic-status';
import type { ExporterInput } from '../prometheus/exporter/input';
import { renderMetrics, renderMetricsChunks } from '../prometheus/exporter/scrape';
import { getClusterAnalysis, source } from '../server/analysis';
import type { ClusterScope } from '../server/clusters';
import { getClusterTraffic, getMetricsStatus } from './traffic';

/** The settings of the exporter, from the configuration. */
export interface MetricsSettings {
  readonly maxServices: number;
  readonly budgetDollarsPerMonth: number | null;
}

const KEY = Symbol.for('zonescope.metricsSettings');
type Holder = { [KEY]?: MetricsSettings };

/** The exporter's settings of `config`. */
export function metricsSettingsFromEnv(config: Pick<Config, 'ZONESCOPE_METRICS_MAX_SERVICES' | 'ZONESCOPE_CROSS_ZONE_BUDGET_DOLLARS'>): MetricsSettings {
  return {
    maxServices: config.ZONESCOPE_METRICS_MAX_SERVICES,
    budgetDollarsPerMonth: config.ZONESCOPE_CROSS_ZONE_BUDGET_DOLLARS ?? null,
  };
}

/** The exporter's settings, taken from the process' configuration once. */
export function getMetricsSettings(): MetricsSettings {
  const holder = globalThis as unknown as Holder;
  return (holder[KEY] ??= metricsSettingsFromEnv(getConfig()));
}

/** Forgets the settings read (tests; a changed environment). */
export function resetMetricsSettings(): void {
  (globalThis as unknown as Holder)[KEY] = undefined;
}

/** `zonescope_traffic_source_up`: 1 after a successful refresh, 0 after a failed one, `null` when not configured or before the first. */
export function trafficSourceUp(status: Pick<MetricsStatus, 'state'>): boolean | null {
  switch (status.state) {
    case 'ok':
    case 'no-zones':
    case 'no-series':
      return true;
    case 'stale':
    case 'unreachable':
    case 'error':
      return false;
    case 'not-configured':
    case 'pending':
      return null;
  }
}

/** What one scrape of `scope` (the default cluster for `/metrics`) renders, from memory. */
export function metricsInput(scope: ClusterScope, nowMs: number = Date.now()): ExporterInput {
  const state = source(scope.source);
  const settings = getMetricsSettings();
  const analysis = getClusterAnalysis(state);
  const traffic = analysis === null ? null : getClusterTraffic(scope);
  return {
    analysis,
    traffic: traffic === null ? null : { report: traffic.report, byService: traffic.byService },
    statuses: state.statuses(),
    synced: state.isSynced(),
    clusterName: clusterDisplayName({ mode: state.mode, contextName: state.contextName, snapshotPath: state.snapshotPath, isDefault: scope.entry.isDefault, configuredName: getConfig().ZONESCOPE_CLUSTER_NAME ?? null }),
    trafficSourceUp: trafficSourceUp(getMetricsStatus(scope)),
    budgetDollarsPerMonth: settings.budgetDollarsPerMonth,
    maxServices: settings.maxServices,
    nowMs,
  };
}

/** The exposition text of one scrape. */
export function scrapeMetrics(scope: ClusterScope, nowMs: number = Date.now()): Promise<string> {
  return renderMetrics(metricsInput(scope, nowMs));
}

/** The exposition of one scrape as UTF-8 chunks (what the route sends: the cached per-Service bytes are not copied). */
export function scrapeMetricsChunks(scope: ClusterScope, nowMs: number = Date.now()): Promise<Uint8Array[]> {
  return renderMetricsChunks(metricsInput(scope, nowMs));
}
