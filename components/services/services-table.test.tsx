/**
 * The Services table as the server renders it from the JSON the page hands it
 * (`serviceTableJson`): the rows and counts of the data it was given, filtered and sorted by the
 * URL's query — and after the cluster changes, the new data, never the previous table's. The
 * reason is a short chip with the full message on demand, the HPA and measured-difference columns
 * say what they checked, and a phone shows the priority columns only.
 */
import { renderToStaticMarkup } from 'react-dom/server';
import { AppRouterContext } from 'next/dist/shared/lib/app-router-context.shared-runtime';
import type { AppRouterInstance } from 'next/dist/shared/lib/app-router-context.shared-runtime';
import { SearchParamsContext } from 'next/dist/shared/lib/hooks-client-context.shared-runtime';
import { describe, expect, it } from 'vitest';

import type { ServiceRow } from '@/lib/views/services/rows';
import type { ServiceTableData } from '@/lib/views/services/table';
import { serviceTable } from '@/lib/views/services/table';
import { resolvePricing } from '@/lib/topology/model/cloud-pricing';
import { parseTableQuery } from '@/lib/shared/services-table-url';
import { htmlText } from '../test-support';
import { ServicesTable } from './services-table';
import { formatPoints, hpaSentence, listCounts } from './services-table-columns';
import { reasonChipLabel } from './reason-cell';

const noop = () => {};
const router: AppRouterInstance = { back: noop, forward: noop, refresh: noop, push: noop, replace: noop, prefetch: noop, bfcacheId: 'test' };

const HINTS_OFF = 'Hints off: Insufficient number of endpoints (2 endpoints, 3 zones), addressType: IPv4.';

function row(namespace: string, name: string, ready: number, crossZone: number, extra: Partial<ServiceRow> = {}): ServiceRow {
  return {
    namespace, name, type: 'ClusterIP', mechanism: 'none', hintsExpected: false, hintsObserved: 'none', reason: null, attention: null,
    endpointsByZone: { 'zone-a': ready }, readyEndpoints: ready, crossZoneFraction: crossZone, crossZoneFractionIfAuto: crossZone,
    gbPerMonth: 50 * ready, volumeSource: 'assumed', monthlyCost: 50 * ready * crossZone * 0.02, measuredCrossZoneFraction: null, measuredMinusPredicted: null,
    hpaScaleDown: { state: 'none', minReplicas: null, maxReplicas: null, hintsOffAt: [] }, ...extra,
  };
}

const table = (rows: readonly ServiceRow[]): ServiceTableData => serviceTable(rows, { clusterZones: ['zone-a', 'zone-b'], unreadable: [], pricing: resolvePricing('eks', null, null) });

function render(data: ServiceTableData, params: Record<string, string> = {}): string {
  return renderToStaticMarkup(
    <AppRouterContext.Provider value={router}>
      <ServicesTable json={JSON.stringify(data)} initial={parseTableQuery(params, data.namespaces)} />
    </AppRouterContext.Provider>,
  );
}

/** Rendered as the App Router shows it: `url` is the address bar's query, `props` the page's own parameters. */
function renderAt(data: ServiceTableData, url: string, props: Record<string, string>): string {
  return renderToStaticMarkup(
    <AppRouterContext.Provider value={router}>
      <SearchParamsContext.Provider value={new URLSearchParams(url)}>
        <ServicesTable json={JSON.stringify(data)} initial={parseTableQuery(props, data.namespaces)} />
      </SearchParamsContext.Provider>
    </AppRouterContext.Provider>,
  );
}

const services = (html: string) => [...html.matchAll(/href="\/services\/([^"/]+\/[^"/]+)"/g)].map((m) => m[1]);

