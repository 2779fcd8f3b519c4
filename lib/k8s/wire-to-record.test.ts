import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parse, parseAllDocuments } from 'yaml';
import { describe, expect, it } from 'vitest';
import { generateRealisticCluster, REALISTIC_SCALES } from '../../sim/scenarios/realistic';
import type { Json } from './wire-to-record/json';
import { isJsonObject, timestamp } from './wire-to-record/json';
import { labelSelector } from './wire-to-record/metadata';
import { projectNode } from './wire-to-record/node';
import { isServiceAnnotationKept, projectService } from './wire-to-record/service';
import { projectEndpointSlice } from './wire-to-record/endpoint-slice';
import { projectDeployment, projectHpa, projectPod, projectReplicaSet } from './wire-to-record/workloads';
import { isServiceEvent, projectEvent } from './wire-to-record/event';
import { combineDataplaneFacts, parseKubeProxyConfiguration, projectCalicoConfigMap, projectCalicoObject, projectCiliumConfigMap, projectDataplaneObject, projectProxyConfigMap } from './wire-to-record/dataplane';
import { detectPlatform, projectServerVersion } from './wire-to-record/server-version';

const testdata = (file: string): string => readFileSync(path.join(__dirname, 'testdata', file), 'utf8');

/** Items of the kubectl `v1 List` dump, by `Kind/name`. */
function dumpItems(file: string): Map<string, Json> {
  const items = new Map<string, Json>();
  for (const doc of parseAllDocuments(testdata(file))) {
    const list = doc.toJS() as { kind: string; items: Json[] };
    const itemKind = list.kind === 'List' ? undefined : list.kind.replace(/List$/, '');
    for (const item of list.items) {
      const meta = item.metadata as { name: string };
      items.set(`${(item.kind as string | undefined) ?? itemKind}/${meta.name}`, item);
    }
  }
  return items;
}

const dump = dumpItems('kubectl-dump.yaml');
const kubeSystem = dumpItems('kube-system.yaml');

function item(map: Map<string, Json>, key: string): Json {
  const value = map.get(key);
  if (value === undefined) throw new Error(`no ${key} in testdata`);
  return value;
}

describe('projectNode', () => {
  it('keeps zone, region, allocatable CPU, Ready and the topology labels of a kubectl Node', () => {
    const node = projectNode(item(dump, 'Node/ip-10-0-1-23.eu-west-1.compute.internal'));
    expect(node).toEqual({
      name: 'ip-10-0-1-23.eu-west-1.compute.internal',
      zone: 'eu-west-1a',
      region: 'eu-west-1',
      allocatableCpu: '3920m',
      ready: true,
      unschedulable: false,
      labels: {
        'topology.kubernetes.io/zone': 'eu-west-1a',
        'topology.kubernetes.io/region': 'eu-west-1',
        'node.kubernetes.io/instance-type': 'm5.xlarge',
        'eks.amazonaws.com/nodegroup': 'general',
        'kubernetes.io/hostname': 'ip-10-0-1-23.eu-west-1.compute.internal',
      },
      providerID: 'aws:///eu-west-1a/i-0a1b2c3d4e5f60718',
    });
  });

  it('reads Ready=Unknown as not ready, the control-plane label and cordoning', () => {
    const node = projectNode(item(dump, 'Node/ip-10-0-2-7.eu-west-1.compute.internal'));
    expect(node.ready).toBe(false);
    expect(node.unschedulable).toBe(true);
    expect(node.labels['node-role.kubernetes.io/control-plane']).toBe('');
    expect(node.allocatableCpu).toBe('2');
  });

  it('distinguishes a missing zone label (null) from an empty one', () => {
    expect(projectNode({ metadata: { name: 'a', labels: {} } }).zone).toBeNull();
    expect(projectNode({ metadata: { name: 'a', labels: { 'topology.kubernetes.io/zone': '' } } }).zone).toBe('');
    expect(projectNode({ metadata: { name: 'a' }, status: { conditions: [] } }).ready).toBeNull();
  });
});

