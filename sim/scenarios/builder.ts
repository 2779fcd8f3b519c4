/**
 * A small vocabulary for writing simulator scenarios as code: realistic Nodes, Deployments with
 * their ReplicaSet and Pods placed per zone, Services, HPAs and kube-system configuration. The
 * fixture script (`npm run fixtures`) turns each scenario into a `kubectl get -o yaml`-style file
 * under `fixtures/` after the simulator's controllers have settled.
 */
import { createSeededRandom } from '../../lib/topology/analyses/seeded-random';
import type { KubeObject } from '../types';

/** Deterministic pseudo-random stream (mulberry32) for names and IPs. */
export const seeded: (seed: number) => () => number = createSeededRandom;

const ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';

/** A Kubernetes-looking random suffix (`generateName` style). */
export function suffix(random: () => number, length = 5): string {
  let out = '';
  for (let i = 0; i < length; i++) out += ALPHABET[Math.floor(random() * ALPHABET.length)];
  return out;
}

/** Shape of one node group. */
export interface NodeGroupSpec {
  zone: string | null;
  count: number;
  /** Allocatable CPU quantity per node, e.g. `3920m`. */
  cpu: string | null;
  instanceType?: string;
  region?: string;
  nodeGroup?: string;
  ready?: boolean;
  controlPlane?: boolean;
  /** Kubelet version shown in nodeInfo. */
  kubeletVersion?: string;
  namePrefix?: string;
  /** Zone in `spec.providerID` when it differs from the label (e.g. an unlabeled node). */
  providerZone?: string;
}

/** Builds scenario objects in order. */
export class ScenarioBuilder {
  readonly objects: KubeObject[] = [];
  private readonly random: () => number;
  private nodeIndex = 0;
  private podIndex = 0;
  private readonly nodesByZone = new Map<string, string[]>();
  readonly kubeletVersion: string;

  constructor(seed: number, kubeletVersion: string) {
    this.random = seeded(seed);
    this.kubeletVersion = kubeletVersion;
  }

  private uid(): string {
    const hex = () => Math.floor(this.random() * 0x10000).toString(16).padStart(4, '0');
    return `${hex()}${hex()}-${hex()}-4${hex().slice(1)}-a${hex().slice(1)}-${hex()}${hex()}${hex()}`;
  }

