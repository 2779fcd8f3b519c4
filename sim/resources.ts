/**
 * The resources the simulator serves: storage kinds (what the store keeps) and API endpoints
 * (group/version/plural as clients address them). Several endpoints may share one storage kind,
 * as `v1 events` and `events.k8s.io/v1 events` do on a real API server.
 */
import type { KubeObject } from './types';
import { pathValue } from './types';

/** Storage key of every kind the store keeps (the plural resource name). */
export type ResourceKey =
  | 'namespaces'
  | 'nodes'
  | 'services'
  | 'pods'
  | 'events'
  | 'configmaps'
  | 'endpointslices'
  | 'deployments'
  | 'replicasets'
  | 'daemonsets'
  | 'horizontalpodautoscalers';

/** Every storage key, in a stable order. */
export const RESOURCE_KEYS: readonly ResourceKey[] = [
  'namespaces',
  'nodes',
  'services',
  'pods',
  'events',
  'configmaps',
  'endpointslices',
  'deployments',
  'replicasets',
  'daemonsets',
  'horizontalpodautoscalers',
];

/** Reads the value a field selector compares for one supported field label. */
export type FieldGetter = (object: KubeObject) => string;

/** How the store keeps one kind. */
export interface StorageDef {
  readonly key: ResourceKey;
  readonly group: string;
  readonly version: string;
  readonly kind: string;
  readonly namespaced: boolean;
  /** Field labels usable in `fieldSelector` (besides `metadata.name` / `metadata.namespace`). */
  readonly fields: Readonly<Record<string, FieldGetter>>;
  /** Subresources with their own endpoints. */
  readonly subresources: readonly ('status' | 'scale')[];
  /** Whether upstream tracks metadata.generation for the kind (bumped when anything but metadata/status changes). */
  readonly generation: boolean;
}

/** One API endpoint family (`/apis/<group>/<version>/[namespaces/<ns>/]<plural>`). */
export interface ApiResource {
  readonly group: string;
  readonly version: string;
  readonly plural: string;
  readonly singular: string;
  readonly kind: string;
  readonly listKind: string;
  readonly namespaced: boolean;
  readonly shortNames: readonly string[];
  readonly categories: readonly string[];
  readonly verbs: readonly string[];
  /** Storage kind behind it; `undefined` for virtual resources (SelfSubjectAccessReview, SelfSubjectReview). */
  readonly storage: ResourceKey | undefined;
  readonly subresources: readonly ('status' | 'scale')[];
  /** Converts a stored object to this endpoint's wire form (identity when absent). */
  readonly toWire?: (stored: KubeObject) => KubeObject;
  /** Converts this endpoint's wire form to the stored form (identity when absent). */
  readonly fromWire?: (wire: KubeObject) => KubeObject;
  /** Renames field-selector labels of this endpoint to the storage's labels. */
  readonly fieldAliases?: Readonly<Record<string, string>>;
}

const ALL_VERBS = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'] as const;

function str(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return '';
}

function field(...path: string[]): FieldGetter {
  return (object) => str(pathValue(object, path));
}

const EVENT_FIELDS: Record<string, FieldGetter> = {
  'involvedObject.kind': field('involvedObject', 'kind'),
  'involvedObject.namespace': field('involvedObject', 'namespace'),
  'involvedObject.name': field('involvedObject', 'name'),
  'involvedObject.uid': field('involvedObject', 'uid'),
  'involvedObject.apiVersion': field('involvedObject', 'apiVersion'),
  'involvedObject.resourceVersion': field('involvedObject', 'resourceVersion'),
  'involvedObject.fieldPath': field('involvedObject', 'fieldPath'),
  reason: field('reason'),
  reportingComponent: field('reportingComponent'),
  source: (object) => str(pathValue(object, ['source', 'component'])) || str(object.reportingComponent),
  type: field('type'),
};

