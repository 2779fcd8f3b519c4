import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { dataErrorResponse, errorResponse, methodNotAllowed } from './http';
import { isJsonContentType, MAX_BODY_BYTES, parseIfMatch, parseEndpointListQuery, parseModeBody, parseServiceQuery, parseServiceRef, parseTrafficOptions, readBodyLimited } from './requests';
import { configFromEnv, parseConfig } from '../config/config';
import { normaliseOrigin } from '../config/syntax';
import { auditUser, checkSameOrigin, trustedOrigins } from './origin';

function headers(values: Record<string, string>): Headers {
  return new Headers({ host: 'localhost:3000', origin: 'http://localhost:3000', ...values });
}

describe('checkSameOrigin', () => {
  it.each([
    ['the dashboard on localhost', {}],
    ['the dashboard on 127.0.0.1', { host: '127.0.0.1:3000', origin: 'http://127.0.0.1:3000' }],
    ['the dashboard on [::1]', { host: '[::1]:3000', origin: 'http://[::1]:3000' }],
    ['kubectl port-forward to another local port', { host: 'localhost:8080', origin: 'http://localhost:8080' }],
    ['Sec-Fetch-Site: same-origin', { 'sec-fetch-site': 'same-origin' }],
    ['default port spelled out in Host', { host: 'localhost:80', origin: 'http://localhost' }],
    ['X-Forwarded-Host equal to Host (Next.js fills it in)', { 'x-forwarded-host': 'localhost:3000' }],
    ['a /c/{id} write: served in-process, with the Host the browser sent', { host: '127.0.0.1:3000', 'x-forwarded-host': '127.0.0.1:3000', origin: 'http://127.0.0.1:3000' }],
  ])('allows %s', (_label, values) => {
    expect(checkSameOrigin(headers(values), configFromEnv({}))).toEqual({ ok: true });
  });

  it.each([
    ['no Origin', { origin: '' }, 'no Origin header'],
    ['Origin: null', { origin: 'null' }, 'Origin: null'],
    ['a malformed Origin', { origin: 'localhost:3000' }, 'malformed Origin'],
    ['an Origin with a path', { origin: 'http://localhost:3000/x' }, 'malformed Origin'],
    ['a foreign Origin', { origin: 'https://evil.example' }, 'Origin differs from the requested host'],
    ['another local port', { origin: 'http://localhost:8000' }, 'Origin differs from the requested host'],
    ['Sec-Fetch-Site: cross-site', { 'sec-fetch-site': 'cross-site' }, 'Sec-Fetch-Site: cross-site'],
    ['Sec-Fetch-Site: same-site', { 'sec-fetch-site': 'same-site' }, 'Sec-Fetch-Site: same-site'],
    ['Sec-Fetch-Site: none', { 'sec-fetch-site': 'none' }, 'Sec-Fetch-Site: none'],
    ['x-middleware-subrequest', { 'x-middleware-subrequest': 'middleware' }, 'internal sub-request header'],
    ['a forged X-Forwarded-Host', { origin: 'http://evil.example', 'x-forwarded-host': 'evil.example' }, 'untrusted X-Forwarded-Host'],
    ['DNS rebinding', { host: 'evil.example:3000', origin: 'http://evil.example:3000' }, 'Origin is not loopback and not in ZONESCOPE_TRUSTED_ORIGINS'],
    ['an unlisted public host', { host: 'zonescope.example.com', origin: 'https://zonescope.example.com' }, 'Origin is not loopback and not in ZONESCOPE_TRUSTED_ORIGINS'],
  ])('refuses %s', (_label, values, reason) => {
    expect(checkSameOrigin(headers(values), configFromEnv({}))).toEqual({ ok: false, reason });
  });

  it('trusts ZONESCOPE_TRUSTED_ORIGINS, directly or as X-Forwarded-Host, with the scheme checked', () => {
    const env = configFromEnv({ ZONESCOPE_TRUSTED_ORIGINS: 'https://zonescope.example.com, ,HTTP://Other.example:8080' });
    expect([...trustedOrigins(env)]).toEqual(['https://zonescope.example.com', 'http://other.example:8080']);
    // An entry that is no origin stops the start (it used to be dropped silently).
    const bad = parseConfig({ ZONESCOPE_TRUSTED_ORIGINS: 'https://zonescope.example.com, not a url' });
    expect(!bad.ok && bad.errors.map((e) => e.variable)).toEqual(['ZONESCOPE_TRUSTED_ORIGINS']);
    expect(checkSameOrigin(headers({ host: 'zonescope.example.com', origin: 'https://zonescope.example.com' }), env)).toEqual({ ok: true });
    expect(checkSameOrigin(headers({ host: 'zonescope-web:3000', 'x-forwarded-host': 'zonescope.example.com', origin: 'https://zonescope.example.com' }), env)).toEqual({ ok: true });
    expect(checkSameOrigin(headers({ host: 'zonescope.example.com', origin: 'http://zonescope.example.com' }), env).ok).toBe(false);
    expect(checkSameOrigin(headers({ host: 'zonescope-web:3000', 'x-forwarded-host': 'evil.example', origin: 'https://evil.example' }), env).ok).toBe(false);
  });

  it('normalises origins', () => {
    expect(normaliseOrigin('HTTP://LocalHost:80')).toBe('http://localhost');
    expect(normaliseOrigin('https://a.example:443/')).toBe('https://a.example');
    expect(normaliseOrigin('ftp://a.example')).toBeNull();
    expect(normaliseOrigin('http://user:pw@a.example')).toBeNull();
  });
});

