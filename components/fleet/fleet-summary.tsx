/**
 * The fleet page's answer line: which cluster spends most on cross-zone traffic, how much of the
 * fleet's spend that is, what its best mechanisms would save, and why — its costliest Service with
 * the reason and the smallest fix, and the reason most of its Services need attention.
 */

import type { FleetLeader } from '@/lib/views/fleet/fleet';
import type { FleetRow } from '@/lib/views/fleet/row';
import { formatPercent, formatUsd, plural } from '../ui/format';
import { LINK } from '../ui/panel';
import { commonAttentionWords, shortTime } from './fleet-labels';

export function FleetSummary({ leader, rows, now }: { readonly leader: FleetLeader | null; readonly rows: readonly FleetRow[]; readonly now: string }) {
  if (leader === null) {
    const syncing = rows.filter((r) => r.freshness.kind === 'syncing').length;
    return (
      <p className="text-sm" data-testid="fleet-answer">
        No cluster has cross-zone figures yet
        {syncing > 0 ? `: ${plural(syncing, 'cluster')} still syncing, the page updates on its own.` : ': none could be analysed (see each cluster’s state below).'}
      </p>
    );
  }
  const { row, share, total, counted } = leader;
  const cost = row.crossZoneMonthly ?? 0;
  if (cost <= 0) {
    return (
      <p className="text-sm" data-testid="fleet-answer">
        No cluster spends anything on cross-zone traffic ({plural(counted, 'cluster')} with figures).
      </p>
    );
  }
  const top = row.topService;
  const common = row.commonAttention;
  return (
    <div className="space-y-2 text-sm" data-testid="fleet-answer">
      <p className="text-base">
        {row.href !== null ? (
          <a href={row.href} className={`${LINK} font-semibold`}>
            {row.displayName}
          </a>
        ) : (
          <strong>{row.displayName}</strong>
        )}
        {row.source === 'prometheus' ? <span className="text-slate-600 dark:text-slate-400"> (from the fleet Prometheus)</span> : null}{' '}
        spends most on cross-zone traffic: <strong className="tabular-nums">{formatUsd(cost)}</strong> per month
        {counted > 1 ? (
          <>
            , {formatPercent(share, 0)} of the <span className="tabular-nums">{formatUsd(total)}</span> of {plural(counted, 'cluster')} with figures
          </>
        ) : null}
        {row.saving !== null && row.saving > 0 ? (
          <>
            ; <span className="tabular-nums">{formatUsd(row.saving)}</span> of it goes away with each Service on its best mechanism
          </>
        ) : null}
        .{row.asOf !== null && row.asOf !== now ? <span className="text-amber-800 dark:text-amber-300"> (Figures as of {shortTime(row.asOf, now)}.)</span> : null}
      </p>
      {top !== null || common !== null ? (
        <ul className="list-disc space-y-1 pl-5">
          {top !== null ? (
            <li>
              Costliest Service:{' '}
              {top.href !== null ? (
                <a href={top.href} className={`${LINK} font-mono`}>
                  {top.namespace}/{top.name}
                </a>
              ) : (
                <span className="font-mono">
                  {top.namespace}/{top.name}
                </span>
              )}{' '}
              at <span className="tabular-nums">{formatUsd(top.monthlyCost)}</span> per month
              {top.reason !== null ? <> — {top.reason}</> : null}
              {top.fix !== null ? (
                <>
                  {' '}
                  Smallest fix: <strong>{top.fix}</strong>
                  {top.bestMonthlyCost !== null && top.bestMonthlyCost < top.monthlyCost ? <> (to {formatUsd(top.bestMonthlyCost)} per month)</> : null}.
                </>
              ) : null}
            </li>
          ) : null}
          {common !== null ? (
            <li>
              Most Services needing attention there:{' '}
              <a href={common.href} className={LINK}>
                {commonAttentionWords(common)}
              </a>
              .
            </li>
          ) : null}
        </ul>
      ) : null}
      <MixedVolumes rows={rows} />
    </div>
  );
}

/**
 * When some clusters' figures come from measured volumes and others' from set or assumed ones,
 * the ranking compares unlike figures: say which are which (a connected cluster other than the
 * default has no measured traffic; rows from the fleet Prometheus carry their own kind).
 */
function MixedVolumes({ rows }: { readonly rows: readonly FleetRow[] }) {
  const counted = rows.filter((r) => r.crossZoneMonthly !== null && r.measured !== null);
  const measured = counted.filter((r) => r.measured === true).map((r) => r.displayName);
  const modelled = counted.filter((r) => r.measured === false).map((r) => r.displayName);
  if (measured.length === 0 || modelled.length === 0) return null;
  return (
    <p className="text-xs text-amber-800 dark:text-amber-300" data-testid="fleet-mixed-volumes">
      Compare with care: traffic volumes are measured for {measured.join(', ')} but set or assumed (the configured or default GB per month per Service) for{' '}
      {modelled.join(', ')}, so their costs are not figures of the same kind.
    </p>
  );
}
