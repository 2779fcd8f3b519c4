import { describe, expect, it } from 'vitest';
import { STEADY_SAMPLES, steadyMedian } from './warm-phase';

describe('the steady RSS figure', () => {
  it('is the level the server sits at most of the window, not a burst that a few samples caught', () => {
    // A Prometheus answer mapped just before the window: ~130 MiB more until the idle collection.
    const window = [604, 604, 604, 604, 570, ...Array.from({ length: STEADY_SAMPLES - 5 }, (_, i) => 467 + (i % 3))];
    expect(window).toHaveLength(STEADY_SAMPLES);
    expect(steadyMedian(window)).toBe(468);
    // High most of the window: the median says so.
    expect(steadyMedian([...Array.from({ length: 12 }, () => 600), ...Array.from({ length: 8 }, () => 470)])).toBe(600);
  });

  it('takes the lower middle of an even count and does not reorder its input', () => {
    const samples = [5, 1, 4, 2];
    expect(steadyMedian(samples)).toBe(2);
    expect(samples).toEqual([5, 1, 4, 2]);
    expect(steadyMedian([7])).toBe(7);
  });
});
