import { describe, expect, it } from 'vitest';
import { createNonce, isPagePath, NON_PAGE_CONTENT_SECURITY_POLICY, pageContentSecurityPolicy } from './security-headers';

describe('security headers', () => {
  it('page CSP: nonce scripts, no inline scripts, no framing', () => {
    const csp = pageContentSecurityPolicy('abc');
    expect(csp).toContain("script-src 'self' 'nonce-abc'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toContain("object-src 'none'");
    expect(csp).not.toMatch(/script-src[^;]*unsafe-inline/);
    expect(csp).not.toContain('unsafe-eval');
    expect(pageContentSecurityPolicy('abc', true)).toContain("'unsafe-eval'");
  });

  it('everything else allows nothing and cannot be framed', () => {
    expect(NON_PAGE_CONTENT_SECURITY_POLICY).toContain("default-src 'none'");
    expect(NON_PAGE_CONTENT_SECURITY_POLICY).toContain("frame-ancestors 'none'");
  });

  it('nonces are fresh base64 of 128 bits', () => {
    const a = createNonce();
    expect(a).toMatch(/^[A-Za-z0-9+/]{22}==$/);
    expect(createNonce()).not.toBe(a);
  });

  it('tells pages from API routes and assets', () => {
    for (const page of ['/', '/services', '/services/shop/checkout', '/dataplane']) expect(isPagePath(page)).toBe(true);
    for (const other of ['/api/v1/cluster', '/api', '/metrics', '/_next/static/chunks/a.js', '/favicon.ico', '/_next/image']) expect(isPagePath(other)).toBe(false);
  });
});
