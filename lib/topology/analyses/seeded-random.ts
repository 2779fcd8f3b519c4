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

/**
 * The same sequence as {@link createSeededRandom}`(seed)`, taken in blocks: for loops that need
 * millions of values (the HPA scale-down Monte Carlo), where one call per value costs more than
 * the generator itself.
 */
export class SeededRandomBlocks {
  /**
   * mulberry32's state, as a signed 32-bit integer (the same bits as the unsigned one). Kept in a
   * typed array: a plain number field holding 32-bit values made the loop below twice as slow.
   */
  private readonly state = new Int32Array(1);

  constructor(seed: number) {
    this.state[0] = seed | 0;
  }

  /** Writes the next `count` values of the sequence to `out[0 … count − 1]`. */
  fill(out: Float64Array, count: number = out.length): void {
    let state = this.state[0] as number;
    for (let i = 0; i < count; i++) {
      state = (state + 0x6d2b79f5) | 0;
      let t = state;
      t = Math.imul(t ^ (t >>> 15), t | 1);
      t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
      out[i] = ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    }
    this.state[0] = state;
  }
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
