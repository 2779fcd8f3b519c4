'use client';

/**
 * The History panels' client state: the range (kept in the URL as `?history=7d` with
 * `history.replaceState`, so choosing one neither navigates nor scrolls; none chosen, the API
 * opens on the range its data covers and the buttons show that one), and the fetch of the
 * history API on mount and on every range change (the previous answer stays on screen, marked
 * busy, until the new one arrives; a stale answer never overwrites a newer choice). The history
 * API is the page's cluster's (`url` is the path without the `/c/{id}` prefix).
 */
import { useSearchParams } from 'next/navigation';
import { useCallback, useEffect, useState } from 'react';
import type { HistoryFrame, HistoryRange } from '@/lib/shared/history-types';
import { DEFAULT_HISTORY_RANGE } from '@/lib/shared/history-types';
import { withClusterBase } from '@/lib/shared/cluster-path';
import { useClusterBase } from '../layout/cluster-base';
import { HISTORY_PARAM, historyHref, parseHistoryRange } from './history-format';

export type HistoryLoad<T> =
  | { readonly state: 'loading'; readonly previous: { readonly data: T; readonly loadedAt: number } | null }
  | { readonly state: 'loaded'; readonly data: T; readonly loadedAt: number }
  | { readonly state: 'error'; readonly message: string };

/** Why a history answer could not be used, in words (status, the API's own message when it sent one). */
export async function historyFailure(response: Response): Promise<string> {
  let detail = '';
  try {
    const body = (await response.json()) as { error?: { message?: unknown } };
    if (typeof body.error?.message === 'string') detail = body.error.message;
  } catch {
    // Not JSON: the status alone says it.
  }
  return `The dashboard answered ${response.status}${response.statusText ? ` ${response.statusText}` : ''}${detail ? `: ${detail}` : '.'}`;
}

/** Whether a parsed body looks like a history answer (a frame with a status). */
export function isHistoryFrame(body: unknown): body is HistoryFrame {
  if (typeof body !== 'object' || body === null) return false;
  const b = body as { status?: { state?: unknown }; range?: unknown; start?: unknown; end?: unknown };
  return typeof b.status?.state === 'string' && typeof b.range === 'string' && typeof b.start === 'number' && typeof b.end === 'number';
}

export function useHistory<T extends HistoryFrame>(url: (range: HistoryRange | null) => string): {
  /** The range shown: the one chosen, else the one the answer opened on, else the default while the first answer loads. */
  readonly range: HistoryRange;
  readonly setRange: (range: HistoryRange) => void;
  readonly reload: () => void;
  readonly load: HistoryLoad<T>;
} {
  const params = useSearchParams();
  // `null` until the user picks one (or the URL names one): the API then opens on the range its data covers.
  const [chosen, setRangeState] = useState<HistoryRange | null>(() => parseHistoryRange(params.get(HISTORY_PARAM)));
  const [attempt, setAttempt] = useState(0);
  const [load, setLoad] = useState<HistoryLoad<T>>({ state: 'loading', previous: null });
  const target = withClusterBase(useClusterBase(), url(chosen));

  useEffect(() => {
    const controller = new AbortController();
    setLoad((current) => ({ state: 'loading', previous: current.state === 'loaded' ? { data: current.data, loadedAt: current.loadedAt } : current.state === 'loading' ? current.previous : null }));
    (async () => {
      try {
        const response = await fetch(target, { signal: controller.signal, headers: { accept: 'application/json' }, cache: 'no-store' });
        if (!response.ok) {
          const message = await historyFailure(response);
          if (!controller.signal.aborted) setLoad({ state: 'error', message });
          return;
        }
        const body: unknown = await response.json().catch(() => null);
        if (controller.signal.aborted) return;
        if (!isHistoryFrame(body)) {
          setLoad({ state: 'error', message: 'The dashboard answered 200, but not with a history (no status, range or times in the JSON).' });
          return;
        }
        setLoad({ state: 'loaded', data: body as T, loadedAt: Date.now() / 1000 });
      } catch (error) {
        if (controller.signal.aborted) return;
        setLoad({ state: 'error', message: `The dashboard did not answer (${error instanceof Error ? error.message : String(error)}).` });
      }
    })();
    return () => controller.abort();
  }, [target, attempt]);

  const setRange = useCallback((next: HistoryRange) => {
    setRangeState(next);
    // Next.js keeps useSearchParams in step with replaceState; no navigation, no scroll.
    window.history.replaceState(window.history.state, '', historyHref(`${window.location.pathname}${window.location.search}${window.location.hash}`, next));
  }, []);
  const reload = useCallback(() => setAttempt((n) => n + 1), []);
  const answered = load.state === 'loaded' ? load.data.range : load.state === 'loading' ? (load.previous?.data.range ?? null) : null;
  return { range: chosen ?? answered ?? DEFAULT_HISTORY_RANGE, setRange, reload, load };
}
