/**
 * What an SRE reads in the Service page's History panel, rendered from DTO fixtures shaped as the
 * history API answers: the status messages in role="status", the Changes table newest first with
 * machine-readable times, the empty state, the before/after comparison, and the range buttons.
 */
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';

import { htmlText, textOf } from '../test-support';
import { ChangesTable, HistoryRangeButtons } from './history-parts';
import { END, OFF_AT, ON_AT, START, comparison, serviceHistory } from './history-fixtures';
import { historyFailure, isHistoryFrame } from './use-history';
import { ComparisonBlock, ServiceHistoryContent, serviceHistoryFacts } from './service-history-panel';

function statusText(html: string): string {
  const m = /<div role="status"[^>]*>([\s\S]*)<\/div>/.exec(html);
  return htmlText(m?.[1] ?? '');
}

describe('statuses', () => {
  it('not configured: what to set, in role="status", and no chart or table', () => {
    const html = renderToStaticMarkup(
      <ServiceHistoryContent history={serviceHistory({ status: { state: 'not-configured', message: 'ZONESCOPE_PROMETHEUS_URL is not set.' }, prometheus: null })} now={END} />,
    );
    const text = statusText(html);
    expect(text).toContain('History needs Prometheus');
    expect(text).toContain('ZONESCOPE_PROMETHEUS_URL is not set.');
    expect(text).toContain("Set ZONESCOPE_PROMETHEUS_URL to a Prometheus that scrapes zonescope's own /metrics");
    expect(text).toContain('docs/metrics.md');
    expect(html).not.toContain('<caption');
  });

  it('no data and unavailable: the server\u2019s message and the Prometheus read', () => {
    const noData = statusText(
      renderToStaticMarkup(<ServiceHistoryContent history={serviceHistory({ status: { state: 'no-data', message: 'No zonescope_service_info series for shop/cart.' } })} now={END} />),
    );
    expect(noData).toContain('No history yet');
    expect(noData).toContain('No zonescope_service_info series for shop/cart.');
    expect(noData).toContain('Prometheus read: http://prometheus.monitoring:9090');
    const down = statusText(renderToStaticMarkup(<ServiceHistoryContent history={serviceHistory({ status: { state: 'unavailable', message: 'Prometheus did not answer within 5 s.' } })} now={END} />));
    expect(down).toContain('Prometheus unavailable');
    expect(down).toContain('Prometheus did not answer within 5 s.');
  });

  it('a failed fetch says what the dashboard answered', async () => {
    const body = JSON.stringify({ error: { code: 'bad-request:api', message: 'range must be one of 1h, 6h, 24h, 7d.' } });
    expect(await historyFailure(new Response(body, { status: 400, statusText: 'Bad Request' }))).toBe('The dashboard answered 400 Bad Request: range must be one of 1h, 6h, 24h, 7d.');
    expect(await historyFailure(new Response('<html>', { status: 502 }))).toBe('The dashboard answered 502.');
    expect(isHistoryFrame(serviceHistory())).toBe(true);
    expect(isHistoryFrame({ error: { code: 'x' } })).toBe(false);
  });
});

