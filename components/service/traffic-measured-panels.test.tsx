/**
 * What an SRE reads in the Service page's traffic panels, rendered to HTML from real analyses of
 * small test clusters (no mocks): the volume with its source and the cost at that volume, the
 * what-if, measured against predicted with the causes that fit, and the request sample's counts.
 */
import { renderToStaticMarkup } from 'react-dom/server';
import type { ReactElement } from 'react';
import { describe, expect, it } from 'vitest';

import type { RequestSampleView } from '@/lib/views/service/request-sample';
import { defaultVolumeSettings, resolveServiceVolume } from '@/lib/topology/analyses/service-volume';
import { measuredCrossZoneFraction } from '@/lib/topology/analyses/measured-projection';
import { applyVolumeToSummary } from '@/lib/topology/analyses/scenario-costs';
import { compareMeasuredWithPredicted } from '@/lib/topology/analyses/measured-vs-predicted';
import { requestSampleScenarios, sampleRequests } from '@/lib/topology/analyses/request-sample';
import type { MeasuredServiceTraffic, MeasuredTraffic } from '@/lib/topology/analyses/traffic-volume';
import { resolvePricing } from '@/lib/topology/model/cloud-pricing';
import { testCluster, testEndpoints, testService, testSlice } from '@/lib/topology/model/test-cluster';
import type { ServiceDetail } from '@/lib/topology/report/analysis-schema';
import { prepareAnalysis } from '@/lib/topology/report/prepared-analysis';
import { analyzeService } from '@/lib/topology/report/service-detail';
import { AUTO } from '@/lib/topology/report/test-public-cases';
import { MeasuredPanel } from './measured-panel';
import { RequestSamplePanel } from './request-sample-panel';
import { pickerOptions } from './request-sample-options';
import { costRows, roundGb, trafficScenarios } from './traffic-data';
import { TrafficPanel } from './traffic-panel';
import type { TrafficVolumeView } from './traffic-panel-cost';
import { textOf } from '../test-support';

function must<T>(value: T | null | undefined, what: string): T {
  if (value === null || value === undefined) throw new Error(`missing ${what}`);
  return value;
}

/** `web`: 3/3/3 without hints (no annotation) in three equal zones; `near`: the same with Auto hints written. */
const index = testCluster({
  services: [testService('web'), testService('near', { annotations: AUTO })],
  endpointSlices: [
    testSlice('web', testEndpoints({ 'zone-a': 3, 'zone-b': 3, 'zone-c': 3 }, { service: 'web' })),
    testSlice('near', testEndpoints({ 'zone-a': 3, 'zone-b': 3, 'zone-c': 3 }, { service: 'near', hinted: true })),
  ],
});

function detailOf(name: string): ServiceDetail {
  return must(analyzeService(index, 'default', name), `Service ${name}`);
}

/** Measured flows of a Service: `gb` per month from each zone, `crossShare` of it to the other zones (split evenly). */
function flows(gbPerZone: number, crossShare: number): MeasuredServiceTraffic {
  const zones = ['zone-a', 'zone-b', 'zone-c'];
  const matrix: Record<string, Record<string, number>> = {};
  for (const from of zones) {
    matrix[from] = {};
    for (const to of zones) (matrix[from] as Record<string, number>)[to] = from === to ? gbPerZone * (1 - crossShare) : (gbPerZone * crossShare) / 2;
  }
  return { kind: 'measured-flows', metric: 'beyla_network_flow_bytes_total', gbPerMonth: gbPerZone * 3, matrix };
}

function measuredOf(key: string, traffic: MeasuredServiceTraffic): MeasuredTraffic {
  return {
    window: '7d',
    measuredAt: '2026-12-01T12:00:00Z',
    byService: new Map([[key, traffic]]),
    interZoneGbPerMonth: null,
    flowZones: 'labelled',
    reconciliation: null,
    quality: { seriesRead: 1, invalidSamples: 0, unknownZoneBytesPerSecond: 0, unattributedBytesPerSecond: 0, notes: [] },
  };
}

const PRICING = resolvePricing('eks', 'test', null);

function costed(detail: ServiceDetail, measured: MeasuredTraffic | null, key: string) {
  const volume = resolveServiceVolume(key, detail.observed.readyEndpoints, defaultVolumeSettings(), measured);
  const { now, expected, ifAuto, ifNone } = detail.trafficMatrix;
  return applyVolumeToSummary(detail.traffic, volume, PRICING, { now: now.matrix, expected: expected.matrix, ifAuto: ifAuto.matrix, ifNone: ifNone.matrix });
}

