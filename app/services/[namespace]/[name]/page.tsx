import Link from 'next/link';
import { Suspense } from 'react';
import { notFound } from 'next/navigation';
import { connection } from 'next/server';

import { DistributionPanel, minimumTableAbsence } from '@/components/service/distribution-panel';
import { ClusterPending } from '@/components/shared/cluster-status';
import { EndpointTable } from '@/components/service/endpoint-table';
import { EventsTimeline } from '@/components/service/events-timeline';
import { firstRows } from '@/components/service/first-rows';
import { HintsDiff } from '@/components/service/hints-diff';
import { ServiceHistoryPanel } from '@/components/history/service-history-panel';
import { HistorySkeleton, SERVICE_HISTORY_HEIGHT } from '@/components/history/history-parts';
import { HpaPanel } from '@/components/service/hpa-panel';
import { ANSWER_LABELS } from '@/components/layout/permissions-banner';
import { ATTENTION } from '@/components/shared/labels';
import { Lints } from '@/components/service/lints';
import { LoadBalancerPath } from '@/components/service/load-balancer-path';
import { ServiceVerdict } from '@/components/service/service-verdict';
import { MAX_TILE_ENDPOINTS } from '@/components/service/zone-map-model';
import { ServiceZoneMap } from '@/components/service/service-zone-map';
import { TopologyModeEquivalents } from '@/components/topology-mode/equivalents';
import { TopologyModeToggle } from '@/components/topology-mode/toggle';
import { MeasuredPanel } from '@/components/service/measured-panel';
import { podsRepeatMinimumTable, verdictRangeRisk } from '@/components/service/panel-overlap';
import { RequestSamplePanel } from '@/components/service/request-sample-panel';
import { pickerOptions } from '@/components/service/request-sample-options';
import { costRows, roundGb, trafficScenarios } from '@/components/service/traffic-data';
import { TrafficPanel } from '@/components/service/traffic-panel';
import { formatPercent, mechanismLabel, serviceHref } from '@/components/ui/format';
import { PageTitle } from '@/components/ui/page-title';
import { Formula, LINK, Panel } from '@/components/ui/panel';
import { Badge, Callout } from '@/components/ui/status';
import { clusterHref, requestScope } from '@/lib/server/clusters';
import { getClusterStatus } from '@/lib/views/header';
import { topologyModePreview } from '@/lib/views/topology-mode/state';
import { getRequestSample, getRequestSampleOptions } from '@/lib/views/service/request-sample';
import { getServiceTraffic } from '@/lib/views/service/traffic';
import { getServiceView } from '@/lib/views/service/view';
import { measuredCrossZoneFraction } from '@/lib/topology/analyses/measured-projection';
import { DEFAULT_REQUESTS } from '@/lib/topology/analyses/request-sample';
import { UNKNOWN_ZONE } from '@/lib/topology/analyses/traffic';

import type { ServiceParams } from './params';
import { decodeSegment } from './params';

type Search = Record<string, string | string[] | undefined>;

