/**
 * The fleet table and its answer line as the server renders them, from rows built out of real
 * analyses (eks-demo and missing-zone-label, from their fixtures) plus clusters syncing, failing
 * and beyond the open-cluster limit: the default order (cross-zone $ per month, highest first,
 * clusters without a figure last), every column's sort in both directions, `aria-sort`, the links
 * into each cluster and its costliest Service, the state badges, and the summary naming the
 * cluster that spends most and why.
 */
import { renderToStaticMarkup } from 'react-dom/server';
import { beforeAll, describe, expect, it } from 'vitest';

import type { ClusterEntry } from '@/lib/k8s/cluster-entries';
import { fleetLeader } from '@/lib/views/fleet/fleet';
import type { FleetRow, FleetRowInput } from '@/lib/views/fleet/row';
import { fleetRow, withLastFigures } from '@/lib/views/fleet/row';
import { analyseFixture } from '@/lib/views/fleet/fleet-test-support';
import type { Freshness } from '@/lib/views/header';
import type { ClusterAnalysis } from '@/lib/topology/report/analysis-schema';
import { htmlText } from '../test-support';
import { commonAttentionWords } from './fleet-labels';
import { LimitNote, SingleClusterNote } from './fleet-notes';
import { FleetSummary } from './fleet-summary';
import type { FleetSortKey } from './fleet-table';
import { FleetTable, fleetSortValue, sortFleetRows } from './fleet-table';

const NOW = '2026-12-01T10:00:00.000Z';

/** The value, which the test expects to be there. */
function must<T>(value: T | null | undefined): T {
  if (value === null || value === undefined) throw new Error('missing value');
  return value;
}


const entry = (id: string, isDefault = false): ClusterEntry => ({ id, context: `ctx-${id}`, displayName: id, server: `https://${id}.example:6443`, isDefault, configError: null });
const link = (e: ClusterEntry) => (path: string) => (e.isDefault ? path : `/c/${e.id}${path === '/' ? '' : path}`);

const FRESH: Freshness = { synced: true, analysis: null, staleSince: null, stale: [], forbidden: [], syncing: [], progress: { listed: 50, done: 9, types: 9 }, problems: [], relisting: null };

function input(e: ClusterEntry, analysis: ClusterAnalysis | null, freshness: Partial<Freshness> = {}, extra: Partial<FleetRowInput> = {}): FleetRowInput {
  return {
    entry: e,
    state: 'open',
    link: link(e),
    now: NOW,
    header: { mode: 'live', freshness: { ...FRESH, ...freshness }, gitVersion: 'v1.31.4-eks-2d98532', release: '1.31', platform: 'eks' },
    status: { state: 'ready' },
    analysis,
    ...extra,
  };
}

let rows: FleetRow[];

beforeAll(async () => {
  const [demo, missing] = await Promise.all([analyseFixture('eks-demo'), analyseFixture('missing-zone-label')]);
  const demoRow = fleetRow(input(entry('demo', true), demo));
  rows = [
    fleetRow(input(entry('broken'), missing)),
    fleetRow(input(entry('syncing'), null, { synced: false, progress: { listed: 1204, done: 3, types: 9 } })),
    demoRow,
    fleetRow(input(entry('down'), null, { synced: false }, { status: { state: 'unavailable', reason: 'Cannot reach the API server (connection refused, ECONNREFUSED).', since: NOW, retrying: true, permanent: false } })),
    // Beyond the limit, with the figures it had an hour ago.
    withLastFigures(
      fleetRow({ entry: entry('later'), state: 'closed-idle', link: link(entry('later')), now: NOW, refused: { reason: 'limit', message: 'Cannot open cluster "later": 2 clusters are open.' } }),
      { ...fleetRow(input(entry('later'), missing)), asOf: '2026-12-01T09:00:00.000Z', crossZoneMonthly: 3 },
    ),
  ];
});

