/**
 * Clusters known only from the fleet Prometheus, as the fleet page renders them: a row marked
 * "from Prometheus" without a link (neither to the cluster nor to its costliest Service) beside a
 * connected one, the summary naming it when it spends most, and the note saying where its rows come
 * from — or that the fleet Prometheus is unreachable.
 */
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';

import { fleetLeader } from '@/lib/views/fleet/fleet';
import type { FleetPrometheusStatus } from '@/lib/views/fleet/prometheus-cache';
import type { FleetAnswers } from '@/lib/views/fleet/prometheus-queries';
import { FLEET_QUERY_NAMES } from '@/lib/views/fleet/prometheus-queries';
import { fleetRowsFromAnswers } from '@/lib/views/fleet/prometheus-rows';
import type { FleetRow } from '@/lib/views/fleet/row';
import { fleetRow } from '@/lib/views/fleet/row';
import { htmlText } from '../test-support';
import { FleetPrometheusNote } from './fleet-notes';
import { FleetSummary } from './fleet-summary';
import { FleetTable } from './fleet-table';

const NOW = '2026-12-01T10:00:00.000Z';
const T = Date.parse(NOW);

const answers = Object.fromEntries(FLEET_QUERY_NAMES.map((name) => [name, []])) as unknown as Record<string, { metric: Record<string, string>; value: number }[]>;
answers.synced = [{ metric: { cluster: 'far-away' }, value: 1 }];
answers.sampleTime = [{ metric: { cluster: 'far-away' }, value: T / 1000 }];
answers.cost = [
  { metric: { cluster: 'far-away', scenario: 'now' }, value: 900 },
  { metric: { cluster: 'far-away', scenario: 'best' }, value: 100 },
];
answers.top = [{ metric: { cluster: 'far-away', namespace: 'shop', service: 'checkout' }, value: 700 }];
answers.topReason = [{ metric: { cluster: 'far-away', namespace: 'shop', service: 'checkout', reason: 'not-requested' }, value: 1 }];

const remote = fleetRowsFromAnswers(answers as unknown as FleetAnswers, 'cluster', T);
const local = fleetRow({ entry: { id: 'default', context: 'kind-local', displayName: 'local', server: null, isDefault: true, configError: null }, state: 'idle', link: (p) => p, now: NOW });
const rows: readonly FleetRow[] = [local, ...remote];

const status = (extra: Partial<FleetPrometheusStatus>): FleetPrometheusStatus => ({ url: 'http://thanos:10902', clusterLabel: 'cluster', state: 'ok', message: null, answeredAt: NOW, clusters: 1, ...extra });

describe('rows from the fleet Prometheus', () => {
  it('are marked and have no links into a cluster this installation does not read', () => {
    const html = renderToStaticMarkup(<FleetTable rows={rows} now={NOW} />);
    const text = htmlText(html);
    expect(text).toContain('far-away from Prometheus');
    expect(text).toContain('shop/checkout');
    expect(text).toContain('Nothing asks for hints');
    expect([...html.matchAll(/<a href="([^"]+)" data-row-link=""/g)].map((m) => m[1])).toEqual(['/']);
    expect(html).not.toContain('href="/services/shop/checkout"');
  });

  it('can be the answer to who spends most', () => {
    const leader = fleetLeader(rows);
    expect(leader?.row.source).toBe('prometheus');
    const text = htmlText(renderToStaticMarkup(<FleetSummary leader={leader} rows={rows} now={NOW} />));
    expect(text).toContain('far-away (from the fleet Prometheus) spends most on cross-zone traffic');
    expect(text).toContain('shop/checkout');
  });

  it('are explained by the note, which says when the fleet Prometheus is unreachable', () => {
    expect(htmlText(renderToStaticMarkup(<FleetPrometheusNote status={status({})} rows={rows} />))).toContain('1 cluster from the fleet Prometheus.');
    const down = htmlText(renderToStaticMarkup(<FleetPrometheusNote status={status({ state: 'error', message: 'fleet Prometheus unreachable: Prometheus at http://thanos:10902 did not answer within 10 s.' })} rows={rows} />));
    expect(down).toContain('fleet Prometheus unreachable: Prometheus at http://thanos:10902 did not answer within 10 s.');
    expect(down).toContain('The connected clusters are shown regardless');
    expect(renderToStaticMarkup(<FleetPrometheusNote status={null} rows={rows} />)).toBe('');
  });
});
