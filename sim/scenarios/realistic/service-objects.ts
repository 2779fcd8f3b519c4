/**
 * The realistic cluster's Services as `kubectl get -o json` prints them: a workload's Service
 * (ClusterIP, now and then an AWS NLB LoadBalancer with its annotations and node ports, or
 * headless; sometimes a second one for metrics or headless), Helm annotations or kubectl's
 * last-applied configuration, the topology annotations and `trafficDistribution` some carry;
 * and the Services no Deployment backs — `default/kubernetes` with the API server's slice,
 * selector-less ones with their mirrored slices, ExternalName ones.
 */
import type { KubeObject } from '../../types';
import type { Json } from './catalogue';
import { CLUSTER_CREATED, MANAGED_BY, REGION, SERVICE_NAME } from './catalogue';
import type { Dice } from './dice';
import type { Workload } from './workload-layout';

/** A Service with the selector its slices follow (`null`: none, its slices are not the controller's). */
export interface GeneratedService {
  readonly object: KubeObject;
  readonly selector: Record<string, string> | null;
  readonly headless: boolean;
}

/** The Services so far, their labels (their slices copy them) and the cluster IPs handed out. */
export class ServiceList {
  readonly services: GeneratedService[] = [];
  /** Labels by `namespace/name`. */
  readonly labels = new Map<string, Record<string, string>>();
  private clusterIpIndex = 10;

  /** The next free cluster IP. */
  nextClusterIp(): string {
    this.clusterIpIndex++;
    return `172.20.${Math.floor(this.clusterIpIndex / 250)}.${(this.clusterIpIndex % 250) + 1}`;
  }
}

/** What a workload's Services share with its Deployment. */
export interface ServiceOwner {
  readonly selector: Record<string, string>;
  readonly commonLabels: Record<string, string>;
  readonly helmAnnotations: Record<string, string>;
  /** managedFields manager of the spec (Helm or kubectl). */
  readonly manager: string;
  readonly created: string;
  /** The pods' container ports. */
  readonly ports: readonly Json[];
}

