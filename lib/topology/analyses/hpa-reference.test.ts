/**
 * The HPA analysis as it was before it was made fast (one allocation table per use, one call of the
 * move loop per placement and per sample, a closure per random value), kept as the reference: the
 * fast versions (replica-scan.ts, scale-down-risk.ts, and hpa.ts over them) must give exactly the
 * same results, sample for sample. The Monte Carlo draws each zone's kept pods from its
 * hypergeometric conditional (it drew pods one by one until issue 17); that the draws follow the
 * exact law is checked in scale-down-risk.test.ts.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import { buildClusterContext } from '../model/cluster-context';
import { testEndpoints, testService, testSlice, testWorkload, testWorkloadCluster } from '../model/test-cluster';
import { donatedFor } from './endpoint-change-search';
import type { HpaScanRow, SpreadOutcome } from './replica-scan';
import type { ScaleDownRisk } from './scale-down-risk';
import { analyzeHpa } from './hpa';
import { findServiceWorkload } from './service-workload';
import { MAX_SCAN_ROWS, scanReplicaCounts, worstSpread } from './replica-scan';
import { MAX_EXACT_OUTCOMES, MONTE_CARLO_SAMPLES, scaleDownRisk, scaleDownSeed } from './scale-down-risk';
import { createSeededRandom } from './seeded-random';
import { sortedKeys, sortStrings } from '../upstream/sorted';
import { computeAllocationTable, getAllocations } from '../upstream/topology-cache';
import { getGivingAndReceivingZones } from '../upstream/topology-cache-utils';
import type { ValueByZone } from '../upstream/types';

/** Replicas spread as evenly as possible over `zones` (sorted); the remainder goes to the first zones. */
function evenSpreadReference(zones: readonly string[], replicas: number): ValueByZone<number> {
  const sorted = sortStrings([...zones]);
  const out: ValueByZone<number> = {};
  const base = Math.floor(replicas / Math.max(1, sorted.length));
  let remainder = replicas - base * sorted.length;
  for (const zone of sorted) {
    out[zone] = base + (remainder > 0 ? 1 : 0);
    if (remainder > 0) remainder--;
  }
  return out;
}

function spreadOthers(zones: readonly string[], skip: string, total: number): ValueByZone<number> {
  return evenSpreadReference(zones.filter((z) => z !== skip), total);
}

/**
 * The most donating placement of `replicas` over the ratio zones among the extreme placements a
 * maximum skew allows: one zone as low as possible with the others even, or one zone as high as
 * possible with the others even. `maxSkew = null` means unconstrained.
 */
function worstSpreadReference(ratios: Readonly<ValueByZone<number>>, replicas: number, maxSkew: number | null): SpreadOutcome {
  const zones = sortedKeys(ratios);
  const z = zones.length;
  const skew = maxSkew ?? replicas;
  const on = getAllocations(ratios, replicas).ok;
  let best: SpreadOutcome | null = null;
  for (const zone of zones) {
    const low = Math.max(0, Math.ceil((replicas - (z - 1) * skew) / z));
    const high = Math.min(replicas, Math.floor((replicas + (z - 1) * skew) / z));
    for (const counts of [
      { ...spreadOthers(zones, zone, replicas - low), [zone]: low },
      { ...spreadOthers(zones, zone, replicas - high), [zone]: high },
    ]) {
      const sorted: ValueByZone<number> = {};
      for (const name of zones) sorted[name] = counts[name] ?? 0;
      const donated = on ? donatedFor(ratios, sorted) : 0;
      if (best === null || donated > best.donated) best = { countsByZone: sorted, donated };
    }
  }
  return best ?? { countsByZone: {}, donated: 0 };
}

/**
 * One scan row per replica count from `minReplicas` to `maxReplicas`: the count rule (Σ minimum
 * vs replicas), and the donations of an even spread and of the worst spread `maxSkew` allows.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/master/staging/src/k8s.io/endpointslice/topologycache/topologycache.go (getAllocations)
 */
