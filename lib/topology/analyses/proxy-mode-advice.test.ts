import { describe, expect, it } from 'vitest';

import { analyzeDataplane, detectClusterPlatform } from './analyze-dataplane';
import type { CniRecord, ProxyConfigRecord } from '../model/cluster-model';
import { testNode } from '../model/test-cluster';
import { adviseProxyMode } from './proxy-mode-advice';
import type { RuleEstimates } from './rule-estimates';
import { estimateRules } from './rule-estimates';
import { defaultFeatureGates } from '../upstream/version';

const noCni: CniRecord = { cilium: null, calico: null, awsVpcCni: false };
const proxy = (mode: ProxyConfigRecord['mode']): ProxyConfigRecord => ({ mode, modeAsWritten: mode, ipvsScheduler: null, source: 'kube-system/kube-proxy-config' });
const release = (minor: number) => ({ minor, gates: defaultFeatureGates(minor) });
const rules = (services: number, endpoints: number, mode: ProxyConfigRecord['mode']): RuleEstimates =>
  estimateRules(
    Array.from({ length: services }, () => ({ ports: 1, nodePorts: 0, externalAddresses: 0, externalTrafficPolicyLocal: false, endpoints, endpointsPerNode: endpoints })),
    100,
    mode,
  );

describe('detectClusterPlatform: from the server version and the nodes', () => {
  it.each([
    ['EKS gitVersion', [], 'v1.31.4-eks-2d98532', 'eks', 'server gitVersion v1.31.4-eks-2d98532'],
    ['GKE gitVersion', [], 'v1.30.5-gke.1014001', 'gke', 'server gitVersion v1.30.5-gke.1014001'],
    ['AKS providerID', [testNode('aks-1', 'eastus-1', '4', { providerID: 'azure:///subscriptions/x/vm/0' })], 'v1.30.3', 'aks', 'node aks-1 providerID azure:///subscriptions/x/vm/0'],
    ['GKE providerID', [testNode('gke-1', 'us-central1-a', '4', { providerID: 'gce://proj/us-central1-a/gke-1' })], 'v1.30.3', 'gke', 'node gke-1 providerID gce://proj/us-central1-a/gke-1'],
    ['AKS label', [testNode('n', 'z', '4', { labels: { 'kubernetes.azure.com/agentpool': 'sys' } })], 'v1.30.3', 'aks', 'node n label kubernetes.azure.com/agentpool'],
    ['nothing', [testNode('n', 'z')], 'v1.30.3', 'other', null],
  ] as const)('%s', (_case, nodes, gitVersion, platform, evidence) => {
    expect(detectClusterPlatform(nodes, { gitVersion, minor: 30, platform: null })).toEqual({ platform, evidence });
  });
});

describe('kube-proxy configuration not found: what applies on each platform', () => {
  const note = (platform: ReturnType<typeof detectClusterPlatform>, cni = noCni) => analyzeDataplane(null, cni, release(31), platform).notes.find((n) => n.id === 'proxy-config-missing');

  it('EKS keeps its EKS command; GKE and AKS say the platform manages kube-proxy, with no EKS command', () => {
    expect(note({ platform: 'eks', evidence: 'server gitVersion v1.31.4-eks-1' })?.detail).toContain("kubectl get configmap -n kube-system kube-proxy-config -o yaml | grep -E 'mode|scheduler'");
    const gke = note({ platform: 'gke', evidence: 'server gitVersion v1.31.1-gke.1' });
    expect(gke).toMatchObject({ severity: 'info', title: 'GKE manages kube-proxy' });
    expect(gke?.detail).toContain('With GKE Dataplane V2 there is no kube-proxy: Cilium (the anetd DaemonSet) implements Services and handles hints.');
    expect(gke?.detail).not.toContain('kube-proxy-config');
    const aks = note({ platform: 'aks', evidence: 'node a providerID azure:///x' });
    expect(aks).toMatchObject({ severity: 'info', title: 'AKS manages kube-proxy' });
    expect(aks?.detail).not.toContain('kube-proxy-config');
    expect(note({ platform: 'other', evidence: null })?.detail).not.toContain('kube-proxy-config -o yaml');
  });

  it('Cilium replacing kube-proxy (GKE Dataplane V2): no warning, Cilium handles the hints', () => {
    const cilium: CniRecord = { ...noCni, cilium: { kubeProxyReplacement: 'true', serviceTopology: true, source: 'kube-system/cilium-config' } };
    const result = analyzeDataplane(null, cilium, release(31), { platform: 'gke', evidence: 'x' });
    expect(result.serviceProxy).toBe('cilium');
    expect(result.notes.find((n) => n.id === 'proxy-config-missing')).toMatchObject({ severity: 'info', title: 'No kube-proxy configuration (not needed)' });
  });
});

describe('adviseProxyMode: should we switch?', () => {
  const eks = { platform: 'eks', evidence: 'x' } as const;

  it('IPVS on 1.35: switch to nftables, kernel check first; hints unaffected', () => {
    const advice = adviseProxyMode(analyzeDataplane(proxy('ipvs'), noCni, release(35), eks), rules(10, 3, 'ipvs'), 35);
    expect(advice.action).toBe('switch');
    expect(advice.verdict).toBe('Switch to nftables: IPVS mode is deprecated from 1.35 (this cluster runs 1.35).');
    expect(advice.reasons[0]).toContain('all three modes honour them the same way');
    expect(advice.steps[0]).toContain('nftables needs ≥ 5.13');
  });

  it('a very large iptables table: the warning gives the count, what it means for syncs, and what to do', () => {
    const big = rules(10_000, 15, 'iptables');
    const advice = adviseProxyMode(analyzeDataplane(proxy('iptables'), noCni, release(33), eks), big, 33);
    const count = big.estimates.find((e) => e.mode === 'iptables')?.netfilterRules ?? 0;
    expect(count).toBeGreaterThan(100_000);
    expect(advice.action).toBe('switch');
    expect(advice.ruleWarning).toContain(`${count.toLocaleString('en-US')} iptables rules per node: each kube-proxy sync rewrites rules in proportion to that`);
    expect(advice.ruleWarning).toContain('Switch to nftables');
  });

  it('a small iptables cluster on 1.33: no need to switch; before 1.33 stay until GA; nftables: stay', () => {
    expect(adviseProxyMode(analyzeDataplane(proxy('iptables'), noCni, release(33), eks), rules(10, 3, 'iptables'), 33)).toMatchObject({ action: 'stay', ruleWarning: null });
    expect(adviseProxyMode(analyzeDataplane(proxy('iptables'), noCni, release(31), eks), rules(10, 3, 'iptables'), 31).verdict).toBe(
      'Stay on iptables until 1.33, where nftables is GA (this cluster runs 1.31; nftables is beta here).',
    );
    expect(adviseProxyMode(analyzeDataplane(proxy('nftables'), noCni, release(34), eks), rules(10, 3, 'nftables'), 34).verdict).toBe('Stay on nftables.');
  });

  it('Cilium replacing kube-proxy: the mode does not apply', () => {
    const cilium: CniRecord = { ...noCni, cilium: { kubeProxyReplacement: 'true', serviceTopology: true, source: 'cilium-config' } };
    expect(adviseProxyMode(analyzeDataplane(null, cilium, release(33), eks), rules(10, 3, 'unknown'), 33).verdict).toBe(
      "No switch: Cilium's kube-proxy replacement implements Services, so kube-proxy's mode does not apply.",
    );
  });
});
