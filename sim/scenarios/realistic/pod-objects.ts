/**
 * Pods of the realistic cluster as `kubectl get -o json` prints them: the template's spec with
 * what admission adds (the service-account token volume and its mounts, the default
 * tolerations, priority), the status a kubelet reports (Running with its conditions and
 * container statuses, crash-looping for a NotReady pod, Pending and Unschedulable without a
 * node), managedFields, a terminating pod's deletion timestamp; and the pod-template-hash and the
 * API server's defaults for pod templates and containers.
 */
import type { KubeObject } from '../../types';
import { suffix } from '../builder';
import type { Json, Toleration } from './catalogue';
import { NOW } from './catalogue';
import type { Dice } from './dice';
import type { ImageCatalogue } from './images';
import type { GenNode } from './node-layout';
import type { Placement } from './placement';

/** A pod's node and health. */
export interface PodState {
  node: GenNode | null;
  ready: boolean;
  terminating: boolean;
  restarts: number;
}

/** What a pod is: its names, owner, template, containers, state and the manager that created it. */
export interface PodOptions {
  readonly namespace: string;
  readonly name: string;
  readonly labels: Record<string, string>;
  readonly annotations: Record<string, string>;
  readonly owner: Json;
  readonly template: Json;
  readonly containers: Json[];
  readonly state: PodState;
  readonly hostNetwork: boolean;
  readonly serviceAccount: string;
  readonly qos: string;
  readonly created: string;
  readonly manager: string;
}

/** What building a pod draws on. */
export interface PodBuilder {
  readonly dice: Dice;
  readonly images: ImageCatalogue;
  readonly placement: Placement;
  /** Nodes in the cluster (a Pending pod's message counts them). */
  readonly nodeCount: number;
}

/** kube-controller-manager's pod-template-hash alphabet and length. */
export function templateHash(text: string): string {
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

/** The tolerations admission adds to every pod (not-ready and unreachable for 300 s). */
const DEFAULT_TOLERATIONS: Toleration[] = [
  { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
  { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
];

/** A pod template's spec with the API server's defaults, plus `extra`. */
export const baseTemplateSpec = (extra: Json): Json => ({
  dnsPolicy: 'ClusterFirst', restartPolicy: 'Always', schedulerName: 'default-scheduler', securityContext: {}, terminationGracePeriodSeconds: 30, ...extra,
});
/** A container with the API server's defaults. */
export const defaultedContainer = (c: Json): Json => ({ imagePullPolicy: 'IfNotPresent', terminationMessagePath: '/dev/termination-log', terminationMessagePolicy: 'File', ...c });

/** A pod (see the file header); counted by the placement. */
export function podObject(b: PodBuilder, options: PodOptions): KubeObject {
  const { hex, int, random, uid } = b.dice;
  const { digestOf } = b.images;
  const { state, namespace, name, created } = options;
  const podIp = state.node === null ? null : options.hostNetwork ? state.node.ip : b.placement.nextPodIp(state.node.zoneIndex);
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
    ? { phase: 'Pending', qosClass: options.qos, conditions: [{ type: 'PodScheduled', status: 'False', lastProbeTime: null, lastTransitionTime: created, reason: 'Unschedulable', message: `0/${b.nodeCount} nodes are available: ${Math.max(1, Math.round(b.nodeCount * 0.1))} node(s) had untolerated taint {workload: batch}, ${Math.max(1, b.nodeCount - Math.round(b.nodeCount * 0.1))} Insufficient cpu. preemption: 0/${b.nodeCount} nodes are available.` }] }
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
  b.placement.count(state.node);
  return { apiVersion: 'v1', kind: 'Pod', metadata: metadata as KubeObject['metadata'], spec, status };
}
