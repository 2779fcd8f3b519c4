/**
 * The HPA replica scan as the Service page sends it to the browser: one tuple per replica count
 * (a 1,000-count HPA range is 1,000 rows; as objects with nested per-zone spreads its chart data
 * and table cost the page ~600 KB of RSC payload and HTML). The chart and the table read the same
 * array, memoised per scan (the engine shares one scan between the Services of an HPA range).
 */
import type { HpaScanRow } from '@/lib/topology/analyses/hpa';

/**
 * `[replicas, Σ minimum, hints on (1) or off (0), donated with an even spread, donated with the
 * worst allowed spread, pods per zone of the even spread ("3/3/2"), of the worst spread]`.
 */
export type ScanTuple = readonly [replicas: number, minimumTotal: number, hintsEnabled: 0 | 1, evenDonated: number, worstDonated: number, evenCounts: string, worstCounts: string];

const TUPLES = new WeakMap<readonly HpaScanRow[], readonly ScanTuple[]>();

/** The scan as tuples (memoised per scan array). */
export function scanTuples(scan: readonly HpaScanRow[]): readonly ScanTuple[] {
  let tuples = TUPLES.get(scan);
  if (!tuples) {
    tuples = scan.map(
      (row): ScanTuple => [
        row.replicas,
        row.minimumTotal,
        row.hintsEnabled ? 1 : 0,
        row.evenSpread.donated,
        row.worstSpread.donated,
        Object.values(row.evenSpread.countsByZone).join('/'),
        Object.values(row.worstSpread.countsByZone).join('/'),
      ],
    );
    TUPLES.set(scan, tuples);
  }
  return tuples;
}
