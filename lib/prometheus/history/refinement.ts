/**
 * Refinement of zonescope's history (pure): which transitions deserve a short range query at a finer
 * resolution ({@link refinementWindows}), the refined time, precision and reason each answer gives
 * ({@link refineTransition}), and the Service's or the cluster's answer with every refinement
 * applied: the transitions and the interval edges, marks and comparison that move with them.
 */
import type { ClusterHistory, HistoryInterval, HistoryTransition, ServiceHistory } from '../../shared/history-types';
import { HINTS_REASON_TEXT } from '../../topology/report/hints-reason';
import type { MatrixSeries } from '../client';
import { changesOf, expectedState, hintsState, isRecovery, sortTransitions } from './changes';
import { alignValues, historyGrid, newestLabel } from './grid';
import { byTime } from './marks';
import { refinementStep } from './queries';
import { offLabel, transitionText } from './text';

/** Which refinement query a transition needs. */
export type RefinementQuery = 'observed' | 'expected' | 'mechanism' | 'eligible';

/** One refinement: a range query over the step in which a transition happened. */
export interface RefinementWindow {
  /** Index in the answer's `transitions`. */
  readonly index: number;
  readonly query: RefinementQuery;
  readonly start: number;
  readonly end: number;
  readonly stepSeconds: number;
  /** Which entry into the new state is the change: the first (a change for the worse, or the mechanism) or the last (a recovery). */
  readonly pick: 'first' | 'last';
}

function refinementQueryOf(kind: HistoryTransition['kind']): RefinementQuery {
  if (kind === 'hints-on' || kind === 'hints-off' || kind === 'hints-partial') return 'observed';
  if (kind === 'expected-on' || kind === 'expected-off') return 'expected';
  if (kind === 'eligible' || kind === 'ineligible') return 'eligible';
  return 'mechanism';
}

/**
 * The refinement queries of an answer: for each transition not across a gap whose precision is
 * coarser than the refinement resolution, newest first, at most `max`, one query over
 * `[at − precision, at]` at `max(1, step / 60)` s.
 */
export function refinementWindows(transitions: readonly HistoryTransition[], stepSeconds: number, max: number): RefinementWindow[] {
  const resolution = refinementStep(stepSeconds);
  const out: RefinementWindow[] = [];
  for (let index = transitions.length - 1; index >= 0 && out.length < max; index--) {
    const t = transitions[index];
    if (t === undefined) continue;
    const query = refinementQueryOf(t.kind);
    const recovery = query !== 'mechanism' && isRecovery(t.from, t.to);
    // Across a gap (no sample for longer than a step) there is nothing to refine with.
    if (t.precisionSeconds <= resolution || t.precisionSeconds > (recovery ? 2 : 1) * stepSeconds) continue;
    out.push({ index, query, start: t.at - t.precisionSeconds, end: t.at, stepSeconds: resolution, pick: recovery ? 'last' : 'first' });
  }
  return out;
}

function stateOfQuery(query: Exclude<RefinementQuery, 'mechanism'>, value: number | null): string | null {
  if (query === 'observed') return hintsState(value);
  if (query === 'expected') return expectedState(value);
  return value === null ? null : value >= 0.5 ? 'eligible' : 'ineligible';
}

/**
 * The refined `at`, precision and reason of one transition: the step of the refinement answer
 * that enters the transition's new state from another sampled state (the first such step for a
 * change for the worse, the last for a recovery); the reason is the newest `reason` series at that
 * step when the answer carries them (hints refinements do). `null` when the answer does not show
 * the change (no samples: the transition keeps the step's precision).
 */
export function refineTransition(transition: HistoryTransition, window: RefinementWindow, matrix: readonly MatrixSeries[]): { at: number; precisionSeconds: number; reason?: string } | null {
  const grid = historyGrid(window.start, window.end, window.stepSeconds);
  const query = window.query;
  const reasonSeries = matrix.filter((m) => m.metric.reason !== undefined);
  const valueSeries = matrix.find((m) => m.metric.reason === undefined);
  // The mechanism is read from the info series (timestamps, newest label wins); the others from one value series.
  const states = query === 'mechanism' ? newestLabel(matrix, grid, 'mechanism') : alignValues(valueSeries, grid).map((v) => stateOfQuery(query, v));
  const changes = changesOf(states, grid).filter((c) => c.to === transition.to);
  const change = window.pick === 'first' ? changes[0] : changes.at(-1);
  if (change === undefined) return null;
  const reason = reasonSeries.length > 0 ? newestLabel(reasonSeries, grid, 'reason')[change.index] : null;
  return { at: change.at, precisionSeconds: change.at - change.previousAt, ...(reason !== null && reason !== undefined ? { reason } : {}) };
}

