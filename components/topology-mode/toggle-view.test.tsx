/**
 * What the toggle shows and enables in each state (./toggle-view.ts), and how its parts lay that
 * out as the server renders them: the roles a screen reader announces (`status` for progress and
 * results, `alert` for refusals and conflicts), the confirm step's labelled group that holds the
 * page's refresh, and the sentences of every phase.
 */
import { renderToStaticMarkup } from 'react-dom/server';
import { AppRouterContext } from 'next/dist/shared/lib/app-router-context.shared-runtime';
import type { AppRouterInstance } from 'next/dist/shared/lib/app-router-context.shared-runtime';
import { describe, expect, it } from 'vitest';
import { htmlText, textOf } from '../test-support';
import { ConfirmStep } from './confirm-step';
import { PhaseMessage } from './phase-message';
import { TogglePrediction } from './prediction';
import { TopologyModeToggle } from './toggle';
import type { Answer, Phase, ToggleEvent, ToggleState } from './toggle-machine';
import { initialToggleState, toggleReducer } from './toggle-machine';
import {
  behindNote, confirmPrediction, contextNote, describeCurrent, describeReread, doneTitle, followSteps, outcomeBadge, refusalTitle, toggleControls, unknownTitle,
} from './toggle-view';
import { DISABLE_TEXT, ENABLE_TEXT, current, previewOf, toggleState } from './toggle-test-state';

const STATE = toggleState();
const PREVIEW = previewOf(STATE);
const http = (status: number, body: unknown = null): Answer => ({ kind: 'http', status, body });

function run(state: ToggleState, ...events: ToggleEvent[]): ToggleState {
  return events.reduce(toggleReducer, state);
}

const loadedWith = (state = STATE) => run(initialToggleState(PREVIEW, '139'), { type: 'read', answer: http(200, state) });

describe('the buttons in each state', () => {
  it('before the permission check answers: the preview shows, both buttons wait, "Checking permission…"', () => {
    const controls = toggleControls(initialToggleState(PREVIEW, '139'), PREVIEW);
    expect(controls).toMatchObject({ pending: true, enableDisabled: true, disableDisabled: true, disabledReason: null, reasonBadge: null, unavailable: null, checking: true });
    expect(controls.view).toBe(PREVIEW);
  });

  it('allowed, topology mode off: Enable is the one to press', () => {
    expect(toggleControls(loadedWith(), PREVIEW)).toMatchObject({ pending: false, enableDisabled: false, disableDisabled: true, checking: false });
  });

  it('allowed, topology mode on: Disable is the one to press', () => {
    const on = toggleState({ current: current('139', 'Auto') });
    expect(toggleControls(loadedWith(on), PREVIEW)).toMatchObject({ enableDisabled: true, disableDisabled: false });
  });

  it('RBAC says no: both disabled, the reason beside them with "not permitted"', () => {
    const denied = toggleState({ canPatch: false, notAllowedReason: 'Not permitted: system:serviceaccount:zonescope:zonescope may not patch Services in "shop".' });
    expect(toggleControls(loadedWith(denied), PREVIEW)).toMatchObject({
      enableDisabled: true,
      disableDisabled: true,
      disabledReason: 'Not permitted: system:serviceaccount:zonescope:zonescope may not patch Services in "shop".',
      reasonBadge: 'not permitted',
    });
    expect(toggleControls(loadedWith(toggleState({ canPatch: false, notAllowedReason: null })), PREVIEW).disabledReason).toBe('Not permitted.');
  });

  it('the check could not run: "permission unknown", not a denial', () => {
    const failed = toggleState({ canPatch: false, notAllowedReason: 'Could not check permissions: the API server is unreachable.', permissionCheckFailed: true });
    expect(toggleControls(loadedWith(failed), PREVIEW).reasonBadge).toBe('permission unknown');
  });

  it('while a write is in flight or followed, both wait; after a refusal, they are back', () => {
    const confirm = toggleReducer(loadedWith(), { type: 'open', mode: 'Auto' });
    expect(toggleControls(confirm, PREVIEW).enableDisabled).toBe(false);
    const inFlight = toggleReducer(confirm, { type: 'submit' });
    expect(toggleControls(inFlight, PREVIEW)).toMatchObject({ enableDisabled: true, disableDisabled: true });
    const following = toggleReducer(inFlight, { type: 'written', verdict: { kind: 'applied', resourceVersion: '140', note: null }, reread: null });
    expect(toggleControls(following, PREVIEW).enableDisabled).toBe(true);
    const refused = toggleReducer(inFlight, { type: 'written', verdict: { kind: 'refused', status: 429, code: 'too-many-requests:topology-mode', message: 'Slow down.' }, reread: null });
    expect(toggleControls(refused, PREVIEW).enableDisabled).toBe(false);
  });

  it('a first read that failed: the reason and "Try again" instead of "Checking permission…"; a later failure keeps the control', () => {
    const failed = run(initialToggleState(PREVIEW, '139'), { type: 'read', answer: { kind: 'network' } });
    expect(toggleControls(failed, PREVIEW)).toMatchObject({ unavailable: 'The dashboard server did not answer.', checking: false, enableDisabled: true });
    const later = toggleReducer(loadedWith(), { type: 'read', answer: { kind: 'network' } });
    expect(toggleControls(later, PREVIEW)).toMatchObject({ unavailable: null, checking: false, enableDisabled: false });
  });
});

