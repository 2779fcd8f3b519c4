'use client';

/**
 * The frame both History panels share: the range buttons, then the answer for the chosen range —
 * the loading skeleton the first time, the previous answer dimmed while the next one loads, or the
 * load error (which never breaks the page). `render` draws one answer.
 */
import type { ReactNode } from 'react';

import type { HistoryFrame, HistoryRange } from '@/lib/shared/history-types';
import { HistoryLoadError, HistoryRangeButtons, HistorySkeleton } from './history-parts';
import { useHistory } from './use-history';

export function HistoryLoader<T extends HistoryFrame>({
  url,
  height,
  what,
  render,
}: {
  /** The API URL for a range (`historyUrl(…)`; `null`: none chosen). */
  readonly url: (range: HistoryRange | null) => string;
  /** Height of the skeleton (the charts' height, so the page does not jump). */
  readonly height: number;
  /** What is loading, for the skeleton's text (`the Service's history`). */
  readonly what: string;
  /** One answer, with the Unix seconds relative times count from. */
  readonly render: (history: T, now: number) => ReactNode;
}) {
  const { range, setRange, reload, load } = useHistory<T>(url);
  const shown = load.state === 'loaded' ? load : load.state === 'loading' ? load.previous : null;
  const busy = load.state === 'loading';
  return (
    <div className="space-y-3" aria-busy={busy}>
      <HistoryRangeButtons value={range} onChange={setRange} onReload={reload} busy={busy} />
      {load.state === 'error' ? (
        <HistoryLoadError message={load.message} />
      ) : shown ? (
        <div className={busy ? 'opacity-60 transition-opacity' : undefined}>
          {busy ? (
            <p role="status" className="sr-only">
              Loading the last {range}…
            </p>
          ) : null}
          {render(shown.data, shown.loadedAt)}
        </div>
      ) : (
        <HistorySkeleton height={height} what={what} />
      )}
    </div>
  );
}
