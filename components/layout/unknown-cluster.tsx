/**
 * What the not-found pages show for `/c/{id}/…` when the configuration has no cluster `id`: the
 * clusters there are, each linking to its Overview.
 */
import { LINK } from '../ui/panel';
import { Callout } from '../ui/status';
import { clusterEntries, clusterHref, contextsListed, requestClusterId } from '@/lib/server/clusters';

/** The cluster id of the request when no cluster has it, else `null`. */
export async function unknownClusterId(): Promise<string | null> {
  const id = await requestClusterId();
  return id !== null && !clusterEntries().some((entry) => entry.id === id) ? id : null;
}

/** `/c/{id}/…` with an id the configuration does not have: which clusters there are (each opens its Overview in a new page load). */
export function UnknownCluster({ id }: { readonly id: string }) {
  const entries = clusterEntries();
  return (
    <div className="max-w-2xl space-y-4">
      <h1 className="text-2xl font-semibold tracking-tight">Cluster not found</h1>
      <Callout tone="warn" title={`There is no cluster "${id}".`}>
        <p>
          The address names a cluster that is not in the kubeconfig{contextsListed() ? ' contexts ZONESCOPE_CONTEXTS lists' : ''}. Cluster ids are the context names (a
          shortened form with a hash for long ones such as EKS ARNs).
        </p>
      </Callout>
      <h2 className="text-lg font-semibold">The clusters</h2>
      <ul className="space-y-1">
        {entries.map((entry) => (
          <li key={entry.id}>
            {/* A page load, not a client navigation: the header and the links belong to the cluster shown. */}
            <a href={clusterHref(entry, '/')} className={LINK}>
              {entry.displayName}
            </a>{' '}
            <span className="text-sm text-slate-600 dark:text-slate-400">
              {entry.context ?? 'in-cluster'}
              {entry.isDefault ? ' (default)' : ''}
              {entry.server ? ` · ${entry.server}` : ''}
            </span>
          </li>
        ))}
      </ul>
    </div>
  );
}
