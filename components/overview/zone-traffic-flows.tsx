'use client';

/**
 * The cluster's zone → zone traffic for one scenario at a time (now / after the controller's next
 * sync / best achievable): a Sankey (from `sm` up; on phones the table alone says it) and the
 * matrix as a table — client zone rows, endpoint zone columns, GB per month, same-zone cells
 * marked ✓ and cross-zone cells highlighted, with each client zone's cross-zone total.
 */
import { useEffect, useState } from 'react';
import type { ClusterTrafficScenario, TrafficTotals } from '@/lib/topology/analyses/traffic-volume';
import { UNKNOWN_ZONE } from '@/lib/topology/analyses/traffic';
import type { ValueByZone } from '@/lib/topology/upstream/types';
import { formatPercent, formatUsd, shortZoneName } from '../ui/format';
import { ZoneTrafficChart } from './zone-traffic-chart';
import { formatGb, formatGbValue } from './zone-traffic-source';

/** The scenarios in the switch's order, with their names. */
export const SCENARIO_LABELS: Readonly<Record<ClusterTrafficScenario, string>> = {
  now: 'Now',
  expected: 'After next sync',
  best: 'Best achievable',
};
const SCENARIOS: readonly ClusterTrafficScenario[] = ['now', 'expected', 'best'];

/** Cells under this many GB per month read as empty. */
const CELL_LOW = 0.05;

export interface ZoneTrafficFlowsData {
  readonly zones: readonly string[];
  readonly flows: Readonly<Record<ClusterTrafficScenario, Readonly<ValueByZone<ValueByZone<number>>>>>;
  readonly totals: Readonly<Record<ClusterTrafficScenario, TrafficTotals>>;
}

function zoneName(zone: string): string {
  return zone === UNKNOWN_ZONE ? 'no zone' : zone;
}

/** A zone's name in the table: whole from `sm` up; on phones without the shared region prefix (screen readers hear it whole). */
function ZoneLabel({ zones, zone }: { readonly zones: readonly string[]; readonly zone: string }) {
  const short = zone === UNKNOWN_ZONE ? 'no zone' : shortZoneName(zones, zone, UNKNOWN_ZONE);
  if (short === zoneName(zone)) return <>{short}</>;
  return (
    <>
      <span className="sm:hidden" aria-hidden="true">
        {short}
      </span>
      <span className="sr-only sm:not-sr-only">{zoneName(zone)}</span>
    </>
  );
}

function MatrixTable({ data, scenario }: { readonly data: ZoneTrafficFlowsData; readonly scenario: ClusterTrafficScenario }) {
  const matrix = data.flows[scenario];
  const cell = (from: string, to: string) => matrix[from]?.[to] ?? 0;
  const totals = data.totals[scenario];
  return (
    <div className="overflow-x-auto" role="region" aria-label="Zone traffic matrix" tabIndex={0}>
      <table className="w-full text-xs sm:text-sm">
        <caption className="mb-1 text-left text-xs text-slate-600 dark:text-slate-400">
          {SCENARIO_LABELS[scenario]}: GB per month from each client zone (rows) to each endpoint zone (columns). Same-zone cells are marked ✓, cross-zone cells are highlighted.
        </caption>
        <thead>
          <tr className="border-b border-slate-200 text-xs uppercase tracking-wide text-slate-600 dark:border-slate-700 dark:text-slate-400">
            <th scope="col" className="py-1.5 pr-3 text-left font-medium">
              Client zone
            </th>
            {data.zones.map((zone) => (
              <th key={zone} scope="col" className="whitespace-nowrap px-1.5 py-1.5 text-right font-mono font-medium normal-case sm:px-2">
                → <ZoneLabel zones={data.zones} zone={zone} />
              </th>
            ))}
            <th scope="col" className="px-1.5 py-1.5 text-right font-medium sm:px-2">
              Cross-zone
            </th>
          </tr>
        </thead>
        <tbody>
          {data.zones.map((from) => {
            const crossGb = data.zones.reduce((sum, to) => (to === from ? sum : sum + cell(from, to)), 0);
            return (
              <tr key={from} className="border-b border-slate-100 last:border-0 dark:border-slate-800">
                <th scope="row" className="whitespace-nowrap py-1.5 pr-3 text-left font-mono font-normal">
                  <ZoneLabel zones={data.zones} zone={from} />
                </th>
                {data.zones.map((to) => {
                  const gb = cell(from, to);
                  const same = from === to;
                  const cls =
                    gb < CELL_LOW
                      ? 'text-slate-500 dark:text-slate-400'
                      : same
                        ? 'text-slate-700 dark:text-slate-300'
                        : 'bg-amber-50 font-medium text-amber-900 dark:bg-amber-950/60 dark:text-amber-100';
                  return (
                    <td key={to} className={`whitespace-nowrap px-1.5 py-1.5 text-right tabular-nums sm:px-2 ${cls}`}>
                      {same && gb >= CELL_LOW ? <span aria-hidden="true">✓ </span> : null}
                      {formatGbValue(gb)}
                      {same ? <span className="sr-only"> same zone</span> : gb >= CELL_LOW ? <span className="sr-only"> cross-zone</span> : null}
                    </td>
                  );
                })}
                <td className="whitespace-nowrap px-1.5 py-1.5 text-right font-medium tabular-nums sm:px-2">{formatGbValue(crossGb)}</td>
              </tr>
            );
          })}
        </tbody>
        <tfoot>
          <tr className="border-t border-slate-300 text-sm dark:border-slate-600">
            <th scope="row" className="py-1.5 pr-3 text-left font-medium">
              Total
            </th>
            <td colSpan={data.zones.length} className="px-2 py-1.5 text-right tabular-nums text-slate-700 dark:text-slate-300">
              {formatGb(totals.gbPerMonth)} in all
            </td>
            <td className="px-2 py-1.5 text-right font-semibold tabular-nums">
              {formatGbValue(totals.crossZoneGbPerMonth)}{' '}
              <span className="block whitespace-nowrap font-normal text-slate-600 sm:inline dark:text-slate-400">({formatPercent(totals.crossZoneFraction)})</span>
            </td>
          </tr>
        </tfoot>
      </table>
    </div>
  );
}

