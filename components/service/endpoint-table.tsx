'use client';

/**
 * Every endpoint of a Service as a table: address, pod, node, zone, conditions, the hints on the
 * slices now and the hints the controller would write. The server renders the first rows (what
 * needs a look first, see {@link sortEndpoints}); the complete list loads on demand.
 */
import type { EndpointView } from '@/lib/topology/analyses/analyze-service';
import { hintsDiffer, sortEndpoints } from './endpoint-order';
import { FullListControls } from './full-list-controls';
import type { FullListTableProps } from './use-full-list';
import { endpointListUrl, useFullList } from './use-full-list';

/** Cell styles set once on the table (not repeated on every cell of every row). */
const TABLE =
  'w-full text-xs [&_tbody_tr]:border-t [&_tbody_tr]:border-slate-100 dark:[&_tbody_tr]:border-slate-800 [&_td]:px-2 [&_td]:py-1 [&_td]:font-mono [&_th]:px-2 [&_thead_th]:py-1.5 [&_thead_th]:font-medium [&_tbody_th]:py-1 [&_tbody_th]:text-left [&_tbody_th]:font-mono [&_tbody_th]:font-normal';
const WARN = 'font-semibold text-amber-800 dark:text-amber-300';

function conditions(e: EndpointView): string {
  if (e.ready === false) return e.terminating ? (e.serving ? 'terminating, serving' : 'terminating') : 'not ready';
  return e.ready === null ? 'unknown' : 'ready';
}

/** Hints as text, marked when they send the endpoint's traffic to another zone. */
export function hintsText(hints: readonly string[] | null, zone: string | null): string {
  if (hints === null || hints.length === 0) return 'none';
  const away = hints.some((z) => z !== zone);
  return `${hints.join(', ')}${away ? (hints.includes(zone ?? '') ? ' (shared)' : ' (donated)') : ''}`;
}

function EndpointRow({ e }: { readonly e: EndpointView }) {
  const differs = hintsDiffer(e);
  return (
    <tr>
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
  return (
    <div className="space-y-2">
      <div className={`overflow-auto rounded border border-slate-200 dark:border-slate-700 ${complete ? 'max-h-[32rem]' : ''}`} tabIndex={0} aria-label="Endpoints">
        <table className={TABLE}>
          <caption className="sr-only">
            Endpoints: pod, node, zone, conditions and zone hints ({rows.length} of {complete ? rows.length : total})
          </caption>
          <thead className="sticky top-0 bg-slate-100 dark:bg-slate-800">
            <tr className="text-left text-xs uppercase tracking-wide text-slate-600 dark:text-slate-300">
              <th scope="col">Endpoint</th>
              <th scope="col">Pod</th>
              <th scope="col">Node</th>
              <th scope="col">Zone</th>
              <th scope="col">Conditions</th>
              <th scope="col">Hints now</th>
              <th scope="col">Expected after sync</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((e) => (
              <EndpointRow key={e.address} e={e} />
            ))}
          </tbody>
        </table>
      </div>
      <FullListControls state={state} shown={rows.length} total={total} noun="endpoints" order="not ready, differing and donated first, then by zone" onLoad={load} onCollapse={collapse} />
    </div>
  );
}
