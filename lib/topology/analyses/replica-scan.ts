/**
 * The HPA's replica range scanned count by count against the `Auto` heuristic: for each replica
 * count, whether the per-zone minimums fit (the count alone decides: Σ minimum ≤ replicas), and
 * how many endpoints the controller donates across zones with the pods spread evenly and with the
 * most uneven spread the Deployment's zone spread constraint allows.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/master/staging/src/k8s.io/endpointslice/topologycache/topologycache.go (getAllocations)
 */
import { desiredOf, donatedWith } from './endpoint-change-search';
import { computeAllocationTable, getAllocations } from '../upstream/topology-cache';
import { sortedKeys, sortStrings } from '../upstream/sorted';
import type { ValueByZone } from '../upstream/types';

/** A placement of replicas over zones and the endpoints it donates. */
export interface SpreadOutcome {
  readonly countsByZone: Readonly<ValueByZone<number>>;
  readonly donated: number;
}

/** One replica count of the scan. */
export interface HpaScanRow {
  readonly replicas: number;
  readonly minimumTotal: number;
  readonly hintsEnabled: boolean;
  /** Upstream reason when off (without the address-type suffix). */
  readonly reason: string | null;
  /** Pods spread as evenly as possible (remainder to zones first by name). */
  readonly evenSpread: SpreadOutcome;
  /** The most donating placement the zone spread constraint allows (unconstrained without a hard one). */
  readonly worstSpread: SpreadOutcome;
}

/** Rows beyond this are not scanned (the note says so). */
export const MAX_SCAN_ROWS = 1000;

/** Replicas spread as evenly as possible over `zones` (sorted); the remainder goes to the first zones. */
export function evenSpread(zones: readonly string[], replicas: number): ValueByZone<number> {
  const sorted = sortStrings([...zones]);
  const out: ValueByZone<number> = {};
  const base = Math.floor(replicas / Math.max(1, sorted.length));
  let remainder = replicas - base * sorted.length;
  for (const zone of sorted) {
    out[zone] = base + (remainder > 0 ? 1 : 0);
    if (remainder > 0) remainder--;
  }
  return out;
}

/**
 * {@link worstSpread} for sorted `zones` with the allocation table for `replicas` and whether it
 * allocates (`on`). The placements are built as arrays and only the winner becomes an object.
 */
function worstSpreadWith(
  ratios: Readonly<ValueByZone<number>>,
  zones: readonly string[],
  desired: readonly number[],
  on: boolean,
  replicas: number,
  maxSkew: number | null,
): SpreadOutcome {
  const z = zones.length;
  const skew = maxSkew ?? replicas;
  const low = Math.max(0, Math.ceil((replicas - (z - 1) * skew) / z));
  const high = Math.min(replicas, Math.floor((replicas + (z - 1) * skew) / z));
  let best: number[] | null = null;
  let bestDonated = 0;
  const counts: number[] = new Array<number>(z);
  for (let i = 0; i < z; i++) {
    for (const own of [low, high]) {
      // Zone i at `own`, the others as even as possible (remainder to the first ones by name).
      const total = replicas - own;
      const base = Math.floor(total / Math.max(1, z - 1));
      let remainder = total - base * (z - 1);
      for (let j = 0; j < z; j++) {
        if (j === i) {
          counts[j] = own;
          continue;
        }
        counts[j] = base + (remainder > 0 ? 1 : 0);
        if (remainder > 0) remainder--;
      }
      const donated = on ? donatedWith(ratios, zones, desired, replicas, counts) : 0;
      if (best === null || donated > bestDonated) {
        best = [...counts];
        bestDonated = donated;
      }
    }
  }
  if (best === null) return { countsByZone: {}, donated: 0 };
  const countsByZone: ValueByZone<number> = {};
  zones.forEach((zone, j) => (countsByZone[zone] = (best as number[])[j] ?? 0));
  return { countsByZone, donated: bestDonated };
}

/**
 * The most donating placement of `replicas` over the ratio zones among the extreme placements a
 * maximum skew allows: one zone as low as possible with the others even, or one zone as high as
 * possible with the others even (the first such placement, zone by zone, low before high, among
 * equals). `maxSkew = null` means unconstrained.
 */
export function worstSpread(ratios: Readonly<ValueByZone<number>>, replicas: number, maxSkew: number | null): SpreadOutcome {
  const zones = sortedKeys(ratios);
  const table = computeAllocationTable(ratios, replicas);
  return worstSpreadWith(ratios, zones, desiredOf(zones, table), getAllocations(ratios, replicas, table).ok, replicas, maxSkew);
}

/** One scan row: the count rule and the donations of the even and the worst spread. */
function scanRow(ratios: Readonly<ValueByZone<number>>, zones: readonly string[], replicas: number, maxSkew: number | null): HpaScanRow {
  const table = computeAllocationTable(ratios, replicas);
  const allocation = getAllocations(ratios, replicas, table);
  const desired = desiredOf(zones, table);
  const even = evenSpread(zones, replicas);
  return {
    replicas,
    minimumTotal: table.minimumTotal,
    hintsEnabled: allocation.ok,
    reason: allocation.ok ? null : allocation.event.message,
    evenSpread: {
      countsByZone: even,
      donated: allocation.ok ? donatedWith(ratios, zones, desired, replicas, zones.map((zone) => even[zone] ?? 0)) : 0,
    },
    worstSpread: worstSpreadWith(ratios, zones, desired, allocation.ok, replicas, maxSkew),
  };
}

/**
 * One scan row per replica count from `minReplicas` to `maxReplicas`: the count rule (Σ minimum
 * vs replicas), and the donations of an even spread and of the worst spread `maxSkew` allows.
 * A row depends only on the ratios, its replica count and `maxSkew`: pass the same `rows` map (for
 * the same ratios and `maxSkew`) to share rows between scans whose ranges overlap.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/master/staging/src/k8s.io/endpointslice/topologycache/topologycache.go (getAllocations)
 */
export function scanReplicaCounts(
  ratios: Readonly<ValueByZone<number>>,
  minReplicas: number,
  maxReplicas: number,
  maxSkew: number | null,
  rows: Map<number, HpaScanRow> = new Map(),
): HpaScanRow[] {
  const zones = sortedKeys(ratios);
  const scan: HpaScanRow[] = [];
  const last = Math.min(maxReplicas, minReplicas + MAX_SCAN_ROWS - 1);
  for (let replicas = Math.max(0, minReplicas); replicas <= last; replicas++) {
    let row = rows.get(replicas);
    if (row === undefined) {
      row = scanRow(ratios, zones, replicas, maxSkew);
      rows.set(replicas, row);
    }
    scan.push(row);
  }
  return scan;
}