function volumeView(detail: ServiceDetail, measured: MeasuredTraffic | null, key: string): TrafficVolumeView {
  const summary = costed(detail, measured, key);
  const { volume } = summary;
  return {
    gbPerMonth: volume.gbPerMonth,
    source: volume.source,
    costPerCrossZoneGb: PRICING.costPerCrossZoneGb,
    priceNote: PRICING.note,
    crossZoneFractionNow: volume.measuredMatrix ? measuredCrossZoneFraction(volume.measuredMatrix) : detail.traffic.crossZoneFraction,
    monthlyCostNow: summary.monthlyCost.now.monthlyCost,
  };
}

function trafficPanel(detail: ServiceDetail, volume: TrafficVolumeView, measured: MeasuredTraffic | null = null): ReactElement {
  const summary = costed(detail, measured, `default/${detail.name}`);
  return (
    <TrafficPanel
      namespace="default"
      name={detail.name}
      version={1}
      scenarios={trafficScenarios(detail)}
      initialGb={roundGb(volume.gbPerMonth)}
      initialPrice={volume.costPerCrossZoneGb}
      volume={volume}
      costRows={costRows(detail, summary)}
    />
  );
}

describe('traffic panel: the volume says where it comes from, the inputs are a what-if', () => {
  it('nothing measured: the assumption per ready endpoint, the cost at it, the default price', () => {
    const detail = detailOf('web');
    const text = textOf(trafficPanel(detail, volumeView(detail, null, 'default/web')));
    expect(text).toContain('Volume: 450 GB per month assumed assumed: 50 GB per ready endpoint per month × 9');
    // 9 endpoints over 3 equal zones, no hints: 2/3 crosses zones; 450 GB × 2/3 × $0.01 × 2 = $6.00.
    expect(text).toContain('Cost now: $6.00/month at 66.7 % cross-zone (predicted) × $0.02 per cross-zone GB');
    expect(text).toContain('Price: AWS (detected: test): $0.01/GB leaving one zone and $0.01/GB entering the other — $0.02 per cross-zone GB.');
    expect(text).toContain('What-if traffic (GB / month)');
    expect(text).toContain('$ per cross-zone GB (cluster: $0.02)');
    expect(text).toContain("The table uses the Service's volume (assumed) and the cluster's price; change them to try a what-if.");
    expect(text).toContain('Now model 66.7 % 300 GB $6.00');
    expect(text).not.toContain('Now measured');
    // The smallest fix has a row of its own, priced at the Service's volume.
    expect(text).toContain('Smallest fix: Set service.kubernetes.io/topology-mode: Auto model 0.0 % 0 GB $0.00');
  });

  it('measured flows: the metric and window, the cost at the measured share; the other rows apply the model\'s change to it', () => {
    const detail = detailOf('near');
    const measured = measuredOf('default/near', flows(100, 0.6));
    const text = textOf(trafficPanel(detail, volumeView(detail, measured, 'default/near'), measured));
    expect(text).toContain('Volume: 300 GB per month measured measured: beyla_network_flow_bytes_total, rate over 7d');
    expect(text).toContain('Cost now: $3.60/month at 60.0 % cross-zone (measured)');
    expect(text).toContain('Now measured 60.0 % 180 GB $3.60');
    // near's hints are on and stay on: the next sync changes nothing, so neither does its cost.
    expect(text).toContain('After next sync measured + model 60.0 % 180 GB $3.60');
  });
});

describe('traffic panel: figures in the thousands', () => {
  it('the cost table and its formula write 20,562 GB as the rest of the page does, never a raw 20562', () => {
    const detail = detailOf('web');
    const volume = { ...volumeView(detail, null, 'default/web'), gbPerMonth: 20_562 };
    const text = textOf(trafficPanel(detail, volume));
    expect(text).toContain('Volume: 20,562 GB per month');
    expect(text).toContain('Now model 66.7 % 13,708 GB $274.16');
    expect(text).not.toMatch(/\b20562\b|\b\d{4,}\.\d\b/);
    // The formula of the selected row, now at the Service's own volume, is the "Cost now" line: said once.
    expect(text).not.toContain('cost = ');
    // A what-if volume (?gb=) gets its formula, in the same digits.
    const whatIf = textOf(<TrafficPanel namespace="default" name="web" version={1} scenarios={trafficScenarios(detail)} initialGb={31_000} initialPrice={volume.costPerCrossZoneGb} volume={volume} costRows={costRows(detail, costed(detail, null, 'default/web'))} />);
    expect(whatIf).toContain('cost = 31,000 GB × 66.7 % cross-zone × $0.02 per cross-zone GB = $413.33/month (Now)');
    expect(whatIf).toContain('volume set here (what-if): 31,000 GB instead of 20,562 GB');
  });
});

