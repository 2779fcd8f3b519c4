import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import { sortedKeys, sortStrings } from './sorted';

describe('sortStrings: Array.prototype.sort without the allocations', () => {
  it('sorts like sort() (short lists by insertion, long ones by sort)', () => {
    fc.assert(
      fc.property(fc.array(fc.string({ maxLength: 4 }), { maxLength: 40 }), (list) => {
        expect(sortStrings([...list])).toEqual([...list].sort());
      }),
    );
  });

  it('returns the list itself, sorted in place', () => {
    const list = ['c', 'a', 'b'];
    expect(sortStrings(list)).toBe(list);
    expect(list).toEqual(['a', 'b', 'c']);
  });

  it("sortedKeys lists an object's keys in order", () => {
    expect(sortedKeys({ 'zone-c': 1, 'zone-a': 2, 'zone-b': 3 })).toEqual(['zone-a', 'zone-b', 'zone-c']);
  });
});
