'use client';

/**
 * The Services table: search, namespace, mechanism, reason and type filters, "needs attention"
 * filter, sortable columns (numbers — endpoints, cross-zone share, volume, cross-zone $ — sort
 * descending on the first click, names and categories ascending), all in the query string
 * (`?q=&ns=&mechanism=&reason=&type=&sort=&order=&attention=1`: read from the URL on every mount
 * and every change of the URL, so Back shows the query the table was left with; written once the
 * user pauses and before any link is followed: {@link useTableQuery}), virtualised with
 * @tanstack/react-virtual against the page's own scroll (no nested scroll box; below the `lg`
 * breakpoint the table scrolls sideways inside its own labelled region). CSV and JSON exports of
 * exactly the rows shown link to `GET /api/v1/services?format=`.
 *
 * Keyboard: `/` focuses the search (unless the user is typing in a field), Enter in the search
 * opens the only matching Service, and the Service links of the rows are one roving tab stop:
 * ArrowUp/ArrowDown (Home/End, PageUp/PageDown) move between rows, Enter opens the row's Service.
 *
 * Why client-side over slim rows rather than fetching pages: the server sends every row once as
 * compact tuples (under 100 bytes each with namespaces, reason texts and labels interned, ~0.9 MB
 * at 10,000 Services, in one JSON string prop that React passes through as it is), and
 * filtering and sorting 10,000 in-memory rows with precomputed keys takes a few milliseconds — well
 * under the 100 ms budget, with no round trip per keystroke and no server work per query. The
 * virtualiser keeps only the visible rows (plus overscan) in the DOM, so 10,000 rows stay far below
 * 2,000 DOM nodes. Paged fetching would add latency to every keystroke and a loading state to
 * every sort, for a dataset that fits comfortably in the browser.
 *
 * Filtering and sorting are the one definition shared with `GET /api/v1/services`
 * (`lib/shared/service-query.ts`, which also parses and writes the query string; `./table-view.ts`
 * keeps each column's order and the last views, and gives the same rows in the same order); columns are
 * configs (Headlamp style) whose `id` is the sort key, so what sorting uses stays separate from
 * `render` (what the cell shows).
 */
import { withClusterBase } from '@/lib/shared/cluster-path';
import { ClusterLink, useClusterBase } from '../layout/cluster-base';
import { useRouter, useSearchParams } from 'next/navigation';
import { memo, useCallback, useEffect, useLayoutEffect, useMemo, useRef, useState } from 'react';
import type { KeyboardEvent as ReactKeyboardEvent, ReactNode } from 'react';
import { useWindowVirtualizer } from '@tanstack/react-virtual';
import type { QueryableService, TableQuery, TableSortKey } from '@/lib/shared/service-query';
import {
  ATTENTION_REASONS, firstSortOrder, nextSort, parseTableSearch, SERVICE_MECHANISMS, TABLE_SORT_KEYS, SERVICE_TYPES, serviceNaturalKey, serviceSearchText, tableExportHref, tableQueryFilters, tableQuerySearch,
} from '@/lib/shared/service-query';
import type { ServiceRow, ServiceTableData } from '@/lib/views/services';
import { UNKNOWN_ZONE } from '@/lib/topology/analyses/traffic';
import { formatPercent, formatUsd, mechanismLabel, serviceHref, shortZoneName } from '../ui/format';
import { formatGb, VOLUME_SOURCE, VolumeSourceMarker } from '../overview/zone-traffic-source';
import { SortIcon } from '../ui/icons';
import { LINK } from '../ui/panel';
import { Badge } from '../ui/status';
import { ATTENTION } from '../shared/labels';
import { TableViews } from './table-view';

/** A decoded row (search text and natural key precomputed once, for filtering and sorting). */
interface Row extends QueryableService {
  /** `namespace/name`. */
  readonly key: string;
  readonly type: ServiceRow['type'];
  readonly href: string;
  readonly mechanism: ServiceRow['mechanism'];
  readonly endpointsByZone: readonly number[];
  readonly crossZoneIfAuto: number;
  readonly volumeSource: ServiceRow['volumeSource'];
  readonly measuredCrossZone: number | null;
}

