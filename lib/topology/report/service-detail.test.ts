import { describe, expect, it } from 'vitest';

import { analyzeCluster } from './cluster-analysis';
import { analyzeService } from './service-detail';
import { testCluster, testEndpoints, testService, testSlice } from '../model/test-cluster';
import { AUTO, publicCases } from './test-public-cases';

describe('analyzeService: the Service view', () => {
  it('eTP Local on a LoadBalancer: the lint and the load-balancer path', () => {
    const index = testCluster({
      services: [
        testService('lb', {
          type: 'LoadBalancer',
          externalTrafficPolicy: 'Local',
          annotations: AUTO,
          ports: [{ name: 'http', protocol: 'TCP', port: 80, nodePort: 30080 }],
          loadBalancerIngress: ['lb.example.com'],
        }),
      ],
      endpointSlices: [testSlice('lb', testEndpoints({ 'zone-a': 3, 'zone-b': 3, 'zone-c': 3 }, { hinted: true }))],
    });
    const detail = analyzeService(index, 'default', 'lb');
    expect(detail?.lints.map((l) => l.id)).toContain('external-traffic-policy-local');
    expect(detail?.loadBalancer).toMatchObject({ externalTrafficPolicy: 'Local', extraHopPossible: false, nodesWithoutLocalEndpoints: { count: 0 } });
  });

  it('has the detail panels and agrees with the cluster report', () => {
    const index = publicCases();
    const detail = analyzeService(index, 'default', 'api');
    const report = analyzeCluster(index).services.find((s) => s.name === 'api');
    expect(detail?.expected).toMatchObject(report?.expected ?? {});
    expect(detail?.traffic).toEqual(report?.traffic);
    expect(detail?.endpoints).toHaveLength(9);
    expect(detail?.donatedEndpoints).toHaveLength(2);
    expect(detail?.minimumTable?.sumCheck).toBe('3 + 3 + 3 = 9 ≤ 9 ready endpoints → hints can be on');
    expect(detail?.trafficMatrix.ifAuto.crossZoneFraction).toBeCloseTo(2 / 9);
    expect(detail?.hpa?.scan).toHaveLength(10);
    expect(detail?.diffEntries).toHaveLength(9);
  });

  it('returns null for an unknown Service', () => {
    expect(analyzeService(publicCases(), 'default', 'nope')).toBeNull();
  });
});
