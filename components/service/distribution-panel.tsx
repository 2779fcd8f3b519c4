/**
 * The "Endpoint distribution and per-zone minimums" panel: the per-zone minimum table only where
 * the `Auto` heuristic's allocation decides the hints (topology-mode / the legacy annotation, or
 * nothing asked yet — then it is what `Auto` would need), and one line saying why it is absent
 * otherwise: trafficDistribution hints every endpoint for its own zone, a Service the EndpointSlice
 * controller does not manage gets no allocation, a cluster without CPU ratios has none.
 */
import type { ServiceDetail } from '@/lib/topology/report/analysis-schema';
import { Callout } from '../ui/status';
import { DistributionChart } from './distribution-chart';
import { MinimumTable } from './minimum-table';

/** Why the minimum table is not shown, or `null` when it is. */
export function minimumTableAbsence(detail: ServiceDetail): { readonly title: string; readonly text: string } | null {
  const e = detail.expected;
  if (!e.applicable) return { title: 'No per-zone minimums', text: `${e.verdict} No allocation applies.` };
  if (detail.mechanism === 'trafficDistribution') {
    return {
      title: 'No per-zone minimums',
      text: `trafficDistribution: ${detail.mechanismDetail.trafficDistribution ?? ''} hints every ready endpoint for its own zone; the per-zone minimum, the overload threshold and Auto's other rules do not apply.`,
    };
  }
  if (!detail.minimumTable) {
    return { title: 'No per-zone minimums', text: 'The cluster has no CPU ratios (see the Overview\u2019s eligibility verdict), so the controller cannot allocate endpoints to zones.' };
  }
  return null;
}

export function DistributionPanel({ detail }: { readonly detail: ServiceDetail }) {
  const absent = minimumTableAbsence(detail);
  if (absent === null && detail.minimumTable) {
    const table = detail.minimumTable;
    return (
      <div className="grid gap-5 lg:grid-cols-5">
        <div className="min-w-0 lg:col-span-2">
          <DistributionChart data={table.rows.map((r) => ({ zone: r.zone, ready: r.readyEndpoints, minimum: r.minimum, desired: r.desired, maximum: r.maximum }))} fits={table.fits} />
        </div>
        <div className="min-w-0 lg:col-span-3">
          {detail.mechanism === 'none' ? (
            <p className="mb-2 text-sm text-slate-700 dark:text-slate-300">Nothing asks for hints yet: these are the minimums topology mode Auto would need.</p>
          ) : null}
          <MinimumTable table={table} />
        </div>
      </div>
    );
  }
  return (
    <div className="space-y-3">
      <Callout tone="neutral" title={absent?.title ?? 'No per-zone minimums'}>
        <p>{absent?.text}</p>
      </Callout>
      {detail.endpoints.length > 0 ? (
        <DistributionChart data={Object.entries(detail.observed.endpointsByZone).map(([zone, c]) => ({ zone, ready: c.ready, minimum: null, desired: null, maximum: null }))} fits={null} />
      ) : null}
    </div>
  );
}
