import { spawnSync } from 'node:child_process';
import { Gauge, Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';

import type { ResourceStatus } from '../../k8s/informer/status';
import { testCluster, testEndpoint, testEndpoints, testService, testSlice } from '../../topology/model/test-cluster';
import { analyzeCluster, clusterTrafficOf } from '../../topology/report/cluster-analysis';
import type { ClusterAnalysis } from '../../topology/report/analysis-schema';
import { AUTO, publicCases } from '../../topology/report/test-public-cases';
import { defaultVolumeSettings } from '../../topology/analyses/service-volume';
import type { MeasuredTraffic } from '../../topology/analyses/traffic-volume';
import { syncAgeSeconds } from './cluster-block';
import type { ExporterInput } from './input';
import { DEFAULT_MAX_SERVICES } from './input';
import { renderMetrics, renderMetricsChunks } from './scrape';
import { renderServiceBlock, serviceBlock } from './service-block';
import { escapeLabelValue } from './text-format';

const NOW = Date.parse('2026-06-01T12:00:00Z');

function status(id: ResourceStatus['id'], health: ResourceStatus['health'], extra: Partial<ResourceStatus> = {}): ResourceStatus {
  return {
    id,
    title: id,
    health,
    resourceVersion: '10',
    syncedAt: '2026-06-01T11:59:00Z',
    lastEventAt: '2026-06-01T11:59:30Z',
    staleSince: null,
    error: null,
    listing: false,
    listed: 3,
    count: 3,
    lists: 1,
    watches: 1,
    ...extra,
  };
}

function input(analysis: ClusterAnalysis | null, extra: Partial<ExporterInput> = {}): ExporterInput {
  return {
    analysis,
    traffic: null,
    statuses: [status('nodes', 'synced'), status('services', 'synced')],
    synced: analysis !== null,
    clusterName: 'prod',
    trafficSourceUp: null,
    budgetDollarsPerMonth: null,
    maxServices: DEFAULT_MAX_SERVICES,
    nowMs: NOW,
    defaultMetrics: false,
    ...extra,
  };
}

/** The sample lines of `name` (without HELP/TYPE). */
function samples(text: string, name: string): string[] {
  return text.split('\n').filter((line) => line.startsWith(`${name}{`) || line.startsWith(`${name} `));
}

function promtool(text: string): { output: string; status: number | null } {
  const result = spawnSync(process.env.PROMTOOL_BIN ?? '/usr/bin/promtool', ['check', 'metrics'], { input: text, encoding: 'utf8' });
  if (result.error) throw new Error(`promtool could not run (${result.error.message}); apt-get install prometheus or set PROMTOOL_BIN`);
  return { output: `${result.stdout}${result.stderr}`, status: result.status };
}

describe('per-Service series on the public cases (web 4/4/3, api 5/2/2, two 1/1, all Auto)', () => {
  const analysis = analyzeCluster(publicCases());

  it('writes each Service\'s hints, endpoints per zone, minimums, reason and traffic', async () => {
    const text = await renderMetrics(input(analysis));
    const web = 'namespace="default",service="web"';
    expect(samples(text, 'zonescope_service_info')).toContain(`zonescope_service_info{${web},type="ClusterIP",mechanism="topology-mode",traffic_distribution="",topology_mode="Auto"} 1`);
    expect(samples(text, 'zonescope_service_hints_requested')).toContain(`zonescope_service_hints_requested{${web}} 1`);
    expect(samples(text, 'zonescope_service_hints_expected')).toContain(`zonescope_service_hints_expected{${web}} 0`);
    expect(samples(text, 'zonescope_service_hints_observed_ratio')).toContain(`zonescope_service_hints_observed_ratio{${web}} 0`);
    expect(samples(text, 'zonescope_service_hints_reason_info').filter((l) => l.includes(web))).toEqual([
      `zonescope_service_hints_reason_info{${web},reason="min-allocation-exceeds-overload-threshold"} 1`,
    ]);
    expect(samples(text, 'zonescope_service_ready_endpoints').filter((l) => l.includes(web))).toEqual([
      `zonescope_service_ready_endpoints{${web},zone="zone-a"} 4`,
      `zonescope_service_ready_endpoints{${web},zone="zone-b"} 4`,
      `zonescope_service_ready_endpoints{${web},zone="zone-c"} 3`,
    ]);
    expect(samples(text, 'zonescope_service_zone_minimum_endpoints').filter((l) => l.includes(web))).toEqual([
      `zonescope_service_zone_minimum_endpoints{${web},zone="zone-a"} 4`,
      `zonescope_service_zone_minimum_endpoints{${web},zone="zone-b"} 4`,
      `zonescope_service_zone_minimum_endpoints{${web},zone="zone-c"} 4`,
    ]);
    const api = 'namespace="default",service="api"';
    expect(samples(text, 'zonescope_service_hints_expected')).toContain(`zonescope_service_hints_expected{${api}} 1`);
    expect(samples(text, 'zonescope_service_hints_in_sync')).toContain(`zonescope_service_hints_in_sync{${api}} 0`);
    expect(samples(text, 'zonescope_service_donated_endpoints')).toContain(`zonescope_service_donated_endpoints{${api}} 2`);
    expect(samples(text, 'zonescope_service_hints_reason_info')).toContain(`zonescope_service_hints_reason_info{${api},reason="enabled"} 1`);
    // 9 endpoints × 50 GB a month, assumed; 2/3 crosses zones now at $0.01 each way.
    const bytes = samples(text, 'zonescope_service_traffic_bytes_per_second').find((l) => l.includes(api)) ?? '';
    expect(bytes).toMatch(/source="assumed"/);
    expect(Number(bytes.split(' ')[1])).toBeCloseTo((450 * 1e9) / (30 * 86400), 6);
    const cost = samples(text, 'zonescope_service_cross_zone_cost_dollars_per_month').find((l) => l.includes(api)) ?? '';
    expect(Number(cost.split(' ')[1])).toBeCloseTo(450 * (2 / 3) * 0.02, 9);
    expect(samples(text, 'zonescope_service_predicted_cross_zone_ratio').find((l) => l.includes(api))).toMatch(/ 0\.66666/);
    // Nothing measured: no measured ratio.
    expect(samples(text, 'zonescope_service_measured_cross_zone_ratio')).toEqual([]);
    // One reason series per Service.
    expect(samples(text, 'zonescope_service_hints_reason_info')).toHaveLength(3);
  });

  it('writes the cluster block: info, eligibility, zones, totals, counts', async () => {
    const text = await renderMetrics(input(analysis));
    expect(samples(text, 'zonescope_cluster_info')).toEqual(['zonescope_cluster_info{cluster="prod",kubernetes_version="1.30",platform="other",proxy_mode="iptables"} 1']);
    expect(samples(text, 'zonescope_cluster_kubernetes_minor')).toEqual(['zonescope_cluster_kubernetes_minor 30']);
    expect(samples(text, 'zonescope_cluster_eligible')).toEqual(['zonescope_cluster_eligible 1']);
    expect(samples(text, 'zonescope_cluster_insufficient_cause_info')).toEqual(['zonescope_cluster_insufficient_cause_info{cause="none"} 1']);
    expect(samples(text, 'zonescope_cluster_ineligible_nodes')).toEqual(['zonescope_cluster_ineligible_nodes 0']);
    expect(samples(text, 'zonescope_cluster_ineligible_node_info')).toEqual([]);
    expect(samples(text, 'zonescope_zone_cpu_ratio')).toEqual(['zonescope_zone_cpu_ratio{zone="zone-a"} 0.3333333333333333', 'zonescope_zone_cpu_ratio{zone="zone-b"} 0.3333333333333333', 'zonescope_zone_cpu_ratio{zone="zone-c"} 0.3333333333333333']);
    expect(samples(text, 'zonescope_zone_nodes')).toContain('zonescope_zone_nodes{zone="zone-a"} 1');
    expect(samples(text, 'zonescope_cluster_nodes')).toEqual(['zonescope_cluster_nodes 3']);
    expect(samples(text, 'zonescope_services')).toContain('zonescope_services{mechanism="topology-mode"} 3');
    expect(samples(text, 'zonescope_services_hints_expected')).toEqual(['zonescope_services_hints_expected 1']);
    expect(samples(text, 'zonescope_services_hints_observed')).toEqual(['zonescope_services_hints_observed 0']);
    expect(samples(text, 'zonescope_cluster_synced')).toEqual(['zonescope_cluster_synced 1']);
    const now = samples(text, 'zonescope_cross_zone_cost_dollars_per_month').find((l) => l.includes('scenario="now"')) ?? '';
    expect(Number(now.split(' ')[1])).toBeCloseTo(analysis.traffic.totals.now.monthlyCost, 9);
    expect(samples(text, 'zonescope_cross_zone_cost_dollars_per_month').map((l) => /scenario="([^"]+)"/.exec(l)?.[1])).toEqual(['now', 'after_sync', 'best']);
    expect(samples(text, 'zonescope_cross_zone_bytes_per_second')).toHaveLength(3);
    expect(samples(text, 'zonescope_metrics_services_exported')).toEqual(['zonescope_metrics_services_exported 3']);
    expect(samples(text, 'zonescope_metrics_services_omitted')).toEqual(['zonescope_metrics_services_omitted 0']);
    expect(samples(text, 'zonescope_build_info')[0]).toMatch(/^zonescope_build_info\{version="\d+\.\d+\.\d+",node_version="v\d+\.\d+\.\d+"\} 1$/);
    expect(promtool(text)).toEqual({ output: '', status: 0 });
  });

  it('informers: a state set of four per type, timestamps, objects, sync age', async () => {
    const statuses = [status('nodes', 'synced'), status('pods', 'stale', { lastEventAt: '2026-06-01T11:50:00Z', syncedAt: '2026-06-01T11:40:00Z' }), status('hpas', 'syncing', { syncedAt: null, lastEventAt: null, count: 0 })];
    const text = await renderMetrics(input(analysis, { statuses }));
    expect(samples(text, 'zonescope_informer_state').filter((l) => l.includes('"pods"'))).toEqual([
      'zonescope_informer_state{resource="pods",state="syncing"} 0',
      'zonescope_informer_state{resource="pods",state="synced"} 0',
      'zonescope_informer_state{resource="pods",state="stale"} 1',
      'zonescope_informer_state{resource="pods",state="forbidden"} 0',
    ]);
    expect(samples(text, 'zonescope_informer_last_sync_timestamp_seconds')).toEqual([
      `zonescope_informer_last_sync_timestamp_seconds{resource="nodes"} ${Date.parse('2026-06-01T11:59:00Z') / 1000}`,
      `zonescope_informer_last_sync_timestamp_seconds{resource="pods"} ${Date.parse('2026-06-01T11:40:00Z') / 1000}`,
    ]);
    expect(samples(text, 'zonescope_informer_last_event_timestamp_seconds')).toHaveLength(2);
    expect(samples(text, 'zonescope_informer_objects')).toContain('zonescope_informer_objects{resource="hpas"} 0');
    // Pods last heard at 11:50, ten minutes before the scrape.
    expect(samples(text, 'zonescope_sync_age_seconds')).toEqual(['zonescope_sync_age_seconds 600']);
    expect(syncAgeSeconds([], NOW)).toBeNull();
  });

  it('traffic source and budget: present only when known', async () => {
    const none = await renderMetrics(input(analysis));
    expect(samples(none, 'zonescope_traffic_source_up')).toEqual([]);
    expect(samples(none, 'zonescope_cross_zone_budget_dollars_per_month')).toEqual([]);
    const set = await renderMetrics(input(analysis, { trafficSourceUp: false, budgetDollarsPerMonth: 1500 }));
    expect(samples(set, 'zonescope_traffic_source_up')).toEqual(['zonescope_traffic_source_up 0']);
    expect(samples(set, 'zonescope_cross_zone_budget_dollars_per_month')).toEqual(['zonescope_cross_zone_budget_dollars_per_month 1500']);
  });

  it('while syncing: the cluster block only, synced 0', async () => {
    const text = await renderMetrics(input(null, { statuses: [status('nodes', 'syncing', { syncedAt: null, lastEventAt: null })] }));
    expect(samples(text, 'zonescope_cluster_synced')).toEqual(['zonescope_cluster_synced 0']);
    expect(text).not.toContain('zonescope_service_');
    expect(text).not.toContain('zonescope_cluster_info');
    expect(samples(text, 'zonescope_informer_state')).toContain('zonescope_informer_state{resource="nodes",state="syncing"} 1');
    expect(promtool(text)).toEqual({ output: '', status: 0 });
  });

  it('appends the default process and nodejs metrics, and the chunks are the same text', async () => {
    const full = await renderMetrics(input(analysis, { defaultMetrics: true }));
    expect(full).toMatch(/^process_resident_memory_bytes \d+/m);
    expect(full).toMatch(/^nodejs_eventloop_lag_seconds /m);
    expect(full).not.toMatch(/^nodejs_active_handles_total/m);
    const chunks = await renderMetricsChunks(input(analysis));
    expect(Buffer.concat(chunks).toString('utf8')).toBe(await renderMetrics(input(analysis)));
  });
});

describe('measured traffic', () => {
  it('uses the traffic figures the pages show: measured share, source and cost', async () => {
    const analysis = analyzeCluster(publicCases());
    const measured: MeasuredTraffic = {
      window: '7d',
      measuredAt: '2026-06-01T12:00:00Z',
      byService: new Map([
        ['default/api', { kind: 'measured-flows', metric: 'beyla_network_flow_bytes_total', gbPerMonth: 300, matrix: { 'zone-a': { 'zone-a': 200, 'zone-b': 40 }, 'zone-b': { 'zone-b': 60 } } }],
        ['default/web', { kind: 'measured-pod-bytes', metric: 'container_network_receive_bytes_total', gbPerMonth: 90, matrix: null }],
      ]),
      interZoneGbPerMonth: null,
      flowZones: 'labelled',
      reconciliation: null,
      quality: { seriesRead: 2, invalidSamples: 0, unknownZoneBytesPerSecond: 0, unattributedBytesPerSecond: 0, notes: [] },
    };
    const traffic = clusterTrafficOf(analysis, defaultVolumeSettings(), measured);
    const text = await renderMetrics(input(analysis, { traffic }));
    const api = traffic.byService.get('default/api');
    expect(api?.volume.source.kind).toBe('measured-flows');
    expect(samples(text, 'zonescope_service_measured_cross_zone_ratio')).toEqual([`zonescope_service_measured_cross_zone_ratio{namespace="default",service="api"} ${api?.crossZoneFraction}`]);
    expect(api?.crossZoneFraction).toBeCloseTo(40 / 300, 9);
    expect(samples(text, 'zonescope_service_traffic_bytes_per_second').find((l) => l.includes('"api"'))).toBe(
      `zonescope_service_traffic_bytes_per_second{namespace="default",service="api",source="measured-flows"} ${(300 * 1e9) / (30 * 86400)}`,
    );
    expect(samples(text, 'zonescope_service_traffic_bytes_per_second').find((l) => l.includes('"web"'))).toMatch(/source="pod-bytes"\} /);
    expect(samples(text, 'zonescope_service_cross_zone_cost_dollars_per_month').find((l) => l.includes('"api"'))).toBe(`zonescope_service_cross_zone_cost_dollars_per_month{namespace="default",service="api"} ${api?.monthlyCost}`);
    // The predicted share stays the model's.
    expect(samples(text, 'zonescope_service_predicted_cross_zone_ratio').find((l) => l.includes('"api"'))).toBe(`zonescope_service_predicted_cross_zone_ratio{namespace="default",service="api"} ${analysis.services.find((s) => s.name === 'api')?.traffic.crossZoneFraction}`);
    const now = samples(text, 'zonescope_cross_zone_cost_dollars_per_month').find((l) => l.includes('"now"')) ?? '';
    expect(Number(now.split(' ')[1])).toBe(traffic.report.totals.now.monthlyCost);
  });
});

