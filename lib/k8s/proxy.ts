/**
 * Which proxy the API server connection goes through, as kubectl decides it:
 *
 * - a cluster's `proxy-url` wins (used for every request, `NO_PROXY` does not apply);
 * - otherwise the environment, as Go's `http.ProxyFromEnvironment` (golang.org/x/net/http/httpproxy)
 *   reads it: `HTTPS_PROXY` for `https://` servers, `HTTP_PROXY` for `http://` ones (upper case
 *   first, then lower case), a value without a scheme meaning `http://`; never for `localhost`
 *   or a loopback address; not for hosts `NO_PROXY` matches — `*`, an IP address, a CIDR range,
 *   a domain (`example.com` matches it and its subdomains, `.example.com` and `*.example.com`
 *   only subdomains), each optionally with `:port`.
 *
 * Proxies are `http://`, `https://` or `socks5://`. A SOCKS5 proxy resolves the API server's
 * host name itself (remote DNS), as kubectl's does: `socks5://` is handed to client-node as
 * `socks5h://` (client-node's SOCKS agent resolves `socks5://` names locally).
 *
 * Pure functions: the environment is passed in. Messages name the variable or the cluster field,
 * never the proxy URL (it may carry credentials).
 */
import { BlockList, isIP } from 'node:net';

/** Environment variables read here. */
export type ProxyEnv = Readonly<Record<string, string | undefined>>;

/** Schemes a proxy may use. */
const PROXY_SCHEMES = new Set(['http:', 'https:', 'socks5:', 'socks5h:']);

/** A proxy decision: the URL to give client-node, and where it came from (for messages). */
export interface ProxyChoice {
  /** The proxy URL as client-node takes it (`socks5h://` for SOCKS5). */
  readonly url: string;
  /** `proxy-url`, or the environment variable that supplied it (`HTTPS_PROXY`, `https_proxy`…). */
  readonly source: string;
}

/** Result of {@link chooseProxy}: a proxy, none (direct), or a message saying what is wrong. */
export type ProxyResult = { readonly ok: true; readonly proxy: ProxyChoice | null } | { readonly ok: false; readonly message: string };

/** The first non-empty of an upper-case variable and its lower-case twin (Go's `getEnvAny`). */
function envAny(env: ProxyEnv, name: string): { name: string; value: string } | null {
  for (const key of [name, name.toLowerCase()]) {
    const value = env[key];
    if (value !== undefined && value !== '') return { name: key, value };
  }
  return null;
}

/**
 * Parses a proxy address like Go's `parseProxy`: a URL, `http://` when it has no scheme; then
 * checks the scheme. `socks5://` becomes `socks5h://`.
 */
export function parseProxyUrl(raw: string, what: string): { ok: true; url: string } | { ok: false; message: string } {
  const value = raw.trim();
  let url: URL;
  try {
    // A value without a scheme ("proxy.corp:3128") means http://, as in Go.
    url = new URL(value.includes('://') ? value : `http://${value}`);
  } catch {
    return { ok: false, message: `${what} is not a valid proxy URL.` };
  }
  if (!PROXY_SCHEMES.has(url.protocol)) {
    return { ok: false, message: `${what} uses the unsupported proxy scheme "${url.protocol.replace(/:$/, '')}" (kubectl supports http, https and socks5).` };
  }
  if (url.hostname === '') return { ok: false, message: `${what} names no proxy host.` };
  const text = url.toString();
  return { ok: true, url: url.protocol === 'socks5:' ? `socks5h:${text.slice('socks5:'.length)}` : text };
}

/** One `NO_PROXY` entry. */
type NoProxyMatcher =
  | { readonly kind: 'all' }
  | { readonly kind: 'cidr'; readonly list: BlockList }
  | { readonly kind: 'ip'; readonly ip: string; readonly port: string }
  | { readonly kind: 'domain'; readonly suffix: string; readonly port: string; readonly matchHost: boolean };

/** Whether two IP address texts are the same address (`::0001` is `::1`). */
function sameIp(a: string, b: string): boolean {
  const familyA = isIP(a);
  if (familyA === 0 || familyA !== isIP(b)) return false;
  const list = new BlockList();
  list.addAddress(a, familyA === 4 ? 'ipv4' : 'ipv6');
  return list.check(b, familyA === 4 ? 'ipv4' : 'ipv6');
}

/** Splits `host:port` / `[v6]:port` like Go's `net.SplitHostPort`; null when there is no port. */
function splitHostPort(entry: string): { host: string; port: string } | null {
  const bracketed = /^\[([^\]]*)\]:(\d*)$/.exec(entry);
  if (bracketed) return { host: bracketed[1] ?? '', port: bracketed[2] ?? '' };
  const colon = entry.lastIndexOf(':');
  if (colon < 0 || entry.indexOf(':') !== colon) return null;
  return { host: entry.slice(0, colon), port: entry.slice(colon + 1) };
}

