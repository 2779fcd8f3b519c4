'use client';

/**
 * Enable / Disable topology mode for one Service, safely:
 * 1. shows the page's preview of its state (current annotations, the version-aware edit and the
 *    predicted outcome, rendered with the page) and reads the whole state (`GET …/topology-mode`,
 *    adding the permission) before the buttons are enabled — all shown BEFORE anything is written;
 * 2. a confirm step names the exact annotation change and the prediction (./confirm-step.tsx);
 * 3. `PUT …/topology-mode` with body exactly `{"mode":"Auto"|"Disabled"}` and
 *    `If-Match: "<resourceVersion the page rendered>"` (a concurrent edit is a 409, never a lost
 *    update): 409 shows the server's current value and keeps the choice; 504 (the answer left the
 *    outcome unknown) shows what the server's re-read found — applied (then follows the cluster as
 *    after a success), not applied (review and confirm again), or still unknown; 403 says "not
 *    permitted" with the reason (./phase-message.tsx);
 * 4. after a write, follows the cluster (polls `GET /api/v1/services/…` every second, up to 30 s)
 *    until the controller's hints arrive, then refreshes the page data;
 * 5. follows the page: when a live refresh (lib/shared/live-refresh.ts) renders the page from newer
 *    data (`pageResourceVersion` or `dataVersion` moved), reads its state again — not while the
 *    confirm step is open nor while a write is in flight or followed (they read again when they
 *    end), keeping any outcome message; at most one read in flight (a newer one aborts it); the
 *    focus stays where it is, and a polite status says so only when a prediction sentence changed
 *    (components/topology-mode/sync.ts).
 *
 * The decisions are pure and unit-tested (./toggle-machine.ts: what each answer means and where
 * the toggle goes; ./toggle-view.ts: what each state shows and enables); ./use-toggle.ts sends the
 * requests; this component lays the states out. Hidden entirely in read-only mode (the page does
 * not render it). Reads and writes go to the page's cluster (`/c/{id}/api/v1/…` off the default),
 * and the control names that cluster.
 */
import { Badge, Callout } from '../ui/status';
import { ConfirmStep } from './confirm-step';
import { PhaseMessage } from './phase-message';
import { TogglePrediction } from './prediction';
import { behindNote, describeCurrent, toggleControls } from './toggle-view';
import { type ToggleProps, useTopologyModeToggle } from './use-toggle';

export function TopologyModeToggle({ namespace, name, pageResourceVersion, dataVersion, preview }: ToggleProps) {
  const toggle = useTopologyModeToggle({ namespace, name, pageResourceVersion, dataVersion, preview });
  const { state } = toggle;
  const { phase, ifMatch } = state;
  const controls = toggleControls(state, preview);
  const { view, disabledReason } = controls;
  const enabled = view.current.enabled;
  const reasonId = `topology-mode-reason-${namespace}-${name}`;

  return (
    <div className="space-y-3">
      <p role="status" className="sr-only">
        {state.announcement}
      </p>
      <div className="text-sm">
        <p>
          Current in cluster {view.cluster.name}: <code className="font-mono text-xs">{describeCurrent(view.current)}</code>{' '}
          <Badge tone={enabled ? 'ok' : 'neutral'}>{enabled ? 'topology mode on' : 'topology mode off'}</Badge>
        </p>
        {view.current.legacyKeyPresent && view.minor >= 27 ? (
          <p className="mt-1 text-xs text-amber-800 dark:text-amber-300">
            The deprecated service.kubernetes.io/topology-aware-hints key is present and wins over topology-mode on {view.release}; the toggle removes it.
          </p>
        ) : null}
        <p className="mt-1 text-xs text-slate-600 dark:text-slate-400">
          On {view.release} the toggle writes <code className="font-mono">{view.key}</code>. resourceVersion {ifMatch}
          {behindNote(view, pageResourceVersion)}.
        </p>
      </div>

      <TogglePrediction prediction={view.prediction} />

      <div className="flex flex-wrap items-center gap-2">
        <button
          ref={toggle.enableRef}
          type="button"
          disabled={controls.enableDisabled}
          aria-describedby={disabledReason ? reasonId : undefined}
          onClick={() => toggle.open('Auto')}
          className="rounded-md bg-emerald-700 px-3 py-1.5 text-sm font-semibold text-white hover:bg-emerald-800 disabled:cursor-not-allowed disabled:bg-slate-300 disabled:text-slate-600 dark:bg-emerald-700 dark:hover:bg-emerald-600 dark:disabled:bg-slate-700 dark:disabled:text-slate-400"
        >
          Enable topology mode{enabled ? ' (on)' : ''}
        </button>
        <button
          ref={toggle.disableRef}
          type="button"
          disabled={controls.disableDisabled}
          aria-describedby={disabledReason ? reasonId : undefined}
          onClick={() => toggle.open('Disabled')}
          className="rounded-md border border-slate-400 px-3 py-1.5 text-sm font-semibold hover:bg-slate-100 disabled:cursor-not-allowed disabled:opacity-50 dark:border-slate-500 dark:hover:bg-slate-800"
        >
          Disable{!enabled ? ' (off)' : ''}
        </button>
      </div>
      {disabledReason ? (
        <p id={reasonId} className="flex items-start gap-1 text-sm text-amber-800 dark:text-amber-300">
          <Badge tone="warn">{controls.reasonBadge}</Badge> {disabledReason}
        </p>
      ) : null}
      {controls.unavailable !== null ? (
        <Callout tone="warn" title="The topology-mode control is not available right now">
          <p>{controls.unavailable}</p>
          <button type="button" onClick={toggle.retry} className="rounded border border-slate-300 px-2 py-1 text-xs dark:border-slate-600">
            Try again
          </button>
        </Callout>
      ) : controls.checking ? (
        <p role="status" className="text-sm text-slate-600 dark:text-slate-400">
          Checking permission…
        </p>
      ) : null}

      <div aria-live="polite" className="space-y-2">
        {phase.kind === 'confirm' ? (
          <ConfirmStep
            mode={phase.mode}
            service={`${namespace}/${name}`}
            view={view}
            ifMatch={ifMatch}
            confirmRef={toggle.confirmRef}
            onConfirm={toggle.submit}
            onCancel={toggle.cancel}
          />
        ) : null}
        <PhaseMessage phase={phase} cluster={view.cluster.name} onReview={toggle.open} onDismiss={toggle.dismiss} />
      </div>
    </div>
  );
}
