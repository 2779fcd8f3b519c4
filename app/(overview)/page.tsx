import type { Metadata } from 'next';
import Link from 'next/link';
import { connection } from 'next/server';
import { Suspense } from 'react';

import { clusterDisplayName, titleWithCluster } from '@/lib/shared/cluster-name';
import { ClusterPending } from '@/components/shared/cluster-status';
import { AttentionList } from '@/components/overview/attention-list';
import { ClusterAnswers } from '@/components/overview/cluster-answers';
import { ClusterHistoryPanel } from '@/components/history/cluster-history';
import { CLUSTER_HISTORY_HEIGHT, HistorySkeleton } from '@/components/history/history-parts';
import { ClusterZoneMap } from '@/components/overview/cluster-zone-map';
import { hintsSync } from '@/components/overview/hints-sync';
import { HintsSyncVerdict } from '@/components/overview/hints-sync-verdict';
import { zoneGlance } from '@/components/overview/zone-glance';
import { DataplaneCard } from '@/components/dataplane/dataplane-card';
import { EligibilityVerdict } from '@/components/overview/eligibility';
import { FlaggedNodes, ZoneRatioTable } from '@/components/overview/zone-table';
import { ZoneTraffic } from '@/components/overview/zone-traffic';
import { formatCount } from '@/components/ui/format';
import { PageTitle } from '@/components/ui/page-title';
import { Formula, LINK, Panel, Stat } from '@/components/ui/panel';
import { Badge, Callout } from '@/components/ui/status';
import { getClusterAnalysis } from '@/lib/server/analysis';
import { clusterHref, requestScope } from '@/lib/server/clusters';
import { getClusterStatus, getHeader } from '@/lib/views/header';
import { getAttentionList, getClusterAnswers } from '@/lib/views/services/attention';
import { getClusterTraffic } from '@/lib/views/traffic';

export async function generateMetadata(): Promise<Metadata> {
  await connection();
  return { title: titleWithCluster('Overview', clusterDisplayName(getHeader(await requestScope()))) };
}

/** A panel whose answer depends on a type zonescope could not read: what it shows below is an empty list, not the cluster. */
function UnknownAnswer({ message }: { readonly message: string }) {
  return (
    <Callout tone="warn" title="Unknown">
      <p>{message}</p>
    </Callout>
  );
}

