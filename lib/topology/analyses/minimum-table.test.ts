import { describe, expect, it } from 'vitest';

import { buildMinimumTable } from './minimum-table';

describe('buildMinimumTable', () => {
  it('notes where floating point changes the minimum (ratios 0.2/0.8, 6 endpoints)', () => {
    const table = buildMinimumTable({ a: 0.2, b: 0.8 }, 6, { a: 1, b: 5 });
    expect(table.rows.map((r) => r.minimum)).toEqual([2, 5]);
    expect(table.fits).toBe(false);
    expect(table.floatNote).toContain('a (2 instead of 1)');
    expect(table.floatNote).toContain('b (5 instead of 4)');
  });
});
