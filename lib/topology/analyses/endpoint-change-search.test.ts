import { describe, expect, it } from 'vitest';

import { donatedFor, searchEndpointChange } from './endpoint-change-search';

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
});
