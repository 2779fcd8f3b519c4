import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { allQueries, formatPromDuration, probeQueries, promDurationSeconds } from './queries';

describe('queries', () => {
  it('docs/traffic.md prints every query zonescope runs, so users can paste them', () => {
    const doc = readFileSync(path.join(__dirname, '../../docs/traffic.md'), 'utf8');
    for (const { promql } of [...allQueries('W'), ...probeQueries()]) expect(doc).toContain(promql);
  });

  it('reads and writes PromQL durations (the effective window is rounded down to a readable step)', () => {
    expect(promDurationSeconds('7d')).toBe(604_800);
    expect(promDurationSeconds('1h30m')).toBe(5400);
    expect(promDurationSeconds('500ms')).toBe(0.5);
    expect(promDurationSeconds('a week')).toBeNaN();
    expect(formatPromDuration(16.9)).toBe('16s');
    expect(formatPromDuration(150)).toBe('2m30s');
    expect(formatPromDuration(3 * 3600 + 5 * 60 + 59)).toBe('3h5m');
    expect(formatPromDuration(36 * 3600 + 1799)).toBe('1d12h');
    expect(formatPromDuration(604_800)).toBe('7d');
  });
});
