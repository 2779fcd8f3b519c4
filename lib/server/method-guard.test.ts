import { createServer, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { installMethodGuard } from './method-guard';

let port = 0;
let reached: string[] = [];
const server = createServer((request, response) => {
  reached.push(request.method ?? '');
  response.end('next');
});

beforeAll(async () => {
  installMethodGuard();
  installMethodGuard(); // idempotent
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
});

function send(method: string, path: string): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, method, path }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('the method guard in front of Next.js (real HTTP)', () => {
  it('answers TRACE and other methods outside GET…OPTIONS (PROPFIND, MKCOL) 405 with Allow and the security headers; they never reach the handler', async () => {
    reached = [];
    const trace = await send('TRACE', '/api/v1/cluster');
    expect(trace.status).toBe(405);
    expect(trace.headers.allow).toBe('GET');
    expect(trace.headers['x-content-type-options']).toBe('nosniff');
    expect(trace.headers['content-security-policy']).toContain("default-src 'none'");
    expect((JSON.parse(trace.body) as { error: { code: string } }).error.code).toBe('method-not-allowed:api');
    const page = await send('MKCOL', '/services/shop/checkout');
    expect(page.status).toBe(405);
    expect(page.headers.allow).toBe('GET, HEAD');
    expect(page.body).toContain('Method not allowed');
    expect((await send('PROPFIND', '/api/v1/services/a/b/topology-mode')).headers.allow).toBe('GET, PUT');
    expect(reached).toEqual([]);
  });

  it('passes known methods on', async () => {
    reached = [];
    expect((await send('GET', '/')).body).toBe('next');
    expect((await send('PUT', '/api/x')).body).toBe('next');
    expect(reached).toEqual(['GET', 'PUT']);
  });
});
