'use client';

/**
 * The Services table with its data loaded from `GET /api/v1/services/table` (the rows as compact
 * tuples, made once per analysis and sent as they are: lib/views/services/table.ts
 * `serviceTableBody`). The page renders this with the table's address — its version in the query,
 * so a page refreshed after the cluster changed asks for the new table — and how many Services the
 * table has.
 *
 * Until the first table arrives: the table's outline with a status line that counts what is loading
 * (announced to screen readers); a failed load says why, in an alert with a button to try again.
 * A newer version loads behind the table shown, which keeps its query, scroll and focus and swaps
 * its rows when the new data arrives. Without JavaScript there is no table: a note links the CSV
 * and JSON exports of every Service instead, and the loading line and the outline are hidden.
 *
 * Why not a prop with the whole table: see `serviceTableBody` — at 10,000 Services every page view
 * copied and compressed ~1 MB again; now the HTML is the page's frame and the table one shared body.
 */
import { useEffect, useState } from 'react';
import { withClusterBase } from '@/lib/shared/cluster-path';
import type { TableQuery } from '@/lib/shared/services-table-url';
import { useClusterBase } from '../layout/cluster-base';
import { ServicesTableSkeleton } from '../layout/skeletons';
import { Callout } from '../ui/status';
import { ServicesTable } from './services-table';

/** The table's data at `url`, once loaded. */
interface Loaded {
  readonly url: string;
  readonly json: string;
}

/**
 * The last table this browser tab loaded: Back to the Services page (a new instance of this
 * component) shows it at once, as the page's own data did before — rows, query and the scroll
 * position the browser restores — and fetches only when the page asks for another version.
 * Module-level, so only the client has one: the server renders the loading state, as the first
 * client render does.
 */
let lastLoaded: Loaded | null = null;

/** Why the load of the table at `url` failed. */
interface Failure {
  readonly url: string;
  readonly message: string;
}

/** The message of a failed load: the server's own (its error envelope), else what failed. */
async function failureOf(response: Response): Promise<string> {
  try {
    const body = (await response.json()) as { error?: { message?: unknown } };
    if (typeof body.error?.message === 'string') return body.error.message;
  } catch {
    // Not the API's error envelope (a proxy's page, a cut-off body): the status says enough.
  }
  return `The server answered ${response.status}${response.statusText ? ` ${response.statusText}` : ''}.`;
}

export function ServicesTableLoader({ src, total, initial }: { readonly src: string; readonly total: number; readonly initial: TableQuery }) {
  // In the page's cluster (`src` is without the `/c/{id}` prefix), as the exports are.
  const base = useClusterBase();
  const url = withClusterBase(base, src);
  const [loaded, setLoaded] = useState<Loaded | null>(() => (lastLoaded?.url === url ? lastLoaded : null));
  const [failure, setFailure] = useState<Failure | null>(null);
  const [tries, setTries] = useState(0);

  useEffect(() => {
    if (tries === 0 && lastLoaded?.url === url) {
      setLoaded(lastLoaded);
      return;
    }
    const controller = new AbortController();
    setFailure(null);
    void (async () => {
      try {
        const response = await fetch(url, { cache: 'no-store', headers: { Accept: 'application/json' }, signal: controller.signal });
        if (!response.ok) throw new Error(await failureOf(response));
        const json = await response.text();
        if (controller.signal.aborted) return;
        lastLoaded = { url, json };
        setLoaded(lastLoaded);
      } catch (error) {
        if (controller.signal.aborted) return;
        const message = error instanceof TypeError ? `The dashboard's server could not be reached (${error.message}).` : error instanceof Error ? error.message : 'The table could not be loaded.';
        setFailure({ url, message });
      }
    })();
    return () => controller.abort();
  }, [url, tries]);

  const failed = failure?.url === url ? failure.message : null;
  const retry = (
    <button
      type="button"
      onClick={() => setTries((n) => n + 1)}
      className="mt-1 rounded-md border border-slate-300 px-3 py-1 text-sm font-medium hover:bg-slate-100 focus-visible:outline focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-sky-600 dark:border-slate-600 dark:hover:bg-slate-800"
    >
      Try again
    </button>
  );

  if (loaded !== null) {
    return (
      <>
        {failed !== null ? (
          <Callout tone="warn" role="alert" title="The table shows older data: its update could not be loaded." className="mb-3">
            <p>{failed}</p>
            {retry}
          </Callout>
        ) : null}
        <ServicesTable json={loaded.json} initial={initial} />
      </>
    );
  }

  const count = `${total.toLocaleString('en-US')} Service${total === 1 ? '' : 's'}`;
  const exports = (format: 'csv' | 'json') => withClusterBase(base, `/api/v1/services?format=${format}`);
  return (
    <div className="space-y-3" aria-busy={failed === null}>
      {failed !== null ? (
        <Callout tone="error" role="alert" title={`The table of ${count} could not be loaded.`}>
          <p>{failed}</p>
          {retry}
        </Callout>
      ) : (
        <p role="status" data-needs-script="" className="text-sm text-slate-600 dark:text-slate-400">
          Loading the table of {count}…
        </p>
      )}
      <noscript>
        {/* Without JavaScript nothing loads: no loading line, no outline of a table to come. */}
        <style>{'[data-needs-script]{display:none}'}</style>
        <p className="text-sm">
          The table sorts and filters in the browser, which needs JavaScript. Every Service is in the{' '}
          <a className="underline" href={exports('csv')}>
            CSV
          </a>{' '}
          and{' '}
          <a className="underline" href={exports('json')}>
            JSON
          </a>{' '}
          exports.
        </p>
      </noscript>
      <div data-needs-script="">
        <ServicesTableSkeleton />
      </div>
    </div>
  );
}
