/**
 * The fleet read from a real Prometheus: two installations' `/metrics` (rendered by the exporter
 * from the analyses of two fixture clusters, eks-demo and missing-zone-label) served as static
 * text on loopback, scraped by the `prometheus` binary with a `cluster` target label each (and once
 * more without one, which must not make a row; one of them with honor_labels); the fleet queries then give one row per cluster
 * whose figures are what the exporter exported. A third installation exports NaN, +Inf and an age
 * of 1e300 s (all legal in Prometheus): only its own figures go without a value, each with a note.
 * Also the background cache against it, and the message when the fleet Prometheus cannot be reached.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { analyseFixture } from './fleet-test-support';
import type { ResourceStatus } from '../../k8s/informer/status';
import type { ClusterAnalysis } from '../../topology/report/analysis-schema';
import { hintsReasonCode, HINTS_REASON_TEXT } from '../../topology/report/hints-reason';
import type { RunningPrometheus } from '../../../sim/prometheus';
import { freeLoopbackPort, startPrometheus } from '../../../sim/prometheus';
import { DEFAULT_MAX_SERVICES } from '../../prometheus/exporter/input';
import { renderMetrics } from '../../prometheus/exporter/scrape';
import { renderServiceBlock } from '../../prometheus/exporter/service-block';
import type { FleetPrometheusConfig } from './prometheus-config';
import { configFromEnv } from '../../config/config';
import { FleetPrometheusCache } from './prometheus-cache';
import { fleetPrometheusConfigFromEnv } from './prometheus-config';
import { queryFleet } from './prometheus-queries';
import { fleetRowsFromAnswers } from './prometheus-rows';

function status(id: ResourceStatus['id'], at: string): ResourceStatus {
  return { id, title: id, health: 'synced', resourceVersion: '1', syncedAt: at, lastEventAt: at, staleSince: null, error: null, listing: false, listed: 1, count: 1, lists: 1, watches: 1 };
}

async function exposition(analysis: ClusterAnalysis, clusterName: string): Promise<string> {
  const now = Date.now();
  return renderMetrics({
    analysis,
    traffic: null,
    statuses: [status('nodes', new Date(now).toISOString()), status('services', new Date(now).toISOString())],
    synced: true,
    clusterName,
    trafficSourceUp: null,
    budgetDollarsPerMonth: null,
    maxServices: DEFAULT_MAX_SERVICES,
    nowMs: now,
    defaultMetrics: false,
  });
}

/** What the fleet row of an installation must say, from its analysis. */
function expected(analysis: ClusterAnalysis) {
  const s = analysis.cluster.summary;
  const top = analysis.traffic.topByCost[0];
  const report = top ? analysis.services.find((r) => r.namespace === top.namespace && r.name === top.name) : undefined;
  return {
    release: analysis.kubernetes.release,
    platform: analysis.cluster.dataplane.platform.platform,
    proxyMode: analysis.cluster.proxyMode,
    eligible: analysis.cluster.eligible,
    services: s.services,
    askingForHints: s.services - s.byMechanism.none,
    hintsOn: renderServiceBlock(analysis, null, DEFAULT_MAX_SERVICES).hintsObserved,
    needingAttention: s.needingAttention,
    crossZoneMonthly: analysis.traffic.totals.now.monthlyCost,
    bestMonthly: analysis.traffic.totals.best.monthlyCost,
    top: top && top.monthlyCost > 0 ? { namespace: top.namespace, name: top.name, monthlyCost: top.monthlyCost, reason: report ? HINTS_REASON_TEXT[hintsReasonCode(report)] : null } : null,
  };
}

let prometheus: RunningPrometheus;
let server: http.Server;
let config: FleetPrometheusConfig;
let eu: ClusterAnalysis;
let us: ClusterAnalysis;

