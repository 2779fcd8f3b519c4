'use client';

/**
 * Every endpoint of a Service as a table: address, pod, node, zone, conditions, the hints on the
 * slices now and the hints the controller would write. The server renders the first rows (what
 * needs a look first, see {@link sortEndpoints}); the complete list loads on demand.
 *
 * Once every endpoint is there, the list can be filtered (any column's text) and sorted (column
 * headers); over {@link VIRTUALIZE_OVER} rows it is virtualised in its own scroll region (the
 * region takes the keyboard focus and scrolls with the arrow keys), so 5,000 endpoints keep a few
 * dozen rows in the DOM. The table keeps its semantics: `aria-rowcount` says how many rows match,
 * each rendered row has its `aria-rowindex`.
 */
import { useVirtualizer } from '@tanstack/react-virtual';
import { useDeferredValue, useMemo, useRef, useState } from 'react';
import type { EndpointView } from '@/lib/topology/analyses/analyze-service';
import { SortIcon } from '../ui/icons';
import { hintsDiffer, sortEndpoints } from './endpoint-order';
import { FullListControls } from './full-list-controls';
import type { FullListTableProps } from './use-full-list';
import { endpointListUrl, useFullList } from './use-full-list';

/** Cell styles set once on the table (not repeated on every cell of every row). */
const TABLE =
  'w-full text-xs [&_tbody_tr]:border-t [&_tbody_tr]:border-slate-100 dark:[&_tbody_tr]:border-slate-800 [&_td]:px-2 [&_td]:py-1 [&_td]:font-mono [&_td]:whitespace-nowrap [&_th]:px-2 [&_thead_th]:py-1.5 [&_thead_th]:font-medium [&_tbody_th]:py-1 [&_tbody_th]:text-left [&_tbody_th]:font-mono [&_tbody_th]:font-normal';
const WARN = 'font-semibold text-amber-800 dark:text-amber-300';

/** Lists longer than this are virtualised (only the rows in view are in the DOM). */
export const VIRTUALIZE_OVER = 100;
const ROW_HEIGHT = 25;
/** Lists up to this long (the first rows of any list) get no filter field: it would be noise. */
const FILTER_OVER = 10;

export function conditions(e: EndpointView): string {
  if (e.ready === false) return e.terminating ? (e.serving ? 'terminating, serving' : 'terminating') : 'not ready';
  return e.ready === null ? 'unknown' : 'ready';
}

/** Hints as text, marked when they send the endpoint's traffic to another zone. */
export function hintsText(hints: readonly string[] | null, zone: string | null): string {
  if (hints === null || hints.length === 0) return 'none';
  const away = hints.some((z) => z !== zone);
  return `${hints.join(', ')}${away ? (hints.includes(zone ?? '') ? ' (shared)' : ' (donated)') : ''}`;
}

/** The sortable columns; `attention` is the default order (what needs a look first). */
export const ENDPOINT_SORTS = ['attention', 'address', 'pod', 'node', 'zone', 'conditions', 'observed', 'expected'] as const;
export type EndpointSort = (typeof ENDPOINT_SORTS)[number];

const COLUMNS: readonly { readonly id: Exclude<EndpointSort, 'attention'>; readonly label: string }[] = [
  { id: 'address', label: 'Endpoint' },
  { id: 'pod', label: 'Pod' },
  { id: 'node', label: 'Node' },
  { id: 'zone', label: 'Zone' },
  { id: 'conditions', label: 'Conditions' },
  { id: 'observed', label: 'Hints now' },
  { id: 'expected', label: 'Expected after sync' },
];

/** An address as a sort key: IPv4 octets and IPv6 groups compare as numbers. */
function addressKey(address: string): string {
  if (/^\d+(\.\d+){3}$/.test(address)) return address.split('.').map((octet) => octet.padStart(3, '0')).join('.');
  return address.replace(/[0-9a-f]+/gi, (group) => group.toLowerCase().padStart(4, '0'));
}

const SORT_TEXT: Readonly<Record<Exclude<EndpointSort, 'attention'>, (e: EndpointView) => string>> = {
  address: (e) => addressKey(e.address),
  pod: (e) => e.podName ?? '\uffff',
  node: (e) => e.nodeName ?? '\uffff',
  zone: (e) => e.zone ?? '\uffff',
  conditions: conditions,
  observed: (e) => hintsText(e.observedHints, e.zone),
  expected: (e) => hintsText(e.expectedHints, e.zone),
};

/** The text a filter matches: every column as shown, in lower case. */
function searchText(e: EndpointView): string {
  return [e.address, e.podName ?? '', e.nodeName ?? '', e.zone ?? 'unknown', conditions(e), hintsText(e.observedHints, e.zone), hintsText(e.expectedHints, e.zone)].join('\u0000').toLowerCase();
}

/**
 * The endpoints matching `filter` (case-insensitive, any column) in the order of `sort`: the
 * default order of {@link sortEndpoints}, or one column (ties by address), ascending or descending.
 */
export function filterAndSortEndpoints(endpoints: readonly EndpointView[], filter: string, sort: EndpointSort, order: 'asc' | 'desc'): EndpointView[] {
  const q = filter.trim().toLowerCase();
  const kept = q === '' ? [...endpoints] : endpoints.filter((e) => searchText(e).includes(q));
  if (sort === 'attention') {
    const sorted = sortEndpoints(kept);
    return order === 'desc' ? sorted.reverse() : sorted;
  }
  const value = SORT_TEXT[sort];
  const direction = order === 'desc' ? -1 : 1;
  const keyed = kept.map((e) => ({ e, key: value(e), address: addressKey(e.address) }));
  keyed.sort((a, b) => direction * (a.key < b.key ? -1 : a.key > b.key ? 1 : 0) || (a.address < b.address ? -1 : a.address > b.address ? 1 : 0));
  return keyed.map((k) => k.e);
}

