/**
 * Whether a new cluster generation maps measured series onto Services exactly as the last one did
 * (the same zones and nodes, Services, pods behind each Service, and top owner and node of every
 * pod), so that the caller can keep the last mapping instead of mapping every series again.
 */
import type { ClusterIndex, EndpointSliceRecord, PodRecord } from '../model/cluster-model';
import { objectKey } from '../model/cluster-model';
import { nodeZones } from './measured-traffic';
import { ownersIn } from './workload-backing';

function sameSet(a: ReadonlySet<string>, b: ReadonlySet<string>): boolean {
  if (a.size !== b.size) return false;
  for (const item of a) if (!b.has(item)) return false;
  return true;
}

/** `ns/pod` of every endpoint of `slices` with a pod name: what a Service's slices give `serviceBacking` (workload-backing.ts). */
function podRefsOf(slices: readonly EndpointSliceRecord[]): Set<string> {
  const refs = new Set<string>();
  for (const slice of slices) {
    for (const endpoint of slice.endpoints) {
      const podName = endpoint.podName;
      if (podName !== null && podName !== undefined && podName !== '') refs.add(objectKey(slice.namespace, podName));
    }
  }
  return refs;
}

/** What the one-count-per-byte rule reads of a namespace's pods: where each runs, and whether on the host's network. */
function placementKey(pods: readonly PodRecord[] | undefined): string {
  if (pods === undefined) return '';
  const parts: string[] = [];
  for (const pod of pods) parts.push(`${pod.name}\u0000${pod.nodeName ?? ''}\u0000${pod.hostNetwork === true ? 1 : 0}\u0000${pod.terminating ? 1 : 0}`);
  return parts.sort().join('\u0001');
}

/** What the rule reads of the nodes: zones and the client weights (ready workers' CPU). */
function nodesKey(index: ClusterIndex): string {
  return index.snapshot.nodes
    .map((n) => `${n.name}\u0000${n.zone ?? ''}\u0000${n.allocatableCpu ?? ''}\u0000${n.ready === true ? 1 : 0}\u0000${n.unschedulable ? 1 : 0}\u0000${Object.keys(n.labels).sort().join(',')}`)
    .sort()
    .join('\u0001');
}

function sameOwners(a: ReadonlyMap<string, string> | null, b: ReadonlyMap<string, string> | null): boolean {
  if (a === b) return true;
  if (a === null || b === null || a.size !== b.size) return false;
  for (const [pod, owner] of a) if (b.get(pod) !== owner) return false;
  return true;
}

/**
 * Whether `measuredTrafficFromSeries` (measured-traffic.ts) maps any series onto `next` exactly as onto
 * `previous`: the same zones and nodes, the same Services, the same pods behind each Service, the
 * same top owner and node for every pod. Then the mapping of `previous` can be kept for `next` — a change that
 * only flips an endpoint's conditions, moves hints or edits a pod's status costs an identity scan
 * of the lookups (O(Services + namespaces)) plus the Services and namespaces that changed, not a
 * new pass over every series. `false` whenever any of it may differ (the caller maps again).
 */
export function sameAttribution(previous: ClusterIndex, next: ClusterIndex): boolean {
  if (previous === next) return true;
  if (previous.snapshot.nodes !== next.snapshot.nodes && (!sameSet(nodeZones(previous), nodeZones(next)) || nodesKey(previous) !== nodesKey(next))) return false;
  if (previous.servicesByKey !== next.servicesByKey) {
    if (previous.servicesByKey.size !== next.servicesByKey.size) return false;
    for (const key of next.servicesByKey.keys()) if (!previous.servicesByKey.has(key)) return false;
  }
  if (previous.slicesByService !== next.slicesByService) {
    if (previous.slicesByService.size !== next.slicesByService.size) return false;
    for (const [key, slices] of next.slicesByService) {
      const before = previous.slicesByService.get(key);
      if (before === slices) continue;
      if (before === undefined || !sameSet(podRefsOf(before), podRefsOf(slices))) return false;
    }
  }
  const ownerLookupsKept = previous.replicaSetsByKey === next.replicaSetsByKey && previous.deploymentsByKey === next.deploymentsByKey;
  if (ownerLookupsKept && previous.podsByNamespace === next.podsByNamespace) return true;
  if (previous.podsByNamespace.size !== next.podsByNamespace.size) return false;
  for (const [namespace, pods] of next.podsByNamespace) {
    const before = previous.podsByNamespace.get(namespace);
    if (before === undefined) return false;
    if (ownerLookupsKept && before === pods) continue;
    if (!sameOwners(ownersIn(namespace, previous), ownersIn(namespace, next))) return false;
    if (before !== pods && placementKey(before) !== placementKey(pods)) return false;
  }
  return true;
}