beforeAll(async () => {
  [eu, us] = await Promise.all([analyseFixture('eks-demo'), analyseFixture('missing-zone-label')]);
  const texts: Record<string, string> = { '/eu': await exposition(eu, 'prod-eu'), '/us': await exposition(us, 'prod-us') };
  // eu's figures under another name, three of them values no figure can be.
  texts['/odd'] = (await exposition(eu, 'prod-odd'))
    .replace(/^(zonescope_sync_age_seconds(?:\{[^}]*\})?) \S+$/m, '$1 1e300')
    .replace(/^(zonescope_services_needing_attention(?:\{[^}]*\})?) \S+$/m, '$1 NaN')
    .replace(/^(zonescope_cross_zone_cost_dollars_per_month\{[^}]*scenario="now"[^}]*\}) \S+$/m, '$1 +Inf');
  server = http.createServer((request, response) => {
    const text = texts[request.url ?? ''];
    response.writeHead(text === undefined ? 404 : 200, { 'content-type': 'text/plain; version=0.0.4; charset=utf-8' });
    response.end(text ?? 'not found');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const target = `127.0.0.1:${(server.address() as AddressInfo).port}`;
  prometheus = await startPrometheus({
    // The default job scrapes eu again without a cluster label: its series must not make a row.
    scrapeTargets: [target],
    metricsPath: '/eu',
    jobName: 'unlabelled',
    extraJobs: [
      { jobName: 'zonescope-eu', targets: [target], metricsPath: '/eu', labels: { cluster: 'eu' } },
      // honor_labels, as docs/metrics.md's scrape configuration: zonescope_cluster_info keeps cluster="prod-us".
      { jobName: 'zonescope-us', targets: [target], metricsPath: '/us', labels: { cluster: 'us' }, honorLabels: true },
      { jobName: 'zonescope-odd', targets: [target], metricsPath: '/odd', labels: { cluster: 'odd' } },
    ],
    waitForMetric: 'zonescope_cluster_synced',
  });
  const result = fleetPrometheusConfigFromEnv(configFromEnv({ ZONESCOPE_FLEET_PROMETHEUS_URL: prometheus.url }));
  if (result.kind !== 'ok') throw new Error(`config: ${JSON.stringify(result)}`);
  config = result.config;
  // Until the three labelled jobs have been scraped once.
  const deadline = Date.now() + 20_000;
  for (;;) {
    const samples = await prometheus.query('count(count by (cluster) (zonescope_service_cross_zone_cost_dollars_per_month{cluster!=""}))');
    if (Number(samples[0]?.value[1] ?? 0) >= 3) break;
    if (Date.now() > deadline) throw new Error('Prometheus did not scrape the three installations within 20 s');
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}, 40_000);

afterAll(async () => {
  await prometheus?.stop();
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
});

describe('the fleet from a real Prometheus', () => {
  it('has one row per cluster label value, with the figures each installation exported', async () => {
    const started = Date.now();
    const all = fleetRowsFromAnswers(await queryFleet(config, started / 1000), 'cluster', started);
    expect(all.map((r) => r.displayName)).toEqual(['eu', 'odd', 'us']);
    const rows = all.filter((r) => r.displayName !== 'odd');
    for (const [row, analysis] of [
      [rows[0], eu],
      [rows[1], us],
    ] as const) {
      const want = expected(analysis);
      expect(row).toMatchObject({
        source: 'prometheus',
        href: null,
        release: want.release,
        platform: want.platform,
        proxyMode: want.proxyMode,
        eligible: want.eligible,
        services: want.services,
        askingForHints: want.askingForHints,
        hintsOn: want.hintsOn,
        needingAttention: want.needingAttention,
        crossZoneMonthly: want.crossZoneMonthly,
        bestMonthly: want.bestMonthly,
      });
      expect(row?.freshness.kind).toBe('synced');
      if (want.top === null) expect(row?.topService).toBeNull();
      else expect(row?.topService).toMatchObject(want.top);
      // asOf is the last scrape's time: within the test's run.
      const asOf = Date.parse(row?.asOf ?? '');
      expect(asOf).toBeGreaterThan(started - 30_000);
      expect(asOf).toBeLessThanOrEqual(started + 1000);
    }
    // Real figures, not zeros, and the two fixtures differ, so the rows cannot be each other's.
    expect(rows.some((r) => (r.crossZoneMonthly ?? 0) > 0 && r.topService !== null && r.topService.reason !== null)).toBe(true);
    expect(rows.some((r) => r.eligible === false)).toBe(true);
    expect(rows[0]?.crossZoneMonthly).not.toBe(rows[1]?.crossZoneMonthly);
    expect(rows[0]?.freshness.message).toContain('prod-eu');
    expect(rows[1]?.freshness.message).toContain('prod-us');
    for (const row of rows) expect(row.unknown).toEqual([]);
  });

  it("an installation exporting NaN, +Inf or an impossible age loses those figures only, each with a note", async () => {
    const started = Date.now();
    const rows = fleetRowsFromAnswers(await queryFleet(config, started / 1000), 'cluster', started);
    const odd = rows.find((r) => r.displayName === 'odd');
    const want = expected(eu);
    expect(odd).toMatchObject({ release: want.release, platform: want.platform, eligible: want.eligible, services: want.services, hintsOn: want.hintsOn, bestMonthly: want.bestMonthly });
    expect(odd).toMatchObject({ needingAttention: null, crossZoneMonthly: null, saving: null });
    expect(odd?.freshness.kind).toBe('synced');
    expect(odd?.unknown).toEqual([
      'zonescope_services_needing_attention has no usable value in the fleet Prometheus (its value is NaN): shown as no value.',
      'zonescope_cross_zone_cost_dollars_per_month{scenario="now"} has no usable value in the fleet Prometheus (its value is +Inf): shown as no value.',
      "zonescope_sync_age_seconds is 1e+300 in the fleet Prometheus, not an age: the row's freshness is unknown.",
    ]);
  });

  it('feeds the background cache, which names the installation by its exported name too', async () => {
    const cache = new FleetPrometheusCache({ config });
    expect(cache.snapshot().status.state).toBe('pending');
    await cache.refresh();
    const snapshot = cache.snapshot();
    expect(snapshot.status).toMatchObject({ state: 'ok', clusters: 3, message: null, url: prometheus.url });
    expect(snapshot.rows.map((r) => [r.row.displayName, r.exportedName])).toEqual([
      ['eu', 'prod-eu'],
      ['odd', 'prod-odd'],
      ['us', 'prod-us'],
    ]);
  });

  it('says the fleet Prometheus is unreachable when nothing listens', async () => {
    const port = await freeLoopbackPort();
    const down = fleetPrometheusConfigFromEnv(configFromEnv({ ZONESCOPE_FLEET_PROMETHEUS_URL: `http://127.0.0.1:${port}`, ZONESCOPE_FLEET_PROMETHEUS_TIMEOUT_MS: '2000' }));
    if (down.kind !== 'ok') throw new Error('config');
    const cache = new FleetPrometheusCache({ config: down.config });
    await cache.refresh();
    const snapshot = cache.snapshot();
    expect(snapshot.status.state).toBe('error');
    expect(snapshot.status.message).toMatch(/^fleet Prometheus unreachable: Prometheus at http:\/\/127\.0\.0\.1:\d+ /);
    expect(snapshot.rows).toEqual([]);
  });
});
