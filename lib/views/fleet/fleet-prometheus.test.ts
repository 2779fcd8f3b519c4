import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

import { fleetPrometheusRows } from './fleet';
import { configFromEnv, parseConfig } from '../../config/config';
import { FleetPrometheusCache, unreachableMessage } from './prometheus-cache';
import { fleetPrometheusConfigFromEnv } from './prometheus-config';
import type { FleetAnswers, FleetQueryName } from './prometheus-queries';
import { clusterInfo, FLEET_QUERY_NAMES, fleetQueries, queryFleet } from './prometheus-queries';
import { fleetRowsFromAnswers, prometheusRowId, sameCluster } from './prometheus-rows';
import { PrometheusError, type VectorSample } from '../../prometheus/client';

const T = Date.parse('2026-12-01T10:00:00Z');

function answers(parts: Partial<Record<FleetQueryName, VectorSample[]>>): FleetAnswers {
  return Object.fromEntries(FLEET_QUERY_NAMES.map((name) => [name, parts[name] ?? []])) as unknown as FleetAnswers;
}

const s = (metric: Record<string, string>, value: number): VectorSample => ({ metric, value });

/** What the fleet Prometheus answers for two installations, `eu` (ineligible, costly) and `us` (syncing). */
const TWO = answers({
  info: [s({ cluster: 'eu', exported_cluster: 'prod-eu', kubernetes_version: '1.31', platform: 'eks', proxy_mode: 'ipvs' }, 1), s({ cluster: 'us', kubernetes_version: '1.33', platform: 'gke', proxy_mode: 'nftables' }, 1)],
  minor: [s({ cluster: 'eu' }, 31), s({ cluster: 'us' }, 33)],
  eligible: [s({ cluster: 'eu' }, 0), s({ cluster: 'us' }, 1)],
  insufficientCause: [s({ cluster: 'eu', cause: 'node-missing-zone' }, 1), s({ cluster: 'us', cause: 'none' }, 1)],
  services: [s({ cluster: 'eu', mechanism: 'none' }, 7), s({ cluster: 'eu', mechanism: 'topology-mode' }, 3), s({ cluster: 'us', mechanism: 'none' }, 2)],
  hintsObserved: [s({ cluster: 'eu' }, 1), s({ cluster: 'us' }, 0)],
  attention: [s({ cluster: 'eu' }, 3), s({ cluster: 'us' }, 0)],
  cost: [s({ cluster: 'eu', scenario: 'now' }, 120.5), s({ cluster: 'eu', scenario: 'after_sync' }, 120.5), s({ cluster: 'eu', scenario: 'best' }, 20.5), s({ cluster: 'us', scenario: 'now' }, 0), s({ cluster: 'us', scenario: 'best' }, 0)],
  synced: [s({ cluster: 'eu' }, 1), s({ cluster: 'us' }, 0)],
  syncAge: [s({ cluster: 'eu' }, 4)],
  sampleTime: [s({ cluster: 'eu' }, T / 1000 - 7), s({ cluster: 'us' }, T / 1000 - 2)],
  top: [s({ cluster: 'eu', namespace: 'shop', service: 'web', job: 'zs' }, 80), s({ cluster: 'us', namespace: 'a', service: 'b' }, 0)],
  topReason: [s({ cluster: 'eu', namespace: 'shop', service: 'web', reason: 'insufficient-node-info' }, 1)],
  // A series without the cluster label is not a cluster.
});

