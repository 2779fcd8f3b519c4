/**
 * The live source against the simulator over real HTTP: list + watch of every type, resume,
 * 410 re-list, RBAC denial, paging, throttling, silent watches, and the mutations.
 */
import { CoreV1Api } from '@kubernetes/client-node';
import { afterEach, describe, expect, it } from 'vitest';
import { defaultControllers } from '../../../sim/default-controllers';
import type { ResourceKey } from '../../../sim/resources';
import { loadScenario } from '../../../sim/scenario';
import type { Simulator, SimulatorOptions } from '../../../sim/server';
import { startSimulator } from '../../../sim/server';
import { deployment, node, pod, service } from '../../../sim/test-support';
import type { ClusterSnapshot } from '../../topology/model/cluster-model';
import { indexCluster } from '../../topology/model/cluster-model';
import type { LiveClusterSourceOptions } from './live-source';
import { LiveClusterSource } from './live-source';
import type { KubeConnection } from '../connection';
import { createConnection } from '../connection';
import { canPatchService, patchServiceAnnotation, readServiceAnnotations } from '../mutations';
import type { ResourceId } from '../resources';
import { RESOURCE_IDS } from '../resources';
import type { SnapshotObject } from '../snapshot/results';
import { buildSnapshot } from '../snapshot/from-text';

const sims: Simulator[] = [];
const states: LiveClusterSource[] = [];

afterEach(async () => {
  await Promise.all(states.splice(0).map((state) => state.stop()));
  await Promise.all(sims.splice(0).map((sim) => sim.stop()));
});

async function startSim(options: SimulatorOptions = {}): Promise<Simulator> {
  const sim = await startSimulator({ port: 0, log: () => undefined, ...options });
  sims.push(sim);
  return sim;
}

function connect(sim: Simulator, requestTimeoutMs = 2000): KubeConnection {
  const result = createConnection({ kubeconfigText: sim.kubeconfig(), requestTimeoutMs });
  if (!result.ok) throw new Error(result.message);
  return result.connection;
}

/** Fast timings for tests. */
const FAST: LiveClusterSourceOptions = {
  informer: { backoff: { initialMs: 20, maxMs: 200 }, forbiddenRetryMs: 100, listTimeoutMs: 2000 },
};

function startState(sim: Simulator, options: LiveClusterSourceOptions = {}): LiveClusterSource {
  const state = new LiveClusterSource(connect(sim), { ...FAST, ...options, informer: { ...FAST.informer, ...options.informer } });
  states.push(state);
  state.start();
  return state;
}

