/**
 * The endpoint changes that let the `Auto` heuristic allocate: whether it can depends only on the
 * number of ready endpoints (Σ minimum ≤ total, at least one per zone), so the smallest count is
 * found first; among the ways to place that many endpoints across zones the one leaving the fewest
 * donated endpoints wins, then the one favouring zones earlier by name. Used by the fixes
 * (./fixes.ts) and the HPA replica scan (./replica-scan.ts).
 *
 * @see https://github.com/kubernetes/kubernetes/blob/master/staging/src/k8s.io/endpointslice/topologycache/topologycache.go (getAllocations)
 */
import { endpointSearchSkipped } from './service-mechanism';
import type { AllocationTable } from '../upstream/topology-cache';
import { computeAllocationTable, getAllocations } from '../upstream/topology-cache';
import { getGivingAndReceivingZones, moveEndpoints } from '../upstream/topology-cache-utils';
import type { ValueByZone } from '../upstream/types';

/** Placement of endpoint changes found by {@link searchEndpointChange}. */
export interface EndpointChange {
  /** Signed change per zone (sorted zones, zeros included). */
  readonly changeByZone: ValueByZone<number>;
  readonly total: number;
  readonly readyAfter: number;
  readonly donatedAfter: number;
}

/** Enumeration budget per total before falling back to a greedy placement. */
const MAX_PLACEMENTS = 5000;

/**
 * The placements of `total` over `parts` zones (each at most `caps[i]` when given), the first
 * zones taking the most first; `null` once there are more than `limit`. Iterative: the depth is
 * the number of zones.
 */
function compositions(total: number, parts: number, caps: readonly number[] | null, limit: number): number[][] | null {
  if (parts === 0) return total === 0 ? [[]] : [];
  const out: number[][] = [];
  const current: number[] = new Array<number>(parts).fill(0);
  const left: number[] = new Array<number>(parts + 1).fill(0);
  const cap = (index: number, rest: number) => (caps ? Math.min(rest, caps[index] ?? 0) : rest);
  // current[index] counts down from its cap; `index` is the zone being varied.
  left[0] = total;
  current[0] = cap(0, total);
  let index = 0;
  for (;;) {
    if (index === parts - 1) {
      const rest = left[index] ?? 0;
      if (!(caps && rest > (caps[index] ?? 0))) {
        current[index] = rest;
        out.push([...current]);
        if (out.length > limit) return null;
      }
      index--;
      // Step back to the nearest zone that can still give one away.
      while (index >= 0 && (current[index] ?? 0) === 0) index--;
      if (index < 0) return out;
      current[index] = (current[index] ?? 0) - 1;
    }
    left[index + 1] = (left[index] ?? 0) - (current[index] ?? 0);
    index++;
    if (index < parts - 1) current[index] = cap(index, left[index] ?? 0);
  }
}

/** The desired endpoints per sorted ratio zone for the table's endpoint count. */
export function desiredOf(zones: readonly string[], table: AllocationTable): number[] {
  return zones.map((zone) => table.allocations[zone]?.desired ?? 0);
}

/**
 * The endpoints the `Auto` heuristic donates for `counts` (indexed like the sorted ratio zones):
 * {@link donatedFor}, on arrays, with the allocation table's desired values passed in when the
 * counts add up to the table's endpoint count (else the table for their own sum).
 */
export function donatedWith(ratios: Readonly<ValueByZone<number>>, zones: readonly string[], desired: readonly number[], tableTotal: number, counts: readonly number[]): number {
  let total = 0;
  for (const count of counts) total += count;
  if (total === tableTotal) return moveEndpoints(zones, desired, counts);
  const byZone: ValueByZone<number> = {};
  zones.forEach((zone, i) => (byZone[zone] = counts[i] as number));
  return donatedFor(ratios, byZone);
}

