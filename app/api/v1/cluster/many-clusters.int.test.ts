/**
 * Two simulators behind one kubeconfig (contexts `east` = eks-demo, the current one, and `west` =
 * tiny, and `down`, which nobody answers), through proxy.ts and the route handlers as Next.js chains them: `/c/west/api/v1/…`
 * answers the second cluster's data while `/api/v1/…` answers the default's; `west` connects only
 * when first asked; an unknown cluster is 404, the limit of open clusters 503; the toggle writes to
 * the addressed cluster only and its audit line names it; `ZONESCOPE_READ_ONLY_CONTEXTS` makes one
 * cluster read-only and leaves the other writable; a cluster that is down answers for itself only;
 * an idle cluster closes its watches and opens afresh when asked again.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { NextRequest } from 'next/server';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { proxy } from '../../../../proxy';
import type { ApiErrorResponse, TopologyModePutResponse, TopologyModeResponse } from '../../../../lib/views/api-types';
import { waitForAnalysis } from '../../../../lib/server/analysis';
import { scopeFor, isScopeError } from '../../../../lib/server/clusters';
import { getClusterRegistry, getClusterSource, resetClusterSource } from '../../../../lib/k8s/source';
import { renderMultiContextKubeconfig } from '../../../../sim/kubeconfig';
import type { Simulator } from '../../../../sim/server';
import { eventually, ORIGIN, readJson, routeContext, sameOriginHeaders, startScenarioSimulator } from '../_testing/harness';
import { GET as getCluster } from './route';
import { GET as getGeneration } from './generation/route';
import { GET as getServices } from '../services/route';
import { GET as getToggle, PUT as putToggle } from '../services/[namespace]/[name]/topology-mode/route';

const ENV_KEYS = [
  'KUBECONFIG', 'KUBERNETES_SERVICE_HOST', 'ZONESCOPE_SNAPSHOT', 'ZONESCOPE_CONTEXT', 'ZONESCOPE_CONTEXTS', 'ZONESCOPE_READ_ONLY',
  'ZONESCOPE_READ_ONLY_CONTEXTS', 'ZONESCOPE_MAX_OPEN_CLUSTERS', 'ZONESCOPE_CLUSTER_IDLE_MINUTES', 'ZONESCOPE_HOST', 'ZONESCOPE_CLUSTER_NAME', 'PORT',
] as const;
const saved = Object.fromEntries(ENV_KEYS.map((key) => [key, process.env[key]]));

let east: Simulator;
let west: Simulator;
let dir = '';
let kubeconfig = '';


beforeAll(async () => {
  [east, west] = await Promise.all([startScenarioSimulator('eks-demo'), startScenarioSimulator('tiny')]);
  dir = await mkdtemp(path.join(tmpdir(), 'zonescope-many-'));
  kubeconfig = path.join(dir, 'config');
  // `down`: an API server nobody answers at (a port of this file's range with nothing listening).
  const contexts = [
    { context: 'east', server: east.url, token: east.token },
    { context: 'west', server: west.url, token: west.token },
    { context: 'down', server: 'http://127.0.0.1:7801', token: 'none' },
  ];
  await writeFile(kubeconfig, renderMultiContextKubeconfig(contexts, 'east'), { mode: 0o600 });
}, 30_000);

afterAll(async () => {
  await resetClusterSource();
  await Promise.all([east?.stop(), west?.stop()]);
  if (dir) await rm(dir, { recursive: true, force: true });
  for (const key of ENV_KEYS) {
    const value = saved[key];
    if (value === undefined) Reflect.deleteProperty(process.env, key);
    else process.env[key] = value;
  }
});

let logged: string[] = [];

/** The environment pointed at the two-context kubeconfig (plus `extra`), the registry reset, the default synced and analysed. */
async function connect(extra: Readonly<Record<string, string>> = {}): Promise<void> {
  for (const key of ENV_KEYS) Reflect.deleteProperty(process.env, key);
  process.env.KUBECONFIG = kubeconfig;
  process.env.ZONESCOPE_HOST = '127.0.0.1';
  process.env.PORT = '3000';
  Object.assign(process.env, extra);
  await resetClusterSource();
  if (!(await getClusterSource().waitForSync(15_000))) throw new Error('the default cluster did not sync');
  if (!(await waitForAnalysis(15_000))) throw new Error('the default cluster was not analysed');
}

