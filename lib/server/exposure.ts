/**
 * Who can reach the dashboard, and what they may do: the address the server is bound to, the
 * `Host` allow-list checked on every request (pages, API, assets), and whether writes need an
 * authenticating proxy.
 *
 * - **Bind address** — `ZONESCOPE_HOST`. `npm start` and `npm run demo` bind to it (default
 *   `127.0.0.1`) and pass it to the server. When the server is started some other way
 *   (`next start`, the image's `server.js`) and `ZONESCOPE_HOST` is unset, zonescope assumes what
 *   Next.js does by default: every interface (`0.0.0.0`). Loopback is `localhost`, `127.0.0.0/8`
 *   and `::1`; anything else is "beyond loopback".
 * - **Host allow-list** — loopback names and addresses (`localhost`, `127.0.0.1`, `[::1]`) with
 *   the server's own port (`PORT`, which Next.js sets to the port it listens on), the hosts of
 *   `ZONESCOPE_TRUSTED_ORIGINS`, and `ZONESCOPE_ALLOWED_HOSTS` (comma-separated `name` — any port —
 *   or `name:port`). Any other `Host` is refused: that stops DNS rebinding, where a foreign name
 *   resolves to the dashboard's address and a browser page reads it as its own origin.
 * - **Writes beyond loopback** — only behind the authenticating proxy (`ZONESCOPE_AUTH_PROXY=1`,
 *   and the request carries its user header and, as proof that it came through the proxy, the
 *   shared secret of `ZONESCOPE_AUTH_PROXY_SECRET_FILE`: ./auth-proxy.ts) or with
 *   `ZONESCOPE_ALLOW_UNAUTHENTICATED_WRITES=1`: the write uses the server's own Kubernetes
 *   credentials, so anyone who can reach the port could otherwise change Services.
 *
 * The settings come from the configuration (lib/config), checked when the server started; every
 * function takes them as a parameter (the process' by default), so tests pass their own.
 */
import type { Config } from '../config/variables';
import { getConfig } from '../config/process-config';
import type { HostPort } from '../config/syntax';
import { parseHostPort, printable } from '../config/syntax';
import { AUTH_PROXY_SECRET_HEADER_NAME, checkProxyProof } from './auth-proxy';


/** The settings read here. */
export type ExposureConfig = Pick<
  Config,
  'ZONESCOPE_HOST' | 'PORT' | 'ZONESCOPE_TRUSTED_ORIGINS' | 'ZONESCOPE_ALLOWED_HOSTS' | 'ZONESCOPE_AUTH_PROXY' | 'ZONESCOPE_AUTH_PROXY_SECRET_FILE' | 'ZONESCOPE_ALLOW_UNAUTHENTICATED_WRITES'
>;

/** Result of a check: allowed, or the reason it is not (a sentence safe to show). */
export type ExposureCheck = { readonly ok: true } | { readonly ok: false; readonly reason: string };

/** The user headers an authenticating proxy sets (oauth2-proxy and others). */
export const AUTH_PROXY_USER_HEADERS = ['x-forwarded-user', 'x-auth-request-user'] as const;

/**
 * The user an authenticating proxy names in the request (`X-Forwarded-User`, else
 * `X-Auth-Request-User`), without control characters, at most 256 characters; `null` when none.
 * Whether to trust it is {@link verifiedProxyUser}'s question.
 */
export function proxyUser(headers: Headers): string | null {
  for (const name of AUTH_PROXY_USER_HEADERS) {
    // eslint-disable-next-line no-control-regex
    const clean = (headers.get(name) ?? '').replace(/[\u0000-\u001f\u007f]/g, '').trim().slice(0, 256);
    if (clean !== '') return clean;
  }
  return null;
}

/** `ZONESCOPE_HOST`; `null` when unset (the server then counts as bound to every interface). */
export function bindHost(config: ExposureConfig = getConfig()): string | null {
  return config.ZONESCOPE_HOST ?? null;
}

/** Whether a host name or address is loopback: `localhost`, `127.0.0.0/8`, `::1` (bracketed or not). */
export function isLoopbackHost(host: string): boolean {
  const lower = host.trim().toLowerCase().replace(/^\[(.*)\]$/, '$1');
  if (lower === 'localhost' || lower === '::1' || lower === '0:0:0:0:0:0:0:1') return true;
  const v4 = /^127\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(lower);
  return v4 !== null && v4.slice(1).every((part) => Number(part) <= 255);
}