describe('projectService', () => {
  it('reads a LoadBalancer Service with topology-mode, policies, class and ingress', () => {
    const service = projectService(item(dump, 'Service/checkout'));
    expect(service).toMatchObject({
      namespace: 'shop',
      name: 'checkout',
      uid: '5a0d6c55-2f4b-4f0e-8f0a-3d7c1b2e9f33',
      resourceVersion: '81230001',
      type: 'LoadBalancer',
      selector: { 'app.kubernetes.io/name': 'checkout' },
      clusterIP: '172.20.14.9',
      externalTrafficPolicy: 'Local',
      internalTrafficPolicy: 'Cluster',
      trafficDistribution: null,
      ports: [{ name: 'http', protocol: 'TCP', port: 80, nodePort: 30080 }],
      loadBalancerIngress: ['k8s-shop-checkout-0123456789.elb.eu-west-1.amazonaws.com'],
      loadBalancerClass: 'service.k8s.aws/nlb',
      ipFamilies: ['IPv4'],
    });
    expect(service.annotations['service.kubernetes.io/topology-mode']).toBe('Auto');
  });

  it('reads trafficDistribution and a selector-less headless Service', () => {
    const service = projectService(item(dump, 'Service/legacy-db'));
    expect(service.trafficDistribution).toBe('PreferClose');
    expect(service.selector).toBeNull();
    expect(service.ports[0]).toEqual({ name: '', protocol: 'TCP', port: 5432, nodePort: null });
  });
});

describe('projectEndpointSlice', () => {
  it('reads endpoints with hints, conditions, zone, node and pod', () => {
    const slice = projectEndpointSlice(item(dump, 'EndpointSlice/checkout-8k2lm'));
    expect(slice.serviceName).toBe('checkout');
    expect(slice.managedBy).toBe('endpointslice-controller.k8s.io');
    expect(slice.ports).toEqual([{ name: 'http', port: 8080, protocol: 'TCP' }]);
    expect(slice.endpoints).toEqual([
      {
        addresses: ['10.0.1.50'],
        zone: 'eu-west-1a',
        nodeName: 'ip-10-0-1-23.eu-west-1.compute.internal',
        ready: true,
        serving: true,
        terminating: false,
        hints: { forZones: ['eu-west-1a'] },
        podName: 'checkout-7d9f8b6c5d-x2x8q',
      },
      {
        addresses: ['10.0.2.61'],
        zone: 'eu-west-1b',
        nodeName: 'ip-10-0-2-7.eu-west-1.compute.internal',
        ready: false,
        serving: true,
        terminating: true,
        hints: null,
        podName: 'checkout-7d9f8b6c5d-pq7rm',
      },
    ]);
  });

  it('accepts `endpoints: null` as kubectl prints for an empty slice', () => {
    expect(projectEndpointSlice(item(dump, 'EndpointSlice/legacy-db-abcde')).endpoints).toEqual([]);
  });
});

describe('projectPod', () => {
  it('reads readiness from the Ready condition and the controller owner', () => {
    expect(projectPod(item(dump, 'Pod/checkout-7d9f8b6c5d-x2x8q'))).toEqual({
      namespace: 'shop',
      name: 'checkout-7d9f8b6c5d-x2x8q',
      labels: { 'app.kubernetes.io/name': 'checkout', 'pod-template-hash': '7d9f8b6c5d' },
      nodeName: 'ip-10-0-1-23.eu-west-1.compute.internal',
      phase: 'Running',
      ready: true,
      terminating: false,
      owner: { kind: 'ReplicaSet', name: 'checkout-7d9f8b6c5d' },
    });
  });

  it('marks a pod with a deletionTimestamp terminating (string or Date)', () => {
    const pod = projectPod(item(dump, 'Pod/checkout-7d9f8b6c5d-pq7rm'));
    expect(pod.terminating).toBe(true);
    expect(pod.ready).toBe(false);
    expect(projectPod({ metadata: { name: 'p', deletionTimestamp: new Date('2024-01-01T00:00:00Z') } }).terminating).toBe(true);
  });

  it('ignores owner references that are not the controller', () => {
    const pod = projectPod({ metadata: { name: 'p', ownerReferences: [{ kind: 'ReplicaSet', name: 'rs', controller: false }] } });
    expect(pod.owner).toBeNull();
    expect(pod.namespace).toBe('default');
  });
});

