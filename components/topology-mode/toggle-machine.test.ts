/**
 * The toggle's decisions for every answer the API can give (docs/api.md: `GET` and `PUT
 * …/topology-mode`, `GET /api/v1/services/{ns}/{name}`), and where each leaves the toggle.
 */
import { describe, expect, it } from 'vitest';
import type { Answer, Mode, ToggleEvent, ToggleState } from './toggle-machine';
import { FOLLOW_MS, NO_ANSWER, followProgress, hintsArrived, initialToggleState, isBusy, readProblem, readState, rvNewerOrEqual, toggleReducer, writeFollowUp, writeVerdict } from './toggle-machine';
import { changeOutcome, current, previewOf, toggleState } from './toggle-test-state';

const http = (status: number, body: unknown = null): Answer => ({ kind: 'http', status, body });
const apiError = (status: number, code: string, message: string, extra: Record<string, unknown> = {}) => http(status, { error: { code, message }, ...extra });

const STATE = toggleState();
const PREVIEW = previewOf(STATE);

function run(state: ToggleState, ...events: ToggleEvent[]): ToggleState {
  return events.reduce(toggleReducer, state);
}

/** The toggle after its first read, with the confirm step open for `mode` and the write sent. */
function writing(mode: Mode = 'Auto'): ToggleState {
  const state = run(initialToggleState(PREVIEW, '139'), { type: 'read', answer: http(200, STATE) }, { type: 'open', mode }, { type: 'submit' });
  expect(state.phase).toEqual({ kind: 'writing', mode });
  return state;
}

/** Where a write's answer leaves the toggle (`reread`: what the read before showing it found). */
function answered(answer: Answer, reread: ReturnType<typeof current> | null = null, mode: Mode = 'Auto'): ToggleState {
  const before = writing(mode);
  return toggleReducer(before, { type: 'written', verdict: writeVerdict(answer, before.ifMatch), reread });
}

describe('reading the toggle state (GET …/topology-mode)', () => {
  it('starts from the page: its preview, its resourceVersion as If-Match, nothing announced', () => {
    const state = initialToggleState(PREVIEW, '139');
    expect(state).toEqual({ loaded: null, loadError: null, shown: PREVIEW.prediction, announcement: '', phase: { kind: 'idle' }, ifMatch: '139' });
  });

  it('200: the state is loaded, any earlier failure cleared; the first read announces nothing when the prediction is as the page showed', () => {
    const failed = run(initialToggleState(PREVIEW, '139'), { type: 'read', answer: { kind: 'network' } });
    const state = toggleReducer(failed, { type: 'read', answer: http(200, STATE) });
    expect(state.loaded).toBe(STATE);
    expect(state.loadError).toBeNull();
    expect(state.announcement).toBe('');
  });

  it('200 with another prediction: a polite announcement of the sentences that changed, kept until another change', () => {
    const first = run(initialToggleState(PREVIEW, '139'), { type: 'read', answer: http(200, STATE) });
    const moved = toggleState({ prediction: { ...STATE.prediction, disable: changeOutcome(false, 'hints off, cross-zone 75.0 % → hints off, 75.0 %') } });
    const second = toggleReducer(first, { type: 'read', answer: http(200, moved) });
    expect(second.announcement).toBe("Topology-mode prediction updated for the cluster's current state. Disabling: hints off, cross-zone 75.0 % → hints off, 75.0 %.");
    expect(second.shown).toBe(moved.prediction);
    // The same prediction again: nothing new to say, the last sentence stays in the live region.
    expect(toggleReducer(second, { type: 'read', answer: http(200, moved) }).announcement).toBe(second.announcement);
  });

  it('an error answer shows the server\'s message; without one, the status', () => {
    expect(readProblem(apiError(404, 'not-found:service', 'Service shop/gone not found.'))).toBe('Service shop/gone not found.');
    expect(readProblem(apiError(503, 'syncing:topology-mode', 'The dashboard is still syncing the cluster; try again in a moment.'))).toBe(
      'The dashboard is still syncing the cluster; try again in a moment.',
    );
    expect(readProblem(apiError(400, 'bad-request:topology-mode', 'The namespace is not a valid name.'))).toBe('The namespace is not a valid name.');
    expect(readProblem(http(502))).toBe("The toggle's state could not be read (HTTP 502).");
    // JSON, but not the error envelope.
    expect(readProblem(http(500, { message: 'boom' }))).toBe("The toggle's state could not be read (HTTP 500).");
  });

  it('a 200 that is not the state says so, and keeps what is shown', () => {
    expect(readProblem(http(200))).toBe("The toggle's state could not be read (the answer was not JSON).");
    expect(readProblem(http(200, { hello: 'world' }))).toBe("The toggle's state could not be read (the answer was not the toggle's state).");
    expect(readState(http(200, { hello: 'world' }))).toBeNull();
    const loaded = run(initialToggleState(PREVIEW, '139'), { type: 'read', answer: http(200, STATE) });
    const after = toggleReducer(loaded, { type: 'read', answer: http(200) });
    expect(after.loaded).toBe(STATE);
    expect(after.loadError).toBe("The toggle's state could not be read (the answer was not JSON).");
  });

  it('no answer: the dashboard server did not answer', () => {
    expect(readProblem({ kind: 'network' })).toBe('The dashboard server did not answer.');
    expect(readState({ kind: 'network' })).toBeNull();
  });

  it('a read the toggle aborted changes nothing', () => {
    const state = run(initialToggleState(PREVIEW, '139'), { type: 'read', answer: http(200, STATE) });
    expect(toggleReducer(state, { type: 'read', answer: { kind: 'aborted' } })).toBe(state);
    expect(readState({ kind: 'aborted' })).toBeNull();
  });
});

