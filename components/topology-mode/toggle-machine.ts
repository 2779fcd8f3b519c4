/**
 * The topology-mode toggle's decisions, without React, fetch or clocks: the toggle's state, the
 * events that change it (`toggleReducer(state, event) → state`), and what each answer of the API
 * means — `GET …/topology-mode` (the toggle's state), `PUT …/topology-mode` (the guarded write) and
 * `GET /api/v1/services/{ns}/{name}` (followed after a write until the controller's hints arrive).
 * components/topology-mode/use-toggle.ts sends the requests and feeds the answers in;
 * ./toggle-view.ts says what the UI shows and enables in each state. Unit-tested in
 * toggle-machine.test.ts.
 *
 * The write's answers (docs/api.md lists every status):
 * - 200: written; follow the cluster from the new resourceVersion (it is the next If-Match);
 * - 409 `conflict`: nothing written; show the server's `current`, keep the user's choice, take
 *   `current.resourceVersion` as the next If-Match, re-read the state and refresh the page;
 * - 504 `timeout` (the answer left the outcome unknown) with what the server's re-read found:
 *   `applied` (follow as after a 200, with the server's sentence as a note), `not-applied` (review
 *   and confirm again against `current`), `unknown` (or no `current`: re-read, then say so);
 * - no answer at all (the dashboard server unreachable, the request cut off): the outcome is
 *   unknown — re-read, then say so;
 * - anything else (400, 403 cross-site / unauthenticated-write / read-only / forbidden, 404, 412,
 *   413, 415, 422, 428, 429, 502, 503…): refused, with the server's message and code; after a 403
 *   the state is read again (the permission it shows has changed).
 */
import type { TopologyModeResponse } from '@/lib/views/api-types';
import type { TopologyModeCurrent, TopologyModePrediction, TopologyModePreview, TopologyModeWriteOutcome } from '@/lib/views/topology-mode/types';
import { predictionAnnouncement } from './sync';

export type Mode = 'Auto' | 'Disabled';

/** What the follow step has seen of the cluster after a write. */
export interface FollowProgress {
  /** The dashboard's cache holds the Service at (or past) the written resourceVersion. */
  readonly cacheUpdated: boolean;
  readonly hinted: number;
  readonly ready: number;
  /** The slices carry the hints the analysis expects. */
  readonly inSync: boolean;
  /** The analysis expects hints on (with Auto, the controller may still keep them off). */
  readonly hintsExpected: boolean;
}

/** Where the toggle is (./sync.ts says in which phases a page-driven re-read runs). */
export type Phase =
  | { readonly kind: 'idle' }
  | { readonly kind: 'confirm'; readonly mode: Mode }
  | { readonly kind: 'writing'; readonly mode: Mode }
  | { readonly kind: 'following'; readonly mode: Mode; readonly resourceVersion: string; readonly elapsedMs: number; readonly progress: FollowProgress | null; readonly note: string | null }
  | { readonly kind: 'done'; readonly mode: Mode; readonly arrived: boolean; readonly progress: FollowProgress | null; readonly seconds: number; readonly note: string | null }
  | { readonly kind: 'conflict'; readonly mode: Mode; readonly message: string; readonly current: TopologyModeCurrent | null }
  | { readonly kind: 'unknown'; readonly mode: Mode; readonly message: string; readonly current: TopologyModeCurrent | null; readonly outcome: Exclude<TopologyModeWriteOutcome, 'applied'> }
  | { readonly kind: 'error'; readonly mode: Mode; readonly status: number; readonly code: string; readonly message: string };

type Sentences = Pick<TopologyModePrediction, 'enable' | 'disable'>;

export interface ToggleState {
  /** The state the last successful read returned; `null` until the first read answers (the page's preview shows meanwhile). */
  readonly loaded: TopologyModeResponse | null;
  /** Why the last read failed; `null` when it did not (or a later read answered). */
  readonly loadError: string | null;
  /** The prediction on screen: the page's preview until the first read, then the last read's. */
  readonly shown: Sentences;
  /** The polite status: set only when a read changed a prediction sentence. */
  readonly announcement: string;
  readonly phase: Phase;
  /** The resourceVersion sent as If-Match: what the page rendered, or what a write's answer showed since. */
  readonly ifMatch: string;
}