  /** Adds a group of nodes; returns their names. */
  nodes(spec: NodeGroupSpec): string[] {
    const names: string[] = [];
    const region = spec.region ?? 'ap-northeast-2';
    for (let i = 0; i < spec.count; i++) {
      this.nodeIndex++;
      const ip = `192.168.${Math.floor(this.nodeIndex / 200)}.${(this.nodeIndex % 200) + 10}`;
      const name = spec.namePrefix ? `${spec.namePrefix}-${i + 1}` : `ip-${ip.replaceAll('.', '-')}.${region}.compute.internal`;
      const labels: Record<string, string> = {
        'kubernetes.io/arch': 'amd64',
        'kubernetes.io/os': 'linux',
        'kubernetes.io/hostname': name,
        'node.kubernetes.io/instance-type': spec.instanceType ?? 'm5.xlarge',
        'topology.kubernetes.io/region': region,
      };
      if (spec.zone !== null) labels['topology.kubernetes.io/zone'] = spec.zone;
      if (spec.nodeGroup) labels['eks.amazonaws.com/nodegroup'] = spec.nodeGroup;
      if (spec.controlPlane) labels['node-role.kubernetes.io/control-plane'] = '';
      const allocatable: Record<string, string> = { memory: '15140916Ki', pods: '58', 'ephemeral-storage': '76224326324' };
      if (spec.cpu !== null) allocatable.cpu = spec.cpu;
      const ready = spec.ready ?? true;
      this.objects.push({
        apiVersion: 'v1',
        kind: 'Node',
        metadata: { name, uid: this.uid(), labels, annotations: { 'node.alpha.kubernetes.io/ttl': '0', 'volumes.kubernetes.io/controller-managed-attach-detach': 'true' } },
        spec: {
          providerID: `aws:///${spec.providerZone ?? spec.zone ?? `${region}a`}/i-0${Math.floor(this.random() * 2 ** 52).toString(16).padStart(16, '0')}`,
          ...(spec.controlPlane ? { taints: [{ key: 'node-role.kubernetes.io/control-plane', effect: 'NoSchedule' }] } : {}),
        },
        status: {
          capacity: spec.cpu === null ? { ...allocatable, memory: '16132916Ki' } : { ...allocatable, cpu: '4', memory: '16132916Ki' },
          allocatable,
          conditions: [
            { type: 'MemoryPressure', status: 'False', reason: 'KubeletHasSufficientMemory', message: 'kubelet has sufficient memory available' },
            { type: 'DiskPressure', status: 'False', reason: 'KubeletHasNoDiskPressure', message: 'kubelet has no disk pressure' },
            { type: 'PIDPressure', status: 'False', reason: 'KubeletHasSufficientPID', message: 'kubelet has sufficient PID available' },
            ready
              ? { type: 'Ready', status: 'True', reason: 'KubeletReady', message: 'kubelet is posting ready status' }
              : { type: 'Ready', status: 'Unknown', reason: 'NodeStatusUnknown', message: 'Kubelet stopped posting node status.' },
          ],
          addresses: [
            { type: 'InternalIP', address: ip },
            { type: 'Hostname', address: name },
          ],
          nodeInfo: {
            kubeletVersion: spec.kubeletVersion ?? this.kubeletVersion,
            kubeProxyVersion: spec.kubeletVersion ?? this.kubeletVersion,
            containerRuntimeVersion: 'containerd://1.7.22',
            operatingSystem: 'linux',
            architecture: 'amd64',
            osImage: 'Amazon Linux 2023.6.20241121',
          },
        },
      });
      if (ready && !spec.controlPlane && spec.zone) {
        const list = this.nodesByZone.get(spec.zone) ?? [];
        list.push(name);
        this.nodesByZone.set(spec.zone, list);
      }
      names.push(name);
    }
    return names;
  }

  namespace(name: string): void {
    this.objects.push({ apiVersion: 'v1', kind: 'Namespace', metadata: { name, uid: this.uid(), labels: { 'kubernetes.io/metadata.name': name } } });
  }

