import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import { MESSAGE_MIN_ALLOCATION_EXCEEDS_OVERLOAD_THRESHOLD } from './constants';
import type { SliceInfo } from './slice-info';
import { TopologyCache, computeAllocationTable, getAllocations, setNodes } from './topology-cache';
import type { Endpoint, TopologyNode } from './types';

const node = (name: string, zone: string | null, cpu: string | null, extra: Partial<TopologyNode> = {}): TopologyNode => ({
  name,
  zone,
  allocatableCpu: cpu,
  ready: true,
  labels: {},
  ...extra,
});

const endpoint = (ip: string, zone: string | null, ready: boolean | null = true): Endpoint => ({
  addresses: [ip],
  zone,
  nodeName: null,
  ready,
  hints: null,
});

const threeEqualZones = { 'zone-a': 1 / 3, 'zone-b': 1 / 3, 'zone-c': 1 / 3 };

describe('setNodes: CPU ratios from nodes', () => {
  it.each([
    ['sums allocatable CPU per zone and divides by the total', [node('a', 'zone-a', '3'), node('b', 'zone-b', '1')], { 'zone-a': 0.75, 'zone-b': 0.25 }],
    ['skips not-ready nodes even without a zone label', [node('a', 'zone-a', '1'), node('b', 'zone-b', '1'), node('x', null, '1', { ready: false })], { 'zone-a': 0.5, 'zone-b': 0.5 }],
    ['skips control-plane nodes even without CPU', [node('a', 'zone-a', '1'), node('b', 'zone-b', '1'), node('cp', 'zone-c', null, { labels: { 'node-role.kubernetes.io/control-plane': '' } })], { 'zone-a': 0.5, 'zone-b': 0.5 }],
    ['adds quantities exactly before rounding to milli-CPU', [node('a', 'zone-a', '0.0005'), node('a2', 'zone-a', '0.0005'), node('b', 'zone-b', '1m')], { 'zone-a': 0.5, 'zone-b': 0.5 }],
  ])('%s', (_rule, nodes, ratios) => {
    expect(setNodes(nodes, 30).cpuRatiosByZone).toEqual(ratios);
  });

  it('one ready worker without a zone label disables hints for every Service and is named', () => {
    const result = setNodes([node('a', 'zone-a', '2'), node('no-zone', null, '2'), node('b', 'zone-b', '2')], 30);
    expect(result).toMatchObject({ sufficientNodeInfo: false, cpuRatiosByZone: null, insufficientCause: 'node-missing-zone', offendingNode: 'no-zone' });
  });

  it('a ready worker with zero allocatable CPU disables hints and is named', () => {
    expect(setNodes([node('a', 'zone-a', '2'), node('zero', 'zone-b', '0')], 30)).toMatchObject({ insufficientCause: 'node-missing-cpu', offendingNode: 'zero' });
  });

  it('a single-zone cluster has no ratios', () => {
    expect(setNodes([node('a', 'zone-a', '2'), node('b', 'zone-a', '2')], 30)).toMatchObject({ cpuRatiosByZone: null, insufficientCause: 'single-zone' });
  });

  it('control-plane nodes are only excluded from 1.23 on', () => {
    const nodes = [node('a', 'zone-a', '1'), node('cp', 'zone-b', '1', { labels: { 'node-role.kubernetes.io/master': 'true' } })];
    expect(setNodes(nodes, 22).cpuRatiosByZone).toEqual({ 'zone-a': 0.5, 'zone-b': 0.5 });
    expect(setNodes(nodes, 23).cpuRatiosByZone).toBeNull();
  });
});

