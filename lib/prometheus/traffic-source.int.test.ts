/**
 * Measured traffic end to end: the simulator (eks-demo) exports Beyla and cAdvisor counters, a
 * real Prometheus scrapes them every second, and the process-wide traffic source and data layer
 * read them back through Prometheus' HTTP API. The figures must equal the rates the simulator
 * says it exported; when Prometheus stops, the status turns stale, then unreachable, and the
 * figures fall back to the model.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getServiceDetailView } from '../views/service/detail';
import { getClusterTraffic, getMeasuredComparison, getMeasuredFor, getMeasuredTraffic, getMetricsStatus } from '../views/traffic';
import { waitForAnalysis } from '../server/analysis';
import { getClusterSource, resetClusterSource } from '../k8s/source';
import { gbPerMonthOf } from '../topology/analyses/traffic-volume';
import { createEndpointSliceController } from '../../sim/controllers/endpointslice-controller';
import { createWorkloadsController } from '../../sim/controllers/workloads-controller';
import type { RunningPrometheus } from '../../sim/prometheus';
import { startPrometheus } from '../../sim/prometheus';
import { loadScenario } from '../../sim/scenario';
import type { Simulator } from '../../sim/server';
import { startSimulator } from '../../sim/server';
import { samplesHeld, scrapedSince, settleControllers } from '../../sim/test-support';
import type { TrafficRatesDocument } from '../../sim/traffic/rates';
import { getTrafficSource, resetTrafficSource } from './traffic-source';
import { defaultScope } from '../server/clusters';
import { CHANGE_NAMESPACE, CHANGE_SERVICE, createChangeTarget, setChangeEndpointReady, someNodes } from '../../scripts/bench/cluster';

/** The rate window of the test (short, so that it fills within seconds of 1 s scrapes). */
const WINDOW_SECONDS = 5;
const ENV_KEYS = [
  'KUBECONFIG',
  'ZONESCOPE_SNAPSHOT',
  'ZONESCOPE_CONTEXT',
  'KUBERNETES_SERVICE_HOST',
  'ZONESCOPE_PROMETHEUS_URL',
  'ZONESCOPE_PROMETHEUS_TOKEN_FILE',
  'ZONESCOPE_PROMETHEUS_CA_FILE',
  'ZONESCOPE_PROMETHEUS_WINDOW',
  'ZONESCOPE_PROMETHEUS_REFRESH_SECONDS',
  'ZONESCOPE_PROMETHEUS_TIMEOUT_MS',
  'ZONESCOPE_PROMETHEUS_MAX_STALE_SECONDS',
] as const;

let sim: Simulator;
let prometheus: RunningPrometheus | null = null;
let dir = '';
const saved: Record<string, string | undefined> = {};

async function rates(): Promise<TrafficRatesDocument> {
  const response = await fetch(`${sim.url}/__sim/traffic-rates`);
  if (!response.ok) throw new Error(`/__sim/traffic-rates answered ${response.status}`);
  return (await response.json()) as TrafficRatesDocument;
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Polls `check` every 50 ms until it holds. */
async function eventually(check: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await delay(50);
  }
}

/** `actual` within 2 % of `expected` (scrape timestamps jitter by milliseconds over a 5 s window). */
function expectNear(actual: number | undefined, expected: number, what: string): void {
  expect(actual, what).toBeDefined();
  expect(Math.abs((actual ?? 0) - expected), `${what}: ${actual} vs ${expected}`).toBeLessThanOrEqual(Math.max(expected * 0.02, 1e-9));
}

