import { describe, expect, it } from 'vitest';

import type { RuleEstimateService } from './rule-estimates';
import { estimateRules, IPTABLES_FIXED, IPVS_IPTABLES_FIXED, NFTABLES_FIXED } from './rule-estimates';

const svc = (extra: Partial<RuleEstimateService> = {}): RuleEstimateService => ({
  ports: 1,
  nodePorts: 0,
  externalAddresses: 0,
  externalTrafficPolicyLocal: false,
  endpoints: 3,
  endpointsPerNode: 3,
  ...extra,
});
const byMode = (result: ReturnType<typeof estimateRules>) => Object.fromEntries(result.estimates.map((e) => [e.mode, e]));

describe('estimateRules: one ClusterIP Service with one port and 3 endpoints', () => {
  const result = byMode(estimateRules([svc()], 3, 'iptables'));

  it('iptables: fixed + 1 KUBE-SERVICES + (1 + 3) KUBE-SVC + 2 × 3 KUBE-SEP rules; 1 SVC + 3 SEP chains', () => {
    expect(result.iptables?.netfilterRules).toBe(IPTABLES_FIXED.rules + 1 + 4 + 6);
    expect(result.iptables?.chains).toBe(IPTABLES_FIXED.chains + 1 + 3);
  });

  it('IPVS: constant iptables rules, 1 cluster-IP + 3 loop-back ipset entries, 1 virtual server with 3 real servers', () => {
    expect(result.ipvs).toMatchObject({ netfilterRules: IPVS_IPTABLES_FIXED.rules, setElements: 4, ipvsVirtualServers: 1, ipvsRealServers: 3 });
  });

  it('nftables: fixed + 2 service-chain + 2 × 3 endpoint-chain rules; 1 + 1 + 3 map elements', () => {
    expect(result.nftables).toMatchObject({ netfilterRules: NFTABLES_FIXED.rules + 2 + 6, setElements: 5 });
  });
});

describe('estimateRules: how each mode grows', () => {
  it('iptables rules grow with every Service; IPVS iptables rules stay constant', () => {
    const one = byMode(estimateRules([svc()], 3, 'iptables'));
    const hundred = byMode(estimateRules(Array.from({ length: 100 }, () => svc()), 3, 'iptables'));
    expect((hundred.iptables?.netfilterRules ?? 0) - (one.iptables?.netfilterRules ?? 0)).toBe(99 * 11);
    expect(hundred.ipvs?.netfilterRules).toBe(one.ipvs?.netfilterRules);
    expect(hundred.ipvs?.setElements).toBe(400);
  });

  it('a NodePort adds a KUBE-EXT chain and a KUBE-NODEPORTS rule, and an IPVS virtual server', () => {
    const result = byMode(estimateRules([svc({ nodePorts: 1 })], 3, 'iptables'));
    expect(result.iptables?.netfilterRules).toBe(IPTABLES_FIXED.rules + 1 + 4 + 6 + 2 + 1);
    expect(result.ipvs?.ipvsVirtualServers).toBe(2);
    expect(result.ipvs?.ipvsRealServers).toBe(6);
  });

  it('a port without endpoints gets REJECT rules only', () => {
    const result = byMode(estimateRules([svc({ endpoints: 0, endpointsPerNode: 0 })], 3, 'iptables'));
    expect(result.iptables?.netfilterRules).toBe(IPTABLES_FIXED.rules + 1);
  });

  it('topology hints shrink what each node programs, and the notes say by how much', () => {
    const all = byMode(estimateRules([svc({ endpoints: 9, endpointsPerNode: 9 })], 3, 'iptables'));
    const hinted = estimateRules([svc({ endpoints: 9, endpointsPerNode: 3 })], 3, 'iptables');
    expect(byMode(hinted).iptables?.netfilterRules).toBeLessThan(all.iptables?.netfilterRules ?? 0);
    expect(hinted.notes.some((n) => n.includes('from 9 to about 3'))).toBe(true);
  });

  it('reports the cluster\'s own mode and per-node inputs', () => {
    const result = estimateRules([svc()], 7, 'kernelspace');
    expect(result.currentMode).toBeNull();
    expect(result.inputs).toMatchObject({ services: 1, servicePorts: 1, endpoints: 3, nodes: 7 });
  });
});
