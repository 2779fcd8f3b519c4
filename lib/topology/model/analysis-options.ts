/**
 * The options of an analysis run (release, feature gates, client traffic per zone, traffic
 * volumes, the price of cross-zone traffic, resource types the source could not read) and their
 * resolution: defaults applied, and every rejected value left out and named in `problems`.
 */
import type { PriceSetting } from './cloud-pricing';
import { pricePerGbSetting } from './cloud-pricing';
import type { SourceResource } from './cluster-model';
import { SOURCE_RESOURCES } from './cluster-model';
import type { FeatureGateOverrides } from '../upstream/version';

/**
 * Monthly volume of a Service's traffic that earlier releases assumed for every Service. No longer
 * a default: without a measurement or a set volume a Service is assumed to move
 * {@link DEFAULT_GB_PER_ENDPOINT} GB per ready endpoint; a flat volume per Service applies only
 * when given ({@link AnalysisOptions.gbPerMonth}).
 */
export const DEFAULT_GB_PER_MONTH = 1000;

/**
 * GB per month assumed for each ready endpoint of a Service when nothing is measured or set (the
 * same figure as `DEFAULT_GB_PER_ENDPOINT` of analyses/traffic-volume.ts, which this layer cannot import).
 */
export const DEFAULT_GB_PER_ENDPOINT = 50;

/** Largest accepted volume in GB per month (per Service or per endpoint): 1 EB. */
export const MAX_GB_PER_MONTH = 1e9;

/** Largest accepted price per GB in USD (the legacy {@link AnalysisOptions.pricePerGb}). */
export const MAX_PRICE_PER_GB = 100;

/** Options of an analysis run. Every field is optional. */
export interface AnalysisOptions {
  /** Release to model instead of the cluster's own (`"1.30"`, `"v1.30.2"` or `30`). */
  readonly kubernetesVersion?: string | number | null;
  /** Feature gate overrides; absent gates take the modelled release's defaults. */
  readonly featureGates?: FeatureGateOverrides | null;
  /**
   * Share (0–1) of a Service's client traffic originating in each listed zone; unlisted zones
   * split the rest in proportion to their CPU (see `computeClientShareByZone`, cluster-context.ts).
   */
  readonly trafficByZone?: Readonly<Record<string, number>> | null;
  /**
   * Flat monthly traffic volume of every Service in GB, for Services with no measurement and no
   * volume of their own. Unset: {@link gbPerEndpoint} × ready endpoints.
   */
  readonly gbPerMonth?: number | null;
  /** GB per month assumed for each ready endpoint when nothing is measured or set (default {@link DEFAULT_GB_PER_ENDPOINT}). */
  readonly gbPerEndpoint?: number | null;
  /** Monthly volume in GB set for single Services, by `namespace/name`; wins over the assumptions, not over measurements. */
  readonly volumesByService?: Readonly<Record<string, number>> | null;
  /**
   * The price of cross-zone traffic: a cloud's price list or a price of the operator's own (see
   * model/cloud-pricing.ts). Unset: the price list of the cloud the cluster runs on, AWS's when
   * the platform is not recognised.
   */
  readonly crossZonePrice?: PriceSetting | null;
  /**
   * Legacy single price: USD per cross-zone GB in each of two directions (`N/GB x2`, AWS's way).
   * Ignored (and named in `problems`) when {@link crossZonePrice} is given too.
   */
  readonly pricePerGb?: number | null;
  /**
   * Resource types the source could not read (forbidden): their lists are empty because of the
   * identity's permissions, not because the cluster has none. Answers that depend on them are
   * reported as unknown (see `report/unknowns.ts`).
   */
  readonly unreadable?: readonly SourceResource[] | null;
}

