/**
 * The toggle's prediction before anything is written: what Enable (Auto) and Disable would do to
 * the hints and the cross-zone share — each as its verdict (a badge), the cross-zone change and
 * why — or why no prediction can be made. Rendered inside the client toggle (./toggle.tsx); no state of its own.
 */
import type { TopologyModeChangeOutcome, TopologyModePrediction } from '@/lib/views/topology-mode/types';
import { Badge } from '../ui/status';
import { noPrediction, outcomeBadge } from './toggle-view';

/** One predicted edit, said once: the verdict as a badge, the cross-zone change beside it, then why. */
function PredictedOutcome({ outcome, hintsNow }: { readonly outcome: TopologyModeChangeOutcome; readonly hintsNow: boolean }) {
  const badge = outcomeBadge(outcome, hintsNow);
  return (
    <>
      <p className="mt-1">
        <Badge tone={badge.tone}>{badge.text}</Badge> {outcome.crossZoneChange}
      </p>
      <p className="mt-1 text-xs text-slate-600 dark:text-slate-400">{outcome.why}</p>
    </>
  );
}

export function TogglePrediction({ prediction: p }: { readonly prediction: TopologyModePrediction }) {
  const missing = noPrediction(p);
  if (missing !== null) {
    return (
      <p className="rounded-md border border-amber-300 bg-amber-50 p-2 text-sm text-amber-900 dark:border-amber-700 dark:bg-amber-950 dark:text-amber-200">
        No prediction: {missing}, so what Enable or Disable would do to hints and cross-zone traffic is unknown. The buttons still write the annotation.
      </p>
    );
  }
  return (
    <div className="grid gap-2 sm:grid-cols-2">
      <div className="rounded-md border border-slate-200 p-2 text-sm dark:border-slate-700">
        <p className="text-xs font-medium uppercase tracking-wide text-slate-600 dark:text-slate-400">If enabled (Auto)</p>
        <PredictedOutcome outcome={p.enable} hintsNow={p.now.hintsEnabled} />
        {p.enable.hintsEnabled && p.enable.donatedEndpoints > 0 ? <p className="mt-1 text-xs">{p.enable.donatedEndpoints} endpoint(s) would be donated across zones.</p> : null}
      </div>
      <div className="rounded-md border border-slate-200 p-2 text-sm dark:border-slate-700">
        <p className="text-xs font-medium uppercase tracking-wide text-slate-600 dark:text-slate-400">If disabled</p>
        <PredictedOutcome outcome={p.disable} hintsNow={p.now.hintsEnabled} />
      </div>
    </div>
  );
}
