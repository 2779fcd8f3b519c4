/**
 * The Service dataplane: which component turns Service traffic into packets (kube-proxy in
 * iptables / IPVS / nftables mode, Cilium's kube-proxy replacement, Calico's eBPF dataplane), and
 * whether it honours EndpointSlice topology hints in the modelled release; which annotation key
 * applies to that release; and the IPVS schedulers explained.
 *
 * @see https://kubernetes.io/docs/reference/networking/virtual-ips/
 * @see https://github.com/kubernetes/kubernetes/blob/master/pkg/proxy/topology.go
 */
import type { CniRecord, NodeRecord, ProxyConfigRecord, ProxyMode, ServerVersionRecord } from '../model/cluster-model';
import { ANNOTATION_TOPOLOGY_MODE, DEPRECATED_ANNOTATION_TOPOLOGY_AWARE_HINTS } from '../upstream/constants';
import type { HintsAnnotationRule, ProxyRelease } from '../upstream/proxy-topology';
import { hintsAnnotationRule } from '../upstream/proxy-topology';
import { formatKubeMinor } from '../upstream/version';
import type { FeatureGates, KubeMinor } from '../upstream/version';

/** An IPVS scheduling algorithm kube-proxy can configure (`ipvs.scheduler`). */
export interface IpvsScheduler {
  /** Name as written in the kube-proxy configuration (`rr`, `wrr`, …). */
  readonly name: string;
  readonly title: string;
  /** How it picks a real server. */
  readonly description: string;
  /** Kernel module that must be loaded on every node. */
  readonly kernelModule: string;
  /** What it means for a Service behind kube-proxy (all real servers have weight 1). */
  readonly kubernetesNote: string;
}

/**
 * The IPVS schedulers kube-proxy accepts, in the order the kernel documents them. kube-proxy gives
 * every real server weight 1 (0 while terminating), so the weighted variants behave like their
 * unweighted counterparts; topology hints only change **which** real servers exist per node.
 *
 * @see https://kubernetes.io/docs/reference/config-api/kube-proxy-config.v1alpha1/#kubeproxy-config-k8s-io-v1alpha1-KubeProxyIPVSConfiguration
 * @see https://man7.org/linux/man-pages/man8/ipvsadm.8.html
 */
export const IPVS_SCHEDULERS: readonly IpvsScheduler[] = [
  { name: 'rr', title: 'Round Robin', description: 'Each new connection goes to the next real server in turn.', kernelModule: 'ip_vs_rr', kubernetesNote: 'The default (an empty scheduler means rr). Even spread of connections, blind to load.' },
  { name: 'wrr', title: 'Weighted Round Robin', description: 'Round robin in proportion to server weights.', kernelModule: 'ip_vs_wrr', kubernetesNote: 'kube-proxy sets equal weights, so it behaves like rr.' },
  { name: 'lc', title: 'Least Connections', description: 'The server with the fewest active connections gets the next one.', kernelModule: 'ip_vs_lc', kubernetesNote: 'Helps with long-lived connections of uneven cost; counts are per node, not cluster-wide.' },
  { name: 'wlc', title: 'Weighted Least Connections', description: 'Least connections relative to weight.', kernelModule: 'ip_vs_wlc', kubernetesNote: 'Equal weights: behaves like lc.' },
  { name: 'lblc', title: 'Locality-Based Least Connections', description: 'Sends a destination IP to the same server unless it is overloaded, then to the least-connected one.', kernelModule: 'ip_vs_lblc', kubernetesNote: 'Designed for cache clusters; the destination is the Service IP, so one server tends to take all of a node\'s traffic.' },
  { name: 'lblcr', title: 'Locality-Based Least Connections with Replication', description: 'Like lblc but keeps a set of servers per destination and grows it under load.', kernelModule: 'ip_vs_lblcr', kubernetesNote: 'Same caveat as lblc: per-destination affinity concentrates load.' },
  { name: 'sh', title: 'Source Hashing', description: 'Hashes the client IP to a server: the same client always reaches the same server.', kernelModule: 'ip_vs_sh', kubernetesNote: 'Sticky per client IP; uneven when few clients send most traffic.' },
  { name: 'dh', title: 'Destination Hashing', description: 'Hashes the destination IP to a server.', kernelModule: 'ip_vs_dh', kubernetesNote: 'The destination is the Service IP, so all of a node\'s traffic to a Service goes to one server.' },
  { name: 'sed', title: 'Shortest Expected Delay', description: 'Picks the server with the smallest (active connections + 1) / weight.', kernelModule: 'ip_vs_sed', kubernetesNote: 'With equal weights close to lc.' },
  { name: 'nq', title: 'Never Queue', description: 'An idle server is used at once; otherwise shortest expected delay.', kernelModule: 'ip_vs_nq', kubernetesNote: 'With equal weights close to lc, preferring idle servers.' },
];

