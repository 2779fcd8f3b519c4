'use client';

/**
 * The header's live leaf: keeps the page on the watch and says how old its data is.
 *
 * - Polls `GET /api/v1/cluster/generation` every 2 s while the tab is visible (and at once when it
 *   becomes visible, comes back online, or the route changes) and re-renders the server components
 *   (`router.refresh()`: client state, focus and scroll position stay) when the server is past the
 *   generation and health this page was rendered with — at most once per 2 s, not while a refresh
 *   is in flight, not while the user edits a field (focus in a text field that took input since it
 *   got the focus) and not while a hold is open (an element with `data-live-refresh-hold`, e.g. the
 *   topology-mode confirmation; see lib/shared/live-refresh.ts). A held update is announced.
 * - Shows "updated Ns ago": the time since the page's data was last known to match the server's
 *   cache (rendered, or confirmed by a poll), ticking every second; its accessible name says it in
 *   words. Without JavaScript it reads "updated at HH:MM:SS UTC" (the render time).
 * - Refresh: a link to the current URL (`href=""` resolves to the document's URL, query included and
 *   right behind rewrites), so it reloads without JavaScript; with it, a `router.refresh()`.
 * - A lost connection (2 failed polls, or the browser offline) replaces the freshness badge
 *   (`children`) with "Connection lost" and says so in a status message, instead of silently
 *   showing old data; it clears itself when the server answers again.
 */
import { usePathname, useRouter, useSearchParams } from 'next/navigation';
import type { MouseEvent, ReactNode } from 'react';
import { useCallback, useEffect, useRef, useState, useTransition } from 'react';
import type { ClusterGenerationResponse } from '@/lib/views/api-types';
import type { LiveMark, UserHold } from '@/lib/shared/live-refresh';
import {
  connectionLost,
  decideRefresh,
  formatAge,
  formatRenderedAt,
  HOLD_SELECTOR,
  isBehind,
  isTextEntry,
  liveNote,
  POLL_INTERVAL_MS,
  POLL_TIMEOUT_MS,
} from '@/lib/shared/live-refresh';
import { Badge } from '../ui/status';
import { useClusterHref } from './cluster-base';

/** Polled in the page's cluster (`/c/{id}/api/v1/cluster/generation` off the default). */
const ENDPOINT = '/api/v1/cluster/generation';

function isGenerationBody(value: unknown): value is ClusterGenerationResponse {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Record<string, unknown>;
  return typeof v.generation === 'number' && typeof v.health === 'string' && typeof v.synced === 'boolean';
}

