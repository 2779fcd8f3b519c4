/**
 * `GET /api/v1/services/{namespace}/{name}/endpoints` against eks-demo on the simulator: every
 * endpoint, the differing ones and the loads of a scenario in full (the lists the Service page
 * loads on demand), 404, and 400 for bad names and parameters before any cluster call.
 */
import { describe, expect, it } from 'vitest';
import type { ApiErrorResponse, EndpointListResponse, ServiceResponse } from '../../../../../../../lib/views/api-types';
import { apiRequest, BAD_NAMES, nonWatchRequests, readJson, routeContext, harnessForFile } from '../../../../_testing/harness';
import { GET as getDetail } from '../route';
import { DELETE, GET, OPTIONS, PATCH, POST, PUT } from './route';

const harness = harnessForFile();

function get(namespace: string, name: string, query = ''): Promise<Response> {
  return GET(apiRequest(`/api/v1/services/${encodeURIComponent(namespace)}/${encodeURIComponent(name)}/endpoints${query}`), routeContext({ namespace, name }));
}

async function detail(namespace: string, name: string): Promise<ServiceResponse> {
  return readJson<ServiceResponse>(await getDetail(apiRequest(`/api/v1/services/${namespace}/${name}`), routeContext({ namespace, name })));
}

describe('GET /api/v1/services/{namespace}/{name}/endpoints', () => {
  it('returns every endpoint of the Service, as the detail does', async () => {
    const response = await get('payments', 'ledger');
    expect(response.status).toBe(200);
    expect(response.headers.get('cache-control')).toBe('no-store');
    const body = await readJson<EndpointListResponse>(response);
    const full = await detail('payments', 'ledger');
    expect(body).toEqual({ namespace: 'payments', name: 'ledger', list: 'endpoints', scenario: null, total: full.endpoints.length, items: full.endpoints });
    expect(body.total).toBeGreaterThan(0);
  });

  it('returns the differing endpoints with list=diff and the loads of a scenario with list=loads', async () => {
    const full = await detail('shop', 'checkout');
    const diff = await readJson<EndpointListResponse>(await get('shop', 'checkout', '?list=diff'));
    expect(diff).toMatchObject({ list: 'diff', scenario: null, total: full.diffEntries.length, items: full.diffEntries });
    for (const scenario of ['now', 'expected', 'ifAuto', 'ifNone'] as const) {
      const loads = await readJson<EndpointListResponse>(await get('shop', 'checkout', `?list=loads&scenario=${scenario}`));
      expect(loads).toMatchObject({ list: 'loads', scenario, total: full.trafficMatrix[scenario].endpointLoads.length, items: full.trafficMatrix[scenario].endpointLoads });
    }
    expect((await readJson<EndpointListResponse>(await get('shop', 'checkout', '?list=loads'))).scenario).toBe('now');
  });

  it('answers 404 not-found:service for a Service the cluster does not have', async () => {
    const response = await get('shop', 'no-such-service');
    expect(response.status).toBe(404);
    expect(await readJson<ApiErrorResponse>(response)).toEqual({ error: { code: 'not-found:service', message: 'Service shop/no-such-service was not found.' } });
  });

  it.each(BAD_NAMES)('answers 400 bad-request:service for a $label before any cluster call', async ({ namespace, name }) => {
    const before = nonWatchRequests(harness().sim);
    const response = await get(namespace, name);
    expect(response.status).toBe(400);
    expect((await readJson<ApiErrorResponse>(response)).error.code).toBe('bad-request:service');
    expect(nonWatchRequests(harness().sim)).toBe(before);
  });

  it.each([
    ['unknown parameter', '?limit=10'],
    ['unknown list', '?list=pods'],
    ['repeated list', '?list=diff&list=loads'],
    ['scenario without list=loads', '?scenario=now'],
    ['unknown scenario', '?list=loads&scenario=later'],
  ])('answers 400 bad-request:service for a %s', async (_label, query) => {
    const response = await get('shop', 'checkout', query);
    expect(response.status).toBe(400);
    expect((await readJson<ApiErrorResponse>(response)).error.code).toBe('bad-request:service');
  });

  it('answers 405 to other methods', async () => {
    for (const handler of [POST, PUT, PATCH, DELETE, OPTIONS]) {
      const response = handler();
      expect(response.status).toBe(405);
      expect(response.headers.get('allow')).toBe('GET');
    }
  });
});
