/**
 * The columns of server-side printing per kind: what `kubectl get` shows (and `-o wide` adds, at
 * priority 1) for the kinds the simulator serves, cell by cell as upstream's printers compute
 * them; a Name / Created At table for the others.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/master/pkg/printers/internalversion/printers.go
 */
import type { ApiResource } from '../resources';
import type { KubeObject } from '../types';
import { arrayField, isRecord, numberField, pathValue, recordField, stringField } from '../types';
import { humanDuration } from './human-duration';

/** A `TableColumnDefinition`. */
export interface TableColumnDefinition {
  name: string;
  type: 'string' | 'integer' | 'number' | 'boolean' | 'date';
  format: string;
  description: string;
  priority: number;
}

/** A table cell value. */
export type Cell = string | number | boolean;

/** A column: its definition and how a row's cell is computed. */
export interface Column {
  definition: TableColumnDefinition;
  value: (object: KubeObject, now: Date) => Cell;
}

function since(timestamp: unknown, now: Date): string {
  if (typeof timestamp !== 'string') return '<unknown>';
  const time = Date.parse(timestamp);
  if (Number.isNaN(time)) return '<unknown>';
  return humanDuration(now.getTime() - time);
}

function col(name: string, type: TableColumnDefinition['type'], value: Column['value'], priority = 0, format = ''): Column {
  return { definition: { name, type, format, description: '', priority }, value };
}

const NAME = col('Name', 'string', (o) => o.metadata.name, 0, 'name');
const AGE = col('Age', 'string', (o, now) => since(o.metadata.creationTimestamp, now));

function orNone(text: string): string {
  return text === '' ? '<none>' : text;
}

function podSpecOf(template: unknown): unknown {
  return pathValue(template, ['spec', 'template', 'spec']);
}

function containersColumn(o: KubeObject): string {
  return orNone(arrayField(podSpecOf(o), 'containers').map((c) => stringField(c, 'name') ?? '').join(','));
}

function imagesColumn(o: KubeObject): string {
  return orNone(arrayField(podSpecOf(o), 'containers').map((c) => stringField(c, 'image') ?? '').join(','));
}

function selectorColumn(o: KubeObject): string {
  const selector = recordField(o.spec, 'selector');
  if (selector === undefined) return '<none>';
  const parts: string[] = [];
  const matchLabels = recordField(selector, 'matchLabels') ?? {};
  for (const [k, v] of Object.entries(matchLabels)) parts.push(`${k}=${String(v)}`);
  for (const expr of arrayField(selector, 'matchExpressions')) {
    const key = stringField(expr, 'key') ?? '';
    const values = arrayField(expr, 'values').map(String).join(',');
    const op = stringField(expr, 'operator');
    if (op === 'In') parts.push(`${key} in (${values})`);
    else if (op === 'NotIn') parts.push(`${key} notin (${values})`);
    else if (op === 'Exists') parts.push(key);
    else if (op === 'DoesNotExist') parts.push(`!${key}`);
  }
  return orNone(parts.join(','));
}

/** The wide columns (`-o wide`) kubectl prints for each pod-template workload (Deployment, ReplicaSet, DaemonSet). */
const WORKLOAD_WIDE_COLUMNS: readonly Column[] = [
  col('Containers', 'string', containersColumn, 1),
  col('Images', 'string', imagesColumn, 1),
  col('Selector', 'string', selectorColumn, 1),
];

/** A map as kubectl prints a selector or node selector: `k1=v1,k2=v2`. */
function equalityText(map: Readonly<Record<string, unknown>>): string {
  return Object.entries(map).map(([k, v]) => `${k}=${String(v)}`).join(',');
}

function count(o: KubeObject, ...path: string[]): number {
  const value = pathValue(o, path);
  return typeof value === 'number' ? value : 0;
}

