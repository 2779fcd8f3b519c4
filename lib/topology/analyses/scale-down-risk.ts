/**
 * What a zone-blind scale-down risks. The Deployment controller removes pods on scale-down without
 * looking at zones (the ReplicaSet controller ranks victims by phase, readiness, co-location on a
 * node, deletion cost and age), so after a scale-down the per-zone counts are a random draw: the
 * kept pods follow a multivariate hypergeometric distribution over the zones' current counts. Here
 * the chances that the draw turns hints off, donates endpoints across zones, or leaves a zone
 * without pods or without hinted endpoints: exact over every outcome when they are few, else by a
 * seeded Monte Carlo.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/master/pkg/controller/replicaset/replica_set.go (getPodsToDelete)
 * @see https://github.com/kubernetes/kubernetes/blob/master/staging/src/k8s.io/endpointslice/topologycache/topologycache.go
 */
import { desiredOf } from './endpoint-change-search';
import { SeededRandomBlocks, hashSeed } from './seeded-random';
import { computeAllocationTable, getAllocations } from '../upstream/topology-cache';
import { moveEndpoints } from '../upstream/topology-cache-utils';
import { sortedKeys } from '../upstream/sorted';
import type { ValueByZone } from '../upstream/types';

/** Risk that a zone-blind scale-down to minReplicas ends badly. */
export interface ScaleDownRisk {
  readonly from: 'current' | 'maxReplicas';
  readonly fromReplicas: number;
  readonly fromCountsByZone: Readonly<ValueByZone<number>>;
  readonly toReplicas: number;
  readonly method: 'exact' | 'monte-carlo';
  /** Possible per-zone outcomes (exact method). */
  readonly outcomes: number | null;
  readonly samples: number | null;
  readonly seed: number | null;
  /** Largest standard error of the probabilities below (0 for the exact method). */
  readonly standardError: number;
  /** Hints off after the scale-down. Depends only on the count, so it is 0 or 1. */
  readonly pHintsOff: number;
  /** At least one endpoint donated across zones. */
  readonly pDonation: number;
  readonly expectedDonated: number;
  /** Some zone keeps no pod at all. */
  readonly pZoneWithoutLocalEndpoints: number;
  /** Some zone ends up with no hinted endpoint: its kube-proxies fall back to all endpoints. */
  readonly pZoneWithoutHints: number;
  readonly donatedDistribution: readonly { readonly donated: number; readonly probability: number }[];
  readonly explanation: string;
}

/** Exact enumeration budget for the scale-down outcomes. */
export const MAX_EXACT_OUTCOMES = 20000;
/** Monte Carlo samples when the outcomes exceed {@link MAX_EXACT_OUTCOMES}. */
export const MONTE_CARLO_SAMPLES = 4000;

/**
 * How many ways `to` kept pods can be spread over zones holding `caps[i]` pods (the outcomes the
 * exact enumeration walks), counted up to `limit` (anything more is reported as `limit`). `null`
 * for a `to` that is not a whole number (the walk counts those itself).
 */
function countOutcomes(caps: readonly number[], to: number, limit: number): number | null {
  if (!Number.isInteger(to) || to < 0) return null;
  // ways[s]: spreads of s pods over the zones so far; each zone adds a window sum of width cap + 1.
  let ways = new Float64Array(to + 1);
  ways[0] = 1;
  for (const cap of caps) {
    const next = new Float64Array(to + 1);
    let window = 0;
    for (let s = 0; s <= to; s++) {
      window += ways[s] as number;
      if (s - cap - 1 >= 0) window -= ways[s - cap - 1] as number;
      next[s] = Math.min(window, limit);
    }
    ways = next;
  }
  return ways[to] as number;
}

function logFactorials(n: number): Float64Array {
  const table = new Float64Array(n + 1);
  for (let i = 2; i <= n; i++) table[i] = (table[i - 1] ?? 0) + Math.log(i);
  return table;
}

interface OutcomeStats {
  readonly hintsOff: boolean;
  readonly donated: number;
  readonly zoneEmpty: boolean;
  readonly zoneWithoutHints: boolean;
}

