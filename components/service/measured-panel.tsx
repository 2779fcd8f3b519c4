/**
 * Measured against predicted, for one Service: the cross-zone share Prometheus measured (zone-
 * resolved flow bytes) beside the share the model predicts now, the difference in points, the
 * measured client-zone shares against the model's, the measured matrix, and — when they disagree
 * by more than {@link AGREEMENT_POINTS} points — the known causes, those that fit this Service
 * first, each with what was checked. With pod bytes only, one sentence: the volume is measured,
 * the zone split is the model's. Server component (no state).
 */
import type { MeasuredComparison } from '@/lib/topology/analyses/measured-vs-predicted';
import { AGREEMENT_POINTS } from '@/lib/topology/analyses/measured-vs-predicted';
import type { MeasuredServiceTraffic } from '@/lib/topology/analyses/traffic-volume';
import { formatGb } from '../overview/zone-traffic-source';
import { formatPercent, formatTimestamp } from '../ui/format';
import { Callout } from '../ui/status';

function points(value: number): string {
  const rounded = Math.round(value * 10) / 10;
  return `${rounded > 0 ? '+' : rounded < 0 ? '−' : '±'}${Math.abs(rounded).toFixed(1)} points`;
}

function sortedZones(...maps: readonly Readonly<Record<string, unknown>>[]): string[] {
  return [...new Set(maps.flatMap((m) => Object.keys(m)))].sort();
}

const TH = 'py-1 pr-3 font-medium';
const HEAD = 'border-b border-slate-200 text-left text-xs uppercase tracking-wide text-slate-600 dark:border-slate-700 dark:text-slate-400';
const ROW = 'border-b border-slate-100 last:border-0 dark:border-slate-800';

