/**
 * The slim cluster records every analysis reads. `lib/k8s` projects API objects (live, snapshot
 * or simulator) onto these shapes; nothing here knows where they came from. Only fields an
 * analysis needs are kept, so a 150,000-pod cluster fits comfortably in memory.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/master/staging/src/k8s.io/api/core/v1/types.go
 */
import type { AddressType, Endpoint } from '../upstream/types';

/** A label selector (`matchLabels` + `matchExpressions`). */
export interface LabelSelector {
  readonly matchLabels: Readonly<Record<string, string>>;
  readonly matchExpressions: readonly {
    readonly key: string;
    readonly operator: 'In' | 'NotIn' | 'Exists' | 'DoesNotExist';
    readonly values: readonly string[];
  }[];
}

/** A Node. */
export interface NodeRecord {
  readonly name: string;
  /** `topology.kubernetes.io/zone`; `null` = label absent, `""` = present but empty. */
  readonly zone: string | null;
  /** `topology.kubernetes.io/region`, when set. */
  readonly region: string | null;
  /** `status.allocatable.cpu` quantity, `null` when absent. */
  readonly allocatableCpu: string | null;
  /** `Ready` condition status, `null` when there is no Ready condition. */
  readonly ready: boolean | null;
  readonly unschedulable: boolean;
  /** Labels relevant to topology (control-plane/master role, instance type, zone, region). */
  readonly labels: Readonly<Record<string, string>>;
  /** `spec.providerID` (e.g. `aws:///eu-west-1a/i-0abc`), when set. */
  readonly providerID: string | null;
}

/** One Service port. */
export interface ServicePortRecord {
  readonly name: string;
  readonly protocol: string;
  readonly port: number;
  readonly nodePort: number | null;
}

/** A Service. */
export interface ServiceRecord {
  readonly namespace: string;
  readonly name: string;
  readonly uid: string;
  readonly resourceVersion: string;
  /**
   * The annotations zonescope reads (topology, cloud load balancers, Helm/Argo CD ownership; see
   * `isServiceAnnotationKept` in lib/k8s/wire-to-record): not `last-applied-configuration`.
   */
  readonly annotations: Readonly<Record<string, string>>;
  readonly type: 'ClusterIP' | 'NodePort' | 'LoadBalancer' | 'ExternalName';
  /** `spec.selector`; `null` for Services without a selector (manually managed endpoints). */
  readonly selector: Readonly<Record<string, string>> | null;
  readonly clusterIP: string | null;
  readonly externalTrafficPolicy: 'Cluster' | 'Local' | null;
  readonly internalTrafficPolicy: 'Cluster' | 'Local' | null;
  readonly trafficDistribution: string | null;
  readonly ports: readonly ServicePortRecord[];
  readonly externalIPs: readonly string[];
  /** `status.loadBalancer.ingress` entries (IP or hostname). */
  readonly loadBalancerIngress: readonly string[];
  readonly loadBalancerClass: string | null;
  readonly ipFamilies: readonly string[];
  /** The GitOps / Helm ownership labels (`argocd.argoproj.io/instance`, `app.kubernetes.io/instance`, Flux, `app.kubernetes.io/managed-by`), when any is set. */
  readonly labels?: Readonly<Record<string, string>>;
  /**
   * Who declares the topology annotations, from `kubectl.kubernetes.io/last-applied-configuration`
   * and `metadata.managedFields` (owner facts only, not the blobs); absent when the Service has
   * neither.
   */
  readonly ownership?: ServiceOwnershipFacts;
}

/**
 * What a Service's own metadata says about who applies its topology annotations
 * (`service.kubernetes.io/topology-mode`, `…/topology-aware-hints`).
 */
export interface ServiceOwnershipFacts {
  /**
   * `kubectl.kubernetes.io/last-applied-configuration`, written by client-side `kubectl apply`
   * and by Argo CD's default (client-side) sync: the topology annotations it declares, key → value
   * (empty when it declares none). `null` when the Service has no such annotation;
   * `{ readable: false }` when it is not a JSON object.
   */
  readonly lastApplied: { readonly readable: true; readonly topologyAnnotations: Readonly<Record<string, string>> } | { readonly readable: false } | null;
  /**
   * `metadata.managedFields`, one entry per manager and operation, with the topology annotation
   * keys each owns (`f:metadata` → `f:annotations` → `f:<key>`). `null` when the object carries
   * none (a dump from `kubectl get -o yaml`, which leaves them out by default).
   */
  readonly managers: readonly FieldManagerFact[] | null;
}

