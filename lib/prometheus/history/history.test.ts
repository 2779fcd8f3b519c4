import { describe, expect, it } from 'vitest';
import type { HistoryTransition } from '../../shared/history-types';
import { MIN_COMPARISON_SAMPLES } from '../../shared/history-types';
import type { EventRecord } from '../../topology/model/cluster-model';
import type { MatrixSeries } from '../client';
import { changesOf, hintsState, intervalsOf } from './changes';
import { assembleClusterHistory } from './cluster';
import { comparisonAt } from './comparison';
import { alignValues, historyGrid, newestInfo } from './grid';
import { eventMarks } from './marks';
import { applyClusterRefinements, applyServiceRefinements, refinementWindows, refineTransition } from './refinement';
import type { ServiceHistoryInput } from './service';
import { assembleServiceHistory } from './service';
import { mechanismDescriptor } from './text';

const START = 1_700_000_000;
const STEP = 60;
/** 31 steps: START … START + 30 min. */
const END = START + 30 * STEP;
const at = (k: number): number => START + k * STEP;

/** A series with one value per step, `null` = no sample. */
function series(metric: Record<string, string>, values: readonly (number | null)[]): MatrixSeries {
  return { metric, values: values.flatMap((v, k) => (v === null ? [] : [{ t: at(k), v }])) };
}

/** `n` steps of `value`. */
function run<T>(n: number, value: T): T[] {
  return Array.from({ length: n }, () => value);
}

/** An info series read as timestamp(): present (value = its step time) where `present` is true. */
function info(metric: Record<string, string>, present: readonly boolean[]): MatrixSeries {
  return series(metric, present.map((p, k) => (p ? at(k) : null)));
}

const TEXT = { enabled: 'Topology mode Auto is in effect and the controller writes zone hints.', 'insufficient-number-of-endpoints': 'Hints are off: the Service has fewer ready endpoints than the cluster has zones.' };

describe('grid and alignment', () => {
  it('puts points on start + k × step, samples off the grid or not finite become gaps', () => {
    expect(historyGrid(0, 10, 5).times).toEqual([0, 5, 10]);
    expect(historyGrid(0, 12, 5).times).toEqual([0, 5, 10]);
    const aligned = alignValues({ metric: {}, values: [{ t: 0, v: 1 }, { t: 5.001, v: 2 }, { t: 10, v: Number.NaN }, { t: 99, v: 3 }] }, historyGrid(0, 15, 5));
    expect(aligned).toEqual([1, 2, null, null]);
    expect(alignValues(undefined, historyGrid(0, 5, 5))).toEqual([null, null]);
  });

  it('reads the hints ratio as on (1), off (0) and partial (between)', () => {
    expect([1, 0, 0.5, 0.999, null].map(hintsState)).toEqual(['on', 'off', 'partial', 'partial', null]);
  });

  it('keeps, per step, the info series with the newest sample (a replaced series lingers in Prometheus)', () => {
    const old = series({ reason: 'enabled' }, [at(0), at(1), at(1), at(1)]);
    const current = series({ reason: 'insufficient-number-of-endpoints' }, [null, null, at(2), at(3)]);
    expect(newestInfo([old, current], historyGrid(START, START + 3 * STEP, STEP)).map((m) => m?.map((x) => x.reason) ?? null)).toEqual([
      ['enabled'],
      ['enabled'],
      ['insufficient-number-of-endpoints'],
      ['insufficient-number-of-endpoints'],
    ]);
    const a = series({ node: 'a' }, [at(0)]);
    const b = series({ node: 'b' }, [at(0)]);
    expect(newestInfo([a, b], historyGrid(START, START + STEP, STEP))).toEqual([[{ node: 'a' }, { node: 'b' }], null]);
  });
});

describe('intervals and changes', () => {
  const g = historyGrid(0, 50, 10);
  it('makes intervals that a gap ends, the last one open', () => {
    expect(intervalsOf(['on', 'on', null, 'off', 'off', 'on'], g, (v) => v.toUpperCase())).toEqual([
      { from: 0, to: 20, value: 'on', label: 'ON' },
      { from: 30, to: 50, value: 'off', label: 'OFF' },
      { from: 50, to: null, value: 'on', label: 'ON' },
    ]);
    expect(intervalsOf(['on', null], historyGrid(0, 10, 10), (v) => v)).toEqual([{ from: 0, to: 10, value: 'on', label: 'on' }]);
    expect(intervalsOf([null, null], historyGrid(0, 10, 10), (v) => v)).toEqual([]);
  });

  it('finds changes, across a gap with the gap as precision, and none for the first state', () => {
    expect(changesOf(['on', 'on', null, 'off', 'off', 'on'], g)).toEqual([
      { index: 3, at: 30, previousAt: 10, from: 'on', to: 'off' },
      { index: 5, at: 50, previousAt: 40, from: 'off', to: 'on' },
    ]);
    expect(changesOf(['on', null, 'on'], historyGrid(0, 20, 10))).toEqual([]);
  });
});

