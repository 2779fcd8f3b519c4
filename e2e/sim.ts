/**
 * Control of the simulated cluster the e2e suite runs against (its `/__sim/` endpoints, see
 * sim/control.ts and sim/faults.ts), and reads of its objects as another client would make them.
 */
import type { FaultRuleInput } from '../sim/faults/fault-rules';
import { SIM_PORT } from './clusters';

export { SIM_PORT };
export const SIM_URL = `http://127.0.0.1:${SIM_PORT}`;
/** The token the simulator writes into its kubeconfig (sim/server.ts DEFAULT_TOKEN). */
const SIM_TOKEN = 'zonescope-sim-token';

async function call(method: string, path: string, body?: unknown): Promise<unknown> {
  const response = await fetch(`${SIM_URL}${path}`, {
    method,
    headers: body === undefined ? {} : { 'Content-Type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!response.ok) throw new Error(`simulator ${method} ${path}: ${response.status} ${await response.text()}`);
  return response.json();
}

async function kube<T>(path: string, init: RequestInit = {}, port = SIM_PORT): Promise<T> {
  const response = await fetch(`http://127.0.0.1:${port}${path}`, { ...init, headers: { Authorization: `Bearer ${SIM_TOKEN}`, ...init.headers } });
  if (!response.ok) throw new Error(`simulator ${init.method ?? 'GET'} ${path}: ${response.status} ${await response.text()}`);
  return (await response.json()) as T;
}

/** What to restore (sim/control.ts; each defaults to true). */
export interface ResetOptions {
  objects?: boolean;
  faults?: boolean;
  rbac?: boolean;
  stats?: boolean;
}

/**
 * Restores the scenario's objects, faults, RBAC and statistics. Restoring the objects drops every
 * watch and compacts the history, so the dashboard re-lists (410) everything.
 */
export function resetSimulator(what: ResetOptions = {}): Promise<unknown> {
  return call('POST', '/__sim/reset', what);
}

/** Denies one verb on one resource for the dashboard's user (replaces the RBAC configuration). */
export function denyInSimulator(verb: string, resource: string): Promise<unknown> {
  return call('POST', '/__sim/rbac', { deny: [{ verbs: [verb], resources: [resource] }] });
}

/** Adds fault rules (see sim/faults/fault-rules.ts). */
export function addFaults(rules: FaultRuleInput[]): Promise<unknown> {
  return call('POST', '/__sim/faults', { rules });
}

/** Removes every fault rule. */
export function clearFaults(): Promise<unknown> {
  return call('DELETE', '/__sim/faults');
}

/** Drops every open watch (the streams end; `abrupt` destroys the sockets instead). */
export function dropWatches(abrupt = false): Promise<unknown> {
  return call('POST', '/__sim/watches/drop', { abrupt });
}

/** Request statistics since the last reset, and the watches open now (sim/stats.ts). */
export interface SimStats {
  requests: Record<string, Record<string, number>>;
  openWatches: Record<string, number>;
  total: number;
}

/** Request statistics since the last reset (sim/stats.ts). */
export async function simStats(): Promise<SimStats> {
  return (await call('GET', '/__sim/stats')) as SimStats;
}

/**
 * Merge-patches a Service's annotations as another client would (kubectl annotate); `port` picks
 * another simulator of the e2e kubeconfig (e2e/clusters.ts), the default cluster's by default.
 */
export async function annotateService(namespace: string, name: string, annotations: Record<string, string | null>, port = SIM_PORT): Promise<void> {
  await kube(
    `/api/v1/namespaces/${namespace}/services/${name}`,
    {
      method: 'PATCH',
      headers: { 'Content-Type': 'application/merge-patch+json' },
      body: JSON.stringify({ metadata: { annotations } }),
    },
    port,
  );
}

/**
 * Merge-patches a Service's metadata (labels and annotations) as another client would, e.g. to make
 * it look applied by Argo CD.
 */
export async function patchServiceMetadata(namespace: string, name: string, metadata: { labels?: Record<string, string | null>; annotations?: Record<string, string | null> }): Promise<void> {
  await kube(`/api/v1/namespaces/${namespace}/services/${name}`, { method: 'PATCH', headers: { 'Content-Type': 'application/merge-patch+json' }, body: JSON.stringify({ metadata }) });
}

/** A Service as the API server has it. */
export interface SimService {
  metadata: { name: string; namespace: string; resourceVersion: string; annotations?: Record<string, string> };
}

/** Reads a Service from the simulator (`port`: another simulator of the e2e kubeconfig). */
export function getService(namespace: string, name: string, port = SIM_PORT): Promise<SimService> {
  return kube<SimService>(`/api/v1/namespaces/${namespace}/services/${name}`, {}, port);
}

interface SliceList {
  items: { endpoints?: { conditions?: { ready?: boolean }; hints?: { forZones?: { name: string }[] } }[] }[];
}

/** How many endpoints of a Service's EndpointSlices carry a zone hint (what the controller wrote). */
export async function hintedEndpoints(namespace: string, name: string): Promise<number> {
  const list = await kube<SliceList>(
    `/apis/discovery.k8s.io/v1/namespaces/${namespace}/endpointslices?labelSelector=${encodeURIComponent(`kubernetes.io/service-name=${name}`)}`,
  );
  return list.items.flatMap((slice) => slice.endpoints ?? []).filter((e) => (e.hints?.forZones?.length ?? 0) > 0).length;
}

/**
 * Creates a Service without selector in `namespace` and one EndpointSlice of `count` ready endpoints
 * spread over the given nodes (the EndpointSlice controller leaves such a slice to its owner).
 */
export async function createManualService(namespace: string, name: string, count: number, nodes: readonly { name: string; zone: string }[]): Promise<void> {
  const post = (path: string, body: unknown) => kube(path, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
  await post(`/api/v1/namespaces/${namespace}/services`, {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name, namespace },
    spec: { type: 'ClusterIP', ports: [{ name: 'http', port: 80, protocol: 'TCP' }], ipFamilies: ['IPv4'] },
  });
  // At most 1,000 endpoints per slice, as the API server allows; addresses 10.99.0.1, 10.99.0.2, …
  const perSlice = 1000;
  for (let start = 0, part = 0; start < count; start += perSlice, part++) {
    await post(`/apis/discovery.k8s.io/v1/namespaces/${namespace}/endpointslices`, {
      apiVersion: 'discovery.k8s.io/v1',
      kind: 'EndpointSlice',
      metadata: {
        name: part === 0 ? `${name}-manual` : `${name}-manual-${part}`,
        namespace,
        labels: { 'kubernetes.io/service-name': name, 'endpointslice.kubernetes.io/managed-by': 'e2e.zonescope.dev' },
      },
      addressType: 'IPv4',
      ports: [{ name: 'http', port: 8080, protocol: 'TCP' }],
      endpoints: Array.from({ length: Math.min(perSlice, count - start) }, (_, k) => {
        const i = start + k;
        const node = nodes[i % nodes.length] as { name: string; zone: string };
        const n = i + 1;
        return { addresses: [`10.99.${Math.floor(n / 256)}.${n % 256}`], conditions: { ready: true, serving: true, terminating: false }, nodeName: node.name, zone: node.zone };
      }),
    });
  }
}

/** Node names and zones as the API server has them. */
export async function zonedNodes(): Promise<{ name: string; zone: string }[]> {
  const list = await kube<{ items: { metadata: { name: string; labels?: Record<string, string> } }[] }>('/api/v1/nodes');
  return list.items
    .map((n) => ({ name: n.metadata.name, zone: n.metadata.labels?.['topology.kubernetes.io/zone'] ?? '' }))
    .filter((n) => n.zone !== '');
}

/** Sets a Deployment's replicas through its `scale` subresource, as `kubectl scale --replicas=N` does. */
export async function scaleDeployment(namespace: string, name: string, replicas: number): Promise<void> {
  await kube(`/apis/apps/v1/namespaces/${namespace}/deployments/${name}/scale`, {
    method: 'PATCH',
    headers: { 'Content-Type': 'application/merge-patch+json' },
    body: JSON.stringify({ spec: { replicas } }),
  });
}

/** Creates an autoscaling/v2 HPA for a Deployment, as `kubectl autoscale deployment NAME --min --max` does. */
export async function createHpa(namespace: string, deployment: string, minReplicas: number, maxReplicas: number): Promise<void> {
  await kube(`/apis/autoscaling/v2/namespaces/${namespace}/horizontalpodautoscalers`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({
      apiVersion: 'autoscaling/v2',
      kind: 'HorizontalPodAutoscaler',
      metadata: { name: deployment, namespace },
      spec: {
        scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: deployment },
        minReplicas,
        maxReplicas,
        metrics: [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 60 } } }],
      },
    }),
  });
}
