/**
 * The simulator's traffic metrics over real HTTP: `/__sim/metrics` is valid Prometheus text
 * format (a small parser here, and `promtool check metrics` where installed), its counters grow
 * at exactly the rates `/__sim/traffic-rates` states (a fake clock makes that exact), the
 * coverage rules and eks-demo's deliberate deviations show, Services that disappear or appear
 * stop or start their counters, and `/__sim/traffic-options` switches the series' shapes. Then a
 * real Prometheus (Debian's) scraping two simulators reads them as it would read Beyla and
 * cAdvisor: the default label sets, zones switched on, the per-agent doubling of cross-node
 * flows, Service-typed duplicates on kube-proxy but not on Cilium's replacement, hostNetwork pods
 * as Node owners, and the OBI prefix. The model's details: traffic-metrics.test.ts.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createEndpointSliceController } from '../controllers/endpointslice-controller';
import { createWorkloadsController } from '../controllers/workloads-controller';
import { loadScenario } from '../scenario';
import type { RunningPrometheus } from '../prometheus';
import { startPrometheus } from '../prometheus';
import { findPrometheus } from '../prometheus/binary';
import type { Simulator } from '../server';
import { startSimulator } from '../server';
import { eventually, settleControllers, waitFor } from '../test-support';
import type { KubeObject } from '../types';
import { FLOW_METRIC, INTER_ZONE_METRIC } from './beyla-series';
import { POD_RECEIVE_METRIC, POD_TRANSMIT_METRIC } from './cadvisor-series';
import type { TrafficMetricsOptions } from './exporter-options';
import { seriesId } from './exposition';
import { STOREFRONT_VOLUME_FACTOR, trafficProfileFor } from './profile';
import type { SeriesRate, ServiceTrafficRates, TrafficRatesDocument } from './rates';
import { LOADGEN_WORKLOAD, REPLY_FACTOR } from './service-traffic';

const PROMTOOL = '/usr/bin/promtool';
const HAS_PROMTOOL = existsSync(PROMTOOL);
const PROMETHEUS = findPrometheus();

/** Beyla's default flow attributes in Kubernetes, plus the agent's `instance`. */
const DEFAULT_FLOW_LABELS = ['direction', 'instance', 'k8s_cluster_name', 'k8s_dst_namespace', 'k8s_dst_owner_name', 'k8s_dst_owner_type', 'k8s_src_namespace', 'k8s_src_owner_name', 'k8s_src_owner_type'];

const running: Simulator[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((sim) => sim.stop()));
});

/** One eks-demo simulator (real clock) for the tests that only read. */
let shared: Simulator;
beforeAll(async () => {
  const scenario = await loadScenario('eks-demo');
  shared = await startSimulator({
    objects: scenario.objects,
    controllers: simControllers(),
    log: () => undefined,
    ...(scenario.serverVersion !== undefined ? { version: scenario.serverVersion } : {}),
  });
  await settled(shared);
}, 30_000);
afterAll(async () => {
  await shared?.stop();
});

/** A clock the test moves by hand. */
function fakeClock(start = Date.parse('2026-12-01T10:00:00Z')): { now: () => Date; advance: (seconds: number) => void } {
  let ms = start;
  return { now: () => new Date(ms), advance: (seconds) => (ms += seconds * 1000) };
}

async function startEksDemo(now?: () => Date, trafficMetrics?: Partial<TrafficMetricsOptions>): Promise<Simulator> {
  const scenario = await loadScenario('eks-demo');
  const sim = await startSimulator({
    objects: scenario.objects,
    controllers: simControllers(),
    log: () => undefined,
    ...(scenario.serverVersion !== undefined ? { version: scenario.serverVersion } : {}),
    ...(now ? { now } : {}),
    ...(trafficMetrics ? { trafficMetrics } : {}),
  });
  running.push(sim);
  await settled(sim);
  return sim;
}

/** Every controller this file started (flushing one of a stopped or another simulator does nothing harmful). */
const startedControllers: { flush(): void }[] = [];

/** The controllers `npm run sim` runs (as `defaultControllers()`), remembered for {@link settled}. */
function simControllers(): (ReturnType<typeof createWorkloadsController> | ReturnType<typeof createEndpointSliceController>)[] {
  const list = [createWorkloadsController(), createEndpointSliceController()];
  startedControllers.push(...list);
  return list;
}

/** Settles the controllers: their queued work runs until the store stops changing (no timers involved). */
async function settled(sim: Simulator): Promise<void> {
  settleControllers(sim.store, startedControllers);
}

interface Sample {
  readonly metric: string;
  readonly labels: Record<string, string>;
  readonly value: number;
}

