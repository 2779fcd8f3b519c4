/**
 * The health of a cluster's metrics source, as the header, `/api/v1/cluster`, `/metrics` and the
 * CLI show it: one state and one sentence. The traffic source (traffic-source.ts) words it for a
 * usable configuration; {@link unusableConfigStatus} for one that queries nothing.
 */
import type { MetricsConfigResult } from './config';

/** Health of the metrics source, as the header and `/api/v1/cluster` show it. */
export interface MetricsStatus {
  /**
   * `no-zones`: answers with flow series, but they carry no zones (Beyla's and OBI's default
   * attribute set): cross-zone traffic cannot be measured by zone; Services use pod bytes.
   */
  readonly state: 'not-configured' | 'pending' | 'ok' | 'no-zones' | 'stale' | 'unreachable' | 'no-series' | 'error';
  /** One sentence. */
  readonly message: string;
  /** Prometheus base URL without userinfo or query, `null` when not configured. */
  readonly url: string | null;
  readonly window: string;
  readonly lastSuccessAt: string | null;
  readonly staleSince: string | null;
  /** Queries sent since the process started. */
  readonly queriesIssued: number;
  /** Queries of one refresh (the last one, or the steady-state count before the first). */
  readonly queriesPerRefresh: number;
  readonly refreshSeconds: number;
  /** How to add measured traffic, when not configured; else `null`. */
  readonly hint: string | null;
}

/** How to add measured traffic (shown when not configured). */
export const NOT_CONFIGURED_HINT =
  'Set ZONESCOPE_PROMETHEUS_URL to a Prometheus that scrapes Beyla (or OpenTelemetry eBPF Instrumentation) network metrics or cAdvisor pod network bytes; docs/traffic.md lists the queries.';

/**
 * The status of a configuration that queries nothing: `not-configured` (with the hint how to add
 * one) or `error` (with the reason). Nothing is ever queried without a usable configuration.
 */
export function unusableConfigStatus(result: Exclude<MetricsConfigResult, { kind: 'ok' }>): MetricsStatus {
  const idle = { window: result.window, lastSuccessAt: null, staleSince: null, queriesIssued: 0, queriesPerRefresh: 0, refreshSeconds: result.refreshSeconds, hint: NOT_CONFIGURED_HINT };
  return result.kind === 'not-configured'
    ? { state: 'not-configured', message: result.message ?? 'No metrics source is configured: traffic volumes are assumed.', url: null, ...idle, hint: result.hint ?? NOT_CONFIGURED_HINT }
    : { state: 'error', message: `The Prometheus configuration is invalid: ${result.message} Traffic volumes are assumed.`, url: result.url, ...idle };
}