describe('label escaping', () => {
  it('escapes \\, " and newline exactly as prom-client does', async () => {
    const value = 'a\\b"c\nd';
    const registry = new Registry();
    new Gauge({ name: 'x', help: 'x', labelNames: ['l'], registers: [registry] }).set({ l: value }, 1);
    const expected = (await registry.metrics()).split('\n').find((l) => l.startsWith('x{')) ?? '';
    expect(`x{l="${escapeLabelValue(value)}"} 1`).toBe(expected);
    expect(escapeLabelValue('plain-name')).toBe('plain-name');
  });

  it('a cluster name with quotes, backslashes and newlines stays one valid label', async () => {
    const text = await renderMetrics(input(analyzeCluster(publicCases()), { clusterName: 'pro"d\\x\ny' }));
    expect(samples(text, 'zonescope_cluster_info')[0]).toContain('cluster="pro\\"d\\\\x\\ny"');
    expect(promtool(text)).toEqual({ output: '', status: 0 });
  });

  it('zone names from endpoints are escaped too, and endpoints without a zone count as "unknown"', () => {
    const endpoints = [...testEndpoints({ 'zone-a': 2, 'zone-b': 2, 'zone-c': 2 }), testEndpoint('10.0.9.1', null), testEndpoint('10.0.9.2', 'odd"zone')];
    const analysis = analyzeCluster(testCluster({ services: [testService('web')], endpointSlices: [testSlice('web', endpoints)] }));
    const text = renderServiceBlock(analysis, null, 10).text;
    expect(samples(text, 'zonescope_service_ready_endpoints')).toEqual([
      'zonescope_service_ready_endpoints{namespace="default",service="web",zone="zone-a"} 2',
      'zonescope_service_ready_endpoints{namespace="default",service="web",zone="zone-b"} 2',
      'zonescope_service_ready_endpoints{namespace="default",service="web",zone="zone-c"} 2',
      'zonescope_service_ready_endpoints{namespace="default",service="web",zone="unknown"} 1',
      'zonescope_service_ready_endpoints{namespace="default",service="web",zone="odd\\"zone"} 1',
    ]);
  });
});

