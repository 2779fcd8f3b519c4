import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import { MESSAGE_MIN_ALLOCATION_EXCEEDS_OVERLOAD_THRESHOLD } from './constants';
import type { SliceInfo } from './slice-info';
import {
  TopologyCache,
  computeAllocationTable,
  getAllocations,
  getGivingAndReceivingZones,
  isServiceOverloaded,
  setNodes,
} from './topology-cache';
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

/**
 * Upstream's getGivingAndReceivingZones as written: one endpoint per loop iteration, from the zone
 * with the largest surplus to the zone with the largest shortage (ties to the first zone by name).
 * The reference the batched implementation must match exactly.
 */
function givingAndReceivingOneAtATime(
  allocations: Readonly<Record<string, { desired: number }>>,
  allocatedHintsByZone: Readonly<Record<string, number>>,
): { givingZones: Record<string, number>; receivingZones: Record<string, number> } {
  const getMost = (values: Map<string, number>): [string, number] => {
    let zone = '';
    let most = 0;
    for (const [key, value] of values) {
      if (value > most || (value === most && most > 0 && key < zone)) {
        zone = key;
        most = value;
      }
    }
    return [zone, most];
  };
  const givingDesired = new Map<string, number>();
  const receivingDesired = new Map<string, number>();
  for (const zone of Object.keys(allocations).sort()) {
    const allocated = allocatedHintsByZone[zone] ?? 0;
    const target = allocations[zone]?.desired ?? 0;
    if (allocated > target) givingDesired.set(zone, allocated - target);
    else if (allocated < target) receivingDesired.set(zone, target - allocated);
  }
  const giving = new Map<string, number>();
  const receiving = new Map<string, number>();
  for (;;) {
    const [givingZone, numToGive] = getMost(givingDesired);
    const [receivingZone, numToReceive] = getMost(receivingDesired);
    if (givingZone === '' || receivingZone === '' || (numToGive < 1 && numToReceive < 1) || numToGive < 0.5 || numToReceive < 0.5) break;
    giving.set(givingZone, (giving.get(givingZone) ?? 0) + 1);
    givingDesired.set(givingZone, numToGive - 1);
    receiving.set(receivingZone, (receiving.get(receivingZone) ?? 0) + 1);
    receivingDesired.set(receivingZone, numToReceive - 1);
  }
  const sorted = (m: Map<string, number>) => Object.fromEntries([...m].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  return { givingZones: sorted(giving), receivingZones: sorted(receiving) };
}

/** Desired values that sit on the loop's edges: whole, .5 and 1 apart, a hair either side. */
const edgyDesired = fc.oneof(
  fc.integer({ min: -20, max: 10_000 }),
  fc
    .tuple(
      fc.integer({ min: 0, max: 10_000 }),
      fc.constantFrom(0, 0.5, 0.5 - 1e-12, 0.5 + 1e-12, 1 - 1e-12, 1e-12, 0.25, 0.75, 2 ** -30, 1 - 2 ** -40, 0.1, 0.2, 0.3),
    )
    .map(([whole, fraction]) => whole + fraction),
  fc.double({ min: -5, max: 10_000, noNaN: true }),
  fc.constantFrom(0, -0, -1, -0.5, 0.5, 1),
);

const moveZoneNames = ['', 'a', 'b', 'c', 'us-east-1a', 'us-east-1b', 'us-east-1c', 'us-east-1d', 'zone-b', 'Z'];

/** 3–5 zones (sometimes 1, 2 or 6) with desired values and allocated counts up to 10,000, ties included. */
const movesCase = fc
  .uniqueArray(fc.constantFrom(...moveZoneNames), { minLength: 1, maxLength: 6 })
  .chain((zones) =>
    fc.record({
      zones: fc.constant(zones),
      desired: fc.array(edgyDesired, { minLength: zones.length, maxLength: zones.length }),
      // Repeat a few values across zones so ties are common.
      tieWith: fc.array(fc.option(fc.nat({ max: zones.length - 1 }), { nil: null, freq: 2 }), { minLength: zones.length, maxLength: zones.length }),
      allocated: fc.array(fc.option(fc.oneof(fc.integer({ min: 0, max: 10_000 }), fc.integer({ min: -3, max: 3 }), fc.double({ min: -2, max: 10_000, noNaN: true })), { nil: undefined, freq: 8 }), {
        minLength: zones.length,
        maxLength: zones.length,
      }),
      extraCount: fc.option(fc.integer({ min: 0, max: 50 }), { nil: undefined }),
    }),
  )
  .map(({ zones, desired, tieWith, allocated, extraCount }) => {
    const allocations: Record<string, { desired: number }> = {};
    const counts: Record<string, number> = {};
    zones.forEach((zone, i) => {
      const tie = tieWith[i];
      allocations[zone] = { desired: (tie === null || tie === undefined ? desired[i] : desired[tie]) ?? 0 };
      const count = allocated[i];
      if (count !== undefined) counts[zone] = count;
    });
    // A count for a zone without allocation is ignored by both.
    if (extraCount !== undefined) counts['zone-without-allocation'] = extraCount;
    return { allocations, counts };
  });

/** Realistic inputs: the allocation table of CPU ratios and placements of the same total. */
const realisticCase = fc
  .record({
    weights: fc.array(fc.integer({ min: 1, max: 64_000 }), { minLength: 3, maxLength: 5 }),
    total: fc.integer({ min: 3, max: 10_000 }),
    shares: fc.array(fc.nat({ max: 1000 }), { minLength: 5, maxLength: 5 }),
  })
  .map(({ weights, total, shares }) => {
    const zones = weights.map((_, i) => `zone-${String.fromCharCode(97 + i)}`);
    const sum = weights.reduce((s, w) => s + w, 0);
    const ratios = Object.fromEntries(zones.map((zone, i) => [zone, (weights[i] ?? 0) / sum]));
    const shareSum = zones.reduce((s, _, i) => s + (shares[i] ?? 0), 0) || 1;
    const counts: Record<string, number> = {};
    let left = total;
    zones.forEach((zone, i) => {
      const n = i === zones.length - 1 ? left : Math.min(left, Math.floor((total * (shares[i] ?? 0)) / shareSum));
      counts[zone] = n;
      left -= n;
    });
    return { allocations: computeAllocationTable(ratios, total).allocations, counts };
  });

describe('getGivingAndReceivingZones', () => {
  it('a zone keeps its own endpoints unless the excess is worth moving', () => {
    expect(getGivingAndReceivingZones({ a: { desired: 5.1 }, b: { desired: 5.1 }, c: { desired: 5.8 } }, { a: 16 })).toEqual({
      givingZones: { a: 10 },
      receivingZones: { b: 5, c: 5 },
    });
  });

  it('equal shortages take turns, the first zone by name first', () => {
    // 7 surplus in a, 2.5 short in b and c each: b, c, b, c, then b and c at 0.5 take one more each.
    expect(getGivingAndReceivingZones({ a: { desired: 3 }, b: { desired: 2.5 }, c: { desired: 2.5 } }, { a: 10 })).toEqual({
      givingZones: { a: 6 },
      receivingZones: { b: 3, c: 3 },
    });
    // With only 5 to give, b gets the odd one.
    expect(getGivingAndReceivingZones({ a: { desired: 5 }, b: { desired: 2.5 }, c: { desired: 2.5 } }, { a: 10 })).toEqual({
      givingZones: { a: 5 },
      receivingZones: { b: 3, c: 2 },
    });
  });

  it('stops when the largest surplus and shortage are both below 1, or either below 0.5', () => {
    expect(getGivingAndReceivingZones({ a: { desired: 9.4 }, b: { desired: 0.6 } }, { a: 10 })).toEqual({ givingZones: {}, receivingZones: {} });
    expect(getGivingAndReceivingZones({ a: { desired: 8.6 }, b: { desired: 1.4 } }, { a: 10 })).toEqual({ givingZones: { a: 1 }, receivingZones: { b: 1 } });
    expect(getGivingAndReceivingZones({ a: { desired: 0 }, b: { desired: 10.49 } }, { a: 10 })).toEqual({ givingZones: { a: 10 }, receivingZones: { b: 10 } });
  });

  it('moves thousands of endpoints like the one-at-a-time loop', () => {
    const allocations = { 'zone-a': { desired: 2500.25 }, 'zone-b': { desired: 2500.25 }, 'zone-c': { desired: 2499.75 }, 'zone-d': { desired: 2499.75 } };
    const counts = { 'zone-a': 9000, 'zone-b': 500, 'zone-c': 500, 'zone-d': 0 };
    const result = getGivingAndReceivingZones(allocations, counts);
    expect(result).toEqual(givingAndReceivingOneAtATime(allocations, counts));
    // 6,499.75 to give, 6,498.75 to receive: after 6,499 moves both are below 1.
    expect(result.givingZones).toEqual({ 'zone-a': 6499 });
    expect(result.receivingZones).toEqual({ 'zone-b': 2000, 'zone-c': 2000, 'zone-d': 2499 });
  });

  it('property: the same giving and receiving zones as upstream’s one-at-a-time loop (edge values)', () => {
    fc.assert(
      fc.property(movesCase, ({ allocations, counts }) => {
        expect(getGivingAndReceivingZones(allocations, counts)).toEqual(givingAndReceivingOneAtATime(allocations, counts));
      }),
      { seed: 1717, numRuns: 2000 },
    );
  }, 30_000);

  it('property: the same giving and receiving zones as upstream’s one-at-a-time loop (CPU ratios)', () => {
    fc.assert(
      fc.property(realisticCase, ({ allocations, counts }) => {
        expect(getGivingAndReceivingZones(allocations, counts)).toEqual(givingAndReceivingOneAtATime(allocations, counts));
      }),
      { seed: 2026, numRuns: 1000 },
    );
  }, 30_000);

  it('rejects a surplus no loop could work through', () => {
    expect(() => getGivingAndReceivingZones({ a: { desired: -Infinity }, b: { desired: 1 } }, { a: 0 })).toThrow(RangeError);
  });
});

describe('isServiceOverloaded', () => {
  it('counts zones outside the ratios in the total', () => {
    expect(isServiceOverloaded({ a: 4, b: 4, x: 2 }, { a: 0.5, b: 0.5 })).toBe(true);
    expect(isServiceOverloaded({ a: 4, b: 4 }, { a: 0.5, b: 0.5 })).toBe(false);
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