interface ColumnConfig {
  /** Also the sort key of the column. */
  readonly id: TableSortKey;
  readonly header: ReactNode;
  readonly label: string;
  readonly width: string;
  readonly align?: 'right';
  /** What the cell shows (`active`: the row holds the table's roving tab stop). */
  readonly render: (row: Row, active: boolean) => ReactNode;
}

const HINTS_OBSERVED_LABEL = { all: 'all endpoints', some: 'some endpoints', none: 'none' } as const;

function ZoneCounts({ counts, zones }: { readonly counts: readonly number[]; readonly zones: readonly string[] }) {
  return (
    <span className="flex flex-wrap gap-x-2 gap-y-0.5 font-mono text-xs">
      {counts.map((count, i) => (
        <span key={zones[i]} title={`${zones[i]}: ${count} ready endpoint(s)`} className={count === 0 ? 'font-semibold text-amber-800 dark:text-amber-300' : undefined}>
          <span className="text-slate-500 dark:text-slate-400">{shortZoneName(zones, zones[i] ?? '', UNKNOWN_ZONE)}</span> {count}
          {count === 0 ? <span className="sr-only"> (no endpoint in this zone)</span> : null}
        </span>
      ))}
    </span>
  );
}

/** A cell whose figure is unknown (a type it depends on could not be read): says so instead of guessing. */
function UnknownCell({ message, align }: { readonly message: string; readonly align?: 'right' }) {
  return (
    <span className={`block text-xs text-slate-600 dark:text-slate-400 ${align === 'right' ? 'text-right' : ''}`} title={message}>
      <Badge tone="warn">unknown</Badge>
      <span className="sr-only"> {message}</span>
    </span>
  );
}

/** A cell for a Service the cluster-wide traffic figures do not count (no traffic to price). */
function NoFigure({ why }: { readonly why: string }) {
  return (
    <span className="block text-right text-xs text-slate-500 dark:text-slate-400" title={why}>
      —<span className="sr-only"> {why}</span>
    </span>
  );
}

/**
 * Prefetches a row's Service view when the user shows the intent to open it (pointer over the
 * link, touch, keyboard focus). The row links do not prefetch on entering the viewport: every sort
 * or filter brings a screenful of new rows, and prefetching each of them would fetch dozens of
 * Service views per interaction that the user mostly never opens.
 */
type PrefetchService = (href: string) => void;

