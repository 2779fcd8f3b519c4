import { describe, expect, it } from 'vitest';

import { buildClusterContext, computeClientShareByZone, resolveAnalysisOptions, resolveRelease } from './cluster-context';
import { testCluster, testNode } from './test-cluster';

describe('resolveRelease', () => {
  it.each([
    ['1.30', '1.30', 'override'],
    ['v1.29.4', '1.29', 'override'],
    [28, '1.28', 'override'],
    ['31', '1.31', 'override'],
  ])('override %s → %s', (override, release, source) => {
    expect(resolveRelease(override, null)).toMatchObject({ release, source, note: null });
  });

  it('takes the cluster version, else assumes 1.33 and says so', () => {
    expect(resolveRelease(null, { gitVersion: 'v1.27.3-eks-a5565ad', minor: 27, platform: 'eks' })).toMatchObject({ minor: 27, source: 'cluster', platform: 'eks' });
    expect(resolveRelease(null, null)).toMatchObject({ minor: 33, source: 'assumed', note: expect.stringContaining('1.33 is assumed') });
  });

  it('clamps releases outside 1.21–1.36, with a note', () => {
    expect(resolveRelease('1.19', null)).toMatchObject({ minor: 21, note: expect.stringContaining('predates topology hints') });
    expect(resolveRelease('1.40', null)).toMatchObject({ minor: 36, note: expect.stringContaining('newer') });
  });
});

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

describe('resolveAnalysisOptions', () => {
  it('defaults: 50 GB per ready endpoint, no flat volume, nothing set, $0.01/GB each way', () => {
    expect(resolveAnalysisOptions({})).toMatchObject({ gbPerMonth: null, gbPerEndpoint: 50, volumesByService: {}, priceSetting: null, problems: [] });
  });

  it('keeps valid values (per-Service volumes sorted by key) and leaves out each bad one, saying why', () => {
    const resolved = resolveAnalysisOptions({
      gbPerMonth: 2000,
      gbPerEndpoint: Number.POSITIVE_INFINITY,
      pricePerGb: -0.01,
      volumesByService: { 'shop/web': 10, 'a/b': 0, 'no-slash': 1, 'shop/huge': 2e9 },
    });
    expect(resolved).toMatchObject({ gbPerMonth: 2000, gbPerEndpoint: 50, priceSetting: null });
    expect(Object.entries(resolved.volumesByService)).toEqual([['a/b', 0], ['shop/web', 10]]);
    expect(resolved.problems).toEqual([
      'volumesByService: "no-slash" is not namespace/name; ignored.',
      'volumesByService["shop/huge"] must be a number of GB from 0 to 1000000000, got 2000000000; ignored.',
      'gbPerEndpoint must be a number from 0 to 1000000000, got Infinity; ignored.',
      'pricePerGb must be a number from 0 to 100, got -0.01; ignored.',
    ]);
  });
});
