/**
 * A kubeconfig pointing at a plain http:// API server, as `kubectl proxy` serves one, without
 * `insecure-skip-tls-verify`: kubectl connects to it as it is, and so does zonescope — through
 * client-node's generated clients too, which refuse plain HTTP unless TLS verification is
 * skipped (there is nothing to verify).
 */
import { stringify } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Simulator } from '../../sim/server';
import { startSimulator } from '../../sim/server';
import { service } from '../../sim/test-support';
import { createConnection } from './connection';
import { readServiceAnnotations } from './mutations';

let sim: Simulator;

beforeAll(async () => {
  sim = await startSimulator({ objects: [service('web', 'shop')], log: () => undefined });
});

afterAll(async () => {
  await sim.stop();
});

describe('a plain http:// server without insecure-skip-tls-verify', () => {
  it('is read as kubectl reads it', async () => {
    const kubeconfigText = stringify({
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [{ name: 'proxy', cluster: { server: sim.url } }],
      users: [{ name: 'nobody', user: {} }],
      contexts: [{ name: 'kubectl-proxy', context: { cluster: 'proxy', user: 'nobody' } }],
      'current-context': 'kubectl-proxy',
    });
    expect(sim.url.startsWith('http://')).toBe(true);
    const result = createConnection({ kubeconfigText });
    if (!result.ok) throw new Error(result.message);
    const read = await readServiceAnnotations(result.connection, 'shop', 'web');
    expect(read.ok).toBe(true);
  });
});