/** One `metadata.managedFields` entry, reduced to what ownership needs. */
export interface FieldManagerFact {
  /** `argocd-controller`, `kustomize-controller`, `helm`, `kubectl-client-side-apply`, `zonescope`… */
  readonly manager: string;
  /** `Apply` (server-side apply) or `Update` (every other write). */
  readonly operation: string;
  /** The topology annotation keys this entry owns. */
  readonly topologyKeys: readonly string[];
}

/** An EndpointSlice with the engine's endpoint shape. */
export interface EndpointSliceRecord {
  readonly namespace: string;
  readonly name: string;
  readonly resourceVersion: string;
  /** `kubernetes.io/service-name` label; `null` when absent. */
  readonly serviceName: string | null;
  /** `endpointslice.kubernetes.io/managed-by` label. */
  readonly managedBy: string | null;
  readonly addressType: AddressType;
  readonly ports: readonly { readonly name: string | null; readonly port: number | null; readonly protocol: string | null }[];
  readonly endpoints: readonly Endpoint[];
}

/** A Pod (only placement, readiness and ownership). */
export interface PodRecord {
  readonly namespace: string;
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly nodeName: string | null;
  readonly phase: string | null;
  readonly ready: boolean;
  readonly terminating: boolean;
  /** Controller owner (`ownerReferences[controller=true]`). */
  readonly owner: { readonly kind: string; readonly name: string } | null;
  /**
   * `spec.hostNetwork: true`: the pod shares its node's network namespace, so cAdvisor's network
   * counters of its sandbox are the node's, and Beyla names the Node, not the pod, as a flow's end.
   * Absent when false.
   */
  readonly hostNetwork?: true;
}

/** A `topologySpreadConstraints` entry. */
export interface TopologySpreadConstraintRecord {
  readonly topologyKey: string;
  readonly maxSkew: number;
  readonly whenUnsatisfiable: 'DoNotSchedule' | 'ScheduleAnyway';
  readonly labelSelector: LabelSelector | null;
  readonly minDomains: number | null;
}

/** A Deployment. */
export interface DeploymentRecord {
  readonly namespace: string;
  readonly name: string;
  readonly replicas: number;
  readonly readyReplicas: number;
  readonly selector: LabelSelector;
  readonly templateLabels: Readonly<Record<string, string>>;
  readonly topologySpreadConstraints: readonly TopologySpreadConstraintRecord[];
  /** Whether the pod template has a required pod anti-affinity on the zone key. */
  readonly zoneAntiAffinity: boolean;
}

/** A ReplicaSet. */
export interface ReplicaSetRecord {
  readonly namespace: string;
  readonly name: string;
  readonly replicas: number;
  readonly owner: { readonly kind: string; readonly name: string } | null;
}

/** A HorizontalPodAutoscaler (autoscaling/v2). */
export interface HpaRecord {
  readonly namespace: string;
  readonly name: string;
  readonly scaleTargetRef: { readonly kind: string; readonly name: string };
  readonly minReplicas: number;
  readonly maxReplicas: number;
  readonly currentReplicas: number | null;
  readonly desiredReplicas: number | null;
}

/** A core Event about a Service (TopologyAwareHints*). */
export interface EventRecord {
  readonly namespace: string;
  readonly name: string;
  readonly involvedObject: { readonly kind: string; readonly name: string; readonly namespace: string };
  readonly type: string;
  readonly reason: string;
  readonly message: string;
  readonly count: number;
  /** ISO timestamps; `null` when absent. */
  readonly firstTimestamp: string | null;
  readonly lastTimestamp: string | null;
}

/** kube-proxy mode as configured. `''` in the config means the platform default (iptables on Linux). */
export type ProxyMode = 'iptables' | 'ipvs' | 'nftables' | 'kernelspace' | 'unknown';

/** The kube-proxy configuration (from the `kube-proxy` / `kube-proxy-config` ConfigMap). */
export interface ProxyConfigRecord {
  readonly mode: ProxyMode;
  /** Value as written (`""` = default). */
  readonly modeAsWritten: string;
  /** IPVS scheduler (`rr` when empty). */
  readonly ipvsScheduler: string | null;
  /** Where it was read from, e.g. `kube-system/kube-proxy-config`. */
  readonly source: string;
}

