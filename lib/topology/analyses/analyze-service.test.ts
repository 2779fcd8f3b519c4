import { describe, expect, it } from 'vitest';

import { analyzeDataplane } from './analyze-dataplane';
import { analyzeServiceHints, serviceLints } from './analyze-service';
import { determineMechanism, lintService } from './service-mechanism';
import { sharedMechanism } from './shared-values';
import type { AnalysisOptions } from '../model/analysis-options';
import { buildClusterContext } from '../model/cluster-context';
import type { ClusterSnapshot, EndpointSliceRecord, ServiceRecord } from '../model/cluster-model';
import { testCluster, testEndpoints, testNode, testService, testSlice, testZoneNodes } from '../model/test-cluster';

const AUTO = { 'service.kubernetes.io/topology-mode': 'Auto' };

function analyze(service: ServiceRecord, slices: EndpointSliceRecord[], parts: Partial<ClusterSnapshot> = {}, options: AnalysisOptions = {}) {
  const index = testCluster({ services: [service], endpointSlices: slices, ...parts });
  const context = buildClusterContext(index, options);
  const dataplane = analyzeDataplane(index.snapshot.proxy, index.snapshot.cni, context.proxyRelease);
  return analyzeServiceHints(context, dataplane, service, slices);
}

describe('expected hints: the public cases', () => {
  it('three equal zones, 11 endpoints 4/4/3: minimum 4 per zone, 12 > 11, hints off with MinAllocationExceeds…', () => {
    const { analysis } = analyze(testService('web', { annotations: AUTO }), [testSlice('web', testEndpoints({ 'zone-a': 4, 'zone-b': 4, 'zone-c': 3 }))]);
    expect(analysis.mechanism.mechanism).toBe('topology-mode');
    expect(analysis.expected.hintsEnabled).toBe(false);
    expect(analysis.expected.event).toEqual({
      type: 'Warning',
      reason: 'TopologyAwareHintsDisabled',
      message: 'Unable to allocate minimum required endpoints to each zone without exceeding overload threshold (11 endpoints, 3 zones), addressType: IPv4',
    });
    expect(Object.values(analysis.expected.allocationsByZone ?? {}).map((a) => a.minimum)).toEqual([4, 4, 4]);
    expect(analysis.expected.minimumTotal).toBe(12);
    expect(analysis.minimumTable?.sumCheck).toBe('4 + 4 + 4 = 12 > 11 ready endpoints → hints off');
    expect(analysis.minimumTable?.rows[2]).toMatchObject({ zone: 'zone-c', readyEndpoints: 3, minimum: 4, meetsMinimum: false, formula: 'ceil(11 × 0.3333 / 1.2) = ceil(3.0556) = 4' });
    expect(analysis.expected.verdict).toMatch(/^Hints off: Unable to allocate/);
  });

  it('a single node without a zone label turns the Service off: Insufficient Node information', () => {
    const { analysis } = analyze(testService('web', { annotations: AUTO }), [testSlice('web', testEndpoints({ 'zone-a': 3, 'zone-b': 3, 'zone-c': 3 }))], {
      nodes: [...testZoneNodes(), testNode('stray', null)],
    });
    expect(analysis.expected.hintsEnabled).toBe(false);
    expect(analysis.expected.event?.message).toBe('Insufficient Node information: allocatable CPU or zone not specified on one or more nodes, addressType: IPv4');
    expect(analysis.expected.allocationsByZone).toBeNull();
    expect(analysis.minimumTable).toBeNull();
  });

  it('2 endpoints in 3 zones: Insufficient number of endpoints (allocations still shown)', () => {
    const { analysis } = analyze(testService('two', { annotations: AUTO }), [testSlice('two', testEndpoints({ 'zone-a': 1, 'zone-b': 1 }))]);
    expect(analysis.expected.event?.message).toBe('Insufficient number of endpoints (2 endpoints, 3 zones), addressType: IPv4');
    expect(analysis.expected.allocationsByZone).not.toBeNull();
    expect(analysis.minimumTable?.sumCheck).toBe('2 ready endpoints < 3 zones → hints off');
  });

  it('uneven 5/2/2 over three equal zones: on, with 2 endpoints of zone-a donated (one to b, one to c)', () => {
    const { analysis } = analyze(testService('api', { annotations: AUTO }), [testSlice('api', testEndpoints({ 'zone-a': 5, 'zone-b': 2, 'zone-c': 2 }))]);
    expect(analysis.expected.hintsEnabled).toBe(true);
    expect(analysis.expected.event).toEqual({ type: 'Normal', reason: 'TopologyAwareHintsEnabled', message: 'Topology Aware Hints has been enabled, addressType: IPv4' });
    expect(analysis.expected.hintCountsByZone).toEqual({ 'zone-a': 3, 'zone-b': 3, 'zone-c': 3 });
    expect(analysis.expected.donatedEndpoints).toBe(2);
    expect(analysis.expected.donated.map((d) => [d.fromZone, d.toZones])).toEqual([
      ['zone-a', ['zone-b']],
      ['zone-a', ['zone-c']],
    ]);
    expect(analysis.minimumTable?.rows.map((r) => r.meetsMinimum)).toEqual([true, false, false]);
    expect(analysis.endpoints.filter((e) => e.donatedTo !== null).map((e) => e.donatedTo)).toEqual(['zone-b', 'zone-c']);
  });
});

