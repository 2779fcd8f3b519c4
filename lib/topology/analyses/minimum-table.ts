/**
 * The per-zone minimum table of the `Auto` heuristic for a number of ready endpoints:
 * `minimum = ceil(total × zone CPU ratio / 1.2)` per zone with the arithmetic spelled out, where
 * each zone stands against its minimum, and the sum check that decides whether hints can be on
 * (with a note where floating point rounds differently from exact arithmetic).
 *
 * @see https://github.com/kubernetes/kubernetes/blob/master/staging/src/k8s.io/endpointslice/topologycache/topologycache.go (getAllocations)
 */
import { MINIMUM_FACTOR } from '../upstream/constants';
import type { Allocation } from '../upstream/topology-cache';
import { computeAllocationTable } from '../upstream/topology-cache';
import { sortedKeys, sortedKeysOf } from '../upstream/sorted';
import type { ValueByZone } from '../upstream/types';

/** One row of the per-zone minimum table. */
export interface MinimumTableRow {
  readonly zone: string;
  readonly cpuRatio: number;
  /** Ready endpoints located in the zone. */
  readonly readyEndpoints: number;
  readonly minimum: number;
  readonly desired: number;
  readonly maximum: number;
  /** `ceil(11 × 0.3333 / 1.2) = ceil(3.0556) = 4`. */
  readonly formula: string;
  /** Whether the zone holds at least its minimum itself (if not, other zones donate). */
  readonly meetsMinimum: boolean;
}

/** The per-zone minimum table with the sum check. */
export interface MinimumTable {
  readonly formula: string;
  readonly readyEndpoints: number;
  readonly rows: readonly MinimumTableRow[];
  readonly minimumTotal: number;
  /** Σ minimum ≤ ready endpoints (and at least as many endpoints as zones). */
  readonly fits: boolean;
  /** `4 + 4 + 4 = 12 > 11 ready endpoints → hints off`. */
  readonly sumCheck: string;
  /** Set when floating point gives a different minimum than exact arithmetic would. */
  readonly floatNote: string | null;
}

function trimNumber(value: number, digits = 4): string {
  return String(Number(value.toFixed(digits)));
}

/**
 * The per-zone minimum table for `readyEndpoints` endpoints: `minimum = ceil(total × cpuRatio / 1.2)`
 * per zone with the arithmetic spelled out, and the sum check that decides whether hints can be on.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/master/staging/src/k8s.io/endpointslice/topologycache/topologycache.go (getAllocations)
 */
export function buildMinimumTable(
  cpuRatiosByZone: Readonly<ValueByZone<number>>,
  readyEndpoints: number,
  readyByZone: Readonly<ValueByZone<number>>,
): MinimumTable {
  const { allocations, minimumTotal } = computeAllocationTable(cpuRatiosByZone, readyEndpoints);
  const zones = sortedKeys(allocations);
  const floatZones: string[] = [];
  const rows: MinimumTableRow[] = zones.map((zone) => {
    const allocation = allocations[zone] as Allocation;
    const ratio = cpuRatiosByZone[zone] ?? 0;
    const product = ratio * readyEndpoints * MINIMUM_FACTOR;
    // Exact arithmetic would land on a whole number here; the double lands just above it.
    const nearest = Math.round(product);
    if (Math.abs(product - nearest) < 1e-9 && nearest !== allocation.minimum) floatZones.push(`${zone} (${allocation.minimum} instead of ${nearest})`);
    const inZone = readyByZone[zone] ?? 0;
    return {
      zone,
      cpuRatio: ratio,
      readyEndpoints: inZone,
      minimum: allocation.minimum,
      desired: allocation.desired,
      maximum: allocation.maximum,
      formula: `ceil(${readyEndpoints} × ${trimNumber(ratio)} / 1.2) = ceil(${trimNumber(product)}) = ${allocation.minimum}`,
      meetsMinimum: inZone >= allocation.minimum,
    };
  });
  const fits = zones.length >= 2 && zones.length <= readyEndpoints && minimumTotal <= readyEndpoints;
  const sumCheck = minimumSumCheck(allocations, minimumTotal, readyEndpoints);
  return {
    formula: 'minimum = ceil(total ready endpoints × zone CPU ratio / 1.2); Σ minimum must not exceed the total',
    readyEndpoints,
    rows,
    minimumTotal,
    fits,
    sumCheck,
    floatNote:
      floatZones.length > 0
        ? `Upstream multiplies by 1/1.2 = 0.8333333333333334 in floating point, which rounds up differently from exact division for ${floatZones.join(', ')}.`
        : null,
  };
}

/** The sum check line of {@link buildMinimumTable} (`4 + 4 + 4 = 12 > 11 ready endpoints → hints off`). */
export function minimumSumCheck(allocations: Readonly<ValueByZone<Allocation>>, minimumTotal: number, readyEndpoints: number): string {
  const zones = sortedKeysOf(allocations);
  if (zones.length > readyEndpoints) return `${readyEndpoints} ready endpoints < ${zones.length} zones → hints off`;
  let minimums = '';
  for (let i = 0; i < zones.length; i++) minimums += `${i === 0 ? '' : ' + '}${(allocations[zones[i] as string] as Allocation).minimum}`;
  const sum = `${minimums} = ${minimumTotal}`;
  return `${sum} ${minimumTotal <= readyEndpoints ? '≤' : '>'} ${readyEndpoints} ready endpoints → hints ${minimumTotal <= readyEndpoints ? 'can be on' : 'off'}`;
}
