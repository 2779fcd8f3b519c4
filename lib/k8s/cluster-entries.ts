/**
 * The clusters an installation offers, as the registry lists them: one {@link ClusterEntry} per
 * kubeconfig context (chosen and ordered by `ZONESCOPE_CONTEXTS`), the default first, read from the
 * kubeconfig exactly as `createConnection` reads it; or the single entry of a snapshot, in-cluster
 * or unconfigured installation. A context that cannot be used is an entry with a
 * {@link ClusterEntry.configError}.
 */
import type { Config } from '../config/variables';
import { clusterNameFromContext } from '../shared/cluster-name';
import { assignClusterIds, clusterSlug, DEFAULT_CLUSTER_ID } from './cluster-ids';
import type { SourceConfig } from './cluster-sources/create-source';
import { displayServerUrl } from './connection';
import { connectionOptionsFromEnv, loadKubeConfig } from './connection-options';
import { KubeconfigError } from './kubeconfig';

/** One cluster the dashboard can show. */
export interface ClusterEntry {
  /**
   * URL slug: the context name when it matches `CLUSTER_ID_PATTERN` (./cluster-ids; and no other entry took
   * it), else a readable slug + `-` + 6 hex of sha256(context) (EKS ARNs; `gke_…` names are valid
   * as they are). Always
   * matches `CLUSTER_ID_PATTERN`. `default` for the single entry without a context.
   */
  readonly id: string;
  /** Kubeconfig context name; `null` for snapshot, in-cluster and unconfigured installations (id `default`). */
  readonly context: string | null;
  /** What the UI calls the cluster (`ZONESCOPE_CLUSTER_NAME` for the default, else the name inside the context). */
  readonly displayName: string;
  /** The API server URL without credentials, `null` when there is none (snapshot, unknown context). */
  readonly server: string | null;
  readonly isDefault: boolean;
  /** Why the entry cannot be connected as configured (e.g. `ZONESCOPE_CONTEXTS` names a context the kubeconfig lacks). */
  readonly configError: string | null;
}

/** What the registry was built from. */
export type ClusterRegistryMode = 'kubeconfig' | 'snapshot' | 'in-cluster' | 'unconfigured';

/**
 * The settings the registry reads (lib/config): what its sources read, and `ZONESCOPE_CONTEXTS`,
 * `ZONESCOPE_CLUSTER_NAME`, `ZONESCOPE_MAX_OPEN_CLUSTERS`, `ZONESCOPE_CLUSTER_IDLE_MINUTES`.
 */
export type RegistryConfig = SourceConfig & Pick<Config, 'ZONESCOPE_CONTEXTS' | 'ZONESCOPE_CLUSTER_NAME' | 'ZONESCOPE_MAX_OPEN_CLUSTERS' | 'ZONESCOPE_CLUSTER_IDLE_MINUTES'>;

/** Longest display name (as the header's). */
const MAX_NAME_LENGTH = 100;

function truncateName(name: string): string {
  return name.length > MAX_NAME_LENGTH ? `${name.slice(0, MAX_NAME_LENGTH - 1)}…` : name;
}

/** What {@link clusterEntriesFromEnv} finds: what the registry is built from, and its entries. */
export interface ClusterEntries {
  readonly mode: ClusterRegistryMode;
  readonly entries: readonly ClusterEntry[];
}

/** The entries a configuration describes (see the module comment). Never throws. */
export function clusterEntriesFromEnv(config: RegistryConfig): ClusterEntries {
  const configuredName = config.ZONESCOPE_CLUSTER_NAME || null;
  const single = (mode: ClusterRegistryMode, displayName: string, server: string | null, configError: string | null, context: string | null = null): ClusterEntries => ({
    mode,
    entries: [{ id: context === null ? DEFAULT_CLUSTER_ID : clusterSlug(context), context, displayName: truncateName(configuredName ?? displayName), server, isDefault: true, configError }],
  });

  const files = config.ZONESCOPE_SNAPSHOT;
  if (files.length > 0) {
    const name = files.map((file) => file.split(/[\\/]/).filter(Boolean).pop() ?? file).join(', ');
    return single('snapshot', name || 'snapshot', null, null);
  }
  const options = connectionOptionsFromEnv(config);
  if (options === null) {
    return single('unconfigured', DEFAULT_CLUSTER_ID, null, 'No cluster configured: set KUBECONFIG (and optionally ZONESCOPE_CONTEXT), run in a cluster, or set ZONESCOPE_SNAPSHOT to a snapshot file or folder.');
  }
  if (options.inCluster) {
    const host = options.serviceHost ?? '';
    const server = host !== '' && options.servicePort ? displayServerUrl(`https://${host.includes(':') ? `[${host}]` : host}:${options.servicePort}`) : null;
    return single('in-cluster', 'in-cluster', server, null);
  }

  let kubeconfig: ReturnType<typeof loadKubeConfig>;
  try {
    kubeconfig = loadKubeConfig({ ...options, context: undefined });
  } catch (error) {
    const message = error instanceof KubeconfigError ? error.message : `Cannot load kubeconfig ${options.kubeconfig ?? ''}.`;
    // As today: one cluster whose source reports the same problem.
    return single('kubeconfig', options.context ?? DEFAULT_CLUSTER_ID, null, message, options.context ?? null);
  }
  const known = kubeconfig.getContexts().map((c) => c.name);
  const knownSet = new Set(known);
  // `ZONESCOPE_CONTEXTS`: the names in order, without repeats; `null` for every context (`*` or unset).
  const listed = config.ZONESCOPE_CONTEXTS;
  const selection: string[] = [];
  for (const name of listed ?? known) {
    if (name === '*') selection.push(...known.filter((k) => !listed?.includes(k)));
    else selection.push(name);
  }
  const unique = [...new Set(selection)];
  const wanted = options.context;
  const current = kubeconfig.getCurrentContext();
  let defaultContext: string | undefined;
  if (wanted !== undefined && wanted !== '') defaultContext = wanted;
  else if (current && knownSet.has(current) && unique.includes(current)) defaultContext = current;
  else defaultContext = unique[0];
  if (defaultContext === undefined) {
    return single('kubeconfig', DEFAULT_CLUSTER_ID, null, 'The kubeconfig has no current context; choose one with ZONESCOPE_CONTEXT.');
  }
  const ordered = [defaultContext, ...unique.filter((name) => name !== defaultContext)];
  const ids = assignClusterIds(ordered);
  const knownList = known.join(', ') || 'none';
  const entries = ordered.map((context): ClusterEntry => {
    const isDefault = context === defaultContext;
    const object = knownSet.has(context) ? kubeconfig.getContextObject(context) : null;
    const cluster = object ? kubeconfig.getCluster(object.cluster) : null;
    let configError: string | null = null;
    if (!object) configError = `Context "${context}" is not in the kubeconfig (contexts: ${knownList}).`;
    else if (!cluster) configError = `Context "${context}" names cluster "${object.cluster}", which the kubeconfig does not define.`;
    const name = isDefault && configuredName !== null ? configuredName : clusterNameFromContext(context);
    return { id: ids.get(context) ?? clusterSlug(context), context, displayName: truncateName(name), server: cluster ? displayServerUrl(cluster.server) : null, isDefault, configError };
  });
  return { mode: 'kubeconfig', entries };
}