describe('the confirm step', () => {
  it('opens for the chosen mode, closes on cancel, and sends the write on yes', () => {
    const loaded = run(initialToggleState(PREVIEW, '139'), { type: 'read', answer: http(200, STATE) });
    const confirm = toggleReducer(loaded, { type: 'open', mode: 'Disabled' });
    expect(confirm.phase).toEqual({ kind: 'confirm', mode: 'Disabled' });
    expect(toggleReducer(confirm, { type: 'cancel' }).phase).toEqual({ kind: 'idle' });
    expect(toggleReducer(confirm, { type: 'submit' }).phase).toEqual({ kind: 'writing', mode: 'Disabled' });
  });

  it('nothing is sent without the confirm step, and nothing opens while a write is in flight or followed', () => {
    const idle = initialToggleState(PREVIEW, '139');
    expect(toggleReducer(idle, { type: 'submit' })).toBe(idle);
    expect(toggleReducer(idle, { type: 'cancel' })).toBe(idle);
    const inFlight = writing();
    expect(toggleReducer(inFlight, { type: 'open', mode: 'Disabled' })).toBe(inFlight);
    const following = answered(http(200, { result: { resourceVersion: '140' } }));
    expect(toggleReducer(following, { type: 'open', mode: 'Auto' })).toBe(following);
    expect(isBusy(inFlight.phase) && isBusy(following.phase)).toBe(true);
  });

  it('a page rendered from a newer Service moves the If-Match; the same one changes nothing', () => {
    const state = initialToggleState(PREVIEW, '139');
    expect(toggleReducer(state, { type: 'page-rendered', resourceVersion: '139' })).toBe(state);
    expect(toggleReducer(state, { type: 'page-rendered', resourceVersion: '141' }).ifMatch).toBe('141');
  });
});

