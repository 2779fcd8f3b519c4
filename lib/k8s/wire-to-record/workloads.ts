/**
 * The workloads behind Services: Pod → `PodRecord`, Deployment → `DeploymentRecord` (spread
 * constraints, zone anti-affinity), ReplicaSet → `ReplicaSetRecord`, HorizontalPodAutoscaler →
 * `HpaRecord`.
 */
import type { DeploymentRecord, HpaRecord, PodRecord, ReplicaSetRecord, TopologySpreadConstraintRecord } from '../../topology/model/cluster-model';
import { LABEL_TOPOLOGY_ZONE } from '../../topology/upstream/constants';
import { internNullable, internString, internStringMap } from '../intern';
import type { Json } from './json';
import { arr, num, obj, str, stringMap, timestamp } from './json';
import { controllerOwner, labelSelector } from './metadata';

/** Pod → {@link PodRecord}: ready from the `Ready` condition, terminating from `deletionTimestamp`. */
export function projectPod(raw: unknown): PodRecord {
  const o = obj(raw);
  const metadata = obj(o.metadata);
  const spec = obj(o.spec);
  const status = obj(o.status);
  const ready = arr(status.conditions)
    .map(obj)
    .some((condition) => condition.type === 'Ready' && condition.status === 'True');
  return {
    namespace: internString(str(metadata.namespace) ?? 'default'),
    name: str(metadata.name) ?? '',
    labels: internStringMap(stringMap(metadata.labels)),
    nodeName: internNullable(str(spec.nodeName)),
    phase: internNullable(str(status.phase)),
    ready,
    terminating: timestamp(metadata.deletionTimestamp) !== null,
    owner: controllerOwner(metadata),
    ...(spec.hostNetwork === true ? { hostNetwork: true } : {}),
  };
}

/** Zone topology keys a required anti-affinity may use (the legacy beta label still works). */
const ZONE_TOPOLOGY_KEYS = [LABEL_TOPOLOGY_ZONE, 'failure-domain.beta.kubernetes.io/zone'];

function spreadConstraint(raw: unknown): TopologySpreadConstraintRecord {
  const c = obj(raw);
  return {
    topologyKey: str(c.topologyKey) ?? '',
    maxSkew: num(c.maxSkew) ?? 1,
    whenUnsatisfiable: c.whenUnsatisfiable === 'ScheduleAnyway' ? 'ScheduleAnyway' : 'DoNotSchedule',
    labelSelector: labelSelector(c.labelSelector),
    minDomains: num(c.minDomains),
  };
}

/** Whether a pod spec has a required pod anti-affinity term on the zone key. */
function hasZoneAntiAffinity(podSpec: Json): boolean {
  const antiAffinity = obj(obj(podSpec.affinity).podAntiAffinity);
  return arr(antiAffinity.requiredDuringSchedulingIgnoredDuringExecution)
    .map(obj)
    .some((term) => ZONE_TOPOLOGY_KEYS.includes(str(term.topologyKey) ?? ''));
}

/** Deployment → {@link DeploymentRecord} (`spec.replicas` defaults to 1, as the API server does). */
export function projectDeployment(raw: unknown): DeploymentRecord {
  const o = obj(raw);
  const metadata = obj(o.metadata);
  const spec = obj(o.spec);
  const status = obj(o.status);
  const template = obj(spec.template);
  const podSpec = obj(template.spec);
  return {
    namespace: internString(str(metadata.namespace) ?? 'default'),
    name: internString(str(metadata.name) ?? ''),
    replicas: num(spec.replicas) ?? 1,
    readyReplicas: num(status.readyReplicas) ?? 0,
    selector: labelSelector(spec.selector) ?? { matchLabels: {}, matchExpressions: [] },
    templateLabels: internStringMap(stringMap(obj(template.metadata).labels)),
    topologySpreadConstraints: arr(podSpec.topologySpreadConstraints).map(spreadConstraint),
    zoneAntiAffinity: hasZoneAntiAffinity(podSpec),
  };
}

/** ReplicaSet → {@link ReplicaSetRecord}. */
export function projectReplicaSet(raw: unknown): ReplicaSetRecord {
  const o = obj(raw);
  const metadata = obj(o.metadata);
  return {
    namespace: internString(str(metadata.namespace) ?? 'default'),
    name: internString(str(metadata.name) ?? ''),
    replicas: num(obj(o.spec).replicas) ?? 1,
    owner: controllerOwner(metadata),
  };
}

/** HorizontalPodAutoscaler (autoscaling/v2, also v1 and v2beta2: the fields read are the same) → {@link HpaRecord}. */
export function projectHpa(raw: unknown): HpaRecord {
  const o = obj(raw);
  const metadata = obj(o.metadata);
  const spec = obj(o.spec);
  const status = obj(o.status);
  const target = obj(spec.scaleTargetRef);
  return {
    namespace: internString(str(metadata.namespace) ?? 'default'),
    name: str(metadata.name) ?? '',
    scaleTargetRef: { kind: internString(str(target.kind) ?? ''), name: str(target.name) ?? '' },
    minReplicas: num(spec.minReplicas) ?? 1,
    maxReplicas: num(spec.maxReplicas) ?? 0,
    currentReplicas: num(status.currentReplicas),
    desiredReplicas: num(status.desiredReplicas),
  };
}