/** CNI facts that change whether hints are honoured. */
export interface CniRecord {
  /** Cilium, from the `cilium-config` ConfigMap. */
  readonly cilium: { readonly kubeProxyReplacement: string; readonly serviceTopology: boolean; readonly source: string } | null;
  /** Calico eBPF data plane (FelixConfiguration / ConfigMap), when known. */
  readonly calico: { readonly bpfEnabled: boolean; readonly source: string } | null;
  /** AWS VPC CNI (`aws-node` DaemonSet present). */
  readonly awsVpcCni: boolean;
}

/** The server version as served by `/version`. */
export interface ServerVersionRecord {
  readonly gitVersion: string;
  /** Parsed minor, `null` when not a 1.x version. */
  readonly minor: number | null;
  /** Platform guess from the version string (`eks`, `gke`, `aks`, …), `null` when unknown. */
  readonly platform: string | null;
}

/**
 * A resource type a cluster source reads (the same identifiers as `lib/k8s/resources.ts`). The
 * engine only names them: which ones could not be read is an analysis option
 * (`AnalysisOptions.unreadable`), so that verdicts depending on them say "unknown" instead of
 * analysing an empty list as if the cluster had none.
 */
export type SourceResource = 'nodes' | 'services' | 'endpointslices' | 'pods' | 'deployments' | 'replicasets' | 'hpas' | 'events' | 'configmaps' | 'daemonsets';

/** Every {@link SourceResource}, in display order. */
export const SOURCE_RESOURCES: readonly SourceResource[] = ['nodes', 'services', 'endpointslices', 'pods', 'deployments', 'replicasets', 'hpas', 'events', 'configmaps', 'daemonsets'];

/** How messages name each resource type (the Kubernetes kind, plural). */
export const SOURCE_RESOURCE_NAMES: Readonly<Record<SourceResource, string>> = {
  nodes: 'Nodes',
  services: 'Services',
  endpointslices: 'EndpointSlices',
  pods: 'Pods',
  deployments: 'Deployments',
  replicasets: 'ReplicaSets',
  hpas: 'HorizontalPodAutoscalers',
  events: 'Events',
  configmaps: 'ConfigMaps (kube-system)',
  daemonsets: 'DaemonSets (kube-system)',
};

/**
 * A whole cluster as plain data. Lists are unordered sets (analyses sort where order shows).
 * Sources index it with {@link indexCluster}.
 */
export interface ClusterSnapshot {
  readonly version: ServerVersionRecord | null;
  readonly nodes: readonly NodeRecord[];
  readonly services: readonly ServiceRecord[];
  readonly endpointSlices: readonly EndpointSliceRecord[];
  readonly pods: readonly PodRecord[];
  readonly deployments: readonly DeploymentRecord[];
  readonly replicaSets: readonly ReplicaSetRecord[];
  readonly hpas: readonly HpaRecord[];
  readonly events: readonly EventRecord[];
  readonly proxy: ProxyConfigRecord | null;
  readonly cni: CniRecord;
}

/** `namespace/name`. */
export function objectKey(namespace: string, name: string): string {
  return `${namespace}/${name}`;
}

/** Lookups analyses need, built once per snapshot (or maintained incrementally by a source). */
export interface ClusterIndex {
  readonly snapshot: ClusterSnapshot;
  readonly nodesByName: ReadonlyMap<string, NodeRecord>;
  readonly servicesByKey: ReadonlyMap<string, ServiceRecord>;
  /** Slices by `namespace/serviceName`. */
  readonly slicesByService: ReadonlyMap<string, readonly EndpointSliceRecord[]>;
  readonly podsByNamespace: ReadonlyMap<string, readonly PodRecord[]>;
  readonly deploymentsByKey: ReadonlyMap<string, DeploymentRecord>;
  readonly replicaSetsByKey: ReadonlyMap<string, ReplicaSetRecord>;
  /** HPAs by `namespace/Kind/name` of their scale target. */
  readonly hpasByTarget: ReadonlyMap<string, HpaRecord>;
  /** Events by `namespace/serviceName` (involvedObject kind Service). */
  readonly eventsByService: ReadonlyMap<string, readonly EventRecord[]>;
}

function groupBy<T>(items: readonly T[], keyOf: (item: T) => string | null): Map<string, T[]> {
  const map = new Map<string, T[]>();
  for (const item of items) {
    const key = keyOf(item);
    if (key === null) continue;
    const list = map.get(key);
    if (list) list.push(item);
    else map.set(key, [item]);
  }
  return map;
}

