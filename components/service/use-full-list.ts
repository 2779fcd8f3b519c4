'use client';

/**
 * The rest of a per-endpoint list, on demand. The Service page renders the first rows of its
 * per-endpoint tables on the server (so the page stays small at thousands of endpoints) and loads
 * the complete list from `GET /api/v1/services/{namespace}/{name}/endpoints` when the user asks.
 * Once loaded, the list is fetched again whenever the page's data changes (`version`, e.g. after
 * `router.refresh()`), so it never shows an older state than the panels around it.
 */
import { withClusterBase } from '@/lib/shared/cluster-path';
import { useClusterBase } from '../layout/cluster-base';
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';

export type FullListState<T> =
  | { readonly status: 'idle' }
  | { readonly status: 'loading'; readonly items: readonly T[] | null }
  | { readonly status: 'error'; readonly message: string; readonly items: readonly T[] | null }
  | { readonly status: 'loaded'; readonly items: readonly T[] };

/** Props of a per-endpoint table of a Service: its first rows from the server, the rest on demand. */
export interface FullListTableProps<T> {
  readonly namespace: string;
  readonly name: string;
  /** The first rows in table order. */
  readonly first: readonly T[];
  /** Number of items in the complete list. */
  readonly total: number;
  /** The page data's version (see `ServiceView.version`): a loaded list refetches when it changes. */
  readonly version: number;
}

/** The Service's per-endpoint list endpoint with its query. */
export function endpointListUrl(namespace: string, name: string, query: string): string {
  return `/api/v1/services/${encodeURIComponent(namespace)}/${encodeURIComponent(name)}/endpoints?${query}`;
}

/**
 * The list at `url`: `rows` are the server-rendered `first` rows until the complete list is loaded,
 * then every item in table order (`order`, a module-level sort so the memo holds; `complete` says which).
 */
export function useFullList<T>(
  path: string,
  version: number,
  first: readonly T[],
  order: (items: readonly T[]) => readonly T[],
): { readonly state: FullListState<T>; readonly rows: readonly T[]; readonly complete: boolean; readonly load: () => void; readonly collapse: () => void } {
  // In the page's cluster (`path` is without the `/c/{id}` prefix).
  const url = withClusterBase(useClusterBase(), path);
  // The state of the list at `url`: another URL's items (a different scenario) are never shown.
  const [current, setCurrent] = useState<{ readonly url: string; readonly state: FullListState<T> }>({ url, state: { status: 'idle' } });
  const wanted = useRef(false);
  const inFlight = useRef<AbortController | null>(null);

  const load = useCallback(() => {
    wanted.current = true;
    inFlight.current?.abort();
    const controller = new AbortController();
    inFlight.current = controller;
    const itemsOf = (previous: { readonly url: string; readonly state: FullListState<T> }) => (previous.url === url && 'items' in previous.state ? previous.state.items : null);
    setCurrent((previous) => ({ url, state: { status: 'loading', items: itemsOf(previous) } }));
    void (async () => {
      try {
        const response = await fetch(url, { cache: 'no-store', headers: { Accept: 'application/json' }, signal: controller.signal });
        const body = (await response.json().catch(() => ({}))) as { items?: readonly T[]; error?: { message?: string } };
        if (controller.signal.aborted) return;
        if (!response.ok || !Array.isArray(body.items)) throw new Error(body.error?.message ?? `The server answered ${response.status}.`);
        const items = body.items;
        setCurrent({ url, state: { status: 'loaded', items } });
      } catch (error) {
        if (controller.signal.aborted) return;
        const message = error instanceof Error ? error.message : 'The list could not be loaded.';
        setCurrent((previous) => ({ url, state: { status: 'error', message, items: itemsOf(previous) } }));
      }
    })();
  }, [url]);

  const collapse = useCallback(() => {
    wanted.current = false;
    inFlight.current?.abort();
    inFlight.current = null;
    setCurrent({ url, state: { status: 'idle' } });
  }, [url]);

  // Newer page data, or another list (scenario): refresh a list the user opened.
  useEffect(() => {
    if (wanted.current) load();
  }, [version, load]);

  useEffect(() => () => inFlight.current?.abort(), []);

  // Until the effect above has fetched the new URL's list, an opened list shows as loading.
  const state: FullListState<T> = current.url === url ? current.state : current.state.status !== 'idle' ? { status: 'loading', items: null } : { status: 'idle' };
  const loaded = state.status === 'idle' ? null : state.items;
  const all = useMemo(() => (loaded ? order(loaded) : null), [loaded, order]);
  return { state, rows: all ?? first, complete: all !== null, load, collapse };
}
