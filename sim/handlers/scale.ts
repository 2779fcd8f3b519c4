/**
 * The `scale` subresource of Deployments and ReplicaSets: the autoscaling/v1 Scale read from the
 * object, and the object with the replicas a Scale write sets.
 */
import { formatLabelSelector, labelSelectorFromObject } from '../selectors';
import type { KubeObject } from '../types';
import { cloneJson, isRecord, numberField, recordField } from '../types';

/** The autoscaling/v1 Scale of a Deployment or ReplicaSet. */
export function toScale(object: KubeObject): KubeObject {
  const spec = recordField(object, 'spec');
  let selector: string;
  try {
    selector = formatLabelSelector(labelSelectorFromObject(spec?.selector));
  } catch {
    selector = '';
  }
  const metadata: KubeObject['metadata'] = { name: object.metadata.name };
  for (const key of ['namespace', 'uid', 'resourceVersion', 'creationTimestamp'] as const) {
    const value = object.metadata[key];
    if (value !== undefined) metadata[key] = value;
  }
  return {
    kind: 'Scale',
    apiVersion: 'autoscaling/v1',
    metadata,
    spec: { replicas: numberField(spec, 'replicas') ?? 1 },
    status: { replicas: numberField(object.status, 'replicas') ?? 0, selector },
  };
}

/** A copy of `current` with `spec.replicas` set (what a Scale write stores). */
export function scaleUpdate(current: KubeObject, replicas: number): KubeObject {
  const next = cloneJson(current);
  const spec = isRecord(next.spec) ? next.spec : {};
  spec.replicas = replicas;
  next.spec = spec;
  return next;
}
