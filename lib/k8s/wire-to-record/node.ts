/**
 * Node → `NodeRecord`: zone and region labels, allocatable CPU (a quantity the API server would
 * store, else missing), readiness, the labels analyses look at, the provider ID.
 */
import type { NodeRecord } from '../../topology/model/cluster-model';
import { LABEL_TOPOLOGY_ZONE } from '../../topology/upstream/constants';
import { nanoToMilli, parseQuantityNano } from '../../topology/upstream/quantity';
import { internNullable, internString, internStringMap } from '../intern';
import { arr, obj, str, stringMap } from './json';

/** Labels of a Node that analyses look at. */
const NODE_LABELS_KEPT = [
  'node-role.kubernetes.io/control-plane',
  'node-role.kubernetes.io/master',
  LABEL_TOPOLOGY_ZONE,
  'topology.kubernetes.io/region',
  'node.kubernetes.io/instance-type',
  'eks.amazonaws.com/nodegroup',
  // Platform markers (detectClusterPlatform).
  'cloud.google.com/gke-nodepool',
  'kubernetes.azure.com/agentpool',
  'karpenter.sh/nodepool',
  'kubernetes.io/hostname',
];

/** The most allocatable CPU a Node can state: `Quantity.MilliValue()` is an int64 (9223372036854775807m). */
export const MAX_ALLOCATABLE_CPU_MILLI = 9_223_372_036_854_775_807n;

/**
 * What is wrong with a Node's `status.allocatable.cpu`, `null` when it is fine or absent. The API
 * server stores only quantities that parse and are not negative (`ValidateResourceQuantityValue`),
 * and the EndpointSlice controller counts CPU as an int64 of milli-cores, so a dump with anything
 * else was edited or corrupted: zonescope refuses it rather than compute ratios such as −41 % and
 * 258 % (negative CPU) or NaN (a total beyond a double, `1e306`).
 */
export function allocatableCpuProblem(rawNode: unknown): string | null {
  const cpu = obj(obj(obj(rawNode).status).allocatable).cpu;
  if (cpu === undefined || cpu === null) return null;
  if (typeof cpu !== 'string' && typeof cpu !== 'number') return `status.allocatable.cpu must be a quantity such as "4" or "3920m", not ${Array.isArray(cpu) ? 'a list' : typeof cpu}`;
  const text = String(cpu);
  const nano = parseQuantityNano(text);
  if (nano === null) return `status.allocatable.cpu "${text}" is not a Kubernetes quantity (such as "4" or "3920m"); the API server refuses it`;
  if (nano < 0n) return `status.allocatable.cpu "${text}" is negative; the API server refuses a negative quantity`;
  if (nanoToMilli(nano) > MAX_ALLOCATABLE_CPU_MILLI) return `status.allocatable.cpu "${text}" is more than ${MAX_ALLOCATABLE_CPU_MILLI}m, which Kubernetes cannot count (MilliValue() is an int64)`;
  return null;
}

/** Node → {@link NodeRecord}. */
export function projectNode(raw: unknown): NodeRecord {
  const o = obj(raw);
  const metadata = obj(o.metadata);
  const spec = obj(o.spec);
  const status = obj(o.status);
  const labels = stringMap(metadata.labels);
  const kept: Record<string, string> = {};
  for (const key of NODE_LABELS_KEPT) if (key in labels) kept[key] = labels[key] ?? '';
  const readyCondition = arr(status.conditions).map(obj).find((c) => c.type === 'Ready');
  const allocatable = obj(status.allocatable);
  const cpu = allocatable.cpu;
  return {
    name: internString(str(metadata.name) ?? ''),
    zone: Object.prototype.hasOwnProperty.call(labels, LABEL_TOPOLOGY_ZONE) ? internString(labels[LABEL_TOPOLOGY_ZONE] ?? '') : null,
    region: internNullable(labels['topology.kubernetes.io/region'] ?? null),
    // A CPU the API server would not store (negative) or Kubernetes cannot count (over an int64 of
    // milli-cores) is read as missing — "allocatable CPU not specified", as for an unparsable one —
    // never as a number that makes ratios negative or NaN. (Snapshots refuse such a Node outright.)
    allocatableCpu: internNullable((typeof cpu === 'string' || typeof cpu === 'number') && allocatableCpuProblem(raw) === null ? String(cpu) : null),
    ready: readyCondition === undefined ? null : readyCondition.status === 'True',
    unschedulable: spec.unschedulable === true,
    labels: internStringMap(kept),
    providerID: str(spec.providerID),
  };
}
