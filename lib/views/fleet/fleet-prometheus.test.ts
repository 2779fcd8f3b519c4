import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

import { fleetPrometheusRows } from './fleet';
import { configFromEnv, parseConfig } from '../../config/config';
import { FleetPrometheusCache } from './prometheus-cache';
import { fleetPrometheusConfigFromEnv } from './prometheus-config';
import type { FleetAnswers, FleetQueryName } from './prometheus-queries';
import { clusterInfo, FLEET_QUERY_NAMES, fleetQueries } from './prometheus-queries';
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
