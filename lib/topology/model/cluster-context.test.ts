import { describe, expect, it } from 'vitest';

import { buildClusterContext, computeClientShareByZone } from './cluster-context';
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

  it('memo computes once per run', () => {
    const context = buildClusterContext(testCluster());
    let calls = 0;
    const compute = () => ++calls;
    expect(context.memo('k', compute)).toBe(1);
    expect(context.memo('k', compute)).toBe(1);
    expect(calls).toBe(1);
  });
});