/**
 * The key each lookup of a {@link ClusterIndex} files a record under (`null`: not filed). One
 * definition for {@link indexCluster} and for sources that maintain an index incrementally.
 */
export const INDEX_KEYS = {
  nodesByName: (node: NodeRecord): string => node.name,
  servicesByKey: (service: ServiceRecord): string => objectKey(service.namespace, service.name),
  slicesByService: (slice: EndpointSliceRecord): string | null => (slice.serviceName === null ? null : objectKey(slice.namespace, slice.serviceName)),
  podsByNamespace: (pod: PodRecord): string => pod.namespace,
  deploymentsByKey: (d: DeploymentRecord): string => objectKey(d.namespace, d.name),
  replicaSetsByKey: (r: ReplicaSetRecord): string => objectKey(r.namespace, r.name),
  hpasByTarget: (h: HpaRecord): string => `${h.namespace}/${h.scaleTargetRef.kind}/${h.scaleTargetRef.name}`,
  eventsByService: (event: EventRecord): string | null =>
    event.involvedObject.kind === 'Service' ? objectKey(event.involvedObject.namespace || event.namespace, event.involvedObject.name) : null,
} as const satisfies { readonly [F in Exclude<keyof ClusterIndex, 'snapshot'>]: (record: never) => string | null };

/** A cluster with nothing in it: no version, no records, no dataplane facts (frozen, lists included). */
export const EMPTY_SNAPSHOT: ClusterSnapshot = Object.freeze({
  version: null,
  nodes: Object.freeze([]),
  services: Object.freeze([]),
  endpointSlices: Object.freeze([]),
  pods: Object.freeze([]),
  deployments: Object.freeze([]),
  replicaSets: Object.freeze([]),
  hpas: Object.freeze([]),
  events: Object.freeze([]),
  proxy: null,
  cni: Object.freeze({ cilium: null, calico: null, awsVpcCni: false }),
});

/** Builds the lookups of a {@link ClusterIndex} in one pass per resource type. */
export function indexCluster(snapshot: ClusterSnapshot): ClusterIndex {
  const keyed = <T>(items: readonly T[], keyOf: (item: T) => string): Map<string, T> => new Map(items.map((item) => [keyOf(item), item]));
  return {
    snapshot,
    nodesByName: keyed(snapshot.nodes, INDEX_KEYS.nodesByName),
    servicesByKey: keyed(snapshot.services, INDEX_KEYS.servicesByKey),
    slicesByService: groupBy(snapshot.endpointSlices, INDEX_KEYS.slicesByService),
    podsByNamespace: groupBy(snapshot.pods, INDEX_KEYS.podsByNamespace),
    deploymentsByKey: keyed(snapshot.deployments, INDEX_KEYS.deploymentsByKey),
    replicaSetsByKey: keyed(snapshot.replicaSets, INDEX_KEYS.replicaSetsByKey),
    hpasByTarget: keyed(snapshot.hpas, INDEX_KEYS.hpasByTarget),
    eventsByService: groupBy(snapshot.events, INDEX_KEYS.eventsByService),
  };
}

/** Whether `labels` satisfy `selector` (empty selector matches everything). */
export function matchesSelector(selector: LabelSelector, labels: Readonly<Record<string, string>>): boolean {
  for (const [key, value] of Object.entries(selector.matchLabels)) if (labels[key] !== value) return false;
  for (const expression of selector.matchExpressions) {
    const has = Object.prototype.hasOwnProperty.call(labels, expression.key);
    const value = labels[expression.key];
    switch (expression.operator) {
      case 'In':
        if (!has || value === undefined || !expression.values.includes(value)) return false;
        break;
      case 'NotIn':
        if (has && value !== undefined && expression.values.includes(value)) return false;
        break;
      case 'Exists':
        if (!has) return false;
        break;
      case 'DoesNotExist':
        if (has) return false;
        break;
    }
  }
  return true;
}

/** Whether a Service's `spec.selector` (equality only) selects `labels`. A null or empty selector selects nothing. */
export function serviceSelects(selector: Readonly<Record<string, string>> | null, labels: Readonly<Record<string, string>>): boolean {
  if (selector === null) return false;
  const entries = Object.entries(selector);
  if (entries.length === 0) return false;
  return entries.every(([key, value]) => labels[key] === value);
}
