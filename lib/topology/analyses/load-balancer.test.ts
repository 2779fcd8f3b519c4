import { describe, expect, it } from 'vitest';

import { buildClusterContext } from '../model/cluster-context';
import type { ServiceRecord } from '../model/cluster-model';
import { analyzeLoadBalancer, awsLoadBalancer } from './load-balancer';
import { testCluster, testEndpoints, testNode, testService, testSlice } from '../model/test-cluster';

const lb = (extra: Partial<ServiceRecord> = {}) =>
  testService('web', {
    type: 'LoadBalancer',
    ports: [{ name: 'http', protocol: 'TCP', port: 80, nodePort: 30080 }],
    loadBalancerIngress: ['k8s-web-123.elb.eu-west-1.amazonaws.com'],
    ...extra,
  });
const nodes = [testNode('node-a', 'zone-a'), testNode('node-b', 'zone-b'), testNode('node-c', 'zone-c'), testNode('node-d', 'zone-a')];
const analyze = (service: ServiceRecord) => {
  const slices = [testSlice('web', testEndpoints({ 'zone-a': 1, 'zone-b': 1 }))];
  const context = buildClusterContext(testCluster({ nodes, services: [service], endpointSlices: slices, version: { gitVersion: 'v1.30.0-eks-1', minor: 30, platform: 'eks' } }));
  return analyzeLoadBalancer(context, service, slices);
};

describe('awsLoadBalancer: target type and cross-zone', () => {
  it.each([
    ['in-tree Classic LB by default, instance targets', {}, { controller: 'in-tree', kind: 'clb', targetType: 'instance', crossZoneEnabled: false }],
    ['in-tree NLB', { 'service.beta.kubernetes.io/aws-load-balancer-type': 'nlb' }, { controller: 'in-tree', kind: 'nlb', targetType: 'instance' }],
    [
      'AWS LB Controller with IP targets',
      { 'service.beta.kubernetes.io/aws-load-balancer-type': 'external', 'service.beta.kubernetes.io/aws-load-balancer-nlb-target-type': 'ip' },
      { controller: 'aws-load-balancer-controller', targetType: 'ip', targetTypeSource: 'service.beta.kubernetes.io/aws-load-balancer-nlb-target-type' },
    ],
    ['legacy nlb-ip', { 'service.beta.kubernetes.io/aws-load-balancer-type': 'nlb-ip' }, { controller: 'aws-load-balancer-controller', targetType: 'ip' }],
    [
      'cross-zone via the attributes annotation',
      { 'service.beta.kubernetes.io/aws-load-balancer-type': 'external', 'service.beta.kubernetes.io/aws-load-balancer-attributes': 'deletion_protection.enabled=true,load_balancing.cross_zone.enabled=true' },
      { crossZoneEnabled: true, crossZoneSource: 'service.beta.kubernetes.io/aws-load-balancer-attributes' },
    ],
    [
      'cross-zone via the older annotation',
      { 'service.beta.kubernetes.io/aws-load-balancer-cross-zone-load-balancing-enabled': 'true' },
      { crossZoneEnabled: true, crossZoneSource: 'service.beta.kubernetes.io/aws-load-balancer-cross-zone-load-balancing-enabled' },
    ],
  ])('%s', (_rule, annotations, expected) => {
    expect(awsLoadBalancer(lb({ annotations }))).toMatchObject(expected);
  });
});

describe('analyzeLoadBalancer: the external path', () => {
  it('instance targets, externalTrafficPolicy Cluster: extra hop possible, possibly cross-zone, source IP lost', () => {
    expect(analyze(lb())).toMatchObject({ path: 'lb-to-node', bypassesKubeProxy: false, extraHopPossible: true, crossZonePossible: true, sourceIpPreserved: false, nodesWithoutLocalEndpoints: null });
  });

  it('externalTrafficPolicy Local: no extra hop, source IP kept; the nodes without a local endpoint are named', () => {
    const result = analyze(lb({ externalTrafficPolicy: 'Local' }));
    expect(result).toMatchObject({ extraHopPossible: false, sourceIpPreserved: true, nodesWithLocalEndpoints: 2 });
    expect(result?.nodesWithoutLocalEndpoints).toEqual({ count: 2, names: ['node-c', 'node-d'], truncated: false });
    expect(result?.explanation.join(' ')).toContain('dropped (timeouts)');
  });

  it('IP targets bypass NodePort, kube-proxy and externalTrafficPolicy', () => {
    const result = analyze(
      lb({
        externalTrafficPolicy: 'Local',
        annotations: { 'service.beta.kubernetes.io/aws-load-balancer-type': 'external', 'service.beta.kubernetes.io/aws-load-balancer-nlb-target-type': 'ip' },
      }),
    );
    expect(result).toMatchObject({ path: 'lb-to-pod', bypassesKubeProxy: true, extraHopPossible: false, crossZonePossible: false, nodesWithoutLocalEndpoints: null });
  });

  it('NodePort Services have a node-port path; ClusterIP Services have none', () => {
    expect(analyze(testService('web', { type: 'NodePort', ports: [{ name: 'http', protocol: 'TCP', port: 80, nodePort: 30080 }] }))?.path).toBe('node-port');
    expect(analyze(testService('web'))).toBeNull();
  });
});
