/**
 * The step grid of zonescope's history: the evaluation times of a range query and the Prometheus
 * range answers (lib/prometheus/client.ts) read onto it (pure: no I/O, no clock).
 *
 * - Points lie on the grid `start + k × step` (k = 0…), a step without a sample is `null` (a gap).
 * - Info series (reason, mechanism, node causes) were read as `timestamp()`: at each step the label
 *   value of the newest sample wins, so a replaced series does not linger.
 */
import type { HistoryPoint, HistorySeries } from '../../shared/history-types';
import type { MatrixSeries } from '../client';

/** The evaluation times of a range query. */
export interface HistoryGrid {
  readonly start: number;
  readonly end: number;
  readonly step: number;
  readonly times: readonly number[];
}

/** The grid `start, start + step, … ≤ end`. */
export function historyGrid(start: number, end: number, step: number): HistoryGrid {
  const times: number[] = [];
  const count = Math.floor((end - start) / step + 1e-9);
  for (let k = 0; k <= count; k++) times.push(start + k * step);
  return { start, end, step, times };
}

/** The series' values on the grid: `null` where it has no sample (NaN and ±Inf are gaps too). */
export function alignValues(series: MatrixSeries | undefined, grid: HistoryGrid): (number | null)[] {
  const out: (number | null)[] = grid.times.map(() => null);
  if (series === undefined) return out;
  for (const { t, v } of series.values) {
    const k = Math.round((t - grid.start) / grid.step);
    const at = grid.times[k];
    if (at === undefined || Math.abs(at - t) > grid.step / 2 || !Number.isFinite(v)) continue;
    out[k] = v;
  }
  return out;
}

export function timeAt(grid: HistoryGrid, k: number): number {
  return grid.times[k] ?? grid.start + k * grid.step;
}

/** Points of a series on the grid. */
export function pointsOf(values: readonly (number | null)[], grid: HistoryGrid): HistoryPoint[] {
  return grid.times.map((t, k) => ({ t, v: values[k] ?? null }));
}

/** The series whose `label` has `value` (e.g. `series="observed"`). */
export function pick(matrix: readonly MatrixSeries[], label: string, value: string): MatrixSeries | undefined {
  return matrix.find((s) => s.metric[label] === value);
}

/**
 * Per step, the metric labels of the info series with the newest sample (values are `timestamp()`s);
 * all series whose timestamp equals the newest one (one scrape) are kept. `null` where none has a sample.
 */
export function newestInfo(matrix: readonly MatrixSeries[], grid: HistoryGrid): (Readonly<Record<string, string>>[] | null)[] {
  const aligned = matrix.map((s) => ({ metric: s.metric, values: alignValues(s, grid) }));
  return grid.times.map((_t, k) => {
    let newest = -Infinity;
    for (const s of aligned) {
      const v = s.values[k];
      if (v !== null && v !== undefined && v > newest) newest = v;
    }
    if (newest === -Infinity) return null;
    return aligned.filter((s) => (s.values[k] ?? -Infinity) >= newest - 0.001).map((s) => s.metric);
  });
}

/** Per step, one label value of the newest info series (ties: the smallest value, deterministic). */
export function newestLabel(matrix: readonly MatrixSeries[], grid: HistoryGrid, label: string): (string | null)[] {
  return newestInfo(matrix, grid).map((metrics) => {
    if (metrics === null) return null;
    const values = metrics.map((m) => m[label] ?? '').sort();
    return values[0] ?? null;
  });
}

/** One series per `zone` label, sorted by zone (series without one left out). */
export function zoneSeries(matrix: readonly MatrixSeries[], grid: HistoryGrid): HistorySeries[] {
  return [...matrix]
    .filter((s) => s.metric.zone !== undefined)
    .sort((a, b) => (a.metric.zone ?? '').localeCompare(b.metric.zone ?? ''))
    .map((s) => ({ key: s.metric.zone ?? '', label: s.metric.zone ?? '', points: pointsOf(alignValues(s, grid), grid) }));
}
