/**
 * The Overview's "Zone traffic" panel: which Services send traffic across zones, how much it costs
 * in total per month, and what fixing them would save — answerable in one screen. Totals now /
 * after the controller's next sync / best achievable, the price in use, where every volume comes
 * from (measured with which metric and window, or assumed and how), the zone → zone flows (a
 * client leaf with the scenario switch, the Sankey and the matrix table), and the top Services by
 * cross-zone $ and by saving, each with its smallest fix and a link to the Service.
 *
 * Server component; everything it shows is `getClusterTraffic()`'s (lib/views/traffic.ts).
 */
import { ClusterLink } from '../layout/cluster-base';
import type { ClusterTraffic, TrafficStatus } from '@/lib/views/traffic';
import type { ClusterTrafficReport, ClusterTrafficScenario, ServiceTrafficCost, VolumeSourceKind } from '@/lib/topology/analyses/traffic-volume';
import type { CrossZonePricing } from '@/lib/topology/model/cloud-pricing';
import { formatPercent, formatTimestamp, formatUsd, plural, serviceHref } from '../ui/format';
import { Code, LINK } from '../ui/panel';
import { Callout } from '../ui/status';
import { ZoneTrafficFlows } from './zone-traffic-flows';
import { formatGb, VOLUME_SOURCE, VolumeSourceMarker } from './zone-traffic-source';

/** Entries of each top list shown (the report holds up to 10). */
const TOP = 5;

/** The cluster's price, as one sentence (the cloud, how it was found, and what a cross-zone GB costs). */
export function priceSentence(pricing: CrossZonePricing): string {
  return pricing.note.replace(/\.$/, '');
}

const SOURCE_ORDER: readonly VolumeSourceKind[] = ['measured-flows', 'measured-pod-bytes', 'set', 'assumed'];
const SOURCE_PHRASE: Readonly<Record<VolumeSourceKind, string>> = {
  'measured-flows': 'measured with zone-resolved flows',
  'measured-pod-bytes': 'measured from pod network bytes',
  set: 'set per Service',
  assumed: 'assumed',
};

/** "measured with zone-resolved flows for 9 of 13 Services (92 % of the GB), assumed for 4 (8 % of the GB)." */
export function sourcesSentence(report: ClusterTrafficReport): string {
  const total = SOURCE_ORDER.reduce((sum, kind) => sum + report.sources[kind].gbPerMonth, 0);
  const parts = SOURCE_ORDER.filter((kind) => report.sources[kind].services > 0).map((kind, i) => {
    const { services, gbPerMonth } = report.sources[kind];
    const count = i === 0 ? `${services} of ${plural(report.services, 'Service')}` : String(services);
    const fraction = total > 0 ? gbPerMonth / total : 0;
    const share = total > 0 ? ` (${fraction > 0 && fraction < 0.005 ? '< 1 %' : formatPercent(fraction, 0)} of the GB)` : '';
    return `${SOURCE_PHRASE[kind]} for ${count}${share}`;
  });
  return parts.length === 0 ? 'no Service is counted.' : `${parts.join(', ')}.`;
}

function measuredServices(report: ClusterTrafficReport): number {
  return report.sources['measured-flows'].services + report.sources['measured-pod-bytes'].services;
}

const SCENARIO_TITLES: Readonly<Record<ClusterTrafficScenario, string>> = {
  now: 'Now',
  expected: 'After the controller’s next sync',
  best: 'Best achievable (sync, Auto or each Service’s smallest fix)',
};

function Totals({ report }: { readonly report: ClusterTrafficReport }) {
  const saving = (scenario: ClusterTrafficScenario) => (scenario === 'now' ? null : scenario === 'expected' ? report.saving.expected : report.saving.best);
  return (
    <dl className="grid gap-3 sm:grid-cols-3">
      {(['now', 'expected', 'best'] as const).map((scenario) => {
        const totals = report.totals[scenario];
        const saved = saving(scenario);
        return (
          <div key={scenario} className="min-w-0 rounded-md border border-slate-200 p-3 dark:border-slate-800" data-scenario={scenario}>
            <dt className="text-xs font-medium uppercase tracking-wide text-slate-600 dark:text-slate-400">{SCENARIO_TITLES[scenario]}</dt>
            <dd className="mt-1 text-2xl font-semibold tabular-nums">
              {formatUsd(totals.monthlyCost)}
              <span className="text-sm font-normal text-slate-600 dark:text-slate-400">/month</span>
            </dd>
            <dd className="text-sm tabular-nums">
              {formatGb(totals.crossZoneGbPerMonth)} cross-zone a month
              <span className="text-slate-600 dark:text-slate-400">
                {' '}
                ({formatPercent(totals.crossZoneFraction)} of {formatGb(totals.gbPerMonth)})
              </span>
            </dd>
            {saved === null ? null : (
              <dd className={`text-sm font-medium ${saved > 0.005 ? 'text-emerald-800 dark:text-emerald-300' : 'text-slate-600 dark:text-slate-400'}`}>
                {saved > 0.005 ? `saves ${formatUsd(saved)}/month` : 'saves nothing'}
              </dd>
            )}
          </div>
        );
      })}
    </dl>
  );
}

