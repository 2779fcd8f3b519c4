import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import { AnalysisCache } from './analysis-cache';
import { analyzeClusterIn, serviceFlowsOf } from './cluster-analysis';
import { prepareAnalysis, withAnalysisCache, withoutShapeSharing } from './prepared-analysis';
import type { MeasuredTraffic } from '../analyses/traffic-volume';
import type { EndpointSliceRecord, ServiceRecord } from '../model/cluster-model';
import { indexCluster } from '../model/cluster-model';
import { reportShapeKey } from './report-shape';
import { testEndpoint, testNode, testService, testSlice, testSnapshot } from '../model/test-cluster';
import type { Endpoint } from '../upstream/types';

const NODES = [
  testNode('node-a-1', 'zone-a'),
  testNode('node-a-2', 'zone-a', '8'),
  testNode('node-b-1', 'zone-b'),
  testNode('node-c-1', 'zone-c', '2'),
];
const nodeZoneByName = new Map(NODES.map((n) => [n.name, n.zone] as const));

const endpointArb = fc.record({
  address: fc.integer({ min: 1, max: 9 }),
  zone: fc.constantFrom<string | null>('zone-a', 'zone-a', 'zone-b', 'zone-c', null, ''),
  node: fc.constantFrom<string | null>('node-a-1', 'node-a-2', 'node-b-1', 'node-c-1', 'node-gone', null),
  ready: fc.constantFrom<boolean | null>(true, true, true, false, null),
  serving: fc.constantFrom<boolean | null | undefined>(true, false, null, undefined),
  terminating: fc.constantFrom<boolean | null | undefined>(false, true, undefined),
  hints: fc.constantFrom<Endpoint['hints']>(null, null, { forZones: ['zone-a'] }, { forZones: ['zone-b'] }, { forZones: ['zone-c'] }, { forZones: ['zone-a', 'zone-b'] }, { forZones: [] }, {}, { forNodes: ['node-a-1'] }),
});

const serviceArb = fc.record({
  annotations: fc.constantFrom<Record<string, string>>(
    {},
    {},
    { 'service.kubernetes.io/topology-mode': 'Auto' },
    { 'service.kubernetes.io/topology-mode': 'Disabled' },
    { 'service.kubernetes.io/topology-aware-hints': 'auto' },
    { 'service.kubernetes.io/topology-mode': 'auto' },
    // Annotations only the per-Service parts read (Helm, the deprecated key beside the current one): shapes are shared across them.
    { 'meta.helm.sh/release-name': 'web' },
    { 'meta.helm.sh/release-name': 'api', 'service.kubernetes.io/topology-mode': 'Auto' },
    { 'service.kubernetes.io/topology-mode': 'Auto', 'meta.helm.sh/release-name': 'web', 'service.kubernetes.io/topology-aware-hints': 'auto' },
    { 'service.kubernetes.io/topology-aware-hints': '', 'kubectl.kubernetes.io/last-applied-configuration': '{"kind":"Service"}' },
  ),
  trafficDistribution: fc.constantFrom<string | null>(null, null, 'PreferClose', 'PreferSameZone', 'PreferSameNode'),
  internalTrafficPolicy: fc.constantFrom<'Cluster' | 'Local' | null>('Cluster', null, 'Local'),
  externalTrafficPolicy: fc.constantFrom<'Cluster' | 'Local' | null>(null, 'Cluster', 'Local'),
  type: fc.constantFrom<ServiceRecord['type']>('ClusterIP', 'ClusterIP', 'NodePort', 'LoadBalancer', 'ExternalName'),
  selector: fc.constantFrom<Record<string, string> | null>({ app: 'x' }, { app: 'x' }, null),
  headless: fc.boolean(),
  foreignSlice: fc.boolean(),
  ipv6: fc.boolean(),
  slices: fc.array(fc.array(endpointArb, { maxLength: 6 }), { minLength: 0, maxLength: 3 }),
});

type ArbValue<A> = A extends fc.Arbitrary<infer T> ? T : never;
type EndpointDraw = ArbValue<typeof endpointArb>;
type ServiceDraw = ArbValue<typeof serviceArb>;

