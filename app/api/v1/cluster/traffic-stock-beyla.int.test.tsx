/**
 * A stock Beyla install: its flow series carry Beyla's default attribute set, without
 * `src_zone`/`dst_zone` (attr_defs.go: `attr.SrcZone: false, attr.DstZone: false`). With a real
 * Prometheus scraping the simulator in that shape, no cross-zone traffic can be measured by zone:
 * the metrics state is `no-zones` — never `ok` — with the setting that adds the zones, in the API,
 * the header and `npm run analyze --prometheus`, and every Service's volume comes from pod bytes
 * (the zone split the model's), shop/frontend-like callers included.
 */
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { MetricsStatusBadge } from '../../../../components/layout/metrics-status';
import type { ClusterResponse } from '../../../../lib/views/api-types';
import { main } from '../../../../cli/analyze-cli';
import { apiRequest, eventually, harnessForFile, PROMETHEUS_INSTALLED, prometheusForFile, readJson } from '../_testing/harness';
import { GET } from './route';

const harness = harnessForFile({ flowZoneLabels: false });

const text = (html: string) => html.replace(/<[^>]+>/g, ' ').replace(/\s+/g, ' ').trim();

async function cluster(): Promise<ClusterResponse> {
  const response = GET(apiRequest('/api/v1/cluster'));
  expect(response.status).toBe(200);
  return readJson<ClusterResponse>(response);
}

describe.runIf(PROMETHEUS_INSTALLED)('a stock Beyla install (no zone labels on the flow metric)', () => {
  const prometheus = prometheusForFile(harness, { ZONESCOPE_PROMETHEUS_REFRESH_SECONDS: '1' });

  it('is its own state in the API and the header, names the setting, and measures Services from pod bytes', async () => {
    const body = await eventually(async () => {
      const answer = await cluster();
      return answer.metrics.state === 'no-zones' && answer.traffic.sources['measured-pod-bytes'].services > 0 ? answer : null;
    }, 20_000, 'the no-zones state with pod bytes in /api/v1/cluster');
    expect(body.metrics.message).toContain('without src_zone/dst_zone');
    expect(body.metrics.hint).toContain("Add src.zone and dst.zone to Beyla's attributes.select.beyla_network_flow_bytes.include");
    expect(body.header.metrics.state).toBe('no-zones');
    // Nothing is "measured with flows": no zone, no matrix. shop's Services (which flow series name) use pod bytes too.
    expect(body.traffic.sources['measured-flows'].services).toBe(0);
    const storefront = body.traffic.topByCost.find((row) => row.namespace === 'shop' && row.name === 'storefront');
    expect(storefront?.volume.source.kind).toBe('measured-pod-bytes');
    expect(body.traffic.quality?.notes.join(' ')).toContain('carry no src_zone/dst_zone');
    const badge = text(renderToStaticMarkup(<MetricsStatusBadge status={body.header.metrics} />));
    expect(badge).toContain('Traffic: pod bytes only');
    expect(badge).toContain('flows carry no zone labels');
    expect(badge).not.toContain('· ok');
  }, 30_000);

  it('npm run analyze --prometheus says so too: the JSON metrics object, the text line and stderr', async () => {
    const out: string[] = [];
    const err: string[] = [];
    const io = { out: (t: string) => out.push(t), err: (t: string) => err.push(t) };
    const code = await main(['--context', 'zonescope-sim', '--prometheus', prometheus.get()?.url ?? '', '--format', 'json'], io);
    expect(code).toBe(0);
    const report = JSON.parse(out.join('')) as { metrics: { state: string; hint: string | null } };
    expect(report.metrics.state).toBe('no-zones');
    expect(report.metrics.hint).toContain('src.zone and dst.zone');
    expect(err.join('')).toContain('analyze: traffic source no-zones:');
    out.length = 0;
    expect(await main(['--context', 'zonescope-sim', '--prometheus', prometheus.get()?.url ?? ''], io)).toBe(0);
    expect(out.join('')).toContain('Traffic source: no-zones — ');
  }, 30_000);
});