describe('parseModeBody', () => {
  it.each(['{"mode":"Auto"}', '{"mode":"Disabled"}', ' { "mode" : "Auto" }\n'])('accepts %s', (text) => {
    expect(parseModeBody(text).ok).toBe(true);
  });

  it.each([
    '{"mode":"auto"}', '{"mode":"Auto","x":1}', '{"__proto__":{},"mode":"Auto"}', '{"mode":"Disabled","mode":"Auto"}', '{"mod\\u0065":"Auto"}',
    '{"mode":1}', '[]', 'null', '', '{',
  ])('refuses %s', (text) => {
    expect(parseModeBody(text).ok).toBe(false);
  });
});

describe('request helpers', () => {
  it('accepts only application/json (charset utf-8 allowed)', () => {
    expect(isJsonContentType('application/json')).toBe(true);
    expect(isJsonContentType('Application/JSON; charset=UTF-8')).toBe(true);
    expect(isJsonContentType('application/json; charset=latin1')).toBe(false);
    expect(isJsonContentType('text/plain')).toBe(false);
    expect(isJsonContentType(null)).toBe(false);
  });

  it('parses If-Match', () => {
    expect(parseIfMatch('"42"')).toBe('42');
    expect(parseIfMatch(null)).toBeNull();
    expect(parseIfMatch(' ')).toBeNull();
    for (const bad of ['42', 'W/"42"', '*', '"1", "2"', '""']) expect(parseIfMatch(bad)).toBeUndefined();
  });

  it('reads at most MAX_BODY_BYTES', async () => {
    const small = new Request('http://x/', { method: 'PUT', body: '{"mode":"Auto"}' });
    expect(await readBodyLimited(small)).toBe('{"mode":"Auto"}');
    const big = new Request('http://x/', { method: 'PUT', body: 'x'.repeat(MAX_BODY_BYTES + 1) });
    expect(await readBodyLimited(big)).toBeNull();
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let i = 0; i < 10; i++) controller.enqueue(new Uint8Array(200));
        controller.close();
      },
    });
    expect(await readBodyLimited(new Request('http://x/', { method: 'PUT', body: stream, duplex: 'half' } as RequestInit))).toBeNull();
    const lying = new Request('http://x/', { method: 'PUT', body: '{}', headers: { 'content-length': 'abc' } });
    expect(await readBodyLimited(lying)).toBeNull();
  });

  it('validates Service references', () => {
    expect(parseServiceRef('shop', 'checkout', 'service')).toEqual({ ok: true, value: { namespace: 'shop', name: 'checkout' } });
    for (const [namespace, name] of [['..', 'a'], ['a', '.'], ['a', 'a/b'], ['%2e%2e', 'a'], ['', 'a'], ['a', 'A'], ['ü', 'a'], ['a', 'x'.repeat(64)]]) {
      expect(parseServiceRef(namespace, name, 'service').ok).toBe(false);
    }
  });

  it('parses the Services query with documented clamping', () => {
    const parsed = parseServiceQuery(new URLSearchParams('q=web&namespace=shop&attention=1&sort=crossZone&order=desc&offset=5&limit=9999'));
    expect(parsed).toEqual({ ok: true, value: { q: 'web', namespace: 'shop', attention: true, sort: 'crossZone', order: 'desc', offset: 5, limit: 500 } });
    expect(parseServiceQuery(new URLSearchParams(''))).toEqual({ ok: true, value: { offset: 0, limit: 100 } });
    expect(parseServiceQuery(new URLSearchParams('limit=0'))).toMatchObject({ ok: true, value: { limit: 1 } });
  });

  it('parses traffic and cost options', () => {
    expect(parseTrafficOptions(new URLSearchParams('gbPerMonth=2500.5&pricePerGb=.02&traffic.zone-a=0.25&traffic.zone-b=0.75'))).toEqual({
      ok: true,
      value: { gbPerMonth: 2500.5, crossZonePrice: { kind: 'custom', pricePerUnit: 0.02, unit: 'GB', directions: 2 }, trafficByZone: { 'zone-a': 0.25, 'zone-b': 0.75 } },
    });
    expect(parseTrafficOptions(new URLSearchParams('price=azure'))).toEqual({ ok: true, value: { crossZonePrice: { kind: 'cloud', cloud: 'azure' } } });
    expect(parseTrafficOptions(new URLSearchParams('traffic.__proto__=0.5')).ok).toBe(false);
    const odd = parseTrafficOptions(new URLSearchParams('traffic.constructor=0.5'));
    expect(odd.ok && Object.prototype.hasOwnProperty.call(odd.value.trafficByZone, 'constructor')).toBe(true);
    expect(parseTrafficOptions(new URLSearchParams('gbPerMonth=Infinity')).ok).toBe(false);
  });
});

