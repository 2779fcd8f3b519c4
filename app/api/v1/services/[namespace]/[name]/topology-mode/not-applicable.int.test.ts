/**
 * The toggle refuses Services topology mode cannot apply to — an ExternalName Service (a DNS
 * CNAME: no EndpointSlices, kube-proxy does not route it) and a Service without a selector (the
 * EndpointSlice controller writes no hints for its slices) — with 422 `invalid:topology-mode`
 * and a message saying why, without sending a PATCH. Against eks-demo on the simulator.
 */
import { describe, expect, it } from 'vitest';
import type { ApiErrorResponse, ServiceResponse, TopologyModeResponse } from '../../../../../../../lib/views/api-types';
import { apiRequest, eventually, freshClusterPerTest, harnessForFile, readJson, routeContext, sameOriginHeaders } from '../../../../_testing/harness';
import { GET as getService } from '../route';
import { GET, PUT } from './route';

const harness = harnessForFile();
freshClusterPerTest(harness);

const path = (namespace: string, name: string): string => `/api/v1/services/${namespace}/${name}/topology-mode`;

async function createInSim(resource: string, namespace: string, body: unknown): Promise<void> {
  const response = await fetch(`${harness().sim.url}/${resource.startsWith('endpointslices') ? 'apis/discovery.k8s.io/v1' : 'api/v1'}/namespaces/${namespace}/${resource}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: 'Bearer zonescope-sim-token' },
    body: JSON.stringify(body),
  });
  expect(response.status).toBe(201);
}

async function seen(namespace: string, name: string): Promise<ServiceResponse> {
  return eventually(async () => {
    const response = await getService(apiRequest(`/api/v1/services/${namespace}/${name}`), routeContext({ namespace, name }));
    return response.status === 200 ? readJson<ServiceResponse>(response) : null;
  }, 5000, `the watch to deliver ${namespace}/${name}`);
}

const patches = (): number => harness().sim.stats.count('patch', 'services');

describe('topology mode on Services it cannot apply to', () => {
  it('ExternalName: the verdict says what it is, GET disables the toggle, PUT is 422 and writes nothing', async () => {
    await createInSim('services', 'shop', { apiVersion: 'v1', kind: 'Service', metadata: { name: 'payments-db', namespace: 'shop' }, spec: { type: 'ExternalName', externalName: 'db.example.com' } });
    const view = await seen('shop', 'payments-db');
    expect(view.expected.verdict).toBe(
      'ExternalName: a DNS CNAME answered by cluster DNS. kube-proxy does not route it and it has no EndpointSlices, so topology routing does not apply.',
    );
    const stateResponse = await GET(apiRequest(path('shop', 'payments-db')), routeContext({ namespace: 'shop', name: 'payments-db' }));
    const state = await readJson<TopologyModeResponse>(stateResponse);
    expect(state.canPatch).toBe(false);
    expect(state.notAllowedReason).toContain('does not apply to an ExternalName Service');

    const before = patches();
    const response = await PUT(
      apiRequest(path('shop', 'payments-db'), { method: 'PUT', body: JSON.stringify({ mode: 'Auto' }), headers: sameOriginHeaders(state.resourceVersion) }),
      routeContext({ namespace: 'shop', name: 'payments-db' }),
    );
    expect(response.status).toBe(422);
    const body = await readJson<ApiErrorResponse>(response);
    expect(body.error.code).toBe('invalid:topology-mode');
    expect(body.error.message).toBe(
      'Topology mode does not apply to an ExternalName Service: it is a DNS CNAME with no EndpointSlices, and kube-proxy does not route it. Nothing was written.',
    );
    expect(patches()).toBe(before);
  });

  it('selector-less: the verdict names the slices\u2019 managed-by value; PUT is 422 and writes nothing', async () => {
    await createInSim('services', 'shop', { apiVersion: 'v1', kind: 'Service', metadata: { name: 'legacy-db', namespace: 'shop' }, spec: { ports: [{ port: 5432 }] } });
    await createInSim('endpointslices', 'shop', {
      apiVersion: 'discovery.k8s.io/v1',
      kind: 'EndpointSlice',
      metadata: { name: 'legacy-db-1', namespace: 'shop', labels: { 'kubernetes.io/service-name': 'legacy-db', 'endpointslice.kubernetes.io/managed-by': 'staff.example.com' } },
      addressType: 'IPv4',
      ports: [{ port: 5432 }],
      endpoints: [{ addresses: ['10.1.2.3'], conditions: { ready: true } }],
    });
    const view = await eventually(async () => {
      const v = await seen('shop', 'legacy-db');
      return v.observed.slices > 0 ? v : null;
    }, 5000, 'the slice');
    expect(view.expected.verdict).toBe(
      'No selector: its EndpointSlices are written by endpointslice.kubernetes.io/managed-by: staff.example.com. The EndpointSlice controller does not write hints for it; only that writer can.',
    );
    const before = patches();
    const response = await PUT(
      apiRequest(path('shop', 'legacy-db'), { method: 'PUT', body: JSON.stringify({ mode: 'Disabled' }), headers: sameOriginHeaders('1') }),
      routeContext({ namespace: 'shop', name: 'legacy-db' }),
    );
    expect(response.status).toBe(422);
    expect((await readJson<ApiErrorResponse>(response)).error.message).toContain('does not apply to a Service without a selector');
    expect(patches()).toBe(before);
  });
});
