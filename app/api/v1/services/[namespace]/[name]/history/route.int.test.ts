/**
 * History read back from a real Prometheus holding yesterday's data: a real scrape of zonescope on
 * eks-demo (shop/checkout's and the cluster's series), re-timed every 30 s over the last 30 h into
 * an OpenMetrics file (hints on, off for four
 * hours yesterday with reason insufficient-number-of-endpoints while ready endpoints and nodes
 * dropped, on again, then topology-mode Auto → Disabled three hours ago; the cluster ineligible
 * for an hour because of one node) is backfilled with `promtool tsdb create-blocks-from
 * openmetrics`, Prometheus serves it, and the history routes must put the transitions at the
 * backfilled times (within `precisionSeconds`), with the reason, the node changes and the
 * before/after comparison — after any Event about it is long gone. Then: a selector matching
 * nothing (no-data), a bad selector, no Prometheus configured, and Prometheus stopped.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ApiErrorResponse } from '../../../../../../../lib/views/api-types';
import type { ClusterHistory, HistoryTransition, ServiceHistory } from '../../../../../../../lib/shared/history-types';
import { parseConfig } from '../../../../../../../lib/config/config';
import { clearHistoryCache } from '../../../../../../../lib/views/history';
import { scrapeMetrics } from '../../../../../../../lib/views/metrics-endpoint';
import { getClusterSource, resetClusterSource } from '../../../../../../../lib/k8s/source';
import type { RunningPrometheus } from '../../../../../../../sim/prometheus';
import { freeLoopbackPort, startPrometheus } from '../../../../../../../sim/prometheus';
import { apiRequest, harnessForFile, readJson, routeContext } from '../../../../_testing/harness';
import { GET as getClusterHistory } from '../../../../cluster/history/route';
import { GET } from './route';
import { defaultScope } from '../../../../../../../lib/server/clusters';

const harness = harnessForFile();

const SPACING = 30;
/** The last sample, on the 30 s grid, in the past. */
const NOW = Math.floor(Date.now() / 1000 / SPACING) * SPACING - SPACING;
const FIRST = NOW - 30 * 3600;
const HOUR = 3600;
/** Yesterday: hints off at T_OFF (reason insufficient-number-of-endpoints), on again at T_ON. */
const T_OFF = NOW - 22 * HOUR;
const T_ON = NOW - 18 * HOUR;
/** Nodes 9 → 6 five minutes before hints went off, back to 9 ten minutes before they came back. */
const T_NODES_DOWN = T_OFF - 5 * 60;
const T_NODES_UP = T_ON - 10 * 60;
/** topology-mode Auto → Disabled. */
const T_TOGGLE = NOW - 3 * HOUR;
/** The cluster ineligible (a node without zone) for an hour. */
const T_INELIGIBLE = NOW - 10 * HOUR;
const T_ELIGIBLE = NOW - 9 * HOUR;

const A = 'ap-northeast-2a';
const B = 'ap-northeast-2b';
const C = 'ap-northeast-2c';
/** The labels Prometheus attaches to a scrape of zonescope. */
const TARGET = { job: 'zonescope', instance: '10.0.12.7:3000' };

type Labels = Readonly<Record<string, string>>;
/** One sample line of the exposition. */
interface ScrapedSample {
  readonly name: string;
  readonly labels: Labels;
  readonly value: number;
}

/** The sample lines of a text-format exposition (comments skipped). */
function parseExposition(text: string): ScrapedSample[] {
  const out: ScrapedSample[] = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})? (\S+)$/.exec(line);
    if (match === null) throw new Error(`not a sample line: ${line}`);
    const labels: Record<string, string> = {};
    for (const pair of (match[3] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) {
      labels[pair[1] ?? ''] = (pair[2] ?? '').replace(/\\(.)/g, (_m, c: string) => (c === 'n' ? '\n' : c));
    }
    out.push({ name: match[1] ?? '', labels, value: Number(match[4]) });
  }
  return out;
}

/** The series of one real scrape of zonescope on eks-demo that the timeline re-times: shop/checkout's and the cluster's (informer series left out). */
let scraped: ScrapedSample[] = [];

function scrapedValue(name: string, labels: Labels = {}): number {
  const sample = scraped.find((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v));
  if (sample === undefined) throw new Error(`the scrape has no ${name}`);
  return sample.value;
}

