'use client';

/**
 * The Service page's "History" panel: what happened to this Service's hints, endpoints and
 * cross-zone share over the last 1 h–7 days, read back from the Prometheus that scrapes zonescope's
 * own /metrics (`GET /api/v1/services/{ns}/{name}/history?range=…`). The panel loads after the page
 * (it never delays or breaks it), keeps the range in the URL (`?history=7d`), and shows the
 * Changes table newest first and, after a mechanism change, the before/after comparison.
 * `ServiceHistoryContent` renders one answer without fetching (tests render it from DTO fixtures).
 */
import type { HistoryComparison, HistoryWindowFigures, ServiceHistory } from '@/lib/shared/history-types';
import { formatPercent, formatUsd, mechanismLabel } from '../ui/format';
import { chartStart, formatUtc, historyUrl, isoOf, lastValue, noChangeText, seriesExtent } from './history-format';
import { firstSampleTime } from '@/lib/shared/history-range';
import { ChangesTable, FrameLine, HistoryStatusMessage, IntervalList, IntervalStrip, SERVICE_HISTORY_HEIGHT } from './history-parts';
import { HistoryLoader } from './history-loader';
import { HistoryChart } from './service-history-chart';

export function ServiceHistoryPanel({ namespace, name }: { readonly namespace: string; readonly name: string }) {
  return <HistoryLoader<ServiceHistory> url={(r) => historyUrl({ namespace, name }, r)} height={SERVICE_HISTORY_HEIGHT} what="the Service's history" render={(history, now) => <ServiceHistoryContent history={history} now={now} />} />;
}

/** One answer, rendered: the status message, or the strip, charts, text alternative, comparison and Changes. */
export function ServiceHistoryContent({ history, now }: { readonly history: ServiceHistory; /** Unix seconds the relative times count from. */ readonly now: number }) {
  if (history.status.state !== 'ok') return <HistoryStatusMessage status={history.status} prometheus={history.prometheus} />;
  const first = firstSampleTime([history.hintsObserved], [history.readyEndpoints, history.crossZone]);
  const view = { ...history, start: chartStart(history, first) };
  return (
    <div className="space-y-4">
      <FrameLine frame={history} extra={view.start > history.start && first !== null ? <>Prometheus holds zonescope&apos;s series from {formatUtc(first)} only: the charts start there.</> : undefined} />
      <IntervalStrip intervals={history.hintsObserved} frame={view} label="Hints" />
      <HistoryChart history={view} />
      <details className="text-sm">
        <summary className="cursor-pointer text-slate-700 dark:text-slate-300">The charts as text</summary>
        <div className="mt-2 space-y-2">
          <ServiceHistoryFacts history={history} />
        </div>
      </details>
      {history.comparison ? <ComparisonBlock comparison={history.comparison} /> : null}
      <ChangesTable transitions={history.transitions} now={now} empty={noChangeText('hints', history.hintsObserved, history)} />
    </div>
  );
}

/** Per-series figures in sentences: the charts' text alternative. */
export function serviceHistoryFacts(history: ServiceHistory): string[] {
  const out: string[] = [];
  const minimum = new Map(history.minimumEndpoints.map((s) => [s.key, s]));
  for (const s of history.readyEndpoints) {
    const extent = seriesExtent(s);
    const min = minimum.get(s.key);
    const minNow = lastValue(min);
    out.push(
      extent === null
        ? `${s.label}: no ready-endpoint samples.`
        : `${s.label}: ${lastValue(s) ?? '—'} ready endpoints at the end (between ${extent.min} and ${extent.max} in the range)${minNow !== null ? `; minimum ${minNow}` : ''}.`,
    );
  }
  if (history.readyEndpoints.length === 0) out.push('No ready endpoints recorded in the range.');
  for (const s of history.crossZone) {
    const extent = seriesExtent(s);
    out.push(extent === null ? `${s.label} cross-zone share: no samples.` : `${s.label} cross-zone share: ${formatPercent(lastValue(s))} at the end (between ${formatPercent(extent.min)} and ${formatPercent(extent.max)}).`);
  }
  return out;
}

function ServiceHistoryFacts({ history }: { readonly history: ServiceHistory }) {
  return (
    <>
      <p className="font-medium">Hints on the slices</p>
      <IntervalList intervals={history.hintsObserved} />
      {history.reasons.length > 0 ? (
        <>
          <p className="font-medium">Reason</p>
          <IntervalList intervals={history.reasons} />
        </>
      ) : null}
      <p className="font-medium">Endpoints and cross-zone share</p>
      <ul className="list-disc space-y-0.5 pl-5">
        {serviceHistoryFacts(history).map((line) => (
          <li key={line}>{line}</li>
        ))}
      </ul>
      <p className="font-medium">Marks</p>
      {history.marks.length === 0 ? (
        <p>No events, toggles or node-count changes in the range.</p>
      ) : (
        <ul className="list-disc space-y-0.5 pl-5">
          {history.marks.map((m, i) => (
            <li key={`${m.at}-${i}`}>
              {formatUtc(m.at)}: {m.text}
            </li>
          ))}
        </ul>
      )}
    </>
  );
}

