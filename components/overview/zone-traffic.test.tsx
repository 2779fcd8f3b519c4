/**
 * What an SRE reads in the Overview's "Zone traffic" panel, rendered to HTML from real analyses of
 * a small test cluster (publicCases: web, api, two in three zones; no mocks): totals with the
 * saving, the price, where the volumes come from, the matrix table, the top lists with their fixes
 * and links, and what the panel says when nothing is measured or Prometheus fails.
 */
import { renderToStaticMarkup } from 'react-dom/server';
import { htmlText } from '../test-support';
import { describe, expect, it } from 'vitest';

import type { ClusterTraffic } from '@/lib/views/traffic';
import { defaultVolumeSettings } from '@/lib/topology/analyses/service-volume';
import type { PriceSetting } from '@/lib/topology/model/cloud-pricing';
import type { MeasuredTraffic } from '@/lib/topology/analyses/traffic-volume';
import { analyzeCluster, clusterTrafficOf } from '@/lib/topology/report/cluster-analysis';
import { publicCases } from '@/lib/topology/report/test-public-cases';
import { sankeyData } from './zone-traffic-chart';
import { priceSentence, sourcesSentence, ZoneTraffic } from './zone-traffic';

type Status = ClusterTraffic['status'];

const NOT_CONFIGURED: Status = {
  state: 'not-configured',
  message: 'No Prometheus is configured.',
  url: null,
  window: '7d',
  lastSuccessAt: null,
  staleSince: null,
  queriesIssued: 0,
  queriesPerRefresh: 3,
  refreshSeconds: 60,
  hint: null,
};

function traffic(measured: MeasuredTraffic | null = null, status: Status = NOT_CONFIGURED, priceSetting: PriceSetting | null = null): ClusterTraffic {
  const analysis = analyzeCluster(publicCases());
  const { report, byService } = clusterTrafficOf(analysis, defaultVolumeSettings({ priceSetting }), measured);
  return { report, byService, status };
}

const FLOWS_METRIC = 'beyla_network_flow_bytes_total';

function measuredWeb(): MeasuredTraffic {
  const matrix = { 'zone-a': { 'zone-a': 3000, 'zone-b': 2000 }, 'zone-b': { 'zone-a': 2000, 'zone-b': 3000 } };
  return {
    window: '7d',
    measuredAt: '2026-12-01T12:00:00Z',
    byService: new Map([['default/web', { kind: 'measured-flows', metric: FLOWS_METRIC, gbPerMonth: 10_000, matrix }]]),
    interZoneGbPerMonth: 4000,
    flowZones: 'labelled',
    reconciliation: null,
    quality: { seriesRead: 9, invalidSamples: 0, unknownZoneBytesPerSecond: 0, unattributedBytesPerSecond: 0, notes: [] },
  };
}

