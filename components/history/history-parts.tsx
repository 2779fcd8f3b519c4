/**
 * The pieces both History panels share, without fetch or charts (so they render on the server and
 * in tests): the range buttons, the status and error messages, the loading skeleton, the
 * intervals strip and the "Changes" table.
 */
import type { ReactNode } from 'react';
import { HISTORY_RANGES } from '@/lib/shared/history-types';
import type { HistoryFrame, HistoryInterval, HistoryRange, HistoryStatus, HistoryTransition } from '@/lib/shared/history-types';
import { Code } from '../ui/panel';
import { Badge, Callout } from '../ui/status';
import { TRANSITION_LABEL, formatUtc, intervalsText, isoOf, newestFirst, precisionText, rangeText, relativeWhen, transitionTone } from './history-format';

/** The charts' left axis width and right margin: the intervals strip lines up with the plot area. */
export const PLOT_INSET = { left: 52, right: 16 } as const;

/**
 * Heights of the loaded panels (strip, charts, legends) that their loading skeletons keep, so the
 * page does not jump. Here, not in the client files: a server page reads them for its fallback.
 */
export const SERVICE_HISTORY_HEIGHT = 470;
export const CLUSTER_HISTORY_HEIGHT = 520;

/** Range buttons `1h` `6h` `24h` `7d`: a toggle group (`aria-pressed`), reachable with Tab. */
export function HistoryRangeButtons({
  value,
  onChange,
  onReload,
  busy,
}: {
  readonly value: HistoryRange;
  readonly onChange?: (range: HistoryRange) => void;
  readonly onReload?: () => void;
  readonly busy?: boolean;
}) {
  return (
    <div className="flex flex-wrap items-center gap-2">
      <div role="group" aria-label="Time range" className="flex overflow-hidden rounded-md border border-slate-300 text-sm dark:border-slate-600">
        {HISTORY_RANGES.map((range) => (
          <button
            key={range}
            type="button"
            aria-pressed={value === range}
            onClick={() => onChange?.(range)}
            className={`min-w-[3rem] px-3 py-1 focus-visible:outline focus-visible:outline-2 focus-visible:-outline-offset-2 focus-visible:outline-sky-600 ${
              value === range ? 'bg-slate-900 font-semibold text-white dark:bg-slate-100 dark:text-slate-900' : 'hover:bg-slate-100 dark:hover:bg-slate-800'
            }`}
          >
            {range}
          </button>
        ))}
      </div>
      {onReload ? (
        <button
          type="button"
          onClick={onReload}
          disabled={busy}
          className="rounded-md border border-slate-300 px-3 py-1 text-sm hover:bg-slate-100 disabled:opacity-50 dark:border-slate-600 dark:hover:bg-slate-800"
        >
          Reload history
        </button>
      ) : null}
    </div>
  );
}

/** What to show instead of charts when history is not `ok` (inside `role="status"`). */
export function HistoryStatusMessage({ status, prometheus }: { readonly status: Exclude<HistoryStatus, { state: 'ok' }>; readonly prometheus: string | null }) {
  if (status.state === 'not-configured') {
    return (
      <Callout tone="info" role="status" title="History needs Prometheus">
        <p>{status.message}</p>
        <p>
          Set <Code>ZONESCOPE_PROMETHEUS_URL</Code> to a Prometheus that scrapes zonescope&apos;s own <Code>/metrics</Code> (a scrape job or the PodMonitor in{' '}
          <Code>deploy/</Code>). zonescope keeps no history itself: this panel reads its <Code>zonescope_*</Code> series back with <Code>query_range</Code>. The series
          and the scrape job: <Code>docs/metrics.md</Code>.
        </p>
      </Callout>
    );
  }
  if (status.state === 'no-data') {
    return (
      <Callout tone="warn" role="status" title="No history yet">
        <p>{status.message}</p>
        {prometheus ? (
          <p className="text-xs">
            Prometheus read: <Code>{prometheus}</Code>. The scrape job for zonescope&apos;s <Code>/metrics</Code>: <Code>docs/metrics.md</Code>.
          </p>
        ) : null}
      </Callout>
    );
  }
  return (
    <Callout tone="error" role="status" title="Prometheus unavailable">
      <p>{status.message}</p>
      {prometheus ? (
        <p className="text-xs">
          Prometheus read: <Code>{prometheus}</Code>. The rest of the page does not depend on it.
        </p>
      ) : null}
    </Callout>
  );
}

