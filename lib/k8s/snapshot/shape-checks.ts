/**
 * Shape checks of the objects a snapshot holds: the fields zonescope reads must have the type
 * Kubernetes gives them (a mapping, a list, a string, a number, a boolean, a map of strings),
 * `metadata.name` must be there, and a Node's CPU must be one the API server would store. A
 * problem names the field (`spec.ports[1].port must be a number, not string "80"`).
 */
import { allocatableCpuProblem } from '../wire-to-record/node';
import type { Json } from '../wire-to-record/json';
import { isJsonObject, obj, str } from '../wire-to-record/json';
import { resourceIdForKind } from '../resources';

type FieldType = 'object' | 'array' | 'string' | 'number' | 'boolean' | 'stringMap';

/** `[path, type]`; a path segment `[]` applies the rest to every element of an array. */
type FieldRule = readonly [string, FieldType];

const COMMON_RULES: readonly FieldRule[] = [
  ['metadata.namespace', 'string'],
  ['metadata.labels', 'stringMap'],
  ['metadata.annotations', 'stringMap'],
  ['metadata.resourceVersion', 'string'],
  ['metadata.ownerReferences', 'array'],
  ['metadata.ownerReferences.[]', 'object'],
];

const POD_TEMPLATE_RULES: readonly FieldRule[] = [
  ['spec.template', 'object'],
  ['spec.template.metadata.labels', 'stringMap'],
  ['spec.template.spec', 'object'],
  ['spec.template.spec.containers', 'array'],
  ['spec.template.spec.topologySpreadConstraints', 'array'],
  ['spec.template.spec.topologySpreadConstraints.[]', 'object'],
  ['spec.template.spec.topologySpreadConstraints.[].maxSkew', 'number'],
  ['spec.template.spec.affinity', 'object'],
];

const RULES: Readonly<Record<string, readonly FieldRule[]>> = {
  Node: [
    ['spec', 'object'],
    ['status', 'object'],
    ['status.conditions', 'array'],
    ['status.conditions.[]', 'object'],
    ['status.allocatable', 'object'],
  ],
  Service: [
    ['spec', 'object'],
    ['spec.selector', 'stringMap'],
    ['spec.ports', 'array'],
    ['spec.ports.[]', 'object'],
    ['spec.ports.[].port', 'number'],
    ['spec.type', 'string'],
    ['status.loadBalancer.ingress', 'array'],
  ],
  EndpointSlice: [
    ['addressType', 'string'],
    ['endpoints', 'array'],
    ['endpoints.[]', 'object'],
    ['endpoints.[].addresses', 'array'],
    ['endpoints.[].addresses.[]', 'string'],
    ['endpoints.[].conditions', 'object'],
    ['endpoints.[].conditions.ready', 'boolean'],
    ['endpoints.[].conditions.serving', 'boolean'],
    ['endpoints.[].conditions.terminating', 'boolean'],
    ['endpoints.[].zone', 'string'],
    ['endpoints.[].nodeName', 'string'],
    ['endpoints.[].hints', 'object'],
    ['endpoints.[].hints.forZones', 'array'],
    ['endpoints.[].hints.forZones.[]', 'object'],
    ['endpoints.[].hints.forZones.[].name', 'string'],
    ['endpoints.[].hints.forNodes', 'array'],
    ['ports', 'array'],
    ['ports.[]', 'object'],
  ],
  Pod: [
    ['spec', 'object'],
    ['spec.nodeName', 'string'],
    ['spec.hostNetwork', 'boolean'],
    ['status', 'object'],
    ['status.conditions', 'array'],
    ['status.conditions.[]', 'object'],
  ],
  Deployment: [['spec', 'object'], ['spec.replicas', 'number'], ['spec.selector', 'object'], ['spec.selector.matchLabels', 'stringMap'], ['spec.selector.matchExpressions', 'array'], ...POD_TEMPLATE_RULES, ['status.readyReplicas', 'number']],
  ReplicaSet: [['spec', 'object'], ['spec.replicas', 'number'], ['spec.selector', 'object']],
  HorizontalPodAutoscaler: [
    ['spec', 'object'],
    ['spec.scaleTargetRef', 'object'],
    ['spec.scaleTargetRef.kind', 'string'],
    ['spec.scaleTargetRef.name', 'string'],
    ['spec.minReplicas', 'number'],
    ['spec.maxReplicas', 'number'],
    ['status.currentReplicas', 'number'],
    ['status.desiredReplicas', 'number'],
  ],
  Event: [
    ['involvedObject', 'object'],
    ['regarding', 'object'],
    ['reason', 'string'],
    ['message', 'string'],
    ['note', 'string'],
    ['count', 'number'],
    ['deprecatedCount', 'number'],
  ],
  ConfigMap: [['data', 'stringMap']],
  DaemonSet: [['spec', 'object'], ...POD_TEMPLATE_RULES],
  FelixConfiguration: [['spec', 'object'], ['spec.bpfEnabled', 'boolean']],
  Installation: [['spec', 'object'], ['spec.calicoNetwork', 'object']],
};