describe('observed vs expected', () => {
  it('slices without hints under Auto: every expected hint is missing', () => {
    const { analysis } = analyze(testService('api', { annotations: AUTO }), [testSlice('api', testEndpoints({ 'zone-a': 3, 'zone-b': 3, 'zone-c': 3 }))]);
    expect(analysis.observed).toMatchObject({ hintsPresent: false, readyEndpoints: 9, hintCountsByZone: {} });
    expect(analysis.diff).toMatchObject({ inSync: false, missing: 9, unexpected: 0, stale: 0 });
  });

  it('hints already as the controller would keep them: in sync, nothing to write', () => {
    const { analysis } = analyze(testService('api', { annotations: AUTO }), [testSlice('api', testEndpoints({ 'zone-a': 3, 'zone-b': 3, 'zone-c': 3 }, { hinted: true }))]);
    expect(analysis.diff.inSync).toBe(true);
    expect(analysis.expected.slicesToWrite).toBe(0);
  });

  it('hints left behind after the annotation is removed are unexpected', () => {
    const { analysis } = analyze(testService('api'), [testSlice('api', testEndpoints({ 'zone-a': 2, 'zone-b': 2, 'zone-c': 2 }, { hinted: true }))]);
    expect(analysis.mechanism.mechanism).toBe('none');
    expect(analysis.diff).toMatchObject({ inSync: false, unexpected: 6 });
  });

  it('observed endpoints per zone count ready and not-ready endpoints, with zone-less ones apart', () => {
    const endpoints = [...testEndpoints({ 'zone-a': 2 }), { addresses: ['9'], zone: null, nodeName: null, ready: false, hints: null }];
    const { analysis } = analyze(testService('x'), [testSlice('x', endpoints)]);
    expect(analysis.observed.endpointsByZone).toEqual({ '(no zone)': { ready: 0, notReady: 1 }, 'zone-a': { ready: 2, notReady: 0 } });
  });
});

describe('if Auto', () => {
  it('a Service without annotation: what enabling topology mode would do', () => {
    const { analysis } = analyze(testService('api'), [testSlice('api', testEndpoints({ 'zone-a': 5, 'zone-b': 2, 'zone-c': 2 }))]);
    expect(analysis.expected.hintsEnabled).toBe(false);
    expect(analysis.ifAuto).toMatchObject({ hintsEnabled: true, donatedEndpoints: 2, change: { set: AUTO, remove: [] } });
  });

  it('before 1.26 no event is recorded, but the reason is still named', () => {
    const { analysis } = analyze(
      testService('web', { annotations: { 'service.kubernetes.io/topology-aware-hints': 'auto' } }),
      [testSlice('web', testEndpoints({ 'zone-a': 4, 'zone-b': 4, 'zone-c': 3 }))],
      { version: { gitVersion: 'v1.25.0', minor: 25, platform: null } },
    );
    expect(analysis.expected.event).toBeNull();
    expect(analysis.expected.reason?.message).toMatch(/^Unable to allocate minimum required endpoints/);
  });
});

describe('address types and slice owners', () => {
  it('dual-stack: each address type is analyzed; the primary is the first IP family', () => {
    const v4 = testSlice('d', testEndpoints({ 'zone-a': 3, 'zone-b': 3, 'zone-c': 3 }));
    const v6 = testSlice('d', testEndpoints({ 'zone-a': 1, 'zone-b': 1 }), { name: 'd-v6', addressType: 'IPv6' });
    const { analysis } = analyze(testService('d', { annotations: AUTO, ipFamilies: ['IPv6', 'IPv4'] }), [v4, v6]);
    expect(analysis.byAddressType.map((a) => [a.addressType, a.expected.hintsEnabled])).toEqual([
      ['IPv6', false],
      ['IPv4', true],
    ]);
    expect(analysis.primaryAddressType).toBe('IPv6');
  });

  it('a Service without selector is not managed by the controller', () => {
    const { analysis } = analyze(testService('m', { selector: null, annotations: AUTO }), [testSlice('m', testEndpoints({ 'zone-a': 3 }), { managedBy: 'staff' })]);
    expect(analysis.expected.applicable).toBe(false);
    expect(analysis.lints.map((l) => l.id)).toEqual(expect.arrayContaining(['no-selector', 'slices-not-managed-by-controller']));
  });
});

