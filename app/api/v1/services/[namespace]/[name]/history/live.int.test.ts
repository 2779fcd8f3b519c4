/**
 * History of live data: a real Prometheus scrapes zonescope's `/metrics` route (served over
 * loopback HTTP from the route handler, against eks-demo on the simulator) every second; scaling
 * shop/checkout's Deployment below the zone count turns hints off (the simulator's controller
 * removes them) and scaling it back about two scrapes later turns them on: an off shorter than the
 * 1h view's 5 s step. The history must hold both transitions
 * between the scale request and the first scrape that showed the new state, refined to 1 s, with
 * the reason — read back through staleness markers and replaced info series, as production does.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ServiceHistory } from '../../../../../../../lib/shared/history-types';
import { clearHistoryCache } from '../../../../../../../lib/views/history';
import type { RunningPrometheus } from '../../../../../../../sim/prometheus';
import { startPrometheus } from '../../../../../../../sim/prometheus';
import { GET as getMetrics } from '../../../../../../metrics/route';
import { apiRequest, eventually, harnessForFile, readJson, routeContext } from '../../../../_testing/harness';
import { GET } from './route';

const harness = harnessForFile();

let server: http.Server;
let prometheus: RunningPrometheus | null = null;
const savedUrl = process.env.ZONESCOPE_PROMETHEUS_URL;

beforeAll(async () => {
  server = http.createServer((req, res) => {
    void (async () => {
      const response = await getMetrics();
      res.writeHead(response.status, { 'Content-Type': response.headers.get('content-type') ?? 'text/plain' });
      res.end(await response.text());
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  prometheus = await startPrometheus({ scrapeTargets: [`127.0.0.1:${port}`], metricsPath: '/metrics', jobName: 'zonescope', scrapeIntervalSeconds: 1 });
  await prometheus.waitForSeries('zonescope_service_hints_observed_ratio', 20_000);
  process.env.ZONESCOPE_PROMETHEUS_URL = prometheus.url;
}, 60_000);

afterAll(async () => {
  await prometheus?.stop();
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (savedUrl === undefined) Reflect.deleteProperty(process.env, 'ZONESCOPE_PROMETHEUS_URL');
  else process.env.ZONESCOPE_PROMETHEUS_URL = savedUrl;
});

/** checkout's observed-ratio samples Prometheus holds from the last minute: `[unix seconds, value]`, oldest first. */
async function ratioSamples(): Promise<[number, string][]> {
  const promql = 'zonescope_service_hints_observed_ratio{namespace="shop",service="checkout"}[1m]';
  const response = await fetch(`${(prometheus as RunningPrometheus).url}/api/v1/query?query=${encodeURIComponent(promql)}`);
  const body = (await response.json()) as { data: { result: { values: [number, string][] }[] } };
  return body.data.result[0]?.values ?? [];
}

/**
 * Waits until Prometheus holds checkout's ratio at `value` in every sample scraped since `since`
 * (unix seconds), over at least `seconds` (first to last such sample) and in at least `count` samples.
 */
async function heldFor(value: string, since: number, seconds: number, count: number): Promise<void> {
  await eventually(async () => {
    const held = (await ratioSamples()).filter(([t]) => t >= since);
    const last = held.at(-1);
    const first = held[0];
    return held.length >= count && held.every(([, v]) => v === value) && first !== undefined && last !== undefined && last[0] - first[0] >= seconds;
  }, 30_000, `observed ratio ${value} held for ${seconds} s (${count} samples) since ${since}`);
}

async function scale(replicas: number): Promise<void> {
  const sim = harness().sim;
  const response = await fetch(`${sim.url}/apis/apps/v1/namespaces/shop/deployments/checkout/scale`, {
    method: 'PATCH',
    headers: { Authorization: `Bearer ${sim.token}`, 'Content-Type': 'application/merge-patch+json' },
    body: JSON.stringify({ spec: { replicas } }),
  });
  expect(response.status).toBe(200);
}

