/**
 * Event → `EventRecord`, from either API shape (core `v1` and `events.k8s.io/v1`); only Events
 * about a Service are kept ({@link isServiceEvent}).
 */
import type { EventRecord } from '../../topology/model/cluster-model';
import type { Json } from './json';
import { num, obj, str, timestamp } from './json';

/** Whether an Event is in the `events.k8s.io/v1` shape (`regarding`, `note`, `deprecated*`). */
function isEventsV1(o: Json): boolean {
  const apiVersion = str(o.apiVersion) ?? '';
  return apiVersion.startsWith('events.k8s.io/') || (!('involvedObject' in o) && ('regarding' in o || 'note' in o));
}

/**
 * Event → {@link EventRecord}. Accepts core `v1` Events (`involvedObject`, `message`, `count`,
 * `firstTimestamp`/`lastTimestamp`) and `events.k8s.io/v1` Events (`regarding`, `note`,
 * `deprecatedCount`, `series`, `eventTime`). A count of 0 or none means "seen once"; missing
 * timestamps fall back to `eventTime` and `series.lastObservedTime`.
 */
export function projectEvent(raw: unknown): EventRecord {
  const o = obj(raw);
  const metadata = obj(o.metadata);
  const namespace = str(metadata.namespace) ?? 'default';
  const series = obj(o.series);
  const v1 = isEventsV1(o);
  const subject = obj(v1 ? o.regarding : o.involvedObject);
  const first = timestamp(v1 ? o.deprecatedFirstTimestamp : o.firstTimestamp) ?? timestamp(o.eventTime);
  const last =
    timestamp(v1 ? o.deprecatedLastTimestamp : o.lastTimestamp) ??
    timestamp(series.lastObservedTime) ??
    timestamp(o.eventTime) ??
    first;
  const count = num(v1 ? o.deprecatedCount : o.count) || num(series.count) || 1;
  return {
    namespace,
    name: str(metadata.name) ?? '',
    involvedObject: {
      kind: str(subject.kind) ?? '',
      name: str(subject.name) ?? '',
      namespace: str(subject.namespace) ?? namespace,
    },
    type: str(o.type) ?? 'Normal',
    reason: str(o.reason) ?? '',
    message: str(v1 ? o.note : o.message) ?? '',
    count,
    firstTimestamp: first,
    lastTimestamp: last,
  };
}

/** Whether an Event (either API shape) is about a Service, the only Events zonescope keeps. */
export function isServiceEvent(raw: unknown): boolean {
  const o = obj(raw);
  return obj(isEventsV1(o) ? o.regarding : o.involvedObject).kind === 'Service';
}
