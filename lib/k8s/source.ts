/**
 * The process-wide clusters: ONE {@link ClusterRegistry} per server process, holding at most one
 * {@link ClusterSource} (one set of watches) per cluster, whatever the number of routes, requests
 * or browsers. Stored on `globalThis` (`Symbol.for('zonescope.clusters')`) so Next.js dev reloads
 * reuse it instead of leaking watches.
 *
 * Server-only: pages and route handlers import this (through lib/server/clusters.ts); scripts run
 * outside Next use `createClusterSource` from `./cluster-source` or a registry of their own.
 */
import 'server-only';
import { getConfig } from '../config/process-config';
import type { ClusterSource } from './cluster-source';
import type { InformerLogEvent } from './informer/options';
import { createClusterSource } from './cluster-sources/create-source';
import type { ClusterEntry } from './cluster-entries';
import { ClusterRegistry } from './clusters';

const KEY = Symbol.for('zonescope.clusters');

type Holder = { [KEY]?: ClusterRegistry };

function holder(): Holder {
  return globalThis as unknown as Holder;
}

function logLine(entry: ClusterEntry, multiple: boolean): (event: InformerLogEvent) => void {
  const where = multiple ? ` [${entry.id}]` : '';
  return (event) => {
    if (event.level === 'warn') console.warn(`[zonescope]${where} ${event.resource}: ${event.message}`);
  };
}

/** The registry of the process environment's clusters, created on first use (sources open lazily). */
export function getClusterRegistry(): ClusterRegistry {
  const h = holder();
  let registry = h[KEY];
  if (registry === undefined) {
    let created: ClusterRegistry | null = null;
    const config = getConfig();
    created = new ClusterRegistry({
      config,
      createSource: (entry) =>
        createClusterSource(entry.context === null ? config : { ...config, ZONESCOPE_CONTEXT: entry.context }, {
          live: { log: logLine(entry, (created?.entries().length ?? 1) > 1) },
        }),
    });
    registry = created;
    h[KEY] = registry;
  }
  return registry;
}

/**
 * The default cluster's source, opened and started on first use: what `/metrics`, the health
 * routes and the server's start-up hook read.
 */
export function getClusterSource(): ClusterSource {
  const registry = getClusterRegistry();
  const opened = registry.open(registry.defaultEntry().id);
  // The registry always opens the default (a broken configuration is reported by its source).
  if (!opened.ok) throw new Error(opened.message);
  return opened.source;
}

/** Stops every open source and forgets the registry (tests; a changed environment). */
export async function resetClusterSource(): Promise<void> {
  const h = holder();
  const registry = h[KEY];
  h[KEY] = undefined;
  await registry?.stop();
}