export function initialToggleState(preview: Pick<TopologyModePreview, 'prediction'>, pageResourceVersion: string): ToggleState {
  return { loaded: null, loadError: null, shown: preview.prediction, announcement: '', phase: { kind: 'idle' }, ifMatch: pageResourceVersion };
}

// ---------------------------------------------------------------------------------------------
// Answers

/**
 * What came back from one request: an HTTP answer (`body`: its JSON, `null` when it was not
 * JSON), no answer at all (`network`: refused, reset, cut off), or a request the toggle itself
 * aborted (a newer read, the confirm step opening, the page going away).
 */
export type Answer =
  | { readonly kind: 'http'; readonly status: number; readonly body: unknown }
  | { readonly kind: 'network' }
  | { readonly kind: 'aborted' };

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isOk(status: number): boolean {
  return status >= 200 && status < 300;
}

/** `error.message` and `error.code` of the API's error envelope (`null` when the body is not one). */
export function errorOf(body: unknown): { readonly message: string | null; readonly code: string | null } {
  const error = isObject(body) && isObject(body.error) ? body.error : null;
  return { message: typeof error?.message === 'string' ? error.message : null, code: typeof error?.code === 'string' ? error.code : null };
}

function currentOf(body: unknown): TopologyModeCurrent | null {
  if (!isObject(body) || !isObject(body.current) || typeof body.current.resourceVersion !== 'string') return null;
  return body.current as unknown as TopologyModeCurrent;
}

function isToggleState(body: unknown): body is TopologyModeResponse {
  return isObject(body) && isObject(body.current) && isObject(body.prediction) && isObject(body.change) && isObject(body.cluster);
}

/** The toggle's state a read answered with; `null` for anything else. */
export function readState(answer: Answer): TopologyModeResponse | null {
  return answer.kind === 'http' && isOk(answer.status) && isToggleState(answer.body) ? answer.body : null;
}

/** Why a read did not give the toggle's state; `null` when it did, or when the toggle aborted it (which changes nothing). */
export function readProblem(answer: Answer): string | null {
  if (answer.kind === 'aborted') return null;
  if (answer.kind === 'network') return 'The dashboard server did not answer.';
  if (!isOk(answer.status)) return errorOf(answer.body).message ?? `The toggle's state could not be read (HTTP ${answer.status}).`;
  if (answer.body === null) return "The toggle's state could not be read (the answer was not JSON).";
  return isToggleState(answer.body) ? null : "The toggle's state could not be read (the answer was not the toggle's state).";
}

/** What a write's answer means. */
export type WriteVerdict =
  /** Written (a 200, or a 504 whose re-read shows it landed): follow the cluster from `resourceVersion`. */
  | { readonly kind: 'applied'; readonly resourceVersion: string; readonly note: string | null }
  /** 409: nothing written; `current` is the server's value (`null`: its re-read failed). */
  | { readonly kind: 'conflict'; readonly message: string; readonly current: TopologyModeCurrent | null }
  /** 504 whose re-read shows the change is not on the Service. */
  | { readonly kind: 'not-applied'; readonly message: string; readonly current: TopologyModeCurrent }
  /** No answer, or a 504 whose re-read failed too: nobody knows whether it was written. */
  | { readonly kind: 'unknown'; readonly message: string; readonly current: TopologyModeCurrent | null }
  /** Refused: nothing written. */
  | { readonly kind: 'refused'; readonly status: number; readonly code: string; readonly message: string };

/** The sentence of a write nobody answered. */
export const NO_ANSWER = 'The dashboard server did not answer; the outcome is unknown.';