describe('marks', () => {
  const event = (reason: string, lastTimestamp: string | null, firstTimestamp: string | null = null): EventRecord => ({
    namespace: 'shop',
    name: `checkout.${reason}`,
    involvedObject: { kind: 'Service', name: 'checkout', namespace: 'shop' },
    type: 'Warning',
    reason,
    message: 'Insufficient number of endpoints',
    count: 1,
    firstTimestamp,
    lastTimestamp,
  });

  it('marks the Events in the range at their last timestamp (else the first)', () => {
    const inRange = new Date(at(3) * 1000).toISOString();
    const before = new Date((START - 60) * 1000).toISOString();
    expect(eventMarks([event('TopologyAwareHintsDisabled', inRange), event('Old', before), event('FirstOnly', null, inRange), event('None', null)], START, END)).toEqual([
      { at: at(3), kind: 'event', text: 'TopologyAwareHintsDisabled: Insufficient number of endpoints' },
      { at: at(3), kind: 'event', text: 'FirstOnly: Insufficient number of endpoints' },
    ]);
  });

  it('describes the mechanism labels as the toggle writes them', () => {
    expect(mechanismDescriptor({ mechanism: 'topology-mode', topology_mode: 'Auto', traffic_distribution: '' })).toBe('topology-mode Auto');
    expect(mechanismDescriptor({ mechanism: 'legacy-annotation', topology_mode: 'auto', traffic_distribution: '' })).toBe('topology-aware-hints auto');
    expect(mechanismDescriptor({ mechanism: 'trafficDistribution', topology_mode: '', traffic_distribution: 'PreferClose' })).toBe('trafficDistribution PreferClose');
    expect(mechanismDescriptor({ mechanism: 'none', topology_mode: '', traffic_distribution: '' })).toBe('(none)');
  });
});

/** A Service over 31 steps: hints on 0–9, off 10–19 (too few endpoints), on 20–30; toggle at 25 (mechanism → trafficDistribution); nodes 9 → 6 at 8. */
function serviceInput(overrides: Partial<ServiceHistoryInput> = {}): ServiceHistoryInput {
  const off = (k: number): boolean => k >= 10 && k < 20;
  const ks = Array.from({ length: 31 }, (_, k) => k);
  return {
    frame: { range: '1h', start: START, end: END, stepSeconds: STEP, status: { state: 'ok' }, prometheus: 'http://prom:9090', namespace: 'shop', name: 'checkout' },
    scalars: [
      series({ series: 'observed' }, ks.map((k) => (off(k) ? 0 : 1))),
      series({ series: 'expected' }, ks.map((k) => (off(k) ? 0 : 1))),
      series({ series: 'predicted' }, ks.map((k) => (off(k) ? 0.6 : 0.1))),
      series({ series: 'cost' }, ks.map((k) => (k >= 25 ? 2 : 4))),
    ],
    reasons: [
      info({ reason: 'enabled' }, ks.map((k) => !off(k))),
      info({ reason: 'insufficient-number-of-endpoints' }, ks.map(off)),
    ],
    info: [
      info({ mechanism: 'topology-mode', topology_mode: 'Auto', traffic_distribution: '' }, ks.map((k) => k < 25)),
      info({ mechanism: 'trafficDistribution', topology_mode: '', traffic_distribution: 'PreferClose' }, ks.map((k) => k >= 25)),
    ],
    readyEndpoints: [series({ zone: 'b' }, ks.map((k) => (off(k) ? 0 : 2))), series({ zone: 'a' }, ks.map((k) => (off(k) ? 1 : 5)))],
    minimumEndpoints: [],
    nodes: [series({}, ks.map((k) => (k >= 8 ? 6 : 9)))],
    events: [],
    reasonText: TEXT,
    ...overrides,
  };
}

