/**
 * The per-Service block of `GET /metrics` (about 14 series per Service, 10,000 Services at size L):
 * the Services within `ZONESCOPE_METRICS_MAX_SERVICES`, their lines (service-series.ts) assembled
 * family by family into one UTF-8 buffer, and the last block kept while the analysis, the traffic
 * figures and the cap are unchanged, so a scrape of an unchanged cluster sends the same bytes again.
 *
 * It is written directly in prom-client's text format (same HELP/TYPE lines, label escaping and
 * number formatting) rather than through `Gauge.set()` per label set, which is several times slower
 * at that size and formats everything again per scrape (figures in docs/metrics.md).
 */
import type { ServiceTrafficCost } from '../../topology/analyses/traffic-volume';
import type { ClusterAnalysis, ServiceReport } from '../../topology/report/analysis-schema';
import { hintsRequested } from '../../topology/report/hints-reason';
import type { ExporterTraffic } from './input';
import type { Fragment, ZoneLabels } from './service-series';
import { costKeyOf, observedHintsRatio, SERVICE_FAMILIES, serviceFragment, serviceKey } from './service-series';
import { escapeHelp, escapeLabelValue } from './text-format';

/** The per-Service block of one (analysis, traffic figures, cap), with its aggregates. */
export interface ServiceBlock {
  /** The text as UTF-8 (families separated by a blank line, ending in a newline); empty when there are no Services. */
  readonly bytes: Uint8Array;
  /** The same as a string (decoded when first read). */
  readonly text: string;
  /** Services with per-Service series / left out by the cap. */
  readonly exported: number;
  readonly omitted: number;
  /** Sample lines written. */
  readonly series: number;
  /** Over every Service (exported or not): `hints_expected` 1, and hints on now (observed ratio 1). */
  readonly hintsExpected: number;
  readonly hintsObserved: number;
}

/** The Services that get series when there are more than `max`: asking for hints or needing attention first, then cross-zone $ descending, then namespace/name. */
export function servicesWithinCap(reports: readonly ServiceReport[], costOf: (report: ServiceReport) => number, max: number): readonly ServiceReport[] {
  if (reports.length <= max) return reports;
  const ranked = reports.map((report, order) => ({ order, first: hintsRequested(report) || report.needsAttention !== null ? 0 : 1, cost: costOf(report) }));
  ranked.sort((a, b) => a.first - b.first || b.cost - a.cost || a.order - b.order);
  const kept = new Set(ranked.slice(0, Math.max(0, max)).map((r) => r.order));
  // Keep the analysis's order (namespace, name) in the output.
  return reports.filter((_, order) => kept.has(order));
}

/**
 * Renders the per-Service block (see {@link serviceBlock} for the cache of whole blocks). Each
 * Service's lines are kept with its report object, so a render after a change writes only the
 * Services whose report or traffic figures changed.
 */
export function renderServiceBlock(analysis: ClusterAnalysis, traffic: ExporterTraffic | null, maxServices: number): ServiceBlock {
  const byService = traffic?.byService ?? null;
  const costOf = (report: ServiceReport): number => byService?.get(serviceKey(report))?.monthlyCost ?? report.traffic.monthlyCost.now.monthlyCost;
  const names = analysis.cluster.zones.map((zone) => zone.name);
  const zones: ZoneLabels = { key: names.join('\u0000'), names, escaped: names.map(escapeLabelValue), set: new Set(names) };
  const exportedReports = servicesWithinCap(analysis.services, costOf, maxServices);
  const fragmentsInOrder: Fragment[] = [];
  let series = 0;
  for (const report of exportedReports) {
    const cost = byService?.get(serviceKey(report)) ?? null;
    const fragment = serviceFragment(report, cost, zones, costKeyOf(cost));
    series += fragment.series;
    fragmentsInOrder.push(fragment);
  }
  let hintsExpected = 0;
  let hintsObserved = 0;
  for (const report of analysis.services) {
    if (report.expected.hintsEnabled) hintsExpected++;
    if (report.observed.readyEndpoints > 0 && observedHintsRatio(report) === 1) hintsObserved++;
  }
  // Family by family, every Service's part written straight into one buffer (no 13 MB string in between).
  const headers = SERVICE_FAMILIES.map(([name, help]) => `# HELP ${name} ${escapeHelp(help)}\n# TYPE ${name} gauge\n`);
  let total = 0;
  const familyBytes = SERVICE_FAMILIES.map((_, f) => {
    let sum = 0;
    for (const fragment of fragmentsInOrder) sum += fragment.byteLengths[f] as number;
    return sum;
  });
  familyBytes.forEach((sum, f) => {
    if (sum > 0) total += (total === 0 ? 0 : 1) + Buffer.byteLength(headers[f] as string) + sum;
  });
  const bytes = Buffer.allocUnsafe(total);
  let offset = 0;
  familyBytes.forEach((sum, f) => {
    if (sum === 0) return;
    if (offset > 0) offset += bytes.write('\n', offset);
    offset += bytes.write(headers[f] as string, offset);
    for (const fragment of fragmentsInOrder) {
      const part = fragment.parts[f] as string;
      if (part !== '') offset += bytes.write(part, offset);
    }
  });
  let text: string | null = null;
  return {
    bytes,
    get text(): string {
      return (text ??= bytes.toString('utf8'));
    },
    exported: exportedReports.length,
    omitted: analysis.services.length - exportedReports.length,
    series,
    hintsExpected,
    hintsObserved,
  };
}

interface BlockCache {
  readonly analysis: ClusterAnalysis;
  readonly byService: ReadonlyMap<string, ServiceTrafficCost> | null;
  readonly maxServices: number;
  readonly block: ServiceBlock;
}

/** The last block rendered (module state: only the `/metrics` route renders it). */
let blockCache: BlockCache | null = null;

/**
 * The per-Service block, rendered once per (analysis object, traffic figures object, cap) and
 * returned as the same object while all three are unchanged.
 */
export function serviceBlock(analysis: ClusterAnalysis, traffic: ExporterTraffic | null, maxServices: number): ServiceBlock {
  const cached = blockCache;
  const byService = traffic?.byService ?? null;
  if (cached && cached.analysis === analysis && cached.byService === byService && cached.maxServices === maxServices) return cached.block;
  const block = renderServiceBlock(analysis, traffic, maxServices);
  blockCache = { analysis, byService, maxServices, block };
  return block;
}