/** The Services of workload number `wi` (CoreDNS's `kube-dns` for the first). */
export function workloadServices(dice: Dice, list: ServiceList, w: Workload, wi: number, owner: ServiceOwner): void {
  const { chance, hex, int, pick, random, uid } = dice;
  const { selector, commonLabels, helmAnnotations, manager, created, ports } = owner;
  const addService = (name: string, kind: 'ClusterIP' | 'LoadBalancer' | 'headless', servicePorts: Json[]): void => {
    const annotations: Record<string, string> = { ...helmAnnotations };
    const spec: Json = { ports: servicePorts, selector, sessionAffinity: chance(0.03) ? 'ClientIP' : 'None', type: kind === 'LoadBalancer' ? 'LoadBalancer' : 'ClusterIP', internalTrafficPolicy: 'Cluster', ipFamilies: ['IPv4'], ipFamilyPolicy: 'SingleStack' };
    const ip = kind === 'headless' ? 'None' : wi === 0 ? '172.20.0.10' : list.nextClusterIp();
    spec.clusterIP = ip;
    spec.clusterIPs = [ip];
    if (spec.sessionAffinity === 'ClientIP') spec.sessionAffinityConfig = { clientIP: { timeoutSeconds: 10800 } };
    const status: Json = { loadBalancer: {} };
    if (kind === 'LoadBalancer') {
      Object.assign(annotations, { 'service.beta.kubernetes.io/aws-load-balancer-type': 'external', 'service.beta.kubernetes.io/aws-load-balancer-nlb-target-type': chance(0.5) ? 'ip' : 'instance', 'service.beta.kubernetes.io/aws-load-balancer-scheme': chance(0.5) ? 'internet-facing' : 'internal' });
      Object.assign(spec, { allocateLoadBalancerNodePorts: true, externalTrafficPolicy: chance(0.4) ? 'Local' : 'Cluster', loadBalancerClass: 'service.k8s.aws/nlb' });
      (spec.ports as Json[]).forEach((p) => (p.nodePort = int(30000, 32767)));
      if (spec.externalTrafficPolicy === 'Local') spec.healthCheckNodePort = int(30000, 32767);
      status.loadBalancer = { ingress: [{ hostname: `k8s-${w.namespace.slice(0, 8)}-${name.slice(0, 8)}-${hex(10)}.elb.${REGION}.amazonaws.com` }] };
    }
    const topology = random();
    if (topology < 0.14) annotations['service.kubernetes.io/topology-mode'] = 'Auto';
    else if (topology < 0.17) annotations['service.kubernetes.io/topology-aware-hints'] = 'auto';
    else if (topology < 0.25) spec.trafficDistribution = 'PreferClose';
    const labels = { ...commonLabels };
    if (!w.helm && wi !== 0) annotations['kubectl.kubernetes.io/last-applied-configuration'] = `${JSON.stringify({ apiVersion: 'v1', kind: 'Service', metadata: { annotations: {}, labels, name, namespace: w.namespace }, spec: { ports: servicePorts, selector, type: spec.type } })}\n`;
    const created2 = created;
    const object: KubeObject = {
      apiVersion: 'v1', kind: 'Service',
      metadata: {
        name, namespace: w.namespace, uid: uid(), resourceVersion: String(int(1_000_000, 99_999_999)), creationTimestamp: created2, labels, annotations,
        managedFields: [
          { manager, operation: 'Update', apiVersion: 'v1', time: created2, fieldsType: 'FieldsV1', fieldsV1: { 'f:metadata': { 'f:annotations': {}, 'f:labels': {} }, 'f:spec': { 'f:internalTrafficPolicy': {}, 'f:ports': {}, 'f:selector': {}, 'f:sessionAffinity': {}, 'f:type': {} } } },
          ...(kind === 'LoadBalancer' ? [{ manager: 'aws-load-balancer-controller', operation: 'Update', apiVersion: 'v1', time: created2, fieldsType: 'FieldsV1', subresource: 'status', fieldsV1: { 'f:status': { 'f:loadBalancer': { 'f:ingress': {} } } } }] : []),
        ],
      } as KubeObject['metadata'],
      spec,
      status,
    };
    list.services.push({ object, selector, headless: kind === 'headless' });
    list.labels.set(`${w.namespace}/${name}`, labels);
  };
  const servicePorts = ports.filter((p) => p.name !== 'metrics').map((p, i) => ({
    name: String(p.name), port: p.name === 'http' ? pick([80, 8080, 443]) : Number(p.containerPort), protocol: 'TCP',
    targetPort: i === 0 && chance(0.6) ? String(p.name) : Number(p.containerPort),
  }));
  if (wi === 0) {
    addService('kube-dns', 'ClusterIP', [{ name: 'dns', port: 53, protocol: 'UDP', targetPort: 53 }, { name: 'dns-tcp', port: 53, protocol: 'TCP', targetPort: 53 }, { name: 'metrics', port: 9153, protocol: 'TCP', targetPort: 9153 }]);
  } else {
    const kindRoll = random();
    addService(w.name, kindRoll < 0.03 ? 'LoadBalancer' : kindRoll < 0.07 ? 'headless' : 'ClusterIP', servicePorts);
  }
  if (wi !== 0 && chance(0.05)) {
    const metrics = ports.find((p) => p.name === 'metrics');
    if (metrics) addService(`${w.name}-metrics`, 'ClusterIP', [{ name: 'metrics', port: Number(metrics.containerPort), protocol: 'TCP', targetPort: 'metrics' }]);
    else addService(`${w.name}-headless`, 'headless', servicePorts.map((p) => ({ ...p })));
  }
}

/**
 * `default/kubernetes`, the selector-less Services (their EndpointSlices mirrored from Endpoints)
 * and the ExternalName ones; returns the slices that are not the EndpointSlice controller's.
 */