/** What IPVS mode needs on every node (packages, kernel modules) and how it is switched on. */
export const IPVS_REQUIREMENTS = {
  packages: ['ipvsadm', 'ipset'],
  kernelModules: ['ip_vs', ...IPVS_SCHEDULERS.map((s) => s.kernelModule), 'nf_conntrack'],
  checkModeCommand: "kubectl get configmap -n kube-system kube-proxy-config -o yaml | grep -E 'mode|scheduler'",
  eksAddonCommand:
    'aws eks update-addon --cluster-name $CLUSTER_NAME --addon-name kube-proxy ' +
    '--configuration-values \'{"mode": "ipvs", "ipvs": {"scheduler": "rr"}}\' --resolve-conflicts OVERWRITE',
  restartCommand: 'kubectl -n kube-system rollout restart daemonset kube-proxy',
  inspectCommands: ['sudo ipvsadm -Ln', 'sudo ipset list', 'sudo iptables -t nat -S | wc -l'],
} as const;

/** The managed Kubernetes platform, as far as it decides where kube-proxy's configuration lives. */
export type ClusterPlatform = 'eks' | 'gke' | 'aks' | 'other';

/** Result of {@link detectClusterPlatform}. */
export interface PlatformDetection {
  readonly platform: ClusterPlatform;
  /** What gave it away (`server gitVersion v1.31.4-eks-2d98532`, `node providerID gce://…`), `null` for `other`. */
  readonly evidence: string | null;
}

const PLATFORM_LABEL_PREFIXES: readonly (readonly [string, ClusterPlatform])[] = [
  ['eks.amazonaws.com/', 'eks'],
  ['cloud.google.com/gke-', 'gke'],
  ['kubernetes.azure.com/', 'aks'],
];

/**
 * The platform from the server version and the nodes: `gitVersion` markers first (`-eks-`,
 * `-gke.`), then node `providerID` schemes (`aws://`, `gce://`, `azure://`), then node labels
 * (`eks.amazonaws.com/*`, `cloud.google.com/gke-*`, `kubernetes.azure.com/*`); `other` otherwise.
 */
export function detectClusterPlatform(nodes: readonly NodeRecord[], version: ServerVersionRecord | null): PlatformDetection {
  const git = version?.gitVersion ?? '';
  if (/-eks-/i.test(git)) return { platform: 'eks', evidence: `server gitVersion ${git}` };
  if (/-gke\./i.test(git)) return { platform: 'gke', evidence: `server gitVersion ${git}` };
  for (const node of nodes) {
    const id = node.providerID ?? '';
    if (id.startsWith('aws://')) return { platform: 'eks', evidence: `node ${node.name} providerID ${id}` };
    if (id.startsWith('gce://')) return { platform: 'gke', evidence: `node ${node.name} providerID ${id}` };
    if (id.startsWith('azure://')) return { platform: 'aks', evidence: `node ${node.name} providerID ${id}` };
  }
  for (const node of nodes) {
    for (const key of Object.keys(node.labels)) {
      const hit = PLATFORM_LABEL_PREFIXES.find(([prefix]) => key.startsWith(prefix));
      if (hit) return { platform: hit[1], evidence: `node ${node.name} label ${key}` };
    }
  }
  return { platform: 'other', evidence: null };
}

