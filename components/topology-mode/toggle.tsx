'use client';

/**
 * Enable / Disable topology mode for one Service, safely:
 * 1. shows the page's preview of its state (current annotations, the version-aware edit and the
 *    predicted outcome, rendered with the page) and reads the whole state (`GET …/topology-mode`,
 *    adding the permission) before the buttons are enabled — all shown BEFORE anything is written;
 * 2. a confirm step names the exact annotation change and the prediction;
 * 3. `PUT …/topology-mode` with body exactly `{"mode":"Auto"|"Disabled"}` and
 *    `If-Match: "<resourceVersion the page rendered>"` (a concurrent edit is a 409, never a lost
 *    update): 409 shows the server's current value and keeps the choice; 504 (the answer left the
 *    outcome unknown) shows what the server's re-read found — applied (then follows the cluster as
 *    after a success), not applied (review and confirm again), or still unknown; 403 says "not
 *    permitted" with the reason;
 * 4. after a write, follows the cluster (polls `GET /api/v1/services/…` every second, up to 30 s)
 *    until the controller's hints arrive, then refreshes the page data;
 * 5. follows the page: when a live refresh (lib/shared/live-refresh.ts) renders the page from newer
 *    data (`pageResourceVersion` or `dataVersion` moved), reads its state again — not while the
 *    confirm step is open nor while a write is in flight or followed (they read again when they
 *    end), keeping any outcome message; at most one read in flight (a newer one aborts it); the
 *    focus stays where it is, and a polite status says so only when a prediction sentence changed
 *    (components/topology-mode/sync.ts).
 * Hidden entirely in read-only mode (the page does not render it). Reads and writes go to the
 * page's cluster (`/c/{id}/api/v1/…` off the default), and the control names that cluster.
 */
import { useRouter } from 'next/navigation';
import { useCallback, useEffect, useRef, useState } from 'react';
import type { ApiErrorResponse, ServiceResponse, TopologyModePutResponse, TopologyModeResponse } from '@/lib/views/api-types';
import type { TopologyModeChangeOutcome, TopologyModeCurrent, TopologyModePreview, TopologyModeWriteOutcome } from '@/lib/views/topology-mode';
import { withClusterBase } from '@/lib/shared/cluster-path';
import { useClusterBase } from '../layout/cluster-base';
import { Badge, Callout } from '../ui/status';
import { predictionAnnouncement, shouldRefetch, toggleDataKey } from './sync';

type Mode = 'Auto' | 'Disabled';

type Phase =
  | { readonly kind: 'idle' }
  | { readonly kind: 'confirm'; readonly mode: Mode }
  | { readonly kind: 'writing'; readonly mode: Mode }
  | { readonly kind: 'following'; readonly mode: Mode; readonly resourceVersion: string; readonly started: number; readonly elapsed: number; readonly progress: FollowProgress | null; readonly note: string | null }
  | { readonly kind: 'done'; readonly mode: Mode; readonly arrived: boolean; readonly progress: FollowProgress | null; readonly seconds: number; readonly note: string | null }
  | { readonly kind: 'conflict'; readonly mode: Mode; readonly message: string; readonly current: TopologyModeCurrent | null }
  | { readonly kind: 'unknown'; readonly mode: Mode; readonly message: string; readonly current: TopologyModeCurrent | null; readonly outcome: Exclude<TopologyModeWriteOutcome, 'applied'> }
  | { readonly kind: 'error'; readonly mode: Mode; readonly status: number; readonly code: string; readonly message: string };

interface FollowProgress {
  readonly cacheUpdated: boolean;
  readonly hinted: number;
  readonly ready: number;
  readonly inSync: boolean;
  readonly hintsExpected: boolean;
}

const FOLLOW_MS = 30_000;
const POLL_MS = 1_000;

function apiBase(namespace: string, name: string): string {
  return `/api/v1/services/${encodeURIComponent(namespace)}/${encodeURIComponent(name)}`;
}

