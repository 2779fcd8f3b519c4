/**
 * Change detection in zonescope's history (pure): states per step (hints observed from the ratio:
 * 1 → `on`, 0 → `off`, between → `partial`; expected hints), intervals of constant state, the
 * changes between samples, and how precisely a change is known.
 *
 * A transition's `at` is the first step in the new state; its precision the gap to the previous
 * sample (plus a step for a recovery of a worst-in-step state). refinement.ts narrows it further.
 */
import type { HistoryInterval, HistoryTransition } from '../../shared/history-types';
import type { HistoryGrid } from './grid';
import { timeAt } from './grid';

/** Observed hints state of a ratio: 1 → on, 0 → off, between → partial. */
export function hintsState(ratio: number | null): 'on' | 'off' | 'partial' | null {
  if (ratio === null) return null;
  if (ratio >= 1 - 1e-9) return 'on';
  if (ratio <= 1e-9) return 'off';
  return 'partial';
}

/** Expected hints state of a step value: at least 0.5 → on, else off. */
export function expectedState(value: number | null): 'on' | 'off' | null {
  return value === null ? null : value >= 0.5 ? 'on' : 'off';
}

/**
 * Intervals of constant state. A gap ends an interval (`to` = the first step without a sample);
 * the last one is open (`to: null`) when it lasts to the end of the grid.
 */
export function intervalsOf(states: readonly (string | null)[], grid: HistoryGrid, label: (value: string, index: number) => string): HistoryInterval[] {
  const out: HistoryInterval[] = [];
  let open: { from: number; value: string; index: number } | null = null;
  const close = (to: number | null): void => {
    if (open !== null) out.push({ from: open.from, to, value: open.value, label: label(open.value, open.index) });
    open = null;
  };
  states.forEach((state, k) => {
    const t = timeAt(grid, k);
    if (state === null) {
      close(t);
      return;
    }
    if (open === null || open.value !== state) {
      close(t);
      open = { from: t, value: state, index: k };
    }
  });
  close(null);
  return out;
}

/** A change of state between two samples (across a gap too). */
export interface StateChange {
  readonly index: number;
  readonly at: number;
  readonly previousAt: number;
  readonly from: string;
  readonly to: string;
}

/** Every change of state: `at` = first step in the new state, `previousAt` = the previous sample. */
export function changesOf(states: readonly (string | null)[], grid: HistoryGrid): StateChange[] {
  const out: StateChange[] = [];
  let last: { value: string; t: number } | null = null;
  states.forEach((state, k) => {
    if (state === null) return;
    const t = timeAt(grid, k);
    if (last !== null && last.value !== state) out.push({ index: k, at: t, previousAt: last.t, from: last.value, to: state });
    last = { value: state, t };
  });
  return out;
}

/**
 * Rank of the "worst in the step" states (the step value is the minimum over the step, so a lower
 * rank wins): a transition to a higher rank is a recovery.
 */
const RECOVERY_RANK: Readonly<Record<string, number>> = { off: 0, partial: 1, on: 2, ineligible: 0, eligible: 1 };

/** Whether a change of a worst-in-step state is a recovery (to a better state). */
export function isRecovery(from: string, to: string): boolean {
  return (RECOVERY_RANK[to] ?? 0) > (RECOVERY_RANK[from] ?? 0);
}

/**
 * How far before `at` a change of a worst-in-step state may have happened. Each step shows the
 * worst state within `(t − step, t]`: a change for the worse happened after the previous sample; a
 * recovery may have happened up to a step before it (the worst state was last seen then).
 */
export function worstStatePrecision(change: StateChange, step: number): number {
  return change.at - change.previousAt + (isRecovery(change.from, change.to) ? step : 0);
}

const KIND_ORDER: readonly HistoryTransition['kind'][] = ['mechanism', 'expected-on', 'expected-off', 'hints-on', 'hints-off', 'hints-partial', 'eligible', 'ineligible'];

/** Transitions by time, and in one step in {@link KIND_ORDER}. */
export function sortTransitions(transitions: HistoryTransition[]): HistoryTransition[] {
  return transitions.sort((a, b) => a.at - b.at || KIND_ORDER.indexOf(a.kind) - KIND_ORDER.indexOf(b.kind));
}
