/**
 * `GET /metrics` against the eks-demo scenario on the simulator over real HTTP (the process-wide
 * cluster source synced to it, as /api/v1/cluster's tests do): the contract's series with values
 * that match `/api/v1/cluster` and `/api/v1/services/...`, promtool's verdict on the text, no API
 * server request per scrape, no credential in the output, the syncing answer and the 405s.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { getClusterSource } from '../../lib/k8s/source';
import type { ClusterResponse, ServicesResponse } from '../../lib/views/api-types';
import { apiRequest, eventually, harnessForFile, nonWatchRequests, readJson } from '../api/v1/_testing/harness';
import { resetTrafficSource } from '../../lib/prometheus/traffic-source';
import { GET as getCluster } from '../api/v1/cluster/route';
import { GET as getServices } from '../api/v1/services/route';
import { DELETE, GET, HEAD, POST } from './route';

const harness = harnessForFile();

async function scrape(): Promise<string> {
  const response = await GET();
  expect(response.status).toBe(200);
  return response.text();
}

/** The value of the one sample of `name` whose labels include `labels`. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  const matches = text.split('\n').filter((line) => {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) return false;
    return Object.entries(labels).every(([k, v]) => line.includes(`${k}="${v}"`));
  });
  if (matches.length > 1) throw new Error(`${matches.length} samples of ${name} match ${JSON.stringify(labels)}`);
  const line = matches[0];
  return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(' ') + 1));
}

describe('GET /metrics', () => {
  it('serves the text format with no-store', async () => {
    const response = await GET();
    expect(response.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
    expect(response.headers.get('cache-control')).toBe('no-store');
    const head = await HEAD();
    expect(head.status).toBe(200);
    expect(await head.text()).toBe('');
    expect(head.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
  });

  it('holds the contract series with the figures /api/v1/cluster shows', async () => {
    const text = await scrape();
    await writeFile('/tmp/zonescope-metrics-eks-demo.txt', text).catch(() => undefined);
    const cluster = await readJson<ClusterResponse>(getCluster(apiRequest('/api/v1/cluster')));
    expect(sample(text, 'zonescope_cluster_synced')).toBe(1);
    expect(sample(text, 'zonescope_build_info', { version: '0.1.0' })).toBe(1);
    expect(sample(text, 'zonescope_cluster_info', { kubernetes_version: '1.31', platform: 'eks', proxy_mode: cluster.cluster.proxyMode })).toBe(1);
    expect(sample(text, 'zonescope_cluster_kubernetes_minor')).toBe(31);
    expect(sample(text, 'zonescope_cluster_eligible')).toBe(cluster.cluster.eligible ? 1 : 0);
    expect(sample(text, 'zonescope_cluster_nodes')).toBe(cluster.cluster.nodes.length);
    for (const zone of cluster.cluster.zones) {
      expect(sample(text, 'zonescope_zone_nodes', { zone: zone.name })).toBe(zone.nodes);
      expect(sample(text, 'zonescope_zone_ready_nodes', { zone: zone.name })).toBe(zone.readyNodes);
      if (zone.cpuRatio !== null) expect(sample(text, 'zonescope_zone_cpu_ratio', { zone: zone.name })).toBeCloseTo(zone.cpuRatio, 12);
    }
    expect(sample(text, 'zonescope_services_needing_attention')).toBe(cluster.cluster.summary.needingAttention);
    for (const [mechanism, count] of Object.entries(cluster.cluster.summary.byMechanism)) expect(sample(text, 'zonescope_services', { mechanism })).toBe(count);
    expect(sample(text, 'zonescope_cross_zone_cost_dollars_per_month', { scenario: 'now' })).toBeCloseTo(cluster.traffic.totals.now.monthlyCost, 9);
    expect(sample(text, 'zonescope_cross_zone_cost_dollars_per_month', { scenario: 'after_sync' })).toBeCloseTo(cluster.traffic.totals.expected.monthlyCost, 9);
    expect(sample(text, 'zonescope_cross_zone_cost_dollars_per_month', { scenario: 'best' })).toBeCloseTo(cluster.traffic.totals.best.monthlyCost, 9);
    expect(sample(text, 'zonescope_metrics_services_exported')).toBe(cluster.cluster.summary.services);
    expect(sample(text, 'zonescope_metrics_services_omitted')).toBe(0);
    // Informers: a state set of 4 per resource type, all synced.
    const statuses = getClusterSource().statuses();
    for (const status of statuses) {
      expect(sample(text, 'zonescope_informer_state', { resource: status.id, state: 'synced' })).toBe(1);
      expect(sample(text, 'zonescope_informer_state', { resource: status.id, state: 'stale' })).toBe(0);
      expect(sample(text, 'zonescope_informer_objects', { resource: status.id })).toBe(status.count);
    }
    expect(sample(text, 'zonescope_sync_age_seconds')).toBeGreaterThanOrEqual(0);
    // No Prometheus configured: the traffic-source series is absent; no budget set: absent.
    expect(text).not.toMatch(/^zonescope_traffic_source_up/m);
    expect(text).not.toMatch(/^zonescope_cross_zone_budget_dollars_per_month/m);
    expect(text).toMatch(/^process_cpu_user_seconds_total /m);
    expect(text).toMatch(/^nodejs_heap_size_used_bytes /m);
  });

  it('matches the figures /api/v1/services shows for payments/ledger and shop/catalog', async () => {
    const text = await scrape();
    const list = await readJson<ServicesResponse>(getServices(apiRequest('/api/v1/services?limit=500')));
    for (const key of ['payments/ledger', 'shop/catalog']) {
      const row = list.items.find((r) => `${r.namespace}/${r.name}` === key);
      if (!row) throw new Error(`no ${key} in /api/v1/services`);
      const labels = { namespace: row.namespace, service: row.name };
      // Ready endpoints per zone, hints and the reason.
      for (const [zone, ready] of Object.entries(row.endpointsByZone)) expect(sample(text, 'zonescope_service_ready_endpoints', { ...labels, zone }), `${key} ${zone}`).toBe(ready);
      expect(sample(text, 'zonescope_service_hints_expected', labels), key).toBe(row.hintsExpected ? 1 : 0);
      const ratio = sample(text, 'zonescope_service_hints_observed_ratio', labels);
      expect(row.hintsObserved === 'all' ? ratio === 1 : row.hintsObserved === 'none' ? ratio === 0 : ratio !== undefined && ratio > 0 && ratio < 1, `${key} observed ${ratio}`).toBe(true);
      expect(sample(text, 'zonescope_service_info', { ...labels, mechanism: row.mechanism, type: row.type }), key).toBe(1);
      expect(sample(text, 'zonescope_service_predicted_cross_zone_ratio', labels), key).toBeCloseTo(row.crossZoneFraction, 12);
      expect(sample(text, 'zonescope_service_cross_zone_cost_dollars_per_month', labels), key).toBeCloseTo(row.monthlyCost ?? Number.NaN, 4);
      expect(sample(text, 'zonescope_service_traffic_bytes_per_second', { ...labels, source: row.volumeSource === 'measured-pod-bytes' ? 'pod-bytes' : (row.volumeSource ?? '') }), key).toBeCloseTo(((row.gbPerMonth ?? 0) * 1e9) / (30 * 86400), -1);
      // Exactly one reason series per Service.
      expect(text.split('\n').filter((l) => l.startsWith(`zonescope_service_hints_reason_info{namespace="${row.namespace}",service="${row.name}",`)), key).toHaveLength(1);
    }
    // payments/ledger: Auto, hints on, 5/1/1 endpoints, 2 donated (the demo's showcase).
    const ledger = { namespace: 'payments', service: 'ledger' };
    expect(sample(text, 'zonescope_service_hints_reason_info', { ...ledger, reason: 'enabled' })).toBe(1);
    expect(sample(text, 'zonescope_service_info', { ...ledger, topology_mode: 'Auto', traffic_distribution: '' })).toBe(1);
    expect(sample(text, 'zonescope_service_hints_requested', ledger)).toBe(1);
  });

  it('is accepted by promtool check metrics', async () => {
    const text = await scrape();
    const promtool = process.env.PROMTOOL_BIN ?? '/usr/bin/promtool';
    if (!existsSync(promtool)) throw new Error(`promtool not found at ${promtool}; apt-get install prometheus (or set PROMTOOL_BIN)`);
    const result = spawnSync(promtool, ['check', 'metrics'], { input: text, encoding: 'utf8' });
    expect(`${result.stdout}${result.stderr}`).toBe('');
    expect(result.status).toBe(0);
  });

  it('never calls the API server while scraping', async () => {
    await scrape(); // the analysis is computed once per generation either way
    const before = nonWatchRequests(harness().sim);
    for (let i = 0; i < 5; i++) await scrape();
    expect(nonWatchRequests(harness().sim)).toBe(before);
  });

  it('carries no credential from the kubeconfig or the Prometheus settings', async () => {
    const { readFile } = await import('node:fs/promises');
    const kubeconfig = await readFile(harness().kubeconfig, 'utf8');
    const secrets = [...kubeconfig.matchAll(/(?:token|password|client-key-data|client-certificate-data):\s*"?([^\s"]+)/g)].map((m) => m[1] ?? '').filter((s) => s.length >= 8);
    expect(secrets.length).toBeGreaterThan(0);
    // A Prometheus URL with userinfo (nothing listens there: the refresh fails, traffic_source_up 0).
    const saved = process.env.ZONESCOPE_PROMETHEUS_URL;
    const password = 's3cret-metrics-password';
    process.env.ZONESCOPE_PROMETHEUS_URL = `http://scraper:${password}@127.0.0.1:9/`;
    await resetTrafficSource();
    try {
      await eventually(async () => sample(await scrape(), 'zonescope_traffic_source_up') === 0, 10_000, 'the traffic source to fail');
      const text = await scrape();
      for (const secret of [...secrets, password, 'scraper:']) expect(text).not.toContain(secret);
    } finally {
      if (saved === undefined) delete process.env.ZONESCOPE_PROMETHEUS_URL;
      else process.env.ZONESCOPE_PROMETHEUS_URL = saved;
      await resetTrafficSource();
    }
  });

  it('serves only the cluster block, synced 0, during the first sync', async () => {
    const { resetClusterSource } = await import('../../lib/k8s/source');
    await resetClusterSource();
    getClusterSource(); // started, not yet synced
    try {
      const text = await scrape();
      expect(sample(text, 'zonescope_cluster_synced')).toBe(0);
      expect(text).not.toContain('zonescope_service_');
      expect(text).toMatch(/^zonescope_informer_state\{resource="nodes",state="syncing"\} 1$/m);
    } finally {
      await harness().reconnect();
    }
  });

  it('answers 405 with Allow: GET, HEAD to other methods', async () => {
    for (const handler of [POST, DELETE]) {
      const response = handler(new Request('http://localhost:3000/metrics', { method: 'POST' }));
      expect(response.status).toBe(405);
      expect(response.headers.get('allow')).toBe('GET, HEAD');
    }
  });
});
