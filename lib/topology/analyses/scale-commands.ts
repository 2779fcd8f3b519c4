/**
 * How an endpoint-count fix is made with a Service's Deployment: the kubectl commands (HPA bounds,
 * zone spread patch, `kubectl scale`) and the note on what they guarantee — hints depend on the
 * count of ready endpoints alone, while `kubectl scale` cannot choose where new pods land and
 * scale-down removes pods without regard to zones.
 *
 * @see https://kubernetes.io/docs/concepts/scheduling-eviction/topology-spread-constraints/
 */
import type { SpreadConstraintCheck } from './spread-constraint';
import { spreadPatchCommand } from './spread-patch';
import { getAllocations } from '../upstream/topology-cache';
import type { ValueByZone } from '../upstream/types';

/** The workload behind the Service, for concrete scale commands. */
export interface FixWorkload {
  readonly deployment: string;
  readonly replicas: number;
  readonly hpa: { readonly name: string; readonly minReplicas: number; readonly maxReplicas: number } | null;
  /** The pod template's labels (the spread constraint's labelSelector); absent: unknown. */
  readonly podLabels?: Readonly<Record<string, string>>;
  /** The Deployment's zone spread constraint, checked; absent: unknown. */
  readonly zoneSpread?: Pick<SpreadConstraintCheck, 'present' | 'hard' | 'maxSkew' | 'whenUnsatisfiable' | 'selectorMatchesPods'>;
}

/**
 * What the count guarantees and what the placement adds: hints depend on the number of ready
 * endpoints alone; where the pods land only changes the donations, and `kubectl scale` cannot
 * choose it — a zone spread of maxSkew 1 with DoNotSchedule does, at scheduling time only.
 */
export function placementNote(isAdd: boolean, readyAfter: number, workload: FixWorkload | null, ratios: Readonly<ValueByZone<number>>): string {
  // The counts just above also decide: an HPA or a manual "one more" can land on one that is off.
  const offAbove = [1, 2, 3].map((d) => readyAfter + d).filter((c) => !getAllocations(ratios, c).ok);
  const count =
    `Hints turn on at ${readyAfter} ready endpoints wherever the pods run (the minimums depend on the count alone)` +
    (offAbove.length > 0 ? `; at ${offAbove.join(', ')} they are off again.` : '.');
  if (!isAdd) return `${count} Scale-down removes pods without regard to zones, so the zones shown are the fewest-donation outcome, not a guarantee.`;
  const spread = workload?.zoneSpread;
  if (spread?.hard && spread.maxSkew === 1) {
    return `${count} kubectl scale cannot choose zones; the Deployment's zone spread (maxSkew 1, DoNotSchedule) puts each new pod in a zone with the fewest pods, so zones stay within 1 pod of each other.`;
  }
  const now =
    spread?.present && spread.whenUnsatisfiable === 'ScheduleAnyway'
      ? ' Its zone spread is ScheduleAnyway, which only tries.'
      : spread?.present && !spread.selectorMatchesPods
        ? ' Its zone spread does not select its own pods.'
        : '';
  return `${count} kubectl scale cannot choose zones, so the zones shown (fewest donations) are not guaranteed.${now} The patch below adds a zone spread (maxSkew 1, DoNotSchedule): a new pod is placed only where zones stay within 1 pod of each other, else it stays Pending; it does not move running pods, and scale-down ignores it.`;
}

/**
 * The commands that change a Service's ready endpoints by `replicasDelta` through its Deployment:
 * the HPA's bounds moved first so it does not scale back, a zone spread patch when adding to a
 * Deployment without a hard zone spread of maxSkew 1 (`kubectl scale` cannot choose zones), then
 * `kubectl scale`. Without a known workload, a comment saying what to change (`zonesText`).
 */
export function scaleCommands(w: FixWorkload | null, namespace: string, replicasDelta: number, zonesText: string): string[] {
  if (!w) return [`# ${replicasDelta > 0 ? 'add' : 'remove'} ${Math.abs(replicasDelta)} ready endpoint(s): ${zonesText}`];
  const target = Math.max(0, w.replicas + replicasDelta);
  const commands = [`kubectl scale deployment/${w.deployment} -n ${namespace} --replicas=${target}`];
  // kubectl scale cannot choose zones: without a hard zone spread of maxSkew 1, add one first.
  if (replicasDelta > 0 && w.podLabels && !(w.zoneSpread?.hard && w.zoneSpread.maxSkew === 1)) commands.unshift(spreadPatchCommand(namespace, w.deployment, w.podLabels));
  if (w.hpa) {
    const patch = replicasDelta > 0 ? `{"spec":{"minReplicas":${Math.max(w.hpa.minReplicas, target)}}}` : `{"spec":{"maxReplicas":${target},"minReplicas":${Math.min(w.hpa.minReplicas, target)}}}`;
    commands.unshift(`kubectl patch hpa ${w.hpa.name} -n ${namespace} --type merge -p '${patch}'`);
  }
  return commands;
}
