import { describe, expect, it } from 'vitest';

import { donatedFor, searchEndpointChange } from './endpoint-change-search';
import { createSeededRandom } from './seeded-random';

const thirds = { 'zone-a': 1 / 3, 'zone-b': 1 / 3, 'zone-c': 1 / 3 };

describe('searchEndpointChange: the fewest endpoints, then the fewest donations, then zones by name', () => {
  it('4/4/3 over equal zones: add 1 in zone-c (12 endpoints, 4 each, nothing donated)', () => {
    expect(searchEndpointChange(thirds, { 'zone-a': 4, 'zone-b': 4, 'zone-c': 3 }, 11, 'add')).toEqual({
      changeByZone: { 'zone-a': 0, 'zone-b': 0, 'zone-c': 1 },
      total: 1,
      readyAfter: 12,
      donatedAfter: 0,
    });
  });

  it('2/2/0: add 2 in zone-c; or remove 1 from zone-a (3 endpoints fit, 1 donated)', () => {
    expect(searchEndpointChange(thirds, { 'zone-a': 2, 'zone-b': 2 }, 4, 'add')).toMatchObject({ changeByZone: { 'zone-a': 0, 'zone-b': 0, 'zone-c': 2 }, total: 2, donatedAfter: 0 });
    expect(searchEndpointChange(thirds, { 'zone-a': 2, 'zone-b': 2 }, 4, 'remove')).toMatchObject({ changeByZone: { 'zone-a': -1, 'zone-b': 0, 'zone-c': 0 }, total: 1, donatedAfter: 1 });
  });

  it('already fitting counts need the next count that fits (5 → 6)', () => {
    expect(searchEndpointChange(thirds, { 'zone-a': 2, 'zone-b': 2, 'zone-c': 1 }, 5, 'add')).toMatchObject({ total: 1, changeByZone: { 'zone-c': 1 } });
  });

  it('donatedFor: 5/2/2 over equal zones donates 2', () => {
    expect(donatedFor(thirds, { 'zone-a': 5, 'zone-b': 2, 'zone-c': 2 })).toBe(2);
  });

  it('on 400 seeded clusters, the change found leaves exactly the donations it reports, and no placement of as many endpoints leaves fewer', () => {
    const random = createSeededRandom(20261206);
    const int = (below: number) => Math.floor(random() * below);
    let checked = 0;
    for (let round = 0; round < 400; round++) {
      const zones = ['zone-a', 'zone-b', 'zone-c', 'zone-d'].slice(0, 2 + int(3));
      const weights = zones.map(() => 1 + int(9));
      const sum = weights.reduce((a, b) => a + b, 0);
      const ratios = Object.fromEntries(zones.map((zone, i) => [zone, (weights[i] as number) / sum]));
      const ready = Object.fromEntries(zones.map((zone) => [zone, int(12)]));
      const n = Object.values(ready).reduce((a, b) => a + b, 0);
      for (const direction of ['add', 'remove'] as const) {
        const found = searchEndpointChange(ratios, ready, n, direction);
        if (found === null) continue;
        const after = Object.fromEntries(zones.map((zone) => [zone, (ready[zone] as number) + (found.changeByZone[zone] as number)]));
        expect(found.donatedAfter).toBe(donatedFor(ratios, after));
        // Every other placement of the same number of endpoints leaves at least as many donations.
        const sign = direction === 'add' ? 1 : -1;
        const walk = (i: number, left: number, counts: Record<string, number>): void => {
          if (i === zones.length - 1) {
            const zone = zones[i] as string;
            const last = (ready[zone] as number) + sign * left;
            if (last < 0) return;
            expect(donatedFor(ratios, { ...counts, [zone]: last })).toBeGreaterThanOrEqual(found.donatedAfter);
            return;
          }
          const zone = zones[i] as string;
          for (let k = 0; k <= left; k++) {
            const count = (ready[zone] as number) + sign * k;
            if (count >= 0) walk(i + 1, left - k, { ...counts, [zone]: count });
          }
        };
        walk(0, found.total, {});
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(300);
  });
});
