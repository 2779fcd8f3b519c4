/**
 * proxy.ts's cluster addressing: `/c/{id}/…` is rewritten to `/…` with `x-zonescope-cluster: {id}`
 * for the routes, and a client's own `x-zonescope-cluster` never reaches them (Next.js applies a
 * proxy's request headers from `x-middleware-override-headers` and `x-middleware-request-*`, and
 * runs the proxy a second time on the rewritten path).
 */
import { NextRequest } from 'next/server';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { proxy } from '../../proxy';
import { CLUSTER_HEADER, CLUSTER_PROOF_HEADER, ORIGINAL_HOST_HEADER } from '../shared/cluster-path';

const ORIGIN = 'http://localhost:3000';
let savedPort: string | undefined;

beforeEach(() => {
  savedPort = process.env.PORT;
  process.env.PORT = '3000';
});
afterEach(() => {
  if (savedPort === undefined) delete process.env.PORT;
  else process.env.PORT = savedPort;
});

function request(path: string, init: { method?: string; headers?: Record<string, string> } = {}): NextRequest {
  return new NextRequest(`${ORIGIN}${path}`, { method: init.method ?? 'GET', headers: { host: 'localhost:3000', ...init.headers } });
}

/** The request headers the routes get after the proxy: what Next.js applies from the override headers. */
function forwarded(response: Response): { readonly kept: readonly string[]; readonly cluster: string | null } {
  const kept = (response.headers.get('x-middleware-override-headers') ?? '').split(',').filter((name) => name !== '');
  const cluster = kept.includes(CLUSTER_HEADER) ? response.headers.get(`x-middleware-request-${CLUSTER_HEADER}`) : null;
  return { kept, cluster };
}

function rewrittenPath(response: Response): string | null {
  const target = response.headers.get('x-middleware-rewrite');
  return target === null ? null : new URL(target).pathname + new URL(target).search;
}