/** Waits until Prometheus' newest sample of checkout's observed ratio is `value`; returns that sample's time. */
async function scrapedState(value: string): Promise<number> {
  const promql = 'zonescope_service_hints_observed_ratio{namespace="shop",service="checkout"}';
  return eventually(async () => {
    const [sample] = await (prometheus as RunningPrometheus).query(promql);
    return sample !== undefined && sample.value[1] === value ? sample.value[0] : null;
  }, 15_000, `observed ratio ${value} in Prometheus`);
}

describe('history of a live zonescope scraped every second', () => {
  it('puts hints off and on again where the scrapes saw them, with the reason', async () => {
    // A full 5 s step of hints on, off for about two scrapes (shorter than a step: the worst state
    // of each step still shows it), then on for more than a step — each held until Prometheus has
    // scraped it that long.
    const onFrom = await scrapedState('1');
    await heldFor('1', onFrom, 6, 7);
    const downAt = Date.now() / 1000;
    await scale(2);
    const offSeen = await scrapedState('0');
    await heldFor('0', offSeen, 1, 2);
    const upAt = Date.now() / 1000;
    await scale(9);
    const onSeen = await scrapedState('1');
    await heldFor('1', onSeen, 6, 7);

    clearHistoryCache();
    const response = await GET(apiRequest('/api/v1/services/shop/checkout/history?range=1h'), routeContext({ namespace: 'shop', name: 'checkout' }));
    expect(response.status).toBe(200);
    const body = await readJson<ServiceHistory>(response);
    expect(body.status).toEqual({ state: 'ok' });
    expect(body.stepSeconds).toBe(5);

    const off = body.transitions.filter((t) => t.kind === 'hints-off');
    const on = body.transitions.filter((t) => t.kind === 'hints-on');
    expect(off).toHaveLength(1);
    expect(on).toHaveLength(1);
    const [hintsOff, hintsOn] = [off[0], on[0]];
    if (hintsOff === undefined || hintsOn === undefined) return;
    expect(hintsOff).toMatchObject({ reason: 'insufficient-number-of-endpoints', text: 'Hints turned off: the Service has fewer ready endpoints than the cluster has zones.', precisionSeconds: 1 });
    expect(hintsOff.at).toBeGreaterThanOrEqual(Math.floor(downAt));
    expect(hintsOff.at).toBeLessThanOrEqual(Math.ceil(offSeen) + 1);
    expect(hintsOn).toMatchObject({ reason: 'enabled', precisionSeconds: 1 });
    expect(hintsOn.at).toBeGreaterThanOrEqual(Math.floor(upAt));
    expect(hintsOn.at).toBeLessThanOrEqual(Math.ceil(onSeen) + 1);
    expect(body.hintsObserved.map((i) => i.value)).toEqual(['on', 'off', 'on']);
    expect(body.hintsObserved[1]).toMatchObject({ from: hintsOff.at, to: hintsOn.at, label: 'Hints off — The Service has fewer ready endpoints than the cluster has zones' });
    // Ready endpoints are step samples: 9 again once scaled back.
    expect(body.readyEndpoints.map((s) => s.key)).toEqual(['ap-northeast-2a', 'ap-northeast-2b', 'ap-northeast-2c']);
    expect(body.readyEndpoints.reduce((sum, s) => sum + (s.points.at(-1)?.v ?? 0), 0)).toBe(9);

    // Asked for no range, a fresh installation's history opens on the 1 h its data covers, with
    // the same changes in it, rather than on 24 h where the data would be one or two steps.
    const opened = await readJson<ServiceHistory>(await GET(apiRequest('/api/v1/services/shop/checkout/history'), routeContext({ namespace: 'shop', name: 'checkout' })));
    expect(opened).toMatchObject({ range: '1h', rangeFromData: true, stepSeconds: 5, status: { state: 'ok' } });
    expect(opened.transitions.map((t) => t.kind)).toEqual(body.transitions.map((t) => t.kind));
  }, 60_000);
});