describe('projectDeployment', () => {
  it('reads selector expressions, template labels, spread constraints and zone anti-affinity', () => {
    const deployment = projectDeployment(item(dump, 'Deployment/checkout'));
    expect(deployment).toEqual({
      namespace: 'shop',
      name: 'checkout',
      replicas: 6,
      readyReplicas: 5,
      selector: {
        matchLabels: { 'app.kubernetes.io/name': 'checkout' },
        // The expression with the unknown operator `Near` is dropped.
        matchExpressions: [{ key: 'tier', operator: 'NotIn', values: ['canary'] }],
      },
      templateLabels: { 'app.kubernetes.io/name': 'checkout' },
      topologySpreadConstraints: [
        {
          topologyKey: 'topology.kubernetes.io/zone',
          maxSkew: 1,
          whenUnsatisfiable: 'DoNotSchedule',
          labelSelector: { matchLabels: { 'app.kubernetes.io/name': 'checkout' }, matchExpressions: [] },
          minDomains: 3,
        },
        { topologyKey: 'kubernetes.io/hostname', maxSkew: 2, whenUnsatisfiable: 'ScheduleAnyway', labelSelector: null, minDomains: null },
      ],
      zoneAntiAffinity: true,
    });
  });

  it('defaults replicas to 1 and recognises the legacy zone key in anti-affinity', () => {
    const deployment = projectDeployment({
      metadata: { name: 'd', namespace: 'x' },
      spec: {
        template: {
          spec: {
            affinity: { podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ topologyKey: 'failure-domain.beta.kubernetes.io/zone' }] } },
          },
        },
      },
    });
    expect(deployment.replicas).toBe(1);
    expect(deployment.readyReplicas).toBe(0);
    expect(deployment.zoneAntiAffinity).toBe(true);
    expect(deployment.selector).toEqual({ matchLabels: {}, matchExpressions: [] });
  });

  it('does not count preferred anti-affinity or a hostname key', () => {
    const deployment = projectDeployment({
      metadata: { name: 'd' },
      spec: {
        template: {
          spec: {
            affinity: {
              podAntiAffinity: {
                preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 100, podAffinityTerm: { topologyKey: 'topology.kubernetes.io/zone' } }],
                requiredDuringSchedulingIgnoredDuringExecution: [{ topologyKey: 'kubernetes.io/hostname' }],
              },
            },
          },
        },
      },
    });
    expect(deployment.zoneAntiAffinity).toBe(false);
  });
});

