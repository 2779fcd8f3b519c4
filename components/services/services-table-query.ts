'use client';

/**
 * The Services table's query (`?q=&ns=&mechanism=&reason=&type=&sort=&order=&attention=1`), kept in
 * step with the address bar both ways: read from the URL on every mount and every change of it (so
 * Back shows the query the table was left with), written once the user pauses and before any link
 * is followed. Parsing and writing the query string is lib/shared/services-table-url.ts's.
 */
import { useSearchParams } from 'next/navigation';
import { useCallback, useEffect, useLayoutEffect, useRef, useState } from 'react';
import type { TableQuery } from '@/lib/shared/services-table-url';
import { parseTableSearch, tableQuerySearch } from '@/lib/shared/services-table-url';

/**
 * How long the address bar waits after the last change of the query before it is rewritten: the
 * table updates at once, and the URL (a history write, which the App Router follows with its own
 * update) once the user pauses typing or clicking through sorts. Anything that may leave the page
 * (a click, the page being hidden) writes it at once.
 */
const URL_DELAY_MS = 300;

/** URLs the table wrote that it remembers, to tell their late echoes from a change under the table (see {@link urlChange}). */
const WRITES_KEPT = 16;

/**
 * What a new URL search (from the router, without `?`) is to the table: `own` — the echo of its
 * last write; `stale` — the echo of an earlier write of its own, which the router committed after
 * a later one (each write of the address bar is a router update of its own, and on a busy page
 * they can commit late: taking it would undo what the user did since, e.g. bring back a search
 * they had just cleared); `external` — a change under the table (Back, Forward, a link), whose
 * query the table takes. `latest` is the search of the table's last write or of the URL it last
 * took, `recent` its last writes.
 */
export function urlChange(url: string, latest: string | null, recent: readonly string[]): 'own' | 'stale' | 'external' {
  if (url === latest) return 'own';
  return recent.includes(url) ? 'stale' : 'external';
}

/** The table's query and who set it last: only the user's changes are written to the URL. */
interface QueryState {
  readonly query: TableQuery;
  readonly byUser: boolean;
}

/**
 * The table's query, kept in step with the URL both ways.
 *
 * - The URL is where the query comes from, on every mount and whenever it changes under the table
 *   (Back or Forward, a link to another query). After Back from a Service, the App Router shows the
 *   page again from its cache, with the server props (`fallback`) of the page's first load: the
 *   query is read from the URL (`useSearchParams`), never from those. `fallback` only counts
 *   outside an App Router (the unit tests' server rendering).
 * - The user's changes go into the URL {@link URL_DELAY_MS} after the last one (off the
 *   interaction's frame), at once before a link is followed or the page is hidden; a query the
 *   table took from the URL is never written back (a URL the table did not change stays as it is).
 *
 * - A URL the table itself wrote moments ago that comes back late (the router commits each write
 *   as an update of its own, and a page refresh started before a write commits the URL it started
 *   with) is not a change under the table: the table keeps what the user did since and puts its
 *   last write back in the address bar. (So a link to one of the table's last few queries, on
 *   this page, is taken as such an echo; the page has no such links.) The router's side, in
 *   Next.js 16.4.6's `next/dist/client/components/app-router.js`: the patched
 *   `history.replaceState` dispatches a `restore` of the new URL, and `HistoryUpdater` writes the
 *   committed state's `canonicalUrl` back into the address bar on every commit.
 *
 * Returns the query, the user's change of it, and a function that writes a pending change now.
 */
export function useTableQuery(fallback: TableQuery, namespaces: readonly string[]): readonly [TableQuery, (change: (query: TableQuery) => TableQuery) => void, () => void] {
  const searchParams = useSearchParams();
  const url = searchParams === null ? null : searchParams.toString();
  const [state, setState] = useState<QueryState>(() => ({ query: url === null ? fallback : parseTableSearch(url, namespaces), byUser: false }));
  // The URL search (without `?`) the query was last taken from or written to: the table's own
  // writes come back through the router as a new `url`, and are not a change under the table.
  const known = useRef(url);
  // The table's last writes (oldest first), whose echoes may still come late (see urlChange).
  const written = useRef<string[]>([]);
  const pending = useRef<string | null>(null);

  const writeAddressBar = useCallback((search: string) => {
    // replaceState: no server round trip, no history spam.
    if (window.location.search !== search) window.history.replaceState(null, '', `${window.location.pathname}${search}${window.location.hash}`);
  }, []);

  // A URL the table did not write: take the query from it (before paint, so the previous query never shows).
  useLayoutEffect(() => {
    if (url === null) return;
    const change = urlChange(url, known.current, written.current);
    // The table's writes are kept after their echo: a re-render of the page the router started
    // before a write (the live view's refresh) commits the URL of its start, later.
    if (change === 'own') return;
    if (change === 'stale') {
      // The router also put that URL back in the address bar: the last write, whose echo follows,
      // rewrites it; should it not follow, the bar is set to what the table shows now.
      const latest = known.current;
      if (latest !== null && window.location.search.slice(1) !== latest) writeAddressBar(latest === '' ? '' : `?${latest}`);
      return;
    }
    known.current = url;
    written.current = [];
    pending.current = null;
    setState({ query: parseTableSearch(url, namespaces), byUser: false });
  }, [url, namespaces, writeAddressBar]);

  const flush = useCallback(() => {
    const search = pending.current;
    if (search === null) return;
    pending.current = null;
    known.current = search.slice(1);
    written.current = [...written.current, known.current].slice(-WRITES_KEPT);
    writeAddressBar(search);
  }, [writeAddressBar]);
  useEffect(() => {
    if (!state.byUser) return;
    pending.current = tableQuerySearch(state.query);
    const timer = window.setTimeout(flush, URL_DELAY_MS);
    return () => window.clearTimeout(timer);
  }, [state, flush]);
  useEffect(() => {
    // Before a link's navigation pushes the next entry (capture: ahead of the link's own handler)
    // and before the page goes away, so the entry left behind keeps the query it showed.
    const onClick = (event: MouseEvent) => {
      if (event.target instanceof Element && event.target.closest('a[href]')) flush();
    };
    document.addEventListener('click', onClick, true);
    window.addEventListener('pagehide', flush);
    return () => {
      document.removeEventListener('click', onClick, true);
      window.removeEventListener('pagehide', flush);
    };
  }, [flush]);
  const change = useCallback((next: (query: TableQuery) => TableQuery) => setState((s) => ({ query: next(s.query), byUser: true })), []);
  return [state.query, change, flush] as const;
}
