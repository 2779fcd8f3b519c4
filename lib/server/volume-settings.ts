/**
 * The cluster's traffic volume settings, from the configuration (lib/config) once per process:
 * `ZONESCOPE_CROSS_ZONE_PRICE` (a cloud's price list or `USD/GB|GiB xN`; unset: the price list of
 * the cloud the cluster runs on) or the legacy `ZONESCOPE_PRICE_PER_GB` (USD per GB in each of two
 * directions), `ZONESCOPE_GB_PER_ENDPOINT`, `ZONESCOPE_GB_PER_SERVICE`, and
 * `ZONESCOPE_TRAFFIC_VOLUMES` (path of a JSON file `{ "namespace/name": GB per month, … }`). A value
 * the configuration cannot read stops the start; a volumes file that cannot be used sets no
 * per-Service volume and is reported (the metrics status' `settingsError`, and one warning).
 * Both the analysis (its assumptions and per-Service costs) and the cluster-wide traffic figures
 * read them here, so the two always agree.
 */
import 'server-only';

import { readFileSync } from 'node:fs';

import type { Config } from '../config/variables';
import { getConfig } from '../config/process-config';

import { defaultVolumeSettings } from '../topology/analyses/service-volume';
import type { VolumeSettings } from '../topology/analyses/traffic-volume';
import type { PriceSetting } from '../topology/model/cloud-pricing';
import { pricePerGbSetting } from '../topology/model/cloud-pricing';
import type { AnalysisOptions } from '../topology/model/analysis-options';

/** The settings read here. */
export type VolumeConfig = Pick<Config, 'ZONESCOPE_CROSS_ZONE_PRICE' | 'ZONESCOPE_PRICE_PER_GB' | 'ZONESCOPE_GB_PER_ENDPOINT' | 'ZONESCOPE_GB_PER_SERVICE' | 'ZONESCOPE_TRAFFIC_VOLUMES'>;

/** The settings of `config`, and why the volumes file cannot be used (`null` when it can, or none is set). */
export function volumeSettingsFromEnv(config: VolumeConfig): { readonly settings: VolumeSettings; readonly error: string | null } {
  // The configuration refuses both prices together; ZONESCOPE_CROSS_ZONE_PRICE would win.
  const pricePerGb = config.ZONESCOPE_PRICE_PER_GB;
  const priceSetting: PriceSetting | null = config.ZONESCOPE_CROSS_ZONE_PRICE ?? (pricePerGb === undefined ? null : pricePerGbSetting(pricePerGb));
  const setByService = new Map<string, number>();
  let error: string | null = null;
  const file = config.ZONESCOPE_TRAFFIC_VOLUMES;
  if (file) {
    const parsed = readVolumesFile(file);
    if (typeof parsed === 'string') error = parsed;
    else for (const [key, value] of parsed) setByService.set(key, value);
  }
  const partial: Partial<VolumeSettings> = {
    priceSetting,
    gbPerEndpoint: config.ZONESCOPE_GB_PER_ENDPOINT,
    ...(config.ZONESCOPE_GB_PER_SERVICE !== undefined ? { gbPerService: config.ZONESCOPE_GB_PER_SERVICE } : {}),
    setByService,
  };
  return { settings: defaultVolumeSettings(partial), error };
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

/** {@link volumeSettingsFromEnv} of this process' configuration, read once (a volumes file it cannot use is logged once). */
export function volumeSettingsMemo(): { readonly settings: VolumeSettings; readonly error: string | null } {
  const holder = globalThis as unknown as Holder;
  let found = holder[KEY];
  if (found === undefined) {
    found = volumeSettingsFromEnv(getConfig());
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
