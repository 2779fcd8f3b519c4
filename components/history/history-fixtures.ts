/**
 * History DTOs for component tests (not a test file itself): a Service whose hints went off
 * yesterday afternoon and came back, and a cluster that was ineligible for a while because of one
 * node. Shaped as `GET …/history` answers them (lib/shared/history-types.ts).
 */
import type { ClusterHistory, HistoryComparison, HistoryPoint, ServiceHistory } from '@/lib/shared/history-types';

/** 2026-12-01 18:00:00 UTC: the end of the fixtures' 24 h range. */
export const END = Date.UTC(2026, 11, 1, 18, 0, 0) / 1000;
export const START = END - 86_400;
export const STEP = 300;

/** `value(t)` every step from START to END; `null` = a gap. */
export function points(value: (t: number) => number | null): HistoryPoint[] {
  const out: HistoryPoint[] = [];
  for (let t = START; t <= END; t += STEP) out.push({ t, v: value(t) });
  return out;
}

/** Yesterday (30 Nov) 21:02 UTC: hints went off. */
export const OFF_AT = Date.UTC(2026, 10, 30, 21, 2, 0) / 1000;
/** Today 15:00 UTC: back on. */
export const ON_AT = Date.UTC(2026, 11, 1, 15, 0, 0) / 1000;

export function serviceHistory(overrides: Partial<ServiceHistory> = {}): ServiceHistory {
  const off = (t: number) => t >= OFF_AT && t < ON_AT;
  return {
    range: '24h',
    start: START,
    end: END,
    stepSeconds: STEP,
    status: { state: 'ok' },
    prometheus: 'http://prometheus.monitoring:9090',
    namespace: 'shop',
    name: 'cart',
    hintsObserved: [
      { from: START, to: OFF_AT, value: 'on', label: 'Hints on' },
      { from: OFF_AT, to: ON_AT, value: 'off', label: 'Hints off — Insufficient number of endpoints' },
      { from: ON_AT, to: null, value: 'on', label: 'Hints on' },
    ],
    hintsExpected: [
      { from: START, to: OFF_AT, value: 'on', label: 'Expected on' },
      { from: OFF_AT, to: ON_AT, value: 'off', label: 'Expected off' },
      { from: ON_AT, to: null, value: 'on', label: 'Expected on' },
    ],
    reasons: [
      { from: START, to: OFF_AT, value: 'enabled', label: 'Auto hints on' },
      { from: OFF_AT, to: ON_AT, value: 'insufficient-number-of-endpoints', label: 'Insufficient number of endpoints' },
      { from: ON_AT, to: null, value: 'enabled', label: 'Auto hints on' },
    ],
    mechanism: [{ from: START, to: null, value: 'topology-mode', label: 'topology-mode' }],
    transitions: [
      {
        at: OFF_AT,
        precisionSeconds: 15,
        kind: 'hints-off',
        from: 'on',
        to: 'off',
        reason: 'insufficient-number-of-endpoints',
        text: 'Hints turned off: Insufficient number of endpoints (3 ready, 3 zones need 4).',
      },
      { at: ON_AT, precisionSeconds: 15, kind: 'hints-on', from: 'off', to: 'on', reason: 'enabled', text: 'Hints turned on: Auto hints on.' },
    ],
    readyEndpoints: [
      { key: 'eu-west-1a', label: 'eu-west-1a', points: points((t) => (off(t) ? 1 : 2)) },
      { key: 'eu-west-1b', label: 'eu-west-1b', points: points(() => 1) },
      { key: 'eu-west-1c', label: 'eu-west-1c', points: points(() => 1) },
    ],
    minimumEndpoints: [
      { key: 'eu-west-1a', label: 'eu-west-1a', points: points(() => 1) },
      { key: 'eu-west-1b', label: 'eu-west-1b', points: points(() => 1) },
      { key: 'eu-west-1c', label: 'eu-west-1c', points: points(() => 1) },
    ],
    crossZone: [{ key: 'predicted', label: 'Predicted', points: points((t) => (off(t) ? 0.6667 : 0.05)) }],
    marks: [
      { at: OFF_AT, kind: 'event', text: 'TopologyAwareHintsDisabled: Insufficient number of endpoints' },
      { at: OFF_AT - 60, kind: 'nodes', text: 'Nodes 12 → 9' },
    ],
    comparison: null,
    ...overrides,
  };
}

export function comparison(enough: boolean): HistoryComparison {
  const at = Date.UTC(2026, 11, 1, 12, 0, 0) / 1000;
  return {
    at,
    mechanismBefore: 'none',
    mechanismAfter: 'topology-mode',
    enough,
    message: enough ? null : 'needs 10 samples after the change; 4 so far — check again in about a minute',
    before: { from: at - 3600, to: at, samples: 12, hintsOnShare: 0, predictedCrossZone: 0.6667, measuredCrossZone: null, costPerMonth: 12.4 },
    after: { from: at, to: at + 3600, samples: enough ? 12 : 4, hintsOnShare: 1, predictedCrossZone: 0.05, measuredCrossZone: null, costPerMonth: 0.93 },
  };
}

export function clusterHistory(overrides: Partial<ClusterHistory> = {}): ClusterHistory {
  const bad = (t: number) => t >= OFF_AT && t < ON_AT;
  return {
    range: '24h',
    start: START,
    end: END,
    stepSeconds: STEP,
    status: { state: 'ok' },
    prometheus: 'http://prometheus.monitoring:9090',
    eligibility: [
      { from: START, to: OFF_AT, value: 'eligible', label: 'Eligible' },
      { from: OFF_AT, to: ON_AT, value: 'ineligible', label: 'Ineligible — node ip-10-0-3-7 has no zone label (missing-zone)' },
      { from: ON_AT, to: null, value: 'eligible', label: 'Eligible' },
    ],
    transitions: [
      { at: OFF_AT, precisionSeconds: 15, kind: 'ineligible', from: 'eligible', to: 'ineligible', reason: 'node-missing-zone', text: 'The cluster became ineligible: node ip-10-0-3-7 has no zone label.' },
      { at: ON_AT, precisionSeconds: 15, kind: 'eligible', from: 'ineligible', to: 'eligible', reason: 'none', text: 'The cluster is eligible again.' },
    ],
    spend: [
      { key: 'now', label: 'Now', points: points((t) => (bad(t) ? 420 : 35)) },
      { key: 'after-sync', label: 'After sync', points: points((t) => (bad(t) ? 420 : 35)) },
      { key: 'best', label: 'Best', points: points(() => 20) },
    ],
    nodes: [
      { key: 'nodes', label: 'Nodes', points: points(() => 9) },
      { key: 'eu-west-1a', label: 'eu-west-1a', points: points(() => 3) },
    ],
    services: [{ key: 'needing-attention', label: 'Services needing attention', points: points((t) => (bad(t) ? 14 : 2)) }],
    marks: [{ at: OFF_AT - 60, kind: 'nodes', text: 'Nodes 12 → 9' }],
    ...overrides,
  };
}
