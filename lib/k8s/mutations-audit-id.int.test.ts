/**
 * `patchServiceAnnotations` reports the API server's `Audit-Id` response header (for the
 * mutation audit log) on success and on refusal, and ignores malformed values. A raw HTTP server
 * stands in for the API server (the simulator sends no Audit-Id).
 */
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { renderKubeconfig } from '../../sim/kubeconfig';
import { createConnection } from './connection';
import { patchServiceAnnotations } from './mutations';

let server: Server | null = null;

afterEach(async () => {
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = null;
});

async function serve(status: number, auditId: string): Promise<string> {
  server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const body = status === 200
        ? { apiVersion: 'v1', kind: 'Service', metadata: { name: 'web', namespace: 'default', resourceVersion: '8', annotations: { a: 'b' } } }
        : { apiVersion: 'v1', kind: 'Status', status: 'Failure', reason: 'Conflict', code: status, message: 'changed' };
      res.writeHead(status, { 'content-type': 'application/json', 'audit-id': auditId });
      res.end(JSON.stringify(body));
    });
  });
  await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  return `http://127.0.0.1:${address.port}`;
}

async function patch(url: string) {
  const connection = createConnection({ kubeconfigText: renderKubeconfig({ server: url, token: 't' }) });
  if (!connection.ok) throw new Error(connection.message);
  return patchServiceAnnotations(connection.connection, 'default', 'web', { a: 'b' }, '7', { timeoutMs: 2000 });
}

describe('patchServiceAnnotations audit id', () => {
  it('is reported on success', async () => {
    const result = await patch(await serve(200, '0b2c4a1e-5f6d-4e7b-9a8c-1d2e3f405162'));
    expect(result).toMatchObject({ ok: true, resourceVersion: '8', auditId: '0b2c4a1e-5f6d-4e7b-9a8c-1d2e3f405162' });
  });

  it('is reported on a refusal', async () => {
    const result = await patch(await serve(409, 'abc-123'));
    expect(result).toMatchObject({ ok: false, error: { kind: 'conflict' }, auditId: 'abc-123' });
  });

  it('is dropped when malformed', async () => {
    const result = await patch(await serve(200, 'x y "z"'));
    expect(result.ok).toBe(true);
    expect(result).not.toHaveProperty('auditId');
  });
});
