/** The per-zone minimum table with upstream's formula per row and the sum check. */
import type { MinimumTable as MinimumTableData } from '@/lib/topology/analyses/minimum-table';
import { formatDecimal, formatPercent, formatRatio } from '../ui/format';
import { Formula } from '../ui/panel';
import { Badge, Callout } from '../ui/status';

export function MinimumTable({ table }: { readonly table: MinimumTableData }) {
  const belowMinimum = table.rows.find((r) => r.maximum < r.minimum) ?? null;
  return (
    <div className="space-y-3">
      <p className="text-sm">
        Per zone, the controller requires <code className="font-mono">minimum = ceil(total × cpuRatio / 1.2)</code> ready endpoints (1.2 = 1 + the
        fixed overload threshold 0.2, not configurable). Hints stay on only if the minimums add up to no more than the {table.readyEndpoints} ready
        endpoints.
      </p>
      <div className="overflow-x-auto">
        <table className="w-full text-sm">
          <caption className="sr-only">Per-zone minimum, desired and maximum endpoints</caption>
          <thead>
            <tr className="border-b border-slate-200 text-left text-xs uppercase tracking-wide text-slate-600 dark:border-slate-700 dark:text-slate-400">
              <th scope="col" className="py-1.5 pr-3 font-medium">Zone</th>
              <th scope="col" className="py-1.5 pr-3 text-right font-medium">CPU ratio</th>
              <th scope="col" className="py-1.5 pr-3 text-right font-medium">Ready here</th>
              <th scope="col" className="py-1.5 pr-3 font-medium">Minimum = ceil(total × ratio / 1.2)</th>
              <th scope="col" className="py-1.5 pr-3 text-right font-medium" title="desired = max(total × ratio, minimum)">Desired</th>
              <th scope="col" className="py-1.5 pr-3 text-right font-medium" title="maximum = minimum + (total − Σ minimum)">Maximum</th>
              <th scope="col" className="py-1.5 font-medium">Meets minimum</th>
            </tr>
          </thead>
          <tbody>
            {table.rows.map((row) => (
              <tr key={row.zone} className="border-b border-slate-100 last:border-0 dark:border-slate-800">
                <th scope="row" className="whitespace-nowrap py-1.5 pr-3 text-left font-mono font-normal">{row.zone}</th>
                <td className="py-1.5 pr-3 text-right tabular-nums" title={String(row.cpuRatio)}>
                  {formatRatio(row.cpuRatio)}
                  <span className="block text-xs text-slate-600 dark:text-slate-400">{formatPercent(row.cpuRatio)}</span>
                </td>
                <td className="py-1.5 pr-3 text-right tabular-nums">{row.readyEndpoints}</td>
                <td className="py-1.5 pr-3 font-mono text-xs">
                  <strong className="text-sm">{row.minimum}</strong> <span className="text-slate-600 dark:text-slate-400">= {row.formula.replace(/ = \d+$/, '')}</span>
                </td>
                <td className="py-1.5 pr-3 text-right tabular-nums">{formatDecimal(row.desired)}</td>
                <td className={`py-1.5 pr-3 text-right tabular-nums ${row.maximum < row.minimum ? 'text-red-800 dark:text-red-300' : ''}`}>{row.maximum}</td>
                <td className="py-1.5">{row.meetsMinimum ? <Badge tone="ok">yes</Badge> : <Badge tone="warn">{row.minimum - row.readyEndpoints} short</Badge>}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <Callout tone={table.fits ? 'ok' : 'error'} title="Sum check">
        <p className="font-mono">{table.sumCheck}</p>
        {!table.fits ? <p>The minimums cannot all be met at once, so the controller turns hints off for the whole Service (not just the short zones).</p> : null}
        {table.fits && table.rows.some((r) => !r.meetsMinimum) ? (
          <p>The minimums fit, so hints stay on: the controller donates endpoints from zones above their maximum to the zones short of their minimum.</p>
        ) : null}
      </Callout>
      {belowMinimum ? (
        <p className="text-sm" data-testid="maximum-below-minimum">
          Maximum below minimum ({belowMinimum.zone}: minimum {belowMinimum.minimum}, maximum {belowMinimum.maximum}): maximum = minimum + (total − Σ minimum), and Σ
          minimum {table.minimumTotal} exceeds the {table.readyEndpoints} ready endpoints by {table.minimumTotal - table.readyEndpoints}, so the minimums cannot
          all be met at once. It goes away when the ready endpoints cover Σ minimum (see the smallest fix).
        </p>
      ) : null}
      {table.floatNote ? <Formula>Floating point: {table.floatNote}</Formula> : null}
      <Formula>{table.formula}. desired = max(total × ratio, minimum); maximum = minimum + (total − Σ minimum).</Formula>
    </div>
  );
}