/** Where kube-proxy's mode is set on each platform when no ConfigMap was read: the note's title, text and severity. */
function missingProxyConfigNote(platform: PlatformDetection, serviceProxy: ServiceProxyImplementation): DataplaneNote {
  const seen = platform.evidence ? ` (${platform.evidence})` : '';
  if (serviceProxy !== 'kube-proxy') {
    return {
      id: 'proxy-config-missing',
      severity: 'info',
      title: 'No kube-proxy configuration (not needed)',
      detail: `${serviceProxy === 'cilium' ? 'Cilium' : 'Calico eBPF'} implements Services instead of kube-proxy, so there is no kube-proxy mode to read; hints are handled as described above.`,
      source: DOC_VIRTUAL_IPS,
    };
  }
  switch (platform.platform) {
    case 'eks':
      return {
        id: 'proxy-config-missing',
        severity: 'warning',
        title: 'kube-proxy configuration not found',
        detail: `EKS${seen}: the kube-proxy add-on keeps its configuration in kube-system/kube-proxy-config, which was not read (RBAC, or a self-managed kube-proxy); on Linux the default mode is iptables. Check with: ${IPVS_REQUIREMENTS.checkModeCommand}`,
        source: 'https://docs.aws.amazon.com/eks/latest/userguide/managing-kube-proxy.html',
      };
    case 'gke':
      return {
        id: 'proxy-config-missing',
        severity: 'info',
        title: 'GKE manages kube-proxy',
        detail: `GKE${seen}: GKE Standard runs kube-proxy itself, with no ConfigMap to read, in iptables mode; kube-proxy honours hints. With GKE Dataplane V2 there is no kube-proxy: Cilium (the anetd DaemonSet) implements Services and handles hints. Check with: kubectl get daemonset -n kube-system anetd`,
        source: 'https://cloud.google.com/kubernetes-engine/docs/concepts/dataplane-v2',
      };
    case 'aks':
      return {
        id: 'proxy-config-missing',
        severity: 'info',
        title: 'AKS manages kube-proxy',
        detail: `AKS${seen}: AKS deploys and configures kube-proxy itself (iptables mode unless the cluster's kube-proxy configuration chooses another), with no ConfigMap zonescope reads; kube-proxy honours hints. With Azure CNI powered by Cilium there is no kube-proxy: Cilium implements Services. Check with: kubectl logs -n kube-system daemonset/kube-proxy | grep -i proxier`,
        source: 'https://learn.microsoft.com/azure/aks/configure-kube-proxy',
      };
    case 'other':
      return {
        id: 'proxy-config-missing',
        severity: 'warning',
        title: 'kube-proxy configuration not found',
        detail: 'No kube-proxy ConfigMap was read (kube-system/kube-proxy or kube-proxy-config); on Linux the default mode is iptables. Check with: kubectl get configmap -n kube-system -o name | grep kube-proxy',
        source: DOC_VIRTUAL_IPS,
      };
  }
}

/** Which component implements Services on the nodes. */
export type ServiceProxyImplementation = 'kube-proxy' | 'cilium' | 'calico-ebpf';

/** A note for the dataplane card, with the public source of the fact. */
export interface DataplaneNote {
  readonly id: string;
  readonly severity: 'info' | 'warning' | 'error';
  readonly title: string;
  readonly detail: string;
  readonly source: string;
}