/**
 * What one scale-down outcome means, for outcomes of one {@link scaleDownRisk} call: every outcome
 * keeps the same total, so the allocation table is computed once, and outcomes with the same kept
 * counts (Monte Carlo samples repeat) share their stats.
 */
class OutcomeJudge {
  private readonly ratioZones: string[];
  /** For each ratio zone, its index among the outcome's zones (−1: not there, 0 pods). */
  private readonly fromIndex: number[];
  private readonly desired: number[] | null;
  private readonly counts: number[];
  private readonly giving: number[];
  private readonly receiving: number[];
  private readonly seen = new Map<number | string, OutcomeStats>();
  private readonly base: number;
  private readonly numericKeys: boolean;
  /** Every zone wants at least one endpoint (see {@link judge}). */
  private readonly everyZoneWantsOne: boolean;

  constructor(
    ratios: Readonly<ValueByZone<number>>,
    zones: readonly string[],
    total: number,
    private readonly hintsOff: boolean,
  ) {
    this.ratioZones = sortedKeys(ratios);
    this.fromIndex = this.ratioZones.map((zone) => zones.indexOf(zone));
    this.desired = hintsOff ? null : desiredOf(this.ratioZones, computeAllocationTable(ratios, total));
    this.everyZoneWantsOne = this.desired !== null && this.desired.every((desired) => desired >= 1);
    this.counts = this.ratioZones.map(() => 0);
    this.giving = this.ratioZones.map(() => 0);
    this.receiving = this.ratioZones.map(() => 0);
    this.base = total + 1;
    this.numericKeys = Number.isInteger(total) && total >= 0 && this.base ** this.ratioZones.length < Number.MAX_SAFE_INTEGER;
  }

  /** The stats of the outcome that keeps `kept[offset + i]` pods in the i-th of the outcome's zones. */
  stats(kept: ArrayLike<number>, offset = 0): OutcomeStats {
    const { counts, fromIndex, base } = this;
    // Counts are whole numbers in [0, total]: read as digits in base total + 1 they make an exact
    // numeric key when that fits below 2^53 (else a string key).
    let key: number | string = 0;
    for (let i = 0; i < counts.length; i++) {
      const from = fromIndex[i] as number;
      counts[i] = from < 0 ? 0 : (kept[offset + from] as number);
      key = key * base + (counts[i] as number);
    }
    if (!this.numericKeys) key = counts.join(',');
    let stats = this.seen.get(key);
    if (stats === undefined) {
      stats = this.judge();
      this.seen.set(key, stats);
    }
    return stats;
  }

  private judge(): OutcomeStats {
    const { counts, giving, receiving, hintsOff } = this;
    const zoneEmpty = counts.some((count) => count === 0);
    if (hintsOff || this.desired === null) return { hintsOff, donated: 0, zoneEmpty, zoneWithoutHints: false };
    // A zone with a whole number of pods, at least one, that wants at least one endpoint keeps one:
    // it gives at most its surplus's values of 0.5 or more (moveEndpoints), fewer than its pods.
    // When every zone is such a zone, only the number moved is needed, not which zones gave and received.
    if (this.everyZoneWantsOne && counts.every((count) => count >= 1 && Number.isInteger(count))) {
      return { hintsOff, donated: moveEndpoints(this.ratioZones, this.desired, counts), zoneEmpty, zoneWithoutHints: false };
    }
    giving.fill(0);
    receiving.fill(0);
    const donated = moveEndpoints(this.ratioZones, this.desired, counts, giving, receiving);
    let zoneWithoutHints = false;
    for (let i = 0; i < counts.length && !zoneWithoutHints; i++) {
      zoneWithoutHints = (counts[i] as number) - (giving[i] as number) + (receiving[i] as number) <= 0;
    }
    return { hintsOff, donated, zoneEmpty, zoneWithoutHints };
  }
}

