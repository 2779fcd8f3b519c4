/**
 * The API server's history going backwards, against the simulator over real HTTP: a restart on an
 * older state (`POST /__sim/restore`, or another simulator started on the same port), where a watch
 * from a version the server no longer has is accepted and stays silent (as kube-apiserver's) and
 * only the resume check's 504 `ResourceVersionTooLarge` tells; a restart between the pages of a
 * list — and the cold start, where every type is listed exactly once.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Simulator } from '../../sim/server';
import { startSimulator } from '../../sim/server';
import { node, service } from '../../sim/test-support';
import type { KubeObject } from '../../sim/types';
import type { LiveClusterSourceOptions } from './cluster-sources/live-source';
import { RELISTING_MESSAGE } from './cluster-source';
import { LiveClusterSource } from './cluster-sources/live-source';
import { createConnection } from './connection';
import type { InformerLogEvent } from './informer/options';
import type { ResourceStatus } from './informer/status';
import type { ResourceId } from './resources';
import { RESOURCE_IDS } from './resources';

const sims: Simulator[] = [];
const states: LiveClusterSource[] = [];

afterEach(async () => {
  await Promise.all(states.splice(0).map((state) => state.stop()));
  await Promise.all(sims.splice(0).map((sim) => sim.stop()));
});

/** The cluster before: 3 nodes `old-node-*`, 13 Services `old-*`. */
function oldCluster(): KubeObject[] {
  return [
    ...['a', 'b', 'c'].map((zone) => node(`old-node-${zone}`, `us-east-1${zone}`)),
    ...Array.from({ length: 13 }, (_, i) => service(`old-${i + 1}`, 'shop')),
  ];
}

/** The older state it is restored to: 2 nodes `new-node-*`, 2 Services `new-*`. */
function newCluster(): KubeObject[] {
  return [node('new-node-a', 'us-east-1a'), node('new-node-b', 'us-east-1b'), service('new-1', 'shop'), service('new-2', 'shop')];
}

/** The simulator's storage of each type (its `/__sim/stats` keys). */
const STORAGE: Record<ResourceId, string> = {
  nodes: 'nodes',
  services: 'services',
  endpointslices: 'endpointslices',
  pods: 'pods',
  deployments: 'deployments',
  replicasets: 'replicasets',
  hpas: 'horizontalpodautoscalers',
  events: 'events',
  configmaps: 'configmaps',
  daemonsets: 'daemonsets',
};

/** Bookmarks every 100 ms: a watch that has sent one is open and being served (see {@link untilWatchingSteadily}). */
const BOOKMARK_INTERVAL_MS = 100;

async function startSim(objects: readonly KubeObject[]): Promise<Simulator> {
  const sim = await startSimulator({ port: 0, log: () => undefined, objects, bookmarkIntervalMs: BOOKMARK_INTERVAL_MS });
  sims.push(sim);
  return sim;
}

function startState(sim: Simulator, logs: InformerLogEvent[], options: LiveClusterSourceOptions = {}): LiveClusterSource {
  const connection = createConnection({ kubeconfigText: sim.kubeconfig(), requestTimeoutMs: 2000 });
  if (!connection.ok) throw new Error(connection.message);
  const state = new LiveClusterSource(connection.connection, {
    log: (event) => logs.push(event),
    ...options,
    informer: { backoff: { initialMs: 20, maxMs: 200 }, forbiddenRetryMs: 100, listTimeoutMs: 2000, pageSize: 4, ...options.informer },
  });
  states.push(state);
  state.start();
  return state;
}

