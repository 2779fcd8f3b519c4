/**
 * A HorizontalPodAutoscaler (autoscaling/v2) of the realistic cluster: a CPU target (sometimes
 * memory too, sometimes a scale-down/up behaviour), a replica range around the Deployment's
 * count, and the status kube-controller-manager reports (conditions, current metrics, replicas;
 * ScalingLimited when the count sits at an end of the range).
 */
import type { KubeObject } from '../../types';
import type { Json } from './catalogue';
import { NOW } from './catalogue';
import type { Dice } from './dice';
import type { Workload } from './workload-layout';

/** What the HPA shares with its Deployment. */
export interface HpaOwner {
  readonly commonLabels: Record<string, string>;
  readonly helmAnnotations: Record<string, string>;
  /** managedFields manager of the spec (Helm or kubectl). */
  readonly manager: string;
  readonly created: string;
  /** When the Deployment's conditions last changed. */
  readonly condTime: string;
}

/** The HPA of a workload's Deployment. */
export function hpaObject(dice: Dice, w: Workload, owner: HpaOwner): KubeObject {
  const { chance, int, past, random, uid } = dice;
  const { commonLabels, helmAnnotations, manager, created, condTime } = owner;
  const min = Math.max(1, Math.floor(w.replicas * (0.3 + random() * 0.5)));
  const max = Math.max(w.replicas + 1, Math.ceil(w.replicas * (1.5 + random() * 2)));
  const utilization = int(45, 85);
  const metrics: Json[] = [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: int(50, 80) } } }];
  if (chance(0.3)) metrics.push({ type: 'Resource', resource: { name: 'memory', target: { type: 'Utilization', averageUtilization: 75 } } });
  const hpaSpec: Json = { maxReplicas: max, metrics, minReplicas: min, scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: w.name } };
  if (chance(0.3)) hpaSpec.behavior = { scaleDown: { policies: [{ type: 'Percent', value: 10, periodSeconds: 60 }], selectPolicy: 'Max', stabilizationWindowSeconds: 300 }, scaleUp: { policies: [{ type: 'Pods', value: 4, periodSeconds: 15 }, { type: 'Percent', value: 100, periodSeconds: 15 }], selectPolicy: 'Max', stabilizationWindowSeconds: 0 } };
  const limited = w.replicas <= min || w.replicas >= max;
  return {
    apiVersion: 'autoscaling/v2', kind: 'HorizontalPodAutoscaler',
    metadata: {
      name: w.name, namespace: w.namespace, uid: uid(), resourceVersion: String(int(1_000_000, 99_999_999)), creationTimestamp: created, labels: { ...commonLabels }, annotations: { ...helmAnnotations },
      managedFields: [
        { manager, operation: 'Update', apiVersion: 'autoscaling/v2', time: created, fieldsType: 'FieldsV1', fieldsV1: { 'f:spec': { 'f:maxReplicas': {}, 'f:metrics': {}, 'f:minReplicas': {}, 'f:scaleTargetRef': {} } } },
        { manager: 'kube-controller-manager', operation: 'Update', apiVersion: 'autoscaling/v2', time: NOW, fieldsType: 'FieldsV1', subresource: 'status', fieldsV1: { 'f:status': { 'f:conditions': {}, 'f:currentMetrics': {}, 'f:currentReplicas': {}, 'f:desiredReplicas': {} } } },
      ],
    } as KubeObject['metadata'],
    spec: hpaSpec,
    status: {
      conditions: [
        { type: 'AbleToScale', status: 'True', lastTransitionTime: created, reason: 'ReadyForNewScale', message: 'recommended size matches current size' },
        { type: 'ScalingActive', status: 'True', lastTransitionTime: created, reason: 'ValidMetricFound', message: 'the HPA was able to successfully calculate a replica count from cpu resource utilization (percentage of request)' },
        limited
          ? { type: 'ScalingLimited', status: 'True', lastTransitionTime: condTime, reason: w.replicas <= min ? 'TooFewReplicas' : 'TooManyReplicas', message: `the desired replica count is ${w.replicas <= min ? 'less' : 'more'} than the ${w.replicas <= min ? 'minimum' : 'maximum'} replica count` }
          : { type: 'ScalingLimited', status: 'False', lastTransitionTime: condTime, reason: 'DesiredWithinRange', message: 'the desired count is within the acceptable range' },
      ],
      currentMetrics: [{ type: 'Resource', resource: { name: 'cpu', current: { averageUtilization: utilization, averageValue: `${int(20, 900)}m` } } }],
      currentReplicas: w.replicas, desiredReplicas: w.replicas, ...(chance(0.6) ? { lastScaleTime: past(3) } : {}),
    },
  };
}
