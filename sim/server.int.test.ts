import {
  ApiException,
  AppsV1Api,
  AuthorizationV1Api,
  CoreV1Api,
  DiscoveryV1Api,
  EventsV1Api,
  KubeConfig,
  PatchStrategy,
  setHeaderOptions,
  type V1Service,
  VersionApi,
  Watch,
} from '@kubernetes/client-node';
import { afterEach, describe, expect, it } from 'vitest';
import type { SimController, SimContext } from './controller';
import type { Simulator, SimulatorOptions } from './server';
import { startSimulator } from './server';
import type { StatusBody } from './test-support';
import { deployment, endpointSlice, event, node, parseStatus, pod, service, waitFor } from './test-support';
import type { KubeObject } from './types';

const running: Simulator[] = [];

afterEach(async () => {
  await Promise.all(running.splice(0).map((sim) => sim.stop()));
});

async function start(options: SimulatorOptions = {}): Promise<{ sim: Simulator; kc: KubeConfig }> {
  const sim = await startSimulator({ port: 0, log: () => undefined, ...options });
  running.push(sim);
  const kc = new KubeConfig();
  kc.loadFromString(sim.kubeconfig());
  return { sim, kc };
}

/** Awaits a rejected client-node call and returns its status code and parsed Status body. */
async function failure(promise: Promise<unknown>): Promise<{ code: number; status: StatusBody }> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof ApiException) return { code: error.code, status: parseStatus(error.body) };
    throw error;
  }
  throw new Error('expected the request to fail');
}

/** A test object as client-node's Service type (JSON round trip: no Date fields are set). */
function svcBody(object: KubeObject): V1Service {
  return JSON.parse(JSON.stringify(object)) as V1Service;
}

const merge = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);
const strategic = setHeaderOptions('Content-Type', PatchStrategy.StrategicMergePatch);
const jsonPatch = setHeaderOptions('Content-Type', PatchStrategy.JsonPatch);

interface WatchedEvent {
  type: string;
  name: string;
  rv: string;
  object: Record<string, unknown>;
}

/** Starts a client-node watch collecting events; `ended` resolves when the stream ends. */
async function watch(kc: KubeConfig, path: string, query: Record<string, string | number | boolean>) {
  const events: WatchedEvent[] = [];
  let ended = false;
  let endError: unknown;
  const controller = await new Watch(kc).watch(
    path,
    query,
    (type, object: { metadata?: { name?: string; resourceVersion?: string } }) => {
      events.push({ type, name: object.metadata?.name ?? '', rv: object.metadata?.resourceVersion ?? '', object: object as Record<string, unknown> });
    },
    (error: unknown) => {
      ended = true;
      endError = error;
    },
  );
  return {
    events,
    isEnded: () => ended,
    endError: () => endError,
    stop: () => controller.abort(),
  };
}

describe('discovery and version', () => {
  it('serves /version with the configured gitVersion', async () => {
    const { kc } = await start({ version: 'v1.29.7' });
    const info = await kc.makeApiClient(VersionApi).getCode();
    expect(info).toMatchObject({ major: '1', minor: '29', gitVersion: 'v1.29.7' });
  });

  it('counts /readyz, /livez and /healthz as health checks, apart from discovery', async () => {
    const { sim } = await start();
    sim.stats.reset();
    for (const check of ['readyz', 'livez', 'healthz']) expect((await fetch(`${sim.url}/${check}`)).status).toBe(200);
    await fetch(`${sim.url}/api`);
    expect(sim.stats.snapshot()).toMatchObject({ health: 3, discovery: 1, total: 4 });
  });

  it('collects its garbage on POST /__sim/gc and goes on serving (GET is refused)', async () => {
    const { sim } = await start();
    const response = await fetch(`${sim.url}/__sim/gc`, { method: 'POST' });
    expect(response.status).toBe(200);
    const body = (await response.json()) as { heapBeforeMiB: number; heapAfterMiB: number; ms: number };
    expect(body.heapBeforeMiB).toBeGreaterThan(0);
    expect(body.heapAfterMiB).toBeGreaterThan(0);
    expect(body.ms).toBeGreaterThanOrEqual(0);
    expect((await fetch(`${sim.url}/__sim/gc`)).status).toBe(405);
    expect((await fetch(`${sim.url}/version`)).status).toBe(200);
  });

  it('lists resources with kinds, short names and verbs', async () => {
    const { sim } = await start();
    const core = (await (await fetch(`${sim.url}/api/v1`)).json()) as { resources: { name: string; shortNames?: string[]; verbs: string[]; kind: string }[] };
    const svc = core.resources.find((r) => r.name === 'services');
    expect(svc).toMatchObject({ kind: 'Service', shortNames: ['svc'], namespaced: true });
    expect(svc?.verbs).toEqual(expect.arrayContaining(['get', 'list', 'watch', 'patch']));
    const apps = (await (await fetch(`${sim.url}/apis/apps/v1`)).json()) as { resources: Record<string, unknown>[] };
    expect(apps.resources.find((r) => r.name === 'deployments/scale')).toMatchObject({ group: 'autoscaling', version: 'v1', kind: 'Scale' });
    const groups = (await (await fetch(`${sim.url}/apis`)).json()) as { groups: { name: string }[] };
    expect(groups.groups.map((g) => g.name)).toEqual(expect.arrayContaining(['apps', 'autoscaling', 'discovery.k8s.io', 'events.k8s.io', 'authorization.k8s.io']));
    expect((await fetch(`${sim.url}/openapi/v2`)).status).toBe(404);
  });
});