/**
 * One scraped sample as it would have been scraped at `t` on the timeline (the scrape itself is
 * "hints on, cluster eligible"); `null` when the exporter would not have exported it then.
 */
function sampleAt(sample: ScrapedSample, t: number): ScrapedSample | null {
  const toggled = t >= T_TOGGLE;
  const starved = t >= T_OFF && t < T_ON;
  const off = starved || toggled;
  const nodesDown = t >= T_NODES_DOWN && t < T_NODES_UP;
  const ineligible = t >= T_INELIGIBLE && t < T_ELIGIBLE;
  const zone = sample.labels.zone ?? '';
  const is = (name: string): boolean => sample.name === name;
  const withValue = (value: number): ScrapedSample => ({ ...sample, value });
  const withLabels = (labels: Record<string, string>): ScrapedSample => ({ ...sample, labels: { ...sample.labels, ...labels } });
  if (is('zonescope_service_info')) return toggled ? withLabels({ mechanism: 'none', topology_mode: 'Disabled' }) : sample;
  if (is('zonescope_service_hints_requested')) return withValue(toggled ? 0 : sample.value);
  if (is('zonescope_service_hints_expected') || is('zonescope_service_hints_observed_ratio') || is('zonescope_service_donated_endpoints')) return withValue(off ? 0 : sample.value);
  if (is('zonescope_service_hints_reason_info')) return withLabels({ reason: toggled ? 'not-requested' : starved ? 'insufficient-number-of-endpoints' : sample.labels.reason ?? '' });
  if (is('zonescope_service_ready_endpoints')) return withValue(starved ? ({ [A]: 1, [B]: 1, [C]: 0 }[zone] ?? 0) : sample.value);
  if (is('zonescope_service_zone_minimum_endpoints')) return toggled ? null : withValue(starved ? 1 : sample.value);
  if (is('zonescope_service_predicted_cross_zone_ratio')) return withValue(off ? 0.6 : sample.value);
  if (is('zonescope_service_cross_zone_cost_dollars_per_month')) return withValue(off ? 14 : sample.value);
  if (is('zonescope_cluster_eligible')) return withValue(ineligible ? 0 : 1);
  if (is('zonescope_cluster_ineligible_nodes')) return withValue(ineligible ? 1 : 0);
  if (is('zonescope_cluster_insufficient_cause_info')) return withLabels({ cause: ineligible ? 'node-missing-zone' : 'none' });
  if (is('zonescope_zone_cpu_ratio')) return ineligible ? null : sample;
  if (is('zonescope_cluster_nodes')) return withValue(nodesDown ? 6 : sample.value);
  if (is('zonescope_zone_nodes') || is('zonescope_zone_ready_nodes')) return withValue(nodesDown ? 2 : sample.value);
  if (is('zonescope_cross_zone_cost_dollars_per_month') && sample.labels.scenario === 'now') return withValue(off ? sample.value + 13 : sample.value);
  return sample;
}

/** The node that made the cluster ineligible (eks-demo is eligible, so the scrape has no such series: labels as docs/metrics.md lists them). */
const INELIGIBLE_NODE = { name: 'zonescope_cluster_ineligible_node_info', labels: { node: 'ip-10-0-3-7.ap-northeast-2.compute.internal', cause: 'missing-zone' }, value: 1 };

/** The re-timed scrape every 30 s over the timeline, as one OpenMetrics file (families contiguous, samples in time order). */
function openMetrics(): string {
  const families = new Map<string, Map<string, { labels: Labels; samples: [number, number][] }>>();
  const add = (sample: ScrapedSample, t: number): void => {
    let family = families.get(sample.name);
    if (family === undefined) families.set(sample.name, (family = new Map()));
    const labels = { ...sample.labels, ...TARGET };
    const key = JSON.stringify(Object.entries(labels).sort());
    let series = family.get(key);
    if (series === undefined) family.set(key, (series = { labels, samples: [] }));
    series.samples.push([t, sample.value]);
  };
  for (let t = FIRST; t <= NOW; t += SPACING) {
    for (const sample of scraped) {
      const timed = sampleAt(sample, t);
      if (timed !== null) add(timed, t);
    }
    if (t >= T_INELIGIBLE && t < T_ELIGIBLE) add(INELIGIBLE_NODE, t);
  }
  const escape = (v: string): string => v.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');
  const lines: string[] = [];
  for (const [name, family] of families) {
    lines.push(`# TYPE ${name} gauge`);
    for (const { labels, samples } of family.values()) {
      const text = Object.entries(labels).map(([k, v]) => `${k}="${escape(v)}"`).join(',');
      for (const [t, v] of samples) lines.push(`${name}{${text}} ${v} ${t}`);
    }
  }
  lines.push('# EOF', '');
  return lines.join('\n');
}

