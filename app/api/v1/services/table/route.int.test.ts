/**
 * `GET /api/v1/services/table` against eks-demo on the simulator: the Services page's table data
 * (every Service as a compact tuple), the same body
 * for every request until the cluster changes, then the new table under a new version; 400 for any
 * parameter but `v`, 405 for writes.
 */
import { describe, expect, it } from 'vitest';
import type { ApiErrorResponse, ServicesResponse } from '../../../../../lib/views/api-types';
import type { ServiceTableData } from '../../../../../lib/views/services/table';
import { apiRequest, eventually, harnessForFile, readJson } from '../../_testing/harness';
import { GET as list } from '../route';
import { DELETE, GET, POST, PUT } from './route';

const harness = harnessForFile();

async function table(): Promise<{ readonly response: Response; readonly bytes: Buffer }> {
  const response = GET(apiRequest('/api/v1/services/table?v=1'));
  return { response, bytes: Buffer.from(await response.arrayBuffer()) };
}

const rowKeys = (data: ServiceTableData) => data.rows.map((row) => `${data.namespaces[row[0]]}/${row[1]}`);

describe('GET /api/v1/services/table', () => {
  it('holds every Service of the list as a row, with the zone columns', async () => {
    const { response, bytes } = await table();
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json');
    expect(response.headers.get('cache-control')).toBe('no-store');
    const data = JSON.parse(bytes.toString('utf8')) as ServiceTableData;
    const all = await readJson<ServicesResponse>(list(apiRequest('/api/v1/services?limit=500')));
    expect(rowKeys(data).sort()).toEqual(all.items.map((row) => `${row.namespace}/${row.name}`).sort());
    expect(data.zones.length).toBeGreaterThanOrEqual(3);
    const checkout = data.rows.find((row) => data.namespaces[row[0]] === 'shop' && row[1] === 'checkout');
    const listed = all.items.find((row) => row.namespace === 'shop' && row.name === 'checkout');
    expect(checkout?.[9]).toBe(listed?.readyEndpoints);
    expect(data.labels[checkout?.[3] ?? -1]).toBe('topology-mode');
  });

  it('keeps one version while the cluster stays, and a new Service comes with a new version', async () => {
    const first = await table();
    const version = first.response.headers.get('x-table-version');
    expect(version).toMatch(/^[0-9a-z]+$/);
    expect((await table()).response.headers.get('x-table-version')).toBe(version);
    harness().sim.store.create('services', {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'table-check', namespace: 'default' },
      spec: { type: 'ClusterIP', selector: { app: 'table-check' }, ports: [{ port: 80, protocol: 'TCP' }] },
    });
    try {
      const after = await eventually(async () => {
        const next = await table();
        return next.response.headers.get('x-table-version') !== version ? next : null;
      }, 10_000, 'a new table version');
      const data = JSON.parse(after.bytes.toString('utf8')) as ServiceTableData;
      expect(rowKeys(data)).toContain('default/table-check');
      expect(data.rows.length).toBe((JSON.parse(first.bytes.toString('utf8')) as ServiceTableData).rows.length + 1);
    } finally {
      harness().sim.store.delete('services', 'default', 'table-check');
    }
  });

  it('refuses any parameter but v with 400, and writes with 405', async () => {
    const response = GET(apiRequest('/api/v1/services/table?v=1&limit=5'));
    expect(response.status).toBe(400);
    expect(await readJson<ApiErrorResponse>(response)).toEqual({ error: { code: 'bad-request:services', message: 'Unknown query parameter "limit"; known: v.' } });
    for (const write of [POST, PUT, DELETE]) {
      const refused = write();
      expect(refused.status).toBe(405);
      expect(refused.headers.get('allow')).toBe('GET');
    }
  });
});
