/**
 * `GET /api/v1/services/{namespace}/{name}/yaml` against eks-demo on the simulator: the Service
 * and its EndpointSlices as the API server has them, managedFields hidden unless asked for, 404
 * for a Service the cluster does not have, 400 for bad names and parameters.
 */
import { parseAllDocuments } from 'yaml';
import { describe, expect, it } from 'vitest';
import type { ApiErrorResponse } from '../../../../../../../lib/views/api-types';
import { apiRequest, BAD_NAMES, harnessForFile, readJson, routeContext } from '../../../../_testing/harness';
import { DELETE, GET, OPTIONS, PATCH, POST, PUT } from './route';

const harness = harnessForFile();

function get(namespace: string, name: string, query = ''): Promise<Response> {
  return GET(apiRequest(`/api/v1/services/${encodeURIComponent(namespace)}/${encodeURIComponent(name)}/yaml${query}`), routeContext({ namespace, name }));
}

interface Doc {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace: string; resourceVersion: string; managedFields?: unknown[]; labels?: Record<string, string> };
}

async function documents(response: Response): Promise<Doc[]> {
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toBe('application/yaml; charset=utf-8');
  return parseAllDocuments(await response.text()).map((doc) => doc.toJSON() as Doc);
}

describe('GET /api/v1/services/{namespace}/{name}/yaml', () => {
  it('answers the Service, then each of its EndpointSlices, as the API server has them', async () => {
    const docs = await documents(await get('payments', 'ledger'));
    const [service, ...slices] = docs;
    expect(service).toMatchObject({ apiVersion: 'v1', kind: 'Service', metadata: { name: 'ledger', namespace: 'payments' } });
    const stored = harness().sim.store.get('services', 'payments', 'ledger') as { metadata: { resourceVersion: string } } | undefined;
    expect(service?.metadata.resourceVersion).toBe(stored?.metadata.resourceVersion);
    expect(slices.length).toBeGreaterThan(0);
    for (const slice of slices) {
      expect(slice).toMatchObject({ apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice', metadata: { namespace: 'payments', labels: { 'kubernetes.io/service-name': 'ledger' } } });
    }
  });

  it('leaves managedFields out unless asked for', async () => {
    // The simulator does not track field managers: give the Service some, as a real API server has.
    const { store } = harness().sim;
    const stored = store.get('services', 'payments', 'ledger');
    if (!stored) throw new Error('payments/ledger is missing');
    const managedFields = [{ manager: 'kubectl-client-side-apply', operation: 'Update', apiVersion: 'v1', fieldsType: 'FieldsV1', fieldsV1: { 'f:spec': {} } }];
    store.update('services', { ...stored, metadata: { ...stored.metadata, managedFields } });
    const hidden = await documents(await get('payments', 'ledger'));
    expect(hidden.every((doc) => doc.metadata.managedFields === undefined)).toBe(true);
    const shown = await documents(await get('payments', 'ledger', '?managedFields=1'));
    expect(shown[0]?.metadata.managedFields).toEqual(managedFields);
  });

  it('answers 404 not-found:service for a Service the cluster does not have', async () => {
    const response = await get('shop', 'no-such-service');
    expect(response.status).toBe(404);
    expect((await readJson<ApiErrorResponse>(response)).error.code).toBe('not-found:service');
  });

  it.each([...BAD_NAMES.map((b) => [b.label, b.namespace, b.name, ''] as const), ['unknown parameter', 'shop', 'cart', '?color=red'] as const, ['bad managedFields', 'shop', 'cart', '?managedFields=yes'] as const])(
    'answers 400 bad-request:service for a %s',
    async (_label, namespace, name, query) => {
      const response = await get(namespace, name, query);
      expect(response.status).toBe(400);
      expect((await readJson<ApiErrorResponse>(response)).error.code).toBe('bad-request:service');
    },
  );

  it('answers 405 to other methods', () => {
    for (const handler of [POST, PUT, PATCH, DELETE, OPTIONS]) expect(handler().status).toBe(405);
  });
});
