/**
 * What a page shows while it cannot show its panels: the first sync in progress (with per-type
 * progress) or an unavailable source with the reason. Expected states are rendered, never thrown.
 */
import type { ReactNode } from 'react';
import type { ClusterStatusView } from '@/lib/views/header';
import { formatCount, formatTimestamp } from '../ui/format';
import { Badge, Callout } from '../ui/status';

export function ClusterStatusPanel({ status, what }: { readonly status: Exclude<ClusterStatusView, { state: 'ready' }>; readonly what: string }) {
  if (status.state === 'unavailable') {
    return (
      <Callout tone="error" role="alert" title={`The cluster cannot be read, so ${what} cannot be shown.`}>
        <p>{status.reason}</p>
        {status.since ? <p className="text-xs">Since {formatTimestamp(status.since)}.</p> : null}
        <p className="text-xs">
          {status.retrying && status.permanent
            ? 'This does not go away on its own: fix the cause above. zonescope keeps retrying in the background and this page updates once the cluster can be read.'
            : status.retrying
            ? 'zonescope keeps retrying in the background; this page updates on its own once the API server answers.'
            : 'Point zonescope at a cluster: set KUBECONFIG (and ZONESCOPE_CONTEXT), run it in a cluster, or set ZONESCOPE_SNAPSHOT to a kubectl dump.'}
        </p>
      </Callout>
    );
  }
  const { listed, done, types } = status.progress;
  const analysis = status.analysis ?? null;
  if (done === types && types > 0) {
    // Every type is listed: the first analysis pass runs.
    return (
      <Callout tone="info" role="status" title={analysis !== null ? `${analysis.message} (every resource type is listed).` : `Analysing Services: every resource type is listed (${formatCount(listed)} objects).`}>
        <p>This page fills in once every Service is analysed. Large clusters take a few seconds; it updates on its own.</p>
        <progress className="h-2 w-full max-w-md" max={analysis?.total ?? 1} value={analysis?.done ?? 0} aria-label="Services analysed" />
      </Callout>
    );
  }
  return (
    <div className="space-y-3">
      <Callout tone="info" role="status" title={`Syncing: ${formatCount(listed)} objects listed so far (${done} of ${types} resource types done).`}>
        <p>This page fills in once every resource type has been listed. Large clusters take a few seconds per 10,000 objects; it updates on its own.</p>
        <progress className="h-2 w-full max-w-md" max={types} value={done} aria-label="Resource types synced" />
      </Callout>
      <ul className="grid grid-cols-2 gap-2 text-sm sm:grid-cols-3 lg:grid-cols-4" aria-label="Resource types">
        {status.types.map((t) => (
          <li key={t.title} className="flex items-center justify-between gap-2 rounded border border-slate-200 px-2 py-1 dark:border-slate-800">
            <span className="min-w-0 break-words">{t.title}</span>
            {t.forbidden ? <Badge tone="warn">forbidden</Badge> : t.done ? <Badge tone="ok">{formatCount(t.listed)}</Badge> : <Badge tone="info">{formatCount(t.listed)}…</Badge>}
          </li>
        ))}
      </ul>
    </div>
  );
}

/**
 * What a page renders while its data is not there: its title, then the status panel (nothing
 * when the status turned `ready` in the meantime).
 */
export function ClusterPending({ title, status, what }: { readonly title: ReactNode; readonly status: ClusterStatusView; readonly what: string }) {
  return (
    <>
      {title}
      {status.state === 'ready' ? null : <ClusterStatusPanel status={status} what={what} />}
    </>
  );
}
