'use client';

/**
 * The Services table: search, namespace, mechanism, reason, type, HPA scale-down and
 * measured-vs-predicted filters, "needs attention" filter, sortable columns (numbers — endpoints,
 * cross-zone share, measured minus predicted, volume, cross-zone $ — sort descending on the first
 * click, names and categories ascending), all in the query string
 * (`?q=&ns=&mechanism=&reason=&type=&hpa=&measuredDiff=&sort=&order=&attention=1`: read from the URL on every mount
 * and every change of the URL, so Back shows the query the table was left with; written once the
 * user pauses and before any link is followed: {@link useTableQuery}), virtualised with
 * @tanstack/react-virtual against the page's own scroll (no nested scroll box; from the `md` to
 * the `lg` breakpoint the table scrolls sideways inside its own labelled region, and on a phone it
 * shows only its priority columns). The reason column shows a short chip with the controller's
 * full message on demand (./reason-cell.tsx). CSV and JSON exports of
 * exactly the rows shown link to `GET /api/v1/services?format=`.
 *
 * Keyboard: `/` focuses the search (unless the user is typing in a field), Enter in the search
 * opens the only matching Service, and the Service links of the rows are one roving tab stop:
 * ArrowUp/ArrowDown (Home/End, PageUp/PageDown) move between rows, Enter opens the row's Service.
 *
 * Why client-side over slim rows rather than fetching pages: the server sends every row once as
 * compact tuples (under 100 bytes each with namespaces, reason texts and labels interned, ~0.9 MB
 * at 10,000 Services, one body per table that ./services-table-loader.tsx loads and hands this
 * component as a JSON string), and
 * filtering and sorting 10,000 in-memory rows with precomputed keys takes a few milliseconds — well
 * under the 100 ms budget, with no round trip per keystroke and no server work per query. The
 * virtualiser keeps only the visible rows (plus overscan) in the DOM, so 10,000 rows stay far below
 * 2,000 DOM nodes. Paged fetching would add latency to every keystroke and a loading state to
 * every sort, for a dataset that fits comfortably in the browser.
 *
 * Filtering and sorting are the one definition shared with `GET /api/v1/services`
 * (`lib/shared/service-query.ts`; `lib/shared/services-table-url.ts` parses and writes the query string; `./table-view.ts`
 * keeps each column's order and the last views, and gives the same rows in the same order); columns are
 * configs (Headlamp style) whose `id` is the sort key, so what sorting uses stays separate from
 * `render` (what the cell shows).
 *
 * The parts: ./services-table-rows.ts (decoding), ./services-table-columns.tsx (the columns),
 * ./services-table-query.ts (the query and the URL), ./services-table-toolbar.tsx (search,
 * filters, count, exports), ./services-table-grid.tsx (headers, virtualised rows, roving focus).
 */
import { useRouter } from 'next/navigation';
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { withClusterBase } from '@/lib/shared/cluster-path';
import { nextSort } from '@/lib/shared/service-query';
import type { TableQuery, TableSortKey } from '@/lib/shared/services-table-url';
import { TABLE_SORT_KEYS } from '@/lib/shared/services-table-url';
import { useClusterBase } from '../layout/cluster-base';
import type { PrefetchService } from './services-table-columns';
import { buildColumns } from './services-table-columns';
import { ServicesTableGrid } from './services-table-grid';
import { useTableQuery } from './services-table-query';
import type { Row } from './services-table-rows';
import { decodedTable } from './services-table-rows';
import { ServicesTableToolbar } from './services-table-toolbar';
import type { TableViews } from './table-view';

/** Whether a key press happens while the user types in a field (where `/` is a character). */
function typingIn(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  return target.isContentEditable || target instanceof HTMLInputElement || target instanceof HTMLTextAreaElement || target instanceof HTMLSelectElement;
}

/**
 * Sorts every column in both directions while the browser is idle after the table shows, one per
 * idle period (never in the way of input), so the first click on a column does not wait for its
 * sort; each order is kept with the table.
 */