/** A refinement's result, for {@link applyServiceRefinements} / {@link applyClusterRefinements}. */
export interface RefinementResult {
  readonly window: RefinementWindow;
  readonly matrix: readonly MatrixSeries[];
}

/** One transition moved by a refinement: from the step time to the refined time. */
interface Move {
  readonly query: RefinementQuery;
  readonly from: number;
  readonly to: number;
  readonly transition: HistoryTransition;
}

/** The intervals with every edge at a moved transition's step time put at its refined time (all at once: moves may cross). */
function moveEdges(intervals: readonly HistoryInterval[], moves: readonly Move[]): HistoryInterval[] {
  if (moves.length === 0) return [...intervals];
  const moved = new Map(moves.map((m) => [m.from, m.to]));
  return intervals.map((i) => ({ ...i, from: moved.get(i.from) ?? i.from, to: i.to === null ? null : (moved.get(i.to) ?? i.to) }));
}

/** The transitions with each refined one's `at`/`precisionSeconds`, and the moves made. */
function refineAll(transitions: readonly HistoryTransition[], results: readonly RefinementResult[], text: Readonly<Record<string, string>>): { transitions: HistoryTransition[]; moves: Move[] } {
  const out = [...transitions];
  const moves: Move[] = [];
  for (const { window, matrix } of results) {
    const transition = out[window.index];
    if (transition === undefined) continue;
    const refined = refineTransition(transition, window, matrix);
    if (refined === null) continue;
    const reason = refined.reason ?? transition.reason;
    out[window.index] = { ...transition, at: refined.at, precisionSeconds: refined.precisionSeconds, reason, text: reason === transition.reason ? transition.text : transitionText(transition.kind, transition.to, reason, text) ?? transition.text };
    const moved = out[window.index];
    if (moved !== undefined) moves.push({ query: window.query, from: transition.at, to: refined.at, transition: moved });
  }
  return { transitions: sortTransitions(out), moves };
}

/**
 * A Service's answer with the refinements applied: each refined transition's `at` and
 * `precisionSeconds`, and the edges that change bounds moved with it — observed hints (and a reason
 * change in the same step: both come from the same analysis), expected hints, the mechanism (and
 * its toggle mark and the comparison's `at`; the comparison's windows stay on the steps they average).
 */
export function applyServiceRefinements(history: ServiceHistory, results: readonly RefinementResult[], reasonText: Readonly<Record<string, string>> = HINTS_REASON_TEXT): ServiceHistory {
  const { transitions, moves } = refineAll(history.transitions, results, reasonText);
  const of = (query: RefinementQuery): Move[] => moves.filter((m) => m.query === query);
  let hintsObserved = moveEdges(history.hintsObserved, of('observed'));
  // An off interval is labelled with the reason at the refined time (a flap shorter than a step has its own).
  for (const { to, transition } of of('observed')) {
    if (transition.to !== 'off' || transition.reason === null) continue;
    const label = offLabel(transition.reason, reasonText);
    hintsObserved = hintsObserved.map((i) => (i.from === to && i.value === 'off' ? { ...i, label } : i));
  }
  const mechanismMoves = new Map(of('mechanism').map((m) => [m.from, m.to]));
  const comparison = history.comparison === null ? null : { ...history.comparison, at: mechanismMoves.get(history.comparison.at) ?? history.comparison.at };
  return {
    ...history,
    transitions,
    hintsObserved,
    hintsExpected: moveEdges(history.hintsExpected, of('expected')),
    reasons: moveEdges(history.reasons, of('observed')),
    mechanism: moveEdges(history.mechanism, of('mechanism')),
    marks: byTime(history.marks.map((m) => (m.kind === 'toggle' ? { ...m, at: mechanismMoves.get(m.at) ?? m.at } : m))),
    comparison,
  };
}

/** The cluster's answer with the refinements applied (transitions and eligibility edges). */
export function applyClusterRefinements(history: ClusterHistory, results: readonly RefinementResult[]): ClusterHistory {
  const { transitions, moves } = refineAll(history.transitions, results, {});
  return { ...history, transitions, eligibility: moveEdges(history.eligibility, moves) };
}