/** What the answer to `PUT …/topology-mode` (sent with `If-Match: "<ifMatch>"`) means. */
export function writeVerdict(answer: Answer, ifMatch: string): WriteVerdict {
  // No answer: the request may or may not have reached the API server.
  if (answer.kind !== 'http') return { kind: 'unknown', message: NO_ANSWER, current: null };
  const { status, body } = answer;
  if (isOk(status)) {
    const result = isObject(body) && isObject(body.result) ? body.result : null;
    return { kind: 'applied', resourceVersion: typeof result?.resourceVersion === 'string' ? result.resourceVersion : ifMatch, note: null };
  }
  const error = errorOf(body);
  const message = error.message ?? `HTTP ${status}`;
  const current = currentOf(body);
  if (status === 409) return { kind: 'conflict', message, current };
  if (status === 504) {
    // The answer left the outcome unknown; the server re-read the Service and says what it found.
    const outcome = isObject(body) ? body.outcome : undefined;
    if (outcome === 'applied' && current !== null) return { kind: 'applied', resourceVersion: current.resourceVersion, note: message };
    if (outcome === 'not-applied' && current !== null) return { kind: 'not-applied', message, current };
    return { kind: 'unknown', message, current };
  }
  return { kind: 'refused', status, code: error.code ?? '', message };
}

/** What the toggle does after a write's answer, besides changing its state. */
export interface WriteFollowUp {
  /** Read the toggle's state before showing the verdict: its `current` stands in for what the answer could not say. */
  readonly readFirst: boolean;
  /** Read the toggle's state again (in the background). */
  readonly read: boolean;
  /** Render the page again from the server's data. */
  readonly refreshPage: boolean;
  /** Follow the cluster from this resourceVersion until the controller's hints arrive. */
  readonly follow: string | null;
}

export function writeFollowUp(verdict: WriteVerdict): WriteFollowUp {
  switch (verdict.kind) {
    case 'applied':
      return { readFirst: false, read: false, refreshPage: false, follow: verdict.resourceVersion };
    case 'conflict':
      return { readFirst: false, read: true, refreshPage: true, follow: null };
    case 'not-applied':
      return { readFirst: false, read: true, refreshPage: false, follow: null };
    case 'unknown':
      return { readFirst: true, read: false, refreshPage: false, follow: null };
    case 'refused':
      // A 403 changed what the permission check says: show it beside the buttons.
      return { readFirst: false, read: verdict.status === 403, refreshPage: false, follow: null };
  }
}

// ---------------------------------------------------------------------------------------------
// Following the cluster after a write

/** How long the toggle follows the cluster after a write, and how often it asks. */
export const FOLLOW_MS = 30_000;
export const POLL_MS = 1_000;

/** Whether resourceVersion `a` is at or past `b` (numeric ones compared as numbers; opaque ones only when equal). */
export function rvNewerOrEqual(a: string, b: string): boolean {
  if (/^\d+$/.test(a) && /^\d+$/.test(b)) return BigInt(a) >= BigInt(b);
  return a === b;
}

/** What one answer of `GET /api/v1/services/{ns}/{name}` shows of a write at `resourceVersion`; `null` when it is not the Service's view. */
export function followProgress(answer: Answer, resourceVersion: string): FollowProgress | null {
  if (answer.kind !== 'http' || !isOk(answer.status) || !isObject(answer.body)) return null;
  const { resourceVersion: at, observed, diff, expected } = answer.body;
  if (typeof at !== 'string' || !isObject(observed) || !isObject(observed.hintCountsByZone) || !isObject(diff) || !isObject(expected)) return null;
  const hinted = Object.values(observed.hintCountsByZone).reduce<number>((sum, n) => sum + (typeof n === 'number' ? n : 0), 0);
  return {
    cacheUpdated: rvNewerOrEqual(at, resourceVersion),
    hinted,
    ready: typeof observed.readyEndpoints === 'number' ? observed.readyEndpoints : 0,
    inSync: diff.inSync === true,
    hintsExpected: expected.hintsEnabled === true,
  };
}

/** The controller has done its part: the cache holds the write and the slices match what the analysis expects. */
export function hintsArrived(progress: FollowProgress): boolean {
  return progress.cacheUpdated && progress.inSync;
}

// ---------------------------------------------------------------------------------------------
// Events

