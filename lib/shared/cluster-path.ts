/**
 * Which cluster a URL is about, as plain string functions (no server-only imports: proxy.ts, the
 * client's link base and the server's scope all use them).
 *
 * `/c/{id}` and `/c/{id}/{rest}` address the cluster `id` (pages and `/c/{id}/api/v1/…` alike);
 * every other path is the default cluster's. proxy.ts passes the id on in the request header
 * {@link CLUSTER_HEADER}, which it always removes from the incoming request first (a client picks
 * a cluster by URL only), and the rewrites of next.config.js serve the prefixed paths by the plain
 * ones, in the same process.
 */

/** The request header proxy.ts sets to the id of the `/c/{id}` prefix (never taken from the client). */
export const CLUSTER_HEADER = 'x-zonescope-cluster';

/**
 * The URL slug of a cluster (what lib/k8s/cluster-ids.ts makes of a context name). next.config.js
 * spells it again for its rewrites (`CLUSTER_ID`).
 */
export const CLUSTER_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$/;

/** What {@link parseClusterPath} makes of a path. */
export type ClusterPath =
  /** No `/c/` prefix: the default cluster's path as it is. */
  | { readonly kind: 'plain' }
  /** `/c/{id}…`: the cluster and the path without the prefix (`/` for `/c/{id}` itself). */
  | { readonly kind: 'cluster'; readonly id: string; readonly rest: string }
  /** `/c/` with no id or one that is no slug: nothing is there. */
  | { readonly kind: 'invalid' };

/** Splits `/c/{id}/{rest}` into the cluster id and `/{rest}`. */
export function parseClusterPath(pathname: string): ClusterPath {
  if (pathname !== '/c' && !pathname.startsWith('/c/')) return { kind: 'plain' };
  const after = pathname.slice(3);
  const slash = after.indexOf('/');
  const id = slash === -1 ? after : after.slice(0, slash);
  if (!CLUSTER_ID_PATTERN.test(id)) return { kind: 'invalid' };
  const rest = slash === -1 ? '/' : after.slice(slash);
  return { kind: 'cluster', id, rest: rest === '' ? '/' : rest };
}

/** The path prefix of a cluster's pages: `''` for the default cluster, `/c/{id}` otherwise. */
export function clusterBaseOf(entry: { readonly id: string; readonly isDefault: boolean }): string {
  return entry.isDefault ? '' : `/c/${entry.id}`;
}

/**
 * An internal path (`/services/a/b`, `/api/v1/cluster?x=1`, `/`) under a cluster's base:
 * unchanged for the default cluster (`base` `''`), `/c/{id}/services/a/b` and `/c/{id}` (for `/`)
 * otherwise. Fragments and relative links (`#x`, `?q=`) are left alone.
 */
export function withClusterBase(base: string, path: string): string {
  if (base === '' || !path.startsWith('/') || path.startsWith('//')) return path;
  if (path === '/') return base;
  if (path.startsWith('/?') || path.startsWith('/#')) return `${base}${path.slice(1)}`;
  return `${base}${path}`;
}

/** The path without a `/c/{id}` prefix (what navigation compares its sections with). */
export function stripClusterBase(pathname: string): string {
  const parsed = parseClusterPath(pathname);
  return parsed.kind === 'cluster' ? parsed.rest : pathname;
}

/** Prefix of the error digest a page's unavailable cluster (limit of open clusters, configuration) travels to the error boundary with. */
export const CLUSTER_UNAVAILABLE_DIGEST = 'ZONESCOPE_CLUSTER_UNAVAILABLE;';

function toBase64Url(text: string): string {
  let binary = '';
  for (const byte of new TextEncoder().encode(text)) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

function fromBase64Url(encoded: string): string | null {
  try {
    const binary = atob(encoded.replace(/-/g, '+').replace(/_/g, '/'));
    return new TextDecoder('utf-8', { fatal: true }).decode(Uint8Array.from(binary, (c) => c.charCodeAt(0)));
  } catch {
    return null;
  }
}

/**
 * The digest of an unavailable cluster's error: production builds replace a thrown error's message
 * by its digest on the way to the client, and keep a digest the error brings along.
 */
export function clusterUnavailableDigest(reason: 'limit' | 'config', message: string): string {
  return `${CLUSTER_UNAVAILABLE_DIGEST}${reason};${toBase64Url(message)}`;
}

/** The reason and message of {@link clusterUnavailableDigest}, `null` for any other digest. */
export function clusterUnavailableFromDigest(digest: string | null | undefined): { readonly reason: 'limit' | 'config'; readonly message: string } | null {
  if (typeof digest !== 'string' || !digest.startsWith(CLUSTER_UNAVAILABLE_DIGEST)) return null;
  const [reason, encoded] = digest.slice(CLUSTER_UNAVAILABLE_DIGEST.length).split(';');
  if ((reason !== 'limit' && reason !== 'config') || encoded === undefined) return null;
  const message = fromBase64Url(encoded);
  return message === null ? null : { reason, message };
}
