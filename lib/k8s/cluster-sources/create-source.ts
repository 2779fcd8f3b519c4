/**
 * Which source a configuration asks for (`ZONESCOPE_SNAPSHOT`, a kubeconfig context, the in-cluster
 * service account, or nothing usable), made but not started.
 */
import type { Config } from '../../config/variables';
import { getConfig } from '../../config/process-config';
import type { ClusterSource } from '../cluster-source';
import { createConnection } from '../connection';
import type { ConnectionConfig } from '../connection-options';
import { connectionOptionsFromEnv } from '../connection-options';
import type { LiveClusterSourceOptions } from './live-source';
import { LiveClusterSource } from './live-source';
import { SnapshotClusterSource } from './snapshot-source';
import { UnavailableClusterSource } from './unavailable-source';

/** Options of {@link createClusterSource}. */
export interface CreateClusterSourceOptions {
  readonly live?: LiveClusterSourceOptions;
}

/** The settings {@link createClusterSource} reads (lib/config). */
export type SourceConfig = ConnectionConfig & Pick<Config, 'ZONESCOPE_SNAPSHOT' | 'ZONESCOPE_LIST_PAGES_AHEAD'>;

/**
 * Chooses the source from the configuration (not started):
 * 1. `ZONESCOPE_SNAPSHOT=path[,path…]` (or paths separated by the platform delimiter) → snapshot;
 * 2. `KUBECONFIG` (else `~/.kube/config`), context `ZONESCOPE_CONTEXT` or the current one → live;
 * 3. `KUBERNETES_SERVICE_HOST` without a kubeconfig → live, in-cluster service account;
 * 4. otherwise an {@link UnavailableClusterSource} saying why.
 */
export function createClusterSource(config: SourceConfig = getConfig(), options: CreateClusterSourceOptions = {}): ClusterSource {
  if (config.ZONESCOPE_SNAPSHOT.length > 0) return new SnapshotClusterSource(config.ZONESCOPE_SNAPSHOT);
  const connectionOptions = connectionOptionsFromEnv(config);
  if (connectionOptions === null) {
    return new UnavailableClusterSource('No cluster configured: set KUBECONFIG (and optionally ZONESCOPE_CONTEXT), run in a cluster, or set ZONESCOPE_SNAPSHOT to a snapshot file or folder.');
  }
  const connection = createConnection(connectionOptions);
  if (!connection.ok) return new UnavailableClusterSource(connection.message, connectionOptions.context ?? null);
  // `ZONESCOPE_LIST_PAGES_AHEAD`: ask for each list's next page while the current one is parsed
  // (see `InformerOptions.pagesAhead`); unset leaves the informers' default (off).
  const pagesAhead = config.ZONESCOPE_LIST_PAGES_AHEAD;
  const live = pagesAhead === undefined ? options.live : { ...options.live, informer: { ...options.live?.informer, pagesAhead } };
  return new LiveClusterSource(connection.connection, live);
}
