/**
 * Replica counts, placement and autoscaling of the Deployment behind a Service, against the
 * `Auto` heuristic. Two separate truths are shown precisely:
 *
 * 1. **Count.** Hints go off when Σ minimum > ready endpoints (`minimum = ceil(n × ratio / 1.2)`).
 *    That depends only on how many endpoints are ready and the zone CPU ratios — over three equal
 *    zones 4, 5, 8 and 11 endpoints are off however the pods are placed.
 * 2. **Placement.** Uneven placement does **not** turn hints off: the controller keeps them on and
 *    donates endpoints of crowded zones to sparse zones, so the sparse zones' traffic crosses zones
 *    (and those endpoints take traffic from two zones).
 *
 * The Deployment controller removes pods on scale-down without looking at zones (the ReplicaSet
 * controller ranks victims by phase, readiness, co-location on a node, deletion cost and age), so
 * after a scale-down the per-zone counts are a random draw: the kept pods follow a multivariate
 * hypergeometric distribution over the zones' current counts.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/master/staging/src/k8s.io/endpointslice/topologycache/topologycache.go
 * @see https://github.com/kubernetes/kubernetes/blob/master/pkg/controller/replicaset/replica_set.go (getPodsToDelete)
 * @see https://kubernetes.io/docs/concepts/scheduling-eviction/topology-spread-constraints/
 */
import type { ClusterContext } from '../model/cluster-context';
import type { DeploymentRecord, EndpointSliceRecord, HpaRecord, PodRecord, ServiceRecord } from '../model/cluster-model';
import { matchesSelector, objectKey, serviceSelects } from '../model/cluster-model';
import { LABEL_TOPOLOGY_ZONE, MESSAGE_INSUFFICIENT_NUMBER_OF_ENDPOINTS, MESSAGE_MIN_ALLOCATION_EXCEEDS_OVERLOAD_THRESHOLD } from '../upstream/constants';
import { donatedFor } from './endpoint-change-search';
import { SeededRandomBlocks, hashSeed } from './seeded-random';
import type { AllocationTable } from '../upstream/topology-cache';
import { computeAllocationTable, getAllocations, moveEndpoints } from '../upstream/topology-cache';
import { sortedKeys, sortStrings } from '../upstream/sorted';
import type { ValueByZone } from '../upstream/types';

/** The Deployment behind a Service and its pods. */
export interface ServiceWorkload {
  readonly deployment: DeploymentRecord;
  /** Pods of the Deployment's ReplicaSets that back the Service. */
  readonly pods: readonly PodRecord[];
  /** Other workloads (`Kind/name`) whose pods the Service also selects. */
  readonly otherWorkloads: readonly string[];
  readonly hpa: HpaRecord | null;
}

/**
 * Finds the Deployment behind a Service: the Service's pods (from the endpoints' pod names, else
 * by the selector within the namespace) → owner ReplicaSet → owner Deployment; the Deployment owning
 * the most of them wins (ties by name). Returns `null` when no Deployment owns them.
 */