describe('projectReplicaSet and projectHpa', () => {
  it('reads a ReplicaSet with its Deployment owner', () => {
    expect(projectReplicaSet(item(dump, 'ReplicaSet/checkout-7d9f8b6c5d'))).toEqual({
      namespace: 'shop',
      name: 'checkout-7d9f8b6c5d',
      replicas: 6,
      owner: { kind: 'Deployment', name: 'checkout' },
    });
  });

  it('reads an autoscaling/v2 HPA', () => {
    expect(projectHpa(item(dump, 'HorizontalPodAutoscaler/checkout'))).toEqual({
      namespace: 'shop',
      name: 'checkout',
      scaleTargetRef: { kind: 'Deployment', name: 'checkout' },
      minReplicas: 3,
      maxReplicas: 12,
      currentReplicas: 6,
      desiredReplicas: 6,
    });
  });

  it('reads an autoscaling/v1 HPA (minReplicas defaults to 1)', () => {
    const hpa = projectHpa({
      apiVersion: 'autoscaling/v1',
      kind: 'HorizontalPodAutoscaler',
      metadata: { name: 'web', namespace: 'a' },
      spec: { maxReplicas: 5, scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' }, targetCPUUtilizationPercentage: 80 },
      status: { currentReplicas: 2, desiredReplicas: 3, currentCPUUtilizationPercentage: 90 },
    });
    expect(hpa).toMatchObject({ minReplicas: 1, maxReplicas: 5, currentReplicas: 2, desiredReplicas: 3 });
  });
});

describe('projectEvent', () => {
  it('reads a core v1 Event about a Service', () => {
    const raw = item(dump, 'Event/checkout.17d7a2b3c4d5e6f7');
    expect(isServiceEvent(raw)).toBe(true);
    expect(projectEvent(raw)).toEqual({
      namespace: 'shop',
      name: 'checkout.17d7a2b3c4d5e6f7',
      involvedObject: { kind: 'Service', name: 'checkout', namespace: 'shop' },
      type: 'Warning',
      reason: 'TopologyAwareHintsDisabled',
      message: 'Topology Aware Hints has been disabled: Insufficient number of endpoints, addressType: IPv4',
      count: 4,
      firstTimestamp: '2024-06-10T08:00:10Z',
      lastTimestamp: '2024-06-10T11:59:59Z',
    });
  });

  it('recognises Events about other kinds', () => {
    expect(isServiceEvent(item(dump, 'Event/checkout-7d9f8b6c5d-pq7rm.17d7a2b3c4d5e6f8'))).toBe(false);
  });

  it('reads the events.k8s.io/v1 shape (regarding, note, deprecatedCount, series, eventTime)', () => {
    const raw = {
      apiVersion: 'events.k8s.io/v1',
      kind: 'Event',
      metadata: { name: 'web.1', namespace: 'a' },
      regarding: { kind: 'Service', name: 'web', namespace: 'a' },
      note: 'Topology Aware Hints has been enabled, addressType: IPv4',
      reason: 'TopologyAwareHintsEnabled',
      type: 'Normal',
      eventTime: '2024-06-10T08:00:00.000000Z',
      series: { count: 7, lastObservedTime: '2024-06-10T09:00:00.000000Z' },
      reportingController: 'endpoint-slice-controller',
    };
    expect(isServiceEvent(raw)).toBe(true);
    expect(projectEvent(raw)).toEqual({
      namespace: 'a',
      name: 'web.1',
      involvedObject: { kind: 'Service', name: 'web', namespace: 'a' },
      type: 'Normal',
      reason: 'TopologyAwareHintsEnabled',
      message: 'Topology Aware Hints has been enabled, addressType: IPv4',
      count: 7,
      firstTimestamp: '2024-06-10T08:00:00.000000Z',
      lastTimestamp: '2024-06-10T09:00:00.000000Z',
    });
    expect(projectEvent({ ...raw, series: undefined, deprecatedCount: 3, deprecatedLastTimestamp: '2024-06-10T10:00:00Z' })).toMatchObject({
      count: 3,
      lastTimestamp: '2024-06-10T10:00:00Z',
    });
  });

  it('accepts Date timestamps (client-node models) and defaults a zero count to 1', () => {
    const event = projectEvent({
      metadata: { name: 'e', namespace: 'a' },
      involvedObject: { kind: 'Service', name: 'web' },
      count: 0,
      firstTimestamp: new Date('2024-06-10T08:00:00Z'),
      lastTimestamp: new Date('2024-06-10T08:05:00Z'),
    });
    expect(event).toMatchObject({ count: 1, firstTimestamp: '2024-06-10T08:00:00.000Z', lastTimestamp: '2024-06-10T08:05:00.000Z' });
    expect(event.involvedObject.namespace).toBe('a');
    expect(timestamp(new Date('invalid'))).toBeNull();
  });
});

describe('kube-proxy configuration', () => {
  it('reads the EKS kube-proxy-config ConfigMap (ipvs, empty scheduler → rr)', () => {
    expect(projectProxyConfigMap(item(kubeSystem, 'ConfigMap/kube-proxy-config'))).toEqual({
      mode: 'ipvs',
      modeAsWritten: 'ipvs',
      ipvsScheduler: 'rr',
      source: 'kube-system/kube-proxy-config',
    });
  });

  it('reads the kubeadm kube-proxy ConfigMap (config.conf)', () => {
    const configMap = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'kube-proxy', namespace: 'kube-system' },
      data: { 'config.conf': 'apiVersion: kubeproxy.config.k8s.io/v1alpha1\nkind: KubeProxyConfiguration\nmode: ""\nipvs:\n  scheduler: ""\n', 'kubeconfig.conf': 'x' },
    };
    expect(projectProxyConfigMap(configMap)).toEqual({ mode: 'iptables', modeAsWritten: '', ipvsScheduler: null, source: 'kube-system/kube-proxy' });
  });

  it.each([
    ['mode: nftables', 'nftables', null],
    ['mode: ipvs\nipvs:\n  scheduler: lc', 'ipvs', 'lc'],
    ['mode: userspace', 'unknown', null],
    ['{}', 'iptables', null],
    ['mode: [', 'unknown', null],
    ['- a list', 'unknown', null],
  ])('%j → mode %s, scheduler %s', (text, mode, scheduler) => {
    const record = parseKubeProxyConfiguration(text, 'x');
    expect(record.mode).toBe(mode);
    expect(record.ipvsScheduler).toBe(scheduler);
  });

  it('ignores ConfigMaps of other names or namespaces, and a kube-proxy ConfigMap without a config key reads as unknown', () => {
    expect(projectProxyConfigMap(item(kubeSystem, 'ConfigMap/coredns'))).toBeNull();
    expect(projectProxyConfigMap({ metadata: { name: 'kube-proxy', namespace: 'default' }, data: { config: 'mode: ipvs' } })).toBeNull();
    expect(projectProxyConfigMap(item(kubeSystem, 'ConfigMap/kube-proxy'))?.mode).toBe('unknown');
  });

  it('prefers kube-proxy-config over kube-proxy when both carry a configuration', () => {
    const eks = projectDataplaneObject(item(kubeSystem, 'ConfigMap/kube-proxy-config'));
    const kubeadm = projectDataplaneObject({ kind: 'ConfigMap', metadata: { name: 'kube-proxy', namespace: 'kube-system' }, data: { 'config.conf': 'mode: nftables' } });
    if (eks === null || kubeadm === null) throw new Error('expected facts');
    expect(combineDataplaneFacts([eks, kubeadm]).proxy?.mode).toBe('ipvs');
    expect(combineDataplaneFacts([kubeadm, eks]).proxy?.mode).toBe('ipvs');
  });
});