describe('the cap on per-Service series', () => {
  // quiet (no hints asked), cheap-ask (Auto, little traffic), big (no hints, lots of traffic), mid, huge-ask.
  const services = [
    testService('quiet'),
    testService('cheap-ask', { annotations: AUTO }),
    testService('big'),
    testService('mid'),
    testService('huge-ask', { annotations: AUTO }),
  ];
  const slices = [
    testSlice('quiet', testEndpoints({ 'zone-a': 1 }, { service: 'quiet' })),
    testSlice('cheap-ask', testEndpoints({ 'zone-a': 1, 'zone-b': 1, 'zone-c': 1 }, { service: 'cheap-ask' })),
    testSlice('big', testEndpoints({ 'zone-a': 20, 'zone-b': 1, 'zone-c': 1 }, { service: 'big' })),
    testSlice('mid', testEndpoints({ 'zone-a': 6, 'zone-b': 1 }, { service: 'mid' })),
    testSlice('huge-ask', testEndpoints({ 'zone-a': 30, 'zone-b': 1, 'zone-c': 1 }, { service: 'huge-ask' })),
  ];
  const analysis = analyzeCluster(testCluster({ services, endpointSlices: slices }));

  it('keeps Services asking for hints or needing attention first, then by cross-zone $ descending', async () => {
    const exported = (max: number) => {
      const block = renderServiceBlock(analysis, null, max);
      return { names: samples(block.text, 'zonescope_service_info').map((l) => /service="([^"]+)"/.exec(l)?.[1]).sort(), exported: block.exported, omitted: block.omitted };
    };
    // cheap-ask and huge-ask ask for hints; of the others big costs most, then mid, then quiet.
    expect(analysis.services.filter((s) => s.mechanism !== 'none' || s.needsAttention !== null).map((s) => s.name)).toEqual(['cheap-ask', 'huge-ask']);
    expect(exported(1).names).toEqual(['huge-ask']);
    expect(exported(2)).toEqual({ names: ['cheap-ask', 'huge-ask'], exported: 2, omitted: 3 });
    expect(exported(3).names).toEqual(['big', 'cheap-ask', 'huge-ask']);
    expect(exported(4).names).toEqual(['big', 'cheap-ask', 'huge-ask', 'mid']);
    expect(exported(0)).toEqual({ names: [], exported: 0, omitted: 5 });
    expect(exported(5).omitted).toBe(0);
    const text = await renderMetrics(input(analysis, { maxServices: 2 }));
    expect(samples(text, 'zonescope_metrics_services_exported')).toEqual(['zonescope_metrics_services_exported 2']);
    expect(samples(text, 'zonescope_metrics_services_omitted')).toEqual(['zonescope_metrics_services_omitted 3']);
    // The cluster counts still cover every Service.
    expect(samples(text, 'zonescope_services').reduce((sum, l) => sum + Number(l.split(' ')[1]), 0)).toBe(5);
  });
});