/**
 * Monte Carlo samples of a zone-blind scale-down: each keeps `to` of the `total` pods (`caps[i]` in
 * zone i), uniformly among all ways to choose them. The kept counts per zone follow a multivariate
 * hypergeometric law, drawn zone by zone from its conditionals: zone i keeps
 * `k_i ~ Hypergeometric(population = pods in zones i…, successes = caps[i], draws = kept still
 * needed)` and the last zone keeps the rest. That is the same law as drawing the kept pods one by
 * one, at a cost of one random value per zone (not per pod): a 1,000-pod Deployment costs 3 values
 * per sample, not 1,000.
 *
 * Each conditional is drawn by inversion from its mode outwards (chop-down: subtract P(mode), then
 * P(mode + 1), P(mode − 1), P(mode + 2), … from the uniform until it falls below 0), with the
 * probabilities taken from P(mode) by the ratio recurrence of neighbouring terms, so a draw costs
 * about one standard deviation of steps.
 */
class ScaleDownSampler {
  /** Pods in zones i, i + 1, … (the population left when zone i is drawn). */
  private readonly population: Float64Array;
  /** One random value per zone but the last. */
  private readonly values: Float64Array;
  /** P(mode) of zone i's conditional, by the number still needed (zone 0 always needs `to`). */
  private readonly modeProbability: Map<number, number>[];
  /** Kept pods per zone of the last sample. */
  readonly draw: Float64Array;

  constructor(
    private readonly caps: readonly number[],
    private readonly to: number,
    private readonly lf: Float64Array,
  ) {
    const z = caps.length;
    this.population = new Float64Array(z);
    let sum = 0;
    for (let i = z - 1; i >= 0; i--) this.population[i] = sum += caps[i] as number;
    this.values = new Float64Array(Math.max(0, z - 1));
    this.modeProbability = caps.map(() => new Map<number, number>());
    this.draw = new Float64Array(z);
  }

  /** Draws one sample with the next `zones − 1` values of `random` into {@link draw}. */
  sample(random: SeededRandomBlocks): void {
    const { caps, draw, values, population } = this;
    const z = caps.length;
    if (z === 0) return;
    random.fill(values);
    let need = this.to;
    for (let i = 0; i < z - 1; i++) {
      const kept = this.hypergeometric(i, population[i] as number, caps[i] as number, need, values[i] as number);
      draw[i] = kept;
      need -= kept;
    }
    draw[z - 1] = need;
  }

  /** `k ~ Hypergeometric(n, k, need)` for zone `zone` by chop-down inversion of `u` from the mode. */
  private hypergeometric(zone: number, n: number, k: number, need: number, u: number): number {
    const others = n - k;
    const lo = Math.max(0, need - others);
    const hi = Math.min(need, k);
    if (lo >= hi) return lo;
    let mode = Math.floor(((need + 1) * (k + 1)) / (n + 2));
    mode = Math.min(hi, Math.max(lo, mode));
    const cache = this.modeProbability[zone] as Map<number, number>;
    let pMode = cache.get(need);
    if (pMode === undefined) {
      pMode = modeTerm(this.lf, n, k, need, mode);
      cache.set(need, pMode);
    }
    let left = u - pMode;
    if (left < 0) return mode;
    let up = mode;
    let down = mode;
    let pUp = pMode;
    let pDown = pMode;
    while (up < hi || down > lo) {
      if (up < hi) {
        pUp *= ((k - up) * (need - up)) / ((up + 1) * (others - need + up + 1));
        up++;
        left -= pUp;
        if (left < 0) return up;
      }
      if (down > lo) {
        pDown *= (down * (others - need + down)) / ((k - down + 1) * (need - down + 1));
        down--;
        left -= pDown;
        if (left < 0) return down;
      }
    }
    // Only rounding leaves anything: the terms sum to 1 up to a few ulps.
    return mode;
  }
}

/** `P(mode) = C(k, mode) · C(n − k, need − mode) / C(n, need)` from a table of log factorials. */
function modeTerm(lf: ArrayLike<number>, n: number, k: number, need: number, mode: number): number {
  const others = n - k;
  const at = (i: number) => lf[i] as number;
  return Math.exp(at(k) - at(mode) - at(k - mode) + (at(others) - at(need - mode) - at(others - need + mode)) - (at(n) - at(need) - at(n - need)));
}

/**
 * The Monte Carlo seed of a scale-down from `from` to `toReplicas`: a hash of those inputs (zones in
 * order with their counts), so the same situation always gets the same estimate, whichever Service
 * it belongs to.
 */
