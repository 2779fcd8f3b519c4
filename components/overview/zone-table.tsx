/** CPU ratio per zone as the topology cache computes it, with the formula. */
import type { ClusterReport } from '@/lib/topology/report/analysis-schema';
import { formatCpu, formatPercent, formatRatio } from '../ui/format';
import { Formula } from '../ui/panel';

export function ZoneRatioTable({ cluster }: { readonly cluster: ClusterReport }) {
  const total = cluster.totalCpuMillis;
  return (
    <div className="space-y-2">
      <div className="overflow-x-auto" tabIndex={0} role="region" aria-label="Zone CPU ratios, scrollable sideways">
        <table className="w-full text-sm">
          <caption className="sr-only">CPU ratio per zone</caption>
          <thead>
            <tr className="border-b border-slate-200 text-left text-xs uppercase tracking-wide text-slate-600 dark:border-slate-700 dark:text-slate-400">
              <th scope="col" className="py-1.5 pr-3 font-medium">Zone</th>
              <th scope="col" className="py-1.5 pr-3 text-right font-medium">Nodes counted</th>
              <th scope="col" className="py-1.5 pr-3 text-right font-medium">Allocatable CPU</th>
              <th scope="col" className="py-1.5 pr-3 text-right font-medium">CPU ratio</th>
              <th scope="col" className="py-1.5 font-medium">Client traffic share</th>
            </tr>
          </thead>
          <tbody>
            {cluster.zones.map((zone) => (
              <tr key={zone.name} className="border-b border-slate-100 last:border-0 dark:border-slate-800">
                <th scope="row" className="whitespace-nowrap py-1.5 pr-3 text-left font-mono font-normal">{zone.name}</th>
                <td className="py-1.5 pr-3 text-right tabular-nums">
                  {zone.countedNodes} / {zone.nodes}
                  {zone.readyNodes < zone.nodes ? <span className="text-amber-800 dark:text-amber-300"> ({zone.nodes - zone.readyNodes} not Ready)</span> : null}
                </td>
                <td className="py-1.5 pr-3 text-right tabular-nums">{formatCpu(zone.cpuMillis)}</td>
                <td className="py-1.5 pr-3 text-right tabular-nums" title={zone.cpuRatio !== null ? `${zone.cpuMillis} / ${total} = ${zone.cpuRatio}` : undefined}>
                  {zone.cpuRatio !== null ? `${formatPercent(zone.cpuRatio)} (${formatRatio(zone.cpuRatio)})` : '—'}
                </td>
                <td className="py-1.5 tabular-nums">{formatPercent(cluster.clientShareByZone[zone.name] ?? null)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <Formula>
        ratio = allocatable CPU of the zone&apos;s counted nodes / {total}m (all counted nodes). Counted = Ready, not control-plane, with zone and CPU.
        Client traffic share: {cluster.clientShareSource === 'equal' ? 'split equally (no CPU information)' : 'proportional to zone CPU, the controller\u2019s own assumption'}.
      </Formula>
    </div>
  );
}

/** Nodes the topology cache does not count, with why (the accessible counterpart of the map's flags). */
export function FlaggedNodes({ cluster, limit = 100 }: { readonly cluster: ClusterReport; readonly limit?: number }) {
  const flagged = cluster.nodes.filter((n) => n.status !== 'counted').sort((a, b) => Number(b.disablesHints) - Number(a.disablesHints) || a.name.localeCompare(b.name));
  if (flagged.length === 0) return <p className="text-sm text-slate-700 dark:text-slate-300">Every node is counted: Ready workers with a zone label and allocatable CPU.</p>;
  const shown = flagged.slice(0, limit);
  return (
    <div className="overflow-x-auto" tabIndex={0} role="region" aria-label="Nodes not counted by the topology cache">
      <table className="w-full text-sm">
        <caption className="mb-1 text-left text-sm font-semibold">
          {flagged.length} node(s) not counted by the topology cache{flagged.length > limit ? ` (first ${limit} shown)` : ''}
        </caption>
        <thead>
          <tr className="border-b border-slate-200 text-left text-xs uppercase tracking-wide text-slate-600 dark:border-slate-700 dark:text-slate-400">
            <th scope="col" className="py-1.5 pr-3 font-medium">Node</th>
            <th scope="col" className="py-1.5 pr-3 font-medium">Zone</th>
            <th scope="col" className="py-1.5 pr-3 font-medium">Status</th>
            <th scope="col" className="py-1.5 font-medium">What the controller does</th>
          </tr>
        </thead>
        <tbody>
          {shown.map((node) => (
            <tr key={node.name} className="border-b border-slate-100 align-top last:border-0 dark:border-slate-800">
              <th scope="row" className="py-1.5 pr-3 text-left font-mono text-xs font-normal">{node.name}</th>
              <td className="py-1.5 pr-3 font-mono text-xs">{node.zone === null ? 'no label' : node.zone === '' ? '"" (empty)' : node.zone}</td>
              <td className="py-1.5 pr-3 text-xs">
                {STATUS_LABEL[node.status]}
                {node.disablesHints ? <strong className="block text-red-800 dark:text-red-300">disables hints cluster-wide</strong> : null}
                {node.disablesHintsWhenReady ? <span className="block text-amber-800 dark:text-amber-300">would disable hints once Ready</span> : null}
              </td>
              <td className="py-1.5 text-xs">{node.note}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

const STATUS_LABEL: Record<ClusterReport['nodes'][number]['status'], string> = {
  counted: 'counted',
  'excluded-control-plane': 'control plane (excluded)',
  'not-ready': 'not Ready (skipped)',
  'missing-zone': 'missing zone label',
  'missing-cpu': 'missing allocatable CPU',
};