function Sources({ traffic }: { readonly traffic: ClusterTraffic }) {
  const { report, status } = traffic;
  const measured = measuredServices(report);
  const settingsError = (status as TrafficStatus).settingsError ?? null;
  return (
    <div className="space-y-1 text-sm" data-testid="zone-traffic-sources">
      <p>
        <span className="font-medium">Price:</span> {priceSentence(report.pricing)}.
      </p>
      {settingsError !== null ? <p className="text-xs font-medium text-amber-800 dark:text-amber-300">{settingsError}</p> : null}
      <p>
        <span className="font-medium">Where the volumes come from:</span> {sourcesSentence(report)}
      </p>
      {report.sourceNotes.length > 0 ? (
        <ul className="list-disc space-y-0.5 pl-5 text-xs text-slate-700 [overflow-wrap:anywhere] dark:text-slate-300">
          {report.sourceNotes.map((note) => (
            <li key={note}>{note}</li>
          ))}
        </ul>
      ) : null}
      {measured > 0 && report.measuredAt ? <p className="text-xs text-slate-600 dark:text-slate-400">Measured at {formatTimestamp(report.measuredAt)} (rate over {status.window}).</p> : null}
      {report.reconciliation !== null ? (
        <p className={`text-xs ${report.reconciliation.agrees ? 'text-slate-600 dark:text-slate-400' : 'font-medium text-amber-800 dark:text-amber-300'}`} data-testid="zone-traffic-reconciliation">
          {report.reconciliation.note}
        </p>
      ) : null}
      {report.loadBalancer !== null ? (
        <p data-testid="zone-traffic-load-balancer">
          <span className="font-medium">Load balancers (north-south, not in the totals above):</span> {formatUsd(report.loadBalancer.monthlyCost)}/month for{' '}
          {formatGb(report.loadBalancer.crossZoneGbPerMonth)} of {formatGb(report.loadBalancer.gbPerMonth)} from outside the cluster that NLB cross-zone load balancing sends to another zone ({plural(report.loadBalancer.services, 'Service')}).
        </p>
      ) : null}
      {report.quality && report.quality.notes.length > 0 ? (
        <details className="text-xs text-slate-600 dark:text-slate-400">
          <summary className="cursor-pointer">Data quality ({plural(report.quality.notes.length, 'note')})</summary>
          <ul className="mt-1 list-disc space-y-0.5 pl-4">
            {report.quality.notes.map((note) => (
              <li key={note}>{note}</li>
            ))}
          </ul>
        </details>
      ) : null}
    </div>
  );
}

/** What the figures rest on when nothing is measured, or why a configured Prometheus is not used right now. */
function MeasurementCallout({ traffic }: { readonly traffic: ClusterTraffic }) {
  const { report, status } = traffic;
  const measured = measuredServices(report);
  const failing = status.state === 'unreachable' || status.state === 'error' || status.state === 'no-series' || status.state === 'stale';
  if (status.state === 'no-zones') {
    return (
      <Callout tone="warn" title="Flows are measured without zones: cross-zone traffic is not measured">
        <p>{status.message}</p>
        {status.hint ? <p>{status.hint}</p> : null}
      </Callout>
    );
  }
  if (measured === 0) {
    return (
      <Callout tone={failing ? 'warn' : 'info'} title="Nothing is measured: every volume here is assumed">
        {failing || status.state === 'pending' ? <p>{status.message}</p> : null}
        <p>
          The figures rest on the assumption above, not on traffic anyone measured: a Service that moves more or less than assumed is over- or under-counted.
        </p>
        {status.state === 'not-configured' ? (
          <p>
            {status.hint ?? (
              <>
                To measure: set <Code>ZONESCOPE_PROMETHEUS_URL</Code> to a Prometheus that scrapes Beyla network metrics (<Code>beyla_network_flow_bytes_total</Code>) or cAdvisor&apos;s{' '}
                <Code>container_network_*_bytes_total</Code>; docs/traffic.md has the queries.
              </>
            )}
          </p>
        ) : status.hint ? (
          <p>{status.hint}</p>
        ) : null}
      </Callout>
    );
  }
  if (failing) {
    return (
      <Callout tone="warn" title="Measured traffic is not current">
        <p>{status.message}</p>
      </Callout>
    );
  }
  return null;
}

function Fix({ item }: { readonly item: ServiceTrafficCost }) {
  return item.fix ? (
    <span>
      <span className="text-slate-600 dark:text-slate-400">Smallest fix:</span> {item.fix}
      {item.fixSaving !== null && item.fixSaving > 0.005 ? <span className="text-emerald-800 dark:text-emerald-300"> (saves {formatUsd(item.fixSaving)}/month)</span> : null}
    </span>
  ) : (
    <span className="text-slate-600 dark:text-slate-400">No fix does better than now.</span>
  );
}