describe('assembleServiceHistory', () => {
  const history = assembleServiceHistory(serviceInput());

  it('states hints per step as intervals, the off one labelled with its reason', () => {
    expect(history.hintsObserved).toEqual([
      { from: at(0), to: at(10), value: 'on', label: 'Hints on' },
      { from: at(10), to: at(20), value: 'off', label: 'Hints off — The Service has fewer ready endpoints than the cluster has zones' },
      { from: at(20), to: null, value: 'on', label: 'Hints on' },
    ]);
    expect(history.hintsExpected.map((i) => i.label)).toEqual(['Expected on', 'Expected off', 'Expected on']);
    expect(history.reasons.map((i) => [i.value, i.label])).toEqual([
      ['enabled', 'Topology mode Auto is in effect and the controller writes zone hints'],
      ['insufficient-number-of-endpoints', 'Hints are off: the Service has fewer ready endpoints than the cluster has zones'],
      ['enabled', 'Topology mode Auto is in effect and the controller writes zone hints'],
    ]);
    expect(history.mechanism).toEqual([
      { from: at(0), to: at(25), value: 'topology-mode', label: 'topology-mode annotation (topology-mode Auto)' },
      { from: at(25), to: null, value: 'trafficDistribution', label: 'spec.trafficDistribution (trafficDistribution PreferClose)' },
    ]);
  });

  it('lists the transitions newest last with reason and a sentence', () => {
    const rows = history.transitions.map((t) => [t.at, t.kind, t.reason, t.text, t.precisionSeconds]);
    expect(rows).toEqual([
      // The controller's expectation changed with the slices: one row each time, not two.
      [at(10), 'hints-off', 'insufficient-number-of-endpoints', 'Hints turned off: the Service has fewer ready endpoints than the cluster has zones.', STEP],
      // A recovery: the step before still showed the worst state, so it may have happened up to a step earlier.
      [at(20), 'hints-on', 'enabled', 'Hints turned on: Topology mode Auto is in effect and the controller writes zone hints.', 2 * STEP],
      [at(25), 'mechanism', 'enabled', 'Mechanism changed: topology-mode annotation → spec.trafficDistribution.', STEP],
    ]);
  });

  it("keeps the controller's expectation as a row of its own where the slices did not follow it", () => {
    // Expected off from step 10, but the slices kept their hints until the end.
    const stuck = assembleServiceHistory(serviceInput({ scalars: serviceInput().scalars.map((s) => (s.metric.series === 'observed' ? { ...s, values: s.values.map((p) => ({ ...p, v: 1 })) } : s)) }));
    expect(stuck.transitions.map((t) => [t.at, t.kind])).toEqual([
      [at(10), 'expected-off'],
      [at(20), 'expected-on'],
      [at(25), 'mechanism'],
    ]);
  });

  it('uses the code itself for a reason this build has no text for', () => {
    const odd = assembleServiceHistory(serviceInput({ reasons: [info({ reason: 'brand-new-reason' }, run(31, true))] }));
    expect(odd.transitions.find((t) => t.kind === 'hints-off')?.text).toBe('Hints turned off: brand-new-reason.');
  });

  it('gives ready endpoints per zone sorted, and measured cross-zone only when it was measured', () => {
    expect(history.readyEndpoints.map((s) => s.key)).toEqual(['a', 'b']);
    expect(history.readyEndpoints[0]?.points[12]).toEqual({ t: at(12), v: 1 });
    expect(history.crossZone.map((s) => s.key)).toEqual(['predicted']);
    const measured = assembleServiceHistory(serviceInput({ scalars: [...serviceInput().scalars, series({ series: 'measured' }, [null, 0.3])] }));
    expect(measured.crossZone.map((s) => s.key)).toEqual(['predicted', 'measured']);
    expect(measured.crossZone[1]?.points.slice(0, 3)).toEqual([{ t: at(0), v: null }, { t: at(1), v: 0.3 }, { t: at(2), v: null }]);
  });

  it('marks node-count changes and the toggle', () => {
    expect(history.marks).toEqual([
      { at: at(8), kind: 'nodes', text: 'Nodes 9 → 6' },
      { at: at(25), kind: 'toggle', text: 'topology-mode Auto → trafficDistribution PreferClose' },
    ]);
  });

  it('compares equal windows before and after the last mechanism change', () => {
    const comparison = history.comparison;
    // 5 steps after the change (25–30), so 5 before (20–24): not enough yet.
    expect(comparison).toMatchObject({ at: at(25), mechanismBefore: 'topology-mode', mechanismAfter: 'trafficDistribution', enough: false });
    expect(comparison?.before).toEqual({ from: at(20), to: at(25), samples: 5, hintsOnShare: 1, predictedCrossZone: 0.1, measuredCrossZone: null, costPerMonth: 4 });
    expect(comparison?.after).toMatchObject({ from: at(25), to: at(30), samples: 6, costPerMonth: 2 });
    expect(comparison?.message).toBe(`needs ${MIN_COMPARISON_SAMPLES} samples after the change; 6 so far — check again in about 4 minutes`);
    const none = assembleServiceHistory(serviceInput({ info: [info({ mechanism: 'topology-mode', topology_mode: 'Auto', traffic_distribution: '' }, run(31, true))] }));
    expect(none.comparison).toBeNull();
  });

  it('says enough once both sides hold the samples, and what is missing before', () => {
    const g = historyGrid(0, 100 * 60, 60);
    const ones = g.times.map(() => 1 as number | null);
    const change = { index: 50, at: 3000, previousAt: 2940, from: 'none', to: 'topology-mode' };
    const inputs = { observed: ones.map((v, k) => (k < 50 ? 0 : v)), predicted: ones, measured: g.times.map(() => null), cost: ones };
    const full = comparisonAt(change, g, inputs);
    expect(full).toMatchObject({ enough: true, message: null, before: { samples: 50, hintsOnShare: 0 }, after: { samples: 51, hintsOnShare: 1 } });
    const noHistory = comparisonAt(change, g, { ...inputs, observed: inputs.observed.map((v, k) => (k < 45 ? null : v)) });
    expect(noHistory).toMatchObject({ enough: false, message: 'needs 10 samples before the change; Prometheus holds 5 (zonescope was not scraped before it)' });
    const shortBefore = comparisonAt({ ...change, index: 9, at: 540 }, g, inputs);
    expect(shortBefore).toMatchObject({ enough: false, before: { samples: 9 }, after: { samples: 10 }, message: 'needs 10 samples before the change; 9 in this range — choose a longer range' });
    const nearStart = comparisonAt({ ...change, index: 5, at: 300 }, g, inputs);
    expect(nearStart).toMatchObject({ enough: false, message: 'needs 10 samples after the change; 6 so far — check again in about 4 minutes' });
  });
});