describe('fleetRowsFromAnswers', () => {
  const rows = fleetRowsFromAnswers(TWO, 'cluster', T);
  const eu = rows.find((r) => r.displayName === 'eu');
  const us = rows.find((r) => r.displayName === 'us');

  it('has one row per value of the cluster label, marked as from Prometheus, without links', () => {
    expect(rows.map((r) => r.id)).toEqual([prometheusRowId('eu'), prometheusRowId('us')]);
    for (const row of rows) {
      expect(row.source).toBe('prometheus');
      expect(row.href).toBeNull();
      expect(row.context).toBeNull();
      expect(row.isDefault).toBe(false);
    }
  });

  it('maps the exported figures', () => {
    expect(eu).toMatchObject({
      release: '1.31',
      platform: 'eks',
      proxyMode: 'ipvs',
      eligible: false,
      eligibilityVerdict: 'Not eligible: a ready node lacks a zone label',
      services: 10,
      askingForHints: 3,
      hintsOn: 1,
      needingAttention: 3,
      crossZoneMonthly: 120.5,
      bestMonthly: 20.5,
      saving: 100,
      asOf: new Date(T - 7000).toISOString(),
    });
    expect(eu?.topService).toEqual({
      namespace: 'shop',
      name: 'web',
      href: null,
      monthlyCost: 80,
      bestMonthlyCost: null,
      reason: 'Hints are off cluster-wide: a ready node lacks a zone label or allocatable CPU.',
      fix: null,
    });
    expect(eu?.freshness).toMatchObject({ kind: 'synced', label: 'Synced' });
    expect(eu?.freshness.message).toContain('prod-eu');
  });

  it('says when an installation still syncs, and gives no costliest Service at $0', () => {
    expect(us).toMatchObject({ release: '1.33', platform: 'gke', eligible: true, eligibilityVerdict: 'Eligible: the topology cache has CPU ratios', services: 2, askingForHints: 0, crossZoneMonthly: 0, saving: 0, topService: null });
    expect(us?.freshness.kind).toBe('syncing');
  });

  it('marks data older than five minutes as stale', () => {
    const stale = fleetRowsFromAnswers(answers({ synced: [s({ c: 'x' }, 1)], syncAge: [s({ c: 'x' }, 900)], sampleTime: [s({ c: 'x' }, T / 1000)] }), 'c', T);
    expect(stale).toHaveLength(1);
    expect(stale[0]?.freshness).toMatchObject({ kind: 'stale', since: new Date(T - 900_000).toISOString() });
    expect(stale[0]?.crossZoneMonthly).toBeNull();
    expect(stale[0]?.services).toBeNull();
  });

  it('ignores series without the label, a name seen only on zonescope_cluster_info, and a reason of another Service', () => {
    const rows2 = fleetRowsFromAnswers(
      answers({
        info: [s({ cluster: 'own-name', platform: 'eks' }, 1)],
        synced: [s({}, 1), s({ cluster: 'a' }, 1)],
        top: [s({ cluster: 'a', namespace: 'n', service: 'costly' }, 5)],
        topReason: [s({ cluster: 'a', namespace: 'n', service: 'other', reason: 'enabled' }, 1)],
      }),
      'cluster',
      T,
    );
    expect(rows2.map((r) => r.displayName)).toEqual(['a']);
    expect(rows2[0]?.topService?.reason).toBeNull();
  });

  it('a NaN, ±Inf, unreadable or absurd sample leaves that figure of that row without a value, with a note; every other row is whole', () => {
    const bad = (value: number, labels: Record<string, string> = {}, problem?: string): VectorSample => ({ metric: { cluster: 'bad', ...labels }, value, ...(problem !== undefined ? { problem } : {}) });
    const withBad = answers({
      ...Object.fromEntries(FLEET_QUERY_NAMES.map((name) => [name, [...TWO[name]]])),
      synced: [...TWO.synced, bad(Number.NaN)],
      minor: [...TWO.minor, bad(1e300)],
      services: [...TWO.services, bad(4, { mechanism: 'none' }), bad(Number.POSITIVE_INFINITY, { mechanism: 'topology-mode' })],
      hintsObserved: [...TWO.hintsObserved, bad(-3)],
      attention: [...TWO.attention, bad(Number.NaN, {}, 'its value "lots" is not a number')],
      cost: [...TWO.cost, bad(Number.NEGATIVE_INFINITY, { scenario: 'now' }), bad(7, { scenario: 'best' })],
      syncAge: [...TWO.syncAge, bad(1e300)],
      sampleTime: [...TWO.sampleTime, bad(1e300)],
      top: [...TWO.top, bad(Number.NaN, { namespace: 'n', service: 's' }, 'its timestamp "soon" is not a time')],
    });
    const rows = fleetRowsFromAnswers(withBad, 'cluster', T);
    expect(rows.map((r) => r.displayName)).toEqual(['bad', 'eu', 'us']);
    // The others are exactly what they are without it.
    expect(rows.slice(1)).toEqual(fleetRowsFromAnswers(TWO, 'cluster', T));
    const row = rows[0];
    expect(row).toMatchObject({ release: null, services: null, askingForHints: null, hintsOn: null, needingAttention: null, crossZoneMonthly: null, bestMonthly: 7, saving: null, topService: null, asOf: new Date(T).toISOString() });
    expect(row?.freshness.kind).toBe('synced');
    expect(row?.unknown).toEqual([
      'zonescope_services{mechanism="topology-mode"} has no usable value in the fleet Prometheus (its value is +Inf): shown as no value.',
      'zonescope_services_needing_attention has no usable value in the fleet Prometheus (its value "lots" is not a number): shown as no value.',
      'zonescope_cross_zone_cost_dollars_per_month{scenario="now"} has no usable value in the fleet Prometheus (its value is -Inf): shown as no value.',
      'zonescope_cluster_synced has no usable value in the fleet Prometheus (its value is NaN): shown as no value.',
      'zonescope_service_cross_zone_cost_dollars_per_month{namespace="n",service="s"} has no usable value in the fleet Prometheus (its timestamp "soon" is not a time): shown as no value.',
      'zonescope_cluster_kubernetes_minor is 1e+300 in the fleet Prometheus, not a minor version: shown as no value.',
      'timestamp(zonescope_cluster_synced) is 1e+300 in the fleet Prometheus, not a time: the row is as of the query.',
      'zonescope_sync_age_seconds is 1e+300 in the fleet Prometheus, not an age: the row\'s freshness is unknown.',
      'zonescope_services_hints_observed is -3 in the fleet Prometheus, not a count: shown as no value.',
    ]);
    // No figure is NaN or ±Inf (which JSON would turn into null without a word).
    for (const value of Object.values(row ?? {})) if (typeof value === 'number') expect(Number.isFinite(value)).toBe(true);
  });
});

