/**
 * The header on every page: product, navigation, which cluster and release, data freshness, the
 * metrics source's health (measured or assumed traffic), read-only mode and the theme switch; below it a banner when data is stale, forbidden or still syncing.
 *
 * Per cluster: it shows the cluster of the request (`/c/{id}/…`, else the default) with its display
 * name and server, and beside it the cluster switcher (components/layout/cluster-switcher.tsx);
 * with one cluster there is nothing to switch and neither the server line nor the switcher shows.
 */
import { connection } from 'next/server';
import { clusterEntries, defaultScope, isScopeError, requestClusterId, scopeFor } from '@/lib/server/clusters';
import type { ClusterScope } from '@/lib/server/clusters';
import { fleetOffered } from '@/lib/views/fleet/fleet';
import { switcherClusters } from '@/lib/views/fleet/switcher';
import { getHeader, getRenderedLiveMark } from '@/lib/views/header';
import type { HeaderView } from '@/lib/views/header';
import { clusterDisplayName } from '../../lib/shared/cluster-name';
import { formatCount, formatPlatform, formatTimestamp } from '../ui/format';
import { LockIcon } from '../ui/icons';
import { Badge, Callout } from '../ui/status';
import { AutoRefresh } from './auto-refresh';
import { ClusterSwitcher } from './cluster-switcher';
import { ClusterLink } from './cluster-base';
import { LiveStatus } from './live-status';
import { MetricsStatusBadge } from './metrics-status';
import { NavLinks } from './nav-links';
import { PermissionsBanner } from './permissions-banner';
import { ThemeToggle } from './theme-toggle';

/** The header's one-line data state (exported for its test). */
export function FreshnessBadge({ header }: { readonly header: HeaderView }) {
  const f = header.freshness;
  if (header.mode === 'snapshot') return <Badge tone="neutral" title={`Loaded from ${header.snapshotPath ?? 'a snapshot'}; it does not change.`}>Snapshot</Badge>;
  if (f.relisting !== null) return <Badge tone="warn" title={f.relisting.reason}>Re-listing since {formatTimestamp(f.relisting.since).slice(11)}</Badge>;
  if (f.stale.length > 0) return <Badge tone="warn">Stale since {formatTimestamp(f.staleSince).slice(11)}</Badge>;
  if (f.analysis !== null && f.analysis !== undefined) {
    // The first pass (nothing shown yet) or a background re-analysis (the previous analysis shown meanwhile).
    return (
      <Badge
        tone="info"
        title={
          f.analysis.kind === 'first'
            ? 'Every resource type is listed; the pages fill in once every Service is analysed.'
            : `Pages show the analysis from before ${f.analysis.reason ?? 'the change'} until every Service is analysed again; then they update on their own.`
        }
      >
        {f.analysis.message}
      </Badge>
    );
  }
  if (!f.synced) {
    return (
      <Badge tone="info" title={`${f.progress.done} of ${f.progress.types} resource types done`}>
        Syncing: {formatCount(f.progress.listed)} objects listed
      </Badge>
    );
  }
  if (f.forbidden.length > 0) return <Badge tone="warn">Synced, {f.forbidden.length} type(s) forbidden</Badge>;
  return <Badge tone="ok" title="Every resource type is listed and watched; pages show the live cache.">Live, synced</Badge>;
}

