/**
 * How fresh a fleet row's figures are, in one word and one line: for an open cluster, from its
 * header and status (synced, syncing with its progress, stale since when and why, an error, a
 * snapshot). The fleet rows (row.ts) and the header's switcher (switcher.ts) both word it so. Pure.
 */
import type { ClusterStatusView, HeaderView } from '../header';

/** How fresh a row's figures are, in one word (`kind`) and one line (`label`). */
export interface FleetFreshness {
  /**
   * `synced`: the cluster is open and its analysis current; `syncing`: the first list or analysis
   * pass is running (progress in `label`); `stale`: a watch is down since `since`; `error`: the
   * cluster cannot be read (`message` says why); `not-connected`: never opened (the open-cluster
   * limit, or a configuration error, kept it closed); `closed-idle`: closed after being unused (or, if
   * only the fleet page had opened it, to make room for a cluster a user opened), the figures are
   * from `asOf`; `snapshot`: a snapshot file, it does not change.
   */
  readonly kind: 'synced' | 'syncing' | 'stale' | 'error' | 'not-connected' | 'closed-idle' | 'snapshot';
  /** `Synced`, `Syncing: 1,204 objects listed`, `Stale since 10:04:11 UTC`, `Error`, `Not connected`, `Closed after idle`, `Closed to make room`. */
  readonly label: string;
  /** The cause (error), the limit or configuration message, the forbidden types; `null` when there is nothing more to say. */
  readonly message: string | null;
  /** When it became stale, failed or closed (ISO), `null` when not known or not applicable. */
  readonly since: string | null;
  /** Services analysed so far during the first analysis pass, `null` otherwise. */
  readonly progress: { readonly done: number; readonly total: number } | null;
}

const TIME = (iso: string | null) => (iso ? `${new Date(iso).toISOString().slice(11, 19)} UTC` : 'an unknown time');

/** The freshness of an open cluster, from its header and status. */
export function openFreshness(header: Pick<HeaderView, 'mode' | 'freshness'>, status: ClusterStatusView | null): FleetFreshness {
  const f = header.freshness;
  if (status?.state === 'unavailable') return { kind: 'error', label: 'Error', message: status.reason, since: status.since, progress: null };
  if (header.mode === 'snapshot') return { kind: 'snapshot', label: 'Snapshot', message: null, since: null, progress: null };
  if (f.stale.length > 0) {
    const first = f.stale.find((s) => s.message !== null) ?? f.stale[0];
    return { kind: 'stale', label: `Stale since ${TIME(f.staleSince)}`, message: first ? `${f.stale.map((s) => s.title).join(', ')}: ${first.message ?? 'the watch is down'}` : null, since: f.staleSince, progress: null };
  }
  if (f.relisting !== null) return { kind: 'stale', label: `Re-listing since ${TIME(f.relisting.since)}`, message: f.relisting.reason, since: f.relisting.since, progress: null };
  if (!f.synced) {
    if (f.analysis) return { kind: 'syncing', label: f.analysis.message, message: null, since: f.analysis.since, progress: { done: f.analysis.done, total: f.analysis.total } };
    return {
      kind: 'syncing',
      label: `Syncing: ${f.progress.listed.toLocaleString('en-US')} objects listed`,
      message: `${f.progress.done} of ${f.progress.types} resource types done`,
      since: null,
      progress: null,
    };
  }
  const forbidden = f.forbidden.length > 0 ? f.forbidden.map((t) => t.unknown).join('; ') : null;
  return { kind: 'synced', label: f.forbidden.length > 0 ? `Synced, ${f.forbidden.length} type${f.forbidden.length === 1 ? '' : 's'} forbidden` : 'Synced', message: forbidden, since: null, progress: null };
}