/** One field of one endpoint changed: a near miss that a too-coarse shape key would confuse with the original. */
const mutationArb = fc.record({
  slice: fc.nat(),
  endpoint: fc.nat(),
  field: fc.constantFrom('ready', 'serving', 'terminating', 'node', 'zone', 'duplicate', 'hints'),
  service: fc.option(fc.constantFrom('annotations', 'helm', 'type', 'externalTrafficPolicy', 'trafficDistribution', 'selector', 'headless', 'foreignSlice', 'ipFamilies'), { freq: 2 }),
});

function mutate(service: ServiceDraw, mutation: ArbValue<typeof mutationArb>): ServiceDraw {
  switch (mutation.service) {
    case 'annotations':
      return { ...service, annotations: 'service.kubernetes.io/topology-mode' in service.annotations ? {} : { 'service.kubernetes.io/topology-mode': 'Auto' } };
    case 'helm':
      // Same topology keys, other annotations: the same shape, with its own toggle edit.
      return { ...service, annotations: { ...service.annotations, 'meta.helm.sh/release-name': 'other' } };
    case 'type':
      return { ...service, type: service.type === 'ExternalName' ? 'ClusterIP' : 'ExternalName' };
    case 'externalTrafficPolicy':
      return { ...service, type: 'LoadBalancer', externalTrafficPolicy: service.externalTrafficPolicy === 'Local' ? 'Cluster' : 'Local' };
    case 'trafficDistribution':
      return { ...service, trafficDistribution: service.trafficDistribution === null ? 'PreferClose' : null };
    case 'selector':
      return { ...service, selector: service.selector === null ? { app: 'x' } : null };
    case 'headless':
      return { ...service, headless: !service.headless };
    case 'foreignSlice':
      return { ...service, foreignSlice: !service.foreignSlice };
    case 'ipFamilies':
      return { ...service, ipv6: !service.ipv6 };
    default:
      break;
  }
  const nonEmpty = service.slices.map((s, i) => [s, i] as const).filter(([s]) => s.length > 0);
  if (nonEmpty.length === 0) return service;
  const [endpoints, sliceIndex] = nonEmpty[mutation.slice % nonEmpty.length] as (typeof nonEmpty)[number];
  const at = mutation.endpoint % endpoints.length;
  const e = endpoints[at] as EndpointDraw;
  const changed: EndpointDraw = {
    ...e,
    ...(mutation.field === 'ready' ? { ready: e.ready === true ? false : true } : {}),
    ...(mutation.field === 'serving' ? { serving: e.serving === false ? true : false } : {}),
    ...(mutation.field === 'terminating' ? { terminating: e.terminating === true ? false : true } : {}),
    ...(mutation.field === 'node' ? { zone: null, node: e.node === 'node-b-1' ? 'node-c-1' : 'node-b-1' } : {}),
    ...(mutation.field === 'zone' ? { zone: e.zone === 'zone-b' ? 'zone-c' : 'zone-b' } : {}),
    ...(mutation.field === 'duplicate' ? { address: (endpoints[0] as EndpointDraw).address === e.address ? e.address + 1 : (endpoints[0] as EndpointDraw).address } : {}),
    ...(mutation.field === 'hints' ? { hints: e.hints === null ? { forZones: ['zone-c'] } : null } : {}),
  };
  const slices = service.slices.map((s, i) => (i === sliceIndex ? s.map((x, j) => (j === at ? changed : x)) : s));
  return { ...service, slices };
}

/** Services drawn from a small space plus near misses of them, so that shapes repeat and the sharing is exercised. */
const clusterArb = fc
  .record({
    minor: fc.constantFrom(23, 26, 28, 30, 31, 33, 35),
    services: fc.array(serviceArb, { minLength: 1, maxLength: 10 }),
    mutations: fc.array(fc.tuple(fc.nat(), mutationArb), { maxLength: 10 }),
    copies: fc.integer({ min: 1, max: 3 }),
  })
  .map(({ minor, services, mutations, copies }) => ({
    minor,
    copies,
    services: [...services, ...mutations.map(([of, mutation]) => mutate(services[of % services.length] as ServiceDraw, mutation))],
  }));