function nodeStatus(o: KubeObject): string {
  const ready = arrayField(o.status, 'conditions').find((c) => stringField(c, 'type') === 'Ready');
  const status = stringField(ready, 'status');
  let text = status === 'True' ? 'Ready' : status === 'False' ? 'NotReady' : 'Unknown';
  if (pathValue(o, ['spec', 'unschedulable']) === true) text += ',SchedulingDisabled';
  return text;
}

function nodeRoles(o: KubeObject): string {
  const roles = new Set<string>();
  for (const [key, value] of Object.entries(o.metadata.labels ?? {})) {
    if (key.startsWith('node-role.kubernetes.io/')) roles.add(key.slice('node-role.kubernetes.io/'.length));
    else if (key === 'kubernetes.io/role') roles.add(value);
  }
  return orNone([...roles].filter((r) => r !== '').sort().join(','));
}

function nodeAddress(o: KubeObject, type: string): string {
  const address = arrayField(o.status, 'addresses').find((a) => stringField(a, 'type') === type);
  return stringField(address, 'address') ?? '<none>';
}

function servicePorts(o: KubeObject): string {
  const ports = arrayField(o.spec, 'ports').map((p) => {
    const port = numberField(p, 'port') ?? 0;
    const nodePort = numberField(p, 'nodePort');
    const protocol = stringField(p, 'protocol') ?? 'TCP';
    return nodePort !== undefined ? `${port}:${nodePort}/${protocol}` : `${port}/${protocol}`;
  });
  return orNone(ports.join(','));
}

function serviceExternalIp(o: KubeObject): string {
  const type = stringField(o.spec, 'type') ?? 'ClusterIP';
  const externalIPs = arrayField(o.spec, 'externalIPs').map(String);
  if (type === 'ExternalName') return stringField(o.spec, 'externalName') ?? '<none>';
  if (type === 'LoadBalancer') {
    const ingress = arrayField(recordField(o.status, 'loadBalancer'), 'ingress').map((i) => stringField(i, 'ip') ?? stringField(i, 'hostname') ?? '');
    const all = [...ingress, ...externalIPs].filter((x) => x !== '');
    return all.length > 0 ? all.join(',') : '<pending>';
  }
  return externalIPs.length > 0 ? externalIPs.join(',') : '<none>';
}

function podReady(o: KubeObject): string {
  const total = arrayField(o.spec, 'containers').length;
  const ready = arrayField(o.status, 'containerStatuses').filter((c) => isRecord(c) && c.ready === true).length;
  return `${ready}/${total}`;
}

function podStatus(o: KubeObject): string {
  if (o.metadata.deletionTimestamp !== undefined) return 'Terminating';
  let reason = stringField(o.status, 'reason') ?? stringField(o.status, 'phase') ?? 'Unknown';
  for (const c of arrayField(o.status, 'containerStatuses')) {
    const waiting = recordField(recordField(c, 'state'), 'waiting');
    const terminated = recordField(recordField(c, 'state'), 'terminated');
    const waitingReason = stringField(waiting, 'reason');
    const terminatedReason = stringField(terminated, 'reason');
    if (waitingReason) reason = waitingReason;
    else if (terminatedReason) reason = terminatedReason;
  }
  return reason;
}

function podRestarts(o: KubeObject): number {
  return arrayField(o.status, 'containerStatuses').reduce<number>((sum, c) => sum + (numberField(c, 'restartCount') ?? 0), 0);
}

function sliceEndpoints(o: KubeObject): string {
  const addresses: string[] = [];
  for (const endpoint of arrayField(o, 'endpoints')) {
    for (const address of arrayField(endpoint, 'addresses')) if (typeof address === 'string') addresses.push(address);
  }
  if (addresses.length === 0) return '<unset>';
  const shown = addresses.slice(0, 3).join(',');
  return addresses.length > 3 ? `${shown} + ${addresses.length - 3} more...` : shown;
}

function slicePorts(o: KubeObject): string {
  const ports = arrayField(o, 'ports').map((p) => numberField(p, 'port')).filter((p): p is number => p !== undefined);
  return ports.length > 0 ? ports.join(',') : '<unset>';
}