/** Endpoints donated when `countsByZone` ready endpoints are allocated over `ratios` (Σ giving). */
export function donatedFor(ratios: Readonly<ValueByZone<number>>, countsByZone: Readonly<ValueByZone<number>>): number {
  let total = 0;
  for (const value of Object.values(countsByZone)) total += value;
  const { allocations } = computeAllocationTable(ratios, total);
  const { givingZones } = getGivingAndReceivingZones(allocations, countsByZone);
  return Object.values(givingZones).reduce((s, v) => s + v, 0);
}

/**
 * The smallest number of ready endpoints to add (`direction: 'add'`) or remove (`'remove'`) so the
 * `Auto` heuristic can allocate, and where: fewest donated endpoints afterwards, then the placement
 * that favours zones earlier by name. Returns `null` when no change within reach works.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/master/staging/src/k8s.io/endpointslice/topologycache/topologycache.go (getAllocations)
 */
export function searchEndpointChange(
  ratios: Readonly<ValueByZone<number>>,
  readyByZone: Readonly<ValueByZone<number>>,
  readyEndpoints: number,
  direction: 'add' | 'remove',
): EndpointChange | null {
  const zones = Object.keys(ratios).sort();
  if (endpointSearchSkipped(zones.length) !== null) return null;
  const current = zones.map((zone) => readyByZone[zone] ?? 0);
  const maxSteps = direction === 'add' ? 10 * zones.length + 10 : readyEndpoints - zones.length;
  let currentTotal = 0;
  for (const count of current) currentTotal += count;
  const counts: number[] = new Array<number>(zones.length).fill(0);
  for (let step = 1; step <= maxSteps; step++) {
    const after = direction === 'add' ? readyEndpoints + step : readyEndpoints - step;
    if (!getAllocations(ratios, after).ok) continue;
    // 1. Placements of `step` endpoints (removals cannot exceed what a zone has).
    const placements =
      compositions(step, zones.length, direction === 'remove' ? current : null, MAX_PLACEMENTS) ?? [greedyPlacement(ratios, zones, current, step, direction)];
    // 2. Fewest donations, then the earliest zones by name (placements come in that order). The
    //    placements of one step leave the same total, so they share its allocation table.
    const stepTotal = currentTotal + (direction === 'add' ? step : -step);
    const desired = desiredOf(zones, computeAllocationTable(ratios, stepTotal));
    let best: readonly number[] | null = null;
    let bestDonated = 0;
    for (const placement of placements) {
      if (placement.length !== zones.length) continue;
      for (let i = 0; i < zones.length; i++) {
        const amount = placement[i] ?? 0;
        counts[i] = (current[i] ?? 0) + (direction === 'add' || amount === 0 ? amount : -amount);
      }
      const donated = donatedWith(ratios, zones, desired, stepTotal, counts);
      if (best === null || donated < bestDonated) {
        best = placement;
        bestDonated = donated;
      }
    }
    if (best !== null) {
      const change: ValueByZone<number> = {};
      zones.forEach((zone, i) => {
        const amount = (best as readonly number[])[i] ?? 0;
        change[zone] = direction === 'add' || amount === 0 ? amount : -amount;
      });
      return { changeByZone: change, total: step, readyAfter: after, donatedAfter: bestDonated };
    }
  }
  return null;
}

function greedyPlacement(ratios: Readonly<ValueByZone<number>>, zones: readonly string[], current: readonly number[], step: number, direction: 'add' | 'remove'): number[] {
  const counts = [...current];
  const placement = zones.map(() => 0);
  const total = current.reduce((s, v) => s + v, 0) + (direction === 'add' ? step : -step);
  for (let i = 0; i < step; i++) {
    let pick = -1;
    let bestGap = -Infinity;
    zones.forEach((zone, z) => {
      const desired = (ratios[zone] ?? 0) * total;
      const gap = direction === 'add' ? desired - (counts[z] ?? 0) : (counts[z] ?? 0) - desired;
      if ((direction === 'remove' && (counts[z] ?? 0) === 0) || gap <= bestGap) return;
      bestGap = gap;
      pick = z;
    });
    if (pick < 0) break;
    placement[pick] = (placement[pick] ?? 0) + 1;
    counts[pick] = (counts[pick] ?? 0) + (direction === 'add' ? 1 : -1);
  }
  return placement;
}
