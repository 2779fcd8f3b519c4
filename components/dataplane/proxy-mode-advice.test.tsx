/**
 * The Dataplane view's first box (the answer in a sentence, then why and the steps) and the
 * large-rule-count warning, rendered from real analyses and estimates.
 */
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';

import { analyzeDataplane } from '@/lib/topology/analyses/analyze-dataplane';
import type { DataplaneAnalysis } from '@/lib/topology/analyses/analyze-dataplane';
import { adviseProxyMode } from '@/lib/topology/analyses/proxy-mode-advice';
import { estimateRules } from '@/lib/topology/analyses/rule-estimates';
import type { FeatureGates } from '@/lib/topology/upstream/version';
import { defaultFeatureGates } from '@/lib/topology/upstream/version';
import { htmlText } from '../test-support';
import { dataplaneAnswer } from './dataplane-answer';
import { ProxyModeAdviceView, RuleCountWarning } from './proxy-mode-advice';

const dataplane = (minor: number, mode: 'iptables' | 'ipvs' | 'nftables' = 'iptables', gates: FeatureGates = defaultFeatureGates(minor)) =>
  analyzeDataplane({ mode, modeAsWritten: mode, ipvsScheduler: null, source: 'kube-system/kube-proxy-config' }, { cilium: null, calico: null, awsVpcCni: true }, { minor, gates }, { platform: 'eks', evidence: 'x' });
const services = (n: number, endpoints: number) =>
  Array.from({ length: n }, () => ({ ports: 1, nodePorts: 0, externalAddresses: 0, externalTrafficPolicyLocal: false, endpoints, endpointsPerNode: endpoints }));

function panel(d: DataplaneAnalysis, minor: number, rules = estimateRules(services(10, 3), 3, 'iptables')): { html: string; text: string } {
  const advice = adviseProxyMode(d, rules, minor);
  const html = renderToStaticMarkup(<ProxyModeAdviceView advice={advice} answer={dataplaneAnswer(d, advice)} />);
  return { html, text: htmlText(html) };
}

describe('Dataplane: the answer first', () => {
  it('a small iptables cluster on 1.33: the answer opens the box, in a sentence, before the reasons', () => {
    const { text } = panel(dataplane(33), 33);
    expect(text).toMatch(
      /^kube-proxy in iptables mode implements this cluster's Services and honours topology hints on Kubernetes 1\.33\. No need to switch: iptables is fine at this size/,
    );
    expect(text.indexOf('honours topology hints')).toBeLessThan(text.indexOf('all three modes honour them the same way'));
  });

  it('a large iptables cluster on 1.33: switch to nftables, the kernel check, and the rule-count warning', () => {
    const rules = estimateRules(services(10_000, 15), 5000, 'iptables');
    const advice = adviseProxyMode(dataplane(33), rules, 33);
    const { text } = panel(dataplane(33), 33, rules);
    expect(text).toContain("Switch to nftables: this cluster's iptables rule count slows every kube-proxy sync.");
    expect(text).toContain('all three modes honour them the same way');
    expect(text).toContain("Check every node's kernel (nftables needs ≥ 5.13)");
    const warning = htmlText(renderToStaticMarkup(<RuleCountWarning advice={advice} />));
    expect(warning).toMatch(/^Very large iptables rule count [\d,]+ iptables rules per node: each kube-proxy sync rewrites rules in proportion to that/);
  });

  it('hints ignored: the answer says so, in an error box, and says what makes them work before the proxy mode', () => {
    const gateOff = dataplane(22, 'iptables', { ...defaultFeatureGates(22), TopologyAwareHints: false });
    const { html, text } = panel(gateOff, 22);
    expect(text).toMatch(/^kube-proxy in iptables mode implements this cluster's Services and ignores topology hints on Kubernetes 1\.22 \(the TopologyAwareHints feature gate is off\)\. Enable the TopologyAwareHints feature gate/);
    expect(html).toContain('border-red-300');
  });

  it('a small cluster: no warning at all', () => {
    const advice = adviseProxyMode(dataplane(33), estimateRules(services(10, 3), 3, 'iptables'), 33);
    expect(renderToStaticMarkup(<RuleCountWarning advice={advice} />)).toBe('');
  });
});
