/**
 * The distribution chart's text: the numbers every marker stands for, stated for screen readers,
 * and the labels over the markers (minimum left, desired middle, maximum right).
 */
import { describe, expect, it } from 'vitest';
import { allocationLabel, distributionSummary } from './distribution-chart';

describe('distribution chart text', () => {
  it('states every zone’s ready count, minimum, desired and maximum, and which zones are short', () => {
    expect(
      distributionSummary([
        { zone: 'us-east-1a', ready: 2, minimum: 3, desired: 3.3333, maximum: 3 },
        { zone: 'us-east-1b', ready: 4, minimum: 3, desired: 3, maximum: 4 },
      ]),
    ).toBe('us-east-1a: 2 ready, minimum 3, desired 3.33, maximum 3 (below minimum); us-east-1b: 4 ready, minimum 3, desired 3, maximum 4');
  });

  it('without an allocation, only the ready counts', () => {
    expect(distributionSummary([{ zone: 'a', ready: 5, minimum: null, desired: null, maximum: null }])).toBe('a: 5 ready');
  });

  it('labels whole counts as they are and desired with one decimal', () => {
    expect(allocationLabel(3)).toBe('3');
    expect(allocationLabel(3.3333)).toBe('3.3');
    expect(allocationLabel(null)).toBe('—');
  });
});