function buildColumns(zones: readonly string[], unknown: ServiceTableData['unknown'], pricing: ServiceTableData['pricing'], prefetch: PrefetchService): ColumnConfig[] {
  const price = pricing === null ? 'the price of a cross-zone GB' : `${formatUsd(pricing.costPerCrossZoneGb)} per cross-zone GB (${pricing.note.replace(/\.$/, '')})`;
  return [
    {
      id: 'service',
      label: 'Service',
      header: 'Service',
      width: 'w-[19%]',
      render: (row, active) => (
        <span className="block min-w-0">
          {/* Whole names, broken anywhere when the column is too narrow (never cut to a prefix). */}
          <ClusterLink
            href={row.href}
            prefetch={false}
            onMouseEnter={() => prefetch(row.href)}
            onTouchStart={() => prefetch(row.href)}
            onFocus={() => prefetch(row.href)}
            className={`${LINK} block font-mono text-sm [overflow-wrap:anywhere]`}
            title={`${row.namespace}/${row.name}`}
            tabIndex={active ? 0 : -1}
            data-row-link=""
          >
            <span className="text-slate-600 dark:text-slate-400">{row.namespace}/</span>
            {row.name}
          </ClusterLink>
          <span className="text-xs text-slate-600 dark:text-slate-400">{row.type}</span>
        </span>
      ),
    },
    {
      id: 'mechanism',
      label: 'Mechanism',
      header: 'Mechanism',
      width: 'w-[11%]',
      // Narrow columns break camelCase names between words ("traffic·Distribution"), not mid-word.
      render: (row) => (
        <span className={`font-mono text-xs [overflow-wrap:anywhere] ${row.mechanism === 'none' ? 'text-slate-600 dark:text-slate-400' : ''}`}>
          {mechanismLabel(row.mechanism)
            .split(/(?=[A-Z])/)
            .map((part, i) => (i === 0 ? part : [<wbr key={i} />, part]))}
        </span>
      ),
    },
    {
      id: 'hints',
      label: 'Hints (on slices / expected)',
      header: (
        <>
          Hints <span className="font-normal normal-case">on slices / expected</span>
        </>
      ),
      width: 'w-[12%]',
      render: (row) => {
        if (unknown.hints !== null) return <UnknownCell message={unknown.hints} />;
        const mismatch = row.hintsExpected !== (row.hintsObserved === 'all');
        return (
          <span className="flex flex-col items-start gap-0.5 text-xs">
            <Badge tone={row.hintsObserved === 'all' ? 'ok' : row.hintsObserved === 'some' ? 'warn' : 'neutral'}>now: {HINTS_OBSERVED_LABEL[row.hintsObserved]}</Badge>
            <Badge tone={mismatch ? 'warn' : row.hintsExpected ? 'ok' : 'neutral'}>expected: {row.hintsExpected ? 'on' : 'off'}</Badge>
          </span>
        );
      },
    },
    {
      id: 'reason',
      label: 'Reason / attention',
      header: 'Reason when off / attention',
      width: 'w-[20%]',
      render: (row) =>
        row.reason || row.attention ? (
          <span className="block min-w-0 text-xs">
            {row.attention ? (
              <Badge tone={ATTENTION[row.attention].tone} className="mb-0.5">
                {ATTENTION[row.attention].label}
              </Badge>
            ) : null}
            <span className="block text-slate-700 [overflow-wrap:anywhere] dark:text-slate-300">
              {row.reason}
            </span>
          </span>
        ) : (
          <span className="text-xs text-slate-500 dark:text-slate-400">—</span>
        ),
    },
    {
      id: 'endpoints',
      label: 'Ready endpoints per zone',
      header: 'Ready endpoints per zone',
      width: 'w-[12%]',
      render: (row) =>
        unknown.endpoints !== null ? <UnknownCell message={unknown.endpoints} /> : (
        <span className="block">
          <span className="text-xs tabular-nums">{row.readyEndpoints} ready</span>
          <ZoneCounts counts={row.endpointsByZone} zones={zones} />
        </span>
      ),
    },
    {
      id: 'crossZone',
      label: 'Expected cross-zone share',
      header: 'Cross-zone share',
      width: 'w-[10%]',
      align: 'right',
      render: (row) =>
        unknown.crossZone !== null ? <UnknownCell message={unknown.crossZone} align="right" /> : (
        <span className="block text-right text-sm tabular-nums">
          {formatPercent(row.crossZoneFraction)}
          {row.measuredCrossZone !== null && Math.abs(row.measuredCrossZone - row.crossZoneFraction) >= 0.0005 ? (
            <span className="block text-xs font-medium text-amber-800 dark:text-amber-300" title="Cross-zone share measured by zone-resolved flows (what the cost column uses)">
              measured: {formatPercent(row.measuredCrossZone)}
            </span>
          ) : null}
          {Math.abs(row.crossZoneIfAuto - row.crossZoneFraction) >= 0.0005 ? (
            <span className="block text-xs text-slate-600 dark:text-slate-400" title="Expected cross-zone share once topology mode Auto is set">
              if Auto: {formatPercent(row.crossZoneIfAuto)}
            </span>
          ) : null}
        </span>
      ),
    },
    {
      id: 'volume',
      label: 'Volume (GB per month)',
      header: (
        <>
          Volume <span className="font-normal normal-case">GB/mo</span>
        </>
      ),
      width: 'w-[8%]',
      align: 'right',
      render: (row) => {
        if (row.gbPerMonth === null || row.volumeSource === null) return <NoFigure why="No traffic figures for this Service" />;
        if (row.volumeSource === 'assumed' && unknown.endpoints !== null) return <UnknownCell message={unknown.endpoints} align="right" />;
        return (
          <span className="flex flex-col items-end gap-0.5 text-right">
            <span className="text-sm tabular-nums">{formatGb(row.gbPerMonth)}</span>
            <VolumeSourceMarker kind={row.volumeSource} />
            <span className="sr-only">, {VOLUME_SOURCE[row.volumeSource].title}</span>
          </span>
        );
      },
    },
    {
      id: 'cost',
      label: 'Cross-zone $ per month',
      header: (
        <>
          Cross-zone <span className="font-normal normal-case">$/mo</span>
        </>
      ),
      width: 'w-[8%]',
      align: 'right',
      render: (row) => {
        if (unknown.crossZone !== null) return <UnknownCell message={unknown.crossZone} align="right" />;
        if (row.monthlyCost === null) return <NoFigure why="No traffic figures for this Service" />;
        return (
          <span
            className="block text-right text-sm tabular-nums"
            title={`${formatPercent(row.measuredCrossZone ?? row.crossZoneFraction)} cross-zone (${row.measuredCrossZone !== null ? 'measured share' : 'predicted share'}) of the volume × ${price}`}
          >
            {formatUsd(row.monthlyCost)}
            <span className="sr-only"> at the {row.measuredCrossZone !== null ? 'measured' : 'predicted'} cross-zone share</span>
          </span>
        );
      },
    },
  ];
}

