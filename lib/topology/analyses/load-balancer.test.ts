import { describe, expect, it } from 'vitest';

import { buildClusterContext } from '../model/cluster-context';
import type { ClusterSnapshot, ServiceRecord } from '../model/cluster-model';
import { analyzeLoadBalancer } from './load-balancer';
import { awsLoadBalancer } from './aws-load-balancer';
import { testCluster, testEndpoint, testEndpoints, testNode, testService, testSlice } from '../model/test-cluster';

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

  it("an NLB's own leg: under Local the zones whose candidate nodes host a ready endpoint, under Cluster every zone with candidate nodes", () => {
    const nlb = { 'service.beta.kubernetes.io/aws-load-balancer-type': 'nlb', 'service.beta.kubernetes.io/aws-load-balancer-cross-zone-load-balancing-enabled': 'true' };
    // Local: node-a (zone-a) and node-b (zone-b) host the endpoints: two NLB nodes, each keeping half.
    expect(analyze(lb({ externalTrafficPolicy: 'Local', annotations: nlb }))?.leg?.crossZoneFraction).toBeCloseTo(0.5, 12);
    // Cluster: zones a, b and c have candidate nodes: each of three NLB nodes keeps a third.
    expect(analyze(lb({ annotations: nlb }))?.leg?.crossZoneFraction).toBeCloseTo(2 / 3, 12);
    // Local with the zone-b endpoint on a node that is no candidate (gone): zone-a alone has targets, nothing crosses.
    const service = lb({ externalTrafficPolicy: 'Local', annotations: nlb });
    const slices = [testSlice('web', [testEndpoint('10.0.0.1', 'zone-a'), testEndpoint('10.0.1.1', 'zone-b', null, { nodeName: 'node-gone' })])];
    const context = buildClusterContext(testCluster({ nodes, services: [service], endpointSlices: slices, version: { gitVersion: 'v1.30.0-eks-1', minor: 30, platform: 'eks' } }));
    expect(analyzeLoadBalancer(context, service, slices)?.leg?.crossZoneFraction).toBe(0);
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

describe('analyzeLoadBalancer: client IP, cross-zone cost and the fixes (AWS)', () => {
  const ipTargets = { 'service.beta.kubernetes.io/aws-load-balancer-type': 'external', 'service.beta.kubernetes.io/aws-load-balancer-nlb-target-type': 'ip' };

  it('NLB IP targets with TCP: the client IP is not preserved by default, and the fix says how to turn it on', () => {
    const result = analyze(lb({ annotations: ipTargets }));
    expect(result?.sourceIpPreserved).toBe(false);
    expect(result?.aws).toMatchObject({ clientIpPreserved: false, clientIpSource: 'default for IP targets with TCP/TLS (off)' });
    expect(result?.explanation).toContain("Client IP not preserved (default for IP targets with TCP/TLS (off)): pods see the load balancer's private IP.");
    expect(result?.fixes.map((f) => [f.title, f.yaml, f.command])).toEqual([
      [
        'Keep the client IP with IP targets',
        'metadata:\n  annotations:\n    service.beta.kubernetes.io/aws-load-balancer-target-group-attributes: "preserve_client_ip.enabled=true"',
        'kubectl annotate service web -n default service.beta.kubernetes.io/aws-load-balancer-target-group-attributes=preserve_client_ip.enabled=true --overwrite',
      ],
    ]);
  });

  it('preserve_client_ip.enabled=true, UDP and instance targets keep the client IP', () => {
    const tg = 'service.beta.kubernetes.io/aws-load-balancer-target-group-attributes';
    expect(analyze(lb({ annotations: { ...ipTargets, [tg]: 'preserve_client_ip.enabled=true' } }))?.sourceIpPreserved).toBe(true);
    expect(analyze(lb({ annotations: ipTargets, ports: [{ name: 'dns', protocol: 'UDP', port: 53, nodePort: 30053 }] }))?.sourceIpPreserved).toBe(true);
    expect(awsLoadBalancer(lb({ annotations: { 'service.beta.kubernetes.io/aws-load-balancer-type': 'nlb' } }))).toMatchObject({ clientIpPreserved: true, clientIpSource: 'default for instance targets (on)' });
  });

  it('cross-zone on: what it costs, and the annotation that turns it off keeping the other attributes', () => {
    const attributes = 'service.beta.kubernetes.io/aws-load-balancer-attributes';
    const result = analyze(lb({ annotations: { ...ipTargets, [attributes]: 'deletion_protection.enabled=true,load_balancing.cross_zone.enabled=true' } }));
    expect(result?.crossZoneCost).toBe(
      'NLB cross-zone load balancing is on; when on, traffic an NLB node sends to a target in another zone is billed at the inter-AZ data transfer rate (ALBs: on by default, no charge).',
    );
    const fix = result?.fixes.find((f) => f.title === 'Turn NLB cross-zone load balancing off');
    expect(fix?.yaml).toBe('metadata:\n  annotations:\n    service.beta.kubernetes.io/aws-load-balancer-attributes: "deletion_protection.enabled=true,load_balancing.cross_zone.enabled=false"');
    expect(analyze(lb({ annotations: ipTargets }))?.crossZoneCost).toContain('NLB cross-zone load balancing is off (the NLB default)');
  });

  it('compares IP vs instance targets under Local and Cluster, marking this Service\'s combination', () => {
    const result = analyze(lb({ externalTrafficPolicy: 'Local', annotations: { 'service.beta.kubernetes.io/aws-load-balancer-type': 'nlb' } }));
    expect(result?.modes.map((m) => `${m.targetType}/${m.externalTrafficPolicy}${m.current ? '*' : ''}`)).toEqual(['ip/Cluster', 'ip/Local', 'instance/Cluster', 'instance/Local*']);
    expect(result?.modes.find((m) => m.targetType === 'ip' && m.externalTrafficPolicy === 'Local')?.path).toBe('same as Cluster: the policy does not apply to IP targets');
    expect(result?.modes.find((m) => m.targetType === 'instance' && m.externalTrafficPolicy === 'Cluster')?.clientIp).toBe('lost: SNAT to the node IP');
  });
});

describe('analyzeLoadBalancer: kept across Node changes that leave every node where it was', () => {
  it('gives the same analysis after a CPU change, and a new one when a node moves zone or the cluster stops looking like AWS', () => {
    const service = lb({ externalTrafficPolicy: 'Local', annotations: { 'service.beta.kubernetes.io/aws-load-balancer-type': 'nlb' } });
    const slices = [testSlice('web', testEndpoints({ 'zone-a': 1, 'zone-b': 1 }))];
    const eks = { gitVersion: 'v1.30.0-eks-1', minor: 30 as const, platform: 'eks' as const };
    const contextOf = (list: typeof nodes, version: ClusterSnapshot['version'] = eks) => buildClusterContext(testCluster({ nodes: list, services: [service], endpointSlices: slices, version }));
    const fresh = (list: typeof nodes, version?: ClusterSnapshot['version']) => {
      // The same Service as another record: nothing kept for it.
      const copy = { ...service };
      return analyzeLoadBalancer(contextOf(list, version), copy, slices);
    };
    const first = analyzeLoadBalancer(contextOf(nodes), service, slices);
    expect(first?.leg).not.toBeNull();
    // node-a gets more CPU: the same nodes in the same zones.
    const moreCpu = [testNode('node-a', 'zone-a', '8'), ...nodes.slice(1)];
    expect(analyzeLoadBalancer(contextOf(moreCpu), service, slices)).toBe(first);
    // node-d moves to zone-c: other targets per zone.
    const moved = [...nodes.slice(0, 3), testNode('node-d', 'zone-c')];
    const afterMove = analyzeLoadBalancer(contextOf(moved), service, slices);
    expect(afterMove).not.toBe(first);
    expect(afterMove).toEqual(fresh(moved));
    // Not EKS and no AWS provider ID: no AWS leg (the Service's nlb annotation still says AWS, so compare with a fresh analysis).
    const plain = { gitVersion: 'v1.30.0', minor: 30 as const, platform: null };
    expect(analyzeLoadBalancer(contextOf(moved, plain), service, slices)).toEqual(fresh(moved, plain));
    // A Service without AWS annotations is AWS's only on an AWS cluster: the same nodes, another server.
    const bare = lb();
    const cluster = (version: ClusterSnapshot['version']) => buildClusterContext(testCluster({ nodes, services: [bare], endpointSlices: slices, version }));
    expect(analyzeLoadBalancer(cluster(eks), bare, slices)?.provider).toBe('aws');
    expect(analyzeLoadBalancer(cluster(plain), bare, slices)?.provider).toBe('unknown');
  });
});
