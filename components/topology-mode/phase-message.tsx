/**
 * What the toggle says about a write, from its phase (./toggle-machine.ts): in flight, following
 * the cluster (with a progress bar and a checklist), done, a conflict (nothing written, the choice
 * kept), an unknown outcome, a refusal. Statuses are polite (`role="status"`), failures assertive
 * (`role="alert"`). Rendered inside the client toggle (./toggle.tsx); no state of its own.
 */
import type { Mode, Phase } from './toggle-machine';
import { FOLLOW_MS } from './toggle-machine';
import { Callout } from '../ui/status';
import { describeReread, doneText, doneTitle, followSteps, followingTitle, hintedNote, refusalTitle, reviewLabel, unknownTitle, writingText } from './toggle-view';

const REVIEW = 'rounded-md bg-sky-700 px-3 py-1.5 text-sm font-semibold text-white dark:bg-sky-700';

export function PhaseMessage({
  phase,
  cluster,
  onReview,
  onDismiss,
}: {
  readonly phase: Phase;
  /** The cluster's display name. */
  readonly cluster: string;
  /** Opens the confirm step again for `mode` (after a conflict, or a write that did not land). */
  readonly onReview: (mode: Mode) => void;
  /** "Re-read and continue" after an unknown outcome. */
  readonly onDismiss: () => void;
}) {
  switch (phase.kind) {
    case 'idle':
    case 'confirm':
      return null;
    case 'writing':
      return (
        <p role="status" className="text-sm">
          {writingText(phase.mode, cluster)}
        </p>
      );
    case 'following':
      return (
        <Callout tone="info" role="status" title={followingTitle(phase.elapsedMs)}>
          {phase.note ? <p className="text-xs">{phase.note}</p> : null}
          <progress max={FOLLOW_MS} value={phase.elapsedMs} className="h-2 w-full" aria-label="Time waited for the controller" />
          <ol className="list-decimal pl-5 text-xs">
            {followSteps(phase.resourceVersion, phase.progress).map((step, i, steps) => (
              <li key={step.text}>
                {step.text} {step.done ? '✓' : '…'}
                {i === steps.length - 1 ? hintedNote(phase.progress) : ''}
              </li>
            ))}
          </ol>
        </Callout>
      );
    case 'done':
      return (
        <Callout tone={phase.arrived ? 'ok' : 'warn'} role="status" title={doneTitle(phase)}>
          {phase.note ? <p className="text-xs">{phase.note}</p> : null}
          <p>{doneText(phase)}</p>
        </Callout>
      );
    case 'conflict':
      return (
        <Callout tone="warn" role="alert" title="The Service changed since this page loaded (409 Conflict): nothing was written.">
          <p>
            Current value on the server: <code className="font-mono text-xs">{describeReread(phase.current, 'could not be re-read')}</code>.
          </p>
          <p>Your choice is kept: review the current value, then confirm again.</p>
          <button type="button" onClick={() => onReview(phase.mode)} className={REVIEW}>
            {reviewLabel(phase.mode)}
          </button>
        </Callout>
      );
    case 'unknown':
      return (
        <Callout tone="warn" role="alert" title={unknownTitle(phase.outcome)}>
          <p>{phase.message}</p>
          <p>
            Re-read now: <code className="font-mono text-xs">{describeReread(phase.current, 'not available')}</code>.
          </p>
          {phase.outcome === 'not-applied' ? (
            <button type="button" onClick={() => onReview(phase.mode)} className={`mr-2 ${REVIEW}`}>
              {reviewLabel(phase.mode)}
            </button>
          ) : null}
          <button type="button" onClick={onDismiss} className="rounded-md border border-slate-400 px-3 py-1.5 text-sm dark:border-slate-500">
            Re-read and continue
          </button>
        </Callout>
      );
    case 'error':
      return (
        <Callout tone="error" role="alert" title={refusalTitle(phase.status)}>
          <p>{phase.message}</p>
          {phase.code ? <p className="font-mono text-xs">{phase.code}</p> : null}
        </Callout>
      );
  }
}
