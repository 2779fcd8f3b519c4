import { describe, expect, it } from 'vitest';

import { evenSpread, scanReplicaCounts, worstSpread } from './replica-scan';

const thirds = { 'zone-a': 1 / 3, 'zone-b': 1 / 3, 'zone-c': 1 / 3 };

describe('the count: hints off exactly where Σ minimum > replicas', () => {
  it('three equal zones, 3..12 replicas: off exactly at 4, 5, 8 and 11', () => {
    const rows = scanReplicaCounts(thirds, 3, 12, null);
    expect(rows.filter((r) => !r.hintsEnabled).map((r) => r.replicas)).toEqual([4, 5, 8, 11]);
    expect(rows.map((r) => r.minimumTotal)).toEqual([3, 6, 6, 6, 6, 9, 9, 9, 12, 12]);
    expect(rows.find((r) => r.replicas === 4)?.reason).toBe('Unable to allocate minimum required endpoints to each zone without exceeding overload threshold (4 endpoints, 3 zones)');
  });

  it('even spread over equal zones donates nothing; the unconstrained worst placement (all in one zone) donates the rest', () => {
    const rows = scanReplicaCounts(thirds, 9, 9, null);
    expect(rows[0]?.evenSpread).toEqual({ countsByZone: { 'zone-a': 3, 'zone-b': 3, 'zone-c': 3 }, donated: 0 });
    expect(rows[0]?.worstSpread).toEqual({ countsByZone: { 'zone-a': 9, 'zone-b': 0, 'zone-c': 0 }, donated: 6 });
  });

  it('maxSkew 1 allows 4/3/2? No: 4/4/3 or 3/3/3 only — and with 10 replicas 4/3/3 donates 0', () => {
    expect(worstSpread(thirds, 10, 1)).toEqual({ countsByZone: { 'zone-a': 3, 'zone-b': 4, 'zone-c': 3 }, donated: 0 });
    expect(worstSpread(thirds, 9, 2).donated).toBe(1);
  });

  it('evenSpread gives the remainder to the first zones by name', () => {
    expect(evenSpread(['zone-c', 'zone-a', 'zone-b'], 8)).toEqual({ 'zone-a': 3, 'zone-b': 3, 'zone-c': 2 });
  });
});