describe('refinement', () => {
  const transition = (kind: HistoryTransition['kind'], atTime: number, precisionSeconds = 120, to = 'off'): HistoryTransition => ({ at: atTime, precisionSeconds, kind, from: 'on', to, reason: null, text: '' });

  it('asks for the newest transitions first, at most max, skipping those across a gap', () => {
    const transitions = [transition('hints-off', 1200), transition('mechanism', 1320), transition('hints-on', 2400, 3600), transition('expected-off', 3600), transition('ineligible', 4800)];
    expect(refinementWindows(transitions, 120, 20)).toEqual([
      { index: 4, query: 'eligible', start: 4680, end: 4800, stepSeconds: 2, pick: 'first' },
      { index: 3, query: 'expected', start: 3480, end: 3600, stepSeconds: 2, pick: 'first' },
      { index: 1, query: 'mechanism', start: 1200, end: 1320, stepSeconds: 2, pick: 'first' },
      { index: 0, query: 'observed', start: 1080, end: 1200, stepSeconds: 2, pick: 'first' },
    ]);
    // A recovery spans two steps and takes the last entry into the new state.
    expect(refinementWindows([{ ...transition('hints-on', 1200, 240, 'on'), from: 'off' }], 120, 20)).toEqual([{ index: 0, query: 'observed', start: 960, end: 1200, stepSeconds: 2, pick: 'last' }]);
    expect(refinementWindows([{ ...transition('hints-on', 1200, 241, 'on'), from: 'off' }], 120, 20)).toEqual([]);
    expect(refinementWindows(transitions, 120, 1).map((w) => w.index)).toEqual([4]);
    // Already at the refinement resolution: nothing to do.
    expect(refinementWindows([transition('hints-off', 10, 1)], 5, 20)).toEqual([]);
  });

  it('moves the transition to the first refined step in the new state, and the interval edges with it', () => {
    const history = assembleServiceHistory(serviceInput());
    const windows = refinementWindows(history.transitions, STEP, 20);
    const offWindow = windows.find((w) => history.transitions[w.index]?.kind === 'hints-off');
    expect(offWindow).toEqual({ index: 0, query: 'observed', start: at(9), end: at(10), stepSeconds: 1, pick: 'first' });
    if (offWindow === undefined) return;
    // The ratio fell to 0 at at(9) + 37 s.
    const refinedSeries = { metric: {}, values: Array.from({ length: 61 }, (_, i) => ({ t: at(9) + i, v: i >= 37 ? 0 : 1 })) };
    const offTransition = history.transitions[offWindow.index];
    expect(offTransition && refineTransition(offTransition, offWindow, [refinedSeries])).toEqual({ at: at(9) + 37, precisionSeconds: 1 });
    const refined = applyServiceRefinements(history, [{ window: offWindow, matrix: [refinedSeries] }]);
    const off = refined.transitions.find((t) => t.kind === 'hints-off');
    expect(off).toMatchObject({ at: at(9) + 37, precisionSeconds: 1, reason: 'insufficient-number-of-endpoints' });
    expect(refined.hintsObserved.slice(0, 2).map((i) => [i.from, i.to])).toEqual([[at(0), at(9) + 37], [at(9) + 37, at(20)]]);
    // The reason changed in the same step: its edge moves too.
    expect(refined.reasons[1]?.from).toBe(at(9) + 37);
    // The expected intervals were not refined here and keep the step edge.
    expect(refined.hintsExpected[1]?.from).toBe(at(10));
    // A refinement answer without samples keeps the step's precision.
    expect(applyServiceRefinements(history, [{ window: offWindow, matrix: [] }]).transitions).toEqual(history.transitions);
  });

  it('takes the reason at the refined time from the reason series of the refinement answer', () => {
    // A flap inside one step: the step's reason (newest at the step's end) is already 'enabled' again.
    const history = assembleServiceHistory(serviceInput({ reasons: [info({ reason: 'enabled' }, run(31, true))] }));
    const off = history.transitions.find((t) => t.kind === 'hints-off');
    expect(off?.reason).toBe('enabled');
    const window = refinementWindows(history.transitions, STEP, 20).find((w) => w.query === 'observed' && w.pick === 'first');
    if (window === undefined) throw new Error('no refinement window for hints-off');
    const seconds = Array.from({ length: 61 }, (_, i) => i);
    const matrix: MatrixSeries[] = [
      { metric: {}, values: seconds.map((i) => ({ t: at(9) + i, v: i >= 20 && i < 40 ? 0 : 1 })) },
      { metric: { reason: 'enabled' }, values: seconds.map((i) => ({ t: at(9) + i, v: at(9) + (i >= 20 && i < 40 ? 19 : i) })) },
      { metric: { reason: 'insufficient-number-of-endpoints' }, values: seconds.filter((i) => i >= 20).map((i) => ({ t: at(9) + i, v: at(9) + Math.min(i, 39) })) },
    ];
    const refined = applyServiceRefinements(history, [{ window, matrix }], TEXT);
    expect(refined.transitions.find((t) => t.kind === 'hints-off')).toMatchObject({
      at: at(9) + 20,
      precisionSeconds: 1,
      reason: 'insufficient-number-of-endpoints',
      text: 'Hints turned off: the Service has fewer ready endpoints than the cluster has zones.',
    });
    expect(refined.hintsObserved.find((i) => i.value === 'off')).toMatchObject({ from: at(9) + 20, label: 'Hints off — The Service has fewer ready endpoints than the cluster has zones' });
  });

  it('refines a mechanism change from the info series, moving its interval, toggle mark and comparison', () => {
    const history = assembleServiceHistory(serviceInput());
    const window = refinementWindows(history.transitions, STEP, 20).find((w) => w.query === 'mechanism');
    expect(window).toEqual({ index: 2, query: 'mechanism', start: at(24), end: at(25), stepSeconds: 1, pick: 'first' });
    if (window === undefined) return;
    // The old info series lingers (lookback) after the new one appears at at(24) + 12 s: the newest wins.
    const seconds = Array.from({ length: 61 }, (_, i) => i);
    const matrix = [
      { metric: { mechanism: 'topology-mode' }, values: seconds.map((i) => ({ t: at(24) + i, v: at(24) + Math.min(i, 11) })) },
      { metric: { mechanism: 'trafficDistribution' }, values: seconds.filter((i) => i >= 12).map((i) => ({ t: at(24) + i, v: at(24) + i })) },
    ];
    const refined = applyServiceRefinements(history, [{ window, matrix }]);
    expect(refined.transitions.find((t) => t.kind === 'mechanism')).toMatchObject({ at: at(24) + 12, precisionSeconds: 1 });
    expect(refined.mechanism.map((i) => i.from)).toEqual([at(0), at(24) + 12]);
    expect(refined.marks.find((m) => m.kind === 'toggle')?.at).toBe(at(24) + 12);
    expect(refined.comparison?.at).toBe(at(24) + 12);
    expect(refined.comparison?.before).toEqual(history.comparison?.before);
  });
});

