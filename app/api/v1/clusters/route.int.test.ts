/**
 * `GET /api/v1/clusters` over one kubeconfig with three contexts, over real HTTP: eks-demo (the
 * default), missing-zone-label on a second simulator, and a context whose API server port is
 * closed. Each row says what its own cluster's analysis says, the unreachable one its error
 * (without touching the others); at the open-cluster limit the cluster beyond it is a row with the
 * registry's message; and a cluster closed after idle that opens again shows its last figures,
 * with their time, until its new analysis is there.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';

import type { FleetView } from '../../../../lib/views/fleet/fleet';
import type { FleetRow } from '../../../../lib/views/fleet/row';
import { isScopeError, scopeFor } from '../../../../lib/server/clusters';
import { getClusterRegistry, resetClusterSource } from '../../../../lib/k8s/source';
import { renderMultiContextKubeconfig } from '../../../../sim/kubeconfig';
import type { Simulator } from '../../../../sim/server';
import { startScenarioSimulator } from '../_testing/harness';
import { DELETE, GET, POST } from './route';

const ENV_KEYS = ['KUBECONFIG', 'HOME', 'KUBERNETES_SERVICE_HOST', 'ZONESCOPE_SNAPSHOT', 'ZONESCOPE_CONTEXT', 'ZONESCOPE_CONTEXTS', 'ZONESCOPE_MAX_OPEN_CLUSTERS', 'ZONESCOPE_CLUSTER_IDLE_MINUTES', 'ZONESCOPE_CLUSTER_NAME', 'ZONESCOPE_FLEET_PROMETHEUS_URL'] as const;
const saved = Object.fromEntries(ENV_KEYS.map((key) => [key, process.env[key]]));
const tmp = mkdtempSync(path.join(tmpdir(), 'zonescope-fleet-int-'));
const sims: Simulator[] = [];
let kubeconfig = '';

async function startScenario(name: string): Promise<Simulator> {
  const sim = await startScenarioSimulator(name);
  sims.push(sim);
  return sim;
}

/** A loopback port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}


beforeAll(async () => {
  const [demo, missing] = await Promise.all([startScenario('eks-demo'), startScenario('missing-zone-label')]);
  const down = `http://127.0.0.1:${await closedPort()}`;
  const contexts = [
    { context: 'demo', server: demo.url, token: demo.token },
    { context: 'arn:aws:eks:eu-west-1:123456789012:cluster/missing', server: missing.url, token: missing.token },
    { context: 'down', server: down, token: 'nothing' },
  ];
  kubeconfig = path.join(tmp, 'config');
  writeFileSync(kubeconfig, renderMultiContextKubeconfig(contexts, 'demo'), { mode: 0o600 });
});

async function configure(env: Partial<Record<(typeof ENV_KEYS)[number], string>> = {}): Promise<void> {
  await resetClusterSource();
  for (const key of ENV_KEYS) Reflect.deleteProperty(process.env, key);
  process.env.HOME = tmp;
  process.env.KUBECONFIG = kubeconfig;
  Object.assign(process.env, env);
}

afterEach(async () => {
  await resetClusterSource();
});

afterAll(async () => {
  await Promise.all(sims.map((sim) => sim.stop()));
  rmSync(tmp, { recursive: true, force: true });
  for (const key of ENV_KEYS) {
    const value = saved[key];
    if (value === undefined) Reflect.deleteProperty(process.env, key);
    else process.env[key] = value;
  }
});

async function fleet(): Promise<FleetView> {
  const response = GET();
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toContain('application/json');
  expect(response.headers.get('cache-control')).toBe('no-store');
  return (await response.json()) as FleetView;
}

/** Polls the fleet until `done` holds for its rows. */
async function fleetUntil(done: (rows: readonly FleetRow[]) => boolean, what: string, timeoutMs = 20_000): Promise<FleetView> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const view = await fleet();
    if (done(view.clusters)) return view;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(view.clusters.map((r) => [r.id, r.freshness]))}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

const row = (view: FleetView, id: string): FleetRow => {
  const found = view.clusters.find((r) => r.id === id);
  if (!found) throw new Error(`no row ${id}`);
  return found;
};

const MISSING = 'missing';