describe('CNI facts', () => {
  it('reads cilium-config: kube-proxy replacement and enable-service-topology', () => {
    expect(projectCiliumConfigMap(item(kubeSystem, 'ConfigMap/cilium-config'))).toEqual({
      kubeProxyReplacement: 'true',
      serviceTopology: true,
      source: 'kube-system/cilium-config',
    });
    expect(projectCiliumConfigMap({ metadata: { name: 'cilium-config', namespace: 'kube-system' }, data: { 'kube-proxy-replacement': 'strict' } })).toEqual({
      kubeProxyReplacement: 'strict',
      serviceTopology: false,
      source: 'kube-system/cilium-config',
    });
  });

  it('reads Calico eBPF from the calico-node env, FelixConfiguration, Installation or calico-config', () => {
    const daemonSet = { ...item(kubeSystem, 'DaemonSet/calico-node'), kind: 'DaemonSet' };
    expect(projectCalicoObject(daemonSet)).toEqual({ bpfEnabled: true, source: 'kube-system/calico-node (FELIX_BPFENABLED)' });
    expect(projectCalicoObject({ apiVersion: 'crd.projectcalico.org/v1', kind: 'FelixConfiguration', metadata: { name: 'default' }, spec: { bpfEnabled: false } })).toEqual({
      bpfEnabled: false,
      source: 'FelixConfiguration/default',
    });
    expect(projectCalicoObject({ kind: 'FelixConfiguration', metadata: { name: 'default' }, spec: { logSeverityScreen: 'Info' } })).toBeNull();
    expect(projectCalicoObject({ kind: 'Installation', metadata: { name: 'default' }, spec: { calicoNetwork: { linuxDataplane: 'BPF' } } })?.bpfEnabled).toBe(true);
    expect(projectCalicoConfigMap({ metadata: { name: 'calico-config', namespace: 'kube-system' }, data: { FELIX_BPFENABLED: 'true' } })?.bpfEnabled).toBe(true);
    expect(projectCalicoConfigMap({ metadata: { name: 'calico-config', namespace: 'kube-system' }, data: { calico_backend: 'bird' } })).toBeNull();
  });

  it('detects the AWS VPC CNI from the aws-node DaemonSet (items of a DaemonSetList have no kind)', () => {
    const facts = [...kubeSystem.entries()]
      .map(([key, value]) => projectDataplaneObject(value, key.split('/')[0]))
      .filter((f) => f !== null);
    const { proxy, cni } = combineDataplaneFacts(facts);
    expect(proxy?.source).toBe('kube-system/kube-proxy-config');
    expect(cni).toEqual({
      cilium: { kubeProxyReplacement: 'true', serviceTopology: true, source: 'kube-system/cilium-config' },
      calico: { bpfEnabled: true, source: 'kube-system/calico-node (FELIX_BPFENABLED)' },
      awsVpcCni: true,
    });
  });

  it('has no facts for unrelated objects', () => {
    expect(projectDataplaneObject(item(kubeSystem, 'ConfigMap/coredns'))).toBeNull();
    expect(projectDataplaneObject({ metadata: { name: 'kube-proxy', namespace: 'kube-system' } }, 'DaemonSet')).toBeNull();
  });
});