const ENV_KEYS = ['ZONESCOPE_PROMETHEUS_URL', 'ZONESCOPE_HISTORY_SELECTOR', 'ZONESCOPE_PROMETHEUS_TIMEOUT_MS'] as const;
const saved: Record<string, string | undefined> = {};
let dir = '';
let prometheus: RunningPrometheus | null = null;

beforeAll(async () => {
  for (const key of ENV_KEYS) saved[key] = process.env[key];
  dir = mkdtempSync(path.join(tmpdir(), 'zonescope-history-'));
  // A real scrape of zonescope on eks-demo (the harness synced it), re-timed below.
  scraped = parseExposition(await scrapeMetrics(defaultScope())).filter(
    (s) => s.name.startsWith('zonescope_') && !s.name.startsWith('zonescope_informer_') && (s.labels.namespace === undefined || (s.labels.namespace === 'shop' && s.labels.service === 'checkout')),
  );
  expect(scraped.filter((s) => s.labels.service === 'checkout').length).toBeGreaterThanOrEqual(14);
  const file = path.join(dir, 'zonescope.om');
  writeFileSync(file, openMetrics());
  execFileSync('promtool', ['tsdb', 'create-blocks-from', 'openmetrics', '--quiet', file, path.join(dir, 'prometheus', 'data')], { stdio: 'pipe' });
  // A scrape target is required; nothing listens on this port, so only the backfilled series exist.
  const unused = await freeLoopbackPort();
  prometheus = await startPrometheus({ scrapeTargets: [`127.0.0.1:${unused}`], metricsPath: '/metrics', jobName: 'nothing', dataDir: path.join(dir, 'prometheus'), retention: '15d', scrapeIntervalSeconds: 60 });
  await prometheus.waitForSeries('zonescope_service_info', 15_000);
}, 60_000);

afterAll(async () => {
  await prometheus?.stop();
  for (const key of ENV_KEYS) {
    if (saved[key] === undefined) Reflect.deleteProperty(process.env, key);
    else process.env[key] = saved[key];
  }
  if (dir !== '') rmSync(dir, { recursive: true, force: true });
});

beforeEach(() => {
  clearHistoryCache();
  for (const key of ENV_KEYS) Reflect.deleteProperty(process.env, key);
  if (prometheus !== null) process.env.ZONESCOPE_PROMETHEUS_URL = prometheus.url;
  process.env.ZONESCOPE_PROMETHEUS_TIMEOUT_MS = '5000';
});

/** `value`, failing the test when it is missing. */
function present<T>(value: T | null | undefined, what: string): T {
  if (value === null || value === undefined) throw new Error(`${what} is missing`);
  return value;
}

function promUrl(): string {
  return present(prometheus, 'the test Prometheus').url;
}

async function serviceHistory(namespace: string, name: string, query = ''): Promise<Response> {
  return GET(apiRequest(`/api/v1/services/${namespace}/${name}/history${query}`), routeContext({ namespace, name }));
}

async function okService(range: string): Promise<ServiceHistory> {
  const response = await serviceHistory('shop', 'checkout', `?range=${range}`);
  expect(response.status).toBe(200);
  const body = await readJson<ServiceHistory>(response);
  expect(body.status).toEqual({ state: 'ok' });
  return body;
}

/** The transition of `kind` nearest `time`, which must lie within its precision of `time`. */
function expectTransitionAt(transitions: readonly HistoryTransition[], kind: HistoryTransition['kind'], time: number): HistoryTransition {
  const candidates = transitions.filter((t) => t.kind === kind);
  const nearest = candidates.sort((a, b) => Math.abs(a.at - time) - Math.abs(b.at - time))[0];
  const t = present(nearest, `${kind} near ${new Date(time * 1000).toISOString()}`);
  // `at` is the first sample seen in the new state: the change happened in (at − precision, at].
  expect(t.at).toBeGreaterThanOrEqual(time);
  expect(t.at - t.precisionSeconds).toBeLessThanOrEqual(time);
  return t;
}

