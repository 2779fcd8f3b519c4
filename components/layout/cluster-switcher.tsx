'use client';

/**
 * The header's cluster switcher: a button naming the current cluster opens a popover with a
 * search box (a combobox over a listbox of clusters: display name, context, server and state)
 * and a link to the fleet. Choosing a cluster opens the same view in it — the Overview, the
 * Services, the Dataplane; from a Service page that cluster's Services searched for the name.
 *
 * Keyboard: the button opens it with the focus in the search box; ArrowDown/ArrowUp and
 * Home/End move through the clusters shown, Enter opens the one marked, Escape closes and gives
 * the focus back to the button. Switching is a full page load, as every move to another cluster is
 * (components/layout/cluster-base.tsx). Nothing here is server code: the server passes every cluster's
 * URL prefix, the target path is this page's view under that prefix.
 *
 * Hidden when there is only one cluster.
 */
import { usePathname } from 'next/navigation';
import { useEffect, useId, useMemo, useRef, useState } from 'react';
import type { KeyboardEvent as ReactKeyboardEvent } from 'react';

import { stripClusterBase, withClusterBase } from '@/lib/shared/cluster-path';
import { LINK } from '../ui/panel';
import { Badge } from '../ui/status';
import type { Tone } from '../ui/status';

/** One cluster as the switcher lists it (what the server's `switcherClusters()` gives). */
export interface SwitcherOption {
  readonly id: string;
  readonly displayName: string;
  readonly context: string | null;
  readonly server: string | null;
  /** `open · synced`, `open · syncing`, `error: …`, `not connected`, `closed after idle`. */
  readonly state: string;
  readonly tone: Tone;
  /** The cluster's URL prefix: `''` for the default, `/c/{id}` otherwise. */
  readonly base: string;
}

/** The view of a page that another cluster has too: `/`, `/services`, `/dataplane`, or `/services?q={name}` from a Service page. */
export function clusterViewPath(pathname: string): string {
  const rest = stripClusterBase(pathname);
  if (rest === '/services' || rest === '/services/') return '/services';
  const service = /^\/services\/[^/]+\/([^/]+)/.exec(rest);
  if (service?.[1]) {
    let name = service[1];
    try {
      name = decodeURIComponent(name);
    } catch {
      // A malformed escape: search for it as written.
    }
    return `/services?q=${encodeURIComponent(name)}`;
  }
  if (rest === '/dataplane' || rest.startsWith('/dataplane/')) return '/dataplane';
  return '/';
}

/** Where choosing a cluster goes from `pathname`: the same view under its prefix. */
export function switchHref(option: Pick<SwitcherOption, 'base'>, pathname: string): string {
  return withClusterBase(option.base, clusterViewPath(pathname));
}

/** The clusters matching a search (display name, context, server or id contain it, any case), in their order. */
export function filterClusters(options: readonly SwitcherOption[], query: string): SwitcherOption[] {
  const q = query.trim().toLowerCase();
  if (q === '') return [...options];
  return options.filter((o) => [o.displayName, o.context ?? '', o.server ?? '', o.id].some((text) => text.toLowerCase().includes(q)));
}

/** What a key in the search box does, given the marked option and how many are shown. */
export type SwitcherKeyAction = { readonly kind: 'move'; readonly to: number } | { readonly kind: 'choose'; readonly index: number } | { readonly kind: 'close' } | null;

export function switcherKeyAction(key: string, active: number, count: number): SwitcherKeyAction {
  switch (key) {
    case 'ArrowDown':
      return count === 0 ? null : { kind: 'move', to: active < 0 ? 0 : Math.min(count - 1, active + 1) };
    case 'ArrowUp':
      return count === 0 ? null : { kind: 'move', to: active < 0 ? count - 1 : Math.max(0, active - 1) };
    case 'Home':
      return count === 0 ? null : { kind: 'move', to: 0 };
    case 'End':
      return count === 0 ? null : { kind: 'move', to: count - 1 };
    case 'Enter':
      return count === 0 || active < 0 || active >= count ? null : { kind: 'choose', index: active };
    case 'Escape':
      return { kind: 'close' };
    default:
      return null;
  }
}

/** A state's words before its detail (`error` of `error: Cannot reach …`), for the badge. */
function stateHead(state: string): string {
  const colon = state.indexOf(': ');
  return colon === -1 ? state : state.slice(0, colon);
}

/** The detail after `error: `, `null` when there is none. */
function stateDetail(state: string): string | null {
  const colon = state.indexOf(': ');
  return colon === -1 ? null : state.slice(colon + 2);
}

