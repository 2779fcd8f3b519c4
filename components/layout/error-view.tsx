'use client';

/**
 * What a segment shows when rendering failed unexpectedly. Expected cluster states (syncing,
 * unavailable, forbidden) never get here: pages render them as status panels. Production hides
 * the thrown message behind a digest, which is shown so it can be matched in the server log.
 *
 * One expected state does get here: a cluster that cannot be opened (the limit of open clusters,
 * a misconfigured context), whose error carries its message in the digest
 * (lib/server/clusters.ts `ClusterUnavailableError`): shown as that message, not as a bug.
 */
import { clusterUnavailableFromDigest } from '@/lib/shared/cluster-path';
import { ClusterLink } from './cluster-base';
import { useEffect } from 'react';
import { LINK } from '../ui/panel';
import { Callout } from '../ui/status';

export function ErrorView({ error, retry, what }: { readonly error: unknown; readonly retry: () => void; readonly what: string }) {
  useEffect(() => {
    console.error(error);
  }, [error]);
  const digest = error instanceof Error && 'digest' in error && typeof (error as { digest?: unknown }).digest === 'string' ? (error as { digest: string }).digest : null;
  const unavailable = clusterUnavailableFromDigest(digest);
  if (unavailable !== null) {
    return (
      <div className="max-w-2xl space-y-4">
        <h1 className="text-2xl font-semibold tracking-tight">{unavailable.reason === 'limit' ? 'Too many clusters open' : 'This cluster cannot be opened'}</h1>
        <Callout tone="warn" role="alert" title={unavailable.message}>
          <p>
            {unavailable.reason === 'limit'
              ? 'Other clusters are still in use. Try again later, or open a cluster that is already open.'
              : 'Fix the kubeconfig or ZONESCOPE_CONTEXTS, then restart zonescope.'}
          </p>
        </Callout>
        <div className="flex flex-wrap items-center gap-4">
          <button type="button" onClick={() => retry()} className="rounded-md bg-slate-900 px-3 py-1.5 text-sm font-semibold text-white hover:bg-slate-700 dark:bg-slate-100 dark:text-slate-900">
            Try again
          </button>
          {/* Page loads, not client navigations: the root layout (header, link base) belongs to the cluster shown. */}
          {/* eslint-disable-next-line @next/next/no-html-link-for-pages -- a page load on purpose (see above) */}
          <a href="/" className={LINK}>
            Default cluster
          </a>
          <a href="/fleet" className={LINK}>
            All clusters
          </a>
        </div>
      </div>
    );
  }
  return (
    <div className="max-w-2xl space-y-4">
      <h1 className="text-2xl font-semibold tracking-tight">{what} could not be shown</h1>
      <Callout tone="error" role="alert" title="Something went wrong while rendering this page.">
        <p>This is a bug in zonescope, not a problem with your cluster. Trying again often helps if the data changed while the page was rendering.</p>
        {digest ? <p className="font-mono text-xs">Error digest: {digest} (search the server log for it)</p> : null}
      </Callout>
      <div className="flex flex-wrap items-center gap-4">
        <button type="button" onClick={() => retry()} className="rounded-md bg-slate-900 px-3 py-1.5 text-sm font-semibold text-white hover:bg-slate-700 dark:bg-slate-100 dark:text-slate-900">
          Try again
        </button>
        <ClusterLink href="/" className={LINK}>
          Overview
        </ClusterLink>
        <ClusterLink href="/services" className={LINK}>
          Services
        </ClusterLink>
      </div>
    </div>
  );
}
