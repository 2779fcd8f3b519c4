/**
 * What an SRE reads in the Overview's History panel, rendered from DTO fixtures: the eligibility
 * stretches with the node and cause, the spend and node figures as text, the cluster's Changes
 * newest first, the empty state, and the statuses.
 */
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';

import { htmlText, textOf } from '../test-support';
import { END, OFF_AT, ON_AT, START, clusterHistory } from './history-fixtures';
import { compactUsd } from './cluster-history-chart';
import { ClusterHistoryContent, clusterHistoryFacts } from './cluster-history';

describe('cluster history', () => {
  it('names when the cluster was not eligible, with the node and cause', () => {
    const text = textOf(<ClusterHistoryContent history={clusterHistory()} now={END} />);
    expect(text).toContain('When the cluster was not eligible 2026-11-30 21:02 UTC – 2026-12-01 15:00 UTC : Ineligible — node ip-10-0-3-7 has no zone label (missing-zone)');
    const html = renderToStaticMarkup(<ClusterHistoryContent history={clusterHistory()} now={END} />);
    expect(html).toContain('aria-label="Eligible over the last 24 h: Eligible from 2026-11-30 18:00 UTC to 2026-11-30 21:02 UTC; Ineligible — node ip-10-0-3-7');
  });

  it('the charts are images named as the e2e suite finds them', () => {
    const html = renderToStaticMarkup(<ClusterHistoryContent history={clusterHistory()} now={END} />);
    expect(html).toContain('role="img" aria-label="Cross-zone spend over time, in dollars per month"');
    expect(html).toContain('role="img" aria-label="Nodes over time, in total and per zone"');
  });

  it('the Changes table: cluster transitions newest first with their times', () => {
    const html = renderToStaticMarkup(<ClusterHistoryContent history={clusterHistory()} now={END} />);
    const rows = [...html.matchAll(/<tr[^>]*data-kind="([^"]+)"[^>]*>([\s\S]*?)<\/tr>/g)];
    expect(rows.map((r) => r[1])).toEqual(['eligible', 'ineligible']);
    expect(rows[0]?.[2]).toContain(`dateTime="${new Date(ON_AT * 1000).toISOString()}"`);
    expect(htmlText(rows[1]?.[2] ?? '')).toBe(
      '2026-11-30 21:02 UTC yesterday 21:02 · changed up to 15 s earlier Cluster ineligible eligible → ineligible The cluster became ineligible: node ip-10-0-3-7 has no zone label. node-missing-zone',
    );
    expect(rows[1]?.[2]).toContain(`dateTime="${new Date(OFF_AT * 1000).toISOString()}"`);
  });

  it('nothing changed: "the cluster was eligible throughout"', () => {
    const history = clusterHistory({ transitions: [], eligibility: [{ from: START, to: null, value: 'eligible', label: 'Eligible' }] });
    const text = textOf(<ClusterHistoryContent history={history} now={END} />);
    expect(text).toContain('No change in the last 24 h: the cluster was eligible throughout.');
    expect(text).not.toContain('When the cluster was not eligible');
  });

  it('spend and nodes as text', () => {
    expect(clusterHistoryFacts(clusterHistory())).toEqual([
      'Cross-zone spend, Now: $35.00/month at the end (between $35.00 and $420.00).',
      'Cross-zone spend, After sync: $35.00/month at the end (between $35.00 and $420.00).',
      'Cross-zone spend, Best: $20.00/month at the end (between $20.00 and $20.00).',
      'Nodes: 9 at the end (between 9 and 9).',
      'eu-west-1a: 3 at the end (between 3 and 3).',
      'Services needing attention: 2 at the end.',
    ]);
    expect([compactUsd(0), compactUsd(0.52), compactUsd(340), compactUsd(1234), compactUsd(45_000), compactUsd(2_500_000)]).toEqual(['$0', '$0.52', '$340', '$1.2k', '$45k', '$2.5M']);
  });

  it('statuses replace the charts, in role="status"', () => {
    const html = renderToStaticMarkup(<ClusterHistoryContent history={clusterHistory({ status: { state: 'not-configured', message: 'ZONESCOPE_PROMETHEUS_URL is not set.' }, prometheus: null })} now={END} />);
    expect(html).toMatch(/^<div role="status"/);
    expect(htmlText(html)).toContain('ZONESCOPE_PROMETHEUS_URL is not set.');
    expect(html).not.toContain('<caption');
  });
});
