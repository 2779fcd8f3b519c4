/**
 * The proof that a request came through the authenticating proxy: a secret the proxy and the
 * dashboard share. `ZONESCOPE_AUTH_PROXY=1` trusts a user header (`X-Forwarded-User`,
 * `X-Auth-Request-User`) only on a request whose {@link AUTH_PROXY_SECRET_HEADER} carries the secret
 * of `ZONESCOPE_AUTH_PROXY_SECRET_FILE`: a client that reaches the Pod directly (where no
 * NetworkPolicy is enforced) can send a user header, but not the secret.
 *
 * The file (a Kubernetes Secret mounted as a volume) is read once, when the server starts
 * (instrumentation.ts stops the start when it is missing, empty or unusable), and kept for the
 * life of the process. The secret is compared in constant time, handed to the redactor so that
 * no message can show it, and never part of a message, an answer or a log line.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { Config } from '../config/variables';
import { getConfig } from '../config/process-config';
import { rememberSecret } from '../k8s/redact';

/** The header the proxy sets to the shared secret (oauth2-proxy: `injectRequestHeaders`; nginx: `proxy_set_header`). */
export const AUTH_PROXY_SECRET_HEADER = 'x-zonescope-proxy-secret';

/** How the header is written in messages and documentation. */
export const AUTH_PROXY_SECRET_HEADER_NAME = 'X-Zonescope-Proxy-Secret';

/** Fewest characters a secret may have: guessing one must be out of reach. */
export const MIN_SECRET_LENGTH = 16;

/** The settings read here. */
export type AuthProxySecretConfig = Pick<Config, 'ZONESCOPE_AUTH_PROXY' | 'ZONESCOPE_AUTH_PROXY_SECRET_FILE'>;

/** The secret as read from its file, or why it cannot be used (a sentence without the secret). */
export type SecretRead = { readonly ok: true; readonly digest: Buffer } | { readonly ok: false; readonly message: string };

const HOW = `Create it with, for example, \`openssl rand -hex 32\`, mount it from a Kubernetes Secret, and have the proxy send it in the ${AUTH_PROXY_SECRET_HEADER_NAME} header (docs/security.md).`;

const digestOf = (text: string): Buffer => createHash('sha256').update(text, 'utf8').digest();

/** Reads and checks the secret file: one line of at least {@link MIN_SECRET_LENGTH} visible ASCII characters (surrounding blanks dropped). */
export function readAuthProxySecret(file: string): SecretRead {
  let text: string;
  try {
    // A runtime path, not a build asset: without the comment Turbopack traces the whole project into the build's file list.
    text = readFileSync(/* turbopackIgnore: true */ file, 'utf8').trim();
  } catch (error) {
    const code = typeof error === 'object' && error !== null && 'code' in error ? String((error as { code: unknown }).code) : 'error';
    return { ok: false, message: `ZONESCOPE_AUTH_PROXY_SECRET_FILE (${file}) cannot be read (${code === 'ENOENT' ? 'no such file' : code}). ${HOW}` };
  }
  if (text === '') return { ok: false, message: `ZONESCOPE_AUTH_PROXY_SECRET_FILE (${file}) is empty. ${HOW}` };
  if (!/^[\x21-\x7e]+$/.test(text)) return { ok: false, message: `ZONESCOPE_AUTH_PROXY_SECRET_FILE (${file}) must hold one line of visible ASCII characters, which a header can carry. ${HOW}` };
  if (text.length < MIN_SECRET_LENGTH) return { ok: false, message: `ZONESCOPE_AUTH_PROXY_SECRET_FILE (${file}) holds fewer than ${MIN_SECRET_LENGTH} characters, too few for a secret. ${HOW}` };
  rememberSecret(text);
  return { ok: true, digest: digestOf(text) };
}

const KEY = Symbol.for('zonescope.authProxySecret');
type Holder = { [KEY]?: Map<string, SecretRead> };

/**
 * The secret of `ZONESCOPE_AUTH_PROXY_SECRET_FILE`, read the first time it is asked for (at start)
 * and kept for the process (on `globalThis`, shared by every bundle of the server). `null` when
 * no file is set.
 */
export function authProxySecret(config: AuthProxySecretConfig = getConfig()): SecretRead | null {
  const file = config.ZONESCOPE_AUTH_PROXY_SECRET_FILE;
  if (file === undefined) return null;
  const holder = globalThis as unknown as Holder;
  const held = (holder[KEY] ??= new Map());
  let read = held.get(file);
  if (read === undefined) {
    read = readAuthProxySecret(file);
    held.set(file, read);
  }
  return read;
}

/**
 * What stops the start: `ZONESCOPE_AUTH_PROXY=1` with a secret file that cannot be used. (Without
 * any file the configuration itself stops the start, lib/config.) `null` when nothing does.
 */
export function authProxyStartProblem(config: AuthProxySecretConfig = getConfig()): string | null {
  if (!config.ZONESCOPE_AUTH_PROXY) return null;
  const read = authProxySecret(config);
  return read === null || read.ok ? null : read.message;
}

/** Whether a request carries the proxy's secret, or why not (a phrase; never the value sent or the secret). */
export type ProxyProof = { readonly ok: true } | { readonly ok: false; readonly why: string };

/** Checks the request's {@link AUTH_PROXY_SECRET_HEADER} against the secret, in constant time. */
export function checkProxyProof(headers: Headers, config: AuthProxySecretConfig = getConfig()): ProxyProof {
  const secret = authProxySecret(config);
  if (secret === null) return { ok: false, why: 'ZONESCOPE_AUTH_PROXY_SECRET_FILE is not set, so no request can prove it came through the proxy' };
  if (!secret.ok) return { ok: false, why: 'the proxy secret (ZONESCOPE_AUTH_PROXY_SECRET_FILE) could not be read when the server started' };
  const sent = headers.get(AUTH_PROXY_SECRET_HEADER);
  if (sent === null || sent === '') return { ok: false, why: `it carries no ${AUTH_PROXY_SECRET_HEADER_NAME} header` };
  // Equal-length digests: the comparison takes the same time whatever was sent.
  return timingSafeEqual(digestOf(sent), secret.digest) ? { ok: true } : { ok: false, why: `its ${AUTH_PROXY_SECRET_HEADER_NAME} header is not the proxy's secret` };
}
