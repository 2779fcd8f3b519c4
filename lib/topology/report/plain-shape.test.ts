import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import type { ClusterAnalysisOptions } from './prepared-analysis';
import { prepareAnalysis } from './prepared-analysis';
import type { HintsAndTraffic, TrafficCommon } from './service-computation';
import { hintsAndTraffic, plainHintsAndTraffic } from './service-computation';
import { AnalysisCache } from './analysis-cache';
import { analyzeClusterIn } from './cluster-analysis';
import { withAnalysisCache } from './prepared-analysis';
import type { EndpointSliceRecord, ServiceRecord } from '../model/cluster-model';
import { indexCluster } from '../model/cluster-model';
import { testNode, testService, testSlice, testSnapshot } from '../model/test-cluster';
import type { Endpoint } from '../upstream/types';

// Uneven zones (CPU 12 / 4 / 2 / 6): most small Services cannot be allocated, larger ones donate.
const NODES = [
  testNode('node-a-1', 'zone-a', '8'),
  testNode('node-a-2', 'zone-a'),
  testNode('node-b-1', 'zone-b'),
  testNode('node-c-1', 'zone-c', '2'),
  testNode('node-d-1', 'zone-d', '6'),
];
const ZONES = ['zone-a', 'zone-b', 'zone-c', 'zone-d'];

const endpointArb = fc.record({
  // Roughly in proportion to the zones' CPU (so the Auto heuristic can often allocate), sometimes without a zone.
  zone: fc.constantFrom<string | null>('zone-a', 'zone-a', 'zone-a', 'zone-a', 'zone-a', 'zone-a', 'zone-b', 'zone-b', 'zone-c', 'zone-d', 'zone-d', 'zone-d'),
  zoneless: fc.constantFrom<string | null | false>(false, false, false, false, false, false, false, false, false, false, false, null, ''),
  node: fc.constantFrom<string | null>('node-a-1', 'node-b-1', 'node-c-1', 'node-d-1', 'node-gone', null),
  ready: fc.constantFrom<boolean | null>(true, true, true, true, false, null),
  serving: fc.constantFrom<boolean | null | undefined>(true, true, false, null, undefined),
  terminating: fc.constantFrom<boolean | null | undefined>(false, false, true, undefined),
});

const serviceArb = fc.record({
  annotations: fc.constantFrom<Record<string, string>>(
    {},
    {},
    { 'meta.helm.sh/release-name': 'web' },
    { 'service.kubernetes.io/topology-mode': 'Disabled' },
    { 'service.kubernetes.io/topology-mode': 'Auto' },
    { 'service.kubernetes.io/topology-aware-hints': 'disabled' },
  ),
  type: fc.constantFrom<ServiceRecord['type']>('ClusterIP', 'ClusterIP', 'NodePort', 'LoadBalancer'),
  headless: fc.boolean(),
  externalTrafficPolicy: fc.constantFrom<ServiceRecord['externalTrafficPolicy']>(null, 'Cluster', 'Local'),
  internalTrafficPolicy: fc.constantFrom<ServiceRecord['internalTrafficPolicy']>('Cluster', 'Cluster', 'Local'),
  trafficDistribution: fc.constantFrom<string | null>(null, null, null, 'PreferClose'),
  ipv6: fc.boolean(),
  // Small (up to 8 endpoints) or larger (16–80), over one to three slices; some slices only hold endpoints that are not ready.
  endpoints: fc.oneof(fc.array(endpointArb, { maxLength: 8 }), fc.array(endpointArb, { minLength: 16, maxLength: 80 })),
  slices: fc.integer({ min: 1, max: 3 }),
  notReadySlice: fc.boolean(),
  hinted: fc.constantFrom(false, false, false, false, true),
  zoneless: fc.constantFrom(false, false, false, true),
  foreign: fc.constantFrom(false, false, false, false, true),
});

type ServiceCase = typeof serviceArb extends fc.Arbitrary<infer T> ? T : never;