async function control(sim: Simulator, path: string, body: unknown): Promise<Record<string, unknown>> {
  const response = await fetch(`${sim.url}${path}`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
  const json = (await response.json()) as Record<string, unknown>;
  if (!response.ok) throw new Error(`${path}: ${response.status} ${JSON.stringify(json)}`);
  return json;
}

async function stats(sim: Simulator): Promise<{ requests: Record<string, Record<string, number>>; resourceVersion: string }> {
  return (await (await fetch(`${sim.url}/__sim/stats`)).json()) as { requests: Record<string, Record<string, number>>; resourceVersion: string };
}

/**
 * Waits until the source watches every type steadily: each type's watch is open on the simulator
 * and has delivered a bookmark after `since` (a watch that was refused or restarted, and any list
 * that follows it, has happened by then). What the counts are read after, instead of a pause.
 */
async function untilWatchingSteadily(sim: Simulator, source: { status(id: ResourceId): ResourceStatus }, since: number): Promise<void> {
  await expect
    .poll(
      async () => {
        const open = (await (await fetch(`${sim.url}/__sim/stats`)).json()) as { openWatches: Record<string, number> };
        return RESOURCE_IDS.filter((id) => (open.openWatches[STORAGE[id]] ?? 0) < 1 || !(Date.parse(source.status(id).lastEventAt ?? '') > since));
      },
      { message: 'every type watched, with a bookmark since', timeout: 5000, interval: 20 },
    )
    .toEqual([]);
}

/** Names the source shows: services and nodes. */
function shown(state: LiveClusterSource): { services: string[]; nodes: string[] } {
  const snapshot = state.snapshot();
  return { services: snapshot.services.map((s) => s.name).sort(), nodes: snapshot.nodes.map((n) => n.name).sort() };
}

/**
 * Polls until the source shows exactly the new cluster, recording every observation where the data
 * mixes both clusters while the source calls itself synced and not re-listing.
 */
async function untilNewCluster(state: LiveClusterSource, timeoutMs = 5000): Promise<{ mixedWhileSynced: string[]; sawRelisting: boolean }> {
  const mixedWhileSynced: string[] = [];
  let sawRelisting = false;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const { services, nodes } = shown(state);
    const relisting = state.relisting() !== null;
    sawRelisting ||= relisting;
    const names = [...services, ...nodes];
    const hasOld = names.some((n) => n.startsWith('old-'));
    const hasNew = names.some((n) => n.startsWith('new-'));
    if (hasOld && hasNew && state.isSynced() && !relisting) mixedWhileSynced.push(names.join(','));
    if (!relisting && services.join() === 'new-1,new-2' && nodes.join() === 'new-node-a,new-node-b') return { mixedWhileSynced, sawRelisting };
    if (Date.now() > deadline) throw new Error(`timed out; showing ${names.join(',')}; relisting ${String(relisting)}`);
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
}

describe('the API server restarted on an older state', () => {
  it('shows exactly the restored objects, never a mix as synced, with one log line', { timeout: 15_000 }, async () => {
    const sim = await startSim(oldCluster());
    const logs: InformerLogEvent[] = [];
    const state = startState(sim, logs);
    expect(await state.waitForSync(5000)).toBe(true);
    expect(shown(state).services).toHaveLength(13);
    const before = Number((await stats(sim)).resourceVersion);

    const restored = await control(sim, '/__sim/restore', { objects: newCluster() });
    expect(Number(restored.resourceVersion)).toBeLessThan(before);

    const { mixedWhileSynced } = await untilNewCluster(state);
    expect(mixedWhileSynced).toEqual([]);
    expect(state.isSynced()).toBe(true);
    expect(state.statuses().every((s) => s.health === 'synced')).toBe(true);
    const lines = logs.filter((l) => l.message.includes("history went backwards") && l.level === 'warn');
    expect(lines).toHaveLength(1);
    expect(lines[0]?.message).toMatch(/re-listing every resource type/);

    // The watches resume on the new history: a change after the restore arrives.
    await fetch(`${sim.url}/api/v1/namespaces/shop/services`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(service('new-3', 'shop')) });
    await expect.poll(() => shown(state).services, { message: 'new-3 arrives', timeout: 3000, interval: 10 }).toContain('new-3');
  });

  it('re-lists instead of resuming a watch from a version the restored server has not reached (which it would accept and never answer)', { timeout: 15_000 }, async () => {
    const sim = await startSim(oldCluster());
    const logs: InformerLogEvent[] = [];
    const state = startState(sim, logs);
    expect(await state.waitForSync(5000)).toBe(true);
    const rv = Number((await stats(sim)).resourceVersion);

    // The simulator's answers, as kube-apiserver's: the watch is accepted (and says nothing); a
    // list of one object not older than that version is refused at once.
    const controller = new AbortController();
    const watch = await fetch(`${sim.url}/api/v1/services?watch=1&resourceVersion=${rv + 1000}`, { signal: controller.signal });
    expect(watch.status).toBe(200);
    controller.abort();
    const check = await fetch(`${sim.url}/api/v1/services?limit=1&resourceVersion=${rv + 1000}&resourceVersionMatch=NotOlderThan`);
    expect(check.status).toBe(504);
    const status = (await check.json()) as { reason: string; message: string; details: { causes: { reason: string }[] } };
    expect(status.reason).toBe('Timeout');
    expect(status.message).toBe(`Timeout: Too large resource version: ${rv + 1000}, current: ${rv}`);
    expect(status.details.causes[0]?.reason).toBe('ResourceVersionTooLarge');

    await control(sim, '/__sim/stats/reset', {});
    await control(sim, '/__sim/restore', { objects: newCluster() });
    await untilNewCluster(state);
    // Once every type watches the new history steadily, count: per type at most the cut watch's
    // retry, one refused resume check and one new list.
    await untilWatchingSteadily(sim, state, Date.now());
    const counts = (await stats(sim)).requests;
    for (const resource of ['services', 'nodes', 'pods', 'endpointslices']) {
      expect(counts[resource]?.watch ?? 0, `${resource} watches`).toBeLessThanOrEqual(3);
      // Services: 2 objects, pages of 4 → one list page, after at most one refused check.
      expect(counts[resource]?.list ?? 0, `${resource} lists`).toBeGreaterThanOrEqual(1);
      expect(counts[resource]?.list ?? 0, `${resource} lists`).toBeLessThanOrEqual(2);
    }
    expect(logs.filter((l) => l.message.includes('history went backwards') && l.level === 'warn')).toHaveLength(1);
  });

  it('shows only the new objects when another server with lower resourceVersions starts on the same port', { timeout: 15_000 }, async () => {
    const first = await startSim(oldCluster());
    const logs: InformerLogEvent[] = [];
    const state = startState(first, logs);
    expect(await state.waitForSync(5000)).toBe(true);
    const { port } = first;
    const before = first.store.resourceVersion;
    sims.splice(sims.indexOf(first), 1);
    await first.stop();

    // Another server at the address, with other content and a shorter history: a watch resumed
    // from the old resourceVersion would be accepted there and never deliver anything.
    const second = await startSimulator({ port, log: () => undefined, objects: newCluster(), bookmarkIntervalMs: BOOKMARK_INTERVAL_MS });
    sims.push(second);
    expect(second.store.resourceVersion).toBeLessThan(before);

    const { mixedWhileSynced } = await untilNewCluster(state, 10_000);
    expect(mixedWhileSynced).toEqual([]);
    await expect.poll(() => state.statuses().filter((s) => s.health !== 'synced').map((s) => s.id), { message: 'every type synced again', timeout: 5000, interval: 10 }).toEqual([]);
    const snapshot = state.snapshot();
    const everything = [...snapshot.nodes, ...snapshot.services, ...snapshot.pods, ...snapshot.endpointSlices].map((o) => o.name);
    expect(everything.filter((name) => name.startsWith('old-'))).toEqual([]);
    expect(logs.filter((l) => /history went backwards \(.*Too large resource version: \d+, current: \d+/.test(l.message))).toHaveLength(1);

    // The watches follow the new server: a change there arrives.
    await fetch(`${second.url}/api/v1/namespaces/shop/services`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(service('new-3', 'shop')) });
    await expect.poll(() => shown(state).services, { message: 'new-3 arrives', timeout: 3000, interval: 10 }).toContain('new-3');
  });

  it('restarts a list cut between pages by the restart from its first page: no mix', { timeout: 15_000 }, async () => {
    const sim = await startSim(oldCluster());
    // Page 2 of the Services list never answers, until the server "restarts".
    await control(sim, '/__sim/faults', { rules: [{ type: 'hang', verb: 'list', resource: 'services', page: 2, count: 1 }] });
    const logs: InformerLogEvent[] = [];
    const state = startState(sim, logs);
    await expect.poll(async () => (await stats(sim)).requests.services?.list ?? 0, { message: 'page 2 asked for', timeout: 3000, interval: 10 }).toBeGreaterThanOrEqual(2);
    expect(state.isSynced()).toBe(false);
    await control(sim, '/__sim/restore', { objects: newCluster() });
    const { mixedWhileSynced } = await untilNewCluster(state);
    expect(mixedWhileSynced).toEqual([]);
    // The cut page is sent again on a new connection (a GET on a kept-alive connection that died):
    // the restored server refuses its continue token (410), so the list starts again from its
    // first page — or, had the retry failed too, restarts as interrupted between pages.
    expect(((await stats(sim)) as unknown as { lists: Record<string, number> }).lists.services).toBeGreaterThanOrEqual(2);
  });

  it('notices another cluster with a newer history (410, then a new kube-system UID) and swaps every type together', { timeout: 15_000 }, async () => {
    const sim = await startSim(oldCluster());
    const logs: InformerLogEvent[] = [];
    const state = startState(sim, logs);
    expect(await state.waitForSync(5000)).toBe(true);
    const rv = Number((await stats(sim)).resourceVersion);
    // Services list slowly from now on: a type-by-type swap would show new nodes with old Services.
    await control(sim, '/__sim/faults', { rules: [{ type: 'latency', ms: 300, verb: 'list', resource: 'services' }] });
    await control(sim, '/__sim/restore', { objects: newCluster(), fromResourceVersion: rv + 1000 });
    const { mixedWhileSynced } = await untilNewCluster(state);
    expect(mixedWhileSynced).toEqual([]);
    expect(logs.filter((l) => /kube-system namespace UID changed from .* another cluster answers at this address/.test(l.message))).toHaveLength(1);
  });

  it('restarts a list whose connection is killed on page 3 from the first page, and ends with every object', { timeout: 15_000 }, async () => {
    const sim = await startSim(oldCluster());
    // Twice: a GET cut on a kept-alive connection is sent once more (a connection the server closed
    // while idle looks the same), so page 3 must fail on the retry too to interrupt the list.
    await control(sim, '/__sim/faults', { rules: [{ type: 'reset', verb: 'list', resource: 'services', page: 3, count: 2 }] });
    await control(sim, '/__sim/stats/reset', {});
    const logs: InformerLogEvent[] = [];
    const state = startState(sim, logs);
    expect(await state.waitForSync(5000)).toBe(true);
    expect(shown(state).services).toHaveLength(13);
    // Pages 1, 2, 3 (killed), 3 again (killed), then 1–4 again.
    expect((await stats(sim)).requests.services?.list).toBe(8);
    expect(logs.filter((l) => /list interrupted between pages \(Cannot reach the API server .*\); restarting it from the first page/.test(l.message))).toHaveLength(1);
  });

  it('answers a continue token from before the restore with 410, not with pages of the new state', async () => {
    const sim = await startSim(oldCluster());
    const first = (await (await fetch(`${sim.url}/api/v1/services?limit=4`)).json()) as { metadata: { continue: string } };
    await control(sim, '/__sim/restore', { objects: newCluster(), fromResourceVersion: 0 });
    const next = await fetch(`${sim.url}/api/v1/services?limit=4&continue=${encodeURIComponent(first.metadata.continue)}`);
    expect(next.status).toBe(410);
  });

  it('refuses a malformed restore and changes nothing', async () => {
    const sim = await startSim(oldCluster());
    const before = (await stats(sim)).resourceVersion;
    for (const body of [{ objects: [{ kind: 'Service' }] }, { scenario: '../etc' }, { scenario: 'no-such-scenario' }, { fromResourceVersion: -1 }, { scenario: 'eks-demo', objects: [] }]) {
      const response = await fetch(`${sim.url}/__sim/restore`, { method: 'POST', body: JSON.stringify(body) });
      expect(response.status, JSON.stringify(body)).toBe(400);
      expect(((await response.json()) as { error: string }).error).not.toBe('');
    }
    expect((await stats(sim)).resourceVersion).toBe(before);
    expect(sim.store.count('services')).toBe(13);
  });
});