describe('Services the EndpointSlice controller does not manage: the verdict says what they are', () => {
  it('ExternalName: a DNS CNAME with no EndpointSlices', () => {
    const { analysis } = analyze(testService('db', { type: 'ExternalName', selector: null, clusterIP: null }), []);
    expect(analysis.expected.applicable).toBe(false);
    expect(analysis.expected.verdict).toBe('ExternalName: a DNS CNAME answered by cluster DNS. kube-proxy does not route it and it has no EndpointSlices, so topology routing does not apply.');
  });

  it.each([
    [[{ managedBy: 'staff.example.com' }], 'No selector: its EndpointSlices are written by endpointslice.kubernetes.io/managed-by: staff.example.com. The EndpointSlice controller does not write hints for it; only that writer can.'],
    [
      [{ managedBy: 'endpointslicemirroring-controller.k8s.io' }],
      'No selector: its EndpointSlices are written by endpointslice.kubernetes.io/managed-by: endpointslicemirroring-controller.k8s.io, mirrored from a hand-written Endpoints object, which has no hints. The EndpointSlice controller does not write hints for it, so topology routing does not apply.',
    ],
    [[], 'No selector: no EndpointSlice exists for it yet. The EndpointSlice controller does not write hints for it; only that writer can.'],
  ])('selector-less with slices %j', (extras, verdict) => {
    const slices = extras.map((extra, i) => testSlice('ext', testEndpoints({ 'zone-a': 1 }), { name: `ext-${i}`, ...extra }));
    expect(analyze(testService('ext', { selector: null }), slices).analysis.expected.verdict).toBe(verdict);
  });
});

describe('serviceLints: kept by Service across contexts', () => {
  it('gives the same lints after a Node change, and new ones when what they read changes', () => {
    const service = testService('web', { annotations: { 'service.kubernetes.io/topology-mode': 'Auto' }, internalTrafficPolicy: 'Local' });
    const slices = [testSlice('web', testEndpoints({ 'zone-a': 1, 'zone-b': 1 }))];
    const nodes = testZoneNodes();
    const before = buildClusterContext(testCluster({ nodes, services: [service], endpointSlices: slices }));
    // One Node gets more CPU: a new context, the same Service record and slices.
    const after = buildClusterContext(testCluster({ nodes: [testNode((nodes[0] as { name: string }).name, 'zone-a', '8'), ...nodes.slice(1)], services: [service], endpointSlices: slices }));
    const dataplaneOf = (context: typeof before) => analyzeDataplane(context.index.snapshot.proxy, context.index.snapshot.cni, context.proxyRelease);
    const lints = (context: typeof before, ready: number, dataplane = dataplaneOf(context)) => serviceLints(context, dataplane, service, sharedMechanism(context, service), ready, slices);
    const first = lints(before, 2);
    expect(first.map((lint) => lint.id)).toContain('internal-traffic-policy-local');
    expect(lints(after, 2)).toBe(first);
    // Fewer ready endpoints than zones: the lints are made again, and say so.
    const fewer = lints(after, 1);
    expect(fewer).not.toBe(first);
    expect(fewer).toEqual(lintService(service, sharedMechanism(after, service), { minor: 30, gates: after.gates, topologyCacheEnabled: true, dataplane: dataplaneOf(after), readyEndpoints: 1, zoneCount: 3, hasForeignSlices: false }));
    // A dataplane that ignores hints: made again.
    const ignoring = { honoursHints: false, honoursHintsReason: 'Cilium without service topology ignores hints.' };
    expect(lints(after, 2, { ...dataplaneOf(after), ...ignoring })).not.toBe(first);
  });
});

describe('sharedMechanism: kept by Service across contexts', () => {
  it('gives the same mechanism after a Node change, and the release\'s own on another release', () => {
    // trafficDistribution on 1.31 (its gate on by default) and on 1.29 (no such field yet): other mechanisms.
    const service = testService('web', { trafficDistribution: 'PreferClose' });
    const nodes = testZoneNodes();
    const on = (minor: 29 | 31, first = nodes) =>
      buildClusterContext(testCluster({ nodes: first, services: [service], endpointSlices: [], version: { gitVersion: `v1.${minor}.0`, minor, platform: null } }));
    const before = on(31);
    const found = sharedMechanism(before, service);
    expect(found).toEqual(determineMechanism(service, 31, before.gates, before.topologyCacheEnabled));
    // One Node gets more CPU: a new context, the same release: the same object.
    const after = on(31, [testNode((nodes[0] as { name: string }).name, 'zone-a', '8'), ...nodes.slice(1)]);
    expect(sharedMechanism(after, service)).toBe(found);
    // Another release: its own mechanism, not the one kept.
    const older = on(29);
    expect(sharedMechanism(older, service)).toEqual(determineMechanism(service, 29, older.gates, older.topologyCacheEnabled));
    expect(sharedMechanism(older, service).mechanism).not.toBe(found.mechanism);
  });
});