/**
 * A strict parser of the text exposition format as the simulator writes it: `# HELP`/`# TYPE`
 * lines before each family's samples, `name{label="value",…} value`, escapes `\\`, `\"`, `\n`.
 * Throws on anything else.
 */
function parseExposition(text: string): { samples: Sample[]; types: Map<string, string>; help: Map<string, string> } {
  const samples: Sample[] = [];
  const types = new Map<string, string>();
  const help = new Map<string, string>();
  expect(text.endsWith('\n'), 'the exposition ends with a newline').toBe(true);
  for (const [i, line] of text.slice(0, -1).split('\n').entries()) {
    const at = `line ${i + 1}: ${line.slice(0, 120)}`;
    const comment = /^# (HELP|TYPE) ([a-zA-Z_:][a-zA-Z0-9_:]*) (.*)$/.exec(line);
    if (comment) {
      const [, kind, name = '', rest = ''] = comment;
      if (kind === 'TYPE') types.set(name, rest);
      else help.set(name, rest);
      continue;
    }
    const head = /^([a-zA-Z_:][a-zA-Z0-9_:]*)\{/.exec(line);
    if (!head) throw new Error(`not a sample: ${at}`);
    const metric = head[1] ?? '';
    if (!types.has(metric)) throw new Error(`sample before its # TYPE: ${at}`);
    let pos = head[0].length;
    const labels: Record<string, string> = {};
    while (line[pos] !== '}') {
      const name = /^([a-zA-Z_][a-zA-Z0-9_]*)="/.exec(line.slice(pos));
      if (!name) throw new Error(`bad label at ${pos}: ${at}`);
      pos += name[0].length;
      let value = '';
      for (;;) {
        const c = line[pos];
        if (c === undefined) throw new Error(`unterminated label value: ${at}`);
        if (c === '"') break;
        if (c === '\\') {
          const next = line[pos + 1];
          if (next === '\\') value += '\\';
          else if (next === '"') value += '"';
          else if (next === 'n') value += '\n';
          else throw new Error(`bad escape \\${String(next)}: ${at}`);
          pos += 2;
        } else {
          value += c;
          pos++;
        }
      }
      pos++;
      const label = name[1] ?? '';
      if (label in labels) throw new Error(`label ${label} twice: ${at}`);
      labels[label] = value;
      if (line[pos] === ',') pos++;
      else if (line[pos] !== '}') throw new Error(`expected , or } at ${pos}: ${at}`);
    }
    const valueText = line.slice(pos + 1);
    if (!/^ [-+]?(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?$/.test(valueText)) throw new Error(`bad value ${JSON.stringify(valueText)}: ${at}`);
    samples.push({ metric, labels, value: Number(valueText) });
  }
  return { samples, types, help };
}

function seriesKey(metric: string, labels: Readonly<Record<string, string>>): string {
  return `${metric}${JSON.stringify(Object.entries(labels).sort(([a], [b]) => (a < b ? -1 : 1)))}`;
}

async function exposition(sim: Simulator): Promise<string> {
  const response = await fetch(`${sim.url}/__sim/metrics`);
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
  return response.text();
}

async function rates(sim: Simulator, query = ''): Promise<TrafficRatesDocument> {
  const response = await fetch(`${sim.url}/__sim/traffic-rates${query}`);
  expect(response.status).toBe(200);
  return (await response.json()) as TrafficRatesDocument;
}

function near(actual: number, expected: number, what: string, tolerance = 1e-9): void {
  expect(Math.abs(actual - expected), `${what}: ${actual} vs ${expected}`).toBeLessThanOrEqual(Math.max(1e-9, Math.abs(expected) * tolerance));
}

const total = (list: readonly { readonly bytesPerSecond: number }[]): number => list.reduce((sum, s) => sum + s.bytesPerSecond, 0);

/** A Service's workload request series (every agent; not the Service-typed ones). */
function workloadRequests(series: readonly SeriesRate[], service: ServiceTrafficRates): SeriesRate[] {
  return series.filter(
    (s) => s.metric === FLOW_METRIC && s.labels.direction === 'request' && s.labels.k8s_src_owner_name === LOADGEN_WORKLOAD && s.labels.k8s_src_namespace === service.namespace &&
      s.labels.k8s_dst_owner_type !== 'Service' && service.workloads.some((w) => w.kind === s.labels.k8s_dst_owner_type && w.name === s.labels.k8s_dst_owner_name),
  );
}

/** What the agents report of a Service's requests together: same-node bytes once, cross-node bytes twice. */
function reportedRequests(service: ServiceTrafficRates): number {
  return service.byZonePair.reduce((sum, pair) => sum + pair.requestBytesPerSecond * (2 - pair.sameNodeFraction), 0);
}

async function putTrafficOptions(sim: Simulator, body: unknown): Promise<Response> {
  return fetch(`${sim.url}/__sim/traffic-options`, { method: 'PUT', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
}

describe('GET /__sim/metrics on eks-demo', { timeout: 30_000 }, () => {
  it('is valid text format: every family a documented counter, every sample a known series', async () => {
    const sim = shared;
    const { samples, types, help } = parseExposition(await exposition(sim));
    expect([...types]).toEqual([
      [FLOW_METRIC, 'counter'],
      [INTER_ZONE_METRIC, 'counter'],
      [POD_RECEIVE_METRIC, 'counter'],
      [POD_TRANSMIT_METRIC, 'counter'],
    ]);
    for (const name of types.keys()) expect(help.get(name), name).toMatch(/zonescope simulator/);
    const flows = samples.filter((s) => s.metric === FLOW_METRIC);
    expect(flows.length).toBeGreaterThan(0);
    for (const flow of flows) expect(Object.keys(flow.labels)).toEqual(DEFAULT_FLOW_LABELS);
    expect(new Set(flows.map((s) => s.labels.k8s_cluster_name))).toEqual(new Set(['eks-demo']));
    expect(new Set(flows.map((s) => s.labels.direction))).toEqual(new Set(['request', 'response']));
    for (const flow of flows) expect(flow.labels.instance).toMatch(/^192\.168\.0\.\d+:9090$/);
    expect(Object.keys(samples.find((s) => s.metric === INTER_ZONE_METRIC)?.labels ?? {})).toEqual(['dst_zone', 'instance', 'k8s_cluster_name', 'src_zone']);
    const pods = samples.filter((s) => s.metric === POD_RECEIVE_METRIC && s.labels.pod !== undefined);
    for (const pod of pods) {
      expect(Object.keys(pod.labels)).toEqual(['container', 'id', 'image', 'instance', 'interface', 'name', 'namespace', 'pod']);
      expect(pod.labels).toMatchObject({ container: '', image: 'registry.k8s.io/pause:3.10', interface: 'eth0', instance: expect.stringMatching(/:10250$/) });
      expect(pod.labels.id).toBe(`/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod${(sim.store.get('pods', pod.labels.namespace, pod.labels.pod ?? '')?.metadata.uid ?? '?').replaceAll('-', '_')}.slice/cri-containerd-${pod.labels.name ?? ''}.scope`);
      expect(pod.labels.name).toMatch(/^[0-9a-f]{64}$/);
    }
    const roots = samples.filter((s) => s.metric === POD_RECEIVE_METRIC && s.labels.pod === undefined);
    expect(roots.map((s) => Object.keys(s.labels))).toEqual(roots.map(() => ['id', 'instance', 'interface']));
    expect(new Set(roots.map((s) => s.labels.instance)).size).toBe(roots.length);
    near(total(roots.map((s) => ({ bytesPerSecond: s.value }))), total(pods.map((s) => ({ bytesPerSecond: s.value }))), 'root cgroups hold their pods\' bytes', 1e-6);
    const keys = samples.map((s) => seriesKey(s.metric, s.labels));
    expect(new Set(keys).size, 'no series twice').toBe(keys.length);
    for (const sample of samples) expect(sample.value, seriesKey(sample.metric, sample.labels)).toBeGreaterThanOrEqual(0);
  });

  it(
    HAS_PROMTOOL ? 'passes promtool check metrics' : `passes promtool check metrics — SKIPPED: ${PROMTOOL} is not installed (apt-get install prometheus)`,
    async ({ skip }) => {
      if (!HAS_PROMTOOL) skip();
      const sim = shared;
      const text = await exposition(sim);
      // promtool prints lint problems and exits non-zero; execFileSync throws with its output then.
      const output = execFileSync(PROMTOOL, ['check', 'metrics'], { input: text, encoding: 'utf8', stdio: ['pipe', 'pipe', 'pipe'] });
      expect(output.trim()).toBe('');
    },
  );

  it('counters grow at exactly the rates /__sim/traffic-rates states, from 0 at the start', async () => {
    const clock = fakeClock();
    const sim = await startEksDemo(clock.now);
    clock.advance(60);
    const document = await rates(sim);
    const first = parseExposition(await exposition(sim)).samples;
    const series = document.series ?? [];
    expect(first.length).toBe(series.length);
    expect(document.seriesCount[FLOW_METRIC]).toBe(series.filter((s) => s.metric === FLOW_METRIC).length);
    const byKey = new Map(series.map((s) => [seriesKey(s.metric, s.labels), s.bytesPerSecond]));
    for (const sample of first) {
      const rate = byKey.get(seriesKey(sample.metric, sample.labels));
      expect(rate, `${sample.metric} ${JSON.stringify(sample.labels)} is in traffic-rates`).toBeDefined();
      near(sample.value, (rate ?? 0) * 60, `${sample.metric} after 60 s`);
    }
    clock.advance(15);
    const later = new Map(parseExposition(await exposition(sim)).samples.map((s) => [seriesKey(s.metric, s.labels), s.value]));
    for (const sample of first) {
      const key = seriesKey(sample.metric, sample.labels);
      near((later.get(key) ?? 0) - sample.value, (byKey.get(key) ?? 0) * 15, `${sample.metric} over 15 s`);
    }
  });

  it('flows, inter-zone and pod bytes add up to each Service\'s rates', async () => {
    const sim = shared;
    const document = await rates(sim);
    const series = document.series ?? [];
    for (const service of document.services.filter((s) => s.coverage === 'flows-and-pod-bytes')) {
      const replies = series.filter((s) => s.metric === FLOW_METRIC && s.labels.direction === 'response' && s.labels.k8s_dst_owner_name === LOADGEN_WORKLOAD && s.labels.k8s_src_owner_type !== 'Service' && s.labels.k8s_src_namespace === service.namespace && service.workloads.some((w) => w.name === s.labels.k8s_src_owner_name));
      const viaClusterIP = series.filter((s) => s.metric === FLOW_METRIC && s.labels.direction === 'request' && s.labels.k8s_dst_owner_type === 'Service' && s.labels.k8s_dst_namespace === service.namespace && s.labels.k8s_dst_owner_name === service.name);
      near(total(workloadRequests(series, service)), reportedRequests(service), `${service.name} request flows over agents`);
      near(total(replies), reportedRequests(service) * REPLY_FACTOR, `${service.name} reply flows over agents`);
      near(total(viaClusterIP), service.requestBytesPerSecond, `${service.name} requests to the ClusterIP`);
      near(service.totalBytesPerSecond, service.requestBytesPerSecond * (1 + REPLY_FACTOR), `${service.name} total`);
      near(service.podBytesPerSecond, service.totalBytesPerSecond, `${service.name} pod bytes`);
    }
    // Inter-zone: both agents of every cross-zone cell count it (the truth counts it once).
    const interZone = series.filter((s) => s.metric === INTER_ZONE_METRIC);
    expect(interZone.length).toBeGreaterThan(0);
    near(total(interZone), 2 * document.flowInterZoneBytesPerSecond, 'inter-zone total');
    // Pods (and the nodes' root cgroups): tx is 3× rx, the same series otherwise.
    const transmitted = new Map(series.filter((s) => s.metric === POD_TRANSMIT_METRIC).map((s) => [JSON.stringify(s.labels), s.bytesPerSecond]));
    for (const rx of series.filter((s) => s.metric === POD_RECEIVE_METRIC)) {
      near(transmitted.get(JSON.stringify(rx.labels)) ?? 0, rx.bytesPerSecond * REPLY_FACTOR, `${rx.labels.pod ?? rx.labels.instance ?? ''} tx`);
    }
  });

  it('covers Beyla everywhere but platform, and nothing of kube-system', async () => {
    const sim = shared;
    const document = await rates(sim);
    const series = document.series ?? [];
    const coverage = Object.fromEntries(document.services.map((s) => [`${s.namespace}/${s.name}`, s.coverage]));
    expect(coverage['kube-system/kube-dns']).toBe('none');
    expect(coverage['platform/config']).toBe('pod-bytes');
    expect(coverage['shop/checkout']).toBe('flows-and-pod-bytes');
    const namespacesOf = (metric: string, label: string) => new Set(series.filter((s) => s.metric === metric && s.labels[label] !== undefined).map((s) => s.labels[label]));
    expect([...namespacesOf(FLOW_METRIC, 'k8s_dst_namespace')].sort()).toEqual(['payments', 'shop']);
    expect([...namespacesOf(POD_RECEIVE_METRIC, 'namespace')].sort()).toEqual(['payments', 'platform', 'shop']);
    const text = await exposition(sim);
    expect(text).not.toContain('kube-system');
    expect(text).not.toContain('coredns');
  });

  it('deviates on purpose: shop/catalog keep-alive skewed, shop/storefront 100× the volume', async () => {
    const sim = shared;
    const { services } = await rates(sim, '?series=false');
    const byName = new Map(services.map((s) => [`${s.namespace}/${s.name}`, s]));
    const catalog = byName.get('shop/catalog');
    expect(catalog?.deviation?.kind).toBe('keep-alive');
    expect(catalog?.crossZoneFraction).toBeGreaterThan(0.9);
    expect((catalog?.crossZoneFraction ?? 0) - (catalog?.predictedCrossZoneFraction ?? 1)).toBeGreaterThan(0.25);
    const storefront = byName.get('shop/storefront');
    expect(storefront?.deviation).toEqual({ kind: 'volume', factor: STOREFRONT_VOLUME_FACTOR, description: 'volume: 100× the modelled bytes' });
    near(storefront?.requestBytesPerSecond ?? 0, (storefront?.requestBytesPerSecondPerEndpoint ?? 0) * (storefront?.readyEndpoints ?? 0) * STOREFRONT_VOLUME_FACTOR, 'storefront volume');
    const others = services.filter((s) => s.name !== 'storefront');
    expect(storefront?.totalBytesPerSecond ?? 0).toBeGreaterThan(10 * Math.max(...others.map((s) => s.totalBytesPerSecond)));
    // Without deviations the sent split is the engine's own.
    for (const service of services.filter((s) => s.deviation === null)) near(service.crossZoneFraction, service.predictedCrossZoneFraction, `${service.name} cross-zone`);
  });

  it('stops the counters of a Service that disappears and starts a reappearing one at 0', async () => {
    const clock = fakeClock();
    const sim = await startEksDemo(clock.now);
    const cartFlows = (text: string) => parseExposition(text).samples.filter((s) => s.metric === FLOW_METRIC && s.labels.k8s_dst_owner_name === 'cart');
    const checkoutFlows = (text: string) => parseExposition(text).samples.filter((s) => s.metric === FLOW_METRIC && s.labels.k8s_dst_owner_name === 'checkout');
    clock.advance(10);
    const before = await exposition(sim);
    expect(cartFlows(before).length).toBeGreaterThan(0);
    const cart = sim.store.get('services', 'shop', 'cart');
    if (cart === undefined) throw new Error('no shop/cart');

    clock.advance(10);
    sim.store.delete('services', 'shop', 'cart');
    await waitFor(() => sim.store.all('endpointslices', 'shop').every((s) => s.metadata.labels?.['kubernetes.io/service-name'] !== 'cart'), 5000, 'cart slices deleted');
    clock.advance(10);
    const gone = await exposition(sim);
    expect(cartFlows(gone)).toEqual([]);
    const { services } = await rates(sim, '?series=false');
    expect(services.some((s) => s.name === 'cart')).toBe(false);
    const notFound = await fetch(`${sim.url}/__sim/traffic-rates?service=shop/cart`);
    expect(notFound.status).toBe(404);
    expect(await notFound.json()).toEqual({ error: 'Service shop/cart sends no traffic (it does not exist or has no ready endpoints)' });
    // Other Services carry on: checkout's counters are their rates × 30 s.
    const checkoutRates = new Map(((await rates(sim)).series ?? []).map((s) => [seriesId(s.metric, Object.entries(s.labels)), s.bytesPerSecond]));
    const checkoutNow = checkoutFlows(gone);
    expect(checkoutNow.length).toBeGreaterThan(0);
    for (const s of checkoutNow) near(s.value, (checkoutRates.get(seriesId(s.metric, Object.entries(s.labels))) ?? 0) * 30, `checkout after 30 s: ${JSON.stringify(s.labels)}`);

    clock.advance(10);
    const { uid: _uid, resourceVersion: _rv, creationTimestamp: _created, ...metadata } = cart.metadata;
    sim.store.create('services', { ...cart, metadata });
    await waitFor(() => sim.store.all('endpointslices', 'shop').some((s) => s.metadata.labels?.['kubernetes.io/service-name'] === 'cart'), 5000, 'cart slices created');
    await settled(sim);
    clock.advance(5);
    const back = cartFlows(await exposition(sim));
    const cart5 = (await rates(sim, '?service=shop/cart')).services[0];
    expect(cart5?.requestBytesPerSecond).toBeGreaterThan(0);
    const cartRequests = back.filter((s) => s.labels.direction === 'request' && s.labels.k8s_dst_owner_type === 'Deployment');
    near(total(cartRequests.map((s) => ({ bytesPerSecond: s.value }))), reportedRequests(cart5 as ServiceTrafficRates) * 5, 'cart counts from 0 since it came back');
  });
});

describe('GET /__sim/traffic-rates', { timeout: 30_000 }, () => {
  it('refuses unknown parameters and malformed values with a clear error', async () => {
    const sim = shared;
    const cases: [string, number, string][] = [
      ['?bogus=1', 400, 'unknown parameter "bogus" (service, series)'],
      ['?service=shop', 400, 'service must be namespace/name, not "shop"'],
      ['?series=maybe', 400, 'series must be true or false, not "maybe"'],
      ['?service=shop/nope', 404, 'Service shop/nope sends no traffic (it does not exist or has no ready endpoints)'],
    ];
    for (const [query, code, error] of cases) {
      const response = await fetch(`${sim.url}/__sim/traffic-rates${query}`);
      expect(response.status, query).toBe(code);
      expect(await response.json()).toEqual({ error });
    }
    const post = await fetch(`${sim.url}/__sim/metrics`, { method: 'POST' });
    expect(post.status).toBe(405);
    const one = await rates(sim, '?service=shop/catalog&series=false');
    expect(one.services.map((s) => s.name)).toEqual(['catalog']);
    expect(one.series).toBeUndefined();
  });
});

describe('traffic profiles', () => {
  it('applies deviations to eks-demo only; coverage rules everywhere', async () => {
    const eksDemo = (await loadScenario('eks-demo')).objects;
    const tiny = (await loadScenario('tiny')).objects;
    expect([...trafficProfileFor(eksDemo).deviations.keys()]).toEqual(['shop/catalog', 'shop/storefront']);
    expect(trafficProfileFor(eksDemo).clusterName).toBe('eks-demo');
    expect(trafficProfileFor(tiny).deviations.size).toBe(0);
    expect(trafficProfileFor(tiny).clusterName).toBe('zonescope-sim');
    expect(trafficProfileFor(tiny, 'tiny')).toMatchObject({ clusterName: 'tiny', podBytesOnlyNamespaces: ['platform'], unmeasuredNamespaces: ['kube-system'] });
    expect(trafficProfileFor(eksDemo, 'my-copy').deviations.size).toBe(0);
  });

});

describe('/__sim/traffic-options', { timeout: 30_000 }, () => {
  it('reads and switches the exporter options, refusing what Beyla has no switch for', async () => {
    const sim = await startEksDemo();
    const get = async () => (await (await fetch(`${sim.url}/__sim/traffic-options`)).json()) as TrafficMetricsOptions;
    expect(await get()).toEqual({ flowZoneLabels: false, exporter: 'beyla', interZone: true });
    const flowLabelNames = async () => new Set(parseExposition(await exposition(sim)).samples.filter((x) => x.metric === FLOW_METRIC).flatMap((x) => Object.keys(x.labels)));
    expect(await flowLabelNames()).toEqual(new Set(DEFAULT_FLOW_LABELS));
    const switched = await putTrafficOptions(sim, { flowZoneLabels: true });
    expect(switched.status).toBe(200);
    expect(await switched.json()).toEqual({ flowZoneLabels: true, exporter: 'beyla', interZone: true });
    expect(await flowLabelNames()).toEqual(new Set([...DEFAULT_FLOW_LABELS, 'src_zone', 'dst_zone']));
    expect((await rates(sim, '?series=false')).options).toEqual({ flowZoneLabels: true, exporter: 'beyla', interZone: true });

    const cases: [unknown, string][] = [
      [{ zones: true }, 'Unrecognized key: "zones"'],
      [{ exporter: 'otel' }, 'exporter'],
      [{ interZone: 'no' }, 'interZone'],
    ];
    for (const [body, error] of cases) {
      const response = await putTrafficOptions(sim, body);
      expect(response.status, JSON.stringify(body)).toBe(400);
      expect(((await response.json()) as { error: string }).error).toContain(error);
    }
    expect((await fetch(`${sim.url}/__sim/traffic-options`, { method: 'POST' })).status).toBe(405);
    expect(await get()).toEqual({ flowZoneLabels: true, exporter: 'beyla', interZone: true });

    // A reset keeps them with traffic: false, and returns to the start otherwise.
    const reset = (body: unknown) => fetch(`${sim.url}/__sim/reset`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
    expect((await reset({ objects: false, traffic: false })).status).toBe(200);
    expect((await get()).flowZoneLabels).toBe(true);
    expect((await reset({ objects: false })).status).toBe(200);
    expect(await get()).toEqual({ flowZoneLabels: false, exporter: 'beyla', interZone: true });
  });

  it('starts with the options the simulator was given', async () => {
    const sim = await startEksDemo(undefined, { exporter: 'obi', interZone: false });
    const text = await exposition(sim);
    expect(parseExposition(text).types).toEqual(new Map([
      ['obi_network_flow_bytes_total', 'counter'],
      [POD_RECEIVE_METRIC, 'counter'],
      [POD_TRANSMIT_METRIC, 'counter'],
    ]));
    await expect(startSimulator({ trafficMetrics: { exporter: 'otel' as 'obi' }, log: () => undefined })).rejects.toThrow('unknown flow exporter "otel" (beyla, obi)');
  });
});

/** eks-demo with shop/cart's pods on the host network (Beyla names their Node; cAdvisor reports the host interface for them). */
async function eksDemoWithHostNetworkCart(): Promise<readonly KubeObject[]> {
  const { objects } = await loadScenario('eks-demo');
  return objects.map((o) => (o.kind === 'Pod' && o.metadata.namespace === 'shop' && o.metadata.name.startsWith('cart-') ? { ...o, spec: { ...(o.spec as object), hostNetwork: true } } : o));
}

describe.skipIf(PROMETHEUS === null)(
  `a real Prometheus scraping the simulated exporters${PROMETHEUS === null ? ' — SKIPPED: Prometheus is not installed (apt-get install prometheus)' : ''}`,
  { timeout: 60_000 },
  () => {
    let eks: Simulator;
    let kpr: Simulator;
    let prometheus: RunningPrometheus;
    const query = (expression: string) => prometheus.query(expression);
    const labelNames = (metric: Readonly<Record<string, string>>) => Object.keys(metric).filter((name) => name !== '__name__' && name !== 'job').sort();

    beforeAll(async () => {
      const kprScenario = await loadScenario('cilium-kpr');
      const version = (await loadScenario('eks-demo')).serverVersion;
      eks = await startSimulator({ objects: await eksDemoWithHostNetworkCart(), controllers: simControllers(), log: () => undefined, scenarioName: 'eks-demo', ...(version !== undefined ? { version } : {}) });
      kpr = await startSimulator({
        objects: kprScenario.objects,
        controllers: simControllers(),
        log: () => undefined,
        scenarioName: 'cilium-kpr',
        ...(kprScenario.serverVersion !== undefined ? { version: kprScenario.serverVersion } : {}),
      });
      await Promise.all([settled(eks), settled(kpr)]);
      prometheus = await startPrometheus({
        scrapeTargets: [`127.0.0.1:${eks.port}`],
        jobName: 'eks-demo',
        extraJobs: [{ jobName: 'cilium-kpr', targets: [`127.0.0.1:${kpr.port}`], metricsPath: '/__sim/metrics', scrapeIntervalSeconds: 1, honorLabels: true }],
        waitForMetric: FLOW_METRIC,
      });
    }, 90_000);

    afterAll(async () => {
      await prometheus?.stop();
      await Promise.all([eks?.stop(), kpr?.stop()]);
    });

    it('reads Beyla\'s default attribute set on every flow series, each agent\'s instance kept, no zones', async () => {
      const series = await eventually(async () => {
        const found = await query(`${FLOW_METRIC}{job=~"eks-demo|cilium-kpr"}`);
        expect(new Set(found.map((s) => s.metric.job))).toEqual(new Set(['eks-demo', 'cilium-kpr']));
        return found;
      });
      for (const { metric } of series) {
        // Prometheus drops empty labels: a Node has no namespace.
        const expected = DEFAULT_FLOW_LABELS.filter((name) => !(name === 'k8s_dst_namespace' && metric.k8s_dst_owner_type === 'Node') && !(name === 'k8s_src_namespace' && metric.k8s_src_owner_type === 'Node'));
        expect(labelNames(metric), JSON.stringify(metric)).toEqual(expected);
        expect(metric.instance, 'honor_labels keeps the agent').toMatch(/^192\.168\.0\.\d+:9090$/);
      }
      const nodeOwned = series.filter((s) => s.metric.k8s_dst_owner_type === 'Node');
      expect(new Set(nodeOwned.map((s) => s.metric.k8s_dst_owner_name))).toEqual(new Set((await rates(eks, '?service=shop/cart&series=false')).services[0]?.pods.map((p) => p.node)));
    });

    it('reads cAdvisor\'s sandbox and root-cgroup series; a hostNetwork pod\'s sandbox carries its node\'s total', async () => {
      // One query, so the sandboxes and the roots are read at the same evaluation (two queries may
      // straddle a scrape, and a counter moves between them).
      const all = await query(`${POD_RECEIVE_METRIC}{job="eks-demo"}`);
      const pods = all.filter((s) => (s.metric.pod ?? '') !== '');
      expect(pods.length).toBeGreaterThan(50);
      for (const { metric } of pods) {
        // `container=""` is dropped by Prometheus like every empty label.
        expect(labelNames(metric)).toEqual(['id', 'image', 'instance', 'interface', 'name', 'namespace', 'pod']);
        expect(metric.interface).toBe(metric.pod?.startsWith('cart-') ? 'ens5' : 'eth0');
      }
      const roots = all.filter((s) => (s.metric.pod ?? '') === '');
      expect(roots.map((s) => labelNames(s.metric))).toEqual(roots.map(() => ['id', 'instance', 'interface']));
      const rootByInstance = new Map(roots.map((s) => [s.metric.instance, Number(s.value[1])]));
      const cart = pods.filter((s) => s.metric.pod?.startsWith('cart-'));
      expect(cart.length).toBeGreaterThan(0);
      for (const s of cart) near(Number(s.value[1]), rootByInstance.get(s.metric.instance) ?? 0, `${s.metric.pod ?? ''} repeats its node's total`, 1e-6);
    });

    it('finds Service-typed duplicates on the kube-proxy cluster and none on Cilium\'s kube-proxy replacement', async () => {
      const counted = await query(`count by (job, k8s_dst_owner_type) (${FLOW_METRIC}{direction="request"})`);
      const count = (job: string, type: string) => Number(counted.find((s) => s.metric.job === job && s.metric.k8s_dst_owner_type === type)?.value[1] ?? 0);
      expect(count('eks-demo', 'Service')).toBeGreaterThan(0);
      expect(count('eks-demo', 'Deployment')).toBeGreaterThan(0);
      expect(count('cilium-kpr', 'Deployment')).toBeGreaterThan(0);
      expect(count('cilium-kpr', 'Service')).toBe(0);
    });

    it('with zones switched on, sums a cross-zone cell over agents to 2× the truth and a same-zone cell to (2 − sameNodeFraction)×', async () => {
      expect((await putTrafficOptions(eks, { flowZoneLabels: true })).status).toBe(200);
      const checkout = (await rates(eks, '?service=shop/checkout&series=false')).services[0];
      const pairs = checkout?.byZonePair ?? [];
      expect(pairs.some((p) => p.clientZone !== p.endpointZone)).toBe(true);
      expect(pairs.some((p) => p.clientZone === p.endpointZone && p.sameNodeFraction > 0 && p.sameNodeFraction < 1)).toBe(true);
      const selector = (direction: string, end: 'src' | 'dst') => `{job="eks-demo", direction="${direction}", k8s_${end}_namespace="shop", k8s_${end}_owner_name="checkout", k8s_${end}_owner_type="Deployment"}`;
      await eventually(async () => {
        const requests = await query(`sum without (instance) (rate(${FLOW_METRIC}${selector('request', 'dst')}[5s]))`);
        const responses = await query(`sum without (instance) (rate(${FLOW_METRIC}${selector('response', 'src')}[5s]))`);
        expect(requests).toHaveLength(pairs.length);
        expect(responses).toHaveLength(pairs.length);
        for (const pair of pairs) {
          const factor = pair.clientZone === pair.endpointZone ? 2 - pair.sameNodeFraction : 2;
          const request = requests.find((s) => s.metric.src_zone === pair.clientZone && s.metric.dst_zone === pair.endpointZone);
          near(Number(request?.value[1]), pair.requestBytesPerSecond * factor, `request ${pair.clientZone}→${pair.endpointZone}`, 0.01);
          // The response flows back: src and dst (and their zones) swapped.
          const response = responses.find((s) => s.metric.src_zone === pair.endpointZone && s.metric.dst_zone === pair.clientZone && s.metric.k8s_dst_owner_name === LOADGEN_WORKLOAD);
          near(Number(response?.value[1]), pair.replyBytesPerSecond * factor, `response ${pair.endpointZone}→${pair.clientZone}`, 0.01);
        }
      }, 30_000);
      // Between two workloads both ends have a zone (a Service end has none, which Prometheus drops).
      for (const { metric } of await query(`${FLOW_METRIC}{job="eks-demo", k8s_src_owner_type="Deployment", k8s_dst_owner_type="Deployment"}`)) {
        expect(labelNames(metric)).toEqual([...DEFAULT_FLOW_LABELS, 'dst_zone', 'src_zone'].sort());
      }
    });

    it('reads the OBI names once the exporter is switched, the Beyla series gone stale', async () => {
      expect((await putTrafficOptions(eks, { exporter: 'obi' })).status).toBe(200);
      await eventually(async () => {
        const counts = await query(`count by (__name__) ({job="eks-demo", __name__=~"(beyla|obi)_network_.*"})`);
        expect(counts.map((s) => s.metric.__name__).sort()).toEqual(['obi_network_flow_bytes_total', 'obi_network_inter_zone_bytes_total']);
      }, 20_000);
    });
  },
);