describe('list', () => {
  it('pages with limit and continue, every page at the first page\'s resourceVersion', async () => {
    const { sim, kc } = await start({ objects: ['e', 'a', 'd', 'b', 'c'].map((n) => service(n)) });
    const core = kc.makeApiClient(CoreV1Api);
    const first = await core.listNamespacedService({ namespace: 'default', limit: 2 });
    expect(first.items.map((s) => s.metadata?.name)).toEqual(['a', 'b']);
    expect(first.metadata?.remainingItemCount).toBe(3);
    const listRV = first.metadata?.resourceVersion;
    // A write between pages does not show up in the rest of this list.
    sim.store.create('services', service('bb'));
    const second = await core.listNamespacedService({ namespace: 'default', limit: 2, _continue: first.metadata?._continue ?? '' });
    expect(second.items.map((s) => s.metadata?.name)).toEqual(['c', 'd']);
    expect(second.metadata?.resourceVersion).toBe(listRV);
    const third = await core.listNamespacedService({ namespace: 'default', limit: 2, _continue: second.metadata?._continue ?? '' });
    expect(third.items.map((s) => s.metadata?.name)).toEqual(['e']);
    expect(third.metadata?._continue).toBeUndefined();
    const fresh = await core.listServiceForAllNamespaces();
    expect(fresh.items).toHaveLength(6);
    expect(Number(fresh.metadata?.resourceVersion)).toBeGreaterThan(Number(listRV));
  });

  it('answers 410 Expired for a continue token older than the history window', async () => {
    const { sim, kc } = await start({ historySize: 3, objects: ['a', 'b', 'c'].map((n) => service(n)) });
    const core = kc.makeApiClient(CoreV1Api);
    const first = await core.listNamespacedService({ namespace: 'default', limit: 1 });
    for (let i = 0; i < 5; i++) sim.store.create('services', service(`later${i}`));
    const { code, status } = await failure(core.listNamespacedService({ namespace: 'default', limit: 1, _continue: first.metadata?._continue ?? '' }));
    expect(code).toBe(410);
    expect(status).toMatchObject({ kind: 'Status', code: 410, reason: 'Expired' });
    expect(String(status.message)).toContain('The provided continue parameter is too old');
  });

  it('filters with label selectors and field selectors', async () => {
    const { kc } = await start({
      objects: [
        node('n1', 'z1'), node('n2', 'z2'),
        pod('p1', 'default', { app: 'web', tier: 'front' }, 'n1'),
        pod('p2', 'default', { app: 'web', tier: 'back' }, 'n2'),
        pod('p3', 'other', { app: 'api' }, 'n1'),
        event('e1', 'default', { kind: 'Service', name: 'web' }, 'TopologyAwareHintsEnabled'),
        event('e2', 'default', { kind: 'Service', name: 'api' }, 'TopologyAwareHintsDisabled'),
      ],
    });
    const core = kc.makeApiClient(CoreV1Api);
    const names = (list: { items: { metadata?: { name?: string } }[] }) => list.items.map((i) => i.metadata?.name);
    expect(names(await core.listPodForAllNamespaces({ labelSelector: 'app=web,tier notin (back)' }))).toEqual(['p1']);
    expect(names(await core.listPodForAllNamespaces({ labelSelector: 'app in (web,api),tier' }))).toEqual(['p1', 'p2']);
    expect(names(await core.listPodForAllNamespaces({ labelSelector: '!tier' }))).toEqual(['p3']);
    expect(names(await core.listPodForAllNamespaces({ fieldSelector: 'spec.nodeName=n1' }))).toEqual(['p1', 'p3']);
    expect(names(await core.listNamespacedPod({ namespace: 'default', fieldSelector: 'metadata.name!=p1' }))).toEqual(['p2']);
    expect(names(await core.listNode({ labelSelector: 'topology.kubernetes.io/zone=z2' }))).toEqual(['n2']);
    expect(names(await core.listNamespacedEvent({ namespace: 'default', fieldSelector: 'involvedObject.kind=Service,involvedObject.name=web' }))).toEqual(['e1']);
    expect(names(await core.listNamespacedEvent({ namespace: 'default', fieldSelector: 'reason=TopologyAwareHintsDisabled' }))).toEqual(['e2']);

    const bad = await failure(core.listPodForAllNamespaces({ labelSelector: 'app in (' }));
    expect(bad).toMatchObject({ code: 400, status: { reason: 'BadRequest' } });
    const unsupported = await failure(core.listNamespacedService({ namespace: 'default', fieldSelector: 'spec.nodeName=x' }));
    expect(unsupported.status).toMatchObject({ code: 400, reason: 'BadRequest', message: 'field label not supported: spec.nodeName' });
  });

  it('serves events.k8s.io/v1 Events from the same store as core Events', async () => {
    const { kc } = await start({ objects: [event('e1', 'default', { kind: 'Service', name: 'web' }, 'TopologyAwareHintsEnabled')] });
    const list = await kc.makeApiClient(EventsV1Api).listNamespacedEvent({ namespace: 'default', fieldSelector: 'regarding.name=web' });
    expect(list.items).toHaveLength(1);
    expect(list.items[0]).toMatchObject({ reason: 'TopologyAwareHintsEnabled', note: 'TopologyAwareHintsEnabled happened', regarding: { kind: 'Service', name: 'web' } });
  });

  it('renders Tables for kubectl with PartialObjectMetadata rows', async () => {
    const { sim } = await start({ objects: [node('n1', 'us-east-1a', '4')] });
    const res = await fetch(`${sim.url}/api/v1/nodes?limit=500`, {
      headers: { Accept: 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json' },
    });
    const table = (await res.json()) as { kind: string; columnDefinitions: { name: string }[]; rows: { cells: unknown[]; object: { kind: string; metadata: { labels: Record<string, string> } } }[] };
    expect(table.kind).toBe('Table');
    expect(table.columnDefinitions.map((c) => c.name).slice(0, 5)).toEqual(['Name', 'Status', 'Roles', 'Age', 'Version']);
    expect(table.rows[0]?.cells.slice(0, 3)).toEqual(['n1', 'Ready', '<none>']);
    expect(table.rows[0]?.object.kind).toBe('PartialObjectMetadata');
    expect(table.rows[0]?.object.metadata.labels['topology.kubernetes.io/zone']).toBe('us-east-1a');
    const proto = await fetch(`${sim.url}/api/v1/nodes`, { headers: { Accept: 'application/vnd.kubernetes.protobuf' } });
    expect(proto.status).toBe(406);
  });
});

describe('get, create, update, delete', () => {
  it('returns NotFound Status bodies with details', async () => {
    const { kc } = await start();
    const { code, status } = await failure(kc.makeApiClient(AppsV1Api).readNamespacedDeployment({ name: 'nope', namespace: 'default' }));
    expect(code).toBe(404);
    expect(status).toEqual({
      kind: 'Status', code: 404, reason: 'NotFound', message: 'deployments.apps "nope" not found',
      details: { name: 'nope', group: 'apps', kind: 'deployments' },
    });
  });

  it('creates with server-set fields and refuses duplicates and unknown namespaces', async () => {
    const { kc } = await start();
    const core = kc.makeApiClient(CoreV1Api);
    const created = await core.createNamespacedService({ namespace: 'default', body: svcBody(service('web')) });
    expect(created.metadata?.uid).toBeTruthy();
    expect(created.metadata?.resourceVersion).toMatch(/^\d+$/);
    expect(created.spec?.clusterIP).toMatch(/^10\.96\./);
    const dup = await failure(core.createNamespacedService({ namespace: 'default', body: svcBody(service('web')) }));
    expect(dup.status).toMatchObject({ code: 409, reason: 'AlreadyExists', message: 'services "web" already exists', details: { name: 'web', kind: 'services' } });
    const noNs = await failure(core.createNamespacedService({ namespace: 'ghost', body: svcBody(service('web', 'ghost')) }));
    expect(noNs.status).toMatchObject({ code: 404, reason: 'NotFound', message: 'namespaces "ghost" not found' });
    const bad = await failure(core.createNamespacedService({ namespace: 'default', body: svcBody(service('Bad_Name')) }));
    expect(bad.status).toMatchObject({ code: 422, reason: 'Invalid' });
  });

  it('refuses an update with a stale resourceVersion (409 Conflict) and keeps status on main-resource writes', async () => {
    const { sim, kc } = await start({ objects: [deployment('web')] });
    const apps = kc.makeApiClient(AppsV1Api);
    const current = await apps.readNamespacedDeployment({ name: 'web', namespace: 'default' });
    const next = structuredClone(current);
    if (next.spec) next.spec.replicas = 4;
    if (next.status) next.status.readyReplicas = 99;
    const updated = await apps.replaceNamespacedDeployment({ name: 'web', namespace: 'default', body: next });
    expect(updated.spec?.replicas).toBe(4);
    expect(updated.status?.readyReplicas).toBe(3);
    expect(updated.metadata?.generation).toBe(2);
    const stale = structuredClone(current);
    if (stale.spec) stale.spec.replicas = 1;
    const { code, status } = await failure(apps.replaceNamespacedDeployment({ name: 'web', namespace: 'default', body: stale }));
    expect(code).toBe(409);
    expect(status.message).toBe('Operation cannot be fulfilled on deployments.apps "web": the object has been modified; please apply your changes to the latest version and try again');
    expect(sim.store.get('deployments', 'default', 'web')?.spec).toMatchObject({ replicas: 4 });
  });

  it('deletes with a Success Status and collects owned objects', async () => {
    const { sim, kc } = await start({ objects: [deployment('web')] });
    const owner = sim.store.get('deployments', 'default', 'web');
    const uid = owner?.metadata.uid ?? '';
    const rs: KubeObject = {
      apiVersion: 'apps/v1', kind: 'ReplicaSet',
      metadata: { name: 'web-1', namespace: 'default', ownerReferences: [{ apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', uid, controller: true }] },
      spec: { replicas: 1, selector: { matchLabels: { app: 'web' } } },
    };
    const storedRs = sim.store.create('replicasets', rs);
    const p = pod('web-1-x', 'default', { app: 'web' }, 'n1');
    p.metadata.ownerReferences = [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'web-1', uid: storedRs.metadata.uid ?? '' }];
    sim.store.create('pods', p);
    const result = await kc.makeApiClient(AppsV1Api).deleteNamespacedDeployment({ name: 'web', namespace: 'default' });
    expect(result).toMatchObject({ kind: 'Status', status: 'Success', details: { name: 'web', group: 'apps', kind: 'deployments' } });
    expect(sim.store.count('replicasets')).toBe(0);
    expect(sim.store.count('pods')).toBe(0);
  });
});

describe('more API semantics', () => {
  it('lists at an exact older resourceVersion and answers 504 for a future one', async () => {
    const { sim } = await start({ objects: [service('a')] });
    const rv = sim.store.resourceVersion;
    sim.store.create('services', service('b'));
    const exact = (await (await fetch(`${sim.url}/api/v1/services?resourceVersion=${rv}&resourceVersionMatch=Exact`)).json()) as { metadata: { resourceVersion: string }; items: { metadata: { name: string } }[] };
    expect(exact.items.map((i) => i.metadata.name)).toEqual(['a']);
    expect(exact.metadata.resourceVersion).toBe(String(rv));
    const future = await fetch(`${sim.url}/api/v1/services?resourceVersion=${rv + 100}`);
    expect(future.status).toBe(504);
    const bad = await fetch(`${sim.url}/api/v1/services?resourceVersionMatch=Exact`);
    expect(bad.status).toBe(400);
  });

  it('serves PartialObjectMetadataList and deletes collections by selector', async () => {
    const { sim } = await start({ objects: [service('a', 'default', { tier: 'x' }), service('b', 'default', { tier: 'y' }), service('c', 'default', { tier: 'x' })] });
    const partial = (await (await fetch(`${sim.url}/api/v1/namespaces/default/services`, {
      headers: { Accept: 'application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io,application/json' },
    })).json()) as { kind: string; items: { kind: string; metadata: { name: string } }[] };
    expect(partial.kind).toBe('PartialObjectMetadataList');
    expect(partial.items.map((i) => `${i.kind}/${i.metadata.name}`)).toEqual(['PartialObjectMetadata/a', 'PartialObjectMetadata/b', 'PartialObjectMetadata/c']);
    const deleted = (await (await fetch(`${sim.url}/api/v1/namespaces/default/services?labelSelector=tier%3Dx`, { method: 'DELETE' })).json()) as { kind: string; items: unknown[] };
    expect(deleted.kind).toBe('ServiceList');
    expect(deleted.items).toHaveLength(2);
    expect(sim.store.all('services').map((o) => o.metadata.name)).toEqual(['b']);
  });

  it('writes status only through the status subresource and names objects from generateName', async () => {
    const { kc } = await start({ objects: [deployment('web')] });
    const apps = kc.makeApiClient(AppsV1Api);
    const patched = await apps.patchNamespacedDeploymentStatus({ name: 'web', namespace: 'default', body: { status: { readyReplicas: 1 }, spec: { replicas: 9 } } }, merge);
    expect(patched.status?.readyReplicas).toBe(1);
    expect(patched.spec?.replicas).toBe(3);
    const core = kc.makeApiClient(CoreV1Api);
    const generated = await core.createNamespacedConfigMap({ namespace: 'default', body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { generateName: 'cfg-' }, data: { a: '1' } } });
    expect(generated.metadata?.name).toMatch(/^cfg-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
  });

  it('streams the initial state then a bookmark for sendInitialEvents watches', async () => {
    const { kc } = await start({ objects: [service('a'), service('b')] });
    const w = await watch(kc, '/api/v1/services', { sendInitialEvents: true, allowWatchBookmarks: true, resourceVersionMatch: 'NotOlderThan', resourceVersion: '' });
    await waitFor(() => w.events.length === 3, 3000, 'initial events and bookmark');
    expect(w.events.map((e) => e.type)).toEqual(['ADDED', 'ADDED', 'BOOKMARK']);
    expect(w.events[2]?.object).toMatchObject({ metadata: { annotations: { 'k8s.io/initial-events-end': 'true' } } });
    w.stop();
  });
});

describe('watch', () => {
  it('streams ADDED, MODIFIED and DELETED, with selector transitions', async () => {
    const { sim, kc } = await start({ objects: [service('existing', 'default', { team: 'a' })] });
    const w = await watch(kc, '/api/v1/namespaces/default/services', { labelSelector: 'team=a' });
    await waitFor(() => w.events.length === 1, 3000, 'initial ADDED');
    expect(w.events[0]).toMatchObject({ type: 'ADDED', name: 'existing' });
    expect(sim.stats.openWatches('services')).toBe(1);

    const core = kc.makeApiClient(CoreV1Api);
    await core.createNamespacedService({ namespace: 'default', body: svcBody(service('web', 'default', { team: 'a' })) });
    await core.createNamespacedService({ namespace: 'default', body: svcBody(service('other', 'default', { team: 'b' })) });
    await core.patchNamespacedService({ name: 'web', namespace: 'default', body: { metadata: { annotations: { x: '1' } } } }, merge);
    await core.patchNamespacedService({ name: 'web', namespace: 'default', body: { metadata: { labels: { team: 'b' } } } }, merge);
    await core.patchNamespacedService({ name: 'other', namespace: 'default', body: { metadata: { labels: { team: 'a' } } } }, merge);
    await core.deleteNamespacedService({ name: 'existing', namespace: 'default' });
    await waitFor(() => w.events.length === 6, 3000, 'six events');
    expect(w.events.map((e) => `${e.type} ${e.name}`)).toEqual([
      'ADDED existing', 'ADDED web', 'MODIFIED web', 'DELETED web', 'ADDED other', 'DELETED existing',
    ]);
    const rvs = w.events.map((e) => Number(e.rv));
    expect([...rvs].sort((a, b) => a - b)).toEqual(rvs);
    w.stop();
    await waitFor(() => sim.stats.openWatches('services') === 0, 3000, 'watch closed on the server');
  });

  it('resumes after a resourceVersion and answers a too-old one with an ERROR 410 event', async () => {
    const { sim, kc } = await start({ historySize: 4 });
    const core = kc.makeApiClient(CoreV1Api);
    await core.createNamespacedService({ namespace: 'default', body: svcBody(service('a')) });
    const list = await core.listNamespacedService({ namespace: 'default' });
    const rv = list.metadata?.resourceVersion ?? '';
    await core.createNamespacedService({ namespace: 'default', body: svcBody(service('b')) });
    await core.deleteNamespacedService({ name: 'a', namespace: 'default' });

    const resumed = await watch(kc, '/api/v1/namespaces/default/services', { resourceVersion: rv });
    await waitFor(() => resumed.events.length === 2, 3000, 'replayed events');
    expect(resumed.events.map((e) => `${e.type} ${e.name}`)).toEqual(['ADDED b', 'DELETED a']);
    resumed.stop();

    for (let i = 0; i < 6; i++) sim.store.create('services', service(`more${i}`));
    const expired = await watch(kc, '/api/v1/namespaces/default/services', { resourceVersion: rv });
    await waitFor(() => expired.isEnded(), 3000, 'expired watch to end');
    expect(expired.events).toHaveLength(1);
    expect(expired.events[0]?.type).toBe('ERROR');
    expect(expired.events[0]?.object).toMatchObject({ kind: 'Status', code: 410, reason: 'Expired' });
    expect(String(expired.events[0]?.object.message)).toMatch(/^too old resource version: \d+ \(\d+\)$/);
  });

  it('sends bookmarks and ends at timeoutSeconds', async () => {
    const { sim, kc } = await start({ bookmarkIntervalMs: 40 });
    const w = await watch(kc, '/api/v1/nodes', { allowWatchBookmarks: true, timeoutSeconds: 1, resourceVersion: String(sim.store.resourceVersion) });
    sim.store.create('nodes', node('n1', 'z1'));
    await waitFor(() => w.events.some((e) => e.type === 'BOOKMARK'), 3000, 'a bookmark');
    const bookmark = w.events.find((e) => e.type === 'BOOKMARK');
    expect(bookmark?.object).toMatchObject({ kind: 'Node', apiVersion: 'v1' });
    expect(Number(bookmark?.rv)).toBeGreaterThanOrEqual(sim.store.resourceVersion);
    await waitFor(() => w.isEnded(), 3000, 'timeout');
    expect(w.endError()).toBeNull();
  });
});

describe('patch', () => {
  it('applies merge, strategic and JSON patches to annotations', async () => {
    const { kc } = await start({ objects: [service('web', 'default')] });
    const core = kc.makeApiClient(CoreV1Api);
    const a = await core.patchNamespacedService(
      { name: 'web', namespace: 'default', body: { metadata: { annotations: { 'service.kubernetes.io/topology-mode': 'Auto', keep: 'me' } } } }, merge);
    expect(a.metadata?.annotations).toEqual({ 'service.kubernetes.io/topology-mode': 'Auto', keep: 'me' });
    const b = await core.patchNamespacedService(
      { name: 'web', namespace: 'default', body: { metadata: { annotations: { 'service.kubernetes.io/topology-mode': null } } } }, strategic);
    expect(b.metadata?.annotations).toEqual({ keep: 'me' });
    const c = await core.patchNamespacedService({
      name: 'web', namespace: 'default',
      body: [
        { op: 'test', path: '/metadata/resourceVersion', value: b.metadata?.resourceVersion },
        { op: 'add', path: '/metadata/annotations/service.kubernetes.io~1topology-aware-hints', value: 'auto' },
      ],
    }, jsonPatch);
    expect(c.metadata?.annotations).toEqual({ keep: 'me', 'service.kubernetes.io/topology-aware-hints': 'auto' });
    expect(Number(c.metadata?.resourceVersion)).toBeGreaterThan(Number(b.metadata?.resourceVersion));
  });

  it('refuses a patch carrying a stale metadata.resourceVersion with an upstream-worded 409', async () => {
    const { kc } = await start({ objects: [service('x')] });
    const core = kc.makeApiClient(CoreV1Api);
    const current = await core.readNamespacedService({ name: 'x', namespace: 'default' });
    const staleRV = current.metadata?.resourceVersion ?? '';
    await core.patchNamespacedService({ name: 'x', namespace: 'default', body: { metadata: { labels: { bump: '1' } } } }, merge);
    const { code, status } = await failure(core.patchNamespacedService(
      { name: 'x', namespace: 'default', body: { metadata: { resourceVersion: staleRV, annotations: { 'service.kubernetes.io/topology-mode': 'Auto' } } } }, merge));
    expect(code).toBe(409);
    expect(status).toEqual({
      kind: 'Status', code: 409, reason: 'Conflict',
      message: 'Operation cannot be fulfilled on services "x": the object has been modified; please apply your changes to the latest version and try again',
      details: { name: 'x', group: '', kind: 'services' },
    });
    const failedTest = await failure(core.patchNamespacedService(
      { name: 'x', namespace: 'default', body: [{ op: 'test', path: '/metadata/resourceVersion', value: staleRV }] }, jsonPatch));
    expect(failedTest.status).toMatchObject({ code: 422, reason: 'Invalid' });
  });

  it('answers 415 for unsupported patch types and 400 for malformed bodies', async () => {
    const { sim } = await start({ objects: [service('x')] });
    const url = `${sim.url}/api/v1/namespaces/default/services/x`;
    const xml = await fetch(url, { method: 'PATCH', headers: { 'Content-Type': 'application/xml' }, body: '<metadata/>' });
    expect(xml.status).toBe(415);
    expect(await xml.json()).toMatchObject({ kind: 'Status', reason: 'UnsupportedMediaType', code: 415 });
    const broken = await fetch(url, { method: 'PATCH', headers: { 'Content-Type': 'application/merge-patch+json' }, body: '{"metadata":' });
    expect(broken.status).toBe(400);
    expect(await broken.json()).toMatchObject({ kind: 'Status', reason: 'BadRequest', code: 400 });
    const rename = await fetch(url, { method: 'PATCH', headers: { 'Content-Type': 'application/merge-patch+json' }, body: '{"metadata":{"name":"y"}}' });
    expect(rename.status).toBe(400);
  });
});

describe('scale subresource', () => {
  it('reads, replaces and patches a Deployment through autoscaling/v1 Scale', async () => {
    const { sim, kc } = await start({ objects: [deployment('web', 'default', 3)] });
    const apps = kc.makeApiClient(AppsV1Api);
    const scale = await apps.readNamespacedDeploymentScale({ name: 'web', namespace: 'default' });
    expect(scale).toMatchObject({ kind: 'Scale', apiVersion: 'autoscaling/v1', spec: { replicas: 3 }, status: { replicas: 3, selector: 'app=web' } });
    const patched = await apps.patchNamespacedDeploymentScale({ name: 'web', namespace: 'default', body: { spec: { replicas: 5 } } }, merge);
    expect(patched.spec?.replicas).toBe(5);
    expect(sim.store.get('deployments', 'default', 'web')?.metadata.generation).toBe(2);
    const replaced = await apps.replaceNamespacedDeploymentScale({
      name: 'web', namespace: 'default',
      body: { apiVersion: 'autoscaling/v1', kind: 'Scale', metadata: { name: 'web', namespace: 'default', resourceVersion: patched.metadata?.resourceVersion ?? '' }, spec: { replicas: 1 } },
    });
    expect(replaced.spec?.replicas).toBe(1);
    const stale = await failure(apps.replaceNamespacedDeploymentScale({
      name: 'web', namespace: 'default',
      body: { apiVersion: 'autoscaling/v1', kind: 'Scale', metadata: { name: 'web', namespace: 'default', resourceVersion: patched.metadata?.resourceVersion ?? '' }, spec: { replicas: 2 } },
    }));
    expect(stale.status).toMatchObject({ code: 409, reason: 'Conflict' });
    const negative = await failure(apps.patchNamespacedDeploymentScale({ name: 'web', namespace: 'default', body: { spec: { replicas: -1 } } }, merge));
    expect(negative.status).toMatchObject({ code: 422, reason: 'Invalid' });
    expect(sim.store.get('deployments', 'default', 'web')?.spec).toMatchObject({ replicas: 1 });
  });
});

describe('RBAC and SelfSubjectAccessReview', () => {
  it('denies configured verbs with upstream-worded 403s and answers access reviews consistently', async () => {
    const { sim, kc } = await start({
      objects: [service('x'), endpointSlice('x-1', 'default', 'x', [['10.0.0.1', 'z1']])],
      rbac: { deny: [{ verbs: ['patch', 'update'], resources: ['services'] }, { verb: 'list', resource: 'endpointslices', namespace: 'default' }] },
    });
    const core = kc.makeApiClient(CoreV1Api);
    const { code, status } = await failure(core.patchNamespacedService({ name: 'x', namespace: 'default', body: { metadata: { annotations: { a: 'b' } } } }, merge));
    expect(code).toBe(403);
    expect(status).toEqual({
      kind: 'Status', code: 403, reason: 'Forbidden',
      message: 'services "x" is forbidden: User "system:serviceaccount:zonescope:zonescope" cannot patch resource "services" in API group "" in the namespace "default"',
      details: { name: 'x', group: '', kind: 'services' },
    });
    expect((await core.readNamespacedService({ name: 'x', namespace: 'default' })).metadata?.name).toBe('x');

    const discovery = kc.makeApiClient(DiscoveryV1Api);
    const denied = await failure(discovery.listNamespacedEndpointSlice({ namespace: 'default' }));
    expect(denied.status.message).toBe('endpointslices.discovery.k8s.io is forbidden: User "system:serviceaccount:zonescope:zonescope" cannot list resource "endpointslices" in API group "discovery.k8s.io" in the namespace "default"');
    expect((await discovery.listEndpointSliceForAllNamespaces()).items).toHaveLength(1);

    const authz = kc.makeApiClient(AuthorizationV1Api);
    const review = (verb: string, namespace = 'default') =>
      authz.createSelfSubjectAccessReview({
        body: { apiVersion: 'authorization.k8s.io/v1', kind: 'SelfSubjectAccessReview', spec: { resourceAttributes: { verb, resource: 'services', namespace, group: '' } } },
      });
    expect((await review('patch')).status?.allowed).toBe(false);
    expect((await review('get')).status?.allowed).toBe(true);

    sim.faults.setRbac({ deny: [] });
    expect((await review('patch')).status?.allowed).toBe(true);
    sim.faults.setRbac({ user: 'alice', allow: [{ verbs: ['get', 'list', 'watch'], resources: ['*'] }] });
    expect((await review('patch')).status?.allowed).toBe(false);
    const readOnly = await failure(core.deleteNamespacedService({ name: 'x', namespace: 'default' }));
    expect(readOnly.status.message).toContain('User "alice" cannot delete resource "services"');
  });

  it('applies RBAC to subresources separately', async () => {
    const { kc } = await start({ objects: [deployment('web')], rbac: { deny: [{ verbs: ['patch'], resources: ['deployments/scale'] }] } });
    const apps = kc.makeApiClient(AppsV1Api);
    const denied = await failure(apps.patchNamespacedDeploymentScale({ name: 'web', namespace: 'default', body: { spec: { replicas: 2 } } }, merge));
    expect(denied.status.message).toBe('deployments.apps "web" is forbidden: User "system:serviceaccount:zonescope:zonescope" cannot patch resource "deployments/scale" in API group "apps" in the namespace "default"');
    const ok = await apps.patchNamespacedDeployment({ name: 'web', namespace: 'default', body: { metadata: { labels: { a: 'b' } } } }, merge);
    expect(ok.metadata?.labels).toMatchObject({ a: 'b' });
  });
});

describe('controller hook', () => {
  it('gives controllers store access, system writes that reach watchers, and ordered change feeds', async () => {
    const seen: string[] = [];
    let stopped = false;
    const mirror: SimController = {
      name: 'mirror',
      start(ctx: SimContext) {
        ctx.subscribe('services', (change) => {
          seen.push(`${change.type} ${change.object.metadata.name}`);
          if (change.type !== 'ADDED') return;
          const name = change.object.metadata.name;
          ctx.system.upsert('endpointslices', endpointSlice(`${name}-abc`, change.object.metadata.namespace ?? 'default', name, []));
        });
        expect(ctx.store.count('nodes')).toBe(1);
        expect(ctx.serverVersion).toBe('v1.31.4');
      },
      stop() {
        stopped = true;
      },
    };
    const { sim, kc } = await start({ objects: [node('n1', 'z1')], controllers: [mirror], rbac: { deny: [{ verbs: ['*'], resources: ['endpointslices'] }] } });
    const w = await watch(kc, '/apis/discovery.k8s.io/v1/endpointslices', {});
    // RBAC denies the client, not the system: so check through the store and a system watch.
    await waitFor(() => w.isEnded(), 3000, 'denied watch');
    sim.faults.setRbac({ deny: [] });
    const slices = await watch(kc, '/apis/discovery.k8s.io/v1/endpointslices', { resourceVersion: String(sim.store.resourceVersion) });
    await kc.makeApiClient(CoreV1Api).createNamespacedService({ namespace: 'default', body: svcBody(service('web')) });
    await waitFor(() => slices.events.length === 1, 3000, 'slice written by the controller');
    expect(slices.events[0]).toMatchObject({ type: 'ADDED', name: 'web-abc' });
    expect(seen).toEqual(['ADDED web']);
    sim.reset({ objects: true });
    expect(stopped).toBe(true);
    expect(sim.store.count('endpointslices')).toBe(0);
  });
});
