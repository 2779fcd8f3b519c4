import { describe, expect, it } from 'vitest';

import { SeededRandomBlocks, createSeededRandom, hashSeed } from './seeded-random';

describe('seeded random', () => {
  it('the same seed gives the same sequence; values lie in [0, 1)', () => {
    const a = createSeededRandom(42);
    const b = createSeededRandom(42);
    const xs = Array.from({ length: 1000 }, () => a());
    expect(xs).toEqual(Array.from({ length: 1000 }, () => b()));
    expect(xs.every((x) => x >= 0 && x < 1)).toBe(true);
    expect(new Set(xs).size).toBeGreaterThan(990);
  });

  it('is roughly uniform: the mean of 10,000 draws is 0.5 ± 0.01', () => {
    const random = createSeededRandom(7);
    let sum = 0;
    for (let i = 0; i < 10000; i++) sum += random();
    expect(Math.abs(sum / 10000 - 0.5)).toBeLessThan(0.01);
  });

  it('blocks give exactly the sequence of one call per value, across block boundaries and any 32-bit seed', () => {
    for (const seed of [0, 1, 42, 2 ** 31 - 1, 2 ** 31, 2 ** 32 - 1, hashSeed('default/web')]) {
      const one = createSeededRandom(seed);
      const expected = Array.from({ length: 1000 }, () => one());
      const blocks = new SeededRandomBlocks(seed);
      const got: number[] = [];
      for (const size of [1, 7, 0, 392, 600]) {
        const out = new Float64Array(size);
        blocks.fill(out);
        got.push(...out);
      }
      expect(got).toEqual(expected);
    }
  });

  it('hashSeed is FNV-1a: "" → 2166136261, "a" → 3826002220', () => {
    expect(hashSeed('')).toBe(2166136261);
    expect(hashSeed('a')).toBe(3826002220);
  });
});
