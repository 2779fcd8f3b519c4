/**
 * What the topology-mode toggle shows and enables in each state of ./toggle-machine.ts, and its
 * sentences: no React, so every state's words and buttons are unit-tested (toggle-view.test.ts)
 * and the components (./toggle.tsx, ./confirm-step.tsx, ./phase-message.tsx) only lay them out.
 */
import type { TopologyModeChangeOutcome, TopologyModeCurrent, TopologyModePrediction, TopologyModePreview, TopologyModeState } from '@/lib/views/topology-mode/types';
import type { FollowProgress, Mode, Phase, ToggleState } from './toggle-machine';
import { FOLLOW_MS, isBusy } from './toggle-machine';

/** The toggle's controls in one state. */
export interface ToggleControls {
  /** What is shown: the last read's state, else the page's preview. */
  readonly view: TopologyModePreview;
  /** The first read has not answered yet: the buttons wait for the permission. */
  readonly pending: boolean;
  readonly enableDisabled: boolean;
  readonly disableDisabled: boolean;
  /** Why both buttons are disabled for good (read-only, RBAC, not applicable, a failed check), `null` when they are not. */
  readonly disabledReason: string | null;
  /** The badge beside that reason: a check that could not run is not a denial (issue 12). */
  readonly reasonBadge: 'permission unknown' | 'not permitted' | null;
  /** The first read failed: why, with a "Try again" (`null` otherwise). */
  readonly unavailable: string | null;
  /** The first read is still out: "Checking permission…". */
  readonly checking: boolean;
}

export function toggleControls(state: ToggleState, preview: TopologyModePreview): ToggleControls {
  const loaded: TopologyModeState | null = state.loaded;
  const view = loaded ?? preview;
  const pending = loaded === null;
  const busy = pending || isBusy(state.phase);
  const disabledReason = loaded === null || loaded.canPatch ? null : (loaded.notAllowedReason ?? 'Not permitted.');
  const enabled = view.current.enabled;
  return {
    view,
    pending,
    enableDisabled: busy || disabledReason !== null || enabled,
    disableDisabled: busy || disabledReason !== null || !enabled,
    disabledReason,
    reasonBadge: disabledReason === null ? null : loaded?.permissionCheckFailed === true ? 'permission unknown' : 'not permitted',
    unavailable: pending ? state.loadError : null,
    checking: pending && state.loadError === null,
  };
}

// ---------------------------------------------------------------------------------------------
// Words

/** `service.kubernetes.io/topology-mode: "Auto"`, or `no topology annotation`. */
export function describeCurrent(current: TopologyModeCurrent): string {
  if (current.effectiveKey === null) return 'no topology annotation';
  return `${current.effectiveKey}: "${current.value ?? ''}"`;
}

/** A re-read value with its resourceVersion, or `missing` when there is none. */
export function describeReread(current: TopologyModeCurrent | null, missing: string): string {
  return current ? `${describeCurrent(current)} (resourceVersion ${current.resourceVersion})` : missing;
}

/** Why there is no prediction, without the `unknown: ` prefix; `null` when there is one. */
export function noPrediction(prediction: Pick<TopologyModePrediction, 'unknown'>): string | null {
  return prediction.unknown === null ? null : prediction.unknown.replace(/^unknown: /, '');
}

/**
 * The badge of one predicted edit: its verdict (`Hints turn on`), green when hints turn or stay on
 * and are used, red when they turn off, amber when on but unused, grey when they stay off.
 */
export function outcomeBadge(outcome: Pick<TopologyModeChangeOutcome, 'hintsEnabled' | 'hintsUsed' | 'verdict'>, hintsNow: boolean): { readonly tone: 'ok' | 'warn' | 'error' | 'neutral'; readonly text: string } {
  const text = outcome.verdict.charAt(0).toUpperCase() + outcome.verdict.slice(1);
  if (outcome.hintsEnabled) return { tone: outcome.hintsUsed ? 'ok' : 'warn', text };
  return { tone: hintsNow ? 'error' : 'neutral', text };
}

