import { describe, expect, it } from 'vitest';

import { canUseTrafficDistribution, reconcileTopologyHints } from './reconciler';
import type { SliceInfo } from './slice-info';
import { TopologyCache } from './topology-cache';
import { reconcileHints } from './traffic-distribution';
import type { Endpoint } from './types';
import { defaultFeatureGates } from './version';

const ep = (ip: string, zone: string | null, nodeName: string | null = null, hints: Endpoint['hints'] = null): Endpoint => ({
  addresses: [ip],
  zone,
  nodeName,
  ready: true,
  hints,
});
const info = (endpoints: Endpoint[], state: 'toCreate' | 'unchanged' = 'toCreate'): SliceInfo => ({
  serviceKey: 'ns/svc',
  addressType: 'IPv4',
  toCreate: state === 'toCreate' ? [{ endpoints }] : [],
  toUpdate: [],
  unchanged: state === 'unchanged' ? [{ endpoints }] : [],
});
const svc = (annotations: Record<string, string>, trafficDistribution: string | null = null) => ({ key: 'ns/svc', annotations, trafficDistribution });

describe('which mechanism sets hints', () => {
  const cache = () => {
    const c = new TopologyCache(33);
    c.setCpuRatiosByZone({ a: 0.5, b: 0.5 });
    return c;
  };

  it('the Auto annotation wins over trafficDistribution', () => {
    const result = reconcileTopologyHints(svc({ 'service.kubernetes.io/topology-mode': 'Auto' }, 'PreferClose'), info([ep('1', 'a'), ep('2', 'b')]), cache(), 33, defaultFeatureGates(33));
    expect(result.mechanism).toBe('topologyAnnotation');
  });

  it('1.30–1.32: with the gate on, an unset field still runs trafficdist, which strips hints', () => {
    expect(canUseTrafficDistribution(svc({}), 31, defaultFeatureGates(31))).toBe(true);
    const result = reconcileTopologyHints(svc({}), info([ep('1', 'a', null, { forZones: ['a'] })], 'unchanged'), cache(), 31, defaultFeatureGates(31));
    expect(result.mechanism).toBe('trafficDistribution');
    expect(result.toUpdate[0]?.endpoints[0]?.hints).toBeNull();
  });

  it('1.33+: an unset field is not trafficdist; hints are removed by the annotation path instead', () => {
    expect(canUseTrafficDistribution(svc({}), 33, defaultFeatureGates(33))).toBe(false);
  });

  it('PreferSameNode needs the PreferSameTrafficDistribution gate in the reconciler (1.33 default off, 1.34 on)', () => {
    expect(canUseTrafficDistribution(svc({}, 'PreferSameNode'), 33, defaultFeatureGates(33))).toBe(false);
    expect(canUseTrafficDistribution(svc({}, 'PreferSameNode'), 34, defaultFeatureGates(34))).toBe(true);
  });

  it('no cache (TopologyAwareHints gate off) means the annotation does nothing', () => {
    const result = reconcileTopologyHints(svc({ 'service.kubernetes.io/topology-aware-hints': 'auto' }), info([ep('1', 'a'), ep('2', 'b')]), null, 23, defaultFeatureGates(23));
    expect(result.mechanism).toBe('none');
    expect(result.toCreate[0]?.endpoints.every((e) => e.hints === null)).toBe(true);
  });
});

describe('trafficDistribution heuristics', () => {
  it('PreferSameNode hints every ready endpoint for its zone and node', () => {
    const result = reconcileHints('PreferSameNode', [{ endpoints: [ep('1', 'a', 'n1'), ep('2', null, 'n2')] }], [], [], 34);
    expect(result.toCreate[0]?.endpoints.map((e) => e.hints)).toEqual([{ forZones: ['a'], forNodes: ['n1'] }, { forNodes: ['n2'] }]);
  });

  it('1.30–1.32 PreferClose writes an empty zone hint for a zone-less endpoint', () => {
    const result = reconcileHints('PreferClose', [{ endpoints: [ep('1', null)] }], [], [], 31);
    expect(result.toCreate[0]?.endpoints[0]?.hints).toEqual({ forZones: [''] });
  });

  it('unready endpoints keep their old hints and do not force a rewrite', () => {
    const unready: Endpoint = { ...ep('1', 'a', null, { forZones: ['b'] }), ready: false };
    const result = reconcileHints('PreferClose', [], [], [{ endpoints: [unready] }], 33);
    expect(result.toUpdate).toEqual([]);
    expect(result.unchanged[0]?.endpoints[0]?.hints).toEqual({ forZones: ['b'] });
  });
});
