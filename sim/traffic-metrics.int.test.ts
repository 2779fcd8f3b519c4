/**
 * The simulator's traffic metrics over real HTTP: `/__sim/metrics` is valid Prometheus text
 * format (a small parser here, and `promtool check metrics` where installed), its counters grow
 * at exactly the rates `/__sim/traffic-rates` states (a fake clock makes that exact), the
 * coverage rules and eks-demo's deliberate deviations show, and Services that disappear or
 * appear stop or start their counters.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { defaultControllers } from './default-controllers';
import { loadScenario } from './scenario';
import type { Simulator } from './server';
import { startSimulator } from './server';
import { delay, waitFor } from './test-support';
import type { TrafficRatesDocument } from './traffic-metrics';
import { escapeLabelValue, FLOW_METRIC, INTER_ZONE_METRIC, POD_RECEIVE_METRIC, POD_TRANSMIT_METRIC, REPLY_FACTOR, STOREFRONT_VOLUME_FACTOR, trafficProfileFor } from './traffic-metrics';

const PROMTOOL = '/usr/bin/promtool';
const HAS_PROMTOOL = existsSync(PROMTOOL);

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
    controllers: defaultControllers(),
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

async function startEksDemo(now?: () => Date): Promise<Simulator> {
  const scenario = await loadScenario('eks-demo');
  const sim = await startSimulator({
    objects: scenario.objects,
    controllers: defaultControllers(),
    log: () => undefined,
    ...(scenario.serverVersion !== undefined ? { version: scenario.serverVersion } : {}),
    ...(now ? { now } : {}),
  });
  running.push(sim);
  await settled(sim);
  return sim;
}

/** Waits until the store's resourceVersion stays put for 300 ms (the controllers are done). */
async function settled(sim: Simulator): Promise<void> {
  let last = -1;
  while (sim.store.resourceVersion !== last) {
    last = sim.store.resourceVersion;
    await delay(300);
  }
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

function near(actual: number, expected: number, what: string): void {
  expect(Math.abs(actual - expected), `${what}: ${actual} vs ${expected}`).toBeLessThanOrEqual(Math.max(1e-9, Math.abs(expected) * 1e-9));
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
    const flow = samples.find((s) => s.metric === FLOW_METRIC);
    expect(Object.keys(flow?.labels ?? {})).toEqual([
      'k8s_src_namespace', 'k8s_src_owner_name', 'k8s_src_owner_type', 'k8s_dst_namespace', 'k8s_dst_owner_name', 'k8s_dst_owner_type', 'src_zone', 'dst_zone', 'k8s_cluster_name',
    ]);
    expect(flow?.labels.k8s_cluster_name).toBe('eks-demo');
    expect(Object.keys(samples.find((s) => s.metric === POD_RECEIVE_METRIC)?.labels ?? {})).toEqual(['namespace', 'pod', 'interface']);
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
      const requests = series.filter((s) => s.metric === FLOW_METRIC && s.labels.k8s_dst_namespace === service.namespace && s.labels.k8s_src_owner_name === 'loadgen' && service.workloads.some((w) => w.name === s.labels.k8s_dst_owner_name));
      const replies = series.filter((s) => s.metric === FLOW_METRIC && s.labels.k8s_dst_owner_name === 'loadgen' && s.labels.k8s_src_namespace === service.namespace && service.workloads.some((w) => w.name === s.labels.k8s_src_owner_name));
      const sum = (list: typeof series) => list.reduce((total, s) => total + s.bytesPerSecond, 0);
      near(sum(requests), service.requestBytesPerSecond, `${service.name} request flows`);
      near(sum(replies), service.requestBytesPerSecond * REPLY_FACTOR, `${service.name} reply flows`);
      near(service.podBytesPerSecond, service.totalBytesPerSecond, `${service.name} pod bytes`);
      for (const pair of service.byZonePair) {
        const flows = requests.filter((s) => s.labels.src_zone === pair.clientZone && s.labels.dst_zone === pair.endpointZone);
        near(sum(flows), pair.requestBytesPerSecond, `${service.name} ${pair.clientZone}→${pair.endpointZone}`);
      }
    }
    // Inter-zone = every exported flow between two different zones.
    const crossFlows = series.filter((s) => s.metric === FLOW_METRIC && s.labels.src_zone !== s.labels.dst_zone);
    const interZone = series.filter((s) => s.metric === INTER_ZONE_METRIC);
    expect(interZone.length).toBeGreaterThan(0);
    near(interZone.reduce((t, s) => t + s.bytesPerSecond, 0), crossFlows.reduce((t, s) => t + s.bytesPerSecond, 0), 'inter-zone total');
    // Pods: rx is what the Services' endpoints receive, tx 3× that.
    for (const rx of series.filter((s) => s.metric === POD_RECEIVE_METRIC)) {
      const tx = series.find((s) => s.metric === POD_TRANSMIT_METRIC && s.labels.pod === rx.labels.pod && s.labels.namespace === rx.labels.namespace);
      near(tx?.bytesPerSecond ?? 0, rx.bytesPerSecond * REPLY_FACTOR, `${rx.labels.pod} tx`);
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
    const namespacesOf = (metric: string, label: string) => new Set(series.filter((s) => s.metric === metric).map((s) => s.labels[label]));
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
    // Other Services carry on: checkout's counters are its rate × 30 s.
    const checkoutRate = (await rates(sim, '?service=shop/checkout')).services[0]?.requestBytesPerSecond ?? 0;
    near(checkoutFlows(gone).filter((s) => s.labels.k8s_src_owner_name === 'loadgen').reduce((t, s) => t + s.value, 0), checkoutRate * 30, 'checkout after 30 s');

    clock.advance(10);
    const { uid: _uid, resourceVersion: _rv, creationTimestamp: _created, ...metadata } = cart.metadata;
    sim.store.create('services', { ...cart, metadata });
    await waitFor(() => sim.store.all('endpointslices', 'shop').some((s) => s.metadata.labels?.['kubernetes.io/service-name'] === 'cart'), 5000, 'cart slices created');
    await settled(sim);
    clock.advance(5);
    const back = cartFlows(await exposition(sim));
    const cartRate = (await rates(sim, '?service=shop/cart')).services[0]?.requestBytesPerSecond ?? 0;
    expect(cartRate).toBeGreaterThan(0);
    near(back.filter((s) => s.labels.k8s_src_owner_name === 'loadgen').reduce((t, s) => t + s.value, 0), cartRate * 5, 'cart counts from 0 since it came back');
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

  it('escapes label values as the text format requires', () => {
    expect(escapeLabelValue('a"b\\c\nd')).toBe('a\\"b\\\\c\\nd');
    expect(escapeLabelValue('ap-northeast-2a')).toBe('ap-northeast-2a');
  });
});
