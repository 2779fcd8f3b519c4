/**
 * Projection of Kubernetes API objects (plain JSON, as served over the wire, printed by
 * `kubectl -o json|yaml`, or stored by the simulator) onto the slim records of
 * `lib/topology/model/cluster-model`. Unknown fields are ignored; missing ones become `null`.
 * Pure functions: no client-node, no I/O, so the simulator and the snapshot loader share them.
 */
import { parse as parseYaml } from 'yaml';
import type {
  CniRecord,
  DeploymentRecord,
  EndpointSliceRecord,
  EventRecord,
  HpaRecord,
  LabelSelector,
  NodeRecord,
  PodRecord,
  ProxyConfigRecord,
  ProxyMode,
  ReplicaSetRecord,
  ServerVersionRecord,
  ServicePortRecord,
  ServiceRecord,
  TopologySpreadConstraintRecord,
} from '../topology/model/cluster-model';
import { LABEL_MANAGED_BY, LABEL_SERVICE_NAME, LABEL_TOPOLOGY_ZONE } from '../topology/upstream/constants';
import type { AddressType, Endpoint, EndpointHints } from '../topology/upstream/types';
import { parseKubeMinor } from '../topology/upstream/version';
import { nanoToMilli, parseQuantityNano } from '../topology/upstream/quantity';
import { internNullable, internRecord, internString, internStringMap } from './intern';

/** A JSON object as read from the wire. */
export type Json = Record<string, unknown>;

/** Narrows to a plain object. */
export function isJsonObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** `value` when it is a plain object, else an empty object. */
export function obj(value: unknown): Json {
  return isJsonObject(value) ? value : {};
}

/** `value` when it is a string, else `null`. */
export function str(value: unknown): string | null {
  return typeof value === 'string' ? value : null;
}

/** `value` when it is a finite number, else `null`. */
export function num(value: unknown): number | null {
  return typeof value === 'number' && Number.isFinite(value) ? value : null;
}

/** `value` when it is a boolean, else `null`. */
export function bool(value: unknown): boolean | null {
  return typeof value === 'boolean' ? value : null;
}

