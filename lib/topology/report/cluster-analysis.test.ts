import { describe, expect, it } from 'vitest';

import { defaultVolumeSettings } from '../analyses/service-volume';
import { ASSUMED_AWS_PRICING } from '../model/cloud-pricing';
import type { MeasuredTraffic } from '../analyses/traffic-volume';
import { AnalysisCache } from './analysis-cache';
import { ANALYSIS_SCHEMA } from './analysis-schema';
import { analyzeCluster, analyzeClusterIn, clusterTrafficOf, serviceFlowsOf } from './cluster-analysis';
import type { EndpointSliceRecord, NodeRecord, ServiceRecord } from '../model/cluster-model';
import { indexCluster } from '../model/cluster-model';
import { prepareAnalysis, withAnalysisCache } from './prepared-analysis';
import { analyzeServiceIn } from './service-detail';
import { testCluster, testEndpoints, testNode, testService, testSlice, testSnapshot, testZoneNodes } from '../model/test-cluster';
import { AUTO, publicCases } from './test-public-cases';
import type { Endpoint } from '../upstream/types';
import type { Fix } from '../analyses/fixes';
import { fixAfterMatrix } from '../analyses/fixes';
import { runHintsEngine } from '../analyses/hints-engine';
import { proxyServicePort } from '../analyses/service-mechanism';
import { computeTrafficFigures, toTrafficEndpoints } from '../analyses/traffic';

describe('analyzeCluster: the JSON the analyze command prints', () => {
  const result = analyzeCluster(publicCases());
  const byName = Object.fromEntries(result.services.map((s) => [s.name, s]));

  it('carries the required cluster fields', () => {
    expect(result.schema).toBe(ANALYSIS_SCHEMA);
    expect(result.cluster.zones.map(({ name, cpuMillis, cpuRatio }) => ({ name, cpuMillis, cpuRatio }))).toEqual([
      { name: 'zone-a', cpuMillis: 4000, cpuRatio: 1 / 3 },
      { name: 'zone-b', cpuMillis: 4000, cpuRatio: 1 / 3 },
      { name: 'zone-c', cpuMillis: 4000, cpuRatio: 1 / 3 },
    ]);
    expect(result.cluster.eligible).toBe(true);
    expect(result.cluster.proxyMode).toBe('iptables');
  });

  it('carries the required per-Service fields, sorted by namespace and name', () => {
    expect(result.services.map((s) => s.name)).toEqual(['api', 'two', 'web']);
    const web = byName.web;
    expect(web).toMatchObject({
      namespace: 'default',
      name: 'web',
      mechanism: 'topology-mode',
      expected: {
        hintsEnabled: false,
        event: { type: 'Warning', reason: 'TopologyAwareHintsDisabled', message: expect.stringMatching(/^Unable to allocate minimum required endpoints/) },
        allocationsByZone: { 'zone-a': { minimum: 4 }, 'zone-b': { minimum: 4 }, 'zone-c': { minimum: 4 } },
        hintCountsByZone: {},
      },
      observed: { hintCountsByZone: {} },
      traffic: { crossZoneFraction: expect.closeTo(2 / 3), crossZoneFractionIfAuto: expect.closeTo(2 / 3), crossZoneFractionIfNone: expect.closeTo(2 / 3) },
      hpa: null,
    });
    expect(web?.fixes[0]?.kind).toBe('add-endpoints');
    expect(JSON.parse(JSON.stringify(result))).toEqual(result);
  });

  it('5/2/2 under Auto: hints on, 2 donated, 2/9 of the traffic still crosses zones (now: no hints yet → 2/3)', () => {
    expect(byName.api?.expected).toMatchObject({ hintsEnabled: true, donatedEndpoints: 2, hintCountsByZone: { 'zone-a': 3, 'zone-b': 3, 'zone-c': 3 } });
    expect(byName.api?.traffic.crossZoneFractionExpected).toBeCloseTo(2 / 9);
    expect(byName.api?.traffic.crossZoneFractionIfAuto).toBeCloseTo(2 / 9);
    expect(byName.api?.traffic.crossZoneFraction).toBeCloseTo(2 / 3);
    // Nothing measured or set: 9 ready endpoints × 50 GB = 450 GB a month, 2/9 of it cross-zone, $0.01 each way.
    expect(byName.api?.traffic.volume).toMatchObject({ gbPerMonth: 450, source: { kind: 'assumed', label: 'assumed: 50 GB per ready endpoint per month × 9' } });
    expect(byName.api?.traffic.monthlyCost.ifAuto.monthlyCost).toBeCloseTo(450 * (2 / 9) * 0.02);
  });

  it('the HPA behind 5/2/2: off at 4, 5, 8, 11 replicas', () => {
    expect(byName.api?.hpa?.hintsOffAt).toEqual([4, 5, 8, 11]);
    expect(byName.api?.workload).toBeNull();
  });

  it('2 endpoints in 3 zones: Insufficient number of endpoints', () => {
    expect(byName.two?.expected.event?.message).toBe('Insufficient number of endpoints (2 endpoints, 3 zones), addressType: IPv4');
  });

  it('needs attention: hints off with the upstream reason, or slices out of sync; costliest first', () => {
    // By cross-zone dollars now: web 550 GB × 2/3, api 450 GB × 2/3, two 100 GB × 2/3.
    expect(result.cluster.needsAttention.map((a) => [a.name, a.reason])).toEqual([
      ['web', 'hints-off'],
      ['api', 'out-of-sync'],
      ['two', 'hints-off'],
    ]);
    expect(result.cluster.summary).toMatchObject({ services: 3, hintsExpectedOn: 1, hintsObservedOn: 0, needingAttention: 3, byMechanism: { 'topology-mode': 3 } });
  });

  it('estimates rules for all three modes', () => {
    expect(result.cluster.ruleEstimates.estimates.map((e) => e.mode)).toEqual(['iptables', 'ipvs', 'nftables']);
    expect(result.cluster.ruleEstimates.inputs).toMatchObject({ services: 3, endpoints: 22, nodes: 3 });
  });
});

