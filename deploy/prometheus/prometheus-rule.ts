/**
 * deploy/kubernetes/monitoring/prometheusrule.yaml is the PrometheusRule form of
 * deploy/prometheus/zonescope-rules.yaml: the same `groups`, wrapped. This module renders it;
 * `npx tsx deploy/prometheus/prometheus-rule.ts` rewrites the manifest after the rules file
 * changed (deploy/manifests.test.ts fails while the two differ).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

import { parse, stringify } from 'yaml';

export const RULES_FILE = 'deploy/prometheus/zonescope-rules.yaml';
export const PROMETHEUS_RULE_FILE = 'deploy/kubernetes/monitoring/prometheusrule.yaml';

const HEADER = `# GENERATED from deploy/prometheus/zonescope-rules.yaml by \`npx tsx deploy/prometheus/prometheus-rule.ts\`;
# edit the rules file and re-run it (deploy/manifests.test.ts checks that spec.groups equal its groups).
# The alerts are described in docs/alerts.md.
`;

/** The groups of a Prometheus rule file's text (throws when it has none). */
export function ruleGroups(rulesText: string): unknown[] {
  const parsed: unknown = parse(rulesText);
  const groups = typeof parsed === 'object' && parsed !== null ? (parsed as { groups?: unknown }).groups : undefined;
  if (!Array.isArray(groups) || groups.length === 0) throw new Error('the rules file has no groups');
  return groups;
}

/** The PrometheusRule manifest (YAML text) holding `groups`. */
export function renderPrometheusRule(groups: unknown[]): string {
  const manifest = {
    apiVersion: 'monitoring.coreos.com/v1',
    kind: 'PrometheusRule',
    metadata: { name: 'zonescope', namespace: 'zonescope', labels: { 'app.kubernetes.io/name': 'zonescope' } },
    spec: { groups },
  };
  return HEADER + stringify(manifest, { lineWidth: 0 });
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  writeFileSync(PROMETHEUS_RULE_FILE, renderPrometheusRule(ruleGroups(readFileSync(RULES_FILE, 'utf8'))));
  console.log(`wrote ${PROMETHEUS_RULE_FILE}`);
}