describe('caching the per-Service block', () => {
  it('returns the same block for the same analysis, traffic figures and cap, and a new one when any changes', () => {
    const analysis = analyzeCluster(publicCases());
    const first = serviceBlock(analysis, null, 100);
    expect(serviceBlock(analysis, null, 100)).toBe(first);
    expect(serviceBlock(analysis, null, 1)).not.toBe(first);
    const again = serviceBlock(analysis, null, 100);
    expect(again).not.toBe(first);
    expect(again.text).toBe(first.text);
    const traffic = clusterTrafficOf(analysis, defaultVolumeSettings(), null);
    const withTraffic = serviceBlock(analysis, traffic, 100);
    expect(withTraffic).not.toBe(again);
    expect(serviceBlock(analysis, traffic, 100)).toBe(withTraffic);
    const next = analyzeCluster(publicCases());
    expect(serviceBlock(next, traffic, 100)).not.toBe(withTraffic);
  });

  it('a scrape with the same analysis does not render the block again', async () => {
    const analysis = analyzeCluster(publicCases());
    const a = await renderMetricsChunks(input(analysis));
    const b = await renderMetricsChunks(input(analysis, { nowMs: NOW + 15_000 }));
    // The per-Service bytes are the very same buffer in both scrapes.
    const block = serviceBlock(analysis, null, DEFAULT_MAX_SERVICES).bytes;
    expect(a).toContain(block);
    expect(b).toContain(block);
  });
});

