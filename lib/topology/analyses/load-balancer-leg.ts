/**
 * The load balancer's own leg (LB node → target) of a Service's external traffic: the share an AWS
 * NLB sends to a target in another zone, from its cross-zone setting and its targets per zone, and
 * that leg priced at the measured north-south volume.
 *
 * @see https://docs.aws.amazon.com/elasticloadbalancing/latest/network/network-load-balancers.html#cross-zone-load-balancing
 */
import type { CrossZonePricing } from '../model/cloud-pricing';
import { crossZoneDollars, priceFormula } from '../model/cloud-pricing';
import type { AwsLoadBalancer } from './aws-load-balancer';
import type { LoadBalancerLegCost } from './traffic-volume';

/** The load balancer's own leg (LB node → target): see `LoadBalancerAnalysis.leg` (load-balancer.ts). */
export interface LoadBalancerLeg {
  /** Share (0–1) of the load balancer's traffic delivered to a target in another zone. */
  readonly crossZoneFraction: number;
  readonly formula: string;
}

/**
 * An NLB's cross-zone share: its nodes (one per zone with targets) take equal shares of the
 * clients (DNS round robin); with cross-zone load balancing each spreads over every target, so the
 * share kept in its zone is that zone's share of the targets: 1 − Σ_zones (1/Z) × targets_z/targets.
 * Off, each node sends only to its own zone's targets: nothing crosses.
 */
export function nlbLeg(aws: AwsLoadBalancer, targetsByZone: ReadonlyMap<string, number>): LoadBalancerLeg | null {
  if (aws.kind !== 'nlb') return null;
  const what = aws.targetType === 'ip' ? 'ready pods' : 'nodes';
  if (!aws.crossZoneEnabled) return { crossZoneFraction: 0, formula: `cross-zone load balancing off: each NLB node sends only to ${what} in its own zone` };
  let total = 0;
  for (const count of targetsByZone.values()) total += count;
  const zones = [...targetsByZone.values()].filter((count) => count > 0).length;
  if (total === 0 || zones === 0) return null;
  let kept = 0;
  for (const count of targetsByZone.values()) kept += count / total / zones;
  const fraction = Math.max(0, 1 - kept);
  return { crossZoneFraction: fraction, formula: `cross-zone load balancing on: ${zones} NLB nodes (one per zone with ${what}) each spread over all ${total} ${what}; ${(fraction * 100).toFixed(1)} % lands in another zone` };
}

/**
 * The load balancer's leg priced: `externalGbPerMonth` (measured north-south GB) × the leg's
 * cross-zone share × the cluster's price; `null` without a modelled leg or an external volume.
 */
export function loadBalancerLegCost(leg: LoadBalancerLeg | null, externalGbPerMonth: number | null, pricing: CrossZonePricing): LoadBalancerLegCost | null {
  if (leg === null || externalGbPerMonth === null || !(externalGbPerMonth > 0)) return null;
  const crossZoneGbPerMonth = externalGbPerMonth * leg.crossZoneFraction;
  const monthlyCost = crossZoneDollars(crossZoneGbPerMonth, pricing);
  return {
    gbPerMonth: externalGbPerMonth,
    crossZoneFraction: leg.crossZoneFraction,
    crossZoneGbPerMonth,
    monthlyCost,
    formula: `${Number(externalGbPerMonth.toFixed(2))} GB from outside the cluster × ${(leg.crossZoneFraction * 100).toFixed(1)} % (${leg.formula}) × ${priceFormula(pricing)} = $${monthlyCost.toFixed(2)}/month`,
  };
}