  /**
   * A Deployment with its ReplicaSet and Pods, placed `podsPerZone` (zone → count), round-robin
   * over the ready worker nodes of each zone. Returns the pod labels.
   */
  deployment(options: {
    namespace: string;
    name: string;
    podsPerZone: Record<string, number>;
    zoneSpread?: { maxSkew: number; whenUnsatisfiable: 'DoNotSchedule' | 'ScheduleAnyway' };
    containerPort?: number;
    readyPods?: boolean;
  }): Record<string, string> {
    const { namespace, name, podsPerZone } = options;
    const labels = { 'app.kubernetes.io/name': name, 'app.kubernetes.io/part-of': namespace };
    const replicas = Object.values(podsPerZone).reduce((a, b) => a + b, 0);
    const hash = suffix(this.random, 10);
    const deploymentUid = this.uid();
    const rsUid = this.uid();
    const rsName = `${name}-${hash}`;
    const containerPort = options.containerPort ?? 8080;
    const podSpec: Record<string, unknown> = {
      containers: [
        {
          name,
          image: `public.ecr.aws/zonescope/${name}:1.4.2`,
          ports: [{ name: 'http', containerPort, protocol: 'TCP' }],
          resources: { requests: { cpu: '250m', memory: '256Mi' }, limits: { memory: '512Mi' } },
          readinessProbe: { httpGet: { path: '/healthz', port: 'http' }, periodSeconds: 5 },
        },
      ],
      terminationGracePeriodSeconds: 30,
      serviceAccountName: 'default',
    };
    if (options.zoneSpread) {
      podSpec.topologySpreadConstraints = [
        { maxSkew: options.zoneSpread.maxSkew, topologyKey: 'topology.kubernetes.io/zone', whenUnsatisfiable: options.zoneSpread.whenUnsatisfiable, labelSelector: { matchLabels: labels } },
      ];
    }
    this.objects.push({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name, namespace, uid: deploymentUid, labels, annotations: { 'deployment.kubernetes.io/revision': '1' }, generation: 1 },
      spec: {
        replicas,
        selector: { matchLabels: labels },
        strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: '25%', maxUnavailable: '25%' } },
        template: { metadata: { labels }, spec: podSpec },
      },
      status: { observedGeneration: 1, replicas, updatedReplicas: replicas, readyReplicas: replicas, availableReplicas: replicas },
    });
    const rsLabels = { ...labels, 'pod-template-hash': hash };
    this.objects.push({
      apiVersion: 'apps/v1',
      kind: 'ReplicaSet',
      metadata: {
        name: rsName,
        namespace,
        uid: rsUid,
        labels: rsLabels,
        annotations: { 'deployment.kubernetes.io/desired-replicas': String(replicas), 'deployment.kubernetes.io/revision': '1' },
        ownerReferences: [{ apiVersion: 'apps/v1', kind: 'Deployment', name, uid: deploymentUid, controller: true, blockOwnerDeletion: true }],
      },
      spec: { replicas, selector: { matchLabels: rsLabels }, template: { metadata: { labels: rsLabels }, spec: podSpec } },
      status: { replicas, readyReplicas: replicas, availableReplicas: replicas, fullyLabeledReplicas: replicas, observedGeneration: 1 },
    });
    for (const zone of Object.keys(podsPerZone).sort()) {
      const zoneNodes = this.nodesByZone.get(zone) ?? [];
      if (zoneNodes.length === 0) throw new Error(`scenario: no ready worker node in zone ${zone} for ${namespace}/${name}`);
      for (let i = 0; i < (podsPerZone[zone] ?? 0); i++) {
        this.podIndex++;
        const nodeName = zoneNodes[(i + this.podIndex) % zoneNodes.length] ?? '';
        const ready = options.readyPods ?? true;
        this.objects.push({
          apiVersion: 'v1',
          kind: 'Pod',
          metadata: {
            name: `${rsName}-${suffix(this.random)}`,
            namespace,
            uid: this.uid(),
            labels: rsLabels,
            ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: rsName, uid: rsUid, controller: true, blockOwnerDeletion: true }],
          },
          spec: { ...podSpec, nodeName },
          status: {
            phase: 'Running',
            podIP: `10.100.${Math.floor(this.podIndex / 250)}.${(this.podIndex % 250) + 2}`,
            hostIP: '',
            conditions: [
              { type: 'PodScheduled', status: 'True' },
              { type: 'Initialized', status: 'True' },
              { type: 'ContainersReady', status: ready ? 'True' : 'False' },
              { type: 'Ready', status: ready ? 'True' : 'False' },
            ],
          },
        });
      }
    }
    return labels;
  }

  /** A Service selecting `selector`. */
  service(options: {
    namespace: string;
    name: string;
    selector: Record<string, string>;
    annotations?: Record<string, string>;
    type?: 'ClusterIP' | 'NodePort' | 'LoadBalancer';
    externalTrafficPolicy?: 'Cluster' | 'Local';
    internalTrafficPolicy?: 'Cluster' | 'Local';
    trafficDistribution?: string;
    port?: number;
    targetPort?: number;
    loadBalancerHostname?: string;
  }): void {
    const type = options.type ?? 'ClusterIP';
    const spec: Record<string, unknown> = {
      type,
      selector: options.selector,
      ports: [
        {
          name: 'http',
          protocol: 'TCP',
          port: options.port ?? 80,
          targetPort: options.targetPort ?? 8080,
          ...(type === 'ClusterIP' ? {} : { nodePort: 30000 + Math.floor(this.random() * 2767) }),
        },
      ],
      clusterIP: `172.20.${Math.floor(this.random() * 250)}.${Math.floor(this.random() * 250) + 2}`,
      ipFamilies: ['IPv4'],
      ipFamilyPolicy: 'SingleStack',
      sessionAffinity: 'None',
      internalTrafficPolicy: options.internalTrafficPolicy ?? 'Cluster',
    };
    spec.clusterIPs = [spec.clusterIP];
    if (type !== 'ClusterIP') spec.externalTrafficPolicy = options.externalTrafficPolicy ?? 'Cluster';
    if (options.trafficDistribution) spec.trafficDistribution = options.trafficDistribution;
    this.objects.push({
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: options.name, namespace: options.namespace, uid: this.uid(), labels: { 'app.kubernetes.io/name': options.name }, annotations: options.annotations ?? {} },
      spec,
      status: type === 'LoadBalancer' ? { loadBalancer: { ingress: [{ hostname: options.loadBalancerHostname ?? `${options.name}-${suffix(this.random, 8)}.elb.ap-northeast-2.amazonaws.com` }] } } : { loadBalancer: {} },
    });
  }

  /** An autoscaling/v2 HPA on a Deployment. */
  hpa(namespace: string, deployment: string, minReplicas: number, maxReplicas: number, currentReplicas: number): void {
    this.objects.push({
      apiVersion: 'autoscaling/v2',
      kind: 'HorizontalPodAutoscaler',
      metadata: { name: deployment, namespace, uid: this.uid() },
      spec: {
        scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: deployment },
        minReplicas,
        maxReplicas,
        metrics: [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 60 } } }],
        behavior: { scaleDown: { stabilizationWindowSeconds: 300, policies: [{ type: 'Percent', value: 50, periodSeconds: 60 }] } },
      },
      status: { currentReplicas, desiredReplicas: currentReplicas, currentMetrics: [{ type: 'Resource', resource: { name: 'cpu', current: { averageUtilization: 41, averageValue: '102m' } } }] },
    });
  }

  /** The EKS kube-proxy ConfigMap (`kube-system/kube-proxy-config`). */
  kubeProxyConfig(mode: '' | 'iptables' | 'ipvs' | 'nftables', scheduler = ''): void {
    const config = [
      'apiVersion: kubeproxy.config.k8s.io/v1alpha1',
      'kind: KubeProxyConfiguration',
      'bindAddress: 0.0.0.0',
      'clientConnection:',
      '  kubeconfig: /var/lib/kube-proxy/kubeconfig',
      'clusterCIDR: ""',
      'iptables:',
      '  masqueradeAll: false',
      '  syncPeriod: 30s',
      'ipvs:',
      `  scheduler: "${scheduler}"`,
      '  syncPeriod: 30s',
      `mode: "${mode}"`,
      'metricsBindAddress: 0.0.0.0:10249',
      '',
    ].join('\n');
    this.objects.push({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'kube-proxy-config', namespace: 'kube-system', uid: this.uid(), labels: { 'eks.amazonaws.com/component': 'kube-proxy', 'k8s-app': 'kube-proxy' } },
      data: { config },
    });
  }

  /** `kube-system/cilium-config`. */
  ciliumConfig(kubeProxyReplacement: string, serviceTopology: boolean): void {
    this.objects.push({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'cilium-config', namespace: 'kube-system', uid: this.uid() },
      data: {
        'kube-proxy-replacement': kubeProxyReplacement,
        'enable-service-topology': String(serviceTopology),
        'routing-mode': 'native',
        'ipam': 'eni',
        'enable-endpoint-slice': 'true',
      },
    });
  }

  /** A DaemonSet marker (e.g. `aws-node` for the AWS VPC CNI, `kube-proxy`). */
  daemonSet(namespace: string, name: string, image: string): void {
    const labels = { 'k8s-app': name };
    this.objects.push({
      apiVersion: 'apps/v1',
      kind: 'DaemonSet',
      metadata: { name, namespace, uid: this.uid(), labels },
      spec: { selector: { matchLabels: labels }, template: { metadata: { labels }, spec: { containers: [{ name, image }] } } },
      status: { desiredNumberScheduled: 0, numberReady: 0 },
    });
  }
}
