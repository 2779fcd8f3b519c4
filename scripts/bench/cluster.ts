/**
 * The benchmark's side of the simulated cluster: request statistics, the Service whose
 * EndpointSlice the change-latency test edits, and the objects the churn run flips.
 */
import { getJson, sendJson, timedRequest } from './http';

/** `GET /__sim/stats` (the fields the benchmark reads). */
export interface SimStats {
  readonly requests: Record<string, Record<string, number>>;
  readonly openWatches: Record<string, number>;
  readonly discovery: number;
  /** Health checks (`/readyz`: the server's liveness probe, which runs only while no watch delivers), apart from the read path. */
  readonly health?: number;
  readonly total: number;
  readonly objects: Record<string, number>;
  /** Lists started per resource (list requests without a `continue` token), when the simulator counts them. */
  readonly lists?: Record<string, number>;
  /** One-item resume checks per resource (the informer's before it resumes a watch), not counted in `lists`. */
  readonly resumeChecks?: Record<string, number>;
  /** TCP connections accepted since the last reset, when the simulator counts them. */
  readonly connections?: number;
}

/** The informers' list page size (`pageSize` in lib/k8s/informer/options.ts). */
export const LIST_PAGE_SIZE = 500;

/**
 * Lists started per resource type since the counters were reset: the simulator's own `lists`
 * counter when it has one (`source: 'simulator'`), else estimated from the list requests (pages)
 * and the objects held: one list of `n` objects takes `ceil(n / pageSize)` pages, so two lists of
 * a type show as twice its pages (`source: 'estimated'`; exact for types listed whole, an
 * approximation where a field selector lists fewer objects than the store holds).
 */
export function listsStarted(stats: SimStats, pageSize = LIST_PAGE_SIZE): { readonly source: 'simulator' | 'estimated'; readonly byResource: Record<string, number> } {
  if (stats.lists !== undefined) {
    const byResource: Record<string, number> = {};
    for (const [resource, count] of Object.entries(stats.lists)) if (count > 0 && !resource.includes('/')) byResource[resource] = count;
    return { source: 'simulator', byResource };
  }
  const byResource: Record<string, number> = {};
  for (const [resource, verbs] of Object.entries(stats.requests)) {
    const pages = verbs.list ?? 0;
    if (pages === 0 || resource.includes('/')) continue;
    const perList = Math.max(1, Math.ceil((stats.objects[resource] ?? 0) / pageSize));
    byResource[resource] = Math.max(1, Math.round(pages / perList));
  }
  return { source: 'estimated', byResource };
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

/** A node's name and zone (`topology.kubernetes.io/zone`; `null` without). */
export interface NodeZone {
  readonly name: string;
  readonly zone: string | null;
}

/**
 * Creates a Service without selector and its EndpointSlice (managed by the benchmark, so the
 * simulator's EndpointSlice controller leaves it alone) in namespace `bench` (created when the
 * cluster has none): the change test flips one endpoint's `ready` condition in that slice. Its 30
 * endpoints go round-robin over the zones of `nodes`, each on a node of its zone, so the slice is
 * consistent with the cluster whatever generator made it.
 */
export async function createChangeTarget(simUrl: string, nodes: readonly NodeZone[]): Promise<void> {
  const namespace = await timedRequest(`${simUrl}/api/v1/namespaces/${CHANGE_NAMESPACE}`, { keepBody: false });
  if (namespace.status === 404) await sendJson(`${simUrl}/api/v1/namespaces`, 'POST', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: CHANGE_NAMESPACE } });
  const byZone = new Map<string, string[]>();
  for (const node of nodes) {
    if (node.zone === null) continue;
    const list = byZone.get(node.zone) ?? [];
    list.push(node.name);
    byZone.set(node.zone, list);
  }
  const zones = [...byZone.keys()].sort().slice(0, 3);
  if (zones.length === 0) throw new Error('no node with a zone label: the change-latency target needs zoned nodes');
  await sendJson(`${simUrl}/api/v1/namespaces/${CHANGE_NAMESPACE}/services`, 'POST', {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name: CHANGE_SERVICE, namespace: CHANGE_NAMESPACE, annotations: { 'service.kubernetes.io/topology-mode': 'Auto' } },
    spec: { type: 'ClusterIP', clusterIP: '172.20.255.250', ports: [{ name: 'http', port: 80, protocol: 'TCP' }], ipFamilies: ['IPv4'] },
  });
  const endpoints = Array.from({ length: 30 }, (_, i) => {
    const zone = zones[i % zones.length] as string;
    const names = byZone.get(zone) ?? [];
    return {
      addresses: [`10.250.0.${i + 1}`],
      conditions: { ready: true, serving: true, terminating: false },
      zone,
      nodeName: names[Math.floor(i / zones.length) % names.length] ?? null,
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

/** Nodes of the cluster with their zones (first page). */
export async function someNodes(simUrl: string, limit = 60): Promise<NodeZone[]> {
  const list = await getJson<{ items: { metadata: { name: string; labels?: Record<string, string> } }[] }>(`${simUrl}/api/v1/nodes?limit=${limit}`);
  return list.items.map((n) => ({ name: n.metadata.name, zone: n.metadata.labels?.['topology.kubernetes.io/zone'] ?? null }));
}

/** Pods the churn run flips: name, namespace and where the Ready condition sits in `status.conditions`. */
export interface ChurnPod {
  readonly namespace: string;
  readonly name: string;
  readonly readyIndex: number;
}

type PodList = { items: { metadata: { name: string; namespace?: string; deletionTimestamp?: string }; status?: { conditions?: { type: string; status?: string }[] } }[] };

function readyPods(list: PodList, namespace?: string): ChurnPod[] {
  const pods: ChurnPod[] = [];
  for (const pod of list.items) {
    if (pod.metadata.deletionTimestamp !== undefined) continue;
    const conditions = pod.status?.conditions ?? [];
    const readyIndex = conditions.findIndex((c) => c.type === 'Ready');
    if (readyIndex >= 0 && conditions[readyIndex]?.status === 'True') pods.push({ namespace: namespace ?? pod.metadata.namespace ?? 'default', name: pod.metadata.name, readyIndex });
  }
  return pods;
}

/**
 * Ready pods the churn run flips: up to `perNamespace` from each of the first `namespaces`
 * namespaces of the reference generator (`team-N`); on a cluster without those (the realistic
 * generator), up to `namespaces × perNamespace` ready pods outside `kube-system` from the first
 * pages of the cluster's pod list.
 */
export async function churnPods(simUrl: string, namespaces: number, perNamespace: number): Promise<ChurnPod[]> {
  const pods: ChurnPod[] = [];
  for (let n = 0; n < namespaces; n++) {
    const namespace = `team-${n}`;
    const list = await getJson<PodList>(`${simUrl}/api/v1/namespaces/${namespace}/pods?limit=${perNamespace}`).catch(() => ({ items: [] }));
    pods.push(...readyPods(list, namespace));
  }
  if (pods.length > 0) return pods;
  const want = namespaces * perNamespace;
  const list = await getJson<PodList>(`${simUrl}/api/v1/pods?limit=${want * 3}`);
  return readyPods(list)
    .filter((p) => p.namespace !== 'kube-system')
    .slice(0, want);
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
