/**
 * Which history range to open on: the shortest of 1 h, 6 h and 24 h that covers the data
 * Prometheus holds. A fresh installation has minutes of samples; at 24 h's step they would be a
 * sliver or nothing, so History opens where its data is. Data older than 24 h opens on 24 h (7
 * days is chosen, never opened on). Pure: both the history API and the panels use it.
 */
import type { HistoryInterval, HistoryRange, HistorySeries } from './history-types';
import { DEFAULT_HISTORY_RANGE } from './history-types';

/** Seconds of each range. */
export const RANGE_SECONDS: Readonly<Record<HistoryRange, number>> = { '1h': 3600, '6h': 6 * 3600, '24h': 24 * 3600, '7d': 7 * 24 * 3600 };

/** The first time any interval starts or any series has a sample; `null` when there is none. */
export function firstSampleTime(intervals: readonly (readonly HistoryInterval[])[], series: readonly (readonly HistorySeries[])[]): number | null {
  let first: number | null = null;
  const see = (t: number) => {
    if (first === null || t < first) first = t;
  };
  for (const list of intervals) for (const interval of list) see(interval.from);
  for (const list of series) for (const s of list) for (const p of s.points) if (p.v !== null) see(p.t);
  return first;
}

/**
 * The range to open on when none was asked for: the shortest of 1 h and 6 h that holds every
 * sample from `firstSample` to `end`, else {@link DEFAULT_HISTORY_RANGE} (also when there is no
 * sample at all).
 */
export function coveringRange(firstSample: number | null, end: number): HistoryRange {
  if (firstSample === null) return DEFAULT_HISTORY_RANGE;
  const age = end - firstSample;
  for (const range of ['1h', '6h'] as const) if (age <= RANGE_SECONDS[range]) return range;
  return DEFAULT_HISTORY_RANGE;
}