export function specialServices(dice: Dice, list: ServiceList, namespaceNames: readonly string[], serviceCount: number): KubeObject[] {
  const { hex, generated, int, past, pick, uid } = dice;
  // 3c. Services without Deployments: default/kubernetes, selector-less (mirrored Endpoints), ExternalName.
  const apiServerSlice: KubeObject = {
    apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice',
    metadata: { name: 'kubernetes', namespace: 'default', uid: uid(), resourceVersion: String(int(1_000_000, 99_999_999)), generation: 1, creationTimestamp: CLUSTER_CREATED, labels: { [SERVICE_NAME]: 'kubernetes' }, managedFields: [{ manager: 'kube-apiserver', operation: 'Update', apiVersion: 'discovery.k8s.io/v1', time: CLUSTER_CREATED, fieldsType: 'FieldsV1', fieldsV1: { 'f:addressType': {}, 'f:endpoints': {}, 'f:metadata': { 'f:labels': { '.': {}, 'f:kubernetes.io/service-name': {} } }, 'f:ports': {} } }] } as KubeObject['metadata'],
    addressType: 'IPv4',
    endpoints: [{ addresses: ['10.0.120.17'], conditions: { ready: true } }, { addresses: ['10.16.88.201'], conditions: { ready: true } }],
    ports: [{ name: 'https', port: 443, protocol: 'TCP' }],
  };
  list.services.push({
    object: {
      apiVersion: 'v1', kind: 'Service',
      metadata: { name: 'kubernetes', namespace: 'default', uid: uid(), resourceVersion: '198', creationTimestamp: CLUSTER_CREATED, labels: { component: 'apiserver', provider: 'kubernetes' } },
      spec: { clusterIP: '172.20.0.1', clusterIPs: ['172.20.0.1'], internalTrafficPolicy: 'Cluster', ipFamilies: ['IPv4'], ipFamilyPolicy: 'SingleStack', ports: [{ name: 'https', port: 443, protocol: 'TCP', targetPort: 443 }], sessionAffinity: 'None', type: 'ClusterIP' },
      status: { loadBalancer: {} },
    },
    selector: null, headless: false,
  });
  const mirrored: KubeObject[] = [apiServerSlice];
  const selectorless = Math.max(1, Math.round(serviceCount * 0.02));
  for (let i = 0; i < selectorless; i++) {
    const namespace = namespaceNames[i % namespaceNames.length] ?? 'default';
    const name = `${pick(['postgres', 'redis', 'kafka', 'legacy', 'vault'])}-external-${i}`;
    const port = pick([5432, 6379, 9092, 8200]);
    list.services.push({
      object: {
        apiVersion: 'v1', kind: 'Service',
        metadata: { name, namespace, uid: uid(), resourceVersion: String(int(1_000_000, 99_999_999)), creationTimestamp: past(300), labels: { app: name } },
        spec: { clusterIP: list.nextClusterIp(), clusterIPs: [], internalTrafficPolicy: 'Cluster', ipFamilies: ['IPv4'], ipFamilyPolicy: 'SingleStack', ports: [{ name: 'tcp', port, protocol: 'TCP', targetPort: port }], sessionAffinity: 'None', type: 'ClusterIP' },
        status: { loadBalancer: {} },
      },
      selector: null, headless: false,
    });
    const svc = list.services[list.services.length - 1]?.object;
    if (svc) (svc.spec as Json).clusterIPs = [(svc.spec as Json).clusterIP];
    mirrored.push({
      apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice',
      metadata: {
        name: generated('EndpointSlice', namespace, name), generateName: `${name}-`, namespace, uid: uid(), resourceVersion: String(int(1_000_000, 99_999_999)), generation: 1, creationTimestamp: past(300),
        labels: { app: name, [MANAGED_BY]: 'endpointslicemirroring-controller.k8s.io', [SERVICE_NAME]: name, 'endpointslice.kubernetes.io/skip-mirror': 'true' },
        annotations: { 'endpoints.kubernetes.io/last-change-trigger-time': past(300) },
      } as KubeObject['metadata'],
      addressType: 'IPv4',
      endpoints: [{ addresses: [`10.200.${i % 250}.${int(2, 250)}`], conditions: { ready: true } }],
      ports: [{ name: 'tcp', port, protocol: 'TCP' }],
    });
  }
  const externalNames = Math.max(1, Math.round(serviceCount * 0.01));
  for (let i = 0; i < externalNames; i++) {
    const namespace = namespaceNames[(i * 3) % namespaceNames.length] ?? 'default';
    const name = `${pick(['rds', 'elasticache', 'partner', 'billing-legacy'])}-${i}`;
    list.services.push({
      object: {
        apiVersion: 'v1', kind: 'Service',
        metadata: { name, namespace, uid: uid(), resourceVersion: String(int(1_000_000, 99_999_999)), creationTimestamp: past(300), labels: { app: name } },
        spec: { externalName: `${name}.${hex(12)}.${REGION}.rds.amazonaws.com`, sessionAffinity: 'None', type: 'ExternalName' },
        status: { loadBalancer: {} },
      },
      selector: null, headless: false,
    });
  }
  return mirrored;
}