describe('parseEndpointListQuery', () => {
  it('defaults to every endpoint, and takes a scenario with list=loads', () => {
    expect(parseEndpointListQuery(new URLSearchParams(''))).toEqual({ ok: true, value: { list: 'endpoints', scenario: 'now' } });
    expect(parseEndpointListQuery(new URLSearchParams('list=diff'))).toEqual({ ok: true, value: { list: 'diff', scenario: 'now' } });
    expect(parseEndpointListQuery(new URLSearchParams('list=loads&scenario=ifAuto'))).toEqual({ ok: true, value: { list: 'loads', scenario: 'ifAuto' } });
  });

  it.each([
    ['an unknown parameter', 'list=endpoints&limit=10'],
    ['an unknown list', 'list=pods'],
    ['a repeated list', 'list=diff&list=loads'],
    ['a scenario without list=loads', 'list=diff&scenario=now'],
    ['an unknown scenario', 'list=loads&scenario=later'],
    ['a repeated scenario', 'list=loads&scenario=now&scenario=ifNone'],
  ])('refuses %s with 400 bad-request:service', async (_label, query) => {
    const parsed = parseEndpointListQuery(new URLSearchParams(query));
    expect(parsed.ok).toBe(false);
    if (parsed.ok) return;
    expect(parsed.response.status).toBe(400);
    expect(((await parsed.response.json()) as { error: { code: string } }).error.code).toBe('bad-request:service');
  });
});

describe('responses', () => {
  it('use the error envelope, no-store and nosniff', async () => {
    const response = errorResponse(400, 'bad-request', 'service', 'nope', { current: null });
    expect(response.status).toBe(400);
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    expect(await response.json()).toEqual({ current: null, error: { code: 'bad-request:service', message: 'nope' } });
  });

  it('map data errors to statuses, Retry-After and not-found:service', async () => {
    expect(dataErrorResponse('topology-mode', { kind: 'conflict', message: 'm' }).status).toBe(409);
    expect(dataErrorResponse('topology-mode', { kind: 'timeout', message: 'm' }).status).toBe(504);
    expect(dataErrorResponse('topology-mode', { kind: 'weird', message: 'm' }).status).toBe(502);
    const throttled = dataErrorResponse('topology-mode', { kind: 'too-many-requests', message: 'm', retryAfterSeconds: 2.5 });
    expect(throttled.status).toBe(429);
    expect(throttled.headers.get('retry-after')).toBe('3');
    expect(((await dataErrorResponse('topology-mode', { kind: 'not-found', message: 'm' }).json()) as { error: { code: string } }).error.code).toBe('not-found:service');
    const notAllowed = methodNotAllowed('topology-mode', ['GET', 'PUT']);
    expect(notAllowed.headers.get('allow')).toBe('GET, PUT');
  });
});

describe('auditUser', () => {
  it('trusts user headers only behind a declared auth proxy that proves itself with its secret', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'zonescope-audit-'));
    const secret = '0123456789abcdef0123456789abcdef';
    const file = path.join(dir, 'secret');
    writeFileSync(file, `${secret}\n`);
    const proxy = (flag: string) => configFromEnv({ ZONESCOPE_AUTH_PROXY: flag, ZONESCOPE_AUTH_PROXY_SECRET_FILE: file });
    const h = new Headers({ 'x-forwarded-user': 'al\tice', 'x-zonescope-proxy-secret': secret });
    expect(auditUser(h, configFromEnv({}))).toEqual({ user: 'anonymous', unverifiedUser: 'alice' });
    expect(auditUser(h, proxy('1'))).toEqual({ user: 'alice', unverifiedUser: null });
    expect(auditUser(new Headers({ 'x-auth-request-user': 'bob', 'x-zonescope-proxy-secret': secret }), proxy('true'))).toEqual({ user: 'bob', unverifiedUser: null });
    expect(auditUser(new Headers({ 'x-auth-request-user': 'bob' }), proxy('true'))).toEqual({ user: 'anonymous', unverifiedUser: 'bob' });
    expect(auditUser(new Headers(), proxy('1'))).toEqual({ user: 'anonymous', unverifiedUser: null });
    rmSync(dir, { recursive: true, force: true });
  });
});