describe('getAllocations: minimum = ceil(n × ratio × 1/1.2)', () => {
  it('three equal zones with 11 endpoints need 4 per zone, 12 > 11, so hints are off', () => {
    const result = getAllocations(threeEqualZones, 11);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.event.message).toBe(`${MESSAGE_MIN_ALLOCATION_EXCEEDS_OVERLOAD_THRESHOLD} (11 endpoints, 3 zones)`);
    expect(computeAllocationTable(threeEqualZones, 11).minimumTotal).toBe(12);
  });

  it.each([
    [4, false],
    [5, false],
    [6, true],
    [7, true],
    [8, false],
    [9, true],
    [11, false],
    [12, true],
  ])('three equal zones with %i ready endpoints: hints on = %s', (n, on) => {
    expect(getAllocations(threeEqualZones, n).ok).toBe(on);
  });

  it('2 endpoints in 3 zones is "Insufficient number of endpoints"', () => {
    const result = getAllocations(threeEqualZones, 2);
    expect(!result.ok && result.event.message).toBe('Insufficient number of endpoints (2 endpoints, 3 zones)');
  });

  it('adds the same slack to every zone maximum', () => {
    const result = getAllocations({ 'zone-a': 0.5, 'zone-b': 0.45, 'zone-c': 0.05 }, 20);
    expect(result.ok && result.allocations).toEqual({
      'zone-a': { minimum: 9, desired: 10, maximum: 11 },
      'zone-b': { minimum: 8, desired: 9, maximum: 10 },
      'zone-c': { minimum: 1, desired: 1, maximum: 3 },
    });
  });

  it('multiplies by 0.8333333333333334 like upstream, so 0.2/0.8 with 6 endpoints is disabled', () => {
    expect(getAllocations({ 'zone-a': 0.2, 'zone-b': 0.8 }, 6).ok).toBe(false);
  });
});

describe('TopologyCache.addHints', () => {
  const info = (endpoints: Endpoint[]): SliceInfo => ({ serviceKey: 'ns/svc', addressType: 'IPv4', toCreate: [{ endpoints }], toUpdate: [], unchanged: [] });

  it('uneven placement keeps hints on but donates endpoints across zones', () => {
    const cache = new TopologyCache(30);
    cache.setCpuRatiosByZone(threeEqualZones);
    // 5 in zone-a, 2 in zone-b, 2 in zone-c: 9 endpoints, minimum 3 per zone.
    const zones = ['zone-a', 'zone-a', 'zone-a', 'zone-a', 'zone-a', 'zone-b', 'zone-b', 'zone-c', 'zone-c'];
    const result = cache.addHints(info(zones.map((zone, i) => endpoint(`10.0.0.${i}`, zone))));
    expect(result.outcome).toBe('enabled');
    expect(result.endpointsByZone).toEqual({ 'zone-a': 3, 'zone-b': 3, 'zone-c': 3 });
    const donated = result.toCreate[0]?.endpoints.filter((e) => e.hints?.forZones?.[0] !== e.zone).map((e) => e.addresses[0]);
    expect(donated).toEqual(['10.0.0.0', '10.0.0.1']);
  });

  it('emits Enabled only on the transition, Disabled warnings on every sync', () => {
    const cache = new TopologyCache(30);
    cache.setCpuRatiosByZone(threeEqualZones);
    const good = info(['zone-a', 'zone-b', 'zone-c'].map((zone, i) => endpoint(`10.0.0.${i}`, zone)));
    expect(cache.addHints(good).events.map((e) => e.reason)).toEqual(['TopologyAwareHintsEnabled']);
    expect(cache.addHints(good).events).toEqual([]);
    const bad = info([endpoint('10.0.0.1', 'zone-a'), endpoint('10.0.0.2', 'zone-b')]);
    expect(cache.addHints(bad).events.map((e) => e.reason)).toEqual(['TopologyAwareHintsDisabled']);
    expect(cache.addHints(bad).events.map((e) => e.reason)).toEqual(['TopologyAwareHintsDisabled']);
  });

  it('a ready endpoint without a zone disables hints', () => {
    const cache = new TopologyCache(30);
    cache.setCpuRatiosByZone({ a: 0.5, b: 0.5 });
    const result = cache.addHints(info([endpoint('1', 'a'), endpoint('2', null), endpoint('3', 'b'), endpoint('4', 'b')]));
    expect(result.outcome).toBe('disabled');
    expect(result.events[0]?.message).toBe('One or more endpoints do not have a zone specified, addressType: IPv4');
    expect(result.toCreate[0]?.endpoints.every((e) => e.hints === null)).toBe(true);
  });

  it('releases before 1.26 decide the same way without events', () => {
    const cache = new TopologyCache(25);
    cache.setCpuRatiosByZone({ a: 0.5, b: 0.5 });
    const result = cache.addHints(info([endpoint('1', 'a'), endpoint('2', 'b')]));
    expect(result.outcome).toBe('enabled');
    expect(result.events).toEqual([]);
  });
});

/* ------------------------------------------------------------------------------------------ */
/* Properties                                                                                 */
/* ------------------------------------------------------------------------------------------ */