describe('GET /api/v1/services/{namespace}/{name}/history on backfilled data', () => {
  it('shows when and why hints went off yesterday and came back, refined below the 24h step', async () => {
    const body = await okService('24h');
    expect(body).toMatchObject({ namespace: 'shop', name: 'checkout', range: '24h', stepSeconds: 120, prometheus: promUrl() });
    expect(body.end - body.start).toBe(24 * HOUR);
    const off = expectTransitionAt(body.transitions, 'hints-off', T_OFF);
    expect(off).toMatchObject({ from: 'on', to: 'off', reason: 'insufficient-number-of-endpoints', text: 'Hints turned off: the Service has fewer ready endpoints than the cluster has zones.' });
    expect(off.precisionSeconds).toBeLessThanOrEqual(2);
    const on = expectTransitionAt(body.transitions, 'hints-on', T_ON);
    expect(on).toMatchObject({ from: 'off', to: 'on', reason: 'enabled' });
    expect(on.precisionSeconds).toBeLessThanOrEqual(2);
    // The controller's expectation changed with the slices: listed once, as the hints' change.
    expect(body.transitions.filter((t) => t.kind === 'expected-off' && Math.abs(t.at - T_OFF) <= 2 * body.stepSeconds)).toEqual([]);
    // The transitions are newest last.
    expect(body.transitions.map((t) => t.at)).toEqual([...body.transitions.map((t) => t.at)].sort((a, b) => a - b));

    const offInterval = body.hintsObserved.find((i) => i.value === 'off' && i.from === off.at);
    expect(offInterval).toEqual({ from: off.at, to: on.at, value: 'off', label: 'Hints off — The Service has fewer ready endpoints than the cluster has zones' });
    expect(body.reasons.some((r) => r.value === 'insufficient-number-of-endpoints' && Math.abs(r.from - T_OFF) <= body.stepSeconds)).toBe(true);

    // Ready endpoints per zone dropped while hints were off.
    expect(body.readyEndpoints.map((s) => s.key)).toEqual([A, B, C]);
    const during = (T_OFF + T_ON) / 2;
    const valueAt = (points: readonly { t: number; v: number | null }[], time: number): number | null => points.reduce((best, p) => (Math.abs(p.t - time) < Math.abs(best.t - time) ? p : best)).v;
    expect(body.readyEndpoints.map((s) => valueAt(s.points, during))).toEqual([1, 1, 0]);
    expect(body.readyEndpoints.map((s) => valueAt(s.points, T_ON + HOUR))).toEqual([5, 2, 2]);
    expect(body.crossZone.map((s) => s.key)).toEqual(['predicted']);
    expect(valueAt(present(body.crossZone[0], 'predicted').points, during)).toBeCloseTo(0.6);

    // Node-count changes and the toggle are marked.
    const nodeMarks = body.marks.filter((m) => m.kind === 'nodes');
    expect(nodeMarks.map((m) => m.text)).toEqual(['Nodes 9 → 6', 'Nodes 6 → 9']);
    const [down, up] = [present(nodeMarks[0], 'Nodes 9 → 6'), present(nodeMarks[1], 'Nodes 6 → 9')];
    expect(down.at - T_NODES_DOWN).toBeGreaterThanOrEqual(0);
    expect(down.at - T_NODES_DOWN).toBeLessThan(body.stepSeconds);
    expect(up.at - T_NODES_UP).toBeLessThan(body.stepSeconds);
    const toggle = body.marks.find((m) => m.kind === 'toggle');
    expect(toggle?.text).toBe('topology-mode Auto → topology-mode Disabled');
    const mechanism = expectTransitionAt(body.transitions, 'mechanism', T_TOGGLE);
    expect(mechanism).toMatchObject({ from: 'topology-mode', to: 'none', text: 'Mechanism changed: topology-mode annotation → No mechanism.' });
    expect(mechanism.precisionSeconds).toBeLessThanOrEqual(2);
    expect(toggle?.at).toBe(mechanism.at);
    // Hints went off in the same scrape as the toggle.
    expect(expectTransitionAt(body.transitions, 'hints-off', T_TOGGLE).at).toBe(mechanism.at);

    // Before/after the toggle: 3 h each side, hints on before, off after.
    const comparison = present(body.comparison, 'the comparison');
    expect(comparison.at).toBe(mechanism.at);
    expect(comparison).toMatchObject({ mechanismBefore: 'topology-mode', mechanismAfter: 'none', enough: true, message: null });
    expect(comparison.before.hintsOnShare).toBe(1);
    expect(comparison.after.hintsOnShare).toBe(0);
    expect(comparison.before.samples).toBeGreaterThanOrEqual(80);
    expect(comparison.before.predictedCrossZone).toBeCloseTo(scrapedValue('zonescope_service_predicted_cross_zone_ratio'));
    expect(comparison.after.costPerMonth).toBeCloseTo(14);
  });

  it('holds the same transitions over 7d (refined to 14 s) and the 6h view only the toggle', async () => {
    const week = await okService('7d');
    expect(week.stepSeconds).toBe(840);
    const off = expectTransitionAt(week.transitions, 'hints-off', T_OFF);
    expect(off.reason).toBe('insufficient-number-of-endpoints');
    expect(off.precisionSeconds).toBeLessThanOrEqual(14);
    expect(expectTransitionAt(week.transitions, 'hints-on', T_ON).precisionSeconds).toBeLessThanOrEqual(14);
    // Before the backfilled data begins there is a gap: no interval starts before FIRST.
    expect(Math.min(...week.hintsObserved.map((i) => i.from))).toBeGreaterThanOrEqual(FIRST);
    expect(week.hintsObserved[0]?.from).toBeLessThanOrEqual(FIRST + week.stepSeconds);

    const six = await okService('6h');
    expect(six.transitions.filter((t) => t.kind === 'hints-off').map((t) => t.reason)).toEqual(['not-requested']);
    expect(six.transitions.some((t) => t.kind === 'mechanism' && t.from === 'topology-mode' && t.to === 'none')).toBe(true);
  });

  it('answers the cluster history: the ineligible hour naming the node, spend and the node change', async () => {
    const response = await getClusterHistory(apiRequest('/api/v1/cluster/history?range=24h'));
    expect(response.status).toBe(200);
    const body = await readJson<ClusterHistory>(response);
    expect(body.status).toEqual({ state: 'ok' });
    const ineligible = expectTransitionAt(body.transitions, 'ineligible', T_INELIGIBLE);
    expect(ineligible).toMatchObject({ reason: 'missing-zone', text: 'The cluster became ineligible: node ip-10-0-3-7.ap-northeast-2.compute.internal has no zone label.' });
    expect(ineligible.precisionSeconds).toBeLessThanOrEqual(2);
    const eligible = expectTransitionAt(body.transitions, 'eligible', T_ELIGIBLE);
    expect(body.eligibility.find((i) => i.value === 'ineligible')).toEqual({
      from: ineligible.at,
      to: eligible.at,
      value: 'ineligible',
      label: 'Ineligible — node ip-10-0-3-7.ap-northeast-2.compute.internal has no zone label',
    });
    expect(body.spend.map((s) => s.key)).toEqual(['now', 'after-sync', 'best']);
    expect(body.spend[1]?.points.at(-1)?.v).toBeCloseTo(scrapedValue('zonescope_cross_zone_cost_dollars_per_month', { scenario: 'after_sync' }));
    expect(body.nodes.map((s) => s.key)).toEqual(['nodes', A, B, C]);
    expect(body.marks.map((m) => m.text)).toEqual(['Nodes 9 → 6', 'Nodes 6 → 9']);
    expect(body.services.map((s) => s.key)).toEqual(['hints-expected-on', 'hints-observed-on', 'needing-attention']);
  });

  it('applies ZONESCOPE_HISTORY_SELECTOR: a matching one reads the data, one matching nothing says no-data', async () => {
    process.env.ZONESCOPE_HISTORY_SELECTOR = 'job="zonescope", instance=~"10\\\\.0\\\\..*"';
    expect((await okService('24h')).transitions.length).toBeGreaterThan(0);
    clearHistoryCache();
    process.env.ZONESCOPE_HISTORY_SELECTOR = 'job="zonescope-prod"';
    const body = await readJson<ServiceHistory>(await serviceHistory('shop', 'checkout', '?range=24h'));
    expect(body.status.state).toBe('no-data');
    expect(body.status).toEqual({
      state: 'no-data',
      message: `Prometheus at ${promUrl()} holds no zonescope series matching ZONESCOPE_HISTORY_SELECTOR (job="zonescope-prod") in the last 24h (zonescope_cluster_nodes is empty): check the selector, or add a scrape job for zonescope's /metrics to that Prometheus (see docs/metrics.md).`,
    });
    expect(body.transitions).toEqual([]);
    const cluster = await readJson<ClusterHistory>(await getClusterHistory(apiRequest('/api/v1/cluster/history')));
    expect(cluster.status.state).toBe('no-data');
  });

  it('says no-data for a Service Prometheus holds no series of', async () => {
    const body = await readJson<ServiceHistory>(await serviceHistory('shop', 'cart'));
    expect(body.range).toBe('24h');
    expect(body.status).toEqual({
      state: 'no-data',
      message: `Prometheus at ${promUrl()} holds zonescope's series but none for Service shop/cart in the last 24h (zonescope_service_info{namespace="shop",service="cart"} is empty): the Service may be newer than that, or beyond ZONESCOPE_METRICS_MAX_SERVICES (docs/metrics.md).`,
    });
  });

  it('says exactly what is wrong with a bad selector, which stops the start (it used to show in the panel)', () => {
    const result = parseConfig({ ...process.env, ZONESCOPE_HISTORY_SELECTOR: 'job=zonescope' });
    expect(result.ok ? [] : result.errors).toEqual([
      {
        variable: 'ZONESCOPE_HISTORY_SELECTOR',
        message: 'ZONESCOPE_HISTORY_SELECTOR is not valid: the value of job must be in double quotes (expected label matchers such as job="zonescope",cluster="prod"; each name="value", name=~"regex" or name!="value", separated by commas).',
      },
    ]);
  });

  it('says what to configure without ZONESCOPE_PROMETHEUS_URL', async () => {
    Reflect.deleteProperty(process.env, 'ZONESCOPE_PROMETHEUS_URL');
    const message = 'History is read from Prometheus: set ZONESCOPE_PROMETHEUS_URL to a Prometheus that scrapes zonescope\'s /metrics (see docs/metrics.md).';
    const body = await readJson<ServiceHistory>(await serviceHistory('shop', 'checkout', '?range=7d'));
    expect(body).toMatchObject({ status: { state: 'not-configured', message }, prometheus: null, transitions: [], comparison: null });
    const cluster = await readJson<ClusterHistory>(await getClusterHistory(apiRequest('/api/v1/cluster/history?range=1h')));
    expect(cluster).toMatchObject({ status: { state: 'not-configured', message }, stepSeconds: 5, eligibility: [] });
  });

  it('answers 400 for a bad range, 404 for an unknown Service', async () => {
    const bad = await serviceHistory('shop', 'checkout', '?range=2d');
    expect(bad.status).toBe(400);
    expect(await readJson<ApiErrorResponse>(bad)).toEqual({ error: { code: 'bad-request:api', message: 'range must be one of 1h, 6h, 24h, 7d (none: the range the data covers), not "2d".' } });
    const missing = await serviceHistory('shop', 'no-such-service');
    expect(missing.status).toBe(404);
    expect((await readJson<ApiErrorResponse>(missing)).error.code).toBe('not-found:service');
  });

  it('answers 503 syncing:service before the first sync, while the cluster history still answers', async () => {
    await resetClusterSource();
    getClusterSource(); // started, not yet synced
    const response = await serviceHistory('shop', 'checkout');
    expect(response.status).toBe(503);
    expect(response.headers.get('retry-after')).toBe('2');
    expect((await readJson<ApiErrorResponse>(response)).error.code).toBe('syncing:service');
    const cluster = await getClusterHistory(apiRequest('/api/v1/cluster/history'));
    expect(cluster.status).toBe(200);
    expect((await readJson<ClusterHistory>(cluster)).status).toEqual({ state: 'ok' });
    await harness().reconnect();
    expect((await serviceHistory('shop', 'checkout')).status).toBe(200);
  });

  // Last: stops Prometheus.
  it('says unavailable (200) once Prometheus is stopped', async () => {
    const url = promUrl();
    await present(prometheus, 'the test Prometheus').stop();
    prometheus = null;
    process.env.ZONESCOPE_PROMETHEUS_URL = url;
    const response = await serviceHistory('shop', 'checkout');
    expect(response.status).toBe(200);
    const body = await readJson<ServiceHistory>(response);
    expect(body.status).toEqual({ state: 'unavailable', message: `Prometheus at ${url} is unreachable: connection refused.` });
    const cluster = await readJson<ClusterHistory>(await getClusterHistory(apiRequest('/api/v1/cluster/history')));
    expect(cluster.status.state).toBe('unavailable');
  });
});