function EndpointRow({ e, index, measure }: { readonly e: EndpointView; readonly index: number; readonly measure?: (node: Element | null) => void }) {
  const differs = hintsDiffer(e);
  return (
    <tr aria-rowindex={index + 2} data-index={index} ref={measure}>
      <th scope="row">{e.address}</th>
      <td>{e.podName ?? '—'}</td>
      <td>{e.nodeName ?? '—'}</td>
      <td>{e.zone ?? 'unknown'}</td>
      <td className={e.ready === false ? WARN : undefined}>{conditions(e)}</td>
      <td>{hintsText(e.observedHints, e.zone)}</td>
      <td className={differs ? WARN : undefined}>
        {hintsText(e.expectedHints, e.zone)}
        {differs ? <span className="sr-only"> (differs)</span> : null}
      </td>
    </tr>
  );
}

export function EndpointTable({ namespace, name, first, total, version }: FullListTableProps<EndpointView>) {
  const { state, rows, complete, load, collapse } = useFullList<EndpointView>(endpointListUrl(namespace, name, 'list=endpoints'), version, first, sortEndpoints);
  // Filter and sort work on the whole list only: on the first rows they would mislead.
  const whole = complete || total <= first.length;
  const [filter, setFilter] = useState('');
  const [sort, setSort] = useState<{ readonly by: EndpointSort; readonly order: 'asc' | 'desc' }>({ by: 'attention', order: 'asc' });
  const deferredFilter = useDeferredValue(filter);
  const shown = useMemo(() => (whole ? filterAndSortEndpoints(rows, deferredFilter, sort.by, sort.order) : rows), [whole, rows, deferredFilter, sort]);
  const virtual = shown.length > VIRTUALIZE_OVER;
  const scrollRef = useRef<HTMLDivElement>(null);
  const virtualizer = useVirtualizer({ count: virtual ? shown.length : 0, getScrollElement: () => scrollRef.current, estimateSize: () => ROW_HEIGHT, overscan: 12 });
  const items = virtual ? virtualizer.getVirtualItems() : [];
  const padTop = items[0]?.start ?? 0;
  const padBottom = items.length > 0 ? virtualizer.getTotalSize() - (items[items.length - 1]?.end ?? 0) : 0;
  const sortBy = (by: EndpointSort) => setSort((s) => ({ by, order: s.by === by && s.order === 'asc' ? 'desc' : 'asc' }));

  return (
    <div className="space-y-2">
      <div
        ref={scrollRef}
        className={`relative overflow-auto rounded border border-slate-200 dark:border-slate-700 ${complete || virtual ? 'max-h-[32rem]' : ''}`}
        tabIndex={0}
        role="region"
        aria-label="Endpoints"
      >
        <table className={`${TABLE} min-w-[44rem]`} aria-rowcount={shown.length + 1}>
          <caption className="sr-only">
            Endpoints: pod, node, zone, conditions and zone hints ({shown.length} of {complete ? rows.length : total}
            {whole && deferredFilter.trim() ? `, matching “${deferredFilter.trim()}”` : ''})
          </caption>
          <thead className="sticky top-0 z-10 bg-slate-100 dark:bg-slate-800">
            <tr aria-rowindex={1} className="text-left text-xs uppercase tracking-wide text-slate-600 dark:text-slate-300">
              {COLUMNS.map((c) => {
                const sorted = whole && sort.by === c.id;
                return (
                  <th key={c.id} scope="col" aria-sort={whole ? (sorted ? (sort.order === 'asc' ? 'ascending' : 'descending') : 'none') : undefined}>
                    {whole ? (
                      <button type="button" className="inline-flex items-center gap-1 uppercase" onClick={() => sortBy(c.id)} title={`Sort by ${c.label}`}>
                        {c.label}
                        <SortIcon order={sorted ? sort.order : null} className="h-3 w-3 shrink-0" />
                      </button>
                    ) : (
                      c.label
                    )}
                  </th>
                );
              })}
            </tr>
          </thead>
          <tbody>
            {whole && shown.length === 0 ? (
              <tr>
                <td colSpan={COLUMNS.length} className="p-4 text-center font-sans">
                  No endpoint matches “{deferredFilter.trim()}”.
                </td>
              </tr>
            ) : null}
            {padTop > 0 ? (
              <tr aria-hidden="true">
                <td colSpan={COLUMNS.length} style={{ height: padTop, padding: 0, border: 0 }} />
              </tr>
            ) : null}
            {virtual
              ? items.map((item) => {
                  const e = shown[item.index];
                  return e ? <EndpointRow key={e.address} e={e} index={item.index} measure={virtualizer.measureElement} /> : null;
                })
              : shown.map((e, index) => <EndpointRow key={e.address} e={e} index={index} />)}
            {padBottom > 0 ? (
              <tr aria-hidden="true">
                <td colSpan={COLUMNS.length} style={{ height: padBottom, padding: 0, border: 0 }} />
              </tr>
            ) : null}
          </tbody>
        </table>
      </div>
      <FullListControls
        state={state}
        shown={rows.length}
        total={total}
        noun="endpoints"
        order={sort.by === 'attention' ? 'not ready, differing and donated first, then by zone' : `by ${COLUMNS.find((c) => c.id === sort.by)?.label.toLowerCase() ?? sort.by}`}
        onLoad={load}
        onCollapse={collapse}
        filter={whole && rows.length > FILTER_OVER ? { label: 'Filter endpoints', value: filter, onChange: setFilter, matched: shown.length, placeholder: 'address, pod, node, zone, hint…' } : undefined}
      />
    </div>
  );
}
