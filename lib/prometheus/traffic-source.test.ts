import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { configFromEnv } from '../config/config';
import { metricsConfigFromEnv } from './config';
import { promDurationSeconds } from './queries';
import { MAX_PROBES_PER_METRIC } from './traffic-coverage';
import { TrafficSource } from './traffic-source';

/** A fake Prometheus: answers each query from `series(query)`, or fails with `failWith`. */
let series: (query: string) => { metric: Record<string, string>; value: [number, string] }[] = () => [];
let failWith: number | null = null;
let delayMs = 0;
const queries: string[] = [];
let server: http.Server;
let url = '';

beforeAll(async () => {
  server = http.createServer((req, res) => {
    const query = new URL(req.url ?? '', 'http://x').searchParams.get('query') ?? '';
    queries.push(query);
    const answer = (): void => {
      if (failWith !== null) {
        res.writeHead(failWith, { 'Content-Type': 'text/plain' });
        res.end('down for maintenance');
        return;
      }
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify({ status: 'success', data: { resultType: 'vector', result: series(query) } }));
    };
    if (delayMs > 0) setTimeout(answer, delayMs);
    else answer();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

beforeEach(() => {
  series = () => [];
  failWith = null;
  delayMs = 0;
  queries.length = 0;
});

const beylaFlows = (query: string) =>
  query.includes('beyla_network_flow_bytes_total')
    ? [{ metric: { src_zone: 'a', dst_zone: 'b', k8s_src_namespace: 'shop', k8s_src_owner_name: 'loadgen', k8s_dst_namespace: 'shop', k8s_dst_owner_name: 'web' }, value: [1, '125'] as [number, string] }]
    : query.includes('container_network')
      ? [{ metric: { namespace: 'shop', pod: 'web-1' }, value: [1, '10'] as [number, string] }]
      : [];

function source(clock: { now: number }, env: Record<string, string> = {}): { source: TrafficSource; logs: string[] } {
  const logs: string[] = [];
  const result = metricsConfigFromEnv(configFromEnv({ ZONESCOPE_PROMETHEUS_URL: url, ZONESCOPE_PROMETHEUS_WINDOW: '1m', ZONESCOPE_PROMETHEUS_MAX_STALE_SECONDS: '120', ...env }));
  return { source: new TrafficSource(result, { now: () => clock.now, log: (line) => logs.push(line) }), logs };
}

describe('TrafficSource', () => {
  it('says how to add measured traffic when not configured, and issues no query', async () => {
    const s = new TrafficSource(metricsConfigFromEnv(configFromEnv({})));
    await s.refresh();
    expect(s.status()).toMatchObject({
      state: 'not-configured',
      message: 'No metrics source is configured: traffic volumes are assumed.',
      url: null,
      queriesIssued: 0,
      hint: 'Set ZONESCOPE_PROMETHEUS_URL to a Prometheus that scrapes Beyla (or OpenTelemetry eBPF Instrumentation) network metrics or cAdvisor pod network bytes; docs/traffic.md lists the queries.',
    });
    expect(s.measurement()).toBeNull();
    expect(queries).toEqual([]);
  });

  it('reports an invalid configuration as state error with the reason, and never queries', async () => {
    // (A value whose syntax is wrong stops the start, lib/config; a token file that cannot be read shows here.)
    const s = new TrafficSource(metricsConfigFromEnv(configFromEnv({ ZONESCOPE_PROMETHEUS_URL: url, ZONESCOPE_PROMETHEUS_TOKEN_FILE: '/nonexistent/zonescope/token' })));
    s.start();
    await s.refresh();
    await s.stop();
    expect(s.status().state).toBe('error');
    expect(s.status().message).toBe('The Prometheus configuration is invalid: ZONESCOPE_PROMETHEUS_TOKEN_FILE (/nonexistent/zonescope/token) cannot be read: no such file. Traffic volumes are assumed.');
    expect(queries).toEqual([]);
  });

  it('pending → ok with three queries a refresh; concurrent refreshes share one run', async () => {
    const clock = { now: Date.UTC(2026, 0, 1) };
    const { source: s } = source(clock);
    expect(s.status()).toMatchObject({ state: 'pending', queriesPerRefresh: 3, lastSuccessAt: null });
    series = beylaFlows;
    delayMs = 30;
    await Promise.all([s.refresh(), s.refresh(), s.refresh()]);
    // The first refresh also checks that each source's data reaches back the whole window.
    expect(queries.filter((q) => q.startsWith('count(')).sort()).toEqual([
      'count(beyla_network_flow_bytes_total offset 1m)',
      'count(beyla_network_flow_bytes_total)',
      'count(container_network_receive_bytes_total{pod!="", container=~"|POD"} offset 1m)',
      'count(container_network_receive_bytes_total{pod!="", container=~"|POD"})',
    ]);
    expect(queries.filter((q) => !q.startsWith('count(')).sort()).toEqual([
      'sum by (direction, src_zone, dst_zone, k8s_src_namespace, k8s_src_owner_name, k8s_src_owner_type, k8s_dst_namespace, k8s_dst_owner_name, k8s_dst_owner_type) (rate(beyla_network_flow_bytes_total[1m]))',
      // Pod bytes only outside the namespaces the flows cover (here: shop).
      'sum by (namespace, pod) (label_replace(rate(container_network_receive_bytes_total{pod!="", container=~"|POD", namespace!~"shop"}[1m]), "direction", "rx", "", "") or label_replace(rate(container_network_transmit_bytes_total{pod!="", container=~"|POD", namespace!~"shop"}[1m]), "direction", "tx", "", ""))',
      'sum by (src_zone, dst_zone) (rate(beyla_network_inter_zone_bytes_total[1m]))',
    ]);
    const status = s.status();
    expect(status).toMatchObject({ state: 'ok', queriesIssued: 7, queriesPerRefresh: 7, lastSuccessAt: '2026-01-01T00:00:00.000Z', staleSince: null, window: '1m', url });
    expect(status.message).toBe(`Measured from Prometheus at ${url}: 1 flow series (beyla_network_flow_bytes_total) and 1 pod series, rate over 1m.`);
    const m = s.measurement();
    // Labels a series does not carry (here: direction and the owner types) read as ''.
    expect([...(m?.flows ?? [])]).toEqual([{ direction: '', srcZone: 'a', dstZone: 'b', srcNamespace: 'shop', srcOwner: 'loadgen', srcOwnerType: '', dstNamespace: 'shop', dstOwner: 'web', dstOwnerType: '', bytesPerSecond: 125 }]);
    expect(m?.podBytes).toEqual([{ namespace: 'shop', pod: 'web-1', bytesPerSecond: 10 }]);
    expect(m?.measuredAt).toBe('2026-01-01T00:00:00.000Z');
    // The data reaches the whole window: never probed again, three queries a refresh.
    queries.length = 0;
    clock.now += 60_000;
    await s.refresh();
    expect(queries).toHaveLength(3);
    expect(s.status()).toMatchObject({ queriesIssued: 10, queriesPerRefresh: 3 });
  });

  it('asks pod bytes only for the namespaces no flow series reaches, after the flows; unrestricted when there are no flows', async () => {
    const clock = { now: Date.UTC(2026, 0, 1) };
    const { source: s } = source(clock);
    const flow = (dstNamespace: string) => ({ metric: { src_zone: 'a', dst_zone: 'b', k8s_src_namespace: 'shop', k8s_src_owner_name: 'loadgen', k8s_dst_namespace: dstNamespace, k8s_dst_owner_name: 'web' }, value: [1, '5'] as [number, string] });
    let flows: { metric: Record<string, string>; value: [number, string] }[] = [flow('shop'), flow('pay'), flow('shop'), flow(''), flow('Not A Namespace.*')];
    const pods = ['shop', 'pay', 'platform'].map((namespace) => ({ metric: { namespace, pod: `${namespace}-1` }, value: [1, '7'] as [number, string] }));
    const order: string[] = [];
    series = (query) => {
      if (query.startsWith('count(')) return [{ metric: {}, value: [1, '1'] }];
      if (query.includes('flow_bytes')) {
        order.push('flows');
        return flows;
      }
      if (!query.includes('container_network')) return [];
      order.push('pods');
      // As Prometheus would: the matcher leaves the excluded namespaces out.
      const excluded = /namespace!~"([^"]*)"/.exec(query)?.[1];
      return excluded === undefined ? pods : pods.filter((p) => !new RegExp(`^(?:${excluded})$`).test(p.metric.namespace));
    };
    await s.refresh();
    const podQueries = queries.filter((q) => q.startsWith('sum by (namespace, pod)'));
    expect(podQueries).toHaveLength(1);
    // Sorted, deduplicated; the empty (outside the cluster) and the invalid name are left out.
    expect(podQueries[0]).toContain('{pod!="", container=~"|POD", namespace!~"pay|shop"}[1m]');
    expect(order).toEqual(['flows', 'pods']);
    expect(s.measurement()?.podBytes).toEqual([{ namespace: 'platform', pod: 'platform-1', bytesPerSecond: 7 }]);

    // Flows now cover every namespace with pods: the pod query answers nothing, which is no reason
    // to probe the pod counters again (the probe counts all namespaces).
    flows = [flow('shop'), flow('pay'), flow('platform')];
    queries.length = 0;
    clock.now += 60_000;
    await s.refresh();
    expect(queries).toHaveLength(3);
    expect(s.measurement()?.podBytes).toEqual([]);
    queries.length = 0;
    clock.now += 60_000;
    await s.refresh();
    expect(queries.filter((q) => q.startsWith('count('))).toEqual([]);

    // No flows at all: pod bytes for every namespace.
    flows = [];
    queries.length = 0;
    clock.now += 60_000;
    await s.refresh();
    expect(queries.filter((q) => q.startsWith('sum by (namespace, pod)'))[0]).toContain('{pod!="", container=~"|POD"}[1m]');
    expect(s.measurement()?.podBytes.map((p) => p.namespace)).toEqual(['shop', 'pay', 'platform']);

    // Flows without zones (Beyla's default attribute set) measure no Service: pod bytes for every
    // namespace, and the status is its own state, never "ok", with the setting that adds zones.
    flows = [{ metric: { direction: 'request', k8s_src_namespace: 'shop', k8s_src_owner_name: 'loadgen', k8s_dst_namespace: 'shop', k8s_dst_owner_name: 'web' }, value: [1, '5'] }];
    queries.length = 0;
    clock.now += 60_000;
    await s.refresh();
    expect(queries.filter((q) => q.startsWith('sum by (namespace, pod)'))[0]).toContain('{pod!="", container=~"|POD"}[1m]');
    expect(s.measurement()?.podBytes.map((p) => p.namespace)).toEqual(['shop', 'pay', 'platform']);
    expect(s.measurement()?.flowZones).toBe(false);
    const status = s.status();
    expect(status.state).toBe('no-zones');
    expect(status.message).toContain('without src_zone/dst_zone');
    expect(status.hint).toContain("Add src.zone and dst.zone to Beyla's attributes.select.beyla_network_flow_bytes.include");
  });

  it('a selector picks the cluster\'s series on a shared Prometheus: every query and probe carries it', async () => {
    const clock = { now: Date.UTC(2026, 0, 1) };
    const { source: s } = source(clock, { ZONESCOPE_PROMETHEUS_SELECTOR: 'cluster="prod"' });
    series = (query) => (query.startsWith('count(') ? [{ metric: {}, value: [1, '1'] }] : []);
    await s.refresh();
    expect(queries.length).toBeGreaterThan(0);
    for (const query of queries) expect(query).toContain('cluster="prod"');
  });

  it('falls back to obi_ when beyla_ has no series, and asks obi_ first from then on', async () => {
    const clock = { now: 0 };
    const { source: s } = source(clock);
    series = (query) => (query.includes('obi_network_flow_bytes_total') ? [{ metric: { src_zone: 'a', dst_zone: 'a', k8s_dst_namespace: 'x', k8s_dst_owner_name: 'y' }, value: [1, '1'] }] : []);
    await s.refresh();
    expect(queries.filter((q) => q.includes('flow_bytes'))).toEqual([
      'count(beyla_network_flow_bytes_total)',
      'count(obi_network_flow_bytes_total)',
      'count(obi_network_flow_bytes_total offset 1m)',
      'sum by (direction, src_zone, dst_zone, k8s_src_namespace, k8s_src_owner_name, k8s_src_owner_type, k8s_dst_namespace, k8s_dst_owner_name, k8s_dst_owner_type) (rate(obi_network_flow_bytes_total[1m]))',
    ]);
    expect(queries.some((q) => q.includes('obi_network_inter_zone_bytes_total'))).toBe(true);
    // Probes: beyla (none), obi (present, whole window), pod bytes (none); then flows and inter-zone.
    expect(s.status().queriesPerRefresh).toBe(6);
    expect(s.measurement()?.flowMetric).toBe('obi_network_flow_bytes_total');
    queries.length = 0;
    await s.refresh();
    expect(queries).toHaveLength(3);
    expect(s.status().queriesPerRefresh).toBe(3);
  });

  describe('data younger than the window', () => {
    /**
     * A fake Prometheus whose series began `ageSeconds()` ago: `count(x offset d)` answers only for
     * d ≤ the age, and rate(x[w]) divides the bytes by the whole window as Prometheus does
     * (true rate × min(age, w) / w).
     */
    function youngData(ageSeconds: () => number, podAgeSeconds: () => number | null = () => null): (query: string) => { metric: Record<string, string>; value: [number, string] }[] {
      return (query) => {
        const pod = query.includes('container_network');
        const age = pod ? podAgeSeconds() : query.includes('beyla_') ? ageSeconds() : null;
        if (age === null) return [];
        const probe = /^count\((.+?)(?: offset (\w+))?\)$/.exec(query);
        if (probe) return (probe[2] === undefined ? 0 : promDurationSeconds(probe[2])) <= age ? [{ metric: {}, value: [1, '3'] }] : [];
        const window = promDurationSeconds(/\[(\w+)\]/.exec(query)?.[1] ?? '');
        const seen = Math.min(age, window) / window;
        if (pod) return [{ metric: { namespace: 'shop', pod: 'web-1' }, value: [1, String(40 * seen)] }];
        if (query.includes('inter_zone')) return [{ metric: { src_zone: 'a', dst_zone: 'b' }, value: [1, String(100 * seen)] }];
        return [{ metric: { src_zone: 'a', dst_zone: 'b', k8s_src_namespace: 'shop', k8s_src_owner_name: 'loadgen', k8s_dst_namespace: 'shop', k8s_dst_owner_name: 'web' }, value: [1, String(1000 * seen)] }];
      };
    }

    it('rates over as far back as the data reaches (not the configured 10m), says so, and probes again only every 10 refreshes', async () => {
      const start = Date.UTC(2026, 0, 1);
      const clock = { now: start };
      const { source: s } = source(clock, { ZONESCOPE_PROMETHEUS_WINDOW: '10m' });
      series = youngData(
        () => 90 + (clock.now - start) / 1000,
        () => 3600,
      );
      await s.refresh();
      const rates = queries.filter((q) => !q.startsWith('count('));
      expect(rates).toHaveLength(3);
      // Every rate uses the same window, the one the probe found (the data is 90 s old).
      for (const q of rates) expect(q).toContain('[1m24s]');
      let status = s.status();
      expect(status.state).toBe('ok');
      expect(status.window).toBe('1m24s');
      expect(status.message).toBe(`Measured from Prometheus at ${url}: 1 flow series (beyla_network_flow_bytes_total) and 1 pod series, rate over 1m24s — the data only reaches back that far (configured window 10m).`);
      const m = s.measurement();
      expect(m?.window).toBe('1m24s');
      // The rates are the true ones, not 90/600 of them.
      expect([...(m?.flows ?? [])][0]?.bytesPerSecond).toBe(1000);
      expect(m?.interZone[0]?.bytesPerSecond).toBe(100);
      expect(m?.podBytes[0]?.bytesPerSecond).toBe(40);
      expect(status.queriesPerRefresh).toBe(queries.length);
      expect(queries.filter((q) => q.startsWith('count(beyla')).length).toBeLessThanOrEqual(MAX_PROBES_PER_METRIC);

      // 30 s later: no probe (the data only ages), the window grows with it.
      queries.length = 0;
      clock.now += 30_000;
      await s.refresh();
      expect(queries).toHaveLength(3);
      expect(queries[0]).toContain('[1m54s]');
      expect([...(s.measurement()?.flows ?? [])][0]?.bytesPerSecond).toBe(1000);

      // After 10 refresh intervals it probes again: now the data reaches the whole window.
      queries.length = 0;
      clock.now += 600_000;
      await s.refresh();
      expect(queries.filter((q) => q.startsWith('count(beyla'))).toEqual(['count(beyla_network_flow_bytes_total)', 'count(beyla_network_flow_bytes_total offset 10m)']);
      status = s.status();
      expect(status.window).toBe('10m');
      expect(status.message).toBe(`Measured from Prometheus at ${url}: 1 flow series (beyla_network_flow_bytes_total) and 1 pod series, rate over 10m.`);
      expect([...(s.measurement()?.flows ?? [])][0]?.bytesPerSecond).toBe(1000);
      queries.length = 0;
      clock.now += 60_000;
      await s.refresh();
      expect(queries).toHaveLength(3);
    });

    it('less than 10 s of data: pending, figures assumed, no rate query; measured once there is enough', async () => {
      const start = Date.UTC(2026, 0, 1);
      const clock = { now: start };
      const { source: s, logs } = source(clock, { ZONESCOPE_PROMETHEUS_WINDOW: '7d' });
      series = youngData(() => 4 + (clock.now - start) / 1000);
      await s.refresh();
      expect(queries.every((q) => q.startsWith('count('))).toBe(true);
      expect(queries.length).toBeLessThanOrEqual(2 * MAX_PROBES_PER_METRIC);
      expect(s.status()).toMatchObject({
        state: 'pending',
        window: '7d',
        message: `Prometheus at ${url} has less than 10s of beyla_network_flow_bytes_total yet: traffic volumes are assumed until it has more.`,
      });
      expect(s.measurement()).toBeNull();
      expect(logs).toEqual([]);

      queries.length = 0;
      clock.now += 20_000;
      await s.refresh();
      const status = s.status();
      expect(status.state).toBe('ok');
      expect(status.message).toMatch(/^Measured from Prometheus at .+: 1 flow series \(beyla_network_flow_bytes_total\) and 0 pod series, rate over (2[1-4])s — the data only reaches back that far \(configured window 7d\)\.$/);
      expect([...(s.measurement()?.flows ?? [])][0]?.bytesPerSecond).toBe(1000);
      // The last probe bounded the age, so the second one does not start from 7d again.
      expect(queries.filter((q) => q.startsWith('count(beyla')).length).toBeLessThanOrEqual(6);
    });
  });

  it.each([
    { age: 13, window: '7d', expected: '13s' },
    { age: 7, window: '5s', expected: '5s' },
    { age: 3.5 * 86_400, window: '7d', expected: '3d' },
    { age: 36 * 3600 + 1800, window: '7d', expected: '1d12h' },
  ])('data $age s old, window $window: rates over about $expected, never longer than the data', async ({ age, window, expected }) => {
    const { source: s } = source({ now: 0 }, { ZONESCOPE_PROMETHEUS_WINDOW: window });
    series = (query) => {
      const probe = /^count\(beyla_network_flow_bytes_total(?: offset (\w+))?\)$/.exec(query);
      if (probe) return (probe[1] === undefined ? 0 : promDurationSeconds(probe[1])) <= age ? [{ metric: {}, value: [1, '1'] }] : [];
      return query.includes('rate(beyla_network_flow_bytes_total') ? [{ metric: { src_zone: 'a', dst_zone: 'b' }, value: [1, '1'] }] : [];
    };
    await s.refresh();
    expect(s.status().state, s.status().message).toBe('ok');
    const got = s.measurement()?.window ?? '';
    const reach = Math.min(age, promDurationSeconds(window));
    // Never longer than the data; within an eighth of it (rounded down to a readable step).
    expect(promDurationSeconds(got), got).toBeLessThanOrEqual(reach);
    expect(promDurationSeconds(got), got).toBeGreaterThanOrEqual(reach * 0.85);
    if (expected === window) expect(got).toBe(window);
    expect(queries.filter((q) => q.startsWith('count(beyla')).length).toBeLessThanOrEqual(MAX_PROBES_PER_METRIC);
    expect(queries.filter((q) => q.startsWith('sum by')).every((q) => q.includes(`[${got}]`))).toBe(true);
  });

  it('a new measurement goes through the prepare hook before it is published; a hook that fails does not hold it back; no hook without series', async () => {
    const clock = { now: Date.UTC(2026, 0, 1) };
    const { source: s } = source(clock);
    series = beylaFlows;
    const seen: { readonly flows: number; readonly publishedMeanwhile: boolean }[] = [];
    let release: () => void = () => undefined;
    s.setPrepare(async (measurement) => {
      // While the hook runs, readers still get what was there before (nothing yet).
      seen.push({ flows: measurement.flows.length, publishedMeanwhile: s.measurement() !== null });
      await new Promise<void>((resolve) => {
        release = resolve;
      });
    });
    const refreshed = s.refresh();
    await expect.poll(() => seen.length, { message: 'the prepare hook runs' }).toBe(1);
    expect(seen).toEqual([{ flows: 1, publishedMeanwhile: false }]);
    expect(s.measurement()).toBeNull();
    expect(s.status().state).toBe('pending');
    release();
    await refreshed;
    const first = s.measurement();
    expect(first?.flows).toHaveLength(1);
    expect(s.status().state).toBe('ok');

    s.setPrepare(() => Promise.reject(new Error('mapping failed')));
    clock.now += 60_000;
    await s.refresh();
    expect(s.measurement()).not.toBe(first);
    expect(s.measurement()?.measuredAt).toBe('2026-01-01T00:01:00.000Z');

    let calls = 0;
    s.setPrepare(async () => {
      calls += 1;
    });
    series = () => [];
    clock.now += 60_000;
    await s.refresh();
    expect(s.status().state).toBe('no-series');
    expect(calls).toBe(0);
  });

  it('no-series when Prometheus answers but has none of the metrics', async () => {
    const { source: s, logs } = source({ now: 0 });
    await s.refresh();
    expect(s.status().state).toBe('no-series');
    expect(s.status().message).toBe(
      `Prometheus at ${url} answers, but has no series of beyla_/obi_network_flow_bytes_total or container_network_receive_bytes_total / container_network_transmit_bytes_total: traffic volumes are assumed.`,
    );
    expect(s.measurement()).toBeNull();
    expect(logs).toHaveLength(1);
  });

  it('ok → stale (last good kept) → error after the stale limit (model figures) → ok again', async () => {
    const clock = { now: Date.UTC(2026, 0, 1, 12) };
    const { source: s, logs } = source(clock);
    series = beylaFlows;
    await s.refresh();
    const good = s.measurement();
    expect(good).not.toBeNull();

    failWith = 503;
    clock.now += 60_000;
    await s.refresh();
    let status = s.status();
    expect(status.state).toBe('stale');
    expect(status.staleSince).toBe('2026-01-01T12:01:00.000Z');
    expect(status.lastSuccessAt).toBe('2026-01-01T12:00:00.000Z');
    expect(status.message).toBe(`Prometheus at ${url} answered HTTP 503 Service Unavailable: down for maintenance. Showing the measurement of 2026-01-01T12:00:00.000Z (stale since 2026-01-01T12:01:00.000Z).`);
    expect(s.measurement()).toBe(good);

    clock.now += 121_000;
    await s.refresh();
    status = s.status();
    // Prometheus answers, but with something unusable: error (down or slow would be unreachable).
    expect(status.state).toBe('error');
    expect(status.staleSince).toBe('2026-01-01T12:01:00.000Z');
    expect(status.message).toBe(
      `Prometheus at ${url} answered HTTP 503 Service Unavailable: down for maintenance. Failing since 2026-01-01T12:01:00.000Z; the last measurement (2026-01-01T12:00:00.000Z) is too old to use, so traffic volumes are assumed.`,
    );
    expect(s.measurement()).toBeNull();

    failWith = null;
    clock.now += 1000;
    await s.refresh();
    expect(s.status()).toMatchObject({ state: 'ok', staleSince: null, lastSuccessAt: '2026-01-01T12:03:02.000Z' });
    expect(s.measurement()).not.toBe(good);
    expect(logs.map((line) => line.slice(0, 30))).toEqual(['[zonescope] metrics: Prometheu', '[zonescope] metrics: Prometheu']);
  });

  it.each([
    { status: 401, message: (u: string) => `Prometheus at ${u} answered HTTP 401 Unauthorized: check the bearer token (ZONESCOPE_PROMETHEUS_TOKEN_FILE) or the URL's credentials. Failing since 1970-01-01T00:00:00.000Z, so traffic volumes are assumed.` },
    { status: 500, message: (u: string) => `Prometheus at ${u} answered HTTP 500 Internal Server Error: down for maintenance. Failing since 1970-01-01T00:00:00.000Z, so traffic volumes are assumed.` },
  ])('error when Prometheus answers $status before any success', async ({ status, message }) => {
    const { source: s } = source({ now: 0 });
    failWith = status;
    await s.refresh();
    expect(s.status()).toMatchObject({ state: 'error', message: message(url), lastSuccessAt: null });
    expect(s.measurement()).toBeNull();
  });

  it('unreachable when never reached; the timer refreshes without readers and stops', async () => {
    const unreachable = { ZONESCOPE_PROMETHEUS_URL: 'http://127.0.0.1:1', ZONESCOPE_PROMETHEUS_REFRESH_SECONDS: '0.1' };
    const { source: s } = source({ now: 0 }, unreachable);
    s.start();
    // The timer refreshes (every 0.1 s) with nobody reading.
    await expect.poll(() => s.status().queriesIssued, { message: 'two refreshes by the timer' }).toBeGreaterThanOrEqual(2);
    await s.stop();
    const status = s.status();
    expect(status.state).toBe('unreachable');
    expect(status.message).toBe('Prometheus at http://127.0.0.1:1 is unreachable: connection refused. Failing since 1970-01-01T00:00:00.000Z, so traffic volumes are assumed.');
    expect(status.lastSuccessAt).toBeNull();
    expect(status.queriesIssued).toBeGreaterThanOrEqual(2);
    const issued = s.status().queriesIssued;
    // Stopped: while another source on the same timer refreshes longer than this one ran, it issues nothing more.
    const { source: witness } = source({ now: 0 }, unreachable);
    witness.start();
    await expect.poll(() => witness.status().queriesIssued, { message: 'the witness outlasts it' }).toBeGreaterThanOrEqual(issued + 2);
    await witness.stop();
    expect(s.status().queriesIssued).toBe(issued);
  });
});