describe('assembleClusterHistory', () => {
  const ks = Array.from({ length: 31 }, (_, k) => k);
  const ineligible = (k: number): boolean => k >= 10 && k < 15;
  const input = {
    frame: { range: '1h' as const, start: START, end: END, stepSeconds: STEP, status: { state: 'ok' as const }, prometheus: 'http://prom:9090' },
    scalars: [
      series({ series: 'eligible' }, ks.map((k) => (ineligible(k) ? 0 : 1))),
      series({ series: 'nodes' }, ks.map((k) => (k >= 10 ? 10 : 9))),
      series({ series: 'hints-observed-on' }, ks.map(() => 4)),
    ],
    spend: [series({ scenario: 'now' }, ks.map(() => 120)), series({ scenario: 'after_sync' }, ks.map(() => 90))],
    zoneNodes: [series({ zone: 'b' }, ks.map(() => 4)), series({ zone: 'a' }, ks.map(() => 5))],
    ineligibleNodes: ['n1', 'n2', 'n3', 'n4', 'n5'].map((node, i) => info({ node, cause: i === 0 ? 'missing-cpu' : 'missing-zone' }, ks.map(ineligible))),
    insufficientCause: [info({ cause: 'none' }, ks.map((k) => !ineligible(k))), info({ cause: 'node-missing-zone' }, ks.map(ineligible))],
  };

  it('states eligibility with the nodes that make the cluster ineligible', () => {
    const history = assembleClusterHistory(input);
    expect(history.eligibility).toEqual([
      { from: at(0), to: at(10), value: 'eligible', label: 'Eligible' },
      { from: at(10), to: at(15), value: 'ineligible', label: 'Ineligible — node n1 reports no allocatable CPU, node n2 has no zone label, node n3 has no zone label and 2 more' },
      { from: at(15), to: null, value: 'eligible', label: 'Eligible' },
    ]);
    expect(history.transitions.map((t) => [t.kind, t.reason, t.text])).toEqual([
      ['ineligible', 'missing-cpu', 'The cluster became ineligible: node n1 reports no allocatable CPU, node n2 has no zone label, node n3 has no zone label and 2 more.'],
      ['eligible', null, 'The cluster became eligible: the topology cache has CPU ratios again.'],
    ]);
  });

  it('falls back to the insufficient cause without node series, and gives spend, nodes and Services series', () => {
    const history = assembleClusterHistory({ ...input, ineligibleNodes: [] });
    expect(history.eligibility[1]?.label).toBe('Ineligible — a Ready node has no zone label');
    expect(history.transitions[0]?.reason).toBe('node-missing-zone');
    expect(history.spend.map((s) => [s.key, s.label, s.points[0]?.v])).toEqual([['now', 'Now', 120], ['after-sync', 'After sync', 90], ['best', 'Best', null]]);
    expect(history.nodes.map((s) => s.key)).toEqual(['nodes', 'a', 'b']);
    expect(history.services.map((s) => [s.key, s.points[0]?.v])).toEqual([['hints-expected-on', null], ['hints-observed-on', 4], ['needing-attention', null]]);
    expect(history.marks).toEqual([{ at: at(10), kind: 'nodes', text: 'Nodes 9 → 10' }]);
  });

  it('refines eligibility edges', () => {
    const history = assembleClusterHistory(input);
    const [window] = refinementWindows(history.transitions, STEP, 20);
    expect(window).toEqual({ index: 1, query: 'eligible', start: at(13), end: at(15), stepSeconds: 1, pick: 'last' });
    if (window === undefined) return;
    // Eligible at +5 s, a one-scrape flap to ineligible at +30 s, eligible from +31 s: the last recovery counts.
    const matrix = [{ metric: {}, values: Array.from({ length: 121 }, (_, i) => ({ t: at(13) + i, v: i >= 5 && i !== 30 ? 1 : 0 })) }];
    const refined = applyClusterRefinements(history, [{ window, matrix }]);
    expect(refined.transitions[1]).toMatchObject({ kind: 'eligible', at: at(13) + 31, precisionSeconds: 1 });
    expect(refined.eligibility.map((i) => i.from)).toEqual([at(0), at(10), at(13) + 31]);
  });
});