export function FreshnessBanner({ header }: { readonly header: HeaderView }) {
  const f = header.freshness;
  const items: React.ReactNode[] = [];
  if (f.relisting !== null) {
    items.push(
      <Callout key="relisting" tone="warn" role="status" title={`${f.relisting.message} (since ${formatTimestamp(f.relisting.since)}).`}>
        <p>Pages show the data from before; every resource type is being listed again and all are swapped in together once listed. Cause: {f.relisting.reason}</p>
      </Callout>,
    );
  }
  if (f.stale.length > 0) {
    // Group types that failed the same way at the same time (an unreachable API server fails them all).
    const groups = new Map<string, { titles: string[]; since: string | null; message: string | null }>();
    for (const entry of f.stale) {
      const key = entry.message ?? '';
      const group = groups.get(key) ?? { titles: [], since: entry.since, message: entry.message };
      group.titles.push(entry.title);
      if (entry.since !== null && (group.since === null || entry.since < group.since)) group.since = entry.since;
      groups.set(key, group);
    }
    const total = f.stale.length + f.syncing.length + f.forbidden.length;
    const names = (titles: readonly string[]) => (titles.length >= total && total > 3 ? `every resource type (${titles.length})` : titles.join(', '));
    items.push(
      <Callout key="stale" tone="warn" role="status" title={`Data is stale since ${formatTimestamp(f.staleSince)}: the watch on ${names(f.stale.map((s) => s.title))} is down.`}>
        {f.stale.some((s) => s.permanent) ? (
          <p>Pages show the last data received. This does not go away on its own: fix the cause below (zonescope keeps retrying in the background and picks the fix up).</p>
        ) : (
          <p>Pages show the last data received; zonescope keeps retrying in the background and this banner goes away on its own.</p>
        )}
        <ul className="list-disc pl-5">
          {[...groups.values()].map((g) => (
            <li key={`${g.since}-${g.message}`}>
              <strong>{names(g.titles)}</strong>
              {g.since ? ` since ${formatTimestamp(g.since)}` : ''}
              {g.message ? `: ${g.message}` : ''}
            </li>
          ))}
        </ul>
      </Callout>,
    );
  }
  if (f.forbidden.length > 0) items.push(<PermissionsBanner key="forbidden" header={header} />);
  if (f.problems.length > 0 && f.stale.length === 0) {
    items.push(
      <Callout key="problems" tone="warn" title="Problems with the data source">
        <ul className="list-disc pl-5">
          {f.problems.map((p) => (
            <li key={p}>{p}</li>
          ))}
        </ul>
      </Callout>,
    );
  }
  if (items.length === 0) return null;
  return <div className="mx-auto max-w-[112rem] space-y-2 px-4 pt-3">{items}</div>;
}

/** The product name linking to the cluster's Overview. */
function HomeLink() {
  return (
    <ClusterLink href="/" className="flex items-center gap-2 text-lg font-semibold tracking-tight">
      <svg viewBox="0 0 24 24" className="h-6 w-6" aria-hidden="true">
        <rect x="2" y="4" width="6" height="16" rx="1.5" className="fill-sky-600 dark:fill-sky-400" />
        <rect x="9" y="4" width="6" height="16" rx="1.5" className="fill-emerald-600 dark:fill-emerald-400" />
        <rect x="16" y="4" width="6" height="16" rx="1.5" className="fill-violet-600 dark:fill-violet-400" />
      </svg>
      zonescope
    </ClusterLink>
  );
}

/** The header's cluster, or why the request's cluster cannot be shown (unknown id, limit of open clusters). */
async function headerScope(): Promise<ClusterScope | { readonly message: string }> {
  const id = await requestClusterId();
  if (id === null) return defaultScope();
  const scope = scopeFor(id);
  return isScopeError(scope) ? { message: scope.message } : scope;
}

