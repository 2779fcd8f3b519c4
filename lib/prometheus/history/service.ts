/**
 * A Service's history assembled from its range answers (pure): the queries of queries.ts
 * (`serviceQueries`) turned into the step-aligned series, state intervals, transitions, marks and
 * before/after comparison of lib/shared/history-types.ts. Transitions are at step precision here;
 * refinement.ts narrows them.
 */
import type { HistoryMark, HistorySeries, HistoryTransition, ServiceHistory } from '../../shared/history-types';
import type { EventRecord } from '../../topology/model/cluster-model';
import { HINTS_REASON_TEXT } from '../../topology/report/hints-reason';
import type { MatrixSeries } from '../client';
import { changesOf, expectedState, hintsState, intervalsOf, sortTransitions, worstStatePrecision } from './changes';
import { comparisonAt } from './comparison';
import { alignValues, historyGrid, newestInfo, newestLabel, pick, pointsOf, zoneSeries } from './grid';
import { byTime, eventMarks, nodeMarks } from './marks';
import { expectedTransitionText, HINTS_WORD, hintsTransitionText, mechanismDescriptor, mechanismLabel, offLabel, reasonSentence, withoutPeriod } from './text';

/** The range answers of a Service view (see queries.ts, `serviceQueries`). */
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
  const observedChanges = changesOf(observedStates, grid);
  for (const c of observedChanges) {
    const reason = reasonAt(c.index);
    transitions.push({ at: c.at, precisionSeconds: worstStatePrecision(c, grid.step), kind: c.to === 'on' ? 'hints-on' : c.to === 'off' ? 'hints-off' : 'hints-partial', from: c.from, to: c.to, reason, text: hintsTransitionText(c.to, reason, text) });
  }
  // The controller's expectation gets a row of its own only where the slices did not follow it:
  // when the observed hints changed the same way within a couple of samples, that row already
  // says it, and a second row would list one change twice.
  const followed = (to: string, at: number) => observedChanges.some((o) => o.to === to && Math.abs(o.at - at) <= 2 * grid.step);
  for (const c of changesOf(expectedStates, grid)) {
    if (followed(c.to, c.at)) continue;
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