describe('clusterInfo', () => {
  it('matches zonescope_cluster_info to its cluster through its scrape target when honor_labels kept the own cluster label', () => {
    const rows = fleetRowsFromAnswers(
      answers({
        info: [s({ cluster: 'prod-eu', instance: '10.0.0.1:3000', job: 'zs', platform: 'aks', proxy_mode: 'iptables' }, 1)],
        instances: [s({ cluster: 'eu', instance: '10.0.0.1:3000', job: 'zs' }, 1)],
        synced: [s({ cluster: 'eu' }, 1)],
      }),
      'cluster',
      T,
    );
    expect(rows.map((r) => [r.displayName, r.platform, r.proxyMode])).toEqual([['eu', 'aks', 'iptables']]);
    expect(rows[0]?.freshness.message).toContain('"prod-eu"');
  });

  it('falls back to the label when one target serves several clusters', () => {
    const info = clusterInfo(
      {
        info: [s({ cluster: 'a', instance: 'thanos', job: 'j', platform: 'gke' }, 1), s({ cluster: 'b', instance: 'thanos', job: 'j', platform: 'eks' }, 1)],
        instances: [s({ cluster: 'a', instance: 'thanos', job: 'j' }, 1), s({ cluster: 'b', instance: 'thanos', job: 'j' }, 1)],
      },
      'cluster',
    );
    expect([...info].map(([c, i]) => [c, i.labels.platform, i.ownName])).toEqual([
      ['a', 'gke', null],
      ['b', 'eks', null],
    ]);
  });
});

describe('fleetQueries', () => {
  it('groups every query by the configured label', () => {
    const queries = fleetQueries('k8s_cluster');
    for (const name of FLEET_QUERY_NAMES) expect(queries[name]).toContain('k8s_cluster');
    expect(queries.info).toContain('cluster,'); // the installation's own name label stays `cluster`
    expect(fleetQueries('cluster').info).toContain('exported_cluster');
    expect(queries.top).toBe('topk by (k8s_cluster) (1, zonescope_service_cross_zone_cost_dollars_per_month)');
  });
});