export function findServiceWorkload(context: ClusterContext, service: ServiceRecord, slices: readonly EndpointSliceRecord[]): ServiceWorkload | null {
  const { index } = context;
  const namespacePods = context.podsIn(service.namespace);
  // 1. The Service's pods.
  const pods = new Map<string, PodRecord>();
  for (const slice of slices) {
    for (const endpoint of slice.endpoints) {
      const pod = endpoint.podName ? namespacePods.byName.get(endpoint.podName) : undefined;
      if (pod) pods.set(pod.name, pod);
    }
  }
  if (pods.size === 0 && service.selector !== null) {
    for (const pod of namespacePods.byName.values()) if (serviceSelects(service.selector, pod.labels)) pods.set(pod.name, pod);
  }
  // 2. Owners.
  const countByDeployment = new Map<string, number>();
  const replicaSetsByDeployment = new Map<string, Set<string>>();
  const others = new Set<string>();
  const replicaSets = new Map<string, ReturnType<typeof index.replicaSetsByKey.get>>();
  for (const pod of pods.values()) {
    if (!pod.owner) continue;
    if (pod.owner.kind !== 'ReplicaSet') {
      others.add(`${pod.owner.kind}/${pod.owner.name}`);
      continue;
    }
    // Pods of a Service mostly share one ReplicaSet: look each up once.
    let rs = replicaSets.get(pod.owner.name);
    if (!replicaSets.has(pod.owner.name)) {
      rs = index.replicaSetsByKey.get(objectKey(service.namespace, pod.owner.name));
      replicaSets.set(pod.owner.name, rs);
    }
    if (!rs?.owner || rs.owner.kind !== 'Deployment') {
      others.add(`ReplicaSet/${pod.owner.name}`);
      continue;
    }
    countByDeployment.set(rs.owner.name, (countByDeployment.get(rs.owner.name) ?? 0) + 1);
    const set = replicaSetsByDeployment.get(rs.owner.name) ?? new Set<string>();
    set.add(rs.name);
    replicaSetsByDeployment.set(rs.owner.name, set);
  }
  let chosen: string | null = null;
  for (const name of [...countByDeployment.keys()].sort()) {
    if (chosen === null || (countByDeployment.get(name) ?? 0) > (countByDeployment.get(chosen) ?? 0)) chosen = name;
  }
  if (chosen === null) return null;
  const deployment = index.deploymentsByKey.get(objectKey(service.namespace, chosen));
  if (!deployment) return null;
  for (const name of countByDeployment.keys()) if (name !== chosen) others.add(`Deployment/${name}`);
  // 3. Every pod of the chosen Deployment's ReplicaSets (pending ones included).
  const deploymentPods: PodRecord[] = [];
  // (a loop, not push(...pods): a ReplicaSet may own more pods than a call takes arguments)
  for (const rsName of [...(replicaSetsByDeployment.get(chosen) ?? [])].sort()) for (const pod of namespacePods.byOwner.get(`ReplicaSet/${rsName}`) ?? []) deploymentPods.push(pod);
  return {
    deployment,
    pods: deploymentPods,
    otherWorkloads: [...others].sort(),
    hpa: index.hpasByTarget.get(`${service.namespace}/Deployment/${deployment.name}`) ?? null,
  };
}

/** Pods of one zone against the allocation. */
export interface PodsInZone {
  readonly zone: string;
  readonly pods: number;
  readonly readyPods: number;
  readonly minimum: number | null;
  readonly desired: number | null;
  readonly maximum: number | null;
  /** Ready pods below the zone's minimum: the controller fills the gap with other zones' endpoints. */
  readonly belowMinimum: boolean;
}

/** The zone topology spread constraint of the pod template. */
export interface SpreadConstraintCheck {
  readonly present: boolean;
  readonly maxSkew: number | null;
  readonly whenUnsatisfiable: 'DoNotSchedule' | 'ScheduleAnyway' | null;
  /** `DoNotSchedule` — the scheduler enforces it (on scale-up only). */
  readonly hard: boolean;
  /** The constraint's labelSelector selects the Deployment's own pods (otherwise it spreads nothing). */
  readonly selectorMatchesPods: boolean;
  readonly minDomains: number | null;
  readonly zoneAntiAffinity: boolean;
  readonly explanation: string;
}

/** A placement of replicas over zones and the endpoints it donates. */
export interface SpreadOutcome {
  readonly countsByZone: Readonly<ValueByZone<number>>;
  readonly donated: number;
}

/** One replica count of the scan. */
export interface HpaScanRow {
  readonly replicas: number;
  readonly minimumTotal: number;
  readonly hintsEnabled: boolean;
  /** Upstream reason when off (without the address-type suffix). */
  readonly reason: string | null;
  /** Pods spread as evenly as possible (remainder to zones first by name). */
  readonly evenSpread: SpreadOutcome;
  /** The most donating placement the zone spread constraint allows (unconstrained without a hard one). */
  readonly worstSpread: SpreadOutcome;
}

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