/** Waits until cluster `id` is open, synced and analysed (opening it). */
async function ready(id: string): Promise<void> {
  const scope = scopeFor(id);
  if (isScopeError(scope)) throw new Error(scope.message);
  if (!(await scope.source.waitForSync(15_000))) throw new Error(`${id} did not sync`);
  if (!(await waitForAnalysis(15_000, scope.source))) throw new Error(`${id} was not analysed`);
}

beforeEach(async () => {
  east.reset();
  west.reset();
  logged = [];
  vi.spyOn(console, 'log').mockImplementation((...args: unknown[]) => {
    logged.push(args.map(String).join(' '));
  });
});
afterEach(() => {
  vi.restoreAllMocks();
});

/** One pass of proxy.ts over `url` with `headers`: where Next.js goes next and the request headers it applies. */
function proxyPass(url: string, method: string, headers: Headers): { readonly url: string; readonly headers: Headers } {
  const result = proxy(new NextRequest(url, { method, headers }));
  if (result.status !== 200) throw new Error(`the proxy answered ${result.status} for ${url}`);
  const next = new Headers();
  for (const name of (result.headers.get('x-middleware-override-headers') ?? '').split(',').filter(Boolean)) {
    const value = result.headers.get(`x-middleware-request-${name}`);
    if (value !== null) next.set(name, value);
  }
  return { url: result.headers.get('x-middleware-rewrite') ?? url, headers: next };
}

/**
 * The request a route handler gets for `pathAndQuery` after proxy.ts, as Next.js applies it: the
 * rewritten path with the request headers of `x-middleware-override-headers`, after the second
 * pass Next.js makes over the rewritten path.
 */
function throughProxy(pathAndQuery: string, init: { method?: string; headers?: Record<string, string>; body?: string } = {}): Request {
  const method = init.method ?? 'GET';
  const first = proxyPass(`${ORIGIN}${pathAndQuery}`, method, new Headers({ host: new URL(ORIGIN).host, ...init.headers }));
  const second = first.url === `${ORIGIN}${pathAndQuery}` ? first : proxyPass(first.url, method, first.headers);
  return new Request(second.url, { method, headers: second.headers, ...(init.body !== undefined ? { body: init.body } : {}) });
}

type ClusterBody = { cluster: { zones: { name: string }[] }; header: { clusterId: string; isDefault: boolean; contextName: string | null; serverUrl: string | null } };

async function openWatches(sim: Simulator): Promise<number> {
  const stats = (await (await fetch(`${sim.url}/__sim/stats`)).json()) as { openWatches: Record<string, number> };
  return Object.values(stats.openWatches).reduce((a, b) => a + b, 0);
}