function build(cluster: { minor: number; services: ServiceDraw[]; copies: number }) {
  const services: ServiceRecord[] = [];
  const slices: EndpointSliceRecord[] = [];
  for (let copy = 0; copy < cluster.copies; copy++) {
    cluster.services.forEach((s, i) => {
      const name = `svc-${i}-${copy}`;
      services.push(
        testService(name, {
          annotations: s.annotations,
          trafficDistribution: s.trafficDistribution,
          internalTrafficPolicy: s.internalTrafficPolicy,
          externalTrafficPolicy: s.externalTrafficPolicy,
          type: s.type,
          selector: s.selector,
          clusterIP: s.headless ? 'None' : `10.96.${copy}.${i + 1}`,
          ipFamilies: s.ipv6 ? ['IPv6', 'IPv4'] : ['IPv4'],
        }),
      );
      s.slices.forEach((endpoints, j) => {
        // Every copy gets its own addresses and pods (same shape, other identities).
        const list = endpoints.map((e) =>
          testEndpoint(`10.${copy + 1}.${i}.${e.address}`, e.zone, e.hints, {
            nodeName: e.node,
            ready: e.ready,
            podName: `${name}-pod-${e.address}`,
            ...(e.serving !== undefined ? { serving: e.serving } : {}),
            ...(e.terminating !== undefined ? { terminating: e.terminating } : {}),
          }),
        );
        const foreign = s.foreignSlice && j === 0;
        const addressType = s.ipv6 && j === 1 ? 'IPv6' : 'IPv4';
        slices.push(testSlice(name, list, { name: `${name}-${j}`, addressType, ...(foreign ? { managedBy: 'example.com/other-controller' } : {}) }));
      });
    });
  }
  const gitVersion = `v1.${cluster.minor}.1`;
  return indexCluster(testSnapshot({ version: { gitVersion, minor: cluster.minor, platform: null }, nodes: NODES, services, endpointSlices: slices }));
}