function scanReplicaCountsReference(ratios: Readonly<ValueByZone<number>>, minReplicas: number, maxReplicas: number, maxSkew: number | null): HpaScanRow[] {
  const zones = sortedKeys(ratios);
  const rows: HpaScanRow[] = [];
  const last = Math.min(maxReplicas, minReplicas + MAX_SCAN_ROWS - 1);
  for (let replicas = Math.max(0, minReplicas); replicas <= last; replicas++) {
    const allocation = getAllocations(ratios, replicas);
    const even = evenSpreadReference(zones, replicas);
    rows.push({
      replicas,
      minimumTotal: computeAllocationTable(ratios, replicas).minimumTotal,
      hintsEnabled: allocation.ok,
      reason: allocation.ok ? null : allocation.event.message,
      evenSpread: { countsByZone: even, donated: allocation.ok ? donatedFor(ratios, even) : 0 },
      worstSpread: worstSpreadReference(ratios, replicas, maxSkew),
    });
  }
  return rows;
}

function logFactorials(n: number): Float64Array {
  const table = new Float64Array(n + 1);
  for (let i = 2; i <= n; i++) table[i] = (table[i - 1] ?? 0) + Math.log(i);
  return table;
}

interface OutcomeStats {
  hintsOff: boolean;
  donated: number;
  zoneEmpty: boolean;
  zoneWithoutHints: boolean;
}

function outcomeStats(ratios: Readonly<ValueByZone<number>>, counts: ValueByZone<number>, total: number, hintsOff: boolean): OutcomeStats {
  const zones = Object.keys(ratios);
  const zoneEmpty = zones.some((zone) => (counts[zone] ?? 0) === 0);
  if (hintsOff) return { hintsOff, donated: 0, zoneEmpty, zoneWithoutHints: false };
  const { allocations } = computeAllocationTable(ratios, total);
  const { givingZones, receivingZones } = getGivingAndReceivingZones(allocations, counts);
  let donated = 0;
  for (const value of Object.values(givingZones)) donated += value;
  const zoneWithoutHints = zones.some((zone) => (counts[zone] ?? 0) - (givingZones[zone] ?? 0) + (receivingZones[zone] ?? 0) <= 0);
  return { hintsOff, donated, zoneEmpty, zoneWithoutHints };
}

/**
 * Probability that removing pods at random from `fromCountsByZone` down to `toReplicas` (the
 * Deployment controller ignores zones) leaves hints off, donating endpoints, a zone without pods, or
 * a zone without hinted endpoints. Exact over every outcome (multivariate hypergeometric:
 * `P(k) = Π C(c_z, k_z) / C(N, m)`) when there are at most {@link MAX_EXACT_OUTCOMES}; otherwise a
 * seeded Monte Carlo with {@link MONTE_CARLO_SAMPLES} samples and its standard error
 * (`sqrt(p(1 − p)/samples)`, at most 0.008 for 4,000 samples). `limits` overrides both budgets.
 */
