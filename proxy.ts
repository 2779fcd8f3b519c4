/**
 * Runs before every request:
 * - refuses what no route should see (`lib/server/request-guards.ts`): a `Host` not on the
 *   allow-list (421, DNS rebinding), a malformed `%` sequence in the path (400), a method other
 *   than GET/HEAD on a page (405) — JSON under `/api`, a short page elsewhere, with the security
 *   headers;
 * - addresses a cluster by URL (`lib/shared/cluster-path.ts`): `/c/{id}/{rest}` (pages and
 *   `/c/{id}/api/v1/…`) is served by `/{rest}` with the request header `x-zonescope-cluster: {id}`.
 *   Any `x-zonescope-cluster` the client sent is removed first, on every request: only the URL
 *   picks the cluster. (Next.js runs the proxy a second time on the rewritten path, with the
 *   headers the first pass set; `x-zonescope-cluster-proof`, a random secret of the process that
 *   never leaves the server, tells that pass apart from a client sending the header itself.) An id that is no slug, and what is about the process rather than one cluster
 *   (`/metrics`, `/api/health`, `/fleet`, `/api/v1/clusters`, assets) under a prefix, are 404;
 * - puts the Content-Security-Policy on every response — for pages with a fresh script nonce
 *   (Next.js applies it to its scripts; read it with `(await headers()).get('x-nonce')` for any
 *   inline script of your own), for everything else a policy that allows nothing. The other
 *   security headers come from `next.config.js`.
 */
import type { NextRequest } from 'next/server';
import { NextResponse } from 'next/server';
import { randomUUID, timingSafeEqual } from 'node:crypto';
import { CLUSTER_HEADER, CLUSTER_PROOF_HEADER, ORIGINAL_HOST_HEADER, parseClusterPath } from './lib/shared/cluster-path';
import { guardRequest, refusal, refusalResponse } from './lib/server/request-guards';
import { createNonce, isPagePath, NON_PAGE_CONTENT_SECURITY_POLICY, pageContentSecurityPolicy } from './lib/server/security-headers';

const SECRET = Symbol.for('zonescope.clusterHeaderSecret');

/** The process's secret proving a cluster header was set by this proxy (created on first use). */
function proxySecret(): string {
  const holder = globalThis as unknown as { [SECRET]?: string };
  return (holder[SECRET] ??= randomUUID());
}

/** Whether `proof` is this process's secret. */
function isOwnProof(proof: string | null): boolean {
  if (proof === null) return false;
  const expected = Buffer.from(proxySecret());
  const given = Buffer.from(proof);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

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
  const passed = request.headers.get(CLUSTER_HEADER);
  const ownRewrite = passed !== null && isOwnProof(request.headers.get(CLUSTER_PROOF_HEADER));
  const passedHost = request.headers.get(ORIGINAL_HOST_HEADER);
  requestHeaders.delete(CLUSTER_HEADER);
  requestHeaders.delete(CLUSTER_PROOF_HEADER);
  requestHeaders.delete(ORIGINAL_HOST_HEADER);
  // The cluster of the prefix; on the pass over this proxy's own rewrite, the one it set.
  const cluster = parsed.kind === 'cluster' ? parsed.id : ownRewrite ? passed : null;
  // The host the browser asked for: Next.js serves the rewrite under its own host name.
  const originalHost = parsed.kind === 'cluster' ? request.headers.get('host') : ownRewrite ? passedHost : null;
  if (cluster !== null) {
    requestHeaders.set(CLUSTER_HEADER, cluster);
    requestHeaders.set(CLUSTER_PROOF_HEADER, proxySecret());
    if (originalHost !== null) requestHeaders.set(ORIGINAL_HOST_HEADER, originalHost);
  }
  const forward = (): NextResponse => {
    if (parsed.kind !== 'cluster') return NextResponse.next({ request: { headers: requestHeaders } });
    const target = request.nextUrl.clone();
    target.pathname = parsed.rest;
    return NextResponse.rewrite(target, { request: { headers: requestHeaders } });
  };
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