const render = (r: readonly FleetRow[] = rows) => renderToStaticMarkup(<FleetTable rows={r} now={NOW} />);
const order = (html: string) => [...html.matchAll(/<tr data-cluster="([^"]+)"/g)].map((m) => m[1]);

describe('the fleet table', () => {
  it('lists the clusters by cross-zone $ per month, highest first, those without a figure last', () => {
    const html = render();
    expect(order(html)).toEqual(['demo', 'broken', 'later', 'down', 'syncing']);
    // The cost column holds two sort buttons (now, at best): the column says it is sorted, and the button by which.
    expect(html).toMatch(/<th[^>]*aria-sort="descending"[^>]*>(?:(?!<\/th>).)*<button[^>]*title="Sort by Cross-zone \$ per month now"><span>Now<\/span><span class="sr-only">, sorted descending<\/span>/);
    expect([...html.matchAll(/aria-sort="(ascending|descending)"/g)]).toHaveLength(1);
    expect([...html.matchAll(/aria-sort="none"/g)]).toHaveLength(6);
    // Every sort key has its button.
    expect([...html.matchAll(/<button type="button"[^>]*title="Sort by /g)]).toHaveLength(12);
  });

  it('links each cluster to its Overview and the costliest Service to its page in that cluster', () => {
    const html = render();
    const rowLinks = [...html.matchAll(/<a href="([^"]+)" data-row-link=""/g)].map((m) => m[1]);
    expect(rowLinks).toEqual(['/', '/c/broken', '/c/later', '/c/down', '/c/syncing']);
    expect(html).toContain('href="/c/broken/services/shop/web"');
    expect(html).toMatch(/href="\/services\/[^/"]+\/[^/"]+"/);
    expect(html).toContain('href="/c/broken/services?attention=1&amp;reason=hints-off&amp;sort=crossZone&amp;order=desc"');
  });

  it('says what state each cluster is in, and how old kept figures are', () => {
    const text = htmlText(render());
    expect(text).toContain('Synced');
    expect(text).toContain('Syncing: 1,204 objects listed');
    expect(text).toContain('Cannot reach the API server (connection refused, ECONNREFUSED).');
    // Closed, and kept closed by the limit: both said.
    expect(text).toContain('Closed after idle');
    expect(text).toContain('Its watches were closed after it was unused; opening it connects again. Cannot open cluster "later": 2 clusters are open.');
    expect(text).toContain('Figures as of 09:00:00 UTC');
    expect(text).toContain('Not eligible');
    expect(text).toContain('Fix: Label self-managed-node-1');
    // The most common reason in words that hold for both Services, not one Service's message.
    expect(text).toContain('Most common: Hints off — a ready node lacks a zone label or allocatable CPU (2 Services)');
  });

  it('formats money like the rest of the app and right-aligns the numbers', () => {
    const html = render();
    const demo = rows.find((r) => r.id === 'demo');
    expect(htmlText(html)).toContain(`$${(demo?.crossZoneMonthly ?? NaN).toFixed(2)}`);
    expect(html).toMatch(/<td class="px-3 py-2 text-right"><span class="flex flex-col items-end"><span class="font-semibold tabular-nums">\$/);
  });

  const KEYS: readonly FleetSortKey[] = ['cluster', 'state', 'release', 'platform', 'eligibility', 'proxy', 'asking', 'hintsOn', 'attention', 'cost', 'best', 'why'];

  it('sorts by every column both ways, rows without a value last either way', () => {
    for (const key of KEYS) {
      for (const direction of ['asc', 'desc'] as const) {
        const sorted = sortFleetRows(rows, key, direction);
        expect(sorted.map((r) => r.id).sort()).toEqual(rows.map((r) => r.id).sort());
        const values = sorted.map((r) => fleetSortValue(r, key));
        const firstNull = values.indexOf(null);
        // Every row without a value after every row with one.
        if (firstNull !== -1) expect(values.slice(firstNull).every((v) => v === null)).toBe(true);
        const present = values.filter((v): v is string | number => v !== null);
        for (let i = 1; i < present.length; i++) {
          const [a, b] = [present[i - 1] as string | number, present[i] as string | number];
          expect(direction === 'asc' ? a <= b : a >= b, `${key} ${direction}: ${String(a)} then ${String(b)}`).toBe(true);
        }
      }
    }
    expect(sortFleetRows(rows, 'cluster', 'asc').map((r) => r.id)).toEqual(['broken', 'demo', 'down', 'later', 'syncing']);
    expect(sortFleetRows(rows, 'cluster', 'desc').map((r) => r.id)).toEqual(['syncing', 'later', 'down', 'demo', 'broken']);
    expect(sortFleetRows(rows, 'state', 'asc').map((r) => r.id)).toEqual(['broken', 'demo', 'syncing', 'down', 'later']);
    expect(sortFleetRows(rows, 'attention', 'desc').map((r) => r.id)).toEqual(['demo', 'broken', 'later', 'down', 'syncing']);
    expect(sortFleetRows(rows, 'cost', 'asc').map((r) => r.id)).toEqual(['later', 'broken', 'demo', 'down', 'syncing']);
    expect(sortFleetRows(rows, 'eligibility', 'asc').map((r) => r.id)).toEqual(['demo', 'broken', 'later', 'down', 'syncing']);
    expect(sortFleetRows(rows, 'asking', 'desc').map((r) => r.id)).toEqual(['demo', 'broken', 'later', 'down', 'syncing']);
  });

  it('renders the order it is asked for, with aria-sort on that column', () => {
    const html = renderToStaticMarkup(<FleetTable rows={rows} now={NOW} initialSort="cluster" initialOrder="asc" />);
    expect(order(html)).toEqual(['broken', 'demo', 'down', 'later', 'syncing']);
    expect(html).toMatch(/<th[^>]*aria-sort="ascending"[^>]*><span[^>]*><button[^>]*title="Sort by Cluster"/);
    // A key of a column with several: that column is the sorted one.
    const byRelease = renderToStaticMarkup(<FleetTable rows={rows} now={NOW} initialSort="release" initialOrder="desc" />);
    expect(byRelease).toMatch(/<th[^>]*aria-sort="descending"[^>]*><span[^>]*><button[^>]*title="Sort by Platform"><span>Platform<\/span><svg(?:(?!<\/th>).)*title="Sort by Kubernetes release"><span>Release<\/span><span class="sr-only">, sorted descending<\/span>/);
  });

  it('shows release, platform and proxy, the three Service counts and the costs together, each saying what it is', () => {
    const text = htmlText(render());
    const demo = must(rows.find((r) => r.id === 'demo'));
    expect(text).toContain(`EKS 1.31 ${demo.proxyMode}`);
    expect(text).toContain(`${demo.askingForHints} asking for hints ${demo.hintsOn} with hints on ${demo.needingAttention} need attention`);
    expect(text).toContain(`at best $${must(demo.bestMonthly).toFixed(2)}`);
  });

  it('fits a 1280 px screen: the columns other than "why" leave it room', () => {
    const html = render();
    const widths = [...html.matchAll(/<col class="w-\[([\d.]+)rem\][^"]*"\/>/g)].map((m) => Number(m[1]));
    const minWidth = Number(/min-w-\[([\d.]+)rem\]/.exec(html)?.[1]);
    expect(widths).toHaveLength(6);
    // The table's narrowest, inside the page's padding at 1280 px (75 rem), leaves "why" at least 18 rem.
    expect(minWidth).toBeLessThanOrEqual(72);
    expect(minWidth - widths.reduce((a, b) => a + b, 0)).toBeGreaterThanOrEqual(18);
  });

  it('gives a phone one card per cluster, in the table\'s order, each with its "why", and a sort list', () => {
    const html = render();
    const cards = [...html.matchAll(/<li data-cluster-card="([^"]+)"/g)].map((m) => m[1]);
    expect(cards).toEqual(order(html));
    const demoCard = htmlText(/<li data-cluster-card="demo"(?:(?!data-cluster-card=|<\/ol>).)*/s.exec(html)?.[0] ?? '');
    expect(demoCard).toMatch(/Why .*Most common: /);
    expect(html).toContain('<option value="cost:desc" selected="">Cross-zone $ per month now, highest first</option>');
    expect([...html.matchAll(/<option /g)]).toHaveLength(24);
  });

  it('says so when there is no cluster', () => {
    expect(htmlText(render([]))).toContain('No cluster is configured.');
  });
});

describe('the answer line', () => {
  it('names the cluster spending most, its share, its saving, its costliest Service and the most common reason', () => {
    const leader = fleetLeader(rows);
    const text = htmlText(renderToStaticMarkup(<FleetSummary leader={leader} rows={rows} now={NOW} />));
    const demo = rows.find((r) => r.id === 'demo');
    expect(leader?.row.id).toBe('demo');
    expect(text).toMatch(/^demo spends most on cross-zone traffic: \$\d+\.\d\d per month, \d+ % of the \$\d+\.\d\d of 3 clusters with figures; \$\d+\.\d\d of it goes away/);
    expect(text).toContain(`Costliest Service: ${demo?.topService?.namespace}/${demo?.topService?.name}`);
    expect(text).toContain(`Smallest fix: ${demo?.topService?.fix}`);
    expect(text).toContain(`Most Services needing attention there: ${commonAttentionWords(must(demo?.commonAttention))}`);
    expect(text).not.toContain(must(demo?.commonAttention).message);
  });

  it('warns when it compares measured volumes with set or assumed ones, naming which is which', () => {
    const all = htmlText(renderToStaticMarkup(<FleetSummary leader={fleetLeader(rows)} rows={rows} now={NOW} />));
    expect(rows.filter((r) => r.crossZoneMonthly !== null).every((r) => r.measured === false)).toBe(true);
    expect(all).not.toContain('Compare with care');
    const mixed = rows.map((r) => (r.id === 'demo' ? { ...r, measured: true } : r));
    const text = htmlText(renderToStaticMarkup(<FleetSummary leader={fleetLeader(mixed)} rows={mixed} now={NOW} />));
    expect(text).toContain('Compare with care: traffic volumes are measured for demo but set or assumed (the configured or default GB per month per Service) for broken, later, so their costs are not figures of the same kind.');
  });

  it('says when no cluster has figures yet', () => {
    const waiting = rows.filter((r) => r.crossZoneMonthly === null);
    const text = htmlText(renderToStaticMarkup(<FleetSummary leader={fleetLeader(waiting)} rows={waiting} now={NOW} />));
    expect(text).toBe('No cluster has cross-zone figures yet: 1 cluster still syncing, the page updates on its own.');
  });
});

describe('the notes', () => {
  it('names the clusters the open-cluster limit keeps closed, and when clusters close', () => {
    const text = htmlText(renderToStaticMarkup(<LimitNote rows={rows} maxOpen={2} idleMinutes={15} />));
    expect(text).toMatch(/^1 cluster not connected: at most 2 clusters are open at once\. later is not opened \(ZONESCOPE_MAX_OPEN_CLUSTERS counts the default cluster\)\. Clusters unused close after 15 min/);
    expect(renderToStaticMarkup(<LimitNote rows={rows.filter((r) => r.id !== 'later')} maxOpen={2} idleMinutes={15} />)).toBe('');
    expect(htmlText(renderToStaticMarkup(<LimitNote rows={rows} maxOpen={2} idleMinutes={0} />))).toContain('close never (ZONESCOPE_CLUSTER_IDLE_MINUTES is 0)');
  });

  it('says when the fleet is one cluster', () => {
    expect(htmlText(renderToStaticMarkup(<SingleClusterNote rows={rows.slice(0, 1)} />))).toContain('One cluster is configured.');
    expect(renderToStaticMarkup(<SingleClusterNote rows={rows} />)).toBe('');
  });
});