describe('Changes table', () => {
  it('newest first, When (UTC) with <time dateTime> and a relative time, Change, Reason', () => {
    const html = renderToStaticMarkup(<ServiceHistoryContent history={serviceHistory()} now={END} />);
    expect(html).toContain('<caption');
    const table = /<table[\s\S]*?<\/table>/.exec(html.slice(html.indexOf('>Changes</caption>') - 200))?.[0] ?? '';
    const headers = [...table.matchAll(/<th scope="col"[^>]*>([\s\S]*?)<\/th>/g)].map((m) => htmlText(m[1] ?? ''));
    expect(headers).toEqual(['When (UTC)', 'Change', 'Reason']);
    const rows = [...table.matchAll(/<tr[^>]*data-kind="([^"]+)"[^>]*>([\s\S]*?)<\/tr>/g)];
    expect(rows.map((r) => r[1])).toEqual(['hints-on', 'hints-off']);
    expect(rows[0]?.[2]).toContain(`dateTime="${new Date(ON_AT * 1000).toISOString()}"`);
    expect(htmlText(rows[0]?.[2] ?? '')).toBe('2026-12-01 15:00 UTC 3h ago · changed up to 15 s earlier Hints on off → on Hints turned on: Auto hints on. enabled');
    expect(rows[1]?.[2]).toContain(`dateTime="${new Date(OFF_AT * 1000).toISOString()}"`);
    expect(htmlText(rows[1]?.[2] ?? '')).toBe(
      '2026-11-30 21:02 UTC yesterday 21:02 · changed up to 15 s earlier Hints off on → off Hints turned off: Insufficient number of endpoints (3 ready, 3 zones need 4). insufficient-number-of-endpoints',
    );
  });

  it('nothing changed: the empty state from the intervals', () => {
    const history = serviceHistory({ transitions: [], hintsObserved: [{ from: START, to: null, value: 'on', label: 'Hints on' }] });
    expect(textOf(<ServiceHistoryContent history={history} now={END} />)).toContain('No change in the last 24 h: hints were on throughout.');
    expect(textOf(<ChangesTable transitions={[]} now={END} empty="No change in the last 1 h." />)).toBe('Changes When (UTC) Change Reason No change in the last 1 h.');
  });

  it('the charts and the hints strip are images with the names the e2e suite finds them by', () => {
    const html = renderToStaticMarkup(<ServiceHistoryContent history={serviceHistory()} now={END} />);
    const names = [...html.matchAll(/role="img" aria-label="([^"]+)"/g)].map((m) => m[1]?.replace(/&quot;/g, '"').replace(/&#x27;/g, "'"));
    expect(names).toEqual([
      'Hints over the last 24 h: Hints on from 2026-11-30 18:00 UTC to 2026-11-30 21:02 UTC; Hints off — Insufficient number of endpoints from 2026-11-30 21:02 UTC to 2026-12-01 15:00 UTC; Hints on from 2026-12-01 15:00 UTC (ongoing)',
      'Ready endpoints per zone and the per-zone minimum over time',
      'Predicted and measured cross-zone share over time, in percent',
    ]);
  });

  it('the charts have a text alternative: hints intervals, per-zone endpoints, share, marks', () => {
    const text = textOf(<ServiceHistoryContent history={serviceHistory()} now={END} />);
    expect(text).toContain('Hints on the slices 2026-11-30 18:00 UTC – 2026-11-30 21:02 UTC : Hints on 2026-11-30 21:02 UTC – 2026-12-01 15:00 UTC : Hints off — Insufficient number of endpoints 2026-12-01 15:00 UTC – now: Hints on');
    expect(text).toContain('2026-11-30 21:01 UTC: Nodes 12 → 9');
    expect(serviceHistoryFacts(serviceHistory())).toEqual([
      'eu-west-1a: 2 ready endpoints at the end (between 1 and 2 in the range); minimum 1.',
      'eu-west-1b: 1 ready endpoints at the end (between 1 and 1 in the range); minimum 1.',
      'eu-west-1c: 1 ready endpoints at the end (between 1 and 1 in the range); minimum 1.',
      'Predicted cross-zone share: 5.0 % at the end (between 5.0 % and 66.7 %).',
    ]);
  });
});

describe('Before and after the change', () => {
  it('absent without a comparison', () => {
    expect(textOf(<ServiceHistoryContent history={serviceHistory()} now={END} />)).not.toContain('Before and after the change');
  });

  it('enough samples: both windows\u2019 figures and the change', () => {
    const text = textOf(<ServiceHistoryContent history={serviceHistory({ comparison: comparison(true) })} now={END} />);
    expect(text).toContain('Before and after the change Mechanism none → topology-mode at 2026-12-01 12:00 UTC');
    expect(text).toContain('Hints on 0.0 % 100.0 % +100.0 points');
    expect(text).toContain('Predicted cross-zone 66.7 % 5.0 % −61.7 points');
    expect(text).toContain('Measured cross-zone not measured not measured —');
    expect(text).toContain('Cross-zone cost $12.40/month $0.93/month −$11.47/month');
    expect(text).toContain('Window 2026-12-01 11:00 UTC – 2026-12-01 12:00 UTC (60 min) 2026-12-01 12:00 UTC – 2026-12-01 13:00 UTC (60 min)');
    expect(text).toContain('Samples 12 12');
    expect(text).not.toContain('Not enough data');
  });

  it('not enough: its message, the sample counts, no averages', () => {
    const text = textOf(<ComparisonBlock comparison={comparison(false)} />);
    expect(text).toContain('Not enough data to compare yet: needs 10 samples after the change; 4 so far — check again in about a minute');
    expect(text).toContain('Samples 12 4');
    expect(text).not.toContain('Predicted cross-zone');
    expect(text).not.toContain('points');
  });
});

describe('range buttons', () => {
  it('1h 6h 24h 7d, the chosen one pressed', () => {
    const html = renderToStaticMarkup(<HistoryRangeButtons value="7d" />);
    const buttons = [...html.matchAll(/<button type="button" aria-pressed="(true|false)"[^>]*>([^<]+)<\/button>/g)].map((m) => [m[2], m[1]]);
    expect(buttons).toEqual([
      ['1h', 'false'],
      ['6h', 'false'],
      ['24h', 'false'],
      ['7d', 'true'],
    ]);
  });
});