export async function SiteHeader() {
  await connection();
  const scope = await headerScope();
  if ('message' in scope) {
    // The page itself says more (the not-found page lists the clusters; the limit has its error view).
    return (
      <header className="sticky top-0 z-30 border-b border-slate-200 bg-white/95 backdrop-blur dark:border-slate-800 dark:bg-slate-900/95">
        <div className="mx-auto flex max-w-[112rem] flex-wrap items-center gap-x-4 gap-y-2 px-4 py-2">
          <HomeLink />
          <p className="ml-auto text-xs text-amber-800 dark:text-amber-300" data-testid="cluster-name">
            <span className="sr-only">Cluster: </span>
            {scope.message}
          </p>
          <ThemeToggle />
        </div>
      </header>
    );
  }
  // The generation of this render's first cluster read: never newer than what the page shows (see getRenderedLiveMark).
  const rendered = getRenderedLiveMark(scope);
  const header = getHeader(scope);
  const platform = formatPlatform(header.platform);
  const where = header.mode === 'snapshot' ? `Snapshot ${header.snapshotPath ?? ''}` : (header.contextName ?? 'no context');
  const cluster = clusterDisplayName(header);
  const settled = header.freshness.synced && header.freshness.stale.length === 0;
  // With several clusters the header says which server this one is (and the switcher goes beside it).
  const clusters = clusterEntries().length;
  const several = clusters > 1;
  return (
    <>
      <header className="sticky top-0 z-30 border-b border-slate-200 bg-white/95 backdrop-blur dark:border-slate-800 dark:bg-slate-900/95">
        <div className="mx-auto flex max-w-[112rem] flex-wrap items-center gap-x-4 gap-y-2 px-4 py-2">
          <HomeLink />
          <NavLinks fleet={fleetOffered(clusters)} />
          <div className="ml-auto flex flex-wrap items-center gap-2">
            <div className="text-left text-xs leading-tight sm:text-right">
              <p className="max-w-[22rem] break-all font-medium" title={`${where}${header.serverUrl ? ` (${header.serverUrl})` : ''}`} data-testid="cluster-name">
                <span className="sr-only">Cluster: </span>
                {cluster ?? where}
              </p>
              {several && header.serverUrl ? (
                <p className="max-w-[22rem] truncate text-slate-600 dark:text-slate-400" title={`Context ${header.contextName ?? '—'}, server ${header.serverUrl}`} data-testid="cluster-server">
                  <span className="sr-only">API server: </span>
                  {header.serverUrl}
                </p>
              ) : null}
              <p className="text-slate-600 dark:text-slate-400">
                <span className="sr-only">Kubernetes version: </span>
                {header.gitVersion ?? `Kubernetes ${header.release}`}
                {header.gitVersion ? ` (modelled as ${header.release})` : ''}
                {platform ? ` · ${platform}` : ''}
              </p>
            </div>
            {several ? <ClusterSwitcher clusters={switcherClusters()} currentId={scope.id} /> : null}
            {header.mode === 'live' ? (
              // Follows the watch: re-renders when the cache moved, says how old the data is, Refresh, lost connection.
              <LiveStatus rendered={rendered} renderedAt={new Date().toISOString()}>
                <FreshnessBadge header={header} />
              </LiveStatus>
            ) : (
              <FreshnessBadge header={header} />
            )}
            {/* Where traffic volumes come from (Prometheus or the model's assumption) and its health. */}
            <MetricsStatusBadge status={header.metrics} />
            {header.readOnly ? (
              <span
                className="inline-flex items-center gap-1 rounded-full bg-slate-100 px-2 py-0.5 text-xs font-medium text-slate-800 ring-1 ring-inset ring-slate-300 dark:bg-slate-800 dark:text-slate-200 dark:ring-slate-600"
                title={header.readOnlyReason ?? 'No write controls.'}
              >
                <LockIcon className="h-3.5 w-3.5" />
                Read-only
              </span>
            ) : null}
            <ThemeToggle />
          </div>
        </div>
      </header>
      <FreshnessBanner header={header} />
      {settled || (header.mode === 'snapshot' && header.freshness.problems.length > 0) ? null : <AutoRefresh intervalMs={header.freshness.synced ? 10_000 : 2_000} />}
    </>
  );
}

/** Placeholder with the header's height while it renders. */
export function SiteHeaderFallback() {
  return (
    <header className="sticky top-0 z-30 border-b border-slate-200 bg-white dark:border-slate-800 dark:bg-slate-900">
      <div className="mx-auto flex h-[52px] max-w-[112rem] items-center gap-4 px-4">
        <span className="text-lg font-semibold tracking-tight">zonescope</span>
        <NavLinks />
      </div>
    </header>
  );
}
