/**
 * What a Service's cross-zone traffic costs per month at the cluster's price, with the formula
 * spelled out (the price list per cloud is model/cloud-pricing.ts).
 */
import type { CrossZonePricing } from '../model/cloud-pricing';
import { crossZoneDollars, priceFormula } from '../model/cloud-pricing';

/** Monthly cost of a Service's cross-zone traffic. */
export interface CrossZoneCost {
  readonly gbPerMonth: number;
  /** The cross-zone share priced (measured, the model's change applied to the measurement, or the model's). */
  readonly crossZoneFraction: number;
  readonly crossZoneGbPerMonth: number;
  /** USD per GB that crosses zones, every charge included (the cluster's {@link CrossZonePricing}). */
  readonly costPerCrossZoneGb: number;
  /** USD per month: cross-zone GB × {@link costPerCrossZoneGb}. */
  readonly monthlyCost: number;
  readonly formula: string;
}

/**
 * Monthly cost of the cross-zone part of `gbPerMonth` at the cluster's price (AWS charges a
 * cross-zone GB leaving one zone and entering the other, Google Cloud once per GiB, Azure not at
 * all: model/cloud-pricing.ts).
 */
export function crossZoneCost(crossZoneFraction: number, gbPerMonth: number, pricing: CrossZonePricing): CrossZoneCost {
  const crossZoneGbPerMonth = gbPerMonth * crossZoneFraction;
  const monthlyCost = crossZoneDollars(crossZoneGbPerMonth, pricing);
  return {
    gbPerMonth,
    crossZoneFraction,
    crossZoneGbPerMonth,
    costPerCrossZoneGb: pricing.costPerCrossZoneGb,
    monthlyCost,
    formula: `${Number(gbPerMonth.toFixed(2))} GB × ${(crossZoneFraction * 100).toFixed(1)} % cross-zone × ${priceFormula(pricing)} = $${monthlyCost.toFixed(2)}/month`,
  };
}