export type ToggleEvent =
  /** A read of the toggle's state answered. */
  | { readonly type: 'read'; readonly answer: Answer }
  /** The page was rendered from a Service at this resourceVersion (the next If-Match). */
  | { readonly type: 'page-rendered'; readonly resourceVersion: string }
  /** Enable / Disable, or "Review" after a conflict or a write that did not land: the confirm step. */
  | { readonly type: 'open'; readonly mode: Mode }
  /** The confirm step closed without writing (Cancel, Escape). */
  | { readonly type: 'cancel' }
  /** The confirm step's "Yes": the write is sent. */
  | { readonly type: 'submit' }
  /** The write answered (`reread`: the state read before showing it, when the verdict asked for one). */
  | { readonly type: 'written'; readonly verdict: WriteVerdict; readonly reread: TopologyModeCurrent | null }
  /** The follow step asked the cluster again. */
  | { readonly type: 'follow'; readonly elapsedMs: number; readonly progress: FollowProgress | null }
  /** The follow step ended: the hints arrived, or it stopped waiting. */
  | { readonly type: 'followed'; readonly arrived: boolean; readonly seconds: number; readonly progress: FollowProgress | null }
  /** "Re-read and continue" after an unknown outcome. */
  | { readonly type: 'dismiss' };

/** A write is in flight or being followed: the buttons wait. */
export function isBusy(phase: Phase): boolean {
  return phase.kind === 'writing' || phase.kind === 'following';
}

function withPhase(state: ToggleState, phase: Phase): ToggleState {
  return { ...state, phase };
}

function afterRead(state: ToggleState, answer: Answer): ToggleState {
  const loaded = readState(answer);
  if (loaded === null) {
    const problem = readProblem(answer);
    // An aborted read changes nothing; a failed one keeps what is shown (rather than blanking the control).
    return problem === null ? state : { ...state, loadError: problem };
  }
  const message = predictionAnnouncement(state.shown, loaded.prediction);
  return { ...state, loaded, loadError: null, shown: loaded.prediction, announcement: message ?? state.announcement };
}

function afterWrite(state: ToggleState, mode: Mode, verdict: WriteVerdict, reread: TopologyModeCurrent | null): ToggleState {
  switch (verdict.kind) {
    case 'applied':
      return { ...state, ifMatch: verdict.resourceVersion, phase: { kind: 'following', mode, resourceVersion: verdict.resourceVersion, elapsedMs: 0, progress: null, note: verdict.note } };
    case 'conflict':
      return { ...state, ifMatch: verdict.current?.resourceVersion ?? state.ifMatch, phase: { kind: 'conflict', mode, message: verdict.message, current: verdict.current } };
    case 'not-applied':
      return { ...state, ifMatch: verdict.current.resourceVersion, phase: { kind: 'unknown', mode, message: verdict.message, current: verdict.current, outcome: 'not-applied' } };
    case 'unknown':
      return withPhase(state, { kind: 'unknown', mode, message: verdict.message, current: verdict.current ?? reread, outcome: 'unknown' });
    case 'refused':
      return withPhase(state, { kind: 'error', mode, status: verdict.status, code: verdict.code, message: verdict.message });
  }
}

/** The toggle's next state; an event that does not apply where the toggle is leaves it as it is. */
export function toggleReducer(state: ToggleState, event: ToggleEvent): ToggleState {
  const phase = state.phase;
  switch (event.type) {
    case 'read':
      return afterRead(state, event.answer);
    case 'page-rendered':
      return event.resourceVersion === state.ifMatch ? state : { ...state, ifMatch: event.resourceVersion };
    case 'open':
      if (isBusy(phase) || (phase.kind === 'confirm' && phase.mode === event.mode)) return state;
      return withPhase(state, { kind: 'confirm', mode: event.mode });
    case 'cancel':
      return phase.kind === 'confirm' ? withPhase(state, { kind: 'idle' }) : state;
    case 'submit':
      return phase.kind === 'confirm' ? withPhase(state, { kind: 'writing', mode: phase.mode }) : state;
    case 'written':
      return phase.kind === 'writing' ? afterWrite(state, phase.mode, event.verdict, event.reread) : state;
    case 'follow':
      return phase.kind === 'following' ? withPhase(state, { ...phase, elapsedMs: event.elapsedMs, progress: event.progress ?? phase.progress }) : state;
    case 'followed':
      return phase.kind === 'following'
        ? withPhase(state, { kind: 'done', mode: phase.mode, arrived: event.arrived, progress: event.progress ?? phase.progress, seconds: event.seconds, note: phase.note })
        : state;
    case 'dismiss':
      return phase.kind === 'unknown' ? withPhase(state, { kind: 'idle' }) : state;
  }
}
