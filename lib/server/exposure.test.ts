import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Env } from '../config/config';
import { configFromEnv, parseConfig } from '../config/config';
import { parseHostPort } from '../config/syntax';
import { redact } from '../k8s/redact';
import { AUTH_PROXY_SECRET_HEADER, authProxyStartProblem, checkProxyProof } from './auth-proxy';
import { allowedHosts, checkHost, checkMetricsHost, checkWriteAllowed, isIpLiteralHost, isBoundBeyondLoopback, isLoopbackHost, unauthenticatedWritesReason, verifiedProxyUser } from './exposure';
import { auditUser } from './origin';

/** The configuration of `env` (as the server reads it at start). */
const cfg = (env: Env) => configFromEnv(env);

const secrets = mkdtempSync(path.join(tmpdir(), 'zonescope-proxy-secret-'));
afterAll(() => rmSync(secrets, { recursive: true, force: true }));
let files = 0;
/** A new secret file holding `text` (a new path each time: the secret is read once per path). */
function secretFile(text: string): string {
  const file = path.join(secrets, `secret-${files++}`);
  writeFileSync(file, text);
  return file;
}
const SECRET = 'c2f1b0e94d7a6a3e5f8b1c0d9e7f6a5b';

describe('bind address', () => {
  it('is loopback only when ZONESCOPE_HOST names loopback; unset means every interface (Next.js\'s default)', () => {
    for (const host of ['127.0.0.1', '127.1.2.3', 'localhost', '::1', '[::1]']) expect(isBoundBeyondLoopback(cfg({ ZONESCOPE_HOST: host })), host).toBe(false);
    for (const host of ['0.0.0.0', '::', '10.0.0.5', 'myhost', '128.0.0.1', '127.0.0.256']) expect(isBoundBeyondLoopback(cfg({ ZONESCOPE_HOST: host })), host).toBe(true);
    expect(isBoundBeyondLoopback(cfg({}))).toBe(true);
    // HOSTNAME is the machine's name in many shells (and ignored by next start): not trusted.
    expect(isBoundBeyondLoopback(cfg({ HOSTNAME: '127.0.0.1' }))).toBe(true);
    expect(isLoopbackHost('LOCALHOST')).toBe(true);
  });
});

