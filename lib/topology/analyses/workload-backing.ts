/**
 * Which Services each workload and each pod backs, as the attribution of measured traffic reads it
 * (docs/traffic.md, "Attribution"): a workload is the top owner of a pod (Pod → ReplicaSet →
 * Deployment; any other owner by its own name; a pod without one by its own name), and the
 * workloads behind a Service are the top owners of the pods its EndpointSlices point at.
 * O(endpoints), plus O(pods) of the namespaces whose pods changed since the last call.
 */
import type { ClusterIndex, PodRecord } from '../model/cluster-model';
import { objectKey } from '../model/cluster-model';

/** `ns/name` of a workload. */
export function workloadKey(namespace: string, owner: string): string {
  return `${namespace}/${owner}`;
}

/** The top owner's name of a pod: ReplicaSet → its Deployment when the ReplicaSet has one; any other owner as is; the pod's own name without one. */
export function topOwnerName(pod: PodRecord, index: ClusterIndex): string {
  const owner = pod.owner;
  if (owner === null) return pod.name;
  if (owner.kind === 'ReplicaSet') {
    const rs = index.replicaSetsByKey.get(objectKey(pod.namespace, owner.name));
    if (rs?.owner) return rs.owner.name;
    if (rs === undefined) {
      // ReplicaSet not indexed: a Deployment's ReplicaSets are named <deployment>-<pod-template-hash>.
      const dash = owner.name.lastIndexOf('-');
      const candidate = dash > 0 ? owner.name.slice(0, dash) : null;
      if (candidate !== null && index.deploymentsByKey.has(objectKey(pod.namespace, candidate))) return candidate;
    }
  }
  return owner.name;
}

/** Which Services each workload and each pod backs. */
interface Backing {
  /** workload `ns/owner` → Service keys. */
  readonly servicesByWorkload: ReadonlyMap<string, readonly string[]>;
  /** pod `ns/pod` → Service keys. */
  readonly servicesByPod: ReadonlyMap<string, readonly string[]>;
}

function addUnique(map: Map<string, string[]>, key: string, value: string): void {
  const list = map.get(key);
  if (list === undefined) map.set(key, [value]);
  else if (!list.includes(value)) list.push(value);
}

/**
 * Top owner by pod name of one namespace's pods, kept per pod list (the cluster source keeps a
 * namespace's list while its pods are unchanged) and the ReplicaSet/Deployment lookups it used, so
 * a new cluster generation only re-reads the namespaces that changed.
 */
const OWNERS = new WeakMap<
  readonly PodRecord[],
  { readonly replicaSets: ClusterIndex['replicaSetsByKey']; readonly deployments: ClusterIndex['deploymentsByKey']; readonly owners: ReadonlyMap<string, string> }
>();

export function ownersIn(namespace: string, index: ClusterIndex): ReadonlyMap<string, string> | null {
  const pods = index.podsByNamespace.get(namespace);
  if (pods === undefined) return null;
  const cached = OWNERS.get(pods);
  if (cached && cached.replicaSets === index.replicaSetsByKey && cached.deployments === index.deploymentsByKey) return cached.owners;
  const owners = new Map<string, string>();
  for (const pod of pods) owners.set(pod.name, topOwnerName(pod, index));
  OWNERS.set(pods, { replicaSets: index.replicaSetsByKey, deployments: index.deploymentsByKey, owners });
  return owners;
}

/** The Services behind each workload and pod, from the EndpointSlices' pod references. O(endpoints), plus O(pods) of the namespaces whose pods changed. */
export function serviceBacking(index: ClusterIndex): Backing {
  return drain(backingSteps(index, Number.POSITIVE_INFINITY));
}

/** Runs a step generator to its end. */
export function drain<T>(steps: Generator<number, T, void>): T {
  for (;;) {
    const step = steps.next();
    if (step.done === true) return step.value;
  }
}

/** {@link serviceBacking}, yielding once about every `stepItems` endpoints or lists (checked between Services). */
export function* backingSteps(index: ClusterIndex, stepItems: number): Generator<number, Backing, void> {
  const servicesByWorkload = new Map<string, string[]>();
  const servicesByPod = new Map<string, string[]>();
  let work = 0;
  for (const [serviceKey, slices] of index.slicesByService) {
    if (!index.servicesByKey.has(serviceKey)) continue;
    for (const slice of slices) {
      const owners = ownersIn(slice.namespace, index);
      for (const endpoint of slice.endpoints) {
        const podName = endpoint.podName;
        if (podName === null || podName === undefined || podName === '') continue;
        const podKey = objectKey(slice.namespace, podName);
        addUnique(servicesByPod, podKey, serviceKey);
        const owner = owners?.get(podName) ?? podName;
        addUnique(servicesByWorkload, workloadKey(slice.namespace, owner), serviceKey);
      }
      work += slice.endpoints.length;
    }
    if (work >= stepItems) {
      yield work;
      work = 0;
    }
  }
  for (const lists of [servicesByWorkload.values(), servicesByPod.values()]) {
    for (const list of lists) {
      if (list.length > 1) list.sort();
      if (++work >= stepItems) {
        yield work;
        work = 0;
      }
    }
  }
  return { servicesByWorkload, servicesByPod };
}
