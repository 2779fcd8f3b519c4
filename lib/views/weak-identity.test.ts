import { describe, expect, it } from 'vitest';
import { refersTo, weakly } from './weak-identity';

describe('weak identity', () => {
  it('refers to the object it was made from, and to nothing else', () => {
    const a = { n: 1 };
    const b = { n: 1 };
    const ref = weakly(a);
    expect(refersTo(ref, a)).toBe(true);
    expect(refersTo(ref, b)).toBe(false);
    expect(refersTo(ref, null)).toBe(false);
  });

  it('null stands for null', () => {
    expect(weakly(null)).toBeNull();
    expect(refersTo(null, null)).toBe(true);
    expect(refersTo(null, { n: 1 })).toBe(false);
  });
});
