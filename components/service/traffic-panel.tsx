'use client';

/**
 * Expected traffic of a Service: client zone → endpoint zone matrix with cross-zone %, kube-proxy's
 * selection per zone, per-endpoint load against a fair share, and the monthly cross-zone cost: the
 * Service's volume with where it comes from (measured, set or assumed), the cost at that volume,
 * and an editable GB/month and $/GB what-if.
 *
 * Cost is recomputed here from the cost rows' cross-zone shares (`GB × share × $ per cross-zone GB`,
 * the engine's `crossZoneCost` with the cluster's price): the shares do not depend on GB or price,
 * so there is nothing to fetch, and typing stays instant. The inputs live in the URL (`?gb=&price=`,
 * the price being what one GB that crosses zones costs, every charge included).
 */
import { useEffect, useState } from 'react';
import type { TrafficScenario } from '@/lib/topology/analyses/traffic-scenarios';
import type { VolumeSource } from '@/lib/topology/analyses/traffic-volume';
import { formatGb, VOLUME_SOURCE, VolumeSourceMarker } from '../overview/zone-traffic-source';
import { formatPercent, formatUsd } from '../ui/format';
import { sortLoads } from './endpoint-order';
import { FullListControls } from './full-list-controls';
import { OVERLOAD, roundGb } from './traffic-data';
import type { LoadRowData, TrafficScenarioView } from './traffic-data';
import { endpointListUrl, useFullList } from './use-full-list';

const CELL_LOW = 0.0005;

function crossZoneCost(gbPerMonth: number, fraction: number, costPerCrossZoneGb: number) {
  const gb = gbPerMonth * fraction;
  return { gb, cost: gb * costPerCrossZoneGb };
}

function parseNumber(text: string): number | null {
  if (text.trim() === '') return null;
  const value = Number(text);
  return Number.isFinite(value) && value >= 0 ? value : null;
}