describe('projectServerVersion', () => {
  it('reads /version output (minor with "+")', () => {
    expect(projectServerVersion(parse(testdata('version.json')))).toEqual({ gitVersion: 'v1.30.2-eks-db838b0', minor: 30, platform: 'eks' });
  });

  it.each([
    ['v1.29.4-gke.1043002', 'gke'],
    ['v1.28.3+k3s1', 'k3s'],
    ['v1.30.1+rke2r1', 'rke2'],
    ['v1.31.2', null],
  ])('%s → platform %s', (gitVersion, platform) => {
    expect(detectPlatform(gitVersion)).toBe(platform);
  });

  it('recognises AKS from Azure provider IDs when the version says nothing', () => {
    expect(projectServerVersion({ gitVersion: 'v1.29.2' }, ['azure:///subscriptions/x/resourceGroups/y'])?.platform).toBe('aks');
  });

  it('builds a version from major/minor only, and gives null for nothing', () => {
    expect(projectServerVersion({ major: '1', minor: '27+' })).toEqual({ gitVersion: 'v1.27', minor: 27, platform: null });
    expect(projectServerVersion({})).toBeNull();
    expect(projectServerVersion({ gitVersion: 'v2.0.0' })?.minor).toBeNull();
  });
});

describe('labelSelector', () => {
  it('is null for a non-object and keeps valid expressions', () => {
    expect(labelSelector(undefined)).toBeNull();
    expect(labelSelector({ matchExpressions: [{ key: 'a', operator: 'Exists' }] })).toEqual({
      matchLabels: {},
      matchExpressions: [{ key: 'a', operator: 'Exists', values: [] }],
    });
  });
});