describe('Host allow-list', () => {
  const env = cfg({ PORT: '3210' });

  it('accepts loopback names and addresses with the server\'s own port', () => {
    for (const host of ['localhost:3210', '127.0.0.1:3210', '[::1]:3210', 'LocalHost:3210']) expect(checkHost(host, env).ok, host).toBe(true);
  });

  it('refuses other names (DNS rebinding), other ports, missing and malformed Host, with a reason that says what to configure', () => {
    for (const host of ['evil.example:3210', 'evil.example', 'localhost:3000', 'localhost', '127.0.0.2:3210', '10.0.0.5:3210', 'localhost:3210@evil', 'a b', '[::1']) {
      const check = checkHost(host, env);
      expect(check.ok, host).toBe(false);
    }
    expect(checkHost(null, env)).toEqual({ ok: false, reason: 'The request has no Host header.' });
    const refused = checkHost('rebind.evil.example:3210', env);
    expect(refused.ok === false && refused.reason).toMatch(/ZONESCOPE_ALLOWED_HOSTS/);
    // Control characters never reach the message.
    const weird = checkHost('evil\u0007.example', env);
    expect(weird.ok === false && weird.reason).not.toContain('\u0007');
  });

  it('adds ZONESCOPE_ALLOWED_HOSTS (name = any port, name:port) and the hosts of ZONESCOPE_TRUSTED_ORIGINS', () => {
    const configured = cfg({
      PORT: '3000',
      ZONESCOPE_ALLOWED_HOSTS: ' zonescope.zonescope.svc , dash.internal:8443,localhost,',
      ZONESCOPE_TRUSTED_ORIGINS: 'https://zonescope.example.com,http://10.0.0.5:8080',
    });
    for (const host of ['zonescope.zonescope.svc', 'zonescope.zonescope.svc:80', 'dash.internal:8443', 'localhost:9999', 'zonescope.example.com', 'zonescope.example.com:443', '10.0.0.5:8080']) {
      expect(checkHost(host, configured).ok, host).toBe(true);
    }
    for (const host of ['dash.internal:8444', 'zonescope.example.com:80', '10.0.0.5:3000', 'svc']) expect(checkHost(host, configured).ok, host).toBe(false);
    expect(allowedHosts(configured).map((h) => h.host)).toEqual(['localhost', '127.0.0.1', '[::1]', 'zonescope.example.com', '10.0.0.5', 'zonescope.zonescope.svc', 'dash.internal', 'localhost']);
  });

  it('a malformed entry stops the start, naming the variable and the entries (it was silently ignored before)', () => {
    const hosts = parseConfig({ ZONESCOPE_ALLOWED_HOSTS: 'zonescope.svc, not a host,dash:99999' });
    expect(hosts.ok).toBe(false);
    expect(!hosts.ok && hosts.errors).toEqual([
      { variable: 'ZONESCOPE_ALLOWED_HOSTS', message: 'ZONESCOPE_ALLOWED_HOSTS must be a comma-separated list of host names or addresses, each name (any port) or name:port; "not a host", "dash:99999" are not.' },
    ]);
    const origins = parseConfig({ ZONESCOPE_TRUSTED_ORIGINS: 'https://zonescope.example.com/app' });
    expect(!origins.ok && origins.errors[0]?.message).toMatch(/^ZONESCOPE_TRUSTED_ORIGINS must be a comma-separated list of http\(s\) origins .*"https:\/\/zonescope\.example\.com\/app" is not\.$/);
  });

  it('parses host and port', () => {
    expect(parseHostPort('[::1]:3000')).toEqual({ host: '[::1]', port: '3000' });
    expect(parseHostPort('Example.COM.')).toEqual({ host: 'example.com', port: null });
    expect(parseHostPort('example.com:0')).toBeNull();
    expect(parseHostPort('example.com:99999')).toBeNull();
    expect(parseHostPort('')).toBeNull();
  });
});

describe('writes beyond loopback', () => {
  const user = new Headers({ 'x-forwarded-user': 'alice' });
  const none = new Headers();

  it('on loopback: allowed without a proxy', () => {
    expect(unauthenticatedWritesReason(cfg({ ZONESCOPE_HOST: '127.0.0.1' }))).toBeNull();
    expect(checkWriteAllowed(none, cfg({ ZONESCOPE_HOST: '127.0.0.1' }))).toEqual({ ok: true });
  });

  it('beyond loopback: refused with what to configure, unless behind the auth proxy (with its user header) or opted in', () => {
    for (const env of [cfg({}), cfg({ ZONESCOPE_HOST: '0.0.0.0' })]) {
      const reason = unauthenticatedWritesReason(env);
      expect(reason).toMatch(/ZONESCOPE_AUTH_PROXY=1/);
      expect(reason).toMatch(/ZONESCOPE_ALLOW_UNAUTHENTICATED_WRITES=1/);
      expect(checkWriteAllowed(user, env).ok).toBe(false);
    }
    const proxied = cfg({ ZONESCOPE_HOST: '0.0.0.0', ZONESCOPE_AUTH_PROXY: '1', ZONESCOPE_AUTH_PROXY_SECRET_FILE: secretFile(`${SECRET}\n`) });
    expect(unauthenticatedWritesReason(proxied)).toBeNull();
    expect(checkWriteAllowed(new Headers({ 'x-forwarded-user': 'alice', [AUTH_PROXY_SECRET_HEADER]: SECRET }), proxied)).toEqual({ ok: true });
    expect(checkWriteAllowed(new Headers({ 'x-auth-request-user': 'bob', [AUTH_PROXY_SECRET_HEADER]: SECRET }), proxied)).toEqual({ ok: true });
    const bypassed = checkWriteAllowed(none, proxied);
    expect(bypassed.ok === false && bypassed.reason).toMatch(/X-Forwarded-User/);
    expect(checkWriteAllowed(new Headers({ 'x-forwarded-user': '  ', [AUTH_PROXY_SECRET_HEADER]: SECRET }), proxied).ok).toBe(false);
    expect(checkWriteAllowed(none, cfg({ ZONESCOPE_HOST: '0.0.0.0', ZONESCOPE_ALLOW_UNAUTHENTICATED_WRITES: '1' }))).toEqual({ ok: true });
    expect(checkWriteAllowed(none, cfg({ ZONESCOPE_ALLOW_UNAUTHENTICATED_WRITES: 'true' }))).toEqual({ ok: true });
    // Every flag reads the same spellings: `yes` is on (it used to leave writes off silently)…
    expect(checkWriteAllowed(none, cfg({ ZONESCOPE_ALLOW_UNAUTHENTICATED_WRITES: 'Yes' }))).toEqual({ ok: true });
    // …and `no` is off, while a value that is no flag stops the start.
    expect(checkWriteAllowed(none, cfg({ ZONESCOPE_ALLOW_UNAUTHENTICATED_WRITES: 'no' })).ok).toBe(false);
    expect(() => cfg({ ZONESCOPE_ALLOW_UNAUTHENTICATED_WRITES: 'sure' })).toThrow('ZONESCOPE_ALLOW_UNAUTHENTICATED_WRITES must be on (1, true, yes, on) or off (0, false, no, off), in any case, not "sure".');
  });
});