describe('analyzeCluster: cluster-wide conditions', () => {
  it('one Ready node without a zone label turns every Service off and is the fix', () => {
    const result = analyzeCluster(publicCases({ nodes: [...testZoneNodes(), testNode('stray', null)] }));
    expect(result.cluster.eligible).toBe(false);
    expect(result.cluster.ineligibleNodes.map((n) => n.node)).toEqual(['stray']);
    for (const service of result.services) {
      expect(service.expected.hintsEnabled).toBe(false);
      expect(service.expected.event?.message).toMatch(/^Insufficient Node information/);
      expect(service.fixes[0]?.kind).toBe('label-node');
    }
  });

  it('Cilium kube-proxy replacement without service topology: hints ignored, traffic as without hints', () => {
    const endpoints = testEndpoints({ 'zone-a': 3, 'zone-b': 3, 'zone-c': 3 }, { hinted: true });
    const result = analyzeCluster(
      testCluster({
        services: [testService('web', { annotations: AUTO })],
        endpointSlices: [testSlice('web', endpoints)],
        cni: { cilium: { kubeProxyReplacement: 'true', serviceTopology: false, source: 'kube-system/cilium-config' }, calico: null, awsVpcCni: false },
      }),
    );
    const web = result.services[0];
    expect(result.cluster.dataplane).toMatchObject({ serviceProxy: 'cilium', honoursHints: false });
    expect(web?.expected.hintsEnabled).toBe(true);
    expect(web?.traffic.crossZoneFraction).toBeCloseTo(2 / 3);
    expect(web?.needsAttention?.reason).toBe('dataplane-ignores-hints');
  });

  it('an unknown cluster version assumes 1.33 and says so', () => {
    const result = analyzeCluster(testCluster({ version: null }));
    expect(result.kubernetes).toMatchObject({ minor: 33, source: 'assumed' });
    expect(result.assumptions[0]).toContain('1.33 is assumed');
  });

  it('options: a release override, GB/month and $/GB, client traffic per zone', () => {
    const index = testCluster({ services: [testService('web')], endpointSlices: [testSlice('web', testEndpoints({ 'zone-a': 1, 'zone-b': 1, 'zone-c': 1 }))] });
    const result = analyzeCluster(index, { kubernetesVersion: '1.26', gbPerMonth: 500, pricePerGb: 0.02, trafficByZone: { 'zone-a': 0.5 } });
    expect(result.kubernetes).toMatchObject({ release: '1.26', source: 'override' });
    expect(result.cluster.clientShareByZone).toEqual({ 'zone-a': 0.5, 'zone-b': 0.25, 'zone-c': 0.25 });
    expect(result.cluster.clientShareSource).toBe('cpu-with-overrides');
    // One endpoint per zone: each zone keeps a third of its own traffic, 2/3 crosses zones whatever the shares.
    expect(result.services[0]?.traffic.crossZoneFraction).toBeCloseTo(2 / 3);
    const cost = result.services[0]?.traffic.monthlyCost.now;
    expect(cost).toMatchObject({ gbPerMonth: 500, costPerCrossZoneGb: 0.04 });
  });
});