describe('sharing reports between Services of the same shape', () => {
  it('gives every Service exactly the report it gets when analysed on its own', () => {
    fc.assert(
      fc.property(clusterArb, (cluster) => {
        const index = build(cluster);
        const shared = analyzeClusterIn(prepareAnalysis(index));
        const alone = analyzeClusterIn(withoutShapeSharing(prepareAnalysis(index)));
        expect(JSON.parse(JSON.stringify(shared))).toEqual(JSON.parse(JSON.stringify(alone)));
        // The dashboard's pass (cached: HPA, workload and fixes read when first asked for) writes the same JSON, key for key.
        const cached = analyzeClusterIn(withAnalysisCache(prepareAnalysis(index), new AnalysisCache()));
        expect(JSON.stringify(cached)).toBe(JSON.stringify(alone));
        // Every Service's primary fix as the cluster traffic rows name it, not only the listed ones.
        const fixes = (analysis: typeof alone) => serviceFlowsOf(analysis).map((flow) => [flow.fix, flow.fixAfter?.crossZoneFraction ?? null]);
        expect(fixes(cached)).toEqual(fixes(alone));
      }),
      { numRuns: 300, seed: 20261130 },
    );
    // 300 whole-cluster analyses twice: about 2–8 s on 2 cores, several times that when the machine is busy.
  }, 60_000);

  it("keeps each Service's own annotations in the toggle's edit, in the dashboard's pass as in the analyze command's", () => {
    const endpoints = ['zone-a', 'zone-a', 'zone-b', 'zone-b', 'zone-c', 'zone-c'].map((zone, i) => testEndpoint(`10.0.0.${i + 1}`, zone));
    // One shape, two Helm releases: the edit the toggle would make differs by the release annotations.
    const index = indexCluster(
      testSnapshot({
        services: ['first', 'second'].map((name) => testService(name, { annotations: { 'meta.helm.sh/release-name': `${name}-release` } })),
        endpointSlices: ['first', 'second'].map((name) => testSlice(name, endpoints)),
      }),
    );
    for (const prepared of [prepareAnalysis(index), withAnalysisCache(prepareAnalysis(index), new AnalysisCache())]) {
      const [first, second] = analyzeClusterIn(prepared).services;
      expect(first?.ifAuto.change.annotations).toEqual({ 'meta.helm.sh/release-name': 'first-release', 'service.kubernetes.io/topology-mode': 'Auto' });
      expect(second?.ifAuto.change.annotations).toEqual({ 'meta.helm.sh/release-name': 'second-release', 'service.kubernetes.io/topology-mode': 'Auto' });
      expect(second?.ifAuto.hintsEnabled).toBe(first?.ifAuto.hintsEnabled);
    }
  });

  it('keeps Service-specific text (fix commands) per Service', () => {
    const endpoints = ['zone-a', 'zone-a', 'zone-b', 'zone-b', 'zone-c', 'zone-c'].map((zone, i) => testEndpoint(`10.0.0.${i + 1}`, zone));
    const index = indexCluster(
      testSnapshot({
        services: ['first', 'second'].map((name) => testService(name)),
        endpointSlices: ['first', 'second'].map((name) => testSlice(name, endpoints)),
      }),
    );
    const reports = analyzeClusterIn(prepareAnalysis(index)).services;
    const commands = reports.map((r) => JSON.stringify([r.lints, r.fixes]));
    expect(commands[0]).toContain('first');
    expect(commands[0]).not.toContain('second');
    expect(commands[1]).toContain('second');
    expect(commands[1]).not.toContain('first');
  });

  it("a fix that names the nodes of zone-less endpoints is each Service's own, though their shapes are alike", () => {
    // Endpoints on nodes the cluster does not list have no zone: Auto fails, and the fix is to label those nodes.
    const endpointsOn = (node: string) => [
      ...['zone-a', 'zone-a', 'zone-b', 'zone-b', 'zone-c', 'zone-c'].map((zone, i) => testEndpoint(`10.0.0.${i + 1}`, zone)),
      testEndpoint('10.0.0.9', null, null, { nodeName: node }),
    ];
    const index = indexCluster(
      testSnapshot({
        services: ['first', 'second'].map((name) => testService(name)),
        endpointSlices: [testSlice('first', endpointsOn('gone-1')), testSlice('second', endpointsOn('gone-2'))],
      }),
    );
    const nodeZones = prepareAnalysis(index).context.nodeZoneByName;
    const [first, second] = ['first', 'second'].map((name) => reportShapeKey(testService(name), index.slicesByService.get(`default/${name}`) ?? [], nodeZones));
    expect(first).toBe(second);
    for (const prepared of [prepareAnalysis(index), withAnalysisCache(prepareAnalysis(index), new AnalysisCache())]) {
      const analysis = analyzeClusterIn(prepared);
      expect(serviceFlowsOf(analysis).map((flow) => flow.fix)).toEqual(['Give gone-1 a zone label', 'Give gone-2 a zone label']);
      expect(analysis.services.map((report) => report.fixes[0]?.title)).toEqual(['Give gone-1 a zone label', 'Give gone-2 a zone label']);
    }
  });

  it('Services of one shape are each priced at their own volume: assumed, set or measured', () => {
    const endpoints = ['zone-a', 'zone-a', 'zone-b', 'zone-c'].map((zone, i) => testEndpoint(`10.0.0.${i + 1}`, zone));
    const names = ['assumed', 'also-assumed', 'set', 'measured'];
    const index = indexCluster(testSnapshot({ services: names.map((name) => testService(name)), endpointSlices: names.map((name) => testSlice(name, endpoints)) }));
    const measured: MeasuredTraffic = {
      window: '7d',
      measuredAt: '2026-12-05T12:00:00Z',
      byService: new Map([['default/measured', { kind: 'measured-flows', metric: 'beyla_network_flow_bytes_total', gbPerMonth: 300, matrix: { 'zone-a': { 'zone-a': 100, 'zone-b': 100 }, 'zone-b': { 'zone-b': 100 } } }]]),
      interZoneGbPerMonth: null,
      flowZones: 'labelled',
      reconciliation: null,
      quality: { seriesRead: 3, invalidSamples: 0, unknownZoneBytesPerSecond: 0, unattributedBytesPerSecond: 0, notes: [] },
    };
    const options = { measured, volumesByService: { 'default/set': 1000 } };
    const costs = (analysis: ReturnType<typeof analyzeClusterIn>) => Object.fromEntries(analysis.services.map((r) => [r.name, [r.traffic.volume.gbPerMonth, r.traffic.monthlyCost.now.crossZoneGbPerMonth]]));
    const shared = analyzeClusterIn(withAnalysisCache(prepareAnalysis(index, options), new AnalysisCache()));
    // 4 ready endpoints × 50 GB, 2/3 across zones (no hints); 1,000 GB set, 2/3 across; measured: 100 of 300 GB across.
    expect(costs(shared)).toEqual({ assumed: [200, expect.closeTo(400 / 3, 9)], 'also-assumed': [200, expect.closeTo(400 / 3, 9)], set: [1000, expect.closeTo(2000 / 3, 9)], measured: [300, 100] });
    expect(JSON.stringify(shared)).toBe(JSON.stringify(analyzeClusterIn(withoutShapeSharing(prepareAnalysis(index, options)))));
  });

  it('declines Services whose figures depend on node identity', () => {
    const slice = testSlice('s', [testEndpoint('10.0.0.1', 'zone-a')]);
    expect(reportShapeKey(testService('s'), [slice], nodeZoneByName)).not.toBeNull();
    expect(reportShapeKey(testService('s', { internalTrafficPolicy: 'Local' }), [slice], nodeZoneByName)).toBeNull();
    expect(reportShapeKey(testService('s', { trafficDistribution: 'PreferSameNode' }), [slice], nodeZoneByName)).toBeNull();
    const nodeHinted = testSlice('s', [testEndpoint('10.0.0.1', 'zone-a', { forZones: ['zone-a'], forNodes: ['node-a-1'] })]);
    expect(reportShapeKey(testService('s'), [nodeHinted], nodeZoneByName)).toBeNull();
  });

  it('tells apart shapes that differ only in order, duplicates or a zone resolved through the node', () => {
    const a = testEndpoint('10.0.0.1', 'zone-a');
    const b = testEndpoint('10.0.0.2', 'zone-b');
    const key = (...endpoints: Endpoint[]) => reportShapeKey(testService('s'), [testSlice('s', endpoints)], nodeZoneByName);
    expect(key(a, b)).not.toEqual(key(b, a));
    expect(key(a, a)).not.toEqual(key(a, { ...a, addresses: ['10.0.0.9'] }));
    expect(key({ ...a, zone: null, nodeName: 'node-a-1' })).not.toEqual(key({ ...a, zone: null, nodeName: 'node-b-1' }));
    expect(key({ ...a, hints: { forZones: [''] } })).not.toEqual(key({ ...a, hints: { forZones: [] } }));
    expect(key(a, b)).toEqual(key({ ...a, addresses: ['10.9.9.1'], podName: 'other' }, { ...b, addresses: ['10.9.9.2'] }));
    // Large Services (found with a map rather than by scanning) too.
    const many = (prefix: string) => Array.from({ length: 40 }, (_, i) => testEndpoint(`${prefix}.${i}`, i % 2 === 0 ? 'zone-a' : 'zone-b'));
    const repeated = many('10.1.0').map((e, i) => (i === 39 ? { ...e, addresses: ['10.1.0.3'] } : e));
    expect(key(...many('10.1.0'))).toEqual(key(...many('10.2.0')));
    expect(key(...repeated)).not.toEqual(key(...many('10.1.0')));
    expect(key(...repeated)).toEqual(key(...many('10.2.0').map((e, i) => (i === 39 ? { ...e, addresses: ['10.2.0.3'] } : e))));
  });

  it('a Service keeps its key across passes until its slices change, or the node zones its zone-less endpoints resolve through', () => {
    const service = testService('s');
    const zoned = [testSlice('s', [testEndpoint('10.0.0.1', 'zone-a'), testEndpoint('10.0.0.2', 'zone-b')])];
    const zoneless = [testSlice('s', [testEndpoint('10.0.0.1', null, null, { nodeName: 'node-a-1' })])];
    // A node moved to another zone (a new cluster generation's map).
    const moved = new Map([...nodeZoneByName, ['node-a-1', 'zone-b']]);
    const first = reportShapeKey(service, zoned, nodeZoneByName);
    expect(reportShapeKey(service, [...zoned], moved)).toBe(first);
    expect(reportShapeKey(service, zoneless, nodeZoneByName)).not.toBe(first);
    expect(reportShapeKey(service, zoneless, moved)).not.toBe(reportShapeKey(service, zoneless, nodeZoneByName));
    expect(reportShapeKey(service, zoneless, moved)).toBe(reportShapeKey(testService('s'), zoneless, moved));
    expect(reportShapeKey(service, zoned, nodeZoneByName)).toBe(first);
  });
});
