/**
 * Runs before every request:
 * - refuses what no route should see (`lib/data/request-guards.ts`): a `Host` not on the
 *   allow-list (421, DNS rebinding), a malformed `%` sequence in the path (400), a method other
 *   than GET/HEAD on a page (405) — JSON under `/api`, a short page elsewhere, with the security
 *   headers;
 * - puts the Content-Security-Policy on every response — for pages with a fresh script nonce
 *   (Next.js applies it to its scripts; read it with `(await headers()).get('x-nonce')` for any
 *   inline script of your own), for everything else a policy that allows nothing. The other
 *   security headers come from `next.config.js`.
 */
import type { NextRequest } from 'next/server';
import { NextResponse } from 'next/server';
import { guardRequest, refusalResponse } from './lib/data/request-guards';
import { createNonce, isPagePath, NON_PAGE_CONTENT_SECURITY_POLICY, pageContentSecurityPolicy } from './lib/data/security-headers';

export function proxy(request: NextRequest): Response {
  const refused = guardRequest({ method: request.method, pathname: request.nextUrl.pathname, host: request.headers.get('host') });
  if (refused !== null) return refusalResponse(refused, request.method);
  if (!isPagePath(request.nextUrl.pathname)) {
    const response = NextResponse.next();
    response.headers.set('Content-Security-Policy', NON_PAGE_CONTENT_SECURITY_POLICY);
    return response;
  }
  const nonce = createNonce();
  const policy = pageContentSecurityPolicy(nonce, process.env.NODE_ENV === 'development');
  const requestHeaders = new Headers(request.headers);
  requestHeaders.set('x-nonce', nonce);
  requestHeaders.set('Content-Security-Policy', policy);
  const response = NextResponse.next({ request: { headers: requestHeaders } });
  response.headers.set('Content-Security-Policy', policy);
  return response;
}