/** Parses `NO_PROXY` as Go's httpproxy does (entries it cannot read are ignored, as there). */
export function parseNoProxy(value: string): NoProxyMatcher[] {
  const matchers: NoProxyMatcher[] = [];
  for (const rawEntry of value.split(',')) {
    const entry = rawEntry.trim().toLowerCase();
    if (entry === '') continue;
    if (entry === '*') return [{ kind: 'all' }];
    const cidr = /^(.+)\/(\d{1,3})$/.exec(entry);
    if (cidr) {
      const address = cidr[1] ?? '';
      const family = isIP(address);
      const prefix = Number(cidr[2]);
      if (family !== 0 && prefix <= (family === 4 ? 32 : 128)) {
        const list = new BlockList();
        list.addSubnet(address, prefix, family === 4 ? 'ipv4' : 'ipv6');
        matchers.push({ kind: 'cidr', list });
      }
      continue;
    }
    const split = splitHostPort(entry);
    let host = split?.host ?? entry;
    const port = split?.port ?? '';
    if (split !== null && host === '') continue;
    if (host.startsWith('[') && host.endsWith(']')) host = host.slice(1, -1);
    if (isIP(host) !== 0) {
      matchers.push({ kind: 'ip', ip: host, port });
      continue;
    }
    if (host === '') continue;
    if (host.startsWith('*.')) host = host.slice(1);
    const matchHost = !host.startsWith('.');
    matchers.push({ kind: 'domain', suffix: matchHost ? `.${host}` : host, port, matchHost });
  }
  return matchers;
}

/** Loopback addresses (Go's `IP.IsLoopback`): 127.0.0.0/8, ::1, and 127/8 mapped into IPv6. */
const LOOPBACK = new BlockList();
LOOPBACK.addSubnet('127.0.0.0', 8, 'ipv4');
LOOPBACK.addAddress('::1', 'ipv6');
LOOPBACK.addSubnet('::ffff:127.0.0.0', 104, 'ipv6');

/** Whether a request to `host:port` goes through the environment's proxy (Go's `useProxy`). */
export function useProxy(host: string, port: string, noProxy: readonly NoProxyMatcher[]): boolean {
  const name = host.replace(/^\[(.*)\]$/, '$1').toLowerCase().replace(/\.$/, '');
  if (name === 'localhost') return false;
  const family = isIP(name);
  if (family !== 0 && LOOPBACK.check(name, family === 4 ? 'ipv4' : 'ipv6')) return false;
  for (const matcher of noProxy) {
    switch (matcher.kind) {
      case 'all':
        return false;
      case 'cidr':
        if (family !== 0 && matcher.list.check(name, family === 4 ? 'ipv4' : 'ipv6')) return false;
        break;
      case 'ip':
        if (family !== 0 && sameIp(matcher.ip, name) && (matcher.port === '' || matcher.port === port)) return false;
        break;
      case 'domain':
        if (matcher.port !== '' && matcher.port !== port) break;
        if (name.endsWith(matcher.suffix) || (matcher.matchHost && name === matcher.suffix.slice(1))) return false;
        break;
    }
  }
  return true;
}

/**
 * The proxy for requests to `server`: the cluster's `proxy-url` when set, else the one the
 * environment gives (or none).
 */
export function chooseProxy(server: string, proxyUrl: string | undefined, env: ProxyEnv, clusterName: string): ProxyResult {
  if (proxyUrl !== undefined && proxyUrl !== '') {
    const parsed = parseProxyUrl(proxyUrl, `The proxy-url of cluster "${clusterName}"`);
    return parsed.ok ? { ok: true, proxy: { url: parsed.url, source: 'proxy-url' } } : parsed;
  }
  let target: URL;
  try {
    target = new URL(server);
  } catch {
    return { ok: true, proxy: null };
  }
  const variable = target.protocol === 'https:' ? envAny(env, 'HTTPS_PROXY') : target.protocol === 'http:' ? envAny(env, 'HTTP_PROXY') : null;
  if (variable === null) return { ok: true, proxy: null };
  const port = target.port || (target.protocol === 'https:' ? '443' : '80');
  if (!useProxy(target.hostname, port, parseNoProxy(envAny(env, 'NO_PROXY')?.value ?? ''))) return { ok: true, proxy: null };
  const parsed = parseProxyUrl(variable.value, variable.name);
  return parsed.ok ? { ok: true, proxy: { url: parsed.url, source: variable.name } } : parsed;
}

/** The credentials inside a proxy URL (decoded password and `user:password`), for the redactor. */
export function proxyCredentials(url: string): string[] {
  try {
    const parsed = new URL(url);
    if (parsed.username === '' && parsed.password === '') return [];
    const user = decodeURIComponent(parsed.username);
    const password = decodeURIComponent(parsed.password);
    return [password, parsed.password, `${user}:${password}`].filter((value) => value !== '');
  } catch {
    return [];
  }
}