function scaleDownRiskReference(
  ratios: Readonly<ValueByZone<number>>,
  fromCountsByZone: Readonly<ValueByZone<number>>,
  toReplicas: number,
  seed: number,
  from: ScaleDownRisk['from'] = 'current',
  limits: { readonly maxExactOutcomes?: number; readonly samples?: number } = {},
): ScaleDownRisk {
  const maxExact = limits.maxExactOutcomes ?? MAX_EXACT_OUTCOMES;
  const zones = sortedKeys(fromCountsByZone);
  const caps = zones.map((zone) => Math.max(0, Math.floor(fromCountsByZone[zone] ?? 0)));
  const fromReplicas = caps.reduce((s, v) => s + v, 0);
  const to = Math.max(0, Math.min(toReplicas, fromReplicas));
  const hintsOff = !getAllocations(ratios, to).ok;
  const tally = { donation: 0, donated: 0, empty: 0, noHints: 0 };
  const distribution = new Map<number, number>();
  const record = (stats: OutcomeStats, weight: number) => {
    if (stats.donated > 0) tally.donation += weight;
    tally.donated += weight * stats.donated;
    if (stats.zoneEmpty) tally.empty += weight;
    if (stats.zoneWithoutHints) tally.noHints += weight;
    distribution.set(stats.donated, (distribution.get(stats.donated) ?? 0) + weight);
  };
  const countsFor = (kept: readonly number[]) => {
    const counts: ValueByZone<number> = {};
    zones.forEach((zone, i) => (counts[zone] = kept[i] ?? 0));
    return counts;
  };

  // 1. Exact enumeration of kept counts per zone.
  const lf = logFactorials(fromReplicas);
  const logChoose = (n: number, k: number) => (lf[n] ?? 0) - (lf[k] ?? 0) - (lf[n - k] ?? 0);
  const logTotal = logChoose(fromReplicas, to);
  const kept = zones.map(() => 0);
  const suffixCap = caps.map((_, i) => caps.slice(i).reduce((s, v) => s + v, 0));
  let outcomes = 0;
  let overflow = false;
  const exact: { counts: ValueByZone<number>; p: number }[] = [];
  const walk = (i: number, left: number, logP: number) => {
    if (overflow) return;
    if (i === zones.length - 1) {
      const cap = caps[i] ?? 0;
      if (left > cap) return;
      kept[i] = left;
      outcomes++;
      if (outcomes > maxExact) {
        overflow = true;
        return;
      }
      exact.push({ counts: countsFor(kept), p: Math.exp(logP + logChoose(cap, left) - logTotal) });
      return;
    }
    const cap = caps[i] ?? 0;
    const restCap = suffixCap[i + 1] ?? 0;
    for (let k = Math.max(0, left - restCap); k <= Math.min(cap, left); k++) {
      kept[i] = k;
      walk(i + 1, left - k, logP + logChoose(cap, k));
    }
  };
  if (zones.length > 0) walk(0, to, 0);

  let method: ScaleDownRisk['method'] = 'exact';
  let samples: number | null = null;
  let standardError = 0;
  if (!overflow) {
    for (const outcome of exact) record(outcomeStats(ratios, outcome.counts, to, hintsOff), outcome.p);
  } else {
    // 2. Seeded Monte Carlo: each zone's kept pods from its hypergeometric conditional (population:
    //    the pods of this zone and the ones after it; successes: this zone's pods; draws: the kept
    //    pods still needed), by chop-down inversion of one uniform from the mode outwards.
    method = 'monte-carlo';
    samples = limits.samples ?? MONTE_CARLO_SAMPLES;
    const random = createSeededRandom(seed);
    for (let s = 0; s < samples; s++) {
      const draw = zones.map(() => 0);
      let need = Math.ceil(to);
      for (let i = 0; i < zones.length - 1; i++) {
        const u = random();
        const population = caps.slice(i).reduce((sum, v) => sum + v, 0);
        const k = caps[i] ?? 0;
        const others = population - k;
        const lo = Math.max(0, need - others);
        const hi = Math.min(need, k);
        let kept = lo;
        if (lo < hi) {
          const mode = Math.min(hi, Math.max(lo, Math.floor(((need + 1) * (k + 1)) / (population + 2))));
          // P(mode) = C(k, mode) · C(others, need − mode) / C(population, need)
          const at = (i: number) => lf[i] as number;
          const pMode = Math.exp(at(k) - at(mode) - at(k - mode) + (at(others) - at(need - mode) - at(others - need + mode)) - (at(population) - at(need) - at(population - need)));
          const order: { value: number; p: number }[] = [{ value: mode, p: pMode }];
          let up = mode;
          let down = mode;
          let pUp = pMode;
          let pDown = pMode;
          while (up < hi || down > lo) {
            if (up < hi) {
              pUp *= ((k - up) * (need - up)) / ((up + 1) * (others - need + up + 1));
              up++;
              order.push({ value: up, p: pUp });
            }
            if (down > lo) {
              pDown *= (down * (others - need + down)) / ((k - down + 1) * (need - down + 1));
              down--;
              order.push({ value: down, p: pDown });
            }
          }
          kept = mode;
          let left = u;
          for (const term of order) {
            left -= term.p;
            if (left < 0) {
              kept = term.value;
              break;
            }
          }
        }
        draw[i] = kept;
        need -= kept;
      }
      if (zones.length > 0) draw[zones.length - 1] = need;
      record(outcomeStats(ratios, countsFor(draw), to, hintsOff), 1 / samples);
    }
    const n = samples;
    const se = (p: number) => Math.sqrt((p * (1 - p)) / n);
    standardError = Math.max(se(tally.donation), se(tally.empty), se(tally.noHints));
  }

  const clamp = (p: number) => Math.min(1, Math.max(0, p));
  // Whether hints are on depends on the kept count alone, so this is exactly 0 or 1.
  const pHintsOff = hintsOff && fromReplicas > 0 ? 1 : 0;
  const explanation =
    (hintsOff
      ? `With ${to} replicas Σ minimum exceeds the ready endpoints, so hints are off after any scale-down to ${to} — the count decides, not which pods go.`
      : `With ${to} replicas the per-zone minimums fit, so hints stay on whichever pods are removed; what the random removal decides is how uneven the zones end up and how many endpoints the controller donates across zones.`) +
    (method === 'exact' ? ` Exact over ${outcomes} possible outcomes.` : ` Monte Carlo over ${samples} seeded samples (seed ${seed}); standard error ≤ ${standardError.toFixed(4)}.`);
  return {
    from,
    fromReplicas,
    fromCountsByZone: countsFor(caps),
    toReplicas: to,
    method,
    outcomes: method === 'exact' ? outcomes : null,
    samples,
    seed: method === 'monte-carlo' ? seed : null,
    standardError,
    pHintsOff,
    pDonation: clamp(tally.donation),
    expectedDonated: tally.donated,
    pZoneWithoutLocalEndpoints: clamp(tally.empty),
    pZoneWithoutHints: clamp(tally.noHints),
    donatedDistribution: [...distribution.entries()].sort(([a], [b]) => a - b).map(([donated, probability]) => ({ donated, probability: clamp(probability) })),
    explanation,
  };
}


