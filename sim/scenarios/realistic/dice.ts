/**
 * The realistic generator's seeded draws, all from one stream: a pick, a chance, an integer, hex
 * digits, a uid, a name of the API server's `generateName` form (unique within its kind and
 * namespace, as the API server retries clashes) and a time in the past. Every builder draws from
 * the same {@link Dice} in a fixed order, so the same seed gives the same cluster.
 */
import { seeded, suffix } from '../builder';
import { NOW } from './catalogue';

/** The draws of one generation. */
export interface Dice {
  /** The stream itself (for builder.ts's `suffix`). */
  readonly random: () => number;
  pick<T>(items: readonly T[]): T;
  chance(p: number): boolean;
  /** An integer in [lo, hi]. */
  int(lo: number, hi: number): number;
  hex(n: number): string;
  uid(): string;
  /** `prefix-xxxxx`, unique within its kind and namespace. */
  generated(kind: string, namespace: string, prefix: string): string;
  /** An RFC 3339 time within `maxDays` before {@link NOW}, whole seconds. */
  past(maxDays: number): string;
}

/** The draws of the generation seeded with `seed`. */
export function createDice(seed: number): Dice {
  const random = seeded(seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
  const chance = (p: number): boolean => random() < p;
  const int = (lo: number, hi: number): number => lo + Math.floor(random() * (hi - lo + 1));
  const hex = (n: number): string => {
    let out = '';
    for (let i = 0; i < n; i++) out += '0123456789abcdef'[Math.floor(random() * 16)];
    return out;
  };
  const uid = (): string => `${hex(8)}-${hex(4)}-4${hex(3)}-${'89ab'[int(0, 3)]}${hex(3)}-${hex(12)}`;
  const taken = new Set<string>();
  const generated = (kind: string, namespace: string, prefix: string): string => {
    for (;;) {
      const name = `${prefix}-${suffix(random)}`;
      const key = `${kind}/${namespace}/${name}`;
      if (!taken.has(key)) {
        taken.add(key);
        return name;
      }
    }
  };
  const past = (maxDays: number): string => {
    const t = Date.parse(NOW) - Math.floor(random() * maxDays * 86_400_000);
    return new Date(Math.floor(t / 1000) * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
  };

  return { random, pick, chance, int, hex, uid, generated, past };
}