/** Storage definitions by key. */
export const STORAGE: Readonly<Record<ResourceKey, StorageDef>> = {
  namespaces: {
    key: 'namespaces', generation: false, group: '', version: 'v1', kind: 'Namespace', namespaced: false,
    fields: { 'status.phase': field('status', 'phase') }, subresources: ['status'],
  },
  nodes: {
    key: 'nodes', generation: false, group: '', version: 'v1', kind: 'Node', namespaced: false,
    fields: { 'spec.unschedulable': (o) => str(pathValue(o, ['spec', 'unschedulable'])) || 'false' },
    subresources: ['status'],
  },
  services: {
    key: 'services', generation: false, group: '', version: 'v1', kind: 'Service', namespaced: true,
    fields: { 'spec.clusterIP': field('spec', 'clusterIP'), 'spec.type': field('spec', 'type') },
    subresources: ['status'],
  },
  pods: {
    key: 'pods', generation: false, group: '', version: 'v1', kind: 'Pod', namespaced: true,
    fields: {
      'spec.nodeName': field('spec', 'nodeName'),
      'spec.restartPolicy': field('spec', 'restartPolicy'),
      'spec.schedulerName': field('spec', 'schedulerName'),
      'spec.serviceAccountName': field('spec', 'serviceAccountName'),
      'spec.hostNetwork': (o) => str(pathValue(o, ['spec', 'hostNetwork'])) || 'false',
      'status.phase': field('status', 'phase'),
      'status.podIP': field('status', 'podIP'),
      'status.nominatedNodeName': field('status', 'nominatedNodeName'),
    },
    subresources: ['status'],
  },
  events: { key: 'events', generation: false, group: '', version: 'v1', kind: 'Event', namespaced: true, fields: EVENT_FIELDS, subresources: [] },
  configmaps: { key: 'configmaps', generation: false, group: '', version: 'v1', kind: 'ConfigMap', namespaced: true, fields: {}, subresources: [] },
  endpointslices: {
    key: 'endpointslices', generation: true, group: 'discovery.k8s.io', version: 'v1', kind: 'EndpointSlice', namespaced: true,
    fields: { addressType: field('addressType') }, subresources: [],
  },
  deployments: {
    key: 'deployments', generation: true, group: 'apps', version: 'v1', kind: 'Deployment', namespaced: true, fields: {},
    subresources: ['status', 'scale'],
  },
  replicasets: {
    key: 'replicasets', generation: true, group: 'apps', version: 'v1', kind: 'ReplicaSet', namespaced: true,
    fields: { 'status.replicas': (o) => str(pathValue(o, ['status', 'replicas'])) || '0' },
    subresources: ['status', 'scale'],
  },
  daemonsets: {
    key: 'daemonsets', generation: true, group: 'apps', version: 'v1', kind: 'DaemonSet', namespaced: true, fields: {},
    subresources: ['status'],
  },
  horizontalpodautoscalers: {
    key: 'horizontalpodautoscalers', generation: true, group: 'autoscaling', version: 'v2', kind: 'HorizontalPodAutoscaler',
    namespaced: true, fields: {}, subresources: ['status'],
  },
};

/** Annotations autoscaling/v1 keeps what only v2 can say in (as the API server's conversion does). */
const HPA_V1_ANNOTATIONS = {
  metrics: 'autoscaling.alpha.kubernetes.io/metrics',
  currentMetrics: 'autoscaling.alpha.kubernetes.io/current-metrics',
  conditions: 'autoscaling.alpha.kubernetes.io/conditions',
  behavior: 'autoscaling.alpha.kubernetes.io/behavior',
} as const;

