/**
 * Generator of realistic EKS cluster dumps (`generated:realistic-S|M|L`): objects shaped as
 * `kubectl get -o json` prints them on a real EKS cluster — managedFields, Helm labels and
 * annotations, `kubectl.kubernetes.io/last-applied-configuration` on kubectl-applied objects,
 * full pod specs with the fields admission adds (service-account token volume, default
 * tolerations), statuses, Nodes with EKS/Karpenter labels, taints, image lists and
 * allocatable/capacity, Deployments with their current and old ReplicaSets (pod-template-hash),
 * HPAs (autoscaling/v2), Services of every kind and the EndpointSlices the EndpointSlice
 * controller would have written for them, with topology hints computed by zonescope's engine.
 *
 * Unlike `generated:S|M|L` (equal Services in equal zones, for benchmarks), this one is built to
 * be untidy the way production is: uneven zones (3 or 4, with skewed node counts), long-tailed
 * replica counts, spread and unspread workloads, NotReady and terminating Pods, NotReady and
 * cordoned Nodes, tainted node groups, and almost every Service of a distinct shape. The dump is
 * consistent — what the cluster's controllers would leave at rest — so a simulator loading it
 * has nothing to do. Deterministic: the same parameters give the same objects.
 */
import { stringMap } from '../../lib/k8s/wire-to-record/json';
import { projectNode } from '../../lib/k8s/wire-to-record/node';
import { endpointFromWire, hintsToWire } from '../../lib/k8s/wire-to-record/endpoint-slice';
import { reconcileTopologyHints } from '../../lib/topology/upstream/reconciler';
import { TopologyCache } from '../../lib/topology/upstream/topology-cache';
import type { EndpointSlice, TopologyEvent, TopologyNode } from '../../lib/topology/upstream/types';
import { parseKubeMinor, resolveFeatureGates } from '../../lib/topology/upstream/version';
import type { KubeObject } from '../types';
import { seeded, suffix } from './builder';

/** Parameters of a realistic cluster. */
export interface RealisticParams {
  readonly nodes: number;
  /** Relative node count per zone (3 or 4 zones; skewed). */
  readonly zoneWeights: readonly number[];
  /** Services in total (selector-based, selector-less, ExternalName, `default/kubernetes`). */
  readonly services: number;
  /** Pods in total, DaemonSet pods included (approximately: terminating extras come on top). */
  readonly pods: number;
  /** Application namespaces (besides kube-system and default). */
  readonly namespaces: number;
  readonly seed: number;
}

/** The reference sizes. */
export const REALISTIC_SCALES: Readonly<Record<'S' | 'M' | 'L', RealisticParams>> = {
  S: { nodes: 50, zoneWeights: [0.5, 0.3, 0.2], services: 100, pods: 1_000, namespaces: 8, seed: 11 },
  M: { nodes: 500, zoneWeights: [0.4, 0.3, 0.2, 0.1], services: 1_000, pods: 15_000, namespaces: 30, seed: 12 },
  L: { nodes: 5_000, zoneWeights: [0.38, 0.32, 0.2, 0.1], services: 10_000, pods: 150_000, namespaces: 120, seed: 13 },
};

/** The Kubernetes version a realistic dump is served as. */
export const REALISTIC_SERVER_VERSION = 'v1.31.4-eks-2d98532';

/** Parses `S`, `M` or `L` (the part after `realistic-`); returns an error message for anything else. */
export function parseRealisticSpec(spec: string): RealisticParams | string {
  if (spec === 'S' || spec === 'M' || spec === 'L') return REALISTIC_SCALES[spec];
  return `unknown realistic size "${spec}" (expected realistic-S, realistic-M or realistic-L)`;
}

const REGION = 'us-east-1';
const ZONES = ['us-east-1a', 'us-east-1b', 'us-east-1c', 'us-east-1d'];
const ZONE_IDS = ['use1-az4', 'use1-az6', 'use1-az1', 'use1-az2'];
const ECR = '123456789012.dkr.ecr.us-east-1.amazonaws.com';
const EKS_ECR = '602401143452.dkr.ecr.us-east-1.amazonaws.com';
const KUBELET_VERSION = 'v1.31.4-eks-aeac579';
const CLUSTER_CREATED = '2025-03-14T09:12:41Z';
const NOW = '2026-11-01T08:00:00Z';
const MAX_ENDPOINTS_PER_SLICE = 100;
const MANAGED_BY = 'endpointslice.kubernetes.io/managed-by';
const SERVICE_NAME = 'kubernetes.io/service-name';
const CONTROLLER = 'endpointslice-controller.k8s.io';

type Json = Record<string, unknown>;

interface InstanceType {
  name: string;
  cpu: number;
  allocatableCpu: string;
  memoryKi: number;
  allocatableMemoryKi: number;
  pods: number;
  arch: 'amd64' | 'arm64';
}

const INSTANCE_TYPES: Record<string, InstanceType> = {
  'm6i.large': { name: 'm6i.large', cpu: 2, allocatableCpu: '1930m', memoryKi: 7910380, allocatableMemoryKi: 7220204, pods: 29, arch: 'amd64' },
  'm6i.xlarge': { name: 'm6i.xlarge', cpu: 4, allocatableCpu: '3920m', memoryKi: 15896812, allocatableMemoryKi: 14880748, pods: 58, arch: 'amd64' },
  'm6i.2xlarge': { name: 'm6i.2xlarge', cpu: 8, allocatableCpu: '7910m', memoryKi: 32386360, allocatableMemoryKi: 31369528, pods: 58, arch: 'amd64' },
  'c6i.4xlarge': { name: 'c6i.4xlarge', cpu: 16, allocatableCpu: '15890m', memoryKi: 32387352, allocatableMemoryKi: 30654232, pods: 234, arch: 'amd64' },
  'm7g.2xlarge': { name: 'm7g.2xlarge', cpu: 8, allocatableCpu: '7910m', memoryKi: 32366232, allocatableMemoryKi: 31349400, pods: 58, arch: 'arm64' },
  'r6i.xlarge': { name: 'r6i.xlarge', cpu: 4, allocatableCpu: '3920m', memoryKi: 32388420, allocatableMemoryKi: 31372356, pods: 58, arch: 'amd64' },
  'g5.2xlarge': { name: 'g5.2xlarge', cpu: 8, allocatableCpu: '7910m', memoryKi: 32386360, allocatableMemoryKi: 31369528, pods: 58, arch: 'amd64' },
};

interface Taint {
  key: string;
  value?: string;
  effect: 'NoSchedule' | 'NoExecute' | 'PreferNoSchedule';
  timeAdded?: string;
}

interface GenNode {
  name: string;
  zoneIndex: number;
  ip: string;
  ready: boolean;
  unschedulable: boolean;
  taints: Taint[];
  pool: string;
  capacityType: 'ON_DEMAND' | 'SPOT';
  type: InstanceType;
}

interface Toleration {
  key?: string;
  operator: 'Equal' | 'Exists';
  value?: string;
  effect?: string;
  tolerationSeconds?: number;
}

/** Whether a pod with these tolerations may be scheduled on a node with these taints (NoSchedule/NoExecute). */
function tolerates(tolerations: readonly Toleration[], taints: readonly Taint[]): boolean {
  return taints.every((taint) => taint.effect === 'PreferNoSchedule' || tolerations.some((t) => {
    if (t.effect !== undefined && t.effect !== '' && t.effect !== taint.effect) return false;
    if (t.operator === 'Exists') return t.key === undefined || t.key === '' || t.key === taint.key;
    return t.key === taint.key && (t.value ?? '') === (taint.value ?? '');
  }));
}

/** kube-controller-manager's pod-template-hash alphabet and length. */
function templateHash(text: string): string {
  let hash = 2166136261;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 16777619);
  }
  const alphabet = 'bcdfghjklmnpqrstvwxz2456789';
  let value = hash >>> 0;
  let out = '';
  for (let i = 0; i < 10; i++) {
    out += alphabet[value % alphabet.length];
    value = Math.floor(value / alphabet.length) + ((hash >>> (i % 24)) & 0xff) * (i + 1);
  }
  return out;
}

const WORDS_A = ['payments', 'checkout', 'catalog', 'search', 'identity', 'ledger', 'shipping', 'pricing', 'inventory', 'orders', 'reviews', 'ads', 'fraud', 'notify', 'media', 'loyalty', 'billing', 'profile', 'risk', 'growth'];
const WORDS_B = ['api', 'worker', 'gateway', 'cache', 'indexer', 'scheduler', 'consumer', 'frontend', 'backend', 'sync', 'router', 'exporter', 'auth', 'store', 'stream', 'batch', 'proxy', 'reader', 'writer', 'admin'];
const SIDECARS = [
  { name: 'fluent-bit', image: 'public.ecr.aws/aws-observability/aws-for-fluent-bit:2.32.4', cpu: '20m', memory: '64Mi' },
  { name: 'envoy', image: 'public.ecr.aws/appmesh/aws-appmesh-envoy:v1.29.6.0-prod', cpu: '50m', memory: '128Mi' },
  { name: 'datadog-agent', image: 'public.ecr.aws/datadog/agent:7.59.0', cpu: '30m', memory: '96Mi' },
];