describe('the write (PUT …/topology-mode)', () => {
  it('200: follows the cluster from the new resourceVersion, which is the next If-Match', () => {
    const answer = http(200, { result: { status: 'applied', resourceVersion: '140', annotations: {}, mode: 'Auto', change: { set: {}, remove: [] } } });
    expect(writeVerdict(answer, '139')).toEqual({ kind: 'applied', resourceVersion: '140', note: null });
    expect(writeFollowUp(writeVerdict(answer, '139'))).toEqual({ readFirst: false, read: false, refreshPage: false, follow: '140' });
    const state = answered(answer);
    expect(state.ifMatch).toBe('140');
    expect(state.phase).toEqual({ kind: 'following', mode: 'Auto', resourceVersion: '140', elapsedMs: 0, progress: null, note: null });
  });

  it('200 without a readable body: follows from the If-Match sent', () => {
    expect(writeVerdict(http(200), '139')).toEqual({ kind: 'applied', resourceVersion: '139', note: null });
  });

  it('409 conflict: nothing written; the server\'s current value, the choice kept, its resourceVersion the next If-Match; state and page read again', () => {
    const answer = apiError(409, 'conflict:topology-mode', 'The Service changed since you loaded it (409 Conflict); nothing was written. Check its current value and try again.', {
      current: current('173', 'Disabled'),
    });
    const state = answered(answer);
    expect(state.phase).toEqual({ kind: 'conflict', mode: 'Auto', message: expect.stringContaining('409 Conflict') as string, current: current('173', 'Disabled') });
    expect(state.ifMatch).toBe('173');
    expect(writeFollowUp(writeVerdict(answer, '139'))).toEqual({ readFirst: false, read: true, refreshPage: true, follow: null });
    // "Review": the confirm step again, for the same choice.
    expect(toggleReducer(state, { type: 'open', mode: 'Auto' }).phase).toEqual({ kind: 'confirm', mode: 'Auto' });
  });

  it('409 whose re-read failed (`current: null`): the If-Match stays', () => {
    const state = answered(apiError(409, 'conflict:topology-mode', 'Conflict.', { current: null }));
    expect(state.phase).toMatchObject({ kind: 'conflict', current: null });
    expect(state.ifMatch).toBe('139');
  });

  it('504 applied: the write landed though its answer was lost; follows with the server\'s sentence as a note', () => {
    const message = 'The write timed out, so its outcome is unknown from the answer alone. A re-read shows the write was applied: service.kubernetes.io/topology-mode: Auto (resourceVersion 174).';
    const answer = apiError(504, 'timeout:topology-mode', message, { current: current('174', 'Auto'), outcome: 'applied', cause: 'timeout' });
    expect(writeFollowUp(writeVerdict(answer, '139')).follow).toBe('174');
    const state = answered(answer);
    expect(state.ifMatch).toBe('174');
    expect(state.phase).toEqual({ kind: 'following', mode: 'Auto', resourceVersion: '174', elapsedMs: 0, progress: null, note: message });
  });

  it('504 not-applied: the change is not on the Service; review against the re-read value, which is the next If-Match', () => {
    const answer = apiError(504, 'timeout:topology-mode', 'The connection to the API server was lost after the write was sent… not applied.', {
      current: current('139'),
      outcome: 'not-applied',
      cause: 'connection-lost',
    });
    expect(writeFollowUp(writeVerdict(answer, '139'))).toEqual({ readFirst: false, read: true, refreshPage: false, follow: null });
    const state = answered(answer, null, 'Disabled');
    expect(state.phase).toMatchObject({ kind: 'unknown', mode: 'Disabled', outcome: 'not-applied', current: current('139') });
    expect(toggleReducer(state, { type: 'open', mode: 'Disabled' }).phase).toEqual({ kind: 'confirm', mode: 'Disabled' });
  });

  it('504 unknown (the re-read failed too): read the state first, and show what it found', () => {
    const answer = apiError(504, 'timeout:topology-mode', 'The write timed out… The Service could not be re-read either: the outcome is unknown. Re-read before trying again.', {
      current: null,
      outcome: 'unknown',
      cause: 'timeout',
    });
    expect(writeFollowUp(writeVerdict(answer, '139'))).toEqual({ readFirst: true, read: false, refreshPage: false, follow: null });
    expect(answered(answer, current('175', 'Auto')).phase).toMatchObject({ kind: 'unknown', outcome: 'unknown', current: current('175', 'Auto') });
    expect(answered(answer, null).phase).toMatchObject({ kind: 'unknown', outcome: 'unknown', current: null });
    // "Re-read and continue": back to the buttons.
    expect(toggleReducer(answered(answer), { type: 'dismiss' }).phase).toEqual({ kind: 'idle' });
  });

  it('504 "applied" without the re-read value is not trusted: the outcome stays unknown', () => {
    const answer = apiError(504, 'timeout:topology-mode', 'Timed out.', { outcome: 'applied' });
    expect(writeVerdict(answer, '139')).toEqual({ kind: 'unknown', message: 'Timed out.', current: null });
  });

  it('504 with the server\'s re-read and an unknown outcome shows that value, not the toggle\'s own re-read', () => {
    const answer = apiError(504, 'timeout:topology-mode', 'Unknown.', { current: current('176'), outcome: 'unknown' });
    expect(answered(answer, current('177')).phase).toMatchObject({ kind: 'unknown', current: current('176') });
  });

  it('no answer from the dashboard server, or the request cut off: the outcome is unknown; read first, then say so', () => {
    for (const answer of [{ kind: 'network' }, { kind: 'aborted' }] as const) {
      const verdict = writeVerdict(answer, '139');
      expect(verdict).toEqual({ kind: 'unknown', message: NO_ANSWER, current: null });
      expect(writeFollowUp(verdict).readFirst).toBe(true);
      expect(answered(answer, current('139')).phase).toEqual({ kind: 'unknown', mode: 'Auto', message: NO_ANSWER, current: current('139'), outcome: 'unknown' });
    }
  });

  const REFUSALS: readonly (readonly [number, string, string])[] = [
    [400, 'bad-request:topology-mode', 'The body must be exactly {"mode":"Auto"} or {"mode":"Disabled"}.'],
    [400, 'bad-request:topology-mode', 'If-Match must be one strong entity tag: "<resourceVersion>".'],
    [403, 'cross-site:topology-mode', "Refused: this change must come from the dashboard's own pages (Origin is missing)."],
    [403, 'unauthenticated-write:topology-mode', 'Writes are off: the dashboard listens beyond loopback without the auth proxy.'],
    [403, 'read-only:topology-mode', 'ZONESCOPE_READ_ONLY=1: the dashboard does not write.'],
    [403, 'forbidden:topology-mode', 'services "storefront" is forbidden: User "system:serviceaccount:zonescope:zonescope" cannot patch resource "services"'],
    [404, 'not-found:service', 'Service shop/storefront not found.'],
    [404, 'not-found:cluster', 'No cluster "gone" is configured.'],
    [412, 'precondition-failed:topology-mode', 'The precondition failed.'],
    [413, 'payload-too-large:topology-mode', 'The body is larger than 1024 bytes.'],
    [415, 'unsupported-media-type:topology-mode', 'The body must be sent as Content-Type: application/json.'],
    [422, 'invalid:topology-mode', 'Topology mode does not apply to an ExternalName Service: … Nothing was written.'],
    [428, 'precondition-required:topology-mode', 'Send If-Match: "<resourceVersion>" with the resourceVersion you saw.'],
    [429, 'too-many-requests:topology-mode', 'Too many requests, please try again later.'],
    [502, 'upstream:topology-mode', 'The API server answered 501.'],
    [502, 'unauthorized:topology-mode', "The API server rejected the dashboard's credentials."],
    [503, 'syncing:topology-mode', 'The dashboard is still syncing the cluster; try again in a moment.'],
    [503, 'unavailable:topology-mode', 'connect ECONNREFUSED 127.0.0.1:6443'],
    [503, 'cluster-unavailable:cluster', 'The cluster is not reachable.'],
  ];

  it.each(REFUSALS)('%i %s: refused, nothing written; the server\'s message and code are shown', (status, code, message) => {
    const answer = apiError(status, code, message, status === 502 || status === 503 || status === 422 ? { current: current('139') } : {});
    const verdict = writeVerdict(answer, '139');
    expect(verdict).toEqual({ kind: 'refused', status, code, message });
    // A 403 changed what the permission check says: the state is read again to show it beside the buttons.
    expect(writeFollowUp(verdict)).toEqual({ readFirst: false, read: status === 403, refreshPage: false, follow: null });
    const state = answered(answer);
    expect(state.phase).toEqual({ kind: 'error', mode: 'Auto', status, code, message });
    expect(state.ifMatch).toBe('139');
    expect(isBusy(state.phase)).toBe(false);
  });

  it('an answer that is not the API\'s JSON (a proxy\'s HTML error page): the status stands in for the message, no code', () => {
    expect(writeVerdict(http(502), '139')).toEqual({ kind: 'refused', status: 502, code: '', message: 'HTTP 502' });
    expect(writeVerdict(http(421, { error: 'untrusted host' }), '139')).toEqual({ kind: 'refused', status: 421, code: '', message: 'HTTP 421' });
  });

  it('an answer that arrives when no write is in flight changes nothing', () => {
    const idle = initialToggleState(PREVIEW, '139');
    expect(toggleReducer(idle, { type: 'written', verdict: writeVerdict(http(200), '139'), reread: null })).toBe(idle);
  });
});

