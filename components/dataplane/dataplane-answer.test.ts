/** The Dataplane page's answer in a sentence, from real dataplane analyses and proxy-mode advice. */
import { describe, expect, it } from 'vitest';

import { analyzeDataplane } from '@/lib/topology/analyses/analyze-dataplane';
import { adviseProxyMode } from '@/lib/topology/analyses/proxy-mode-advice';
import { estimateRules } from '@/lib/topology/analyses/rule-estimates';
import { defaultFeatureGates } from '@/lib/topology/upstream/version';
import { dataplaneAnswer } from './dataplane-answer';

const dataplane = (minor: number, mode: 'iptables' | 'ipvs' | 'nftables' = 'iptables') =>
  analyzeDataplane({ mode, modeAsWritten: mode, ipvsScheduler: null, source: 'kube-system/kube-proxy-config' }, { cilium: null, calico: null, awsVpcCni: true }, { minor, gates: defaultFeatureGates(minor) }, { platform: 'eks', evidence: 'x' });
const services = (n: number, endpoints: number) =>
  Array.from({ length: n }, () => ({ ports: 1, nodePorts: 0, externalAddresses: 0, externalTrafficPolicyLocal: false, endpoints, endpointsPerNode: endpoints }));

describe('dataplaneAnswer', () => {
  it("Cilium's replacement without service topology: named, hints ignored, the setting to turn on", () => {
    const cilium = analyzeDataplane(null, { cilium: { kubeProxyReplacement: 'true', serviceTopology: false, source: 'kube-system/cilium-config' }, calico: null, awsVpcCni: false }, { minor: 31, gates: defaultFeatureGates(31) });
    const advice = adviseProxyMode(cilium, estimateRules(services(10, 3), 3, 'unknown'), 31);
    const answer = dataplaneAnswer(cilium, advice);
    expect(answer.state).toBe("Cilium's kube-proxy replacement implements this cluster's Services and ignores topology hints on Kubernetes 1.31 (enable-service-topology is off).");
    expect(answer.action).toMatch(/^Turn on enable-service-topology \(Helm loadBalancer\.serviceTopology=true\)/);
    expect(answer.tone).toBe('error');
  });

  it('IPVS on 1.35: hints honoured, switch (a warning, not an error)', () => {
    const ipvs = dataplane(35, 'ipvs');
    const answer = dataplaneAnswer(ipvs, adviseProxyMode(ipvs, estimateRules(services(10, 3), 3, 'ipvs'), 35));
    expect(answer.state).toBe("kube-proxy in IPVS mode implements this cluster's Services and honours topology hints on Kubernetes 1.35.");
    expect(answer.action).toMatch(/^Switch to nftables: IPVS mode is deprecated from 1\.35/);
    expect(answer.tone).toBe('warn');
  });

  it('kube-proxy without a configuration read: says the mode is unknown', () => {
    const unknown = analyzeDataplane(null, { cilium: null, calico: null, awsVpcCni: false }, { minor: 33, gates: defaultFeatureGates(33) });
    const answer = dataplaneAnswer(unknown, adviseProxyMode(unknown, estimateRules(services(10, 3), 3, 'unknown'), 33));
    expect(answer.state).toBe("kube-proxy (its mode is unknown: no kube-proxy configuration was read) implements this cluster's Services and honours topology hints on Kubernetes 1.33.");
  });
});
