'use client';

/**
 * The monthly cross-zone cost of a Service: its volume with where it comes from (measured, set or
 * assumed), the cost at it, and an editable GB/month and $/GB what-if pricing every scenario and
 * the smallest fix, with the formula of the selected one (the rows "Without hints" and "Now" are
 * the before/after of hints: not said again under the table).
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
import { roundGb } from './traffic-data';

function crossZoneCost(gbPerMonth: number, fraction: number, costPerCrossZoneGb: number) {
  const gb = gbPerMonth * fraction;
  return { gb, cost: gb * costPerCrossZoneGb };
}

function parseNumber(text: string): number | null {
  if (text.trim() === '') return null;
  const value = Number(text);
  return Number.isFinite(value) && value >= 0 ? value : null;
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

/** A what-if amount (a non-negative number, typed as text so a half-typed value stays), labelled above. */
function AmountField({ label, value, onChange, invalid }: { readonly label: string; readonly value: string; readonly onChange: (text: string) => void; readonly invalid: boolean }) {
  return (
    <label className="flex flex-col gap-1 text-xs font-medium text-slate-700 dark:text-slate-300">
      {label}
      <input
        type="number"
        min={0}
        step="any"
        inputMode="decimal"
        value={value}
        onChange={(e) => onChange(e.target.value)}
        aria-invalid={invalid}
        className="h-9 w-36 rounded-md border border-slate-300 bg-white px-2 text-sm text-slate-900 dark:border-slate-600 dark:bg-slate-900 dark:text-slate-100"
      />
    </label>
  );
}

export function CostPanel({
  volume,
  costRows,
  selected,
  initialGb,
  initialPrice,
}: {
  /** The Service's own volume and its source (the inputs are a what-if on top of it). */
  readonly volume: TrafficVolumeView;
  readonly costRows: readonly CostRowView[];
  /** The scenario picked above: its row is in bold and its formula shown. */
  readonly selected: TrafficScenario;
  readonly initialGb: number;
  readonly initialPrice: number;
}) {
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

  // The Service's own volume as the input shows it: typing another one is a what-if.
  const ownGb = roundGb(volume.gbPerMonth);
  const ownPrice = volume.costPerCrossZoneGb;
  const rowOf = (id: string) => costRows.find((x) => x.id === id);
  const now = rowOf('now');
  const selectedRow = rowOf(selected) ?? now;

  return (
    <div className="space-y-3 rounded-md border border-slate-200 p-3 dark:border-slate-700">
      <h3 className="text-sm font-semibold">Monthly cross-zone cost</h3>
      <VolumeSummary volume={volume} />
      <h4 className="text-xs font-medium uppercase tracking-wide text-slate-600 dark:text-slate-400">What-if</h4>
      <div className="flex flex-wrap items-end gap-3">
        <AmountField label="What-if traffic (GB / month)" value={gbText} onChange={setGbText} invalid={gb === null} />
        <AmountField label={`$ per cross-zone GB (cluster: ${formatUsd(ownPrice)})`} value={priceText} onChange={setPriceText} invalid={price === null} />
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
          {/* Now, at the Service's own volume and price, the formula is the "Cost now" line above again. */}
          {selectedRow && !(selectedRow.id === 'now' && gb === ownGb && price === ownPrice) ? (
            <p className="font-mono text-xs text-slate-600 dark:text-slate-400">
              cost = {formatGb(gb)} × {formatPercent(selectedRow.crossZoneFraction)} cross-zone × {formatUsd(price)} per cross-zone GB = {formatUsd(crossZoneCost(gb, selectedRow.crossZoneFraction, price).cost)}/month ({selectedRow.label})
            </p>
          ) : null}
        </>
      ) : null}
      <p className="text-xs text-slate-600 dark:text-slate-400">
        GB/month is this Service&apos;s in-cluster traffic, both directions of every conversation it serves. With a measured volume, &quot;measured + model&quot; rows apply the model&apos;s change to the measured zone split.
      </p>
    </div>
  );
}
