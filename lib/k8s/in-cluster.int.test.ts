/**
 * In-cluster mode end to end: the environment a Pod gets (KUBERNETES_SERVICE_HOST/PORT) and a
 * service-account folder (token, ca.crt, namespace) written to a temp dir and named by
 * ZONESCOPE_SERVICEACCOUNT_DIR, against the simulator with TLS and a required token.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Simulator } from '../../sim/server';
import { startSimulator } from '../../sim/server';
import { node, podEnvironment, service } from '../../sim/test-support';
import { LiveClusterSource } from './cluster-sources/live-source';
import { createClusterSource } from './cluster-sources/create-source';
import { createConnection } from './connection';
import { connectionOptionsFromEnv } from './connection-options';
import { DEFAULT_SERVICEACCOUNT_DIR } from './in-cluster';
import { configFromEnv } from '../config/config';

const root = mkdtempSync(path.join(tmpdir(), 'zonescope-in-cluster-'));
const home = path.join(root, 'home');
let sim: Simulator;
let saDir: string;

beforeAll(async () => {
  sim = await startSimulator({ objects: [node('node-a', 'zone-a'), node('node-b', 'zone-b'), service('web', 'shop')], tls: true, auth: 'token', token: 'sa-token-one', log: () => undefined });
  saDir = path.join(root, 'serviceaccount');
  podEnvironment(sim, saDir, 'shop');
}, 15_000);
afterEach(() => vi.useRealTimers());
afterAll(async () => {
  await sim.stop();
  rmSync(root, { recursive: true, force: true });
});

const podEnv = (extra: Record<string, string> = {}): Record<string, string> => ({
  KUBERNETES_SERVICE_HOST: '127.0.0.1',
  KUBERNETES_SERVICE_PORT: String(sim.port),
  ZONESCOPE_SERVICEACCOUNT_DIR: saDir,
  HOME: home,
  ...extra,
});

describe('in-cluster', () => {
  it('reads the cluster with the service account of ZONESCOPE_SERVICEACCOUNT_DIR over TLS', async () => {
    const state = createClusterSource(configFromEnv(podEnv()), { live: { resources: ['nodes', 'services'] } });
    expect(state).toBeInstanceOf(LiveClusterSource);
    expect(state.contextName).toBe('inClusterContext');
    expect(state.serverUrl).toBe(`https://127.0.0.1:${sim.port}`);
    state.start();
    try {
      expect(await state.waitForSync(5000)).toBe(true);
      expect([...state.index().nodesByName.keys()].sort()).toEqual(['node-a', 'node-b']);
      expect(state.index().servicesByKey.has('shop/web')).toBe(true);
    } finally {
      await state.stop();
    }
  });

  it('uses the namespace file as the default namespace and re-reads a rotated token', { timeout: 15_000 }, async () => {
    const options = connectionOptionsFromEnv(configFromEnv(podEnv()));
    if (options === null) throw new Error('no options');
    const result = createConnection(options);
    if (!result.ok) throw new Error(result.message);
    const { connection } = result;
    expect(connection.source).toBe('in-cluster');
    expect(connection.kubeConfig.getContextObject(connection.contextName)?.namespace).toBe('shop');
    expect((await connection.request({ path: '/api/v1/nodes' })).status).toBe(200);

    // The kubelet rotates the projected token: accepted again once the file is re-read.
    sim.rotateToken('sa-token-two');
    writeFileSync(path.join(saDir, 'token'), 'sa-token-two');
    try {
      expect((await connection.request({ path: '/api/v1/nodes' })).status).toBe(401);
      vi.useFakeTimers({ toFake: ['Date'] });
      vi.setSystemTime(new Date(Date.now() + 61_000));
      expect((await connection.request({ path: '/api/v1/nodes' })).status).toBe(200);
    } finally {
      sim.rotateToken('sa-token-one');
      writeFileSync(path.join(saDir, 'token'), 'sa-token-one');
    }
  });

  it('says what is missing: the port, the token (naming the folder variable)', () => {
    expect(createClusterSource(configFromEnv({ KUBERNETES_SERVICE_HOST: '127.0.0.1', HOME: home })).problems()).toEqual([
      'Cannot use the in-cluster service account: KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT must both be set (Kubernetes sets them in every Pod).',
    ]);
    const empty = path.join(root, 'empty-sa');
    expect(createClusterSource(configFromEnv(podEnv({ ZONESCOPE_SERVICEACCOUNT_DIR: empty }))).problems()).toEqual([
      `Cannot load the in-cluster service account: ${path.join(empty, 'token')} cannot be read (ENOENT).`,
    ]);
    // Without the variable, the standard mount point (absent here), with a hint.
    const env: Record<string, string> = podEnv();
    delete env.ZONESCOPE_SERVICEACCOUNT_DIR;
    expect(createClusterSource(configFromEnv(env)).problems()).toEqual([
      `Cannot load the in-cluster service account: ${path.join(DEFAULT_SERVICEACCOUNT_DIR, 'token')} cannot be read (ENOENT). Is a service-account token mounted (automountServiceAccountToken)? ZONESCOPE_SERVICEACCOUNT_DIR names another folder.`,
    ]);
  });
});