describe('two clusters behind one kubeconfig', () => {
  it('answers /api/v1/cluster for the default and /c/west/api/v1/cluster for the second, which connects only when first asked', { timeout: 60_000 }, async () => {
    await connect();
    expect(await openWatches(west)).toBe(0);

    const plain = await getCluster(throughProxy('/api/v1/cluster'));
    expect(plain.status).toBe(200);
    const a = await readJson<ClusterBody>(plain);
    expect(a.cluster.zones.map((zone) => zone.name)).toEqual(['ap-northeast-2a', 'ap-northeast-2b', 'ap-northeast-2c']);
    expect(a.header).toMatchObject({ clusterId: 'east', isDefault: true, contextName: 'east', serverUrl: east.url });
    expect(await openWatches(west)).toBe(0);

    // The first request opens west: it answers "syncing" until its own first sync and pass.
    const first = await getCluster(throughProxy('/c/west/api/v1/cluster'));
    expect([200, 503]).toContain(first.status);
    await eventually(async () => (await openWatches(west)) > 0, 10_000, 'west watches');
    await ready('west');
    const prefixed = await getCluster(throughProxy('/c/west/api/v1/cluster'));
    expect(prefixed.status).toBe(200);
    const b = await readJson<ClusterBody>(prefixed);
    expect(b.cluster.zones.map((zone) => zone.name)).toEqual(['us-east-1a', 'us-east-1b', 'us-east-1c']);
    expect(b.header).toMatchObject({ clusterId: 'west', isDefault: false, contextName: 'west', serverUrl: west.url });

    // The default is still the default, and a client-sent header does not pick a cluster.
    const spoofed = await readJson<ClusterBody>(await getCluster(throughProxy('/api/v1/cluster', { headers: { 'x-zonescope-cluster': 'west' } })));
    expect(spoofed.header.clusterId).toBe('east');

    // The Services and the generation poll are the cluster's too.
    const services = await readJson<{ items: { namespace: string; name: string }[] }>(await getServices(throughProxy('/c/west/api/v1/services')));
    expect(services.items.map((s) => `${s.namespace}/${s.name}`)).toContain('default/web');
    expect(services.items.map((s) => `${s.namespace}/${s.name}`)).not.toContain('shop/cart');
    const westGeneration = await readJson<{ generation: number; synced: boolean }>(getGeneration(throughProxy('/c/west/api/v1/cluster/generation')));
    expect(westGeneration.synced).toBe(true);
    const westSource = scopeFor('west');
    if (isScopeError(westSource)) throw new Error(westSource.message);
    expect(westGeneration.generation).toBe(westSource.source.generation);
  });

  it('answers 404 not-found:cluster naming the clusters for an unknown id, and 503 with the registry\'s message at the limit', { timeout: 60_000 }, async () => {
    await connect({ ZONESCOPE_MAX_OPEN_CLUSTERS: '1' });
    const unknown = await getCluster(throughProxy('/c/north/api/v1/cluster'));
    expect(unknown.status).toBe(404);
    const body = await readJson<ApiErrorResponse>(unknown);
    expect(body.error.code).toBe('not-found:cluster');
    expect(body.error.message).toContain('east, west');
    const limited = await getCluster(throughProxy('/c/west/api/v1/cluster'));
    expect(limited.status).toBe(503);
    const refusal = await readJson<ApiErrorResponse>(limited);
    expect(refusal.error.code).toBe('cluster-unavailable:cluster');
    expect(refusal.error.message).toMatch(/^Cannot open cluster "west": 1 cluster is open, the most ZONESCOPE_MAX_OPEN_CLUSTERS allows\./);
    expect(await openWatches(west)).toBe(0);
    // The default is unaffected.
    expect((await getCluster(throughProxy('/api/v1/cluster'))).status).toBe(200);
  });

  it('toggles in the addressed cluster only, and the audit line names it', { timeout: 60_000 }, async () => {
    await connect();
    await ready('west');
    const route = '/api/v1/services/default/web/topology-mode';
    const state = await readJson<TopologyModeResponse>(await getToggle(throughProxy(`/c/west${route}`), routeContext({ namespace: 'default', name: 'web' })));
    expect(state).toMatchObject({ namespace: 'default', name: 'web', cluster: { id: 'west', name: 'west', context: 'west' }, readOnly: false, canPatch: true });
    const response = await putToggle(
      throughProxy(`/c/west${route}`, { method: 'PUT', headers: sameOriginHeaders(state.resourceVersion), body: JSON.stringify({ mode: 'Auto' }) }),
      routeContext({ namespace: 'default', name: 'web' }),
    );
    expect(response.status).toBe(200);
    expect((await readJson<TopologyModePutResponse>(response)).result.status).toBe('applied');
    expect(west.stats.count('patch', 'services')).toBe(1);
    expect(east.stats.count('patch', 'services')).toBe(0);
    const read = await fetch(`${west.url}/api/v1/namespaces/default/services/web`, { headers: { authorization: `Bearer ${west.token}` } });
    expect(((await read.json()) as { metadata: { annotations?: Record<string, string> } }).metadata.annotations?.['service.kubernetes.io/topology-mode']).toBe('Auto');
    const audits = logged.filter((line) => line.includes('"zonescope.audit"')).map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(audits).toHaveLength(1);
    expect(audits[0]).toMatchObject({ cluster: 'west', service: 'default/web', outcome: 'applied' });
  });

  it('an RBAC denial in one cluster disables its toggle with a reason naming that cluster; the other stays allowed', { timeout: 60_000 }, async () => {
    west.faults.setRbac({ deny: [{ verb: 'patch', resource: 'services' }] });
    await connect();
    await ready('west');
    const westState = await readJson<TopologyModeResponse>(await getToggle(throughProxy('/c/west/api/v1/services/default/web/topology-mode'), routeContext({ namespace: 'default', name: 'web' })));
    expect(westState).toMatchObject({ cluster: { id: 'west' }, canPatch: false, permissionCheckFailed: false });
    expect(westState.notAllowedReason).toMatch(/^Not permitted: .+ may not patch Services in "default" in cluster west\. The RBAC rule that grants it/);
    const eastState = await readJson<TopologyModeResponse>(await getToggle(throughProxy('/api/v1/services/shop/recommendations/topology-mode'), routeContext({ namespace: 'shop', name: 'recommendations' })));
    expect(eastState).toMatchObject({ cluster: { id: 'east' }, canPatch: true, notAllowedReason: null });
  });

  it('makes a context read-only with ZONESCOPE_READ_ONLY_CONTEXTS and leaves the other cluster writable', { timeout: 60_000 }, async () => {
    await connect({ ZONESCOPE_READ_ONLY_CONTEXTS: 'west' });
    await ready('west');
    const route = '/api/v1/services/default/web/topology-mode';
    const westState = await readJson<TopologyModeResponse>(await getToggle(throughProxy(`/c/west${route}`), routeContext({ namespace: 'default', name: 'web' })));
    expect(westState).toMatchObject({ readOnly: true, canPatch: false, readOnlyReason: 'Cluster west (context west) is read-only (ZONESCOPE_READ_ONLY_CONTEXTS).' });
    const refused = await putToggle(
      throughProxy(`/c/west${route}`, { method: 'PUT', headers: sameOriginHeaders(westState.resourceVersion), body: JSON.stringify({ mode: 'Auto' }) }),
      routeContext({ namespace: 'default', name: 'web' }),
    );
    expect(refused.status).toBe(403);
    expect((await readJson<ApiErrorResponse>(refused)).error.code).toBe('read-only:topology-mode');
    expect(west.stats.count('patch', 'services')).toBe(0);
    const header = await readJson<ClusterBody & { header: { readOnly: boolean } }>(await getCluster(throughProxy('/c/west/api/v1/cluster')));
    expect(header.header.readOnly).toBe(true);

    const eastState = await readJson<TopologyModeResponse>(await getToggle(throughProxy('/api/v1/services/shop/recommendations/topology-mode'), routeContext({ namespace: 'shop', name: 'recommendations' })));
    expect(eastState).toMatchObject({ cluster: { id: 'east' }, readOnly: false, readOnlyReason: null, canPatch: true });
  });

  it('toggles in the default cluster while another one is down, which answers 503 for itself only', { timeout: 60_000 }, async () => {
    await connect();
    const down = await getCluster(throughProxy('/c/down/api/v1/cluster'));
    expect(down.status).toBe(503);
    expect((await readJson<ApiErrorResponse>(down)).error.code).toMatch(/^(syncing|unavailable):cluster$/);
    const route = '/api/v1/services/shop/recommendations/topology-mode';
    const state = await readJson<TopologyModeResponse>(await getToggle(throughProxy(route), routeContext({ namespace: 'shop', name: 'recommendations' })));
    expect(state).toMatchObject({ cluster: { id: 'east' }, canPatch: true });
    const response = await putToggle(
      throughProxy(route, { method: 'PUT', headers: sameOriginHeaders(state.resourceVersion), body: JSON.stringify({ mode: 'Auto' }) }),
      routeContext({ namespace: 'shop', name: 'recommendations' }),
    );
    expect(response.status).toBe(200);
    const audits = logged.filter((line) => line.includes('"zonescope.audit"')).map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(audits.map((line) => [line.cluster, line.service, line.outcome])).toEqual([['east', 'shop/recommendations', 'applied']]);
    // The other clusters answer as before; the one that is down still answers 503.
    expect((await getCluster(throughProxy('/api/v1/cluster'))).status).toBe(200);
    await ready('west');
    expect((await getCluster(throughProxy('/c/west/api/v1/cluster'))).status).toBe(200);
    expect((await getCluster(throughProxy('/c/down/api/v1/cluster'))).status).toBe(503);
  });

  it('closes an idle cluster\'s watches, keeps the default\'s, and opens it afresh on the next request', { timeout: 60_000 }, async () => {
    // 0.002 min = 120 ms unused.
    await connect({ ZONESCOPE_CLUSTER_IDLE_MINUTES: '0.002' });
    await ready('west');
    const before = scopeFor('west');
    if (isScopeError(before)) throw new Error(before.message);
    await eventually(async () => (await openWatches(west)) > 0, 10_000, 'west watches');
    // A sweep closes it once it has been unused for 120 ms (and never the default).
    await expect.poll(() => getClusterRegistry().sweep(), { message: 'a sweep closes west once idle', timeout: 5000, interval: 20 }).toEqual(['west']);
    await eventually(async () => (await openWatches(west)) === 0, 10_000, 'west watches closed');
    expect(await openWatches(east)).toBeGreaterThan(0);
    expect((await getCluster(throughProxy('/api/v1/cluster'))).status).toBe(200);

    await ready('west');
    const after = scopeFor('west');
    if (isScopeError(after)) throw new Error(after.message);
    expect(after.source).not.toBe(before.source);
    const body = await readJson<ClusterBody>(await getCluster(throughProxy('/c/west/api/v1/cluster')));
    expect(body.cluster.zones.map((zone) => zone.name)).toEqual(['us-east-1a', 'us-east-1b', 'us-east-1c']);
  });
});