function decode(data: ServiceTableData): Row[] {
  // Every repeated string of a row is an index into one of the table's lists (-1: none).
  const label = <T extends string>(index: number): T | null => (index >= 0 ? ((data.labels[index] ?? null) as T | null) : null);
  return data.rows.map((r) => {
    const namespace = data.namespaces[r[0]] ?? '';
    return {
      namespace,
      name: r[1],
      key: `${namespace}/${r[1]}`,
      href: serviceHref(namespace, r[1]),
      naturalKey: serviceNaturalKey(namespace, r[1]),
      search: serviceSearchText(namespace, r[1]),
      type: label<ServiceRow['type']>(r[2]) ?? 'ClusterIP',
      mechanism: label<ServiceRow['mechanism']>(r[3]) ?? 'none',
      hintsExpected: r[4] === 1,
      hintsObserved: label<ServiceRow['hintsObserved']>(r[5]) ?? 'none',
      reason: r[6] >= 0 ? (data.reasons[r[6]] ?? null) : null,
      attention: label<NonNullable<ServiceRow['attention']>['reason']>(r[7]),
      endpointsByZone: r[8],
      readyEndpoints: r[9],
      crossZoneFraction: r[10],
      crossZoneIfAuto: r[11],
      gbPerMonth: r[12],
      volumeSource: label<NonNullable<ServiceRow['volumeSource']>>(r[13]),
      monthlyCost: r[14],
      measuredCrossZone: r[15],
    };
  });
}

/** A table decoded from its JSON, with its filtered and sorted views by query. */
interface DecodedTable {
  readonly json: string;
  readonly data: ServiceTableData;
  readonly rows: readonly Row[];
  readonly views: TableViews<Row>;
}

let lastTable: DecodedTable | null = null;

/**
 * The table of `json` (what `serviceTableJson` serialised), decoded once: the server renders every
 * request from the same JSON until the cluster changes, so it reuses the last decoding (and its
 * sorted views) instead of building 10,000 rows again.
 */
function decodedTable(json: string): DecodedTable {
  if (lastTable?.json !== json) {
    const data = JSON.parse(json) as ServiceTableData;
    const rows = decode(data);
    lastTable = { json, data, rows, views: new TableViews(rows) };
  }
  return lastTable;
}