const zoneNames = ['zone-a', 'zone-b', 'zone-c', 'zone-d'];
const arbRatios = fc
  .uniqueArray(fc.constantFrom(...zoneNames), { minLength: 2, maxLength: 4 })
  .chain((zones) => fc.tuple(fc.constant(zones), fc.array(fc.integer({ min: 1, max: 64 }), { minLength: zones.length, maxLength: zones.length })))
  .map(([zones, cpus]) => {
    const total = cpus.reduce((a, b) => a + b, 0);
    return Object.fromEntries(zones.map((zone, i) => [zone, (cpus[i] ?? 1) / total]));
  });
const arbEndpoint = fc.record({
  zone: fc.constantFrom(...zoneNames),
  ready: fc.constantFrom<boolean | null>(true, true, true, false, null),
  hinted: fc.constantFrom(...zoneNames, null),
});
const arbSliceInfo = fc
  .array(fc.record({ state: fc.constantFrom('toCreate', 'toUpdate', 'unchanged'), endpoints: fc.array(arbEndpoint, { maxLength: 12 }) }), { maxLength: 4 })
  .map((slices): SliceInfo => {
    let ip = 0;
    const build = (state: string) =>
      slices
        .filter((s) => s.state === state)
        .map((s) => ({
          endpoints: s.endpoints.map((e): Endpoint => ({ addresses: [`10.0.0.${ip++}`], zone: e.zone, nodeName: null, ready: e.ready, hints: e.hinted ? { forZones: [e.hinted] } : null })),
        }));
    return { serviceKey: 'ns/svc', addressType: 'IPv4', toCreate: build('toCreate'), toUpdate: build('toUpdate'), unchanged: build('unchanged') };
  });

describe('properties of the Auto heuristic', () => {
  it('when hints are on, every ready zoned endpoint carries exactly one zone hint: an allocated zone or its own', () => {
    fc.assert(
      fc.property(arbRatios, arbSliceInfo, (ratios, si) => {
        const cache = new TopologyCache(30);
        cache.setCpuRatiosByZone(ratios);
        const result = cache.addHints(si);
        if (result.outcome !== 'enabled') return;
        for (const slice of [...result.toCreate, ...result.toUpdate, ...result.unchanged]) {
          for (const e of slice.endpoints) {
            if (e.ready !== true) continue;
            expect(e.hints?.forZones?.length).toBe(1);
            const hinted = e.hints?.forZones?.[0] ?? '';
            expect(hinted in ratios || hinted === e.zone).toBe(true);
          }
        }
      }),
    );
  });

  it('the sum of minimums never exceeds the ready endpoints when allocation succeeds', () => {
    fc.assert(
      fc.property(arbRatios, fc.integer({ min: 0, max: 500 }), (ratios, n) => {
        const result = getAllocations(ratios, n);
        if (!result.ok) return;
        const minimums = Object.values(result.allocations).reduce((sum, a) => sum + a.minimum, 0);
        expect(minimums).toBeLessThanOrEqual(n);
        for (const a of Object.values(result.allocations)) expect(a.maximum).toBeGreaterThanOrEqual(a.minimum);
      }),
    );
  });

  it('redistributions sum to zero: the hinted endpoint count equals the ready endpoint count', () => {
    fc.assert(
      fc.property(arbRatios, arbSliceInfo, (ratios, si) => {
        const cache = new TopologyCache(30);
        cache.setCpuRatiosByZone(ratios);
        const result = cache.addHints(si);
        if (result.outcome !== 'enabled' || !result.endpointsByZone) return;
        const ready = [...si.toCreate, ...si.toUpdate, ...si.unchanged].flatMap((s) => s.endpoints).filter((e) => e.ready === true).length;
        expect(Object.values(result.endpointsByZone).reduce((a, b) => a + b, 0)).toBe(ready);
      }),
    );
  });

  it('same input, same output; inputs are never mutated', () => {
    fc.assert(
      fc.property(arbRatios, arbSliceInfo, (ratios, si) => {
        const before = JSON.stringify(si);
        const run = () => {
          const cache = new TopologyCache(30);
          cache.setCpuRatiosByZone(ratios);
          return JSON.stringify(cache.addHints(si));
        };
        expect(run()).toBe(run());
        expect(JSON.stringify(si)).toBe(before);
      }),
    );
  });
});