describe('records of realistic objects keep only what is read', () => {
  const objects = generateRealisticCluster(REALISTIC_SCALES.S) as unknown as Json[];
  const ofKind = (kind: string) => objects.filter((o) => o.kind === kind);
  const helmService = (): Json => {
    const found = ofKind('Service').find((o) => isJsonObject(o.metadata) && isJsonObject(o.metadata.annotations) && 'meta.helm.sh/release-name' in o.metadata.annotations);
    if (found === undefined) throw new Error('realistic-S has no Helm Service');
    return found;
  };

  it('drops last-applied-configuration and other annotations nothing reads from a Service; keeps topology, load-balancer and Helm ones', () => {
    const raw = helmService();
    const metadata = raw.metadata as Json;
    const helm = metadata.annotations as Record<string, string>;
    const manifest = JSON.stringify({ apiVersion: 'v1', kind: 'Service', metadata: { name: metadata.name, namespace: metadata.namespace }, spec: raw.spec });
    const annotated = (extra: Record<string, string>): Json => ({
      ...raw,
      metadata: { ...metadata, annotations: { ...helm, 'kubectl.kubernetes.io/last-applied-configuration': `${manifest}\n`, 'example.com/owner-team': 'payments', ...extra } },
    });
    const kept = {
      'service.kubernetes.io/topology-mode': 'Auto',
      'service.beta.kubernetes.io/aws-load-balancer-type': 'nlb-ip',
      'service.beta.kubernetes.io/aws-load-balancer-attributes': 'load_balancing.cross_zone.enabled=false',
      'networking.gke.io/load-balancer-type': 'Internal',
    };
    const record = projectService(annotated(kept));
    expect(record.annotations).toEqual({ ...helm, ...kept });
    expect(JSON.stringify(record)).not.toContain('last-applied');
    // Two Services that differ only in what is dropped share one annotation map.
    const other = projectService({ ...annotated(kept), metadata: { ...(annotated(kept).metadata as Json), annotations: { ...helm, ...kept, 'kubectl.kubernetes.io/last-applied-configuration': '{}' } } });
    expect(other.annotations).toBe(record.annotations);
    expect(isServiceAnnotationKept('argocd.argoproj.io/tracking-id')).toBe(true);
    expect(isServiceAnnotationKept('meta.helm.sh/release-name')).toBe(true);
    expect(isServiceAnnotationKept('kubectl.kubernetes.io/last-applied-configuration')).toBe(false);
  });

  it('projects every realistic object without managedFields, last-applied configuration, specs or statuses', () => {
    const project: Record<string, (raw: Json) => object | null> = {
      Node: projectNode,
      Service: projectService,
      EndpointSlice: projectEndpointSlice,
      Pod: projectPod,
      Deployment: projectDeployment,
      ReplicaSet: projectReplicaSet,
      HorizontalPodAutoscaler: projectHpa,
    };
    const counts: Record<string, number> = {};
    for (const raw of objects) {
      const kind = String(raw.kind);
      const projection = project[kind];
      if (projection === undefined) continue;
      const text = JSON.stringify(projection(raw));
      counts[kind] = (counts[kind] ?? 0) + 1;
      for (const dropped of ['managedFields', 'f:metadata', 'last-applied-configuration', 'containerStatuses', '"images"', 'creationTimestamp', '"uid":"', 'helm.sh/chart']) {
        if (kind === 'Service' && dropped === '"uid":"') continue; // a Service record keeps its uid (optimistic writes)
        if (kind === 'Pod' && dropped === 'helm.sh/chart') continue; // pod labels are kept whole: selectors read them
        expect(text, `${kind} ${JSON.stringify((raw.metadata as Json).name)}`).not.toContain(dropped);
      }
    }
    expect(Object.keys(counts).sort()).toEqual(Object.keys(project).sort());
    // What is read is still there: a realistic pod keeps its labels, node, owner and readiness.
    const rawPod = ofKind('Pod').find((o) => isJsonObject(o.spec) && typeof o.spec.nodeName === 'string' && JSON.stringify((o.metadata as Json).ownerReferences ?? []).includes('ReplicaSet'));
    if (rawPod === undefined) throw new Error('realistic-S has no scheduled pod');
    const pod = projectPod(rawPod);
    expect(pod.labels).toEqual((rawPod.metadata as Json).labels);
    expect(pod.nodeName).toBe((rawPod.spec as Json).nodeName);
    expect(pod.owner).toMatchObject({ kind: 'ReplicaSet' });
    expect(Object.keys(pod).sort()).toEqual(['labels', 'name', 'namespace', 'nodeName', 'owner', 'phase', 'ready', 'terminating']);
  });
});
