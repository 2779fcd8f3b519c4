/**
 * proxy.ts's cluster addressing: under `/c/{id}/…` it passes `x-zonescope-cluster: {id}` on to the
 * routes (Next.js applies a proxy's request headers from `x-middleware-override-headers` and
 * `x-middleware-request-*`), and a client's own `x-zonescope-cluster` never reaches them. The path
 * is changed by next.config.js's rewrites, in the same process: the proxy itself never rewrites (a
 * rewrite from the proxy would be an HTTP request of the server to itself, docs/fleet.md).
 */
import { createRequire } from 'node:module';
import type { NextConfig } from 'next';
import { getPathMatch } from 'next/dist/shared/lib/router/utils/path-match';
import { prepareDestination } from 'next/dist/shared/lib/router/utils/prepare-destination';
import { modifyRouteRegex } from 'next/dist/lib/redirect-status';
import { NextRequest } from 'next/server';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { proxy } from '../../proxy';
import { CLUSTER_HEADER, parseClusterPath } from '../shared/cluster-path';

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

/** The `beforeFiles` rewrites of next.config.js, as Next.js loads them. */
async function configRewrites(): Promise<readonly { source: string; destination: string }[]> {
  const config = createRequire(import.meta.url)('../../next.config.js') as NextConfig;
  const rewrites = await config.rewrites?.();
  if (rewrites === undefined || Array.isArray(rewrites) || rewrites.beforeFiles === undefined) throw new Error('next.config.js must return { beforeFiles, afterFiles, fallback } from rewrites()');
  return rewrites.beforeFiles;
}

/**
 * The path (and query) next.config.js's rewrites serve `path` by, `null` when none matches: the
 * first matching rule, matched and applied by Next.js's own functions as its router does for a
 * `beforeFiles` rewrite (lib/router-utils/filesystem.js, resolve-routes.js).
 */
function rewrite(rules: readonly { source: string; destination: string }[], path: string, query: Record<string, string> = {}): string | null {
  for (const rule of rules) {
    const params = getPathMatch(rule.source, { strict: true, removeUnnamedParams: true, regexModifier: (regex) => modifyRouteRegex(regex) })(path);
    if (params === false) continue;
    const { parsedDestination } = prepareDestination({ appendParamsToQuery: true, destination: rule.destination, params, query });
    const search = new URLSearchParams(parsedDestination.query as Record<string, string>).toString();
    return `${parsedDestination.pathname ?? ''}${search === '' ? '' : `?${search}`}`;
  }
  return null;
}

describe('proxy: /c/{id} addresses a cluster', () => {
  it('passes pages and the API under /c/{id} on with the cluster header, and rewrites nothing itself', () => {
    for (const path of ['/c/staging', '/c/staging/services', '/c/staging/services/shop/cart?map=expected', '/c/prod-eu.1/api/v1/cluster', '/c/staging/api/v1/services/shop/cart/topology-mode']) {
      const response = proxy(request(path));
      expect(response.headers.get('x-middleware-next'), path).toBe('1');
      expect(response.headers.get('x-middleware-rewrite'), path).toBeNull();
      expect(forwarded(response).cluster, path).toBe(path.split('/')[2]?.split('?')[0]);
      // The Host stays the one the browser sent (the same-origin check of writes compares it).
      expect(forwarded(response).kept, path).toContain('host');
      expect(response.headers.get('x-middleware-request-host'), path).toBe('localhost:3000');
    }
  });

  it('has next.config.js serve /c/{id}/{rest} by /{rest} in-process, for exactly the ids the proxy accepts', async () => {
    const rules = await configRewrites();
    for (const [path, rest] of [
      ['/c/staging', '/'],
      ['/c/staging/services', '/services'],
      ['/c/prod-eu.1/api/v1/cluster', '/api/v1/cluster'],
      ['/c/a_b/api/v1/services/shop/cart/topology-mode', '/api/v1/services/shop/cart/topology-mode'],
      ['/c/staging/services/shop%20x/cart', '/services/shop%20x/cart'],
      [`/c/${'a'.repeat(63)}/services`, '/services'],
    ] as const) {
      expect(rewrite(rules, path), path).toBe(rest);
      expect(parseClusterPath(path), path).toMatchObject({ kind: 'cluster', rest });
    }
    // The query is kept, and the cluster id is added to none.
    expect(rewrite(rules, '/c/staging/services/shop/cart', { map: 'expected' })).toBe('/services/shop/cart?map=expected');
    expect(rewrite(rules, '/c/staging', { history: '1h' })).toBe('/?history=1h');
    // Rules are destinations, never external: no rewrite leaves this server.
    for (const rule of rules) expect(rule.destination, rule.source).toMatch(/^\/(?!\/)/);
    // What the proxy refuses (404) or leaves alone is not rewritten either.
    for (const path of ['/c', '/c/-x/services', '/c/.x', '/c/a%20b/services', `/c/${'a'.repeat(64)}/services`, '/cluster/x', '/services', '/api/v1/cluster']) {
      expect(rewrite(rules, path), path).toBeNull();
      expect(parseClusterPath(path).kind, path).not.toBe('cluster');
    }
  });

  it('lets the toggle PUT through under a prefix (the method guard sees the plain path)', () => {
    const response = proxy(request('/c/staging/api/v1/services/shop/cart/topology-mode', { method: 'PUT' }));
    expect(response.status).toBe(200);
    expect(forwarded(response).cluster).toBe('staging');
  });

  it('ignores a client-sent x-zonescope-cluster: removed on plain paths, replaced under a prefix', () => {
    const plain = proxy(request('/api/v1/cluster', { headers: { [CLUSTER_HEADER]: 'prod' } }));
    expect(forwarded(plain).kept).not.toContain(CLUSTER_HEADER);
    expect(forwarded(plain).kept).toContain('host');
    const page = proxy(request('/services', { headers: { [CLUSTER_HEADER]: 'prod' } }));
    expect(forwarded(page).kept).not.toContain(CLUSTER_HEADER);
    expect(forwarded(page).kept).toContain('x-nonce');
    const prefixed = proxy(request('/c/staging/api/v1/cluster', { headers: { [CLUSTER_HEADER]: 'prod' } }));
    expect(forwarded(prefixed).cluster).toBe('staging');
    // Nothing else a client sends makes its header count (the proxy runs once per request).
    const withProof = proxy(request('/api/v1/cluster', { headers: { [CLUSTER_HEADER]: 'staging', 'x-zonescope-cluster-proof': 'guess' } }));
    expect(forwarded(withProof).cluster).toBeNull();
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