/** How a Service's best cost is reached. */
const BEST_HOW: Readonly<Record<ServiceTrafficCost['bestScenario'], string>> = {
  now: '',
  expected: ' (at the controller’s next sync)',
  ifAuto: ' (with topology mode Auto)',
  fix: ' (with its smallest fix)',
};

function ServiceLink({ item }: { readonly item: ServiceTrafficCost }) {
  return (
    <ClusterLink href={serviceHref(item.namespace, item.name)} className={`${LINK} font-mono text-sm [overflow-wrap:anywhere]`}>
      {item.namespace}/{item.name}
    </ClusterLink>
  );
}

function Volume({ item }: { readonly item: ServiceTrafficCost }) {
  return (
    <span className="inline-flex items-center gap-1">
      {formatGb(item.volume.gbPerMonth)}/month
      <VolumeSourceMarker kind={item.volume.source.kind} title={item.volume.source.label} />
      <span className="sr-only">({item.volume.source.label || VOLUME_SOURCE[item.volume.source.kind].title})</span>
    </span>
  );
}

function TopByCost({ items }: { readonly items: readonly ServiceTrafficCost[] }) {
  return (
    <section aria-labelledby="zone-traffic-top-cost" className="min-w-0">
      <h3 id="zone-traffic-top-cost" className="mb-1 text-xs font-medium uppercase tracking-wide text-slate-600 dark:text-slate-400">
        Top Services by cross-zone $
      </h3>
      {items.length === 0 ? (
        <p className="text-sm text-slate-600 dark:text-slate-400">No Service sends traffic across zones.</p>
      ) : (
        <ol className="space-y-2">
          {items.slice(0, TOP).map((item) => (
            <li key={`${item.namespace}/${item.name}`} className="min-w-0 text-sm">
              <div className="flex flex-wrap items-baseline justify-between gap-x-2">
                <ServiceLink item={item} />
                <span className="font-semibold tabular-nums">{formatUsd(item.monthlyCost)}/month</span>
              </div>
              <div className="flex flex-wrap gap-x-2 text-xs text-slate-700 dark:text-slate-300">
                <Volume item={item} />
                <span>
                  {formatPercent(item.crossZoneFraction)} cross-zone{item.volume.source.kind === 'measured-flows' ? ' (measured)' : ''}
                </span>
              </div>
              <div className="text-xs">
                <Fix item={item} />
              </div>
            </li>
          ))}
        </ol>
      )}
    </section>
  );
}

function TopBySaving({ items }: { readonly items: readonly ServiceTrafficCost[] }) {
  return (
    <section aria-labelledby="zone-traffic-top-saving" className="min-w-0">
      <h3 id="zone-traffic-top-saving" className="mb-1 text-xs font-medium uppercase tracking-wide text-slate-600 dark:text-slate-400">
        Top savings if fixed
      </h3>
      {items.length === 0 ? (
        <p className="text-sm text-slate-600 dark:text-slate-400">No fix would lower the cross-zone cost.</p>
      ) : (
        <ol className="space-y-2">
          {items.slice(0, TOP).map((item) => (
            <li key={`${item.namespace}/${item.name}`} className="min-w-0 text-sm">
              <div className="flex flex-wrap items-baseline justify-between gap-x-2">
                <ServiceLink item={item} />
                <span className="font-semibold tabular-nums text-emerald-800 dark:text-emerald-300">saves {formatUsd(item.saving)}/month</span>
              </div>
              <div className="text-xs text-slate-700 dark:text-slate-300">
                {formatUsd(item.monthlyCost)} → {formatUsd(item.bestMonthlyCost)} a month{BEST_HOW[item.bestScenario]}
              </div>
              <div className="text-xs">
                <Fix item={item} />
              </div>
            </li>
          ))}
        </ol>
      )}
    </section>
  );
}

export function ZoneTraffic({ traffic }: { readonly traffic: ClusterTraffic | null }) {
  if (traffic === null) {
    return <p className="text-sm text-slate-600 dark:text-slate-400">The traffic figures are computed after the first sync of the cluster.</p>;
  }
  const { report } = traffic;
  if (report.services === 0) {
    return <p className="text-sm text-slate-600 dark:text-slate-400">No Service to count: this cluster has no Services with endpoints.</p>;
  }
  return (
    <div className="space-y-4">
      <Totals report={report} />
      <Sources traffic={traffic} />
      <MeasurementCallout traffic={traffic} />
      <div className="grid gap-5 lg:grid-cols-5">
        <div className="min-w-0 lg:col-span-3">
          <ZoneTrafficFlows data={{ zones: report.zones, flows: report.flows, totals: report.totals }} />
        </div>
        <div className="min-w-0 space-y-4 lg:col-span-2">
          <TopByCost items={report.topByCost} />
          <TopBySaving items={report.topBySaving} />
          <p className="text-sm">
            <ClusterLink href="/services?sort=cost&order=desc" className={LINK}>
              Every Service by cross-zone $
            </ClusterLink>
          </p>
        </div>
      </div>
    </div>
  );
}

