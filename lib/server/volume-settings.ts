/**
 * The cluster's traffic volume settings, read from the environment once per process:
 * `ZONESCOPE_CROSS_ZONE_PRICE` (a cloud's price list or `USD/GB|GiB xN`; unset: the price list of
 * the cloud the cluster runs on) or the legacy `ZONESCOPE_PRICE_PER_GB` (USD per GB in each of two
 * directions), `ZONESCOPE_GB_PER_ENDPOINT`, `ZONESCOPE_GB_PER_SERVICE`, and
 * `ZONESCOPE_TRAFFIC_VOLUMES` (path of a JSON file `{ "namespace/name": GB per month, … }`). A bad
 * value keeps the defaults and is reported (the metrics status' `settingsError`, and one warning).
 * Both the analysis (its assumptions and per-Service costs) and the cluster-wide traffic figures
 * read them here, so the two always agree.
 */
import 'server-only';

import { readFileSync } from 'node:fs';

import { defaultVolumeSettings } from '../topology/analyses/cluster-traffic';
import type { VolumeSettings } from '../topology/analyses/traffic-volume';
import type { PriceSetting } from '../topology/model/cloud-pricing';
import { parsePriceSetting, pricePerGbSetting } from '../topology/model/cloud-pricing';
import type { AnalysisOptions } from '../topology/model/cluster-context';

type Env = Readonly<Record<string, string | undefined>>;

/** Settings read from `env`, and the first problem found (the defaults are kept for a bad value). */
export function volumeSettingsFromEnv(env: Env): { readonly settings: VolumeSettings; readonly error: string | null } {
  const errors: string[] = [];
  const nonNegative = (name: string): number | null => {
    const raw = env[name]?.trim();
    if (raw === undefined || raw === '') return null;
    const value = Number(raw);
    if (!Number.isFinite(value) || value < 0) {
      errors.push(`${name} must be a number ≥ 0, not "${raw.slice(0, 40)}"; the default is used.`);
      return null;
    }
    return value;
  };
  const pricePerGb = nonNegative('ZONESCOPE_PRICE_PER_GB');
  let priceSetting: PriceSetting | null = pricePerGb === null ? null : pricePerGbSetting(pricePerGb);
  const rawPrice = env.ZONESCOPE_CROSS_ZONE_PRICE?.trim();
  if (rawPrice) {
    const parsed = parsePriceSetting(rawPrice);
    if (!parsed.ok) errors.push(`ZONESCOPE_CROSS_ZONE_PRICE ${parsed.message}; the cluster's own cloud price is used.`);
    else if (pricePerGb !== null) errors.push('ZONESCOPE_PRICE_PER_GB and ZONESCOPE_CROSS_ZONE_PRICE are both set: ZONESCOPE_CROSS_ZONE_PRICE is used.');
    if (parsed.ok) priceSetting = parsed.setting;
  }
  const gbPerEndpoint = nonNegative('ZONESCOPE_GB_PER_ENDPOINT');
  const gbPerService = nonNegative('ZONESCOPE_GB_PER_SERVICE');
  const setByService = new Map<string, number>();
  const file = env.ZONESCOPE_TRAFFIC_VOLUMES?.trim();
  if (file) {
    const parsed = readVolumesFile(file);
    if (typeof parsed === 'string') errors.push(parsed);
    else for (const [key, value] of parsed) setByService.set(key, value);
  }
  const partial: Partial<VolumeSettings> = {
    priceSetting,
    ...(gbPerEndpoint !== null ? { gbPerEndpoint } : {}),
    ...(gbPerService !== null ? { gbPerService } : {}),
    setByService,
  };
  return { settings: defaultVolumeSettings(partial), error: errors.length === 0 ? null : errors.join(' ') };
}

/** The per-Service volumes file: `{ "namespace/name": GB, … }`; a message when it cannot be used (nothing of it is used then). */
export function readVolumesFile(file: string): ReadonlyMap<string, number> | string {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return `ZONESCOPE_TRAFFIC_VOLUMES (${file}) cannot be read; no per-Service volumes are set.`;
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return `ZONESCOPE_TRAFFIC_VOLUMES (${file}) is not JSON; expected {"namespace/name": GB per month, …}. No per-Service volumes are set.`;
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    return `ZONESCOPE_TRAFFIC_VOLUMES (${file}) must hold a JSON object {"namespace/name": GB per month, …}. No per-Service volumes are set.`;
  }
  const map = new Map<string, number>();
  for (const [key, value] of Object.entries(parsed as Record<string, unknown>)) {
    if (!/^[^/\s]+\/[^/\s]+$/.test(key)) return `ZONESCOPE_TRAFFIC_VOLUMES (${file}): "${key.slice(0, 80)}" is not namespace/name. No per-Service volumes are set.`;
    if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) {
      return `ZONESCOPE_TRAFFIC_VOLUMES (${file}): the volume of ${key} must be a number of GB ≥ 0. No per-Service volumes are set.`;
    }
    map.set(key, value);
  }
  return map;
}


const KEY = Symbol.for('zonescope.volumeSettings');
type Holder = { [KEY]?: { readonly settings: VolumeSettings; readonly error: string | null } };

/** {@link volumeSettingsFromEnv} of this process' environment, read once (the first problem is logged once). */
export function volumeSettingsMemo(): { readonly settings: VolumeSettings; readonly error: string | null } {
  const holder = globalThis as unknown as Holder;
  let found = holder[KEY];
  if (found === undefined) {
    found = volumeSettingsFromEnv(process.env);
    if (found.error !== null) console.warn(`[zonescope] traffic volumes: ${found.error}`);
    holder[KEY] = found;
  }
  return found;
}

/** The volume settings as analysis options (price, assumption, per-Service volumes). */
export function volumeAnalysisOptions(): AnalysisOptions {
  const { settings } = volumeSettingsMemo();
  return {
    crossZonePrice: settings.priceSetting,
    gbPerEndpoint: settings.gbPerEndpoint,
    gbPerMonth: settings.gbPerService,
    volumesByService: Object.fromEntries(settings.setByService),
  };
}