/** The fetch itself failed (network, non-200, not a history answer). */
export function HistoryLoadError({ message }: { readonly message: string }) {
  return (
    <Callout tone="error" role="status" title="History could not be loaded">
      <p>{message}</p>
      <p className="text-xs">The rest of the page does not depend on it; choose a range or reload the history to try again.</p>
    </Callout>
  );
}

/** Loading: a box of the charts' height, so the page does not jump when they arrive. */
export function HistorySkeleton({ height, what }: { readonly height: number; readonly what: string }) {
  return (
    <div className="space-y-3">
      <p role="status" className="text-sm text-slate-600 dark:text-slate-400">
        Loading {what}…
      </p>
      <div aria-hidden="true" className="animate-pulse rounded bg-slate-200 dark:bg-slate-800" style={{ height }} />
    </div>
  );
}

/** The period a frame covers, as shown under the panel's controls. */
export function FrameLine({ frame, extra }: { readonly frame: HistoryFrame; readonly extra?: ReactNode }) {
  return (
    <p className="text-xs text-slate-600 [overflow-wrap:anywhere] dark:text-slate-400">
      Last {rangeText(frame.range)}: {formatUtc(frame.start)} to {formatUtc(frame.end)}, one point every {frame.stepSeconds >= 60 ? `${Math.round(frame.stepSeconds / 60)} min` : `${frame.stepSeconds} s`}
      {frame.prometheus ? (
        <>
          {' '}
          from <span className="font-mono">{frame.prometheus}</span>
        </>
      ) : null}
      .{extra ? <> {extra}</> : null}
    </p>
  );
}

/**
 * Segment colours with text at WCAG AA contrast (≥ 4.5:1) in both themes: white on emerald-700
 * (5.5:1) and red-700 (6.5:1), dark amber text on amber-400 (about 9:1).
 */
const STRIP_COLOR: Record<string, string> = {
  on: 'bg-emerald-700 text-white',
  eligible: 'bg-emerald-700 text-white',
  off: 'bg-red-700 text-white',
  ineligible: 'bg-red-700 text-white',
  partial: 'bg-amber-400 text-amber-950',
};

/**
 * A horizontal band of the range: one coloured segment per interval (gaps = no samples), each
 * with its word inside when wide enough and its label as a tooltip; lined up with the charts' plot.
 */
export function IntervalStrip({ intervals, frame, label }: { readonly intervals: readonly HistoryInterval[]; readonly frame: HistoryFrame; readonly label: string }) {
  const span = Math.max(1, frame.end - frame.start);
  const pct = (t: number) => `${(Math.min(Math.max((t - frame.start) / span, 0), 1) * 100).toFixed(3)}%`;
  return (
    <div className="flex items-center text-xs" style={{ paddingRight: PLOT_INSET.right }}>
      <span className="shrink-0 pr-1 text-right text-slate-600 dark:text-slate-400" style={{ width: PLOT_INSET.left }}>
        {label}
      </span>
      <div
        role="img"
        aria-label={`${label} over the last ${rangeText(frame.range)}: ${intervalsText(intervals)}`}
        className="relative h-6 flex-1 overflow-hidden rounded bg-[repeating-linear-gradient(45deg,var(--color-slate-100),var(--color-slate-100)_4px,var(--color-slate-200)_4px,var(--color-slate-200)_8px)] dark:bg-[repeating-linear-gradient(45deg,var(--color-slate-800),var(--color-slate-800)_4px,var(--color-slate-900)_4px,var(--color-slate-900)_8px)]"
      >
        {intervals.map((i) => {
          const from = Math.max(i.from, frame.start);
          const to = Math.min(i.to ?? frame.end, frame.end);
          if (to < from) return null;
          const share = (to - from) / span;
          return (
            <span
              key={`${i.from}-${i.value}`}
              title={`${i.label}: ${formatUtc(i.from)} – ${i.to === null ? 'now' : formatUtc(i.to)}`}
              className={`absolute inset-y-0 flex items-center justify-center overflow-hidden whitespace-nowrap border-r border-white/60 font-medium dark:border-slate-900/60 ${STRIP_COLOR[i.value] ?? 'bg-slate-600 text-white'}`}
              style={{ left: pct(from), width: `max(2px, ${(share * 100).toFixed(3)}%)` }}
            >
              {share >= Math.max(0.08, 0.025 * i.value.length) ? i.value : null}
            </span>
          );
        })}
      </div>
    </div>
  );
}

