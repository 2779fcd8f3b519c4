'use client';

/**
 * The HPA replica scan as a table, inside a closed "Scan as a table" disclosure: its rows (one per
 * replica count, 1,000 for a wide HPA range) are rendered when it is opened, from the same tuples
 * as the chart, so the page's HTML does not carry a table nobody has opened.
 */
import { useState } from 'react';
import type { ScanTuple } from './hpa-scan-data';

export function HpaScanTable({ scan }: { readonly scan: readonly ScanTuple[] }) {
  const [open, setOpen] = useState(false);
  return (
    <details className="text-sm" onToggle={(event) => setOpen(event.currentTarget.open)}>
      <summary className="cursor-pointer">Scan as a table</summary>
      {open ? <ScanTable scan={scan} /> : null}
    </details>
  );
}

/** The table itself: one row per replica count. */
export function ScanTable({ scan }: { readonly scan: readonly ScanTuple[] }) {
  return (
    <div className="mt-2 max-h-72 overflow-auto" tabIndex={0} aria-label="Replica scan table">
      <table className="w-full text-xs">
        <thead className="sticky top-0 bg-white dark:bg-slate-900">
          <tr className="text-left uppercase tracking-wide text-slate-600 dark:text-slate-400">
            <th scope="col" className="py-1 pr-2 font-medium">Replicas</th>
            <th scope="col" className="py-1 pr-2 text-right font-medium">Σ minimum</th>
            <th scope="col" className="py-1 pr-2 font-medium">Hints</th>
            <th scope="col" className="py-1 pr-2 font-medium">Even spread (donated)</th>
            <th scope="col" className="py-1 font-medium">Worst allowed spread (donated)</th>
          </tr>
        </thead>
        <tbody>
          {scan.map(([replicas, minimumTotal, hintsEnabled, evenDonated, worstDonated, evenCounts, worstCounts]) => (
            <tr key={replicas} className="border-t border-slate-100 dark:border-slate-800">
              <td className="py-1 pr-2 tabular-nums">{replicas}</td>
              <td className="py-1 pr-2 text-right tabular-nums">{minimumTotal}</td>
              <td className="py-1 pr-2">{hintsEnabled === 1 ? 'on' : <strong>off</strong>}</td>
              <td className="py-1 pr-2 font-mono">
                {evenCounts} ({evenDonated})
              </td>
              <td className="py-1 font-mono">
                {worstCounts} ({worstDonated})
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
