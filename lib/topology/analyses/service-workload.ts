/**
 * The Deployment behind a Service: the Service's pods (from its endpoints' pod names, else by its
 * selector), their owner ReplicaSets and the Deployment owning most of them, with every pod of that
 * Deployment's ReplicaSets, the other workloads the Service also selects, and the Deployment's HPA.
 */
import type { ClusterContext } from '../model/cluster-context';
import type { DeploymentRecord, EndpointSliceRecord, HpaRecord, PodRecord, ServiceRecord } from '../model/cluster-model';
import { objectKey } from '../model/cluster-model';

/** The Deployment behind a Service and its pods. */
export interface ServiceWorkload {
  readonly deployment: DeploymentRecord;
  /** Pods of the Deployment's ReplicaSets that back the Service. */
  readonly pods: readonly PodRecord[];
  /** Other workloads (`Kind/name`) whose pods the Service also selects. */
  readonly otherWorkloads: readonly string[];
  readonly hpa: HpaRecord | null;
}

/** `serviceSelects` for a non-empty selector given as its entries. */
function selectsAll(entries: readonly (readonly [string, string])[], labels: Readonly<Record<string, string>>): boolean {
  for (const [key, value] of entries) if (labels[key] !== value) return false;
  return true;
}

/**
 * Finds the Deployment behind a Service: the Service's pods (from the endpoints' pod names, else
 * by the selector within the namespace) → owner ReplicaSet → owner Deployment; the Deployment owning
 * the most of them wins (ties by name). Returns `null` when no Deployment owns them.
 */
export function findServiceWorkload(context: ClusterContext, service: ServiceRecord, slices: readonly EndpointSliceRecord[]): ServiceWorkload | null {
  const { index } = context;
  const namespacePods = context.podsIn(service.namespace);
  // 1. The Service's pods.
  const pods = new Map<string, PodRecord>();
  for (const slice of slices) {
    for (const endpoint of slice.endpoints) {
      const pod = endpoint.podName ? namespacePods.byName.get(endpoint.podName) : undefined;
      if (pod) pods.set(pod.name, pod);
    }
  }
  if (pods.size === 0 && service.selector !== null) {
    // serviceSelects on every pod of the namespace, with the selector's entries listed once.
    const entries = Object.entries(service.selector);
    if (entries.length > 0) for (const pod of namespacePods.byName.values()) if (selectsAll(entries, pod.labels)) pods.set(pod.name, pod);
  }
  // 2. Owners.
  const countByDeployment = new Map<string, number>();
  const replicaSetsByDeployment = new Map<string, Set<string>>();
  const others = new Set<string>();
  const replicaSets = new Map<string, ReturnType<typeof index.replicaSetsByKey.get>>();
  for (const pod of pods.values()) {
    if (!pod.owner) continue;
    if (pod.owner.kind !== 'ReplicaSet') {
      others.add(`${pod.owner.kind}/${pod.owner.name}`);
      continue;
    }
    // Pods of a Service mostly share one ReplicaSet: look each up once.
    let rs = replicaSets.get(pod.owner.name);
    if (!replicaSets.has(pod.owner.name)) {
      rs = index.replicaSetsByKey.get(objectKey(service.namespace, pod.owner.name));
      replicaSets.set(pod.owner.name, rs);
    }
    if (!rs?.owner || rs.owner.kind !== 'Deployment') {
      others.add(`ReplicaSet/${pod.owner.name}`);
      continue;
    }
    countByDeployment.set(rs.owner.name, (countByDeployment.get(rs.owner.name) ?? 0) + 1);
    const set = replicaSetsByDeployment.get(rs.owner.name) ?? new Set<string>();
    set.add(rs.name);
    replicaSetsByDeployment.set(rs.owner.name, set);
  }
  let chosen: string | null = null;
  for (const name of [...countByDeployment.keys()].sort()) {
    if (chosen === null || (countByDeployment.get(name) ?? 0) > (countByDeployment.get(chosen) ?? 0)) chosen = name;
  }
  if (chosen === null) return null;
  const deployment = index.deploymentsByKey.get(objectKey(service.namespace, chosen));
  if (!deployment) return null;
  for (const name of countByDeployment.keys()) if (name !== chosen) others.add(`Deployment/${name}`);
  // 3. Every pod of the chosen Deployment's ReplicaSets (pending ones included).
  const deploymentPods: PodRecord[] = [];
  // (a loop, not push(...pods): a ReplicaSet may own more pods than a call takes arguments)
  for (const rsName of [...(replicaSetsByDeployment.get(chosen) ?? [])].sort()) for (const pod of namespacePods.byOwner.get(`ReplicaSet/${rsName}`) ?? []) deploymentPods.push(pod);
  return {
    deployment,
    pods: deploymentPods,
    otherWorkloads: [...others].sort(),
    hpa: index.hpasByTarget.get(`${service.namespace}/Deployment/${deployment.name}`) ?? null,
  };
}
