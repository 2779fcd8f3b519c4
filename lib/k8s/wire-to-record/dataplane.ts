/**
 * The dataplane facts of kube-system objects: kube-proxy's mode and IPVS scheduler (its ConfigMap),
 * Cilium's kube-proxy replacement and service topology (`cilium-config`), Calico eBPF (calico-node,
 * FelixConfiguration, Installation, `calico-config`) and the AWS VPC CNI (`aws-node`), combined
 * into the snapshot's `proxy` and `cni` by {@link combineDataplaneFacts}.
 */
import { parse as parseYaml } from 'yaml';
import type { CniRecord, ProxyConfigRecord, ProxyMode } from '../../topology/model/cluster-model';
import type { Json } from './json';
import { arr, bool, isJsonObject, obj, str, stringMap } from './json';
import { objectMeta } from './metadata';

/** Namespace holding the kube-proxy and CNI configuration zonescope reads. */
export const KUBE_SYSTEM = 'kube-system';

/**
 * kube-proxy ConfigMaps in order of preference: EKS's `kube-proxy-config` (key `config`), then
 * kubeadm's `kube-proxy` (key `config.conf`). Either key is accepted in either ConfigMap.
 */
export const KUBE_PROXY_CONFIGMAPS: readonly string[] = ['kube-proxy-config', 'kube-proxy'];

const KUBE_PROXY_CONFIG_KEYS = ['config.conf', 'config'];

const PROXY_MODES: readonly ProxyMode[] = ['iptables', 'ipvs', 'nftables', 'kernelspace'];

/**
 * Reads a `KubeProxyConfiguration` document. `mode: ""` (or no mode) is the platform default,
 * iptables on Linux; an empty `ipvs.scheduler` is `rr`. Text that is not a YAML/JSON mapping
 * gives mode `unknown`.
 *
 * @see https://kubernetes.io/docs/reference/config-api/kube-proxy-config.v1alpha1/
 */
export function parseKubeProxyConfiguration(text: string, source: string): ProxyConfigRecord {
  let config: unknown;
  try {
    config = parseYaml(text);
  } catch {
    return { mode: 'unknown', modeAsWritten: '', ipvsScheduler: null, source };
  }
  if (!isJsonObject(config)) return { mode: 'unknown', modeAsWritten: '', ipvsScheduler: null, source };
  const modeAsWritten = str(config.mode) ?? '';
  const normalised = modeAsWritten.trim().toLowerCase();
  const mode: ProxyMode = normalised === '' ? 'iptables' : (PROXY_MODES.find((m) => m === normalised) ?? 'unknown');
  const scheduler = (str(obj(config.ipvs).scheduler) ?? '').trim();
  return { mode, modeAsWritten, ipvsScheduler: mode === 'ipvs' ? scheduler || 'rr' : scheduler || null, source };
}

/** The kube-proxy ConfigMap → {@link ProxyConfigRecord}; `null` for any other ConfigMap. */
export function projectProxyConfigMap(raw: unknown): ProxyConfigRecord | null {
  const o = obj(raw);
  const { namespace, name } = objectMeta(o);
  if (namespace !== KUBE_SYSTEM || !KUBE_PROXY_CONFIGMAPS.includes(name)) return null;
  const data = stringMap(o.data);
  const source = `${namespace}/${name}`;
  const key = KUBE_PROXY_CONFIG_KEYS.find((k) => k in data);
  if (key === undefined) return { mode: 'unknown', modeAsWritten: '', ipvsScheduler: null, source };
  return parseKubeProxyConfiguration(data[key] ?? '', source);
}

/** Cilium's agent configuration, from `kube-system/cilium-config`. */
export type CiliumRecord = NonNullable<CniRecord['cilium']>;
/** Calico eBPF facts. */
export type CalicoRecord = NonNullable<CniRecord['calico']>;

/**
 * `kube-system/cilium-config` → {@link CiliumRecord}; `null` for any other ConfigMap.
 * `kube-proxy-replacement` is kept as written (`true`, `strict`, `partial`, `probe`, `false`,
 * `disabled`; `''` when absent); `enable-service-topology: "true"` (Helm
 * `loadBalancer.serviceTopology`) makes Cilium honour topology hints.
 *
 * @see https://docs.cilium.io/en/stable/network/kubernetes/kubeproxy-free/#topology-aware-hints
 */
export function projectCiliumConfigMap(raw: unknown): CiliumRecord | null {
  const o = obj(raw);
  const { namespace, name } = objectMeta(o);
  if (namespace !== KUBE_SYSTEM || name !== 'cilium-config') return null;
  const data = stringMap(o.data);
  return {
    kubeProxyReplacement: (data['kube-proxy-replacement'] ?? '').trim(),
    serviceTopology: (data['enable-service-topology'] ?? '').trim().toLowerCase() === 'true',
    source: `${namespace}/${name}`,
  };
}

function flag(value: string): boolean {
  return ['true', '1', 'yes', 'on'].includes(value.trim().toLowerCase());
}

function normaliseKey(key: string): string {
  return key.toLowerCase().replace(/[-_.]/g, '');
}

/**
 * `kube-system/calico-config` → {@link CalicoRecord} when it carries a Felix BPF setting
 * (`felix_bpfenabled`, `FELIX_BPFENABLED` or `bpfEnabled`, as some installs feed the calico-node
 * environment from it); `null` otherwise (Calico's own manifests keep `bpfEnabled` in the
 * FelixConfiguration resource, which is read by {@link projectCalicoObject}).
 */
