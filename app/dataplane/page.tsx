import type { Metadata } from 'next';
import { connection } from 'next/server';
import type { ReactNode } from 'react';

import { clusterDisplayName, titleWithCluster } from '@/lib/shared/cluster-name';
import { ClusterPending } from '@/components/shared/cluster-status';
import { CniNotes } from '@/components/dataplane/cni-notes';
import { dataplaneAnswer } from '@/components/dataplane/dataplane-answer';
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
import { formatKubeMinor } from '@/lib/topology/upstream/version';
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
  const releases = getReleaseAnnotationTable();
  return (
    <>
      {title}
      <div className="space-y-5">
        <Panel id="answer" title="Does this cluster honour hints, and should it switch proxy mode?" description="What implements Services here, whether it honours topology hints, and what to do.">
          <ProxyModeAdviceView advice={advice} answer={dataplaneAnswer(d, advice)} />
        </Panel>
        <Panel id="proxy" title="Service proxy" description={`Per the kube-proxy ConfigMap and CNI configuration, on Kubernetes ${d.release}.`}>
          <DataplaneCard dataplane={d} releasesHref="#annotation" />
        </Panel>
        <Panel id="rules" title="Rule counts per proxy mode" description="Estimated per-node kernel state for this cluster's Services and endpoints in iptables, IPVS and nftables mode.">
          <div className="space-y-3">
            <RuleCountWarning advice={advice} />
            <RuleEstimatesView estimates={analysis.cluster.ruleEstimates} />
          </div>
        </Panel>
        <Panel id="reference" title="Reference" description="Closed until opened; what this cluster runs is marked in each.">
          <Reference
            id="ipvs-schedulers"
            summary={`IPVS schedulers: how each picks a pod, and what IPVS mode needs on the nodes — ${d.proxyMode === 'ipvs' ? `this cluster uses ${d.ipvsScheduler?.name ?? 'rr'}` : 'only used in IPVS mode (this cluster is not)'}`}
          >
            <IpvsSchedulers dataplane={d} />
          </Reference>
          <Reference id="cni" summary="CNI notes: whether Cilium, Calico eBPF and the Amazon VPC CNI read EndpointSlice hints">
            <CniNotes dataplane={d} />
          </Reference>
          <Reference id="annotation" summary={`Annotation key per release, ${formatKubeMinor(releases[0]?.firstMinor ?? 0)}–${formatKubeMinor(releases[releases.length - 1]?.lastMinor ?? 0)}: which annotation turns Auto on, and whether kube-proxy needs it`}>
            <ReleaseTable rows={releases} currentMinor={analysis.kubernetes.minor} />
          </Reference>
        </Panel>
      </div>
    </>
  );
}

/**
 * One piece of reference material, closed until asked for. The `id` is on its content, so a link
 * to it (`#annotation`) opens it: browsers expand a closed `<details>` to show a fragment target.
 */
function Reference({ id, summary, children }: { readonly id: string; readonly summary: string; readonly children: ReactNode }) {
  return (
    <details className="group rounded-md border border-slate-200 dark:border-slate-700">
      <summary className="cursor-pointer rounded-md px-3 py-2 text-sm font-semibold hover:bg-slate-50 dark:hover:bg-slate-800">{summary}</summary>
      <div id={id} className="scroll-mt-20 border-t border-slate-200 p-3 dark:border-slate-700">
        {children}
      </div>
    </details>
  );
}
