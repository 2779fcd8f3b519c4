/**
 * The realistic cluster's kube-system as EKS installs it: kube-proxy's configuration (iptables
 * mode) and the DaemonSets on every node — the VPC CNI (`aws-node`) and kube-proxy on the host
 * network, the EBS CSI node driver — with one pod per node.
 */
import type { KubeObject } from '../../types';
import { CLUSTER_CREATED, EKS_ECR } from './catalogue';
import type { EndpointsIndex } from './endpoint-slices';
import type { GenNode } from './node-layout';
import type { PodBuilder } from './pod-objects';
import { baseTemplateSpec, defaultedContainer, podObject, templateHash } from './pod-objects';

/** kube-proxy's ConfigMap, then each DaemonSet and its pods (indexed in `endpoints`). */
export function kubeSystemObjects(b: PodBuilder, nodes: readonly GenNode[], endpoints: EndpointsIndex): KubeObject[] {
  const { generated, int, past, uid } = b.dice;
  const objects: KubeObject[] = [];
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
      const pod = podObject(b, {
        namespace: 'kube-system', name, labels, annotations: {}, owner: { apiVersion: 'apps/v1', kind: 'DaemonSet', name: ds.name, uid: dsUid },
        template: { ...templateSpec, affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchFields: [{ key: 'metadata.name', operator: 'In', values: [node.name] }] }] } } } },
        containers, state: { node, ready: node.ready, terminating: false, restarts: 0 }, hostNetwork: ds.hostNetwork, serviceAccount: ds.name, qos: 'Burstable', created: past(30), manager: 'kube-controller-manager',
      });
      objects.push(pod);
      endpoints.add('kube-system', pod, labels, { [ds.portName]: ds.port });
    }
  }
  return objects;
}
