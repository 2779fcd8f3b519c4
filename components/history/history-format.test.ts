/**
 * The History panels' pure formatting: the range in the URL, UTC and relative times, axis ticks,
 * the Changes order, the empty-state sentence derived from the intervals, and chart rows with gaps.
 */
import { describe, expect, it } from 'vitest';

import { chartRows, closeValuesDomain, chartStart, formatTick, formatUtc, historyHref, historyUrl, newestFirst, noChangeText, parseHistoryRange, precisionText, relativeWhen, timeTicks } from './history-format';
import { firstSampleTime } from '@/lib/shared/history-range';
import { END, OFF_AT, ON_AT, START, STEP } from './history-fixtures';

const frame = { range: '24h', start: START, end: END, stepSeconds: STEP } as const;

describe('range in the URL', () => {
  it('reads ?history=; anything else is no choice (the API opens on the range its data covers)', () => {
    expect(parseHistoryRange('7d')).toBe('7d');
    expect(parseHistoryRange('1h')).toBe('1h');
    expect(parseHistoryRange(null)).toBeNull();
    expect(parseHistoryRange('30d')).toBeNull();
    expect(parseHistoryRange('7D')).toBeNull();
  });

  it('sets ?history=7d keeping the other parameters and the #fragment; a chosen 24h is kept too', () => {
    expect(historyHref('/services/shop/cart?map=expected#history', '7d')).toBe('/services/shop/cart?map=expected&history=7d#history');
    expect(historyHref('/services/shop/cart?history=7d&gb=40#history', '24h')).toBe('/services/shop/cart?history=24h&gb=40#history');
    expect(historyHref('/', '1h')).toBe('/?history=1h');
  });

  it('asks the API for the range, names escaped', () => {
    expect(historyUrl({ namespace: 'shop', name: 'cart' }, '6h')).toBe('/api/v1/services/shop/cart/history?range=6h');
    expect(historyUrl(null, '7d')).toBe('/api/v1/cluster/history?range=7d');
    expect(historyUrl(null, null)).toBe('/api/v1/cluster/history');
  });
});

describe('times', () => {
  it('UTC with the date, seconds only when not :00', () => {
    expect(formatUtc(OFF_AT)).toBe('2026-11-30 21:02 UTC');
    expect(formatUtc(OFF_AT + 7)).toBe('2026-11-30 21:02:07 UTC');
  });

  it('relative: min, h (under 6 h), today, yesterday, days', () => {
    expect(relativeWhen(END - 20, END)).toBe('just now');
    expect(relativeWhen(END - 12 * 60, END)).toBe('12m ago');
    expect(relativeWhen(ON_AT, END)).toBe('3h ago');
    expect(relativeWhen(END - 8 * 3600, END)).toBe('today 10:00');
    expect(relativeWhen(OFF_AT, END)).toBe('yesterday 21:02');
    expect(relativeWhen(OFF_AT - 2 * 86_400, END)).toBe('3d ago');
    expect(relativeWhen(END + 300, END)).toBe('in 5m');
    expect(relativeWhen(END + 30, END)).toBe('just now');
    expect(relativeWhen(END + 2 * 3600, END)).toBe('in 2h');
  });

  it('precision of a transition', () => {
    expect(precisionText(15)).toBe('changed up to 15 s earlier');
    expect(precisionText(300)).toBe('changed up to 5 min earlier');
    expect(precisionText(0)).toBeNull();
  });

  it('axis ticks: round UTC times, dates from 24 h on', () => {
    expect(timeTicks(START, END, '24h').map((t) => formatTick(t, '24h'))).toEqual(['30 Nov 20:00', '1 Dec 00:00', '1 Dec 04:00', '1 Dec 08:00', '1 Dec 12:00', '1 Dec 16:00']);
    expect(timeTicks(END - 3600, END, '1h').map((t) => formatTick(t, '1h'))).toEqual(['17:00', '17:10', '17:20', '17:30', '17:40', '17:50', '18:00']);
    expect(timeTicks(END - 7 * 86_400, END, '7d').map((t) => formatTick(t, '7d'))).toEqual(['25 Nov', '26 Nov', '27 Nov', '28 Nov', '29 Nov', '30 Nov', '1 Dec']);
  });
});

