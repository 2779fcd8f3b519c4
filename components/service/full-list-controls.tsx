'use client';

/**
 * The footer of a per-endpoint table that shows its first rows only: how many are shown and in
 * which order, and a button that loads the complete list (see {@link useFullList}), or goes back
 * to the first rows. Progress and errors are announced (`role="status"`, `role="alert"`).
 */
import { formatCount } from '../ui/format';
import type { FullListState } from './use-full-list';

const BUTTON =
  'rounded-md border border-slate-300 px-2.5 py-1 text-xs font-medium hover:bg-slate-100 aria-disabled:opacity-60 dark:border-slate-600 dark:hover:bg-slate-800';

export function FullListControls<T>({
  state,
  shown,
  total,
  noun,
  order,
  onLoad,
  onCollapse,
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
}) {
  const loaded = state.status === 'loaded' || (state.status !== 'idle' && state.items !== null);
  if (!loaded && total <= shown) return null;
  return (
    <div className="flex flex-wrap items-center gap-x-3 gap-y-1 text-xs text-slate-700 dark:text-slate-300">
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