describe('measured vs predicted', () => {
  it('Auto hints on but 60 % measured cross-zone: disagree by 60 points, long-lived connections fit', () => {
    const detail = detailOf('near');
    const measured = flows(100, 0.6);
    const comparison = compareMeasuredWithPredicted({
      measured,
      predicted: detail.trafficMatrix.now,
      service: must(index.servicesByKey.get('default/near'), 'service'),
      index,
      dataplane: prepareAnalysis(index).dataplane,
      loadBalancer: detail.loadBalancer,
    });
    const text = textOf(<MeasuredPanel measured={measured} comparison={comparison} window="7d" measuredAt={null} />);
    expect(text).toContain('Measured cross-zone 60.0 % Predicted now 0.0 % Difference +60.0 points');
    expect(text).toContain('Measured and predicted disagree by 60.0 points');
    expect(text).toContain("One known cause fits this Service: Long-lived or keep-alive connections : kube-proxy picks an endpoint per connection, not per request");
    expect(text).toContain('Known causes that do not fit');
    expect(text).toContain('zone-a 33.3 % 33.3 % ±0.0 points');
    expect(text).toContain('✓ 40 GB (13.3 %)');
  });

  it('agreement within 5 points: says so and lists no causes', () => {
    const detail = detailOf('web');
    const measured = flows(100, 0.65);
    const comparison = compareMeasuredWithPredicted({
      measured,
      predicted: detail.trafficMatrix.now,
      service: must(index.servicesByKey.get('default/web'), 'service'),
      index,
      dataplane: prepareAnalysis(index).dataplane,
      loadBalancer: detail.loadBalancer,
    });
    const text = textOf(<MeasuredPanel measured={measured} comparison={comparison} window="7d" measuredAt={null} />);
    expect(text).toContain('Measured and predicted agree (within 5 points)');
    expect(text).not.toContain('Known causes that do not fit');
  });

  it('pod bytes only: the volume is measured, the zone split is the model’s', () => {
    const measured: MeasuredServiceTraffic = { kind: 'measured-pod-bytes', metric: 'container_network_receive_bytes_total+container_network_transmit_bytes_total', gbPerMonth: 42, matrix: null };
    const text = textOf(<MeasuredPanel measured={measured} comparison={null} window="7d" measuredAt={null} />);
    expect(text).toContain('Volume measured: 42 GB per month from container_network_receive_bytes_total+container_network_transmit_bytes_total (rate over 7d).');
    expect(text).toContain("the zone split shown here is the model's prediction, not a measurement");
  });
});