describe('the words', () => {
  it('the current value, and a re-read one with its resourceVersion', () => {
    expect(describeCurrent(current('139'))).toBe('no topology annotation');
    expect(describeCurrent(current('173', 'Disabled'))).toBe('service.kubernetes.io/topology-mode: "Disabled"');
    expect(describeReread(current('173', 'Disabled'), 'could not be re-read')).toBe('service.kubernetes.io/topology-mode: "Disabled" (resourceVersion 173)');
    expect(describeReread(null, 'could not be re-read')).toBe('could not be re-read');
  });

  it('the badge of a predicted edit says its verdict, in the tone of what happens to the hints', () => {
    expect(outcomeBadge({ hintsEnabled: true, hintsUsed: true, verdict: 'hints turn on' }, false)).toEqual({ tone: 'ok', text: 'Hints turn on' });
    expect(outcomeBadge({ hintsEnabled: true, hintsUsed: true, verdict: 'hints stay on' }, true)).toEqual({ tone: 'ok', text: 'Hints stay on' });
    expect(outcomeBadge({ hintsEnabled: true, hintsUsed: false, verdict: 'hints turn on, unused' }, false)).toEqual({ tone: 'warn', text: 'Hints turn on, unused' });
    expect(outcomeBadge({ hintsEnabled: false, hintsUsed: false, verdict: 'hints turn off' }, true)).toEqual({ tone: 'error', text: 'Hints turn off' });
    expect(outcomeBadge({ hintsEnabled: false, hintsUsed: false, verdict: 'hints stay off' }, false)).toEqual({ tone: 'neutral', text: 'Hints stay off' });
  });

  it('the page behind the cluster, the context beside the cluster name', () => {
    expect(behindNote({ resourceVersion: '139' }, '139')).toBe('');
    expect(behindNote({ resourceVersion: '141' }, '139')).toBe(' (the cluster is at 141; this page may be behind)');
    expect(contextNote({ name: 'prod', context: 'prod' })).toBe('');
    expect(contextNote({ name: 'prod', context: 'arn:aws:eks:eu-west-1:1:cluster/prod' })).toBe(' (context arn:aws:eks:eu-west-1:1:cluster/prod)');
    expect(contextNote({ name: 'in-cluster', context: null })).toBe('');
  });

  it('the confirm step\'s prediction, or why there is none', () => {
    expect(confirmPrediction(STATE.prediction, 'Auto')).toBe(`Predicted: ${ENABLE_TEXT}.`);
    expect(confirmPrediction(STATE.prediction, 'Disabled')).toBe(`Predicted: ${DISABLE_TEXT}.`);
    expect(confirmPrediction({ ...STATE.prediction, unknown: 'unknown: zonescope could not read Nodes (forbidden)' }, 'Auto')).toBe('No prediction (zonescope could not read Nodes (forbidden)).');
  });

  it('the follow step\'s checklist', () => {
    expect(followSteps('140', null)).toEqual([
      { text: 'Annotation written (resourceVersion 140)', done: true },
      { text: 'Dashboard cache updated', done: false },
      { text: 'EndpointSlices rewritten by the controller', done: false },
    ]);
    const steps = followSteps('140', { cacheUpdated: true, hinted: 6, ready: 6, inSync: true, hintsExpected: true });
    expect(steps.map((s) => s.done)).toEqual([true, true, true]);
    // In sync before the cache saw the write is the old state: not done.
    expect(followSteps('140', { cacheUpdated: false, hinted: 0, ready: 6, inSync: true, hintsExpected: true }).map((s) => s.done)).toEqual([true, false, false]);
  });

  it('the result once followed', () => {
    const done = (mode: 'Auto' | 'Disabled', arrived: boolean, hintsExpected: boolean) =>
      ({ kind: 'done', mode, arrived, seconds: arrived ? 4 : 30, note: null, progress: { cacheUpdated: true, hinted: arrived && mode === 'Auto' ? 6 : 0, ready: 6, inSync: arrived, hintsExpected } }) as const;
    expect(doneTitle(done('Auto', true, true))).toBe('Hints arrived after 4 s: 6 of 6 ready endpoints hinted.');
    expect(doneTitle(done('Auto', true, false))).toBe('Topology mode is on, but the controller keeps hints off (see the verdict for why).');
    expect(doneTitle(done('Disabled', true, false))).toBe('Topology mode disabled; the slices carry 0 hints.');
    expect(doneTitle(done('Auto', false, true))).toBe("The controller's hints did not arrive within 30 s.");
  });

  it('the titles of unknown outcomes and refusals', () => {
    expect(unknownTitle('not-applied')).toBe('Not applied: the answer was lost, and a re-read shows the change is not on the Service.');
    expect(unknownTitle('unknown')).toBe('Outcome unknown: re-read before trying again.');
    expect(refusalTitle(403)).toBe('Not permitted');
    expect(refusalTitle(429)).toBe('Too many requests');
    expect(refusalTitle(422)).toBe('The change was refused (HTTP 422)');
  });
});

