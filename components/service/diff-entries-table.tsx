'use client';

/**
 * The endpoints whose hints on the slices differ from what the controller would write. The server
 * renders the first rows (stale, then missing, then unexpected hints); the rest load on demand.
 */
import type { HintsDiffEntry } from '@/lib/topology/analyses/hints-diff';
import { sortDiffEntries } from './endpoint-order';
import { FullListControls } from './full-list-controls';
import type { FullListTableProps } from './use-full-list';
import { endpointListUrl, useFullList } from './use-full-list';

/** Cell styles set once on the table (not repeated on every cell of every row). */
const TABLE =
  'w-full text-xs [&_tbody_tr]:border-t [&_tbody_tr]:border-slate-100 dark:[&_tbody_tr]:border-slate-800 [&_td]:px-2 [&_td]:py-1 [&_td]:font-mono [&_th]:px-2 [&_th]:py-1.5 [&_th]:font-medium';

function zonesText(zones: readonly string[] | null): string {
  return zones === null || zones.length === 0 ? 'none' : zones.join(', ');
}

export function DiffEntriesTable({ namespace, name, first, total, version }: FullListTableProps<HintsDiffEntry>) {
  const { state, rows, load, collapse } = useFullList<HintsDiffEntry>(endpointListUrl(namespace, name, 'list=diff'), version, first, sortDiffEntries);
  return (
    <div className="space-y-2">
      <div className="max-h-96 overflow-auto rounded border border-slate-200 dark:border-slate-700" tabIndex={0} aria-label="Endpoints whose hints differ">
        <table className={TABLE}>
          <caption className="sr-only">Endpoints whose hints differ</caption>
          <thead className="sticky top-0 bg-slate-100 dark:bg-slate-800">
            <tr className="text-left text-xs uppercase tracking-wide text-slate-600 dark:text-slate-300">
              <th scope="col">Endpoint</th>
              <th scope="col">Zone</th>
              <th scope="col">Hints now</th>
              <th scope="col">Expected</th>
              <th scope="col">Difference</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((entry) => (
              <tr key={entry.address}>
                <td>{entry.address}</td>
                <td>{entry.zone ?? 'unknown'}</td>
                <td>{zonesText(entry.observed)}</td>
                <td>{zonesText(entry.expected)}</td>
                <td className="font-sans">{entry.kind}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <FullListControls state={state} shown={rows.length} total={total} noun="differing endpoints" order="stale, missing, then unexpected hints" onLoad={load} onCollapse={collapse} />
    </div>
  );
}