describe('the Services table rendered from its JSON', () => {
  const cart = row('shop', 'cart', 2, 0.5, {
    mechanism: 'topology-mode', reason: HINTS_OFF, attention: { reason: 'hints-off', message: HINTS_OFF }, type: 'LoadBalancer',
  });
  const shop = table([cart, row('shop', 'api', 6, 0.1, { hintsExpected: true, hintsObserved: 'all', mechanism: 'trafficDistribution' }), row('ads', 'banner', 1, 0.7, { volumeSource: 'set', gbPerMonth: 12 })]);

  it('shows every Service of the data, sorted by namespace and name, with what each row says', () => {
    const html = render(shop);
    const text = htmlText(html);
    expect(text).toContain('3 Services');
    expect(services(html)).toEqual(['ads/banner', 'shop/api', 'shop/cart']);
    expect(text).toContain('Insufficient number of endpoints');
    expect(text).toContain('LoadBalancer');
    expect(text).toContain('all endpoints');
    expect(text).toContain('12 GB');
  });

  it('decodes to the rows it was built from (every interned field)', () => {
    const json = JSON.parse(JSON.stringify(shop)) as ServiceTableData;
    expect(json.rows).toHaveLength(3);
    const labelOf = (index: number) => (index >= 0 ? json.labels[index] : null);
    const decoded = json.rows.map((r) => ({
      key: `${json.namespaces[r[0]]}/${r[1]}`, type: labelOf(r[2]), mechanism: labelOf(r[3]), observed: labelOf(r[5]),
      reason: r[6] >= 0 ? json.reasons[r[6]] : null, attention: labelOf(r[7]), source: labelOf(r[13]),
    }));
    expect(decoded).toEqual([
      { key: 'shop/cart', type: 'LoadBalancer', mechanism: 'topology-mode', observed: 'none', reason: HINTS_OFF, attention: 'hints-off', source: 'assumed' },
      { key: 'shop/api', type: 'ClusterIP', mechanism: 'trafficDistribution', observed: 'all', reason: null, attention: null, source: 'assumed' },
      { key: 'ads/banner', type: 'ClusterIP', mechanism: 'none', observed: 'none', reason: null, attention: null, source: 'set' },
    ]);
  });

  it("applies the URL's filter and sort", () => {
    const html = render(shop, { attention: '1' });
    expect(htmlText(html)).toContain('1 of 3 Services');
    expect(services(html)).toEqual(['shop/cart']);
    expect(services(render(shop, { sort: 'crossZone', order: 'desc' }))).toEqual(['ads/banner', 'shop/cart', 'shop/api']);
  });

  it("takes its query from the URL, not from the page's first-load parameters (Back restores those from the router's cache)", () => {
    // Back to `/services?ns=shop&sort=crossZone&order=desc` first loaded as `/services`.
    const html = renderAt(shop, '?ns=shop&sort=crossZone&order=desc', {});
    expect(htmlText(html)).toContain('2 of 3 Services');
    expect(services(html)).toEqual(['shop/cart', 'shop/api']);
    expect(html).toMatch(/<option value="shop" selected="">shop<\/option>/);
    // And the other way round: the URL lost the query the page was first loaded with.
    expect(services(renderAt(shop, '', { attention: '1' }))).toEqual(['ads/banner', 'shop/api', 'shop/cart']);
    // The same parse of the same query as the server's, so the server's HTML hydrates as it is.
    expect(renderAt(shop, '?sort=crossZone&order=desc', { sort: 'crossZone', order: 'desc' })).toBe(render(shop, { sort: 'crossZone', order: 'desc' }));
  });

  it('shows the new data once the cluster changed, and the same again when it did not', () => {
    expect(services(render(shop))).toEqual(['ads/banner', 'shop/api', 'shop/cart']);
    const changed = table([row('shop', 'cart', 2, 0.5), row('web', 'front', 3, 0.2)]);
    const html = render(changed);
    expect(htmlText(html)).toContain('2 Services');
    expect(services(html)).toEqual(['shop/cart', 'web/front']);
    expect(services(render(changed, { attention: '1' }))).toEqual([]);
    expect(render(changed)).toBe(html);
  });
});

