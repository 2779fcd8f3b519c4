/**
 * `GET /api/v1/cluster` and the header with a real Prometheus (Debian's `prometheus`, started on
 * loopback by sim/prometheus.ts) scraping the eks-demo simulator's traffic metrics: the `traffic`
 * block measured, the `metrics` status ok, Prometheus queries bounded whatever the number of
 * concurrent clients, what-ifs leaving measured volumes alone, and the fallback to the model —
 * said in the header — once Prometheus is stopped. Skipped where the binary is not installed.
 */
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { MetricsStatusBadge } from '../../../../components/layout/metrics-status';
import type { ClusterResponse } from '../../../../lib/views/api-types';
import { getLiveState, getRenderedLiveMark } from '../../../../lib/views/header';
import { isBehind } from '../../../../lib/shared/live-refresh';
import { apiRequest, eventually, harnessForFile, PROMETHEUS_INSTALLED, prometheusForFile, readJson } from '../_testing/harness';
import { GET } from './route';
import { defaultScope } from '../../../../lib/server/clusters';

const harness = harnessForFile();

const text = (html: string) => html.replace(/<[^>]+>/g, ' ').replace(/\s+/g, ' ').trim();

async function cluster(query = ''): Promise<ClusterResponse> {
  const response = GET(apiRequest(`/api/v1/cluster${query}`));
  expect(response.status).toBe(200);
  return readJson<ClusterResponse>(response);
}