function useSortsWarmedWhenIdle(views: TableViews<Row>): void {
  useEffect(() => {
    const pending = TABLE_SORT_KEYS.flatMap((sort) => [{ sort, order: 'asc' as const }, { sort, order: 'desc' as const }]);
    const idle = typeof window.requestIdleCallback === 'function';
    let handle = 0;
    const step = () => {
      const next = pending.shift();
      if (next === undefined) return;
      views.ordered(next.sort, next.order);
      schedule();
    };
    const schedule = () => {
      handle = idle ? window.requestIdleCallback(step) : window.setTimeout(step, 50);
    };
    schedule();
    return () => (idle ? window.cancelIdleCallback(handle) : window.clearTimeout(handle));
  }, [views]);
}

/** `initial`: the query of the page's parameters, for rendering outside an App Router (inside one, the URL's query counts). */
export function ServicesTable({ json, initial }: { readonly json: string; readonly initial: TableQuery }) {
  const router = useRouter();
  // Row links, Enter and the exports stay in the page's cluster (`/c/{id}/…` off the default).
  const base = useClusterBase();
  const table = useMemo(() => decodedTable(json), [json]);
  const { data, rows } = table;
  const prefetch = useCallback<PrefetchService>((href) => router.prefetch(withClusterBase(base, href)), [router, base]);
  const columns = useMemo(() => buildColumns(data.zones, data.unknown, data.pricing, prefetch), [data.zones, data.unknown, data.pricing, prefetch]);
  const [query, setQuery, flushUrl] = useTableQuery(initial, data.namespaces);
  // Set once React has attached its handlers: the server-rendered controls look the same before.
  const [interactive, setInteractive] = useState(false);
  useEffect(() => setInteractive(true), []);
  // The search filters in the same render as the keystroke (one pass over the rows, then a
  // screenful of new rows): deferring it behind the input cost one to three extra frames.
  const visible = useMemo(() => table.views.view(query), [table, query]);
  const searchRef = useRef<HTMLInputElement>(null);
  // The row whose Service link is the table's one tab stop (roving focus), as an index into `visible`.
  const [active, setActive] = useState(0);

  useSortsWarmedWhenIdle(table.views);

  // `/` focuses the search, unless the user is typing in a field.
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if (event.key !== '/' || event.ctrlKey || event.metaKey || event.altKey || typingIn(event.target)) return;
      event.preventDefault();
      searchRef.current?.focus();
      searchRef.current?.select();
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, []);

  const update = (patch: Partial<TableQuery>) => {
    setQuery((q) => ({ ...q, ...patch }));
    setActive(0);
  };
  // Numbers sort largest first on the first click; a second click flips.
  const sortBy = (id: TableSortKey) => setQuery((q) => ({ ...q, sort: id, order: nextSort(q, id).order }));
  const clear = () => update({ q: '', ns: '', mechanism: '', reason: '', type: '', hpa: '', measuredDiff: null, attention: false });
  const only = visible.length === 1 ? visible[0] : undefined;
  const openOnly =
    only === undefined
      ? null
      : () => {
          flushUrl();
          router.push(withClusterBase(base, only.href));
        };

  return (
    <div className="space-y-3">
      <ServicesTableToolbar
        query={query}
        onChange={update}
        columns={columns}
        namespaces={data.namespaces}
        shown={visible.length}
        total={rows.length}
        interactive={interactive}
        searchRef={searchRef}
        onOpenOnly={openOnly}
      />

      {rows.length === 0 ? (
        <div className="rounded-md border border-dashed border-slate-300 p-8 text-center dark:border-slate-700">
          <p className="font-medium">This cluster has no Services.</p>
          <p className="text-sm text-slate-600 dark:text-slate-400">Once Services exist, each one appears here with its hints and cross-zone share.</p>
        </div>
      ) : (
        <ServicesTableGrid columns={columns} visible={visible} query={query} onSort={sortBy} onClear={clear} active={active} onActive={setActive} />
      )}
    </div>
  );
}