describe('the Services table’s reason chip, HPA and measured columns', () => {
  const ledger = row('payments', 'ledger', 7, 0.278, {
    mechanism: 'topology-mode',
    hpaScaleDown: { state: 'off-at-min', minReplicas: 3, maxReplicas: 12, hintsOffAt: [3, 4, 5] },
    measuredCrossZoneFraction: 0.402,
    measuredMinusPredicted: 12.4,
    volumeSource: 'measured-flows',
  });
  const cart = row('shop', 'cart', 2, 0.5, { mechanism: 'topology-mode', reason: HINTS_OFF, attention: { reason: 'hints-off', message: HINTS_OFF } });
  const web = row('shop', 'web', 9, 0.1, {
    mechanism: 'topology-mode',
    hpaScaleDown: { state: 'on', minReplicas: 9, maxReplicas: 20, hintsOffAt: [] },
    measuredCrossZoneFraction: 0.12,
    measuredMinusPredicted: 2,
    volumeSource: 'measured-flows',
  });
  const data = table([ledger, cart, web]);

  it('shows a short chip for the controller’s reason, with the whole message kept for screen readers and on demand', () => {
    const html = render(data);
    expect(htmlText(html)).toContain('endpoints < zones');
    // Folded: the full message is the chip's title and visually hidden text, not a paragraph in the row.
    expect(html).toMatch(/<button type="button" aria-expanded="false" aria-controls="[^"]+" tabindex="-1" title="Hints off: Insufficient number of endpoints/);
    expect(html).toMatch(/<span id="[^"]+" class="sr-only">Hints off: Insufficient number of endpoints \(2 endpoints, 3 zones\)/);
    expect(reasonChipLabel('Unable to allocate minimum required endpoints to each zone without exceeding overload threshold (4 endpoints, 3 zones), addressType: IPv4')).toBe('Σ min > endpoints');
    expect(reasonChipLabel('unknown: zonescope could not read Nodes (forbidden)')).toBe('unknown');
    expect(reasonChipLabel('1 endpoint(s) donated across zones')).toBe('details');
  });

  it('says what the HPA does to the hints, and the measured difference in signed points', () => {
    const text = htmlText(render(data));
    expect(text).toContain('off at min 3');
    expect(text).toContain('HPA 3–12');
    expect(text).toContain('stays on');
    expect(text).toContain('no HPA');
    expect(text).toContain('Hints turn off when the HPA scales down to minReplicas 3: Σ per-zone minimums exceed 3 ready endpoints (also at 4 and 5). HPA range 3–12.');
    expect(text).toContain('+12.4 points (Measured 40.2 % cross-zone by zone-resolved flows');
    expect(text).toContain('+2.0');
    expect(formatPoints(-4)).toBe('−4.0');
    expect(formatPoints(0)).toBe('±0.0');
    expect(listCounts([4, 5, 8, 11])).toBe('4, 5, 8, … (4 counts)');
    expect(listCounts([4, 5, 8])).toBe('4, 5 and 8');
    expect(hpaSentence({ mechanism: 'topology-mode', hpaScaleDown: 'off-in-range', hpaRange: { minReplicas: 3, maxReplicas: 12, hintsOffAt: [4, 5] } })).toBe(
      'Hints are on at minReplicas 3 but off at 4 and 5 replicas, within the HPA range 3–12 (Σ per-zone minimums exceed the count).',
    );
    expect(hpaSentence({ mechanism: 'trafficDistribution', hpaScaleDown: 'not-applicable', hpaRange: { minReplicas: 2, maxReplicas: 4, hintsOffAt: [] } })).toContain('do not come from topology mode Auto');
  });

  it('filters and sorts by both from the URL', () => {
    expect(services(render(data, { hpa: 'off' }))).toEqual(['payments/ledger']);
    expect(services(render(data, { hpa: 'none' }))).toEqual(['shop/cart']);
    expect(services(render(data, { measuredDiff: '10' }))).toEqual(['payments/ledger']);
    expect(services(render(data, { measuredDiff: '0' }))).toEqual(['payments/ledger', 'shop/web']);
    expect(services(render(data, { sort: 'hpa' }))).toEqual(['payments/ledger', 'shop/web', 'shop/cart']);
    expect(services(render(data, { sort: 'measuredDiff', order: 'desc' }))).toEqual(['payments/ledger', 'shop/web', 'shop/cart']);
    const html = render(data, { hpa: 'off-at-min', measuredDiff: '10' });
    expect(html).toMatch(/<option value="off-at-min" selected="">Hints off at minReplicas<\/option>/);
    expect(html).toMatch(/<option value="10" selected="">Differs by ≥ 10 points<\/option>/);
    expect(html).toContain('href="/api/v1/services?format=csv&amp;hpa=off-at-min&amp;measuredDiff=10&amp;sort=namespace&amp;order=asc"');
  });

  it('shows only Service, hints, cross-zone share and cost on a phone', () => {
    const html = render(data);
    // A header's text as a phone shows it: its `md:hidden` short form where it has one.
    const headers = [...html.matchAll(/<th [^>]*class="([^"]*)"[^>]*>(.*?)<\/th>/g)].map((m) => {
      const cell = m[2] ?? '';
      const short = /<span class="md:hidden">(.*?)<\/span>/.exec(cell)?.[1];
      return { phone: !(m[1] ?? '').includes('hidden md:table-cell'), text: short ?? htmlText(cell) };
    });
    expect(headers.filter((h) => h.phone).map((h) => h.text)).toEqual(['Service', 'Hints now / exp.', 'Cross-zone', '$/mo']);
    expect(headers).toHaveLength(10);
  });
});
