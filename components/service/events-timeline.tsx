/** Events recorded on the Service, oldest first, TopologyAwareHints ones highlighted. */
import type { EventRecord } from '@/lib/topology/model/cluster-model';
import { formatTimestamp } from '../ui/format';
import { Badge } from '../ui/status';

export function EventsTimeline({ events }: { readonly events: readonly EventRecord[] }) {
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
      {events.map((event) => {
        const topology = event.reason.startsWith('TopologyAwareHints');
        return (
          <li key={`${event.name}-${event.lastTimestamp ?? ''}`} className="relative">
            <span aria-hidden="true" className={`absolute -left-[27px] top-1 h-3 w-3 rounded-full border-2 border-white dark:border-slate-900 ${event.type === 'Warning' ? 'bg-amber-500' : 'bg-emerald-500'}`} />
            <p className="flex flex-wrap items-center gap-2 text-sm">
              <time dateTime={event.lastTimestamp ?? event.firstTimestamp ?? undefined} className="font-mono text-xs text-slate-600 dark:text-slate-400">
                {formatTimestamp(event.lastTimestamp ?? event.firstTimestamp)}
              </time>
              <Badge tone={event.type === 'Warning' ? 'warn' : 'ok'}>{event.type}</Badge>
              <span className={`font-mono text-xs ${topology ? 'font-semibold' : ''}`}>{event.reason}</span>
              {event.count > 1 ? <span className="text-xs text-slate-600 dark:text-slate-400">×{event.count} since {formatTimestamp(event.firstTimestamp)}</span> : null}
            </p>
            <p className="mt-0.5 break-words font-mono text-xs">{event.message}</p>
          </li>
        );
      })}
    </ol>
  );
}
