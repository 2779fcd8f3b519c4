/**
 * The header's cluster switcher: every cluster of the registry with its state in a few words and a
 * tone, without opening any (the open ones say how their data is, the others that they are not
 * connected or closed after idle).
 */
import 'server-only';

import type { ClusterEntry } from '../../k8s/cluster-entries';
import type { ClusterState } from '../../k8s/clusters';
import { getClusterRegistry } from '../../k8s/source';
import type { ClusterScope } from '../../server/clusters';
import { clusterBaseOf } from '../../shared/cluster-path';
import { getClusterStatus, getHeader } from '../header';
import type { FleetFreshness } from './freshness';
import { openFreshness } from './freshness';

/** One cluster as the header's switcher lists it (plain data for the client leaf). */
export interface SwitcherCluster {
  readonly id: string;
  readonly displayName: string;
  readonly context: string | null;
  readonly server: string | null;
  /** `open · synced`, `open · syncing`, `error: …`, `not connected`, `closed after idle`. */
  readonly state: string;
  readonly tone: 'ok' | 'warn' | 'error' | 'info' | 'neutral';
  /** Its URL prefix: `''` for the default cluster, `/c/{id}` otherwise. */
  readonly base: string;
}

/** `Stale since 10:04:11 UTC` → `stale since 10:04:11 UTC`. */
const lowerFirst = (text: string) => text.charAt(0).toLowerCase() + text.slice(1);

/** The state words of one cluster, without opening it (pure). */
export function switcherState(state: ClusterState, entry: ClusterEntry, freshness: FleetFreshness | null): Pick<SwitcherCluster, 'state' | 'tone'> {
  if (entry.configError !== null && state !== 'open') return { state: `error: ${entry.configError}`, tone: 'error' };
  if (state === 'closed-idle') return { state: 'closed after idle', tone: 'neutral' };
  if (state !== 'open' || freshness === null) return { state: 'not connected', tone: 'neutral' };
  switch (freshness.kind) {
    case 'synced':
      return { state: freshness.message === null ? 'open · synced' : `open · ${lowerFirst(freshness.label)}`, tone: freshness.message === null ? 'ok' : 'warn' };
    case 'syncing':
      return { state: 'open · syncing', tone: 'info' };
    case 'stale':
      return { state: `open · ${lowerFirst(freshness.label)}`, tone: 'warn' };
    case 'snapshot':
      return { state: 'snapshot', tone: 'neutral' };
    default:
      return { state: `error: ${freshness.message ?? freshness.label}`, tone: 'error' };
  }
}

/**
 * Every cluster for the header's switcher, without opening any (the open ones say how their data
 * is, the others that they are not connected or closed after idle).
 */
export function switcherClusters(): readonly SwitcherCluster[] {
  const registry = getClusterRegistry();
  return registry.entries().map((entry) => {
    const state = registry.state(entry.id) ?? 'idle';
    const source = registry.peek(entry.id);
    let freshness: FleetFreshness | null = null;
    if (source !== null) {
      const scope: ClusterScope = { id: entry.id, entry, source };
      try {
        freshness = openFreshness(getHeader(scope), getClusterStatus(scope));
      } catch (error) {
        freshness = { kind: 'error', label: 'Error', message: error instanceof Error ? error.message : 'The cluster could not be read.', since: null, progress: null };
      }
    }
    return { id: entry.id, displayName: entry.displayName, context: entry.context, server: entry.server, base: clusterBaseOf(entry), ...switcherState(state, entry, freshness) };
  });
}
