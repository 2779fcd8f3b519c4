/**
 * Measured traffic in every cluster of a fleet, end to end: two simulators behind one kubeconfig
 * (context `east`, the default, serving eks-demo with its deliberate deviations; `west`, the same
 * objects without them — storefront moves 1× its modelled volume instead of 100×, catalog is not
 * keep-alive skewed — so the two clusters' Services share names but not traffic), Beyla's zone
 * attributes switched on in both, and ONE real Prometheus that scrapes both `/__sim/metrics` with a
 * target label `cluster="east"` / `cluster="west"` per job, as a Prometheus or Thanos several
 * clusters share. `ZONESCOPE_PROMETHEUS_URL` is that Prometheus, `ZONESCOPE_PROMETHEUS_SELECTOR`
 * picks the default cluster's series and `ZONESCOPE_PROMETHEUS_BY_CONTEXT` gives `west` its
 * selector.
 *
 * Each cluster's measured volumes must equal what its own simulator sent (`GET
 * /__sim/traffic-rates`): a cluster reading the other's series too would count every shared
 * Service twice. The fleet rows cost each cluster with its own measured figures. A third context,
 * `down` (nothing answers there), has no entry: not configured, with the hint; opening it at the
 * open-cluster limit closes `west` (only the fleet had opened it), which stops west's traffic
 * source. Last, an entry for the default cluster's context replaces its
 * `ZONESCOPE_PROMETHEUS_SELECTOR`.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitForAnalysis } from '../server/analysis';
import type { ClusterScope } from '../server/clusters';
import { defaultScope, isScopeError, scopeFor } from '../server/clusters';
import { fleetView } from './fleet/fleet';
import { getClusterTraffic, getMeasuredFor, getMeasuredTraffic, getMetricsStatus } from './traffic';
import { getClusterRegistry, resetClusterSource } from '../k8s/source';
import { getClusterTrafficSources, resetClusterTrafficSources } from '../prometheus/cluster-traffic-sources';
import type { TrafficSource } from '../prometheus/traffic-source';
import { getTrafficSource, resetTrafficSource } from '../prometheus/traffic-source';
import { gbPerMonthOf } from '../topology/analyses/traffic-volume';
import { defaultControllers } from '../../sim/default-controllers';
import { renderMultiContextKubeconfig } from '../../sim/kubeconfig';
import type { RunningPrometheus } from '../../sim/prometheus';
import { startPrometheus } from '../../sim/prometheus';
import { loadScenario } from '../../sim/scenario';
import type { Simulator } from '../../sim/server';
import { startSimulator } from '../../sim/server';
import type { TrafficRatesDocument } from '../../sim/traffic/rates';

/** The rate window (short, so that it fills within seconds of 1 s scrapes). */
const WINDOW_SECONDS = 5;
const ENV_KEYS = [
  'KUBECONFIG',
  'HOME',
  'KUBERNETES_SERVICE_HOST',
  'ZONESCOPE_SNAPSHOT',
  'ZONESCOPE_CONTEXT',
  'ZONESCOPE_CONTEXTS',
  'ZONESCOPE_CLUSTER_NAME',
  'ZONESCOPE_MAX_OPEN_CLUSTERS',
  'ZONESCOPE_CLUSTER_IDLE_MINUTES',
  'ZONESCOPE_PROMETHEUS_URL',
  'ZONESCOPE_PROMETHEUS_SELECTOR',
  'ZONESCOPE_PROMETHEUS_BY_CONTEXT',
  'ZONESCOPE_PROMETHEUS_TOKEN_FILE',
  'ZONESCOPE_PROMETHEUS_CA_FILE',
  'ZONESCOPE_PROMETHEUS_WINDOW',
  'ZONESCOPE_PROMETHEUS_REFRESH_SECONDS',
  'ZONESCOPE_PROMETHEUS_TIMEOUT_MS',
  'ZONESCOPE_PROMETHEUS_MAX_STALE_SECONDS',
  'ZONESCOPE_FLEET_PROMETHEUS_URL',
  'ZONESCOPE_TRAFFIC_VOLUMES',
  'ZONESCOPE_GB_PER_SERVICE',
] as const;
const saved = Object.fromEntries(ENV_KEYS.map((key) => [key, process.env[key]]));

