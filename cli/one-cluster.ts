/**
 * One cluster's analysis from what read-cluster.ts read: the traffic measured once on
 * `--prometheus` (the dashboard's queries), the engine's report with the command line's volumes
 * and price, the `--service` detail, and the `--fail-on` verdicts; and the report as
 * `--format json` prints it.
 */
import type { Config } from '../lib/config/variables';
import { metricsConfigFromEnv } from '../lib/prometheus/config';
import { TrafficSource } from '../lib/prometheus/traffic-source';
import type { MetricsStatus } from '../lib/prometheus/traffic-status';
import { measuredTrafficFromSeries } from '../lib/topology/analyses/measured-traffic';
import type { MeasuredTraffic } from '../lib/topology/analyses/traffic-volume';
import type { ClusterIndex } from '../lib/topology/model/cluster-model';
import type { ClusterAnalysis, ServiceDetail } from '../lib/topology/report/analysis-schema';
import { analyzeClusterIn } from '../lib/topology/report/cluster-analysis';
import { prepareAnalysis } from '../lib/topology/report/prepared-analysis';
import { analyzeServiceIn } from '../lib/topology/report/service-detail';
import type { Args } from './args';
import { evaluateRules, ruleText } from './fail-on';
import type { ClusterRead } from './read-cluster';

/** A cluster's analysis: the report, the Service asked for, and the `--fail-on` rules that held (as messages, and their rules). */
export interface Analysed {
  readonly analysis: ClusterAnalysis;
  readonly detail: ServiceDetail | null;
  readonly failures: readonly string[];
  readonly held: readonly string[];
  /** What `--prometheus` measured, and how it went; `null` without it. */
  readonly metrics: MetricsReport | null;
}

/** The `metrics` object of the JSON report with `--prometheus`: the traffic source's state as the dashboard's header shows it. */
export type MetricsReport = Pick<MetricsStatus, 'state' | 'message' | 'url' | 'window' | 'hint'>;

/**
 * One refresh of the traffic source against `--prometheus` (the dashboard's queries and rules),
 * mapped onto the cluster: the measurement (`null` when nothing usable) and the status.
 */
export async function measureOnce(index: ClusterIndex, prometheus: { readonly url: string; readonly selector: string }, config: Config): Promise<{ measured: MeasuredTraffic | null; metrics: MetricsReport }> {
  // --prometheus and --prometheus-selector name the Prometheus; token, CA, window and timeout are the configuration's.
  const source = new TrafficSource(metricsConfigFromEnv({ ...config, ZONESCOPE_PROMETHEUS_URL: prometheus.url, ZONESCOPE_PROMETHEUS_SELECTOR: prometheus.selector }), { log: () => undefined });
  await source.refresh();
  const measurement = source.measurement();
  const { state, message, url, window, hint } = source.status();
  return { measured: measurement === null ? null : measuredTrafficFromSeries(measurement, index), metrics: { state, message, url, window, hint } };
}

/** Analyses what was read; a message when `--service` names a Service the cluster lacks. */
export async function analyse(read: ClusterRead, args: Args, volumesByService: Record<string, number> | null, config: Config): Promise<Analysed | string> {
  const measure = args.prometheus === null ? null : await measureOnce(read.index, args.prometheus, config);
  const prepared = prepareAnalysis(read.index, { ...args.options, volumesByService, unreadable: read.unreadable, measured: measure?.measured ?? null });
  const analysis = analyzeClusterIn(prepared);
  let detail: ServiceDetail | null = null;
  if (args.service) {
    detail = analyzeServiceIn(prepared, args.service.namespace, args.service.name);
    if (!detail) return `no Service ${args.service.namespace}/${args.service.name} in this cluster`;
  }
  const services = detail ? [detail] : analysis.services;
  const failures: string[] = [];
  const held: string[] = [];
  for (const rule of args.failOn) {
    const messages = evaluateRules(analysis, services, [rule]);
    if (messages.length > 0) held.push(ruleText(rule));
    failures.push(...messages);
  }
  return { analysis, detail, failures, held, metrics: measure?.metrics ?? null };
}

/** The report as `--format json` prints it for one cluster (with `metrics` when `--prometheus` was given). */
export function reportJson({ analysis, detail, metrics }: Analysed): ClusterAnalysis & { readonly metrics?: MetricsReport } {
  const report = detail ? { ...analysis, services: [detail] } : analysis;
  return metrics === null ? report : { ...report, metrics };
}