describe('cold start', () => {
  it('lists every type once: list requests = pages, one watch per type', { timeout: 15_000 }, async () => {
    const objects = oldCluster();
    const sim = await startSim(objects);
    await control(sim, '/__sim/stats/reset', {});
    const state = startState(sim, []);
    expect(await state.waitForSync(5000)).toBe(true);
    // A second list (a watch restarting at 0, a re-list) would have happened once every watch is steady.
    await untilWatchingSteadily(sim, state, Date.now());
    const { requests } = await stats(sim);
    // 13 Services in pages of 4 → 4 pages; 3 nodes → 1 page; every other type (empty) → 1.
    expect(requests.services).toEqual({ list: 4, watch: 1 });
    expect(requests.nodes).toEqual({ list: 1, watch: 1 });
    for (const id of RESOURCE_IDS) expect(state.status(id).lists, id).toBe(1);
    expect(state.relisting()).toBeNull();
    expect(RELISTING_MESSAGE).toBe("Re-listing after the API server's history went backwards");
  });

  it('the server-wide source is one per process, even from several module instances (as Next.js bundles load them)', { timeout: 15_000 }, async () => {
    const sim = await startSim(oldCluster());
    const dir = await mkdtemp(path.join(os.tmpdir(), 'zonescope-cold-'));
    const saved = { KUBECONFIG: process.env.KUBECONFIG, ZONESCOPE_SNAPSHOT: process.env.ZONESCOPE_SNAPSHOT, ZONESCOPE_CONTEXT: process.env.ZONESCOPE_CONTEXT };
    process.env.KUBECONFIG = await sim.writeKubeconfig(path.join(dir, 'kubeconfig'));
    delete process.env.ZONESCOPE_SNAPSHOT;
    delete process.env.ZONESCOPE_CONTEXT;
    try {
      await control(sim, '/__sim/stats/reset', {});
      const first = (await import('./source')).getClusterSource();
      vi.resetModules();
      const second = (await import('./source')).getClusterSource();
      expect(second).toBe(first);
      expect(await first.waitForSync(5000)).toBe(true);
      await untilWatchingSteadily(sim, first, Date.now());
      const { requests } = await stats(sim);
      for (const resource of ['nodes', 'services', 'endpointslices', 'pods', 'deployments', 'replicasets', 'horizontalpodautoscalers', 'events', 'configmaps', 'daemonsets']) {
        expect(requests[resource], resource).toEqual({ list: 1, watch: 1 });
      }
    } finally {
      await (await import('./source')).resetClusterSource();
      if (saved.KUBECONFIG === undefined) delete process.env.KUBECONFIG;
      else process.env.KUBECONFIG = saved.KUBECONFIG;
      if (saved.ZONESCOPE_SNAPSHOT !== undefined) process.env.ZONESCOPE_SNAPSHOT = saved.ZONESCOPE_SNAPSHOT;
      if (saved.ZONESCOPE_CONTEXT !== undefined) process.env.ZONESCOPE_CONTEXT = saved.ZONESCOPE_CONTEXT;
      await rm(dir, { recursive: true, force: true });
    }
  });
});
