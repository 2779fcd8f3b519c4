/**
 * Events recorded on the Service, newest first, TopologyAwareHints ones highlighted. Times are
 * relative to `now` — the render time the server passes in (`3m ago`) — with the absolute
 * UTC time in the `<time dateTime>` and its title.
 */
import { formatRelativeTime } from '@/lib/shared/relative-time';
import type { EventRecord } from '@/lib/topology/model/cluster-model';
import { formatTimestamp } from '../ui/format';
import { Badge } from '../ui/status';

function timeOf(event: EventRecord): string | null {
  return event.lastTimestamp ?? event.firstTimestamp;
}

function millis(iso: string | null): number | null {
  if (!iso) return null;
  const t = Date.parse(iso);
  return Number.isNaN(t) ? null : t;
}

/** `just now` (under 10 s either way), `45s ago`, `3m ago`, `2h ago`, `4d ago` (`in 2m` for a clock ahead of ours); `unknown time` without one. */
export function relativeTime(iso: string | null, now: number): string {
  const t = millis(iso);
  if (t === null) return 'unknown time';
  const offset = -Math.round((now - t) / 1000);
  return Math.abs(offset) < 10 ? 'just now' : formatRelativeTime(offset);
}

/** Newest first; events without a time last, in their given order. */
export function newestFirst(events: readonly EventRecord[]): EventRecord[] {
  return events
    .map((event, i) => ({ event, i, t: millis(timeOf(event)) }))
    .sort((a, b) => (a.t === null ? (b.t === null ? a.i - b.i : 1) : b.t === null ? -1 : b.t - a.t || a.i - b.i))
    .map((x) => x.event);
}

export function EventsTimeline({ events, now }: { readonly events: readonly EventRecord[]; /** Render time (ms since the epoch), from the server. */ readonly now: number }) {
  if (events.length === 0) {
    return (
      <p className="text-sm text-slate-700 dark:text-slate-300">
        No events recorded on this Service. The controller records TopologyAwareHintsEnabled/Disabled only on a change, and the API server expires events
        after an hour by default.
      </p>
    );
  }
  return (
    <ol className="relative space-y-3 border-l-2 border-slate-200 pl-5 dark:border-slate-700">
      {newestFirst(events).map((event) => {
        const topology = event.reason.startsWith('TopologyAwareHints');
        const at = timeOf(event);
        return (
          <li key={`${event.name}-${event.lastTimestamp ?? ''}`} className="relative">
            <span aria-hidden="true" className={`absolute -left-[27px] top-1 h-3 w-3 rounded-full border-2 border-white dark:border-slate-900 ${event.type === 'Warning' ? 'bg-amber-500' : 'bg-emerald-500'}`} />
            <p className="flex flex-wrap items-center gap-2 text-sm">
              <time dateTime={at ?? undefined} title={formatTimestamp(at)} className="text-xs text-slate-600 dark:text-slate-400">
                {relativeTime(at, now)}
              </time>
              <Badge tone={event.type === 'Warning' ? 'warn' : 'ok'}>{event.type}</Badge>
              <span className={`font-mono text-xs ${topology ? 'font-semibold' : ''}`}>{event.reason}</span>
              {event.count > 1 ? (
                <span className="text-xs text-slate-600 dark:text-slate-400" title={formatTimestamp(event.firstTimestamp)}>
                  ×{event.count}, first {relativeTime(event.firstTimestamp, now)}
                </span>
              ) : null}
            </p>
            <p className="mt-0.5 break-words font-mono text-xs">{event.message}</p>
          </li>
        );
      })}
    </ol>
  );
}
