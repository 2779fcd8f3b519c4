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

describe('copies share read-only parts with the input', () => {
  const deepFreeze = <T>(value: T): T => {
    if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
      for (const inner of Object.values(value)) deepFreeze(inner);
      Object.freeze(value);
    }
    return value;
  };
  const cacheFor = (minor: 33 | 31) => {
    const c = new TopologyCache(minor);
    c.setCpuRatiosByZone({ a: 0.7, b: 0.3 });
    return c;
  };
  // Zone a is overloaded (6 of 8 endpoints, 70% of the CPU), so Auto re-hints some of a's endpoints to b.
  const slices = (): SliceInfo => ({
    serviceKey: 'ns/svc',
    addressType: 'IPv4',
    toCreate: [{ endpoints: [ep('10.0.0.1', 'a'), ep('10.0.0.2', 'a')] }],
    toUpdate: [{ endpoints: [ep('10.0.0.3', 'a', 'n3', { forZones: ['b', 'a'] }), ep('10.0.0.4', 'b')] }],
    unchanged: [
      { name: 'hinted', endpoints: [ep('10.0.0.5', 'a', 'n5', { forZones: ['a'] }), { ...ep('10.0.0.6', 'b'), ready: false, hints: { forZones: ['b'] } }] },
      { name: 'plain', endpoints: [ep('10.0.0.7', 'a'), ep('10.0.0.8', 'a')] },
    ],
  });
  const paths: [string, ReturnType<typeof svc>, 33 | 31, boolean][] = [
    ['Auto (hints on, some re-hinted to another zone)', svc({ 'service.kubernetes.io/topology-mode': 'Auto' }), 33, true],
    ['Auto without node information (hints removed)', svc({ 'service.kubernetes.io/topology-mode': 'Auto' }), 33, false],
    ['no annotation (hints removed)', svc({}), 33, true],
    ['trafficDistribution PreferClose', svc({}, 'PreferClose'), 33, true],
    ['1.31 trafficdist with an unset field (hints stripped)', svc({}), 31, true],
  ];

  it.each(paths)('%s: a deeply frozen input gives what an unfrozen copy gives, and is left as it was', (_name, service, minor, withNodes) => {
    const frozen = deepFreeze(slices());
    const cache = () => {
      const c = cacheFor(minor);
      if (!withNodes) c.setCpuRatiosByZone(null);
      return c;
    };
    // Any write into a shared address list or hints object would throw here (modules are strict).
    const result = reconcileTopologyHints(service, frozen, cache(), minor, defaultFeatureGates(minor));
    const plain = reconcileTopologyHints(service, structuredClone(slices()), cache(), minor, defaultFeatureGates(minor));
    expect(JSON.stringify(result)).toBe(JSON.stringify(plain));
    expect(frozen).toEqual(slices());
    // Rewritten slices are new objects with their own endpoints; the input's slices keep their hints.
    const inputEndpoints = new Set([...frozen.toCreate, ...frozen.toUpdate, ...frozen.unchanged].flatMap((s) => s.endpoints));
    for (const slice of [...result.toCreate, ...result.toUpdate]) for (const endpoint of slice.endpoints) expect(inputEndpoints.has(endpoint)).toBe(false);
    expect(result.toCreate.length + result.toUpdate.length).toBeGreaterThan(0);
  });

  it('Auto re-hints part of the overloaded zone and leaves the unready endpoint its hints', () => {
    const result = reconcileTopologyHints(svc({ 'service.kubernetes.io/topology-mode': 'Auto' }), deepFreeze(slices()), cacheFor(33), 33, defaultFeatureGates(33));
    expect(result.autoOutcome).toBe('enabled');
    const hints = [...result.unchanged, ...result.toUpdate, ...result.toCreate].flatMap((s) => s.endpoints).map((e) => [e.addresses[0], e.ready, e.hints?.forZones?.join(',') ?? null]);
    expect(hints.filter(([, , zones]) => zones === 'b').length).toBeGreaterThan(1);
    expect(hints).toContainEqual(['10.0.0.6', false, 'b']);
  });
});
