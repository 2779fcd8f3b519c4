import { describe, expect, it } from 'vitest';
import { configFromEnv } from '../config/config';
import { allowedMethods, guardRequest, hasMalformedPercentEncoding, refusalResponse } from './request-guards';
import { STATIC_SECURITY_HEADERS } from './security-headers';

const env = configFromEnv({ PORT: '3000' });
const ok = (pathname: string, method = 'GET') => guardRequest({ method, pathname, host: 'localhost:3000' }, env);

describe('request guards', () => {
  it('lets ordinary requests through', () => {
    for (const path of ['/', '/services', '/services/shop/checkout', '/api/v1/cluster', '/_next/static/chunks/a.js', '/services/a%2Fb/c']) expect(ok(path), path).toBeNull();
    expect(ok('/api/v1/services/shop/checkout/topology-mode', 'PUT')).toBeNull();
    expect(ok('/api/v1/cluster', 'POST')).toBeNull(); // the route's own 405
  });

  it('refuses a foreign Host with 421: JSON for the API, a page elsewhere, with the security headers', async () => {
    const api = guardRequest({ method: 'GET', pathname: '/api/v1/cluster', host: 'rebind.evil.example:3000' }, env);
    expect(api?.status).toBe(421);
    const body = JSON.parse(api?.body ?? '') as { error: { code: string; message: string } };
    expect(body.error.code).toBe('untrusted-host:api');
    expect(body.error.message).toMatch(/ZONESCOPE_ALLOWED_HOSTS/);
    const page = guardRequest({ method: 'GET', pathname: '/', host: 'rebind.evil.example:3000' }, env);
    expect(page?.status).toBe(421);
    expect(page?.headers['Content-Type']).toBe('text/html; charset=utf-8');
    expect(page?.headers).toMatchObject({ ...STATIC_SECURITY_HEADERS, 'Cache-Control': 'no-store' });
    expect(page?.headers['Content-Security-Policy']).toContain("default-src 'none'");
    // The echoed Host is escaped.
    const xss = guardRequest({ method: 'GET', pathname: '/', host: '<script>' }, env);
    expect(xss?.body).not.toContain('<script>');
    if (page === null) throw new Error('no refusal');
    const response = refusalResponse(page, 'HEAD');
    expect(await response.text()).toBe('');
  });

  it('refuses a malformed % sequence with 400', () => {
    for (const path of ['/services/%E0%A4%A/x', '/api/v1/services/%zz/x', '/%', '/services/ns/%C0%AF']) expect(hasMalformedPercentEncoding(path), path).toBe(true);
    expect(hasMalformedPercentEncoding('/services/a%20b/%E0%A4%A4')).toBe(false);
    const api = ok('/api/v1/services/%zz/x');
    expect(api?.status).toBe(400);
    expect((JSON.parse(api?.body ?? '') as { error: { code: string } }).error.code).toBe('bad-request:api');
    const page = ok('/services/%E0%A4%A/x');
    expect(page?.status).toBe(400);
    expect(page?.body).toContain('malformed percent-encoding');
  });

  it('refuses odd methods with 405 and Allow', () => {
    for (const method of ['TRACE', 'TRACK', 'PROPFIND', 'FOO']) {
      const api = ok('/api/v1/cluster', method);
      expect(api?.status, method).toBe(405);
      expect(api?.headers.Allow).toBe('GET');
      expect(ok('/', method)?.headers.Allow).toBe('GET, HEAD');
    }
    expect(ok('/api/v1/services/a/b/topology-mode', 'TRACE')?.headers.Allow).toBe('GET, PUT');
    for (const method of ['POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']) expect(ok('/services', method)?.status, method).toBe(405);
    expect(ok('/services', 'HEAD')).toBeNull();
    expect(allowedMethods('/dataplane')).toEqual(['GET', 'HEAD']);
  });
  it('/metrics: GET and HEAD only, and an IP-literal Host on any port besides the allow-list', () => {
    for (const host of ['10.0.3.17:3000', '10.0.3.17', '192.168.1.20:9090', '[fd00::1:2]:3000', '[::ffff:10.0.0.1]:8080', 'localhost:3000']) {
      expect(guardRequest({ method: 'GET', pathname: '/metrics', host }, env), host).toBeNull();
    }
    expect(guardRequest({ method: 'HEAD', pathname: '/metrics', host: '10.0.3.17:3000' }, env)).toBeNull();
    // A name off the allow-list is still refused (DNS rebinding carries a name).
    for (const host of ['rebind.evil.example:3000', 'zonescope.monitoring.svc:3000', '10.0.3.17.nip.io', '[fd00::zz]:3000', '999.1.1.1:3000']) {
      expect(guardRequest({ method: 'GET', pathname: '/metrics', host }, env)?.status, host).toBe(421);
    }
    // The IP-literal exception is for /metrics only.
    expect(guardRequest({ method: 'GET', pathname: '/', host: '10.0.3.17:3000' }, env)?.status).toBe(421);
    expect(guardRequest({ method: 'GET', pathname: '/api/v1/cluster', host: '10.0.3.17:3000' }, env)?.status).toBe(421);
    for (const method of ['POST', 'PUT', 'DELETE', 'OPTIONS']) {
      const refused = guardRequest({ method, pathname: '/metrics', host: '10.0.3.17:3000' }, env);
      expect(refused?.status, method).toBe(405);
      expect(refused?.headers.Allow).toBe('GET, HEAD');
    }
    expect(allowedMethods('/metrics')).toEqual(['GET', 'HEAD']);
  });
});