let east: Simulator;
let west: Simulator;
let prometheus: RunningPrometheus | null = null;
let dir = '';

/** Polls `check` every 100 ms until it holds. */
async function eventually(check: () => boolean | Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function rates(sim: Simulator): Promise<TrafficRatesDocument> {
  const response = await fetch(`${sim.url}/__sim/traffic-rates`);
  if (!response.ok) throw new Error(`/__sim/traffic-rates answered ${response.status}`);
  return (await response.json()) as TrafficRatesDocument;
}

/** `actual` within 2 % of `expected` (scrape timestamps jitter by milliseconds over a 5 s window). */
function expectNear(actual: number | undefined, expected: number, what: string): void {
  expect(actual, what).toBeDefined();
  expect(Math.abs((actual ?? 0) - expected), `${what}: ${actual} vs ${expected}`).toBeLessThanOrEqual(Math.max(expected * 0.02, 1e-9));
}

async function simulator(scenarioName: string): Promise<Simulator> {
  const scenario = await loadScenario('eks-demo');
  return startSimulator({
    port: 0,
    objects: scenario.objects,
    controllers: defaultControllers(),
    ...(scenario.serverVersion !== undefined ? { version: scenario.serverVersion } : {}),
    // eks-demo's deviations for `east` only; the name is also the series' k8s_cluster_name.
    scenarioName,
    trafficMetrics: { flowZoneLabels: true },
    log: () => undefined,
  });
}

/** `west`, opened as the fleet page opens it (so that a user's cluster may take its place at the limit). */
function westScope(): ClusterScope {
  const scope = scopeFor('west', { for: 'fleet' });
  if (isScopeError(scope)) throw new Error(scope.message);
  return scope;
}

/** West's running traffic source. */
function westSource(): TrafficSource {
  const source = getClusterTrafficSources().peek('west');
  if (source === null) throw new Error('west has no traffic source');
  return source;
}

beforeAll(async () => {
  [east, west] = await Promise.all([simulator('eks-demo'), simulator('eks-demo-west')]);
  dir = await mkdtemp(path.join(tmpdir(), 'zonescope-by-context-'));
  const kubeconfig = path.join(dir, 'config');
  const contexts = [
    { context: 'east', server: east.url, token: east.token },
    { context: 'west', server: west.url, token: west.token },
    // Nobody answers there (a loopback port with nothing listening).
    { context: 'down', server: 'http://127.0.0.1:7802', token: 'none' },
  ];
  await writeFile(kubeconfig, renderMultiContextKubeconfig(contexts, 'east'), { mode: 0o600 });
  const job = (name: string, sim: Simulator) => ({ jobName: name, targets: [`127.0.0.1:${sim.port}`], metricsPath: '/__sim/metrics', scrapeIntervalSeconds: 1, labels: { cluster: name }, honorLabels: true });
  prometheus = await startPrometheus({
    // The main job is required; it scrapes nothing (no one listens there): each cluster is a job with its target label.
    scrapeTargets: ['127.0.0.1:7803'],
    extraJobs: [job('east', east), job('west', west)],
    scrapeIntervalSeconds: 1,
    dataDir: path.join(dir, 'prometheus'),
  });

  for (const key of ENV_KEYS) if (key !== 'HOME') Reflect.deleteProperty(process.env, key);
  Object.assign(process.env, {
    KUBECONFIG: kubeconfig,
    // The default and one more: opening a third for a page closes the one the fleet alone opened.
    ZONESCOPE_MAX_OPEN_CLUSTERS: '2',
    ZONESCOPE_PROMETHEUS_URL: prometheus.url,
    ZONESCOPE_PROMETHEUS_SELECTOR: 'cluster="east"',
    ZONESCOPE_PROMETHEUS_BY_CONTEXT: JSON.stringify({ west: { selector: 'cluster="west"' } }),
    ZONESCOPE_PROMETHEUS_WINDOW: `${WINDOW_SECONDS}s`,
    ZONESCOPE_PROMETHEUS_REFRESH_SECONDS: '1',
    ZONESCOPE_PROMETHEUS_TIMEOUT_MS: '2000',
    ZONESCOPE_PROMETHEUS_MAX_STALE_SECONDS: '30',
  });
  await resetClusterSource();
  await resetTrafficSource();
  await resetClusterTrafficSources();
  const defaults = defaultScope();
  if (!(await defaults.source.waitForSync(15_000))) throw new Error('east did not sync');
  if (!(await waitForAnalysis(15_000))) throw new Error('east was not analysed');
  const w = westScope();
  if (!(await w.source.waitForSync(15_000))) throw new Error('west did not sync');
  if (!(await waitForAnalysis(15_000, w.source))) throw new Error('west was not analysed');

  const running = prometheus;
  for (const name of ['east', 'west']) {
    for (const metric of ['beyla_network_flow_bytes_total', 'container_network_receive_bytes_total']) {
      await eventually(async () => (await running.query(`count(${metric}{cluster="${name}"})`)).length > 0, 15_000, `${metric} of ${name} in Prometheus`);
    }
  }
  // The rate window must hold samples of one traffic model only: wait until neither simulator's
  // model changed for a whole window (plus two scrapes).
  let generations = '';
  let since = Date.now();
  await eventually(
    async () => {
      const now = `${(await rates(east)).generation}/${(await rates(west)).generation}`;
      if (now !== generations) [generations, since] = [now, Date.now()];
      return Date.now() - since >= (WINDOW_SECONDS + 2) * 1000;
    },
    60_000,
    'both traffic models to settle for a rate window',
  );
}, 120_000);

afterAll(async () => {
  await resetClusterTrafficSources();
  await resetTrafficSource();
  await resetClusterSource();
  await prometheus?.stop();
  await Promise.all([east?.stop(), west?.stop()]);
  if (dir) await rm(dir, { recursive: true, force: true });
  for (const key of ENV_KEYS) {
    const value = saved[key];
    if (value === undefined) Reflect.deleteProperty(process.env, key);
    else process.env[key] = value;
  }
});

/** Every Service the simulator measured is measured alike in `scope`, from that cluster's own series. Returns how many were checked. */
function expectMeasuredAsSent(scope: ClusterScope, doc: TrafficRatesDocument, cluster: string): { flows: number; podBytes: number } {
  let flows = 0;
  let podBytes = 0;
  for (const service of doc.services) {
    const key = `${cluster} ${service.namespace}/${service.name}`;
    const measured = getMeasuredFor(scope, service.namespace, service.name);
    if (service.coverage === 'flows-and-pod-bytes' && service.totalBytesPerSecond > 0) {
      expect(measured?.kind, key).toBe('measured-flows');
      expectNear(measured?.gbPerMonth, gbPerMonthOf(service.totalBytesPerSecond), `${key} GB/month`);
      for (const pair of service.byZonePair) {
        const bytes = pair.requestBytesPerSecond + pair.replyBytesPerSecond;
        if (pair.clientZone === '' || pair.endpointZone === '' || bytes === 0) continue;
        expectNear(measured?.matrix?.[pair.clientZone]?.[pair.endpointZone], gbPerMonthOf(bytes), `${key} ${pair.clientZone} → ${pair.endpointZone}`);
      }
      flows += 1;
    } else if (service.coverage === 'pod-bytes' && service.podBytesPerSecond > 0) {
      expect(measured?.kind, key).toBe('measured-pod-bytes');
      expectNear(measured?.gbPerMonth, gbPerMonthOf(service.podBytesPerSecond), `${key} pod bytes`);
      podBytes += 1;
    } else if (service.coverage === 'none') {
      expect(measured, key).toBeNull();
    }
  }
  return { flows, podBytes };
}

describe('measured traffic per cluster from one Prometheus shared by two clusters', () => {
  it('each cluster reads only its own series: its measured volumes equal what its own simulator sent', async () => {
    // Two refreshes each: the first also probes how far back the data reaches.
    for (let i = 0; i < 2; i++) await Promise.all([getTrafficSource().refresh(), westSource().refresh()]);
    const eastStatus = getMetricsStatus(defaultScope());
    const westStatus = getMetricsStatus(westScope());
    for (const status of [eastStatus, westStatus]) {
      expect(status.state, status.message).toBe('ok');
      expect(status.url).toBe(prometheus?.url);
      expect(status.queriesPerRefresh).toBe(3);
      expect(status.message).toMatch(/^Measured from Prometheus at http:\/\/127\.0\.0\.1:\d+: \d+ flow series \(beyla_network_flow_bytes_total\) and \d+ pod series, rate over 5s\.$/);
    }

    const [eastDoc, westDoc] = await Promise.all([rates(east), rates(west)]);
    const eastChecked = expectMeasuredAsSent(defaultScope(), eastDoc, 'east');
    const westChecked = expectMeasuredAsSent(westScope(), westDoc, 'west');
    for (const checked of [eastChecked, westChecked]) {
      expect(checked.flows).toBeGreaterThanOrEqual(8);
      expect(checked.podBytes).toBeGreaterThanOrEqual(3);
    }

    // The same Service, different traffic: storefront moves 100× its modelled volume in east only.
    const storefront = (doc: TrafficRatesDocument) => doc.services.find((s) => s.namespace === 'shop' && s.name === 'storefront');
    expect(storefront(eastDoc)?.deviation?.kind).toBe('volume');
    expect(storefront(westDoc)?.deviation).toBeNull();
    const eastStorefront = getMeasuredFor(defaultScope(), 'shop', 'storefront')?.gbPerMonth ?? 0;
    const westStorefront = getMeasuredFor(westScope(), 'shop', 'storefront')?.gbPerMonth ?? 0;
    expect(eastStorefront).toBeGreaterThan(50 * westStorefront);

    // The inter-zone family too, per cluster.
    for (const [scope, doc, name] of [[defaultScope(), eastDoc, 'east'], [westScope(), westDoc, 'west']] as const) {
      const interZone = (doc.series ?? []).filter((s) => s.metric === doc.metrics.interZone && s.labels.src_zone !== s.labels.dst_zone).reduce((sum, s) => sum + s.bytesPerSecond, 0);
      expect(interZone, name).toBeGreaterThan(0);
      // Each cross-zone byte is in the series of both nodes' agents: their sum counts it twice.
      expectNear(getMeasuredTraffic(scope)?.interZoneGbPerMonth ?? undefined, gbPerMonthOf(interZone / 2), `${name} inter-zone GB/month`);
    }

    // The cluster figures use them, labelled; kube-dns has no series and stays assumed.
    for (const scope of [defaultScope(), westScope()]) {
      const traffic = getClusterTraffic(scope);
      expect(traffic?.status.state).toBe('ok');
      expect(traffic?.byService.get('shop/checkout')?.volume.source).toMatchObject({ kind: 'measured-flows', metric: 'beyla_network_flow_bytes_total', window: '5s' });
      expect(traffic?.byService.get('platform/auth')?.volume.source.kind).toBe('measured-pod-bytes');
      expect(traffic?.byService.get('kube-system/kube-dns')?.volume.source.kind).toBe('assumed');
    }
  }, 60_000);

  it('the fleet costs each cluster with its own measured figures and says so per row', () => {
    const view = fleetView();
    const row = (id: string) => view.clusters.find((r) => r.id === id);
    for (const [id, scope] of [['east', defaultScope()], ['west', westScope()]] as const) {
      const r = row(id);
      const report = getClusterTraffic(scope)?.report;
      expect(r?.measured, id).toBe(true);
      // kube-system is not measured: some Services' volumes stay assumed.
      expect(r?.volumeSource, id).toBe('partly-measured');
      expect(r?.crossZoneMonthly, id).toBe(report?.totals.now.monthlyCost);
      expect(r?.bestMonthly, id).toBe(report?.totals.best.monthlyCost);
    }
    // Different traffic, different costs: east's storefront alone moves 100× west's.
    expect(row('east')?.crossZoneMonthly).not.toBe(row('west')?.crossZoneMonthly);
    // `down` is beyond the limit for the fleet page: refused, no figures.
    expect(row('down')).toMatchObject({ refused: { reason: 'limit' }, crossZoneMonthly: null, measured: null, volumeSource: null });
  });

  it('a context without an entry is not configured and says how to add one; the cluster closed to make room for it stops its traffic source', async () => {
    const source = westSource();
    expect(source.running).toBe(true);
    // A user opens `down`: at the limit, west (only the fleet opened it) closes to make room.
    const down = scopeFor('down');
    if (isScopeError(down)) throw new Error(down.message);
    expect(getClusterRegistry().closedFor('west')?.id).toBe('down');
    expect(getClusterRegistry().peek('west')).toBeNull();
    // Its timer is stopped with the cluster: no further refresh runs for it.
    expect(source.running).toBe(false);
    expect(getClusterTrafficSources().peek('west')).toBeNull();
    expect(getClusterTrafficSources().ids()).toEqual([]);

    const status = getMetricsStatus(down);
    expect(status).toMatchObject({ state: 'not-configured', url: null, queriesIssued: 0 });
    expect(status.message).toBe('No Prometheus is configured for context "down" (ZONESCOPE_PROMETHEUS_BY_CONTEXT has no entry for it): traffic volumes are assumed.');
    expect(status.hint).toContain('Add "down" to ZONESCOPE_PROMETHEUS_BY_CONTEXT');
    expect(getClusterTrafficSources().peek('down')).toBeNull();
    // The default cluster's process-wide source is not the registry's to stop.
    expect(getTrafficSource().running).toBe(true);
  }, 30_000);

  it('an entry for the default cluster\'s context wins over ZONESCOPE_PROMETHEUS_SELECTOR, and its answers are mapped onto the default cluster before they are published', async () => {
    process.env.ZONESCOPE_PROMETHEUS_SELECTOR = 'cluster="nobody"';
    process.env.ZONESCOPE_PROMETHEUS_BY_CONTEXT = JSON.stringify({ east: { selector: 'cluster="east"' }, west: { selector: 'cluster="west"' } });
    await resetTrafficSource();
    await resetClusterTrafficSources();
    try {
      const scope = defaultScope();
      getMetricsStatus(scope);
      const own = getClusterTrafficSources().peek('east');
      if (own === null) throw new Error('east has no source of its own');
      for (let i = 0; i < 2; i++) await own.refresh();
      const status = getMetricsStatus(scope);
      expect(status.state, status.message).toBe('ok');
      // Mapped onto the default cluster in the refresh, before any read asked for it.
      const memo = (globalThis as unknown as Record<symbol, WeakMap<object, { measured?: { measurement: unknown } }> | undefined>)[Symbol.for('zonescope.trafficMemo')];
      expect(memo?.get(scope.source)?.measured?.measurement).toBe(own.measurement());
      const checked = expectMeasuredAsSent(scope, await rates(east), 'east (its own entry)');
      expect(checked.flows).toBeGreaterThanOrEqual(8);
    } finally {
      process.env.ZONESCOPE_PROMETHEUS_SELECTOR = 'cluster="east"';
      process.env.ZONESCOPE_PROMETHEUS_BY_CONTEXT = JSON.stringify({ west: { selector: 'cluster="west"' } });
      await resetClusterTrafficSources();
    }
  }, 30_000);
});
