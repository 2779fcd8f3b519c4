/**
 * The Prometheus exposition of `GET /metrics` (text format 0.0.4), one scrape at a time: the
 * cluster block (cluster-block.ts, per scrape), the per-Service block (service-block.ts, rendered
 * once per analysis and kept as bytes) and prom-client's default `process_*` / `nodejs_*` metrics
 * from one registry created once per process. Series names, labels and meanings are in
 * docs/metrics.md.
 */
import { collectDefaultMetrics, Registry } from 'prom-client';

import { renderClusterBlock } from './cluster-block';
import type { ExporterInput } from './input';
import { serviceBlock } from './service-block';

/** The response's content type (Prometheus text format 0.0.4). */
export const METRICS_CONTENT_TYPE = Registry.PROMETHEUS_CONTENT_TYPE;

const encoder = new TextEncoder();
const BLANK_LINE = new Uint8Array([0x0a]);

const LINT_FAILING_DEFAULT_METRICS = ['nodejs_active_handles_total', 'nodejs_active_requests_total', 'nodejs_active_resources_total'];

const DEFAULT_KEY = Symbol.for('zonescope.metricsDefaultRegistry');
type DefaultHolder = { [DEFAULT_KEY]?: Registry };

function defaultRegistry(): Registry {
  const holder = globalThis as unknown as DefaultHolder;
  let registry = holder[DEFAULT_KEY];
  if (registry === undefined) {
    registry = new Registry();
    collectDefaultMetrics({ register: registry });
    // Gauges named like counters, which promtool's lint refuses; nodejs_active_{handles,requests,resources}{type} carry the same counts.
    for (const name of LINT_FAILING_DEFAULT_METRICS) registry.removeSingleMetric(name);
    holder[DEFAULT_KEY] = registry;
  }
  return registry;
}

/**
 * The exposition of one scrape as UTF-8 chunks: the cluster block, the cached per-Service block
 * (the same bytes every scrape while the analysis is unchanged: no copy, no re-encoding) and the
 * default metrics, separated by blank lines.
 */
export async function renderMetricsChunks(input: ExporterInput): Promise<Uint8Array[]> {
  const block = input.analysis !== null ? serviceBlock(input.analysis, input.traffic, input.maxServices) : null;
  const cluster = await renderClusterBlock(input, block);
  const defaults = input.defaultMetrics !== false ? await defaultRegistry().metrics() : '';
  const chunks: Uint8Array[] = [];
  const push = (chunk: Uint8Array) => {
    if (chunk.length === 0) return;
    if (chunks.length > 0) chunks.push(BLANK_LINE);
    chunks.push(chunk);
  };
  push(encoder.encode(cluster));
  if (block !== null) push(block.bytes);
  push(encoder.encode(defaults));
  return chunks;
}

/** The whole exposition of one scrape, as text ({@link renderMetricsChunks} decoded: one assembly for both). */
export async function renderMetrics(input: ExporterInput): Promise<string> {
  return Buffer.concat(await renderMetricsChunks(input)).toString('utf8');
}
