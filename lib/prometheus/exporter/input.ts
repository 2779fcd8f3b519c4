/**
 * What one scrape of `GET /metrics` renders: the analysis, the traffic figures the pages show, the
 * informers' health and the few settings the exposition reads. lib/views/metrics-endpoint.ts
 * gathers it; nothing in the exporter reads the environment, the clock or the cluster itself.
 */
import type { ResourceStatus } from '../../k8s/informer/status';
import type { ClusterTrafficReport, ServiceTrafficCost } from '../../topology/analyses/traffic-volume';
import type { ClusterAnalysis } from '../../topology/report/analysis-schema';

/** Default of `ZONESCOPE_METRICS_MAX_SERVICES`. */
export const DEFAULT_MAX_SERVICES = 20_000;

/** The cluster-wide traffic figures the pages show (lib/views/traffic.ts `getClusterTraffic`). */
export interface ExporterTraffic {
  readonly report: ClusterTrafficReport;
  readonly byService: ReadonlyMap<string, ServiceTrafficCost>;
}

/** Everything one scrape renders. */
export interface ExporterInput {
  /** The memoised analysis; `null` while the first sync runs (cluster block only). */
  readonly analysis: ClusterAnalysis | null;
  /** The memoised traffic figures (measured where Prometheus has series); `null` → the analysis's own. */
  readonly traffic: ExporterTraffic | null;
  readonly statuses: readonly ResourceStatus[];
  readonly synced: boolean;
  /** The display name the header shows (`null`: unnamed). */
  readonly clusterName: string | null;
  /** The Prometheus traffic source's last refresh: `true` succeeded, `false` failed, `null` not configured / none yet. */
  readonly trafficSourceUp: boolean | null;
  /** `ZONESCOPE_CROSS_ZONE_BUDGET_DOLLARS`, `null` when unset. */
  readonly budgetDollarsPerMonth: number | null;
  /** `ZONESCOPE_METRICS_MAX_SERVICES`. */
  readonly maxServices: number;
  /** The scrape's time (ms since the epoch). */
  readonly nowMs: number;
  /** Append prom-client's default process/nodejs metrics (default `true`). */
  readonly defaultMetrics?: boolean;
}
