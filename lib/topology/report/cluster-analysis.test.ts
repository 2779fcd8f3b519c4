import { describe, expect, it } from 'vitest';

import { ANALYSIS_SCHEMA } from './analysis-schema';
import { analyzeCluster } from './cluster-analysis';
import type { EndpointSliceRecord, NodeRecord, ServiceRecord } from '../model/cluster-model';
import { indexCluster } from '../model/cluster-model';
import { prepareAnalysis } from './prepared-analysis';
import { analyzeServiceIn } from './service-detail';
import { testCluster, testEndpoints, testNode, testService, testSlice, testSnapshot, testZoneNodes } from '../model/test-cluster';
import { AUTO, publicCases } from './test-public-cases';
import type { Endpoint } from '../upstream/types';

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
    expect(byName.api?.traffic.monthlyCost.ifAuto.monthlyCost).toBeCloseTo(1000 * (2 / 9) * 0.02);
  });

  it('the HPA behind 5/2/2: off at 4, 5, 8, 11 replicas', () => {
    expect(byName.api?.hpa?.hintsOffAt).toEqual([4, 5, 8, 11]);
    expect(byName.api?.workload).toBeNull();
  });

  it('2 endpoints in 3 zones: Insufficient number of endpoints', () => {
    expect(byName.two?.expected.event?.message).toBe('Insufficient number of endpoints (2 endpoints, 3 zones), addressType: IPv4');
  });

  it('needs attention: hints off with the upstream reason, or slices out of sync', () => {
    expect(result.cluster.needsAttention.map((a) => [a.name, a.reason])).toEqual([
      ['api', 'out-of-sync'],
      ['two', 'hints-off'],
      ['web', 'hints-off'],
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
    expect(cost).toMatchObject({ gbPerMonth: 500, pricePerGb: 0.02 });
  });
});

describe('scale', () => {
  it('10,000 Services over 150,000 endpoints and 5,000 nodes analyze in one pass', { timeout: 60_000 }, () => {
    const zones = ['us-east-1a', 'us-east-1b', 'us-east-1c'];
    const nodes: NodeRecord[] = Array.from({ length: 5000 }, (_, i) => testNode(`node-${i}`, zones[i % 3] ?? null, '3920m'));
    const services: ServiceRecord[] = [];
    const slices: EndpointSliceRecord[] = [];
    for (let s = 0; s < 10000; s++) {
      const name = `svc-${s}`;
      services.push({ ...testService(name, s % 2 === 0 ? { annotations: AUTO } : {}), namespace: `ns-${s % 50}` });
      const endpoints: Endpoint[] = Array.from({ length: 15 }, (_, e) => {
        const node = nodes[(s * 7 + e * 13) % 5000] as NodeRecord;
        return { addresses: [`10.${s >> 8}.${s & 255}.${e}`], zone: node.zone, nodeName: node.name, ready: true, hints: s % 2 === 0 ? { forZones: [node.zone ?? ''] } : null };
      });
      slices.push({ ...testSlice(name, endpoints), namespace: `ns-${s % 50}` });
    }
    const index = indexCluster(testSnapshot({ nodes, services, endpointSlices: slices }));
    const prepared = prepareAnalysis(index);
    const result = analyzeCluster(index);
    expect(result.services).toHaveLength(10000);
    expect(result.cluster.summary.hintsExpectedOn).toBe(5000);
    expect(analyzeServiceIn(prepared, 'ns-2', 'svc-2')?.expected.hintsEnabled).toBe(true);
  });
});