/** A recommendation of the HPA panel. */
export interface HpaRecommendation {
  readonly id: 'topology-spread-constraints' | 'descheduler' | 'per-zone-deployments' | 'avoid-replica-counts' | 'endpoints-per-zone';
  readonly title: string;
  readonly detail: string;
  readonly snippet: string | null;
}

/** Result of {@link analyzeHpa}. */
export interface HpaAnalysis {
  readonly deployment: { readonly namespace: string; readonly name: string; readonly replicas: number; readonly readyReplicas: number };
  readonly otherWorkloads: readonly string[];
  readonly autoscaler: { readonly name: string; readonly minReplicas: number; readonly maxReplicas: number; readonly currentReplicas: number | null; readonly desiredReplicas: number | null } | null;
  readonly podsByZone: readonly PodsInZone[];
  readonly unscheduledPods: number;
  readonly readyPods: number;
  /** Hints on for the current ready count (count rule). */
  readonly hintsEnabledNow: boolean | null;
  /** Endpoints the controller donates across zones with the current placement (Auto heuristic). */
  readonly donatedNow: number;
  readonly spreadConstraint: SpreadConstraintCheck;
  /** One row per replica count from minReplicas to maxReplicas (`null` without an HPA or CPU ratios). */
  readonly scan: readonly HpaScanRow[] | null;
  /** Replica counts of the scan where hints are off. */
  readonly hintsOffAt: readonly number[];
  readonly scaleDown: ScaleDownRisk | null;
  readonly recommendations: readonly HpaRecommendation[];
  /** The two truths, with this Deployment's numbers. */
  readonly truths: { readonly count: string; readonly placement: string };
}

/** Rows beyond this are not scanned (the note says so). */
export const MAX_SCAN_ROWS = 1000;
/** Exact enumeration budget for the scale-down outcomes. */
export const MAX_EXACT_OUTCOMES = 20000;
/** Monte Carlo samples when the outcomes exceed {@link MAX_EXACT_OUTCOMES}. */
export const MONTE_CARLO_SAMPLES = 4000;

