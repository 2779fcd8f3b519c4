/**
 * How Beyla names the endpoints of a Service's traffic matrix (OBI's kube metadata): a pod by its
 * top owner (Pod → ReplicaSet → Deployment), a hostNetwork pod by its Node (its IP is the
 * node's), an unknown pod not at all; and which node runs each endpoint.
 */
import type { TrafficMatrix } from '../../lib/topology/analyses/traffic';
import type { PodRecord, ReplicaSetRecord } from '../../lib/topology/model/cluster-model';
import { objectKey } from '../../lib/topology/model/cluster-model';
import type { FlowPeer } from './beyla-series';

/** A flow end without its zone. */
export type PeerOwner = Omit<FlowPeer, 'zone'>;

/** An IP Beyla cannot name: every k8s label empty. */
export const UNKNOWN_OWNER: PeerOwner = { namespace: '', ownerName: '', ownerType: '' };

/** An endpoint of the matrix (`endpointLoads` order): its pod, how Beyla names it, and its node. */
export interface EndpointInfo {
  readonly pod: PodRecord | null;
  readonly owner: PeerOwner;
  readonly node: string | null;
}

/**
 * Beyla's name for a pod (OBI's kube metadata): its top owner (Pod → ReplicaSet → Deployment;
 * other kinds as they are; the pod itself without one); a hostNetwork pod's IP is its node's,
 * which Beyla resolves to the Node; an unknown pod is an IP it cannot name.
 */
function ownerOf(pod: PodRecord | null, replicaSets: ReadonlyMap<string, ReplicaSetRecord>): PeerOwner {
  if (pod === null) return UNKNOWN_OWNER;
  if (pod.hostNetwork === true) return pod.nodeName === null ? UNKNOWN_OWNER : { namespace: '', ownerName: pod.nodeName, ownerType: 'Node' };
  const owner = pod.owner;
  if (owner === null) return { namespace: pod.namespace, ownerName: pod.name, ownerType: 'Pod' };
  if (owner.kind === 'ReplicaSet') {
    const rs = replicaSets.get(objectKey(pod.namespace, owner.name));
    if (rs?.owner) return { namespace: pod.namespace, ownerName: rs.owner.name, ownerType: rs.owner.kind };
  }
  return { namespace: pod.namespace, ownerName: owner.name, ownerType: owner.kind };
}

/** The endpoints of a matrix with their pods, names and nodes. */
export function endpointInfos(matrix: TrafficMatrix, pods: ReadonlyMap<string, PodRecord>, replicaSets: ReadonlyMap<string, ReplicaSetRecord>): EndpointInfo[] {
  return matrix.endpointLoads.map((load) => {
    const pod = load.podName === null ? null : (pods.get(load.podName) ?? null);
    return { pod, owner: ownerOf(pod, replicaSets), node: load.nodeName ?? pod?.nodeName ?? null };
  });
}
