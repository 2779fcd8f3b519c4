import { describe, expect, it } from 'vitest';
import { escapeLabelValue, parseHistorySelector } from '../../config/prometheus-syntax';
import { RANGE_SECONDS } from '../../shared/history-range';
import { clusterQueries, refinementStep, serviceQueries, stepForRange } from './queries';

describe('stepForRange', () => {
  it('aims at 720 points: 1h → 5 s, 6h → 30 s, 24h → 120 s, 7d → 840 s, never below 1 s', () => {
    expect([RANGE_SECONDS['1h'], RANGE_SECONDS['6h'], RANGE_SECONDS['24h'], RANGE_SECONDS['7d']].map(stepForRange)).toEqual([5, 30, 120, 840]);
    expect(stepForRange(60)).toBe(1);
    expect(stepForRange(721)).toBe(2);
  });

  it('refines at step / 60, at least 1 s', () => {
    expect([5, 30, 120, 840].map(refinementStep)).toEqual([1, 1, 2, 14]);
  });
});

describe('parseHistorySelector', () => {
  it('accepts nothing as no extra matchers', () => {
    expect(parseHistorySelector(undefined)).toEqual({ ok: true, matchers: '' });
    expect(parseHistorySelector('  ')).toEqual({ ok: true, matchers: '' });
  });

  it('accepts =, =~ and != matchers separated by commas, and normalises spacing and escapes', () => {
    expect(parseHistorySelector(' job="zonescope" , cluster =~ "prod-.*",instance!="10.0.0.1:3000"')).toEqual({ ok: true, matchers: 'job="zonescope",cluster=~"prod-.*",instance!="10.0.0.1:3000"' });
    expect(parseHistorySelector('team="a\\"b\\\\c"')).toEqual({ ok: true, matchers: 'team="a\\"b\\\\c"' });
  });

  it.each([
    ['job=zonescope', 'the value of job must be in double quotes'],
    ['{job="zonescope"}', 'leave out the braces'],
    ['job!~"x"', 'job uses !~, which is not allowed (use =, =~ or !=)'],
    ['job>"x"', '"job>" is not a label name'],
    ['job "x"', 'job is not followed by =, =~ or !='],
    ['job="x" cluster="y"', 'expected a comma after the value of job'],
    ['job="x",', 'it ends with a comma'],
    ['job="x', 'the value of job has no closing quote'],
    ['="x"', 'matcher 1 has no label name'],
    ['1job="x"', '"1job" is not a label name'],
    ['namespace="shop"', 'the label namespace is set by zonescope itself'],
    ['service="a"', 'the label service is set by zonescope itself'],
    ['cluster=~"("', 'the regular expression of cluster does not compile'],
    ['job="a\\nb"', 'the value of job has an escape other than \\" or \\\\'],
    ['job="x") or vector(1', 'expected a comma after the value of job'],
  ])('refuses %s: %s', (raw, why) => {
    const result = parseHistorySelector(raw);
    expect(result).toEqual({
      ok: false,
      message: `ZONESCOPE_HISTORY_SELECTOR is not valid: ${why} (expected label matchers such as job="zonescope",cluster="prod"; each name="value", name=~"regex" or name!="value", separated by commas).`,
    });
  });
});

describe('serviceQueries / clusterQueries', () => {
  it('escapes the Service labels, adds the selector to every query, merges replicas with max and keeps the worst state of each step', () => {
    expect(escapeLabelValue('a"b\\c\nd')).toBe('a\\"b\\\\c\\nd');
    const q = serviceQueries('shop', 'check"out', 'job="zonescope"', 120);
    const sel = '{namespace="shop",service="check\\"out",job="zonescope"}';
    expect(q.reasons).toBe(`max by (reason) (timestamp(zonescope_service_hints_reason_info${sel}))`);
    expect(q.info).toBe(`max by (mechanism, topology_mode, traffic_distribution) (timestamp(zonescope_service_info${sel}))`);
    expect(q.readyEndpoints).toBe(`max by (zone) (zonescope_service_ready_endpoints${sel})`);
    expect(q.nodes).toBe('max(zonescope_cluster_nodes{job="zonescope"})');
    expect(q.scalars).toBe(
      [
        `label_replace(min_over_time(max(zonescope_service_hints_observed_ratio${sel})[120s:2s]), "series", "observed", "", "")`,
        `label_replace(min_over_time(max(zonescope_service_hints_expected${sel})[120s:2s]), "series", "expected", "", "")`,
        `label_replace(max(zonescope_service_predicted_cross_zone_ratio${sel}), "series", "predicted", "", "")`,
        `label_replace(max(zonescope_service_measured_cross_zone_ratio${sel}), "series", "measured", "", "")`,
        `label_replace(max(zonescope_service_cross_zone_cost_dollars_per_month${sel}), "series", "cost", "", "")`,
      ].join(' or '),
    );
    // Refinements read the raw value, and the reason info series with it.
    expect(q.observed).toBe(`max(zonescope_service_hints_observed_ratio${sel}) or ${q.reasons}`);
    for (const promql of Object.values(q)) expect(promql).toContain('job="zonescope"');
  });

  it('reads the cluster without a selector as {}', () => {
    const q = clusterQueries('', 5);
    expect(q.scalars.split(' or ')[0]).toBe('label_replace(min_over_time(max(zonescope_cluster_eligible{})[5s:1s]), "series", "eligible", "", "")');
    expect(q.spend).toBe('max by (scenario) (zonescope_cross_zone_cost_dollars_per_month{})');
    expect(q.ineligibleNodes).toBe('max by (node, cause) (timestamp(zonescope_cluster_ineligible_node_info{}))');
    expect(q.eligible).toBe('max(zonescope_cluster_eligible{})');
    for (const promql of Object.values(clusterQueries('cluster="prod"', 840))) expect(promql).toContain('{cluster="prod"}');
  });
});
