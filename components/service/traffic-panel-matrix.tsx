/**
 * The traffic matrix of one scenario: the share of the Service's traffic from each client zone
 * (rows) to each endpoint zone (columns), same-zone cells marked ✓ and cross-zone ones tinted, and
 * what is dropped per client zone when anything is.
 */
import { formatPercent } from '../ui/format';
import type { TrafficScenarioView } from './traffic-data';

/** Shares below this read as nothing (no tint, no ✓). */
const CELL_LOW = 0.0005;

export function TrafficMatrix({ s }: { readonly s: TrafficScenarioView }) {
  const anyDropped = s.droppedFraction > 0;
  return (
    <div className="overflow-x-auto">
      <table className="w-full text-sm">
        <caption className="mb-1 text-left text-xs text-slate-600 dark:text-slate-400">
          Share of the Service&apos;s total traffic from each client zone (rows) to each endpoint zone (columns). Same-zone cells are marked ✓.
        </caption>
        <thead>
          <tr className="border-b border-slate-200 text-xs uppercase tracking-wide text-slate-600 dark:border-slate-700 dark:text-slate-400">
            <th scope="col" className="py-1.5 pr-3 text-left font-medium">
              Client zone <span className="normal-case">(share)</span>
            </th>
            {s.endpointZones.map((zone) => (
              <th key={zone} scope="col" className="whitespace-nowrap px-2 py-1.5 text-right font-mono font-medium normal-case">
                → {zone}
              </th>
            ))}
            {anyDropped ? (
              <th scope="col" className="px-2 py-1.5 text-right font-medium">
                Dropped
              </th>
            ) : null}
          </tr>
        </thead>
        <tbody>
          {s.clientZones.map((client) => (
            <tr key={client} className="border-b border-slate-100 last:border-0 dark:border-slate-800">
              <th scope="row" className="whitespace-nowrap py-1.5 pr-3 text-left font-mono font-normal">
                {client} <span className="text-xs text-slate-600 dark:text-slate-400">({formatPercent(s.clientShareByZone[client] ?? 0)})</span>
              </th>
              {s.endpointZones.map((zone) => {
                const value = s.matrix[client]?.[zone] ?? 0;
                const same = client === zone;
                const cls =
                  value < CELL_LOW
                    ? 'text-slate-500 dark:text-slate-400'
                    : same
                      ? 'bg-emerald-50 text-emerald-900 dark:bg-emerald-950/60 dark:text-emerald-100'
                      : 'bg-amber-50 text-amber-900 dark:bg-amber-950/60 dark:text-amber-100';
                return (
                  <td key={zone} className={`px-2 py-1.5 text-right tabular-nums ${cls}`}>
                    {same && value >= CELL_LOW ? <span aria-hidden="true">✓ </span> : null}
                    {formatPercent(value)}
                    {same ? <span className="sr-only"> same zone</span> : value >= CELL_LOW ? <span className="sr-only"> cross-zone</span> : null}
                  </td>
                );
              })}
              {anyDropped ? <td className="px-2 py-1.5 text-right tabular-nums text-red-800 dark:text-red-300">{formatPercent(s.droppedByZone[client] ?? 0)}</td> : null}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
