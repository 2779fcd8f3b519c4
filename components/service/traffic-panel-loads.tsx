'use client';

/**
 * Per-endpoint load of one scenario against a fair share (delivered traffic ÷ endpoints), busiest
 * first: the first rows come with the page, the rest on demand (./use-full-list.ts), fetched again
 * when the page's data changes.
 */
import { formatPercent } from '../ui/format';
import { sortLoads } from './endpoint-order';
import { FullListControls } from './full-list-controls';
import { OVERLOAD } from './traffic-data';
import type { LoadRowData, TrafficScenarioView } from './traffic-data';
import { endpointListUrl, useFullList } from './use-full-list';

/** Cell styles set once on the table (not repeated on every cell of every row). */
const LOAD_TABLE =
  'w-full text-xs [&_tbody_tr]:border-t [&_tbody_tr]:border-slate-100 dark:[&_tbody_tr]:border-slate-800 [&_td]:py-1 [&_th]:py-1 [&_th]:pr-2 [&_th]:font-medium';

function LoadRow({ load, scale }: { readonly load: LoadRowData; readonly scale: number }) {
  const over = load.relativeLoad > OVERLOAD;
  return (
    <tr>
      <td className="pr-2 font-mono" title={load.podName ?? undefined}>
        {load.endpoint}
      </td>
      <td className="whitespace-nowrap pr-2 font-mono">{load.zone}</td>
      <td className="pr-2 text-right tabular-nums">{formatPercent(load.load)}</td>
      <td>
        <div className="flex items-center gap-2">
          <div className="relative h-3 flex-1 rounded bg-slate-100 dark:bg-slate-800" aria-hidden="true">
            <div className={`h-3 rounded ${over ? 'bg-amber-500' : 'bg-sky-500'}`} style={{ width: `${Math.min(100, (load.relativeLoad / scale) * 100)}%` }} />
            <div className="absolute inset-y-[-2px] w-0.5 bg-slate-700 dark:bg-slate-200" style={{ left: `${(1 / scale) * 100}%` }} title="fair share" />
          </div>
          <span className={`w-14 text-right tabular-nums ${over ? 'font-semibold text-amber-800 dark:text-amber-300' : ''}`}>
            {load.relativeLoad.toFixed(2)}×{over ? ' ▲' : ''}
          </span>
        </div>
      </td>
    </tr>
  );
}

export function EndpointLoads({ s, namespace, name, version }: { readonly s: TrafficScenarioView; readonly namespace: string; readonly name: string; readonly version: number }) {
  const { state, rows, load, collapse } = useFullList<LoadRowData>(endpointListUrl(namespace, name, `list=loads&scenario=${s.id}`), version, s.loads, sortLoads);
  if (s.loadCount === 0) return <p className="text-sm text-slate-700 dark:text-slate-300">No endpoint receives traffic.</p>;
  const scale = Math.max(2, s.maxRelativeLoad * 1.05);
  return (
    <div className="space-y-1">
      <p className="text-xs text-slate-600 dark:text-slate-400">
        Load relative to a fair share (delivered traffic ÷ {s.loadCount} endpoints); 1.00× = fair. {s.overloadedCount} of {s.loadCount} endpoint{s.loadCount === 1 ? '' : 's'} above{' '}
        {OVERLOAD.toFixed(1)}× (▲); the least loaded at {s.minRelativeLoad.toFixed(2)}×.
      </p>
      <div className="max-h-72 overflow-auto" tabIndex={0} aria-label="Per-endpoint load">
        <table className={LOAD_TABLE}>
          <caption className="sr-only">Per-endpoint load against the fair share</caption>
          <thead className="sticky top-0 bg-white dark:bg-slate-900">
            <tr className="text-left uppercase tracking-wide text-slate-600 dark:text-slate-400">
              <th scope="col">Endpoint</th>
              <th scope="col">Zone</th>
              <th scope="col" className="text-right">
                Share
              </th>
              <th scope="col" className="w-2/5">
                vs fair share
              </th>
            </tr>
          </thead>
          <tbody>
            {rows.map((l) => (
              <LoadRow key={l.endpoint} load={l} scale={scale} />
            ))}
          </tbody>
        </table>
      </div>
      <FullListControls state={state} shown={rows.length} total={s.loadCount} noun="endpoint loads" order="busiest first" onLoad={load} onCollapse={collapse} />
    </div>
  );
}
