/**
 * Service → `ServiceRecord`: type, selector, traffic policies and distribution, ports, addresses,
 * and only the annotations and labels zonescope reads (topology, cloud load balancers, who manages
 * the Service), so Services that differ elsewhere share their maps.
 */
import type { FieldManagerFact, ServiceOwnershipFacts, ServicePortRecord, ServiceRecord } from '../../topology/model/cluster-model';
import { ANNOTATION_TOPOLOGY_MODE, DEPRECATED_ANNOTATION_TOPOLOGY_AWARE_HINTS } from '../../topology/upstream/constants';
import { internNullable, internRecord, internString, internStringMap } from '../intern';
import { arr, isJsonObject, num, obj, str, stringList, stringMap } from './json';

function servicePort(raw: unknown): ServicePortRecord {
  const p = obj(raw);
  return { name: str(p.name) ?? '', protocol: str(p.protocol) ?? 'TCP', port: num(p.port) ?? 0, nodePort: num(p.nodePort) };
}


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
    ...ownershipFacts(metadata),
  };
}

/** The Service labels that say who manages it (GitOps / Helm); only these are kept. */
const SERVICE_LABELS_KEPT = ['argocd.argoproj.io/instance', 'app.kubernetes.io/instance', 'kustomize.toolkit.fluxcd.io/name', 'kustomize.toolkit.fluxcd.io/namespace', 'helm.toolkit.fluxcd.io/name', 'helm.toolkit.fluxcd.io/namespace', 'app.kubernetes.io/managed-by'];

function ownershipLabels(raw: unknown): { labels?: Readonly<Record<string, string>> } {
  const labels = stringMap(raw);
  const kept: Record<string, string> = {};
  for (const key of SERVICE_LABELS_KEPT) if (key in labels) kept[key] = labels[key] ?? '';
  return Object.keys(kept).length > 0 ? { labels: internStringMap(kept) } : {};
}

const TOPOLOGY_KEYS = [ANNOTATION_TOPOLOGY_MODE, DEPRECATED_ANNOTATION_TOPOLOGY_AWARE_HINTS] as const;
const LAST_APPLIED = 'kubectl.kubernetes.io/last-applied-configuration';

/** The topology annotations a last-applied configuration declares; `{ readable: false }` when it is no JSON object. */
function lastAppliedFacts(text: string): NonNullable<ServiceOwnershipFacts['lastApplied']> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return { readable: false };
  }
  if (!isJsonObject(parsed)) return { readable: false };
  const annotations = obj(obj(parsed.metadata).annotations);
  const declared: Record<string, string> = {};
  for (const key of TOPOLOGY_KEYS) {
    const value = annotations[key];
    if (typeof value === 'string') declared[key] = value;
  }
  return { readable: true, topologyAnnotations: declared };
}

/** One managedFields entry: its manager, operation and the topology annotation keys it owns. */
function managerFact(raw: unknown): FieldManagerFact | null {
  const entry = obj(raw);
  const manager = str(entry.manager);
  if (manager === null) return null;
  const annotations = obj(obj(obj(entry.fieldsV1)['f:metadata'])['f:annotations']);
  const topologyKeys = TOPOLOGY_KEYS.filter((key) => `f:${key}` in annotations);
  return { manager, operation: str(entry.operation) ?? 'Update', topologyKeys };
}

/**
 * Owner facts from `last-applied-configuration` and `managedFields`; nothing when the Service has
 * neither, so Services without them keep sharing their shape.
 */
function ownershipFacts(metadata: Record<string, unknown>): { ownership?: ServiceOwnershipFacts } {
  const lastAppliedText = str(obj(metadata.annotations)[LAST_APPLIED]);
  const lastApplied = lastAppliedText === null ? null : lastAppliedFacts(lastAppliedText);
  const managers = Array.isArray(metadata.managedFields)
    ? arr(metadata.managedFields)
        .map(managerFact)
        .filter((fact): fact is FieldManagerFact => fact !== null)
    : null;
  if (lastApplied === null && managers === null) return {};
  // One shared (frozen) copy per distinct set of facts: most Services of one tool look alike.
  return { ownership: internRecord({ lastApplied, managers }) };
}