/** Whether the server listens beyond loopback (see the module comment). */
export function isBoundBeyondLoopback(config: ExposureConfig = getConfig()): boolean {
  const host = bindHost(config);
  return host === null || !isLoopbackHost(host);
}

/** The server's own port: `PORT` (Next.js sets it to the port it listens on), else 3000. */
export function serverPort(config: ExposureConfig = getConfig()): string {
  return String(config.PORT ?? 3000);
}

function originHost(origin: string): HostPort | null {
  try {
    const url = new URL(origin.trim());
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
    // `url.port` is '' for the scheme's default port, which a browser then leaves out of Host.
    return { host: url.hostname.toLowerCase(), port: url.port === '' ? (url.protocol === 'https:' ? '443' : '80') : url.port };
  } catch {
    return null;
  }
}

/**
 * The `Host` values this server answers: loopback with {@link serverPort}, the hosts of
 * `ZONESCOPE_TRUSTED_ORIGINS` and the entries of `ZONESCOPE_ALLOWED_HOSTS` (both checked when the
 * configuration was read).
 */
export function allowedHosts(config: ExposureConfig = getConfig()): HostPort[] {
  const port = serverPort(config);
  const out: HostPort[] = ['localhost', '127.0.0.1', '[::1]'].map((host) => ({ host, port }));
  for (const entry of config.ZONESCOPE_TRUSTED_ORIGINS) {
    const parsed = originHost(entry);
    if (parsed !== null) out.push(parsed);
  }
  for (const entry of config.ZONESCOPE_ALLOWED_HOSTS) {
    const parsed = parseHostPort(entry);
    if (parsed !== null) out.push(parsed);
  }
  return out;
}

/**
 * Whether a request's `Host` header is on the allow-list ({@link allowedHosts}). A `Host` without
 * a port means the scheme's default (80 or 443); an allow-list entry without a port matches any
 * port.
 */
export function checkHost(hostHeader: string | null, config: ExposureConfig = getConfig()): ExposureCheck {
  if (hostHeader === null || hostHeader.trim() === '') return { ok: false, reason: 'The request has no Host header.' };
  const parsed = parseHostPort(hostHeader);
  if (parsed === null) return { ok: false, reason: `The Host header "${printable(hostHeader)}" is malformed.` };
  // No port in Host: the scheme's default (80 or 443; the scheme is not in the request line).
  const ports = parsed.port === null ? ['80', '443'] : [parsed.port];
  for (const allowed of allowedHosts(config)) {
    if (allowed.host === parsed.host && (allowed.port === null || ports.includes(allowed.port))) return { ok: true };
  }
  return {
    ok: false,
    reason:
      `zonescope is not served under the name "${printable(hostHeader)}". ` +
      `It answers to localhost, 127.0.0.1 and [::1] on port ${serverPort(config)}, to the hosts of ZONESCOPE_TRUSTED_ORIGINS and to ZONESCOPE_ALLOWED_HOSTS; ` +
      'if this is a name you use for it, add it to ZONESCOPE_ALLOWED_HOSTS (comma-separated, "name" or "name:port").',
  };
}

/** Whether `host` (as {@link parseHostPort} returns it) is an IP literal: dotted IPv4, or IPv6 in brackets. */
export function isIpLiteralHost(host: string): boolean {
  const v4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(host);
  if (v4 !== null) return v4.slice(1).every((part) => Number(part) <= 255);
  const v6 = /^\[([0-9a-f:.]+)\]$/i.exec(host);
  if (v6 === null) return false;
  let address = v6[1] ?? '';
  // An embedded IPv4 tail (`::ffff:10.0.0.1`) stands for the last two groups.
  const tail = /:(\d{1,3}(?:\.\d{1,3}){3})$/.exec(address);
  if (tail !== null) {
    if (!isIpLiteralHost(tail[1] ?? '')) return false;
    address = `${address.slice(0, tail.index)}:0:0`;
  }
  if (address.includes('.')) return false;
  const halves = address.split('::');
  if (halves.length > 2) return false;
  const parts = (half: string) => (half === '' ? [] : half.split(':'));
  const head = parts(halves[0] ?? '');
  const rest = halves.length === 2 ? parts(halves[1] ?? '') : [];
  if (![...head, ...rest].every((group) => /^[0-9a-f]{1,4}$/i.test(group))) return false;
  return halves.length === 2 ? head.length + rest.length < 8 : head.length === 8;
}

/**
 * `/metrics` also answers a `Host` that is an IP literal (any port): Prometheus scrapes pod IPs,
 * and DNS rebinding always carries a name, never an address. Names off the allow-list are still
 * refused ({@link checkHost}).
 */
