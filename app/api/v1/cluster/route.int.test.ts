/**
 * `GET /api/v1/cluster` against the eks-demo scenario on the simulator over real HTTP, plus the
 * 503s before the first sync and without any cluster, 405s and the JSON 404 of unknown API paths.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { getClusterSource, resetClusterSource } from '../../../../lib/k8s/source';
import * as catchAll from '../../[...path]/route';
import type { ApiErrorResponse, ClusterResponse } from '../../../../lib/data/api-types';
import { apiRequest, readJson, harnessForFile } from '../_testing/harness';
import { DELETE, GET, OPTIONS, PATCH, POST, PUT } from './route';

const harness = harnessForFile();

describe('GET /api/v1/cluster', () => {
  it('returns the analyze cluster object with the release, assumptions and header freshness', async () => {
    const response = GET();
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('application/json');
    expect(response.headers.get('cache-control')).toBe('no-store');
    const body = await readJson<ClusterResponse>(response);
    expect(Object.keys(body).sort()).toEqual(['assumptions', 'cluster', 'header', 'kubernetes', 'schema']);
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
    const response = GET();
    expect(response.status).toBe(503);
    expect(response.headers.get('retry-after')).toBe('2');
    const body = await readJson<ApiErrorResponse>(response);
    expect(body.error.code).toBe('syncing:cluster');
    expect(typeof body.error.message).toBe('string');
    expect(body.progress).toMatchObject({ synced: false });
    expect(Array.isArray(body.progress?.syncing)).toBe(true);
    await harness().reconnect();
    expect(GET().status).toBe(200);
  });

  it('answers 503 unavailable:cluster when no cluster is configured', async () => {
    const home = await mkdtemp(path.join(tmpdir(), 'zonescope-home-'));
    try {
      delete process.env.KUBECONFIG;
      process.env.HOME = home;
      await resetClusterSource();
      const response = GET();
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