export function ZoneTrafficFlows({ data }: { readonly data: ZoneTrafficFlowsData }) {
  const [scenario, setScenario] = useState<ClusterTrafficScenario>('now');
  // Set once React handles the switch (the server-rendered switch looks the same before).
  const [interactive, setInteractive] = useState(false);
  useEffect(() => setInteractive(true), []);
  const totals = data.totals[scenario];
  const summary = data.zones
    .flatMap((from) => data.zones.map((to) => ({ from, to, gb: data.flows[scenario][from]?.[to] ?? 0 })))
    .filter((flow) => flow.gb >= CELL_LOW)
    .map((flow) => `${zoneName(flow.from)} to ${zoneName(flow.to)}: ${formatGb(flow.gb)}${flow.from === flow.to ? ' (same zone)' : ' (cross-zone)'}`)
    .join('; ');
  return (
    <div className="space-y-3">
      <fieldset className="flex flex-wrap items-center gap-x-3 gap-y-1" data-interactive={interactive ? 'true' : undefined}>
        <legend className="sr-only">Scenario of the flows</legend>
        <span className="text-xs font-medium uppercase tracking-wide text-slate-600 dark:text-slate-400" aria-hidden="true">
          Flows
        </span>
        <div className="inline-flex overflow-hidden rounded-md border border-slate-300 dark:border-slate-600">
          {SCENARIOS.map((s) => (
            <label
              key={s}
              className={`relative cursor-pointer border-l border-slate-300 px-2.5 py-1 text-xs first:border-l-0 focus-within:outline focus-within:outline-2 focus-within:outline-sky-600 dark:border-slate-600 ${
                s === scenario ? 'bg-slate-800 text-white dark:bg-slate-200 dark:text-slate-900' : 'bg-white text-slate-800 hover:bg-slate-50 dark:bg-slate-900 dark:text-slate-200 dark:hover:bg-slate-800'
              }`}
            >
              <input type="radio" name="zone-traffic-scenario" value={s} checked={s === scenario} onChange={() => setScenario(s)} className="absolute inset-0 m-0 h-full w-full cursor-pointer appearance-none opacity-0" />
              {SCENARIO_LABELS[s]}
            </label>
          ))}
        </div>
        <span className="text-xs text-slate-600 dark:text-slate-400" aria-live="polite">
          {formatGb(totals.crossZoneGbPerMonth)} cross-zone · {formatUsd(totals.monthlyCost)}/month
        </span>
      </fieldset>
      <div className="hidden sm:block">
        <p className="mb-1 flex flex-wrap gap-x-4 text-xs text-slate-600 dark:text-slate-400" aria-hidden="true">
          <span>client zone → endpoint zone</span>
          <span>
            <span className="mr-1 inline-block h-2 w-4 rounded-sm bg-amber-600 align-middle dark:bg-amber-400" />
            cross-zone (billed)
          </span>
          <span>
            <span className="mr-1 inline-block h-2 w-4 rounded-sm bg-slate-400/50 align-middle dark:bg-slate-500/60" />
            same zone
          </span>
        </p>
        <ZoneTrafficChart
          zones={data.zones}
          matrix={data.flows[scenario]}
          label={`Zone traffic ${SCENARIO_LABELS[scenario].toLowerCase()}: client zone to endpoint zone, cross-zone links highlighted`}
          summary={summary || 'No traffic.'}
        />
      </div>
      <MatrixTable data={data} scenario={scenario} />
    </div>
  );
}