function rvNewerOrEqual(a: string, b: string): boolean {
  if (/^\d+$/.test(a) && /^\d+$/.test(b)) return BigInt(a) >= BigInt(b);
  return a === b;
}

function describeCurrent(current: TopologyModeCurrent): string {
  if (current.effectiveKey === null) return 'no topology annotation';
  return `${current.effectiveKey}: "${current.value ?? ''}"`;
}

async function readJson<T>(response: Response): Promise<T | null> {
  try {
    return (await response.json()) as T;
  } catch {
    return null;
  }
}

/** One predicted edit: a badge for the hints afterwards, then the before → after sentence. */
function PredictedOutcome({ outcome, hintsNow }: { readonly outcome: TopologyModeChangeOutcome; readonly hintsNow: boolean }) {
  const badge = outcome.hintsEnabled ? (
    <Badge tone="ok">{hintsNow ? 'hints stay on' : 'hints on'}</Badge>
  ) : (
    <Badge tone={hintsNow ? 'error' : 'neutral'}>{hintsNow ? 'hints turn off' : 'hints stay off'}</Badge>
  );
  return (
    <p className="mt-1">
      {badge} {outcome.text}
    </p>
  );
}

export function TopologyModeToggle({
  namespace,
  name,
  pageResourceVersion,
  dataVersion,
  preview,
}: {
  readonly namespace: string;
  readonly name: string;
  readonly pageResourceVersion: string;
  /** What the page rendered of the toggle's state (all but the permission): shown until the first read answers. */
  readonly preview: TopologyModePreview;
  /** The version of the Service's analysis the page rendered (ServiceView.version): the toggle re-reads when it changes. */
  readonly dataVersion: number;
}) {
  const router = useRouter();
  /** The Service's API in the page's cluster. */
  const api = withClusterBase(useClusterBase(), apiBase(namespace, name));
  const [state, setState] = useState<TopologyModeResponse | null>(null);
  const [loadError, setLoadError] = useState<string | null>(null);
  const [phase, setPhase] = useState<Phase>({ kind: 'idle' });
  /** The resourceVersion sent as If-Match: what the page rendered, or what a 409 re-read showed. */
  const [ifMatch, setIfMatch] = useState(pageResourceVersion);
  const cancelled = useRef(false);
  /** The read of the state in flight: at most one (a newer read aborts it). */
  const reading = useRef<AbortController | null>(null);
  /** The page data key the last page-driven read was started for (`null`: none yet, or it was given up). */
  const readKey = useRef<string | null>(null);
  /** The prediction on screen, to tell whether a re-read changed it (the page's preview until the first read). */
  const shown = useRef<Pick<TopologyModePreview, 'prediction'>>(preview);
  /** A polite status: said only when a re-read changed a prediction sentence. */
  const [announcement, setAnnouncement] = useState('');
  const pageKey = toggleDataKey(pageResourceVersion, dataVersion);
  const confirmRef = useRef<HTMLButtonElement>(null);
  const enableRef = useRef<HTMLButtonElement>(null);
  const disableRef = useRef<HTMLButtonElement>(null);

  /** Reads the toggle's state; an aborted read (superseded, confirm opened, unmounted) changes nothing and returns `null`. */
  const load = useCallback(async (): Promise<TopologyModeResponse | null> => {
    reading.current?.abort();
    const abort = new AbortController();
    reading.current = abort;
    try {
      const response = await fetch(`${api}/topology-mode`, { cache: 'no-store', headers: { Accept: 'application/json' }, signal: abort.signal });
      if (!response.ok) {
        const body = await readJson<ApiErrorResponse>(response);
        if (abort.signal.aborted) return null;
        setLoadError(body?.error.message ?? `The toggle's state could not be read (HTTP ${response.status}).`);
        return null;
      }
      const body = await readJson<TopologyModeResponse>(response);
      if (abort.signal.aborted) return null;
      if (!body) {
        // Keep what is shown (if anything) rather than blanking the control.
        setLoadError("The toggle's state could not be read (the answer was not JSON).");
        return null;
      }
      const message = predictionAnnouncement(shown.current.prediction, body.prediction);
      shown.current = body;
      setState(body);
      setLoadError(null);
      if (message !== null) setAnnouncement(message);
      return body;
    } catch {
      if (abort.signal.aborted) return null;
      setLoadError('The dashboard server did not answer.');
      return null;
    } finally {
      if (reading.current === abort) reading.current = null;
    }
  }, [api]);

  useEffect(() => {
    cancelled.current = false;
    return () => {
      cancelled.current = true;
      reading.current?.abort();
      reading.current = null;
      readKey.current = null;
    };
  }, []);

  // First read on mount, and again whenever the page was rendered from newer data (a live refresh,
  // the refresh after a write) — once the phase allows it (not in confirm, writing or following).
  useEffect(() => {
    if (!shouldRefetch({ pageKey, readKey: readKey.current, phase: phase.kind })) return;
    readKey.current = pageKey;
    void load();
  }, [pageKey, phase.kind, load]);

  // Nothing lands while the confirm step is open: a read still in flight is dropped, and done again after.
  useEffect(() => {
    if (phase.kind !== 'confirm' || reading.current === null) return;
    reading.current.abort();
    reading.current = null;
    readKey.current = null;
  }, [phase.kind]);

  // A re-rendered page (router.refresh) brings a newer resourceVersion: use it unless a 409 is being shown.
  useEffect(() => {
    setIfMatch(pageResourceVersion);
  }, [pageResourceVersion]);

  useEffect(() => {
    if (phase.kind === 'confirm') confirmRef.current?.focus();
  }, [phase.kind]);

  const follow = useCallback(
    async (mode: Mode, resourceVersion: string, note: string | null = null) => {
      const started = Date.now();
      setPhase({ kind: 'following', mode, resourceVersion, started, elapsed: 0, progress: null, note });
      let last: FollowProgress | null = null;
      while (!cancelled.current && Date.now() - started < FOLLOW_MS) {
        try {
          const response = await fetch(api, { cache: 'no-store', headers: { Accept: 'application/json' } });
          if (response.ok) {
            const detail = await readJson<ServiceResponse>(response);
            if (detail) {
              const hinted = Object.values(detail.observed.hintCountsByZone).reduce((a, b) => a + b, 0);
              last = {
                cacheUpdated: rvNewerOrEqual(detail.resourceVersion, resourceVersion),
                hinted,
                ready: detail.observed.readyEndpoints,
                inSync: detail.diff.inSync,
                hintsExpected: detail.expected.hintsEnabled,
              };
              if (last.cacheUpdated && last.inSync) {
                setPhase({ kind: 'done', mode, arrived: true, progress: last, seconds: Math.round((Date.now() - started) / 1000), note });
                router.refresh();
                void load();
                return;
              }
            }
          }
        } catch {
          // keep following; a transient failure is not the end
        }
        setPhase({ kind: 'following', mode, resourceVersion, started, elapsed: Date.now() - started, progress: last, note });
        await new Promise((resolve) => setTimeout(resolve, POLL_MS));
      }
      if (cancelled.current) return;
      setPhase({ kind: 'done', mode, arrived: false, progress: last, seconds: Math.round(FOLLOW_MS / 1000), note });
      router.refresh();
      void load();
    },
    [api, router, load],
  );

  const submit = async (mode: Mode) => {
    setPhase({ kind: 'writing', mode });
    let response: Response;
    try {
      response = await fetch(`${api}/topology-mode`, {
        method: 'PUT',
        headers: { 'Content-Type': 'application/json', Accept: 'application/json', 'If-Match': `"${ifMatch}"` },
        body: JSON.stringify({ mode }),
      });
    } catch {
      // The request may or may not have reached the API server.
      const fresh = await load();
      setPhase({ kind: 'unknown', mode, message: 'The dashboard server did not answer; the outcome is unknown.', current: fresh?.current ?? null, outcome: 'unknown' });
      return;
    }
    if (response.ok) {
      const body = await readJson<TopologyModePutResponse>(response);
      const rv = body?.result.resourceVersion ?? ifMatch;
      setIfMatch(rv);
      void follow(mode, rv);
      return;
    }
    const body = await readJson<ApiErrorResponse>(response);
    const message = body?.error.message ?? `HTTP ${response.status}`;
    const code = body?.error.code ?? '';
    if (response.status === 409) {
      const current = body?.current ?? null;
      if (current) setIfMatch(current.resourceVersion);
      void load();
      router.refresh();
      setPhase({ kind: 'conflict', mode, message, current });
      return;
    }
    if (response.status === 504) {
      // The answer left the outcome unknown; the server re-read the Service and says what it found.
      const current = body?.current ?? null;
      if (body?.outcome === 'applied' && current) {
        setIfMatch(current.resourceVersion);
        void follow(mode, current.resourceVersion, message);
        return;
      }
      if (body?.outcome === 'not-applied' && current) {
        setIfMatch(current.resourceVersion);
        void load();
        setPhase({ kind: 'unknown', mode, message, current, outcome: 'not-applied' });
        return;
      }
      const fresh = await load();
      setPhase({ kind: 'unknown', mode, message, current: current ?? fresh?.current ?? null, outcome: 'unknown' });
      return;
    }
    setPhase({ kind: 'error', mode, status: response.status, code, message });
    if (response.status === 403) void load();
  };

  // Until the permission check answers, the page's preview is shown and the buttons wait for it.
  const view: TopologyModePreview = state ?? preview;
  const pending = state === null;
  const enabled = view.current.enabled;
  const busy = pending || phase.kind === 'writing' || phase.kind === 'following';
  const disabledReason = state === null || state.canPatch ? null : (state.notAllowedReason ?? 'Not permitted.');
  const p = view.prediction;
  const reasonId = `topology-mode-reason-${namespace}-${name}`;
  const changeFor = (mode: Mode) => (mode === 'Auto' ? view.change.enable : view.change.disable);
  /** Closes the confirm step and gives the focus back to the button that opened it (keyboard users carry on from there). */
  const cancel = (mode: Mode) => {
    setPhase({ kind: 'idle' });
    (mode === 'Auto' ? enableRef : disableRef).current?.focus();
  };

  return (
    <div className="space-y-3">
      <p role="status" className="sr-only">
        {announcement}
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
          {view.resourceVersion !== pageResourceVersion ? ` (the cluster is at ${view.resourceVersion}; this page may be behind)` : ''}.
        </p>
      </div>

      {p.unknown !== null ? (
        <p className="rounded-md border border-amber-300 bg-amber-50 p-2 text-sm text-amber-900 dark:border-amber-700 dark:bg-amber-950 dark:text-amber-200">
          No prediction: {p.unknown.replace(/^unknown: /, '')}, so what Enable or Disable would do to hints and cross-zone traffic is unknown. The
          buttons still write the annotation.
        </p>
      ) : (
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
      )}

      <div className="flex flex-wrap items-center gap-2">
        <button
          ref={enableRef}
          type="button"
          disabled={busy || disabledReason !== null || enabled}
          aria-describedby={disabledReason ? reasonId : undefined}
          onClick={() => setPhase({ kind: 'confirm', mode: 'Auto' })}
          className="rounded-md bg-emerald-700 px-3 py-1.5 text-sm font-semibold text-white hover:bg-emerald-800 disabled:cursor-not-allowed disabled:bg-slate-300 disabled:text-slate-600 dark:bg-emerald-700 dark:hover:bg-emerald-600 dark:disabled:bg-slate-700 dark:disabled:text-slate-400"
        >
          Enable topology mode{enabled ? ' (on)' : ''}
        </button>
        <button
          ref={disableRef}
          type="button"
          disabled={busy || disabledReason !== null || !enabled}
          aria-describedby={disabledReason ? reasonId : undefined}
          onClick={() => setPhase({ kind: 'confirm', mode: 'Disabled' })}
          className="rounded-md border border-slate-400 px-3 py-1.5 text-sm font-semibold hover:bg-slate-100 disabled:cursor-not-allowed disabled:opacity-50 dark:border-slate-500 dark:hover:bg-slate-800"
        >
          Disable{!enabled ? ' (off)' : ''}
        </button>
      </div>
      {disabledReason ? (
        <p id={reasonId} className="flex items-start gap-1 text-sm text-amber-800 dark:text-amber-300">
          {/* A check that could not run is not a denial (issue 12): say which one it is. */}
          <Badge tone="warn">{state?.permissionCheckFailed === true ? 'permission unknown' : 'not permitted'}</Badge> {disabledReason}
        </p>
      ) : null}
      {pending && loadError !== null ? (
        <Callout tone="warn" title="The topology-mode control is not available right now">
          <p>{loadError}</p>
          <button type="button" onClick={() => void load()} className="rounded border border-slate-300 px-2 py-1 text-xs dark:border-slate-600">
            Try again
          </button>
        </Callout>
      ) : pending ? (
        <p role="status" className="text-sm text-slate-600 dark:text-slate-400">
          Checking permission…
        </p>
      ) : null}

      <div aria-live="polite" className="space-y-2">
        {phase.kind === 'confirm' ? (
          <div
            role="group"
            aria-label="Confirm the change"
            // Holds the page's automatic refresh while open: what is being confirmed must not change under the user (lib/shared/live-refresh.ts).
            data-live-refresh-hold=""
            onKeyDown={(event) => {
              if (event.key === 'Escape') cancel(phase.mode);
            }}
            className="space-y-2 rounded-md border-2 border-sky-400 p-3 dark:border-sky-600"
          >
            <p className="text-sm font-semibold">
              {phase.mode === 'Auto' ? 'Enable topology mode' : 'Disable topology mode'} on {namespace}/{name} in cluster {view.cluster.name}?
            </p>
            <ul className="list-disc pl-5 font-mono text-xs">
              {Object.entries(changeFor(phase.mode).set).map(([key, value]) => (
                <li key={key}>
                  set {key}: {value}
                </li>
              ))}
              {changeFor(phase.mode).remove.map((key) => (
                <li key={key}>remove {key}</li>
              ))}
            </ul>
            <p className="text-sm">
              {p.unknown !== null ? `No prediction (${p.unknown.replace(/^unknown: /, '')}).` : `Predicted: ${(phase.mode === 'Auto' ? p.enable : p.disable).text}.`}
            </p>
            <p className="text-xs text-slate-600 dark:text-slate-400">
              One merge patch of this annotation in cluster {view.cluster.name}
              {view.cluster.context !== null && view.cluster.context !== view.cluster.name ? ` (context ${view.cluster.context})` : ''}, only if the Service is still at resourceVersion {ifMatch}.
            </p>
            <div className="flex gap-2">
              <button ref={confirmRef} type="button" onClick={() => void submit(phase.mode)} className="rounded-md bg-sky-700 px-3 py-1.5 text-sm font-semibold text-white hover:bg-sky-800 dark:bg-sky-700">
                {phase.mode === 'Auto' ? 'Yes, enable' : 'Yes, disable'}
              </button>
              <button type="button" onClick={() => cancel(phase.mode)} className="rounded-md border border-slate-400 px-3 py-1.5 text-sm dark:border-slate-500">
                Cancel
              </button>
            </div>
          </div>
        ) : null}
        {phase.kind === 'writing' ? (
          <p role="status" className="text-sm">
            Writing {phase.mode === 'Auto' ? 'topology mode Auto' : 'Disabled'} in cluster {view.cluster.name}…
          </p>
        ) : null}
        {phase.kind === 'following' ? (
          <Callout tone="info" role="status" title={`Written. Following the cluster until the controller's hints arrive (${Math.round(phase.elapsed / 1000)} s of ${FOLLOW_MS / 1000} s)…`}>
            {phase.note ? <p className="text-xs">{phase.note}</p> : null}
            <progress max={FOLLOW_MS} value={phase.elapsed} className="h-2 w-full" aria-label="Time waited for the controller" />
            <ol className="list-decimal pl-5 text-xs">
              <li>Annotation written (resourceVersion {phase.resourceVersion}) ✓</li>
              <li>Dashboard cache updated {phase.progress?.cacheUpdated ? '✓' : '…'}</li>
              <li>
                EndpointSlices rewritten by the controller {phase.progress?.cacheUpdated && phase.progress.inSync ? '✓' : '…'}
                {phase.progress ? ` — ${phase.progress.hinted} of ${phase.progress.ready} ready endpoints hinted` : ''}
              </li>
            </ol>
          </Callout>
        ) : null}
        {phase.kind === 'done' ? (
          <Callout
            tone={phase.arrived ? 'ok' : 'warn'}
            role="status"
            title={
              phase.arrived
                ? phase.mode === 'Auto'
                  ? phase.progress?.hintsExpected
                    ? `Hints arrived after ${phase.seconds} s: ${phase.progress.hinted} of ${phase.progress.ready} ready endpoints hinted.`
                    : 'Topology mode is on, but the controller keeps hints off (see the verdict for why).'
                  : `Topology mode disabled; the slices carry ${phase.progress?.hinted ?? 0} hints.`
                : `The controller's hints did not arrive within ${phase.seconds} s.`
            }
          >
            {phase.note ? <p className="text-xs">{phase.note}</p> : null}
            <p>{phase.arrived ? 'The page now shows the new state.' : 'The write succeeded; the controller may be slow. The page shows the current state and updates on reload.'}</p>
          </Callout>
        ) : null}
        {phase.kind === 'conflict' ? (
          <Callout tone="warn" role="alert" title="The Service changed since this page loaded (409 Conflict): nothing was written.">
            <p>
              Current value on the server:{' '}
              <code className="font-mono text-xs">{phase.current ? `${describeCurrent(phase.current)} (resourceVersion ${phase.current.resourceVersion})` : 'could not be re-read'}</code>.
            </p>
            <p>Your choice is kept: review the current value, then confirm again.</p>
            <button type="button" onClick={() => setPhase({ kind: 'confirm', mode: phase.mode })} className="rounded-md bg-sky-700 px-3 py-1.5 text-sm font-semibold text-white dark:bg-sky-700">
              {phase.mode === 'Auto' ? 'Review: enable topology mode' : 'Review: disable topology mode'}
            </button>
          </Callout>
        ) : null}
        {phase.kind === 'unknown' ? (
          <Callout
            tone="warn"
            role="alert"
            title={phase.outcome === 'not-applied' ? 'Not applied: the answer was lost, and a re-read shows the change is not on the Service.' : 'Outcome unknown: re-read before trying again.'}
          >
            <p>{phase.message}</p>
            <p>
              Re-read now: <code className="font-mono text-xs">{phase.current ? `${describeCurrent(phase.current)} (resourceVersion ${phase.current.resourceVersion})` : 'not available'}</code>.
            </p>
            {phase.outcome === 'not-applied' ? (
              <button type="button" onClick={() => setPhase({ kind: 'confirm', mode: phase.mode })} className="mr-2 rounded-md bg-sky-700 px-3 py-1.5 text-sm font-semibold text-white dark:bg-sky-700">
                {phase.mode === 'Auto' ? 'Review: enable topology mode' : 'Review: disable topology mode'}
              </button>
            ) : null}
            <button
              type="button"
              onClick={() => {
                void load();
                router.refresh();
                setPhase({ kind: 'idle' });
              }}
              className="rounded-md border border-slate-400 px-3 py-1.5 text-sm dark:border-slate-500"
            >
              Re-read and continue
            </button>
          </Callout>
        ) : null}
        {phase.kind === 'error' ? (
          <Callout tone="error" role="alert" title={phase.status === 403 ? 'Not permitted' : phase.status === 429 ? 'Too many requests' : `The change was refused (HTTP ${phase.status})`}>
            <p>{phase.message}</p>
            {phase.code ? <p className="font-mono text-xs">{phase.code}</p> : null}
          </Callout>
        ) : null}
      </div>
    </div>
  );
}