beforeAll(async () => {
  for (const key of ENV_KEYS) saved[key] = process.env[key];
  const scenario = await loadScenario('eks-demo');
  const controllers = [createWorkloadsController(), createEndpointSliceController()];
  sim = await startSimulator({
    port: 0,
    objects: scenario.objects,
    controllers,
    ...(scenario.serverVersion !== undefined ? { version: scenario.serverVersion } : {}),
    // Beyla configured as docs/traffic.md says: src.zone/dst.zone added to the flow metric.
    trafficMetrics: { flowZoneLabels: true },
    log: () => undefined,
  });
  dir = await mkdtemp(path.join(tmpdir(), 'zonescope-traffic-'));
  const kubeconfig = await sim.writeKubeconfig(path.join(dir, 'kubeconfig'));
  prometheus = await startPrometheus({ scrapeTargets: [`127.0.0.1:${sim.port}`], metricsPath: '/__sim/metrics', scrapeIntervalSeconds: 1, dataDir: path.join(dir, 'prometheus') });
  for (const key of ENV_KEYS) Reflect.deleteProperty(process.env, key);
  process.env.KUBECONFIG = kubeconfig;
  process.env.ZONESCOPE_PROMETHEUS_URL = prometheus.url;
  process.env.ZONESCOPE_PROMETHEUS_WINDOW = `${WINDOW_SECONDS}s`;
  process.env.ZONESCOPE_PROMETHEUS_REFRESH_SECONDS = '1';
  process.env.ZONESCOPE_PROMETHEUS_TIMEOUT_MS = '2000';
  process.env.ZONESCOPE_PROMETHEUS_MAX_STALE_SECONDS = '2';
  await resetClusterSource();
  await resetTrafficSource();
  if (!(await getClusterSource().waitForSync(15_000))) throw new Error('the cluster source did not sync');
  if (!(await waitForAnalysis(15_000))) throw new Error('the first analysis pass did not finish');
  await prometheus.waitForSeries('beyla_network_flow_bytes_total', 15_000);
  // The rate window must hold samples of one model generation only: settle the controllers (the
  // model follows the store), then wait until Prometheus's newest scrape is a window and a scrape
  // past that moment, with the generation unchanged.
  for (let attempt = 0; ; attempt++) {
    settleControllers(sim.store, controllers);
    const settled = await rates();
    await scrapedSince(prometheus, 'beyla_network_flow_bytes_total', Date.parse(settled.at) / 1000 + WINDOW_SECONDS + 1);
    if ((await rates()).generation === settled.generation) break;
    if (attempt === 4) throw new Error("the simulator's traffic model kept changing");
  }
}, 90_000);

afterAll(async () => {
  await resetTrafficSource();
  await resetClusterSource();
  await prometheus?.stop();
  await sim?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
  for (const key of ENV_KEYS) {
    const value = saved[key];
    if (value === undefined) Reflect.deleteProperty(process.env, key);
    else process.env[key] = value;
  }
});

