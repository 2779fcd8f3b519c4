/**
 * What each traffic scenario of one Service (now, expected, if Auto, if none) costs per month at
 * its volume: the cross-zone share each is priced at — the model's, or with a measured matrix the
 * measurement now and the model's change applied to it for the others — times the volume and the
 * cluster's price.
 */
import type { CrossZonePricing } from '../model/cloud-pricing';
import type { CrossZoneCost } from './cross-zone-cost';
import { crossZoneCost } from './cross-zone-cost';
import type { ZoneMatrix } from './measured-projection';
import { applyModelChange, measuredCrossZoneFraction } from './measured-projection';
import type { ServiceVolume } from './traffic-volume';

/** Cost figures of a per-Service traffic summary (the fields {@link applyVolumeToSummary} reads and writes). */
export interface VolumeCostedSummary {
  readonly crossZoneFraction: number;
  readonly crossZoneFractionExpected: number;
  readonly crossZoneFractionIfAuto: number;
  readonly crossZoneFractionIfNone: number;
  readonly monthlyCost: { readonly now: CrossZoneCost; readonly expected: CrossZoneCost; readonly ifAuto: CrossZoneCost; readonly ifNone: CrossZoneCost };
  readonly volume: ServiceVolume;
}

/** The model's fraction matrices of a Service's scenarios (what {@link scenarioFractions} projects a measurement with). */
export interface ModelScenarios {
  readonly now: ZoneMatrix;
  readonly expected: ZoneMatrix;
  readonly ifAuto: ZoneMatrix;
  readonly ifNone: ZoneMatrix;
}

/**
 * The cross-zone share each scenario is priced at for `volume`: the model's shares, or — when the
 * volume carries a measured matrix — the measurement now and the model's change applied to it for
 * the others ({@link applyModelChange}), so measured and modelled are never mixed.
 */
export function scenarioFractions(
  summary: Pick<VolumeCostedSummary, 'crossZoneFraction' | 'crossZoneFractionExpected' | 'crossZoneFractionIfAuto' | 'crossZoneFractionIfNone'>,
  volume: ServiceVolume,
  model: ModelScenarios | null,
): { readonly now: number; readonly expected: number; readonly ifAuto: number; readonly ifNone: number } {
  const measured = volume.measuredMatrix;
  if (measured === null) return { now: summary.crossZoneFraction, expected: summary.crossZoneFractionExpected, ifAuto: summary.crossZoneFractionIfAuto, ifNone: summary.crossZoneFractionIfNone };
  const now = measuredCrossZoneFraction(measured);
  if (model === null) return { now, expected: now, ifAuto: now, ifNone: now };
  return {
    now,
    expected: measuredCrossZoneFraction(applyModelChange(measured, model.now, model.expected)),
    ifAuto: measuredCrossZoneFraction(applyModelChange(measured, model.now, model.ifAuto)),
    ifNone: measuredCrossZoneFraction(applyModelChange(measured, model.now, model.ifNone)),
  };
}

/**
 * The summary with `volume` in place of its own and every monthly cost recomputed from it (at the
 * shares of {@link scenarioFractions}).
 */
export function applyVolumeToSummary<S extends VolumeCostedSummary>(summary: S, volume: ServiceVolume, pricing: CrossZonePricing, model: ModelScenarios | null): S {
  const gb = volume.gbPerMonth;
  const f = scenarioFractions(summary, volume, model);
  return {
    ...summary,
    volume,
    monthlyCost: {
      now: crossZoneCost(f.now, gb, pricing),
      expected: crossZoneCost(f.expected, gb, pricing),
      ifAuto: crossZoneCost(f.ifAuto, gb, pricing),
      ifNone: crossZoneCost(f.ifNone, gb, pricing),
    },
  };
}
