/**
 * `GET /api/v1/cluster` against the eks-demo scenario on the simulator over real HTTP, plus the
 * 503s before the first sync and without any cluster, 405s and the JSON 404 of unknown API paths;
 * the cluster-wide `traffic` block, the `metrics` status (no Prometheus configured here) and the
 * what-if query parameters.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { getClusterAnalysis } from '../../../../lib/server/analysis';
import { getClusterSource, resetClusterSource } from '../../../../lib/k8s/source';
import * as catchAll from '../../[...path]/route';
import type { ApiErrorResponse, ClusterResponse, ServiceResponse } from '../../../../lib/views/api-types';
import { apiRequest, readJson, harnessForFile, routeContext } from '../_testing/harness';
import { GET as getService } from '../services/[namespace]/[name]/route';
import { DELETE, GET, OPTIONS, PATCH, POST, PUT } from './route';
import { defaultScope } from '../../../../lib/server/clusters';

const harness = harnessForFile();

describe('GET /api/v1/cluster', () => {
  it('returns the analyze cluster object with the release, assumptions and header freshness', async () => {
    const response = GET(apiRequest('/api/v1/cluster'));
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('application/json');
    expect(response.headers.get('cache-control')).toBe('no-store');
    const body = await readJson<ClusterResponse>(response);
    expect(Object.keys(body).sort()).toEqual(['assumptions', 'cluster', 'header', 'kubernetes', 'metrics', 'schema', 'traffic']);
    expect(body.schema).toBe('zonescope.analysis/v1');
    expect(body.kubernetes).toMatchObject({ release: '1.31', minor: 31, source: 'cluster', gitVersion: 'v1.31.4-eks-2d98532', platform: 'eks' });
    expect(Array.isArray(body.assumptions)).toBe(true);
    expect(body.cluster.zones.map((zone) => zone.name)).toEqual(['ap-northeast-2a', 'ap-northeast-2b', 'ap-northeast-2c']);
    expect(body.cluster).toHaveProperty('eligible');
    expect(body.cluster).toHaveProperty('dataplane');
    expect(body.cluster.summary.services).toBeGreaterThan(5);
    expect(body.header).toMatchObject({ mode: 'live', contextName: 'zonescope-sim', readOnly: false, release: '1.31' });
    expect(body.header.freshness).toMatchObject({ synced: true, staleSince: null });
  });

  it('answers 503 syncing:cluster with progress before the first sync', async () => {
    await resetClusterSource();
    getClusterSource(); // started, not yet synced
    const response = GET(apiRequest('/api/v1/cluster'));
    expect(response.status).toBe(503);
    expect(response.headers.get('retry-after')).toBe('2');
    const body = await readJson<ApiErrorResponse>(response);
    expect(body.error.code).toBe('syncing:cluster');
    expect(typeof body.error.message).toBe('string');
    expect(body.progress).toMatchObject({ synced: false });
    expect(Array.isArray(body.progress?.syncing)).toBe(true);
    await harness().reconnect();
    expect(GET(apiRequest('/api/v1/cluster')).status).toBe(200);
  });

  it('answers 503 unavailable:cluster when no cluster is configured', async () => {
    const home = await mkdtemp(path.join(tmpdir(), 'zonescope-home-'));
    try {
      delete process.env.KUBECONFIG;
      process.env.HOME = home;
      await resetClusterSource();
      const response = GET(apiRequest('/api/v1/cluster'));
      expect(response.status).toBe(503);
      const body = await readJson<ApiErrorResponse>(response);
      expect(body.error.code).toBe('unavailable:cluster');
      expect(body.error.message).toMatch(/No cluster configured/);
    } finally {
      await rm(home, { recursive: true, force: true });
      await harness().reconnect();
    }
  });

  it('answers 405 with Allow: GET to every other method', async () => {
    for (const handler of [POST, PUT, PATCH, DELETE, OPTIONS]) {
      const response = handler();
      expect(response.status).toBe(405);
      expect(response.headers.get('allow')).toBe('GET');
      expect((await readJson<ApiErrorResponse>(response)).error.code).toBe('method-not-allowed:cluster');
    }
  });
});

describe('unknown /api paths', () => {
  it('answer a JSON 404 not-found:api for every method', async () => {
    for (const handler of [catchAll.GET, catchAll.POST, catchAll.PUT, catchAll.PATCH, catchAll.DELETE, catchAll.OPTIONS]) {
      const response = handler();
      expect(response.status).toBe(404);
      expect(await response.json()).toEqual({ error: { code: 'not-found:api', message: 'No such API endpoint; see docs/api.md.' } });
    }
    expect(apiRequest('/api/v2/x').url).toBe('http://localhost:3000/api/v2/x');
  });
});

describe('GET /api/v1/cluster: the traffic block and the metrics status', () => {
  const get = async (query = ''): Promise<ClusterResponse> => {
    const response = GET(apiRequest(`/api/v1/cluster${query}`));
    expect(response.status).toBe(200);
    return readJson<ClusterResponse>(response);
  };
  const sum = (matrix: Record<string, Record<string, number>>, cross: boolean) =>
    Object.entries(matrix).reduce((total, [from, row]) => total + Object.entries(row).reduce((t, [to, gb]) => t + (cross && to === from ? 0 : gb), 0), 0);
  const readyEndpoints = async (namespace: string, name: string): Promise<number> => {
    const body = await readJson<ServiceResponse>(await getService(apiRequest(`/api/v1/services/${namespace}/${name}`), routeContext({ namespace, name })));
    return body.observed.readyEndpoints;
  };

  it('without Prometheus: every volume is assumed per ready endpoint, costs follow GB × price × 2, and the status says how to measure', async () => {
    const body = await get();
    const traffic = body.traffic;
    // eks-demo runs on EKS: AWS's price, detected, charged leaving one zone and entering the other.
    expect(traffic.pricing).toMatchObject({ cloud: 'aws', basis: 'detected', directions: 2, costPerCrossZoneGb: 0.02 });
    expect(traffic.priceNote).toMatch(/^AWS \(detected: .+\): \$0\.01\/GB leaving one zone and \$0\.01\/GB entering the other/);
    expect(traffic.zones).toEqual(['ap-northeast-2a', 'ap-northeast-2b', 'ap-northeast-2c']);
    expect(traffic.services).toBeGreaterThan(5);
    expect(traffic.sources.assumed.services).toBe(traffic.services);
    for (const kind of ['measured-flows', 'measured-pod-bytes', 'set'] as const) expect(traffic.sources[kind]).toEqual({ services: 0, gbPerMonth: 0 });
    expect(traffic.measuredAt).toBeNull();
    expect(traffic.quality).toBeNull();
    expect(traffic.measuredInterZoneGbPerMonth).toBeNull();
    for (const scenario of ['now', 'expected', 'best'] as const) {
      const totals = traffic.totals[scenario];
      // The flows picture and the totals are the same cross-zone traffic (the flows leave out what
      // is never delivered, e.g. internalTrafficPolicy: Local from nodes without a local endpoint).
      expect(sum(traffic.flows[scenario], true)).toBeCloseTo(totals.crossZoneGbPerMonth, 6);
      expect(sum(traffic.flows[scenario], false)).toBeLessThanOrEqual(totals.gbPerMonth + 1e-6);
      expect(totals.monthlyCost).toBeCloseTo(totals.crossZoneGbPerMonth * 0.01 * 2, 6);
    }
    expect(traffic.totals.now.gbPerMonth).toBeCloseTo(traffic.sources.assumed.gbPerMonth, 6);
    expect(traffic.totals.now.crossZoneGbPerMonth).toBeGreaterThan(0);
    expect(traffic.saving.best).toBeCloseTo(traffic.totals.now.monthlyCost - traffic.totals.best.monthlyCost, 6);
    expect(traffic.saving.expected).toBeCloseTo(traffic.totals.now.monthlyCost - traffic.totals.expected.monthlyCost, 6);

    // The costliest Services first, each volume labelled with its assumption and equal to 50 GB × its ready endpoints.
    expect(traffic.topByCost.length).toBeGreaterThan(0);
    const costs = traffic.topByCost.map((row) => row.monthlyCost);
    expect(costs).toEqual([...costs].sort((a, b) => b - a));
    for (const row of traffic.topByCost.slice(0, 3)) {
      expect(row.volume.source.kind).toBe('assumed');
      expect(row.volume.source.label).toMatch(/^assumed: /);
      expect(row.volume.gbPerMonth).toBeCloseTo(50 * (await readyEndpoints(row.namespace, row.name)), 6);
      expect(row.monthlyCost).toBeCloseTo(row.crossZoneGbPerMonth * 0.02, 6);
      expect(row.crossZoneFraction).toBe(row.predictedCrossZoneFraction);
    }
    for (const row of traffic.topBySaving) expect(row.saving).toBeGreaterThan(0);

    expect(body.metrics).toMatchObject({ state: 'not-configured', url: null, window: '7d', lastSuccessAt: null, queriesIssued: 0 });
    expect(body.metrics.hint).toContain('ZONESCOPE_PROMETHEUS_URL');
    expect(body.header.metrics).toEqual(body.metrics);
  });

  it('what-ifs recompute only the traffic block: price scales the cost, per-endpoint and flat volumes the GB', async () => {
    const base = await get();
    const now = base.traffic.totals.now;

    const pricier = await get('?pricePerGb=0.02');
    expect(pricier.traffic.pricing).toMatchObject({ basis: 'set', costPerCrossZoneGb: 0.04 });
    expect(pricier.traffic.totals.now.gbPerMonth).toBeCloseTo(now.gbPerMonth, 6);
    expect(pricier.traffic.totals.now.monthlyCost).toBeCloseTo(now.monthlyCost * 2, 6);
    expect(pricier.traffic.saving.best).toBeCloseTo(base.traffic.saving.best * 2, 6);

    // The same cluster priced as Google Cloud (once, per GiB) and Azure (not charged).
    const gcp = await get('?price=gcp');
    expect(gcp.traffic.totals.now.monthlyCost).toBeCloseTo((now.monthlyCost / 2) * (1e9 / 2 ** 30), 6);
    const azure = await get('?price=azure');
    expect(azure.traffic.totals.now.monthlyCost).toBe(0);
    expect(azure.traffic.priceNote).toContain('not charged');
    const bad = GET(apiRequest('/api/v1/cluster?price=cheap'));
    expect(bad.status).toBe(400);
    expect((await readJson<{ error: { message: string } }>(bad)).error.message).toContain('price must be aws, gcp, azure, or a price such as "0.01/GB x2"');

    const bigger = await get('?gbPerEndpoint=100');
    expect(bigger.traffic.totals.now.gbPerMonth).toBeCloseTo(now.gbPerMonth * 2, 6);
    expect(bigger.traffic.totals.now.crossZoneFraction).toBeCloseTo(now.crossZoneFraction, 9);
    expect(bigger.traffic.totals.now.monthlyCost).toBeCloseTo(now.monthlyCost * 2, 6);

    const flat = await get('?gbPerService=10&pricePerGb=0');
    expect(flat.traffic.totals.now.gbPerMonth).toBeCloseTo(10 * flat.traffic.services, 6);
    expect(flat.traffic.totals.now.monthlyCost).toBe(0);
    for (const row of flat.traffic.topByCost) expect(row.volume.gbPerMonth).toBe(10);

    // Everything but the traffic block is the same answer; the shared block is unchanged afterwards.
    for (const answer of [pricier, bigger, flat]) {
      expect(answer.cluster).toEqual(base.cluster);
      expect(answer.metrics).toEqual(base.metrics);
    }
    expect((await get()).traffic).toEqual(base.traffic);
  });

  it('serialises the analysis once yet answers with the cluster as it is now: a new Service shows up in the next analysis', async () => {
    const base = await get();
    // The analysis's own objects, as JSON: the memoised serialisation leaves nothing out and adds nothing.
    const analysis = getClusterAnalysis(defaultScope().source);
    expect(analysis).not.toBeNull();
    expect(base.cluster).toEqual(JSON.parse(JSON.stringify(analysis?.cluster)));
    expect(base.header).toMatchObject({ mode: 'live', freshness: { synced: true } });

    harness().sim.store.create('services', {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'memo-check', namespace: 'default' },
      spec: { type: 'ClusterIP', selector: { app: 'memo-check' }, ports: [{ port: 80, protocol: 'TCP' }] },
    });
    const deadline = Date.now() + 10_000;
    let after = await get();
    while (after.cluster.summary.services === base.cluster.summary.services && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      after = await get();
    }
    expect(after.cluster.summary.services).toBe(base.cluster.summary.services + 1);
    expect(after.cluster.summary.byMechanism.none).toBe(base.cluster.summary.byMechanism.none + 1);
    expect(after.cluster).toEqual(JSON.parse(JSON.stringify(getClusterAnalysis(defaultScope().source)?.cluster)));
    harness().sim.store.delete('services', 'default', 'memo-check');
  });

  it.each([
    ['?pricePerGb=101', 'pricePerGb must be a plain decimal number from 0 to 100 (USD per cross-zone GB in each direction); got "101".'],
    ['?gbPerEndpoint=-5', 'gbPerEndpoint must be a plain decimal number from 0 to 1000000000 (GB per ready endpoint per month); got "-5".'],
    ['?gbPerService=lots', 'gbPerService must be a plain decimal number from 0 to 1000000000 (GB per Service per month); got "lots".'],
    ['?gbPerMonth=10', 'Unknown query parameter "gbPerMonth"; known: gbPerEndpoint, gbPerService, price, pricePerGb.'],
    ['?pricePerGb=0.01&pricePerGb=0.02', 'The query parameter "pricePerGb" is given more than once.'],
  ])('refuses %s with 400 bad-request:cluster naming the parameter', async (query, message) => {
    const response = GET(apiRequest(`/api/v1/cluster${query}`));
    expect(response.status).toBe(400);
    expect(await readJson<ApiErrorResponse>(response)).toEqual({ error: { code: 'bad-request:cluster', message } });
  });
});
