import { ApiException, CoreV1Api, KubeConfig, Watch } from '@kubernetes/client-node';
import { afterEach, describe, expect, it } from 'vitest';
import type { Simulator, SimulatorOptions } from './server';
import { startSimulator } from './server';
import { parseStatus, service, waitFor } from './test-support';

const running: Simulator[] = [];

afterEach(async () => {
  await Promise.all(running.splice(0).map((sim) => sim.stop()));
});

async function start(options: SimulatorOptions = {}): Promise<{ sim: Simulator; core: CoreV1Api; kc: KubeConfig }> {
  const sim = await startSimulator({ port: 0, log: () => undefined, objects: ['a', 'b', 'c', 'd'].map((n) => service(n)), ...options });
  running.push(sim);
  const kc = new KubeConfig();
  kc.loadFromString(sim.kubeconfig());
  return { sim, core: kc.makeApiClient(CoreV1Api), kc };
}

async function codeOf(promise: Promise<unknown>): Promise<number> {
  try {
    await promise;
    return 200;
  } catch (error) {
    if (error instanceof ApiException) return error.code;
    throw error;
  }
}

async function control(sim: Simulator, method: string, path: string, body?: unknown): Promise<{ status: number; json: Record<string, unknown> }> {
  const res = await fetch(`${sim.url}/__sim/${path}`, {
    method,
    headers: { 'Content-Type': 'application/json' },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  return { status: res.status, json: (await res.json()) as Record<string, unknown> };
}

describe('error injection', () => {
  it('fails the next K matching requests with the given code, then recovers', async () => {
    const { sim, core } = await start();
    sim.faults.add({ type: 'error', code: 503, verb: 'list', resource: 'services', count: 2 });
    expect(await codeOf(core.listNamespacedService({ namespace: 'default' }))).toBe(503);
    expect(await codeOf(core.readNamespacedService({ name: 'a', namespace: 'default' }))).toBe(200);
    expect(await codeOf(core.listNamespacedService({ namespace: 'default' }))).toBe(503);
    expect(await codeOf(core.listNamespacedService({ namespace: 'default' }))).toBe(200);
    expect(sim.faults.list()).toEqual([]);
    expect(sim.stats.count('list', 'services')).toBe(3);
    expect(sim.stats.responsesWith(503)).toBe(2);
  });

  it('answers 429 with Retry-After and a TooManyRequests Status', async () => {
    const { sim } = await start();
    await control(sim, 'POST', 'faults', { rules: [{ type: 'error', code: 429, retryAfterSeconds: 3, verbs: ['get'] }] });
    const res = await fetch(`${sim.url}/api/v1/namespaces/default/services/a`);
    expect(res.status).toBe(429);
    expect(res.headers.get('retry-after')).toBe('3');
    expect(await res.json()).toMatchObject({ kind: 'Status', reason: 'TooManyRequests', code: 429, details: { retryAfterSeconds: 3 } });
  });

  it('fires probabilistic faults reproducibly from the seed', async () => {
    const { sim, core } = await start({ seed: 42 });
    const run = async (): Promise<number[]> => {
      sim.faults.clear();
      sim.faults.setSeed(42);
      sim.faults.add({ type: 'error', code: 500, resource: 'services', probability: 0.5 });
      const codes: number[] = [];
      for (let i = 0; i < 12; i++) codes.push(await codeOf(core.readNamespacedService({ name: 'a', namespace: 'default' })));
      return codes;
    };
    const first = await run();
    expect(first).toContain(500);
    expect(first).toContain(200);
    expect(await run()).toEqual(first);
  });

  it('adds latency to matching requests only', async () => {
    const { sim, core } = await start();
    sim.faults.add({ type: 'latency', ms: 200, verb: 'get', resource: 'services' });
    let t = performance.now();
    await core.readNamespacedService({ name: 'a', namespace: 'default' });
    expect(performance.now() - t).toBeGreaterThanOrEqual(190);
    t = performance.now();
    await core.listNamespacedService({ namespace: 'default' });
    expect(performance.now() - t).toBeLessThan(150);
  });

  it('fails the second page of a paged list', async () => {
    const { sim, core } = await start();
    sim.faults.add({ type: 'failPage', page: 2, code: 500, resource: 'services', count: 1 });
    const first = await core.listNamespacedService({ namespace: 'default', limit: 2 });
    expect(first.items).toHaveLength(2);
    const token = first.metadata?._continue ?? '';
    try {
      await core.listNamespacedService({ namespace: 'default', limit: 2, _continue: token });
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(ApiException);
      expect(parseStatus((error as ApiException<unknown>).body)).toMatchObject({ code: 500, reason: 'InternalError' });
    }
    const retried = await core.listNamespacedService({ namespace: 'default', limit: 2, _continue: token });
    expect(retried.items.map((s) => s.metadata?.name)).toEqual(['c', 'd']);
  });

  it('hangs matching requests without answering, until the client gives up', async () => {
    const { sim } = await start();
    sim.faults.add({ type: 'hang', verb: 'list', resource: 'services', count: 1 });
    const started = performance.now();
    await expect(fetch(`${sim.url}/api/v1/services`, { signal: AbortSignal.timeout(300) })).rejects.toThrowError();
    expect(performance.now() - started).toBeGreaterThanOrEqual(280);
    const res = await fetch(`${sim.url}/api/v1/services`);
    expect(res.status).toBe(200);
  });
});

describe('dropped watches', () => {
  it('closes open watches on demand and tracks open watch counts', async () => {
    const { sim, kc } = await start();
    let ended = 0;
    const received: string[] = [];
    const open = () =>
      new Watch(kc).watch('/api/v1/services', { resourceVersion: String(sim.store.resourceVersion) }, (type, obj: { metadata?: { name?: string } }) => {
        received.push(`${type} ${obj.metadata?.name ?? ''}`);
      }, () => {
        ended++;
      });
    await open();
    await open();
    await waitFor(() => sim.stats.openWatches('services') === 2, 3000, 'two open watches');
    const stats = await control(sim, 'GET', 'stats');
    expect(stats.json).toMatchObject({ openWatches: { services: 2 } });

    const dropped = await control(sim, 'POST', 'watches/drop', { resource: 'services' });
    expect(dropped.json).toEqual({ dropped: 2 });
    await waitFor(() => ended === 2, 3000, 'both watches to end');
    expect(sim.stats.openWatches()).toBe(0);
    sim.store.create('services', service('after'));
    expect(received).toEqual([]);

    await open();
    await waitFor(() => sim.stats.openWatches('services') === 1, 3000, 'reopened watch');
    expect(sim.faults.dropWatches(undefined, true)).toBe(1);
    await waitFor(() => ended === 3, 3000, 'abrupt drop');
  });
});

describe('control endpoints', () => {
  it('installs, lists and removes fault rules; rejects malformed bodies', async () => {
    const { sim } = await start();
    const added = await control(sim, 'POST', 'faults', { rules: [{ type: 'latency', ms: 5 }, { type: 'error', code: 500, resources: ['pods'], count: 3 }], seed: 7 });
    expect(added.status).toBe(200);
    expect(added.json.ids).toEqual(['fault-1', 'fault-2']);
    expect(added.json).toMatchObject({ seed: 7, rules: [{ id: 'fault-1', type: 'latency', ms: 5 }, { id: 'fault-2', code: 500, resources: ['pods'], count: 3 }] });
    expect((await control(sim, 'DELETE', 'faults/fault-1')).json).toMatchObject({ rules: [{ id: 'fault-2' }] });
    expect((await control(sim, 'DELETE', 'faults/fault-9')).status).toBe(404);
    const bad = await control(sim, 'POST', 'faults', { rules: [{ type: 'error', code: 200 }] });
    expect(bad.status).toBe(400);
    expect(String(bad.json.error)).toContain('code');
    const notJson = await fetch(`${sim.url}/__sim/faults`, { method: 'POST', body: '{' });
    expect(notJson.status).toBe(400);
    expect((await control(sim, 'DELETE', 'faults')).json).toMatchObject({ rules: [] });
    expect((await control(sim, 'GET', 'nope')).status).toBe(404);
    expect((await control(sim, 'PUT', 'stats')).status).toBe(405);
  });

  it('replaces RBAC rules at runtime', async () => {
    const { sim, core } = await start();
    const set = await control(sim, 'POST', 'rbac', { user: 'viewer', deny: [{ verb: 'get', resource: 'services', name: 'a' }] });
    expect(set.json).toEqual({ user: 'viewer', deny: [{ verbs: ['get'], resources: ['services'], names: ['a'] }] });
    expect(await codeOf(core.readNamespacedService({ name: 'a', namespace: 'default' }))).toBe(403);
    expect(await codeOf(core.readNamespacedService({ name: 'b', namespace: 'default' }))).toBe(200);
    await control(sim, 'DELETE', 'rbac');
    expect(await codeOf(core.readNamespacedService({ name: 'a', namespace: 'default' }))).toBe(200);
  });

  it('reports statistics per resource and verb', async () => {
    const { sim, core } = await start();
    await core.listNamespacedService({ namespace: 'default' });
    await core.readNamespacedService({ name: 'a', namespace: 'default' });
    await codeOf(core.readNamespacedService({ name: 'zz', namespace: 'default' }));
    const { json } = await control(sim, 'GET', 'stats');
    expect(json).toMatchObject({ requests: { services: { list: 1, get: 2 } }, responses: { '200': 2, '404': 1 }, objects: { services: 4 } });
    await control(sim, 'POST', 'stats/reset');
    expect((await control(sim, 'GET', 'stats')).json).toMatchObject({ requests: {}, total: 0 });
  });

  it('resets objects (old resourceVersions expire), faults, RBAC and stats', async () => {
    const { sim, core, kc } = await start();
    await core.deleteNamespacedService({ name: 'a', namespace: 'default' });
    const rv = sim.store.resourceVersion;
    sim.faults.add({ type: 'error', code: 500, resource: 'pods' });
    sim.faults.deny({ verb: 'list', resource: 'nodes' });
    const reset = await control(sim, 'POST', 'reset', {});
    expect(reset.json).toMatchObject({ ok: true });
    expect(sim.store.get('services', 'default', 'a')).toBeDefined();
    expect(sim.faults.list()).toEqual([]);
    expect(sim.faults.rbac.deny).toEqual([]);
    const events: string[] = [];
    await new Watch(kc).watch('/api/v1/services', { resourceVersion: String(rv) }, (type, obj: { code?: number }) => events.push(`${type} ${obj.code ?? ''}`), () => undefined);
    await waitFor(() => events.length > 0, 3000, 'expired watch');
    expect(events).toEqual(['ERROR 410']);
  });
});

describe('reset and after-apply faults (a write whose answer is lost)', () => {
  const patchA = (sim: Simulator, value: string) =>
    fetch(`${sim.url}/api/v1/namespaces/default/services/a`, {
      method: 'PATCH',
      headers: { 'Content-Type': 'application/merge-patch+json' },
      body: JSON.stringify({ metadata: { annotations: { note: value } } }),
    });
  const noteOf = async (core: CoreV1Api) => (await core.readNamespacedService({ name: 'a', namespace: 'default' })).metadata?.annotations?.note;

  it('reset with afterApply applies the patch, then drops the connection unanswered', async () => {
    const { sim, core } = await start();
    await control(sim, 'POST', 'faults', { rules: [{ type: 'reset', afterApply: true, verbs: ['patch'], resources: ['services'], count: 1 }] });
    await expect(patchA(sim, 'one')).rejects.toThrow();
    expect(await noteOf(core)).toBe('one');
    expect((await patchA(sim, 'two')).status).toBe(200);
  });

  it('reset without afterApply drops the connection before anything is done', async () => {
    const { sim, core } = await start();
    sim.faults.add({ type: 'reset', verbs: ['patch'], resources: ['services'], count: 1 });
    await expect(patchA(sim, 'one')).rejects.toThrow();
    expect(await noteOf(core)).toBeUndefined();
  });

  it('errorAfterApply answers the error after the patch was applied; a failing verb keeps its own error', async () => {
    const { sim, core } = await start();
    sim.faults.add({ type: 'errorAfterApply', code: 500, message: 'etcdserver: request timed out', verbs: ['patch'], resources: ['services'], count: 2 });
    const res = await patchA(sim, 'one');
    expect(res.status).toBe(500);
    expect(await res.json()).toMatchObject({ kind: 'Status', code: 500, reason: 'InternalError', message: 'etcdserver: request timed out' });
    expect(await noteOf(core)).toBe('one');
    const missing = await fetch(`${sim.url}/api/v1/namespaces/default/services/ghost`, { method: 'PATCH', headers: { 'Content-Type': 'application/merge-patch+json' }, body: '{}' });
    expect(missing.status).toBe(404);
  });
});