describe("the auth proxy's secret", () => {
  const proxied = (file: string) => cfg({ ZONESCOPE_HOST: '0.0.0.0', ZONESCOPE_AUTH_PROXY: '1', ZONESCOPE_AUTH_PROXY_SECRET_FILE: file });

  it('ZONESCOPE_AUTH_PROXY=1 without ZONESCOPE_AUTH_PROXY_SECRET_FILE stops the start, saying how to set it', () => {
    const result = parseConfig({ ZONESCOPE_AUTH_PROXY: '1' });
    expect(result.ok).toBe(false);
    expect(!result.ok && result.errors.map((e) => e.variable)).toEqual(['ZONESCOPE_AUTH_PROXY_SECRET_FILE']);
    expect(!result.ok && result.errors[0]?.message).toMatch(/^ZONESCOPE_AUTH_PROXY is on but ZONESCOPE_AUTH_PROXY_SECRET_FILE is not set: .*openssl rand -hex 32.*X-Zonescope-Proxy-Secret header/);
    // Without the proxy mode the file is not needed.
    expect(parseConfig({}).ok).toBe(true);
  });

  it('a missing, empty, short or multi-line secret file stops the start, naming the file and never its content', () => {
    const missing = path.join(secrets, 'nope');
    expect(authProxyStartProblem(proxied(missing))).toMatch(/^ZONESCOPE_AUTH_PROXY_SECRET_FILE \(.*nope\) cannot be read \(no such file\)\. Create it with/);
    expect(authProxyStartProblem(proxied(secretFile(' \n')))).toMatch(/\) is empty\./);
    expect(authProxyStartProblem(proxied(secretFile('short-secret')))).toMatch(/holds fewer than 16 characters/);
    const twoLines = authProxyStartProblem(proxied(secretFile(`${SECRET}\nsecond line`)));
    expect(twoLines).toMatch(/must hold one line of visible ASCII characters/);
    expect(twoLines).not.toContain(SECRET);
    expect(authProxyStartProblem(proxied(secretFile(SECRET)))).toBeNull();
    expect(authProxyStartProblem(cfg({ ZONESCOPE_AUTH_PROXY_SECRET_FILE: missing }))).toBeNull(); // proxy mode off: not read
  });

  it('a user header without the right secret counts as no user: the write is refused naming the missing proof, the audit says unverified', () => {
    const env = proxied(secretFile(`  ${SECRET}\n`));
    const claims = (extra: Record<string, string>) => new Headers({ 'x-forwarded-user': 'mallory', ...extra });
    const cases: [string, Headers, RegExp][] = [
      ['no secret', claims({}), /but it carries no X-Zonescope-Proxy-Secret header, so it counts as having no user/],
      ['an empty secret', claims({ [AUTH_PROXY_SECRET_HEADER]: '' }), /carries no X-Zonescope-Proxy-Secret header/],
      ['a wrong secret', claims({ [AUTH_PROXY_SECRET_HEADER]: 'guess-guess-guess-guess' }), /its X-Zonescope-Proxy-Secret header is not the proxy's secret/],
      ['the secret with one character changed', claims({ [AUTH_PROXY_SECRET_HEADER]: `${SECRET.slice(0, -1)}c` }), /is not the proxy's secret/],
      ['the secret twice', claims({ [AUTH_PROXY_SECRET_HEADER]: `${SECRET}${SECRET}` }), /is not the proxy's secret/],
    ];
    for (const [label, headers, reason] of cases) {
      const check = checkWriteAllowed(headers, env);
      expect(check.ok, label).toBe(false);
      const text = check.ok ? '' : check.reason;
      expect(text, label).toMatch(reason);
      expect(text, label).toMatch(/sets X-Zonescope-Proxy-Secret to the secret of ZONESCOPE_AUTH_PROXY_SECRET_FILE/);
      expect(text, label).not.toContain(SECRET.slice(0, 8));
      expect(text, label).not.toContain('guess');
      expect(verifiedProxyUser(headers, env), label).toMatchObject({ user: null, claimed: 'mallory' });
      expect(auditUser(headers, env), label).toEqual({ user: 'anonymous', unverifiedUser: 'mallory' });
    }
    const proxiedRequest = claims({ [AUTH_PROXY_SECRET_HEADER]: SECRET });
    expect(checkWriteAllowed(proxiedRequest, env)).toEqual({ ok: true });
    expect(checkProxyProof(proxiedRequest, env)).toEqual({ ok: true });
    expect(auditUser(proxiedRequest, env)).toEqual({ user: 'mallory', unverifiedUser: null });
    // Once read, the secret is known to the redactor: no message can show it.
    expect(redact(`upstream said: ${SECRET}`)).not.toContain(SECRET);
  });

  it('a secret file that could not be read at start proves nothing: writes are refused, saying so', () => {
    const env = proxied(path.join(secrets, 'gone'));
    const check = checkWriteAllowed(new Headers({ 'x-forwarded-user': 'alice', [AUTH_PROXY_SECRET_HEADER]: SECRET }), env);
    expect(check.ok === false && check.reason).toMatch(/the proxy secret \(ZONESCOPE_AUTH_PROXY_SECRET_FILE\) could not be read when the server started/);
  });
});

describe('IP-literal Host (for /metrics)', () => {
  it('tells IP literals from names', () => {
    for (const host of ['10.0.0.5', '0.0.0.0', '255.255.255.255', '[::1]', '[fd00::1:2]', '[2001:db8:0:0:0:0:0:1]', '[::ffff:10.0.0.1]', '[::]', '[fe80::1]']) expect(isIpLiteralHost(host), host).toBe(true);
    for (const host of ['10.0.0.256', '10.0.0', 'evil.example', '1.2.3.4.nip.io', '[fd00::zz]', '[1:2:3:4:5:6:7:8:9]', '[1::2::3]', '[::ffff:10.0.0.300]', 'localhost', '[]']) expect(isIpLiteralHost(host), host).toBe(false);
  });

  it('accepts an IP literal on any port, and still refuses names off the allow-list with the same reason', () => {
    const env = cfg({ PORT: '3210' });
    for (const host of ['10.0.3.17:3000', '10.0.3.17', '[fd00::1]:9100', 'localhost:3210']) expect(checkMetricsHost(host, env).ok, host).toBe(true);
    const refused = checkMetricsHost('rebind.evil.example:3210', env);
    expect(refused).toEqual(checkHost('rebind.evil.example:3210', env));
    expect(refused.ok).toBe(false);
    expect(checkMetricsHost(null, env).ok).toBe(false);
  });
});
