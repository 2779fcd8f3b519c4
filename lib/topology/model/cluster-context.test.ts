import { describe, expect, it } from 'vitest';

import type { ClusterContext } from './cluster-context';
import { buildClusterContext, computeClientShareByZone, proxyReleaseWithHintsGate } from './cluster-context';
import type { NodeRecord } from './cluster-model';
import { testCluster, testNode } from './test-cluster';

describe('computeClientShareByZone', () => {
  const cpu = { a: 2000, b: 1000, c: 1000 };

  it('defaults to the CPU share', () => {
    expect(computeClientShareByZone(cpu, null)).toEqual({ shareByZone: { a: 0.5, b: 0.25, c: 0.25 }, source: 'cpu' });
  });

  it('fixes listed zones; the others split the rest by CPU', () => {
    expect(computeClientShareByZone(cpu, { a: 0.2 }).shareByZone).toEqual({ a: 0.2, b: 0.4, c: 0.4 });
  });

  it('overrides summing to more than 1 are scaled to 1', () => {
    expect(computeClientShareByZone(cpu, { a: 1, b: 1 }).shareByZone).toEqual({ a: 0.5, b: 0.5, c: 0 });
  });

  it('no CPU at all: equal shares', () => {
    expect(computeClientShareByZone({ a: 0, b: 0 }, null)).toEqual({ shareByZone: { a: 0.5, b: 0.5 }, source: 'equal' });
  });
});

describe('buildClusterContext', () => {
  it('client nodes are Ready workers with zone and CPU, sorted by zone and name', () => {
    const context = buildClusterContext(
      testCluster({
        nodes: [testNode('b2', 'zone-b'), testNode('a1', 'zone-a'), testNode('b1', 'zone-b'), testNode('cp', 'zone-a', '4', { labels: { 'node-role.kubernetes.io/control-plane': '' } }), testNode('down', 'zone-c', '4', { ready: false })],
      }),
    );
    expect([...context.clientNodesByZone.entries()].map(([zone, nodes]) => [zone, nodes.map((n) => n.name)])).toEqual([
      ['zone-a', ['a1']],
      ['zone-b', ['b1', 'b2']],
    ]);
    expect(context.zoneNames).toEqual(['zone-a', 'zone-b', 'zone-c']);
    expect(context.clientShareByZone).toEqual({ 'zone-a': 1 / 3, 'zone-b': 2 / 3 });
  });

  it('a context built after a Node change hands the same kube-proxy node and release objects for what did not change', () => {
    const nodes = [testNode('a1', 'zone-a'), testNode('b1', 'zone-b'), testNode('b2', 'zone-b')];
    const before = buildClusterContext(testCluster({ nodes }));
    // One Node gets more CPU (a new record); the others are the same records.
    const after = buildClusterContext(testCluster({ nodes: [nodes[0] as NodeRecord, testNode('b1', 'zone-b', '8'), nodes[2] as NodeRecord] }));
    const proxyNode = (context: ClusterContext, zone: string, name: string) => context.clientNodesByZone.get(zone)?.find((node) => node.name === name)?.proxyNode;
    expect(proxyNode(after, 'zone-a', 'a1')).toBe(proxyNode(before, 'zone-a', 'a1'));
    expect(proxyNode(after, 'zone-b', 'b2')).toBe(proxyNode(before, 'zone-b', 'b2'));
    expect(proxyNode(after, 'zone-b', 'b1')).not.toBe(proxyNode(before, 'zone-b', 'b1'));
    expect(proxyNode(after, 'zone-b', 'b1')).toEqual(proxyNode(before, 'zone-b', 'b1'));
    expect(after.proxyRelease).toBe(before.proxyRelease);
    expect(after.clientShareByZone).not.toEqual(before.clientShareByZone);
    // Other gates, another release object; the hints gate turned on, the release with it on.
    const gated = buildClusterContext(testCluster({ nodes }), { featureGates: { TopologyAwareHints: false } });
    expect(gated.proxyRelease).not.toBe(before.proxyRelease);
    expect(gated.proxyRelease.gates.TopologyAwareHints).toBe(false);
    expect(proxyReleaseWithHintsGate(gated.proxyRelease)).toBe(proxyReleaseWithHintsGate(gated.proxyRelease));
    expect(proxyReleaseWithHintsGate(gated.proxyRelease).gates).toEqual({ ...gated.proxyRelease.gates, TopologyAwareHints: true });
  });

  it('memo computes once per run', () => {
    const context = buildClusterContext(testCluster());
    let calls = 0;
    const compute = () => ++calls;
    expect(context.memo('k', compute)).toBe(1);
    expect(context.memo('k', compute)).toBe(1);
    expect(calls).toBe(1);
  });
});
