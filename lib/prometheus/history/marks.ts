/**
 * The marks on zonescope's history time axis (pure): the Service's Events and node-count changes.
 */
import type { HistoryMark } from '../../shared/history-types';
import type { EventRecord } from '../../topology/model/cluster-model';
import { changesOf } from './changes';
import type { HistoryGrid } from './grid';

/** The Service's Events within the range, one mark each at its last (else first) timestamp. */
export function eventMarks(events: readonly EventRecord[], start: number, end: number): HistoryMark[] {
  const out: HistoryMark[] = [];
  for (const event of events) {
    const stamp = event.lastTimestamp ?? event.firstTimestamp;
    if (stamp === null) continue;
    const at = Date.parse(stamp) / 1000;
    if (!Number.isFinite(at) || at < start || at > end) continue;
    out.push({ at, kind: 'event', text: `${event.reason}: ${event.message}` });
  }
  return out;
}

/** `Nodes 12 → 9` at each step where the node count changed. */
export function nodeMarks(values: readonly (number | null)[], grid: HistoryGrid): HistoryMark[] {
  const states = values.map((v) => (v === null ? null : String(Math.round(v))));
  return changesOf(states, grid).map((c) => ({ at: c.at, kind: 'nodes', text: `Nodes ${c.from} → ${c.to}` }));
}

/** Marks (or anything with `at`) in time order, sorted in place. */
export function byTime<T extends { readonly at: number }>(items: T[]): T[] {
  return items.sort((a, b) => a.at - b.at);
}
