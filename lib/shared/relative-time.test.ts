import { describe, expect, it } from 'vitest';
import { formatRelativeDay, formatRelativeTime, wholeUnits } from './relative-time';

describe('wholeUnits', () => {
  it('takes the largest whole unit, floored', () => {
    expect(wholeUnits(0)).toEqual({ value: 0, unit: 'second' });
    expect(wholeUnits(59.9)).toEqual({ value: 59, unit: 'second' });
    expect(wholeUnits(60)).toEqual({ value: 1, unit: 'minute' });
    expect(wholeUnits(150)).toEqual({ value: 2, unit: 'minute' });
    expect(wholeUnits(3_599)).toEqual({ value: 59, unit: 'minute' });
    expect(wholeUnits(7_199)).toEqual({ value: 1, unit: 'hour' });
    expect(wholeUnits(86_399)).toEqual({ value: 23, unit: 'hour' });
    expect(wholeUnits(4 * 86_400 + 5)).toEqual({ value: 4, unit: 'day' });
  });

  it('stops at the largest unit asked for', () => {
    expect(wholeUnits(30 * 3_600, 'hour')).toEqual({ value: 30, unit: 'hour' });
    expect(wholeUnits(2 * 3_600, 'minute')).toEqual({ value: 120, unit: 'minute' });
    expect(wholeUnits(90, 'second')).toEqual({ value: 90, unit: 'second' });
  });

  it('never counts below zero', () => {
    expect(wholeUnits(-5)).toEqual({ value: 0, unit: 'second' });
  });
});

describe('formatRelativeTime', () => {
  it('short: what the page shows, in Intl wording', () => {
    expect(formatRelativeTime(-45)).toBe('45s ago');
    expect(formatRelativeTime(-3 * 60)).toBe('3m ago');
    expect(formatRelativeTime(-2 * 3_600 - 59)).toBe('2h ago');
    expect(formatRelativeTime(-4 * 86_400)).toBe('4d ago');
    expect(formatRelativeTime(-86_400)).toBe('1d ago');
  });

  it('long: what a screen reader says, singular and plural', () => {
    expect(formatRelativeTime(-1, { style: 'long' })).toBe('1 second ago');
    expect(formatRelativeTime(-5, { style: 'long' })).toBe('5 seconds ago');
    expect(formatRelativeTime(-60, { style: 'long' })).toBe('1 minute ago');
    expect(formatRelativeTime(-2 * 3_600, { style: 'long' })).toBe('2 hours ago');
  });

  it('ahead of now for a clock ahead of ours', () => {
    expect(formatRelativeTime(2 * 60)).toBe('in 2m');
    expect(formatRelativeTime(3 * 3_600, { style: 'long' })).toBe('in 3 hours');
  });

  it('zero reads as past, never "in 0"', () => {
    expect(formatRelativeTime(0)).toBe('0s ago');
    expect(formatRelativeTime(-0.4, { style: 'long' })).toBe('0 seconds ago');
  });

  it('keeps to the largest unit asked for', () => {
    expect(formatRelativeTime(-49 * 3_600, { largestUnit: 'hour' })).toBe('49h ago');
    expect(formatRelativeTime(-49 * 3_600)).toBe('2d ago');
  });
});

describe('formatRelativeDay', () => {
  it('today and yesterday by name, further days counted', () => {
    expect(formatRelativeDay(0)).toBe('today');
    expect(formatRelativeDay(-1)).toBe('yesterday');
    expect(formatRelativeDay(-3)).toBe('3d ago');
    expect(formatRelativeDay(1)).toBe('tomorrow');
  });
});