/** The note under the current value: the cluster's resourceVersion when it moved past the page's. */
export function behindNote(view: Pick<TopologyModePreview, 'resourceVersion'>, pageResourceVersion: string): string {
  return view.resourceVersion !== pageResourceVersion ? ` (the cluster is at ${view.resourceVersion}; this page may be behind)` : '';
}

/** The confirm step's question. */
export function confirmQuestion(mode: Mode, service: string, cluster: string): string {
  return `${mode === 'Auto' ? 'Enable topology mode' : 'Disable topology mode'} on ${service} in cluster ${cluster}?`;
}

/** The confirm step's yes. */
export function confirmLabel(mode: Mode): string {
  return mode === 'Auto' ? 'Yes, enable' : 'Yes, disable';
}

/** The button that opens the confirm step again after a conflict or a write that did not land. */
export function reviewLabel(mode: Mode): string {
  return mode === 'Auto' ? 'Review: enable topology mode' : 'Review: disable topology mode';
}

/** The confirm step's prediction line. */
export function confirmPrediction(prediction: Pick<TopologyModePrediction, 'unknown' | 'enable' | 'disable'>, mode: Mode): string {
  const missing = noPrediction(prediction);
  if (missing !== null) return `No prediction (${missing}).`;
  return `Predicted: ${(mode === 'Auto' ? prediction.enable : prediction.disable).text}.`;
}

/** The kubeconfig context beside the cluster's name, when it is another name. */
export function contextNote(cluster: Pick<TopologyModePreview['cluster'], 'name' | 'context'>): string {
  return cluster.context !== null && cluster.context !== cluster.name ? ` (context ${cluster.context})` : '';
}

/** While the write is in flight. */
export function writingText(mode: Mode, cluster: string): string {
  return `${mode === 'Auto' ? 'Writing topology mode Auto' : 'Removing the topology annotation'} in cluster ${cluster}…`;
}

/** While the cluster is followed. */
export function followingTitle(elapsedMs: number): string {
  return `Written. Following the cluster until the controller's hints arrive (${Math.round(elapsedMs / 1000)} s of ${FOLLOW_MS / 1000} s)…`;
}

/** The follow step's checklist: each step and whether it is done. */
export function followSteps(resourceVersion: string, progress: FollowProgress | null): readonly { readonly text: string; readonly done: boolean }[] {
  return [
    { text: `Annotation written (resourceVersion ${resourceVersion})`, done: true },
    { text: 'Dashboard cache updated', done: progress?.cacheUpdated === true },
    {
      text: 'EndpointSlices rewritten by the controller',
      done: progress !== null && progress.cacheUpdated && progress.inSync,
    },
  ];
}

/** The hint count beside the controller's step, once the Service has been seen. */
export function hintedNote(progress: FollowProgress | null): string {
  return progress ? ` — ${progress.hinted} of ${progress.ready} ready endpoints hinted` : '';
}

type Done = Extract<Phase, { kind: 'done' }>;

/** The title once the follow step ended. */
export function doneTitle(phase: Done): string {
  if (!phase.arrived) return `The controller's hints did not arrive within ${phase.seconds} s.`;
  if (phase.mode === 'Disabled') return `Topology mode disabled; the slices carry ${phase.progress?.hinted ?? 0} hints.`;
  return phase.progress?.hintsExpected
    ? `Hints arrived after ${phase.seconds} s: ${phase.progress.hinted} of ${phase.progress.ready} ready endpoints hinted.`
    : 'Topology mode is on, but the controller keeps hints off (see the verdict for why).';
}

export function doneText(phase: Done): string {
  return phase.arrived ? 'The page now shows the new state.' : 'The write succeeded; the controller may be slow. The page shows the current state and updates on reload.';
}

/** The title of an unknown outcome. */
export function unknownTitle(outcome: Extract<Phase, { kind: 'unknown' }>['outcome']): string {
  return outcome === 'not-applied' ? 'Not applied: the answer was lost, and a re-read shows the change is not on the Service.' : 'Outcome unknown: re-read before trying again.';
}

/** The title of a refusal. */
export function refusalTitle(status: number): string {
  if (status === 403) return 'Not permitted';
  if (status === 429) return 'Too many requests';
  return `The change was refused (HTTP ${status})`;
}