describe('fleetPrometheusConfigFromEnv', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'fleet-prom-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('is not configured without the URL', () => {
    expect(fleetPrometheusConfigFromEnv(configFromEnv({ ZONESCOPE_PROMETHEUS_URL: 'http://p:9090' }))).toEqual({ kind: 'not-configured' });
  });

  it('reads the URL, the label, the token file and the timeout, without credentials in the URL shown', () => {
    const token = path.join(dir, 'token');
    writeFileSync(token, 'secret\n');
    const result = fleetPrometheusConfigFromEnv(configFromEnv({
      ZONESCOPE_FLEET_PROMETHEUS_URL: 'https://u:p@thanos.example:10902/prefix/',
      ZONESCOPE_FLEET_CLUSTER_LABEL: 'k8s_cluster',
      ZONESCOPE_FLEET_PROMETHEUS_TOKEN_FILE: token,
      ZONESCOPE_FLEET_PROMETHEUS_TIMEOUT_MS: '2500',
    }));
    expect(result.kind).toBe('ok');
    if (result.kind !== 'ok') return;
    expect(result.config.clusterLabel).toBe('k8s_cluster');
    expect(result.config.metrics).toMatchObject({ baseUrl: 'https://thanos.example:10902/prefix', tokenFile: token, timeoutMs: 2500, basicAuth: { username: 'u', password: 'p' } });
  });

  it('names the fleet variables in its errors', () => {
    const missing = fleetPrometheusConfigFromEnv(configFromEnv({ ZONESCOPE_FLEET_PROMETHEUS_URL: 'http://p:9090', ZONESCOPE_FLEET_PROMETHEUS_TOKEN_FILE: path.join(dir, 'nope') }));
    expect(missing).toMatchObject({ kind: 'error' });
    expect(missing.kind === 'error' && missing.message).toMatch(/^ZONESCOPE_FLEET_PROMETHEUS_TOKEN_FILE .* cannot be read: no such file\.$/);
    // A URL or label whose syntax is wrong stops the start, naming the fleet variable.
    const badUrl = parseConfig({ ZONESCOPE_FLEET_PROMETHEUS_URL: 'ftp://p' });
    expect(!badUrl.ok && badUrl.errors[0]?.message).toContain('ZONESCOPE_FLEET_PROMETHEUS_URL must start with http://');
    const badLabel = parseConfig({ ZONESCOPE_FLEET_PROMETHEUS_URL: 'http://p:9090', ZONESCOPE_FLEET_CLUSTER_LABEL: 'my-cluster' });
    expect(!badLabel.ok && badLabel.errors[0]?.message).toContain('ZONESCOPE_FLEET_CLUSTER_LABEL must be a Prometheus label name');
  });
});

describe('FleetPrometheusCache', () => {
  const config = { metrics: { baseUrl: 'http://fleet:9090' } as never, clusterLabel: 'cluster' };

  it('queries in the background at most once per refresh interval, keeps the last rows on failure', async () => {
    let now = T;
    let calls = 0;
    let fail = false;
    const cache = new FleetPrometheusCache({
      config,
      now: () => now,
      refreshMs: 30_000,
      query: async () => {
        calls++;
        if (fail) throw new PrometheusError('unreachable', 'Prometheus at http://fleet:9090 cannot be reached: connection refused (ECONNREFUSED).');
        return TWO;
      },
    });
    const first = cache.snapshot();
    expect(first.status).toMatchObject({ state: 'pending', clusters: 0, answeredAt: null });
    expect(first.rows).toEqual([]);
    await cache.refresh(); // the one in flight
    expect(calls).toBe(1);
    const second = cache.snapshot();
    expect(second.status.state).toBe('ok');
    expect(second.rows.map((r) => [r.row.displayName, r.exportedName])).toEqual([
      ['eu', 'prod-eu'],
      ['us', null],
    ]);
    now += 10_000;
    cache.snapshot();
    expect(calls).toBe(1);
    now += 20_000;
    fail = true;
    cache.snapshot();
    await cache.refresh();
    expect(calls).toBe(2);
    const failed = cache.snapshot();
    expect(failed.status.state).toBe('error');
    expect(failed.status.message).toBe('fleet Prometheus unreachable: Prometheus at http://fleet:9090 cannot be reached: connection refused (ECONNREFUSED).');
    expect(failed.rows).toHaveLength(2);
  });
});