export default async function OverviewPage() {
  await connection();
  const scope = await requestScope();
  const analysis = getClusterAnalysis(scope.source);
  const title = (
    <PageTitle
      title="Overview"
      subtitle="Can Topology Aware Routing work in this cluster at all, and where does it fail?"
      badges={
        analysis ? (
          <>
            {analysis.cluster.unknown.eligibility !== undefined ? (
              <Badge tone="warn">Eligibility unknown (Nodes forbidden)</Badge>
            ) : (
              <Badge tone={analysis.cluster.eligible ? 'ok' : 'error'}>{analysis.cluster.eligible ? 'Cluster eligible for hints' : 'Hints off cluster-wide'}</Badge>
            )}
            {analysis.cluster.dataplane.honoursHints ? null : <Badge tone="error">Dataplane ignores hints</Badge>}
          </>
        ) : null
      }
    />
  );
  if (!analysis) return <ClusterPending title={title} status={getClusterStatus(scope)} what="the overview" />;
  const { cluster, kubernetes } = analysis;
  const s = cluster.summary;
  const traffic = getClusterTraffic(scope);
  const attention = getAttentionList(scope) ?? cluster.needsAttention;
  const answers = getClusterAnswers(scope);
  return (
    <>
      {title}
      <div className="grid gap-5 lg:grid-cols-3">
        <Panel
          id="zone-traffic"
          title="Zone traffic"
          description="Which Services send traffic across zones, what it costs per month in total, and what fixing them would save."
          className="lg:col-span-3"
        >
          {cluster.unknown.services !== undefined ? <UnknownAnswer message={cluster.unknown.services} /> : null}
          <ZoneTraffic traffic={traffic} />
        </Panel>
        <Panel id="eligibility" title="Eligibility" description="Whether the EndpointSlice controller can compute CPU ratios (SetNodes)." className="lg:col-span-2">
          <EligibilityVerdict cluster={cluster} />
          <ZoneRatioTable cluster={cluster} />
        </Panel>
        <Panel id="summary" title="Services">
          {cluster.unknown.services !== undefined ? <UnknownAnswer message={cluster.unknown.services} /> : null}
          <dl className="grid grid-cols-2 gap-2">
            <Stat label="Services" value={formatCount(s.services)} />
            <Stat
              label="Need attention"
              value={
                <Link href={clusterHref(scope, '/services?attention=1')} className={LINK}>
                  {formatCount(attention.length)}
                </Link>
              }
            />
            <Stat label="Hints expected on" value={formatCount(s.hintsExpectedOn)} formula="controller's next sync" />
            <Stat label="Hints on slices now" value={formatCount(s.hintsObservedOn)} formula="observed on EndpointSlices" />
          </dl>
          <HintsSyncVerdict sync={hintsSync(analysis.services)} href={(path) => clusterHref(scope, path)} />
          <div>
            <h3 className="mb-1 text-xs font-medium uppercase tracking-wide text-slate-600 dark:text-slate-400">By mechanism on {kubernetes.release}</h3>
            <ul className="space-y-1 text-sm">
              {(
                [
                  ['topology-mode', 'topology-mode annotation'],
                  ['legacy-annotation', 'legacy topology-aware-hints'],
                  ['trafficDistribution', 'spec.trafficDistribution'],
                  ['none', 'none (no hints asked for)'],
                ] as const
              ).map(([key, label]) => (
                <li key={key} className="flex justify-between gap-2">
                  <span>{label}</span>
                  <span className="tabular-nums">{formatCount(s.byMechanism[key])}</span>
                </li>
              ))}
            </ul>
          </div>
          <p className="text-xs text-slate-600 dark:text-slate-400">
            Press{' '}
            <kbd className="rounded border border-slate-300 px-1 font-mono dark:border-slate-600">/</kbd> on any page to search the Services.
          </p>
          {analysis.assumptions.length > 0 ? (
            <details className="text-xs text-slate-600 dark:text-slate-400">
              <summary className="cursor-pointer">Assumptions behind the figures</summary>
              <ul className="mt-1 list-disc space-y-0.5 pl-4">
                {analysis.assumptions.map((a) => (
                  <li key={a}>{a}</li>
                ))}
              </ul>
            </details>
          ) : null}
        </Panel>
        <Panel
          id="history"
          title="History"
          description="Eligibility, cross-zone spend and nodes over time, read back from the Prometheus that scrapes zonescope: when the cluster stopped being eligible, and which node did it."
          className="lg:col-span-3"
        >
          <Suspense fallback={<HistorySkeleton height={CLUSTER_HISTORY_HEIGHT} what="the cluster's history" />}>
            <ClusterHistoryPanel />
          </Suspense>
        </Panel>
        <Panel
          id="zone-map"
          title="Zone map"
          description="Zones as columns, nodes as tiles sized by allocatable CPU, as the EndpointSlice controller's topology cache sees them."
          className="lg:col-span-3"
        >
          {cluster.unknown.zones !== undefined ? <UnknownAnswer message={cluster.unknown.zones} /> : null}
          <ClusterZoneMap cluster={cluster} glance={zoneGlance(cluster, analysis.services, traffic?.report ?? analysis.traffic)} />
          <FlaggedNodes cluster={cluster} />
        </Panel>
        <Panel id="attention" title={`Services needing attention (${formatCount(attention.length)})`} description="Why each one does not keep traffic in-zone as intended, or what a verified change would save." className="lg:col-span-2">
          {answers ? <ClusterAnswers answers={answers} /> : null}
          <AttentionList items={attention} money={traffic?.byService} />
        </Panel>
        <Panel id="dataplane" title="Dataplane" description={`Will the Service proxy honour hints on ${kubernetes.release}?`}>
          {cluster.unknown.dataplane !== undefined ? <UnknownAnswer message={cluster.unknown.dataplane} /> : null}
          <DataplaneCard dataplane={cluster.dataplane} compact />
          <Formula>Kubernetes {kubernetes.gitVersion ?? kubernetes.release} (modelled release {kubernetes.release}, {kubernetes.source}).</Formula>
        </Panel>
      </div>
    </>
  );
}