function recordOf(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

function isCpuUtilization(metric: unknown): boolean {
  const resource = recordOf(recordOf(metric).resource);
  return recordOf(metric).type === 'Resource' && resource.name === 'cpu' && recordOf(resource.target).type === 'Utilization';
}

function parseAnnotation(annotations: Record<string, string>, key: string): unknown[] {
  const raw = annotations[key];
  if (raw === undefined) return [];
  try {
    const value: unknown = JSON.parse(raw);
    return Array.isArray(value) ? value : [];
  } catch {
    return [];
  }
}

/**
 * autoscaling/v2 HorizontalPodAutoscaler (stored) → autoscaling/v1, as the API server converts:
 * the CPU utilization target and current value become `targetCPUUtilizationPercentage` and
 * `currentCPUUtilizationPercentage`; other metrics, conditions and behavior go to
 * `autoscaling.alpha.kubernetes.io/*` annotations.
 */
export function hpaV2ToV1(stored: KubeObject): KubeObject {
  const spec = recordOf(stored.spec);
  const status = recordOf(stored.status);
  const metrics = Array.isArray(spec.metrics) ? spec.metrics : [];
  const cpu = metrics.find(isCpuUtilization);
  const others = metrics.filter((m) => m !== cpu);
  const annotations: Record<string, string> = { ...(stored.metadata.annotations ?? {}) };
  if (others.length > 0) annotations[HPA_V1_ANNOTATIONS.metrics] = JSON.stringify(others);
  const currentMetrics = Array.isArray(status.currentMetrics) ? status.currentMetrics : [];
  const currentCpu = currentMetrics.find((m) => recordOf(m).type === 'Resource' && recordOf(recordOf(m).resource).name === 'cpu');
  const otherCurrent = currentMetrics.filter((m) => m !== currentCpu);
  if (otherCurrent.length > 0) annotations[HPA_V1_ANNOTATIONS.currentMetrics] = JSON.stringify(otherCurrent);
  if (Array.isArray(status.conditions) && status.conditions.length > 0) annotations[HPA_V1_ANNOTATIONS.conditions] = JSON.stringify(status.conditions);
  if (spec.behavior !== undefined) annotations[HPA_V1_ANNOTATIONS.behavior] = JSON.stringify(spec.behavior);
  const v1Spec: Record<string, unknown> = { scaleTargetRef: spec.scaleTargetRef, maxReplicas: spec.maxReplicas };
  if (spec.minReplicas !== undefined) v1Spec.minReplicas = spec.minReplicas;
  const target = recordOf(recordOf(recordOf(cpu).resource).target).averageUtilization;
  if (typeof target === 'number') v1Spec.targetCPUUtilizationPercentage = target;
  const v1Status: Record<string, unknown> = { currentReplicas: status.currentReplicas ?? 0, desiredReplicas: status.desiredReplicas ?? 0 };
  if (status.observedGeneration !== undefined) v1Status.observedGeneration = status.observedGeneration;
  if (status.lastScaleTime !== undefined) v1Status.lastScaleTime = status.lastScaleTime;
  const current = recordOf(recordOf(recordOf(currentCpu).resource).current).averageUtilization;
  if (typeof current === 'number') v1Status.currentCPUUtilizationPercentage = current;
  const metadata = { ...stored.metadata };
  if (Object.keys(annotations).length > 0) metadata.annotations = annotations;
  return { apiVersion: 'autoscaling/v1', kind: 'HorizontalPodAutoscaler', metadata, spec: v1Spec, status: v1Status };
}

/** autoscaling/v1 HorizontalPodAutoscaler → the stored autoscaling/v2 form (the inverse of {@link hpaV2ToV1}). */
export function hpaV1ToV2(wire: KubeObject): KubeObject {
  const spec = recordOf(wire.spec);
  const status = recordOf(wire.status);
  const annotations: Record<string, string> = { ...(wire.metadata.annotations ?? {}) };
  const metrics = parseAnnotation(annotations, HPA_V1_ANNOTATIONS.metrics);
  const currentMetrics = parseAnnotation(annotations, HPA_V1_ANNOTATIONS.currentMetrics);
  const conditions = parseAnnotation(annotations, HPA_V1_ANNOTATIONS.conditions);
  let behavior: unknown;
  try {
    behavior = annotations[HPA_V1_ANNOTATIONS.behavior] === undefined ? undefined : JSON.parse(annotations[HPA_V1_ANNOTATIONS.behavior] ?? '');
  } catch {
    behavior = undefined;
  }
  const v1Keys: readonly string[] = Object.values(HPA_V1_ANNOTATIONS);
  const kept = Object.fromEntries(Object.entries(annotations).filter(([key]) => !v1Keys.includes(key)));
  const v2Metrics: unknown[] = [];
  if (typeof spec.targetCPUUtilizationPercentage === 'number') {
    v2Metrics.push({ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: spec.targetCPUUtilizationPercentage } } });
  }
  v2Metrics.push(...metrics);
  const v2Spec: Record<string, unknown> = { scaleTargetRef: spec.scaleTargetRef, maxReplicas: spec.maxReplicas };
  if (spec.minReplicas !== undefined) v2Spec.minReplicas = spec.minReplicas;
  if (v2Metrics.length > 0) v2Spec.metrics = v2Metrics;
  if (behavior !== undefined) v2Spec.behavior = behavior;
  const v2Status: Record<string, unknown> = { currentReplicas: status.currentReplicas ?? 0, desiredReplicas: status.desiredReplicas ?? 0 };
  if (status.observedGeneration !== undefined) v2Status.observedGeneration = status.observedGeneration;
  if (status.lastScaleTime !== undefined) v2Status.lastScaleTime = status.lastScaleTime;
  const current: unknown[] = [];
  if (typeof status.currentCPUUtilizationPercentage === 'number') current.push({ type: 'Resource', resource: { name: 'cpu', current: { averageUtilization: status.currentCPUUtilizationPercentage } } });
  current.push(...currentMetrics);
  if (current.length > 0) v2Status.currentMetrics = current;
  if (conditions.length > 0) v2Status.conditions = conditions;
  const metadata = { ...wire.metadata };
  if (Object.keys(kept).length > 0) metadata.annotations = kept;
  else delete metadata.annotations;
  return { apiVersion: 'autoscaling/v2', kind: 'HorizontalPodAutoscaler', metadata, spec: v2Spec, status: v2Status };
}

