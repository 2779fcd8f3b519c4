import type { Metadata } from 'next';
import { connection } from 'next/server';

import { AutoRefresh } from '@/components/layout/auto-refresh';
import { FleetPrometheusNote, LimitNote, SingleClusterNote } from '@/components/fleet/fleet-notes';
import { FleetSummary } from '@/components/fleet/fleet-summary';
import { FleetTable } from '@/components/fleet/fleet-table';
import { formatCount, plural } from '@/components/ui/format';
import { PageTitle } from '@/components/ui/page-title';
import { Formula, Panel } from '@/components/ui/panel';
import { Badge } from '@/components/ui/status';
import { fleetLeader, fleetView } from '@/lib/views/fleet/fleet';

export const metadata: Metadata = { title: 'Fleet' };

export default async function FleetPage() {
  await connection();
  const view = fleetView();
  const rows = view.clusters;
  const limited = rows.filter((r) => r.refused?.reason === 'limit');
  const syncing = rows.some((r) => r.freshness.kind === 'syncing' && r.source === 'connected');
  const prometheusPending = view.fleetPrometheus?.state === 'pending';
  const failing = rows.filter((r) => r.freshness.kind === 'error').length;
  const leader = fleetLeader(rows);
  return (
    <>
      <PageTitle
        title="Fleet"
        subtitle="Every cluster of the kubeconfig side by side: which one spends most on cross-zone traffic, and why?"
        badges={
          <>
            <Badge tone="neutral">{plural(rows.length, 'cluster')}</Badge>
            <Badge tone={limited.length > 0 ? 'warn' : 'neutral'} title="Clusters open now, of the most ZONESCOPE_MAX_OPEN_CLUSTERS allows (the default counted)">
              {formatCount(view.openCount)} of {formatCount(view.maxOpen)} open
            </Badge>
            {failing > 0 ? <Badge tone="error">{plural(failing, 'cluster')} failing</Badge> : null}
          </>
        }
      />
      <div className="space-y-5">
        <Panel id="answer" title="Who spends most" description="The cluster with the highest cross-zone cost per month now, and why.">
          <FleetSummary leader={leader} rows={rows} now={view.generatedAt} />
        </Panel>
        <LimitNote rows={rows} maxOpen={view.maxOpen} idleMinutes={view.idleMinutes} />
        <FleetPrometheusNote status={view.fleetPrometheus} rows={rows} />
        {view.fleetPrometheus === null ? <SingleClusterNote rows={rows} /> : null}
        <Panel id="clusters" title={`Clusters (${formatCount(rows.length)})`} description="Sorted by cross-zone cost per month, highest first; every column header sorts. A cluster's name opens its Overview.">
          <FleetTable rows={rows} now={view.generatedAt} />
          <Formula>
            Cross-zone $ per month = cross-zone GB per month × price per GB × 2 (each direction is billed), summed over the cluster&apos;s Services; &quot;at best&quot; with each Service on its best
            mechanism. Each cluster&apos;s volumes are measured by its own Prometheus where it has one (ZONESCOPE_PROMETHEUS_URL for the default cluster, its
            ZONESCOPE_PROMETHEUS_BY_CONTEXT entry for the others) and set or assumed elsewhere: the line under each cost says which. Rows from the fleet Prometheus carry each
            installation&apos;s own figures.
          </Formula>
        </Panel>
      </div>
      {syncing || prometheusPending ? <AutoRefresh intervalMs={2_000} /> : null}
    </>
  );
}