describe('Changes', () => {
  it('newest first', () => {
    expect(newestFirst([{ at: 1 }, { at: 3 }, { at: 2 }]).map((x) => x.at)).toEqual([3, 2, 1]);
  });

  it('no change: the state from the intervals, "throughout" only when the samples cover the range', () => {
    expect(noChangeText('hints', [{ from: START, to: null, value: 'on', label: 'Hints on' }], frame)).toBe('No change in the last 24 h: hints were on throughout.');
    expect(noChangeText('hints', [{ from: START, to: null, value: 'off', label: 'Hints off' }], { ...frame, range: '7d' })).toBe('No change in the last 7 days: hints were off throughout.');
    expect(noChangeText('cluster', [{ from: START, to: null, value: 'eligible', label: 'Eligible' }], frame)).toBe('No change in the last 24 h: the cluster was eligible throughout.');
    expect(noChangeText('hints', [{ from: START + 6 * 3600, to: null, value: 'on', label: 'Hints on' }], frame)).toBe(
      'No change in the last 24 h: hints were on whenever there are samples (none for part of the range).',
    );
    expect(noChangeText('hints', [], frame)).toBe('No change in the last 24 h.');
  });
});

describe('chart rows', () => {
  it('one row per time, every series a field, gaps stay null, shares scaled to %', () => {
    const rows = chartRows([
      { prefix: 'ready:', series: [{ key: 'a', label: 'a', points: [{ t: 10, v: 2 }, { t: 20, v: null }] }] },
      { prefix: 'share:', series: [{ key: 'predicted', label: 'Predicted', points: [{ t: 20, v: 0.25 }] }], scale: 100 },
    ]);
    expect(rows).toEqual([
      { t: 10, 'ready:a': 2, 'share:predicted': null },
      { t: 20, 'ready:a': null, 'share:predicted': 25 },
    ]);
  });
});

describe('charts of a range with data only at its end', () => {
  const frame = { start: END - 3600, end: END, stepSeconds: 5 };
  it('start one step before the first sample when more than a quarter of the range is empty, else at the range start', () => {
    expect(chartStart(frame, END - 120)).toBe(END - 125);
    expect(chartStart(frame, END - 3000)).toBe(END - 3600);
    expect(chartStart(frame, null)).toBe(END - 3600);
    // A 2-minute step at 24 h would leave half the chart empty: a tenth of the data's span instead.
    expect(chartStart({ start: END - 86_400, end: END, stepSeconds: 120 }, END - 120)).toBe(END - 132);
    expect(firstSampleTime([[{ from: END - 100, to: null, value: 'on', label: 'Hints on' }]], [[{ key: 'a', label: 'a', points: [{ t: END - 300, v: null }, { t: END - 200, v: 3 }] }]])).toBe(END - 200);
  });

  it('put closer ticks on a short window, with seconds when needed', () => {
    expect(timeTicks(END - 120, END, '1h').map((t) => formatTick(t, '1h'))).toEqual(['17:58', '17:58:30', '17:59', '17:59:30', '18:00']);
    expect(timeTicks(END - 120, END, '24h').map((t) => formatTick(t, '24h'))).toEqual(['1 Dec 17:58', '1 Dec 17:58:30', '1 Dec 17:59', '1 Dec 17:59:30', '1 Dec 18:00']);
  });
});


describe('closeValuesDomain: an axis that shows the differences', () => {
  const series = (key: string, values: readonly number[]) => ({ key, label: key, points: values.map((v, i) => ({ t: i, v })) });
  it('spend now, after sync and best a few dollars apart: a window around them, not $0–600', () => {
    const axis = closeValuesDomain([series('now', [434, 434]), series('after-sync', [433, 433]), series('best', [424, 424])]);
    expect(axis?.zeroBased).toBe(false);
    const [low, high] = axis?.domain ?? [0, 0];
    expect(low).toBeGreaterThan(400);
    expect(low).toBeLessThan(424);
    expect(high).toBeGreaterThan(434);
    expect(high).toBeLessThan(460);
    // The 10-dollar saving takes a visible share of the axis (with $0–600 it would be under 2 %).
    expect(10 / (high - low)).toBeGreaterThan(0.2);
  });
  it('values spread over more than half the largest, or reaching zero: from zero', () => {
    expect(closeValuesDomain([series('now', [400]), series('best', [100])])).toEqual({ domain: [0, 400], zeroBased: true });
    expect(closeValuesDomain([series('now', [12]), series('best', [0])])).toEqual({ domain: [0, 12], zeroBased: true });
    expect(closeValuesDomain([series('now', [])])).toBeNull();
  });
});
