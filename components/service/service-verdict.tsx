/**
 * The verdict: hints on or off after the controller's next sync, the exact upstream event
 * (type, reason, message), what decides it (mechanism), and the smallest verified fix with its
 * copyable commands; alternatives below.
 */
import type { ServiceDetail } from '@/lib/topology/report/analysis-schema';
import type { Fix } from '@/lib/topology/analyses/fixes';
import { Commands } from '../ui/command';
import { formatPercent } from '../ui/format';
import { Code } from '../ui/panel';
import { Badge, Callout } from '../ui/status';
import { verdictRangeRisk } from './panel-overlap';

function EventLine({ event }: { readonly event: { readonly type: string; readonly reason: string; readonly message: string } }) {
  return (
    <div className="rounded-md border border-slate-200 bg-slate-50 p-2 font-mono text-xs dark:border-slate-700 dark:bg-slate-950">
      <span className={event.type === 'Warning' ? 'font-semibold text-amber-800 dark:text-amber-300' : 'font-semibold text-emerald-800 dark:text-emerald-300'}>{event.type}</span>{' '}
      <span className="font-semibold">{event.reason}</span>
      <p className="mt-1 whitespace-pre-wrap break-words">{event.message}</p>
    </div>
  );
}

function FixCard({ fix }: { readonly fix: Fix }) {
  const changes = fix.endpointChangeByZone ? Object.entries(fix.endpointChangeByZone).filter(([, n]) => n !== 0) : [];
  return (
    <div className="space-y-2">
      <p className="font-semibold">{fix.title}</p>
      <p className="text-sm text-slate-700 dark:text-slate-300">{fix.description}</p>
      {changes.length > 0 ? (
        <ul className="flex flex-wrap gap-2 text-sm">
          {changes.map(([zone, n]) => (
            <li key={zone} className="rounded border border-slate-300 px-2 py-0.5 font-mono text-xs dark:border-slate-600">
              {zone}: {n > 0 ? `+${n}` : n}
            </li>
          ))}
          {fix.readyEndpointsAfter !== null ? <li className="text-xs text-slate-600 dark:text-slate-400">→ {fix.readyEndpointsAfter} ready endpoints</li> : null}
        </ul>
      ) : null}
      {fix.nodes.length > 0 ? <p className="text-xs">Nodes: {fix.nodes.join(', ')}</p> : null}
      <Commands commands={fix.commands} />
      <p className="flex flex-wrap items-center gap-2 text-xs text-slate-700 dark:text-slate-300">
        {fix.verification.verified ? <Badge tone="ok">verified by re-running the controller</Badge> : <Badge tone="warn">not verified</Badge>}
        {fix.verification.event ? (
          <span>
            → <Code>{fix.verification.event.reason}</Code>
          </span>
        ) : null}
        {fix.donatedAfter !== null ? <span>{fix.donatedAfter} endpoint(s) donated afterwards.</span> : null}
        {fix.verification.assumption ? <span>Assumed: {fix.verification.assumption}.</span> : null}
      </p>
    </div>
  );
}

export function ServiceVerdict({ detail, gitOpsWarning = null }: { readonly detail: ServiceDetail; /** Set when Argo CD, Flux or Helm applies the Service (lib/topology/analyses/gitops.ts). */ readonly gitOpsWarning?: string | null }) {
  const e = detail.expected;
  const asked = detail.mechanism !== 'none';
  const tone = e.hintsEnabled ? (e.donatedEndpoints > 0 ? 'warn' : 'ok') : asked ? 'error' : 'neutral';
  const heading = e.hintsEnabled
    ? e.donatedEndpoints > 0
      ? `Hints on, with ${e.donatedEndpoints} endpoint(s) donated across zones`
      : 'Hints on: traffic stays in its zone'
    : asked
      ? 'Hints off'
      : 'No hints: nothing asks for Topology Aware Routing';
  const event = e.event ?? e.reason;
  const primary = detail.fixes.find((f) => f.primary) ?? detail.fixes[0];
  const alternatives = detail.fixes.filter((f) => f !== primary);
  // Hints on now but off at counts the HPA may reach: the verdict says so instead of "no fix needed".
  const rangeRisk = verdictRangeRisk(detail);
  return (
    <div className="space-y-4">
      <Callout tone={tone} title={heading}>
        <p>{e.verdict}</p>
        <p className="text-xs">
          {detail.mechanismDetail.explanation} Cross-zone share now {formatPercent(detail.traffic.crossZoneFraction)}
          {Math.abs(detail.traffic.crossZoneFractionExpected - detail.traffic.crossZoneFraction) > 0.0005 ? `, after the next sync ${formatPercent(detail.traffic.crossZoneFractionExpected)}` : ''}.
        </p>
      </Callout>
      {event ? (
        <div className="space-y-1">
          <h3 className="text-sm font-semibold">{e.event ? 'Event the EndpointSlice controller records' : 'Upstream reason (this release records no event)'}</h3>
          <EventLine event={event} />
        </div>
      ) : null}
      {!detail.diff.inSync ? (
        <Callout tone="info" title="The slices are not what the controller would write now">
          <p>
            Observed hints differ from the expected ones ({detail.diff.missing} missing, {detail.diff.unexpected} unexpected, {detail.diff.stale} stale): the
            controller has not synced yet, or something else writes the slices. See “Observed vs expected hints”.
          </p>
        </Callout>
      ) : null}
      {primary ? (
        <div className="space-y-2 rounded-md border-2 border-sky-300 p-3 dark:border-sky-700">
          <h3 className="text-sm font-semibold uppercase tracking-wide text-sky-900 dark:text-sky-200">Smallest fix</h3>
          {gitOpsWarning ? <p className="text-sm font-semibold text-amber-900 dark:text-amber-200">{gitOpsWarning}</p> : null}
          <FixCard fix={primary} />
        </div>
      ) : e.hintsEnabled && rangeRisk ? (
        <div className="space-y-2 rounded-md border-2 border-amber-300 p-3 dark:border-amber-700">
          <h3 className="text-sm font-semibold uppercase tracking-wide text-amber-900 dark:text-amber-200">Risk within the HPA range</h3>
          <p className="text-sm">{rangeRisk.text}</p>
          <p className="text-sm text-slate-700 dark:text-slate-300">{rangeRisk.advice}</p>
          {rangeRisk.command ? <Commands commands={[rangeRisk.command]} /> : null}
        </div>
      ) : e.hintsEnabled ? (
        <p className="text-sm text-slate-700 dark:text-slate-300">No fix needed for hints to be on.{e.donatedEndpoints > 0 ? ' To stop the donations, even out the placement (see the HPA / workload panel).' : ''}</p>
      ) : null}
      {alternatives.length > 0 ? (
        <details className="rounded-md border border-slate-200 p-3 dark:border-slate-700">
          <summary className="cursor-pointer text-sm font-semibold">Alternatives ({alternatives.length})</summary>
          <ul className="mt-3 space-y-4 divide-y divide-slate-200 dark:divide-slate-700">
            {alternatives.map((fix) => (
              <li key={`${fix.kind}-${fix.title}`} className="pt-3 first:pt-0">
                <FixCard fix={fix} />
              </li>
            ))}
          </ul>
        </details>
      ) : null}
    </div>
  );
}
