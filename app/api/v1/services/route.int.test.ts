/**
 * `GET /api/v1/services` against eks-demo on the simulator: filters, sort, paging, the documented
 * clamping of `limit`, and 400 for every malformed parameter (before any cluster call).
 */
import { describe, expect, it } from 'vitest';
import type { ApiErrorResponse, ServicesResponse } from '../../../../lib/views/api-types';
import { apiRequest, nonWatchRequests, readJson, harnessForFile } from '../_testing/harness';
import { DELETE, GET, OPTIONS, PATCH, POST, PUT } from './route';

const harness = harnessForFile();

async function list(query = ''): Promise<ServicesResponse> {
  const response = GET(apiRequest(`/api/v1/services${query}`));
  expect(response.status).toBe(200);
  expect(response.headers.get('cache-control')).toBe('no-store');
  return readJson<ServicesResponse>(response);
}

describe('GET /api/v1/services', () => {
  it('lists every Service as a row, sorted by namespace then name, with the namespaces', async () => {
    const body = await list();
    expect(Object.keys(body).sort()).toEqual(['items', 'limit', 'namespaces', 'offset', 'total']);
    expect(body).toMatchObject({ offset: 0, limit: 100 });
    expect(body.total).toBe(body.items.length);
    expect(body.namespaces).toEqual(expect.arrayContaining(['payments', 'platform', 'shop']));
    const keys = body.items.map((row) => `${row.namespace}/${row.name}`);
    expect(keys).toEqual([...keys].sort((a, b) => a.localeCompare(b)));
    const checkout = body.items.find((row) => row.namespace === 'shop' && row.name === 'checkout');
    expect(checkout).toMatchObject({ type: 'ClusterIP', mechanism: 'topology-mode', hintsExpected: true, hintsObserved: 'all' });
    expect(Object.keys(checkout ?? {}).sort()).toEqual([
      'attention', 'crossZoneFraction', 'crossZoneFractionIfAuto', 'endpointsByZone', 'gbPerMonth', 'hintsExpected', 'hintsObserved', 'hpaScaleDown', 'measuredCrossZoneFraction',
      'measuredMinusPredicted', 'mechanism', 'monthlyCost', 'name', 'namespace', 'readyEndpoints', 'reason', 'type', 'volumeSource',
    ]);
  });

  it('filters by q, namespace and attention', async () => {
    const byQuery = await list('?q=SHOP/CHECK');
    expect(byQuery.items.map((row) => `${row.namespace}/${row.name}`)).toEqual(['shop/checkout']);
    expect((await list('?q=check')).items.map((row) => row.name).sort()).toEqual(['checkout', 'fraud-check']);
    const shop = await list('?namespace=shop');
    expect(shop.items.length).toBeGreaterThan(3);
    expect(shop.items.every((row) => row.namespace === 'shop')).toBe(true);
    const attention = await list('?attention=true');
    expect(attention.total).toBeGreaterThan(0);
    expect(attention.items.every((row) => row.attention !== null)).toBe(true);
    expect((await list('?attention=0')).total).toBe((await list()).total);
    expect((await list('?namespace=nothing-here')).total).toBe(0);
  });

  it('sorts by every key in both orders', async () => {
    const byEndpoints = await list('?sort=endpoints&order=desc');
    const counts = byEndpoints.items.map((row) => row.readyEndpoints);
    expect(counts).toEqual([...counts].sort((a, b) => b - a));
    const byName = await list('?sort=name');
    const names = byName.items.map((row) => row.name);
    expect(names).toEqual([...names].sort((a, b) => a.localeCompare(b)));
    for (const sort of ['namespace', 'mechanism', 'hints', 'reason', 'crossZone', 'volume', 'cost']) {
      for (const order of ['asc', 'desc']) expect((await list(`?sort=${sort}&order=${order}`)).total).toBe(byName.total);
    }
  });

  it('gives every row its assumed volume and cross-zone cost (no Prometheus here), and sorts by them', async () => {
    const byCost = await list('?sort=cost&order=desc');
    const costs = byCost.items.map((row) => row.monthlyCost ?? -1);
    expect(costs).toEqual([...costs].sort((a, b) => b - a));
    expect(costs[0]).toBeGreaterThan(0);
    for (const row of byCost.items) {
      if (row.gbPerMonth === null) continue;
      // Nothing measured or set: 50 GB per ready endpoint per month, cost = cross-zone GB × $0.01 × 2.
      expect(row.volumeSource).toBe('assumed');
      expect(row.measuredCrossZoneFraction).toBeNull();
      expect(row.gbPerMonth).toBeCloseTo(50 * row.readyEndpoints, 4);
      expect(row.monthlyCost).toBeCloseTo(row.gbPerMonth * row.crossZoneFraction * 0.01 * 2, 4);
    }
    const byVolume = await list('?sort=volume&order=desc');
    const volumes = byVolume.items.map((row) => row.gbPerMonth ?? -1);
    expect(volumes).toEqual([...volumes].sort((a, b) => b - a));
    expect((await list('?sort=cost')).items.map((row) => row.monthlyCost ?? -1)).toEqual([...costs].reverse().sort((a, b) => a - b));
  });

  it('filters by mechanism, reason and type, and searches reasons on request (as the table does)', async () => {
    const legacy = await list('?mechanism=legacy-annotation');
    expect(legacy.items.map((row) => `${row.namespace}/${row.name}`)).toEqual(['platform/auth']);
    const off = await list('?reason=hints-off');
    expect(off.items.map((row) => `${row.namespace}/${row.name}`)).toEqual(['shop/api-gateway', 'shop/cart', 'shop/catalog']);
    const loadBalancers = await list('?type=LoadBalancer');
    expect(loadBalancers.total).toBeGreaterThan(0);
    expect(loadBalancers.items.every((row) => row.type === 'LoadBalancer')).toBe(true);
    expect((await list('?mechanism=topology-mode&reason=hints-off&namespace=shop')).total).toBe(3);
    // q is namespace/name only, unless searchReasons asks for the reason text too.
    expect((await list('?q=insufficient')).total).toBe(0);
    expect((await list('?q=insufficient&searchReasons=1')).items.map((row) => row.name)).toEqual(['cart']);
    expect((await list('?sort=reason')).items[0]?.attention).not.toBeNull();
  });

  it('exports every matching row as CSV, in the query order, quoted as RFC 4180 says', async () => {
    const response = GET(apiRequest('/api/v1/services?format=csv&namespace=shop&sort=crossZone&order=desc'));
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(response.headers.get('content-disposition')).toMatch(/^attachment; filename="services(-[A-Za-z0-9._-]+)?\.csv"$/);
    const text = await response.text();
    const lines = text.split('\r\n');
    expect(lines.at(-1)).toBe('');
    expect(lines[0]).toBe(
      'namespace,name,type,mechanism,hints expected,hints on slices,attention,reason,ready endpoints,ready ap-northeast-2a,ready ap-northeast-2b,ready ap-northeast-2c,cross-zone fraction,cross-zone fraction if Auto,GB per month,volume source,cross-zone USD per month,measured cross-zone fraction,' +
        'measured minus predicted (points),HPA scale-down,HPA minReplicas,HPA maxReplicas,hints off at replicas',
    );
    const json = await list('?namespace=shop&sort=crossZone&order=desc');
    expect(lines.slice(1, -1).map((line) => line.split(',').slice(0, 2).join('/'))).toEqual(json.items.map((row) => `${row.namespace}/${row.name}`));
    // shop/cart's reason has commas: one quoted field.
    const cart = lines.find((line) => line.startsWith('shop,cart,'));
    expect(cart).toContain(',hints-off,"Insufficient number of endpoints (2 endpoints, 3 zones), addressType: IPv4",2,');
  });

  it('exports every matching row as JSON (no paging), and refuses paging parameters on an export', async () => {
    const response = GET(apiRequest('/api/v1/services?format=json&reason=hints-off'));
    expect(response.status).toBe(200);
    expect(response.headers.get('content-disposition')).toMatch(/^attachment; filename="services(-[A-Za-z0-9._-]+)?\.json"$/);
    const body = await readJson<{ total: number; items: ServicesResponse['items'] }>(response);
    expect(body.total).toBe(3);
    expect(body.items.map((row) => row.name)).toEqual(['api-gateway', 'cart', 'catalog']);
    const paged = GET(apiRequest('/api/v1/services?format=csv&limit=5'));
    expect(paged.status).toBe(400);
    expect((await readJson<ApiErrorResponse>(paged)).error.message).toBe('offset and limit do not apply to an export: format=csv and format=json hold every matching Service.');
  });

  it('says what each HPA does to the hints, filters and sorts by it, and exports it', async () => {
    // ledger: HPA 3–12 over zones of 4 : 3 : 2 CPU; Σ per-zone minimums exceed 3, 4, 6 and 11 replicas.
    const offAtMin = await list('?hpa=off-at-min');
    expect(offAtMin.items.map((row) => `${row.namespace}/${row.name}`)).toEqual(['payments/ledger']);
    expect(offAtMin.items[0]?.hpaScaleDown).toEqual({ state: 'off-at-min', minReplicas: 3, maxReplicas: 12, hintsOffAt: [3, 4, 6, 11] });
    expect((await list('?hpa=off')).total).toBe(1);
    expect((await list('?hpa=on')).total).toBe(0);
    const all = await list();
    expect((await list('?hpa=none')).total).toBe(all.total - 1);
    expect((await list('?sort=hpa')).items[0]?.name).toBe('ledger');
    expect((await list('?sort=hpa&order=desc')).items.at(-1)?.name).toBe('ledger');
    const csv = await GET(apiRequest('/api/v1/services?format=csv&hpa=off')).text();
    expect(csv.split('\r\n')[1]).toMatch(/^payments,ledger,.*,off-at-min,3,12,3 4 6 11$/);
  });

  it('filters and sorts by the measured difference, which needs flows (none measured here)', async () => {
    const all = await list();
    expect(all.items.every((row) => row.measuredMinusPredicted === null)).toBe(true);
    expect((await list('?measuredDiff=0')).total).toBe(0);
    expect((await list('?measuredDiff=10&sort=measuredDiff&order=desc')).total).toBe(0);
    // Without a difference to sort by, the order is namespace/name (the tie-break).
    expect((await list('?sort=measuredDiff&order=desc')).items.map((row) => row.name)).toEqual(all.items.map((row) => row.name));
  });

  it('pages with offset and limit, clamping limit to 1..500', async () => {
    const all = await list();
    const page = await list('?offset=2&limit=3');
    expect(page).toMatchObject({ offset: 2, limit: 3, total: all.total });
    expect(page.items).toEqual(all.items.slice(2, 5));
    expect((await list('?limit=0')).limit).toBe(1);
    expect((await list('?limit=-5')).items).toHaveLength(1);
    expect((await list('?limit=100000')).limit).toBe(500);
    expect((await list(`?offset=${all.total + 10}`)).items).toEqual([]);
  });

  it.each([
    ['unknown parameter', '?color=red'],
    ['repeated parameter', '?sort=name&sort=namespace'],
    ['non-integer limit', '?limit=ten'],
    ['fractional limit', '?limit=1.5'],
    ['non-integer offset', '?offset=abc'],
    ['negative offset', '?offset=-1'],
    ['huge offset', '?offset=99999999999'],
    ['unknown sort key', '?sort=color'],
    ['bad order', '?order=up'],
    ['bad attention', '?attention=yes'],
    ['invalid namespace', '?namespace=Shop'],
    ['over-long q', `?q=${'x'.repeat(201)}`],
    ['unknown mechanism', '?mechanism=magic'],
    ['unknown reason', '?reason=because'],
    ['unknown type', '?type=Headless'],
    ['repeated type', '?type=ClusterIP&type=NodePort'],
    ['unknown format', '?format=xml'],
    ['bad searchReasons', '?searchReasons=maybe'],
    ['unknown hpa filter', '?hpa=sometimes'],
    ['negative measuredDiff', '?measuredDiff=-10'],
    ['measuredDiff over 100', '?measuredDiff=150'],
  ])('answers 400 bad-request:services for a %s, with no cluster call', async (_label, query) => {
    const before = nonWatchRequests(harness().sim);
    const response = GET(apiRequest(`/api/v1/services${query}`));
    expect(response.status).toBe(400);
    const body = await readJson<ApiErrorResponse>(response);
    expect(body.error.code).toBe('bad-request:services');
    expect(body.error.message.length).toBeGreaterThan(0);
    expect(nonWatchRequests(harness().sim)).toBe(before);
  });

  it('answers 405 to other methods', async () => {
    for (const handler of [POST, PUT, PATCH, DELETE, OPTIONS]) {
      const response = handler();
      expect(response.status).toBe(405);
      expect((await readJson<ApiErrorResponse>(response)).error.code).toBe('method-not-allowed:services');
    }
  });
});