/** `value` when it is an array, else an empty array. */
export function arr(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

/** A string map (labels, annotations, selectors); non-string values are dropped. */
export function stringMap(value: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  if (!isJsonObject(value)) return out;
  for (const [key, entry] of Object.entries(value)) if (typeof entry === 'string') out[key] = entry;
  return out;
}

/** Accepts Date objects (client-node deserialises timestamps) and strings. */
export function timestamp(value: unknown): string | null {
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? null : value.toISOString();
  return typeof value === 'string' && value !== '' ? value : null;
}

/** Labels of a Node that analyses look at. */
const NODE_LABELS_KEPT = [
  'node-role.kubernetes.io/control-plane',
  'node-role.kubernetes.io/master',
  LABEL_TOPOLOGY_ZONE,
  'topology.kubernetes.io/region',
  'node.kubernetes.io/instance-type',
  'eks.amazonaws.com/nodegroup',
  // Platform markers (detectClusterPlatform).
  'cloud.google.com/gke-nodepool',
  'kubernetes.azure.com/agentpool',
  'karpenter.sh/nodepool',
  'kubernetes.io/hostname',
];

/** The most allocatable CPU a Node can state: `Quantity.MilliValue()` is an int64 (9223372036854775807m). */
export const MAX_ALLOCATABLE_CPU_MILLI = 9_223_372_036_854_775_807n;

/**
 * What is wrong with a Node's `status.allocatable.cpu`, `null` when it is fine or absent. The API
 * server stores only quantities that parse and are not negative (`ValidateResourceQuantityValue`),
 * and the EndpointSlice controller counts CPU as an int64 of milli-cores, so a dump with anything
 * else was edited or corrupted: zonescope refuses it rather than compute ratios such as −41 % and
 * 258 % (negative CPU) or NaN (a total beyond a double, `1e306`).
 */
export function allocatableCpuProblem(rawNode: unknown): string | null {
  const cpu = obj(obj(obj(rawNode).status).allocatable).cpu;
  if (cpu === undefined || cpu === null) return null;
  if (typeof cpu !== 'string' && typeof cpu !== 'number') return `status.allocatable.cpu must be a quantity such as "4" or "3920m", not ${Array.isArray(cpu) ? 'a list' : typeof cpu}`;
  const text = String(cpu);
  const nano = parseQuantityNano(text);
  if (nano === null) return `status.allocatable.cpu "${text}" is not a Kubernetes quantity (such as "4" or "3920m"); the API server refuses it`;
  if (nano < 0n) return `status.allocatable.cpu "${text}" is negative; the API server refuses a negative quantity`;
  if (nanoToMilli(nano) > MAX_ALLOCATABLE_CPU_MILLI) return `status.allocatable.cpu "${text}" is more than ${MAX_ALLOCATABLE_CPU_MILLI}m, which Kubernetes cannot count (MilliValue() is an int64)`;
  return null;
}

/** Node → {@link NodeRecord}. */
export function projectNode(raw: unknown): NodeRecord {
  const o = obj(raw);
  const metadata = obj(o.metadata);
  const spec = obj(o.spec);
  const status = obj(o.status);
  const labels = stringMap(metadata.labels);
  const kept: Record<string, string> = {};
  for (const key of NODE_LABELS_KEPT) if (key in labels) kept[key] = labels[key] ?? '';
  const readyCondition = arr(status.conditions).map(obj).find((c) => c.type === 'Ready');
  const allocatable = obj(status.allocatable);
  const cpu = allocatable.cpu;
  return {
    name: internString(str(metadata.name) ?? ''),
    zone: Object.prototype.hasOwnProperty.call(labels, LABEL_TOPOLOGY_ZONE) ? internString(labels[LABEL_TOPOLOGY_ZONE] ?? '') : null,
    region: internNullable(labels['topology.kubernetes.io/region'] ?? null),
    // A CPU the API server would not store (negative) or Kubernetes cannot count (over an int64 of
    // milli-cores) is read as missing — "allocatable CPU not specified", as for an unparsable one —
    // never as a number that makes ratios negative or NaN. (Snapshots refuse such a Node outright.)
    allocatableCpu: internNullable((typeof cpu === 'string' || typeof cpu === 'number') && allocatableCpuProblem(raw) === null ? String(cpu) : null),
    ready: readyCondition === undefined ? null : readyCondition.status === 'True',
    unschedulable: spec.unschedulable === true,
    labels: internStringMap(kept),
    providerID: str(spec.providerID),
  };
}

function servicePort(raw: unknown): ServicePortRecord {
  const p = obj(raw);
  return { name: str(p.name) ?? '', protocol: str(p.protocol) ?? 'TCP', port: num(p.port) ?? 0, nodePort: num(p.nodePort) };
}

const stringList = (value: unknown): string[] => arr(value).map(str).filter((s): s is string => s !== null);

const SERVICE_TYPES = ['ClusterIP', 'NodePort', 'LoadBalancer', 'ExternalName'] as const;

function policy(value: unknown): 'Cluster' | 'Local' | null {
  return value === 'Cluster' || value === 'Local' ? value : null;
}

/**
 * Annotation prefixes of a Service that zonescope reads: topology (`service.kubernetes.io/topology-mode`,
 * `…/topology-aware-hints`) and the cloud load balancers' settings (`service.beta.kubernetes.io/aws-load-balancer-*`,
 * `…/azure-load-balancer-*`, GKE's `cloud.google.com/*` and `networking.gke.io/*`).
 */
const SERVICE_ANNOTATION_PREFIXES = ['service.kubernetes.io/', 'service.beta.kubernetes.io/', 'service.alpha.kubernetes.io/', 'cloud.google.com/', 'networking.gke.io/'];

/** Other Service annotations read (who manages the Service: Helm, Argo CD). */
const SERVICE_ANNOTATIONS_KEPT = new Set(['meta.helm.sh/release-name', 'meta.helm.sh/release-namespace', 'argocd.argoproj.io/tracking-id']);

/**
 * Whether a Service annotation is kept in its record. Only these are: the rest (notably
 * `kubectl.kubernetes.io/last-applied-configuration`, a copy of the whole manifest on every
 * `kubectl apply`-managed Service) is read by nothing, and dropping it lets Services that differ
 * only there share one annotation map.
 */
export function isServiceAnnotationKept(key: string): boolean {
  return SERVICE_ANNOTATIONS_KEPT.has(key) || SERVICE_ANNOTATION_PREFIXES.some((prefix) => key.startsWith(prefix));
}

function serviceAnnotations(value: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  if (!isJsonObject(value)) return out;
  for (const key in value) {
    const entry = value[key];
    if (typeof entry === 'string' && isServiceAnnotationKept(key)) out[key] = entry;
  }
  return out;
}

/** Service → {@link ServiceRecord}. */
export function projectService(raw: unknown): ServiceRecord {
  const o = obj(raw);
  const metadata = obj(o.metadata);
  const spec = obj(o.spec);
  const status = obj(o.status);
  const type = SERVICE_TYPES.find((t) => t === spec.type) ?? 'ClusterIP';
  const selector = isJsonObject(spec.selector) ? stringMap(spec.selector) : null;
  return {
    namespace: internString(str(metadata.namespace) ?? 'default'),
    name: internString(str(metadata.name) ?? ''),
    uid: str(metadata.uid) ?? '',
    resourceVersion: str(metadata.resourceVersion) ?? '',
    annotations: internStringMap(serviceAnnotations(metadata.annotations)),
    type,
    selector: selector && Object.keys(selector).length > 0 ? internStringMap(selector) : null,
    clusterIP: str(spec.clusterIP),
    externalTrafficPolicy: policy(spec.externalTrafficPolicy),
    internalTrafficPolicy: policy(spec.internalTrafficPolicy),
    trafficDistribution: internNullable(str(spec.trafficDistribution)),
    ports: internRecord(arr(spec.ports).map(servicePort)),
    externalIPs: stringList(spec.externalIPs),
    loadBalancerIngress: arr(obj(status.loadBalancer).ingress)
      .map(obj)
      .map((ingress) => str(ingress.ip) ?? str(ingress.hostname))
      .filter((s): s is string => s !== null),
    loadBalancerClass: internNullable(str(spec.loadBalancerClass)),
    ipFamilies: internRecord(stringList(spec.ipFamilies)),
    ...ownershipLabels(metadata.labels),
  };
}

/** The Service labels that say who manages it (GitOps / Helm); only these are kept. */
const SERVICE_LABELS_KEPT = ['argocd.argoproj.io/instance', 'kustomize.toolkit.fluxcd.io/name', 'kustomize.toolkit.fluxcd.io/namespace', 'helm.toolkit.fluxcd.io/name', 'helm.toolkit.fluxcd.io/namespace', 'app.kubernetes.io/managed-by'];

function ownershipLabels(raw: unknown): { labels?: Readonly<Record<string, string>> } {
  const labels = stringMap(raw);
  const kept: Record<string, string> = {};
  for (const key of SERVICE_LABELS_KEPT) if (key in labels) kept[key] = labels[key] ?? '';
  return Object.keys(kept).length > 0 ? { labels: internStringMap(kept) } : {};
}

function names(value: unknown): string[] | undefined {
  if (!Array.isArray(value)) return undefined;
  return value.map(obj).map((entry) => str(entry.name) ?? '');
}

/** One wire endpoint (`endpoints[]` of an EndpointSlice) → engine {@link Endpoint}. */
export function endpointFromWire(raw: unknown): Endpoint {
  const e = obj(raw);
  const conditions = obj(e.conditions);
  let hints: EndpointHints | null = null;
  if (isJsonObject(e.hints)) {
    const forZones = names(e.hints.forZones);
    const forNodes = names(e.hints.forNodes);
    const h: { forZones?: string[]; forNodes?: string[] } = {};
    if (forZones !== undefined) h.forZones = forZones;
    if (forNodes !== undefined) h.forNodes = forNodes;
    hints = internRecord(h);
  }
  const targetRef = obj(e.targetRef);
  const addresses = Array.isArray(e.addresses) && e.addresses.length === 1 && typeof e.addresses[0] === 'string' ? [e.addresses[0]] : stringList(e.addresses);
  return {
    addresses,
    zone: internNullable(str(e.zone)),
    nodeName: internNullable(str(e.nodeName)),
    ready: bool(conditions.ready),
    serving: bool(conditions.serving),
    terminating: bool(conditions.terminating),
    hints,
    podName: targetRef.kind === 'Pod' ? str(targetRef.name) : null,
  };
}

/** Engine hints → wire hints (`[{name}]` lists), `undefined` when there are none. */
export function hintsToWire(hints: EndpointHints | null): Json | undefined {
  if (hints === null) return undefined;
  const out: Json = {};
  if (hints.forZones !== undefined) out.forZones = hints.forZones.map((name) => ({ name }));
  if (hints.forNodes !== undefined) out.forNodes = hints.forNodes.map((name) => ({ name }));
  return out;
}

const ADDRESS_TYPES: readonly AddressType[] = ['IPv4', 'IPv6', 'FQDN'];

/** EndpointSlice → {@link EndpointSliceRecord}. */
export function projectEndpointSlice(raw: unknown): EndpointSliceRecord {
  const o = obj(raw);
  const metadata = obj(o.metadata);
  const labels = stringMap(metadata.labels);
  return {
    namespace: internString(str(metadata.namespace) ?? 'default'),
    name: str(metadata.name) ?? '',
    resourceVersion: str(metadata.resourceVersion) ?? '',
    serviceName: internNullable(labels[LABEL_SERVICE_NAME] ?? null),
    managedBy: internNullable(labels[LABEL_MANAGED_BY] ?? null),
    addressType: ADDRESS_TYPES.find((t) => t === o.addressType) ?? 'IPv4',
    ports: internRecord(arr(o.ports).map(obj).map((p) => ({ name: str(p.name), port: num(p.port), protocol: str(p.protocol) }))),
    endpoints: arr(o.endpoints).map(endpointFromWire),
  };
}

// ---------------------------------------------------------------------------------------------
// Shared metadata helpers

/** `metadata.namespace` and `metadata.name` of an object (`''` when absent). */
export function objectMeta(raw: unknown): { readonly namespace: string; readonly name: string } {
  const metadata = obj(obj(raw).metadata);
  return { namespace: str(metadata.namespace) ?? '', name: str(metadata.name) ?? '' };
}

/** The controller owner reference (`ownerReferences[controller=true]`), `null` when there is none. */
export function controllerOwner(metadata: Json): { readonly kind: string; readonly name: string } | null {
  for (const ref of arr(metadata.ownerReferences).map(obj)) {
    if (ref.controller !== true) continue;
    const kind = str(ref.kind);
    const name = str(ref.name);
    if (kind !== null && name !== null) return internRecord({ kind, name });
  }
  return null;
}

const SELECTOR_OPERATORS = ['In', 'NotIn', 'Exists', 'DoesNotExist'] as const;
type SelectorOperator = (typeof SELECTOR_OPERATORS)[number];

/**
 * `metav1.LabelSelector` → {@link LabelSelector}; `null` when `raw` is not an object.
 * Expressions with an unknown operator or no key are dropped (the API server rejects them anyway).
 */
export function labelSelector(raw: unknown): LabelSelector | null {
  if (!isJsonObject(raw)) return null;
  const matchExpressions: { key: string; operator: SelectorOperator; values: string[] }[] = [];
  for (const expression of arr(raw.matchExpressions).map(obj)) {
    const key = str(expression.key);
    const operator = SELECTOR_OPERATORS.find((op) => op === expression.operator);
    if (key === null || operator === undefined) continue;
    matchExpressions.push({ key, operator, values: arr(expression.values).map(str).filter((v): v is string => v !== null) });
  }
  return { matchLabels: stringMap(raw.matchLabels), matchExpressions };
}

// ---------------------------------------------------------------------------------------------
// Workloads

/** Pod → {@link PodRecord}: ready from the `Ready` condition, terminating from `deletionTimestamp`. */
export function projectPod(raw: unknown): PodRecord {
  const o = obj(raw);
  const metadata = obj(o.metadata);
  const spec = obj(o.spec);
  const status = obj(o.status);
  const ready = arr(status.conditions)
    .map(obj)
    .some((condition) => condition.type === 'Ready' && condition.status === 'True');
  return {
    namespace: internString(str(metadata.namespace) ?? 'default'),
    name: str(metadata.name) ?? '',
    labels: internStringMap(stringMap(metadata.labels)),
    nodeName: internNullable(str(spec.nodeName)),
    phase: internNullable(str(status.phase)),
    ready,
    terminating: timestamp(metadata.deletionTimestamp) !== null,
    podIP: str(status.podIP),
    owner: controllerOwner(metadata),
    ...(spec.hostNetwork === true ? { hostNetwork: true } : {}),
  };
}

/** Zone topology keys a required anti-affinity may use (the legacy beta label still works). */
const ZONE_TOPOLOGY_KEYS = [LABEL_TOPOLOGY_ZONE, 'failure-domain.beta.kubernetes.io/zone'];

function spreadConstraint(raw: unknown): TopologySpreadConstraintRecord {
  const c = obj(raw);
  return {
    topologyKey: str(c.topologyKey) ?? '',
    maxSkew: num(c.maxSkew) ?? 1,
    whenUnsatisfiable: c.whenUnsatisfiable === 'ScheduleAnyway' ? 'ScheduleAnyway' : 'DoNotSchedule',
    labelSelector: labelSelector(c.labelSelector),
    minDomains: num(c.minDomains),
  };
}

/** Whether a pod spec has a required pod anti-affinity term on the zone key. */
function hasZoneAntiAffinity(podSpec: Json): boolean {
  const antiAffinity = obj(obj(podSpec.affinity).podAntiAffinity);
  return arr(antiAffinity.requiredDuringSchedulingIgnoredDuringExecution)
    .map(obj)
    .some((term) => ZONE_TOPOLOGY_KEYS.includes(str(term.topologyKey) ?? ''));
}

/** Deployment → {@link DeploymentRecord} (`spec.replicas` defaults to 1, as the API server does). */
export function projectDeployment(raw: unknown): DeploymentRecord {
  const o = obj(raw);
  const metadata = obj(o.metadata);
  const spec = obj(o.spec);
  const status = obj(o.status);
  const template = obj(spec.template);
  const podSpec = obj(template.spec);
  return {
    namespace: internString(str(metadata.namespace) ?? 'default'),
    name: internString(str(metadata.name) ?? ''),
    replicas: num(spec.replicas) ?? 1,
    readyReplicas: num(status.readyReplicas) ?? 0,
    selector: labelSelector(spec.selector) ?? { matchLabels: {}, matchExpressions: [] },
    templateLabels: internStringMap(stringMap(obj(template.metadata).labels)),
    topologySpreadConstraints: arr(podSpec.topologySpreadConstraints).map(spreadConstraint),
    zoneAntiAffinity: hasZoneAntiAffinity(podSpec),
  };
}

/** ReplicaSet → {@link ReplicaSetRecord}. */
export function projectReplicaSet(raw: unknown): ReplicaSetRecord {
  const o = obj(raw);
  const metadata = obj(o.metadata);
  return {
    namespace: internString(str(metadata.namespace) ?? 'default'),
    name: internString(str(metadata.name) ?? ''),
    replicas: num(obj(o.spec).replicas) ?? 1,
    owner: controllerOwner(metadata),
  };
}

/** HorizontalPodAutoscaler (autoscaling/v2, also v1 and v2beta2: the fields read are the same) → {@link HpaRecord}. */
export function projectHpa(raw: unknown): HpaRecord {
  const o = obj(raw);
  const metadata = obj(o.metadata);
  const spec = obj(o.spec);
  const status = obj(o.status);
  const target = obj(spec.scaleTargetRef);
  return {
    namespace: internString(str(metadata.namespace) ?? 'default'),
    name: str(metadata.name) ?? '',
    scaleTargetRef: { kind: internString(str(target.kind) ?? ''), name: str(target.name) ?? '' },
    minReplicas: num(spec.minReplicas) ?? 1,
    maxReplicas: num(spec.maxReplicas) ?? 0,
    currentReplicas: num(status.currentReplicas),
    desiredReplicas: num(status.desiredReplicas),
  };
}

// ---------------------------------------------------------------------------------------------
// Events

/** Whether an Event is in the `events.k8s.io/v1` shape (`regarding`, `note`, `deprecated*`). */
function isEventsV1(o: Json): boolean {
  const apiVersion = str(o.apiVersion) ?? '';
  return apiVersion.startsWith('events.k8s.io/') || (!('involvedObject' in o) && ('regarding' in o || 'note' in o));
}

/**
 * Event → {@link EventRecord}. Accepts core `v1` Events (`involvedObject`, `message`, `count`,
 * `firstTimestamp`/`lastTimestamp`) and `events.k8s.io/v1` Events (`regarding`, `note`,
 * `deprecatedCount`, `series`, `eventTime`). A count of 0 or none means "seen once"; missing
 * timestamps fall back to `eventTime` and `series.lastObservedTime`.
 */
export function projectEvent(raw: unknown): EventRecord {
  const o = obj(raw);
  const metadata = obj(o.metadata);
  const namespace = str(metadata.namespace) ?? 'default';
  const series = obj(o.series);
  const v1 = isEventsV1(o);
  const subject = obj(v1 ? o.regarding : o.involvedObject);
  const first = timestamp(v1 ? o.deprecatedFirstTimestamp : o.firstTimestamp) ?? timestamp(o.eventTime);
  const last =
    timestamp(v1 ? o.deprecatedLastTimestamp : o.lastTimestamp) ??
    timestamp(series.lastObservedTime) ??
    timestamp(o.eventTime) ??
    first;
  const count = num(v1 ? o.deprecatedCount : o.count) || num(series.count) || 1;
  return {
    namespace,
    name: str(metadata.name) ?? '',
    involvedObject: {
      kind: str(subject.kind) ?? '',
      name: str(subject.name) ?? '',
      namespace: str(subject.namespace) ?? namespace,
    },
    type: str(o.type) ?? 'Normal',
    reason: str(o.reason) ?? '',
    message: str(v1 ? o.note : o.message) ?? '',
    count,
    firstTimestamp: first,
    lastTimestamp: last,
  };
}

/** Whether an Event (either API shape) is about a Service, the only Events zonescope keeps. */
export function isServiceEvent(raw: unknown): boolean {
  const o = obj(raw);
  return obj(isEventsV1(o) ? o.regarding : o.involvedObject).kind === 'Service';
}

// ---------------------------------------------------------------------------------------------
// Dataplane: kube-proxy, Cilium, Calico, AWS VPC CNI

/** Namespace holding the kube-proxy and CNI configuration zonescope reads. */
export const KUBE_SYSTEM = 'kube-system';

/**
 * kube-proxy ConfigMaps in order of preference: EKS's `kube-proxy-config` (key `config`), then
 * kubeadm's `kube-proxy` (key `config.conf`). Either key is accepted in either ConfigMap.
 */
export const KUBE_PROXY_CONFIGMAPS: readonly string[] = ['kube-proxy-config', 'kube-proxy'];

const KUBE_PROXY_CONFIG_KEYS = ['config.conf', 'config'];

const PROXY_MODES: readonly ProxyMode[] = ['iptables', 'ipvs', 'nftables', 'kernelspace'];

/**
 * Reads a `KubeProxyConfiguration` document. `mode: ""` (or no mode) is the platform default,
 * iptables on Linux; an empty `ipvs.scheduler` is `rr`. Text that is not a YAML/JSON mapping
 * gives mode `unknown`.
 *
 * @see https://kubernetes.io/docs/reference/config-api/kube-proxy-config.v1alpha1/
 */
export function parseKubeProxyConfiguration(text: string, source: string): ProxyConfigRecord {
  let config: unknown;
  try {
    config = parseYaml(text);
  } catch {
    return { mode: 'unknown', modeAsWritten: '', ipvsScheduler: null, source };
  }
  if (!isJsonObject(config)) return { mode: 'unknown', modeAsWritten: '', ipvsScheduler: null, source };
  const modeAsWritten = str(config.mode) ?? '';
  const normalised = modeAsWritten.trim().toLowerCase();
  const mode: ProxyMode = normalised === '' ? 'iptables' : (PROXY_MODES.find((m) => m === normalised) ?? 'unknown');
  const scheduler = (str(obj(config.ipvs).scheduler) ?? '').trim();
  return { mode, modeAsWritten, ipvsScheduler: mode === 'ipvs' ? scheduler || 'rr' : scheduler || null, source };
}

/** The kube-proxy ConfigMap → {@link ProxyConfigRecord}; `null` for any other ConfigMap. */
export function projectProxyConfigMap(raw: unknown): ProxyConfigRecord | null {
  const o = obj(raw);
  const { namespace, name } = objectMeta(o);
  if (namespace !== KUBE_SYSTEM || !KUBE_PROXY_CONFIGMAPS.includes(name)) return null;
  const data = stringMap(o.data);
  const source = `${namespace}/${name}`;
  const key = KUBE_PROXY_CONFIG_KEYS.find((k) => k in data);
  if (key === undefined) return { mode: 'unknown', modeAsWritten: '', ipvsScheduler: null, source };
  return parseKubeProxyConfiguration(data[key] ?? '', source);
}

/** Cilium's agent configuration, from `kube-system/cilium-config`. */
export type CiliumRecord = NonNullable<CniRecord['cilium']>;
/** Calico eBPF facts. */
export type CalicoRecord = NonNullable<CniRecord['calico']>;

/**
 * `kube-system/cilium-config` → {@link CiliumRecord}; `null` for any other ConfigMap.
 * `kube-proxy-replacement` is kept as written (`true`, `strict`, `partial`, `probe`, `false`,
 * `disabled`; `''` when absent); `enable-service-topology: "true"` (Helm
 * `loadBalancer.serviceTopology`) makes Cilium honour topology hints.
 *
 * @see https://docs.cilium.io/en/stable/network/kubernetes/kubeproxy-free/#topology-aware-hints
 */
export function projectCiliumConfigMap(raw: unknown): CiliumRecord | null {
  const o = obj(raw);
  const { namespace, name } = objectMeta(o);
  if (namespace !== KUBE_SYSTEM || name !== 'cilium-config') return null;
  const data = stringMap(o.data);
  return {
    kubeProxyReplacement: (data['kube-proxy-replacement'] ?? '').trim(),
    serviceTopology: (data['enable-service-topology'] ?? '').trim().toLowerCase() === 'true',
    source: `${namespace}/${name}`,
  };
}

function flag(value: string): boolean {
  return ['true', '1', 'yes', 'on'].includes(value.trim().toLowerCase());
}

function normaliseKey(key: string): string {
  return key.toLowerCase().replace(/[-_.]/g, '');
}

/**
 * `kube-system/calico-config` → {@link CalicoRecord} when it carries a Felix BPF setting
 * (`felix_bpfenabled`, `FELIX_BPFENABLED` or `bpfEnabled`, as some installs feed the calico-node
 * environment from it); `null` otherwise (Calico's own manifests keep `bpfEnabled` in the
 * FelixConfiguration resource, which is read by {@link projectCalicoObject}).
 */
export function projectCalicoConfigMap(raw: unknown): CalicoRecord | null {
  const o = obj(raw);
  const { namespace, name } = objectMeta(o);
  if (namespace !== KUBE_SYSTEM || name !== 'calico-config') return null;
  for (const [key, value] of Object.entries(stringMap(o.data))) {
    const k = normaliseKey(key);
    if (k === 'felixbpfenabled' || k === 'bpfenabled') return { bpfEnabled: flag(value), source: `${namespace}/${name} (${key})` };
  }
  return null;
}

/** Containers of a workload's pod template. */
function templateContainers(o: Json): Json[] {
  const podSpec = obj(obj(obj(o.spec).template).spec);
  return [...arr(podSpec.initContainers), ...arr(podSpec.containers)].map(obj);
}

/**
 * Calico eBPF facts from a `calico-node` DaemonSet (`FELIX_BPFENABLED` env, which overrides
 * the datastore), a `FelixConfiguration` (`spec.bpfEnabled`) or an operator `Installation`
 * (`spec.calicoNetwork.linuxDataplane: BPF`). `null` when the object says nothing about it.
 */
export function projectCalicoObject(raw: unknown): CalicoRecord | null {
  const o = obj(raw);
  const kind = str(o.kind);
  const { namespace, name } = objectMeta(o);
  if (kind === 'FelixConfiguration') {
    const enabled = bool(obj(o.spec).bpfEnabled);
    return enabled === null ? null : { bpfEnabled: enabled, source: `FelixConfiguration/${name}` };
  }
  if (kind === 'Installation') {
    const dataplane = str(obj(obj(o.spec).calicoNetwork).linuxDataplane);
    return dataplane === null ? null : { bpfEnabled: dataplane === 'BPF', source: `Installation/${name} (linuxDataplane ${dataplane})` };
  }
  if (kind === 'DaemonSet' && name === 'calico-node') {
    for (const container of templateContainers(o)) {
      for (const env of arr(container.env).map(obj)) {
        const value = str(env.value);
        if (env.name === 'FELIX_BPFENABLED' && value !== null) {
          return { bpfEnabled: flag(value), source: `${namespace}/calico-node (FELIX_BPFENABLED)` };
        }
      }
    }
  }
  return null;
}

/** Whether a DaemonSet is the AWS VPC CNI agent (`kube-system/aws-node`). */
export function isAwsNodeDaemonSet(raw: unknown): boolean {
  const o = obj(raw);
  const { namespace, name } = objectMeta(o);
  return (str(o.kind) ?? 'DaemonSet') === 'DaemonSet' && namespace === KUBE_SYSTEM && name === 'aws-node';
}

/**
 * The dataplane facts one object contributes (kube-proxy ConfigMap, Cilium/Calico configuration,
 * AWS VPC CNI DaemonSet). The live source caches these instead of whole ConfigMaps/DaemonSets.
 */
export interface DataplaneFactRecord {
  /** `Kind namespace/name` of the object it came from. */
  readonly key: string;
  readonly proxy: ProxyConfigRecord | null;
  readonly cilium: CiliumRecord | null;
  readonly calico: CalicoRecord | null;
  readonly awsVpcCni: boolean;
}

/** Facts of a ConfigMap, DaemonSet, FelixConfiguration or Installation; `null` when it has none. */
export function projectDataplaneObject(raw: unknown, kindHint?: string): DataplaneFactRecord | null {
  const o = obj(raw);
  const kind = str(o.kind) ?? kindHint ?? '';
  const withKind = str(o.kind) === null && kindHint !== undefined ? { ...o, kind: kindHint } : o;
  const { namespace, name } = objectMeta(o);
  const isConfigMap = kind === 'ConfigMap';
  const proxy = isConfigMap ? projectProxyConfigMap(o) : null;
  const cilium = isConfigMap ? projectCiliumConfigMap(o) : null;
  const calico = isConfigMap ? projectCalicoConfigMap(o) : projectCalicoObject(withKind);
  const awsVpcCni = kind === 'DaemonSet' && isAwsNodeDaemonSet(withKind);
  if (proxy === null && cilium === null && calico === null && !awsVpcCni) return null;
  return { key: `${kind} ${namespace ? `${namespace}/` : ''}${name}`, proxy, cilium, calico, awsVpcCni };
}

function calicoRank(record: CalicoRecord): number {
  if (record.source.includes('FELIX_BPFENABLED')) return 0;
  if (record.source.startsWith('FelixConfiguration/')) return 1;
  if (record.source.startsWith('Installation/')) return 2;
  return 3;
}

/**
 * Combines dataplane facts into the snapshot's `proxy` and `cni`. kube-proxy: `kube-proxy-config`
 * wins over `kube-proxy`. Calico: the calico-node environment wins over FelixConfiguration,
 * which wins over the operator Installation and ConfigMaps (Felix's own precedence).
 */
export function combineDataplaneFacts(facts: Iterable<DataplaneFactRecord>): { proxy: ProxyConfigRecord | null; cni: CniRecord } {
  let proxy: ProxyConfigRecord | null = null;
  let cilium: CiliumRecord | null = null;
  let calico: CalicoRecord | null = null;
  let awsVpcCni = false;
  const proxyRank = (record: ProxyConfigRecord): number => KUBE_PROXY_CONFIGMAPS.findIndex((name) => record.source.endsWith(`/${name}`));
  for (const fact of facts) {
    if (fact.proxy && (proxy === null || proxyRank(fact.proxy) < proxyRank(proxy))) proxy = fact.proxy;
    if (fact.cilium) cilium = fact.cilium;
    if (fact.calico && (calico === null || calicoRank(fact.calico) < calicoRank(calico))) calico = fact.calico;
    if (fact.awsVpcCni) awsVpcCni = true;
  }
  return { proxy, cni: { cilium, calico, awsVpcCni } };
}

// ---------------------------------------------------------------------------------------------
// Server version

/** Platform markers in `gitVersion` (`v1.30.2-eks-7f9249a`, `v1.29.1-gke.1589000`, `v1.28.3+k3s1`). */
const PLATFORM_MARKERS: readonly (readonly [RegExp, string])[] = [
  [/-eks-/i, 'eks'],
  [/-gke\./i, 'gke'],
  [/\+k3s/i, 'k3s'],
  [/\+rke2/i, 'rke2'],
  [/-aliyun\./i, 'ack'],
  [/-tke\./i, 'tke'],
  [/\+vmware/i, 'tkg'],
  [/-aks/i, 'aks'],
];

/**
 * The platform a `gitVersion` reveals, else (AKS prints a plain version) the one node
 * `providerID`s reveal for Azure (`azure://…` → `aks`); `null` when unknown.
 */
export function detectPlatform(gitVersion: string, providerIDs: Iterable<string | null> = []): string | null {
  for (const [pattern, platform] of PLATFORM_MARKERS) if (pattern.test(gitVersion)) return platform;
  for (const id of providerIDs) if (id?.startsWith('azure://')) return 'aks';
  return null;
}

/**
 * `/version` (`{major, minor, gitVersion, …}`, as `kubectl get --raw /version` prints it) →
 * {@link ServerVersionRecord}; `null` when it holds neither a `gitVersion` nor `major`/`minor`.
 */
export function projectServerVersion(raw: unknown, providerIDs: Iterable<string | null> = []): ServerVersionRecord | null {
  const o = obj(raw);
  const major = str(o.major) ?? '';
  const minorText = str(o.minor) ?? '';
  const gitVersion = str(o.gitVersion) ?? (major !== '' && minorText !== '' ? `v${major}.${minorText.replace(/\D+$/, '')}` : '');
  if (gitVersion === '') return null;
  const minor = parseKubeMinor(gitVersion) ?? (major !== '' && minorText !== '' ? parseKubeMinor({ major, minor: minorText }) : null);
  return { gitVersion, minor, platform: detectPlatform(gitVersion, providerIDs) };
}