function build(cases: readonly ServiceCase[]): { services: ServiceRecord[]; slices: EndpointSliceRecord[] } {
  const services: ServiceRecord[] = [];
  const slices: EndpointSliceRecord[] = [];
  cases.forEach((c, s) => {
    const name = `svc-${s}`;
    const family = c.ipv6 ? 'IPv6' : 'IPv4';
    services.push(
      testService(name, {
        annotations: c.annotations,
        type: c.type,
        clusterIP: c.headless && c.type === 'ClusterIP' ? 'None' : '10.96.0.10',
        externalTrafficPolicy: c.type === 'ClusterIP' ? null : (c.externalTrafficPolicy ?? 'Cluster'),
        internalTrafficPolicy: c.internalTrafficPolicy,
        trafficDistribution: c.trafficDistribution,
        ipFamilies: [family],
      }),
    );
    const endpoints: Endpoint[] = c.endpoints.map((e, i) => ({
      addresses: [c.ipv6 ? `fd00::${s.toString(16)}:${i.toString(16)}` : `10.${s}.${i >> 8}.${i & 255}`],
      zone: c.zoneless && e.zoneless !== false ? e.zoneless : e.zone,
      nodeName: e.node,
      ready: e.ready,
      serving: e.serving,
      terminating: e.terminating,
      hints: c.hinted && i === 0 ? { forZones: ['zone-a'] } : null,
      podName: `${name}-${i}`,
    }));
    const lists: Endpoint[][] = Array.from({ length: c.slices }, () => []);
    endpoints.forEach((endpoint, i) => (lists[i % c.slices] as Endpoint[]).push(endpoint));
    if (c.notReadySlice) lists.unshift(endpoints.filter((e) => e.ready !== true).map((e) => ({ ...e, addresses: [`${e.addresses[0] as string}0`] })));
    lists.forEach((list, i) =>
      slices.push(testSlice(name, list, { name: `${name}-${i}`, addressType: family, managedBy: c.foreign && i === 0 ? 'mesh.example.com/controller' : 'endpointslice-controller.k8s.io' })),
    );
  });
  return { services, slices };
}

/** The reference's result as the lean path keeps it (the if-Auto slices are only read to group their endpoints). */
function kept(core: HintsAndTraffic<TrafficCommon>) {
  return {
    analysis: core.analysis,
    expectedSummary: core.expectedSummary,
    diffSummary: core.diffSummary,
    traffic: core.traffic,
    autoState: core.autoState,
    ifAutoResult: { ...core.slices.ifAutoResult, slices: [] },
    addressType: core.slices.addressType,
    observed: core.slices.observed.map((slice) => slice.name),
    managed: core.slices.managed.map((slice) => (slice as EndpointSliceRecord).name),
  };
}

/** What the comparisons reached: Services on the lean path, those whose Auto run turns hints on, and those that also donate. */
const reached = { enabled: 0, donating: 0, unchangedFirst: 0 };

function compare(minor: number, cases: readonly ServiceCase[], options: ClusterAnalysisOptions = {}): { lean: number; total: number } {
  const { services, slices } = build(cases);
  const index = indexCluster(testSnapshot({ version: { gitVersion: `v1.${minor}.3`, minor, platform: null }, nodes: NODES, services, endpointSlices: slices }));
  const prepared = prepareAnalysis(index, options);
  let lean = 0;
  for (const service of services) {
    const own = index.slicesByService.get(`${service.namespace}/${service.name}`) ?? [];
    const plain = plainHintsAndTraffic(prepared, service, own);
    if (plain === null) continue;
    lean++;
    if (plain.slices.ifAutoResult.hintsEnabled) reached.enabled++;
    if (plain.analysis.ifAuto.donatedEndpoints > 0) reached.donating++;
    if (plain.slices.ifAutoResult.hintsEnabled && own[0]?.endpoints.every((e) => e.ready !== true)) reached.unchangedFirst++;
    const reference = hintsAndTraffic(prepared, service, own, false);
    // JSON text: the same digits, the same key order (the cluster flows add rows in that order).
    expect(JSON.stringify(kept(plain))).toBe(JSON.stringify(kept(reference)));
    expect(kept(plain)).toEqual(kept(reference));
  }
  return { lean, total: services.length };
}