function one(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

function nonNegative(value: string | undefined): number | null {
  if (value === undefined || value.trim() === '') return null;
  const n = Number(value);
  return Number.isFinite(n) && n >= 0 && n <= 1e12 ? n : null;
}

const SECTIONS = [
  ['verdict', 'Verdict'],
  ['topology-mode', 'Topology mode'],
  ['endpoint-map', 'Endpoints by zone'],
  ['distribution', 'Distribution'],
  ['hints', 'Observed vs expected'],
  ['events', 'Events'],
  ['history', 'History'],
  ['traffic', 'Traffic & cost'],
  ['measured', 'Measured vs predicted'],
  ['requests', '100 requests'],
  ['workload', 'HPA / workload'],
  ['lints', 'Policy lints'],
  ['load-balancer', 'Load balancer'],
] as const;

export default async function ServicePage({ params, searchParams }: { params: Promise<ServiceParams>; searchParams: Promise<Search> }) {
  await connection();
  const { namespace: rawNamespace, name: rawName } = await params;
  const search = await searchParams;
  const namespace = decodeSegment(rawNamespace);
  const name = decodeSegment(rawName);
  const scope = await requestScope();
  const result = getServiceView(scope, namespace, name);
  const breadcrumb = (
    <>
      <Link href={clusterHref(scope, '/services')} className={LINK}>
        Services
      </Link>{' '}
      / {namespace} / <span aria-current="page">{name}</span> ·{' '}
      <Link href={clusterHref(scope, `${serviceHref(namespace, name)}/yaml`)} className={LINK}>
        YAML
      </Link>
    </>
  );
  if (!result.ok && result.error.kind === 'syncing') {
    return <ClusterPending title={<PageTitle title={`${namespace}/${name}`} breadcrumb={breadcrumb} />} status={getClusterStatus(scope)} what="this Service" />;
  }
  if (!result.ok) notFound();

  const { detail, service, release, minor, readOnly, version } = result.value;
  // The render time: the events' relative times ("3m ago") are counted from it.
  const renderedAt = Date.now();
  const mapMode = one(search.map) === 'expected' ? 'expected' : 'observed';
  // The Service's volume as everywhere (measured > set > assumed); ?gb= and ?price= are the panel's what-if.
  const traffic = getServiceTraffic(scope, result.value);
  const gb = nonNegative(one(search.gb)) ?? roundGb(traffic.volume.gbPerMonth);
  // ?price= is what one cross-zone GB costs (every charge included), as the panel's input says.
  const price = nonNegative(one(search.price)) ?? traffic.pricing.costPerCrossZoneGb;
  const crossZoneNow = traffic.volume.measuredMatrix !== null ? measuredCrossZoneFraction(traffic.volume.measuredMatrix) : detail.traffic.crossZoneFraction;
  const hasClients = detail.trafficMatrix.now.clientZones.length > 0;
  const sampleOptions = hasClients ? getRequestSampleOptions(scope, namespace, name) : null;
  const firstSample = sampleOptions && sampleOptions.zones.length > 0 ? getRequestSample(scope, namespace, name, { scenario: 'now', count: DEFAULT_REQUESTS, zone: null, node: null }) : null;
  const scenarioLabels = trafficScenarios(detail).map((x) => ({ id: x.id, label: x.label }));
  const zones = [...new Set([...detail.trafficMatrix.now.clientZones, ...(detail.minimumTable?.rows.map((r) => r.zone) ?? []), ...detail.endpoints.map((e) => e.zone ?? UNKNOWN_ZONE)])]
    .filter((z) => z !== UNKNOWN_ZONE)
    .sort();
  const workload = detail.hpa ?? detail.workload;
  const attention = detail.needsAttention;
  const e = detail.expected;
  const hintsBadge = detail.unknown.expectedHints !== undefined ? (
    <Badge tone="warn" title={detail.unknown.expectedHints}>hints unknown</Badge>
  ) : e.hintsEnabled ? (
    <Badge tone={e.donatedEndpoints > 0 ? 'warn' : 'ok'}>hints on{e.donatedEndpoints > 0 ? `, ${e.donatedEndpoints} donated` : ''}</Badge>
  ) : detail.mechanism === 'none' ? (
    <Badge tone="neutral">no hints asked for</Badge>
  ) : (
    <Badge tone="error">hints off</Badge>
  );
  // LoadBalancer Services: the external path matters first, so its panel comes right after the verdict.
  const lbFirst = service.type === 'LoadBalancer' && detail.loadBalancer !== null;
  const loadBalancerPanel = detail.loadBalancer ? (
    <Panel id="load-balancer" title="Load-balancer path" description="How external traffic reaches the pods, and where it can cross zones." className={lbFirst ? 'lg:col-span-3' : 'lg:col-span-2'}>
      <LoadBalancerPath lb={detail.loadBalancer} />
    </Panel>
  ) : null;
  const mapHref = (mode: 'observed' | 'expected') => {
    const q = new URLSearchParams();
    if (mode === 'expected') q.set('map', 'expected');
    if (one(search.gb)) q.set('gb', String(gb));
    if (one(search.price)) q.set('price', String(price));
    const s = q.toString();
    return clusterHref(scope, `${serviceHref(namespace, name)}${s ? `?${s}` : ''}#endpoint-map`);
  };

  return (
    <>
      <PageTitle
        title={
          <>
            <span className="text-slate-500 dark:text-slate-400">{namespace}/</span>
            {name}
          </>
        }
        breadcrumb={breadcrumb}
        subtitle="Exactly what happens to this Service's traffic, and what is the smallest fix?"
        badges={
          <>
            <Badge tone="neutral">{service.type}</Badge>
            <Badge tone={detail.mechanism === 'none' ? 'neutral' : 'info'}>mechanism: {mechanismLabel(detail.mechanism)}</Badge>
            {hintsBadge}
            {detail.unknown.crossZone !== undefined ? (
              <Badge tone="warn" title={detail.unknown.crossZone}>cross-zone unknown</Badge>
            ) : (
              <Badge tone={detail.traffic.crossZoneFraction > 0.2 ? 'warn' : 'ok'}>{formatPercent(detail.traffic.crossZoneFraction)} cross-zone</Badge>
            )}
            {attention && attention.reason !== 'hints-off' ? (
              <Badge tone={ATTENTION[attention.reason].tone} title={attention.message}>
                {ATTENTION[attention.reason].label}
              </Badge>
            ) : null}
          </>
        }
      />
      <nav aria-label="Panels on this page" className="mb-5 overflow-x-auto">
        <ul className="flex flex-wrap gap-x-1 gap-y-1 text-sm">
          {(lbFirst ? [...SECTIONS.slice(0, 2), ...SECTIONS.filter(([id]) => id === 'load-balancer'), ...SECTIONS.slice(2).filter(([id]) => id !== 'load-balancer')] : SECTIONS)
            .filter(([id]) =>
              id === 'load-balancer' ? detail.loadBalancer !== null : id === 'topology-mode' ? !readOnly : id === 'measured' ? traffic.measured !== null : id === 'requests' ? firstSample?.ok === true : true,
            )
            .map(([id, label]) => (
            <li key={id}>
              <a href={`#${id}`} className="block rounded px-2 py-1 text-slate-700 hover:bg-slate-200 dark:text-slate-300 dark:hover:bg-slate-800">
                {label}
              </a>
            </li>
          ))}
        </ul>
      </nav>

      {Object.keys(detail.unknown).length > 0 ? (
        // Types the identity may not read: these panels show what an empty list gives, not the cluster.
        <Callout tone="warn" title="Some answers on this page are unknown" className="mb-5">
          <ul className="list-disc pl-5">
            {Object.entries(detail.unknown).map(([answer, message]) => (
              <li key={answer}>
                <strong>{ANSWER_LABELS[`services[].${answer}`] ?? answer}</strong>: {message}
              </li>
            ))}
          </ul>
        </Callout>
      ) : null}
      <div className="grid gap-5 lg:grid-cols-3">
        <Panel id="verdict" title="Verdict and smallest fix" description={`What the EndpointSlice controller does on ${release}, in its own words.`} className={readOnly ? 'lg:col-span-3' : 'lg:col-span-2'}>
          <ServiceVerdict detail={detail} gitOpsWarning={detail.gitOps && detail.gitOps.liveChange !== 'stays' ? detail.gitOps.warning : null} />
        </Panel>
        {readOnly ? null : e.applicable ? (
          <Panel id="topology-mode" title="Topology mode" description="Enable or disable Auto, with the predicted outcome first.">
            <TopologyModeToggle namespace={namespace} name={name} pageResourceVersion={service.resourceVersion} dataVersion={version} preview={topologyModePreview(scope, result.value)} />
            <TopologyModeEquivalents service={service} minor={minor} />
          </Panel>
        ) : (
          <Panel id="topology-mode" title="Topology mode" description="Not offered: topology routing does not apply to this Service.">
            <p className="text-sm text-slate-700 dark:text-slate-300">{e.verdict}</p>
          </Panel>
        )}
        {lbFirst ? loadBalancerPanel : null}

        <Panel
          id="endpoint-map"
          title="Endpoints by zone"
          description={`Each endpoint marked by its zone hint (above ${MAX_TILE_ENDPOINTS} endpoints, counted per kind and zone), and where donated endpoints send their zone's traffic.`}
          className="lg:col-span-3"
          actions={
            <div role="group" aria-label="Which hints to show" className="flex overflow-hidden rounded-md border border-slate-300 text-sm dark:border-slate-600">
              {(['observed', 'expected'] as const).map((mode) => (
                <Link
                  key={mode}
                  href={mapHref(mode)}
                  scroll={false}
                  replace
                  aria-current={mapMode === mode ? 'true' : undefined}
                  className={`px-3 py-1 ${mapMode === mode ? 'bg-slate-900 font-semibold text-white dark:bg-slate-100 dark:text-slate-900' : 'hover:bg-slate-100 dark:hover:bg-slate-800'}`}
                >
                  {mode === 'observed' ? 'On slices now' : 'Expected after sync'}
                </Link>
              ))}
            </div>
          }
        >
          {detail.endpoints.length === 0 ? (
            <Callout tone="info" title="No endpoints">
              <p>{service.type === 'ExternalName' ? 'ExternalName Services have no endpoints.' : 'The Service has no EndpointSlice endpoints: no ready pod matches its selector.'}</p>
            </Callout>
          ) : (
            <>
              <ServiceZoneMap endpoints={detail.endpoints} zones={zones} mode={mapMode} />
              <div className="space-y-1">
                <h3 className="text-sm font-semibold">Endpoints</h3>
                <EndpointTable namespace={namespace} name={name} first={firstRows(detail).endpoints} total={detail.endpoints.length} version={version} />
              </div>
            </>
          )}
        </Panel>

        <Panel id="distribution" title="Endpoint distribution and per-zone minimums" description="Ready endpoints per zone against the controller's minimum, desired and maximum." className="lg:col-span-3">
          <DistributionPanel detail={detail} />
        </Panel>

        <Panel id="hints" title="Observed vs expected hints" description="Hints on the EndpointSlices now against what the controller would write." className="lg:col-span-2">
          <HintsDiff detail={detail} namespace={namespace} name={name} version={version} />
        </Panel>
        <Panel id="events" title="Events" description="TopologyAwareHints events and others recorded on the Service, newest first.">
          <EventsTimeline events={detail.events} now={renderedAt} />
        </Panel>

        <Panel
          id="history"
          title="History"
          description="Hints, ready endpoints per zone and cross-zone share over time, read back from the Prometheus that scrapes zonescope: when and why hints changed, after the events are gone."
          className="lg:col-span-3"
        >
          <Suspense fallback={<HistorySkeleton height={SERVICE_HISTORY_HEIGHT} what="the Service's history" />}>
            <ServiceHistoryPanel namespace={namespace} name={name} />
          </Suspense>
        </Panel>

        <Panel id="traffic" title="Traffic and cost" description="Expected in-cluster traffic from each client zone to each endpoint zone under kube-proxy's endpoint selection." className="lg:col-span-3">
          {detail.trafficMatrix.now.clientZones.length === 0 ? (
            <Callout tone="neutral" title="No client zones">
              <p>The cluster has no ready worker nodes with a zone and CPU, so no traffic model applies.</p>
            </Callout>
          ) : (
            <>
              <TrafficPanel
                namespace={namespace}
                name={name}
                version={version}
                scenarios={trafficScenarios(detail)}
                initialGb={gb}
                initialPrice={price}
                costRows={costRows(detail, traffic)}
                volume={{
                  gbPerMonth: traffic.volume.gbPerMonth,
                  source: traffic.volume.source,
                  costPerCrossZoneGb: traffic.pricing.costPerCrossZoneGb,
                  priceNote: traffic.pricing.note,
                  loadBalancerLeg: traffic.loadBalancerLeg,
                  crossZoneFractionNow: crossZoneNow,
                  monthlyCostNow: traffic.monthlyCost.now.monthlyCost,
                  unmeasuredNote:
                    traffic.measured !== null
                      ? null
                      : traffic.metrics.state === 'ok' || traffic.metrics.state === 'stale'
                        ? `Prometheus answers, but none of its series name this Service's workload or pods, so its volume is ${traffic.volume.source.kind}.`
                        : traffic.metrics.message,
                }}
              />
              <Formula>
                Model: each zone sends traffic in proportion to its CPU (the controller&apos;s own assumption), spread over its nodes by CPU; every node runs
                kube-proxy&apos;s endpoint selection and spreads evenly over what it selects. If most requests start in one zone, that zone&apos;s endpoints
                take more than shown: Topology Aware Routing suits traffic that is spread over zones like the capacity.
              </Formula>
            </>
          )}
        </Panel>

        {traffic.measured ? (
          <Panel
            id="measured"
            title={traffic.measured.kind === 'measured-flows' ? 'Measured vs predicted' : 'Measured volume'}
            description={
              traffic.measured.kind === 'measured-flows'
                ? 'Zone-resolved bytes from Prometheus beside the cross-zone share the model predicts now.'
                : 'Network bytes of the endpoint pods from Prometheus; the zone split stays the model\'s.'
            }
            className="lg:col-span-3"
          >
            <MeasuredPanel measured={traffic.measured} comparison={traffic.comparison} window={traffic.window} measuredAt={traffic.measuredAt} />
          </Panel>
        ) : null}

        {sampleOptions && firstSample?.ok ? (
          <Panel
            id="requests"
            title="Send 100 requests from a client in zone X"
            description="The classic check: a client pod curls the Service and counts which pods answer. Worked out from kube-proxy's selection on the client's node."
            className="lg:col-span-3"
          >
            <RequestSamplePanel namespace={namespace} name={name} version={version} options={pickerOptions(sampleOptions)} initial={firstSample.value} scenarios={scenarioLabels} />
          </Panel>
        ) : null}

        <Panel
          id="workload"
          title={detail.hpa ? 'HPA and placement' : 'Workload and placement'}
          description="Pods per zone against the minimum, replica counts where hints turn off, scale-down risk and spread."
          className="lg:col-span-3"
        >
          {workload ? (
            <HpaPanel
              analysis={workload}
              trafficDistribution={detail.mechanism === 'trafficDistribution' ? detail.mechanismDetail.trafficDistribution : null}
              podsRepeatMinimums={podsRepeatMinimumTable(workload, minimumTableAbsence(detail) === null ? detail.minimumTable : null)}
              riskInVerdict={verdictRangeRisk(detail) !== null}
            />
          ) : (
            <p className="text-sm text-slate-700 dark:text-slate-300">No Deployment found behind this Service (its pods are not owned by a Deployment&apos;s ReplicaSet, or it has no selector).</p>
          )}
        </Panel>

        <Panel id="lints" title="Policy lints" description="Traffic policies, annotations and fields that override, shadow or disable hints." className={detail.loadBalancer && !lbFirst ? 'lg:col-span-1' : 'lg:col-span-3'}>
          <Lints lints={detail.lints} />
        </Panel>
        {lbFirst ? null : loadBalancerPanel}
      </div>
    </>
  );
}
