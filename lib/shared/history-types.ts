/**
 * The JSON shapes of zonescope's history: what `GET /api/v1/services/{ns}/{name}/history` and
 * `GET /api/v1/cluster/history` answer, and what the Service page's and the Overview's history
 * panels render. History is not stored by zonescope: it is read back from the Prometheus that
 * scrapes zonescope's own `/metrics` (`query_range` over the `zonescope_*` series; see
 * docs/metrics.md and docs/api.md).
 *
 * Times are Unix seconds (UTC). A `null` value in a point is a gap: no sample in that step
 * (zonescope was down, not scraped, or the Service did not exist).
 */

/** The ranges a history view offers; `24h` is the default when the data reaches further back than 6 h. */
export const HISTORY_RANGES = ['1h', '6h', '24h', '7d'] as const;
export type HistoryRange = (typeof HISTORY_RANGES)[number];
export const DEFAULT_HISTORY_RANGE: HistoryRange = '24h';

/**
 * Whether history could be read:
 * - `ok` — Prometheus answered and holds zonescope's series for the range;
 * - `not-configured` — `ZONESCOPE_PROMETHEUS_URL` is not set (the message says what to configure);
 * - `no-data` — Prometheus answered but holds no `zonescope_*` series for this Service/cluster in the
 *   range (not scraping zonescope yet, or a selector that matches nothing: the message says which
 *   query found nothing and how to add the scrape job);
 * - `unavailable` — Prometheus failed (unreachable, timeout, error answer; the message says which, never a credential).
 */
export type HistoryStatus =
  | { readonly state: 'ok' }
  | { readonly state: 'not-configured'; readonly message: string }
  | { readonly state: 'no-data'; readonly message: string }
  | { readonly state: 'unavailable'; readonly message: string };

/** One step of a numeric series. */
export interface HistoryPoint {
  readonly t: number;
  readonly v: number | null;
}

/** A numeric series with a name to show (`eu-west-1a`, `predicted`, `measured`, …). */
export interface HistorySeries {
  readonly key: string;
  readonly label: string;
  readonly points: readonly HistoryPoint[];
}

/**
 * A stretch of time in one state (`on`/`off`/`partial`, a reason code, a mechanism, eligible/…).
 * `to` is `null` when the state lasts until the end of the range (ongoing). `fromExact`/`toExact`
 * say whether the edge was refined to the scrape resolution (see {@link HistoryTransition.precisionSeconds}).
 */
export interface HistoryInterval {
  readonly from: number;
  readonly to: number | null;
  readonly value: string;
  /** Text to show for `value` (`Hints off — Insufficient number of endpoints`). */
  readonly label: string;
}

/** A change of state found in the series. */
export interface HistoryTransition {
  /** First sample in the new state. */
  readonly at: number;
  /** How far before `at` the change may have happened (the gap to the previous sample: step or scrape interval). */
  readonly precisionSeconds: number;
  readonly kind: 'hints-on' | 'hints-off' | 'hints-partial' | 'expected-on' | 'expected-off' | 'mechanism' | 'eligible' | 'ineligible';
  readonly from: string;
  readonly to: string;
  /** Bounded reason code at `at` (the exporter's `reason` label; see lib/topology/report/hints-reason.ts), or `null`. */
  readonly reason: string | null;
  /** One sentence: `Hints turned off: Insufficient number of endpoints (3 ready, 3 zones need 4).` */
  readonly text: string;
}

/** Something to mark on the time axis. */
export interface HistoryMark {
  readonly at: number;
  readonly kind: 'event' | 'nodes' | 'toggle';
  /** `TopologyAwareHintsDisabled: Insufficient number of endpoints` · `Nodes 12 → 9` · `topology-mode Auto → (none)`. */
  readonly text: string;
}

