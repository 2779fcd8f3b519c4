/** The backoff formula (lib/k8s/backoff.ts) and the delays each of its callers waits. */
import { describe, expect, it } from 'vitest';
import { backoffDelay } from './backoff';
import { DEFAULT_EXEC_BACKOFF } from './exec-credential/provider';
import { DEFAULT_BACKOFF } from './informer/options';
import { VERSION_BACKOFF } from './cluster-sources/live-source';

const delays = (policy: Parameters<typeof backoffDelay>[0], count: number): number[] => Array.from({ length: count }, (_, retry) => backoffDelay(policy, retry));

describe('backoffDelay', () => {
  it('doubles from the initial delay up to the cap', () => {
    expect(delays({ initialMs: 100, maxMs: 1000 }, 6)).toEqual([100, 200, 400, 800, 1000, 1000]);
  });

  it('grows by another factor when asked', () => {
    expect(delays({ initialMs: 10, maxMs: 10_000, factor: 3 }, 5)).toEqual([10, 30, 90, 270, 810]);
    expect(delays({ initialMs: 250, maxMs: 10_000, factor: 1 }, 3)).toEqual([250, 250, 250]);
  });

  it('counts a negative retry as the first one', () => {
    expect(backoffDelay({ initialMs: 100, maxMs: 1000 }, -3)).toBe(100);
  });

  it('stays at the cap however many failures came before', () => {
    expect(backoffDelay({ initialMs: 500, maxMs: 60_000 }, 5000)).toBe(60_000);
  });

  it('jitters within the upper half of the delay, as the random source says', () => {
    const policy = { initialMs: 1000, maxMs: 8000 };
    expect(backoffDelay(policy, 2, () => 0)).toBe(2000);
    expect(backoffDelay(policy, 2, () => 0.5)).toBe(3000);
    expect(backoffDelay(policy, 2, () => 0.999)).toBeCloseTo(3998, 6);
    expect(backoffDelay(policy, 9, () => 0.25)).toBe(5000);
  });

  it('asks the random source once per delay', () => {
    let calls = 0;
    backoffDelay({ initialMs: 1, maxMs: 2 }, 0, () => {
      calls++;
      return 0.5;
    });
    expect(calls).toBe(1);
  });
});

describe("each caller's delays", () => {
  it('informers: 0.5 s doubling to 30 s, jittered', () => {
    expect(delays(DEFAULT_BACKOFF, 8)).toEqual([500, 1000, 2000, 4000, 8000, 16_000, 30_000, 30_000]);
    expect(backoffDelay(DEFAULT_BACKOFF, 0, () => 0)).toBe(250);
  });

  it('the /version probe: 0.5 s doubling to 60 s, jittered', () => {
    expect(delays(VERSION_BACKOFF, 9)).toEqual([500, 1000, 2000, 4000, 8000, 16_000, 32_000, 60_000, 60_000]);
  });

  it('credential plugins: 1 s doubling to 60 s, not jittered', () => {
    expect(delays(DEFAULT_EXEC_BACKOFF, 8)).toEqual([1000, 2000, 4000, 8000, 16_000, 32_000, 60_000, 60_000]);
  });
});
