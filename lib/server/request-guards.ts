/**
 * Requests refused before any route runs, with the security headers and a clear answer — JSON
 * `{ error: { code, message } }` under `/api`, a short HTML page elsewhere:
 *
 * - a `Host` not on the allow-list (`421 untrusted-host`, see `exposure.ts`); `/metrics` also
 *   accepts an IP-literal `Host` (IPv4 or `[IPv6]`, any port), since Prometheus scrapes pod IPs;
 * - a path with a malformed `%` sequence (`400 bad-request`; Next.js would answer a bare 500);
 * - a method the path does not serve (`405 method-not-allowed` with `Allow`): pages serve GET
 *   and HEAD; methods outside GET, HEAD, POST, PUT, PATCH, DELETE and OPTIONS (TRACE, TRACK,
 *   PROPFIND, …) are refused everywhere, by {@link installMethodGuard}'s hook in front of Next.js
 *   (Next.js cannot even build a `Request` for TRACE and logs a stack per request).
 *
 * Pure apart from {@link Response}: `proxy.ts` and the Node.js server hook share it.
 */
import { getConfig } from '../config/process-config';
import type { ExposureConfig } from './exposure';
import { checkHost, checkMetricsHost } from './exposure';
import { NON_PAGE_CONTENT_SECURITY_POLICY, STATIC_SECURITY_HEADERS } from './security-headers';

/** Methods Next.js route handlers and pages can be asked for at all. */
export const KNOWN_METHODS: readonly string[] = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];

/** Methods pages answer. */
export const PAGE_METHODS: readonly string[] = ['GET', 'HEAD'];

const TOGGLE_PATH = /^\/api\/v1\/services\/[^/]+\/[^/]+\/topology-mode\/?$/;

/** Whether a path is served by the JSON API (`/api/…`). */
export function isApiPath(pathname: string): boolean {
  return pathname === '/api' || pathname.startsWith('/api/');
}

/** Whether a path is the Prometheus exposition (`/metrics`). */
export function isMetricsPath(pathname: string): boolean {
  return pathname === '/metrics' || pathname === '/metrics/';
}

/** What a path answers: the toggle GET and PUT, the rest of the API GET, pages and `/metrics` GET and HEAD. */
export function allowedMethods(pathname: string): readonly string[] {
  if (TOGGLE_PATH.test(pathname)) return ['GET', 'PUT'];
  if (isMetricsPath(pathname)) return PAGE_METHODS;
  if (isApiPath(pathname)) return ['GET'];
  return PAGE_METHODS;
}

/** Whether decoding the path's `%` sequences fails (`%zz`, a cut-off `%E0%A4%A`, invalid UTF-8). */
export function hasMalformedPercentEncoding(pathname: string): boolean {
  try {
    decodeURIComponent(pathname);
    return false;
  } catch {
    return true;
  }
}

/** Headers of every refusal: the security headers, the locked-down CSP, never cached. */
export function refusalHeaders(extra: Readonly<Record<string, string>> = {}): Record<string, string> {
  return { ...STATIC_SECURITY_HEADERS, 'Content-Security-Policy': NON_PAGE_CONTENT_SECURITY_POLICY, 'Cache-Control': 'no-store', ...extra };
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** A refusal as it is sent: status, headers and body. */
export interface Refusal {
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly body: string;
}

/**
 * A refusal of `pathname`: `{"error":{"code":"<kind>:api","message":…}}` under `/api`, else a
 * small HTML page (no scripts, no styles) with `title` and `message`.
 */
export function refusal(status: number, kind: string, pathname: string, title: string, message: string, extra: Readonly<Record<string, string>> = {}): Refusal {
  if (isApiPath(pathname)) {
    return {
      status,
      headers: refusalHeaders({ 'Content-Type': 'application/json', ...extra }),
      body: JSON.stringify({ error: { code: `${kind}:api`, message } }),
    };
  }
  const body =
    `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><meta name="robots" content="noindex"><title>${escapeHtml(title)} · zonescope</title></head>` +
    `<body><main><h1>${escapeHtml(title)}</h1><p>${escapeHtml(message)}</p><p><a href="/">zonescope Overview</a></p></main></body></html>\n`;
  return { status, headers: refusalHeaders({ 'Content-Type': 'text/html; charset=utf-8', ...extra }), body };
}

/** The 405 for `method` on `pathname`, with `Allow`. */
export function methodRefusal(method: string, pathname: string): Refusal {
  const allow = allowedMethods(pathname);
  const message = `${method.slice(0, 20).replace(/[^A-Za-z0-9-]/g, '?')} is not allowed here; only ${allow.join(' and ')} ${allow.length === 1 ? 'is' : 'are'}.`;
  return refusal(405, 'method-not-allowed', pathname, 'Method not allowed', message, { Allow: allow.join(', ') });
}

/** The request line and `Host` a guard looks at. */
export interface GuardedRequest {
  readonly method: string;
  /** The raw (still percent-encoded) path. */
  readonly pathname: string;
  readonly host: string | null;
}

/**
 * The refusal for a request, or `null` to let it through, checked in this order: a method
 * outside {@link KNOWN_METHODS} (405), the `Host` (421), a malformed `%` sequence in the path
 * (400), a method other than GET/HEAD on a page (405).
 */
export function guardRequest(request: GuardedRequest, config: ExposureConfig = getConfig()): Refusal | null {
  const method = request.method.toUpperCase();
  if (!KNOWN_METHODS.includes(method)) return methodRefusal(method, request.pathname);
  // `/metrics` also takes an IP-literal Host (Prometheus scrapes pod IPs; DNS rebinding carries a name).
  const host = isMetricsPath(request.pathname) ? checkMetricsHost(request.host, config) : checkHost(request.host, config);
  if (!host.ok) return refusal(421, 'untrusted-host', request.pathname, 'Unknown host name', host.reason);
  if (hasMalformedPercentEncoding(request.pathname)) {
    return refusal(400, 'bad-request', request.pathname, 'Bad request', 'The address has a malformed percent-encoding (a "%" not followed by two hex digits, or bytes that are not UTF-8).');
  }
  if (!isApiPath(request.pathname) && !PAGE_METHODS.includes(method) && !isAssetPath(request.pathname)) return methodRefusal(method, request.pathname);
  return null;
}

/** Static files and Next.js internals, which Next.js answers itself. */
function isAssetPath(pathname: string): boolean {
  return pathname.startsWith('/_next/');
}

/** A {@link Refusal} as a fetch `Response` (for `proxy.ts`). */
export function refusalResponse(r: Refusal, method = 'GET'): Response {
  return new Response(method.toUpperCase() === 'HEAD' ? null : r.body, { status: r.status, headers: r.headers });
}
