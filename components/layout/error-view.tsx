'use client';

/**
 * What a segment shows when rendering failed unexpectedly. Expected cluster states (syncing,
 * unavailable, forbidden) never get here: pages render them as status panels. Production hides
 * the thrown message behind a digest, which is shown so it can be matched in the server log.
 */
import Link from 'next/link';
import { useEffect } from 'react';
import { LINK } from '../ui/panel';
import { Callout } from '../ui/status';

export function ErrorView({ error, retry, what }: { readonly error: unknown; readonly retry: () => void; readonly what: string }) {
  useEffect(() => {
    console.error(error);
  }, [error]);
  const digest = error instanceof Error && 'digest' in error && typeof (error as { digest?: unknown }).digest === 'string' ? (error as { digest: string }).digest : null;
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
        <Link href="/" className={LINK}>
          Overview
        </Link>
        <Link href="/services" className={LINK}>
          Services
        </Link>
      </div>
    </div>
  );
}
