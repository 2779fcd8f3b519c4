/**
 * Rule-count estimates per kube-proxy mode: one table with the modes side by side, one row per
 * unit (netfilter rules, chains, set elements, IPVS servers — each compared only with itself), the
 * projection at ten times the Services, and the per-line breakdown with formulas and the counting
 * model behind a disclosure.
 */
import type { ReactNode } from 'react';
import type { RuleEstimate, RuleEstimates } from '@/lib/topology/analyses/rule-estimates';
import { formatCount, formatDecimal } from '../ui/format';
import { Formula } from '../ui/panel';
import { Badge } from '../ui/status';

const MODE_NAME = { iptables: 'iptables', ipvs: 'IPVS', nftables: 'nftables' } as const;
/** The projection's factor: how each mode grows with ten times the Services. */
const FACTOR = 10;

/** The fixed part of a mode's netfilter rules (the first breakdown line; IPVS: all of its iptables rules). */
function fixedRules(e: RuleEstimate): number {
  return e.mode === 'ipvs' ? e.netfilterRules : (e.breakdown[0]?.count ?? 0);
}

/**
 * The comparison table's rows: one unit each, so every row compares like with like across the
 * modes (a mode without that kind of state shows 0).
 */
export function ruleComparisonRows(estimates: readonly RuleEstimate[]): readonly { readonly unit: string; readonly values: readonly string[] }[] {
  const row = (unit: string, value: (e: RuleEstimate) => string) => ({ unit, values: estimates.map(value) });
  return [
    row('Netfilter rules (iptables / nft)', (e) => formatCount(e.netfilterRules)),
    row('Chains', (e) => formatCount(e.chains)),
    row('ipset / nft set elements', (e) => formatCount(e.setElements)),
    row('IPVS virtual servers', (e) => formatCount(e.ipvsVirtualServers)),
    row('IPVS real servers', (e) => formatCount(e.ipvsRealServers)),
    row(`Netfilter rules at ${FACTOR}× the Services`, (e) => formatCount(fixedRules(e) + (e.netfilterRules - fixedRules(e)) * FACTOR)),
    row(`Set elements at ${FACTOR}× the Services`, (e) => formatCount(e.setElements * FACTOR)),
    row('Per-packet lookup', (e) => (e.mode === 'iptables' ? 'linear in Services' : e.mode === 'ipvs' ? 'constant (hash)' : 'constant (map)')),
  ];
}

function ModeHeader({ mode, current }: { readonly mode: RuleEstimate['mode']; readonly current: boolean }): ReactNode {
  return (
    <th scope="col" className={`py-1.5 pl-3 text-right align-bottom font-medium normal-case ${current ? 'bg-sky-50 dark:bg-sky-950/40' : ''}`}>
      {current ? <span className="block text-xs font-semibold text-sky-800 dark:text-sky-300">this cluster</span> : null}
      {MODE_NAME[mode]}
    </th>
  );
}

export function RuleEstimatesView({ estimates }: { readonly estimates: RuleEstimates }) {
  const i = estimates.inputs;
  const modes = estimates.estimates;
  return (
    <div className="space-y-4">
      <p className="text-sm">
        For this cluster&apos;s {formatCount(i.services)} Services ({formatCount(i.servicePorts)} ports, {formatCount(i.endpoints)} endpoints, {formatDecimal(i.endpointsPerNode, 1)}{' '}
        endpoints per node after topology narrowing, {formatCount(i.nodePorts)} NodePorts, {formatCount(i.externalAddresses)} external addresses) on {formatCount(i.nodes)} nodes.
        Figures are per node: every node programs every Service.
      </p>
      <div className="overflow-x-auto">
        <table className="w-full text-sm" data-testid="rule-comparison">
          <caption className="mb-1 text-left text-xs text-slate-600 dark:text-slate-400">
            Per-node kernel state in each mode, one kind per row. The kinds differ in cost and are not added up: IPVS keeps its per-endpoint state in IPVS real servers and ipsets, not in
            netfilter rules.
          </caption>
          <thead>
            <tr className="border-b border-slate-200 text-left text-xs uppercase tracking-wide text-slate-600 dark:border-slate-700 dark:text-slate-400">
              <th scope="col" className="py-1.5 pr-3 font-medium">Per node</th>
              {modes.map((e) => (
                <ModeHeader key={e.mode} mode={e.mode} current={e.mode === estimates.currentMode} />
              ))}
            </tr>
          </thead>
          <tbody>
            {ruleComparisonRows(modes).map((row) => (
              <tr key={row.unit} className="border-b border-slate-100 align-top last:border-0 dark:border-slate-800">
                <th scope="row" className="py-1.5 pr-3 text-left font-normal">
                  {row.unit}
                </th>
                {row.values.map((value, index) => (
                  <td key={modes[index]?.mode} className={`py-1.5 pl-3 text-right tabular-nums ${modes[index]?.mode === estimates.currentMode ? 'bg-sky-50 dark:bg-sky-950/40' : ''}`}>
                    {value}
                  </td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <Formula>
        at {FACTOR}× = fixed part + (estimate − fixed part) × {FACTOR}, with the same ports and endpoints per Service: a rough scaling of this cluster&apos;s shape, not a new estimate.
      </Formula>
      <details className="rounded-md border border-slate-200 p-3 dark:border-slate-700">
        <summary className="cursor-pointer text-sm font-semibold">How each count is made up: per-mode breakdown with formulas, and the counting model</summary>
        <div className="mt-3 space-y-4">
          <Breakdown estimates={estimates} />
          <CountingModel notes={estimates.notes} />
        </div>
      </details>
    </div>
  );
}

/** Each mode's count line by line, with the formula of every line and how a packet is looked up. */
function Breakdown({ estimates }: { readonly estimates: RuleEstimates }) {
  return (
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
        </div>
      ))}
    </div>
  );
}

function CountingModel({ notes }: { readonly notes: readonly string[] }) {
  return (
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
      {notes.map((note) => (
        <Formula key={note}>{note}</Formula>
      ))}
    </div>
  );
}