/** The intervals as a list (for the eligibility causes and the charts' text alternative). */
export function IntervalList({ intervals, className }: { readonly intervals: readonly HistoryInterval[]; readonly className?: string }) {
  if (intervals.length === 0) return <p className={`text-sm ${className ?? ''}`}>No samples in the range.</p>;
  return (
    <ul className={`space-y-0.5 text-sm ${className ?? ''}`}>
      {intervals.map((i) => (
        <li key={`${i.from}-${i.value}`}>
          <time dateTime={isoOf(i.from)} className="tabular-nums">
            {formatUtc(i.from)}
          </time>{' '}
          – {i.to === null ? 'now' : <time dateTime={isoOf(i.to)} className="tabular-nums">{formatUtc(i.to)}</time>}: {i.label}
        </li>
      ))}
    </ul>
  );
}

/**
 * The transitions, newest first: When (UTC) with `<time dateTime>` and a relative time, Change,
 * Reason; scrolls in its own region on a phone. `empty` is the sentence when nothing changed.
 */
export function ChangesTable({ transitions, now, empty }: { readonly transitions: readonly HistoryTransition[]; readonly now: number; readonly empty: string }) {
  const rows = newestFirst(transitions);
  return (
    <div className="max-h-96 overflow-auto rounded-md border border-slate-200 dark:border-slate-800" tabIndex={0} role="region" aria-label="Changes">
      {/* Rows need room for the sentence in Reason: below 40rem the table scrolls in this region, not the page. */}
      <table className={`w-full text-sm ${rows.length > 0 ? 'min-w-[40rem]' : ''}`}>
        <caption className="px-2 py-1.5 text-left text-sm font-semibold">Changes</caption>
        <thead className="sticky top-0 bg-slate-50 dark:bg-slate-800">
          <tr className="text-left text-xs uppercase tracking-wide text-slate-600 dark:text-slate-400">
            <th scope="col" className="px-2 py-1 font-medium">
              When (UTC)
            </th>
            <th scope="col" className="px-2 py-1 font-medium">
              Change
            </th>
            <th scope="col" className="px-2 py-1 font-medium">
              Reason
            </th>
          </tr>
        </thead>
        <tbody>
          {rows.length === 0 ? (
            <tr>
              <td colSpan={3} className="px-2 py-2 text-slate-700 dark:text-slate-300">
                {empty}
              </td>
            </tr>
          ) : (
            rows.map((t, i) => {
              const precision = precisionText(t.precisionSeconds);
              return (
                <tr key={`${t.at}-${t.kind}-${i}`} className="border-t border-slate-100 align-top dark:border-slate-800" data-kind={t.kind}>
                  <td className="w-44 px-2 py-1.5">
                    <time dateTime={isoOf(t.at)} title={precision ?? undefined} className="block whitespace-nowrap tabular-nums">
                      {formatUtc(t.at)}
                    </time>
                    <span className="block text-xs text-slate-600 dark:text-slate-400">
                      {relativeWhen(t.at, now)}
                      {precision ? ` · ${precision}` : ''}
                    </span>
                  </td>
                  <td className="w-56 px-2 py-1.5">
                    <Badge tone={transitionTone(t.kind)}>{TRANSITION_LABEL[t.kind]}</Badge>
                    <span className="mt-0.5 block font-mono text-xs text-slate-600 dark:text-slate-400">
                      {t.from || '(none)'} → {t.to || '(none)'}
                    </span>
                  </td>
                  <td className="px-2 py-1.5">
                    <span className="block">{t.text}</span>
                    {t.reason ? <span className="block font-mono text-xs text-slate-600 dark:text-slate-400">{t.reason}</span> : null}
                  </td>
                </tr>
              );
            })
          )}
        </tbody>
      </table>
    </div>
  );
}