/** Result of {@link analyzeDataplane}. */
export interface DataplaneAnalysis {
  readonly release: string;
  /** kube-proxy mode (`unknown` when no kube-proxy configuration was found). */
  readonly proxyMode: ProxyMode;
  readonly proxyModeAsWritten: string | null;
  /** Where the mode was read from (`kube-system/kube-proxy-config`), or `null`. */
  readonly proxyConfigSource: string | null;
  /** IPVS scheduler in effect (`rr` when empty); `null` outside IPVS mode. */
  readonly ipvsScheduler: IpvsScheduler | null;
  /** IPVS mode is deprecated from 1.35 (KEP-5495) in favour of nftables. */
  readonly ipvsDeprecated: boolean;
  /** Which component routes Service traffic. */
  readonly serviceProxy: ServiceProxyImplementation;
  /** Whether that component honours topology hints at all. */
  readonly honoursHints: boolean;
  readonly honoursHintsReason: string;
  /** The annotation key to use on this release. */
  readonly annotationKey: typeof ANNOTATION_TOPOLOGY_MODE | typeof DEPRECATED_ANNOTATION_TOPOLOGY_AWARE_HINTS;
  /** The value to write (`Auto`, or `auto` where only lowercase is accepted). */
  readonly annotationValue: 'Auto' | 'auto';
  readonly annotationNote: string;
  /** How this release's kube-proxy treats the annotation. */
  readonly kubeProxyAnnotationRule: HintsAnnotationRule;
  /** Whether kube-proxy uses hints only when the Service carries an accepted annotation value. */
  readonly kubeProxyRequiresAnnotation: boolean;
  readonly kubeProxyNote: string;
  readonly cilium: { readonly kubeProxyReplacement: boolean; readonly mode: string; readonly serviceTopology: boolean; readonly source: string } | null;
  readonly calicoEbpf: boolean;
  readonly awsVpcCni: boolean;
  readonly notes: readonly DataplaneNote[];
  /** The platform (EKS, GKE, AKS) and what revealed it: decides where kube-proxy's mode is set. */
  readonly platform: PlatformDetection;
  /** The IPVS schedulers explained (for the Dataplane view's table). */
  readonly ipvsSchedulers: readonly IpvsScheduler[];
  /** What IPVS mode needs on the nodes and how to switch to it. */
  readonly ipvsRequirements: typeof IPVS_REQUIREMENTS;
}

const DOC_VIRTUAL_IPS = 'https://kubernetes.io/docs/reference/networking/virtual-ips/';
const DOC_TAR = 'https://kubernetes.io/docs/concepts/services-networking/topology-aware-routing/';
const DOC_CILIUM_TAR = 'https://docs.cilium.io/en/stable/network/kubernetes/kubeproxy-free/#topology-aware-hints';
const KEP_IPVS_DEPRECATION = 'https://kep.k8s.io/5495';

/**
 * Whether a Cilium `kube-proxy-replacement` value takes over Services: `true` / `strict` fully;
 * the pre-1.14 `partial` / `probe` values replace part of kube-proxy (ClusterIP via socket LB
 * included), so hints are treated as handled by Cilium there too. `false` / `disabled` / empty → no.
 *
 * @see https://docs.cilium.io/en/stable/network/kubernetes/kubeproxy-free/
 */
export function isCiliumKubeProxyReplacement(value: string): boolean {
  const v = value.trim().toLowerCase();
  return v !== '' && v !== 'false' && v !== 'disabled';
}

/** The annotation key and value to enable topology hints on release `minor`. */
export function topologyAnnotationFor(minor: KubeMinor): { key: DataplaneAnalysis['annotationKey']; value: 'Auto' | 'auto' } {
  if (minor >= 27) return { key: ANNOTATION_TOPOLOGY_MODE, value: 'Auto' };
  // 1.21 accepts only lowercase `auto`; 1.22–1.26 accept both, lowercase is the documented form.
  return { key: DEPRECATED_ANNOTATION_TOPOLOGY_AWARE_HINTS, value: 'auto' };
}

function annotationNote(minor: KubeMinor): string {
  if (minor >= 27) {
    return `Kubernetes ${formatKubeMinor(minor)}: use ${ANNOTATION_TOPOLOGY_MODE}: Auto. The older ${DEPRECATED_ANNOTATION_TOPOLOGY_AWARE_HINTS} key is deprecated but still wins whenever it is present, even empty.`;
  }
  if (minor >= 24) return `Kubernetes ${formatKubeMinor(minor)}: use ${DEPRECATED_ANNOTATION_TOPOLOGY_AWARE_HINTS}: auto (${ANNOTATION_TOPOLOGY_MODE} arrives in 1.27).`;
  return `Kubernetes ${formatKubeMinor(minor)}: ${DEPRECATED_ANNOTATION_TOPOLOGY_AWARE_HINTS}: auto, and the TopologyAwareHints feature gate must be enabled (on by default from 1.24).`;
}

