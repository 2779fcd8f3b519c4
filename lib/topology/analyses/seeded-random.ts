/**
 * A small seeded pseudo-random generator for the Monte Carlo parts of the analyses. `lib/topology`
 * must be deterministic, so it never uses `Math.random`: the same seed always yields the same
 * sequence, and every seed is derived from data (e.g. the Service key).
 *
 * The generator is mulberry32 (32-bit state, period 2³²), which is plenty for a few thousand
 * samples; seeds come from the 32-bit FNV-1a hash of a string.
 *
 * @see https://gist.github.com/tommyettinger/46a874533244883189143505d203312c (mulberry32)
 * @see http://www.isthe.com/chongo/tech/comp/fnv/index.html (FNV-1a)
 */

/** A source of uniform doubles in [0, 1). */
export type RandomSource = () => number;

/** A mulberry32 generator seeded with `seed` (any 32-bit integer). */
export function createSeededRandom(seed: number): RandomSource {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** 32-bit FNV-1a hash of a string (UTF-16 code units), used to derive seeds from keys. */
export function hashSeed(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}