export function scaleDownSeed(from: Readonly<ValueByZone<number>>, toReplicas: number, kind: ScaleDownRisk['from']): number {
  return hashSeed(`scale-down\u0000${kind}\u0000${sortedKeys(from).map((zone) => `${zone}=${from[zone] ?? 0}`).join(',')}\u0000${toReplicas}`);
}

/** The donated counts that occurred, in increasing order, with their probabilities (`byDonated` may have holes). */
function donatedDistribution(byDonated: readonly (number | undefined)[], clamp: (p: number) => number): ScaleDownRisk['donatedDistribution'] {
  const out: { donated: number; probability: number }[] = [];
  for (let donated = 0; donated < byDonated.length; donated++) {
    const probability = byDonated[donated];
    if (probability !== undefined) out.push({ donated, probability: clamp(probability) });
  }
  return out;
}

/**
 * Probability that removing pods at random from `fromCountsByZone` down to `toReplicas` (the
 * Deployment controller ignores zones) leaves hints off, donating endpoints, a zone without pods, or
 * a zone without hinted endpoints. Exact over every outcome (multivariate hypergeometric:
 * `P(k) = Π C(c_z, k_z) / C(N, m)`) when there are at most {@link MAX_EXACT_OUTCOMES}; otherwise a
 * seeded Monte Carlo with {@link MONTE_CARLO_SAMPLES} samples and its standard error
 * (`sqrt(p(1 − p)/samples)`, at most 0.008 for 4,000 samples). `limits` overrides both budgets.
 */
export function scaleDownRisk(
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
  const judge = new OutcomeJudge(ratios, zones, to, hintsOff);
  const tally = { donation: 0, donated: 0, empty: 0, noHints: 0 };
  // Probability by endpoints donated (a whole number from 0 up): an array, read in order at the end.
  const distribution: number[] = [];
  const record = (stats: OutcomeStats, weight: number) => {
    if (stats.donated > 0) tally.donation += weight;
    tally.donated += weight * stats.donated;
    if (stats.zoneEmpty) tally.empty += weight;
    if (stats.zoneWithoutHints) tally.noHints += weight;
    distribution[stats.donated] = (distribution[stats.donated] ?? 0) + weight;
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
  // Outcomes as flat lists (kept counts zone by zone, then the probability): no object per outcome.
  const exactKept: number[] = [];
  const exactP: number[] = [];
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
      for (const k of kept) exactKept.push(k);
      exactP.push(Math.exp(logP + logChoose(cap, left) - logTotal));
      return;
    }
    const cap = caps[i] ?? 0;
    const restCap = suffixCap[i + 1] ?? 0;
    // (stop as soon as the budget is exceeded: the enumeration is then abandoned)
    for (let k = Math.max(0, left - restCap); k <= Math.min(cap, left) && !overflow; k++) {
      kept[i] = k;
      walk(i + 1, left - k, logP + logChoose(cap, k));
    }
  };
  // The walk only runs when it fits the budget: counting the outcomes first is cheap.
  if (zones.length > 0 && (countOutcomes(caps, to, maxExact + 1) ?? 0) > maxExact) overflow = true;
  if (zones.length > 0 && !overflow) walk(0, to, 0);

  let method: ScaleDownRisk['method'] = 'exact';
  let samples: number | null = null;
  let standardError = 0;
  if (!overflow) {
    for (let o = 0; o < exactP.length; o++) record(judge.stats(exactKept, o * zones.length), exactP[o] as number);
  } else {
    // 2. Seeded Monte Carlo: kept pods per zone from the zone-by-zone conditionals.
    method = 'monte-carlo';
    samples = limits.samples ?? MONTE_CARLO_SAMPLES;
    const random = new SeededRandomBlocks(seed);
    // (a `to` that is not a whole number keeps its ceiling, as drawing pod by pod did)
    const sampler = new ScaleDownSampler(caps, Math.ceil(to), lf);
    for (let s = 0; s < samples; s++) {
      sampler.sample(random);
      record(judge.stats(sampler.draw), 1 / samples);
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
    donatedDistribution: donatedDistribution(distribution, clamp),
    explanation,
  };
}
