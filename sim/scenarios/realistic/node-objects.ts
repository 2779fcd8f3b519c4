/**
 * A Node of the realistic cluster as `kubectl get -o json` prints it on EKS: the well-known and
 * cloud-provider labels, Karpenter's or the managed node group's labels and annotations, taints,
 * the managedFields of kubelet, the cloud controller (or Karpenter) and kube-controller-manager,
 * capacity and allocatable, conditions (Ready, or Unknown for an unreachable node), the images it
 * pulled and its nodeInfo.
 */
import type { KubeObject } from '../../types';
import type { Json } from './catalogue';
import { KUBELET_VERSION, NOW, REGION, ZONE_IDS } from './catalogue';
import type { Dice } from './dice';
import type { ImageCatalogue } from './images';
import type { GenNode } from './node-layout';

/** The Node object of a laid-out node. */
export function nodeObject(node: GenNode, zones: readonly string[], dice: Dice, catalogue: ImageCatalogue): KubeObject {
  const { hex, int, past, pick, uid } = dice;
  const { appImages, imageEntry, systemImages } = catalogue;
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
  return {
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
  };
}