describe('following the cluster after a write', () => {
  const detail = (resourceVersion: string, hints: Record<string, number>, inSync: boolean, hintsEnabled = true) =>
    http(200, { resourceVersion, observed: { hintCountsByZone: hints, readyEndpoints: 6 }, diff: { inSync }, expected: { hintsEnabled } });

  it('reads the Service view: cache at the written version, hints counted, in sync', () => {
    expect(followProgress(detail('141', { 'zone-a': 2, 'zone-b': 3 }, true), '140')).toEqual({ cacheUpdated: true, hinted: 5, ready: 6, inSync: true, hintsExpected: true });
    expect(followProgress(detail('139', {}, true), '140')).toMatchObject({ cacheUpdated: false, hinted: 0 });
  });

  it('the hints arrived once the cache holds the write and the slices match', () => {
    expect(hintsArrived({ cacheUpdated: true, hinted: 6, ready: 6, inSync: true, hintsExpected: true })).toBe(true);
    expect(hintsArrived({ cacheUpdated: true, hinted: 2, ready: 6, inSync: false, hintsExpected: true })).toBe(false);
    // In sync, but the cache has not seen the write yet: the old state, not the new one.
    expect(hintsArrived({ cacheUpdated: false, hinted: 0, ready: 6, inSync: true, hintsExpected: true })).toBe(false);
  });

  it('a failed poll, an error or something else than the Service view shows nothing', () => {
    expect(followProgress({ kind: 'network' }, '140')).toBeNull();
    expect(followProgress(apiError(503, 'syncing:service', 'Syncing.'), '140')).toBeNull();
    expect(followProgress(http(200), '140')).toBeNull();
    expect(followProgress(http(200, { resourceVersion: '141' }), '140')).toBeNull();
  });

  it('resourceVersions compare as numbers when they are numbers (past 2^53 too), else only when equal', () => {
    expect(rvNewerOrEqual('10', '9')).toBe(true);
    expect(rvNewerOrEqual('9', '10')).toBe(false);
    expect(rvNewerOrEqual('90071992547409930', '90071992547409929')).toBe(true);
    expect(rvNewerOrEqual('abc', 'abc')).toBe(true);
    expect(rvNewerOrEqual('abd', 'abc')).toBe(false);
  });

  it('each poll moves the clock and keeps the last progress seen; the end carries the note to the result', () => {
    const note = 'The write timed out… applied.';
    const following = answered(apiError(504, 'timeout:topology-mode', note, { current: current('174', 'Auto'), outcome: 'applied' }));
    const seen = { cacheUpdated: true, hinted: 2, ready: 6, inSync: false, hintsExpected: true };
    const polled = run(following, { type: 'follow', elapsedMs: 1_000, progress: seen }, { type: 'follow', elapsedMs: 2_000, progress: null });
    expect(polled.phase).toMatchObject({ kind: 'following', elapsedMs: 2_000, progress: seen });
    const arrived = { ...seen, hinted: 6, inSync: true };
    expect(toggleReducer(polled, { type: 'followed', arrived: true, seconds: 3, progress: arrived }).phase).toEqual({ kind: 'done', mode: 'Auto', arrived: true, progress: arrived, seconds: 3, note });
    expect(toggleReducer(polled, { type: 'followed', arrived: false, seconds: FOLLOW_MS / 1000, progress: null }).phase).toEqual({
      kind: 'done',
      mode: 'Auto',
      arrived: false,
      progress: seen,
      seconds: 30,
      note,
    });
  });

  it('a poll outside the follow step changes nothing', () => {
    const idle = initialToggleState(PREVIEW, '139');
    expect(toggleReducer(idle, { type: 'follow', elapsedMs: 1_000, progress: null })).toBe(idle);
    expect(toggleReducer(idle, { type: 'followed', arrived: true, seconds: 1, progress: null })).toBe(idle);
  });
});
