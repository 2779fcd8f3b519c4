/**
 * `GET /api/v1/services/{namespace}/{name}` against eks-demo on the simulator: the analyze
 * per-Service object plus the detail panels and the resourceVersion (ETag), the volume with its
 * source and the cost recomputed from query parameters (a what-if), 404, and 400 for bad names and parameters before any
 * cluster call.
 */
import { describe, expect, it } from 'vitest';
import type { ApiErrorResponse, ServiceResponse } from '../../../../../../lib/views/api-types';
import { apiRequest, BAD_NAMES, nonWatchRequests, readJson, routeContext, harnessForFile } from '../../../_testing/harness';
import { getServiceDetailView } from '../../../../../../lib/views/service/detail';
import { defaultScope } from '../../../../../../lib/server/clusters';
import { DELETE, GET, OPTIONS, PATCH, POST, PUT } from './route';

const harness = harnessForFile();

function get(namespace: string, name: string, query = ''): Promise<Response> {
  return GET(apiRequest(`/api/v1/services/${encodeURIComponent(namespace)}/${encodeURIComponent(name)}${query}`), routeContext({ namespace, name }));
}

const REPORT_FIELDS = [
  'namespace', 'name', 'type', 'mechanism', 'mechanismDetail', 'lints', 'expected', 'observed', 'diff', 'ifAuto', 'traffic', 'unknown', 'hpa', 'workload', 'fixes',
  'loadBalancer', 'gitOps', 'needsAttention',
];
const DETAIL_FIELDS = ['byAddressType', 'diffEntries', 'donatedEndpoints', 'minimumTable', 'endpoints', 'trafficMatrix', 'events'];

describe('GET /api/v1/services/{namespace}/{name}', () => {
  it('returns the analyze per-Service object, the detail panels and the resourceVersion as ETag', async () => {
    const response = await get('shop', 'checkout');
    expect(response.status).toBe(200);
    const body = await readJson<ServiceResponse>(response);
    expect(Object.keys(body).sort()).toEqual([...REPORT_FIELDS, ...DETAIL_FIELDS, 'resourceVersion', 'release', 'readOnly', 'measuredVsPredicted'].sort());
    expect(body).toMatchObject({ namespace: 'shop', name: 'checkout', mechanism: 'topology-mode', release: '1.31', readOnly: false });
    expect(body.resourceVersion).toMatch(/^\d+$/);
    expect(response.headers.get('etag')).toBe(`"${body.resourceVersion}"`);
    expect(body.expected.hintsEnabled).toBe(true);
    expect(body.endpoints.length).toBeGreaterThan(0);
    expect(body.minimumTable?.rows.length).toBe(3);
    expect(response.headers.get('cache-control')).toBe('no-store');
  });

  it('sends the detail view as JSON text, the same on a repeat (served from the detail serialised once) and with a what-if', async () => {
    for (const query of ['', '', '?gbPerMonth=2000']) {
      const text = await (await get('shop', 'checkout', query)).text();
      const view = getServiceDetailView(defaultScope(), 'shop', 'checkout', query === '' ? {} : { gbPerMonth: 2000 });
      if (!view.ok) throw new Error(view.error.message);
      expect(text).toBe(JSON.stringify(view.value));
    }
  });

  it('recomputes traffic and cost from gbPerMonth, pricePerGb and traffic.<zone>', async () => {
    const base = await readJson<ServiceResponse>(await get('shop', 'recommendations'));
    const scaled = await readJson<ServiceResponse>(await get('shop', 'recommendations', '?gbPerMonth=2000&pricePerGb=0.02'));
    expect(scaled.traffic.monthlyCost.now.gbPerMonth).toBe(2000);
    expect(scaled.traffic.monthlyCost.now.costPerCrossZoneGb).toBe(0.04);
    expect(scaled.traffic.monthlyCost.now.monthlyCost).toBeCloseTo(2000 * base.traffic.crossZoneFraction * 0.02 * 2, 6);
    const azure = await readJson<ServiceResponse>(await get('shop', 'recommendations', '?price=azure'));
    expect(azure.traffic.monthlyCost.now.monthlyCost).toBe(0);
    // Nothing measured here (no Prometheus): the assumption, said as such; the request's gbPerMonth is a what-if.
    expect(base.traffic.volume).toMatchObject({ gbPerMonth: 450, source: { kind: 'assumed', label: 'assumed: 50 GB per ready endpoint per month × 9' } });
    expect(base.traffic.monthlyCost.now.costPerCrossZoneGb).toBe(0.02);
    expect(base.measuredVsPredicted).toBeNull();
    expect(scaled.traffic.volume).toMatchObject({ gbPerMonth: 2000, source: { kind: 'set', label: 'set here (what-if)' } });
    const skewed = await readJson<ServiceResponse>(await get('shop', 'recommendations', '?traffic.ap-northeast-2a=1'));
    expect(skewed.traffic.clientShareByZone).toEqual({ 'ap-northeast-2a': 1, 'ap-northeast-2b': 0, 'ap-northeast-2c': 0 });
  });

  it('answers 404 not-found:service for a Service the cluster does not have', async () => {
    const response = await get('shop', 'no-such-service');
    expect(response.status).toBe(404);
    expect(await readJson<ApiErrorResponse>(response)).toEqual({ error: { code: 'not-found:service', message: 'Service shop/no-such-service was not found.' } });
    expect((await get('no-such-namespace', 'checkout')).status).toBe(404);
  });

  it.each(BAD_NAMES)('answers 400 bad-request:service for a $label before any cluster call', async ({ namespace, name }) => {
    const before = nonWatchRequests(harness().sim);
    const response = await get(namespace, name);
    expect(response.status).toBe(400);
    expect((await readJson<ApiErrorResponse>(response)).error.code).toBe('bad-request:service');
    expect(nonWatchRequests(harness().sim)).toBe(before);
  });

  it.each([
    ['unknown parameter', '?foo=1'],
    ['repeated gbPerMonth', '?gbPerMonth=1&gbPerMonth=2'],
    ['negative gbPerMonth', '?gbPerMonth=-1'],
    ['non-numeric gbPerMonth', '?gbPerMonth=lots'],
    ['exponent gbPerMonth', '?gbPerMonth=1e3'],
    ['huge gbPerMonth', '?gbPerMonth=10000000000'],
    ['huge pricePerGb', '?pricePerGb=101'],
    ['NaN pricePerGb', '?pricePerGb=NaN'],
    ['share above 1', '?traffic.ap-northeast-2a=1.5'],
    ['shares summing above 1', '?traffic.ap-northeast-2a=0.6&traffic.ap-northeast-2b=0.6'],
    ['invalid zone name', '?traffic.bad%20zone=0.5'],
    ['unknown zone', '?traffic.us-east-1a=0.5'],
  ])('answers 400 bad-request:service for a %s', async (_label, query) => {
    const before = nonWatchRequests(harness().sim);
    const response = await get('shop', 'checkout', query);
    expect(response.status).toBe(400);
    expect((await readJson<ApiErrorResponse>(response)).error.code).toBe('bad-request:service');
    expect(nonWatchRequests(harness().sim)).toBe(before);
  });

  it('answers 405 to other methods', async () => {
    for (const handler of [POST, PUT, PATCH, DELETE, OPTIONS]) {
      const response = handler();
      expect(response.status).toBe(405);
      expect(response.headers.get('allow')).toBe('GET');
    }
  });
});