describe('measured traffic from a real Prometheus scraping the simulator', () => {
  it('per-Service volumes and zone matrices equal the rates the simulator exported; the deviations show', async () => {
    // The first refresh also probes how far back the data reaches; the steady state is three queries.
    await getTrafficSource().refresh();
    await getTrafficSource().refresh();
    const status = getMetricsStatus(defaultScope());
    expect(status.state, status.message).toBe('ok');
    expect(status.url).toBe(prometheus?.url);
    expect(status.queriesPerRefresh).toBe(3);
    expect(status.message).toMatch(/^Measured from Prometheus at http:\/\/127\.0\.0\.1:\d+: \d+ flow series \(beyla_network_flow_bytes_total\) and \d+ pod series, rate over 5s\.$/);
    const doc = await rates();

    let flowsChecked = 0;
    let podBytesChecked = 0;
    for (const service of doc.services) {
      const key = `${service.namespace}/${service.name}`;
      const measured = getMeasuredFor(defaultScope(), service.namespace, service.name);
      if (service.coverage === 'flows-and-pod-bytes' && service.totalBytesPerSecond > 0) {
        expect(measured?.kind, key).toBe('measured-flows');
        expectNear(measured?.gbPerMonth, gbPerMonthOf(service.totalBytesPerSecond), `${key} GB/month`);
        for (const pair of service.byZonePair) {
          if (pair.clientZone === '' || pair.endpointZone === '') continue;
          const bytes = pair.requestBytesPerSecond + pair.replyBytesPerSecond;
          if (bytes === 0) continue;
          expectNear(measured?.matrix?.[pair.clientZone]?.[pair.endpointZone], gbPerMonthOf(bytes), `${key} ${pair.clientZone} → ${pair.endpointZone}`);
        }
        flowsChecked += 1;
      } else if (service.coverage === 'pod-bytes' && service.podBytesPerSecond > 0) {
        expect(measured?.kind, key).toBe('measured-pod-bytes');
        expect(measured?.matrix).toBeNull();
        expectNear(measured?.gbPerMonth, gbPerMonthOf(service.podBytesPerSecond), `${key} pod bytes`);
        podBytesChecked += 1;
      } else if (service.coverage === 'none') {
        expect(measured, key).toBeNull();
      }
    }
    expect(flowsChecked).toBeGreaterThanOrEqual(8);
    expect(podBytesChecked).toBeGreaterThanOrEqual(3);
    expect(doc.services.filter((s) => s.namespace === 'platform').every((s) => s.coverage === 'pod-bytes')).toBe(true);
    // Pod bytes were read only outside the namespaces the flows cover (Prometheus applied the
    // namespace!~ matcher): the simulator exports pod bytes for shop's pods too.
    const series = getTrafficSource().measurement();
    const flowNamespaces = new Set([...(series?.flows ?? [])].map((f) => f.dstNamespace));
    expect(flowNamespaces.has('shop')).toBe(true);
    expect(series?.podBytes.length).toBeGreaterThan(0);
    expect(series?.podBytes.filter((p) => flowNamespaces.has(p.namespace))).toEqual([]);
    expect(new Set(series?.podBytes.map((p) => p.namespace))).toEqual(new Set(['platform']));

    // The inter-zone family: every agent reports the flows crossing its host, so each inter-zone
    // byte is in two agents' series; zonescope counts it once — what the simulator sent.
    const exported = (doc.series ?? []).filter((s) => s.metric === doc.metrics.interZone && s.labels.src_zone !== s.labels.dst_zone).reduce((sum, s) => sum + s.bytesPerSecond, 0);
    expectNear(getMeasuredTraffic(defaultScope())?.interZoneGbPerMonth ?? undefined, gbPerMonthOf(doc.flowInterZoneBytesPerSecond), 'inter-zone GB/month');
    expectNear(gbPerMonthOf(exported / 2), gbPerMonthOf(doc.flowInterZoneBytesPerSecond), 'the exported inter-zone series, halved');
    expect(getMeasuredTraffic(defaultScope())?.reconciliation?.agrees).toBe(true);

    // The cluster figures use them, labelled; kube-dns has no series and stays assumed.
    const traffic = getClusterTraffic(defaultScope());
    expect(traffic?.status.state).toBe('ok');
    expect(traffic?.byService.get('shop/checkout')?.volume.source).toMatchObject({ kind: 'measured-flows', metric: 'beyla_network_flow_bytes_total', window: '5s' });
    expect(traffic?.byService.get('platform/auth')?.volume.source.kind).toBe('measured-pod-bytes');
    expect(getMeasuredFor(defaultScope(), 'kube-system', 'kube-dns')).toBeNull();
    expect(traffic?.byService.get('kube-system/kube-dns')?.volume.source.kind).toBe('assumed');
    // storefront moves 100× its modelled volume: the largest measured Service.
    const storefront = doc.services.find((s) => s.namespace === 'shop' && s.name === 'storefront');
    expect(storefront?.deviation?.kind).toBe('volume');
    const volumes = [...(traffic?.byService.values() ?? [])].filter((s) => s.volume.source.kind === 'measured-flows').sort((a, b) => b.volume.gbPerMonth - a.volume.gbPerMonth);
    expect(volumes[0] && `${volumes[0].namespace}/${volumes[0].name}`).toBe('shop/storefront');

    // catalog is keep-alive skewed: measured ≠ predicted, and keep-alive is among the causes that fit.
    const detail = getServiceDetailView(defaultScope(), 'shop', 'catalog');
    if (!detail.ok) throw new Error('shop/catalog not found');
    const comparison = getMeasuredComparison(defaultScope(), detail.value);
    const catalog = doc.services.find((s) => s.namespace === 'shop' && s.name === 'catalog');
    expect(comparison?.agrees).toBe(false);
    expectNear(comparison?.measuredCrossZoneFraction, catalog?.crossZoneFraction ?? -1, 'catalog measured cross-zone share');
    expect(comparison?.causes.filter((c) => c.fits).map((c) => c.id)).toContain('keep-alive');
    // A Service sent as predicted agrees.
    const checkout = getServiceDetailView(defaultScope(), 'shop', 'checkout');
    if (!checkout.ok) throw new Error('shop/checkout not found');
    expect(getMeasuredComparison(defaultScope(), checkout.value)?.agrees).toBe(true);
  }, 30_000);

  it('a new answer is mapped before it is published; a change to one EndpointSlice keeps that mapping, the same object', async () => {
    // The benchmark's change target: a Service of its own whose slice the test edits (the controllers leave it alone).
    await createChangeTarget(sim.url, await someNodes(sim.url));
    const key = `${CHANGE_NAMESPACE}/${CHANGE_SERVICE}`;
    const readyOf = () => getClusterSource().index().slicesByService.get(key)?.[0]?.endpoints[0]?.ready;
    await eventually(() => readyOf() === true, 10_000, 'the change target in the index');
    // A new answer: mapped onto the cluster in the refresh, before any read asks for it.
    await getTrafficSource().refresh();
    const mappedInRefresh = (globalThis as unknown as Record<symbol, WeakMap<object, { measured?: { measurement: unknown; traffic: unknown } }> | undefined>)[Symbol.for('zonescope.trafficMemo')]?.get(getClusterSource())?.measured;
    expect(mappedInRefresh?.measurement).toBe(getTrafficSource().measurement());
    const before = getMeasuredTraffic(defaultScope());
    expect(before).not.toBeNull();
    expect(before).toBe(mappedInRefresh?.traffic);
    try {
      const generation = getClusterSource().generation;
      await setChangeEndpointReady(sim.url, 0, false);
      await eventually(() => readyOf() === false, 10_000, 'the unready endpoint in the index');
      expect(getClusterSource().generation).toBeGreaterThan(generation);
      // Same pods behind every Service: the mapping of the answer is kept, not redone.
      expect(getMeasuredTraffic(defaultScope())).toBe(before);
      expect(getMeasuredFor(defaultScope(), 'shop', 'checkout')?.kind).toBe('measured-flows');
    } finally {
      // Gone again, so the simulator's traffic model is as the other tests expect it.
      for (const object of [`apis/discovery.k8s.io/v1/namespaces/${CHANGE_NAMESPACE}/endpointslices/${CHANGE_SERVICE}-1`, `api/v1/namespaces/${CHANGE_NAMESPACE}/services/${CHANGE_SERVICE}`]) {
        await fetch(`${sim.url}/${object}`, { method: 'DELETE' });
      }
      await eventually(() => !getClusterSource().index().servicesByKey.has(key), 10_000, 'the change target gone');
    }
  }, 30_000);

  it('a window much longer than the data (10m, ~12 s of data): rates over what the data covers, equal to the exported ones, and said so', async () => {
    // A second Prometheus that starts scraping now, once the model has settled.
    const young = await startPrometheus({ scrapeTargets: [`127.0.0.1:${sim.port}`], metricsPath: '/__sim/metrics', scrapeIntervalSeconds: 1, dataDir: path.join(dir, 'prometheus-young') });
    try {
      await young.waitForSeries('beyla_network_flow_bytes_total', 15_000);
      await young.waitForSeries('container_network_receive_bytes_total', 15_000);
      // About 12 s of data (a scrape a second): the effective window is 10–59 s.
      await samplesHeld(young, 'beyla_network_flow_bytes_total', 13);
      await samplesHeld(young, 'container_network_receive_bytes_total', 13);
      process.env.ZONESCOPE_PROMETHEUS_URL = young.url;
      process.env.ZONESCOPE_PROMETHEUS_WINDOW = '10m';
      await resetTrafficSource();
      await getTrafficSource().refresh();
      const status = getMetricsStatus(defaultScope());
      expect(status.state, status.message).toBe('ok');
      expect(status.message).toMatch(/^Measured from Prometheus at http:\/\/127\.0\.0\.1:\d+: \d+ flow series \(beyla_network_flow_bytes_total\) and \d+ pod series, rate over [1-5]\ds — the data only reaches back that far \(configured window 10m\)\.$/);
      expect(status.window).toMatch(/^[1-5]\ds$/);
      const doc = await rates();
      let checked = 0;
      for (const service of doc.services) {
        const key = `${service.namespace}/${service.name}`;
        const measured = getMeasuredFor(defaultScope(), service.namespace, service.name);
        if (service.coverage === 'flows-and-pod-bytes' && service.totalBytesPerSecond > 0) {
          expect(measured?.kind, key).toBe('measured-flows');
          expectNear(measured?.gbPerMonth, gbPerMonthOf(service.totalBytesPerSecond), `${key} GB/month`);
          checked += 1;
        } else if (service.coverage === 'pod-bytes' && service.podBytesPerSecond > 0) {
          expect(measured?.kind, key).toBe('measured-pod-bytes');
          expectNear(measured?.gbPerMonth, gbPerMonthOf(service.podBytesPerSecond), `${key} pod bytes`);
          checked += 1;
        }
      }
      expect(checked).toBeGreaterThanOrEqual(11);
      // The figures carry the effective window.
      expect(getClusterTraffic(defaultScope())?.byService.get('shop/storefront')?.volume.source).toMatchObject({ kind: 'measured-flows', window: status.window, label: `measured: beyla_network_flow_bytes_total, rate over ${status.window}` });
    } finally {
      process.env.ZONESCOPE_PROMETHEUS_URL = prometheus?.url ?? '';
      process.env.ZONESCOPE_PROMETHEUS_WINDOW = `${WINDOW_SECONDS}s`;
      await resetTrafficSource();
      await young.stop();
    }
    await getTrafficSource().refresh();
    expect(getMetricsStatus(defaultScope()).state).toBe('ok');
  }, 60_000);

  it('when Prometheus stops: stale (last measurement kept), then unreachable with the figures back on the model', async () => {
    await prometheus?.stop();
    prometheus = null;
    await getTrafficSource().refresh();
    let status = getMetricsStatus(defaultScope());
    expect(status.state, status.message).toBe('stale');
    expect(status.staleSince).not.toBeNull();
    expect(status.message).toMatch(/^Prometheus at http:\/\/127\.0\.0\.1:\d+ is unreachable: connection refused\. Showing the measurement of .+ \(stale since .+\)\.$/);
    expect(getMeasuredFor(defaultScope(), 'shop', 'checkout')?.kind).toBe('measured-flows');
    expect(getClusterTraffic(defaultScope())?.byService.get('shop/checkout')?.volume.source.kind).toBe('measured-flows');

    // Once the last measurement is older than ZONESCOPE_PROMETHEUS_MAX_STALE_SECONDS (2 s), a refresh gives it up.
    await expect
      .poll(
        async () => {
          await getTrafficSource().refresh();
          return getMetricsStatus(defaultScope()).state;
        },
        { message: 'unreachable once stale for longer than 2 s', timeout: 10_000, interval: 250 },
      )
      .toBe('unreachable');
    status = getMetricsStatus(defaultScope());
    expect(status.state, status.message).toBe('unreachable');
    expect(status.message).toContain('is too old to use, so traffic volumes are assumed.');
    expect(getMeasuredFor(defaultScope(), 'shop', 'checkout')).toBeNull();
    const traffic = getClusterTraffic(defaultScope());
    expect(traffic?.status.state).toBe('unreachable');
    expect(traffic?.byService.get('shop/checkout')?.volume.source.kind).toBe('assumed');
    expect(traffic?.report.sources['measured-flows'].services).toBe(0);
  }, 20_000);
});
