/**
 * Assembly of zonescope's history from Prometheus range answers (pure: no I/O, no clock). The
 * matrices come from the queries of history-queries.ts; this turns them into the step-aligned
 * series, state intervals, transitions, marks and the before/after comparison of
 * lib/shared/history-types.ts.
 *
 * - Points lie on the grid `start + k × step` (k = 0…), a step without a sample is `null` (a gap).
 * - Hints observed per step from the ratio: 1 → `on`, 0 → `off`, between → `partial`.
 * - Info series (reason, mechanism, node causes) were read as `timestamp()`: at each step the label
 *   value of the newest sample wins, so a replaced series does not linger.
 * - A transition's `at` is the first step in the new state; `precisionSeconds` the gap to the
 *   previous sample. {@link refinementWindows} / {@link applyServiceRefinements} then narrow hints,
 *   mechanism and eligibility transitions to the refinement queries' resolution.
 */
import type {
  ClusterHistory,
  HistoryComparison,
  HistoryInterval,
  HistoryMark,
  HistoryPoint,
  HistorySeries,
  HistoryTransition,
  HistoryWindowFigures,
  ServiceHistory,
} from '../shared/history-types';
import { MIN_COMPARISON_SAMPLES } from '../shared/history-types';
import type { EventRecord } from '../topology/model/cluster-model';
import { HINTS_REASON_TEXT } from '../topology/report/hints-reason';
import type { MatrixSeries } from './client';
import { refinementStep } from './history-queries';

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

function timeAt(grid: HistoryGrid, k: number): number {
  return grid.times[k] ?? grid.start + k * grid.step;
}

/** Points of a series on the grid. */
export function pointsOf(values: readonly (number | null)[], grid: HistoryGrid): HistoryPoint[] {
  return grid.times.map((t, k) => ({ t, v: values[k] ?? null }));
}