export function LiveStatus({ rendered, renderedAt, children }: { readonly rendered: LiveMark; readonly renderedAt: string; readonly children: ReactNode }) {
  const router = useRouter();
  const endpoint = useClusterHref(ENDPOINT);
  const pathname = usePathname() ?? '/';
  const search = useSearchParams()?.toString() ?? '';
  const [refreshing, startTransition] = useTransition();
  const [latest, setLatest] = useState<LiveMark | null>(null);
  const [failures, setFailures] = useState(0);
  const [offline, setOffline] = useState(false);
  /** Client time the page's data was last known to be current; `null` until hydrated. */
  const [confirmedAt, setConfirmedAt] = useState<number | null>(null);
  const [now, setNow] = useState<number | null>(null);
  const [waiting, setWaiting] = useState<UserHold | null>(null);
  const lastRefreshAt = useRef<number | null>(null);
  /** The focused text field took input since it got the focus. */
  const edited = useRef(false);
  const pollNow = useRef<() => void>(() => undefined);
  const { generation, health, synced } = rendered;
  /** The mark this page was rendered with, for the poll loop (which outlives renders). */
  const renderedMark = useRef<LiveMark>(rendered);
  useEffect(() => {
    renderedMark.current = { generation, health, synced };
  }, [generation, health, synced]);

  // A new render arrived (first paint, refresh or navigation that re-rendered the layout): current now.
  useEffect(() => {
    const t = Date.now();
    setConfirmedAt(t);
    setNow(t);
  }, [generation, health, renderedAt]);

  // The clock of "updated Ns ago" (and of the refresh decision).
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), 1_000);
    return () => clearInterval(timer);
  }, []);

  // Typing: a text field that took input since it got the focus holds refreshes until it loses it.
  useEffect(() => {
    const onFocus = () => {
      edited.current = false;
    };
    const onInput = (event: Event) => {
      if (event.target === document.activeElement && isTextEntry(document.activeElement as HTMLInputElement)) edited.current = true;
    };
    const onBlur = () => {
      edited.current = false;
      setNow(Date.now());
    };
    document.addEventListener('focusin', onFocus);
    document.addEventListener('input', onInput, true);
    document.addEventListener('focusout', onBlur);
    return () => {
      document.removeEventListener('focusin', onFocus);
      document.removeEventListener('input', onInput, true);
      document.removeEventListener('focusout', onBlur);
    };
  }, []);

  // The poll loop.
  useEffect(() => {
    let stopped = false;
    let timer: ReturnType<typeof setTimeout> | null = null;
    let inFlight = false;
    const schedule = () => {
      if (timer !== null) clearTimeout(timer);
      timer = stopped ? null : setTimeout(() => void poll(), POLL_INTERVAL_MS);
    };
    const poll = async () => {
      if (stopped || inFlight) return;
      if (document.visibilityState !== 'visible') {
        schedule();
        return;
      }
      inFlight = true;
      const abort = new AbortController();
      const timeout = setTimeout(() => abort.abort(), POLL_TIMEOUT_MS);
      try {
        const response = await fetch(endpoint, { cache: 'no-store', headers: { Accept: 'application/json' }, signal: abort.signal });
        const body: unknown = response.ok ? await response.json() : null;
        if (stopped) return;
        if (!isGenerationBody(body)) throw new Error(`HTTP ${response.status}`);
        const mark: LiveMark = { generation: body.generation, health: body.health, synced: body.synced };
        setLatest(mark);
        setFailures(0);
        setOffline(false);
        // The server has nothing newer than the page: its data is current as of now.
        if (!isBehind(renderedMark.current, mark)) setConfirmedAt(Date.now());
      } catch {
        if (!stopped) setFailures((n) => n + 1);
      } finally {
        clearTimeout(timeout);
        inFlight = false;
        setNow(Date.now());
        schedule();
      }
    };
    pollNow.current = () => void poll();
    const onVisible = () => {
      if (document.visibilityState === 'visible') void poll();
    };
    const onOnline = () => {
      setOffline(false);
      void poll();
    };
    const onOffline = () => setOffline(true);
    document.addEventListener('visibilitychange', onVisible);
    window.addEventListener('online', onOnline);
    window.addEventListener('offline', onOffline);
    if (!navigator.onLine) setOffline(true);
    void poll();
    return () => {
      stopped = true;
      if (timer !== null) clearTimeout(timer);
      pollNow.current = () => undefined;
      document.removeEventListener('visibilitychange', onVisible);
      window.removeEventListener('online', onOnline);
      window.removeEventListener('offline', onOffline);
    };
  }, [endpoint]);

  // A client navigation renders a new page under the same layout: look at once whether it is behind.
  useEffect(() => {
    pollNow.current();
  }, [pathname, search]);

  const lost = connectionLost(failures, offline);

  const refresh = useCallback(() => {
    lastRefreshAt.current = Date.now();
    startTransition(() => router.refresh());
  }, [router]);

  // Decide: on every poll answer, render, tick and focus change (a held or cooling-down refresh is looked at again on the next tick).
  useEffect(() => {
    if (now === null || latest === null || lost) {
      setWaiting(null);
      return;
    }
    const behind = isBehind({ generation, health, synced }, latest);
    if (!behind) {
      setWaiting(null);
      return;
    }
    const active = document.activeElement as HTMLElement | null;
    const editing = edited.current && isTextEntry(active);
    const hold: UserHold | null = document.querySelector(HOLD_SELECTOR) !== null ? 'dialog' : editing ? 'editing' : null;
    const decision = decideRefresh({ behind, hold, hidden: document.visibilityState !== 'visible', refreshing, now, lastRefreshAt: lastRefreshAt.current });
    setWaiting(decision.kind === 'wait' && (decision.reason === 'dialog' || decision.reason === 'editing') ? decision.reason : null);
    if (decision.kind === 'refresh') refresh();
  }, [now, latest, lost, generation, health, synced, refreshing, refresh]);

  const onRefreshClick = (event: MouseEvent<HTMLAnchorElement>) => {
    // New tab / window and the like: the link's own behaviour.
    if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    event.preventDefault();
    // Without the server, a refresh would fail (and turn into a full reload of an error page): ask first.
    if (lost) pollNow.current();
    else refresh();
  };

  const age = now !== null && confirmedAt !== null ? formatAge(now - confirmedAt) : null;
  const note = liveNote(lost, waiting);

  return (
    <>
      {lost ? (
        <Badge tone="error" title="The dashboard server does not answer; the page keeps showing the data it has and retries every few seconds.">
          Connection lost
        </Badge>
      ) : (
        children
      )}
      <span className="flex items-center gap-1.5 text-xs text-slate-600 dark:text-slate-400">
        <span role="timer" aria-label={age?.label ?? `Page data ${formatRenderedAt(renderedAt)}`} title={`Rendered at ${renderedAt}`} className="whitespace-nowrap tabular-nums">
          {age?.text ?? formatRenderedAt(renderedAt)}
        </span>
        <a
          href=""
          onClick={onRefreshClick}
          aria-busy={refreshing || undefined}
          className="rounded px-1.5 py-0.5 font-medium text-sky-800 underline-offset-2 ring-1 ring-inset ring-slate-300 hover:bg-slate-100 hover:underline focus-visible:outline focus-visible:outline-2 focus-visible:outline-sky-600 dark:text-sky-300 dark:ring-slate-600 dark:hover:bg-slate-800"
        >
          Refresh
        </a>
      </span>
      <span role="status" className={note ? 'basis-full text-right text-xs font-medium text-amber-800 dark:text-amber-300' : 'sr-only'}>
        {note}
      </span>
    </>
  );
}
