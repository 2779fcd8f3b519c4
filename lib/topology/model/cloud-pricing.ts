/**
 * What a GB that crosses availability zones costs, per cloud. Every dollar figure of zonescope is
 * `cross-zone GB × costPerCrossZoneGb` of a {@link CrossZonePricing}, which says how it was found
 * (detected platform, assumed, or set) in one sentence shown beside every price.
 *
 * The clouds' in-region, inter-zone prices (docs/traffic.md, "What a cross-zone GB costs"):
 * - **AWS**: $0.01/GB leaving one Availability Zone and $0.01/GB entering the other — a GB that
 *   crosses zones is charged twice, $0.02.
 * - **Google Cloud**: $0.01 per GiB for VM-to-VM traffic between zones of a region, charged once
 *   (egress at the source; ingress is free). A GiB is 1.073741824 GB, so $0.00931 per GB.
 * - **Azure**: data transfer between availability zones of a region is not charged.
 *
 * A platform zonescope cannot detect is priced as AWS and the note says so. One setting
 * ({@link parsePriceSetting}) replaces price, unit and charged directions.
 *
 * @see https://aws.amazon.com/ec2/pricing/on-demand/#Data_Transfer_within_the_same_AWS_Region
 * @see https://cloud.google.com/vpc/network-pricing#vpc-pricing
 * @see https://learn.microsoft.com/azure/reliability/availability-zones-overview
 */

/** Bytes in a GB (what every volume of zonescope is counted in). */
export const BYTES_PER_GB = 1e9;

/** Bytes in a GiB (Google Cloud's billing unit). */
export const BYTES_PER_GIB = 2 ** 30;

/** The platforms whose cloud decides the price (the same names as `ClusterPlatform` of analyses/analyze-dataplane.ts). */
export type PricedPlatform = 'eks' | 'gke' | 'aks' | 'other';

/** The unit a price is quoted in. */
export type PriceUnit = 'GB' | 'GiB';

/** Whose price list a pricing follows. */
export type PriceCloud = 'aws' | 'gcp' | 'azure' | 'custom';

/**
 * How a pricing was found: `detected` from the cluster's platform, `assumed` (AWS's, the platform
 * was not recognised), `set` by the operator.
 */
export type PriceBasis = 'detected' | 'assumed' | 'set';

/** What the operator set (see {@link parsePriceSetting}): a cloud's price list, or a price of their own. */
export type PriceSetting =
  | { readonly kind: 'cloud'; readonly cloud: Exclude<PriceCloud, 'custom'> }
  | { readonly kind: 'custom'; readonly pricePerUnit: number; readonly unit: PriceUnit; readonly directions: 0 | 1 | 2 };

/** The price of cross-zone traffic as the figures use it. */
export interface CrossZonePricing {
  readonly cloud: PriceCloud;
  readonly basis: PriceBasis;
  /** USD per {@link unit} and charged direction. */
  readonly pricePerUnit: number;
  readonly unit: PriceUnit;
  /** How many times a transfer between two zones is charged: 2 (leaving and entering), 1 (once), 0 (free). */
  readonly directions: 0 | 1 | 2;
  /** USD per GB (10⁹ bytes) that crosses zones, all charges included. */
  readonly costPerCrossZoneGb: number;
  /** One sentence shown beside every price ("AWS (detected: …): $0.01/GB leaving one zone and $0.01/GB entering the other — $0.02 per cross-zone GB."). */
  readonly note: string;
}

/** The clouds' published in-region, inter-zone price lists. */
export const CLOUD_PRICES: Readonly<Record<Exclude<PriceCloud, 'custom'>, { readonly name: string; readonly pricePerUnit: number; readonly unit: PriceUnit; readonly directions: 0 | 1 | 2; readonly how: string }>> = {
  aws: { name: 'AWS', pricePerUnit: 0.01, unit: 'GB', directions: 2, how: '$0.01/GB leaving one zone and $0.01/GB entering the other' },
  gcp: { name: 'Google Cloud', pricePerUnit: 0.01, unit: 'GiB', directions: 1, how: '$0.01 per GiB between zones of a region, charged once' },
  azure: { name: 'Azure', pricePerUnit: 0, unit: 'GB', directions: 0, how: 'traffic between availability zones of a region is not charged' },
};

/** The cloud whose price list a platform follows. */
const CLOUD_OF_PLATFORM: Readonly<Record<PricedPlatform, Exclude<PriceCloud, 'custom'> | null>> = { eks: 'aws', gke: 'gcp', aks: 'azure', other: null };

const SETTING = /^\s*(\d+(?:\.\d+)?|\.\d+)\s*\/\s*(GB|GiB)\s*(?:[x×*]\s*([0-2]))?\s*$/i;

/** Largest accepted custom price, USD per unit and direction. */
export const MAX_PRICE_PER_UNIT = 100;

/**
 * Parses a price setting: a cloud (`aws`, `gcp`, `azure`), or `<USD>/<GB|GiB> x<directions>` with
 * 0–2 charged directions (`0.01/GB x2` is AWS's; `x` may be left out for 1). Returns an error
 * sentence for anything else.
 */
