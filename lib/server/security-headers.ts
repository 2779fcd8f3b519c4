/**
 * Security headers of every response (applied by `proxy.ts` and `next.config.js`). Pure: no
 * imports, so the proxy bundle stays small.
 *
 * Pages get a per-request nonce for scripts (Next.js puts it on its own inline and external
 * scripts when it finds `'nonce-…'` in the request's CSP header); styles allow `'unsafe-inline'`
 * because React `style` attributes and chart libraries set inline styles, which nonces cannot
 * cover. Everything else (JSON, assets) gets a policy that allows nothing.
 */

/** The page CSP for a nonce; `dev` adds what `next dev` needs (eval for React's debug stacks). */
export function pageContentSecurityPolicy(nonce: string, dev = false): string {
  return [
    "default-src 'self'",
    `script-src 'self' 'nonce-${nonce}'${dev ? " 'unsafe-eval'" : ''}`,
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob:",
    "font-src 'self' data:",
    "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ');
}

/** The CSP of everything that is not a page (API JSON, static assets). */
export const NON_PAGE_CONTENT_SECURITY_POLICY = "default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";

/** Headers set on every response besides the CSP (also in `next.config.js`, which cannot import TypeScript). */
export const STATIC_SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'same-origin',
  'X-Frame-Options': 'DENY',
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Permissions-Policy': 'camera=(), microphone=(), geolocation=(), interest-cohort=()',
};

/** A fresh nonce: 128 random bits, base64. */
export function createNonce(): string {
  const bytes = new Uint8Array(16);
  crypto.getRandomValues(bytes);
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary);
}

/** Whether a path is served by a page (HTML or its RSC payload) rather than an API route, `/metrics` or a static file. */
export function isPagePath(pathname: string): boolean {
  if (pathname === '/api' || pathname.startsWith('/api/')) return false;
  if (pathname === '/metrics' || pathname === '/metrics/') return false;
  if (pathname.startsWith('/_next/static/') || pathname.startsWith('/_next/image')) return false;
  return !/\.(?:ico|png|jpe?g|gif|svg|webp|avif|css|js|map|txt|xml|json|woff2?|ttf)$/i.test(pathname);
}