describe('scale', () => {
  // The same shape as the L cluster (10,000 Services over 150,000 endpoints and 5,000 nodes), a
  // thirtieth of its size; the full size is a benchmark: `npm run bench -- --scale-checks services-10000`.
  it('300 Services over 4,500 endpoints and 150 nodes analyze in one pass', () => {
    const zones = ['us-east-1a', 'us-east-1b', 'us-east-1c'];
    const nodeCount = 150;
    const nodes: NodeRecord[] = Array.from({ length: nodeCount }, (_, i) => testNode(`node-${i}`, zones[i % 3] ?? null, '3920m'));
    const services: ServiceRecord[] = [];
    const slices: EndpointSliceRecord[] = [];
    for (let s = 0; s < 300; s++) {
      const name = `svc-${s}`;
      services.push({ ...testService(name, s % 2 === 0 ? { annotations: AUTO } : {}), namespace: `ns-${s % 50}` });
      const endpoints: Endpoint[] = Array.from({ length: 15 }, (_, e) => {
        const node = nodes[(s * 7 + e * 13) % nodeCount] as NodeRecord;
        return { addresses: [`10.${s >> 8}.${s & 255}.${e}`], zone: node.zone, nodeName: node.name, ready: true, hints: s % 2 === 0 ? { forZones: [node.zone ?? ''] } : null };
      });
      slices.push({ ...testSlice(name, endpoints), namespace: `ns-${s % 50}` });
    }
    const index = indexCluster(testSnapshot({ nodes, services, endpointSlices: slices }));
    const prepared = prepareAnalysis(index);
    const result = analyzeCluster(index);
    expect(result.services).toHaveLength(300);
    expect(result.cluster.summary.hintsExpectedOn).toBe(150);
    expect(analyzeServiceIn(prepared, 'ns-2', 'svc-2')?.expected.hintsEnabled).toBe(true);
  });
});

