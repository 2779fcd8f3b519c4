/**
 * The HPA replica scan as the Service page sends it to the browser: one tuple per replica count
 * (a 1,000-count HPA range is 1,000 rows; as objects with nested per-zone spreads its chart data
 * and table cost the page ~600 KB of RSC payload and HTML). The chart and the table read the same
 * array, memoised per scan (the engine shares one scan between the Services of an HPA range).
 */
import type { HpaScanRow } from '@/lib/topology/analyses/replica-scan';

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

/**
 * The chart draws at most this many bars. A wide HPA range (1,000 replica counts) in a plot ~800 px
 * wide is under a pixel per bar, and drawing one bar, cell and axis tick per count cost the biggest
 * Service page ~0.7 s of the browser's main thread before anything on it answered a click.
 */
export const MAX_SCAN_BARS = 120;

/** One bar of the scan chart: one replica count, or a run of consecutive counts. */
export interface ScanBar {
  /** First and last replica count of the run (equal for a single count). */
  readonly from: number;
  readonly to: number;
  /** The count the bar shows: of the run's counts with hints off if any, the one with the largest Σ minimum − replicas. */
  readonly replicas: number;
  readonly minimumTotal: number;
  readonly hintsEnabled: boolean;
  /** How many counts of the run have hints off. */
  readonly offCounts: number;
  /** The most endpoints donated with the worst allowed spread over the run. */
  readonly worstDonated: number;
}

const BARS = new WeakMap<readonly ScanTuple[], readonly ScanBar[]>();

/** Whether `a` is nearer to (or further past) hints off than `b`: off before on, then the larger Σ minimum − replicas. */
function closerToOff(a: ScanTuple, b: ScanTuple): boolean {
  if (a[2] !== b[2]) return a[2] === 0;
  return a[1] - a[0] > b[1] - b[0];
}

/**
 * The scan as at most `maxBars` bars: one per replica count when it fits, otherwise runs of
 * ⌈counts / maxBars⌉ consecutive counts, each shown by its count closest to turning hints off (a count with
 * hints off first, so one always makes its bar red) (memoised per scan for the default `maxBars`).
 */
export function scanBars(scan: readonly ScanTuple[], maxBars: number = MAX_SCAN_BARS): readonly ScanBar[] {
  const memo = maxBars === MAX_SCAN_BARS;
  const cached = memo ? BARS.get(scan) : undefined;
  if (cached) return cached;
  const size = Math.max(1, Math.ceil(scan.length / Math.max(1, maxBars)));
  const bars: ScanBar[] = [];
  for (let start = 0; start < scan.length; start += size) {
    const run = scan.slice(start, start + size);
    let shown = run[0];
    let offCounts = 0;
    let worstDonated = 0;
    for (const tuple of run) {
      if (tuple[2] === 0) offCounts += 1;
      worstDonated = Math.max(worstDonated, tuple[4]);
      if (shown === undefined || closerToOff(tuple, shown)) shown = tuple;
    }
    const last = run[run.length - 1];
    if (shown === undefined || last === undefined) continue;
    bars.push({ from: run[0]?.[0] ?? shown[0], to: last[0], replicas: shown[0], minimumTotal: shown[1], hintsEnabled: shown[2] === 1, offCounts, worstDonated });
  }
  if (memo) BARS.set(scan, bars);
  return bars;
}
