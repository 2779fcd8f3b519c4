import { describe, expect, it } from 'vitest';

import { analyzeZones, zoneFromProviderID } from './analyze-zones';
import { testNode, testZoneNodes } from '../model/test-cluster';

describe('analyzeZones: zones, counted CPU and ratios', () => {
  it('three 4-CPU workers in three zones: 4000m each, ratio 1/3 each, eligible', () => {
    const result = analyzeZones(testZoneNodes(), 30);
    expect(result.eligible).toBe(true);
    expect(result.zones).toEqual([
      { name: 'zone-a', nodes: 1, readyNodes: 1, countedNodes: 1, cpuMillis: 4000, cpuRatio: 1 / 3 },
      { name: 'zone-b', nodes: 1, readyNodes: 1, countedNodes: 1, cpuMillis: 4000, cpuRatio: 1 / 3 },
      { name: 'zone-c', nodes: 1, readyNodes: 1, countedNodes: 1, cpuMillis: 4000, cpuRatio: 1 / 3 },
    ]);
    expect(result.verdict).toBe('Eligible: 3 zones with CPU ratios zone-a 33.3 %, zone-b 33.3 %, zone-c 33.3 %.');
    expect(result.totalCpuMillis).toBe(12000);
  });

  it('upstream example 5000/4500/500 millicores gives ratios 0.5 / 0.45 / 0.05', () => {
    const nodes = [
      testNode('a1', 'zone-a', '1'), testNode('a2', 'zone-a', '1'), testNode('a3', 'zone-a', '1'), testNode('a4', 'zone-a', '2'),
      testNode('b1', 'zone-b', '3'), testNode('b2', 'zone-b', '1500m'), testNode('c1', 'zone-c', '500m'),
    ];
    expect(analyzeZones(nodes, 30).zones.map((z) => [z.name, z.cpuMillis, z.cpuRatio])).toEqual([
      ['zone-a', 5000, 0.5],
      ['zone-b', 4500, 0.45],
      ['zone-c', 500, 0.05],
    ]);
  });

  it('control-plane and not-ready nodes are skipped with a reason and never disable hints', () => {
    const nodes = [
      ...testZoneNodes(),
      testNode('cp', null, '2', { labels: { 'node-role.kubernetes.io/control-plane': '' } }),
      testNode('down', null, '2', { ready: false }),
    ];
    const result = analyzeZones(nodes, 30);
    expect(result.eligible).toBe(true);
    expect(result.excludedNodes.map((n) => [n.name, n.status])).toEqual([
      ['cp', 'excluded-control-plane'],
      ['down', 'not-ready'],
    ]);
    const down = result.nodes.find((n) => n.name === 'down');
    expect(down).toMatchObject({ disablesHints: false, disablesHintsWhenReady: true });
    expect(result.nodes.find((n) => n.name === 'cp')).toMatchObject({ controlPlane: true, disablesHintsWhenReady: false });
  });
});

describe('analyzeZones: the node that makes the cluster ineligible', () => {
  it('a single Ready worker without a zone label turns hints off cluster-wide; its fix is verified', () => {
    const nodes = [...testZoneNodes(), testNode('stray', null, '4', { providerID: 'aws:///eu-west-1b/i-0abc123' })];
    const result = analyzeZones(nodes, 30);
    expect(result.eligible).toBe(false);
    expect(result.insufficientCause).toBe('node-missing-zone');
    expect(result.disabledMessage).toBe('Insufficient Node information: allocatable CPU or zone not specified on one or more nodes');
    expect(result.ineligibleNodes).toEqual([
      expect.objectContaining({
        node: 'stray',
        cause: 'missing-zone',
        suggestedZone: 'eu-west-1b',
        commands: ['kubectl label node stray topology.kubernetes.io/zone=eu-west-1b'],
      }),
    ]);
    expect(result.zones.every((z) => z.cpuRatio === null)).toBe(true);
    expect(result.verification).toMatchObject({ eligible: true });
    expect(result.nodes.find((n) => n.name === 'stray')?.disablesHints).toBe(true);
  });

  it('without a providerID zone the command carries a <zone> placeholder', () => {
    const result = analyzeZones([...testZoneNodes(), testNode('stray', null)], 30);
    expect(result.ineligibleNodes[0]?.commands).toEqual(['kubectl label node stray topology.kubernetes.io/zone=<zone>']);
  });

  it('every offending node is listed, not only the first one upstream stops at', () => {
    const result = analyzeZones([...testZoneNodes(), testNode('x', null), testNode('y', 'zone-a', '0')], 30);
    expect(result.ineligibleNodes.map((n) => [n.node, n.cause])).toEqual([
      ['x', 'missing-zone'],
      ['y', 'missing-cpu'],
    ]);
    expect(result.verification?.eligible).toBe(true);
  });

  it('a single-zone cluster is not eligible; adding a node in a second zone would fix it', () => {
    const result = analyzeZones([testNode('a', 'zone-a'), testNode('b', 'zone-a')], 30);
    expect(result.insufficientCause).toBe('single-zone');
    expect(result.verdict).toContain('one zone (zone-a)');
    expect(result.verification?.eligible).toBe(true);
  });
});

describe('zoneFromProviderID', () => {
  it.each([
    ['aws:///eu-west-1a/i-0123456789abcdef0', 'eu-west-1a'],
    ['gce://my-project/europe-west1-b/node-1', 'europe-west1-b'],
    ['azure:///subscriptions/x/resourceGroups/y/providers/Microsoft.Compute/virtualMachines/z', null],
    [null, null],
  ])('%s → %s', (providerID, zone) => {
    expect(zoneFromProviderID(providerID)).toBe(zone);
  });
});