describe("analyzeCluster: the cluster's zone traffic", () => {
  const FLOWS_METRIC = 'beyla_network_flow_bytes_total';
  function measuredWeb(matrix: Record<string, Record<string, number>>): MeasuredTraffic {
    const gbPerMonth = Object.values(matrix).reduce((sum, row) => sum + Object.values(row).reduce((a, b) => a + b, 0), 0);
    return {
      window: '7d',
      measuredAt: '2026-12-01T12:00:00Z',
      byService: new Map([['default/web', { kind: 'measured-flows', metric: FLOWS_METRIC, gbPerMonth, matrix }]]),
      interZoneGbPerMonth: null,
      flowZones: 'labelled',
      reconciliation: null,
      quality: { seriesRead: 9, invalidSamples: 0, unknownZoneBytesPerSecond: 0, unattributedBytesPerSecond: 0, notes: [] },
    };
  }

  it('sums every Service: volume per ready endpoint, cost now / after the sync / best, and the Services that cost most', () => {
    const result = analyzeCluster(publicCases());
    const { traffic } = result;
    // web 11 + api 9 + two 2 ready endpoints, 50 GB each.
    expect(result.services.map((s) => [s.name, s.traffic.volume.gbPerMonth])).toEqual([['api', 450], ['two', 100], ['web', 550]]);
    expect(traffic.totals.now.gbPerMonth).toBe(1100);
    const perService = result.services.reduce((sum, s) => sum + s.traffic.monthlyCost.now.monthlyCost, 0);
    expect(traffic.totals.now.monthlyCost).toBeCloseTo(perService, 9);
    // api's hints arrive with the next sync: 2/3 → 2/9 of its 450 GB crosses zones.
    expect(traffic.saving.expected).toBeCloseTo(450 * (2 / 3 - 2 / 9) * 0.02, 9);
    // By dollars: web (550 GB, 2/3 cross-zone, hints off until it has one more endpoint), then api, then two.
    expect(traffic.topByCost.map((r) => [r.name, r.fix])).toEqual([
      ['web', 'Add 1 ready endpoint, to 12 (fewest donations with 1 in zone-c)'],
      ['api', null],
      ['two', 'Add 1 ready endpoint, to 3 (fewest donations with 1 in zone-c)'],
    ]);
    expect(traffic.topByCost[1]).toMatchObject({ crossZoneGbPerMonth: expect.closeTo(300, 9), monthlyCost: expect.closeTo(6, 9), bestScenario: 'expected', bestMonthlyCost: expect.closeTo(2, 9) });
    expect(traffic.zones).toEqual(['zone-a', 'zone-b', 'zone-c']);
    expect(traffic.sources.assumed).toEqual({ services: 3, gbPerMonth: 1100 });
    expect(traffic.sourceNotes).toEqual(["Assumed: 3 Services at 50 GB per ready endpoint per month — set ZONESCOPE_GB_PER_ENDPOINT, or a Service's own volume in ZONESCOPE_TRAFFIC_VOLUMES"]);
    expect(result.assumptions).toContain('Traffic volume per Service: 50 GB per ready endpoint per month, assumed.');
    expect(result.assumptions).toContain(`Cross-zone transfer: ${ASSUMED_AWS_PRICING.note}`);
    // web's smallest fix (one more endpoint) is verified and priced: it heads the savings.
    expect(traffic.topBySaving[0]).toMatchObject({ name: 'web', bestScenario: 'fix', fixSaving: expect.any(Number) });
    expect(traffic.topBySaving[0]?.fixSaving).toBeGreaterThan(0);
    expect(result.services.find((s) => s.name === 'web')?.fixes[0]).toMatchObject({ primary: true, after: { crossZoneFraction: expect.any(Number) }, monthlySaving: traffic.topBySaving[0]?.fixSaving });
    expect(serviceFlowsOf(result).map((f) => [f.name, f.readyEndpoints])).toEqual([['api', 9], ['two', 2], ['web', 11]]);
    // The flows recompute the same report with other settings, without another pass.
    expect(clusterTrafficOf(result, defaultVolumeSettings(), null).report).toEqual(traffic);
    expect(JSON.parse(JSON.stringify(traffic))).toEqual(traffic);
  });

  it('options: GB per ready endpoint, per-Service volumes, the flat volume and the price', () => {
    const result = analyzeCluster(publicCases(), { gbPerEndpoint: 10, volumesByService: { 'default/api': 1000 }, pricePerGb: 0.02 });
    const byName = Object.fromEntries(result.services.map((s) => [s.name, s.traffic]));
    expect(byName.api?.volume.source).toMatchObject({ kind: 'set', label: 'set: 1,000 GB per month for this Service' });
    expect(byName.api?.monthlyCost.now).toMatchObject({ gbPerMonth: 1000, monthlyCost: expect.closeTo(1000 * (2 / 3) * 0.04, 9) });
    expect(byName.web?.volume).toMatchObject({ gbPerMonth: 110, source: { kind: 'assumed' } });
    expect(result.traffic.pricing).toMatchObject({ cloud: 'custom', basis: 'set', unit: 'GB', directions: 2, costPerCrossZoneGb: 0.04 });
    expect(result.assumptions).toContain('Traffic volume per Service: the volume set for 1 Service; otherwise 10 GB per ready endpoint per month, assumed.');
    const flat = analyzeCluster(publicCases(), { gbPerMonth: 1000 });
    expect(flat.services.map((s) => s.traffic.volume.gbPerMonth)).toEqual([1000, 1000, 1000]);
    expect(flat.assumptions).toContain('Traffic volume per Service: 1,000 GB per Service per month (flat), assumed.');
  });

  it('bad option values are named in the assumptions and change nothing', () => {
    const result = analyzeCluster(publicCases(), { gbPerEndpoint: -1, pricePerGb: 500, volumesByService: { api: 5, 'default/web': Number.NaN } });
    expect(result.assumptions).toEqual(
      expect.arrayContaining([
        'Option not used: gbPerEndpoint must be a number from 0 to 1000000000, got -1; ignored.',
        'Option not used: pricePerGb must be a number from 0 to 100, got 500; ignored.',
        'Option not used: volumesByService: "api" is not namespace/name; ignored.',
        'Option not used: volumesByService["default/web"] must be a number of GB from 0 to 1000000000, got NaN; ignored.',
      ]),
    );
    expect(result.traffic).toEqual(analyzeCluster(publicCases()).traffic);
  });

  it('measured flows: the Service volume and its cross-zone share now come from the measurement', () => {
    // The model sends 2/3 of web's traffic across zones (no hints yet); the flows say 40 % does.
    const measured = measuredWeb({ 'zone-a': { 'zone-a': 300, 'zone-b': 200 }, 'zone-b': { 'zone-a': 200, 'zone-b': 300 } });
    const result = analyzeCluster(publicCases(), { measured });
    const web = result.services.find((s) => s.name === 'web');
    expect(web?.traffic.volume).toMatchObject({ gbPerMonth: 1000, source: { kind: 'measured-flows', label: `measured: ${FLOWS_METRIC}, rate over 7d`, metric: FLOWS_METRIC, window: '7d' } });
    expect(web?.traffic.monthlyCost.now.crossZoneGbPerMonth).toBeCloseTo(400, 9);
    const row = result.traffic.topByCost.find((r) => r.name === 'web');
    expect(row).toMatchObject({ crossZoneFraction: 0.4, monthlyCost: expect.closeTo(8, 9) });
    expect(row?.predictedCrossZoneFraction).toBeCloseTo(2 / 3, 9);
    // zone-a → zone-b: web's measured 200 GB, plus the model's share of api (1/3 of clients × 2/9 endpoints) and two (1/3 × 1/2).
    expect(result.traffic.flows.now['zone-a']?.['zone-b']).toBeCloseTo(200 + 450 * (1 / 3) * (2 / 9) + 100 * (1 / 3) * 0.5, 6);
    expect(result.traffic.sourceNotes[0]).toBe(`Measured: 1 Service from ${FLOWS_METRIC} (rate over 7d × 30 days)`);
    expect(result.assumptions).toContain('Traffic volume per Service: measured rates over 7d × 30 days (evaluated 2026-12-01T12:00:00Z); otherwise 50 GB per ready endpoint per month, assumed.');
  });

  it('with a cache: new volume options or a new measurement re-analyse every Service; the same ones reuse them', () => {
    const index = publicCases();
    const first = withAnalysisCache(prepareAnalysis(index), new AnalysisCache());
    analyzeClusterIn(first);
    const same = prepareAnalysis(index, {}, first);
    analyzeClusterIn(same);
    expect(same.cache?.lastRun).toMatchObject({ computed: 0, reused: 3 });
    const perEndpoint = prepareAnalysis(index, { gbPerEndpoint: 10 }, same);
    const result = analyzeClusterIn(perEndpoint);
    expect(perEndpoint.cache?.lastRun).toMatchObject({ computed: 3, full: true });
    expect(result.services.map((s) => s.traffic.volume.gbPerMonth)).toEqual([90, 20, 110]);
    const measured = measuredWeb({ 'zone-a': { 'zone-a': 10 } });
    const withMeasured = prepareAnalysis(index, { gbPerEndpoint: 10, measured }, perEndpoint);
    expect(analyzeClusterIn(withMeasured).services.find((s) => s.name === 'web')?.traffic.volume.source.kind).toBe('measured-flows');
    expect(withMeasured.cache?.lastRun).toMatchObject({ computed: 3, full: true });
    const next = prepareAnalysis(index, { gbPerEndpoint: 10, measured: measuredWeb({ 'zone-a': { 'zone-a': 20 } }) }, withMeasured);
    expect(analyzeClusterIn(next).services.find((s) => s.name === 'web')?.traffic.volume.gbPerMonth).toBe(20);
    expect(next.cache?.lastRun).toMatchObject({ full: true });
  });

  it('with a cache: a pass that changed nothing keeps the traffic block; a changed EndpointSlice recomputes it', () => {
    const snapshot = publicCases().snapshot;
    const first = withAnalysisCache(prepareAnalysis(indexCluster(snapshot)), new AnalysisCache());
    const before = analyzeClusterIn(first).traffic;
    const same = prepareAnalysis(indexCluster({ ...snapshot }), {}, first);
    expect(analyzeClusterIn(same).traffic).toBe(before);
    // web loses 3 of its 11 endpoints: 150 GB less assumed traffic.
    const slices = snapshot.endpointSlices.map((slice) => (slice.name.startsWith('web') ? { ...slice, resourceVersion: '2', endpoints: slice.endpoints.slice(3) } : slice));
    const changed = prepareAnalysis(indexCluster({ ...snapshot, endpointSlices: slices }), {}, same);
    const after = analyzeClusterIn(changed).traffic;
    expect(changed.cache?.lastRun).toMatchObject({ computed: 1 });
    expect(after.totals.now.gbPerMonth).toBe(before.totals.now.gbPerMonth - 150);
    expect(after).toEqual(analyzeCluster(indexCluster({ ...snapshot, endpointSlices: slices })).traffic);
  });
});