/** Generates a realistic cluster (wire form, as `kubectl get -o json` items). */
export function generateRealisticCluster(params: RealisticParams): KubeObject[] {
  const random = seeded(params.seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
  const chance = (p: number): boolean => random() < p;
  const int = (lo: number, hi: number): number => lo + Math.floor(random() * (hi - lo + 1));
  const hex = (n: number): string => {
    let out = '';
    for (let i = 0; i < n; i++) out += '0123456789abcdef'[Math.floor(random() * 16)];
    return out;
  };
  const uid = (): string => `${hex(8)}-${hex(4)}-4${hex(3)}-${'89ab'[int(0, 3)]}${hex(3)}-${hex(12)}`;
  /** `prefix-xxxxx`, unique within its kind and namespace (the API server retries generateName clashes). */
  const taken = new Set<string>();
  const generated = (kind: string, namespace: string, prefix: string): string => {
    for (;;) {
      const name = `${prefix}-${suffix(random)}`;
      const key = `${kind}/${namespace}/${name}`;
      if (!taken.has(key)) {
        taken.add(key);
        return name;
      }
    }
  };
  const past = (maxDays: number): string => {
    const t = Date.parse(NOW) - Math.floor(random() * maxDays * 86_400_000);
    return new Date(Math.floor(t / 1000) * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
  };

  const objects: KubeObject[] = [];
  const zoneCount = Math.min(params.zoneWeights.length, ZONES.length);
  const zones = ZONES.slice(0, zoneCount);
  const weightSum = params.zoneWeights.slice(0, zoneCount).reduce((a, b) => a + b, 0);

  // 1. Nodes: node groups, zones assigned by largest deficit so every group is skewed alike.
  const nodes: GenNode[] = [];
  const zoneTarget = zones.map((_, z) => ((params.zoneWeights[z] ?? 0) / weightSum) * params.nodes);
  const zoneAssigned = zones.map(() => 0);
  const nodesPerZoneIp = zones.map(() => 0);
  const groups = [
    { pool: 'system', share: 0.05, min: 2, types: ['m6i.large'], taints: [{ key: 'CriticalAddonsOnly', value: 'true', effect: 'NoSchedule' as const }], karpenter: false },
    { pool: 'gpu', share: 0.02, min: 1, types: ['g5.2xlarge'], taints: [{ key: 'nvidia.com/gpu', value: 'true', effect: 'NoSchedule' as const }], karpenter: false },
    { pool: 'batch', share: 0.08, min: 2, types: ['c6i.4xlarge'], taints: [{ key: 'workload', value: 'batch', effect: 'NoSchedule' as const }], karpenter: true },
    { pool: 'default', share: 0.4, min: 10, types: ['m6i.2xlarge', 'c6i.4xlarge', 'm7g.2xlarge', 'r6i.xlarge'], taints: [], karpenter: true },
    { pool: 'general', share: 1, min: 0, types: ['m6i.xlarge', 'm6i.2xlarge'], taints: [], karpenter: false },
  ];
  let remaining = params.nodes;
  for (const group of groups) {
    const count = group.pool === 'general' ? remaining : Math.min(remaining, Math.max(group.min, Math.round(params.nodes * group.share)));
    remaining -= count;
    for (let i = 0; i < count; i++) {
      let zi = 0;
      let best = -Infinity;
      for (let z = 0; z < zoneCount; z++) {
        const deficit = (zoneTarget[z] ?? 0) - (zoneAssigned[z] ?? 0);
        if (deficit > best) {
          best = deficit;
          zi = z;
        }
      }
      zoneAssigned[zi] = (zoneAssigned[zi] ?? 0) + 1;
      const n = (nodesPerZoneIp[zi] = (nodesPerZoneIp[zi] ?? 0) + 1);
      const ip = `10.${zi * 16}.${Math.floor(n / 250)}.${(n % 250) + 4}`;
      const type = INSTANCE_TYPES[pick(group.types)] ?? (INSTANCE_TYPES['m6i.xlarge'] as InstanceType);
      nodes.push({
        name: `ip-${ip.replaceAll('.', '-')}.ec2.internal`, zoneIndex: zi, ip, ready: true, unschedulable: false,
        taints: group.taints.map((t) => ({ ...t })), pool: group.pool, capacityType: group.karpenter && chance(0.4) ? 'SPOT' : 'ON_DEMAND', type,
      });
    }
  }
  // A few NotReady (unreachable) and cordoned general nodes.
  const general = nodes.filter((n) => n.pool === 'general' || n.pool === 'default');
  const notReady = Math.max(1, Math.round(params.nodes * 0.01));
  for (let i = 0; i < notReady && i < general.length; i++) {
    const node = general[(i * 7 + 3) % general.length] as GenNode;
    node.ready = false;
    const since = past(1);
    node.taints.push({ key: 'node.kubernetes.io/unreachable', effect: 'NoSchedule', timeAdded: since }, { key: 'node.kubernetes.io/unreachable', effect: 'NoExecute', timeAdded: since });
  }
  const cordoned = Math.max(1, Math.round(params.nodes * 0.005));
  for (let i = 0; i < cordoned && i < general.length; i++) {
    const node = general[(i * 11 + 5) % general.length] as GenNode;
    if (!node.ready || node.unschedulable) continue;
    node.unschedulable = true;
    node.taints.push({ key: 'node.kubernetes.io/unschedulable', effect: 'NoSchedule', timeAdded: past(2) });
  }

  // The image catalogue nodes pull from.
  const systemImages = [
    `${EKS_ECR}/amazon-k8s-cni:v1.19.2-eksbuild.1`, `${EKS_ECR}/amazon-k8s-cni-init:v1.19.2-eksbuild.1`, `${EKS_ECR}/amazon/aws-network-policy-agent:v1.1.6-eksbuild.1`,
    `${EKS_ECR}/eks/kube-proxy:v1.31.3-minimal-eksbuild.2`, `${EKS_ECR}/eks/pause:3.5`, `${EKS_ECR}/eks/aws-ebs-csi-driver:v1.38.1`,
    `${EKS_ECR}/eks/csi-node-driver-registrar:v2.12.0-eks-1-31-11`, `${EKS_ECR}/eks/livenessprobe:v2.14.0-eks-1-31-11`, `${EKS_ECR}/eks/coredns:v1.11.4-eksbuild.2`,
  ];
  const appImages: string[] = [];
  for (let i = 0; i < 90; i++) appImages.push(`${ECR}/${WORDS_A[i % WORDS_A.length]}-${WORDS_B[(i * 7) % WORDS_B.length]}:${int(1, 4)}.${int(0, 40)}.${int(0, 9)}`);
  for (const s of SIDECARS) appImages.push(s.image);
  const digest = new Map<string, string>();
  const digestOf = (image: string): string => {
    let d = digest.get(image);
    if (d === undefined) {
      d = hex(64);
      digest.set(image, d);
    }
    return d;
  };
  const imageEntry = (image: string) => {
    const repo = image.slice(0, image.lastIndexOf(':'));
    return { names: [`${repo}@sha256:${digestOf(image)}`, image], sizeBytes: int(2_000_000, 450_000_000) };
  };

  for (const node of nodes) {
    const zone = zones[node.zoneIndex] ?? REGION;
    const t = node.type;
    const created = past(60);
    const labels: Record<string, string> = {
      'beta.kubernetes.io/arch': t.arch, 'beta.kubernetes.io/instance-type': t.name, 'beta.kubernetes.io/os': 'linux',
      'failure-domain.beta.kubernetes.io/region': REGION, 'failure-domain.beta.kubernetes.io/zone': zone,
      'k8s.io/cloud-provider-aws': 'a94967527effcefb5f5829f529c0a1b9', 'kubernetes.io/arch': t.arch, 'kubernetes.io/hostname': node.name,
      'kubernetes.io/os': 'linux', 'node.kubernetes.io/instance-type': t.name, 'topology.k8s.aws/zone-id': ZONE_IDS[node.zoneIndex] ?? '',
      'topology.kubernetes.io/region': REGION, 'topology.kubernetes.io/zone': zone,
    };
    const annotations: Record<string, string> = {
      'alpha.kubernetes.io/provided-node-ip': node.ip, 'node.alpha.kubernetes.io/ttl': '0', 'volumes.kubernetes.io/controller-managed-attach-detach': 'true',
    };
    const karpenter = node.pool === 'default' || node.pool === 'batch';
    if (karpenter) {
      Object.assign(labels, {
        'karpenter.sh/nodepool': node.pool, 'karpenter.sh/capacity-type': node.capacityType === 'SPOT' ? 'spot' : 'on-demand', 'karpenter.sh/initialized': 'true', 'karpenter.sh/registered': 'true',
        'karpenter.k8s.aws/instance-family': t.name.split('.')[0] ?? '', 'karpenter.k8s.aws/instance-cpu': String(t.cpu), 'karpenter.k8s.aws/ec2nodeclass': 'default',
      });
      Object.assign(annotations, { 'karpenter.k8s.aws/ec2nodeclass-hash': String(int(1e15, 9e15)), 'karpenter.sh/nodepool-hash': String(int(1e15, 9e15)), 'karpenter.sh/nodepool-hash-version': 'v3' });
    } else {
      Object.assign(labels, {
        'eks.amazonaws.com/capacityType': node.capacityType, 'eks.amazonaws.com/nodegroup': `${node.pool}-20250314091241${node.pool.length}`,
        'eks.amazonaws.com/nodegroup-image': `ami-0${hex(16)}`, 'eks.amazonaws.com/sourceLaunchTemplateId': `lt-0${hex(16)}`, 'eks.amazonaws.com/sourceLaunchTemplateVersion': '3',
      });
    }
    if (node.pool === 'gpu') labels['nvidia.com/gpu.present'] = 'true';
    const images = [...systemImages, ...Array.from({ length: int(12, 32) }, () => pick(appImages))].filter((v, i, a) => a.indexOf(v) === i).map(imageEntry);
    const instance = `i-0${hex(16)}`;
    const heartbeat = NOW;
    const capacity = { cpu: String(t.cpu), 'ephemeral-storage': '104845292Ki', 'hugepages-1Gi': '0', 'hugepages-2Mi': '0', memory: `${t.memoryKi}Ki`, pods: String(t.pods) };
    const allocatable = { cpu: t.allocatableCpu, 'ephemeral-storage': '95551679124', 'hugepages-1Gi': '0', 'hugepages-2Mi': '0', memory: `${t.allocatableMemoryKi}Ki`, pods: String(t.pods) };
    if (node.pool === 'gpu') {
      Object.assign(capacity, { 'nvidia.com/gpu': '1' });
      Object.assign(allocatable, { 'nvidia.com/gpu': '1' });
    }
    const ready = node.ready
      ? { type: 'Ready', status: 'True', lastHeartbeatTime: heartbeat, lastTransitionTime: created, reason: 'KubeletReady', message: 'kubelet is posting ready status' }
      : { type: 'Ready', status: 'Unknown', lastHeartbeatTime: past(1), lastTransitionTime: past(1), reason: 'NodeStatusUnknown', message: 'Kubelet stopped posting node status.' };
    const spec: Json = { providerID: `aws:///${zone}/${instance}` };
    if (node.taints.length > 0) spec.taints = node.taints.map((taint) => ({ ...taint }));
    if (node.unschedulable) spec.unschedulable = true;
    objects.push({
      apiVersion: 'v1', kind: 'Node',
      metadata: {
        name: node.name, uid: uid(), resourceVersion: String(int(1_000_000, 99_999_999)), creationTimestamp: created, labels, annotations,
        managedFields: [
          { manager: 'kubelet', operation: 'Update', apiVersion: 'v1', time: created, fieldsType: 'FieldsV1', fieldsV1: { 'f:metadata': { 'f:annotations': { '.': {}, 'f:alpha.kubernetes.io/provided-node-ip': {}, 'f:volumes.kubernetes.io/controller-managed-attach-detach': {} }, 'f:labels': { '.': {}, 'f:kubernetes.io/arch': {}, 'f:kubernetes.io/hostname': {}, 'f:kubernetes.io/os': {} } }, 'f:spec': { 'f:providerID': {} } } },
          { manager: karpenter ? 'karpenter' : 'aws-cloud-controller-manager', operation: 'Update', apiVersion: 'v1', time: created, fieldsType: 'FieldsV1', fieldsV1: { 'f:metadata': { 'f:labels': { 'f:topology.kubernetes.io/region': {}, 'f:topology.kubernetes.io/zone': {}, 'f:node.kubernetes.io/instance-type': {} } } } },
          { manager: 'kube-controller-manager', operation: 'Update', apiVersion: 'v1', time: created, fieldsType: 'FieldsV1', fieldsV1: { 'f:metadata': { 'f:annotations': { 'f:node.alpha.kubernetes.io/ttl': {} } } } },
          { manager: 'kubelet', operation: 'Update', apiVersion: 'v1', time: heartbeat, fieldsType: 'FieldsV1', subresource: 'status', fieldsV1: { 'f:status': { 'f:allocatable': {}, 'f:capacity': {}, 'f:conditions': {}, 'f:images': {}, 'f:nodeInfo': {} } } },
        ],
      },
      spec,
      status: {
        addresses: [
          { type: 'InternalIP', address: node.ip }, { type: 'InternalDNS', address: node.name }, { type: 'Hostname', address: node.name },
        ],
        allocatable, capacity,
        conditions: [
          { type: 'MemoryPressure', status: node.ready ? 'False' : 'Unknown', lastHeartbeatTime: heartbeat, lastTransitionTime: created, reason: 'KubeletHasSufficientMemory', message: 'kubelet has sufficient memory available' },
          { type: 'DiskPressure', status: node.ready ? 'False' : 'Unknown', lastHeartbeatTime: heartbeat, lastTransitionTime: created, reason: 'KubeletHasNoDiskPressure', message: 'kubelet has no disk pressure' },
          { type: 'PIDPressure', status: node.ready ? 'False' : 'Unknown', lastHeartbeatTime: heartbeat, lastTransitionTime: created, reason: 'KubeletHasSufficientPID', message: 'kubelet has sufficient PID available' },
          ready,
        ],
        daemonEndpoints: { kubeletEndpoint: { Port: 10250 } },
        images,
        nodeInfo: {
          architecture: t.arch, bootID: uid(), containerRuntimeVersion: 'containerd://1.7.25', kernelVersion: '6.1.119-129.201.amzn2023.x86_64',
          kubeProxyVersion: KUBELET_VERSION, kubeletVersion: KUBELET_VERSION, machineID: hex(32), operatingSystem: 'linux',
          osImage: 'Amazon Linux 2023.6.20250107', systemUUID: `ec2${hex(5)}-${hex(4)}-${hex(4)}-${hex(4)}-${hex(12)}`,
        },
      },
    });
  }

  // 2. Namespaces: a long tail of team sizes.
  const namespaceNames: string[] = [];
  for (let n = 0; n < params.namespaces; n++) {
    const base = `${WORDS_A[n % WORDS_A.length]}${n >= WORDS_A.length ? `-${WORDS_B[Math.floor(n / WORDS_A.length) % WORDS_B.length]}` : ''}`;
    namespaceNames.push(n >= WORDS_A.length * WORDS_B.length ? `${base}-${n}` : base);
  }
  const namespaceWeights = namespaceNames.map((_, i) => 1 / Math.sqrt(i + 1));
  const namespaceWeightSum = namespaceWeights.reduce((a, b) => a + b, 0);
  for (const name of ['default', 'kube-system', 'kube-public', 'kube-node-lease', ...namespaceNames]) {
    const labels: Record<string, string> = { 'kubernetes.io/metadata.name': name };
    if (!name.startsWith('kube') && name !== 'default') Object.assign(labels, { 'app.kubernetes.io/managed-by': 'Helm', 'team': name.split('-')[0] ?? name });
    objects.push({
      apiVersion: 'v1', kind: 'Namespace',
      metadata: { name, uid: uid(), resourceVersion: String(int(1000, 99_999)), creationTimestamp: name.startsWith('kube') || name === 'default' ? CLUSTER_CREATED : past(400), labels, managedFields: [{ manager: 'helm', operation: 'Update', apiVersion: 'v1', time: past(400), fieldsType: 'FieldsV1', fieldsV1: { 'f:metadata': { 'f:labels': { '.': {}, 'f:kubernetes.io/metadata.name': {} } } } }] },
      spec: { finalizers: ['kubernetes'] },
      status: { phase: 'Active' },
    });
  }

  // 3. Pods: placement helpers, shared by DaemonSets and Deployments.
  const podsOnNode = new Map<string, number>();
  const zonePodIps = zones.map(() => 0);
  const nextPodIp = (zoneIndex: number): string => {
    const n = (zonePodIps[zoneIndex] = (zonePodIps[zoneIndex] ?? 0) + 1);
    return `10.${zoneIndex * 16 + 1 + Math.floor(n / 64_000)}.${Math.floor((n % 64_000) / 250)}.${(n % 250) + 4}`;
  };
  const schedulable = (node: GenNode, tolerations: readonly Toleration[]): boolean => node.ready && !node.unschedulable && tolerates(tolerations, node.taints);
  const DEFAULT_TOLERATIONS: Toleration[] = [
    { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
    { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
  ];
  const nodesByZone = zones.map((_, z) => nodes.filter((n) => n.zoneIndex === z));
  const endpointsIndex = new Map<string, { labels: Record<string, string>; pod: KubeObject; containerPorts: Record<string, number> }[]>();
  const podRecord = (namespace: string, pod: KubeObject, labels: Record<string, string>, containerPorts: Record<string, number>) => {
    let list = endpointsIndex.get(namespace);
    if (list === undefined) {
      list = [];
      endpointsIndex.set(namespace, list);
    }
    list.push({ labels, pod, containerPorts });
  };
  let podTotal = 0;

  interface PodState {
    node: GenNode | null;
    ready: boolean;
    terminating: boolean;
    restarts: number;
  }
  const buildPod = (options: {
    namespace: string; name: string; labels: Record<string, string>; annotations: Record<string, string>; owner: Json; template: Json;
    containers: Json[]; state: PodState; hostNetwork: boolean; serviceAccount: string; qos: string; created: string; manager: string;
  }): KubeObject => {
    const { state, namespace, name, created } = options;
    const podIp = state.node === null ? null : options.hostNetwork ? state.node.ip : nextPodIp(state.node.zoneIndex);
    const tokenVolume = `kube-api-access-${suffix(random)}`;
    const templateSpec = options.template;
    const tolerations = [...((templateSpec.tolerations as Toleration[] | undefined) ?? []), ...DEFAULT_TOLERATIONS.filter((d) => !((templateSpec.tolerations as Toleration[] | undefined) ?? []).some((t) => t.key === d.key))];
    const spec: Json = {
      ...templateSpec,
      containers: options.containers.map((c) => ({ ...c, volumeMounts: [...((c.volumeMounts as unknown[]) ?? []), { name: tokenVolume, readOnly: true, mountPath: '/var/run/secrets/kubernetes.io/serviceaccount' }] })),
      enableServiceLinks: true, preemptionPolicy: 'PreemptLowerPriority', priority: templateSpec.priorityClassName === 'system-node-critical' ? 2000001000 : 0,
      serviceAccount: options.serviceAccount, tolerations,
      volumes: [...((templateSpec.volumes as unknown[]) ?? []), {
        name: tokenVolume,
        projected: { defaultMode: 420, sources: [
          { serviceAccountToken: { expirationSeconds: 3607, path: 'token' } },
          { configMap: { name: 'kube-root-ca.crt', items: [{ key: 'ca.crt', path: 'ca.crt' }] } },
          { downwardAPI: { items: [{ path: 'namespace', fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.namespace' } }] } },
        ] },
      }],
    };
    if (state.node !== null) spec.nodeName = state.node.name;
    const started = created;
    const readyStatus = state.ready ? 'True' : 'False';
    const status: Json = state.node === null
      ? { phase: 'Pending', qosClass: options.qos, conditions: [{ type: 'PodScheduled', status: 'False', lastProbeTime: null, lastTransitionTime: created, reason: 'Unschedulable', message: `0/${nodes.length} nodes are available: ${Math.max(1, Math.round(nodes.length * 0.1))} node(s) had untolerated taint {workload: batch}, ${Math.max(1, nodes.length - Math.round(nodes.length * 0.1))} Insufficient cpu. preemption: 0/${nodes.length} nodes are available.` }] }
      : {
          phase: 'Running', hostIP: state.node.ip, hostIPs: [{ ip: state.node.ip }], podIP: podIp, podIPs: [{ ip: podIp }], qosClass: options.qos, startTime: started,
          conditions: [
            { type: 'PodReadyToStartContainers', status: 'True', lastProbeTime: null, lastTransitionTime: started },
            { type: 'Initialized', status: 'True', lastProbeTime: null, lastTransitionTime: started },
            { type: 'Ready', status: readyStatus, lastProbeTime: null, lastTransitionTime: started, ...(state.ready ? {} : { reason: 'ContainersNotReady', message: `containers with unready status: [${String(options.containers[0]?.name)}]` }) },
            { type: 'ContainersReady', status: readyStatus, lastProbeTime: null, lastTransitionTime: started, ...(state.ready ? {} : { reason: 'ContainersNotReady', message: `containers with unready status: [${String(options.containers[0]?.name)}]` }) },
            { type: 'PodScheduled', status: 'True', lastProbeTime: null, lastTransitionTime: created },
          ],
          containerStatuses: options.containers.map((c, i) => {
            const image = String(c.image);
            const failing = !state.ready && i === 0;
            return {
              containerID: `containerd://${hex(64)}`, image, imageID: `${image.slice(0, image.lastIndexOf(':'))}@sha256:${digestOf(image)}`,
              name: c.name, ready: !failing, restartCount: failing ? state.restarts : 0, started: !failing,
              ...(failing
                ? { lastState: { terminated: { containerID: `containerd://${hex(64)}`, exitCode: 1, finishedAt: NOW, reason: 'Error', startedAt: NOW } }, state: { waiting: { message: `back-off 5m0s restarting failed container=${String(c.name)} pod=${name}_${namespace}(${hex(8)})`, reason: 'CrashLoopBackOff' } } }
                : { lastState: {}, state: { running: { startedAt: started } } }),
              volumeMounts: [{ name: tokenVolume, mountPath: '/var/run/secrets/kubernetes.io/serviceaccount', readOnly: true, recursiveReadOnly: 'Disabled' }],
            };
          }),
        };
    const metadata: Json = {
      name, generateName: `${String(options.owner.name)}-`, namespace, uid: uid(), resourceVersion: String(int(1_000_000, 99_999_999)), creationTimestamp: created,
      labels: options.labels, annotations: options.annotations,
      ownerReferences: [{ ...options.owner, controller: true, blockOwnerDeletion: true }],
      managedFields: [
        { manager: options.manager, operation: 'Update', apiVersion: 'v1', time: created, fieldsType: 'FieldsV1', fieldsV1: { 'f:metadata': { 'f:generateName': {}, 'f:labels': Object.fromEntries([['.', {}], ...Object.keys(options.labels).map((k) => [`f:${k}`, {}])]), 'f:ownerReferences': { '.': {}, [`k:{"uid":"${String(options.owner.uid)}"}`]: {} } }, 'f:spec': { 'f:containers': Object.fromEntries(options.containers.map((c) => [`k:{"name":"${String(c.name)}"}`, {}])), 'f:dnsPolicy': {}, 'f:restartPolicy': {}, 'f:schedulerName': {} } } },
        { manager: 'kubelet', operation: 'Update', apiVersion: 'v1', time: NOW, fieldsType: 'FieldsV1', subresource: 'status', fieldsV1: { 'f:status': { 'f:conditions': {}, 'f:containerStatuses': {}, 'f:hostIP': {}, 'f:podIP': {}, 'f:podIPs': {}, 'f:startTime': {} } } },
      ],
    };
    if (state.terminating) Object.assign(metadata, { deletionTimestamp: NOW, deletionGracePeriodSeconds: 30 });
    podTotal++;
    if (state.node !== null) podsOnNode.set(state.node.name, (podsOnNode.get(state.node.name) ?? 0) + 1);
    return { apiVersion: 'v1', kind: 'Pod', metadata: metadata as KubeObject['metadata'], spec, status };
  };

  const baseTemplateSpec = (extra: Json): Json => ({
    dnsPolicy: 'ClusterFirst', restartPolicy: 'Always', schedulerName: 'default-scheduler', securityContext: {}, terminationGracePeriodSeconds: 30, ...extra,
  });
  const defaultedContainer = (c: Json): Json => ({ imagePullPolicy: 'IfNotPresent', terminationMessagePath: '/dev/termination-log', terminationMessagePolicy: 'File', ...c });

  // 3a. kube-system: DaemonSets on every node, CoreDNS, kube-proxy configuration.
  objects.push({
    apiVersion: 'v1', kind: 'ConfigMap',
    metadata: { name: 'kube-proxy-config', namespace: 'kube-system', uid: uid(), resourceVersion: String(int(1000, 99_999)), creationTimestamp: CLUSTER_CREATED, labels: { 'eks.amazonaws.com/component': 'kube-proxy', 'k8s-app': 'kube-proxy' } },
    data: { config: 'apiVersion: kubeproxy.config.k8s.io/v1alpha1\nbindAddress: 0.0.0.0\nclientConnection:\n  kubeconfig: /var/lib/kube-proxy/kubeconfig\nclusterCIDR: ""\nkind: KubeProxyConfiguration\nmode: "iptables"\nipvs:\n  scheduler: ""\niptables:\n  masqueradeAll: false\n  minSyncPeriod: 0s\n  syncPeriod: 30s\nmetricsBindAddress: 0.0.0.0:10249\n' },
  });
  const daemonSets = [
    { name: 'aws-node', image: `${EKS_ECR}/amazon-k8s-cni:v1.19.2-eksbuild.1`, hostNetwork: true, cpu: '25m', port: 61678, portName: 'metrics', label: 'k8s-app' },
    { name: 'kube-proxy', image: `${EKS_ECR}/eks/kube-proxy:v1.31.3-minimal-eksbuild.2`, hostNetwork: true, cpu: '100m', port: 10249, portName: 'metrics', label: 'k8s-app' },
    { name: 'ebs-csi-node', image: `${EKS_ECR}/eks/aws-ebs-csi-driver:v1.38.1`, hostNetwork: false, cpu: '10m', port: 9808, portName: 'healthz', label: 'app' },
  ];
  for (const ds of daemonSets) {
    const dsUid = uid();
    const selector = { [ds.label]: ds.name };
    const containers = [defaultedContainer({ name: ds.name, image: ds.image, ports: [{ name: ds.portName, containerPort: ds.port, protocol: 'TCP' }], resources: { requests: { cpu: ds.cpu } }, securityContext: { privileged: ds.hostNetwork } })];
    const templateSpec = baseTemplateSpec({
      containers, hostNetwork: ds.hostNetwork, priorityClassName: 'system-node-critical', serviceAccountName: ds.name,
      tolerations: [{ operator: 'Exists' }],
      affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'eks.amazonaws.com/compute-type', operator: 'NotIn', values: ['fargate', 'hybrid', 'auto'] }] }] } } },
    });
    const hash = templateHash(JSON.stringify(templateSpec)).slice(0, 8);
    const ready = nodes.filter((n) => n.ready).length;
    objects.push({
      apiVersion: 'apps/v1', kind: 'DaemonSet',
      metadata: { name: ds.name, namespace: 'kube-system', uid: dsUid, resourceVersion: String(int(1_000_000, 99_999_999)), creationTimestamp: CLUSTER_CREATED, generation: 4, labels: { ...selector, 'app.kubernetes.io/managed-by': 'EKS' }, annotations: { 'deprecated.daemonset.template.generation': '4' } },
      spec: { revisionHistoryLimit: 10, selector: { matchLabels: selector }, template: { metadata: { labels: selector }, spec: templateSpec }, updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 0, maxUnavailable: '10%' } } },
      status: { currentNumberScheduled: nodes.length, desiredNumberScheduled: nodes.length, numberAvailable: ready, numberReady: ready, numberMisscheduled: 0, observedGeneration: 4, updatedNumberScheduled: nodes.length, ...(ready < nodes.length ? { numberUnavailable: nodes.length - ready } : {}) },
    });
    for (const node of nodes) {
      const name = generated('Pod', 'kube-system', ds.name);
      const labels = { ...selector, 'controller-revision-hash': hash, 'pod-template-generation': '4' };
      const pod = buildPod({
        namespace: 'kube-system', name, labels, annotations: {}, owner: { apiVersion: 'apps/v1', kind: 'DaemonSet', name: ds.name, uid: dsUid },
        template: { ...templateSpec, affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchFields: [{ key: 'metadata.name', operator: 'In', values: [node.name] }] }] } } } },
        containers, state: { node, ready: node.ready, terminating: false, restarts: 0 }, hostNetwork: ds.hostNetwork, serviceAccount: ds.name, qos: 'Burstable', created: past(30), manager: 'kube-controller-manager',
      });
      objects.push(pod);
      podRecord('kube-system', pod, labels, { [ds.portName]: ds.port });
    }
  }

  // 3b. Workloads. Budget: Services minus the special ones; pods minus the DaemonSet pods.
  interface Workload {
    namespace: string;
    name: string;
    release: string;
    helm: boolean;
    replicas: number;
    spread: 'zone' | 'zone-hard' | 'none';
    zoneBias: number | null;
    tolerations: Toleration[];
    component: string;
  }
  const special = 2 + Math.max(1, Math.round(params.services * 0.02)) + Math.max(1, Math.round(params.services * 0.01));
  const workloadCount = Math.max(1, params.services - special - Math.round(params.services * 0.05));
  const workloads: Workload[] = [];
  const namespaceCumulative: number[] = [];
  let acc = 0;
  for (const w of namespaceWeights) namespaceCumulative.push((acc += w / namespaceWeightSum));
  const usedNames = new Set<string>();
  for (let i = 0; i < workloadCount; i++) {
    const namespace = i === 0 ? 'kube-system' : (namespaceNames[namespaceCumulative.findIndex((c) => c >= ((i * 0.618033988749895) % 1))] ?? namespaceNames[0] ?? 'default');
    let name = i === 0 ? 'coredns' : `${pick(WORDS_A)}-${pick(WORDS_B)}`;
    for (let k = 2; usedNames.has(`${namespace}/${name}`); k++) name = `${name.replace(/-v\d+$/, '')}-v${k}`;
    usedNames.add(`${namespace}/${name}`);
    const roll = random();
    const replicas = i === 0 ? 2 : roll < 0.3 ? 1 : roll < 0.55 ? 2 : roll < 0.7 ? 3 : roll < 0.85 ? int(4, 8) : roll < 0.95 ? int(9, 24) : int(25, 60);
    const spreadRoll = random();
    workloads.push({
      namespace, name, release: chance(0.3) ? namespace : name, helm: i !== 0 && chance(0.85), replicas,
      spread: i === 0 || spreadRoll < 0.35 ? 'zone' : spreadRoll < 0.45 ? 'zone-hard' : 'none',
      zoneBias: spreadRoll >= 0.45 && chance(0.35) ? int(0, zoneCount - 1) : null,
      tolerations: i === 0 ? [{ key: 'CriticalAddonsOnly', operator: 'Exists' }] : chance(0.05) ? [{ key: 'workload', operator: 'Equal', value: 'batch', effect: 'NoSchedule' }] : chance(0.01) ? [{ key: 'nvidia.com/gpu', operator: 'Exists', effect: 'NoSchedule' }] : [],
      component: pick(['api', 'worker', 'web', 'grpc', 'consumer']),
    });
  }
  // The long tail: what the small ones leave goes to the biggest 1 % (weights 1/√k).
  const budget = Math.max(workloadCount, params.pods - podTotal);
  const baseTotal = workloads.reduce((a, w) => a + w.replicas, 0);
  if (baseTotal > budget) for (const w of workloads) w.replicas = Math.max(1, Math.floor((w.replicas * budget) / baseTotal));
  const bigCount = Math.max(2, Math.round(workloadCount * 0.01));
  const big = workloads.slice(1).filter((_, i) => i % Math.max(1, Math.floor(workloadCount / bigCount)) === 3).slice(0, bigCount);
  const rest = budget - workloads.reduce((a, w) => a + w.replicas, 0);
  if (rest > 0 && big.length > 0) {
    const weights = big.map((_, k) => 1 / Math.sqrt(k + 1));
    const sum = weights.reduce((a, b) => a + b, 0);
    let given = 0;
    big.forEach((w, k) => {
      const extra = k === big.length - 1 ? rest - given : Math.floor((rest * (weights[k] ?? 0)) / sum);
      given += extra;
      w.replicas += extra;
      w.spread = k % 3 === 2 ? 'none' : 'zone';
      w.tolerations = [];
    });
  }

  const services: { object: KubeObject; selector: Record<string, string> | null; headless: boolean }[] = [];
  const hpas: KubeObject[] = [];
  let clusterIpIndex = 10;
  const nextClusterIp = (): string => {
    clusterIpIndex++;
    return `172.20.${Math.floor(clusterIpIndex / 250)}.${(clusterIpIndex % 250) + 1}`;
  };
  const serviceLabels = new Map<string, Record<string, string>>();

  const placeNode = (w: Workload, index: number, zoneCounts: number[], tolerations: readonly Toleration[]): GenNode | null => {
    let zi: number;
    if (w.spread !== 'none') {
      zi = 0;
      for (let z = 1; z < zoneCount; z++) if ((zoneCounts[z] ?? 0) < (zoneCounts[zi] ?? 0)) zi = z;
    } else if (w.zoneBias !== null && chance(0.7)) {
      zi = w.zoneBias;
    } else {
      const r = random() * weightSum;
      let c = 0;
      zi = zoneCount - 1;
      for (let z = 0; z < zoneCount; z++) if (r < (c += params.zoneWeights[z] ?? 0)) {
        zi = z;
        break;
      }
    }
    const candidates = (nodesByZone[zi] ?? []).filter((n) => schedulable(n, tolerations));
    const fallback = candidates.length > 0 ? candidates : nodes.filter((n) => schedulable(n, tolerations));
    if (fallback.length === 0) return null;
    // Mostly the emptiest of a few random candidates (the scheduler's balanced allocation, roughly).
    let best: GenNode | null = null;
    for (let k = 0; k < 3; k++) {
      const c = fallback[(index * 31 + Math.floor(random() * fallback.length)) % fallback.length] as GenNode;
      if (best === null || (podsOnNode.get(c.name) ?? 0) < (podsOnNode.get(best.name) ?? 0)) best = c;
    }
    if (best !== null) zoneCounts[best.zoneIndex] = (zoneCounts[best.zoneIndex] ?? 0) + 1;
    return best;
  };

  workloads.forEach((w, wi) => {
    const created = wi === 0 ? CLUSTER_CREATED : past(300);
    const version = `${int(1, 5)}.${int(0, 30)}.${int(0, 12)}`;
    const chart = `${w.release}-${int(0, 3)}.${int(1, 40)}.${int(0, 9)}`;
    const selector: Record<string, string> = wi === 0 ? { 'k8s-app': 'kube-dns' } : w.helm ? { 'app.kubernetes.io/name': w.name, 'app.kubernetes.io/instance': w.release } : { app: w.name };
    const commonLabels: Record<string, string> = w.helm
      ? { ...selector, 'app.kubernetes.io/version': version, 'app.kubernetes.io/managed-by': 'Helm', 'helm.sh/chart': chart, 'app.kubernetes.io/component': w.component }
      : wi === 0 ? { ...selector, 'eks.amazonaws.com/component': 'coredns', 'kubernetes.io/name': 'CoreDNS' } : { ...selector, team: w.namespace };
    const helmAnnotations: Record<string, string> = w.helm ? { 'meta.helm.sh/release-name': w.release, 'meta.helm.sh/release-namespace': w.namespace } : {};
    const templateLabels: Record<string, string> = w.helm ? { ...selector, 'app.kubernetes.io/version': version } : { ...selector };
    const ports: Json[] = [{ name: 'http', containerPort: pick([8080, 8000, 3000, 9000]), protocol: 'TCP' }];
    if (chance(0.35)) ports.push({ name: 'grpc', containerPort: 9090, protocol: 'TCP' });
    if (chance(0.5)) ports.push({ name: 'metrics', containerPort: pick([9102, 9100, 8081]), protocol: 'TCP' });
    const httpPort = Number(ports[0]?.containerPort);
    const cpu = pick(['50m', '100m', '200m', '250m', '500m', '1']);
    const memory = pick(['128Mi', '256Mi', '512Mi', '1Gi', '2Gi']);
    const guaranteed = chance(0.1);
    const image = wi === 0 ? `${EKS_ECR}/eks/coredns:v1.11.4-eksbuild.2` : pick(appImages.slice(0, 90));
    const main = defaultedContainer({
      name: wi === 0 ? 'coredns' : w.name.split('-')[1] ?? 'app', image, ports,
      env: [
        { name: 'SERVICE_NAME', value: w.name }, { name: 'ENVIRONMENT', value: 'production' }, { name: 'AWS_REGION', value: REGION },
        { name: 'POD_NAME', valueFrom: { fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.name' } } },
        { name: 'POD_IP', valueFrom: { fieldRef: { apiVersion: 'v1', fieldPath: 'status.podIP' } } },
        ...(chance(0.5) ? [{ name: 'DATABASE_PASSWORD', valueFrom: { secretKeyRef: { name: `${w.name}-db`, key: 'password' } } }] : []),
        ...(chance(0.3) ? [{ name: 'GOMAXPROCS', valueFrom: { resourceFieldRef: { divisor: '0', resource: 'limits.cpu' } } }] : []),
      ],
      resources: guaranteed ? { limits: { cpu, memory }, requests: { cpu, memory } } : { limits: { memory }, requests: { cpu, memory } },
      readinessProbe: { failureThreshold: 3, httpGet: { path: '/ready', port: 'http', scheme: 'HTTP' }, periodSeconds: 5, successThreshold: 1, timeoutSeconds: 1 },
      livenessProbe: { failureThreshold: 3, httpGet: { path: '/healthz', port: 'http', scheme: 'HTTP' }, initialDelaySeconds: 10, periodSeconds: 10, successThreshold: 1, timeoutSeconds: 1 },
      volumeMounts: [{ name: 'config', mountPath: '/etc/app' }, { name: 'tmp', mountPath: '/tmp' }],
      securityContext: { allowPrivilegeEscalation: false, readOnlyRootFilesystem: true, runAsNonRoot: true, runAsUser: 10001 },
    });
    const containers: Json[] = [main];
    if (wi !== 0 && chance(0.3)) {
      const s = pick(SIDECARS);
      containers.push(defaultedContainer({ name: s.name, image: s.image, resources: { limits: { memory: s.memory }, requests: { cpu: s.cpu, memory: s.memory } } }));
    }
    const spec: Json = baseTemplateSpec({ containers, serviceAccountName: w.name, volumes: [{ name: 'config', configMap: { name: `${w.name}-config`, defaultMode: 420 } }, { name: 'tmp', emptyDir: {} }] });
    if (w.tolerations.length > 0) spec.tolerations = w.tolerations.map((t) => ({ ...t }));
    if (w.spread !== 'none') {
      spec.topologySpreadConstraints = [{ maxSkew: 1, topologyKey: 'topology.kubernetes.io/zone', whenUnsatisfiable: w.spread === 'zone-hard' ? 'DoNotSchedule' : 'ScheduleAnyway', labelSelector: { matchLabels: selector } }];
      if (chance(0.3)) (spec.topologySpreadConstraints as Json[]).push({ maxSkew: 2, topologyKey: 'kubernetes.io/hostname', whenUnsatisfiable: 'ScheduleAnyway', labelSelector: { matchLabels: selector } });
    }
    if (chance(0.25)) spec.affinity = { podAntiAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 100, podAffinityTerm: { topologyKey: 'kubernetes.io/hostname', labelSelector: { matchLabels: selector } } }] } };
    else if (chance(0.1)) spec.affinity = { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'kubernetes.io/arch', operator: 'In', values: ['amd64', 'arm64'] }] }] } } };
    if (wi === 0) spec.priorityClassName = 'system-cluster-critical';
    const podAnnotations: Record<string, string> = chance(0.4) ? { 'prometheus.io/scrape': 'true', 'prometheus.io/port': String(ports.find((p) => p.name === 'metrics')?.containerPort ?? httpPort) } : {};
    if (chance(0.2)) podAnnotations['kubectl.kubernetes.io/restartedAt'] = past(20);
    const template: Json = { metadata: { creationTimestamp: null, labels: templateLabels, ...(Object.keys(podAnnotations).length > 0 ? { annotations: podAnnotations } : {}) }, spec };
    const hash = templateHash(JSON.stringify(template));
    const deploymentUid = uid();
    const revision = int(1, 14);
    const generation = revision + int(0, 6);
    // Pod states: a few NotReady (crash-looping) and Pending; terminating ones come on top.
    const podStates: PodState[] = [];
    const zoneCounts = zones.map(() => 0);
    for (let p = 0; p < w.replicas; p++) {
      const node = chance(0.003) && w.spread !== 'zone' ? null : placeNode(w, p, zoneCounts, w.tolerations);
      podStates.push({ node, ready: node !== null && node.ready && !chance(0.015), terminating: false, restarts: int(3, 80) });
    }
    const terminatingCount = chance(0.04) ? int(1, Math.max(1, Math.ceil(w.replicas / 10))) : 0;
    for (let p = 0; p < terminatingCount; p++) podStates.push({ node: placeNode(w, p, zoneCounts, w.tolerations), ready: true, terminating: true, restarts: 0 });
    const active = podStates.filter((s) => !s.terminating);
    const readyCount = active.filter((s) => s.ready).length;
    const rsName = `${w.name}-${hash}`;
    const rsUid = uid();
    const manager = w.helm ? 'helm' : 'kubectl-client-side-apply';
    const deploymentLabels = { ...commonLabels };
    const deploymentAnnotations: Record<string, string> = { 'deployment.kubernetes.io/revision': String(revision), ...helmAnnotations };
    const deploymentSpec: Json = {
      progressDeadlineSeconds: 600, replicas: w.replicas, revisionHistoryLimit: 10, selector: { matchLabels: selector },
      strategy: { rollingUpdate: { maxSurge: '25%', maxUnavailable: '25%' }, type: 'RollingUpdate' }, template,
    };
    if (!w.helm && wi !== 0) {
      deploymentAnnotations['kubectl.kubernetes.io/last-applied-configuration'] = `${JSON.stringify({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { annotations: {}, labels: deploymentLabels, name: w.name, namespace: w.namespace }, spec: { replicas: w.replicas, selector: { matchLabels: selector }, template: { metadata: { labels: templateLabels }, spec: { containers: containers.map((c) => ({ name: c.name, image: c.image })) } } } })}\n`;
    }
    const unavailable = w.replicas - readyCount;
    const condTime = past(5);
    objects.push({
      apiVersion: 'apps/v1', kind: 'Deployment',
      metadata: {
        name: w.name, namespace: w.namespace, uid: deploymentUid, resourceVersion: String(int(1_000_000, 99_999_999)), generation, creationTimestamp: created,
        labels: deploymentLabels, annotations: deploymentAnnotations,
        managedFields: [
          { manager, operation: 'Update', apiVersion: 'apps/v1', time: created, fieldsType: 'FieldsV1', fieldsV1: { 'f:metadata': { 'f:annotations': { '.': {}, ...Object.fromEntries(Object.keys(helmAnnotations).map((k) => [`f:${k}`, {}])) }, 'f:labels': Object.fromEntries([['.', {}], ...Object.keys(deploymentLabels).map((k) => [`f:${k}`, {}])]) }, 'f:spec': { 'f:progressDeadlineSeconds': {}, 'f:replicas': {}, 'f:revisionHistoryLimit': {}, 'f:selector': {}, 'f:strategy': { 'f:rollingUpdate': { '.': {}, 'f:maxSurge': {}, 'f:maxUnavailable': {} }, 'f:type': {} }, 'f:template': { 'f:metadata': { 'f:labels': {} }, 'f:spec': { 'f:containers': {} } } } } },
          { manager: 'kube-controller-manager', operation: 'Update', apiVersion: 'apps/v1', time: condTime, fieldsType: 'FieldsV1', subresource: 'status', fieldsV1: { 'f:metadata': { 'f:annotations': { 'f:deployment.kubernetes.io/revision': {} } }, 'f:status': { 'f:availableReplicas': {}, 'f:conditions': {}, 'f:observedGeneration': {}, 'f:readyReplicas': {}, 'f:replicas': {}, 'f:updatedReplicas': {} } } },
        ],
      } as KubeObject['metadata'],
      spec: deploymentSpec,
      status: {
        availableReplicas: readyCount, observedGeneration: generation, readyReplicas: readyCount, replicas: w.replicas, updatedReplicas: w.replicas,
        ...(unavailable > 0 ? { unavailableReplicas: unavailable } : {}),
        conditions: [
          readyCount >= w.replicas - Math.floor(w.replicas / 4)
            ? { type: 'Available', status: 'True', lastTransitionTime: condTime, lastUpdateTime: condTime, reason: 'MinimumReplicasAvailable', message: 'Deployment has minimum availability.' }
            : { type: 'Available', status: 'False', lastTransitionTime: condTime, lastUpdateTime: condTime, reason: 'MinimumReplicasUnavailable', message: 'Deployment does not have minimum availability.' },
          { type: 'Progressing', status: 'True', lastTransitionTime: created, lastUpdateTime: condTime, reason: 'NewReplicaSetAvailable', message: `ReplicaSet "${rsName}" has successfully progressed.` },
        ],
      },
    });
    // Current ReplicaSet, plus old ones scaled to 0 (revision history).
    const rsObject = (name: string, rsUidValue: string, rsHash: string, rsTemplate: Json, replicas: number, rsRevision: number, ready: number): KubeObject => ({
      apiVersion: 'apps/v1', kind: 'ReplicaSet',
      metadata: {
        name, namespace: w.namespace, uid: rsUidValue, resourceVersion: String(int(1_000_000, 99_999_999)), generation: replicas === 0 ? 2 : 1, creationTimestamp: created,
        labels: { ...templateLabels, 'pod-template-hash': rsHash },
        annotations: { 'deployment.kubernetes.io/desired-replicas': String(w.replicas), 'deployment.kubernetes.io/max-replicas': String(w.replicas + Math.ceil(w.replicas / 4)), 'deployment.kubernetes.io/revision': String(rsRevision), ...helmAnnotations },
        ownerReferences: [{ apiVersion: 'apps/v1', kind: 'Deployment', name: w.name, uid: deploymentUid, controller: true, blockOwnerDeletion: true }],
        managedFields: [
          { manager: 'kube-controller-manager', operation: 'Update', apiVersion: 'apps/v1', time: created, fieldsType: 'FieldsV1', fieldsV1: { 'f:metadata': { 'f:annotations': {}, 'f:labels': {}, 'f:ownerReferences': { '.': {}, [`k:{"uid":"${deploymentUid}"}`]: {} } }, 'f:spec': { 'f:replicas': {}, 'f:selector': {}, 'f:template': {} } } },
          { manager: 'kube-controller-manager', operation: 'Update', apiVersion: 'apps/v1', time: condTime, fieldsType: 'FieldsV1', subresource: 'status', fieldsV1: { 'f:status': { 'f:availableReplicas': {}, 'f:fullyLabeledReplicas': {}, 'f:observedGeneration': {}, 'f:readyReplicas': {}, 'f:replicas': {} } } },
        ],
      } as KubeObject['metadata'],
      spec: { replicas, selector: { matchLabels: { ...selector, 'pod-template-hash': rsHash } }, template: { ...rsTemplate, metadata: { ...(rsTemplate.metadata as Json), labels: { ...templateLabels, 'pod-template-hash': rsHash } } } },
      status: replicas === 0 ? { observedGeneration: 2, replicas: 0 } : { availableReplicas: ready, fullyLabeledReplicas: replicas, observedGeneration: 1, readyReplicas: ready, replicas },
    });
    const oldCount = wi === 0 ? 0 : Math.min(revision - 1, chance(0.6) ? int(1, 3) : 0);
    for (let o = 0; o < oldCount; o++) {
      const oldImage = String(main.image).replace(/:[^:]+$/, `:${int(0, 1)}.${int(0, 30)}.${o}`);
      const oldTemplate = { ...template, spec: { ...spec, containers: [{ ...main, image: oldImage }, ...containers.slice(1)] } };
      const oldHash = templateHash(JSON.stringify(oldTemplate));
      if (oldHash === hash) continue;
      objects.push(rsObject(`${w.name}-${oldHash}`, uid(), oldHash, oldTemplate, 0, revision - oldCount + o, 0));
    }
    objects.push(rsObject(rsName, rsUid, hash, template, w.replicas, revision, readyCount));
    const podLabels = { ...templateLabels, 'pod-template-hash': hash };
    const containerPorts = Object.fromEntries(ports.map((p) => [String(p.name), Number(p.containerPort)]));
    for (const state of podStates) {
      const pod = buildPod({
        namespace: w.namespace, name: generated('Pod', w.namespace, rsName), labels: podLabels, annotations: podAnnotations,
        owner: { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: rsName, uid: rsUid }, template: spec, containers, state, hostNetwork: false,
        serviceAccount: w.name, qos: guaranteed ? 'Guaranteed' : 'Burstable', created: past(10), manager: 'kube-controller-manager',
      });
      objects.push(pod);
      podRecord(w.namespace, pod, podLabels, containerPorts);
    }

    // The Service (and sometimes a second one on the same pods, e.g. for metrics or headless).
    const addService = (name: string, kind: 'ClusterIP' | 'LoadBalancer' | 'headless', servicePorts: Json[]) => {
      const annotations: Record<string, string> = { ...helmAnnotations };
      const spec: Json = { ports: servicePorts, selector, sessionAffinity: chance(0.03) ? 'ClientIP' : 'None', type: kind === 'LoadBalancer' ? 'LoadBalancer' : 'ClusterIP', internalTrafficPolicy: 'Cluster', ipFamilies: ['IPv4'], ipFamilyPolicy: 'SingleStack' };
      const ip = kind === 'headless' ? 'None' : wi === 0 ? '172.20.0.10' : nextClusterIp();
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
      services.push({ object, selector, headless: kind === 'headless' });
      serviceLabels.set(`${w.namespace}/${name}`, labels);
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

    // HPA on ~25 % of multi-replica Deployments and on every big one.
    if (wi !== 0 && (big.includes(w) || (w.replicas >= 2 && chance(0.25)))) {
      const min = Math.max(1, Math.floor(w.replicas * (0.3 + random() * 0.5)));
      const max = Math.max(w.replicas + 1, Math.ceil(w.replicas * (1.5 + random() * 2)));
      const utilization = int(45, 85);
      const metrics: Json[] = [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: int(50, 80) } } }];
      if (chance(0.3)) metrics.push({ type: 'Resource', resource: { name: 'memory', target: { type: 'Utilization', averageUtilization: 75 } } });
      const hpaSpec: Json = { maxReplicas: max, metrics, minReplicas: min, scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: w.name } };
      if (chance(0.3)) hpaSpec.behavior = { scaleDown: { policies: [{ type: 'Percent', value: 10, periodSeconds: 60 }], selectPolicy: 'Max', stabilizationWindowSeconds: 300 }, scaleUp: { policies: [{ type: 'Pods', value: 4, periodSeconds: 15 }, { type: 'Percent', value: 100, periodSeconds: 15 }], selectPolicy: 'Max', stabilizationWindowSeconds: 0 } };
      const limited = w.replicas <= min || w.replicas >= max;
      hpas.push({
        apiVersion: 'autoscaling/v2', kind: 'HorizontalPodAutoscaler',
        metadata: {
          name: w.name, namespace: w.namespace, uid: uid(), resourceVersion: String(int(1_000_000, 99_999_999)), creationTimestamp: created, labels: { ...commonLabels }, annotations: { ...helmAnnotations },
          managedFields: [
            { manager, operation: 'Update', apiVersion: 'autoscaling/v2', time: created, fieldsType: 'FieldsV1', fieldsV1: { 'f:spec': { 'f:maxReplicas': {}, 'f:metrics': {}, 'f:minReplicas': {}, 'f:scaleTargetRef': {} } } },
            { manager: 'kube-controller-manager', operation: 'Update', apiVersion: 'autoscaling/v2', time: NOW, fieldsType: 'FieldsV1', subresource: 'status', fieldsV1: { 'f:status': { 'f:conditions': {}, 'f:currentMetrics': {}, 'f:currentReplicas': {}, 'f:desiredReplicas': {} } } },
          ],
        } as KubeObject['metadata'],
        spec: hpaSpec,
        status: {
          conditions: [
            { type: 'AbleToScale', status: 'True', lastTransitionTime: created, reason: 'ReadyForNewScale', message: 'recommended size matches current size' },
            { type: 'ScalingActive', status: 'True', lastTransitionTime: created, reason: 'ValidMetricFound', message: 'the HPA was able to successfully calculate a replica count from cpu resource utilization (percentage of request)' },
            limited
              ? { type: 'ScalingLimited', status: 'True', lastTransitionTime: condTime, reason: w.replicas <= min ? 'TooFewReplicas' : 'TooManyReplicas', message: `the desired replica count is ${w.replicas <= min ? 'less' : 'more'} than the ${w.replicas <= min ? 'minimum' : 'maximum'} replica count` }
              : { type: 'ScalingLimited', status: 'False', lastTransitionTime: condTime, reason: 'DesiredWithinRange', message: 'the desired count is within the acceptable range' },
          ],
          currentMetrics: [{ type: 'Resource', resource: { name: 'cpu', current: { averageUtilization: utilization, averageValue: `${int(20, 900)}m` } } }],
          currentReplicas: w.replicas, desiredReplicas: w.replicas, ...(chance(0.6) ? { lastScaleTime: past(3) } : {}),
        },
      });
    }
  });

  // 3c. Services without Deployments: default/kubernetes, selector-less (mirrored Endpoints), ExternalName.
  const apiServerSlice: KubeObject = {
    apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice',
    metadata: { name: 'kubernetes', namespace: 'default', uid: uid(), resourceVersion: String(int(1_000_000, 99_999_999)), generation: 1, creationTimestamp: CLUSTER_CREATED, labels: { [SERVICE_NAME]: 'kubernetes' }, managedFields: [{ manager: 'kube-apiserver', operation: 'Update', apiVersion: 'discovery.k8s.io/v1', time: CLUSTER_CREATED, fieldsType: 'FieldsV1', fieldsV1: { 'f:addressType': {}, 'f:endpoints': {}, 'f:metadata': { 'f:labels': { '.': {}, 'f:kubernetes.io/service-name': {} } }, 'f:ports': {} } }] } as KubeObject['metadata'],
    addressType: 'IPv4',
    endpoints: [{ addresses: ['10.0.120.17'], conditions: { ready: true } }, { addresses: ['10.16.88.201'], conditions: { ready: true } }],
    ports: [{ name: 'https', port: 443, protocol: 'TCP' }],
  };
  services.push({
    object: {
      apiVersion: 'v1', kind: 'Service',
      metadata: { name: 'kubernetes', namespace: 'default', uid: uid(), resourceVersion: '198', creationTimestamp: CLUSTER_CREATED, labels: { component: 'apiserver', provider: 'kubernetes' } },
      spec: { clusterIP: '172.20.0.1', clusterIPs: ['172.20.0.1'], internalTrafficPolicy: 'Cluster', ipFamilies: ['IPv4'], ipFamilyPolicy: 'SingleStack', ports: [{ name: 'https', port: 443, protocol: 'TCP', targetPort: 443 }], sessionAffinity: 'None', type: 'ClusterIP' },
      status: { loadBalancer: {} },
    },
    selector: null, headless: false,
  });
  const mirrored: KubeObject[] = [apiServerSlice];
  const selectorless = Math.max(1, Math.round(params.services * 0.02));
  for (let i = 0; i < selectorless; i++) {
    const namespace = namespaceNames[i % namespaceNames.length] ?? 'default';
    const name = `${pick(['postgres', 'redis', 'kafka', 'legacy', 'vault'])}-external-${i}`;
    const port = pick([5432, 6379, 9092, 8200]);
    services.push({
      object: {
        apiVersion: 'v1', kind: 'Service',
        metadata: { name, namespace, uid: uid(), resourceVersion: String(int(1_000_000, 99_999_999)), creationTimestamp: past(300), labels: { app: name } },
        spec: { clusterIP: nextClusterIp(), clusterIPs: [], internalTrafficPolicy: 'Cluster', ipFamilies: ['IPv4'], ipFamilyPolicy: 'SingleStack', ports: [{ name: 'tcp', port, protocol: 'TCP', targetPort: port }], sessionAffinity: 'None', type: 'ClusterIP' },
        status: { loadBalancer: {} },
      },
      selector: null, headless: false,
    });
    const svc = services[services.length - 1]?.object;
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
  const externalNames = Math.max(1, Math.round(params.services * 0.01));
  for (let i = 0; i < externalNames; i++) {
    const namespace = namespaceNames[(i * 3) % namespaceNames.length] ?? 'default';
    const name = `${pick(['rds', 'elasticache', 'partner', 'billing-legacy'])}-${i}`;
    services.push({
      object: {
        apiVersion: 'v1', kind: 'Service',
        metadata: { name, namespace, uid: uid(), resourceVersion: String(int(1_000_000, 99_999_999)), creationTimestamp: past(300), labels: { app: name } },
        spec: { externalName: `${name}.${hex(12)}.${REGION}.rds.amazonaws.com`, sessionAffinity: 'None', type: 'ExternalName' },
        status: { loadBalancer: {} },
      },
      selector: null, headless: false,
    });
  }

  // 4. EndpointSlices as the controller writes them, hints by the engine.
  const minor = parseKubeMinor(REALISTIC_SERVER_VERSION) ?? 31;
  const gates = resolveFeatureGates(minor);
  const cache = new TopologyCache(minor);
  const topologyNodes: TopologyNode[] = [];
  for (const o of objects) {
    if (o.kind !== 'Node') continue;
    const record = projectNode(o);
    topologyNodes.push({ name: record.name, zone: record.zone, allocatableCpu: record.allocatableCpu, ready: record.ready, labels: stringMap(o.metadata.labels) });
  }
  cache.setNodes(topologyNodes);
  const nodeZone = new Map(nodes.map((n) => [n.name, zones[n.zoneIndex] ?? '']));
  const slices: KubeObject[] = [];
  const events: KubeObject[] = [];
  for (const { object: service, selector, headless } of services) {
    if (selector === null) continue;
    const namespace = service.metadata.namespace ?? 'default';
    const name = service.metadata.name;
    const matching = (endpointsIndex.get(namespace) ?? []).filter((e) => Object.entries(selector).every(([k, v]) => e.labels[k] === v));
    const svcPorts = Array.isArray((service.spec as Json).ports) ? ((service.spec as Json).ports as Json[]) : [];
    // A named port resolves from a pod that becomes an endpoint (one with an IP), as the controller does.
    const first = matching.find((e) => typeof (e.pod.status as Json).podIP === 'string');
    const slicePorts = svcPorts.map((p) => {
      const target = typeof p.targetPort === 'number' ? p.targetPort : typeof p.targetPort === 'string' ? first?.containerPorts[p.targetPort] : Number(p.port);
      return { name: String(p.name ?? ''), ...(target !== undefined ? { port: target } : {}), protocol: String(p.protocol ?? 'TCP') };
    });
    const wires: Json[] = [];
    for (const { pod } of matching) {
      const status = pod.status as Json;
      const ip = typeof status.podIP === 'string' ? status.podIP : null;
      if (ip === null) continue;
      const nodeName = String((pod.spec as Json).nodeName ?? '');
      const ready = Array.isArray(status.conditions) && (status.conditions as Json[]).some((c) => c.type === 'Ready' && c.status === 'True');
      const terminating = typeof pod.metadata.deletionTimestamp === 'string';
      const endpoint: Json = { addresses: [ip], conditions: { ready: ready && !terminating, serving: ready, terminating }, nodeName, targetRef: { kind: 'Pod', name: pod.metadata.name, namespace, uid: pod.metadata.uid }, zone: nodeZone.get(nodeName) ?? '' };
      wires.push(endpoint);
    }
    const chunks: Json[][] = [];
    for (let i = 0; i < wires.length; i += MAX_ENDPOINTS_PER_SLICE) chunks.push(wires.slice(i, i + MAX_ENDPOINTS_PER_SLICE));
    if (chunks.length === 0) chunks.push([]);
    const sliceNames = chunks.map(() => generated('EndpointSlice', namespace, name));
    const annotations = stringMap(service.metadata.annotations);
    const engineSlices: EndpointSlice[] = chunks.map((chunk, i) => ({ name: sliceNames[i] ?? '', addressType: 'IPv4', endpoints: chunk.map(endpointFromWire) }));
    const key = `${namespace}/${name}`;
    const result = reconcileTopologyHints({ key, annotations, trafficDistribution: typeof (service.spec as Json).trafficDistribution === 'string' ? ((service.spec as Json).trafficDistribution as string) : null }, { serviceKey: key, addressType: 'IPv4', toCreate: engineSlices, toUpdate: [], unchanged: [] }, cache, minor, gates);
    const hinted = new Map(result.toCreate.map((s) => [s.name ?? '', s]));
    // The controller's next sync validates those slices in name order and rewrites those whose hints
    // no longer fit: write what it settles on, so a simulator loading the dump has nothing to redo.
    for (let round = 0; round < 3; round++) {
      const unchanged = [...hinted.values()].sort((a, b) => ((a.name ?? '') < (b.name ?? '') ? -1 : 1));
      const next = reconcileTopologyHints(
        { key, annotations, trafficDistribution: typeof (service.spec as Json).trafficDistribution === 'string' ? ((service.spec as Json).trafficDistribution as string) : null },
        { serviceKey: key, addressType: 'IPv4', toCreate: [], toUpdate: [], unchanged },
        cache, minor, gates,
      );
      if (next.toUpdate.length === 0) break;
      for (const slice of next.toUpdate) hinted.set(slice.name ?? '', slice);
    }
    const labels: Record<string, string> = { ...(serviceLabels.get(key) ?? {}), [MANAGED_BY]: CONTROLLER, [SERVICE_NAME]: name };
    if (headless) labels['service.kubernetes.io/headless'] = '';
    chunks.forEach((chunk, i) => {
      const sliceName = sliceNames[i] ?? '';
      const engine = hinted.get(sliceName);
      const endpoints = chunk.map((wire, j) => {
        const hints = hintsToWire(engine?.endpoints[j]?.hints ?? null);
        return hints === undefined ? wire : { ...wire, hints };
      });
      slices.push({
        apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice',
        metadata: {
          name: sliceName, generateName: `${name}-`, namespace, uid: uid(), resourceVersion: String(int(1_000_000, 99_999_999)), generation: int(1, 40), creationTimestamp: service.metadata.creationTimestamp,
          labels, annotations: { 'endpoints.kubernetes.io/last-change-trigger-time': past(2) },
          ownerReferences: [{ apiVersion: 'v1', kind: 'Service', name, uid: service.metadata.uid, controller: true, blockOwnerDeletion: true }],
          managedFields: [{ manager: 'kube-controller-manager', operation: 'Update', apiVersion: 'discovery.k8s.io/v1', time: past(2), fieldsType: 'FieldsV1', fieldsV1: { 'f:addressType': {}, 'f:endpoints': {}, 'f:metadata': { 'f:annotations': { '.': {}, 'f:endpoints.kubernetes.io/last-change-trigger-time': {} }, 'f:generateName': {}, 'f:labels': {}, 'f:ownerReferences': {} }, 'f:ports': {} } }],
        } as KubeObject['metadata'],
        addressType: 'IPv4',
        endpoints,
        ports: slicePorts,
      });
    });
    for (const event of result.events) events.push(topologyEvent(service, event, uid(), suffix(random, 8)));
  }

  return [...objects, ...services.map((s) => s.object), ...slices, ...mirrored, ...hpas, ...events];
}

function topologyEvent(service: KubeObject, event: TopologyEvent, eventUid: string, nameSuffix: string): KubeObject {
  const namespace = service.metadata.namespace ?? 'default';
  return {
    apiVersion: 'v1', kind: 'Event',
    metadata: { name: `${service.metadata.name}.${nameSuffix}`, namespace, uid: eventUid, resourceVersion: '1', creationTimestamp: NOW },
    involvedObject: { apiVersion: 'v1', kind: 'Service', name: service.metadata.name, namespace, uid: service.metadata.uid ?? '' },
    reason: event.reason, message: event.message, type: event.type,
    source: { component: CONTROLLER }, reportingComponent: CONTROLLER, reportingInstance: '',
    firstTimestamp: NOW, lastTimestamp: NOW, count: 1, eventTime: null,
  };
}