function hpaTargets(o: KubeObject): string {
  const current = arrayField(o.status, 'currentMetrics');
  const parts = arrayField(o.spec, 'metrics').map((metric, index) => {
    const resource = recordField(metric, 'resource');
    const name = stringField(resource, 'name') ?? stringField(metric, 'type') ?? 'metric';
    const target = recordField(resource, 'target');
    const utilization = numberField(target, 'averageUtilization');
    const currentUtilization = numberField(recordField(recordField(current[index], 'resource'), 'current'), 'averageUtilization');
    const now = currentUtilization !== undefined ? `${currentUtilization}%` : '<unknown>';
    return utilization !== undefined ? `${name}: ${now}/${utilization}%` : `${name}: <unknown>`;
  });
  return parts.length > 0 ? parts.join(', ') : '<none>';
}

function eventObject(o: KubeObject): string {
  const involved = recordField(o, 'involvedObject');
  return `${(stringField(involved, 'kind') ?? '').toLowerCase()}/${stringField(involved, 'name') ?? ''}`;
}

function eventLastSeen(o: KubeObject, now: Date): string {
  const last = stringField(o, 'lastTimestamp') ?? stringField(o, 'eventTime') ?? stringField(recordField(o, 'series'), 'lastObservedTime');
  return last ? since(last, now) : since(o.metadata.creationTimestamp, now);
}

