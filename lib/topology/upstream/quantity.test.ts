import { describe, expect, it } from 'vitest';

import { parseQuantityNano, quantityToMilli } from './quantity';

describe('quantityToMilli (Quantity.MilliValue)', () => {
  it.each([
    ['2', 2000],
    ['1500m', 1500],
    ['0.5', 500],
    ['100u', 1],
    ['1n', 1],
    ['1k', 1_000_000],
    ['1Ki', 1_024_000],
    ['1e3', 1_000_000],
    ['2.5e-3', 3],
    ['0', 0],
  ])('%s is %i milli-CPU (fractions below a milli round up)', (text, milli) => {
    expect(quantityToMilli(text)).toBe(milli);
  });

  it.each(['', 'abc', '1.2.3', '5 cores', '1x'])('rejects %j', (text) => {
    expect(quantityToMilli(text)).toBeNull();
  });

  it('gives the same value when a text is read again, also after more distinct texts than are kept', () => {
    expect(quantityToMilli('7910m')).toBe(7910);
    expect(parseQuantityNano('7910m')).toBe(7_910_000_000n);
    for (let i = 1; i <= 5000; i++) expect(quantityToMilli(`${i}m`)).toBe(i);
    expect(quantityToMilli('7910m')).toBe(7910);
    expect(parseQuantityNano('abc')).toBeNull();
    expect(parseQuantityNano('abc')).toBeNull();
    expect(parseQuantityNano('2.5e-3')).toBe(2_500_000n);
  });
});