/** Replicas spread as evenly as possible over `zones` (sorted); the remainder goes to the first zones. */
export function evenSpread(zones: readonly string[], replicas: number): ValueByZone<number> {
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

/**
 * The endpoints the `Auto` heuristic donates for `counts` (indexed like the sorted ratio zones):
 * `donatedFor(ratios, counts)`, with the allocation table's desired values passed in when the
 * counts add up to the table's endpoint count (else the table for their own sum).
 */
function donatedWith(ratios: Readonly<ValueByZone<number>>, zones: readonly string[], desired: readonly number[], tableTotal: number, counts: readonly number[]): number {
  let total = 0;
  for (const count of counts) total += count;
  if (total === tableTotal) return moveEndpoints(zones, desired, counts);
  const byZone: ValueByZone<number> = {};
  zones.forEach((zone, i) => (byZone[zone] = counts[i] as number));
  return donatedFor(ratios, byZone);
}

/** The desired endpoints per sorted ratio zone for `endpoints` ready endpoints. */
function desiredOf(zones: readonly string[], table: AllocationTable): number[] {
  return zones.map((zone) => table.allocations[zone]?.desired ?? 0);
}

/**
 * {@link worstSpread} for sorted `zones` with the allocation table for `replicas` and whether it
 * allocates (`on`). The placements are built as arrays and only the winner becomes an object.
 */
function worstSpreadWith(
  ratios: Readonly<ValueByZone<number>>,
  zones: readonly string[],
  desired: readonly number[],
  on: boolean,
  replicas: number,
  maxSkew: number | null,
): SpreadOutcome {
  const z = zones.length;
  const skew = maxSkew ?? replicas;
  const low = Math.max(0, Math.ceil((replicas - (z - 1) * skew) / z));
  const high = Math.min(replicas, Math.floor((replicas + (z - 1) * skew) / z));
  let best: number[] | null = null;
  let bestDonated = 0;
  const counts: number[] = new Array<number>(z);
  for (let i = 0; i < z; i++) {
    for (const own of [low, high]) {
      // Zone i at `own`, the others as even as possible (remainder to the first ones by name).
      const total = replicas - own;
      const base = Math.floor(total / Math.max(1, z - 1));
      let remainder = total - base * (z - 1);
      for (let j = 0; j < z; j++) {
        if (j === i) {
          counts[j] = own;
          continue;
        }
        counts[j] = base + (remainder > 0 ? 1 : 0);
        if (remainder > 0) remainder--;
      }
      const donated = on ? donatedWith(ratios, zones, desired, replicas, counts) : 0;
      if (best === null || donated > bestDonated) {
        best = [...counts];
        bestDonated = donated;
      }
    }
  }
  if (best === null) return { countsByZone: {}, donated: 0 };
  const countsByZone: ValueByZone<number> = {};
  zones.forEach((zone, j) => (countsByZone[zone] = (best as number[])[j] ?? 0));
  return { countsByZone, donated: bestDonated };
}

/**
 * The most donating placement of `replicas` over the ratio zones among the extreme placements a
 * maximum skew allows: one zone as low as possible with the others even, or one zone as high as
 * possible with the others even (the first such placement, zone by zone, low before high, among
 * equals). `maxSkew = null` means unconstrained.
 */
export function worstSpread(ratios: Readonly<ValueByZone<number>>, replicas: number, maxSkew: number | null): SpreadOutcome {
  const zones = sortedKeys(ratios);
  const table = computeAllocationTable(ratios, replicas);
  return worstSpreadWith(ratios, zones, desiredOf(zones, table), getAllocations(ratios, replicas, table).ok, replicas, maxSkew);
}

/** One scan row: the count rule and the donations of the even and the worst spread. */
function scanRow(ratios: Readonly<ValueByZone<number>>, zones: readonly string[], replicas: number, maxSkew: number | null): HpaScanRow {
  const table = computeAllocationTable(ratios, replicas);
  const allocation = getAllocations(ratios, replicas, table);
  const desired = desiredOf(zones, table);
  const even = evenSpread(zones, replicas);
  return {
    replicas,
    minimumTotal: table.minimumTotal,
    hintsEnabled: allocation.ok,
    reason: allocation.ok ? null : allocation.event.message,
    evenSpread: {
      countsByZone: even,
      donated: allocation.ok ? donatedWith(ratios, zones, desired, replicas, zones.map((zone) => even[zone] ?? 0)) : 0,
    },
    worstSpread: worstSpreadWith(ratios, zones, desired, allocation.ok, replicas, maxSkew),
  };
}

/**
 * One scan row per replica count from `minReplicas` to `maxReplicas`: the count rule (Σ minimum
 * vs replicas), and the donations of an even spread and of the worst spread `maxSkew` allows.
 * A row depends only on the ratios, its replica count and `maxSkew`: pass the same `rows` map (for
 * the same ratios and `maxSkew`) to share rows between scans whose ranges overlap.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/master/staging/src/k8s.io/endpointslice/topologycache/topologycache.go (getAllocations)
 */
export function scanReplicaCounts(
  ratios: Readonly<ValueByZone<number>>,
  minReplicas: number,
  maxReplicas: number,
  maxSkew: number | null,
  rows: Map<number, HpaScanRow> = new Map(),
): HpaScanRow[] {
  const zones = sortedKeys(ratios);
  const scan: HpaScanRow[] = [];
  const last = Math.min(maxReplicas, minReplicas + MAX_SCAN_ROWS - 1);
  for (let replicas = Math.max(0, minReplicas); replicas <= last; replicas++) {
    let row = rows.get(replicas);
    if (row === undefined) {
      row = scanRow(ratios, zones, replicas, maxSkew);
      rows.set(replicas, row);
    }
    scan.push(row);
  }
  return scan;
}

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

  constructor(
    ratios: Readonly<ValueByZone<number>>,
    zones: readonly string[],
    total: number,
    private readonly hintsOff: boolean,
  ) {
    this.ratioZones = sortedKeys(ratios);
    this.fromIndex = this.ratioZones.map((zone) => zones.indexOf(zone));
    this.desired = hintsOff ? null : desiredOf(this.ratioZones, computeAllocationTable(ratios, total));
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
    donatedDistribution: [...distribution.entries()].sort(([a], [b]) => a - b).map(([donated, probability]) => ({ donated, probability: clamp(probability) })),
    explanation,
  };
}

