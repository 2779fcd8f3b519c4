/**
 * The fleet read from the fleet's Prometheus (or Thanos) instead of connecting to each cluster:
 * its configuration.
 *
 * For a large fleet the documented deployment is one zonescope per cluster, each scraped by the
 * fleet's Prometheus, which puts a label naming the installation's cluster on its series
 * (`ZONESCOPE_FLEET_CLUSTER_LABEL`, default `cluster`: a target label of the scrape configuration,
 * or an external label of each cluster's Prometheus feeding Thanos). The fleet page then asks that
 * Prometheus a few instant queries over the exporter's per-cluster series (docs/metrics.md,
 * prometheus-queries.ts), grouped by that label, and shows one row per cluster seen there
 * (prometheus-rows.ts), refreshed in the background (prometheus-cache.ts).
 *
 * | variable | default | meaning |
 * |---|---|---|
 * | `ZONESCOPE_FLEET_PROMETHEUS_URL` | (none: not used) | base URL of the fleet's Prometheus HTTP API (may carry a path prefix or `user:password@`) |
 * | `ZONESCOPE_FLEET_CLUSTER_LABEL` | `cluster` | the label naming each installation's cluster |
 * | `ZONESCOPE_FLEET_PROMETHEUS_TOKEN_FILE` | none | file holding a bearer token, read again for every request |
 * | `ZONESCOPE_FLEET_PROMETHEUS_CA_FILE` | system CAs | PEM bundle that signs the server's certificate (https) |
 * | `ZONESCOPE_FLEET_PROMETHEUS_TIMEOUT_MS` | `10000` | deadline of one query |
 * | `ZONESCOPE_FLEET_PROMETHEUS_MAX_RESPONSE_MIB` | `16` | largest answer read for one query |
 *
 * The same client and validation as the traffic source's `ZONESCOPE_PROMETHEUS_*`
 * (lib/prometheus/config.ts, lib/prometheus/client.ts): messages name the
 * `ZONESCOPE_FLEET_PROMETHEUS_*` variables, never a credential.
 */
import type { Config } from '../../config/variables';
import { defaultConfig } from '../../config/config';
import { getConfig } from '../../config/process-config';
import { metricsConfigFromEnv, type MetricsConfig } from '../../prometheus/config';

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

/** The settings read here (lib/config checked the URL's and the label's syntax at start). */
export type FleetPrometheusEnv = Pick<
  Config,
  | 'ZONESCOPE_FLEET_PROMETHEUS_URL'
  | 'ZONESCOPE_FLEET_PROMETHEUS_TOKEN_FILE'
  | 'ZONESCOPE_FLEET_PROMETHEUS_CA_FILE'
  | 'ZONESCOPE_FLEET_PROMETHEUS_TIMEOUT_MS'
  | 'ZONESCOPE_FLEET_PROMETHEUS_MAX_RESPONSE_MIB'
  | 'ZONESCOPE_FLEET_CLUSTER_LABEL'
>;

/** The traffic source's variable names in a message of the shared config code, as the fleet's. */
export const fleetWords = (message: string): string => message.replace(/ZONESCOPE_PROMETHEUS_/g, 'ZONESCOPE_FLEET_PROMETHEUS_');

/** Reads `ZONESCOPE_FLEET_PROMETHEUS_*` and `ZONESCOPE_FLEET_CLUSTER_LABEL` (token and CA files are checked now, as for the traffic source). */
export function fleetPrometheusConfigFromEnv(env: FleetPrometheusEnv = getConfig()): FleetPrometheusConfigResult {
  const url = env.ZONESCOPE_FLEET_PROMETHEUS_URL ?? '';
  if (url === '') return { kind: 'not-configured' };
  // The traffic source's defaults for the rest (window, refresh, max-stale: the fleet's queries are instant ones).
  const result = metricsConfigFromEnv(
    {
      ...defaultConfig(),
      ZONESCOPE_PROMETHEUS_URL: url,
      ZONESCOPE_PROMETHEUS_TOKEN_FILE: env.ZONESCOPE_FLEET_PROMETHEUS_TOKEN_FILE,
      ZONESCOPE_PROMETHEUS_CA_FILE: env.ZONESCOPE_FLEET_PROMETHEUS_CA_FILE,
      ZONESCOPE_PROMETHEUS_TIMEOUT_MS: env.ZONESCOPE_FLEET_PROMETHEUS_TIMEOUT_MS,
    },
    // The fleet's queries aggregate by cluster: a few hundred bytes per cluster.
    { maxResponseBytes: env.ZONESCOPE_FLEET_PROMETHEUS_MAX_RESPONSE_MIB * 1024 * 1024 },
  );
  if (result.kind === 'error') return { kind: 'error', message: fleetWords(result.message), url: result.url };
  if (result.kind !== 'ok') return { kind: 'not-configured' };
  return { kind: 'ok', config: { metrics: result.config, clusterLabel: env.ZONESCOPE_FLEET_CLUSTER_LABEL } };
}