/** The series whose `label` has `value` (e.g. `series="observed"`). */
function pick(matrix: readonly MatrixSeries[], label: string, value: string): MatrixSeries | undefined {
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
function newestLabel(matrix: readonly MatrixSeries[], grid: HistoryGrid, label: string): (string | null)[] {
  return newestInfo(matrix, grid).map((metrics) => {
    if (metrics === null) return null;
    const values = metrics.map((m) => m[label] ?? '').sort();
    return values[0] ?? null;
  });
}

/** Observed hints state of a ratio: 1 → on, 0 → off, between → partial. */
export function hintsState(ratio: number | null): 'on' | 'off' | 'partial' | null {
  if (ratio === null) return null;
  if (ratio >= 1 - 1e-9) return 'on';
  if (ratio <= 1e-9) return 'off';
  return 'partial';
}

function expectedState(value: number | null): 'on' | 'off' | null {
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

// ---------------------------------------------------------------------------------------------
// Texts

/** The reason sentence of a code (the code itself when unknown to this build). */
function reasonSentence(code: string, text: Readonly<Record<string, string>>): string {
  return text[code] ?? code;
}

function capitalise(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** The reason without a leading "Hints are off: " (it follows "Hints turned off: "). */
function reasonClause(code: string, text: Readonly<Record<string, string>>): string {
  const sentence = reasonSentence(code, text).replace(/^Hints are off( cluster-wide)?: /, '');
  return /[.!?]$/.test(sentence) ? sentence : `${sentence}.`;
}

function withoutPeriod(text: string): string {
  return text.replace(/\.$/, '');
}

const HINTS_WORD: Readonly<Record<string, string>> = { on: 'Hints on', off: 'Hints off', partial: 'Hints partial' };

/** `Hints off — <reason>`. */
function offLabel(reason: string, text: Readonly<Record<string, string>>): string {
  return `${HINTS_WORD.off} — ${capitalise(withoutPeriod(reasonClause(reason, text)))}`;
}

function hintsTransitionText(to: string, reason: string | null, text: Readonly<Record<string, string>>): string {
  const head = to === 'on' ? 'Hints turned on' : to === 'off' ? 'Hints turned off' : 'Hints became partial (kube-proxy ignores partial hints)';
  return reason === null ? `${head}.` : `${head}: ${reasonClause(reason, text)}`;
}

function expectedTransitionText(to: string, reason: string | null, text: Readonly<Record<string, string>>): string {
  const head = to === 'on' ? 'The controller should write hints' : 'The controller should remove hints';
  return reason === null ? `${head}.` : `${head}: ${reasonClause(reason, text)}`;
}

/** The sentence of a hints transition with another reason; `null` for kinds whose text does not name it. */
function transitionText(kind: HistoryTransition['kind'], to: string, reason: string | null, text: Readonly<Record<string, string>>): string | null {
  if (kind === 'hints-on' || kind === 'hints-off' || kind === 'hints-partial') return hintsTransitionText(to, reason, text);
  if (kind === 'expected-on' || kind === 'expected-off') return expectedTransitionText(to, reason, text);
  return null;
}

/** How the Service asks for hints, from its info labels: `topology-mode Auto`, `trafficDistribution PreferClose`, `(none)`. */
export function mechanismDescriptor(metric: Readonly<Record<string, string>>): string {
  const parts: string[] = [];
  const mode = metric.topology_mode ?? '';
  const distribution = metric.traffic_distribution ?? '';
  if (mode !== '') parts.push(`${metric.mechanism === 'legacy-annotation' ? 'topology-aware-hints' : 'topology-mode'} ${mode}`);
  if (distribution !== '') parts.push(`trafficDistribution ${distribution}`);
  return parts.length === 0 ? '(none)' : parts.join(', ');
}

function mechanismLabel(mechanism: string): string {
  switch (mechanism) {
    case 'topology-mode':
      return 'topology-mode annotation';
    case 'legacy-annotation':
      return 'topology-aware-hints annotation (legacy)';
    case 'trafficDistribution':
      return 'spec.trafficDistribution';
    case 'none':
      return 'No mechanism';
    default:
      return mechanism;
  }
}

// ---------------------------------------------------------------------------------------------
// Marks

/** The Service's Events within the range, one mark each at its last (else first) timestamp. */
export function eventMarks(events: readonly EventRecord[], start: number, end: number): HistoryMark[] {
  const out: HistoryMark[] = [];
  for (const event of events) {
    const stamp = event.lastTimestamp ?? event.firstTimestamp;
    if (stamp === null) continue;
    const at = Date.parse(stamp) / 1000;
    if (!Number.isFinite(at) || at < start || at > end) continue;
    out.push({ at, kind: 'event', text: `${event.reason}: ${event.message}` });
  }
  return out;
}

/** `Nodes 12 → 9` at each step where the node count changed. */
export function nodeMarks(values: readonly (number | null)[], grid: HistoryGrid): HistoryMark[] {
  const states = values.map((v) => (v === null ? null : String(Math.round(v))));
  return changesOf(states, grid).map((c) => ({ at: c.at, kind: 'nodes', text: `Nodes ${c.from} → ${c.to}` }));
}

function byTime<T extends { readonly at: number }>(items: T[]): T[] {
  return items.sort((a, b) => a.at - b.at);
}

// ---------------------------------------------------------------------------------------------
// Comparison

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

interface ComparisonInputs {
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

// ---------------------------------------------------------------------------------------------
// Service

/** The range answers of a Service view (see history-queries.ts, `serviceQueries`). */
export interface ServiceHistoryInput {
  readonly frame: Omit<ServiceHistory, 'hintsObserved' | 'hintsExpected' | 'reasons' | 'mechanism' | 'transitions' | 'readyEndpoints' | 'minimumEndpoints' | 'crossZone' | 'marks' | 'comparison'>;
  readonly scalars: readonly MatrixSeries[];
  readonly reasons: readonly MatrixSeries[];
  readonly info: readonly MatrixSeries[];
  readonly readyEndpoints: readonly MatrixSeries[];
  readonly minimumEndpoints: readonly MatrixSeries[];
  readonly nodes: readonly MatrixSeries[];
  readonly events: readonly EventRecord[];
  /** Sentence per reason code (default: lib/topology/report/hints-reason.ts). */
  readonly reasonText?: Readonly<Record<string, string>>;
}

function zoneSeries(matrix: readonly MatrixSeries[], grid: HistoryGrid): HistorySeries[] {
  return [...matrix]
    .filter((s) => s.metric.zone !== undefined)
    .sort((a, b) => (a.metric.zone ?? '').localeCompare(b.metric.zone ?? ''))
    .map((s) => ({ key: s.metric.zone ?? '', label: s.metric.zone ?? '', points: pointsOf(alignValues(s, grid), grid) }));
}

/** Whether a Service view's answers hold any zonescope series of the Service. */
export function serviceHasData(input: Pick<ServiceHistoryInput, 'scalars' | 'reasons' | 'info' | 'readyEndpoints'>): boolean {
  return [input.scalars, input.reasons, input.info, input.readyEndpoints].some((m) => m.some((s) => s.values.length > 0));
}

/** The Service's history from its range answers (transitions not yet refined). */
export function assembleServiceHistory(input: ServiceHistoryInput): ServiceHistory {
  const { frame } = input;
  const text = input.reasonText ?? HINTS_REASON_TEXT;
  const grid = historyGrid(frame.start, frame.end, frame.stepSeconds);
  const scalar = (key: string): (number | null)[] => alignValues(pick(input.scalars, 'series', key), grid);
  const observed = scalar('observed');
  const expected = scalar('expected');
  const predicted = scalar('predicted');
  const measured = scalar('measured');
  const cost = scalar('cost');
  const reasons = newestLabel(input.reasons, grid, 'reason');
  const infos = newestInfo(input.info, grid).map((metrics) => (metrics === null ? null : [...metrics].sort((a, b) => mechanismDescriptor(a).localeCompare(mechanismDescriptor(b)))[0] ?? null));
  const mechanisms = infos.map((m) => (m === null ? null : (m.mechanism ?? 'none')));
  const descriptors = infos.map((m) => (m === null ? null : mechanismDescriptor(m)));
  const observedStates = observed.map(hintsState);
  const expectedStates = expected.map(expectedState);
  const reasonAt = (k: number): string | null => reasons[k] ?? null;

  const hintsObserved = intervalsOf(observedStates, grid, (value, k) => {
    const reason = reasonAt(k);
    return value === 'off' && reason !== null ? offLabel(reason, text) : (HINTS_WORD[value] ?? value);
  });
  const hintsExpected = intervalsOf(expectedStates, grid, (value) => (value === 'on' ? 'Expected on' : 'Expected off'));
  const reasonIntervals = intervalsOf(reasons, grid, (value) => withoutPeriod(reasonSentence(value, text)));
  const mechanism = intervalsOf(mechanisms, grid, (value, k) => {
    const descriptor = descriptors[k];
    return descriptor !== null && descriptor !== undefined && descriptor !== '(none)' ? `${mechanismLabel(value)} (${descriptor})` : mechanismLabel(value);
  });

  const transitions: HistoryTransition[] = [];
  for (const c of changesOf(observedStates, grid)) {
    const reason = reasonAt(c.index);
    transitions.push({ at: c.at, precisionSeconds: worstStatePrecision(c, grid.step), kind: c.to === 'on' ? 'hints-on' : c.to === 'off' ? 'hints-off' : 'hints-partial', from: c.from, to: c.to, reason, text: hintsTransitionText(c.to, reason, text) });
  }
  for (const c of changesOf(expectedStates, grid)) {
    const reason = reasonAt(c.index);
    transitions.push({ at: c.at, precisionSeconds: worstStatePrecision(c, grid.step), kind: c.to === 'on' ? 'expected-on' : 'expected-off', from: c.from, to: c.to, reason, text: expectedTransitionText(c.to, reason, text) });
  }
  const mechanismChanges = changesOf(mechanisms, grid);
  for (const c of mechanismChanges) {
    transitions.push({ at: c.at, precisionSeconds: c.at - c.previousAt, kind: 'mechanism', from: c.from, to: c.to, reason: reasonAt(c.index), text: `Mechanism changed: ${mechanismLabel(c.from)} → ${mechanismLabel(c.to)}.` });
  }

  const marks: HistoryMark[] = [
    ...eventMarks(input.events, frame.start, frame.end),
    ...nodeMarks(alignValues(input.nodes[0], grid), grid),
    ...changesOf(descriptors, grid).map((c): HistoryMark => ({ at: c.at, kind: 'toggle', text: `${c.from} → ${c.to}` })),
  ];

  const crossZone: HistorySeries[] = [{ key: 'predicted', label: 'Predicted', points: pointsOf(predicted, grid) }];
  if (measured.some((v) => v !== null)) crossZone.push({ key: 'measured', label: 'Measured', points: pointsOf(measured, grid) });

  return {
    ...frame,
    hintsObserved,
    hintsExpected,
    reasons: reasonIntervals,
    mechanism,
    transitions: sortTransitions(transitions),
    readyEndpoints: zoneSeries(input.readyEndpoints, grid),
    minimumEndpoints: zoneSeries(input.minimumEndpoints, grid),
    crossZone,
    marks: byTime(marks),
    comparison: comparisonAt(mechanismChanges.at(-1), grid, { observed, predicted, measured, cost }),
  };
}

const KIND_ORDER: readonly HistoryTransition['kind'][] = ['mechanism', 'expected-on', 'expected-off', 'hints-on', 'hints-off', 'hints-partial', 'eligible', 'ineligible'];

function sortTransitions(transitions: HistoryTransition[]): HistoryTransition[] {
  return transitions.sort((a, b) => a.at - b.at || KIND_ORDER.indexOf(a.kind) - KIND_ORDER.indexOf(b.kind));
}

// ---------------------------------------------------------------------------------------------
// Refinement

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

// ---------------------------------------------------------------------------------------------
// Cluster

/** The range answers of the cluster view (see history-queries.ts, `clusterQueries`). */
export interface ClusterHistoryInput {
  readonly frame: Omit<ClusterHistory, 'eligibility' | 'transitions' | 'spend' | 'nodes' | 'services' | 'marks'>;
  readonly scalars: readonly MatrixSeries[];
  readonly spend: readonly MatrixSeries[];
  readonly zoneNodes: readonly MatrixSeries[];
  readonly ineligibleNodes: readonly MatrixSeries[];
  readonly insufficientCause: readonly MatrixSeries[];
}

const NODE_CAUSE_TEXT: Readonly<Record<string, string>> = {
  'missing-zone': 'has no zone label',
  'missing-cpu': 'reports no allocatable CPU',
};

/** Sentence parts per `zonescope_cluster_insufficient_cause_info` cause. */
export const INSUFFICIENT_CAUSE_TEXT: Readonly<Record<string, string>> = {
  'no-counted-nodes': 'no Ready node is counted',
  'node-missing-zone': 'a Ready node has no zone label',
  'node-missing-cpu': 'a Ready node reports no allocatable CPU',
  'single-zone': 'all Ready nodes are in one zone',
};

const MAX_NAMED_NODES = 3;

function ineligibleDetail(nodes: readonly Readonly<Record<string, string>>[] | null, cause: string | null): string | null {
  const named = (nodes ?? []).filter((m) => m.node !== undefined).sort((a, b) => (a.node ?? '').localeCompare(b.node ?? ''));
  if (named.length > 0) {
    const shown = named.slice(0, MAX_NAMED_NODES).map((m) => `node ${m.node} ${NODE_CAUSE_TEXT[m.cause ?? ''] ?? `(${m.cause ?? 'unknown cause'})`}`);
    const more = named.length > MAX_NAMED_NODES ? ` and ${named.length - MAX_NAMED_NODES} more` : '';
    return `${shown.join(', ')}${more}`;
  }
  if (cause !== null && cause !== 'none') return INSUFFICIENT_CAUSE_TEXT[cause] ?? cause;
  return null;
}

/** Whether the cluster view's answers hold any zonescope series. */
export function clusterHasData(input: Pick<ClusterHistoryInput, 'scalars' | 'spend' | 'zoneNodes'>): boolean {
  return [input.scalars, input.spend, input.zoneNodes].some((m) => m.some((s) => s.values.length > 0));
}

const SPEND_KEYS: readonly (readonly [string, string, string])[] = [
  ['now', 'now', 'Now'],
  ['after_sync', 'after-sync', 'After sync'],
  ['best', 'best', 'Best'],
];
const SERVICE_COUNT_KEYS: readonly (readonly [string, string])[] = [
  ['hints-expected-on', 'Hints expected on'],
  ['hints-observed-on', 'Hints on'],
  ['needing-attention', 'Needing attention'],
];

/** The cluster's history from its range answers (transitions not yet refined). */
export function assembleClusterHistory(input: ClusterHistoryInput): ClusterHistory {
  const { frame } = input;
  const grid = historyGrid(frame.start, frame.end, frame.stepSeconds);
  const scalar = (key: string): (number | null)[] => alignValues(pick(input.scalars, 'series', key), grid);
  const eligibleStates = scalar('eligible').map((v) => (v === null ? null : v >= 0.5 ? 'eligible' : 'ineligible'));
  const nodesInfo = newestInfo(input.ineligibleNodes, grid);
  const causes = newestLabel(input.insufficientCause, grid, 'cause');
  const detailAt = (k: number): string | null => ineligibleDetail(nodesInfo[k] ?? null, causes[k] ?? null);
  const causeAt = (k: number): string | null => {
    const node = (nodesInfo[k] ?? [])[0];
    if (node?.cause !== undefined) return node.cause;
    const cause = causes[k] ?? null;
    return cause === 'none' ? null : cause;
  };

  const eligibility = intervalsOf(eligibleStates, grid, (value, k) => {
    if (value === 'eligible') return 'Eligible';
    const detail = detailAt(k);
    return detail === null ? 'Ineligible' : `Ineligible — ${detail}`;
  });
  const transitions: HistoryTransition[] = changesOf(eligibleStates, grid).map((c) => {
    const detail = detailAt(c.index);
    const text = c.to === 'eligible'
      ? 'The cluster became eligible: the topology cache has CPU ratios again.'
      : `The cluster became ineligible${detail === null ? '' : `: ${detail}`}.`;
    return { at: c.at, precisionSeconds: worstStatePrecision(c, grid.step), kind: c.to === 'eligible' ? 'eligible' : 'ineligible', from: c.from, to: c.to, reason: c.to === 'eligible' ? null : causeAt(c.index), text };
  });
  const totalNodes = scalar('nodes');
  const nodes: HistorySeries[] = [
    { key: 'nodes', label: 'All nodes', points: pointsOf(totalNodes, grid) },
    ...zoneSeries(input.zoneNodes, grid),
  ];
  return {
    ...frame,
    eligibility,
    transitions: sortTransitions(transitions),
    spend: SPEND_KEYS.map(([scenario, key, label]) => ({ key, label, points: pointsOf(alignValues(pick(input.spend, 'scenario', scenario), grid), grid) })),
    nodes,
    services: SERVICE_COUNT_KEYS.map(([key, label]) => ({ key, label, points: pointsOf(scalar(key), grid) })),
    marks: nodeMarks(totalNodes, grid),
  };
}
