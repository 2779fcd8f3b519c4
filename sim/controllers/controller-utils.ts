/**
 * What the simulated workload controllers read of Pods and owned objects, after upstream's
 * controller helpers: whether a pod counts as a replica (`IsPodActive`: not terminating, not
 * finished), whether it is Ready (`IsPodReady`), and an object's controller owner
 * (`metav1.GetControllerOf`).
 *
 * @see https://github.com/kubernetes/kubernetes/blob/master/pkg/controller/controller_utils.go
 */
import { isJsonObject, obj, str } from '../../lib/k8s/wire-to-record/json';
import type { ReadonlyKubeObject } from '../types';

/** The owner reference marked `controller: true`, or null. */
export function controllerOwner(object: ReadonlyKubeObject): { kind: string; name: string; uid: string } | null {
  const refs = object.metadata.ownerReferences;
  if (!Array.isArray(refs)) return null;
  const ref = refs.find((r) => r.controller === true);
  return ref ? { kind: ref.kind, name: ref.name, uid: ref.uid } : null;
}

/** Whether a pod counts as a replica: not terminating, not finished (upstream's FilterActivePods). */
export function isActive(pod: ReadonlyKubeObject): boolean {
  const phase = str(obj(pod.status).phase);
  return typeof pod.metadata.deletionTimestamp !== 'string' && phase !== 'Succeeded' && phase !== 'Failed';
}

/** Whether a pod's Ready condition is True. */
export function isReady(pod: ReadonlyKubeObject): boolean {
  const conditions = obj(pod.status).conditions;
  return Array.isArray(conditions) && conditions.some((c) => isJsonObject(c) && c.type === 'Ready' && c.status === 'True');
}