export function projectCalicoConfigMap(raw: unknown): CalicoRecord | null {
  const o = obj(raw);
  const { namespace, name } = objectMeta(o);
  if (namespace !== KUBE_SYSTEM || name !== 'calico-config') return null;
  for (const [key, value] of Object.entries(stringMap(o.data))) {
    const k = normaliseKey(key);
    if (k === 'felixbpfenabled' || k === 'bpfenabled') return { bpfEnabled: flag(value), source: `${namespace}/${name} (${key})` };
  }
  return null;
}

/** Containers of a workload's pod template. */
function templateContainers(o: Json): Json[] {
  const podSpec = obj(obj(obj(o.spec).template).spec);
  return [...arr(podSpec.initContainers), ...arr(podSpec.containers)].map(obj);
}

/**
 * Calico eBPF facts from a `calico-node` DaemonSet (`FELIX_BPFENABLED` env, which overrides
 * the datastore), a `FelixConfiguration` (`spec.bpfEnabled`) or an operator `Installation`
 * (`spec.calicoNetwork.linuxDataplane: BPF`). `null` when the object says nothing about it.
 */
export function projectCalicoObject(raw: unknown): CalicoRecord | null {
  const o = obj(raw);
  const kind = str(o.kind);
  const { namespace, name } = objectMeta(o);
  if (kind === 'FelixConfiguration') {
    const enabled = bool(obj(o.spec).bpfEnabled);
    return enabled === null ? null : { bpfEnabled: enabled, source: `FelixConfiguration/${name}` };
  }
  if (kind === 'Installation') {
    const dataplane = str(obj(obj(o.spec).calicoNetwork).linuxDataplane);
    return dataplane === null ? null : { bpfEnabled: dataplane === 'BPF', source: `Installation/${name} (linuxDataplane ${dataplane})` };
  }
  if (kind === 'DaemonSet' && name === 'calico-node') {
    for (const container of templateContainers(o)) {
      for (const env of arr(container.env).map(obj)) {
        const value = str(env.value);
        if (env.name === 'FELIX_BPFENABLED' && value !== null) {
          return { bpfEnabled: flag(value), source: `${namespace}/calico-node (FELIX_BPFENABLED)` };
        }
      }
    }
  }
  return null;
}

/** Whether a DaemonSet is the AWS VPC CNI agent (`kube-system/aws-node`). */
export function isAwsNodeDaemonSet(raw: unknown): boolean {
  const o = obj(raw);
  const { namespace, name } = objectMeta(o);
  return (str(o.kind) ?? 'DaemonSet') === 'DaemonSet' && namespace === KUBE_SYSTEM && name === 'aws-node';
}

/**
 * The dataplane facts one object contributes (kube-proxy ConfigMap, Cilium/Calico configuration,
 * AWS VPC CNI DaemonSet). The live source caches these instead of whole ConfigMaps/DaemonSets.
 */
export interface DataplaneFactRecord {
  /** `Kind namespace/name` of the object it came from. */
  readonly key: string;
  readonly proxy: ProxyConfigRecord | null;
  readonly cilium: CiliumRecord | null;
  readonly calico: CalicoRecord | null;
  readonly awsVpcCni: boolean;
}

/** Facts of a ConfigMap, DaemonSet, FelixConfiguration or Installation; `null` when it has none. */
export function projectDataplaneObject(raw: unknown, kindHint?: string): DataplaneFactRecord | null {
  const o = obj(raw);
  const kind = str(o.kind) ?? kindHint ?? '';
  const withKind = str(o.kind) === null && kindHint !== undefined ? { ...o, kind: kindHint } : o;
  const { namespace, name } = objectMeta(o);
  const isConfigMap = kind === 'ConfigMap';
  const proxy = isConfigMap ? projectProxyConfigMap(o) : null;
  const cilium = isConfigMap ? projectCiliumConfigMap(o) : null;
  const calico = isConfigMap ? projectCalicoConfigMap(o) : projectCalicoObject(withKind);
  const awsVpcCni = kind === 'DaemonSet' && isAwsNodeDaemonSet(withKind);
  if (proxy === null && cilium === null && calico === null && !awsVpcCni) return null;
  return { key: `${kind} ${namespace ? `${namespace}/` : ''}${name}`, proxy, cilium, calico, awsVpcCni };
}

function calicoRank(record: CalicoRecord): number {
  if (record.source.includes('FELIX_BPFENABLED')) return 0;
  if (record.source.startsWith('FelixConfiguration/')) return 1;
  if (record.source.startsWith('Installation/')) return 2;
  return 3;
}

/**
 * Combines dataplane facts into the snapshot's `proxy` and `cni`. kube-proxy: `kube-proxy-config`
 * wins over `kube-proxy`. Calico: the calico-node environment wins over FelixConfiguration,
 * which wins over the operator Installation and ConfigMaps (Felix's own precedence).
 */
export function combineDataplaneFacts(facts: Iterable<DataplaneFactRecord>): { proxy: ProxyConfigRecord | null; cni: CniRecord } {
  let proxy: ProxyConfigRecord | null = null;
  let cilium: CiliumRecord | null = null;
  let calico: CalicoRecord | null = null;
  let awsVpcCni = false;
  const proxyRank = (record: ProxyConfigRecord): number => KUBE_PROXY_CONFIGMAPS.findIndex((name) => record.source.endsWith(`/${name}`));
  for (const fact of facts) {
    if (fact.proxy && (proxy === null || proxyRank(fact.proxy) < proxyRank(proxy))) proxy = fact.proxy;
    if (fact.cilium) cilium = fact.cilium;
    if (fact.calico && (calico === null || calicoRank(fact.calico) < calicoRank(calico))) calico = fact.calico;
    if (fact.awsVpcCni) awsVpcCni = true;
  }
  return { proxy, cni: { cilium, calico, awsVpcCni } };
}
