import { describe, expect, it } from 'vitest';

import { analyzeDataplane, IPVS_REQUIREMENTS, IPVS_SCHEDULERS, isCiliumKubeProxyReplacement, topologyAnnotationFor } from './analyze-dataplane';
import type { CniRecord, ProxyConfigRecord } from '../model/cluster-model';
import { defaultFeatureGates, resolveFeatureGates } from '../upstream/version';

const noCni: CniRecord = { cilium: null, calico: null, awsVpcCni: false };
const proxy = (mode: ProxyConfigRecord['mode'], ipvsScheduler: string | null = null): ProxyConfigRecord => ({
  mode,
  modeAsWritten: mode,
  ipvsScheduler,
  source: 'kube-system/kube-proxy-config',
});
const release = (minor: number) => ({ minor, gates: defaultFeatureGates(minor) });

describe('annotation key per release', () => {
  it.each([
    [24, 'service.kubernetes.io/topology-aware-hints', 'auto'],
    [26, 'service.kubernetes.io/topology-aware-hints', 'auto'],
    [27, 'service.kubernetes.io/topology-mode', 'Auto'],
    [33, 'service.kubernetes.io/topology-mode', 'Auto'],
  ])('1.%i uses %s: %s', (minor, key, value) => {
    expect(topologyAnnotationFor(minor)).toEqual({ key, value });
    expect(analyzeDataplane(proxy('iptables'), noCni, release(minor))).toMatchObject({ annotationKey: key, annotationValue: value });
  });
});

describe('kube-proxy and the annotation', () => {
  it('1.24–1.29 kube-proxy needs the annotation to honour hints; 1.31+ does not consult it', () => {
    expect(analyzeDataplane(proxy('iptables'), noCni, release(26))).toMatchObject({ kubeProxyAnnotationRule: 'auto-either-case', kubeProxyRequiresAnnotation: true });
    expect(analyzeDataplane(proxy('iptables'), noCni, release(28))).toMatchObject({ kubeProxyAnnotationRule: 'any-except-disabled', kubeProxyRequiresAnnotation: true });
    expect(analyzeDataplane(proxy('iptables'), noCni, release(31))).toMatchObject({ kubeProxyAnnotationRule: 'not-consulted', kubeProxyRequiresAnnotation: false });
  });

  it('1.30 with the ServiceTrafficDistribution gate off still follows the 1.27 rule', () => {
    const gates = resolveFeatureGates(30, { ServiceTrafficDistribution: false });
    expect(analyzeDataplane(proxy('iptables'), noCni, { minor: 30, gates }).kubeProxyAnnotationRule).toBe('any-except-disabled');
  });

  it('1.23 with the TopologyAwareHints gate off (its default) honours no hints', () => {
    expect(analyzeDataplane(proxy('iptables'), noCni, release(23))).toMatchObject({ honoursHints: false });
  });
});

describe('proxy mode', () => {
  it('IPVS with an empty scheduler means rr; deprecated from 1.35', () => {
    const at34 = analyzeDataplane(proxy('ipvs', ''), noCni, release(34));
    expect(at34.ipvsScheduler?.name).toBe('rr');
    expect(at34.ipvsDeprecated).toBe(false);
    const at35 = analyzeDataplane(proxy('ipvs', 'lc'), noCni, release(35));
    expect(at35.ipvsScheduler?.title).toBe('Least Connections');
    expect(at35.ipvsDeprecated).toBe(true);
    expect(at35.notes.find((n) => n.id === 'ipvs')).toMatchObject({ severity: 'warning', source: 'https://kep.k8s.io/5495' });
  });

  it('no scheduler outside IPVS mode; a missing ConfigMap is said', () => {
    expect(analyzeDataplane(proxy('nftables'), noCni, release(33)).ipvsScheduler).toBeNull();
    const unknown = analyzeDataplane(null, noCni, release(33));
    expect(unknown.proxyMode).toBe('unknown');
    expect(unknown.notes.some((n) => n.id === 'proxy-config-missing')).toBe(true);
  });

  it('the ten IPVS schedulers, each with its kernel module; IPVS needs ipvsadm and ipset', () => {
    expect(IPVS_SCHEDULERS.map((s) => s.name)).toEqual(['rr', 'wrr', 'lc', 'wlc', 'lblc', 'lblcr', 'sh', 'dh', 'sed', 'nq']);
    expect(IPVS_SCHEDULERS.every((s) => s.kernelModule === `ip_vs_${s.name}`)).toBe(true);
    expect(IPVS_REQUIREMENTS.packages).toEqual(['ipvsadm', 'ipset']);
    expect(IPVS_REQUIREMENTS.kernelModules).toContain('nf_conntrack');
  });
});

describe('CNI', () => {
  const cilium = (kubeProxyReplacement: string, serviceTopology: boolean): CniRecord => ({
    ...noCni,
    cilium: { kubeProxyReplacement, serviceTopology, source: 'kube-system/cilium-config' },
  });

  it('Cilium kube-proxy replacement without service topology ignores hints', () => {
    const result = analyzeDataplane(proxy('iptables'), cilium('true', false), release(30));
    expect(result).toMatchObject({ serviceProxy: 'cilium', honoursHints: false });
    expect(result.notes.find((n) => n.id === 'cilium-kpr')?.severity).toBe('error');
  });

  it('Cilium kube-proxy replacement with enable-service-topology honours hints', () => {
    expect(analyzeDataplane(proxy('iptables'), cilium('strict', true), release(30))).toMatchObject({ serviceProxy: 'cilium', honoursHints: true });
  });

  it('Cilium without kube-proxy replacement leaves Services to kube-proxy', () => {
    expect(analyzeDataplane(proxy('iptables'), cilium('false', false), release(30))).toMatchObject({ serviceProxy: 'kube-proxy', honoursHints: true });
  });

  it.each([
    ['true', true], ['strict', true], ['partial', true], ['probe', true], ['false', false], ['disabled', false], ['', false],
  ])('kube-proxy-replacement=%s → replaces kube-proxy: %s', (value, expected) => {
    expect(isCiliumKubeProxyReplacement(value)).toBe(expected);
  });

  it('Calico eBPF replaces kube-proxy and honours hints; AWS VPC CNI leaves Services to kube-proxy', () => {
    expect(analyzeDataplane(proxy('iptables'), { ...noCni, calico: { bpfEnabled: true, source: 'felix' } }, release(30))).toMatchObject({
      serviceProxy: 'calico-ebpf',
      honoursHints: true,
    });
    const aws = analyzeDataplane(proxy('iptables'), { ...noCni, awsVpcCni: true }, release(30));
    expect(aws).toMatchObject({ serviceProxy: 'kube-proxy', honoursHints: true, awsVpcCni: true });
    expect(aws.notes.some((n) => n.id === 'aws-vpc-cni')).toBe(true);
  });
});
