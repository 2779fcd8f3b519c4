/**
 * Generator of large clusters for benchmarks and scale tests (issue "Scale to Kubernetes'
 * published limits"). Objects carry realistic weight — labels, annotations, owner references,
 * managedFields, container specs and status — so list and parse costs are real.
 *
 * Reference sizes: S = 50 nodes / 1,500 pods / 200 Services; M = 500 / 15,000 / 1,000;
 * L = 5,000 nodes in 3 zones / 150,000 pods / 10,000 Services / 5,000 HPAs. Every cluster also
 * has one 250-endpoint and one 5,000-endpoint Service (L) for per-Service timings.
 */
import type { KubeObject } from '../types';
import { seeded, suffix } from './builder';

/** Parameters of a generated cluster. */
export interface GeneratorParams {
  readonly nodes: number;
  readonly zones: number;
  readonly services: number;
  /** Total pods (each Service's Deployment gets an equal share, except the big ones). */
  readonly pods: number;
  readonly hpas: number;
  readonly namespaces: number;
  /** Endpoints of the two named large Services (`bench/big-250`, `bench/big-5000`); 0 to skip. */
  readonly bigServices: readonly number[];
  readonly seed: number;
}

/** The reference scales. */
export const SCALES: Readonly<Record<'S' | 'M' | 'L', GeneratorParams>> = {
  S: { nodes: 50, zones: 3, services: 200, pods: 1_500, hpas: 100, namespaces: 10, bigServices: [250], seed: 1 },
  M: { nodes: 500, zones: 3, services: 1_000, pods: 15_000, hpas: 500, namespaces: 40, bigServices: [250, 2_000], seed: 2 },
  L: { nodes: 5_000, zones: 3, services: 10_000, pods: 150_000, hpas: 5_000, namespaces: 100, bigServices: [250, 5_000], seed: 3 },
};

/**
 * Parses `S`, `M`, `L` (optionally `,seed=N`: the same sizes, other names and placements, e.g. for
 * several distinct clusters of one size) or
 * `nodes=…,services=…,pods=…[,hpas=…,zones=…,namespaces=…,seed=…]`. Returns an error message for
 * anything else.
 */
export function parseGeneratorSpec(spec: string): GeneratorParams | string {
  if (spec === 'S' || spec === 'M' || spec === 'L') return SCALES[spec];
  const reseeded = /^([SML]),seed=(\d+)$/.exec(spec);
  if (reseeded?.[1] && reseeded[2]) return { ...SCALES[reseeded[1] as 'S' | 'M' | 'L'], seed: Number(reseeded[2]) };
  const params: Record<string, number> = {};
  for (const part of spec.split(',')) {
    const [key, value] = part.split('=');
    if (!key || value === undefined || !/^\d+$/.test(value)) return `bad generator parameter "${part}" (expected key=integer)`;
    params[key] = Number(value);
  }
  const allowed = ['nodes', 'services', 'pods', 'hpas', 'zones', 'namespaces', 'seed'];
  const unknown = Object.keys(params).find((key) => !allowed.includes(key));
  if (unknown) return `unknown generator parameter "${unknown}" (known: ${allowed.join(', ')})`;
  const nodes = params.nodes ?? 0;
  const services = params.services ?? 0;
  const pods = params.pods ?? 0;
  if (nodes < 1 || services < 1 || pods < services) return 'generator needs nodes ≥ 1, services ≥ 1 and pods ≥ services';
  return {
    nodes,
    services,
    pods,
    hpas: Math.min(params.hpas ?? Math.floor(services / 2), services),
    zones: Math.max(1, params.zones ?? 3),
    namespaces: Math.max(1, params.namespaces ?? Math.ceil(services / 100)),
    bigServices: [],
    seed: params.seed ?? 1,
  };
}

const ZONES = ['us-east-1a', 'us-east-1b', 'us-east-1c', 'us-east-1d', 'us-east-1e', 'us-east-1f'];
const TIME = '2026-10-01T08:00:00Z';

function managedFields(manager: string, fields: Record<string, unknown>): Record<string, unknown>[] {
  return [
    { manager, operation: 'Update', apiVersion: 'v1', time: TIME, fieldsType: 'FieldsV1', fieldsV1: fields },
    { manager: 'kubelet', operation: 'Update', apiVersion: 'v1', time: TIME, fieldsType: 'FieldsV1', subresource: 'status', fieldsV1: { 'f:status': { 'f:conditions': {}, 'f:containerStatuses': {}, 'f:podIP': {}, 'f:podIPs': {} } } },
  ];
}