/** Kinds read besides the resource types (Calico configuration). */
export const EXTRA_KINDS = ['FelixConfiguration', 'Installation'];

function typeOk(value: unknown, type: FieldType): boolean {
  switch (type) {
    case 'object':
      return isJsonObject(value);
    case 'array':
      return Array.isArray(value);
    case 'string':
      return typeof value === 'string';
    case 'number':
      return typeof value === 'number' && Number.isFinite(value);
    case 'boolean':
      return typeof value === 'boolean';
    case 'stringMap':
      return isJsonObject(value) && Object.values(value).every((v) => typeof v === 'string');
  }
}

const TYPE_NAMES: Readonly<Record<FieldType, string>> = {
  object: 'a mapping',
  array: 'a list',
  string: 'a string',
  number: 'a number',
  boolean: 'true or false',
  stringMap: 'a mapping of strings to strings',
};

/** What a value is, for messages: `a list`, `a mapping`, `null`, `string "80"`. */
export function describeValue(value: unknown): string {
  if (Array.isArray(value)) return 'a list';
  if (value === null) return 'null';
  if (typeof value === 'object') return 'a mapping';
  return `${typeof value} ${JSON.stringify(value)?.slice(0, 40) ?? ''}`.trim();
}

/** Checks one rule; absent and `null` values are fine (optional fields). Returns the first problem. */
function checkRule(value: unknown, segments: readonly string[], type: FieldType, at: string): string | null {
  if (value === undefined || value === null) return null;
  if (segments.length === 0) {
    return typeOk(value, type) ? null : `${at} must be ${TYPE_NAMES[type]}, not ${describeValue(value)}`;
  }
  const [head, ...rest] = segments;
  if (head === '[]') {
    if (!Array.isArray(value)) return null; // the array rule itself reports it
    for (let i = 0; i < value.length; i++) {
      const problem = checkRule(value[i], rest, type, `${at}[${i}]`);
      if (problem !== null) return problem;
    }
    return null;
  }
  if (!isJsonObject(value)) return null; // reported by the parent's own rule
  return checkRule(value[head ?? ''], rest, type, at === '' ? (head ?? '') : `${at}.${head ?? ''}`);
}

/** The first shape problem of an object of a read kind, `null` when it is fine. */
export function objectProblem(object: Json, kind: string): string | null {
  if (!isJsonObject(object.metadata)) return object.metadata === undefined ? 'metadata is missing' : `metadata must be a mapping, not ${describeValue(object.metadata)}`;
  const name = object.metadata.name;
  if (typeof name !== 'string' || name === '') return 'metadata.name is missing or not a string';
  for (const [fieldPath, type] of [...COMMON_RULES, ...(RULES[kind] ?? [])]) {
    const problem = checkRule(object, fieldPath.split('.'), type, '');
    if (problem !== null) return problem;
  }
  if (kind === 'Node') return allocatableCpuProblem(object);
  return null;
}

/** `Kind namespace/name` of an object, for messages. */
export function objectLabel(kind: string, object: Json): string {
  const metadata = obj(object.metadata);
  const name = str(metadata.name) ?? '?';
  const namespace = str(metadata.namespace);
  return `${kind} ${namespace ? `${namespace}/` : ''}${name}`;
}

/** Whether zonescope reads objects of `kind` (a resource type, or Calico's configuration). */
export function isReadKind(kind: string): boolean {
  return resourceIdForKind(kind) !== undefined || EXTRA_KINDS.includes(kind);
}