function ChevronIcon({ open }: { readonly open: boolean }) {
  return (
    <svg viewBox="0 0 20 20" fill="currentColor" aria-hidden="true" className={`h-4 w-4 shrink-0 transition-transform ${open ? 'rotate-180' : ''}`}>
      <path fillRule="evenodd" d="M5.22 7.22a.75.75 0 0 1 1.06 0L10 10.94l3.72-3.72a.75.75 0 1 1 1.06 1.06l-4.25 4.25a.75.75 0 0 1-1.06 0L5.22 8.28a.75.75 0 0 1 0-1.06Z" clipRule="evenodd" />
    </svg>
  );
}

/** The popover's content (search box, clusters, fleet link), exported to be rendered on its own in tests. */
export function ClusterSwitcherPanel({
  id,
  options,
  shown,
  query,
  active,
  currentId,
  fleetHref,
  onQuery,
  onKey,
  onChoose,
  onHover,
  onLeave,
  inputRef,
}: {
  readonly id: string;
  readonly options: readonly SwitcherOption[];
  readonly shown: readonly SwitcherOption[];
  readonly query: string;
  readonly active: number;
  readonly currentId: string;
  readonly fleetHref: string;
  readonly onQuery: (value: string) => void;
  readonly onKey: (event: ReactKeyboardEvent<HTMLInputElement>) => void;
  readonly onChoose: (option: SwitcherOption) => void;
  readonly onHover: (index: number) => void;
  /** Following the fleet link (the popover closes). */
  readonly onLeave?: () => void;
  readonly inputRef?: React.Ref<HTMLInputElement>;
}) {
  const listId = `${id}-list`;
  const optionId = (index: number) => `${id}-option-${index}`;
  const marked = shown[active];
  return (
    <div className="space-y-2">
      <label htmlFor={`${id}-search`} className="block text-xs font-medium text-slate-700 dark:text-slate-300">
        Search {options.length} clusters
      </label>
      <input
        ref={inputRef}
        id={`${id}-search`}
        type="search"
        role="combobox"
        aria-expanded="true"
        aria-controls={listId}
        aria-autocomplete="list"
        aria-activedescendant={marked ? optionId(active) : undefined}
        autoComplete="off"
        spellCheck={false}
        value={query}
        onChange={(e) => onQuery(e.target.value)}
        onKeyDown={onKey}
        placeholder="Name, context or server"
        className="h-9 w-full rounded-md border border-slate-300 bg-white px-2 text-sm text-slate-900 dark:border-slate-600 dark:bg-slate-900 dark:text-slate-100"
      />
      <ul id={listId} role="listbox" aria-label="Clusters" className="max-h-[min(24rem,60vh)] overflow-y-auto rounded-md border border-slate-200 dark:border-slate-700">
        {shown.map((option, index) => {
          const current = option.id === currentId;
          return (
            <li
              key={option.id}
              id={optionId(index)}
              role="option"
              aria-selected={index === active}
              data-cluster={option.id}
              onMouseDown={(e) => e.preventDefault()}
              onClick={() => onChoose(option)}
              onMouseMove={() => onHover(index)}
              className={`cursor-pointer space-y-0.5 border-b border-slate-100 px-3 py-2 last:border-b-0 dark:border-slate-800 ${index === active ? 'bg-sky-100 dark:bg-sky-900/50' : ''}`}
            >
              <div className="flex flex-wrap items-center justify-between gap-x-2 gap-y-1">
                <span className="text-sm font-medium [overflow-wrap:anywhere]">
                  {option.displayName}
                  {current ? <span className="ml-1.5 text-xs font-normal text-slate-600 dark:text-slate-400">(current)</span> : null}
                </span>
                <Badge tone={option.tone}>{stateHead(option.state)}</Badge>
              </div>
              {stateDetail(option.state) !== null ? <p className="line-clamp-2 text-xs text-slate-700 [overflow-wrap:anywhere] dark:text-slate-300">{stateDetail(option.state)}</p> : null}
              {option.context !== null && option.context !== option.displayName ? (
                <p className="font-mono text-xs text-slate-600 [overflow-wrap:anywhere] dark:text-slate-400">
                  <span className="sr-only">Context: </span>
                  {option.context}
                </p>
              ) : null}
              {option.server !== null ? (
                <p className="font-mono text-xs text-slate-600 [overflow-wrap:anywhere] dark:text-slate-400">
                  <span className="sr-only">Server: </span>
                  {option.server}
                </p>
              ) : null}
            </li>
          );
        })}
      </ul>
      {shown.length === 0 ? (
        <p role="status" className="text-sm text-slate-600 dark:text-slate-400">
          No cluster matches “{query}”.
        </p>
      ) : null}
      <p className="text-sm">
        <a href={fleetHref} className={LINK} onClick={onLeave}>
          All clusters →
        </a>
      </p>
    </div>
  );
}

