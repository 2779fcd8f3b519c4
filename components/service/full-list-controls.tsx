'use client';

/**
 * The footer of a per-endpoint table that shows its first rows only: how many are shown and in
 * which order, and a button that loads the complete list (see {@link useFullList}), or goes back
 * to the first rows. Progress and errors are announced (`role="status"`, `role="alert"`). With
 * `filter`, a search field that narrows the complete list (its match count is announced).
 */
import { formatCount } from '../ui/format';
import type { FullListState } from './use-full-list';

const BUTTON =
  'rounded-md border border-slate-300 px-2.5 py-1 text-xs font-medium hover:bg-slate-100 aria-disabled:opacity-60 dark:border-slate-600 dark:hover:bg-slate-800';

/** A filter field of the complete list. */
export interface FullListFilter {
  /** Accessible name of the field: `Filter endpoints`. */
  readonly label: string;
  readonly value: string;
  readonly onChange: (value: string) => void;
  /** Rows matching the filter. */
  readonly matched: number;
  readonly placeholder?: string;
}

export function FullListControls<T>({
  state,
  shown,
  total,
  noun,
  order,
  onLoad,
  onCollapse,
  filter,
}: {
  readonly state: FullListState<T>;
  /** Rows shown now. */
  readonly shown: number;
  /** Rows in the complete list, as the page was rendered. */
  readonly total: number;
  /** Plural noun of the rows: `endpoints`. */
  readonly noun: string;
  /** How the first rows are chosen: `not ready and donated first`. */
  readonly order: string;
  readonly onLoad: () => void;
  readonly onCollapse: () => void;
  /** A filter field over the complete list (shown only when the list is complete). */
  readonly filter?: FullListFilter;
}) {
  const loaded = state.status === 'loaded' || (state.status !== 'idle' && state.items !== null);
  // Whether the list has more rows than the first ones (else only the filter, if any, is shown).
  const paged = loaded || total > shown;
  if (!paged && !filter) return null;
  const filtering = filter !== undefined && filter.value.trim() !== '';
  return (
    <div className="flex flex-wrap items-center gap-x-3 gap-y-1 text-xs text-slate-700 dark:text-slate-300">
      {filter ? (
        <label className="flex items-center gap-2">
          <span className="font-medium">{filter.label}</span>
          <input
            type="search"
            value={filter.value}
            onChange={(e) => filter.onChange(e.target.value)}
            placeholder={filter.placeholder}
            className="h-7 w-56 max-w-full rounded border border-slate-300 bg-white px-2 text-xs text-slate-900 placeholder:text-slate-500 dark:border-slate-600 dark:bg-slate-900 dark:text-slate-100"
          />
        </label>
      ) : null}
      {filter ? (
        <p role="status" className={filtering ? '' : 'sr-only'}>
          {filtering ? `${formatCount(filter.matched)} of ${formatCount(shown)} ${noun} match.` : ''}
        </p>
      ) : null}
      {paged ? (
        <>
          <p>
            {loaded ? `All ${formatCount(shown)} ${noun} shown` : `The first ${formatCount(shown)} of ${formatCount(total)} ${noun} shown`} ({order}).
          </p>
          {loaded ? (
            <button type="button" className={BUTTON} onClick={onCollapse}>
              Show the first rows only
            </button>
          ) : (
            <button type="button" className={BUTTON} onClick={state.status === 'loading' ? undefined : onLoad} aria-disabled={state.status === 'loading' ? true : undefined}>
              Show all {formatCount(total)} {noun}
            </button>
          )}
        </>
      ) : null}
      <span role="status" className={state.status === 'loading' ? '' : 'sr-only'}>
        {state.status === 'loading' ? `Loading all ${noun}…` : state.status === 'loaded' ? `Loaded all ${formatCount(state.items.length)} ${noun}.` : ''}
      </span>
      {state.status === 'error' ? (
        <span role="alert" className="text-red-800 dark:text-red-300">
          Could not load the {noun}: {state.message}{' '}
          <button type="button" className={BUTTON} onClick={onLoad}>
            Retry
          </button>
        </span>
      ) : null}
    </div>
  );
}
