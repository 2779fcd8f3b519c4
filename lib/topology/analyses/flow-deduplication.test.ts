import { describe, expect, it } from 'vitest';

import { Placement } from './flow-deduplication';
import { testCluster, testEndpoint, testNode, testWorkload } from '../model/test-cluster';
import { quantityToMilli } from '../upstream/quantity';

describe('Placement.sameNodeShare: the chance that both ends of a same-zone flow share a node', () => {
  // 40 nodes in zone-a with uneven CPU, and a server Deployment with pods on three of them (two on node-a7; listed out of the nodes' order).
  const cpus = Array.from({ length: 40 }, (_, i) => (i % 3 === 0 ? '2500m' : String(2 + (i % 7))));
  const nodes = cpus.map((cpu, i) => testNode(`node-a${i}`, 'zone-a', cpu));
  const endpoints = ['node-a33', 'node-a7', 'node-a19', 'node-a7'].map((node, i) => testEndpoint(`10.0.0.${i + 1}`, 'zone-a', null, { nodeName: node, podName: `api-${i}` }));
  const workload = testWorkload('api', endpoints);
  const index = testCluster({ nodes, pods: workload.pods, replicaSets: workload.replicaSets, deployments: workload.deployments });
  const server = { namespace: 'default', owner: 'api', type: 'Deployment', zone: 'zone-a' };
  const unknownClient = { namespace: 'other', owner: 'gone', type: 'Deployment', zone: 'zone-a' };

  /** The sum as written: over the zone's nodes in their order, client weight (CPU share) × server weight (pod share). */
  function walked(serverPods: Readonly<Record<string, number>>): number {
    const milli = cpus.map((cpu) => quantityToMilli(cpu) as number);
    const total = milli.reduce((a, b) => a + b, 0);
    const pods = Object.values(serverPods).reduce((a, b) => a + b, 0);
    let sum = 0;
    nodes.forEach((node, i) => {
      sum += ((milli[i] as number) / total) * ((serverPods[node.name] ?? 0) / pods);
    });
    return sum;
  }

  it('an unknown client (spread by CPU over the zone) against a server on a few nodes: the sum over every node, bit for bit', () => {
    const share = new Placement(index).sameNodeShare(unknownClient, server, 'zone-a');
    expect(share).toBe(walked({ 'node-a7': 2, 'node-a19': 1, 'node-a33': 1 }));
    expect(share).toBeGreaterThan(0);
    // The same the other way round (client and server swapped: the few-node end walked first).
    expect(new Placement(index).sameNodeShare(server, unknownClient, 'zone-a')).toBeCloseTo(share, 15);
  });

  it('the same bit for bit over many placements listed in any order', () => {
    let seed = 7;
    const next = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed % n;
    };
    for (let round = 0; round < 60; round++) {
      const hosts = Array.from({ length: 2 + next(6) }, () => `node-a${next(40)}`);
      const placed = hosts.map((node, i) => testEndpoint(`10.1.${round}.${i + 1}`, 'zone-a', null, { nodeName: node, podName: `web-${round}-${i}` }));
      const web = testWorkload(`web${round}`, placed);
      const cluster = testCluster({ nodes, pods: web.pods, replicaSets: web.replicaSets, deployments: web.deployments });
      const pods: Record<string, number> = {};
      for (const node of hosts) pods[node] = (pods[node] ?? 0) + 1;
      expect(new Placement(cluster).sameNodeShare(unknownClient, { ...server, owner: `web${round}` }, 'zone-a')).toBe(walked(pods));
    }
  });

  it('two ends on disjoint nodes never share one; a Node end is that node alone', () => {
    const placement = new Placement(index);
    expect(placement.sameNodeShare({ namespace: '', owner: 'node-a5', type: 'Node', zone: 'zone-a' }, server, 'zone-a')).toBe(0);
    expect(placement.sameNodeShare({ namespace: '', owner: 'node-a7', type: 'Node', zone: 'zone-a' }, server, 'zone-a')).toBe(0.5);
  });
});
