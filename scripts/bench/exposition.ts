/**
 * What a Prometheus text exposition (format 0.0.4) holds, counted from the text alone: series
 * (sample lines), those of the per-Service `zonescope_service_*` families and the rest, the
 * Services and zones they name, duplicate series, series per family, and the exporter's own
 * gauges as scraped. Against it, the cardinality formula the exporter's docs give. Pure: the
 * metrics phase (metrics.ts) feeds it the scraped text.
 */

/** What one exposition text holds. */
export interface ExpositionCounts {
  /** Sample lines (one per series). */
  readonly series: number;
  /** Series of `zonescope_service_*` (labelled with a Service). */
  readonly serviceSeries: number;
  /** Every other series (cluster, informers, exporter, process and Node.js). */
  readonly clusterSeries: number;
  /** Of those, prom-client's default `process_*` and `nodejs_*` series. */
  readonly runtimeSeries: number;
  /** Distinct `namespace`/`service` pairs among the per-Service series. */
  readonly services: number;
  /** Distinct `zone` labels of `zonescope_zone_nodes` (the cluster's zones). */
  readonly zones: number;
  /** `zonescope_metrics_services_exported` / `_omitted` as scraped (`null` when absent). */
  readonly servicesExported: number | null;
  readonly servicesOmitted: number | null;
  /** `zonescope_cluster_synced` as scraped (`null` when absent). */
  readonly synced: number | null;
  /** Series that appear more than once (same name and labels); Prometheus rejects such a scrape. */
  readonly duplicateSeries: number;
  /** Series per metric family (the name before `{`). */
  readonly byFamily: Readonly<Record<string, number>>;
}

const SAMPLE = /^([A-Za-z_:][A-Za-z0-9_:]*)(\{(?:[^"}]|"(?:[^"\\]|\\.)*")*\})?\s+(\S+)/;

function labelValue(labels: string, name: string): string | null {
  const m = new RegExp(`(?:^|[{,])${name}="((?:[^"\\\\]|\\\\.)*)"`).exec(labels);
  return m ? (m[1] as string) : null;
}

/** Counts the series of a Prometheus text exposition (format 0.0.4). Lines it cannot read are not counted. */
export function countExposition(text: string): ExpositionCounts {
  const byFamily: Record<string, number> = {};
  const seen = new Set<string>();
  const services = new Set<string>();
  const zones = new Set<string>();
  let series = 0;
  let serviceSeries = 0;
  let runtimeSeries = 0;
  let duplicateSeries = 0;
  let servicesExported: number | null = null;
  let servicesOmitted: number | null = null;
  let synced: number | null = null;
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const m = SAMPLE.exec(line);
    if (!m) continue;
    const name = m[1] as string;
    const labels = m[2] ?? '';
    series++;
    byFamily[name] = (byFamily[name] ?? 0) + 1;
    const key = `${name}${labels}`;
    if (seen.has(key)) duplicateSeries++;
    else seen.add(key);
    if (name.startsWith('zonescope_service_')) {
      serviceSeries++;
      services.add(`${labelValue(labels, 'namespace') ?? ''}/${labelValue(labels, 'service') ?? ''}`);
    } else if (name.startsWith('process_') || name.startsWith('nodejs_')) {
      runtimeSeries++;
    }
    if (name === 'zonescope_zone_nodes') {
      const zone = labelValue(labels, 'zone');
      if (zone !== null) zones.add(zone);
    }
    const value = Number(m[3]);
    if (name === 'zonescope_metrics_services_exported') servicesExported = value;
    if (name === 'zonescope_metrics_services_omitted') servicesOmitted = value;
    if (name === 'zonescope_cluster_synced') synced = value;
  }
  return {
    series,
    serviceSeries,
    clusterSeries: series - serviceSeries,
    runtimeSeries,
    services: services.size,
    zones: zones.size,
    servicesExported,
    servicesOmitted,
    synced,
    duplicateSeries,
    byFamily,
  };
}

/** The cardinality formula of the docs: `Services × (8 + 2 × zones) + cluster series`. */
export function formulaSeries(counts: Pick<ExpositionCounts, 'services' | 'zones' | 'clusterSeries'>): number {
  return counts.services * (8 + 2 * counts.zones) + counts.clusterSeries;
}

/** Series per Service of each `zonescope_service_*` family (average over the exported Services). */
export function perServiceFamilies(counts: ExpositionCounts): { readonly family: string; readonly perService: number }[] {
  return Object.entries(counts.byFamily)
    .filter(([name]) => name.startsWith('zonescope_service_'))
    .map(([family, n]) => ({ family, perService: counts.services > 0 ? n / counts.services : 0 }))
    .sort((a, b) => b.perService - a.perService || a.family.localeCompare(b.family));
}
