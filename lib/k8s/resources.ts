/**
 * The resource types zonescope reads, described once for both sources: the API paths the live
 * source lists and watches, the kinds a snapshot may contain, and the projection onto slim
 * records. Pure: no client-node, no I/O.
 */
import type {
  ClusterSnapshot,
  DeploymentRecord,
  EndpointSliceRecord,
  EventRecord,
  HpaRecord,
  NodeRecord,
  PodRecord,
  ReplicaSetRecord,
  ServerVersionRecord,
  ServiceRecord,
} from '../topology/model/cluster-model';
import type { Json } from './wire-to-record/json';
import type { DataplaneFactRecord } from './wire-to-record/dataplane';
import { objectMeta } from './wire-to-record/metadata';
import { projectNode } from './wire-to-record/node';
import { projectService } from './wire-to-record/service';
import { projectEndpointSlice } from './wire-to-record/endpoint-slice';
import { projectDeployment, projectHpa, projectPod, projectReplicaSet } from './wire-to-record/workloads';
import { isServiceEvent, projectEvent } from './wire-to-record/event';
import { combineDataplaneFacts, KUBE_SYSTEM, projectDataplaneObject } from './wire-to-record/dataplane';

/** Identifier of a resource type (a key of {@link RecordById}). */
export type ResourceId =
  | 'nodes'
  | 'services'
  | 'endpointslices'
  | 'pods'
  | 'deployments'
  | 'replicasets'
  | 'hpas'
  | 'events'
  | 'configmaps'
  | 'daemonsets';

/** Every resource type, in display order. */
export const RESOURCE_IDS: readonly ResourceId[] = [
  'nodes',
  'services',
  'endpointslices',
  'pods',
  'deployments',
  'replicasets',
  'hpas',
  'events',
  'configmaps',
  'daemonsets',
];

/** The slim record each resource type is cached as. */
export interface RecordById {
  nodes: NodeRecord;
  services: ServiceRecord;
  endpointslices: EndpointSliceRecord;
  pods: PodRecord;
  deployments: DeploymentRecord;
  replicasets: ReplicaSetRecord;
  hpas: HpaRecord;
  events: EventRecord;
  configmaps: DataplaneFactRecord;
  daemonsets: DataplaneFactRecord;
}

/** How to read one resource type. */
export interface ResourceDescriptor<Id extends ResourceId = ResourceId> {
  readonly id: Id;
  /** Kind of the objects (items of raw API lists carry no kind). */
  readonly kind: string;
  /** Human name for status panels. */
  readonly title: string;
  /** API list/watch paths, tried in order when the server answers 404 (older API versions). */
  readonly paths: readonly string[];
  /** Field selector of the live list/watch, when the server can filter. */
  readonly fieldSelector?: string;
  /** Namespace the live source restricts itself to (`kube-system` for dataplane objects). */
  readonly namespace?: string;
  /**
   * Projects a wire object to its record, `null` when the object is of no interest (an Event not
   * about a Service, a ConfigMap that is not dataplane configuration).
   */
  readonly project: (raw: Json) => RecordById[Id] | null;
}

/** Cache key of an object: `namespace/name`, or `name` for cluster-scoped ones. */
export function cacheKey(raw: unknown): string {
  const { namespace, name } = objectMeta(raw);
  return namespace === '' ? name : `${namespace}/${name}`;
}

function descriptor<Id extends ResourceId>(d: ResourceDescriptor<Id>): ResourceDescriptor<Id> {
  return d;
}

/** The descriptors, by id. */
export const RESOURCES: { readonly [Id in ResourceId]: ResourceDescriptor<Id> } = {
  nodes: descriptor({ id: 'nodes', kind: 'Node', title: 'Nodes', paths: ['/api/v1/nodes'], project: projectNode }),
  services: descriptor({ id: 'services', kind: 'Service', title: 'Services', paths: ['/api/v1/services'], project: projectService }),
  endpointslices: descriptor({
    id: 'endpointslices',
    kind: 'EndpointSlice',
    title: 'EndpointSlices',
    paths: ['/apis/discovery.k8s.io/v1/endpointslices'],
    project: projectEndpointSlice,
  }),
  pods: descriptor({ id: 'pods', kind: 'Pod', title: 'Pods', paths: ['/api/v1/pods'], project: projectPod }),
  deployments: descriptor({ id: 'deployments', kind: 'Deployment', title: 'Deployments', paths: ['/apis/apps/v1/deployments'], project: projectDeployment }),
  replicasets: descriptor({ id: 'replicasets', kind: 'ReplicaSet', title: 'ReplicaSets', paths: ['/apis/apps/v1/replicasets'], project: projectReplicaSet }),
  hpas: descriptor({
    id: 'hpas',
    kind: 'HorizontalPodAutoscaler',
    title: 'HorizontalPodAutoscalers',
    paths: ['/apis/autoscaling/v2/horizontalpodautoscalers', '/apis/autoscaling/v1/horizontalpodautoscalers'],
    project: projectHpa,
  }),
  events: descriptor({
    id: 'events',
    kind: 'Event',
    title: 'Service events',
    paths: ['/api/v1/events'],
    fieldSelector: 'involvedObject.kind=Service',
    project: (raw) => (isServiceEvent(raw) ? projectEvent(raw) : null),
  }),
  configmaps: descriptor({
    id: 'configmaps',
    kind: 'ConfigMap',
    title: 'kube-system ConfigMaps',
    paths: [`/api/v1/namespaces/${KUBE_SYSTEM}/configmaps`],
    namespace: KUBE_SYSTEM,
    project: (raw) => projectDataplaneObject(raw, 'ConfigMap'),
  }),
  daemonsets: descriptor({
    id: 'daemonsets',
    kind: 'DaemonSet',
    title: 'kube-system DaemonSets',
    paths: [`/apis/apps/v1/namespaces/${KUBE_SYSTEM}/daemonsets`],
    namespace: KUBE_SYSTEM,
    project: (raw) => projectDataplaneObject(raw, 'DaemonSet'),
  }),
};

/**
 * Assembles a {@link ClusterSnapshot} from per-type record lists. Dataplane facts (ConfigMaps,
 * DaemonSets and Calico resources) become `proxy` and `cni`.
 */
export function assembleSnapshot(
  records: { readonly [Id in ResourceId]: readonly RecordById[Id][] },
  version: ServerVersionRecord | null,
  extraDataplaneFacts: readonly DataplaneFactRecord[] = [],
): ClusterSnapshot {
  const { proxy, cni } = combineDataplaneFacts([...records.configmaps, ...records.daemonsets, ...extraDataplaneFacts]);
  return {
    version,
    nodes: records.nodes,
    services: records.services,
    endpointSlices: records.endpointslices,
    pods: records.pods,
    deployments: records.deployments,
    replicaSets: records.replicasets,
    hpas: records.hpas,
    events: records.events,
    proxy,
    cni,
  };
}

/** The resource type a snapshot object of `kind` belongs to, `undefined` when zonescope does not read it. */
export function resourceIdForKind(kind: string): ResourceId | undefined {
  return RESOURCE_IDS.find((id) => RESOURCES[id].kind === kind);
}
