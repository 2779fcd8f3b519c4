'use client';

/**
 * Expected traffic of a Service: pick a scenario (now, after the sync, with Auto, without hints)
 * and see its client zone → endpoint zone matrix with cross-zone % (./traffic-panel-matrix.tsx),
 * kube-proxy's selection per zone, per-endpoint load against a fair share
 * (./traffic-panel-loads.tsx), and the monthly cross-zone cost with its what-if
 * (./traffic-panel-cost.tsx).
 */
import { useState } from 'react';
import type { TrafficScenario } from '@/lib/topology/analyses/traffic-scenarios';
import { formatPercent } from '../ui/format';
import type { TrafficScenarioView } from './traffic-data';
import type { CostRowView, TrafficVolumeView } from './traffic-panel-cost';
import { CostPanel } from './traffic-panel-cost';
import { EndpointLoads } from './traffic-panel-loads';
import { TrafficMatrix } from './traffic-panel-matrix';


export function TrafficPanel({
  namespace,
  name,
  version,
  scenarios,
  initialGb,
  initialPrice,
  volume,
  costRows,
}: {
  readonly namespace: string;
  readonly name: string;
  /** Changes with the page's data: a loaded per-endpoint list is fetched again. */
  readonly version: number;
  readonly scenarios: readonly TrafficScenarioView[];
  readonly initialGb: number;
  readonly initialPrice: number;
  /** The Service's own volume and its source (the inputs below are a what-if on top of it). */
  readonly volume: TrafficVolumeView;
  /** The cost table's rows: now, after the sync, Auto, without hints, and the smallest fix (each at the share it is priced at). */
  readonly costRows: readonly CostRowView[];
}) {
  const [selected, setSelected] = useState<TrafficScenario>('now');
  const s = scenarios.find((x) => x.id === selected) ?? scenarios[0];
  if (!s) return null;

  return (
    <div className="space-y-5">
      <fieldset>
        <legend className="mb-1 text-xs font-medium uppercase tracking-wide text-slate-600 dark:text-slate-400">Scenario</legend>
        <div className="flex flex-wrap gap-2">
          {scenarios.map((x) => (
            <label
              key={x.id}
              className={`cursor-pointer rounded-md border px-3 py-1.5 text-sm has-[:focus-visible]:outline has-[:focus-visible]:outline-2 has-[:focus-visible]:outline-sky-600 ${
                selected === x.id ? 'border-slate-900 bg-slate-900 font-semibold text-white dark:border-slate-100 dark:bg-slate-100 dark:text-slate-900' : 'border-slate-300 hover:bg-slate-100 dark:border-slate-600 dark:hover:bg-slate-800'
              }`}
            >
              <input type="radio" name="traffic-scenario" value={x.id} checked={selected === x.id} onChange={() => setSelected(x.id)} className="sr-only" />
              {x.label}: {formatPercent(x.crossZoneFraction)} cross-zone
            </label>
          ))}
        </div>
        <p className="mt-1 text-xs text-slate-600 dark:text-slate-400">{s.description}</p>
      </fieldset>

      {/* The scenario's cross-zone share is on its button above: said once. */}
      <dl className="grid grid-cols-3 gap-2">
        <div className="rounded-md border border-slate-200 p-2 dark:border-slate-800">
          <dt className="text-xs text-slate-600 dark:text-slate-400">Same zone</dt>
          <dd className="text-lg font-semibold tabular-nums sm:text-xl">{formatPercent(s.sameZoneFraction)}</dd>
        </div>
        <div className="rounded-md border border-slate-200 p-2 dark:border-slate-800">
          <dt className="text-xs text-slate-600 dark:text-slate-400">Dropped</dt>
          <dd className={`text-lg font-semibold tabular-nums sm:text-xl ${s.droppedFraction > 0 ? 'text-red-800 dark:text-red-300' : ''}`}>{formatPercent(s.droppedFraction)}</dd>
        </div>
        <div className="rounded-md border border-slate-200 p-2 dark:border-slate-800">
          <dt className="text-xs text-slate-600 dark:text-slate-400">Busiest endpoint</dt>
          <dd className="text-lg font-semibold tabular-nums sm:text-xl">{s.maxRelativeLoad.toFixed(2)}× fair</dd>
        </div>
      </dl>
      {s.unknownZoneFraction > 0 ? <p className="text-xs text-amber-800 dark:text-amber-300">{formatPercent(s.unknownZoneFraction)} goes to endpoints of unknown zone (counted neither same- nor cross-zone).</p> : null}

      <TrafficMatrix s={s} />

      <div>
        <h3 className="mb-1 text-sm font-semibold">What kube-proxy selects per client zone</h3>
        <ul className="space-y-0.5 text-sm">
          {s.selectionByZone.map((sel) => (
            <li key={sel.zone}>
              <span className="font-mono">{sel.zone}</span>: {sel.message} ({sel.selectedEndpoints} endpoint{sel.selectedEndpoints === 1 ? '' : 's'}
              {sel.droppedShare > 0 ? `, ${formatPercent(sel.droppedShare)} of this zone's traffic dropped` : ''})
            </li>
          ))}
        </ul>
      </div>

      <EndpointLoads s={s} namespace={namespace} name={name} version={version} />

      <CostPanel volume={volume} costRows={costRows} selected={selected} initialGb={initialGb} initialPrice={initialPrice} />
    </div>
  );
}
