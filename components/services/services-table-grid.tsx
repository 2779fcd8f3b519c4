'use client';

/**
 * The Services table's grid: sortable column headers (sticky below the site header from the `lg`
 * breakpoint; from `md` to `lg` the table scrolls sideways inside its own labelled region; on a
 * phone, below `md`, only the priority columns show — Service, hints, cross-zone share, cost — so
 * the table fits the screen), and the rows,
 * virtualised with @tanstack/react-virtual against the page's own scroll (no nested scroll box):
 * only the visible rows (plus overscan) are in the DOM, so 10,000 Services stay far below 2,000
 * DOM nodes. The Service links of the rows are one roving tab stop: ArrowUp/ArrowDown (Home/End,
 * PageUp/PageDown) move between rows, Enter opens the row's Service.
 */
import { memo, useCallback, useEffect, useLayoutEffect, useRef, useState } from 'react';
import type { KeyboardEvent as ReactKeyboardEvent } from 'react';
import { useWindowVirtualizer } from '@tanstack/react-virtual';
import type { TableQuery, TableSortKey } from '@/lib/shared/services-table-url';
import { SortIcon } from '../ui/icons';
import { LINK } from '../ui/panel';
import type { ColumnConfig } from './services-table-columns';
import type { Row } from './services-table-rows';

const ROW_HEIGHT = 64;
/** Rows the server renders (and the first paint shows) before the browser measures the window. */
const INITIAL_RECT = { width: 1280, height: 900 };

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

/** The display of a column's cells: every column from `md`, only the phone ones below it. */
function shownOn(column: ColumnConfig): string {
  return column.phone !== undefined ? '' : 'hidden md:table-cell';
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
        <td key={c.id} className={`px-1.5 py-1 align-middle md:px-3 ${shownOn(c)}`}>
          {c.render(row, active)}
        </td>
      ))}
    </tr>
  );
});

export function ServicesTableGrid({
  columns,
  visible,
  query,
  onSort,
  onClear,
  active,
  onActive,
}: {
  readonly columns: readonly ColumnConfig[];
  /** The rows matching the query, in its order. */
  readonly visible: readonly Row[];
  readonly query: TableQuery;
  readonly onSort: (id: TableSortKey) => void;
  /** Clears every filter (offered when nothing matches). */
  readonly onClear: () => void;
  /** The row whose Service link is the table's one tab stop (roving focus), as an index into `visible` (the owner puts it back on the first row for a new filter). */
  readonly active: number;
  readonly onActive: (index: number) => void;
}) {
  const bodyRef = useRef<HTMLTableSectionElement>(null);
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
  const activeIndex = Math.min(active, Math.max(0, visible.length - 1));
  const focusWanted = useRef(false);

  // After an arrow key: once the row is rendered, its link takes the focus. The row may appear only
  // after the scroll has moved the virtualizer's window, a frame or more later, so look again each
  // frame (for up to a second) rather than only after this render.
  useEffect(() => {
    if (!focusWanted.current) return;
    let frame = 0;
    let handle = 0;
    const attempt = () => {
      const link = bodyRef.current?.querySelector<HTMLAnchorElement>(`tr[data-index="${activeIndex}"] a[data-row-link]`);
      if (link) {
        focusWanted.current = false;
        link.focus({ preventScroll: true });
      } else if (focusWanted.current && ++frame < 60) {
        handle = requestAnimationFrame(attempt);
      }
    };
    attempt();
    return () => cancelAnimationFrame(handle);
  });

  const moveTo = useCallback(
    (index: number) => {
      const target = Math.max(0, Math.min(visible.length - 1, index));
      focusWanted.current = true;
      onActive(target);
      virtualizer.scrollToIndex(target, { align: 'auto' });
    },
    [visible.length, virtualizer, onActive],
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

  return (
    <>
      <p className="hidden text-xs text-slate-600 md:block lg:hidden dark:text-slate-400" aria-hidden="true">
        The table scrolls sideways: swipe or use the arrow keys on it →
      </p>
      <p className="text-xs text-slate-600 md:hidden dark:text-slate-400">
        On a narrow screen the table shows the Service, its hints, cross-zone share and cost; open a Service for the rest, or sort by any column above.
      </p>
      {/* From md to lg the table is wider than the screen and scrolls inside this region; on a phone (fewer columns) and from lg it fits and the page scrolls it. */}
      <div
        className="relative overflow-x-auto rounded-lg border border-slate-200 bg-white lg:overflow-visible dark:border-slate-800 dark:bg-slate-900"
        tabIndex={0}
        role="region"
        aria-label="Services table"
      >
        {/* (Column widths on the header cells, which fixed layout reads: a hidden column's <col> would still take its place.) */}
        <table className="w-full table-fixed border-collapse text-sm md:min-w-[76rem] lg:min-w-0" aria-rowcount={visible.length + 1}>
          <caption className="sr-only">
            Services with their topology mechanism, hints observed and expected, reason, endpoints per zone, what the HPA's range does to the hints, cross-zone share, measured minus predicted cross-zone share, monthly volume with where it comes from, and cross-zone cost per month. Column headers sort (numbers largest first); arrow keys move between rows.
          </caption>
          <thead className="z-10 bg-slate-100 lg:sticky dark:bg-slate-800" style={{ top: headerHeight }}>
            <tr aria-rowindex={1}>
              {columns.map((c) => {
                const sorted = query.sort === c.id;
                return (
                  <th
                    key={c.id}
                    scope="col"
                    aria-sort={sorted ? (query.order === 'asc' ? 'ascending' : 'descending') : 'none'}
                    className={`px-1.5 py-2 align-bottom text-xs font-semibold text-slate-700 md:px-2 md:uppercase xl:px-3 xl:tracking-wide dark:text-slate-300 ${c.phone ?? ''} ${c.width} ${shownOn(c)} ${c.align === 'right' ? 'text-right' : 'text-left'}`}
                  >
                    <button
                      type="button"
                      onClick={() => onSort(c.id)}
                      className={`inline-flex max-w-full items-center gap-1 md:uppercase ${c.align === 'right' ? 'ml-auto text-right' : 'text-left'}`}
                      title={`Sort by ${c.label}`}
                    >
                      <span className="min-w-0 break-words md:break-normal">
                        {c.phoneHeader === undefined ? (
                          c.header
                        ) : (
                          <>
                            <span className="md:hidden">{c.phoneHeader}</span>
                            <span className="hidden md:inline">{c.header}</span>
                          </>
                        )}
                      </span>
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
                    <button type="button" className={LINK} onClick={onClear}>
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
  );
}