describe('request sample panel', () => {
  function view(scenario: 'now' | 'ifNone'): RequestSampleView {
    const prepared = prepareAnalysis(index);
    const service = must(index.servicesByKey.get('default/near'), 'service');
    const input = requestSampleScenarios(prepared.context, prepared.dataplane, service, index.slicesByService.get('default/near') ?? [])[scenario];
    const node = must(prepared.context.clientNodesByZone.get('zone-a')?.[0], 'node');
    return {
      namespace: 'default',
      name: 'near',
      scenario,
      count: 100,
      zone: 'zone-a',
      node: node.name,
      nodePicked: false,
      sameOnEveryNodeOfZone: true,
      zoneNodes: [node.name, 'node-a-2'],
      sample: sampleRequests({ ...input, clientNode: node.proxyNode, count: 100, seed: 1 }),
      commands: { run: 'kubectl run curl-zone-a …', loop: 'kubectl exec … | sort | uniq -c', cleanup: 'kubectl delete pod …' },
      measured: null,
    };
  }
  const options = pickerOptions({
    zones: [
      { zone: 'zone-a', representative: 'node-a', nodes: ['node-a', 'node-a-2'], totalNodes: 2 },
      { zone: 'zone-b', representative: 'node-b', nodes: ['node-b-1', 'node-b-2', 'node-b-3'], totalNodes: 250 },
    ],
    nodeMatters: false,
  });
  const scenarios = [
    { id: 'now' as const, label: 'Now' },
    { id: 'ifNone' as const, label: 'Without hints' },
  ];

  it('hints on: the three zone-a pods answer, 100 in total, 33.33 expected each, and the table says so', () => {
    const html = renderToStaticMarkup(<RequestSamplePanel namespace="default" name="near" version={1} options={options} initial={view('now')} scenarios={scenarios} />);
    const text = textOf(<RequestSamplePanel namespace="default" name="near" version={1} options={options} initial={view('now')} scenarios={scenarios} />);
    expect(text).toContain('hints for zone zone-a: 3 of 9 ready endpoints');
    expect(text).toContain("answered by 3 pods; 100 of 100 from the client's zone, 0 from other zones");
    expect(text).toContain('Total 100 100');
    expect(text.match(/33\.33/g)?.length).toBe(3);
    expect(html).not.toContain('data-same-zone="false"');
    expect(html).toContain('aria-label="Answers per pod: sampled and expected"');
  });

  it('without hints: every pod, some in other zones, still 100 in total', () => {
    const html = renderToStaticMarkup(<RequestSamplePanel namespace="default" name="near" version={1} options={options} initial={view('ifNone')} scenarios={scenarios} />);
    const text = textOf(<RequestSamplePanel namespace="default" name="near" version={1} options={options} initial={view('ifNone')} scenarios={scenarios} />);
    expect(text).toContain('no topology: all 9 ready endpoints');
    expect(text).toContain('Total 100 100');
    expect(html.match(/data-same-zone="false"/g)?.length).toBe(6);
  });

  it("sends the pickers' zones without node lists: the counts stay, the names come with each zone's sample", () => {
    expect(options.zones).toEqual([
      { zone: 'zone-a', representative: 'node-a', listedNodes: 2, totalNodes: 2 },
      { zone: 'zone-b', representative: 'node-b', listedNodes: 3, totalNodes: 250 },
    ]);
    expect(JSON.stringify(options)).not.toContain('node-b-1');
  });

  it('server HTML: the node picker holds its picked option only, and the answers table styles its rows once', () => {
    const initial = view('ifNone');
    const html = renderToStaticMarkup(<RequestSamplePanel namespace="default" name="near" version={1} options={options} initial={initial} scenarios={scenarios} />);
    const nodeSelect = must(/<select[^>]*aria-describedby[^>]*>(.*?)<\/select>/.exec(html)?.[1], 'node picker');
    expect(nodeSelect.match(/<option/g)).toHaveLength(1);
    expect(nodeSelect).toContain('any node in the zone (node-a)');
    expect(nodeSelect).not.toContain('node-a-2');
    // The note counts what the picker lists once it runs in the browser.
    expect(textOf(<RequestSamplePanel namespace="default" name="near" version={1} options={options} initial={initial} scenarios={scenarios} />)).toContain(
      'Every client node of a zone selects the same endpoints for this Service.',
    );
    const picked = { ...initial, node: 'node-a-2', nodePicked: true };
    const pickedSelect = must(/<select[^>]*aria-describedby[^>]*>(.*?)<\/select>/.exec(renderToStaticMarkup(<RequestSamplePanel namespace="default" name="near" version={1} options={options} initial={picked} scenarios={scenarios} />))?.[1], 'node picker');
    expect(pickedSelect.match(/<option/g)).toHaveLength(2);
    expect(pickedSelect).toContain('<option value="node-a-2" selected="">node-a-2</option>');
    // Rows carry their texts, test ids and same-zone mark, not per-cell classes.
    const table = must(/<table[^>]*data-testid="sample-table"[^>]*>.*?<\/table>/.exec(html)?.[0], 'answers table');
    const body = must(/<tbody>(.*?)<\/tbody>/.exec(table)?.[1], 'table body');
    expect(body.match(/<tr /g)).toHaveLength(initial.sample.pods.length);
    expect(body).not.toMatch(/<t[dhr] [^>]*class=/);
    expect(body.match(/data-testid="sample-count"/g)).toHaveLength(initial.sample.pods.length);
    expect(body.match(/\(other zone\)/g)).toHaveLength(6);
    expect(table).toMatch(/<table class="[^"]*\[&amp;_tbody_td\]:text-right/);
  });

  it('the commands wrap inside their boxes, each with Copy; "Try it on the cluster" is an h3 under the panel\'s h2', () => {
    const html = renderToStaticMarkup(<RequestSamplePanel namespace="default" name="near" version={1} options={options} initial={view('now')} scenarios={scenarios} />);
    expect(html).toContain('<h3 class="text-sm font-semibold">Try it on the cluster</h3>');
    expect(html).not.toMatch(/<h[4-6]/);
    const blocks = [...html.matchAll(/<pre class="([^"]*)" aria-label="([^"]*)">/g)];
    expect(blocks.map((m) => m[2])).toEqual(['1. Start a client pod there', '2. Send 100 requests and count who answers', '3. Clean up']);
    for (const [, cls] of blocks) expect(cls).toContain('whitespace-pre-wrap');
    expect(html.match(/<span aria-live="polite">Copy<\/span>/g)).toHaveLength(3);
  });

  it('the note counts the listed nodes of the picked zone against its total', () => {
    const zoneB = { ...view('now'), zone: 'zone-b', node: 'node-b', zoneNodes: ['node-b-1', 'node-b-2', 'node-b-3'] };
    const text = textOf(<RequestSamplePanel namespace="default" name="near" version={1} options={options} initial={zoneB} scenarios={scenarios} />);
    expect(text).toContain("3 of the zone's 250 client nodes listed; every other node selects like the zone's.");
  });
});