/** Generates the objects of a cluster (wire form, as a scenario). */
export function generateCluster(params: GeneratorParams): KubeObject[] {
  const random = seeded(params.seed);
  const objects: KubeObject[] = [];
  const zones = ZONES.slice(0, Math.min(params.zones, ZONES.length));
  const nodeNames: string[][] = zones.map(() => []);
  // 1. Nodes: zones get slightly different instance mixes so CPU ratios are unequal.
  for (let i = 0; i < params.nodes; i++) {
    const zi = i % zones.length;
    const zone = zones[zi] ?? 'us-east-1a';
    const name = `ip-10-${Math.floor(i / 65536) % 256}-${Math.floor(i / 256) % 256}-${i % 256}.ec2.internal`;
    const cpu = zi === 0 ? '7910m' : zi === 1 ? '3920m' : '15890m';
    nodeNames[zi]?.push(name);
    objects.push({
      apiVersion: 'v1',
      kind: 'Node',
      metadata: {
        name,
        labels: {
          'kubernetes.io/arch': 'amd64', 'kubernetes.io/os': 'linux', 'kubernetes.io/hostname': name,
          'node.kubernetes.io/instance-type': zi === 0 ? 'm6i.2xlarge' : zi === 1 ? 'm6i.xlarge' : 'm6i.4xlarge',
          'topology.kubernetes.io/region': 'us-east-1', 'topology.kubernetes.io/zone': zone, 'karpenter.sh/nodepool': 'general',
        },
        annotations: { 'node.alpha.kubernetes.io/ttl': '0', 'karpenter.sh/nodepool-hash': suffix(random, 16) },
      },
      spec: { providerID: `aws:///${zone}/i-0${suffix(random, 16)}` },
      status: {
        capacity: { cpu: '8', memory: '32386360Ki', pods: '58' },
        allocatable: { cpu, memory: '31369528Ki', pods: '58' },
        conditions: [{ type: 'Ready', status: 'True', reason: 'KubeletReady', message: 'kubelet is posting ready status', lastHeartbeatTime: TIME, lastTransitionTime: TIME }],
        nodeInfo: { kubeletVersion: 'v1.31.3-eks-59bf375', kubeProxyVersion: 'v1.31.3-eks-59bf375', containerRuntimeVersion: 'containerd://1.7.22', operatingSystem: 'linux', architecture: 'amd64' },
      },
    });
  }
  for (let n = 0; n < params.namespaces; n++) objects.push({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: `team-${n}` } });
  objects.push({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'bench' } });
  objects.push({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'kube-proxy-config', namespace: 'kube-system' },
    data: { config: 'apiVersion: kubeproxy.config.k8s.io/v1alpha1\nkind: KubeProxyConfiguration\nmode: "iptables"\nipvs:\n  scheduler: ""\n' },
  });

  // 2. Services with their Deployment, ReplicaSet and Pods.
  let podIndex = 0;
  const bigTotal = params.bigServices.reduce((a, b) => a + b, 0);
  const regular = Math.max(1, params.services - params.bigServices.length);
  const regularPods = Math.max(regular, params.pods - bigTotal);
  const perService = Math.max(1, Math.floor(regularPods / regular));
  const remainder = regularPods - perService * regular;
  const addService = (namespace: string, name: string, replicas: number, index: number) => {
    const labels = { app: name, 'app.kubernetes.io/name': name, 'app.kubernetes.io/part-of': namespace, tier: index % 2 === 0 ? 'backend' : 'frontend' };
    const hash = suffix(random, 10);
    const rsName = `${name}-${hash}`;
    const deploymentUid = `d-${index.toString(16).padStart(8, '0')}-0000-4000-8000-000000000000`;
    const rsUid = `r-${index.toString(16).padStart(8, '0')}-0000-4000-8000-000000000000`;
    const container = {
      name, image: `123456789012.dkr.ecr.us-east-1.amazonaws.com/${name}:2.${index % 17}.0`,
      ports: [{ name: 'http', containerPort: 8080, protocol: 'TCP' }],
      env: [{ name: 'OTEL_SERVICE_NAME', value: name }, { name: 'LOG_LEVEL', value: 'info' }],
      resources: { requests: { cpu: '100m', memory: '128Mi' }, limits: { memory: '256Mi' } },
      readinessProbe: { httpGet: { path: '/ready', port: 'http' }, periodSeconds: 5 },
    };
    const podSpec = {
      containers: [container], serviceAccountName: name, terminationGracePeriodSeconds: 30,
      topologySpreadConstraints: [{ maxSkew: 1, topologyKey: 'topology.kubernetes.io/zone', whenUnsatisfiable: 'ScheduleAnyway', labelSelector: { matchLabels: labels } }],
    };
    objects.push({
      apiVersion: 'apps/v1', kind: 'Deployment',
      metadata: { name, namespace, uid: deploymentUid, labels, annotations: { 'deployment.kubernetes.io/revision': '3' }, generation: 3 },
      spec: { replicas, selector: { matchLabels: labels }, template: { metadata: { labels }, spec: podSpec } },
      status: { replicas, readyReplicas: replicas, availableReplicas: replicas, updatedReplicas: replicas, observedGeneration: 3 },
    });
    const rsLabels = { ...labels, 'pod-template-hash': hash };
    objects.push({
      apiVersion: 'apps/v1', kind: 'ReplicaSet',
      metadata: { name: rsName, namespace, uid: rsUid, labels: rsLabels, ownerReferences: [{ apiVersion: 'apps/v1', kind: 'Deployment', name, uid: deploymentUid, controller: true, blockOwnerDeletion: true }] },
      spec: { replicas, selector: { matchLabels: rsLabels }, template: { metadata: { labels: rsLabels }, spec: podSpec } },
      status: { replicas, readyReplicas: replicas, availableReplicas: replicas, fullyLabeledReplicas: replicas, observedGeneration: 3 },
    });
    // Pod names of one ReplicaSet are drawn again on a clash (rare: 5 random characters), so that
    // every seed loads; the sizes' own seeds never clash, so their clusters are as before.
    const podNames = new Set<string>();
    const podName = (): string => {
      let candidate = `${rsName}-${suffix(random)}`;
      while (podNames.has(candidate)) candidate = `${rsName}-${suffix(random)}`;
      podNames.add(candidate);
      return candidate;
    };
    for (let p = 0; p < replicas; p++) {
      podIndex++;
      const zi = (p + index) % zones.length;
      const zoneNodes = nodeNames[zi] ?? [];
      const nodeName = zoneNodes[(podIndex * 7919) % Math.max(1, zoneNodes.length)] ?? '';
      const podIP = `10.${64 + Math.floor(podIndex / 65536)}.${Math.floor(podIndex / 256) % 256}.${podIndex % 256}`;
      objects.push({
        apiVersion: 'v1', kind: 'Pod',
        metadata: {
          name: podName(), namespace, labels: rsLabels,
          annotations: { 'kubectl.kubernetes.io/restartedAt': TIME, 'prometheus.io/scrape': 'true', 'prometheus.io/port': '9090' },
          ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: rsName, uid: rsUid, controller: true, blockOwnerDeletion: true }],
          managedFields: managedFields('kube-controller-manager', { 'f:metadata': { 'f:labels': { 'f:app': {}, 'f:pod-template-hash': {} }, 'f:ownerReferences': {} }, 'f:spec': { 'f:containers': { [`k:{"name":"${name}"}`]: {} } } }),
        },
        spec: { ...podSpec, nodeName },
        status: {
          phase: 'Running', podIP, podIPs: [{ ip: podIP }], hostIP: '', startTime: TIME, qosClass: 'Burstable',
          conditions: ['PodReadyToStartContainers', 'Initialized', 'Ready', 'ContainersReady', 'PodScheduled'].map((type) => ({ type, status: 'True', lastTransitionTime: TIME })),
          containerStatuses: [{ name, ready: true, started: true, restartCount: 0, image: container.image, imageID: `${container.image}@sha256:${suffix(random, 32)}`, containerID: `containerd://${suffix(random, 32)}`, state: { running: { startedAt: TIME } } }],
        },
      });
    }
    const annotationRoll = index % 10;
    const annotations: Record<string, string> = annotationRoll < 4 ? { 'service.kubernetes.io/topology-mode': 'Auto' } : {};
    const spec: Record<string, unknown> = {
      type: 'ClusterIP', selector: labels, clusterIP: `172.20.${Math.floor(index / 250) % 256}.${(index % 250) + 2}`, ipFamilies: ['IPv4'], ipFamilyPolicy: 'SingleStack',
      ports: [{ name: 'http', port: 80, targetPort: 8080, protocol: 'TCP' }], internalTrafficPolicy: 'Cluster', sessionAffinity: 'None',
    };
    if (annotationRoll === 4) spec.trafficDistribution = 'PreferClose';
    objects.push({ apiVersion: 'v1', kind: 'Service', metadata: { name, namespace, labels: { app: name }, annotations }, spec });
  };
  params.bigServices.forEach((size, i) => addService('bench', `big-${size}`, size, i));
  for (let s = 0; s < regular; s++) addService(`team-${s % params.namespaces}`, `svc-${s}`, perService + (s < remainder ? 1 : 0), s + params.bigServices.length);

  // 3. HPAs on the first Deployments of each namespace.
  for (let h = 0; h < Math.min(params.hpas, regular); h++) {
    objects.push({
      apiVersion: 'autoscaling/v2', kind: 'HorizontalPodAutoscaler',
      metadata: { name: `svc-${h}`, namespace: `team-${h % params.namespaces}` },
      spec: { scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: `svc-${h}` }, minReplicas: Math.max(1, Math.floor(perService / 2)), maxReplicas: perService * 2, metrics: [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 60 } } }] },
      status: { currentReplicas: perService, desiredReplicas: perService },
    });
  }
  return objects;
}
