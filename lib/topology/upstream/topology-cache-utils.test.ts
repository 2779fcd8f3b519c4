import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import { computeAllocationTable } from './topology-cache';
import { getGivingAndReceivingZones, isServiceOverloaded } from './topology-cache-utils';

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

  it('property: a zone with a whole number of endpoints that wants at least one keeps one (what the scale-down judge relies on)', () => {
    const keepsOne = ({ allocations, counts }: { allocations: Record<string, { desired: number }>; counts: Record<string, number> }) => {
      const { givingZones } = getGivingAndReceivingZones(allocations, counts);
      for (const zone of Object.keys(allocations)) {
        const count = counts[zone] ?? 0;
        if (count >= 1 && Number.isInteger(count) && (allocations[zone]?.desired ?? 0) >= 1) expect(count - (givingZones[zone] ?? 0)).toBeGreaterThanOrEqual(1);
      }
    };
    fc.assert(fc.property(movesCase, keepsOne), { seed: 1718, numRuns: 2000 });
    fc.assert(fc.property(realisticCase, keepsOne), { seed: 2027, numRuns: 1000 });
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