/** `[core v1 Event field, events.k8s.io/v1 Event field]`: the fields the two Event APIs share, renamed. */
const EVENT_API_FIELD_PAIRS: readonly (readonly [string, string])[] = [
  ['eventTime', 'eventTime'], ['series', 'series'], ['reportingComponent', 'reportingController'],
  ['reportingInstance', 'reportingInstance'], ['action', 'action'], ['reason', 'reason'],
  ['involvedObject', 'regarding'], ['related', 'related'], ['message', 'note'], ['type', 'type'],
  ['source', 'deprecatedSource'], ['firstTimestamp', 'deprecatedFirstTimestamp'],
  ['lastTimestamp', 'deprecatedLastTimestamp'], ['count', 'deprecatedCount'],
];

/** Core v1 Event → events.k8s.io/v1 Event (the same conversion the API server applies). */
export function coreEventToEventsV1(stored: KubeObject): KubeObject {
  const out: KubeObject = { apiVersion: 'events.k8s.io/v1', kind: 'Event', metadata: stored.metadata };
  for (const [core, v1] of EVENT_API_FIELD_PAIRS) if (stored[core] !== undefined) out[v1] = stored[core];
  if (out.eventTime === undefined) out.eventTime = null;
  return out;
}

/** events.k8s.io/v1 Event → core v1 Event. */
export function eventsV1ToCoreEvent(wire: KubeObject): KubeObject {
  const out: KubeObject = { apiVersion: 'v1', kind: 'Event', metadata: wire.metadata };
  for (const [core, v1] of EVENT_API_FIELD_PAIRS) if (wire[v1] !== undefined && wire[v1] !== null) out[core] = wire[v1];
  if (out.involvedObject === undefined) out.involvedObject = {};
  return out;
}

function served(
  storage: ResourceKey,
  singular: string,
  shortNames: string[],
  categories: string[] = ['all'],
  extra: Partial<ApiResource> = {},
): ApiResource {
  const def = STORAGE[storage];
  return {
    group: def.group, version: def.version, plural: storage, singular, kind: def.kind, listKind: `${def.kind}List`,
    namespaced: def.namespaced, shortNames, categories, verbs: ALL_VERBS, storage, subresources: def.subresources,
    ...extra,
  };
}

