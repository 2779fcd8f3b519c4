/**
 * How far back a metric's data reaches in Prometheus, so the traffic source never rates over a
 * window longer than the data (it would divide the bytes by time without data and come out too
 * small). Cheap `count(selector offset D)` probes while the data is younger than the window: halving
 * from the window, then bisection, at most {@link MAX_PROBES_PER_METRIC} per metric; what a probe
 * found is kept between refreshes and aged with the clock, so the steady state costs no probe.
 */
import type { VectorSample } from './client';
import type { MetricsConfig } from './config';
import type { FlowPrefix } from './queries';
import { coverageProbeQuery, FLOW_PREFIXES, flowProbeSelector } from './queries';

/** Runs one instant query at `timeSeconds` (the traffic source counts it). */
export type CoverageQuery = (config: MetricsConfig, promql: string, timeSeconds: number) => Promise<VectorSample[]>;

/**
 * Data younger than this is no usable measurement yet (a rate needs a couple of scrapes): the
 * metric is left out of the refresh, and when nothing else has data the state stays `pending`.
 */
export const MIN_DATA_SECONDS = 10;

/** While the data is younger than the window, its age is probed again at most every this many refresh intervals (in between it is the last probe's age plus the time since). */
export const REPROBE_EVERY_REFRESHES = 10;

/** At most this many probe queries per metric and probe (halving from the window down to {@link MIN_DATA_SECONDS}, then a few bisection steps). */
export const MAX_PROBES_PER_METRIC = 24;

/** How far back one metric's data reaches, as the probe found it. */
export type Coverage = { readonly kind: 'absent' } | { readonly kind: 'young' } | { readonly kind: 'since'; readonly seconds: number };

/** What the last probe of one metric found (kept between refreshes). */
interface ProbeMemo {
  /** The data reaches back the whole window: never probed again (until its series vanish). */
  readonly full: boolean;
  /** At the probe: the data reached back at least this far (s). */
  readonly lowerSeconds: number;
  /** At the probe: the data did not reach back this far (s), `null` when it reached the window. */
  readonly upperSeconds: number | null;
  readonly atMs: number;
}

/** What the probes of each metric (by selector) found, kept between refreshes. */
export class CoverageProbes {
  private readonly query: CoverageQuery;
  private readonly probes = new Map<string, ProbeMemo>();

  constructor(query: CoverageQuery) {
    this.query = query;
  }

  /** Forgets what the probes of `selector` found (its series vanished: probe again next time). */
  forget(selector: string): void {
    this.probes.delete(selector);
  }

  private async present(config: MetricsConfig, selector: string, offsetSeconds: number, timeSeconds: number): Promise<boolean> {
    const samples = await this.query(config, coverageProbeQuery(selector, offsetSeconds), timeSeconds);
    return samples.some((s) => s.value > 0);
  }

  /**
   * How far back `selector`'s data reaches, capped at the window. Free (from the last probe) when
   * the data reached the whole window, or while the last probe is younger than
   * {@link REPROBE_EVERY_REFRESHES} refresh intervals (its age plus the time since: data only ages);
   * else `count(selector)`, then `count(selector offset D)` for D = the window, then halving down
   * to {@link MIN_DATA_SECONDS}, then bisection to within ⅛ — at most {@link MAX_PROBES_PER_METRIC}
   * instant queries.
   */
  async coverage(config: MetricsConfig, selector: string, windowSeconds: number, timeSeconds: number): Promise<Coverage> {
    const nowMs = timeSeconds * 1000;
    const memo = this.probes.get(selector);
    const elapsed = memo === undefined ? 0 : Math.max(0, (nowMs - memo.atMs) / 1000);
    if (memo?.full) return { kind: 'since', seconds: windowSeconds };
    // A window shorter than the minimum is its own minimum (a 5s window needs 5 s of data).
    const minSeconds = Math.min(MIN_DATA_SECONDS, windowSeconds);
    if (memo !== undefined && memo.lowerSeconds >= minSeconds && elapsed < REPROBE_EVERY_REFRESHES * config.refreshSeconds) {
      const seconds = memo.lowerSeconds + elapsed;
      if (seconds >= windowSeconds) {
        this.probes.set(selector, { full: true, lowerSeconds: windowSeconds, upperSeconds: null, atMs: nowMs });
        return { kind: 'since', seconds: windowSeconds };
      }
      return { kind: 'since', seconds };
    }
    if (!(await this.present(config, selector, 0, timeSeconds))) {
      this.probes.delete(selector);
      return { kind: 'absent' };
    }
    let probes = 1;
    // A known bound: the data did not reach back `upper` at the last probe, so not `upper + elapsed` now.
    const knownUpper = memo?.upperSeconds === null || memo?.upperSeconds === undefined ? windowSeconds : Math.min(windowSeconds, memo.upperSeconds + elapsed);
    let upper = windowSeconds;
    if (knownUpper >= windowSeconds) {
      probes += 1;
      if (await this.present(config, selector, windowSeconds, timeSeconds)) {
        this.probes.set(selector, { full: true, lowerSeconds: windowSeconds, upperSeconds: null, atMs: nowMs });
        return { kind: 'since', seconds: windowSeconds };
      }
    } else {
      upper = knownUpper;
    }
    let lower = 0;
    // Halving: the first offset the data reaches is within a factor 2 of its age. The last step
    // probes exactly the minimum, so data between it and twice it is not taken for too young.
    while (upper > minSeconds && probes < MAX_PROBES_PER_METRIC) {
      const d = Math.max(upper / 2, minSeconds);
      probes += 1;
      if (await this.present(config, selector, d, timeSeconds)) {
        lower = d;
        break;
      }
      upper = d;
    }
    if (lower === 0) {
      this.probes.set(selector, { full: false, lowerSeconds: 0, upperSeconds: upper, atMs: nowMs });
      return { kind: 'young' };
    }
    // Bisection between what it reaches and what it does not, to within an eighth.
    while (upper - lower > Math.max(lower / 8, 1) && probes < MAX_PROBES_PER_METRIC) {
      const mid = (lower + upper) / 2;
      probes += 1;
      if (await this.present(config, selector, mid, timeSeconds)) lower = mid;
      else upper = mid;
    }
    this.probes.set(selector, { full: false, lowerSeconds: lower, upperSeconds: upper, atMs: nowMs });
    return { kind: 'since', seconds: lower };
  }

  /** The flow family with series (`preferred` first) and its coverage. */
  async flowCoverage(config: MetricsConfig, preferred: FlowPrefix, windowSeconds: number, timeSeconds: number): Promise<{ prefix: FlowPrefix | null; coverage: Coverage }> {
    const order: FlowPrefix[] = [preferred, ...FLOW_PREFIXES.filter((p) => p !== preferred)];
    for (const prefix of order) {
      const coverage = await this.coverage(config, flowProbeSelector(prefix, config.selector), windowSeconds, timeSeconds);
      if (coverage.kind !== 'absent') return { prefix, coverage };
    }
    return { prefix: null, coverage: { kind: 'absent' } };
  }
}