describe('GET /api/v1/clusters', () => {
  it('lists every context with its own analysis, the unreachable one with its error', { timeout: 40_000 }, async () => {
    await configure();
    const view = await fleetUntil((rows) => rows.filter((r) => r.freshness.kind === 'synced').length === 2 && rows.some((r) => r.freshness.kind === 'error'), 'two synced clusters and one error');
    expect(Object.keys(view).sort()).toEqual(['clusters', 'defaultId', 'fleetPrometheus', 'generatedAt', 'idleMinutes', 'maxOpen', 'openCount']);
    expect(view.fleetPrometheus).toBeNull();
    expect(view.clusters.every((r) => r.source === 'connected')).toBe(true);
    expect(view).toMatchObject({ defaultId: 'demo', openCount: 3, maxOpen: 8, idleMinutes: 15 });
    expect(view.clusters.map((r) => [r.id, r.isDefault, r.href])).toEqual([
      ['demo', true, '/'],
      [expect.stringMatching(/^missing-[0-9a-f]{6}$/), false, expect.stringMatching(/^\/c\/missing-[0-9a-f]{6}$/)],
      ['down', false, '/c/down'],
    ]);

    const demo = row(view, 'demo');
    expect(demo).toMatchObject({ state: 'open', release: '1.31', platform: 'eks', eligible: true, proxyMode: 'iptables', services: 13, askingForHints: 9, needingAttention: 8, refused: null });
    expect(demo.crossZoneMonthly).toBeGreaterThan(demo.bestMonthly ?? Infinity);
    expect(demo.topService?.href).toMatch(/^\/services\/[^/]+\/[^/]+$/);

    const missing = row(view, view.clusters[1]?.id ?? '');
    expect(missing.displayName).toBe(MISSING);
    expect(missing).toMatchObject({ state: 'open', eligible: false, services: 2, saving: 0, commonAttention: { reason: 'hints-off', services: 2 } });
    expect(missing.eligibilityVerdict).toMatch(/^Not eligible: node self-managed-node-1/);
    expect(missing.topService).toMatchObject({ namespace: 'shop', name: 'web', href: `${missing.href}/services/shop/web` });
    expect(missing.topService?.fix).toMatch(/Label self-managed-node-1/);

    const down = row(view, 'down');
    expect(down).toMatchObject({ state: 'open', services: null, crossZoneMonthly: null, asOf: null, freshness: { kind: 'error' } });
    expect(down.freshness.message).toMatch(/ECONNREFUSED|refused|connect/i);
    // Its error is its own: the other rows say nothing of it.
    expect(JSON.stringify([demo, missing])).not.toMatch(/ECONNREFUSED/);
  });

  it('refuses to open more clusters than ZONESCOPE_MAX_OPEN_CLUSTERS, saying so in the row', { timeout: 40_000 }, async () => {
    await configure({ ZONESCOPE_MAX_OPEN_CLUSTERS: '2' });
    const view = await fleetUntil((rows) => rows.filter((r) => r.freshness.kind === 'synced').length === 2, 'two synced clusters');
    expect(view).toMatchObject({ openCount: 2, maxOpen: 2 });
    const down = row(view, 'down');
    expect(down).toMatchObject({ state: 'idle', refused: { reason: 'limit' }, freshness: { kind: 'not-connected', label: 'Not connected' } });
    expect(down.refused?.message).toMatch(/^Cannot open cluster .*ZONESCOPE_MAX_OPEN_CLUSTERS/);
  });

  it('at the limit, a cluster a user opens takes the place of one only the fleet opened, and the fleet row says so', { timeout: 40_000 }, async () => {
    await configure({ ZONESCOPE_MAX_OPEN_CLUSTERS: '2' });
    const first = await fleetUntil((rows) => rows.filter((r) => r.freshness.kind === 'synced').length === 2, 'two synced clusters');
    const missing = first.clusters[1]?.id ?? '';
    expect(row(first, 'down')).toMatchObject({ refused: { reason: 'limit' } });
    // A page of "down" (what /c/down/… does): the fleet's cluster gives its place.
    const opened = scopeFor('down');
    expect(isScopeError(opened)).toBe(false);
    const after = await fleet();
    expect(after.openCount).toBe(2);
    expect(row(after, missing)).toMatchObject({ state: 'closed-idle', freshness: { kind: 'closed-idle', label: 'Closed to make room' }, asOf: row(first, missing).asOf });
    expect(row(after, missing).freshness.message).toMatch(/^Its watches were closed when down was opened at the open-cluster limit/);
    expect(row(after, 'down').refused).toBeNull();
    // Now the user's cluster holds the place: the fleet cannot take it back.
    expect(row(await fleet(), missing).state).toBe('closed-idle');
  });

  it('shows the last figures, with their time, of a cluster that closed after idle while it syncs again', { timeout: 40_000 }, async () => {
    // Idle after 300 ms; the sweep is called here (its timer runs once a minute).
    await configure({ ZONESCOPE_CONTEXTS: `demo,arn:aws:eks:eu-west-1:123456789012:cluster/${MISSING}`, ZONESCOPE_CLUSTER_IDLE_MINUTES: '0.005' });
    const first = await fleetUntil((rows) => rows.every((r) => r.freshness.kind === 'synced'), 'both synced');
    const before = row(first, first.clusters[1]?.id ?? '');
    expect(first.clusters).toHaveLength(2);
    const registry = getClusterRegistry();
    // A sweep closes it once it has been unused for 300 ms.
    await expect.poll(() => registry.sweep(), { message: 'a sweep closes it once idle', timeout: 5000, interval: 20 }).toEqual([before.id]);
    expect(registry.state(before.id)).toBe('closed-idle');
    // The fleet opens it again: until its new analysis, the row shows the previous one's figures with their time.
    const reopened = row(await fleet(), before.id);
    expect(reopened.state).toBe('open');
    // The request that reopens it cannot have its new sync yet (the list calls are still on their way).
    expect(reopened.freshness.kind).toBe('syncing');
    expect(reopened.asOf).toBe(before.asOf);
    expect(reopened.crossZoneMonthly).toBe(before.crossZoneMonthly);
    expect(reopened.topService).toEqual(before.topService);
    const after = await fleetUntil((rows) => rows.every((r) => r.freshness.kind === 'synced'), 'synced again');
    expect(Date.parse(row(after, before.id).asOf ?? '')).toBeGreaterThan(Date.parse(before.asOf ?? ''));
  });

  it('adds the clusters seen only in the fleet Prometheus, and says when it is unreachable', { timeout: 40_000 }, async () => {
    // A stand-in for the fleet Prometheus's query API (the real one is in lib/views/fleet/fleet-prometheus.int.test.ts):
    // installations "demo" (connected here too) and "far".
    const vector = (result: { metric: Record<string, string>; value: number }[]) =>
      JSON.stringify({ status: 'success', data: { resultType: 'vector', result: result.map((r) => ({ metric: r.metric, value: [Date.now() / 1000, String(r.value)] })) } });
    const queries: string[] = [];
    const prometheus = http.createServer((request, response) => {
      const query = new URL(request.url ?? '/', 'http://x').searchParams.get('query') ?? '';
      queries.push(query);
      let result: { metric: Record<string, string>; value: number }[] = [];
      if (query === 'max by (cluster) (zonescope_cluster_synced)') result = [{ metric: { cluster: 'demo' }, value: 1 }, { metric: { cluster: 'far' }, value: 1 }];
      else if (query.startsWith('max by (cluster, scenario) (zonescope_cross_zone_cost')) result = [{ metric: { cluster: 'far', scenario: 'now' }, value: 42 }, { metric: { cluster: 'demo', scenario: 'now' }, value: 999 }];
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(vector(result));
    });
    await new Promise<void>((resolve) => prometheus.listen(0, '127.0.0.1', resolve));
    try {
      const address = prometheus.address();
      if (address === null || typeof address === 'string') throw new Error('no port');
      await configure({ ZONESCOPE_FLEET_PROMETHEUS_URL: `http://127.0.0.1:${address.port}` });
      const first = await fleet();
      // The page never waits for the fleet Prometheus: its first answer comes on a later view.
      expect(first.fleetPrometheus).toMatchObject({ url: `http://127.0.0.1:${address.port}`, clusterLabel: 'cluster' });
      const view = await fleetUntil((rows) => rows.some((r) => r.source === 'prometheus') && rows.filter((r) => r.freshness.kind === 'synced').length >= 3, 'a row from the fleet Prometheus');
      expect(view.fleetPrometheus).toMatchObject({ state: 'ok', message: null, clusters: 2 });
      expect(view.clusters.map((r) => [r.id, r.source])).toEqual([
        ['demo', 'connected'],
        [expect.stringMatching(/^missing-/), 'connected'],
        ['down', 'connected'],
        ['prometheus:far', 'prometheus'],
      ]);
      expect(row(view, 'prometheus:far')).toMatchObject({ href: null, crossZoneMonthly: 42, displayName: 'far', state: 'idle' });
      // The connected demo keeps its own figures, not the exported 999.
      expect(row(view, 'demo').crossZoneMonthly).not.toBe(999);
      // At most one set of queries per 30 s, however many views.
      const asked = queries.length;
      await fleet();
      await fleet();
      expect(queries.length).toBe(asked);
    } finally {
      await new Promise<void>((resolve) => prometheus.close(() => resolve()));
    }

    await configure({ ZONESCOPE_FLEET_PROMETHEUS_URL: `http://127.0.0.1:${await closedPort()}` });
    await fleet();
    const down = await fleetUntil(() => true, 'any');
    const deadline = Date.now() + 10_000;
    let view = down;
    while (view.fleetPrometheus?.state !== 'error' && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      view = await fleet();
    }
    expect(view.fleetPrometheus?.message).toMatch(/^fleet Prometheus unreachable: Prometheus at http:\/\/127\.0\.0\.1:\d+ /);
    expect(view.clusters.map((r) => r.source)).toEqual(['connected', 'connected', 'connected']);
  });

  it('answers 405 to anything but GET', async () => {
    for (const handler of [POST, DELETE]) {
      const response = handler();
      expect(response.status).toBe(405);
      expect(response.headers.get('allow')).toBe('GET');
      expect(await response.json()).toMatchObject({ error: { code: 'method-not-allowed:clusters' } });
    }
  });
});