describe('per-Service lines kept with their reports', () => {
  it('a new analysis that reuses report objects renders the same text as a fresh one, and picks up changed traffic figures', () => {
    const first = analyzeCluster(publicCases());
    renderServiceBlock(first, null, 100);
    // The next generation: web changed (a new report object), api and two reused as the engine's cache does.
    const changed = analyzeCluster(
      publicCases({
        endpointSlices: [
          testSlice('web', testEndpoints({ 'zone-a': 3, 'zone-b': 3, 'zone-c': 3 }, { service: 'web' })),
          testSlice('api', testEndpoints({ 'zone-a': 5, 'zone-b': 2, 'zone-c': 2 }, { service: 'api' })),
          testSlice('two', testEndpoints({ 'zone-a': 1, 'zone-b': 1 }, { service: 'two' })),
        ],
      }),
    );
    const mixed: ClusterAnalysis = { ...changed, services: changed.services.map((r) => (r.name === 'web' ? r : (first.services.find((f) => f.name === r.name) ?? r))) };
    const fresh: ClusterAnalysis = { ...changed, services: changed.services.map((r) => ({ ...r })) };
    const text = renderServiceBlock(mixed, null, 100).text;
    expect(text).toBe(renderServiceBlock(fresh, null, 100).text);
    expect(text).toContain('zonescope_service_ready_endpoints{namespace="default",service="web",zone="zone-c"} 3');
    // Same report objects, new traffic figures (a Prometheus answer): the cost lines follow.
    const measured: MeasuredTraffic = {
      window: '7d',
      measuredAt: '2026-06-01T12:00:00Z',
      byService: new Map([['default/two', { kind: 'measured-pod-bytes', metric: 'container_network_receive_bytes_total', gbPerMonth: 1234, matrix: null }]]),
      interZoneGbPerMonth: null,
      flowZones: 'labelled',
      reconciliation: null,
      quality: { seriesRead: 1, invalidSamples: 0, unknownZoneBytesPerSecond: 0, unattributedBytesPerSecond: 0, notes: [] },
    };
    const traffic = clusterTrafficOf(changed, defaultVolumeSettings(), measured);
    const withTraffic = renderServiceBlock(mixed, traffic, 100).text;
    expect(withTraffic).toContain(`zonescope_service_traffic_bytes_per_second{namespace="default",service="two",source="pod-bytes"} ${(1234 * 1e9) / (30 * 86400)}`);
    expect(renderServiceBlock(mixed, null, 100).text).toBe(text);
  });
});
