/**
 * The count rule as the HPA column reads it: the counts where hints are off, found below a bound,
 * are exactly the counts `getAllocations` refuses at any count (the bound holds for uneven zones
 * too), and a range is off at its low end, off elsewhere, or on throughout.
 */
import { describe, expect, it } from 'vitest';

import { getAllocations } from '../../topology/upstream/topology-cache';
import { hintsOffCounts, hintsOffInRange, rangeState } from './hpa-scale-down';

const EVEN: Readonly<Record<string, number>> = { 'zone-a': 1 / 3, 'zone-b': 1 / 3, 'zone-c': 1 / 3 };
const RATIOS: readonly Readonly<Record<string, number>>[] = [
  EVEN,
  { 'zone-a': 0.45, 'zone-b': 0.35, 'zone-c': 0.2 },
  { a: 0.5, b: 0.5 },
  { a: 0.9, b: 0.05, c: 0.03, d: 0.02 },
  { a: 0.2, b: 0.2, c: 0.2, d: 0.2, e: 0.2 },
];

describe('the counts where hints are off', () => {
  it('are every count up to 500 that getAllocations refuses, for even and uneven zones', () => {
    for (const ratios of RATIOS) {
      const refused = Array.from({ length: 501 }, (_, n) => n).filter((n) => !getAllocations(ratios, n).ok);
      expect(hintsOffCounts(ratios), JSON.stringify(ratios)).toEqual(refused);
    }
  });

  it('over three equal zones are below 3, then 4, 5, 8 and 11 (the Service page’s example)', () => {
    expect(hintsOffCounts(EVEN)).toEqual([0, 1, 2, 4, 5, 8, 11]);
    expect(hintsOffInRange(EVEN, 3, 12)).toEqual([4, 5, 8, 11]);
    expect(hintsOffInRange(EVEN, 12, 1000)).toEqual([]);
  });

  it('make a range off at minReplicas, off within it, or on', () => {
    expect(rangeState(4, [4, 5, 8])).toBe('off-at-min');
    expect(rangeState(3, [4, 5])).toBe('off-in-range');
    expect(rangeState(12, [])).toBe('on');
  });
});
