/**
 * `GET /api/v1/cluster/generation` against the eks-demo scenario on the simulator over real HTTP:
 * the shape, a change made in the cluster by another client (kubectl scale) moving the generation,
 * a watch going down changing the health, the answer before the first sync, and the cost of a
 * poll — no API server request and no analysis.
 */
import { describe, expect, it } from 'vitest';
import { getClusterAnalysis } from '../../../../../lib/server/analysis';
import { getRenderedLiveMark } from '../../../../../lib/views/header';
import type { ApiErrorResponse, ClusterGenerationResponse } from '../../../../../lib/views/api-types';
import { healthKey, isBehind } from '../../../../../lib/shared/live-refresh';
import { getClusterSource, resetClusterSource } from '../../../../../lib/k8s/source';
import { DEFAULT_TOKEN } from '../../../../../sim/server';
import { eventually, harnessForFile, nonWatchRequests, readJson } from '../../_testing/harness';
import { DELETE, GET, OPTIONS, PATCH, POST, PUT } from './route';
import { defaultScope } from '../../../../../lib/server/clusters';

const harness = harnessForFile();

/** A request to the simulator as another client (kubectl) would make it. */
async function simCall(path: string, init: { method: string; body?: unknown; contentType?: string }): Promise<void> {
  const response = await fetch(`${harness().sim.url}${path}`, {
    method: init.method,
    headers: { Authorization: `Bearer ${DEFAULT_TOKEN}`, ...(init.body !== undefined ? { 'Content-Type': init.contentType ?? 'application/json' } : {}) },
    ...(init.body !== undefined ? { body: JSON.stringify(init.body) } : {}),
  });
  if (!response.ok) throw new Error(`simulator ${init.method} ${path}: ${response.status} ${await response.text()}`);
}

/** `kubectl scale deployment/<name> --replicas=N`: a merge patch of the scale subresource. */
function scale(namespace: string, name: string, replicas: number): Promise<void> {
  return simCall(`/apis/apps/v1/namespaces/${namespace}/deployments/${name}/scale`, { method: 'PATCH', body: { spec: { replicas } }, contentType: 'application/merge-patch+json' });
}

async function generation(): Promise<ClusterGenerationResponse> {
  const response = GET(new Request('http://localhost/api/v1/cluster/generation'));
  expect(response.status).toBe(200);
  return readJson<ClusterGenerationResponse>(response);
}

describe('GET /api/v1/cluster/generation', () => {
  it('answers the generation, whether synced, and the health of every resource type, uncached', async () => {
    const response = GET(new Request('http://localhost/api/v1/cluster/generation'));
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('application/json');
    expect(response.headers.get('cache-control')).toBe('no-store');
    const body = await readJson<ClusterGenerationResponse>(response);
    expect(Object.keys(body).sort()).toEqual(['generation', 'health', 'mode', 'resources', 'synced']);
    expect(body.mode).toBe('live');
    expect(body.synced).toBe(true);
    expect(Number.isInteger(body.generation)).toBe(true);
    expect(body.generation).toBeGreaterThan(0);
    expect(body.resources.map((r) => r.resource)).toEqual(expect.arrayContaining(['nodes', 'services', 'endpointslices', 'pods', 'deployments', 'events']));
    for (const r of body.resources) expect(['synced', 'forbidden']).toContain(r.health);
    // No Prometheus is configured here; the metrics state is part of the key.
    expect(body.health).toBe(`${healthKey(true, body.resources)}|metrics:not-configured`);
    // Small enough to poll every 2 s from many browsers.
    expect(JSON.stringify(body).length).toBeLessThan(1_000);
  });

  it('moves when the cluster is changed by another client (kubectl scale), and the page mark is then behind', async () => {
    const before = await generation();
    const page = getRenderedLiveMark(defaultScope());
    expect(isBehind(page, before)).toBe(false);

    await scale('shop', 'cart', 3);
    try {
      const after = await eventually(async () => {
        const now = await generation();
        return now.generation > before.generation ? now : null;
      }, 10_000, 'the generation to move after kubectl scale');
      expect(after.health).toBe(before.health);
      expect(isBehind(page, after)).toBe(true);
      // The Deployment's pods, then the EndpointSlice: the cache follows the watch to 3 ready endpoints.
      await eventually(() => (getClusterSource().index().slicesByService.get('shop/cart') ?? []).flatMap((s) => s.endpoints).filter((e) => e.ready).length === 3, 10_000, 'three ready cart endpoints');
    } finally {
      await scale('shop', 'cart', 2);
    }
  });

  it('costs a poll no API server request and no analysis, however often it is asked', async () => {
    const sim = harness().sim;
    const analysis = getClusterAnalysis(defaultScope().source);
    expect(analysis).not.toBeNull();
    const start = await generation();
    // A change the memoised analysis has not seen yet.
    await scale('shop', 'catalog', 5);
    try {
      await eventually(async () => (await generation()).generation > start.generation, 10_000, 'the generation to move');
      const requestsBefore = nonWatchRequests(sim);
      const memoBefore = analysisMemo();
      for (let i = 0; i < 200; i++) await generation();
      expect(nonWatchRequests(sim)).toBe(requestsBefore);
      // The per-generation memo was not rebuilt for the new generation: polls never analyse.
      expect(analysisMemo()).toBe(memoBefore);
      expect(analysisMemo()?.generation).toBeLessThan((await generation()).generation);
    } finally {
      await scale('shop', 'catalog', 4);
    }
  });

  it('changes its health when a watch goes down, so open pages re-render to show the stale banner', async () => {
    const before = await generation();
    await simCall('/__sim/faults', { method: 'POST', body: { rules: [{ type: 'error', code: 503, message: 'injected: the API server is down', resources: ['nodes'] }] } });
    try {
      await simCall('/__sim/watches/drop', { method: 'POST', body: { resource: 'nodes' } });
      const after = await eventually(async () => {
        const now = await generation();
        return now.resources.some((r) => r.resource === 'nodes' && r.health === 'stale') ? now : null;
      }, 20_000, 'nodes to go stale');
      expect(after.health).not.toBe(before.health);
      expect(isBehind({ generation: after.generation, health: before.health, synced: true }, after)).toBe(true);
    } finally {
      await simCall('/__sim/faults', { method: 'DELETE' });
      await harness().reconnect();
    }
  }, 30_000);

  it('answers before the first sync, with synced false', async () => {
    await resetClusterSource();
    getClusterSource(); // started, not yet synced
    try {
      const body = await generation();
      expect(body.synced).toBe(false);
      expect(body.health.startsWith('syncing|')).toBe(true);
      expect(body.resources.some((r) => r.health === 'syncing')).toBe(true);
    } finally {
      await harness().reconnect();
    }
    expect((await generation()).synced).toBe(true);
  });

  it('answers 405 with Allow: GET and the error envelope to every other method', async () => {
    for (const handler of [POST, PUT, PATCH, DELETE, OPTIONS]) {
      const response = handler();
      expect(response.status).toBe(405);
      expect(response.headers.get('allow')).toBe('GET');
      const body = await readJson<ApiErrorResponse>(response);
      expect(body.error.code).toBe('method-not-allowed:cluster');
      expect(typeof body.error.message).toBe('string');
    }
  });
});

/** The process-wide analysis memo of lib/server/analysis.ts (read, not replaced). */
function analysisMemo(): { readonly generation: number } | undefined {
  return (globalThis as unknown as Record<symbol, { readonly generation: number } | undefined>)[Symbol.for('zonescope.analysisMemo')];
}