/** Averages over one side of a before/after comparison. */
export interface HistoryWindowFigures {
  readonly from: number;
  readonly to: number;
  /** Steps with data in the window. */
  readonly samples: number;
  /** Share of the window's samples with hints on (0–1). */
  readonly hintsOnShare: number | null;
  /** Mean predicted cross-zone share (0–1). */
  readonly predictedCrossZone: number | null;
  /** Mean measured cross-zone share (0–1); `null` without measured flows. */
  readonly measuredCrossZone: number | null;
  /** Mean cross-zone $/month at the Service's volume. */
  readonly costPerMonth: number | null;
}

/**
 * Before/after the last change of the Service's mechanism (a topology-mode toggle or any edit that
 * changed it) within the range: equal windows on both sides, at most 24 h each.
 */
export interface HistoryComparison {
  readonly at: number;
  readonly mechanismBefore: string;
  readonly mechanismAfter: string;
  /** Whether both windows hold enough samples ({@link MIN_COMPARISON_SAMPLES}) to compare. */
  readonly enough: boolean;
  /** When not enough: what is missing (`needs 10 samples after the change; 4 so far — check again in about a minute`). */
  readonly message: string | null;
  readonly before: HistoryWindowFigures;
  readonly after: HistoryWindowFigures;
}

/** Samples each side of a comparison needs. */
export const MIN_COMPARISON_SAMPLES = 10;

/** Common fields of both answers. */
export interface HistoryFrame {
  readonly range: HistoryRange;
  /** Present when no range was asked for and `range` is the one the data covers (see lib/shared/history-range.ts). */
  readonly rangeFromData?: true;
  readonly start: number;
  readonly end: number;
  readonly stepSeconds: number;
  readonly status: HistoryStatus;
  /** The Prometheus read (display URL, no credentials), or `null` when not configured. */
  readonly prometheus: string | null;
}

/** `GET /api/v1/services/{ns}/{name}/history`. */
export interface ServiceHistory extends HistoryFrame {
  readonly namespace: string;
  readonly name: string;
  /** Observed hints: values `on` | `off` | `partial`. */
  readonly hintsObserved: readonly HistoryInterval[];
  /** Hints the controller should write: `on` | `off`. */
  readonly hintsExpected: readonly HistoryInterval[];
  /** Reason codes over time (the exporter's `zonescope_service_hints_reason_info`). */
  readonly reasons: readonly HistoryInterval[];
  /** Mechanism over time (`topology-mode`, `trafficDistribution`, `legacy-annotation`, `none`). */
  readonly mechanism: readonly HistoryInterval[];
  /** Newest last. */
  readonly transitions: readonly HistoryTransition[];
  /** Ready endpoints per zone, one series per zone (key = zone). */
  readonly readyEndpoints: readonly HistorySeries[];
  /** Per-zone minimum (only while `Auto` allocates), one series per zone. */
  readonly minimumEndpoints: readonly HistorySeries[];
  /** keys `predicted` (always) and `measured` (when measured flows existed). */
  readonly crossZone: readonly HistorySeries[];
  /** The Service's events (from the cluster, newest ones kept an hour by the API server), toggles and cluster node-count changes. */
  readonly marks: readonly HistoryMark[];
  readonly comparison: HistoryComparison | null;
}

/** `GET /api/v1/cluster/history`. */
export interface ClusterHistory extends HistoryFrame {
  /** `eligible` | `ineligible`, labels naming the node(s) and cause when known. */
  readonly eligibility: readonly HistoryInterval[];
  readonly transitions: readonly HistoryTransition[];
  /** Cross-zone $/month: keys `now`, `after-sync`, `best`. */
  readonly spend: readonly HistorySeries[];
  /** Nodes: key `nodes` (total), then one per zone. */
  readonly nodes: readonly HistorySeries[];
  /** Services: keys `hints-expected-on`, `hints-observed-on`, `needing-attention`. */
  readonly services: readonly HistorySeries[];
  readonly marks: readonly HistoryMark[];
}