/** CPU ratios over 1–5 zones (weights as allocatable milli-CPU), zones named like a cloud's. */
const ratiosArb = fc.array(fc.integer({ min: 1, max: 64_000 }), { minLength: 1, maxLength: 5 }).map((weights) => {
  const total = weights.reduce((s, w) => s + w, 0);
  return Object.fromEntries(weights.map((w, i) => [`us-east-1${String.fromCharCode(97 + i)}`, w / total]));
});
const skewArb = fc.constantFrom(null, 0, 1, 2, 3, 5, 40);

describe('the fast HPA analysis gives exactly the reference results', () => {
  it('scanReplicaCounts: every row, also when rows are shared between overlapping scans', () => {
    fc.assert(
      fc.property(ratiosArb, fc.nat(150), fc.nat(120), fc.nat(120), skewArb, (ratios, min, span, span2, skew) => {
        const rows = new Map<number, HpaScanRow>();
        expect(scanReplicaCounts(ratios, min, min + span, skew, rows)).toEqual(scanReplicaCountsReference(ratios, min, min + span, skew));
        // A second scan overlapping the first reuses its rows: still the same content.
        const from = Math.max(0, min - span2);
        expect(scanReplicaCounts(ratios, from, from + span2 + span, skew, rows)).toEqual(scanReplicaCountsReference(ratios, from, from + span2 + span, skew));
      }),
      { seed: 17, numRuns: 150 },
    );
  }, 30_000);

  it('scanReplicaCounts: thousands of replicas, capped at MAX_SCAN_ROWS rows', () => {
    const ratios = { 'us-east-1a': 0.38104178035871417, 'us-east-1b': 0.35749114181195313, 'us-east-1c': 0.1845560722650589, 'us-east-1d': 0.07691100556427376 };
    const fast = scanReplicaCounts(ratios, 2000, 5000, null);
    expect(fast).toHaveLength(MAX_SCAN_ROWS);
    expect(fast).toEqual(scanReplicaCountsReference(ratios, 2000, 5000, null));
  });

  it('worstSpread: the same placement and donations, for any skew (also none, 0 or larger than the replicas)', () => {
    fc.assert(
      fc.property(ratiosArb, fc.nat(3000), skewArb, (ratios, replicas, skew) => {
        expect(worstSpread(ratios, replicas, skew)).toEqual(worstSpreadReference(ratios, replicas, skew));
      }),
      { seed: 18, numRuns: 400 },
    );
  }, 30_000);

  it('scaleDownRisk: the same exact enumeration and the same Monte Carlo samples, for 1–5 zones', () => {
    const caseArb = fc.record({
      ratios: ratiosArb,
      caps: fc.array(fc.oneof(fc.nat(12), fc.nat(300)), { minLength: 1, maxLength: 5 }),
      toShare: fc.double({ min: 0, max: 1.2, noNaN: true }),
      seed: fc.integer({ min: 0, max: 2 ** 32 - 1 }),
      // Small budgets force the Monte Carlo; undefined keeps the real ones.
      maxExactOutcomes: fc.option(fc.nat(60), { nil: undefined }),
      samples: fc.option(fc.integer({ min: 1, max: 300 }), { nil: undefined }),
      from: fc.constantFrom<ScaleDownRisk['from']>('current', 'maxReplicas'),
      // Sometimes count pods in zones the ratios do not have (or miss one they have).
      ownZones: fc.boolean(),
    });
    fc.assert(
      fc.property(caseArb, ({ ratios, caps, toShare, seed, maxExactOutcomes, samples, from, ownZones }) => {
        // Pods in the ratio zones, or in all but the last of them and in a zone without ratio.
        const zones = ownZones ? [...sortedKeys(ratios).slice(0, -1), 'zone-without-ratio'] : sortedKeys(ratios);
        const counts: ValueByZone<number> = {};
        caps.forEach((cap, i) => {
          const zone = zones[i % zones.length] as string;
          counts[zone] = (counts[zone] ?? 0) + cap;
        });
        const total = Object.values(counts).reduce((s, v) => s + v, 0);
        const to = Math.round(total * toShare);
        const limits = { ...(maxExactOutcomes === undefined ? {} : { maxExactOutcomes }), ...(samples === undefined ? {} : { samples }) };
        expect(scaleDownRisk(ratios, counts, to, seed, from, limits)).toEqual(scaleDownRiskReference(ratios, counts, to, seed, from, limits));
      }),
      { seed: 19, numRuns: 300 },
    );
  }, 30_000);

  it('scaleDownRisk: a realistic Monte Carlo (534 pods over 4 uneven zones down to 394, 4,000 samples)', () => {
    const ratios = { 'us-east-1a': 0.38104178035871417, 'us-east-1b': 0.35749114181195313, 'us-east-1c': 0.1845560722650589, 'us-east-1d': 0.07691100556427376 };
    const from = { 'us-east-1a': 203, 'us-east-1b': 191, 'us-east-1c': 99, 'us-east-1d': 41 };
    const fast = scaleDownRisk(ratios, from, 394, 2_654_435_761);
    expect(fast.method).toBe('monte-carlo');
    expect(fast.samples).toBe(MONTE_CARLO_SAMPLES);
    expect(fast).toEqual(scaleDownRiskReference(ratios, from, 394, 2_654_435_761));
  }, 30_000);

  it('scaleDownRisk: six zones, and zones of a million pods', () => {
    const six = Object.fromEntries(['a', 'b', 'c', 'd', 'e', 'f'].map((z, i) => [z, (i + 1) / 21]));
    const sixFrom = { a: 40, b: 3, c: 0, d: 25, e: 60, f: 7 };
    expect(scaleDownRisk(six, sixFrom, 70, 5, 'current', { samples: 500 })).toEqual(scaleDownRiskReference(six, sixFrom, 70, 5, 'current', { samples: 500 }));
    const huge = { 'zone-a': 2 ** 20, 'zone-b': 2 ** 20, 'zone-c': 3 };
    const thirds = { 'zone-a': 1 / 3, 'zone-b': 1 / 3, 'zone-c': 1 / 3 };
    const fast = scaleDownRisk(thirds, huge, 60, 77, 'current', { maxExactOutcomes: 10, samples: 50 });
    expect(fast.method).toBe('monte-carlo');
    expect(fast).toEqual(scaleDownRiskReference(thirds, huge, 60, 77, 'current', { maxExactOutcomes: 10, samples: 50 }));
  });

  it('analyzeHpa: Services of one cluster with overlapping HPA ranges and different spreads each get their own scan and risk', () => {
    const spread = (app: string, maxSkew: number) => [
      { topologyKey: 'topology.kubernetes.io/zone', maxSkew, whenUnsatisfiable: 'DoNotSchedule' as const, labelSelector: { matchLabels: { app }, matchExpressions: [] }, minDomains: null },
    ];
    const apps = [
      { name: 'api', counts: { 'zone-a': 9, 'zone-b': 2, 'zone-c': 4 }, hpa: { minReplicas: 3, maxReplicas: 40 }, spread: [] },
      { name: 'web', counts: { 'zone-a': 5, 'zone-b': 5, 'zone-c': 4 }, hpa: { minReplicas: 3, maxReplicas: 40 }, spread: spread('web', 1) },
      { name: 'db', counts: { 'zone-a': 30, 'zone-b': 1, 'zone-c': 12 }, hpa: { minReplicas: 10, maxReplicas: 60 }, spread: spread('db', 2) },
      { name: 'jobs', counts: { 'zone-a': 3, 'zone-b': 3, 'zone-c': 3 }, hpa: { minReplicas: 20, maxReplicas: 55 }, spread: [] },
      // Too many outcomes to enumerate: a Monte Carlo seeded by its inputs.
      { name: 'batch', counts: { 'zone-a': 300, 'zone-b': 250, 'zone-c': 200 }, hpa: { minReplicas: 210, maxReplicas: 260 }, spread: [] },
    ];
    const built = apps.map((app) => {
      const endpoints = testEndpoints(app.counts, { service: app.name });
      return { app, service: testService(app.name), slices: [testSlice(app.name, endpoints)], workload: testWorkload(app.name, endpoints, { hpa: app.hpa, spread: app.spread }) };
    });
    const index = testWorkloadCluster(built);
    const context = buildClusterContext(index);
    const ratios = context.cpuRatiosByZone;
    if (!ratios) throw new Error('no CPU ratios');
    for (const { app, service, slices } of built) {
      const found = findServiceWorkload(context, service, slices);
      if (!found) throw new Error(`no workload for ${app.name}`);
      const analysis = analyzeHpa(context, found, 0);
      const skew = app.spread.length > 0 ? (app.spread[0]?.maxSkew ?? null) : null;
      expect(analysis.scan).toEqual(scanReplicaCountsReference(ratios, app.hpa.minReplicas, app.hpa.maxReplicas, skew));
      const current = Object.fromEntries(sortedKeys(ratios).map((zone) => [zone, (app.counts as Record<string, number>)[zone] ?? 0]));
      const total = Object.values(current).reduce((s, v) => s + v, 0);
      const expected =
        total > app.hpa.minReplicas
          ? scaleDownRiskReference(ratios, current, app.hpa.minReplicas, scaleDownSeed(current, app.hpa.minReplicas, 'current'), 'current')
          : (() => {
              const even = Object.fromEntries(sortedKeys(ratios).map((z, i, all) => [z, Math.floor(app.hpa.maxReplicas / all.length) + (i < app.hpa.maxReplicas % all.length ? 1 : 0)]));
              return scaleDownRiskReference(ratios, even, app.hpa.minReplicas, scaleDownSeed(even, app.hpa.minReplicas, 'maxReplicas'), 'maxReplicas');
            })();
      expect(analysis.scaleDown).toEqual(expected);
      expect(analysis.scaleDown?.method).toBe(app.name === 'batch' ? 'monte-carlo' : 'exact');
    }
  }, 30_000);

  it('the budgets the reference uses are the real ones', () => {
    expect([MAX_EXACT_OUTCOMES, MONTE_CARLO_SAMPLES]).toEqual([20000, 4000]);
  });
});
