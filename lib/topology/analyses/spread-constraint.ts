/**
 * The zone topology spread constraint of a Deployment's pod template, checked: whether there is
 * one, how hard it is (`DoNotSchedule` vs `ScheduleAnyway`), whether its labelSelector selects the
 * Deployment's own pods, and what that means for placement (the scheduler enforces it on scale-up
 * only; scale-down ignores it).
 *
 * @see https://kubernetes.io/docs/concepts/scheduling-eviction/topology-spread-constraints/
 */
import type { DeploymentRecord } from '../model/cluster-model';
import { matchesSelector } from '../model/cluster-model';
import { LABEL_TOPOLOGY_ZONE } from '../upstream/constants';

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