describe('the annotation fix in a cluster pass', () => {
  it('its traffic after is the fixed state modelled on its own: the Auto run\'s slices with the Auto annotation', () => {
    // No annotation; Auto would turn hints on with zone-a donating one endpoint to zone-c.
    const service = testService('api');
    const slice = testSlice('api', testEndpoints({ 'zone-a': 4, 'zone-b': 3, 'zone-c': 2 }));
    // A second Service of the same shape takes the shape's Auto run, kept without its slices.
    const twin = testService('api-twin');
    const twinSlice = testSlice('api-twin', testEndpoints({ 'zone-a': 4, 'zone-b': 3, 'zone-c': 2 }, { service: 'api-twin' }));
    const index = testCluster({ services: [service, twin], endpointSlices: [slice, twinSlice] });
    const prepared = withAnalysisCache(prepareAnalysis(index), new AnalysisCache());
    const analysis = analyzeClusterIn(prepared);
    const report = analysis.services[0];
    const [fix] = report?.fixes ?? [];
    expect(fix).toMatchObject({ kind: 'set-annotation', primary: true });

    // The fixed state, modelled here from scratch: the engine with Auto, then kube-proxy's selection.
    const { context } = prepared;
    const auto = runHintsEngine({
      serviceKey: 'default/api',
      annotations: AUTO,
      trafficDistribution: null,
      addressType: 'IPv4',
      unchanged: [slice],
      cpuRatiosByZone: context.cpuRatiosByZone,
      minor: context.release.minor,
      gates: context.gates,
      topologyCacheEnabled: context.topologyCacheEnabled,
    });
    expect(auto.hintsEnabled).toBe(true);
    const figures = computeTrafficFigures({
      endpoints: toTrafficEndpoints(auto.slices, context.nodeZoneByName),
      service: proxyServicePort(service, AUTO, context),
      release: context.proxyRelease,
      clients: prepared.clients,
      honoursHints: prepared.dataplane.honoursHints,
      proxied: true,
    });
    expect(figures.crossZoneFraction).toBeGreaterThan(0);
    expect(fix?.after?.crossZoneFraction).toBe(figures.crossZoneFraction);
    expect(fix?.after?.droppedFraction).toBe(figures.droppedFraction);
    // The cluster-wide figures read the same matrix.
    expect(fixAfterMatrix(fix as Fix)).toEqual(figures.matrix);
    expect(report?.traffic.crossZoneFractionIfAuto).toBe(figures.crossZoneFraction);
    // Its donated endpoints, counted on the fixed state.
    const donated = auto.slices.flatMap((s) => s.endpoints).filter((e) => e.ready === true && e.zone !== null && !(e.hints?.forZones ?? []).includes(e.zone)).length;
    expect(donated).toBe(1);
    expect(fix?.donatedAfter).toBe(donated);
    // The twin gets the same fix (named for itself).
    const [twinFix] = analysis.services[1]?.fixes ?? [];
    expect(analysis.services[1]?.name).toBe('api-twin');
    expect(twinFix).toMatchObject({ kind: 'set-annotation', donatedAfter: donated, after: fix?.after, monthlySaving: fix?.monthlySaving });
    expect(twinFix?.commands).toEqual(['kubectl annotate service api-twin -n default service.kubernetes.io/topology-mode=Auto --overwrite']);
  });
});
