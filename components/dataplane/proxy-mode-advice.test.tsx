/** The Dataplane view's "Should we switch?" panel and the large-rule-count warning, rendered from real estimates. */
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';

import { analyzeDataplane } from '@/lib/topology/analyses/analyze-dataplane';
import { adviseProxyMode } from '@/lib/topology/analyses/proxy-mode-advice';
import { estimateRules } from '@/lib/topology/analyses/rule-estimates';
import { defaultFeatureGates } from '@/lib/topology/upstream/version';
import { ProxyModeAdviceView, RuleCountWarning } from './proxy-mode-advice';

const text = (html: string) => html.replace(/<[^>]+>/g, ' ').replace(/&#x27;/g, "'").replace(/\s+/g, ' ').trim();
const dataplane = (minor: number) =>
  analyzeDataplane({ mode: 'iptables', modeAsWritten: 'iptables', ipvsScheduler: null, source: 'kube-system/kube-proxy-config' }, { cilium: null, calico: null, awsVpcCni: true }, { minor, gates: defaultFeatureGates(minor) }, { platform: 'eks', evidence: 'x' });
const services = (n: number, endpoints: number) =>
  Array.from({ length: n }, () => ({ ports: 1, nodePorts: 0, externalAddresses: 0, externalTrafficPolicyLocal: false, endpoints, endpointsPerNode: endpoints }));

describe('Dataplane: should we switch?', () => {
  it('a large iptables cluster on 1.33: switch to nftables, the kernel check, and the rule-count warning', () => {
    const rules = estimateRules(services(10_000, 15), 5000, 'iptables');
    const advice = adviseProxyMode(dataplane(33), rules, 33);
    const panel = text(renderToStaticMarkup(<ProxyModeAdviceView advice={advice} />));
    expect(panel).toContain("Switch to nftables: this cluster's iptables rule count slows every kube-proxy sync.");
    expect(panel).toContain('all three modes honour them the same way');
    expect(panel).toContain("Check every node's kernel (nftables needs ≥ 5.13)");
    const warning = text(renderToStaticMarkup(<RuleCountWarning advice={advice} />));
    expect(warning).toMatch(/^Very large iptables rule count [\d,]+ iptables rules per node: each kube-proxy sync rewrites rules in proportion to that/);
  });

  it('a small cluster: no warning at all', () => {
    const advice = adviseProxyMode(dataplane(33), estimateRules(services(10, 3), 3, 'iptables'), 33);
    expect(renderToStaticMarkup(<RuleCountWarning advice={advice} />)).toBe('');
  });
});