describe('the Overview zone traffic panel', () => {
  it('shows the totals now / after the next sync / best, the saving, the price and the assumption', () => {
    const t = traffic();
    const html = renderToStaticMarkup(<ZoneTraffic traffic={t} />);
    const text = htmlText(html);
    // 1,100 GB assumed (50 GB per ready endpoint); api's hints arrive with the next sync.
    expect(text).toContain(`Now $${t.report.totals.now.monthlyCost.toFixed(2)} /month`);
    expect(text).toContain(`After the controller’s next sync $${t.report.totals.expected.monthlyCost.toFixed(2)} /month`);
    expect(text).toContain(`saves $${t.report.saving.expected.toFixed(2)}/month`);
    expect(t.report.saving.expected).toBeGreaterThan(0);
    expect(text).toContain('of 1,100 GB');
    expect(text).toContain("Price: AWS's price (assumed: the platform is not EKS, GKE or AKS as far as zonescope can tell; set ZONESCOPE_CROSS_ZONE_PRICE): $0.01/GB leaving one zone and $0.01/GB entering the other — $0.02 per cross-zone GB.");
    // The best achievable includes each Service's smallest verified fix: web's one more endpoint.
    expect(text).toContain('default/web saves $7.33/month $7.33 → $0.00 a month (with its smallest fix)');
    expect(text).toContain('Where the volumes come from: assumed for 3 of 3 Services (100 % of the GB).');
    expect(text).toContain('Assumed: 3 Services at 50 GB per ready endpoint per month');
    // Nothing measured: says so, and how to measure.
    expect(text).toContain('Nothing is measured: every volume here is assumed');
    expect(text).toContain('To measure: set ZONESCOPE_PROMETHEUS_URL');
  });

  it('lists the top Services by cross-zone $ with their smallest fix, linking to each Service', () => {
    const html = renderToStaticMarkup(<ZoneTraffic traffic={traffic()} />);
    expect(html).toContain('href="/services/default/web"');
    const text = htmlText(html);
    const top = text.slice(text.indexOf('Top Services by cross-zone $'), text.indexOf('Top savings if fixed'));
    expect(top.indexOf('default/web')).toBeLessThan(top.indexOf('default/api'));
    expect(top).toContain('Smallest fix: Add 1 ready endpoint, to 12 (fewest donations with 1 in zone-c)');
    expect(top).toContain('550 GB/month assumed');
    expect(html).toContain('href="/services?sort=cost&amp;order=desc"');
  });

  it('labels measured volumes and the cross-check, and shows the measured matrix in the table', () => {
    const t = traffic(measuredWeb(), { ...NOT_CONFIGURED, state: 'ok', message: 'Measured.', url: 'http://prometheus:9090', hint: null });
    const text = htmlText(renderToStaticMarkup(<ZoneTraffic traffic={t} />));
    expect(text).toContain('measured with zone-resolved flows for 1 of 3 Services');
    expect(text).toContain('assumed for 2');
    for (const note of t.report.sourceNotes) expect(text).toContain(note);
    expect(t.report.sourceNotes.join(' ')).toContain('4,000 GB');
    expect(text).not.toContain('Nothing is measured');
    // web's measured 2,000 GB from zone-a to zone-b is part of the now matrix: the table shows at least that much.
    const cell = t.report.flows.now['zone-a']?.['zone-b'] ?? 0;
    expect(cell).toBeGreaterThanOrEqual(2000);
    expect(text).toContain(Math.round(cell).toLocaleString('en-US'));
    expect(text).toContain('10,000 GB/month measured');
  });

  it('says when a configured Prometheus fails, without telling the user to configure it', () => {
    const failing: Status = { ...NOT_CONFIGURED, state: 'unreachable', message: 'Prometheus at http://prometheus:9090 did not answer in 10 s.', url: 'http://prometheus:9090' };
    const text = htmlText(renderToStaticMarkup(<ZoneTraffic traffic={traffic(null, failing)} />));
    expect(text).toContain('Prometheus at http://prometheus:9090 did not answer in 10 s.');
    expect(text).not.toContain('To measure: set');
  });

  it('states the price in use: the cloud, how it was found, what a cross-zone GB costs', () => {
    const gcp = traffic(null, NOT_CONFIGURED, { kind: 'cloud', cloud: 'gcp' });
    expect(priceSentence(gcp.report.pricing)).toBe('Google Cloud (set): $0.01 per GiB between zones of a region, charged once — $0.00931 per cross-zone GB (1 GiB = 1.074 GB)');
    expect(htmlText(renderToStaticMarkup(<ZoneTraffic traffic={gcp} />))).toContain('Price: Google Cloud (set): $0.01 per GiB between zones of a region, charged once');
    // The test cluster's nodes name no cloud: AWS's price, and the panel says it is assumed.
    expect(htmlText(renderToStaticMarkup(<ZoneTraffic traffic={traffic()} />))).toContain("Price: AWS's price (assumed: the platform is not EKS, GKE or AKS");
    expect(sourcesSentence(traffic(measuredWeb()).report)).toMatch(/^measured with zone-resolved flows for 1 of 3 Services \(\d+ % of the GB\), assumed for 2 \(\d+ % of the GB\)\.$/);
  });

  it('draws same-zone links muted and cross-zone links highlighted, leaving empty pairs out', () => {
    const { nodes, links } = sankeyData(['zone-a', 'zone-b'], { 'zone-a': { 'zone-a': 10, 'zone-b': 5 }, 'zone-b': { 'zone-a': 0, 'zone-b': 7 } }, false);
    expect(nodes.map((n) => n.name)).toEqual(['from zone-a', 'from zone-b', 'to zone-a', 'to zone-b']);
    expect(links.map((l) => [nodes[l.source]?.zone, nodes[l.target]?.zone, l.value, l.cross])).toEqual([
      ['zone-a', 'zone-a', 10, false],
      ['zone-a', 'zone-b', 5, true],
      ['zone-b', 'zone-b', 7, false],
    ]);
    const same = links.find((l) => !l.cross);
    const cross = links.find((l) => l.cross);
    expect(cross?.strokeOpacity).toBeGreaterThan(same?.strokeOpacity ?? 1);
    expect(cross?.stroke).not.toBe(same?.stroke);
  });

  it('says when the figures are not computed yet', () => {
    expect(htmlText(renderToStaticMarkup(<ZoneTraffic traffic={null} />))).toBe('The traffic figures are computed after the first sync of the cluster.');
  });
});
