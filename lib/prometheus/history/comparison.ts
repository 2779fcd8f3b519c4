/**
 * The before/after comparison of zonescope's history (pure): equal windows either side of the last
 * mechanism change, with the hints-on share, the cross-zone shares and the cost averaged over each.
 */
import type { HistoryComparison, HistoryWindowFigures } from '../../shared/history-types';
import { MIN_COMPARISON_SAMPLES } from '../../shared/history-types';
import type { StateChange } from './changes';
import { hintsState } from './changes';
import type { HistoryGrid } from './grid';

function mean(values: readonly number[]): number | null {
  return values.length === 0 ? null : values.reduce((a, b) => a + b, 0) / values.length;
}

function about(seconds: number): string {
  if (seconds <= 90) return 'about a minute';
  if (seconds < 3600) return `about ${Math.round(seconds / 60)} minutes`;
  const hours = Math.round(seconds / 3600);
  return hours === 1 ? 'about an hour' : `about ${hours} hours`;
}

/** Most seconds on each side of a before/after comparison. */
export const MAX_COMPARISON_WINDOW_SECONDS = 24 * 3600;

/** The step values a comparison averages (aligned with the grid). */
export interface ComparisonInputs {
  readonly observed: readonly (number | null)[];
  readonly predicted: readonly (number | null)[];
  readonly measured: readonly (number | null)[];
  readonly cost: readonly (number | null)[];
}

function windowFigures(grid: HistoryGrid, from: number, to: number, inputs: ComparisonInputs, includeEnd: boolean): HistoryWindowFigures {
  const observed: number[] = [];
  const predicted: number[] = [];
  const measured: number[] = [];
  const cost: number[] = [];
  grid.times.forEach((t, k) => {
    if (t < from || t > to || (!includeEnd && t === to)) return;
    const ratio = inputs.observed[k];
    if (ratio === null || ratio === undefined) return;
    observed.push(hintsState(ratio) === 'on' ? 1 : 0);
    const p = inputs.predicted[k];
    if (p !== null && p !== undefined) predicted.push(p);
    const m = inputs.measured[k];
    if (m !== null && m !== undefined) measured.push(m);
    const c = inputs.cost[k];
    if (c !== null && c !== undefined) cost.push(c);
  });
  return { from, to, samples: observed.length, hintsOnShare: mean(observed), predictedCrossZone: mean(predicted), measuredCrossZone: mean(measured), costPerMonth: mean(cost) };
}

/**
 * Before/after the last mechanism change in the range: equal windows on both sides (as long as the
 * shorter side allows, at most 24 h); `enough` once each holds {@link MIN_COMPARISON_SAMPLES}.
 */
export function comparisonAt(change: StateChange | undefined, grid: HistoryGrid, inputs: ComparisonInputs): HistoryComparison | null {
  if (change === undefined) return null;
  const at = change.at;
  const width = Math.min(MAX_COMPARISON_WINDOW_SECONDS, at - grid.start, grid.end - at);
  const before = windowFigures(grid, at - width, at, inputs, false);
  const after = windowFigures(grid, at, at + width, inputs, true);
  const enough = before.samples >= MIN_COMPARISON_SAMPLES && after.samples >= MIN_COMPARISON_SAMPLES;
  let message: string | null = null;
  if (after.samples < MIN_COMPARISON_SAMPLES) {
    message = `needs ${MIN_COMPARISON_SAMPLES} samples after the change; ${after.samples} so far — check again in ${about((MIN_COMPARISON_SAMPLES - after.samples) * grid.step)}`;
  } else if (before.samples < MIN_COMPARISON_SAMPLES) {
    // Too short a window (the change is near the range's start), or no data before the change.
    const tooShort = width / grid.step < MIN_COMPARISON_SAMPLES;
    message = tooShort
      ? `needs ${MIN_COMPARISON_SAMPLES} samples before the change; ${before.samples} in this range — choose a longer range`
      : `needs ${MIN_COMPARISON_SAMPLES} samples before the change; Prometheus holds ${before.samples} (zonescope was not scraped before it)`;
  }
  return { at, mechanismBefore: change.from, mechanismAfter: change.to, enough, message, before, after };
}
