'use client';

/**
 * The URL prefix of the cluster a page shows, for client leaves: `''` for the default cluster,
 * `/c/{id}` for another (see lib/shared/cluster-path.ts). The root layout sets it from the request;
 * every internal link and fetch of a component goes through it, so a page of cluster `b` links to
 * and reads from cluster `b`.
 *
 * Switching to another cluster is a full page load (a plain `<a>` or `window.location.assign`,
 * not a client-side navigation): the root layout — this provider, the header naming the cluster —
 * is kept across client-side navigations, because `/c/a/services` and `/c/b/services` are the
 * same route. As a safety net, the provider reloads the page when a client-side navigation landed
 * in another cluster than the one it was rendered for.
 */
import Link from 'next/link';
import { usePathname } from 'next/navigation';
import type { ComponentProps, ReactNode } from 'react';
import { createContext, useContext, useEffect } from 'react';

import { parseClusterPath, withClusterBase } from '@/lib/shared/cluster-path';

const ClusterBaseContext = createContext('');

/** The cluster a browser path addresses: the `/c/{id}` prefix's, else the default's (`null` for a malformed prefix). */
export function clusterIdOfPath(pathname: string, defaultId: string): string | null {
  const parsed = parseClusterPath(pathname);
  return parsed.kind === 'cluster' ? parsed.id : parsed.kind === 'plain' ? defaultId : null;
}

export function ClusterBaseProvider({
  base,
  clusterId,
  defaultId,
  children,
}: {
  /** `''` or `/c/{id}`: what links and fetches are prefixed with. */
  readonly base: string;
  /** The cluster the document was rendered for (the request's `/c/{id}`, else the default's id). */
  readonly clusterId: string;
  readonly defaultId: string;
  readonly children: ReactNode;
}) {
  const pathname = usePathname();
  useEffect(() => {
    // The browser's own URL (not the router's idea of it): after a client-side navigation into
    // another cluster, the layout above is the previous cluster's — load the page afresh.
    const shown = clusterIdOfPath(window.location.pathname, defaultId);
    if (shown !== null && shown !== clusterId) window.location.reload();
  }, [pathname, clusterId, defaultId]);
  return <ClusterBaseContext.Provider value={base}>{children}</ClusterBaseContext.Provider>;
}

/** `''` or `/c/{id}`: the prefix of the current cluster's pages and API. */
export function useClusterBase(): string {
  return useContext(ClusterBaseContext);
}

/** `path` (`/services/a/b`, `/api/v1/cluster/generation`) in the current cluster. */
export function useClusterHref(path: string): string {
  return withClusterBase(useClusterBase(), path);
}

/** A `next/link` to an internal path of the current cluster (`href` without the `/c/{id}` prefix). */
export function ClusterLink({ href, ...rest }: Omit<ComponentProps<typeof Link>, 'href'> & { readonly href: string }) {
  return <Link href={withClusterBase(useClusterBase(), href)} {...rest} />;
}
