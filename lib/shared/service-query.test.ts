import { describe, expect, it } from 'vitest';
import type { QueryableService } from './service-query';
import { API_SORT_ALIASES, firstSortOrder, hpaFilterMatches, HPA_SCALE_DOWN_STATES, nextSort, queryServices, SERVICE_SORT_KEYS, SERVICE_SORTS, serviceNaturalKey, serviceSearchText } from './service-query';
import { parseTableQuery, parseTableSearch, queryTable, TABLE_SORT_KEYS, tableExportHref, tableQueryFilters, tableQuerySearch } from './services-table-url';

function row(namespace: string, name: string, extra: Partial<QueryableService> = {}): QueryableService {
  return {
    namespace, name, mechanism: 'none', type: 'ClusterIP', hintsExpected: false, hintsObserved: 'none', reason: null, attention: null, readyEndpoints: 1, crossZoneFraction: 0,
    gbPerMonth: 150, monthlyCost: 0, hpaScaleDown: 'none', measuredMinusPredicted: null,
    search: serviceSearchText(namespace, name), naturalKey: serviceNaturalKey(namespace, name), ...extra,
  };
}

const NO_FILTER = { q: '', ns: '', mechanism: '', reason: '', type: '', hpa: '', measuredDiff: null, sort: 'service', order: 'asc', attention: false } as const;

const keys = (rows: readonly QueryableService[]) => rows.map((r) => `${r.namespace}/${r.name}`);