/** Every API endpoint family the simulator serves. */
export const API_RESOURCES: readonly ApiResource[] = [
  served('namespaces', 'namespace', ['ns'], [], { verbs: ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'] }),
  served('nodes', 'node', ['no'], []),
  served('services', 'service', ['svc']),
  served('pods', 'pod', ['po']),
  served('events', 'event', ['ev'], []),
  served('configmaps', 'configmap', ['cm'], []),
  served('endpointslices', 'endpointslice', [], []),
  served('deployments', 'deployment', ['deploy']),
  served('replicasets', 'replicaset', ['rs']),
  served('daemonsets', 'daemonset', ['ds']),
  served('horizontalpodautoscalers', 'horizontalpodautoscaler', ['hpa']),
  // autoscaling/v1, still served next to v2 (the preferred version) and converted on the way.
  served('horizontalpodautoscalers', 'horizontalpodautoscaler', ['hpa'], ['all'], { version: 'v1', toWire: hpaV2ToV1, fromWire: hpaV1ToV2 }),
  served('events', 'event', ['ev'], [], {
    group: 'events.k8s.io', version: 'v1', shortNames: [], toWire: coreEventToEventsV1, fromWire: eventsV1ToCoreEvent,
    fieldAliases: {
      'regarding.kind': 'involvedObject.kind', 'regarding.namespace': 'involvedObject.namespace',
      'regarding.name': 'involvedObject.name', 'regarding.uid': 'involvedObject.uid',
      'regarding.apiVersion': 'involvedObject.apiVersion', 'regarding.resourceVersion': 'involvedObject.resourceVersion',
      'regarding.fieldPath': 'involvedObject.fieldPath', reportingController: 'reportingComponent',
      'deprecatedSource.component': 'source',
    },
  }),
  {
    group: 'authorization.k8s.io', version: 'v1', plural: 'selfsubjectaccessreviews', singular: 'selfsubjectaccessreview',
    kind: 'SelfSubjectAccessReview', listKind: 'SelfSubjectAccessReviewList', namespaced: false, shortNames: [],
    categories: [], verbs: ['create'], storage: undefined, subresources: [],
  },
  {
    // "Who am I" (`kubectl auth whoami`): GA in 1.28; answers with the user the simulator's RBAC knows.
    group: 'authentication.k8s.io', version: 'v1', plural: 'selfsubjectreviews', singular: 'selfsubjectreview',
    kind: 'SelfSubjectReview', listKind: 'SelfSubjectReviewList', namespaced: false, shortNames: [],
    categories: [], verbs: ['create'], storage: undefined, subresources: [],
  },
  {
    // Beta since 1.27, still served next to v1: what clients of 1.27 fall back to.
    group: 'authentication.k8s.io', version: 'v1beta1', plural: 'selfsubjectreviews', singular: 'selfsubjectreview',
    kind: 'SelfSubjectReview', listKind: 'SelfSubjectReviewList', namespaced: false, shortNames: [],
    categories: [], verbs: ['create'], storage: undefined, subresources: [],
  },
];

/** `apiVersion` string of a group/version pair. */
export function apiVersionOf(group: string, version: string): string {
  return group === '' ? version : `${group}/${version}`;
}

/** Finds the endpoint family for a URL's group, version and plural. */
export function findApiResource(group: string, version: string, plural: string): ApiResource | undefined {
  return API_RESOURCES.find((r) => r.group === group && r.version === version && r.plural === plural);
}

/** Finds the endpoint family whose wire form has this apiVersion and kind. */
export function apiResourceForKind(apiVersion: string, kind: string): ApiResource | undefined {
  return API_RESOURCES.find((r) => r.storage !== undefined && apiVersionOf(r.group, r.version) === apiVersion && r.kind === kind);
}

/** Group/version pairs served, grouped as discovery lists them (preferred version first). */
export function servedGroups(): { group: string; versions: string[] }[] {
  const groups = new Map<string, string[]>();
  for (const r of API_RESOURCES) {
    const versions = groups.get(r.group) ?? [];
    if (!versions.includes(r.version)) versions.push(r.version);
    groups.set(r.group, versions);
  }
  return [...groups].map(([group, versions]) => ({ group, versions }));
}

/** `"services"` or `"deployments.apps"`, as API error messages name a resource. */
export function groupResource(group: string, plural: string): string {
  return group === '' ? plural : `${plural}.${group}`;
}