function duration(seconds: number): string {
  if (seconds < 120) return `${Math.round(seconds)} s`;
  if (seconds < 7200) return `${Math.round(seconds / 60)} min`;
  return `${(seconds / 3600).toFixed(seconds % 3600 === 0 ? 0 : 1)} h`;
}

function share(v: number | null): string {
  return v === null ? '—' : formatPercent(v);
}

function usd(v: number | null): string {
  return v === null ? '—' : `${formatUsd(v)}/month`;
}

/** After − before: `−31.2 points`, `−$12.40/month`; `—` when a side is missing. */
export function comparisonDelta(before: number | null, after: number | null, kind: 'share' | 'usd'): string {
  if (before === null || after === null) return '—';
  const d = after - before;
  const sign = d > 0 ? '+' : d < 0 ? '−' : '±';
  if (kind === 'share') return `${sign}${Math.abs(d * 100).toFixed(1)} points`;
  return `${sign}${formatUsd(Math.abs(d))}/month`;
}

/** "Before and after the change": the two windows' averages, or why it cannot compare yet. */
export function ComparisonBlock({ comparison }: { readonly comparison: HistoryComparison }) {
  const { before, after } = comparison;
  const figures: { label: string; pick: (w: HistoryWindowFigures) => string; delta: string }[] = [
    { label: 'Hints on', pick: (w) => share(w.hintsOnShare), delta: comparisonDelta(before.hintsOnShare, after.hintsOnShare, 'share') },
    { label: 'Predicted cross-zone', pick: (w) => share(w.predictedCrossZone), delta: comparisonDelta(before.predictedCrossZone, after.predictedCrossZone, 'share') },
    { label: 'Measured cross-zone', pick: (w) => (w.measuredCrossZone === null ? 'not measured' : share(w.measuredCrossZone)), delta: comparisonDelta(before.measuredCrossZone, after.measuredCrossZone, 'share') },
    { label: 'Cross-zone cost', pick: (w) => usd(w.costPerMonth), delta: comparisonDelta(before.costPerMonth, after.costPerMonth, 'usd') },
    { label: 'Window', pick: (w) => `${formatUtc(w.from)} – ${formatUtc(w.to)} (${duration(w.to - w.from)})`, delta: '' },
    { label: 'Samples', pick: (w) => String(w.samples), delta: '' },
  ];
  // Too few samples: averages would mislead, so only the windows and their sample counts show.
  const rows = comparison.enough ? figures : figures.filter((r) => r.label === 'Window' || r.label === 'Samples');
  return (
    <section aria-labelledby="history-comparison-title" className="space-y-2 rounded-md border border-slate-200 p-3 dark:border-slate-800">
      <h3 id="history-comparison-title" className="text-sm font-semibold">
        Before and after the change
      </h3>
      <p className="text-sm">
        Mechanism <span className="font-mono">{mechanismLabel(comparison.mechanismBefore)}</span> → <span className="font-mono">{mechanismLabel(comparison.mechanismAfter)}</span> at{' '}
        <time dateTime={isoOf(comparison.at)}>{formatUtc(comparison.at)}</time>; averages over equal windows on each side.
      </p>
      {!comparison.enough ? (
        <p role="status" className="text-sm text-amber-800 dark:text-amber-300">
          Not enough data to compare yet: {comparison.message ?? 'one side of the change has too few samples.'}
        </p>
      ) : null}
      <div className="overflow-x-auto" tabIndex={0} role="region" aria-label="Before and after the change">
        <table className="w-full min-w-[30rem] text-sm">
          <thead>
            <tr className="text-left text-xs uppercase tracking-wide text-slate-600 dark:text-slate-400">
              <th scope="col" className="py-1 pr-2 font-medium">
                <span className="sr-only">Figure</span>
              </th>
              <th scope="col" className="py-1 pr-2 font-medium">
                Before ({mechanismLabel(comparison.mechanismBefore)})
              </th>
              <th scope="col" className="py-1 pr-2 font-medium">
                After ({mechanismLabel(comparison.mechanismAfter)})
              </th>
              <th scope="col" className="py-1 font-medium">
                Change
              </th>
            </tr>
          </thead>
          <tbody>
            {rows.map((r) => (
              <tr key={r.label} className="border-t border-slate-100 dark:border-slate-800">
                <th scope="row" className="py-1 pr-2 text-left font-normal text-slate-600 dark:text-slate-400">
                  {r.label}
                </th>
                <td className="py-1 pr-2 tabular-nums">{r.pick(before)}</td>
                <td className="py-1 pr-2 tabular-nums">{r.pick(after)}</td>
                <td className="py-1 tabular-nums">{comparison.enough ? r.delta : ''}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}