describe('the shared Services query', () => {
  it('maps every API and table sort value onto one column', () => {
    for (const key of SERVICE_SORT_KEYS) expect(SERVICE_SORTS).toContain(API_SORT_ALIASES[key]);
    for (const key of TABLE_SORT_KEYS) expect(SERVICE_SORTS).toContain(key);
    expect(API_SORT_ALIASES.namespace).toBe('service');
  });

  it('sorts names naturally, ties by namespace/name ascending in both orders', () => {
    const rows = [row('a', 'svc-1454'), row('a', 'svc-154', { readyEndpoints: 3 }), row('b', 'svc-2'), row('a', 'svc-2')];
    expect(keys(queryServices(rows, { sort: 'service' }))).toEqual(['a/svc-2', 'a/svc-154', 'a/svc-1454', 'b/svc-2']);
    expect(keys(queryServices(rows, { sort: 'name' }))).toEqual(['a/svc-2', 'b/svc-2', 'a/svc-154', 'a/svc-1454']);
    expect(keys(queryServices(rows, { sort: 'endpoints', order: 'desc' }))).toEqual(['a/svc-154', 'a/svc-2', 'a/svc-1454', 'b/svc-2']);
  });

  it('sorts by name field by field (a name that is a prefix of another comes first)', () => {
    const rows = [row('x', 'api-gateway'), row('y', 'api')];
    expect(keys(queryServices(rows, { sort: 'name' }))).toEqual(['y/api', 'x/api-gateway']);
  });

  it('matches q against namespace/name, and against the reason only when asked (the table)', () => {
    const rows = [row('shop', 'cart', { reason: 'Insufficient number of endpoints', attention: 'hints-off' }), row('shop', 'checkout')];
    expect(keys(queryServices(rows, { q: ' SHOP/CH ', sort: 'service' }))).toEqual(['shop/checkout']);
    expect(keys(queryServices(rows, { q: 'insufficient', sort: 'service' }))).toEqual([]);
    expect(keys(queryTable(rows, { ...NO_FILTER, q: 'insufficient' }))).toEqual(['shop/cart']);
    expect(keys(queryTable(rows, { ...NO_FILTER, ns: 'shop', attention: true }))).toEqual(['shop/cart']);
  });

  it('parses and writes the table URL state', () => {
    const query = parseTableQuery({ q: 'shop/', ns: 'payments', sort: 'crossZone', order: 'desc', attention: '1' }, ['payments']);
    expect(query).toEqual({ ...NO_FILTER, q: 'shop/', ns: 'payments', sort: 'crossZone', order: 'desc', attention: true });
    expect(tableQuerySearch(query)).toBe('?q=shop%2F&ns=payments&attention=1&sort=crossZone&order=desc');
    expect(parseTableQuery({ ns: 'unknown', sort: 'name', order: 'up', mechanism: 'magic', reason: 'x', type: 'Headless' }, ['payments'])).toEqual(NO_FILTER);
    const filtered = parseTableQuery({ mechanism: 'topology-mode', reason: 'hints-off', type: 'LoadBalancer' }, []);
    expect(filtered).toEqual({ ...NO_FILTER, mechanism: 'topology-mode', reason: 'hints-off', type: 'LoadBalancer' });
    expect(tableQuerySearch(filtered)).toBe('?mechanism=topology-mode&reason=hints-off&type=LoadBalancer');
    expect(tableQueryFilters(filtered)).toBe(true);
    expect(tableQueryFilters(NO_FILTER)).toBe(false);
    expect(tableQuerySearch(parseTableQuery({}, []))).toBe('');
  });

  it('reads the table URL state from the address bar as from the page parameters', () => {
    const query = parseTableQuery({ q: 'shop/', ns: 'payments', sort: 'crossZone', order: 'desc', attention: '1' }, ['payments']);
    const search = tableQuerySearch(query);
    // What the table writes, it reads back, with or without the `?`, as a string or as parameters.
    expect(parseTableSearch(search, ['payments'])).toEqual(query);
    expect(parseTableSearch(search.slice(1), ['payments'])).toEqual(query);
    expect(parseTableSearch(new URLSearchParams(search), ['payments'])).toEqual(query);
    expect(parseTableSearch('', ['payments'])).toEqual(NO_FILTER);
    // The same fallbacks as the page's parameters, and the first of repeated values (as Next's searchParams arrays give).
    expect(parseTableSearch('?ns=unknown&sort=name&order=up&type=Headless', ['payments'])).toEqual(NO_FILTER);
    expect(parseTableSearch('?sort=cost&sort=volume&ns=payments&ns=shop', ['payments', 'shop'])).toEqual(
      parseTableQuery({ sort: ['cost', 'volume'], ns: ['payments', 'shop'] }, ['payments', 'shop']),
    );
    expect(parseTableSearch('?sort=cost&sort=volume', [])).toMatchObject({ sort: 'cost', order: 'asc' });
  });
  it('filters by mechanism, reason and type', () => {
    const rows = [
      row('shop', 'cart', { mechanism: 'topology-mode', attention: 'hints-off', type: 'LoadBalancer' }),
      row('shop', 'checkout', { mechanism: 'topology-mode', attention: 'cross-zone-leak' }),
      row('shop', 'web'),
    ];
    expect(keys(queryTable(rows, { ...NO_FILTER, mechanism: 'topology-mode' }))).toEqual(['shop/cart', 'shop/checkout']);
    expect(keys(queryTable(rows, { ...NO_FILTER, reason: 'cross-zone-leak' }))).toEqual(['shop/checkout']);
    expect(keys(queryTable(rows, { ...NO_FILTER, type: 'ClusterIP' }))).toEqual(['shop/checkout', 'shop/web']);
    expect(keys(queryServices(rows, { mechanism: 'none', sort: 'service' }))).toEqual(['shop/web']);
  });

  it('links the export to the same rows the table shows (search over reasons, filters, sort)', () => {
    const href = tableExportHref({ ...NO_FILTER, q: 'insufficient', ns: 'shop', reason: 'hints-off', sort: 'service', order: 'desc' }, 'csv');
    const url = new URL(href, 'http://localhost');
    expect(url.pathname).toBe('/api/v1/services');
    expect(Object.fromEntries(url.searchParams)).toEqual({ format: 'csv', q: 'insufficient', searchReasons: '1', namespace: 'shop', reason: 'hints-off', sort: 'namespace', order: 'desc' });
  });

  it('sorts by volume and by cross-zone cost, Services without traffic figures last when descending', () => {
    const rows = [
      row('shop', 'storefront', { gbPerMonth: 15_000, monthlyCost: 42.5 }),
      row('shop', 'cart', { gbPerMonth: 100, monthlyCost: 1.2 }),
      row('shop', 'legacy', { gbPerMonth: null, monthlyCost: null }),
      row('payments', 'ledger', { gbPerMonth: 450, monthlyCost: 3.6 }),
      row('shop', 'web', { gbPerMonth: 450, monthlyCost: 0 }),
    ];
    expect(keys(queryServices(rows, { sort: 'cost', order: 'desc' }))).toEqual(['shop/storefront', 'payments/ledger', 'shop/cart', 'shop/web', 'shop/legacy']);
    expect(keys(queryServices(rows, { sort: 'cost', order: 'asc' }))).toEqual(['shop/legacy', 'shop/web', 'shop/cart', 'payments/ledger', 'shop/storefront']);
    // Equal volumes fall back to namespace/name ascending.
    expect(keys(queryServices(rows, { sort: 'volume', order: 'desc' }))).toEqual(['shop/storefront', 'payments/ledger', 'shop/web', 'shop/cart', 'shop/legacy']);
    expect(API_SORT_ALIASES.cost).toBe('cost');
    expect(API_SORT_ALIASES.volume).toBe('volume');
    expect(SERVICE_SORT_KEYS).toEqual(expect.arrayContaining(['cost', 'volume']));
  });

  it('sorts numbers descending on the first click, names ascending; a second click flips', () => {
    expect(firstSortOrder('cost')).toBe('desc');
    expect(firstSortOrder('volume')).toBe('desc');
    expect(firstSortOrder('crossZone')).toBe('desc');
    expect(firstSortOrder('endpoints')).toBe('desc');
    expect(firstSortOrder('service')).toBe('asc');
    expect(firstSortOrder('mechanism')).toBe('asc');
    expect(nextSort({ sort: 'service', order: 'asc' }, 'cost')).toEqual({ sort: 'cost', order: 'desc' });
    expect(nextSort({ sort: 'cost', order: 'desc' }, 'cost')).toEqual({ sort: 'cost', order: 'asc' });
    expect(nextSort({ sort: 'cost', order: 'asc' }, 'cost')).toEqual({ sort: 'cost', order: 'desc' });
    expect(nextSort({ sort: 'cost', order: 'desc' }, 'reason')).toEqual({ sort: 'reason', order: 'asc' });
  });

  it('keeps the volume and cost sorts in the table URL and in its export links', () => {
    const query = parseTableQuery({ sort: 'cost', order: 'desc' }, []);
    expect(query).toEqual({ ...NO_FILTER, sort: 'cost', order: 'desc' });
    expect(tableQuerySearch(query)).toBe('?sort=cost&order=desc');
    expect(parseTableQuery({ sort: 'volume' }, []).sort).toBe('volume');
    const url = new URL(tableExportHref(query, 'json'), 'http://localhost');
    expect(Object.fromEntries(url.searchParams)).toEqual({ format: 'json', sort: 'cost', order: 'desc' });
    expect(new URL(tableExportHref({ ...NO_FILTER, sort: 'volume', order: 'asc' }, 'csv'), 'http://localhost').searchParams.get('sort')).toBe('volume');
  });

  describe('the HPA scale-down and measured-vs-predicted answers', () => {
    const rows = [
      row('payments', 'ledger', { hpaScaleDown: 'off-at-min', measuredMinusPredicted: 12.4 }),
      row('shop', 'catalog', { measuredMinusPredicted: -21 }),
      row('shop', 'checkout', { hpaScaleDown: 'off-in-range', measuredMinusPredicted: 3 }),
      row('shop', 'web', { hpaScaleDown: 'on', measuredMinusPredicted: 10 }),
      row('shop', 'auth', { hpaScaleDown: 'not-applicable' }),
      row('shop', 'api', { measuredMinusPredicted: 0 }),
      row('kube-system', 'dns', { hpaScaleDown: 'unknown' }),
    ];

    it('filters by what the HPA does to the hints: off anywhere in its range, off at minReplicas, on, no HPA', () => {
      expect(keys(queryTable(rows, { ...NO_FILTER, hpa: 'off' }))).toEqual(['payments/ledger', 'shop/checkout']);
      expect(keys(queryTable(rows, { ...NO_FILTER, hpa: 'off-at-min' }))).toEqual(['payments/ledger']);
      expect(keys(queryTable(rows, { ...NO_FILTER, hpa: 'on' }))).toEqual(['shop/web']);
      expect(keys(queryTable(rows, { ...NO_FILTER, hpa: 'none' }))).toEqual(['shop/api', 'shop/catalog']);
      // Not-applicable and unknown states pass no filter value but show unfiltered.
      for (const filter of ['off', 'off-at-min', 'on', 'none'] as const) expect(hpaFilterMatches(filter, 'not-applicable') || hpaFilterMatches(filter, 'unknown')).toBe(false);
      // An unknown value filters nothing (the API refuses it before).
      expect(keys(queryServices(rows, { hpa: 'sometimes', sort: 'service' }))).toHaveLength(rows.length);
    });

    it('filters by the size of the measured difference, either sign, inclusive; unmeasured Services never pass', () => {
      expect(keys(queryTable(rows, { ...NO_FILTER, measuredDiff: 10 }))).toEqual(['payments/ledger', 'shop/catalog', 'shop/web']);
      expect(keys(queryTable(rows, { ...NO_FILTER, measuredDiff: 20 }))).toEqual(['shop/catalog']);
      // 0: every Service measured with flows, a zero difference included.
      expect(keys(queryTable(rows, { ...NO_FILTER, measuredDiff: 0 }))).toEqual(['payments/ledger', 'shop/api', 'shop/catalog', 'shop/checkout', 'shop/web']);
      expect(keys(queryServices(rows, { measuredDiff: 10, hpa: 'off', sort: 'service' }))).toEqual(['payments/ledger']);
    });

    it('sorts the HPA column worst first, and the measured difference by its size, unmeasured last', () => {
      expect(firstSortOrder('hpa')).toBe('asc');
      expect(firstSortOrder('measuredDiff')).toBe('desc');
      expect(keys(queryServices(rows, { sort: 'hpa' }))).toEqual(['payments/ledger', 'shop/checkout', 'shop/web', 'shop/auth', 'shop/api', 'shop/catalog', 'kube-system/dns']);
      expect(HPA_SCALE_DOWN_STATES[0]).toBe('off-at-min');
      expect(keys(queryServices(rows, { sort: 'measuredDiff', order: 'desc' }))).toEqual(['shop/catalog', 'payments/ledger', 'shop/web', 'shop/checkout', 'shop/api', 'kube-system/dns', 'shop/auth']);
      expect(keys(queryServices(rows, { sort: 'measuredDiff', order: 'asc' })).slice(0, 3)).toEqual(['kube-system/dns', 'shop/auth', 'shop/api']);
      expect(API_SORT_ALIASES.hpa).toBe('hpa');
      expect(API_SORT_ALIASES.measuredDiff).toBe('measuredDiff');
    });

    it('keeps both filters and sorts in the table URL and its export links; other values fall back', () => {
      const query = parseTableQuery({ hpa: 'off-at-min', measuredDiff: '10', sort: 'measuredDiff', order: 'desc' }, []);
      expect(query).toEqual({ ...NO_FILTER, hpa: 'off-at-min', measuredDiff: 10, sort: 'measuredDiff', order: 'desc' });
      expect(tableQuerySearch(query)).toBe('?hpa=off-at-min&measuredDiff=10&sort=measuredDiff&order=desc');
      expect(parseTableSearch(tableQuerySearch(query), [])).toEqual(query);
      expect(tableQueryFilters(query)).toBe(true);
      expect(tableQueryFilters({ ...NO_FILTER, measuredDiff: 0 })).toBe(true);
      expect(parseTableQuery({ hpa: 'sometimes', measuredDiff: '7' }, [])).toEqual(NO_FILTER);
      expect(parseTableQuery({ measuredDiff: '10.0' }, []).measuredDiff).toBeNull();
      expect(parseTableQuery({ measuredDiff: '0', sort: 'hpa' }, [])).toEqual({ ...NO_FILTER, measuredDiff: 0, sort: 'hpa' });
      expect(Object.fromEntries(new URL(tableExportHref(query, 'csv'), 'http://localhost').searchParams)).toEqual({
        format: 'csv',
        hpa: 'off-at-min',
        measuredDiff: '10',
        sort: 'measuredDiff',
        order: 'desc',
      });
      expect(new URL(tableExportHref({ ...NO_FILTER, sort: 'hpa', order: 'asc' }, 'json'), 'http://localhost').searchParams.get('sort')).toBe('hpa');
    });
  });
});
