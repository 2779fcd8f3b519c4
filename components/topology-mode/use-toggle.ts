'use client';

/**
 * The topology-mode toggle's wiring: sends its requests, feeds the answers to the pure machine
 * (./toggle-machine.ts) and carries out what the machine's verdicts ask for.
 *
 * - Reads the toggle's state (`GET …/topology-mode`) on mount and whenever the page was rendered
 *   from newer data (./sync.ts), not while the confirm step is open nor while a write is in flight
 *   or followed; at most one read in flight (a newer one aborts it; opening the confirm step drops
 *   it, to be done again after).
 * - Writes (`PUT …/topology-mode`, body `{"mode":…}`, `If-Match: "<resourceVersion>"`), then re-reads,
 *   refreshes the page or follows the cluster as the verdict says.
 * - Follows the cluster after a write: `GET /api/v1/services/{ns}/{name}` every second, up to 30 s,
 *   until the controller's hints arrive; then refreshes the page and reads the state again.
 * - Keeps the focus where the keyboard user expects it: on "Yes" when the confirm step opens, back
 *   on the button that opened it when it is cancelled.
 *
 * Requests go to the page's cluster (`/c/{id}/api/v1/…` off the default).
 */
import { useRouter } from 'next/navigation';
import { useCallback, useEffect, useReducer, useRef } from 'react';
import type { RefObject } from 'react';
import type { TopologyModeResponse } from '@/lib/views/api-types';
import type { TopologyModePreview } from '@/lib/views/topology-mode/types';
import { withClusterBase } from '@/lib/shared/cluster-path';
import { useClusterBase } from '../layout/cluster-base';
import { shouldRefetch, toggleDataKey } from './sync';
import type { Answer, FollowProgress, Mode, ToggleState } from './toggle-machine';
import { FOLLOW_MS, POLL_MS, followProgress, hintsArrived, initialToggleState, readState, toggleReducer, writeFollowUp, writeVerdict } from './toggle-machine';

function apiBase(namespace: string, name: string): string {
  return `/api/v1/services/${encodeURIComponent(namespace)}/${encodeURIComponent(name)}`;
}

/** One request as the machine sees it: its status and JSON body, no answer, or aborted by us. */
async function request(url: string, init: RequestInit): Promise<Answer> {
  try {
    const response = await fetch(url, init);
    let body: unknown = null;
    try {
      body = await response.json();
    } catch {
      body = null;
    }
    return init.signal?.aborted ? { kind: 'aborted' } : { kind: 'http', status: response.status, body };
  } catch {
    return init.signal?.aborted ? { kind: 'aborted' } : { kind: 'network' };
  }
}

const JSON_ACCEPT = { Accept: 'application/json' } as const;

export interface ToggleWiring {
  readonly state: ToggleState;
  readonly confirmRef: RefObject<HTMLButtonElement | null>;
  readonly enableRef: RefObject<HTMLButtonElement | null>;
  readonly disableRef: RefObject<HTMLButtonElement | null>;
  /** Opens the confirm step for `mode`. */
  readonly open: (mode: Mode) => void;
  /** Closes the confirm step and gives the focus back to the button that opened it. */
  readonly cancel: () => void;
  /** The confirm step's yes: sends the write. */
  readonly submit: () => void;
  /** After an unknown outcome: reads the state and the page again and returns to the buttons. */
  readonly dismiss: () => void;
  /** Reads the state again (after a failed first read). */
  readonly retry: () => void;
}

/** What the page gives the toggle (TopologyModeToggle's props). */
export interface ToggleProps {
  readonly namespace: string;
  readonly name: string;
  readonly pageResourceVersion: string;
  /** What the page rendered of the toggle's state (all but the permission): shown until the first read answers. */
  readonly preview: TopologyModePreview;
  /** The version of the Service's analysis the page rendered (ServiceView.version): the toggle re-reads when it changes. */
  readonly dataVersion: number;
}

