/**
 * The cluster's own name, for the header and every page title: `ZONESCOPE_CLUSTER_NAME` when set
 * (the demo sets the simulated scenario's name), else the name inside the kubeconfig context
 * (`arn:aws:eks:eu-west-1:123456789012:cluster/prod` → `prod`, `gke_project_europe-west1_prod` →
 * `prod`), else the context itself; for a snapshot, its file name.
 */
/** What names a cluster: how it is read, its kubeconfig context, its snapshot file, the configured name (the header view has them all). */
export interface ClusterNaming {
  readonly mode: 'live' | 'snapshot';
  readonly contextName: string | null;
  readonly snapshotPath: string | null;
  /** Absent counts as the default cluster. */
  readonly isDefault?: boolean;
  /** `ZONESCOPE_CLUSTER_NAME` as the server read it (absent or `null`: not set). */
  readonly configuredName?: string | null;
}

/** Longest name shown (a title or header that long helps nobody). */
const MAX_LENGTH = 100;

/** The cluster name inside a kubeconfig context name, as the managed platforms write them. */
export function clusterNameFromContext(context: string): string {
  const eks = /^arn:aws[a-z-]*:eks:[^:]+:\d+:cluster\/(.+)$/.exec(context);
  if (eks?.[1]) return eks[1];
  // gcloud: gke_<project>_<location>_<cluster>; the cluster name cannot contain "_".
  const gke = /^gke_[^_]+_[^_]+_([^_]+)$/.exec(context);
  if (gke?.[1]) return gke[1];
  return context;
}

/**
 * What the header and titles call the cluster (`null` when nothing names it).
 * `ZONESCOPE_CLUSTER_NAME` names the default cluster only (`isDefault` absent counts as the default).
 */
export function clusterDisplayName(header: ClusterNaming): string | null {
  const configured = header.isDefault === false ? undefined : header.configuredName?.trim();
  let name: string | null;
  if (configured) name = configured;
  else if (header.mode === 'snapshot') name = header.snapshotPath ? (header.snapshotPath.split(/[\\/]/).filter(Boolean).pop() ?? null) : null;
  else name = header.contextName ? clusterNameFromContext(header.contextName) : null;
  if (name === null || name === '') return null;
  return name.length > MAX_LENGTH ? `${name.slice(0, MAX_LENGTH - 1)}…` : name;
}

/** A page title with the cluster: `Overview · prod` (the root layout appends `· zonescope`). */
export function titleWithCluster(page: string, cluster: string | null): string {
  return cluster ? `${page} · ${cluster}` : page;
}
