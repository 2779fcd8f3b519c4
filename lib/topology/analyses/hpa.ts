/**
 * The HPA panel of a Service: replica counts, placement and autoscaling of the Deployment behind
 * it, against the `Auto` heuristic. Two separate truths are shown precisely:
 *
 * 1. **Count.** Hints go off when Σ minimum > ready endpoints (`minimum = ceil(n × ratio / 1.2)`).
 *    That depends only on how many endpoints are ready and the zone CPU ratios — over three equal
 *    zones 4, 5, 8 and 11 endpoints are off however the pods are placed.
 * 2. **Placement.** Uneven placement does **not** turn hints off: the controller keeps them on and
 *    donates endpoints of crowded zones to sparse zones, so the sparse zones' traffic crosses zones
 *    (and those endpoints take traffic from two zones).
 *
 * The parts: the Deployment behind the Service (service-workload.ts), its zone spread constraint
 * (spread-constraint.ts) and the patch that adds one (spread-patch.ts), the scan of the HPA's
 * replica range (replica-scan.ts) and the risk of a zone-blind scale-down (scale-down-risk.ts).
 *
 * @see https://github.com/kubernetes/kubernetes/blob/master/staging/src/k8s.io/endpointslice/topologycache/topologycache.go
 */
import type { ClusterContext } from '../model/cluster-context';
import { LABEL_TOPOLOGY_ZONE, MESSAGE_INSUFFICIENT_NUMBER_OF_ENDPOINTS, MESSAGE_MIN_ALLOCATION_EXCEEDS_OVERLOAD_THRESHOLD } from '../upstream/constants';
import type { HpaScanRow } from './replica-scan';
import { evenSpread, scanReplicaCounts } from './replica-scan';
import type { ScaleDownRisk } from './scale-down-risk';
import { scaleDownRisk, scaleDownSeed } from './scale-down-risk';
import type { ServiceWorkload } from './service-workload';
import type { SpreadConstraintCheck } from './spread-constraint';
import { checkSpreadConstraint } from './spread-constraint';
import { spreadPatchYaml } from './spread-patch';
import { computeAllocationTable, getAllocations } from '../upstream/topology-cache';
import { sortStrings } from '../upstream/sorted';
import type { ValueByZone } from '../upstream/types';

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
