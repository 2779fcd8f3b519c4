/**
 * Bearer tokens read from a file — a kubeconfig user's `tokenFile`, the in-cluster service
 * account's (projected, rotated) token — as client-go reads them: the file's content with
 * surrounding whitespace trimmed, read again once the last read is a minute old, the last good
 * token kept while the file cannot be read (a rotation in progress).
 *
 * client-node's own token-file authenticator neither trims (a token file ending in a newline
 * makes every request fail with "Invalid character in header content") nor keeps a token per
 * file, hence this one. Users are marked for it with {@link tokenFileAuthProvider}.
 */
import { readFileSync } from 'node:fs';
import type { KubeConfig, User } from '@kubernetes/client-node';
import { rememberSecret } from './redact';

/** The auth-provider name that marks a user for {@link TOKEN_FILE_AUTHENTICATOR}. */
const PROVIDER_NAME = 'zonescope-token-file';

/** How long a read token is used before the file is read again (client-go: one minute). */
const REREAD_MS = 60_000;

/** The auth-provider entry of a user whose bearer token is in `file`. */
export function tokenFileAuthProvider(file: string): { name: string; config: { path: string } } {
  return { name: PROVIDER_NAME, config: { path: file } };
}

type Authenticator = Parameters<KubeConfig['addAuthenticator']>[0];

const cache = new Map<string, { token: string; readAt: number }>();

function tokenOf(file: string): string | null {
  const cached = cache.get(file);
  const now = Date.now();
  if (cached !== undefined && now - cached.readAt >= 0 && now - cached.readAt < REREAD_MS) return cached.token;
  try {
    const token = readFileSync(file, 'utf8').trim();
    if (token !== '') {
      rememberSecret(token);
      cache.set(file, { token, readAt: now });
      return token;
    }
  } catch {
    // Unreadable for now (being replaced): the last good token, if any.
  }
  return cached?.token ?? null;
}

/** The authenticator to add to a `KubeConfig` whose users use {@link tokenFileAuthProvider}. */
export const TOKEN_FILE_AUTHENTICATOR: Authenticator = {
  isAuthProvider: (user: User) => (user.authProvider as { name?: unknown } | undefined)?.name === PROVIDER_NAME,
  applyAuthentication: async (user: User, opts) => {
    const file = (user.authProvider as { config?: { path?: unknown } } | undefined)?.config?.path;
    if (typeof file !== 'string') return;
    const token = tokenOf(file);
    if (token === null) return;
    const options = opts as { headers?: Record<string, unknown> };
    options.headers ??= {};
    options.headers.Authorization = `Bearer ${token}`;
  },
};
