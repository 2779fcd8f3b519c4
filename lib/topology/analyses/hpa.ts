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
import { donatedFor } from './fixes';
import { createSeededRandom, hashSeed } from './seeded-random';
import { computeAllocationTable, getAllocations, getGivingAndReceivingZones } from '../upstream/topology-cache';
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

function spreadOthers(zones: readonly string[], skip: string, total: number): ValueByZone<number> {
  return evenSpread(zones.filter((z) => z !== skip), total);
}

/**
 * The most donating placement of `replicas` over the ratio zones among the extreme placements a
 * maximum skew allows: one zone as low as possible with the others even, or one zone as high as
 * possible with the others even. `maxSkew = null` means unconstrained.
 */
export function worstSpread(ratios: Readonly<ValueByZone<number>>, replicas: number, maxSkew: number | null): SpreadOutcome {
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
export function scanReplicaCounts(ratios: Readonly<ValueByZone<number>>, minReplicas: number, maxReplicas: number, maxSkew: number | null): HpaScanRow[] {
  const zones = sortedKeys(ratios);
  const rows: HpaScanRow[] = [];
  const last = Math.min(maxReplicas, minReplicas + MAX_SCAN_ROWS - 1);
  for (let replicas = Math.max(0, minReplicas); replicas <= last; replicas++) {
    const allocation = getAllocations(ratios, replicas);
    const even = evenSpread(zones, replicas);
    rows.push({
      replicas,
      minimumTotal: computeAllocationTable(ratios, replicas).minimumTotal,
      hintsEnabled: allocation.ok,
      reason: allocation.ok ? null : allocation.event.message,
      evenSpread: { countsByZone: even, donated: allocation.ok ? donatedFor(ratios, even) : 0 },
      worstSpread: worstSpread(ratios, replicas, maxSkew),
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
    // 2. Seeded Monte Carlo: draw the kept pods one by one without replacement.
    method = 'monte-carlo';
    samples = limits.samples ?? MONTE_CARLO_SAMPLES;
    const random = createSeededRandom(seed);
    for (let s = 0; s < samples; s++) {
      const remaining = [...caps];
      let remainingTotal = fromReplicas;
      const draw = zones.map(() => 0);
      for (let d = 0; d < to; d++) {
        let r = random() * remainingTotal;
        let pick = 0;
        while (pick < zones.length - 1 && r >= (remaining[pick] ?? 0)) {
          r -= remaining[pick] ?? 0;
          pick++;
        }
        remaining[pick] = (remaining[pick] ?? 0) - 1;
        remainingTotal--;
        draw[pick] = (draw[pick] ?? 0) + 1;
      }
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
export function analyzeHpa(context: ClusterContext, workload: ServiceWorkload, serviceKey: string, donatedNow: number): HpaAnalysis {
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
    scan = context.memo(`hpa-scan/${hpa.minReplicas}/${hpa.maxReplicas}/${skew}`, () => scanReplicaCounts(ratios, hpa.minReplicas, hpa.maxReplicas, skew));
    const current: ValueByZone<number> = {};
    for (const zone of Object.keys(ratios)) current[zone] = byZone.get(zone)?.ready ?? 0;
    const currentTotal = Object.values(current).reduce((s, v) => s + v, 0);
    const seed = hashSeed(serviceKey);
    const risk = (from: ValueByZone<number>, kind: ScaleDownRisk['from']): ScaleDownRisk => {
      // Exact results depend only on the counts, so Services with the same counts share them.
      const key = `hpa-scale-down/${kind}/${Object.values(from).join(',')}/${hpa.minReplicas}`;
      const shared = context.memo<ScaleDownRisk | null>(key, () => {
        const result = scaleDownRisk(ratios, from, hpa.minReplicas, seed, kind);
        return result.method === 'exact' ? result : null;
      });
      return shared ?? scaleDownRisk(ratios, from, hpa.minReplicas, seed, kind);
    };
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
