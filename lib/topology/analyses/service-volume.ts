/**
 * A Service's monthly traffic volume and where it comes from, first found wins: a what-if for one
 * request, measured flows, measured pod bytes, the volume set for the Service, then the cluster's
 * assumption (flat per Service when configured, else per ready endpoint) — with the label shown
 * beside the figure. Assumed volumes are shared objects: thousands of Services have the same few.
 */
import type { MeasuredServiceTraffic, MeasuredTraffic, ServiceVolume, VolumeSettings, VolumeSource } from './traffic-volume';
import { DEFAULT_GB_PER_ENDPOINT } from './traffic-volume';

/** Volume settings with the defaults filled in (the platform's price, {@link DEFAULT_GB_PER_ENDPOINT}, no flat volume, nothing set). */
export function defaultVolumeSettings(partial: Partial<VolumeSettings> = {}): VolumeSettings {
  return {
    priceSetting: partial.priceSetting ?? null,
    gbPerEndpoint: partial.gbPerEndpoint ?? DEFAULT_GB_PER_ENDPOINT,
    gbPerService: partial.gbPerService ?? null,
    setByService: partial.setByService ?? new Map(),
  };
}

const FORMATS = [0, 1, 2, 3].map((digits) => new Intl.NumberFormat('en-US', { maximumFractionDigits: digits }));

/** A GB or dollar figure for a sentence: `1,234`, `12.5`, `0.125`. */
export function formatAmount(value: number): string {
  const abs = Math.abs(value);
  const format = FORMATS[abs >= 100 ? 0 : abs >= 10 ? 1 : abs >= 1 ? 2 : 3] as Intl.NumberFormat;
  return format.format(value);
}

/** Label of a what-if volume given for one request (the Service page's and API's `gbPerMonth`). */
export const WHAT_IF_LABEL = 'set here (what-if)';

/** Assumed volumes by settings and ready endpoints: the same few values for thousands of Services, labelled once. */
const ASSUMED = new WeakMap<VolumeSettings, Map<number, ServiceVolume>>();

/** Entries of one settings' {@link ASSUMED} table before it starts over. */
const ASSUMED_LIMIT = 5_000;

function assumedVolume(settings: VolumeSettings, readyEndpoints: number): ServiceVolume {
  const ready = Math.max(0, readyEndpoints);
  let table = ASSUMED.get(settings);
  if (!table) {
    table = new Map();
    ASSUMED.set(settings, table);
  }
  const key = settings.gbPerService !== null ? -1 : ready;
  let volume = table.get(key);
  if (volume === undefined) {
    volume =
      settings.gbPerService !== null
        ? {
            gbPerMonth: settings.gbPerService,
            source: { kind: 'assumed', label: `assumed: ${formatAmount(settings.gbPerService)} GB per Service per month (flat)`, metric: null, window: null },
            measuredMatrix: null,
          }
        : {
            gbPerMonth: settings.gbPerEndpoint * ready,
            source: { kind: 'assumed', label: `assumed: ${formatAmount(settings.gbPerEndpoint)} GB per ready endpoint per month × ${ready}`, metric: null, window: null },
            measuredMatrix: null,
          };
    if (table.size >= ASSUMED_LIMIT) table.clear();
    table.set(key, volume);
  }
  return volume;
}

/** The sources of one measurement's volumes by kind and metric (every measured Service of a kind shares one). */
const MEASURED_SOURCES = new WeakMap<MeasuredTraffic, Map<string, VolumeSource>>();

/**
 * The source of a volume `measured` gives a Service: the same object for every Service measured
 * the same way (a pass re-prices every Service after each measurement, and a label spelled out per
 * Service was ~10,000 strings and their objects a generation at realistic L).
 */
function measuredSource(measured: MeasuredTraffic, found: MeasuredServiceTraffic): VolumeSource {
  let byKind = MEASURED_SOURCES.get(measured);
  if (byKind === undefined) {
    byKind = new Map();
    MEASURED_SOURCES.set(measured, byKind);
  }
  const key = `${found.kind}\u0000${found.metric}`;
  let source = byKind.get(key);
  if (source === undefined) {
    const flows = found.kind === 'measured-flows';
    source = { kind: found.kind, label: `measured: ${found.metric}, rate over ${measured.window}${flows ? '' : ' (zone split modelled)'}`, metric: found.metric, window: measured.window };
    byKind.set(key, source);
  }
  return source;
}

/**
 * A Service's volume, first found wins: a what-if for this request, then measured flows, then
 * measured pod bytes, then the volume set for the Service, then the assumption (flat per Service
 * when configured, else per ready endpoint). `key` is `namespace/name`. Assumed volumes are shared
 * objects (read-only).
 */
export function resolveServiceVolume(
  key: string,
  readyEndpoints: number,
  settings: VolumeSettings,
  measured: MeasuredTraffic | null,
  whatIfGbPerMonth: number | null = null,
): ServiceVolume {
  if (whatIfGbPerMonth !== null && Number.isFinite(whatIfGbPerMonth) && whatIfGbPerMonth >= 0) {
    return { gbPerMonth: whatIfGbPerMonth, source: { kind: 'set', label: WHAT_IF_LABEL, metric: null, window: null }, measuredMatrix: null };
  }
  const found = measured?.byService.get(key);
  if (found !== undefined && measured !== null) {
    return { gbPerMonth: found.gbPerMonth, source: measuredSource(measured, found), measuredMatrix: found.kind === 'measured-flows' ? found.matrix : null };
  }
  const set = settings.setByService.size > 0 ? settings.setByService.get(key) : undefined;
  if (set !== undefined) {
    return { gbPerMonth: set, source: { kind: 'set', label: `set: ${formatAmount(set)} GB per month for this Service`, metric: null, window: null }, measuredMatrix: null };
  }
  return assumedVolume(settings, readyEndpoints);
}
