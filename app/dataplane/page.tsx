import type { Metadata } from 'next';
import { connection } from 'next/server';

import { clusterDisplayName, titleWithCluster } from '@/lib/shared/cluster-name';
import { ClusterPending } from '@/components/shared/cluster-status';
import { CniNotes } from '@/components/dataplane/cni-notes';
import { DataplaneCard, proxyModeText } from '@/components/dataplane/dataplane-card';
import { IpvsSchedulers } from '@/components/dataplane/ipvs-schedulers';
import { ProxyModeAdviceView, RuleCountWarning } from '@/components/dataplane/proxy-mode-advice';
import { ReleaseTable } from '@/components/dataplane/release-table';
import { RuleEstimatesView } from '@/components/dataplane/rule-estimates';
import { PageTitle } from '@/components/ui/page-title';
import { Panel } from '@/components/ui/panel';
import { Badge } from '@/components/ui/status';
import { getClusterAnalysis } from '@/lib/server/analysis';
import { requestScope } from '@/lib/server/clusters';
import { adviseProxyMode } from '@/lib/topology/analyses/proxy-mode-advice';
import { getReleaseAnnotationTable } from '@/lib/views/dataplane';
import { getClusterStatus, getHeader } from '@/lib/views/header';

export async function generateMetadata(): Promise<Metadata> {
  await connection();
  return { title: titleWithCluster('Dataplane', clusterDisplayName(getHeader(await requestScope()))) };
}

export default async function DataplanePage() {
  await connection();
  const scope = await requestScope();
  const analysis = getClusterAnalysis(scope.source);
  const title = (
    <PageTitle
      title="Dataplane"
      subtitle="Will my proxy honour hints, and what does my proxy mode cost?"
      badges={
        analysis ? (
          <>
            <Badge tone={analysis.cluster.dataplane.honoursHints ? 'ok' : 'error'}>{analysis.cluster.dataplane.honoursHints ? 'hints honoured' : 'hints ignored'}</Badge>
            <Badge tone="neutral">kube-proxy: {proxyModeText(analysis.cluster.dataplane)}</Badge>
          </>
        ) : null
      }
    />
  );
  if (!analysis) return <ClusterPending title={title} status={getClusterStatus(scope)} what="the dataplane" />;
  const d = analysis.cluster.dataplane;
  const advice = adviseProxyMode(d, analysis.cluster.ruleEstimates, analysis.kubernetes.minor);
  return (
    <>
      {title}
      <div className="grid gap-5 lg:grid-cols-2">
        <Panel id="advice" title="Should we switch proxy mode?" description={`For this cluster on Kubernetes ${d.release}.`} className="lg:col-span-2">
          <ProxyModeAdviceView advice={advice} />
        </Panel>
        <Panel id="proxy" title="Service proxy" description={`Per the kube-proxy ConfigMap and CNI configuration, on Kubernetes ${d.release}.`} className="lg:col-span-2">
          <DataplaneCard dataplane={d} />
        </Panel>
        <Panel id="rules" title="Rule counts per proxy mode" description="Estimated per-node kernel state for this cluster's Services and endpoints in iptables, IPVS and nftables mode." className="lg:col-span-2">
          <div className="space-y-3">
            <RuleCountWarning advice={advice} />
            <RuleEstimatesView estimates={analysis.cluster.ruleEstimates} />
          </div>
        </Panel>
        <Panel id="ipvs-schedulers" title="IPVS schedulers" description={d.proxyMode === 'ipvs' ? `This cluster uses ${d.ipvsScheduler?.name ?? 'rr'}.` : 'Only used in IPVS mode (this cluster is not).'} className="lg:col-span-2">
          <IpvsSchedulers dataplane={d} />
        </Panel>
        <Panel id="cni" title="CNI notes" description="Whether the component that implements Services reads EndpointSlice hints." className="lg:col-span-2">
          <CniNotes dataplane={d} />
        </Panel>
        <Panel id="annotation" title="Annotation key per release" description="Which annotation turns on the Auto heuristic, and whether kube-proxy needs it to use hints." className="lg:col-span-2">
          <ReleaseTable rows={getReleaseAnnotationTable()} currentMinor={analysis.kubernetes.minor} />
        </Panel>
      </div>
    </>
  );
}
