/** Rule-count estimates per kube-proxy mode with the counting model and per-line formulas. */
import type { RuleEstimates } from '@/lib/topology/analyses/rule-estimates';
import { RuleCountChart } from './rule-count-chart';
import { formatCount, formatDecimal } from '../ui/format';
import { Formula } from '../ui/panel';
import { Badge } from '../ui/status';

const MODE_NAME = { iptables: 'iptables', ipvs: 'IPVS', nftables: 'nftables' } as const;

export function RuleEstimatesView({ estimates }: { readonly estimates: RuleEstimates }) {
  const i = estimates.inputs;
  return (
    <div className="space-y-4">
      <p className="text-sm">
        For this cluster&apos;s {formatCount(i.services)} Services ({formatCount(i.servicePorts)} ports, {formatCount(i.endpoints)} endpoints, {formatDecimal(i.endpointsPerNode, 1)}{' '}
        endpoints per node after topology narrowing, {formatCount(i.nodePorts)} NodePorts, {formatCount(i.externalAddresses)} external addresses) on {formatCount(i.nodes)} nodes.
        Figures are per node: every node programs every Service.
      </p>
      <RuleCountChart
        data={estimates.estimates.map((e) => ({ mode: e.mode, netfilterRules: e.netfilterRules, chains: e.chains, setElements: e.setElements, ipvsRealServers: e.ipvsRealServers }))}
        currentMode={estimates.currentMode}
      />
      <div className="grid gap-4 lg:grid-cols-3">
        {estimates.estimates.map((e) => (
          <div key={e.mode} className={`space-y-2 rounded-md border p-3 ${e.mode === estimates.currentMode ? 'border-sky-400 dark:border-sky-600' : 'border-slate-200 dark:border-slate-700'}`}>
            <h3 className="flex items-center gap-2 text-sm font-semibold">
              {MODE_NAME[e.mode]} {e.mode === estimates.currentMode ? <Badge tone="info">this cluster</Badge> : null}
            </h3>
            <p className="text-xs text-slate-700 dark:text-slate-300">
              <strong>Lookup:</strong> {e.lookup}
            </p>
            <table className="w-full text-xs">
              <caption className="sr-only">{MODE_NAME[e.mode]} breakdown</caption>
              <thead>
                <tr className="text-left uppercase tracking-wide text-slate-600 dark:text-slate-400">
                  <th scope="col" className="py-1 pr-2 font-medium">Item</th>
                  <th scope="col" className="py-1 pr-2 text-right font-medium">Count</th>
                </tr>
              </thead>
              <tbody>
                {e.breakdown.map((line) => (
                  <tr key={line.item} className="border-t border-slate-100 align-top dark:border-slate-800">
                    <th scope="row" className="py-1 pr-2 text-left font-normal">
                      {line.item}
                      <span className="block font-mono text-[11px] text-slate-600 dark:text-slate-400">{line.formula}</span>
                    </th>
                    <td className="py-1 pr-2 text-right tabular-nums">{formatCount(line.count)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
            <p className="text-xs">
              Total: <strong>{formatCount(e.netfilterRules)}</strong> netfilter rules in {formatCount(e.chains)} chains
              {e.setElements > 0 ? `, ${formatCount(e.setElements)} set elements` : ''}
              {e.ipvsVirtualServers > 0 ? `, ${formatCount(e.ipvsVirtualServers)} IPVS virtual / ${formatCount(e.ipvsRealServers)} real servers` : ''}.
            </p>
          </div>
        ))}
      </div>
      <Growth estimates={estimates} />
      <div className="space-y-1">
        <h3 className="text-sm font-semibold">Counting model</h3>
        <ul className="list-disc space-y-0.5 pl-5 text-xs text-slate-700 dark:text-slate-300">
          <li>
            <strong>iptables</strong>: per Service port with endpoints, a KUBE-SERVICES entry (+1 per external address), a KUBE-SVC chain with a masquerade
            rule and one probability rule per endpoint, and one KUBE-SEP chain of 2 rules per endpoint; the first packet walks KUBE-SERVICES linearly,
            so cost grows with Services.
          </li>
          <li>
            <strong>IPVS</strong>: a constant ~40 iptables rules matching ipsets; per port one IPVS virtual server (plus NodePorts and external addresses)
            with one real server per endpoint; lookups are hash tables.
          </li>
          <li>
            <strong>nftables</strong>: per port a service chain of 2 rules and 2 rules per endpoint chain; dispatch is one verdict-map lookup whatever the
            number of Services.
          </li>
          <li>Topology hints shrink &quot;endpoints per node&quot;: each node programs only the endpoints hinted for its zone.</li>
        </ul>
        {estimates.notes.map((note) => (
          <Formula key={note}>{note}</Formula>
        ))}
      </div>
    </div>
  );
}

/** How each mode grows when the cluster has ten times the Services (same shape per Service). */
function Growth({ estimates }: { readonly estimates: RuleEstimates }) {
  const FACTOR = 10;
  return (
    <div className="space-y-1">
      <h3 className="text-sm font-semibold">With {FACTOR}× the Services (same ports and endpoints per Service)</h3>
      <table className="w-full text-sm">
        <caption className="sr-only">Projected per-node rules at ten times the Services</caption>
        <thead>
          <tr className="border-b border-slate-200 text-left text-xs uppercase tracking-wide text-slate-600 dark:border-slate-700 dark:text-slate-400">
            <th scope="col" className="py-1 pr-3 font-medium">Mode</th>
            <th scope="col" className="py-1 pr-3 text-right font-medium">Netfilter rules now</th>
            <th scope="col" className="py-1 pr-3 text-right font-medium">At {FACTOR}×</th>
            <th scope="col" className="py-1 pr-3 text-right font-medium">Set elements at {FACTOR}×</th>
            <th scope="col" className="py-1 font-medium">Per-packet lookup</th>
          </tr>
        </thead>
        <tbody>
          {estimates.estimates.map((e) => {
            // The first breakdown line is the fixed part (IPVS: all of its iptables rules are fixed).
            const fixed = e.mode === 'ipvs' ? e.netfilterRules : (e.breakdown[0]?.count ?? 0);
            return (
              <tr key={e.mode} className="border-b border-slate-100 last:border-0 dark:border-slate-800">
                <th scope="row" className="py-1 pr-3 text-left font-normal">{MODE_NAME[e.mode]}</th>
                <td className="py-1 pr-3 text-right tabular-nums">{formatCount(e.netfilterRules)}</td>
                <td className="py-1 pr-3 text-right tabular-nums">{formatCount(fixed + (e.netfilterRules - fixed) * FACTOR)}</td>
                <td className="py-1 pr-3 text-right tabular-nums">{formatCount(e.setElements * FACTOR)}</td>
                <td className="py-1 text-xs">{e.mode === 'iptables' ? 'grows linearly with Services' : 'constant (hash / map lookup)'}</td>
              </tr>
            );
          })}
        </tbody>
      </table>
      <Formula>projection = fixed part + (estimate − fixed part) × {FACTOR}; a rough scaling of this cluster&apos;s shape, not a new estimate.</Formula>
    </div>
  );
}