describe('proxy: /c/{id} addresses a cluster', () => {
  it('rewrites pages and the API under /c/{id} to the plain path with the cluster header', () => {
    for (const [path, rest] of [
      ['/c/staging', '/'],
      ['/c/staging/', '/'],
      ['/c/staging/services', '/services'],
      ['/c/staging/services/shop/cart?map=expected', '/services/shop/cart?map=expected'],
      ['/c/prod-eu.1/api/v1/cluster', '/api/v1/cluster'],
      ['/c/staging/api/v1/services/shop/cart/topology-mode', '/api/v1/services/shop/cart/topology-mode'],
    ] as const) {
      const response = proxy(request(path));
      expect(rewrittenPath(response), path).toBe(rest);
      expect(forwarded(response).cluster, path).toBe(path.split('/')[2]);
    }
  });

  it('lets the toggle PUT through under a prefix (the method guard sees the plain path)', () => {
    const response = proxy(request('/c/staging/api/v1/services/shop/cart/topology-mode', { method: 'PUT' }));
    expect(response.status).toBe(200);
    expect(rewrittenPath(response)).toBe('/api/v1/services/shop/cart/topology-mode');
  });

  it('ignores a client-sent x-zonescope-cluster: removed on plain paths, replaced under a prefix', () => {
    const plain = proxy(request('/api/v1/cluster', { headers: { [CLUSTER_HEADER]: 'prod' } }));
    expect(rewrittenPath(plain)).toBeNull();
    expect(forwarded(plain).kept).not.toContain(CLUSTER_HEADER);
    expect(forwarded(plain).kept).toContain('host');
    const page = proxy(request('/services', { headers: { [CLUSTER_HEADER]: 'prod' } }));
    expect(forwarded(page).kept).not.toContain(CLUSTER_HEADER);
    expect(forwarded(page).kept).toContain('x-nonce');
    const prefixed = proxy(request('/c/staging/api/v1/cluster', { headers: { [CLUSTER_HEADER]: 'prod' } }));
    expect(forwarded(prefixed).cluster).toBe('staging');
  });

  it('passes the host the browser asked for under a prefix, and never a client-sent one', () => {
    const prefixed = proxy(request('/c/staging/api/v1/services/shop/cart/topology-mode', { method: 'PUT', headers: { host: '127.0.0.1:3000', [ORIGINAL_HOST_HEADER]: 'evil.example' } }));
    expect(prefixed.headers.get(`x-middleware-request-${ORIGINAL_HOST_HEADER}`)).toBe('127.0.0.1:3000');
    const proof = prefixed.headers.get(`x-middleware-request-${CLUSTER_PROOF_HEADER}`) ?? '';
    // The second pass over the rewritten path keeps the proxy's own value.
    const second = proxy(request('/api/v1/services/shop/cart/topology-mode', { method: 'PUT', headers: { [CLUSTER_HEADER]: 'staging', [CLUSTER_PROOF_HEADER]: proof, [ORIGINAL_HOST_HEADER]: '127.0.0.1:3000' } }));
    expect(second.headers.get(`x-middleware-request-${ORIGINAL_HOST_HEADER}`)).toBe('127.0.0.1:3000');
    // Without the proxy's proof (a client on a plain path) the header is dropped.
    const plain = proxy(request('/api/v1/services/shop/cart/topology-mode', { method: 'PUT', headers: { [ORIGINAL_HOST_HEADER]: 'evil.example' } }));
    expect(forwarded(plain).kept).not.toContain(ORIGINAL_HOST_HEADER);
  });

  it('keeps its own header on the second pass Next.js makes over the rewritten path, and only its own', () => {
    const first = proxy(request('/c/staging/services'));
    const proof = first.headers.get(`x-middleware-request-${CLUSTER_PROOF_HEADER}`);
    expect(proof).toMatch(/^[0-9a-f-]{36}$/);
    // Next.js runs the proxy again on /services with the headers the first pass set.
    const second = proxy(request('/services', { headers: { [CLUSTER_HEADER]: 'staging', [CLUSTER_PROOF_HEADER]: proof ?? '' } }));
    expect(rewrittenPath(second)).toBeNull();
    expect(forwarded(second).cluster).toBe('staging');
    // A client guessing the proof, or sending an empty one, picks nothing.
    for (const guess of ['', 'guess', `${proof ?? ''}x`, (proof ?? '').toUpperCase()]) {
      const spoofed = proxy(request('/api/v1/cluster', { headers: { [CLUSTER_HEADER]: 'staging', [CLUSTER_PROOF_HEADER]: guess } }));
      expect(forwarded(spoofed).kept, guess).not.toContain(CLUSTER_HEADER);
      expect(forwarded(spoofed).kept, guess).not.toContain(CLUSTER_PROOF_HEADER);
    }
  });

  it('answers 404 for an id that is no slug, and for what is not per cluster under a prefix', async () => {
    for (const path of ['/c', '/c/', '/c/-x/services', '/c/a%20b/services', `/c/${'a'.repeat(64)}/services`]) {
      const response = proxy(request(path));
      expect(response.status, path).toBe(404);
      expect(response.headers.get('x-middleware-rewrite'), path).toBeNull();
    }
    for (const path of ['/c/staging/metrics', '/c/staging/api/health/ready', '/c/staging/fleet', '/c/staging/api/v1/clusters', '/c/staging/c/other/services', '/c/staging/_next/static/x.js']) {
      const response = proxy(request(path));
      expect(response.status, path).toBe(404);
    }
    const api = proxy(request('/c/staging/api/health/ready'));
    expect(((await api.json()) as { error: { code: string } }).error.code).toBe('not-found:api');
  });

  it('keeps the guards: a foreign Host is refused under a prefix too', () => {
    const response = proxy(request('/c/staging/api/v1/cluster', { headers: { host: 'rebind.evil.example:3000' } }));
    expect(response.status).toBe(421);
  });

  it('puts the page policy on prefixed pages and the API policy on prefixed API paths', () => {
    expect(proxy(request('/c/staging/services')).headers.get('Content-Security-Policy')).toContain('nonce-');
    expect(proxy(request('/c/staging/api/v1/cluster')).headers.get('Content-Security-Policy')).toContain("default-src 'none'");
  });
});
