/** The header's metrics-source line: each health state in words (not colour only), with the details a user needs to act. */
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import type { HeaderMetricsStatus as MetricsStatus } from './metrics-status';
import { MetricsStatusBadge, metricsSummary } from './metrics-status';

const text = (html: string) => html.replace(/<[^>]+>/g, ' ').replace(/&#x27;/g, "'").replace(/&quot;/g, '"').replace(/[“”]/g, '"').replace(/\s+/g, ' ').trim();

function status(partial: Partial<MetricsStatus>): MetricsStatus {
  return {
    state: 'ok',
    message: 'Prometheus answered 4 queries at 2026-12-01 14:02:07 UTC.',
    url: 'http://prometheus.monitoring:9090',
    window: '7d',
    lastSuccessAt: '2026-12-01T14:02:07.000Z',
    staleSince: null,
    queriesIssued: 40,
    queriesPerRefresh: 4,
    refreshSeconds: 60,
    hint: null,
    ...partial,
  };
}

describe('metrics status in the header', () => {
  it.each<[MetricsStatus['state'], Partial<MetricsStatus>, string]>([
    ['ok', {}, 'Traffic: measured (Prometheus, 7d) · ok'],
    ['stale', { staleSince: '2026-12-01T14:02:07.000Z' }, 'Traffic: measured (Prometheus, 7d) · stale since 14:02:07 UTC'],
    ['unreachable', {}, 'Traffic: Prometheus unreachable — figures fall back to the model'],
    ['no-series', {}, 'Traffic: no matching series (beyla_…, container_network_…) — figures are assumed'],
    ['error', {}, 'Traffic: Prometheus error — figures fall back to the model'],
    ['pending', { lastSuccessAt: null }, 'Traffic: assumed until Prometheus answers (first query running)'],
    ['not-configured', { url: null, lastSuccessAt: null }, 'Traffic: assumed — set ZONESCOPE_PROMETHEUS_URL to measure'],
  ])('%s says so in words', (state, extra, line) => {
    const s = status({ state, ...extra });
    expect(metricsSummary(s).text).toBe(line);
    const html = renderToStaticMarkup(<MetricsStatusBadge status={s} />);
    expect(text(html)).toContain(`Metrics source: ${line} (details)`);
    expect(html).toContain(`data-state="${state}"`);
  });

  it('the window comes from the status', () => {
    expect(metricsSummary(status({ window: '1h' })).text).toBe('Traffic: measured (Prometheus, 1h) · ok');
  });

  it('opens into the source, its last answer and the query budget, independent of browsers', () => {
    const html = text(renderToStaticMarkup(<MetricsStatusBadge status={status({})} />));
    expect(html).toContain('Prometheus answered 4 queries at 2026-12-01 14:02:07 UTC.');
    expect(html).toContain('Prometheus: http://prometheus.monitoring:9090 , rates over 7d; last answer 2026-12-01 14:02:07 UTC.');
    expect(html).toContain('4 queries every 60 s for the whole cluster, however many browsers are open (40 issued so far).');
    expect(html).not.toContain('assumption');
  });

  it('when down, says the figures are assumed meanwhile', () => {
    const html = text(renderToStaticMarkup(<MetricsStatusBadge status={status({ state: 'unreachable', message: 'Cannot reach Prometheus at http://prometheus.monitoring:9090 (connection refused).' })} />));
    expect(html).toContain('Cannot reach Prometheus at http://prometheus.monitoring:9090 (connection refused).');
    expect(html).toContain('The volumes on the pages are the model\'s assumptions, each labelled "assumed".');
  });

  it('a volumes file that cannot be used is said in the line and explained in the details', () => {
    const settingsError = 'ZONESCOPE_TRAFFIC_VOLUMES (/etc/zonescope/volumes.json) is not JSON; expected {"namespace/name": GB per month, …}. No per-Service volumes are set.';
    const s = status({ state: 'ok', settingsError });
    expect(metricsSummary(s)).toEqual({ tone: 'warn', text: 'Traffic: measured (Prometheus, 7d) · ok · the volumes file cannot be used', measured: true });
    expect(text(renderToStaticMarkup(<MetricsStatusBadge status={s} />))).toContain(`Volumes file: ${settingsError}`);
  });

  it('when not configured, says how to add measured traffic and where it is documented', () => {
    const hint = 'Set ZONESCOPE_PROMETHEUS_URL to a Prometheus that scrapes Beyla or cAdvisor network metrics.';
    const html = text(renderToStaticMarkup(<MetricsStatusBadge status={status({ state: 'not-configured', url: null, lastSuccessAt: null, message: 'No Prometheus is configured.', hint })} />));
    expect(html).toContain(hint);
    expect(html).not.toContain('queries every');
    expect(html).toContain('How it is measured and the PromQL: docs/traffic.md ; the settings: docs/configuration.md , "Measured traffic and history (Prometheus)".');
  });
});