/** Options with defaults applied (see {@link resolveAnalysisOptions}); invalid values are left out and named in `problems`. */
export interface ResolvedAnalysisOptions {
  /** Flat GB per Service per month, `null` when not given (volumes are then per ready endpoint). */
  readonly gbPerMonth: number | null;
  readonly gbPerEndpoint: number;
  /** Volumes set per Service (`namespace/name` → GB per month), keys sorted. */
  readonly volumesByService: Readonly<Record<string, number>>;
  /** The operator's price setting (from {@link AnalysisOptions.crossZonePrice} or the legacy `pricePerGb`), `null` for the platform's own. */
  readonly priceSetting: PriceSetting | null;
  readonly trafficByZone: Readonly<Record<string, number>> | null;
  readonly featureGates: FeatureGateOverrides;
  /** {@link AnalysisOptions.unreadable}, deduplicated, in {@link SOURCE_RESOURCES} order. */
  readonly unreadable: readonly SourceResource[];
  /** Option values that were rejected (the default is used instead), one sentence each. */
  readonly problems: readonly string[];
  /**
   * Identity of the measured traffic the report layer analyses with (`report/prepared-analysis.ts`
   * sets it; this layer does not read it), so that caches keyed on the options re-key when it changes.
   */
  readonly measuredKey?: string | null;
}

/** `unreadable` as a canonical list: known identifiers only, each once, in display order. */
export function resolveUnreadable(unreadable: readonly SourceResource[] | null | undefined): readonly SourceResource[] {
  if (!unreadable || unreadable.length === 0) return [];
  return SOURCE_RESOURCES.filter((id) => unreadable.includes(id));
}

/** Whether `value` is a number from 0 to `max`. */
function inRange(value: unknown, max: number): value is number {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 && value <= max;
}

/**
 * Options with defaults applied. A value that is not a number from 0 to its maximum (volumes
 * {@link MAX_GB_PER_MONTH}, price {@link MAX_PRICE_PER_GB}), or a per-Service volume whose key is not
 * `namespace/name`, is left out (its default applies) and named in `problems`.
 */
export function resolveAnalysisOptions(options: AnalysisOptions = {}): ResolvedAnalysisOptions {
  const problems: string[] = [];
  const number = (name: string, value: number | null | undefined, max: number): number | null => {
    if (value === null || value === undefined) return null;
    if (inRange(value, max)) return value;
    problems.push(`${name} must be a number from 0 to ${max}, got ${String(value)}; ignored.`);
    return null;
  };
  const volumesByService: Record<string, number> = {};
  const given = options.volumesByService ?? {};
  for (const key of Object.keys(given).sort()) {
    const value = given[key];
    const parts = key.split('/');
    if (parts.length !== 2 || !parts[0] || !parts[1]) problems.push(`volumesByService: "${key}" is not namespace/name; ignored.`);
    else if (!inRange(value, MAX_GB_PER_MONTH)) problems.push(`volumesByService["${key}"] must be a number of GB from 0 to ${MAX_GB_PER_MONTH}, got ${String(value)}; ignored.`);
    else volumesByService[key] = value;
  }
  return {
    gbPerMonth: number('gbPerMonth', options.gbPerMonth, MAX_GB_PER_MONTH),
    gbPerEndpoint: number('gbPerEndpoint', options.gbPerEndpoint, MAX_GB_PER_MONTH) ?? DEFAULT_GB_PER_ENDPOINT,
    volumesByService,
    priceSetting: priceSettingOf(options, number, problems),
    trafficByZone: options.trafficByZone ?? null,
    featureGates: options.featureGates ?? {},
    unreadable: resolveUnreadable(options.unreadable),
    problems,
  };
}

/** The price setting of the options: `crossZonePrice`, else the legacy `pricePerGb` (both given: the first, and a problem). */
function priceSettingOf(options: AnalysisOptions, number: (name: string, value: number | null | undefined, max: number) => number | null, problems: string[]): PriceSetting | null {
  const legacy = number('pricePerGb', options.pricePerGb, MAX_PRICE_PER_GB);
  if (options.crossZonePrice) {
    if (legacy !== null) problems.push('pricePerGb is ignored: crossZonePrice is given too.');
    return options.crossZonePrice;
  }
  return legacy === null ? null : pricePerGbSetting(legacy);
}