function ClientShares({ comparison }: { readonly comparison: MeasuredComparison }) {
  const zones = sortedZones(comparison.measuredClientShareByZone, comparison.predictedClientShareByZone);
  return (
    <div className="overflow-x-auto">
      <table className="w-full text-sm">
        <caption className="mb-1 text-left text-xs text-slate-600 dark:text-slate-400">Where the clients are: share of the Service&apos;s traffic sent from each zone.</caption>
        <thead>
          <tr className={HEAD}>
            <th scope="col" className={TH}>Client zone</th>
            <th scope="col" className={`${TH} text-right`}>Measured</th>
            <th scope="col" className={`${TH} text-right`}>Model (zone CPU)</th>
            <th scope="col" className="py-1 text-right font-medium">Difference</th>
          </tr>
        </thead>
        <tbody>
          {zones.map((zone) => {
            const m = comparison.measuredClientShareByZone[zone] ?? 0;
            const p = comparison.predictedClientShareByZone[zone] ?? 0;
            return (
              <tr key={zone} className={ROW}>
                <th scope="row" className="whitespace-nowrap py-1 pr-3 text-left font-mono font-normal">{zone}</th>
                <td className="whitespace-nowrap py-1 pr-3 text-right tabular-nums">{formatPercent(m)}</td>
                <td className="whitespace-nowrap py-1 pr-3 text-right tabular-nums">{formatPercent(p)}</td>
                <td className="whitespace-nowrap py-1 text-right tabular-nums">{points((m - p) * 100)}</td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}

function MeasuredMatrix({ matrix }: { readonly matrix: Readonly<Record<string, Readonly<Record<string, number>>>> }) {
  const clients = Object.keys(matrix).sort();
  const columns = sortedZones(...clients.map((c) => matrix[c] ?? {}));
  let total = 0;
  for (const c of clients) for (const z of columns) total += matrix[c]?.[z] ?? 0;
  return (
    <div className="overflow-x-auto">
      <table className="w-full text-sm">
        <caption className="mb-1 text-left text-xs text-slate-600 dark:text-slate-400">
          Measured bytes per month from each client zone (rows) to each endpoint zone (columns), with the share of the Service&apos;s total. Same-zone cells are marked ✓.
        </caption>
        <thead>
          <tr className={HEAD}>
            <th scope="col" className={TH}>Client zone</th>
            {columns.map((zone) => (
              <th key={zone} scope="col" className="whitespace-nowrap px-2 py-1 text-right font-mono font-medium normal-case">
                → {zone}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {clients.map((client) => (
            <tr key={client} className={ROW}>
              <th scope="row" className="whitespace-nowrap py-1 pr-3 text-left font-mono font-normal">{client}</th>
              {columns.map((zone) => {
                const gb = matrix[client]?.[zone] ?? 0;
                const same = zone === client;
                return (
                  <td key={zone} className={`whitespace-nowrap px-2 py-1 text-right tabular-nums ${gb > 0 ? (same ? 'bg-emerald-50 dark:bg-emerald-950/60' : 'bg-amber-50 dark:bg-amber-950/60') : 'text-slate-500 dark:text-slate-400'}`}>
                    {same && gb > 0 ? <span aria-hidden="true">✓ </span> : null}
                    {formatGb(gb)} <span className="text-xs text-slate-600 dark:text-slate-400">({formatPercent(total > 0 ? gb / total : 0)})</span>
                    <span className="sr-only">{same ? ' same zone' : ' cross-zone'}</span>
                  </td>
                );
              })}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

export function MeasuredPanel({
  measured,
  comparison,
  window,
  measuredAt,
}: {
  readonly measured: MeasuredServiceTraffic;
  readonly comparison: MeasuredComparison | null;
  readonly window: string | null;
  readonly measuredAt: string | null;
}) {
  const when = `rate over ${window ?? 'the query window'}${measuredAt ? `, measured ${formatTimestamp(measuredAt)}` : ''}`;
  if (measured.kind === 'measured-pod-bytes' || measured.matrix === null || comparison === null) {
    return (
      <p className="text-sm text-slate-700 dark:text-slate-300" data-testid="measured-pod-bytes">
        Volume measured: {formatGb(measured.gbPerMonth)} per month from <span className="font-mono">{measured.metric}</span> ({when}). These pod byte counters carry no zones, so the zone
        split shown here is the model&apos;s prediction, not a measurement.
      </p>
    );
  }
  const fitting = comparison.causes.filter((c) => c.fits);
  const others = comparison.causes.filter((c) => !c.fits);
  return (
    <div className="space-y-4">
      <p className="text-xs text-slate-600 dark:text-slate-400">
        Measured from <span className="font-mono">{measured.metric}</span>, {when}: {formatGb(measured.gbPerMonth)} per month.
      </p>
      <dl className="grid grid-cols-1 gap-2 sm:grid-cols-3">
        <div className="rounded-md border border-slate-200 p-2 dark:border-slate-800">
          <dt className="text-xs text-slate-600 dark:text-slate-400">Measured cross-zone</dt>
          <dd className="text-xl font-semibold tabular-nums" data-testid="measured-cross-zone">{formatPercent(comparison.measuredCrossZoneFraction)}</dd>
        </div>
        <div className="rounded-md border border-slate-200 p-2 dark:border-slate-800">
          <dt className="text-xs text-slate-600 dark:text-slate-400">Predicted now</dt>
          <dd className="text-xl font-semibold tabular-nums" data-testid="predicted-cross-zone">{formatPercent(comparison.predictedCrossZoneFraction)}</dd>
        </div>
        <div className="rounded-md border border-slate-200 p-2 dark:border-slate-800">
          <dt className="text-xs text-slate-600 dark:text-slate-400">Difference</dt>
          <dd className={`text-xl font-semibold tabular-nums ${comparison.agrees ? '' : 'text-amber-800 dark:text-amber-300'}`} data-testid="measured-difference">
            {points(comparison.differencePoints)}
          </dd>
        </div>
      </dl>
      {comparison.agrees ? (
        <Callout tone="ok" title={`Measured and predicted agree (within ${AGREEMENT_POINTS} points)`}>
          <p>The model&apos;s prediction of this Service&apos;s cross-zone share holds for the traffic Prometheus saw.</p>
        </Callout>
      ) : (
        <Callout tone="warn" title={`Measured and predicted disagree by ${Math.abs(comparison.differencePoints).toFixed(1)} points`}>
          <p>
            {fitting.length > 0
              ? `${fitting.length === 1 ? 'One known cause fits' : `${fitting.length} known causes fit`} this Service:`
              : 'None of the known causes fits this Service; check how its clients reach it.'}
          </p>
          {fitting.length > 0 ? (
            <ul className="mt-1 list-disc space-y-1 pl-5" aria-label="Known causes that fit this Service">
              {fitting.map((c) => (
                <li key={c.id} data-cause={c.id}>
                  <strong>{c.title}</strong>: {c.why}
                </li>
              ))}
            </ul>
          ) : null}
        </Callout>
      )}
      {!comparison.agrees && others.length > 0 ? (
        <details className="text-sm">
          <summary className="cursor-pointer text-slate-700 dark:text-slate-300">Known causes that do not fit ({others.length})</summary>
          <ul className="mt-1 list-disc space-y-1 pl-5">
            {others.map((c) => (
              <li key={c.id} data-cause={c.id}>
                <strong>{c.title}</strong>: {c.why}
              </li>
            ))}
          </ul>
        </details>
      ) : null}
      <ClientShares comparison={comparison} />
      <MeasuredMatrix matrix={measured.matrix} />
    </div>
  );
}