function kubeProxyNote(rule: HintsAnnotationRule, minor: KubeMinor, gates: FeatureGates): string {
  const r = formatKubeMinor(minor);
  switch (rule) {
    case 'lowercase-auto-only':
      return `kube-proxy ${r} uses hints only for Services annotated exactly "auto"${gates.TopologyAwareHints ? '' : ', and only with the TopologyAwareHints gate on (it is off)'}.`;
    case 'auto-either-case':
      return `kube-proxy ${r} uses hints only for Services annotated "Auto" or "auto"${gates.TopologyAwareHints ? '' : ', and only with the TopologyAwareHints gate on (it is off)'}.`;
    case 'any-except-disabled':
      return `kube-proxy ${r} uses hints for Services whose annotation is set to anything but "disabled"/"Disabled"; hints written for trafficDistribution are ignored without it.`;
    case 'not-consulted':
      return `kube-proxy ${r} uses whatever hints the EndpointSlices carry; the annotation is not consulted.`;
  }
}

/**
 * Reads the dataplane facts for release `minor` with gates `gates`: kube-proxy mode and IPVS
 * scheduler (from the kube-proxy ConfigMap), IPVS deprecation (1.35+), Cilium kube-proxy
 * replacement and its `enable-service-topology` option (without it Cilium ignores hints), Calico
 * eBPF (honours hints since Calico 3.26), AWS VPC CNI (uses kube-proxy, so hints work), the
 * annotation key for the release, and whether kube-proxy needs the annotation to honour hints.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/master/pkg/proxy/topology.go
 * @see https://docs.cilium.io/en/stable/network/kubernetes/kubeproxy-free/#topology-aware-hints
 * @see https://github.com/projectcalico/calico/pull/7241
 */
