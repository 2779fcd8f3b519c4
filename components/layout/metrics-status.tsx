/**
 * The header's metrics-source health, beside the informers' freshness: where the traffic volumes
 * come from (measured by Prometheus, or assumed) and whether the last query worked. One line of
 * text (never colour alone) that opens, without JavaScript, into the details: the source's own
 * sentence, when it last answered, the query budget and how to add measured traffic.
 */
import type { HeaderView } from '@/lib/views/header';
import { formatCount, formatTimestamp } from '../ui/format';
import type { Tone } from '../ui/status';
import { ToneIcon } from '../ui/status';

/** The metrics source's status as the header gets it (with why the volumes file cannot be used, when it cannot). */
export type HeaderMetricsStatus = HeaderView['metrics'];

/** What the header says about the metrics source (exported for its test). */
export interface MetricsSummary {
  readonly tone: Tone;
  /** The always-visible line. */
  readonly text: string;
  /** Whether the figures on the pages are measured now (else they are the model's assumptions). */
  readonly measured: boolean;
}

/** `14:02:07 UTC` of an ISO time. */
function clock(iso: string | null): string {
  return formatTimestamp(iso).slice(11);
}

/** The one-line summary of the metrics status; a volumes file that cannot be used is said after it. */
export function metricsSummary(status: HeaderMetricsStatus): MetricsSummary {
  const summary = sourceSummary(status);
  if (!status.settingsError) return summary;
  return { ...summary, tone: summary.tone === 'ok' || summary.tone === 'neutral' || summary.tone === 'info' ? 'warn' : summary.tone, text: `${summary.text} · the volumes file cannot be used` };
}

function sourceSummary(status: HeaderMetricsStatus): MetricsSummary {
  const source = `Prometheus, ${status.window}`;
  switch (status.state) {
    case 'ok':
      return { tone: 'ok', text: `Traffic: measured (${source}) · ok`, measured: true };
    case 'no-zones':
      return { tone: 'warn', text: `Traffic: pod bytes only (${source}) — flows carry no zone labels; add src.zone/dst.zone to the exporter`, measured: true };
    case 'stale':
      return { tone: 'warn', text: `Traffic: measured (${source}) · stale since ${clock(status.staleSince)}`, measured: true };
    case 'pending':
      return { tone: 'info', text: `Traffic: assumed until Prometheus answers (first query running)`, measured: false };
    case 'unreachable':
      return { tone: 'warn', text: 'Traffic: Prometheus unreachable — figures fall back to the model', measured: false };
    case 'no-series':
      return { tone: 'warn', text: 'Traffic: no matching series (beyla_…, container_network_…) — figures are assumed', measured: false };
    case 'error':
      return { tone: 'warn', text: 'Traffic: Prometheus error — figures fall back to the model', measured: false };
    case 'not-configured':
      return { tone: 'neutral', text: 'Traffic: assumed — set ZONESCOPE_PROMETHEUS_URL to measure', measured: false };
  }
}

/** The same colours as the header's other badges (ui/status Badge). */
const SUMMARY_TONE: Record<Tone, string> = {
  ok: 'bg-emerald-100 text-emerald-900 ring-emerald-300 dark:bg-emerald-900/60 dark:text-emerald-100 dark:ring-emerald-700',
  warn: 'bg-amber-100 text-amber-900 ring-amber-300 dark:bg-amber-900/60 dark:text-amber-100 dark:ring-amber-700',
  error: 'bg-red-100 text-red-900 ring-red-300 dark:bg-red-900/60 dark:text-red-100 dark:ring-red-700',
  info: 'bg-sky-100 text-sky-900 ring-sky-300 dark:bg-sky-900/60 dark:text-sky-100 dark:ring-sky-700',
  neutral: 'bg-slate-100 text-slate-800 ring-slate-300 dark:bg-slate-800 dark:text-slate-200 dark:ring-slate-600',
};

/** The metrics-source line of the header, opening into its details (a `<details>` disclosure). */
export function MetricsStatusBadge({ status }: { readonly status: HeaderMetricsStatus }) {
  const summary = metricsSummary(status);
  return (
    <details className="group min-w-0 max-w-full text-xs open:basis-full sm:open:basis-auto" data-testid="metrics-status" data-state={status.state}>
      <summary
        className={`inline-flex max-w-full cursor-pointer list-none items-start gap-1 rounded-2xl px-2 py-0.5 font-medium ring-1 ring-inset focus-visible:outline focus-visible:outline-2 focus-visible:outline-sky-600 [&::-webkit-details-marker]:hidden ${SUMMARY_TONE[summary.tone]}`}
      >
        <ToneIcon tone={summary.tone} className="mt-px h-3.5 w-3.5 shrink-0" />
        <span className="min-w-0 break-words">
          <span className="sr-only">Metrics source: </span>
          {summary.text}
          <span className="sr-only"> (details)</span>
        </span>
      </summary>
      <div className="mt-1 max-w-[26rem] space-y-1 rounded-md border border-slate-200 bg-white p-2 text-slate-700 shadow-sm dark:border-slate-700 dark:bg-slate-900 dark:text-slate-300">
        <p>{status.message}</p>
        {status.settingsError ? <p className="font-medium text-amber-800 dark:text-amber-300">Volumes file: {status.settingsError}</p> : null}
        {status.url !== null ? (
          <p>
            Prometheus: <code className="break-all">{status.url}</code>, rates over {status.window}
            {status.lastSuccessAt !== null ? `; last answer ${formatTimestamp(status.lastSuccessAt)}` : '; no answer yet'}.
          </p>
        ) : null}
        {status.url !== null ? (
          <p>
            {formatCount(status.queriesPerRefresh)} queries every {formatCount(status.refreshSeconds)} s for the whole cluster, however many browsers are open ({formatCount(status.queriesIssued)}{' '}
            issued so far).
          </p>
        ) : null}
        {summary.measured ? null : <p>The volumes on the pages are the model&apos;s assumptions, each labelled &ldquo;assumed&rdquo;.</p>}
        {status.hint !== null ? <p>{status.hint}</p> : null}
        <p>
          How it is measured and the PromQL: <code>docs/traffic.md</code>; the settings: <code>docs/configuration.md</code>, &ldquo;Measured traffic and history (Prometheus)&rdquo;.
        </p>
      </div>
    </details>
  );
}