function Matrix({ s }: { readonly s: TrafficScenarioView }) {
  const anyDropped = s.droppedFraction > 0;
  return (
    <div className="overflow-x-auto">
      <table className="w-full text-sm">
        <caption className="mb-1 text-left text-xs text-slate-600 dark:text-slate-400">
          Share of the Service&apos;s total traffic from each client zone (rows) to each endpoint zone (columns). Same-zone cells are marked ✓.
        </caption>
        <thead>
          <tr className="border-b border-slate-200 text-xs uppercase tracking-wide text-slate-600 dark:border-slate-700 dark:text-slate-400">
            <th scope="col" className="py-1.5 pr-3 text-left font-medium">
              Client zone <span className="normal-case">(share)</span>
            </th>
            {s.endpointZones.map((zone) => (
              <th key={zone} scope="col" className="whitespace-nowrap px-2 py-1.5 text-right font-mono font-medium normal-case">
                → {zone}
              </th>
            ))}
            {anyDropped ? (
              <th scope="col" className="px-2 py-1.5 text-right font-medium">
                Dropped
              </th>
            ) : null}
          </tr>
        </thead>
        <tbody>
          {s.clientZones.map((client) => (
            <tr key={client} className="border-b border-slate-100 last:border-0 dark:border-slate-800">
              <th scope="row" className="whitespace-nowrap py-1.5 pr-3 text-left font-mono font-normal">
                {client} <span className="text-xs text-slate-600 dark:text-slate-400">({formatPercent(s.clientShareByZone[client] ?? 0)})</span>
              </th>
              {s.endpointZones.map((zone) => {
                const value = s.matrix[client]?.[zone] ?? 0;
                const same = client === zone;
                const cls =
                  value < CELL_LOW
                    ? 'text-slate-500 dark:text-slate-400'
                    : same
                      ? 'bg-emerald-50 text-emerald-900 dark:bg-emerald-950/60 dark:text-emerald-100'
                      : 'bg-amber-50 text-amber-900 dark:bg-amber-950/60 dark:text-amber-100';
                return (
                  <td key={zone} className={`px-2 py-1.5 text-right tabular-nums ${cls}`}>
                    {same && value >= CELL_LOW ? <span aria-hidden="true">✓ </span> : null}
                    {formatPercent(value)}
                    {same ? <span className="sr-only"> same zone</span> : value >= CELL_LOW ? <span className="sr-only"> cross-zone</span> : null}
                  </td>
                );
              })}
              {anyDropped ? <td className="px-2 py-1.5 text-right tabular-nums text-red-800 dark:text-red-300">{formatPercent(s.droppedByZone[client] ?? 0)}</td> : null}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** Cell styles set once on the table (not repeated on every cell of every row). */
const LOAD_TABLE =
  'w-full text-xs [&_tbody_tr]:border-t [&_tbody_tr]:border-slate-100 dark:[&_tbody_tr]:border-slate-800 [&_td]:py-1 [&_th]:py-1 [&_th]:pr-2 [&_th]:font-medium';

function LoadRow({ load, scale }: { readonly load: LoadRowData; readonly scale: number }) {
  const over = load.relativeLoad > OVERLOAD;
  return (
    <tr>
      <td className="pr-2 font-mono" title={load.podName ?? undefined}>
        {load.endpoint}
      </td>
      <td className="whitespace-nowrap pr-2 font-mono">{load.zone}</td>
      <td className="pr-2 text-right tabular-nums">{formatPercent(load.load)}</td>
      <td>
        <div className="flex items-center gap-2">
          <div className="relative h-3 flex-1 rounded bg-slate-100 dark:bg-slate-800" aria-hidden="true">
            <div className={`h-3 rounded ${over ? 'bg-amber-500' : 'bg-sky-500'}`} style={{ width: `${Math.min(100, (load.relativeLoad / scale) * 100)}%` }} />
            <div className="absolute inset-y-[-2px] w-0.5 bg-slate-700 dark:bg-slate-200" style={{ left: `${(1 / scale) * 100}%` }} title="fair share" />
          </div>
          <span className={`w-14 text-right tabular-nums ${over ? 'font-semibold text-amber-800 dark:text-amber-300' : ''}`}>
            {load.relativeLoad.toFixed(2)}×{over ? ' ▲' : ''}
          </span>
        </div>
      </td>
    </tr>
  );
}

function Loads({ s, namespace, name, version }: { readonly s: TrafficScenarioView; readonly namespace: string; readonly name: string; readonly version: number }) {
  const { state, rows, load, collapse } = useFullList<LoadRowData>(endpointListUrl(namespace, name, `list=loads&scenario=${s.id}`), version, s.loads, sortLoads);
  if (s.loadCount === 0) return <p className="text-sm text-slate-700 dark:text-slate-300">No endpoint receives traffic.</p>;
  const scale = Math.max(2, s.maxRelativeLoad * 1.05);
  return (
    <div className="space-y-1">
      <p className="text-xs text-slate-600 dark:text-slate-400">
        Load relative to a fair share (delivered traffic ÷ {s.loadCount} endpoints); 1.00× = fair. {s.overloadedCount} of {s.loadCount} endpoint{s.loadCount === 1 ? '' : 's'} above{' '}
        {OVERLOAD.toFixed(1)}× (▲); the least loaded at {s.minRelativeLoad.toFixed(2)}×.
      </p>
      <div className="max-h-72 overflow-auto" tabIndex={0} aria-label="Per-endpoint load">
        <table className={LOAD_TABLE}>
          <caption className="sr-only">Per-endpoint load against the fair share</caption>
          <thead className="sticky top-0 bg-white dark:bg-slate-900">
            <tr className="text-left uppercase tracking-wide text-slate-600 dark:text-slate-400">
              <th scope="col">Endpoint</th>
              <th scope="col">Zone</th>
              <th scope="col" className="text-right">
                Share
              </th>
              <th scope="col" className="w-2/5">
                vs fair share
              </th>
            </tr>
          </thead>
          <tbody>
            {rows.map((l) => (
              <LoadRow key={l.endpoint} load={l} scale={scale} />
            ))}
          </tbody>
        </table>
      </div>
      <FullListControls state={state} shown={rows.length} total={s.loadCount} noun="endpoint loads" order="busiest first" onLoad={load} onCollapse={collapse} />
    </div>
  );
}

/** The Service's volume as the cluster-wide figures count it, and its cost now. */
export interface TrafficVolumeView {
  readonly gbPerMonth: number;
  readonly source: VolumeSource;
  /** USD per GB that crosses zones on the cluster's cloud, every charge included. */
  readonly costPerCrossZoneGb: number;
  /** The cluster's price in one sentence (cloud, how it was found, charges). */
  readonly priceNote: string;
  /** Cross-zone share the cost now is computed at: measured with zone-resolved flows, else the model's now. */
  readonly crossZoneFractionNow: number;
  /** USD per month now at that volume and price. */
  readonly monthlyCostNow: number;
  /** Why nothing is measured for this Service (the metrics source's sentence), `null` when measured. */
  readonly unmeasuredNote?: string | null;
  /** The load balancer's own cross-zone leg, when its external volume is measured. */
  readonly loadBalancerLeg?: { readonly monthlyCost: number; readonly formula: string } | null;
}

/** One row of the cost table: a scenario or the smallest fix, at the share it is priced at. */
export interface CostRowView {
  readonly id: string;
  readonly label: string;
  readonly crossZoneFraction: number;
  /** What the share rests on: the measurement, the model's change applied to it, or the model alone. */
  readonly basis: 'measured' | 'measured + model' | 'model';
}

/** What a what-if volume is labelled (kind `set`, as the API's `gbPerMonth`). */
const WHAT_IF = 'set here (what-if)';

function VolumeSummary({ volume }: { readonly volume: TrafficVolumeView }) {
  const measuredShare = volume.source.kind === 'measured-flows';
  return (
    <div className="space-y-1 text-sm" data-testid="service-volume">
      <p>
        <span className="font-semibold">Volume: {formatGb(volume.gbPerMonth)} per month</span> <VolumeSourceMarker kind={volume.source.kind} title={VOLUME_SOURCE[volume.source.kind].title} />{' '}
        <span className="text-slate-700 dark:text-slate-300">{volume.source.label}</span>
      </p>
      <p>
        <span className="font-semibold">Cost now: {formatUsd(volume.monthlyCostNow)}/month</span>{' '}
        <span className="text-slate-700 dark:text-slate-300">
          at {formatPercent(volume.crossZoneFractionNow)} cross-zone ({measuredShare ? 'measured' : 'predicted'}) × {formatUsd(volume.costPerCrossZoneGb)} per cross-zone GB
        </span>
      </p>
      <p className="text-xs text-slate-600 dark:text-slate-400" data-testid="service-price-note">
        Price: {volume.priceNote}
      </p>
      {volume.loadBalancerLeg ? (
        <p className="text-sm" data-testid="service-load-balancer-leg">
          <span className="font-semibold">Load balancer (north-south, apart from the above): {formatUsd(volume.loadBalancerLeg.monthlyCost)}/month</span>{' '}
          <span className="text-xs text-slate-700 dark:text-slate-300">{volume.loadBalancerLeg.formula}</span>
        </p>
      ) : null}
      {volume.unmeasuredNote ? <p className="text-xs text-slate-600 dark:text-slate-400">{volume.unmeasuredNote}</p> : null}
    </div>
  );
}

export function TrafficPanel({
  namespace,
  name,
  version,
  scenarios,
  initialGb,
  initialPrice,
  hintsOn,
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
  readonly hintsOn: boolean;
  /** The Service's own volume and its source (the inputs below are a what-if on top of it). */
  readonly volume: TrafficVolumeView;
  /** The cost table's rows: now, after the sync, Auto, without hints, and the smallest fix (each at the share it is priced at). */
  readonly costRows: readonly CostRowView[];
}) {
  const [selected, setSelected] = useState<TrafficScenario>('now');
  // `null` until typed in: the input follows the page's value (a measured volume changes with every Prometheus answer).
  const [typedGb, setGbText] = useState<string | null>(null);
  const [typedPrice, setPriceText] = useState<string | null>(null);
  const gbText = typedGb ?? String(initialGb);
  const priceText = typedPrice ?? String(initialPrice);
  const gb = parseNumber(gbText);
  const price = parseNumber(priceText);

  useEffect(() => {
    if (gb === null || price === null) return;
    const params = new URLSearchParams(window.location.search);
    if (gb === initialGb && price === initialPrice && !params.has('gb') && !params.has('price')) return;
    params.set('gb', String(gb));
    params.set('price', String(price));
    const search = `?${params.toString()}`;
    if (window.location.search !== search) window.history.replaceState(null, '', `${window.location.pathname}${search}${window.location.hash}`);
  }, [gb, price, initialGb, initialPrice]);

  const s = scenarios.find((x) => x.id === selected) ?? scenarios[0];
  if (!s) return null;
  // The Service's own volume as the input shows it: typing another one is a what-if.
  const ownGb = roundGb(volume.gbPerMonth);
  const ownPrice = volume.costPerCrossZoneGb;
  const rowOf = (id: string) => costRows.find((x) => x.id === id);
  const none = rowOf('ifNone');
  const now = rowOf('now');
  const auto = rowOf('ifAuto');
  const selectedRow = rowOf(selected) ?? now;

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

      <dl className="grid grid-cols-2 gap-2 sm:grid-cols-4">
        <div className="rounded-md border border-slate-200 p-2 dark:border-slate-800">
          <dt className="text-xs text-slate-600 dark:text-slate-400">Cross-zone</dt>
          <dd className="text-xl font-semibold tabular-nums">{formatPercent(s.crossZoneFraction)}</dd>
        </div>
        <div className="rounded-md border border-slate-200 p-2 dark:border-slate-800">
          <dt className="text-xs text-slate-600 dark:text-slate-400">Same zone</dt>
          <dd className="text-xl font-semibold tabular-nums">{formatPercent(s.sameZoneFraction)}</dd>
        </div>
        <div className="rounded-md border border-slate-200 p-2 dark:border-slate-800">
          <dt className="text-xs text-slate-600 dark:text-slate-400">Dropped</dt>
          <dd className={`text-xl font-semibold tabular-nums ${s.droppedFraction > 0 ? 'text-red-800 dark:text-red-300' : ''}`}>{formatPercent(s.droppedFraction)}</dd>
        </div>
        <div className="rounded-md border border-slate-200 p-2 dark:border-slate-800">
          <dt className="text-xs text-slate-600 dark:text-slate-400">Busiest endpoint</dt>
          <dd className="text-xl font-semibold tabular-nums">{s.maxRelativeLoad.toFixed(2)}× fair</dd>
        </div>
      </dl>
      {s.unknownZoneFraction > 0 ? <p className="text-xs text-amber-800 dark:text-amber-300">{formatPercent(s.unknownZoneFraction)} goes to endpoints of unknown zone (counted neither same- nor cross-zone).</p> : null}

      <Matrix s={s} />

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

      <Loads s={s} namespace={namespace} name={name} version={version} />

      <div className="space-y-3 rounded-md border border-slate-200 p-3 dark:border-slate-700">
        <h3 className="text-sm font-semibold">Monthly cross-zone cost</h3>
        <VolumeSummary volume={volume} />
        <h4 className="text-xs font-medium uppercase tracking-wide text-slate-600 dark:text-slate-400">What-if</h4>
        <div className="flex flex-wrap items-end gap-3">
          <label className="flex flex-col gap-1 text-xs font-medium text-slate-700 dark:text-slate-300">
            What-if traffic (GB / month)
            <input
              type="number"
              min={0}
              step="any"
              inputMode="decimal"
              value={gbText}
              onChange={(e) => setGbText(e.target.value)}
              aria-invalid={gb === null}
              className="h-9 w-36 rounded-md border border-slate-300 bg-white px-2 text-sm text-slate-900 dark:border-slate-600 dark:bg-slate-900 dark:text-slate-100"
            />
          </label>
          <label className="flex flex-col gap-1 text-xs font-medium text-slate-700 dark:text-slate-300">
            $ per cross-zone GB (cluster: {formatUsd(ownPrice)})
            <input
              type="number"
              min={0}
              step="any"
              inputMode="decimal"
              value={priceText}
              onChange={(e) => setPriceText(e.target.value)}
              aria-invalid={price === null}
              className="h-9 w-36 rounded-md border border-slate-300 bg-white px-2 text-sm text-slate-900 dark:border-slate-600 dark:bg-slate-900 dark:text-slate-100"
            />
          </label>
          {gb === null || price === null ? (
            <p role="alert" className="text-sm text-red-800 dark:text-red-300">
              Enter non-negative numbers.
            </p>
          ) : null}
        </div>
        {gb !== null && price !== null ? (
          <>
            <p className="text-xs text-slate-700 dark:text-slate-300" data-testid="what-if-source">
              {gb === ownGb && price === ownPrice ? (
                <>
                  The table uses the Service&apos;s volume ({volume.source.kind === 'assumed' ? 'assumed' : volume.source.kind === 'set' ? 'set' : 'measured'}) and the cluster&apos;s price; change them to try a what-if.
                </>
              ) : (
                <>
                  <VolumeSourceMarker kind="set" title="A what-if typed here: not the Service's measured, set or assumed volume" /> {gb === ownGb ? 'price' : 'volume'} {WHAT_IF}:{' '}
                  {gb !== ownGb ? `${formatGb(gb)} instead of ${formatGb(volume.gbPerMonth)}` : ''}
                  {gb !== ownGb && price !== ownPrice ? ', ' : ''}
                  {price !== ownPrice ? `${formatUsd(price)} per cross-zone GB instead of ${formatUsd(ownPrice)}` : ''}.
                </>
              )}
            </p>
            <table className="w-full text-sm">
              <caption className="sr-only">Monthly cross-zone cost per scenario and with the smallest fix</caption>
              <thead>
                <tr className="border-b border-slate-200 text-left text-xs uppercase tracking-wide text-slate-600 dark:border-slate-700 dark:text-slate-400">
                  <th scope="col" className="py-1 pr-3 font-medium">Scenario</th>
                  <th scope="col" className="py-1 pr-3 font-medium">Share from</th>
                  <th scope="col" className="py-1 pr-3 text-right font-medium">Cross-zone</th>
                  <th scope="col" className="py-1 pr-3 text-right font-medium">Cross-zone GB</th>
                  <th scope="col" className="py-1 text-right font-medium">Cost / month</th>
                </tr>
              </thead>
              <tbody>
                {costRows.map((x) => {
                  const c = crossZoneCost(gb, x.crossZoneFraction, price);
                  return (
                    <tr key={x.id} className={`border-b border-slate-100 last:border-0 dark:border-slate-800 ${x.id === selected ? 'font-semibold' : ''}`} data-testid={`cost-row-${x.id}`}>
                      <th scope="row" className="py-1 pr-3 text-left font-normal [overflow-wrap:anywhere]">
                        {x.label}
                      </th>
                      <td className="py-1 pr-3 text-xs text-slate-600 dark:text-slate-400">{x.basis}</td>
                      <td className="py-1 pr-3 text-right tabular-nums">{formatPercent(x.crossZoneFraction)}</td>
                      <td className="py-1 pr-3 text-right tabular-nums">{formatGb(c.gb)}</td>
                      <td className="py-1 text-right tabular-nums">{formatUsd(c.cost)}</td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
            {selectedRow ? (
              <p className="font-mono text-xs text-slate-600 dark:text-slate-400">
                cost = {gb} GB × {formatPercent(selectedRow.crossZoneFraction)} cross-zone × {formatUsd(price)} per cross-zone GB = {formatUsd(crossZoneCost(gb, selectedRow.crossZoneFraction, price).cost)}/month ({selectedRow.label})
              </p>
            ) : null}
            {none && (hintsOn ? now : auto) ? (
              <p className="text-sm">
                <strong>Before/after hints:</strong> without hints {formatPercent(none.crossZoneFraction)} cross-zone ({formatUsd(crossZoneCost(gb, none.crossZoneFraction, price).cost)}/month);{' '}
                {hintsOn && now
                  ? `with the hints now ${formatPercent(now.crossZoneFraction)} (${formatUsd(crossZoneCost(gb, now.crossZoneFraction, price).cost)}/month)`
                  : auto
                    ? `with topology mode Auto ${formatPercent(auto.crossZoneFraction)} (${formatUsd(crossZoneCost(gb, auto.crossZoneFraction, price).cost)}/month)`
                    : ''}
                .
              </p>
            ) : null}
          </>
        ) : null}
        <p className="text-xs text-slate-600 dark:text-slate-400">
          GB/month is this Service&apos;s in-cluster traffic, both directions of every conversation it serves. With a measured volume, &quot;measured + model&quot; rows apply the model&apos;s change to the measured zone split.
        </p>
      </div>
    </div>
  );
}
