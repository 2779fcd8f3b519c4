/**
 * The benchmark's side of the simulated cluster: request statistics, the Service whose
 * EndpointSlice the change-latency test edits, and the objects the churn run flips.
 */
import { getJson, sendJson } from './http';

/** `GET /__sim/stats` (the fields the benchmark reads). */
export interface SimStats {
  readonly requests: Record<string, Record<string, number>>;
  readonly openWatches: Record<string, number>;
  readonly discovery: number;
  readonly total: number;
  readonly objects: Record<string, number>;
}

/** Reads the simulator's request statistics. */
export function simStats(simUrl: string): Promise<SimStats> {
  return getJson<SimStats>(`${simUrl}/__sim/stats`);
}

/** Zeroes the request counters (open watches stay). */
export async function resetSimStats(simUrl: string): Promise<void> {
  await sendJson(`${simUrl}/__sim/stats/reset`, 'POST', {});
}

/** API requests other than watches (lists, gets, writes, discovery) counted in `stats`. */
export function nonWatchRequests(stats: SimStats): { total: number; byResourceVerb: Record<string, number> } {
  const byResourceVerb: Record<string, number> = {};
  let total = stats.discovery;
  if (stats.discovery > 0) byResourceVerb['discovery'] = stats.discovery;
  for (const [resource, verbs] of Object.entries(stats.requests)) {
    for (const [verb, count] of Object.entries(verbs)) {
      if (verb === 'watch') continue;
      total += count;
      byResourceVerb[`${resource} ${verb}`] = count;
    }
  }
  return { total, byResourceVerb };
}

/** Watch requests (new watch streams) counted in `stats`. */
export function watchRequests(stats: SimStats): number {
  let total = 0;
  for (const verbs of Object.values(stats.requests)) total += verbs.watch ?? 0;
  return total;
}

/** Namespace and name of the Service whose slice the change test edits. */
export const CHANGE_NAMESPACE = 'bench';
export const CHANGE_SERVICE = 'zonescope-bench-manual';
const CHANGE_SLICE = `${CHANGE_SERVICE}-1`;
const ZONES = ['us-east-1a', 'us-east-1b', 'us-east-1c'];

/**
 * Creates a Service without selector and its EndpointSlice (managed by the benchmark, so the
 * simulator's EndpointSlice controller leaves it alone): the change test flips one endpoint's
 * `ready` condition in that slice.
 */
export async function createChangeTarget(simUrl: string, nodeNames: readonly string[]): Promise<void> {
  await sendJson(`${simUrl}/api/v1/namespaces/${CHANGE_NAMESPACE}/services`, 'POST', {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name: CHANGE_SERVICE, namespace: CHANGE_NAMESPACE, annotations: { 'service.kubernetes.io/topology-mode': 'Auto' } },
    spec: { type: 'ClusterIP', clusterIP: '172.20.255.250', ports: [{ name: 'http', port: 80, protocol: 'TCP' }], ipFamilies: ['IPv4'] },
  });
  const endpoints = Array.from({ length: 30 }, (_, i) => {
    const zone = ZONES[i % ZONES.length] as string;
    return {
      addresses: [`10.250.0.${i + 1}`],
      conditions: { ready: true, serving: true, terminating: false },
      zone,
      nodeName: nodeNames[i % Math.max(1, nodeNames.length)] ?? null,
      hints: { forZones: [{ name: zone }] },
    };
  });
  await sendJson(`${simUrl}/apis/discovery.k8s.io/v1/namespaces/${CHANGE_NAMESPACE}/endpointslices`, 'POST', {
    apiVersion: 'discovery.k8s.io/v1',
    kind: 'EndpointSlice',
    metadata: {
      name: CHANGE_SLICE,
      namespace: CHANGE_NAMESPACE,
      labels: { 'kubernetes.io/service-name': CHANGE_SERVICE, 'endpointslice.kubernetes.io/managed-by': 'zonescope-bench' },
    },
    addressType: 'IPv4',
    endpoints,
    ports: [{ name: 'http', port: 8080, protocol: 'TCP' }],
  });
}

/** Sets `ready` of endpoint `index` of the change-test slice (JSON patch over HTTP). */
export async function setChangeEndpointReady(simUrl: string, index: number, ready: boolean): Promise<void> {
  await sendJson(
    `${simUrl}/apis/discovery.k8s.io/v1/namespaces/${CHANGE_NAMESPACE}/endpointslices/${CHANGE_SLICE}`,
    'PATCH',
    [{ op: 'replace', path: `/endpoints/${index}/conditions/ready`, value: ready }],
    'application/json-patch+json',
  );
}

/** Node names of the cluster (first page). */
export async function someNodeNames(simUrl: string, limit = 30): Promise<string[]> {
  const list = await getJson<{ items: { metadata: { name: string } }[] }>(`${simUrl}/api/v1/nodes?limit=${limit}`);
  return list.items.map((n) => n.metadata.name);
}

/** Pods the churn run flips: name, namespace and where the Ready condition sits in `status.conditions`. */
export interface ChurnPod {
  readonly namespace: string;
  readonly name: string;
  readonly readyIndex: number;
}

/** Up to `perNamespace` pods from each of the first `namespaces` generated namespaces. */
export async function churnPods(simUrl: string, namespaces: number, perNamespace: number): Promise<ChurnPod[]> {
  const pods: ChurnPod[] = [];
  for (let n = 0; n < namespaces; n++) {
    const namespace = `team-${n}`;
    const list = await getJson<{ items: { metadata: { name: string }; status?: { conditions?: { type: string }[] } }[] }>(
      `${simUrl}/api/v1/namespaces/${namespace}/pods?limit=${perNamespace}`,
    ).catch(() => ({ items: [] }));
    for (const pod of list.items) {
      const readyIndex = (pod.status?.conditions ?? []).findIndex((c) => c.type === 'Ready');
      if (readyIndex >= 0) pods.push({ namespace, name: pod.metadata.name, readyIndex });
    }
  }
  return pods;
}

/** Sets a pod's Ready condition (JSON patch of the status subresource over HTTP). */
export async function setPodReady(simUrl: string, pod: ChurnPod, ready: boolean): Promise<void> {
  await sendJson(
    `${simUrl}/api/v1/namespaces/${pod.namespace}/pods/${pod.name}/status`,
    'PATCH',
    [{ op: 'replace', path: `/status/conditions/${pod.readyIndex}/status`, value: ready ? 'True' : 'False' }],
    'application/json-patch+json',
  );
}