describe('the layout', () => {
  const noop = () => {};
  const message = (phase: Phase) => renderToStaticMarkup(<PhaseMessage phase={phase} cluster="zonescope-sim" onReview={noop} onDismiss={noop} />);

  it('nothing to say when idle or confirming', () => {
    expect(message({ kind: 'idle' })).toBe('');
    expect(message({ kind: 'confirm', mode: 'Auto' })).toBe('');
  });

  it('progress is a polite status; the follow step shows its clock, bar and checklist', () => {
    expect(message({ kind: 'writing', mode: 'Auto' })).toMatch(/^<p role="status"[^>]*>Writing topology mode Auto in cluster zonescope-sim…<\/p>$/);
    const following = message({ kind: 'following', mode: 'Auto', resourceVersion: '140', elapsedMs: 2_400, progress: { cacheUpdated: true, hinted: 2, ready: 6, inSync: false, hintsExpected: true }, note: null });
    expect(following).toContain('role="status"');
    expect(following).toContain('<progress max="30000" value="2400"');
    expect(htmlText(following)).toBe(
      "Written. Following the cluster until the controller's hints arrive (2 s of 30 s)… Annotation written (resourceVersion 140) ✓ Dashboard cache updated ✓ EndpointSlices rewritten by the controller … — 2 of 6 ready endpoints hinted",
    );
  });

  it('a conflict is an alert with the server\'s value and a way back to the same choice', () => {
    const html = message({ kind: 'conflict', mode: 'Auto', message: 'Conflict.', current: current('173', 'Disabled') });
    expect(html).toContain('role="alert"');
    expect(htmlText(html)).toBe(
      'The Service changed since this page loaded (409 Conflict): nothing was written. Current value on the server: service.kubernetes.io/topology-mode: "Disabled" (resourceVersion 173) . Your choice is kept: review the current value, then confirm again. Review: enable topology mode',
    );
  });

  it('an unknown outcome offers "Re-read and continue"; one that did not land also offers the review', () => {
    const unknown = htmlText(message({ kind: 'unknown', mode: 'Auto', message: 'Timed out.', current: null, outcome: 'unknown' }));
    expect(unknown).toBe('Outcome unknown: re-read before trying again. Timed out. Re-read now: not available . Re-read and continue');
    const notApplied = htmlText(message({ kind: 'unknown', mode: 'Disabled', message: 'Lost.', current: current('139'), outcome: 'not-applied' }));
    expect(notApplied).toContain('Review: disable topology mode Re-read and continue');
  });

  it('a refusal is an alert with the message and the code', () => {
    const html = message({ kind: 'error', mode: 'Auto', status: 403, code: 'forbidden:topology-mode', message: 'cannot patch resource "services"' });
    expect(html).toContain('role="alert"');
    expect(htmlText(html)).toBe('Not permitted cannot patch resource "services" forbidden:topology-mode');
    expect(htmlText(message({ kind: 'error', mode: 'Auto', status: 502, code: '', message: 'HTTP 502' }))).toBe('The change was refused (HTTP 502) HTTP 502');
  });

  it('the confirm step: a labelled group that holds the page\'s refresh, with the exact change and the guard', () => {
    const legacy = toggleState({
      cluster: { id: 'prod', name: 'prod', context: 'arn:aws:eks:eu-west-1:1:cluster/prod' },
      change: {
        ...STATE.change,
        enable: { set: { 'service.kubernetes.io/topology-mode': 'Auto' }, remove: ['service.kubernetes.io/topology-aware-hints'], annotations: {} },
      },
    });
    const html = renderToStaticMarkup(
      <ConfirmStep mode="Auto" service="shop/storefront" view={previewOf(legacy)} ifMatch="139" confirmRef={{ current: null }} onConfirm={noop} onCancel={noop} />,
    );
    expect(html).toMatch(/^<div role="group" aria-label="Confirm the change" data-live-refresh-hold=""/);
    expect(htmlText(html)).toBe(
      `Enable topology mode on shop/storefront in cluster prod? set service.kubernetes.io/topology-mode: Auto remove service.kubernetes.io/topology-aware-hints Predicted: ${ENABLE_TEXT}. One merge patch of this annotation in cluster prod (context arn:aws:eks:eu-west-1:1:cluster/prod), only if the Service is still at resourceVersion 139. Yes, enable Cancel`,
    );
  });

  it('the prediction: both edits side by side, or why there is none', () => {
    // Each box says its state once: the verdict, the cross-zone change, then why.
    expect(textOf(<TogglePrediction prediction={STATE.prediction} />)).toBe(
      'If enabled (Auto) Hints turn on cross-zone 66.7 % → 0.0 % topology-mode Auto: the Auto heuristic hints endpoints in proportion to zone CPU ' +
        'If disabled Hints stay off cross-zone stays 66.7 % nothing asks for hints: kube-proxy spreads traffic over every ready endpoint',
    );
    expect(textOf(<TogglePrediction prediction={{ ...STATE.prediction, unknown: 'unknown: zonescope could not read Nodes (forbidden)' }} />)).toBe(
      'No prediction: zonescope could not read Nodes (forbidden), so what Enable or Disable would do to hints and cross-zone traffic is unknown. The buttons still write the annotation.',
    );
  });

  it('the whole toggle as the page first renders it: the preview, the buttons waiting for the permission check', () => {
    const router: AppRouterInstance = { back: noop, forward: noop, refresh: noop, push: noop, replace: noop, prefetch: noop, bfcacheId: 'test' };
    const html = renderToStaticMarkup(
      <AppRouterContext.Provider value={router}>
        <TopologyModeToggle namespace="shop" name="storefront" pageResourceVersion="139" dataVersion={7} preview={PREVIEW} />
      </AppRouterContext.Provider>,
    );
    const text = htmlText(html);
    expect(text).toContain('Current in cluster zonescope-sim: no topology annotation topology mode off');
    expect(text).toContain('On 1.31 the toggle writes service.kubernetes.io/topology-mode . resourceVersion 139.');
    expect(text).toContain('Enable topology mode Disable (off) Checking permission…');
    expect(html.match(/<button[^>]*disabled=""/g)).toHaveLength(2);
    expect(html).toContain('<p role="status" class="text-sm text-slate-600 dark:text-slate-400">Checking permission…</p>');
  });
});
