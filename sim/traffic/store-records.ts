/**
 * The records the traffic model reads, projected from the simulator's store with zonescope's own
 * projections (lib/k8s wire-to-record) — each object's record kept while the object (and its
 * resourceVersion) is the same, so a scrape of an unchanged cluster projects nothing again —
 * plus the two facts records leave out: a Node's InternalIP and a pod's uid.
 */
import { KUBE_SYSTEM, projectDataplaneObject } from '../../lib/k8s/wire-to-record/dataplane';
import { projectEndpointSlice } from '../../lib/k8s/wire-to-record/endpoint-slice';
import { projectNode } from '../../lib/k8s/wire-to-record/node';
import { projectService } from '../../lib/k8s/wire-to-record/service';
import { projectPod, projectReplicaSet } from '../../lib/k8s/wire-to-record/workloads';
import type { VersionInfo } from '../discovery';
import type { ResourceKey } from '../resources';
import type { ObjectStore } from '../store';
import type { KubeObject } from '../types';
import { isRecord } from '../types';
import type { TrafficRecords } from './model';

/** The `InternalIP` of a Node object (`null`: none). */
function internalIPOf(node: KubeObject | undefined): string | null {
  const status = node?.status;
  const addresses = isRecord(status) && Array.isArray(status.addresses) ? (status.addresses as unknown[]) : [];
  for (const address of addresses) {
    if (isRecord(address) && address.type === 'InternalIP' && typeof address.address === 'string' && address.address !== '') return address.address;
  }
  return null;
}

/** Records projected from store objects, kept while the object (and its resourceVersion) is the same. */
class ProjectionCache<R> {
  private readonly records = new WeakMap<object, { readonly resourceVersion: string | undefined; readonly record: R | null }>();

  constructor(private readonly project: (raw: KubeObject) => R | null) {}

  all(objects: readonly KubeObject[]): R[] {
    const out: R[] = [];
    for (const object of objects) {
      const resourceVersion = object.metadata.resourceVersion;
      let entry = this.records.get(object);
      if (entry === undefined || entry.resourceVersion !== resourceVersion) {
        entry = { resourceVersion, record: this.project(object) };
        this.records.set(object, entry);
      }
      if (entry.record !== null) out.push(entry.record);
    }
    return out;
  }
}

/** The store's objects as {@link TrafficRecords}, projections kept between reads. */
export class StoreRecords {
  private readonly projections = {
    nodes: new ProjectionCache(projectNode),
    services: new ProjectionCache(projectService),
    endpointslices: new ProjectionCache(projectEndpointSlice),
    pods: new ProjectionCache(projectPod),
    replicasets: new ProjectionCache(projectReplicaSet),
    configmaps: new ProjectionCache((raw) => projectDataplaneObject(raw, 'ConfigMap')),
    daemonsets: new ProjectionCache((raw) => projectDataplaneObject(raw, 'DaemonSet')),
  };

  constructor(
    private readonly store: ObjectStore,
    private readonly version: VersionInfo,
  ) {}

  /** The records of the store as it is now. */
  read(): TrafficRecords {
    const p = this.projections;
    const all = (key: ResourceKey, namespace?: string) => this.store.all(key, namespace);
    return {
      nodes: p.nodes.all(all('nodes')),
      services: p.services.all(all('services')),
      endpointSlices: p.endpointslices.all(all('endpointslices')),
      pods: p.pods.all(all('pods')),
      replicaSets: p.replicasets.all(all('replicasets')),
      dataplane: [...p.configmaps.all(all('configmaps', KUBE_SYSTEM)), ...p.daemonsets.all(all('daemonsets', KUBE_SYSTEM))],
      version: this.version,
      nodeInternalIP: (name) => internalIPOf(this.store.get('nodes', undefined, name)),
      podUid: (namespace, name) => this.store.get('pods', namespace, name)?.metadata.uid ?? '',
    };
  }
}