describe.runIf(PROMETHEUS_INSTALLED)('GET /api/v1/cluster with a real Prometheus', () => {
  // No grace period: once Prometheus is gone the figures fall back at the next refresh.
  const prometheus = prometheusForFile(harness, { ZONESCOPE_PROMETHEUS_REFRESH_SECONDS: '1', ZONESCOPE_PROMETHEUS_MAX_STALE_SECONDS: '0', ZONESCOPE_PROMETHEUS_TIMEOUT_MS: '2000' });

  it('measures the traffic block, says so in the status and the header, and keeps queries per refresh whatever the clients', async () => {
    // rate() needs two scrapes: wait for an answer with flows in it.
    const body = await eventually(async () => {
      const answer = await cluster();
      return answer.metrics.state === 'ok' && answer.traffic.sources['measured-flows'].services > 0 ? answer : null;
    }, 20_000, 'measured flows in /api/v1/cluster');
    const traffic = body.traffic;
    expect(body.metrics).toMatchObject({ state: 'ok', url: prometheus.get()?.url, staleSince: null, hint: null });
    // The data is seconds old: the rates are over what it covers, not the configured 7d (else every figure would be ~50,000× too small).
    const window = body.metrics.window;
    expect(window).toMatch(/^\d+s$/);
    expect(body.metrics.message).toContain(`rate over ${window} — the data only reaches back that far (configured window 7d).`);
    expect(body.metrics.lastSuccessAt).not.toBeNull();
    expect(body.header.metrics).toEqual(body.metrics);
    // eks-demo's coverage: flows for the shop and payments namespaces, pod bytes only for platform, nothing for kube-system.
    expect(traffic.sources['measured-pod-bytes'].services).toBeGreaterThan(0);
    expect(traffic.sources.assumed.services).toBeGreaterThan(0);
    expect(traffic.sources['measured-flows'].services + traffic.sources['measured-pod-bytes'].services + traffic.sources.set.services + traffic.sources.assumed.services).toBe(traffic.services);
    expect(traffic.measuredAt).not.toBeNull();
    expect(traffic.measuredInterZoneGbPerMonth).toBeGreaterThan(0);
    expect(traffic.sourceNotes.join(' ')).toContain('beyla_network_flow_bytes_total');
    // Each row says where its volume comes from; kube-system has no series at all (assumed).
    const row = (name: string) => traffic.topByCost.find((r) => `${r.namespace}/${r.name}` === name);
    expect(row('kube-system/kube-dns')?.volume.source.kind).toBe('assumed');
    expect(row('platform/config')?.volume.source).toMatchObject({ kind: 'measured-pod-bytes', metric: 'container_network_receive_bytes_total+container_network_transmit_bytes_total', window });
    const storefront = row('shop/storefront');
    expect(storefront?.volume.source).toMatchObject({ kind: 'measured-flows', metric: 'beyla_network_flow_bytes_total', window, label: `measured: beyla_network_flow_bytes_total, rate over ${window}` });
    // The simulator's deliberate deviations: storefront moves 100× the others (per endpoint), and
    // catalog's keep-alive connections make its measured cross-zone share far above the predicted one.
    const flows = traffic.topByCost.filter((r) => r.volume.source.kind === 'measured-flows' && r.name !== 'storefront');
    expect(flows.length).toBeGreaterThan(2);
    for (const other of flows) expect(storefront?.volume.gbPerMonth ?? 0).toBeGreaterThan(other.volume.gbPerMonth * 20);
    const catalog = row('shop/catalog');
    expect((catalog?.crossZoneFraction ?? 0) - (catalog?.predictedCrossZoneFraction ?? 1)).toBeGreaterThan(0.1);
    expect(row('shop/checkout')?.crossZoneFraction).toBeCloseTo(row('shop/checkout')?.predictedCrossZoneFraction ?? -1, 2);

    const header = text(renderToStaticMarkup(<MetricsStatusBadge status={body.header.metrics} />));
    expect(header).toContain(`Traffic: measured (Prometheus, ${window}) · ok`);

    // 40 concurrent readers, for a few refreshes: the queries follow the refreshes, not the requests.
    const before = (await cluster()).metrics;
    const startedAt = Date.now();
    await Promise.all(Array.from({ length: 40 }, async () => {
      for (let i = 0; i < 10; i++) {
        expect(GET(apiRequest('/api/v1/cluster')).status).toBe(200);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }));
    const after = (await cluster()).metrics;
    const refreshes = Math.ceil((Date.now() - startedAt) / 1000) + 1;
    expect(after.queriesIssued - before.queriesIssued).toBeLessThanOrEqual(after.queriesPerRefresh * refreshes);
    expect(after.queriesIssued - before.queriesIssued).toBeLessThan(400);
  }, 40_000);

  it('a what-if volume changes only the Services whose volume is assumed', async () => {
    const base = await cluster();
    const bigger = await cluster('?gbPerEndpoint=100');
    for (const kind of ['measured-flows', 'measured-pod-bytes'] as const) {
      expect(bigger.traffic.sources[kind].services).toBe(base.traffic.sources[kind].services);
      expect(bigger.traffic.sources[kind].gbPerMonth).toBeCloseTo(base.traffic.sources[kind].gbPerMonth, 0);
    }
    expect(bigger.traffic.sources.assumed.gbPerMonth).toBeCloseTo(base.traffic.sources.assumed.gbPerMonth * 2, 0);
  });

  it('falls back to the model when Prometheus stops, and the header says so', async () => {
    // What an open page was rendered with: it is behind once the metrics state changes.
    const rendered = getRenderedLiveMark(defaultScope());
    expect(rendered.health).toMatch(/\|metrics:ok$/);
    await prometheus.stop();
    const body = await eventually(async () => {
      const answer = await cluster();
      return answer.metrics.state === 'unreachable' ? answer : null;
    }, 15_000, 'the unreachable state');
    expect(body.traffic.sources.assumed.services).toBe(body.traffic.services);
    expect(body.traffic.measuredAt).toBeNull();
    const header = text(renderToStaticMarkup(<MetricsStatusBadge status={body.header.metrics} />));
    expect(header).toContain('Traffic: Prometheus unreachable — figures fall back to the model');
    expect(header).toContain(body.metrics.message);
    const latest = getLiveState(defaultScope());
    expect(latest.health).toMatch(/\|metrics:unreachable$/);
    expect(isBehind(rendered, latest)).toBe(true);
  }, 30_000);
});
