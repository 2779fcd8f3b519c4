/**
 * The Dataplane view's sections as a reader sees them: the rule counts compare each kind of state
 * with itself across the three modes (no chart mixing units), and this release's annotation is
 * explained once, linked to the table of every release.
 */
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';

import { analyzeDataplane } from '@/lib/topology/analyses/analyze-dataplane';
import { estimateRules } from '@/lib/topology/analyses/rule-estimates';
import { defaultFeatureGates } from '@/lib/topology/upstream/version';
import { htmlText } from '../test-support';
import { DataplaneCard } from './dataplane-card';
import { ruleComparisonRows, RuleEstimatesView } from './rule-estimates';

const services = Array.from({ length: 40 }, () => ({ ports: 2, nodePorts: 0, externalAddresses: 0, externalTrafficPolicyLocal: false, endpoints: 6, endpointsPerNode: 6 }));
const estimates = estimateRules(services, 9, 'iptables');

describe('rule counts per proxy mode', () => {
  it('one row per kind of state, the three modes side by side, each figure a formatted count', () => {
    const rows = ruleComparisonRows(estimates.estimates);
    expect(rows.map((r) => r.unit)).toEqual([
      'Netfilter rules (iptables / nft)',
      'Chains',
      'ipset / nft set elements',
      'IPVS virtual servers',
      'IPVS real servers',
      'Netfilter rules at 10× the Services',
      'Set elements at 10× the Services',
      'Per-packet lookup',
    ]);
    const byMode = Object.fromEntries(estimates.estimates.map((e, i) => [e.mode, i]));
    const rules = rows[0]?.values ?? [];
    const iptables = estimates.estimates.find((e) => e.mode === 'iptables');
    expect(rules[byMode.iptables ?? -1]).toBe(iptables?.netfilterRules.toLocaleString('en-US'));
    // IPVS keeps its endpoints as real servers, not rules: the row of real servers says so, the others 0.
    const real = rows[4]?.values ?? [];
    expect(real[byMode.iptables ?? -1]).toBe('0');
    expect(Number((real[byMode.ipvs ?? -1] ?? '').replace(/,/g, ''))).toBeGreaterThan(0);
    expect(rows[7]?.values).toEqual(estimates.estimates.map((e) => (e.mode === 'iptables' ? 'linear in Services' : e.mode === 'ipvs' ? 'constant (hash)' : 'constant (map)')));
  });

  it('renders the table with the cluster’s mode marked, no chart, the breakdown behind a disclosure', () => {
    const html = renderToStaticMarkup(<RuleEstimatesView estimates={estimates} />);
    expect(html).not.toContain('recharts');
    const head = /<thead>(.*?)<\/thead>/.exec(html)?.[1] ?? '';
    expect(htmlText(head)).toBe('Per node this cluster iptables IPVS nftables');
    expect(html).toMatch(/<details[^>]*><summary[^>]*>How each count is made up/);
    expect(htmlText(html)).toContain('Counting model');
  });
});

describe('Service proxy facts', () => {
  const d = analyzeDataplane({ mode: 'iptables', modeAsWritten: 'iptables', ipvsScheduler: null, source: 'kube-system/kube-proxy-config' }, { cilium: null, calico: null, awsVpcCni: true }, { minor: 33, gates: defaultFeatureGates(33) });

  it("says this release's annotation once, and links to every release's", () => {
    const html = renderToStaticMarkup(<DataplaneCard dataplane={d} releasesHref="#annotation" />);
    const text = htmlText(html);
    expect(text.split(d.annotationNote).length - 1).toBe(1);
    expect(text).not.toContain('Annotation for 1.33');
    expect(html).toContain('href="#annotation"');
    // The other notes stay.
    expect(text).toContain('Amazon VPC CNI');
  });
});