export function parsePriceSetting(text: string): { readonly ok: true; readonly setting: PriceSetting } | { readonly ok: false; readonly message: string } {
  const value = text.trim().toLowerCase();
  if (value === 'aws' || value === 'gcp' || value === 'azure') return { ok: true, setting: { kind: 'cloud', cloud: value } };
  const match = SETTING.exec(text);
  const price = match ? Number(match[1]) : Number.NaN;
  if (!match || !Number.isFinite(price) || price > MAX_PRICE_PER_UNIT) {
    return { ok: false, message: `must be aws, gcp, azure, or a price such as "0.01/GB x2" (USD per GB or GiB, charged 0, 1 or 2 times per cross-zone transfer; at most ${MAX_PRICE_PER_UNIT}), not "${text.slice(0, 40)}"` };
  }
  const unit: PriceUnit = (match[2] as string).toLowerCase() === 'gib' ? 'GiB' : 'GB';
  const directions = (match[3] === undefined ? 1 : Number(match[3])) as 0 | 1 | 2;
  return { ok: true, setting: { kind: 'custom', pricePerUnit: price, unit, directions } };
}

/** The setting of the legacy single price (`ZONESCOPE_PRICE_PER_GB`, `--price-per-gb`): USD per GB in each of two directions, as AWS charges. */
export function pricePerGbSetting(pricePerGb: number): PriceSetting {
  return { kind: 'custom', pricePerUnit: pricePerGb, unit: 'GB', directions: 2 };
}

/** A setting written back as {@link parsePriceSetting} reads it (`aws`, `0.01/GB x2`). */
export function formatPriceSetting(setting: PriceSetting): string {
  return setting.kind === 'cloud' ? setting.cloud : `${setting.pricePerUnit}/${setting.unit} x${setting.directions}`;
}

function usd(value: number): string {
  if (value === 0) return '$0';
  const digits = value >= 1 ? 2 : Math.min(6, Math.max(2, 1 - Math.floor(Math.log10(value)) + 1));
  return `$${Number(value.toFixed(digits))}`;
}

function costPerGb(pricePerUnit: number, unit: PriceUnit, directions: number): number {
  return pricePerUnit * directions * (unit === 'GiB' ? BYTES_PER_GB / BYTES_PER_GIB : 1);
}

function perGbSentence(cost: number, unit: PriceUnit): string {
  if (cost === 0) return 'a cross-zone GB costs nothing';
  return `${usd(cost)} per cross-zone GB${unit === 'GiB' ? ' (1 GiB = 1.074 GB)' : ''}`;
}

/**
 * The pricing the figures use: the operator's setting when there is one, else the price list of
 * the detected platform's cloud, else AWS's (assumed, and said so). `evidence` is what revealed the
 * platform (shown in the note).
 */
export function resolvePricing(platform: PricedPlatform, evidence: string | null, setting: PriceSetting | null): CrossZonePricing {
  if (setting !== null && setting.kind === 'custom') {
    const cost = costPerGb(setting.pricePerUnit, setting.unit, setting.directions);
    const charged = setting.directions === 0 ? 'not charged' : setting.directions === 1 ? 'charged once' : 'charged leaving one zone and entering the other';
    return {
      cloud: 'custom',
      basis: 'set',
      pricePerUnit: setting.pricePerUnit,
      unit: setting.unit,
      directions: setting.directions,
      costPerCrossZoneGb: cost,
      note: `Set: ${usd(setting.pricePerUnit)}/${setting.unit}, ${charged} — ${perGbSentence(cost, setting.unit)}.`,
    };
  }
  const detected = CLOUD_OF_PLATFORM[platform];
  const cloud = setting !== null ? setting.cloud : (detected ?? 'aws');
  const list = CLOUD_PRICES[cloud];
  const basis: PriceBasis = setting !== null ? 'set' : detected === null ? 'assumed' : 'detected';
  const cost = costPerGb(list.pricePerUnit, list.unit, list.directions);
  const why =
    basis === 'set'
      ? `${list.name} (set)`
      : basis === 'detected'
        ? `${list.name} (detected${evidence ? `: ${evidence}` : ''})`
        : `${list.name}'s price (assumed: the platform is not EKS, GKE or AKS as far as zonescope can tell; set ZONESCOPE_CROSS_ZONE_PRICE)`;
  return { cloud, basis, pricePerUnit: list.pricePerUnit, unit: list.unit, directions: list.directions, costPerCrossZoneGb: cost, note: `${why}: ${list.how} — ${perGbSentence(cost, list.unit)}.` };
}

/** {@link priceFormula} by pricing object: every cross-zone cost of a pass spells its pricing's. */
const PRICE_FORMULAS = new WeakMap<CrossZonePricing, string>();

/** AWS's pricing, assumed: what tests and callers without a cluster use. */
export const ASSUMED_AWS_PRICING: CrossZonePricing = resolvePricing('other', null, null);

/** USD of `crossZoneGb` GB that crossed zones. */
export function crossZoneDollars(crossZoneGb: number, pricing: CrossZonePricing): number {
  return crossZoneGb * pricing.costPerCrossZoneGb;
}

/** The price in a formula: `$0.01/GB × 2 directions`, `$0.01/GiB × 1 direction (÷ 1.074 GB per GiB)`, `not charged`. */
export function priceFormula(pricing: CrossZonePricing): string {
  let formula = PRICE_FORMULAS.get(pricing);
  if (formula === undefined) {
    formula = priceFormulaOf(pricing);
    PRICE_FORMULAS.set(pricing, formula);
  }
  return formula;
}

function priceFormulaOf(pricing: CrossZonePricing): string {
  if (pricing.directions === 0 || pricing.pricePerUnit === 0) return '$0 (not charged)';
  const base = `${usd(pricing.pricePerUnit)}/${pricing.unit} × ${pricing.directions} direction${pricing.directions === 1 ? '' : 's'}`;
  return pricing.unit === 'GiB' ? `${base} ÷ 1.074 GB per GiB` : base;
}