export function analyzeDataplane(proxy: ProxyConfigRecord | null, cni: CniRecord, release: ProxyRelease, platform: PlatformDetection = { platform: 'other', evidence: null }): DataplaneAnalysis {
  const { minor, gates } = release;
  const notes: DataplaneNote[] = [];
  const proxyMode: ProxyMode = proxy?.mode ?? 'unknown';
  const schedulerName = proxyMode === 'ipvs' ? (proxy?.ipvsScheduler || 'rr') : null;
  const ipvsScheduler = schedulerName === null ? null : (IPVS_SCHEDULERS.find((s) => s.name === schedulerName) ?? {
    name: schedulerName,
    title: schedulerName,
    description: 'Not a scheduler kube-proxy documents.',
    kernelModule: `ip_vs_${schedulerName}`,
    kubernetesNote: 'kube-proxy fails to program IPVS if the kernel module is missing.',
  });
  const ipvsDeprecated = minor >= 35;
  const rule = hintsAnnotationRule(release);
  const { key: annotationKey, value: annotationValue } = topologyAnnotationFor(minor);

  // 1. Who implements Services.
  const ciliumKpr = cni.cilium !== null && isCiliumKubeProxyReplacement(cni.cilium.kubeProxyReplacement);
  const calicoEbpf = cni.calico?.bpfEnabled === true;
  let serviceProxy: ServiceProxyImplementation = 'kube-proxy';
  let honoursHints = true;
  let honoursHintsReason = `kube-proxy (${proxyMode === 'unknown' ? 'mode unknown' : `${proxyMode} mode`}) filters endpoints by their hints in every mode.`;
  if (ciliumKpr && cni.cilium) {
    serviceProxy = 'cilium';
    honoursHints = cni.cilium.serviceTopology;
    honoursHintsReason = cni.cilium.serviceTopology
      ? "Cilium's kube-proxy replacement handles Services and honours hints (enable-service-topology is on)."
      : "Cilium's kube-proxy replacement handles Services and ignores hints: enable-service-topology (Helm loadBalancer.serviceTopology) is off.";
    notes.push({
      id: 'cilium-kpr',
      severity: cni.cilium.serviceTopology ? 'info' : 'error',
      title: `Cilium kube-proxy replacement (${cni.cilium.kubeProxyReplacement})`,
      detail: cni.cilium.serviceTopology
        ? 'Cilium programs Services itself and reads zone hints because service topology is enabled.'
        : 'Cilium programs Services itself and, without enable-service-topology: "true" in cilium-config (Helm loadBalancer.serviceTopology=true), ignores EndpointSlice hints: Topology Aware Routing has no effect however the Services are annotated.',
      source: DOC_CILIUM_TAR,
    });
  } else if (calicoEbpf) {
    serviceProxy = 'calico-ebpf';
    honoursHintsReason = "Calico's eBPF dataplane replaces kube-proxy and embeds its endpoint selection, hints included (Calico 3.26 and later).";
    notes.push({
      id: 'calico-ebpf',
      severity: 'info',
      title: 'Calico eBPF dataplane',
      detail: 'Calico eBPF handles Services without kube-proxy. It honours topology hints from Calico 3.26; older Calico releases ignore them.',
      source: 'https://github.com/projectcalico/calico/pull/7241',
    });
  } else if (cni.cilium) {
    notes.push({ id: 'cilium-no-kpr', severity: 'info', title: 'Cilium without kube-proxy replacement', detail: 'kube-proxy still programs Services, so hints work as for any kube-proxy cluster.', source: DOC_CILIUM_TAR });
  }
  if (cni.awsVpcCni) {
    notes.push({
      id: 'aws-vpc-cni',
      severity: 'info',
      title: 'Amazon VPC CNI',
      detail:
        'The VPC CNI gives pods VPC IPs and leaves Services to kube-proxy, so topology hints work. Load balancers in IP target mode send straight to pod IPs and bypass kube-proxy (and externalTrafficPolicy).',
      source: 'https://docs.aws.amazon.com/eks/latest/best-practices/cost-opt-networking.html',
    });
  }

  // 2. kube-proxy mode notes.
  if (proxy === null) {
    notes.push(missingProxyConfigNote(platform, serviceProxy));
  } else if (proxyMode === 'ipvs') {
    notes.push({
      id: 'ipvs',
      severity: ipvsDeprecated ? 'warning' : 'info',
      title: `IPVS mode, scheduler ${schedulerName}`,
      detail:
        (ipvsDeprecated ? `IPVS mode is deprecated from Kubernetes 1.35 (KEP-5495); nftables is the recommended replacement. ` : '') +
        `IPVS needs ${IPVS_REQUIREMENTS.packages.join(' and ')} and the ip_vs kernel modules on every node; topology hints limit which real servers each node programs.`,
      source: ipvsDeprecated ? KEP_IPVS_DEPRECATION : DOC_VIRTUAL_IPS,
    });
  } else if (proxyMode === 'nftables' && minor < 31) {
    notes.push({ id: 'nftables-alpha', severity: 'warning', title: 'nftables mode is alpha before 1.31', detail: 'nftables mode arrived as alpha in 1.29, beta in 1.31 and GA in 1.33.', source: 'https://kep.k8s.io/3866' });
  }

  // 3. Release-specific hint handling.
  if (serviceProxy === 'kube-proxy' && minor < 33 && !gates.TopologyAwareHints) {
    honoursHints = false;
    honoursHintsReason = `The TopologyAwareHints feature gate is off on ${formatKubeMinor(minor)}; neither the controller nor kube-proxy uses hints.`;
  }
  return {
    release: formatKubeMinor(minor),
    proxyMode,
    proxyModeAsWritten: proxy?.modeAsWritten ?? null,
    proxyConfigSource: proxy?.source ?? null,
    ipvsScheduler,
    ipvsDeprecated,
    serviceProxy,
    honoursHints,
    honoursHintsReason,
    annotationKey,
    annotationValue,
    annotationNote: annotationNote(minor),
    kubeProxyAnnotationRule: rule,
    kubeProxyRequiresAnnotation: rule !== 'not-consulted',
    kubeProxyNote: kubeProxyNote(rule, minor, gates),
    cilium: cni.cilium
      ? { kubeProxyReplacement: ciliumKpr, mode: cni.cilium.kubeProxyReplacement, serviceTopology: cni.cilium.serviceTopology, source: cni.cilium.source }
      : null,
    calicoEbpf,
    awsVpcCni: cni.awsVpcCni,
    notes: [
      ...notes,
      { id: 'annotation-key', severity: 'info', title: `Annotation for ${formatKubeMinor(minor)}`, detail: annotationNote(minor), source: DOC_TAR },
    ],
    platform,
    ipvsSchedulers: IPVS_SCHEDULERS,
    ipvsRequirements: IPVS_REQUIREMENTS,
  };
}