/** The zone topology spread constraint of a Deployment's pod template, checked. */
export function checkSpreadConstraint(deployment: DeploymentRecord): SpreadConstraintCheck {
  const constraint = deployment.topologySpreadConstraints.find((c) => c.topologyKey === LABEL_TOPOLOGY_ZONE);
  if (!constraint) {
    return {
      present: false,
      maxSkew: null,
      whenUnsatisfiable: null,
      hard: false,
      selectorMatchesPods: false,
      minDomains: null,
      zoneAntiAffinity: deployment.zoneAntiAffinity,
      explanation: `No topologySpreadConstraints on ${LABEL_TOPOLOGY_ZONE}: the scheduler may stack replicas in one zone, and nothing evens them out after a scale-down.`,
    };
  }
  const selectorMatchesPods = constraint.labelSelector !== null && matchesSelector(constraint.labelSelector, deployment.templateLabels);
  const hard = constraint.whenUnsatisfiable === 'DoNotSchedule';
  let explanation = hard
    ? `DoNotSchedule with maxSkew ${constraint.maxSkew}: when scheduling, zones may differ by at most ${constraint.maxSkew} pod(s). Scale-down ignores it, so the skew can grow until pods are rescheduled.`
    : `ScheduleAnyway with maxSkew ${constraint.maxSkew}: a preference only; under pressure the scheduler places pods unevenly.`;
  if (!selectorMatchesPods) explanation += ' Its labelSelector does not select the Deployment\'s own pods, so it does not spread them.';
  return {
    present: true,
    maxSkew: constraint.maxSkew,
    whenUnsatisfiable: constraint.whenUnsatisfiable,
    hard: hard && selectorMatchesPods,
    selectorMatchesPods,
    minDomains: constraint.minDomains,
    zoneAntiAffinity: deployment.zoneAntiAffinity,
    explanation,
  };
}