const COLUMNS: Readonly<Record<string, readonly Column[]>> = {
  nodes: [
    NAME,
    col('Status', 'string', nodeStatus),
    col('Roles', 'string', nodeRoles),
    AGE,
    col('Version', 'string', (o) => stringField(recordField(o.status, 'nodeInfo'), 'kubeletVersion') ?? ''),
    col('Internal-IP', 'string', (o) => nodeAddress(o, 'InternalIP'), 1),
    col('External-IP', 'string', (o) => nodeAddress(o, 'ExternalIP'), 1),
    col('OS-Image', 'string', (o) => stringField(recordField(o.status, 'nodeInfo'), 'osImage') ?? '<unknown>', 1),
    col('Kernel-Version', 'string', (o) => stringField(recordField(o.status, 'nodeInfo'), 'kernelVersion') ?? '<unknown>', 1),
    col('Container-Runtime', 'string', (o) => stringField(recordField(o.status, 'nodeInfo'), 'containerRuntimeVersion') ?? '<unknown>', 1),
  ],
  namespaces: [NAME, col('Status', 'string', (o) => stringField(o.status, 'phase') ?? 'Active'), AGE],
  services: [
    NAME,
    col('Type', 'string', (o) => stringField(o.spec, 'type') ?? 'ClusterIP'),
    col('Cluster-IP', 'string', (o) => stringField(o.spec, 'clusterIP') || '<none>'),
    col('External-IP', 'string', serviceExternalIp),
    col('Port(s)', 'string', servicePorts),
    AGE,
    col('Selector', 'string', (o) => {
      const selector = recordField(o.spec, 'selector') ?? {};
      return orNone(equalityText(selector));
    }, 1),
  ],
  pods: [
    NAME,
    col('Ready', 'string', podReady),
    col('Status', 'string', podStatus),
    col('Restarts', 'integer', podRestarts),
    AGE,
    col('IP', 'string', (o) => stringField(o.status, 'podIP') ?? '<none>', 1),
    col('Node', 'string', (o) => stringField(o.spec, 'nodeName') ?? '<none>', 1),
    col('Nominated Node', 'string', (o) => stringField(o.status, 'nominatedNodeName') ?? '<none>', 1),
    col('Readiness Gates', 'string', (o) => {
      const gates = arrayField(o.spec, 'readinessGates');
      return gates.length > 0 ? String(gates.length) : '<none>';
    }, 1),
  ],
  endpointslices: [
    NAME,
    col('AddressType', 'string', (o) => stringField(o, 'addressType') ?? ''),
    col('Ports', 'string', slicePorts),
    col('Endpoints', 'string', sliceEndpoints),
    AGE,
  ],
  deployments: [
    NAME,
    col('Ready', 'string', (o) => `${count(o, 'status', 'readyReplicas')}/${numberField(o.spec, 'replicas') ?? 1}`),
    col('Up-to-date', 'integer', (o) => count(o, 'status', 'updatedReplicas')),
    col('Available', 'integer', (o) => count(o, 'status', 'availableReplicas')),
    AGE,
    ...WORKLOAD_WIDE_COLUMNS,
  ],
  replicasets: [
    NAME,
    col('Desired', 'integer', (o) => numberField(o.spec, 'replicas') ?? 1),
    col('Current', 'integer', (o) => count(o, 'status', 'replicas')),
    col('Ready', 'integer', (o) => count(o, 'status', 'readyReplicas')),
    AGE,
    ...WORKLOAD_WIDE_COLUMNS,
  ],
  daemonsets: [
    NAME,
    col('Desired', 'integer', (o) => count(o, 'status', 'desiredNumberScheduled')),
    col('Current', 'integer', (o) => count(o, 'status', 'currentNumberScheduled')),
    col('Ready', 'integer', (o) => count(o, 'status', 'numberReady')),
    col('Up-to-date', 'integer', (o) => count(o, 'status', 'updatedNumberScheduled')),
    col('Available', 'integer', (o) => count(o, 'status', 'numberAvailable')),
    col('Node Selector', 'string', (o) => {
      const selector = recordField(podSpecOf(o), 'nodeSelector') ?? {};
      return orNone(equalityText(selector));
    }),
    AGE,
    ...WORKLOAD_WIDE_COLUMNS,
  ],
  horizontalpodautoscalers: [
    NAME,
    col('Reference', 'string', (o) => {
      const ref = recordField(o.spec, 'scaleTargetRef');
      return `${stringField(ref, 'kind') ?? ''}/${stringField(ref, 'name') ?? ''}`;
    }),
    col('Targets', 'string', hpaTargets),
    col('MinPods', 'string', (o) => String(numberField(o.spec, 'minReplicas') ?? '<unset>')),
    col('MaxPods', 'integer', (o) => numberField(o.spec, 'maxReplicas') ?? 0),
    col('Replicas', 'integer', (o) => count(o, 'status', 'currentReplicas')),
    AGE,
  ],
  events: [
    col('Last Seen', 'string', eventLastSeen),
    col('Type', 'string', (o) => stringField(o, 'type') ?? ''),
    col('Reason', 'string', (o) => stringField(o, 'reason') ?? ''),
    col('Object', 'string', eventObject),
    col('Subobject', 'string', (o) => stringField(recordField(o, 'involvedObject'), 'fieldPath') ?? '', 1),
    col('Source', 'string', (o) => stringField(recordField(o, 'source'), 'component') ?? stringField(o, 'reportingComponent') ?? '', 1),
    col('Message', 'string', (o) => stringField(o, 'message') ?? ''),
    col('First Seen', 'string', (o, now) => since(stringField(o, 'firstTimestamp') ?? o.metadata.creationTimestamp, now), 1),
    col('Count', 'integer', (o) => numberField(o, 'count') ?? 1, 1),
    col('Name', 'string', (o) => o.metadata.name, 1, 'name'),
  ],
  configmaps: [
    NAME,
    col('Data', 'integer', (o) => Object.keys(recordField(o, 'data') ?? {}).length + Object.keys(recordField(o, 'binaryData') ?? {}).length),
    AGE,
  ],
};

const DEFAULT_COLUMNS: readonly Column[] = [
  NAME,
  col('Created At', 'date', (o) => o.metadata.creationTimestamp ?? ''),
];

/** Columns for a resource served at an endpoint (core-group printers only for core storage forms). */
export function columnsFor(resource: ApiResource): readonly Column[] {
  if (resource.storage === undefined || resource.toWire !== undefined) return DEFAULT_COLUMNS;
  return COLUMNS[resource.storage] ?? DEFAULT_COLUMNS;
}
