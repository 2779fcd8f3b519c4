/**
 * The Service API with measured traffic: eks-demo on the simulator, a real Prometheus scraping its
 * Beyla- and cAdvisor-style counters, the process-wide traffic source reading it. shop/catalog is
 * measured keep-alive skewed (far more cross-zone than predicted) and says which causes fit;
 * platform/auth has pod bytes only (volume measured, no comparison); kube-system/kube-dns has
 * nothing (assumed). The request sample of a measured Service carries its zone's measured split.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RequestSampleResponse as RequestSampleView, ServiceResponse } from '../../../../../../lib/views/api-types';
import { getTrafficSource, resetTrafficSource } from '../../../../../../lib/prometheus/traffic-source';
import type { RunningPrometheus } from '../../../../../../sim/prometheus';
import { startPrometheus } from '../../../../../../sim/prometheus';
import { apiRequest, eventually, harnessForFile, readJson, routeContext } from '../../../_testing/harness';
import { GET as getSample } from './request-sample/route';
import { GET } from './route';

const harness = harnessForFile();
const ENV = ['ZONESCOPE_PROMETHEUS_URL', 'ZONESCOPE_PROMETHEUS_WINDOW', 'ZONESCOPE_PROMETHEUS_REFRESH_SECONDS', 'ZONESCOPE_PROMETHEUS_TIMEOUT_MS'] as const;
const saved: Record<string, string | undefined> = {};
let prometheus: RunningPrometheus | null = null;
let dir = '';

beforeAll(async () => {
  for (const key of ENV) saved[key] = process.env[key];
  dir = await mkdtemp(path.join(tmpdir(), 'zonescope-service-measured-'));
  prometheus = await startPrometheus({ scrapeTargets: [`127.0.0.1:${harness().sim.port}`], metricsPath: '/__sim/metrics', scrapeIntervalSeconds: 1, dataDir: path.join(dir, 'prometheus') });
  process.env.ZONESCOPE_PROMETHEUS_URL = prometheus.url;
  process.env.ZONESCOPE_PROMETHEUS_WINDOW = '5s';
  process.env.ZONESCOPE_PROMETHEUS_REFRESH_SECONDS = '1';
  process.env.ZONESCOPE_PROMETHEUS_TIMEOUT_MS = '2000';
  await resetTrafficSource();
  await prometheus.waitForSeries('beyla_network_flow_bytes_total', 15_000);
  // A rate needs two samples in its window; wait until the source answers with flows.
  await eventually(
    async () => {
      await getTrafficSource().refresh();
      return getTrafficSource().status().state === 'ok';
    },
    20_000,
    'the traffic source to measure flows',
  );
}, 60_000);

afterAll(async () => {
  await resetTrafficSource();
  await prometheus?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
  for (const key of ENV) {
    const value = saved[key];
    if (value === undefined) Reflect.deleteProperty(process.env, key);
    else process.env[key] = value;
  }
});

async function service(namespace: string, name: string, query = ''): Promise<ServiceResponse> {
  const response = await GET(apiRequest(`/api/v1/services/${namespace}/${name}${query}`), routeContext({ namespace, name }));
  expect(response.status).toBe(200);
  return readJson<ServiceResponse>(response);
}

describe('the Service API with measured traffic', () => {
  it('shop/catalog: measured flows, far above the prediction, long-lived connections fit', async () => {
    expect(getTrafficSource().status().state).toBe('ok');
    const body = await service('shop', 'catalog');
    expect(body.traffic.volume.source).toMatchObject({ kind: 'measured-flows', label: 'measured: beyla_network_flow_bytes_total, rate over 5s', metric: 'beyla_network_flow_bytes_total', window: '5s' });
    const comparison = body.measuredVsPredicted;
    expect(comparison).not.toBeNull();
    expect(comparison?.agrees).toBe(false);
    expect(comparison?.differencePoints).toBeGreaterThan(5);
    expect(comparison?.causes.find((c) => c.id === 'keep-alive')?.fits).toBe(true);
    expect(comparison?.causes[0]?.fits).toBe(true);
    // The cost now is at the measured share: cross-zone GB of the measured matrix × $0.01 × 2.
    const matrix = body.traffic.volume.measuredMatrix ?? {};
    let cross = 0;
    for (const [from, row] of Object.entries(matrix)) for (const [to, gb] of Object.entries(row)) if (from !== to) cross += gb;
    expect(body.traffic.monthlyCost.now.monthlyCost).toBeCloseTo(cross * 0.01 * 2, 6);
    // A what-if volume still wins, and is said to be one.
    const whatIf = await service('shop', 'catalog', '?gbPerMonth=1000');
    expect(whatIf.traffic.volume.source).toMatchObject({ kind: 'set', label: 'set here (what-if)' });
  });

  it('platform/auth: pod bytes only — volume measured, no comparison; kube-system/kube-dns: assumed', async () => {
    const auth = await service('platform', 'auth');
    expect(auth.traffic.volume.source.kind).toBe('measured-pod-bytes');
    expect(auth.traffic.volume.source.label).toContain('(zone split modelled)');
    expect(auth.measuredVsPredicted).toBeNull();
    const dns = await service('kube-system', 'kube-dns');
    expect(dns.traffic.volume.source.kind).toBe('assumed');
    expect(dns.measuredVsPredicted).toBeNull();
  });

  it('the request sample of shop/catalog from zone a carries that zone’s measured split', async () => {
    const detail = await service('shop', 'catalog');
    const response = await getSample(apiRequest('/api/v1/services/shop/catalog/request-sample?zone=ap-northeast-2a'), routeContext({ namespace: 'shop', name: 'catalog' }));
    expect(response.status).toBe(200);
    const body = await readJson<RequestSampleView>(response);
    const row = detail.traffic.volume.measuredMatrix?.['ap-northeast-2a'] ?? {};
    const total = Object.values(row).reduce((a, b) => a + b, 0);
    expect(body.measured?.metric).toBe('beyla_network_flow_bytes_total');
    expect(body.measured?.byZone.reduce((s, z) => s + z.share, 0)).toBeCloseTo(1, 9);
    for (const z of body.measured?.byZone ?? []) expect(z.share).toBeCloseTo((row[z.zone] ?? 0) / total, 2);
    expect(body.measured?.byZone.find((z) => z.sameZone)?.zone).toBe('ap-northeast-2a');
  });
});
