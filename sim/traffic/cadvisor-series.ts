/**
 * The kubelet's cAdvisor series of pod network bytes on containerd, label for label:
 * `container_network_receive_bytes_total` / `container_network_transmit_bytes_total` on each
 * endpoint pod's sandbox series only (`container=""`, the pause image, the cgroup `id`,
 * `interface="eth0"`, `instance` = the kubelet's `<node InternalIP>:10250`), plus each node's
 * root cgroup (`id="/"`, `interface="ens5"`, no pod) with its pods' total. A hostNetwork pod's
 * sandbox reports the host's interface, so its series repeat the node's total (cAdvisor does;
 * not the pod's bytes). Why each label is what it is, with sources: docs/traffic-simulator.md.
 */
import { createSeededRandom, hashSeed } from '../../lib/topology/analyses/seeded-random';
import type { SeriesLabels, SeriesPart } from './exposition';
import { PartSums, seriesId } from './exposition';

/** cAdvisor's received bytes per pod sandbox and host interface. */
export const POD_RECEIVE_METRIC = 'container_network_receive_bytes_total';
/** cAdvisor's transmitted bytes per pod sandbox and host interface. */
export const POD_TRANSMIT_METRIC = 'container_network_transmit_bytes_total';

/** Port in every cAdvisor series' `instance`: the kubelet's. */
export const KUBELET_PORT = 10250;
/** The sandbox (pause) image of containerd pods. */
const PAUSE_IMAGE = 'registry.k8s.io/pause:3.10';
/** A pod's interface inside its network namespace. */
const POD_INTERFACE = 'eth0';
/** The node's interface (an EC2 Nitro instance's first ENI). */
const HOST_INTERFACE = 'ens5';

/** One pod's network bytes/s, as the kubelet on its node exports them. */
export interface PodNetwork {
  readonly namespace: string;
  readonly pod: string;
  /** `metadata.uid` (in the sandbox's cgroup path). */
  readonly uid: string;
  /** The kubelet's `instance` (`<node InternalIP>:10250`). */
  readonly kubelet: string;
  /** The pod shares the node's network namespace: its sandbox reports the node's interface. */
  readonly hostNetwork: boolean;
  readonly rxBytesPerSecond: number;
  readonly txBytesPerSecond: number;
}

/** containerd's sandbox id of a pod (64 hex digits, random in a real cluster): seeded here by the pod's identity. */
export function sandboxId(namespace: string, pod: string, uid: string): string {
  const random = createSeededRandom(hashSeed(`zonescope-sim-sandbox:${namespace}/${pod}/${uid}`));
  let id = '';
  for (let i = 0; i < 8; i++) id += Math.floor(random() * 0x1_0000_0000).toString(16).padStart(8, '0');
  return id;
}

/** The cgroup (`id`) of a Burstable pod's sandbox under the systemd driver and containerd. */
function sandboxCgroup(uid: string, id: string): string {
  return `/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod${uid.replaceAll('-', '_')}.slice/cri-containerd-${id}.scope`;
}

/** The labels of a pod's sandbox (pause container) series: the only one of the pod that carries network stats on containerd. */
function sandboxLabels(pod: Pick<PodNetwork, 'namespace' | 'pod' | 'uid' | 'kubelet' | 'hostNetwork'>, id: string): SeriesLabels {
  return [
    ['container', ''],
    ['id', sandboxCgroup(pod.uid, id)],
    ['image', PAUSE_IMAGE],
    ['instance', pod.kubelet],
    ['interface', pod.hostNetwork ? HOST_INTERFACE : POD_INTERFACE],
    ['name', id],
    ['namespace', pod.namespace],
    ['pod', pod.pod],
  ];
}

/** The labels of a node's root cgroup on its host interface (cAdvisor's `id="/"` series). */
function rootCgroupLabels(kubelet: string): SeriesLabels {
  return [['id', '/'], ['instance', kubelet], ['interface', HOST_INTERFACE]];
}

/**
 * The cAdvisor parts of the pods: each pod's sandbox series (only the sandbox reports network
 * stats on containerd, with `container=""` and the pause image), and its bytes in its node's
 * root-cgroup series on the host interface. A hostNetwork pod's sandbox shares the host's network
 * namespace, so it reports the host interface and repeats the node's total.
 */
export function podSeriesParts(pods: readonly PodNetwork[]): SeriesPart[] {
  const sums = new PartSums();
  for (const pod of pods) {
    const id = sandboxId(pod.namespace, pod.pod, pod.uid);
    const sandbox = sandboxLabels(pod, id);
    const root = rootCgroupLabels(pod.kubelet);
    for (const [metric, bytesPerSecond] of [[POD_RECEIVE_METRIC, pod.rxBytesPerSecond], [POD_TRANSMIT_METRIC, pod.txBytesPerSecond]] as const) {
      if (!(bytesPerSecond > 0)) continue;
      const rootId = sums.add(metric, seriesId(metric, root), bytesPerSecond);
      sums.add(metric, seriesId(metric, sandbox), pod.hostNetwork ? 0 : bytesPerSecond, pod.hostNetwork ? rootId : undefined);
    }
  }
  return sums.list();
}
