/**
 * A rotated bearer token (a projected service-account token refreshed by the kubelet, or a
 * kubeconfig `tokenFile`): once the API server accepts only the new token, the watches must come
 * back with it — the data goes stale in between, never phantom — and converge.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterEach, describe, expect, it, vi } from 'vitest';

import type { Simulator } from '../../sim/server';
import { startSimulator } from '../../sim/server';
import type { KubeObject } from '../../sim/types';
import { LiveClusterSource } from './cluster-sources/live-source';
import { createConnection } from './connection';

const running: { stop(): Promise<void> }[] = [];
afterEach(async () => {
  vi.useRealTimers();
  for (const item of running.splice(0)) await item.stop();
});

const service = (name: string, labels: Record<string, string> = {}): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Service',
  metadata: { name, namespace: 'default', labels },
  spec: { selector: { app: name }, ports: [{ port: 80 }] },
});

async function waitFor(check: () => boolean, what: string, timeoutMs = 8000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

describe('token rotation', () => {
  it('re-reads the token file and converges after the server starts refusing the old token', { timeout: 20_000 }, async () => {
    const sim: Simulator = await startSimulator({ objects: [service('web')], requireToken: true, token: 'token-one' });
    running.push(sim);
    const dir = mkdtempSync(join(tmpdir(), 'zonescope-token-'));
    const tokenFile = join(dir, 'token');
    writeFileSync(tokenFile, 'token-one');
    const kubeconfigText = [
      'apiVersion: v1',
      'kind: Config',
      'clusters: [{name: sim, cluster: {server: "' + sim.url + '", insecure-skip-tls-verify: true}}]',
      'users: [{name: sa, user: {auth-provider: {name: token-file, config: {tokenFile: "' + tokenFile + '"}}}}]',
      'contexts: [{name: sim, context: {cluster: sim, user: sa}}]',
      'current-context: sim',
      '',
    ].join('\n');
    const connection = createConnection({ kubeconfigText, requestTimeoutMs: 2000 });
    if (!connection.ok) throw new Error(connection.message);
    const state = new LiveClusterSource(connection.connection, { resources: ['services'], informer: { backoff: { initialMs: 20, maxMs: 100 } } });
    running.push(state);
    state.start();
    expect(await state.waitForSync(5000)).toBe(true);

    // 1. Rotate: the server now only accepts the new token; the file already holds it.
    sim.rotateToken('token-two');
    writeFileSync(tokenFile, 'token-two');
    sim.faults.dropWatches();
    sim.store.create('services', service('api'));
    // client-node re-reads a token file at most once a minute: until then requests are refused.
    await waitFor(() => state.status('services').health === 'stale', 'the 401 to mark services stale');
    expect(state.status('services').error?.kind).toBe('unauthorized');
    expect(state.index().servicesByKey.has('default/web')).toBe(true);

    // 2. A minute later the new token is read and the cache converges, with no phantom.
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(new Date(Date.now() + 61_000));
    await waitFor(() => state.status('services').health === 'synced' && state.index().servicesByKey.has('default/api'), 'convergence with the new token');
    expect([...state.index().servicesByKey.keys()].sort()).toEqual(['default/api', 'default/web']);
  });
});