const ROW_HEIGHT = 64;
/** Rows the server renders (and the first paint shows) before the browser measures the window. */
const INITIAL_RECT = { width: 1280, height: 900 };

const SELECT =
  'h-9 rounded-md border border-slate-300 bg-white px-2 text-sm text-slate-900 dark:border-slate-600 dark:bg-slate-900 dark:text-slate-100';
const FIELD = 'flex flex-col gap-1 text-xs font-medium text-slate-700 dark:text-slate-300';

const MECHANISM_OPTIONS: readonly { readonly value: string; readonly label: string }[] = SERVICE_MECHANISMS.map((m) => ({ value: m, label: mechanismLabel(m) }));

/** Whether a key press happens while the user types in a field (where `/` is a character). */
function typingIn(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  return target.isContentEditable || target instanceof HTMLInputElement || target instanceof HTMLTextAreaElement || target instanceof HTMLSelectElement;
}

/**
 * How long the address bar waits after the last change of the query before it is rewritten: the
 * table updates at once, and the URL (a history write, which the App Router follows with its own
 * update) once the user pauses typing or clicking through sorts. Anything that may leave the page
 * (a click, the page being hidden) writes it at once.
 */
const URL_DELAY_MS = 300;

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
 * Returns the query, the user's change of it, and a function that writes a pending change now.
 */