export function checkMetricsHost(hostHeader: string | null, config: ExposureConfig = getConfig()): ExposureCheck {
  const parsed = hostHeader === null ? null : parseHostPort(hostHeader);
  if (parsed !== null && isIpLiteralHost(parsed.host)) return { ok: true };
  return checkHost(hostHeader, config);
}

/** Whether `ZONESCOPE_AUTH_PROXY=1` declares an authenticating proxy in front. */
export function behindAuthProxy(config: Pick<ExposureConfig, 'ZONESCOPE_AUTH_PROXY'> = getConfig()): boolean {
  return config.ZONESCOPE_AUTH_PROXY;
}

/**
 * The proxy's user, when it is to be believed: `ZONESCOPE_AUTH_PROXY=1`, a user header, and the
 * proxy's secret on the request (./auth-proxy.ts). Otherwise `user` is `null` and `claimed` is
 * what the request says (unverified: anyone can send it), with why it is not believed.
 */
export function verifiedProxyUser(
  headers: Headers,
  config: Pick<ExposureConfig, 'ZONESCOPE_AUTH_PROXY' | 'ZONESCOPE_AUTH_PROXY_SECRET_FILE'> = getConfig(),
): { readonly user: string | null; readonly claimed: string | null; readonly why: string | null } {
  const claimed = proxyUser(headers);
  if (claimed === null) return { user: null, claimed, why: null };
  if (!behindAuthProxy(config)) return { user: null, claimed, why: 'ZONESCOPE_AUTH_PROXY is off' };
  const proof = checkProxyProof(headers, config);
  return proof.ok ? { user: claimed, claimed, why: null } : { user: null, claimed, why: proof.why };
}

/**
 * Why writes are off for every request, from the configuration alone: bound beyond loopback with
 * neither `ZONESCOPE_AUTH_PROXY=1` nor `ZONESCOPE_ALLOW_UNAUTHENTICATED_WRITES=1`. `null` when
 * writes may go ahead (behind the proxy, each request must still carry its user header:
 * {@link checkWriteAllowed}).
 */
export function unauthenticatedWritesReason(config: ExposureConfig = getConfig()): string | null {
  if (!isBoundBeyondLoopback(config) || behindAuthProxy(config) || config.ZONESCOPE_ALLOW_UNAUTHENTICATED_WRITES) return null;
  const where = bindHost(config) === null ? 'every interface (ZONESCOPE_HOST is not set)' : `"${printable(bindHost(config) ?? '')}"`;
  return (
    `Writes are off: the dashboard listens on ${where}, beyond loopback, and would change Services with its own Kubernetes credentials for anyone who reaches it. ` +
    'Put it behind an authenticating proxy and set ZONESCOPE_AUTH_PROXY=1, or set ZONESCOPE_ALLOW_UNAUTHENTICATED_WRITES=1 to accept that, ' +
    'or bind it to loopback (ZONESCOPE_HOST=127.0.0.1, the default of npm start).'
  );
}

/**
 * Whether this request may write: {@link unauthenticatedWritesReason}, and, beyond loopback
 * behind the auth proxy without the explicit opt-in, a user the proxy vouches for: its user header
 * (`X-Forwarded-User` or `X-Auth-Request-User`) with its secret ({@link verifiedProxyUser}).
 */
export function checkWriteAllowed(headers: Headers, config: ExposureConfig = getConfig()): ExposureCheck {
  const reason = unauthenticatedWritesReason(config);
  if (reason !== null) return { ok: false, reason };
  if (isBoundBeyondLoopback(config) && behindAuthProxy(config) && !config.ZONESCOPE_ALLOW_UNAUTHENTICATED_WRITES) {
    const { user, claimed, why } = verifiedProxyUser(headers, config);
    if (claimed === null) {
      return {
        ok: false,
        reason: 'Refused: ZONESCOPE_AUTH_PROXY=1 says an authenticating proxy is in front, but this request carries no X-Forwarded-User or X-Auth-Request-User header; send it through the proxy.',
      };
    }
    if (user === null) {
      return {
        ok: false,
        reason:
          `Refused: this request names a user, but ${why ?? 'it carries no proof'}, so it counts as having no user: it did not come through the authenticating proxy. ` +
          `Send it through the proxy, which sets ${AUTH_PROXY_SECRET_HEADER_NAME} to the secret of ZONESCOPE_AUTH_PROXY_SECRET_FILE.`,
      };
    }
  }
  return { ok: true };
}