export function useTopologyModeToggle({ namespace, name, pageResourceVersion, dataVersion, preview }: ToggleProps): ToggleWiring {
  const router = useRouter();
  /** The Service's API in the page's cluster. */
  const api = withClusterBase(useClusterBase(), apiBase(namespace, name));
  const [state, dispatch] = useReducer(toggleReducer, null, () => initialToggleState(preview, pageResourceVersion));
  const cancelled = useRef(false);
  /** The read of the state in flight: at most one (a newer read aborts it). */
  const reading = useRef<AbortController | null>(null);
  /** The page data key the last page-driven read was started for (`null`: none yet, or it was given up). */
  const readKey = useRef<string | null>(null);
  const pageKey = toggleDataKey(pageResourceVersion, dataVersion);
  const confirmRef = useRef<HTMLButtonElement>(null);
  const enableRef = useRef<HTMLButtonElement>(null);
  const disableRef = useRef<HTMLButtonElement>(null);

  /** Reads the toggle's state; an aborted read (superseded, confirm opened, unmounted) changes nothing and returns `null`. */
  const load = useCallback(async (): Promise<TopologyModeResponse | null> => {
    reading.current?.abort();
    const abort = new AbortController();
    reading.current = abort;
    const answer = await request(`${api}/topology-mode`, { cache: 'no-store', headers: JSON_ACCEPT, signal: abort.signal });
    if (reading.current === abort) reading.current = null;
    dispatch({ type: 'read', answer });
    return readState(answer);
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
    if (!shouldRefetch({ pageKey, readKey: readKey.current, phase: state.phase.kind })) return;
    readKey.current = pageKey;
    void load();
  }, [pageKey, state.phase.kind, load]);

  // Nothing lands while the confirm step is open: a read still in flight is dropped, and done again after.
  useEffect(() => {
    if (state.phase.kind !== 'confirm' || reading.current === null) return;
    reading.current.abort();
    reading.current = null;
    readKey.current = null;
  }, [state.phase.kind]);

  // A re-rendered page (router.refresh) brings a newer resourceVersion: the next If-Match.
  useEffect(() => {
    dispatch({ type: 'page-rendered', resourceVersion: pageResourceVersion });
  }, [pageResourceVersion]);

  useEffect(() => {
    if (state.phase.kind === 'confirm') confirmRef.current?.focus();
  }, [state.phase.kind]);

  const follow = useCallback(
    async (resourceVersion: string) => {
      const started = Date.now();
      let last: FollowProgress | null = null;
      while (!cancelled.current && Date.now() - started < FOLLOW_MS) {
        const progress = followProgress(await request(api, { cache: 'no-store', headers: JSON_ACCEPT }), resourceVersion);
        // A failed poll keeps what was seen last: a transient failure is not the end.
        if (progress !== null) last = progress;
        if (progress !== null && hintsArrived(progress)) {
          dispatch({ type: 'followed', arrived: true, progress, seconds: Math.round((Date.now() - started) / 1000) });
          router.refresh();
          void load();
          return;
        }
        dispatch({ type: 'follow', elapsedMs: Date.now() - started, progress: last });
        await new Promise((resolve) => setTimeout(resolve, POLL_MS));
      }
      if (cancelled.current) return;
      dispatch({ type: 'followed', arrived: false, progress: last, seconds: Math.round(FOLLOW_MS / 1000) });
      router.refresh();
      void load();
    },
    [api, router, load],
  );

  const submit = async () => {
    if (state.phase.kind !== 'confirm') return;
    const { mode } = state.phase;
    const ifMatch = state.ifMatch;
    dispatch({ type: 'submit' });
    const answer = await request(`${api}/topology-mode`, {
      method: 'PUT',
      headers: { 'Content-Type': 'application/json', ...JSON_ACCEPT, 'If-Match': `"${ifMatch}"` },
      body: JSON.stringify({ mode }),
    });
    const verdict = writeVerdict(answer, ifMatch);
    const next = writeFollowUp(verdict);
    const fresh = next.readFirst ? await load() : null;
    dispatch({ type: 'written', verdict, reread: fresh?.current ?? null });
    if (next.read) void load();
    if (next.refreshPage) router.refresh();
    if (next.follow !== null) void follow(next.follow);
  };

  const cancel = () => {
    if (state.phase.kind !== 'confirm') return;
    const mode = state.phase.mode;
    dispatch({ type: 'cancel' });
    // Keyboard users carry on from the button that opened the confirm step.
    (mode === 'Auto' ? enableRef : disableRef).current?.focus();
  };

  return {
    state,
    confirmRef,
    enableRef,
    disableRef,
    open: (mode) => dispatch({ type: 'open', mode }),
    cancel,
    submit: () => void submit(),
    dismiss: () => {
      void load();
      router.refresh();
      dispatch({ type: 'dismiss' });
    },
    retry: () => void load(),
  };
}