describe('plainHintsAndTraffic: the cluster pass\'s lean path for Services nothing asks hints for', () => {
  it('gives the reference path\'s hints, traffic figures and Auto state on every release that takes it', () => {
    let lean = 0;
    let total = 0;
    fc.assert(
      fc.property(fc.constantFrom(26, 29, 30, 31, 33, 35), fc.array(serviceArb, { minLength: 1, maxLength: 12 }), (minor, cases) => {
        const counted = compare(minor, cases);
        lean += counted.lean;
        total += counted.total;
      }),
      { numRuns: 150, seed: 7 },
    );
    // The lean path is the common one, not a corner that the comparison never reaches.
    expect(lean).toBeGreaterThan(total / 8);
    // Runs that turn hints on, donate endpoints, and leave a slice without ready endpoints unchanged ahead of the rewritten ones.
    expect(reached.enabled).toBeGreaterThan(20);
    expect(reached.donating).toBeGreaterThan(10);
    expect(reached.unchangedFirst).toBeGreaterThan(3);
  });

  it('holds with per-zone client shares that leave a zone without traffic', () => {
    fc.assert(
      fc.property(fc.array(serviceArb, { minLength: 1, maxLength: 8 }), (cases) => {
        compare(33, cases, { trafficByZone: { 'zone-a': 0.7, 'zone-b': 0.3, 'zone-c': 0, 'zone-d': 0 } });
      }),
      { numRuns: 40 },
    );
  });

  it('declines what it does not model: hints present, an annotation asking for them, foreign slices, releases before 1.26', () => {
    const endpoints: Endpoint[] = ZONES.flatMap((zone, z) => [1, 2, 3].map((n) => ({ addresses: [`10.1.${z}.${n}`], zone, nodeName: null, ready: true, hints: null })));
    const service = testService('web');
    const cluster = (minor: number, svc: ServiceRecord, list: readonly Endpoint[], managedBy = 'endpointslice-controller.k8s.io') => {
      const slices = [testSlice('web', list, { managedBy })];
      const index = indexCluster(testSnapshot({ version: { gitVersion: `v1.${minor}.0`, minor, platform: null }, nodes: NODES, services: [svc], endpointSlices: slices }));
      return plainHintsAndTraffic(prepareAnalysis(index), svc, slices);
    };
    expect(cluster(33, service, endpoints)).not.toBeNull();
    expect(cluster(33, service, endpoints.map((e, i) => (i === 0 ? { ...e, hints: { forZones: ['zone-a'] } } : e)))).toBeNull();
    expect(cluster(33, testService('web', { annotations: { 'service.kubernetes.io/topology-mode': 'Auto' } }), endpoints)).toBeNull();
    expect(cluster(33, testService('web', { trafficDistribution: 'PreferClose' }), endpoints)).toBeNull();
    expect(cluster(33, service, endpoints, 'mesh.example.com/controller')).toBeNull();
    expect(cluster(25, service, endpoints)).toBeNull();
  });

  it('leaves the cluster pass as it was: the same analysis JSON as the reference path for every Service', () => {
    const cases = fc.sample(serviceArb, { numRuns: 200, seed: 42 });
    const { services, slices } = build(cases);
    const index = indexCluster(testSnapshot({ version: { gitVersion: 'v1.31.4', minor: 31, platform: null }, nodes: NODES, services, endpointSlices: slices }));
    const analysis = analyzeClusterIn(withAnalysisCache(prepareAnalysis(index), new AnalysisCache()));
    const reports = new Map(analysis.services.map((report) => [report.name, JSON.parse(JSON.stringify(report)) as unknown]));
    const prepared = prepareAnalysis(index);
    let compared = 0;
    for (const service of services) {
      const own = index.slicesByService.get(`default/${service.name}`) ?? [];
      if (plainHintsAndTraffic(prepared, service, own) === null) continue;
      compared++;
      const reference = hintsAndTraffic(prepared, service, own, false);
      const report = reports.get(service.name) as { observed: unknown; expected: unknown; ifAuto: unknown; diff: unknown; traffic: { crossZoneFraction: number; crossZoneFractionIfAuto: number } };
      const { donated: _donated, ...expected } = reference.analysis.expected;
      const { entries: _entries, ...diff } = reference.analysis.diff;
      expect(report.observed).toEqual(JSON.parse(JSON.stringify(reference.analysis.observed)));
      expect(report.expected).toEqual(JSON.parse(JSON.stringify(expected)));
      expect(report.diff).toEqual(diff);
      expect(report.ifAuto).toEqual(JSON.parse(JSON.stringify(reference.analysis.ifAuto)));
      expect(report.traffic.crossZoneFraction).toBe(reference.traffic.now.crossZoneFraction);
      expect(report.traffic.crossZoneFractionIfAuto).toBe(reference.traffic.ifAuto.crossZoneFraction);
    }
    expect(compared).toBeGreaterThan(services.length / 4);
  });
});
