/**
 * `GET /api/v1/cluster` when the first sync fails permanently (here: a token the simulator
 * refuses): 503 `unavailable:cluster` with the cause within a couple of seconds, not "still
 * reading the cluster" until the sync timeout. Transient failures keep answering `syncing`.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ApiErrorResponse } from '../../../../lib/views/api-types';
import { getClusterSource, resetClusterSource } from '../../../../lib/k8s/source';
import type { Simulator } from '../../../../sim/server';
import { startSimulator } from '../../../../sim/server';
import { apiRequest, readJson } from '../_testing/harness';
import { GET } from './route';

const KEYS = ['KUBECONFIG', 'ZONESCOPE_SNAPSHOT', 'ZONESCOPE_CONTEXT', 'KUBERNETES_SERVICE_HOST'] as const;
const saved = Object.fromEntries(KEYS.map((key) => [key, process.env[key]]));
const cleanups: (() => Promise<void>)[] = [];

afterEach(async () => {
  await resetClusterSource();
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  for (const key of KEYS) {
    const value = saved[key];
    if (value === undefined) Reflect.deleteProperty(process.env, key);
    else process.env[key] = value;
  }
});

async function pointAt(sim: Simulator, token: string): Promise<void> {
  const dir = await mkdtemp(path.join(tmpdir(), 'zonescope-failfast-api-'));
  cleanups.push(() => rm(dir, { recursive: true, force: true }));
  const file = path.join(dir, 'kubeconfig');
  await writeFile(file, sim.kubeconfig().replace(/token: .*/, `token: ${token}`));
  for (const key of KEYS) Reflect.deleteProperty(process.env, key);
  process.env.KUBECONFIG = file;
  await resetClusterSource();
}

async function errorWithin(ms: number, until: (body: ApiErrorResponse) => boolean): Promise<ApiErrorResponse> {
  const deadline = Date.now() + ms;
  for (;;) {
    const response = GET(apiRequest('/api/v1/cluster'));
    const body = await readJson<ApiErrorResponse>(response);
    if (until(body) || Date.now() > deadline) return body;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('GET /api/v1/cluster on a permanent failure', () => {
  it('answers 503 unavailable:cluster with the cause when the token is refused', async () => {
    const sim = await startSimulator({ port: 0, log: () => undefined, requireToken: true, token: 'the-right-token' });
    cleanups.push(() => sim.stop());
    await pointAt(sim, 'a-wrong-token');
    getClusterSource();
    const started = Date.now();
    const body = await errorWithin(3000, (b) => b.error.code !== 'syncing:cluster');
    expect(Date.now() - started).toBeLessThan(3000);
    expect(body.error.code).toBe('unavailable:cluster');
    expect(body.error.message).toBe('The API server rejected the credentials (401 Unauthorized): check the token or client certificate of the kubeconfig user, or get new ones.');
    expect(body.progress?.stale.every((entry) => entry.permanent)).toBe(true);
    expect(JSON.stringify(body)).not.toContain('a-wrong-token');
  });
});