function sortedLabels(labels: Readonly<Record<string, string>>): [string, string][] {
  return Object.entries(labels).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

/** A YAML scalar: quoted when plain style would change its meaning (`"true"`, `"1"`, `"a: b"`). */
function yamlScalar(value: string): string {
  return /^[A-Za-z_][A-Za-z0-9_./-]*$/.test(value) && !/^(true|false|yes|no|on|off|null|y|n)$/i.test(value) ? value : JSON.stringify(value);
}

/**
 * The zone spread (maxSkew 1, DoNotSchedule, selecting the pods by `podLabels`) as a complete
 * strategic-merge patch of the Deployment, in YAML under its full path, with the command that
 * applies it as its first line.
 */
export function spreadPatchYaml(namespace: string, deployment: string, podLabels: Readonly<Record<string, string>>): string {
  const labels = sortedLabels(podLabels);
  return [
    `# kubectl patch deployment/${deployment} -n ${namespace} --type strategic --patch-file spread.yaml`,
    'spec:',
    '  template:',
    '    spec:',
    '      topologySpreadConstraints:',
    '        - maxSkew: 1',
    `          topologyKey: ${LABEL_TOPOLOGY_ZONE}`,
    '          whenUnsatisfiable: DoNotSchedule',
    '          labelSelector:',
    '            matchLabels:',
    ...(labels.length > 0 ? labels.map(([k, v]) => `              ${k}: ${yamlScalar(v)}`) : ['              app: <your-app>']),
  ].join('\n');
}

/** The same patch as one `kubectl patch deployment … --type strategic -p '…'` command. */
export function spreadPatchCommand(namespace: string, deployment: string, podLabels: Readonly<Record<string, string>>): string {
  const patch = {
    spec: {
      template: {
        spec: {
          topologySpreadConstraints: [
            { maxSkew: 1, topologyKey: LABEL_TOPOLOGY_ZONE, whenUnsatisfiable: 'DoNotSchedule', labelSelector: { matchLabels: Object.fromEntries(sortedLabels(podLabels)) } },
          ],
        },
      },
    },
  };
  // Single quotes inside a label value would end the shell string: escape them the POSIX way.
  return `kubectl patch deployment/${deployment} -n ${namespace} --type strategic -p '${JSON.stringify(patch).replace(/'/g, "'\\''")}'`;
}

/**
 * The HPA panel for a Service's Deployment: ready pods per zone against the allocation, the
 * donations the current placement causes, the zone spread constraint, a scan of every replica count
 * from minReplicas to maxReplicas, the scale-down risk (from the current pods, or from an even
 * spread at maxReplicas when the Deployment already runs at minReplicas), and recommendations.
 *
 * @param donatedNow endpoints the engine donates with the current endpoints under `Auto`.
 */
export function analyzeHpa(context: ClusterContext, workload: ServiceWorkload, donatedNow: number): HpaAnalysis {
  const ratios = context.cpuRatiosByZone;
  const { deployment, hpa } = workload;
  // 1. Pods per zone.
  const byZone = new Map<string, { pods: number; ready: number }>();
  let unscheduled = 0;
  let readyPods = 0;
  for (const pod of workload.pods) {
    if (pod.terminating) continue;
    const zone = pod.nodeName ? (context.nodeZoneByName.get(pod.nodeName) ?? null) : null;
    if (!pod.nodeName) {
      unscheduled++;
      continue;
    }
    const key = zone ?? '';
    const tally = byZone.get(key) ?? { pods: 0, ready: 0 };
    tally.pods++;
    if (pod.ready) {
      tally.ready++;
      readyPods++;
    }
    byZone.set(key, tally);
  }
  const zones = new Set<string>([...byZone.keys(), ...Object.keys(ratios ?? {})]);
  const table = ratios ? computeAllocationTable(ratios, readyPods) : null;
  const podsByZone: PodsInZone[] = sortStrings([...zones]).map((zone) => {
    const tally = byZone.get(zone) ?? { pods: 0, ready: 0 };
    const allocation = table?.allocations[zone] ?? null;
    return {
      zone,
      pods: tally.pods,
      readyPods: tally.ready,
      minimum: allocation?.minimum ?? null,
      desired: allocation?.desired ?? null,
      maximum: allocation?.maximum ?? null,
      belowMinimum: allocation !== null && tally.ready < allocation.minimum,
    };
  });
  const spreadConstraint = checkSpreadConstraint(deployment);
  const hintsEnabledNow = ratios ? getAllocations(ratios, readyPods).ok : null;

  // 2. Replica scan and scale-down risk.
  let scan: HpaScanRow[] | null = null;
  let scaleDown: ScaleDownRisk | null = null;
  if (hpa && ratios) {
    const skew = spreadConstraint.hard ? spreadConstraint.maxSkew : null;
    // Rows depend only on the replica count and the skew: scans of overlapping ranges share them.
    const rows = context.memo(`hpa-scan-rows/${skew}`, () => new Map<number, HpaScanRow>());
    scan = context.memo(`hpa-scan/${hpa.minReplicas}/${hpa.maxReplicas}/${skew}`, () => scanReplicaCounts(ratios, hpa.minReplicas, hpa.maxReplicas, skew, rows));
    const current: ValueByZone<number> = {};
    for (const zone of Object.keys(ratios)) current[zone] = byZone.get(zone)?.ready ?? 0;
    const currentTotal = Object.values(current).reduce((s, v) => s + v, 0);
    // Both the exact result and the Monte Carlo one (seeded by these inputs) depend only on the
    // counts, so Services with the same counts share them and see the same figures.
    const risk = (from: ValueByZone<number>, kind: ScaleDownRisk['from']): ScaleDownRisk =>
      context.memo(`hpa-scale-down/${kind}/${Object.values(from).join(',')}/${hpa.minReplicas}`, () => scaleDownRisk(ratios, from, hpa.minReplicas, scaleDownSeed(from, hpa.minReplicas, kind), kind));
    if (currentTotal > hpa.minReplicas) scaleDown = risk(current, 'current');
    else if (hpa.maxReplicas > hpa.minReplicas) scaleDown = risk(evenSpread(Object.keys(ratios), hpa.maxReplicas), 'maxReplicas');
  }
  const hintsOffAt = scan ? scan.filter((row) => !row.hintsEnabled).map((row) => row.replicas) : [];

  // 3. Recommendations.
  const recommendations: HpaRecommendation[] = [];
  if (!spreadConstraint.present || !spreadConstraint.hard || (spreadConstraint.maxSkew ?? 1) > 1) {
    recommendations.push({
      id: 'topology-spread-constraints',
      title: 'Spread replicas evenly over zones',
      detail:
        'With maxSkew 1 and DoNotSchedule the scheduler places a new pod only where zones stay within 1 pod of each other (else it stays Pending), so the controller has little to donate. ScheduleAnyway only tries. Neither moves running pods, and scale-down ignores it.',
      snippet: spreadPatchYaml(deployment.namespace, deployment.name, deployment.templateLabels),
    });
  }
  if (hpa) {
    recommendations.push({
      id: 'descheduler',
      title: 'Rebalance after scale-down with the descheduler',
      detail:
        'Scale-down removes pods without regard to zones, and spread constraints only act when pods are scheduled. The descheduler\'s RemovePodsViolatingTopologySpreadConstraint plugin evicts pods from crowded zones so they are rescheduled evenly.',
      snippet: 'apiVersion: descheduler/v1alpha2\nkind: DeschedulerPolicy\nprofiles:\n  - name: zones\n    pluginConfig:\n      - name: RemovePodsViolatingTopologySpreadConstraint\n        args:\n          constraints: [DoNotSchedule]\n    plugins:\n      balance:\n        enabled: [RemovePodsViolatingTopologySpreadConstraint]',
    });
    recommendations.push({
      id: 'per-zone-deployments',
      title: 'One Deployment per zone, each with its own HPA',
      detail: `Pin a copy of ${deployment.name} to each zone (nodeSelector ${LABEL_TOPOLOGY_ZONE}) with its own HPA, behind the same Service: each zone scales with its own load and can never be emptied by another zone's scale-down.`,
      snippet: null,
    });
  }
  if (hintsOffAt.length > 0 && hpa) {
    const firstOn = scan?.find((row) => row.hintsEnabled)?.replicas ?? null;
    recommendations.push({
      id: 'avoid-replica-counts',
      title: `Hints are off at ${hintsOffAt.length <= 12 ? hintsOffAt.join(', ') : `${hintsOffAt.length} counts`} replicas`,
      detail:
        `Between minReplicas ${hpa.minReplicas} and maxReplicas ${hpa.maxReplicas} these counts cannot satisfy Σ minimum ≤ replicas.` +
        (firstOn !== null && hintsOffAt.includes(hpa.minReplicas) ? ` Raising minReplicas to ${firstOn} keeps hints on at the low end.` : ''),
      snippet: null,
    });
  }
  if (ratios && readyPods < 3 * Object.keys(ratios).length) {
    recommendations.push({
      id: 'endpoints-per-zone',
      title: 'Run at least 3 endpoints per zone',
      detail: 'Topology Aware Routing works best with 3 or more endpoints per zone; fewer leaves little room for the per-zone minimums and for uneven load.',
      snippet: null,
    });
  }

  // 4. The two truths with this Deployment's numbers.
  const offText = hintsOffAt.length > 0 ? `in the HPA range hints are off at ${hintsOffAt.join(', ')} replicas` : 'every replica count in the HPA range satisfies it';
  const truths = {
    count: `Hints go off when Σ minimum exceeds the ready endpoints (${MESSAGE_MIN_ALLOCATION_EXCEEDS_OVERLOAD_THRESHOLD}, or ${MESSAGE_INSUFFICIENT_NUMBER_OF_ENDPOINTS} below one per zone). That depends on the count alone: ${scan ? offText : `with ${readyPods} ready pods hints are ${hintsEnabledNow ? 'on' : 'off'}`}.`,
    placement: `Uneven placement keeps hints on but makes the controller donate endpoints from crowded zones to sparse ones; with the current placement ${donatedNow} endpoint${donatedNow === 1 ? ' is' : 's are'} donated, and the traffic of the receiving zones crosses zones.`,
  };

  return {
    deployment: { namespace: deployment.namespace, name: deployment.name, replicas: deployment.replicas, readyReplicas: deployment.readyReplicas },
    otherWorkloads: workload.otherWorkloads,
    autoscaler: hpa ? { name: hpa.name, minReplicas: hpa.minReplicas, maxReplicas: hpa.maxReplicas, currentReplicas: hpa.currentReplicas, desiredReplicas: hpa.desiredReplicas } : null,
    podsByZone,
    unscheduledPods: unscheduled,
    readyPods,
    hintsEnabledNow,
    donatedNow,
    spreadConstraint,
    scan,
    hintsOffAt,
    scaleDown,
    recommendations,
    truths,
  };
}

/** `3`, `3 and 4`, `3, 4, 6 and 11`. */
function listWithAnd(values: readonly number[]): string {
  if (values.length <= 1) return values.join('');
  return `${values.slice(0, -1).join(', ')} and ${values[values.length - 1]}`;
}

/** Hints on now, but off at replica counts the HPA may reach: the sentence and the patch that avoids it. */
export interface HpaRangeRisk {
  /** `Hints are on now, but turn off at 3, 4, 6 and 11 replicas within the HPA's range 2–12.` */
  readonly text: string;
  /** The smallest minReplicas from which every count up to maxReplicas keeps hints on; `null` when none does. */
  readonly safeMinReplicas: number | null;
  /** What the patch does (or why there is none). */
  readonly advice: string;
  /** `kubectl patch hpa …` raising minReplicas, when a safe count exists. */
  readonly command: string | null;
}

/**
 * The risk a "no fix needed" verdict must not hide: hints are on at the current count but the
 * HPA's range holds counts where Σ minimum exceeds the replicas. `null` when hints are off now,
 * there is no HPA scan, or every count in the range keeps hints on.
 */
export function hpaRangeRisk(analysis: HpaAnalysis): HpaRangeRisk | null {
  const hpa = analysis.autoscaler;
  if (!hpa || analysis.scan === null || analysis.hintsEnabledNow !== true || analysis.hintsOffAt.length === 0) return null;
  const off = analysis.hintsOffAt;
  const shown = off.length <= 12 ? listWithAnd(off) : `${off.length} counts`;
  const text = `Hints are on now, but turn off at ${shown} replicas within the HPA's range ${hpa.minReplicas}–${hpa.maxReplicas}.`;
  const highestOff = off.reduce((max, n) => (n > max ? n : max), -Infinity);
  const safe = highestOff < hpa.maxReplicas ? highestOff + 1 : null;
  const { namespace } = analysis.deployment;
  if (safe === null) {
    return {
      text,
      safeMinReplicas: null,
      advice: `No minReplicas avoids it (hints are off at maxReplicas ${hpa.maxReplicas}); raise maxReplicas past the off counts, or use trafficDistribution: PreferClose, which has no per-zone minimums.`,
      command: null,
    };
  }
  return {
    text,
    safeMinReplicas: safe,
    advice:
      safe === hpa.maxReplicas
        ? `Only ${safe} replicas avoid it: minReplicas ${safe} pins the HPA at ${safe}. Otherwise use trafficDistribution: PreferClose, which has no per-zone minimums.`
        : `Raising minReplicas to ${safe} keeps hints on at every count from ${safe} to ${hpa.maxReplicas}.`,
    command: `kubectl patch hpa ${hpa.name} -n ${namespace} --type merge -p '{"spec":{"minReplicas":${safe}}}'`,
  };
}
