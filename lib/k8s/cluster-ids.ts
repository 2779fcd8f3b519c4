/**
 * Cluster ids: the URL slug of each cluster (`/c/{id}/…`). A context name that is a valid id is
 * its own id; any other (EKS ARNs, names with `/` or `:`) gets a readable part of its cluster name
 * and a few hex of its hash, made unique among the contexts of one kubeconfig.
 */
import { createHash } from 'node:crypto';
import { clusterNameFromContext } from '../shared/cluster-name';

/** What a cluster id (a URL path segment) looks like. */
export const CLUSTER_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$/;

/** Whether `id` has the syntax of a cluster id (it may still name no cluster). */
export function isClusterIdSyntax(id: string): boolean {
  return CLUSTER_ID_PATTERN.test(id);
}

/** The id of the single entry of snapshot, in-cluster and unconfigured installations. */
export const DEFAULT_CLUSTER_ID = 'default';

/** Longest readable part of a hashed id: leaves room for `-` + 12 hex + `-` + a counter within 63. */
const MAX_SLUG_BASE = 40;

function sha256Hex(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/** The readable part of a hashed id: the cluster's own name with every other character a `-`. */
function slugBase(context: string): string {
  const name = clusterNameFromContext(context);
  const base = name
    .replace(/[^A-Za-z0-9._-]+/g, '-')
    .replace(/^[^A-Za-z0-9]+/, '')
    .slice(0, MAX_SLUG_BASE)
    .replace(/[^A-Za-z0-9]+$/, '');
  return base === '' ? 'cluster' : base;
}

/**
 * The preferred id of a context: the context itself when it is a valid id, else
 * `{readable}-{6 hex of sha256(context)}` (`arn:aws:eks:eu-west-1:123456789012:cluster/prod` →
 * `prod-…`; `gke_proj_europe-west1_prod` is a valid id as it is).
 */
export function clusterSlug(context: string): string {
  if (isClusterIdSyntax(context)) return context;
  return `${slugBase(context)}-${sha256Hex(context).slice(0, 6)}`;
}

/**
 * Unique ids for `contexts` (names unique, as in a kubeconfig): contexts that are valid ids keep
 * their name; the others get {@link clusterSlug}, and when that is taken (by a context so named or
 * another slug), 12 hex of the hash, then a counter.
 */
export function assignClusterIds(contexts: readonly string[]): Map<string, string> {
  const ids = new Map<string, string>();
  const taken = new Set<string>();
  for (const context of contexts) {
    if (isClusterIdSyntax(context)) {
      ids.set(context, context);
      taken.add(context);
    }
  }
  for (const context of contexts) {
    if (ids.has(context)) continue;
    const base = slugBase(context);
    const hash = sha256Hex(context);
    let id = `${base}-${hash.slice(0, 6)}`;
    if (taken.has(id)) id = `${base}-${hash.slice(0, 12)}`;
    for (let n = 2; taken.has(id); n++) id = `${base}-${hash.slice(0, 12)}-${n}`;
    ids.set(context, id);
    taken.add(id);
  }
  return ids;
}