export function ClusterSwitcher({ clusters, currentId, fleetHref = '/fleet' }: { readonly clusters: readonly SwitcherOption[]; readonly currentId: string; readonly fleetHref?: string }) {
  const pathname = usePathname() ?? '/';
  const id = useId().replace(/:/g, '');
  const [open, setOpen] = useState(false);
  const [query, setQuery] = useState('');
  const [active, setActive] = useState(0);
  const buttonRef = useRef<HTMLButtonElement>(null);
  const inputRef = useRef<HTMLInputElement>(null);
  const rootRef = useRef<HTMLDivElement>(null);
  const shown = useMemo(() => filterClusters(clusters, query), [clusters, query]);
  const current = clusters.find((c) => c.id === currentId) ?? null;

  useEffect(() => {
    if (open) inputRef.current?.focus();
  }, [open]);

  // A click or focus outside closes it.
  useEffect(() => {
    if (!open) return;
    const outside = (event: Event) => {
      if (event.target instanceof Node && rootRef.current?.contains(event.target)) return;
      setOpen(false);
    };
    document.addEventListener('mousedown', outside);
    document.addEventListener('focusin', outside);
    return () => {
      document.removeEventListener('mousedown', outside);
      document.removeEventListener('focusin', outside);
    };
  }, [open]);

  if (clusters.length <= 1) return null;

  const openPanel = () => {
    setQuery('');
    setActive(Math.max(0, clusters.findIndex((c) => c.id === currentId)));
    setOpen(true);
  };
  const close = (returnFocus: boolean) => {
    setOpen(false);
    if (returnFocus) buttonRef.current?.focus();
  };
  const choose = (option: SwitcherOption) => {
    setOpen(false);
    if (option.id === currentId) {
      buttonRef.current?.focus();
      return;
    }
    // A full page load: the root layout (the header, the cluster's link base) belongs to one cluster.
    window.location.assign(switchHref(option, pathname));
  };
  const onKey = (event: ReactKeyboardEvent<HTMLInputElement>) => {
    const action = switcherKeyAction(event.key, active, shown.length);
    if (action === null) return;
    event.preventDefault();
    if (action.kind === 'move') {
      setActive(action.to);
      document.getElementById(`${id}-option-${action.to}`)?.scrollIntoView?.({ block: 'nearest' });
    } else if (action.kind === 'choose') {
      const option = shown[action.index];
      if (option) choose(option);
    } else {
      close(true);
    }
  };

  return (
    <div ref={rootRef} className="relative">
      <button
        ref={buttonRef}
        type="button"
        aria-haspopup="dialog"
        aria-expanded={open}
        aria-controls={open ? `${id}-panel` : undefined}
        onClick={() => (open ? close(false) : openPanel())}
        onKeyDown={(e) => {
          if (e.key === 'ArrowDown' && !open) {
            e.preventDefault();
            openPanel();
          }
        }}
        className="inline-flex max-w-[16rem] items-center gap-1 rounded-md border border-slate-300 px-2 py-1 text-xs font-medium text-slate-800 hover:bg-slate-100 dark:border-slate-600 dark:text-slate-200 dark:hover:bg-slate-800"
        title="Switch to another cluster"
      >
        <span className="sr-only">Switch cluster, current: </span>
        <span className="truncate">{current?.displayName ?? currentId}</span>
        <span className="text-slate-600 dark:text-slate-400" aria-hidden="true">
          · {clusters.length}
        </span>
        <ChevronIcon open={open} />
      </button>
      {open ? (
        <div
          id={`${id}-panel`}
          role="dialog"
          aria-label="Switch cluster"
          onKeyDown={(e) => {
            if (e.key === 'Escape' && !e.defaultPrevented) {
              e.preventDefault();
              close(true);
            }
          }}
          className="fixed inset-x-2 top-14 z-40 rounded-lg border border-slate-200 bg-white p-3 shadow-lg sm:absolute sm:inset-x-auto sm:right-0 sm:top-full sm:mt-1 sm:w-[28rem] dark:border-slate-700 dark:bg-slate-900"
        >
          <ClusterSwitcherPanel
            id={id}
            options={clusters}
            shown={shown}
            query={query}
            active={Math.min(active, shown.length - 1)}
            currentId={currentId}
            fleetHref={fleetHref}
            onQuery={(value) => {
              setQuery(value);
              setActive(0);
            }}
            onKey={onKey}
            onChoose={choose}
            onHover={setActive}
            onLeave={() => setOpen(false)}
            inputRef={inputRef}
          />
        </div>
      ) : null}
    </div>
  );
}
