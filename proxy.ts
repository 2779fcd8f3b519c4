/**
 * Runs before every request:
 * - refuses what no route should see (`lib/server/request-guards.ts`): a `Host` not on the
 *   allow-list (421, DNS rebinding), a malformed `%` sequence in the path (400), a method other
 *   than GET/HEAD on a page (405) — JSON under `/api`, a short page elsewhere, with the security
 *   headers;
 * - addresses a cluster by URL (`lib/shared/cluster-path.ts`): `/c/{id}/{rest}` (pages and
 *   `/c/{id}/api/v1/…`) is served by `/{rest}` with the request header `x-zonescope-cluster: {id}`.
 *   Any `x-zonescope-cluster` the client sent is removed first, on every request: only the URL
 *   picks the cluster. This proxy only sets the header; the path is rewritten by the `beforeFiles`
 *   rewrites of next.config.js, which Next.js applies after the proxy, in this process. (A rewrite
 *   from here, `NextResponse.rewrite`, would be an HTTP request of the server to itself whenever
 *   it listens on a loopback address: docs/fleet.md, "How `/c/{id}` is served".) An id that is no
 *   slug, and what is about the process rather than one cluster (`/metrics`, `/api/health`,
 *   `/fleet`, `/api/v1/clusters`, assets) under a prefix, are 404;
 * - puts the Content-Security-Policy on every response — for pages with a fresh script nonce
 *   (Next.js applies it to its scripts; read it with `(await headers()).get('x-nonce')` for any
 *   inline script of your own), for everything else a policy that allows nothing. The other
 *   security headers come from `next.config.js`.
 */
import type { NextRequest } from 'next/server';
import { NextResponse } from 'next/server';
import { CLUSTER_HEADER, parseClusterPath } from './lib/shared/cluster-path';
import { guardRequest, refusal, refusalResponse } from './lib/server/request-guards';
import { createNonce, isPagePath, NON_PAGE_CONTENT_SECURITY_POLICY, pageContentSecurityPolicy } from './lib/server/security-headers';

/** Paths about the whole process (or no cluster at all), which have no per-cluster version. */
function clusterIndependent(path: string): boolean {
  const under = (prefix: string) => path === prefix || path.startsWith(`${prefix}/`);
  return under('/metrics') || under('/api/health') || under('/fleet') || under('/api/v1/clusters') || under('/_next') || under('/c');
}

function notFound(pathname: string, method: string, message: string): Response {
  return refusalResponse(refusal(404, 'not-found', pathname, 'Not found', message), method);
}

export function proxy(request: NextRequest): Response {
  const parsed = parseClusterPath(request.nextUrl.pathname);
  // What the routes see: the path without the cluster prefix.
  const pathname = parsed.kind === 'cluster' ? parsed.rest : request.nextUrl.pathname;
  const refused = guardRequest({ method: request.method, pathname, host: request.headers.get('host') });
  if (refused !== null) return refusalResponse(refused, request.method);
  if (parsed.kind === 'invalid') return notFound(request.nextUrl.pathname, request.method, 'There is no cluster at this address: /c/ must be followed by a cluster id (letters, digits, ".", "_" and "-").');
  if (parsed.kind === 'cluster' && clusterIndependent(pathname)) {
    return notFound(pathname, request.method, `${pathname} is not per cluster: open it without the /c/${parsed.id} prefix.`);
  }
  const requestHeaders = new Headers(request.headers);
  // Only the URL picks the cluster: whatever the client sent is dropped.
  requestHeaders.delete(CLUSTER_HEADER);
  if (parsed.kind === 'cluster') requestHeaders.set(CLUSTER_HEADER, parsed.id);
  // The path itself is rewritten by next.config.js (in this process), after this proxy.
  const forward = (): NextResponse => NextResponse.next({ request: { headers: requestHeaders } });
  if (!isPagePath(pathname)) {
    const response = forward();
    response.headers.set('Content-Security-Policy', NON_PAGE_CONTENT_SECURITY_POLICY);
    return response;
  }
  const nonce = createNonce();
  const policy = pageContentSecurityPolicy(nonce, process.env.NODE_ENV === 'development');
  requestHeaders.set('x-nonce', nonce);
  requestHeaders.set('Content-Security-Policy', policy);
  const response = forward();
  response.headers.set('Content-Security-Policy', policy);
  return response;
}