async function waitFor(check: () => boolean, what: string, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

const STORAGE: Record<ResourceId, ResourceKey> = {
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

/** What the simulator holds, projected the snapshot way (the reference the live cache must equal). */
function expectedSnapshot(sim: Simulator): ClusterSnapshot {
  const objects: SnapshotObject[] = [];
  for (const id of RESOURCE_IDS) {
    const namespace = id === 'configmaps' || id === 'daemonsets' ? 'kube-system' : undefined;
    for (const object of sim.store.all(STORAGE[id], namespace)) {
      objects.push({ kind: object.kind, apiVersion: object.apiVersion, object: object as unknown as SnapshotObject['object'], location: { file: 'sim', document: 1 } });
    }
  }
  const result = buildSnapshot(objects, [{ version: { gitVersion: sim.version }, location: { file: 'sim', document: 1 } }]);
  if (!result.ok) throw new Error('store does not build');
  return result.snapshot;
}

const FIELD: Record<ResourceId, keyof ClusterSnapshot> = {
  nodes: 'nodes',
  services: 'services',
  endpointslices: 'endpointSlices',
  pods: 'pods',
  deployments: 'deployments',
  replicasets: 'replicaSets',
  hpas: 'hpas',
  events: 'events',
  configmaps: 'proxy',
  daemonsets: 'cni',
};

/** A comparable form of the types `ids`: lists sorted by their JSON. */
function normalise(snapshot: ClusterSnapshot, ids: readonly ResourceId[]): Record<string, unknown> {
  const out: Record<string, unknown> = { version: snapshot.version };
  for (const id of ids) {
    const value = snapshot[FIELD[id]];
    out[id] = Array.isArray(value) ? value.map((i) => JSON.stringify(i)).sort() : value;
  }
  if (ids.includes('configmaps')) out.cni = snapshot.cni;
  return out;
}

async function converged(state: LiveClusterSource, sim: Simulator, timeoutMs = 5000): Promise<void> {
  const ids = state.statuses().map((s) => s.id);
  try {
    await waitFor(() => JSON.stringify(normalise(state.snapshot(), ids)) === JSON.stringify(normalise(expectedSnapshot(sim), ids)), 'cache = simulator', timeoutMs);
  } catch (error) {
    expect(normalise(state.snapshot(), ids)).toEqual(normalise(expectedSnapshot(sim), ids)); // shows the diff
    throw error;
  }
}

function namesOf(snapshot: ClusterSnapshot): string[] {
  return snapshot.services.map((s) => `${s.namespace}/${s.name}`).sort();
}

describe('LiveClusterSource against the simulator', () => {
  it('fully syncs every resource type of the eks-demo scenario with one list and one watch each', async () => {
    const scenario = await loadScenario('eks-demo');
    const sim = await startSim({ objects: scenario.objects, controllers: defaultControllers(), ...(scenario.serverVersion ? { version: scenario.serverVersion } : {}) });
    const state = startState(sim);
    expect(await state.waitForSync(5000)).toBe(true);
    await converged(state, sim);

    const snapshot = state.snapshot();
    expect(snapshot.nodes.length).toBeGreaterThan(0);
    expect(snapshot.services.length).toBeGreaterThan(0);
    expect(snapshot.endpointSlices.length).toBeGreaterThan(0);
    expect(snapshot.pods.length).toBeGreaterThan(0);
    expect(snapshot.deployments.length).toBeGreaterThan(0);
    expect(snapshot.replicaSets.length).toBeGreaterThan(0);
    expect(snapshot.hpas.length).toBeGreaterThan(0);
    expect(snapshot.events.length).toBeGreaterThan(0);
    expect(snapshot.events.every((e) => e.involvedObject.kind === 'Service')).toBe(true);
    expect(snapshot.proxy?.source).toBe('kube-system/kube-proxy-config');
    expect(snapshot.cni.awsVpcCni).toBe(true);
    expect(state.serverVersion()).toMatchObject({ gitVersion: sim.version, platform: 'eks' });

    await waitFor(() => state.statuses().every((s) => s.watches === 1), 'every watch open');
    for (const status of state.statuses()) {
      expect(status, status.id).toMatchObject({ health: 'synced', lists: 1, watches: 1, error: null });
      expect(status.resourceVersion).toMatch(/^\d+$/);
      expect(status.syncedAt).not.toBeNull();
    }
    await waitFor(() => sim.stats.openWatches() >= RESOURCE_IDS.length, 'watches open');
    for (const id of RESOURCE_IDS) expect(sim.stats.count('list', STORAGE[id]), id).toBe(1);
    expect(sim.stats.snapshot().requests.events?.watch).toBe(1);

    // The index is memoised per generation and rebuilt only for types that changed.
    const index = state.index();
    expect(state.index()).toBe(index);
    expect(index.servicesByKey.size).toBe(snapshot.services.length);
    expect(indexCluster(snapshot).slicesByService.size).toBe(index.slicesByService.size);
  });

  it('delivers watch adds, updates and deletes to the cache, with change notifications', async () => {
    const sim = await startSim({ objects: [service('a'), service('b'), node('n1', 'z1')] });
    const state = startState(sim, { resources: ['services', 'nodes'] });
    await state.waitForSync(5000);
    const changes: number[] = [];
    state.onChange((change) => changes.push(change.generation));
    const core = connect(sim).kubeConfig.makeApiClient(CoreV1Api);

    const before = state.generation;
    await core.createNamespacedService({ namespace: 'default', body: { apiVersion: 'v1', kind: 'Service', metadata: { name: 'c' }, spec: { selector: { app: 'c' }, ports: [{ port: 80 }] } } });
    await waitFor(() => namesOf(state.snapshot()).includes('default/c'), 'add');
    await core.patchNamespacedService({ name: 'a', namespace: 'default', body: [{ op: 'add', path: '/metadata/annotations', value: { 'service.kubernetes.io/topology-mode': 'Auto' } }] });
    await waitFor(() => state.index().servicesByKey.get('default/a')?.annotations['service.kubernetes.io/topology-mode'] === 'Auto', 'update');
    await core.deleteNamespacedService({ name: 'b', namespace: 'default' });
    await waitFor(() => !namesOf(state.snapshot()).includes('default/b'), 'delete');
    sim.store.delete('nodes', undefined, 'n1');
    await waitFor(() => state.snapshot().nodes.length === 0, 'node delete');

    expect(state.generation).toBeGreaterThan(before);
    await waitFor(() => changes.length > 0, 'notification');
    expect(state.status('services')).toMatchObject({ lists: 1, watches: 1, health: 'synced' });
    await converged(state, sim);
  });

  it('resumes a dropped watch from the last resourceVersion without re-listing (clean and abrupt drops)', async () => {
    const sim = await startSim({ objects: ['a', 'b', 'c'].map((n) => service(n)) });
    const state = startState(sim, { resources: ['services'] });
    await state.waitForSync(5000);
    await waitFor(() => sim.stats.openWatches('services') === 1, 'watch open');

    expect(sim.faults.dropWatches('services', false)).toBe(1);
    sim.store.create('services', service('d'));
    sim.store.delete('services', 'default', 'a');
    await waitFor(() => state.status('services').watches === 2, 'second watch');
    expect(sim.faults.dropWatches('services', true)).toBe(1);
    sim.store.create('services', service('e'));
    await waitFor(() => state.status('services').watches === 3, 'third watch');

    await converged(state, sim);
    expect(namesOf(state.snapshot())).toEqual(['default/b', 'default/c', 'default/d', 'default/e']);
    // One list, and before each of the two resumed watches its check (one object, not older than
    // the version resumed from: the history goes on).
    expect(sim.stats.count('list', 'services')).toBe(3);
    expect(state.status('services').lists).toBe(1);
  });

  it('re-lists after 410 Gone and replaces the cache atomically: no phantom, nothing missing', async () => {
    const initial = Array.from({ length: 10 }, (_, i) => service(`s${i}`));
    const sim = await startSim({ objects: initial, historySize: 5 });
    const state = startState(sim, { resources: ['services'], informer: { backoff: { initialMs: 300, maxMs: 300 } } });
    await state.waitForSync(5000);
    await waitFor(() => sim.stats.openWatches('services') === 1, 'watch open');

    // Partition: the next watch attempt fails, so the informer is away while far more than the
    // history changes; it comes back with a resourceVersion the server no longer has.
    sim.faults.add({ type: 'error', code: 503, verb: 'watch', resource: 'services', count: 1 });
    sim.faults.dropWatches('services', true);
    for (let i = 0; i < 5; i++) sim.store.delete('services', 'default', `s${i}`);
    for (let i = 0; i < 8; i++) sim.store.create('services', service(`new${i}`));
    const s9 = sim.store.get('services', 'default', 's9');
    if (s9 === undefined) throw new Error('missing s9');
    sim.store.update('services', { ...s9, metadata: { ...s9.metadata, annotations: { 'service.kubernetes.io/topology-mode': 'Auto' } } });

    await waitFor(() => state.status('services').lists === 2, 're-list', 8000);
    await converged(state, sim);
    const names = namesOf(state.snapshot());
    expect(names).toHaveLength(13);
    expect(names.filter((n) => /\/s[0-4]$/.test(n))).toEqual([]); // no phantoms
    expect(state.index().servicesByKey.get('default/s9')?.annotations['service.kubernetes.io/topology-mode']).toBe('Auto');
    // The first list, the checks before the refused (503) and the expired (410) resumed watch, the re-list.
    expect(sim.stats.count('list', 'services')).toBe(4);
    expect(state.status('services').health).toBe('synced');
  });

  it('a forbidden resource degrades only itself, and recovers when access is granted', async () => {
    const sim = await startSim({ objects: [service('a'), node('n1', 'z1'), pod('p1', 'default', { app: 'a' }, 'n1')] });
    sim.faults.deny({ verbs: ['list', 'watch'], resources: ['pods'] });
    const state = startState(sim, { resources: ['services', 'nodes', 'pods'] });
    expect(await state.waitForSync(5000)).toBe(true);
    const pods = state.status('pods');
    expect(pods.health).toBe('forbidden');
    expect(pods.error).toMatchObject({ kind: 'forbidden', status: 403, reason: 'Forbidden' });
    expect(pods.error?.message).toMatch(/pods is forbidden/);
    expect(pods.staleSince).not.toBeNull();
    expect(state.status('services').health).toBe('synced');
    expect(state.status('nodes').health).toBe('synced');
    expect(state.snapshot().services).toHaveLength(1);
    expect(state.snapshot().pods).toHaveLength(0);

    sim.faults.resetRbac();
    await waitFor(() => state.status('pods').health === 'synced', 'pods recovered');
    expect(state.snapshot().pods.map((p) => p.name)).toEqual(['p1']);

    // Revoked mid-run: the watch ends, the re-watch is refused, the cache is emptied (not kept as phantoms).
    sim.faults.deny({ verbs: ['list', 'watch'], resources: ['nodes'] });
    sim.faults.dropWatches('nodes');
    await waitFor(() => state.status('nodes').health === 'forbidden', 'nodes forbidden');
    expect(state.snapshot().nodes).toEqual([]);
    expect(state.status('services').health).toBe('synced');
  });

  it('pages lists of more than 500 objects (limit=500, following continue)', async () => {
    const sim = await startSim({ objects: [node('n1', 'z1')] });
    for (let i = 0; i < 1234; i++) sim.store.create('pods', pod(`p-${String(i).padStart(4, '0')}`, `ns${i % 7}`, { app: 'x' }, 'n1'));
    const state = startState(sim, { resources: ['pods'] });
    await state.waitForSync(5000);
    expect(sim.stats.count('list', 'pods')).toBe(3);
    expect(state.status('pods')).toMatchObject({ count: 1234, listed: 1234, lists: 1 });
    expect(state.index().podsByNamespace.get('ns0')).toHaveLength(177);
  });

  it('with pagesAhead, asks for the next list page before processing the current one, each page once', async () => {
    const sim = await startSim({ objects: [node('n1', 'z1')] });
    for (let i = 0; i < 1234; i++) sim.store.create('pods', pod(`p-${String(i).padStart(4, '0')}`, `ns${i % 7}`, { app: 'x' }, 'n1'));
    const connection = connect(sim);
    let state: LiveClusterSource | null = null;
    /** Pods already listed when each page was asked for. */
    const listedWhenAsked: number[] = [];
    const watching: KubeConnection = {
      ...connection,
      kubeConfig: connection.kubeConfig,
      request: (request) => {
        if (request.query?.watch === undefined && request.path === '/api/v1/pods') listedWhenAsked.push(state?.status('pods').listed ?? -1);
        return connection.request(request);
      },
      openStream: (request, onLine) => connection.openStream(request, onLine),
    };
    state = new LiveClusterSource(watching, { ...FAST, resources: ['pods'], informer: { ...FAST.informer, pagesAhead: true } });
    states.push(state);
    state.start();
    expect(await state.waitForSync(5000)).toBe(true);
    // Page 2 was asked for before page 1's 500 pods were read, page 3 before page 2's.
    expect(listedWhenAsked).toEqual([0, 0, 500]);
    expect(sim.stats.count('list', 'pods')).toBe(3);
    await converged(state, sim);
    expect(state.status('pods')).toMatchObject({ count: 1234, listed: 1234, lists: 1 });
  });

  it('restarts a list whose continue token expired, and retries a failed page', async () => {
    const sim = await startSim({ objects: [node('n1', 'z1')], historySize: 3 });
    for (let i = 0; i < 1100; i++) sim.store.create('pods', pod(`p${i}`, 'default', { app: 'x' }, 'n1'));
    // Page 2 fails once (500): retried with the same token.
    sim.faults.add({ type: 'failPage', page: 2, code: 500, resource: 'pods', count: 1 });
    // Right after the first page, the store moves past its history: the token expires (410).
    const connection = connect(sim);
    let pages = 0;
    const racing: KubeConnection = {
      ...connection,
      kubeConfig: connection.kubeConfig,
      request: async (request) => {
        const response = await connection.request(request);
        if (request.query?.watch === undefined && ++pages === 1) {
          for (let i = 0; i < 6; i++) sim.store.create('pods', pod(`late${i}`, 'default', { app: 'x' }, 'n1'));
          sim.store.delete('pods', 'default', 'p1099');
        }
        return response;
      },
      openStream: (request, onLine) => connection.openStream(request, onLine),
    };
    const state = new LiveClusterSource(racing, { ...FAST, resources: ['pods'] });
    states.push(state);
    state.start();
    expect(await state.waitForSync(8000)).toBe(true);
    await converged(state, sim);
    expect(state.status('pods')).toMatchObject({ count: 1105, listed: 1105, lists: 1, health: 'synced' });
    expect(sim.stats.responsesWith(500)).toBe(1);
    expect(sim.stats.responsesWith(410)).toBe(1);
    // 1 page, 1 failed page 2, 1 expired page 2, then 3 pages of the restarted list.
    expect(sim.stats.count('list', 'pods')).toBe(6);
  });

  it('honours 429 Retry-After before listing again, and reports stale meanwhile', async () => {
    const sim = await startSim({ objects: [service('a')] });
    sim.faults.add({ type: 'error', code: 429, retryAfterSeconds: 1, verb: 'list', resource: 'services', count: 3 });
    const started = Date.now();
    const state = startState(sim, { resources: ['services'] });
    // pageAttempts (3) are spent on the 429s, then the whole list waits Retry-After once more.
    await waitFor(() => state.status('services').health === 'stale', 'stale', 5000);
    expect(state.status('services').error).toMatchObject({ kind: 'too-many-requests', retryAfterSeconds: 1 });
    await state.waitForSync(8000);
    expect(Date.now() - started).toBeGreaterThanOrEqual(2900);
    expect(state.status('services')).toMatchObject({ health: 'synced', error: null, staleSince: null });
  }, 15_000);

  it('restarts a silent watch (watchdog) without re-listing', async () => {
    const sim = await startSim({ objects: [service('a')], bookmarkIntervalMs: 60_000 });
    const state = startState(sim, { resources: ['services'], informer: { watchdogMs: 300 } });
    await state.waitForSync(5000);
    await waitFor(() => state.status('services').watches >= 3, 'watchdog restarts', 5000);
    // No re-list: one list, then only the check before each resumed watch (the next may be under way).
    expect(state.status('services').lists).toBe(1);
    const { watches } = state.status('services');
    expect(sim.stats.count('list', 'services')).toBeGreaterThanOrEqual(watches);
    expect(sim.stats.count('list', 'services')).toBeLessThanOrEqual(watches + 1);
    sim.store.create('services', service('b'));
    await converged(state, sim);
  });

  it('bookmarks advance the resourceVersion and keep a quiet watch alive', async () => {
    const sim = await startSim({ objects: [service('a'), deployment('web')], bookmarkIntervalMs: 100 });
    const state = startState(sim, { resources: ['services', 'deployments'], informer: { watchdogMs: 400 } });
    await state.waitForSync(5000);
    const rvBefore = state.status('services').resourceVersion;
    sim.store.create('deployments', deployment('other')); // moves the global resourceVersion
    await waitFor(() => state.status('services').resourceVersion !== rvBefore, 'bookmark');
    // Bookmarks keep arriving over one and a half watchdog periods, and the watch is never restarted.
    const quietFrom = Date.now();
    await waitFor(() => Date.parse(state.status('services').lastEventAt ?? '') - quietFrom >= 600, 'bookmarks over 600 ms', 5000);
    expect(state.status('services').watches).toBe(1); // bookmarks count as activity
    expect(state.status('services').lastEventAt).not.toBeNull();
  });

  it('times out a list that hangs and recovers', async () => {
    const sim = await startSim({ objects: [service('a')] });
    sim.faults.add({ type: 'hang', verb: 'list', resource: 'services', count: 3 });
    const state = new LiveClusterSource(connect(sim, 200), { ...FAST, resources: ['services'], informer: { ...FAST.informer, listTimeoutMs: 200 } });
    states.push(state);
    state.start();
    await waitFor(() => state.status('services').health === 'stale', 'stale', 5000);
    expect(state.status('services').error?.kind).toBe('timeout');
    expect(await state.waitForSync(5000)).toBe(true);
    expect(state.snapshot().services).toHaveLength(1);
  });
});

describe('mutations against the simulator', () => {
  it('patches an annotation with a resourceVersion precondition; a stale write gets 409', async () => {
    const sim = await startSim({ objects: [service('web')] });
    const connection = connect(sim);
    const current = await readServiceAnnotations(connection, 'default', 'web');
    if (!current.ok) throw new Error('read failed');

    const first = await patchServiceAnnotation(connection, 'default', 'web', 'service.kubernetes.io/topology-aware-hints', 'auto', current.resourceVersion);
    if (!first.ok) throw new Error(`patch failed: ${first.error.message}`);
    expect(first.annotations['service.kubernetes.io/topology-aware-hints']).toBe('auto');
    expect(first.resourceVersion).not.toBe(current.resourceVersion);

    // Writing the new key removes the legacy one in the same patch.
    const second = await patchServiceAnnotation(connection, 'default', 'web', 'service.kubernetes.io/topology-mode', 'Auto', first.resourceVersion, {
      alsoRemove: ['service.kubernetes.io/topology-aware-hints'],
    });
    if (!second.ok) throw new Error(`patch failed: ${second.error.message}`);
    expect(second.annotations).toEqual({ 'service.kubernetes.io/topology-mode': 'Auto' });
    const stored = sim.store.get('services', 'default', 'web');
    expect(stored?.metadata.annotations).toEqual({ 'service.kubernetes.io/topology-mode': 'Auto' });
    expect(stored?.metadata.labels).toEqual({ app: 'web' }); // nothing else touched

    const stale = await patchServiceAnnotation(connection, 'default', 'web', 'service.kubernetes.io/topology-mode', null, first.resourceVersion);
    expect(stale).toEqual({
      ok: false,
      error: expect.objectContaining({ kind: 'conflict', status: 409, reason: 'Conflict' }) as unknown,
    });
    expect(sim.store.get('services', 'default', 'web')?.metadata.annotations).toEqual({ 'service.kubernetes.io/topology-mode': 'Auto' });
    expect(sim.stats.count('patch', 'services')).toBe(3);
  });

  it('refuses invalid names before any request, and maps 404 and 403', async () => {
    const sim = await startSim({ objects: [service('web')] });
    const connection = connect(sim);
    for (const [namespace, name] of [['..', 'web'], ['default', 'a/b'], ['default', '%2e%2e'], ['', 'web'], ['default', 'Web'], ['default', 'x'.repeat(64)]] as const) {
      const result = await patchServiceAnnotation(connection, namespace, name, 'service.kubernetes.io/topology-mode', 'Auto', '1');
      expect(result.ok ? 'ok' : result.error.kind).toBe('bad-request');
    }
    expect((await patchServiceAnnotation(connection, 'default', 'web', 'bad key!', 'x', '1')).ok).toBe(false);
    expect(sim.stats.snapshot().total).toBe(0);

    const missing = await patchServiceAnnotation(connection, 'default', 'nope', 'service.kubernetes.io/topology-mode', 'Auto', '1');
    expect(missing.ok ? null : missing.error.kind).toBe('not-found');
    sim.faults.deny({ verb: 'patch', resource: 'services' });
    const denied = await patchServiceAnnotation(connection, 'default', 'web', 'service.kubernetes.io/topology-mode', 'Auto', '1');
    expect(denied.ok ? null : denied.error).toMatchObject({ kind: 'forbidden', status: 403 });
  });

  it('reports a hung patch as timeout (outcome unknown), never success', async () => {
    const sim = await startSim({ objects: [service('web')] });
    sim.faults.add({ type: 'hang', verb: 'patch', resource: 'services', count: 1 });
    const connection = connect(sim);
    const rv = sim.store.get('services', 'default', 'web')?.metadata.resourceVersion ?? '';
    const started = Date.now();
    const result = await patchServiceAnnotation(connection, 'default', 'web', 'service.kubernetes.io/topology-mode', 'Auto', rv, { timeoutMs: 300 });
    expect(result.ok ? null : result.error.kind).toBe('timeout');
    expect(Date.now() - started).toBeLessThan(2000);
    const reread = await readServiceAnnotations(connection, 'default', 'web');
    expect(reread.ok && reread.resourceVersion).toBe(rv);
  });

  it('answers canPatchService from a SelfSubjectAccessReview (allow and deny)', async () => {
    const sim = await startSim({ objects: [service('web')] });
    const connection = connect(sim);
    expect(await canPatchService(connection, 'default', 'web')).toMatchObject({ ok: true, allowed: true });
    sim.faults.deny({ verb: 'patch', resource: 'services', namespace: 'default' });
    const denied = await canPatchService(connection, 'default', 'web');
    expect(denied).toMatchObject({ ok: true, allowed: false });
    expect(await canPatchService(connection, 'other', 'web')).toMatchObject({ ok: true, allowed: true });
    expect(sim.stats.count('create', 'selfsubjectaccessreviews')).toBe(3);
  });
});