function useTableQuery(fallback: TableQuery, namespaces: readonly string[]): readonly [TableQuery, (change: (query: TableQuery) => TableQuery) => void, () => void] {
  const searchParams = useSearchParams();
  const url = searchParams === null ? null : searchParams.toString();
  const [state, setState] = useState<QueryState>(() => ({ query: url === null ? fallback : parseTableSearch(url, namespaces), byUser: false }));
  // The URL search (without `?`) the query was last taken from or written to: the table's own
  // writes come back through the router as a new `url`, and are not a change under the table.
  const known = useRef(url);
  const pending = useRef<string | null>(null);

  // A URL the table did not write: take the query from it (before paint, so the previous query never shows).
  useLayoutEffect(() => {
    if (url === null || url === known.current) return;
    known.current = url;
    pending.current = null;
    setState({ query: parseTableSearch(url, namespaces), byUser: false });
  }, [url, namespaces]);

  const flush = useCallback(() => {
    const search = pending.current;
    if (search === null) return;
    pending.current = null;
    known.current = search.slice(1);
    // replaceState: no server round trip, no history spam.
    if (window.location.search !== search) window.history.replaceState(null, '', `${window.location.pathname}${search}${window.location.hash}`);
  }, []);
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

/** One row of the table: re-rendered only when its Service, place or tab stop changes. */
const TableRow = memo(function TableRow({ row, index, active, columns, measure }: {
  readonly row: Row;
  readonly index: number;
  readonly active: boolean;
  readonly columns: readonly ColumnConfig[];
  readonly measure: (element: Element | null) => void;
}) {
  return (
    <tr
      ref={measure}
      data-index={index}
      aria-rowindex={index + 2}
      style={{ height: ROW_HEIGHT }}
      className="border-t border-slate-100 hover:bg-slate-50 focus-within:bg-sky-50 dark:border-slate-800 dark:hover:bg-slate-800/50 dark:focus-within:bg-sky-950/40"
    >
      {columns.map((c) => (
        <td key={c.id} className="px-3 py-1 align-middle">
          {c.render(row, active)}
        </td>
      ))}
    </tr>
  );
});

/** Height of the sticky site header, so the table's sticky column headers sit just below it. */
function useSiteHeaderHeight(): number {
  const [height, setHeight] = useState(0);
  useEffect(() => {
    const header = document.querySelector('body > header');
    if (!(header instanceof HTMLElement)) return;
    const update = () => setHeight(header.offsetHeight);
    update();
    const observer = new ResizeObserver(update);
    observer.observe(header);
    return () => observer.disconnect();
  }, []);
  return height;
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
  const namespaceOptions = useMemo(
    () =>
      data.namespaces.map((ns) => (
        <option key={ns} value={ns}>
          {ns}
        </option>
      )),
    [data.namespaces],
  );
  const [query, setQuery, flushUrl] = useTableQuery(initial, data.namespaces);
  // Set once React has attached its handlers: the server-rendered controls look the same before.
  const [interactive, setInteractive] = useState(false);
  useEffect(() => setInteractive(true), []);
  // The search filters in the same render as the keystroke (one pass over the rows, then a
  // screenful of new rows): deferring it behind the input cost one to three extra frames.
  const visible = useMemo(() => table.views.view(query), [table, query]);
  const bodyRef = useRef<HTMLTableSectionElement>(null);
  const searchRef = useRef<HTMLInputElement>(null);
  const headerHeight = useSiteHeaderHeight();
  // Where the rows start in the document: the window virtualiser's scroll margin.
  const [scrollMargin, setScrollMargin] = useState(0);
  useLayoutEffect(() => {
    const body = bodyRef.current;
    if (!body) return;
    const update = () => setScrollMargin(body.getBoundingClientRect().top + window.scrollY);
    update();
    const observer = new ResizeObserver(update);
    observer.observe(document.body);
    return () => observer.disconnect();
  }, []);
  const virtualizer = useWindowVirtualizer({ count: visible.length, estimateSize: () => ROW_HEIGHT, overscan: 8, scrollMargin, initialRect: INITIAL_RECT });
  // The row whose Service link is the table's one tab stop (roving focus), as an index into `visible`.
  const [active, setActive] = useState(0);
  const activeIndex = Math.min(active, Math.max(0, visible.length - 1));
  const focusWanted = useRef(false);

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

  // After an arrow key: once the row is rendered, its link takes the focus.
  useEffect(() => {
    if (!focusWanted.current) return;
    const link = bodyRef.current?.querySelector<HTMLAnchorElement>(`tr[data-index="${activeIndex}"] a[data-row-link]`);
    if (link) {
      focusWanted.current = false;
      link.focus({ preventScroll: true });
    }
  });

  const update = (patch: Partial<TableQuery>) => {
    setQuery((q) => ({ ...q, ...patch }));
    setActive(0);
  };
  // Numbers sort largest first on the first click; a second click flips.
  const sortBy = (id: TableSortKey) => setQuery((q) => ({ ...q, sort: id, order: nextSort(q, id).order }));
  const clear = () => update({ q: '', ns: '', mechanism: '', reason: '', type: '', attention: false });

  const moveTo = useCallback(
    (index: number) => {
      const target = Math.max(0, Math.min(visible.length - 1, index));
      focusWanted.current = true;
      setActive(target);
      virtualizer.scrollToIndex(target, { align: 'auto' });
    },
    [visible.length, virtualizer],
  );
  const onRowKey = (event: ReactKeyboardEvent<HTMLTableSectionElement>) => {
    if (!(event.target instanceof HTMLElement) || !event.target.matches('a[data-row-link]')) return;
    const step: Record<string, number | 'home' | 'end'> = { ArrowDown: 1, ArrowUp: -1, PageDown: 10, PageUp: -10, Home: 'home', End: 'end' };
    const move = step[event.key];
    if (move === undefined) return;
    event.preventDefault();
    moveTo(move === 'home' ? 0 : move === 'end' ? visible.length - 1 : activeIndex + move);
  };

  const items = virtualizer.getVirtualItems();
  const padTop = Math.max(0, (items[0]?.start ?? scrollMargin) - scrollMargin);
  const padBottom = items.length > 0 ? Math.max(0, virtualizer.getTotalSize() - ((items[items.length - 1]?.end ?? scrollMargin) - scrollMargin)) : 0;
  const filtered = tableQueryFilters(query);

  return (
    <div className="space-y-3">
      <div className="flex flex-wrap items-end gap-3" role="search" aria-label="Filter Services" data-interactive={interactive ? 'true' : undefined}>
        <label className={FIELD}>
          <span>
            Search{' '}
            <kbd className="rounded border border-slate-300 px-1 font-normal text-slate-600 dark:border-slate-600 dark:text-slate-400" aria-hidden="true">
              /
            </kbd>
          </span>
          <input
            ref={searchRef}
            type="search"
            value={query.q}
            onChange={(e) => update({ q: e.target.value })}
            onKeyDown={(e) => {
              // Enter opens the only match.
              if (e.key === 'Enter' && visible.length === 1 && visible[0]) {
                e.preventDefault();
                flushUrl();
                router.push(withClusterBase(base, visible[0].href));
              }
            }}
            aria-keyshortcuts="/"
            aria-describedby="services-search-help"
            placeholder="namespace/name or reason"
            className={`${SELECT} w-full min-w-0 placeholder:text-slate-500 sm:w-72`}
          />
        </label>
        <p id="services-search-help" className="sr-only">
          Press slash to come back here; Enter opens the Service when exactly one matches.
        </p>
        <label className={FIELD}>
          Namespace
          <select value={query.ns} onChange={(e) => update({ ns: e.target.value })} className={`${SELECT} w-full min-w-0 sm:w-48`}>
            <option value="">All namespaces ({data.namespaces.length})</option>
            {namespaceOptions}
          </select>
        </label>
        <label className={FIELD}>
          Mechanism
          <select value={query.mechanism} onChange={(e) => update({ mechanism: e.target.value })} className={SELECT}>
            <option value="">Any mechanism</option>
            {MECHANISM_OPTIONS.map((m) => (
              <option key={m.value} value={m.value}>
                {m.label}
              </option>
            ))}
          </select>
        </label>
        <label className={FIELD}>
          Reason
          <select value={query.reason} onChange={(e) => update({ reason: e.target.value })} className={SELECT}>
            <option value="">Any reason</option>
            {ATTENTION_REASONS.map((r) => (
              <option key={r} value={r}>
                {ATTENTION[r].label}
              </option>
            ))}
          </select>
        </label>
        <label className={FIELD}>
          Type
          <select value={query.type} onChange={(e) => update({ type: e.target.value })} className={SELECT}>
            <option value="">Any type</option>
            {SERVICE_TYPES.map((t) => (
              <option key={t} value={t}>
                {t}
              </option>
            ))}
          </select>
        </label>
        <label className="flex h-9 items-center gap-2 text-sm">
          <input type="checkbox" checked={query.attention} onChange={(e) => update({ attention: e.target.checked })} className="h-4 w-4" />
          Needs attention only
        </label>
        <label className={`${FIELD} lg:hidden`}>
          Sort by
          <select
            value={query.sort}
            onChange={(e) => {
              const sort = e.target.value as TableSortKey;
              update({ sort, order: firstSortOrder(sort) });
            }}
            className={SELECT}
          >
            {columns.map((c) => (
              <option key={c.id} value={c.id}>
                {c.label}
              </option>
            ))}
          </select>
        </label>
        <div className="ml-auto flex flex-wrap items-center gap-x-3 gap-y-1 text-sm">
          <p className="text-slate-700 dark:text-slate-300" aria-live="polite">
            {visible.length === rows.length ? `${rows.length.toLocaleString('en-US')} Services` : `${visible.length.toLocaleString('en-US')} of ${rows.length.toLocaleString('en-US')} Services`}
          </p>
          {rows.length > 0 ? (
            <p className="flex items-center gap-2">
              <span className="text-slate-600 dark:text-slate-400">{filtered ? 'Export these:' : 'Export:'}</span>
              <a href={withClusterBase(base, tableExportHref(query, 'csv'))} download className={LINK}>
                CSV
              </a>
              <a href={withClusterBase(base, tableExportHref(query, 'json'))} download className={LINK}>
                JSON
              </a>
            </p>
          ) : null}
        </div>
      </div>

      {rows.length === 0 ? (
        <div className="rounded-md border border-dashed border-slate-300 p-8 text-center dark:border-slate-700">
          <p className="font-medium">This cluster has no Services.</p>
          <p className="text-sm text-slate-600 dark:text-slate-400">Once Services exist, each one appears here with its hints and cross-zone share.</p>
        </div>
      ) : (
        <>
          <p className="text-xs text-slate-600 lg:hidden dark:text-slate-400" aria-hidden="true">
            The table scrolls sideways: swipe or use the arrow keys on it →
          </p>
          {/* Below lg the table is wider than the screen and scrolls inside this region; from lg it fits and the page scrolls it. */}
          <div
            className="relative overflow-x-auto rounded-lg border border-slate-200 bg-white lg:overflow-visible dark:border-slate-800 dark:bg-slate-900"
            tabIndex={0}
            role="region"
            aria-label="Services table"
          >
            <table className="w-full min-w-[68rem] table-fixed border-collapse text-sm lg:min-w-0" aria-rowcount={visible.length + 1}>
              <caption className="sr-only">
                Services with their topology mechanism, hints observed and expected, reason, endpoints per zone, cross-zone share, monthly volume with where it comes from, and cross-zone cost per month. Column headers sort (numbers largest first); arrow keys move between rows.
              </caption>
              <colgroup>
                {columns.map((c) => (
                  <col key={c.id} className={c.width} />
                ))}
              </colgroup>
              <thead className="z-10 bg-slate-100 lg:sticky dark:bg-slate-800" style={{ top: headerHeight }}>
                <tr aria-rowindex={1}>
                  {columns.map((c) => {
                    const sorted = query.sort === c.id;
                    return (
                      <th key={c.id} scope="col" aria-sort={sorted ? (query.order === 'asc' ? 'ascending' : 'descending') : 'none'} className={`px-3 py-2 text-xs font-semibold uppercase tracking-wide text-slate-700 dark:text-slate-300 ${c.align === 'right' ? 'text-right' : 'text-left'}`}>
                        <button type="button" onClick={() => sortBy(c.id)} className={`inline-flex items-center gap-1 uppercase ${c.align === 'right' ? 'ml-auto text-right' : 'text-left'}`} title={`Sort by ${c.label}`}>
                          <span>{c.header}</span>
                          <SortIcon order={sorted ? query.order : null} className="h-3.5 w-3.5 shrink-0" />
                        </button>
                      </th>
                    );
                  })}
                </tr>
              </thead>
              <tbody ref={bodyRef} onKeyDown={onRowKey}>
                {visible.length === 0 ? (
                  <tr>
                    <td colSpan={columns.length} className="p-8 text-center">
                      <p className="font-medium">No Service matches.</p>
                      <p className="mt-1 text-sm text-slate-600 dark:text-slate-400">
                        {query.q ? <>Nothing contains “{query.q}”{query.ns ? ` in ${query.ns}` : ''}. </> : null}
                        <button type="button" className={LINK} onClick={clear}>
                          Clear the filters
                        </button>
                      </p>
                    </td>
                  </tr>
                ) : null}
                {padTop > 0 ? (
                  <tr aria-hidden="true">
                    <td colSpan={columns.length} style={{ height: padTop, padding: 0, border: 0 }} />
                  </tr>
                ) : null}
                {items.map((item) => {
                  const row = visible[item.index];
                  if (!row) return null;
                  return <TableRow key={row.key} row={row} index={item.index} active={item.index === activeIndex} columns={columns} measure={virtualizer.measureElement} />;
                })}
                {padBottom > 0 ? (
                  <tr aria-hidden="true">
                    <td colSpan={columns.length} style={{ height: padBottom, padding: 0, border: 0 }} />
                  </tr>
                ) : null}
              </tbody>
            </table>
          </div>
        </>
      )}
    </div>
  );
}