describe('queryFleet against a stand-in Prometheus', () => {
  let server: http.Server;
  let base = '';
  let respond: (query: string, res: http.ServerResponse) => void = () => undefined;
  /** Bytes each query's answer put on the wire before the client stopped reading. */
  const sent = new Map<string, number>();

  beforeAll(async () => {
    server = http.createServer((req, res) => respond(new URL(req.url ?? '/', 'http://x').searchParams.get('query') ?? '', res));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const fleetConfig = (mib?: string) => {
    const result = fleetPrometheusConfigFromEnv(configFromEnv({ ZONESCOPE_FLEET_PROMETHEUS_URL: base, ...(mib !== undefined ? { ZONESCOPE_FLEET_PROMETHEUS_MAX_RESPONSE_MIB: mib } : {}) }));
    if (result.kind !== 'ok') throw new Error(JSON.stringify(result));
    return result.config;
  };

  /** A 150 MB answer, written as the client reads it (never held here): a vector of one-cluster samples. */
  function endless(query: string, res: http.ServerResponse): void {
    const total = 150 * 1024 * 1024;
    const sample = `{"metric":{"cluster":"c"},"value":[1700000000.5,"1"]},`;
    const block = Buffer.from(sample.repeat(Math.ceil(65_536 / sample.length)));
    let written = 0;
    res.writeHead(200, { 'Content-Type': 'application/json' });
    res.write('{"status":"success","data":{"resultType":"vector","result":[');
    const pump = (): void => {
      while (written < total && !res.destroyed) {
        written += block.length;
        sent.set(query, written);
        if (!res.write(block)) {
          res.once('drain', pump);
          return;
        }
      }
      if (!res.destroyed) res.end('{"metric":{},"value":[1,"1"]}]}}');
    };
    res.on('close', () => sent.set(query, written));
    pump();
  }

  it('refuses a 150 MB answer at the 16 MiB cap, naming the query and the cap, and stops reading it', async () => {
    sent.clear();
    respond = endless;
    const config = fleetConfig();
    expect(config.metrics.maxResponseBytes).toBe(16 * 1024 * 1024);
    const error = await queryFleet(config, T / 1000).then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(PrometheusError);
    expect((error as PrometheusError).kind).toBe('too-large');
    expect((error as PrometheusError).message).toMatch(/^Prometheus at http:\/\/127\.0\.0\.1:\d+ answered the fleet query "\w+" \(.+\) with more than 16 MiB, the cap \(ZONESCOPE_FLEET_PROMETHEUS_MAX_RESPONSE_MIB\)\./);
    expect(unreachableMessage(error)).toMatch(/^fleet Prometheus answer refused: /);
    // At most four queries ran, and none was read much beyond the cap.
    await vi.waitFor(() => expect([...sent.values()].every((bytes) => bytes < 150 * 1024 * 1024)).toBe(true));
    expect(sent.size).toBeLessThanOrEqual(4);
    for (const [query, bytes] of sent) expect(bytes, query).toBeLessThan(24 * 1024 * 1024);
  }, 30_000);

  it('reads NaN, +Inf and a broken sample as values of their own series, under a cap the variable raises', async () => {
    respond = (query, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      const result = query.startsWith('max by (cluster) (zonescope_sync_age_seconds)')
        ? [
            { metric: { cluster: 'a' }, value: [1700000000.25, 'NaN'] },
            { metric: { cluster: 'b' }, value: [1700000000.25, '+Inf'] },
            { metric: { cluster: 'c' }, value: ['soon', '3'] },
            { metric: { cluster: 'd' }, value: [1700000000.25, 'lots'] },
            { metric: { cluster: 'e' }, value: [1700000000.25, '12.5'] },
          ]
        : [];
      res.end(JSON.stringify({ status: 'success', data: { resultType: 'vector', result } }));
    };
    const answers = await queryFleet(fleetConfig('1'), T / 1000);
    expect(answers.syncAge.map((sample) => [sample.metric.cluster, String(sample.value), sample.problem])).toEqual([
      ['a', 'NaN', undefined],
      ['b', 'Infinity', undefined],
      ['c', 'NaN', 'its timestamp "soon" is not a time'],
      ['d', 'NaN', 'its value "lots" is not a number'],
      ['e', '12.5', undefined],
    ]);
    expect(fleetConfig('1').metrics.maxResponseBytes).toBe(1024 * 1024);
  });
});

describe('fleetPrometheusRows and sameCluster', () => {
  it('leaves out the clusters that are connected here, by id, context or the exported name', () => {
    const rows = fleetRowsFromAnswers(TWO, 'cluster', T);
    const snapshot = { status: { url: 'http://fleet:9090', clusterLabel: 'cluster', state: 'ok' as const, message: null, answeredAt: null, clusters: 2 }, rows: rows.map((row, i) => ({ row, exportedName: i === 0 ? 'prod-eu' : null })) };
    const connected = { id: 'prod-eu', context: 'arn:aws:eks:eu-west-1:1:cluster/prod-eu', displayName: 'prod-eu' };
    expect(sameCluster(connected, 'eu', 'prod-eu')).toBe(true);
    expect(sameCluster(connected, 'us', null)).toBe(false);
    expect(sameCluster({ id: 'x', context: 'us', displayName: 'X' }, 'us', null)).toBe(true);
    expect(fleetPrometheusRows([connected as never], snapshot).map((r) => r.displayName)).toEqual(['us']);
    expect(fleetPrometheusRows([], snapshot)).toHaveLength(2);
    expect(fleetPrometheusRows([], null)).toEqual([]);
  });
});
