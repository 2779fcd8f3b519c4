'use client';

/**
 * The Overview's "History" panel: eligibility over time (which node and cause made the cluster
 * ineligible), cross-zone spend and the node count, read back from the Prometheus that scrapes
 * zonescope's own /metrics (`GET /api/v1/cluster/history?range=…`), with the cluster's Changes
 * table. Loads after the page and never breaks it; the range is kept in the URL (`?history=7d`).
 * `ClusterHistoryContent` renders one answer without fetching (tests render it from DTO fixtures).
 */
import type { ClusterHistory } from '@/lib/shared/history-types';
import { formatUsd } from '../ui/format';
import { chartStart, formatUtc, historyUrl, lastValue, noChangeText, seriesExtent } from './history-format';
import { firstSampleTime } from '@/lib/shared/history-range';
import { CLUSTER_HISTORY_HEIGHT, ChangesTable, FrameLine, HistoryStatusMessage, IntervalList, IntervalStrip } from './history-parts';
import { HistoryLoader } from './history-loader';
import { ClusterHistoryChart } from './cluster-history-chart';

export function ClusterHistoryPanel() {
  return <HistoryLoader<ClusterHistory> url={(r) => historyUrl(null, r)} height={CLUSTER_HISTORY_HEIGHT} what="the cluster's history" render={(history, now) => <ClusterHistoryContent history={history} now={now} />} />;
}

/** The spend and node series in sentences: the charts' text alternative. */
export function clusterHistoryFacts(history: ClusterHistory): string[] {
  const out: string[] = [];
  for (const s of history.spend) {
    const extent = seriesExtent(s);
    const last = lastValue(s);
    out.push(extent === null || last === null ? `Cross-zone spend, ${s.label}: no samples.` : `Cross-zone spend, ${s.label}: ${formatUsd(last)}/month at the end (between ${formatUsd(extent.min)} and ${formatUsd(extent.max)}).`);
  }
  for (const s of history.nodes) {
    const extent = seriesExtent(s);
    out.push(extent === null ? `${s.label}: no samples.` : `${s.label}: ${lastValue(s) ?? '—'} at the end (between ${extent.min} and ${extent.max}).`);
  }
  for (const s of history.services) {
    const last = lastValue(s);
    if (last !== null) out.push(`${s.label}: ${last} at the end.`);
  }
  return out;
}

export function ClusterHistoryContent({ history, now }: { readonly history: ClusterHistory; /** Unix seconds the relative times count from. */ readonly now: number }) {
  if (history.status.state !== 'ok') return <HistoryStatusMessage status={history.status} prometheus={history.prometheus} />;
  const ineligible = history.eligibility.filter((i) => i.value !== 'eligible');
  const first = firstSampleTime([history.eligibility], [history.spend, history.nodes, history.services]);
  const view = { ...history, start: chartStart(history, first) };
  return (
    <div className="space-y-4">
      <FrameLine frame={history} extra={view.start > history.start && first !== null ? <>Prometheus holds zonescope&apos;s series from {formatUtc(first)} only: the charts start there.</> : undefined} />
      <IntervalStrip intervals={history.eligibility} frame={view} label="Eligible" />
      {ineligible.length > 0 ? (
        <div>
          <h3 className="text-sm font-semibold">When the cluster was not eligible</h3>
          <IntervalList intervals={ineligible} />
        </div>
      ) : null}
      <ClusterHistoryChart history={view} />
      <details className="text-sm">
        <summary className="cursor-pointer text-slate-700 dark:text-slate-300">The charts as text</summary>
        <div className="mt-2 space-y-2">
          <p className="font-medium">Eligibility</p>
          <IntervalList intervals={history.eligibility} />
          <ul className="list-disc space-y-0.5 pl-5">
            {clusterHistoryFacts(history).map((line) => (
              <li key={line}>{line}</li>
            ))}
          </ul>
          <p className="font-medium">Marks</p>
          {history.marks.length === 0 ? (
            <p>No node-count changes or other marks in the range.</p>
          ) : (
            <ul className="list-disc space-y-0.5 pl-5">
              {history.marks.map((m, i) => (
                <li key={`${m.at}-${i}`}>
                  {formatUtc(m.at)}: {m.text}
                </li>
              ))}
            </ul>
          )}
        </div>
      </details>
      <ChangesTable transitions={history.transitions} now={now} empty={noChangeText('cluster', history.eligibility, history)} />
    </div>
  );
}
