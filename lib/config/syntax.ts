/**
 * The value syntaxes of zonescope's settings, shared by the configuration schema (which refuses a
 * value it cannot read, naming the variable) and the code that uses the value (the Host
 * allow-list, the origin check). Pure: no I/O, no environment.
 */

/** The spellings of a switched-on flag (any case). */
export const TRUE_WORDS = ['1', 'true', 'yes', 'on'] as const;
/** The spellings of a switched-off flag (any case). */
export const FALSE_WORDS = ['0', 'false', 'no', 'off'] as const;

/** A flag's value: `true`, `false`, or `null` when `text` is no flag spelling. */
export function parseFlag(text: string): boolean | null {
  const lower = text.trim().toLowerCase();
  if ((TRUE_WORDS as readonly string[]).includes(lower)) return true;
  if ((FALSE_WORDS as readonly string[]).includes(lower)) return false;
  return null;
}

/** `value` without control characters, at most `max` characters (safe to echo in a message). */
export function printable(value: string, max = 80): string {
  // eslint-disable-next-line no-control-regex
  const clean = value.replace(/[\u0000-\u001f\u007f-\u009f]/g, '?');
  return clean.length > max ? `${clean.slice(0, max)}…` : clean;
}

/** The comma-separated entries of a list setting, trimmed, blanks dropped, in order. */
export function listEntries(text: string): string[] {
  return text
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
}

/**
 * The paths of a path-list setting (`ZONESCOPE_SNAPSHOT`): separated by commas or by the
 * platform's path delimiter (`:` on Linux and macOS, `;` on Windows), trimmed, blanks dropped.
 */
export function pathEntries(text: string, delimiter: string): string[] {
  return text
    .split(delimiter === ';' ? /[,;]/ : /[,:]/)
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
}

/** A `Host` value or allow-list entry: lowercase host (IPv6 in brackets) and port (`null`: none given). */
export interface HostPort {
  readonly host: string;
  readonly port: string | null;
}

const HOST_NAME = /^(?:[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?)(?:\.[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?)*\.?$/;
const IPV6 = /^\[[0-9a-f:.]{2,45}\]$/;

/** Parses `name`, `name:port`, `1.2.3.4:port`, `[::1]:port`; `null` when malformed. */
export function parseHostPort(value: string): HostPort | null {
  const lower = value.trim().toLowerCase();
  if (lower === '' || lower.length > 300) return null;
  const match = /^(\[[^\]]*\]|[^:[\]]+)(?::(\d{1,5}))?$/.exec(lower);
  if (!match) return null;
  const host = (match[1] ?? '').replace(/\.$/, '');
  if (!IPV6.test(host) && !HOST_NAME.test(host)) return null;
  const port = match[2] === undefined ? null : String(Number(match[2]));
  if (port !== null && (Number(port) < 1 || Number(port) > 65535)) return null;
  return { host, port };
}

/**
 * Whether `value` is an address a server can bind: a host name, an IPv4 address, or an IPv6
 * address with or without brackets (`::`, `[::1]`).
 */
export function isBindAddress(value: string): boolean {
  const text = value.trim().toLowerCase();
  if (text === '' || text.length > 253) return false;
  if (text.includes(':')) return /^\[?[0-9a-f:.]+\]?$/.test(text) && text.startsWith('[') === text.endsWith(']');
  return HOST_NAME.test(text);
}

/** `scheme://host[:port]` with default ports dropped and lowercase, or `null` (not http(s), or with user, path, query or fragment). */
export function normaliseOrigin(value: string): string | null {
  try {
    const url = new URL(value);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
    if (url.username !== '' || url.password !== '' || (url.pathname !== '/' && url.pathname !== '') || url.search !== '' || url.hash !== '') return null;
    return url.origin.toLowerCase();
  } catch {
    return null;
  }
}

/** A Prometheus label name (`cluster`, `k8s_cluster_name`). */
export const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;
