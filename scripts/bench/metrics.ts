/**
 * Issue 14's metrics phase in `npm run bench`: what a Prometheus scrape of the dashboard's
 * `GET /metrics` costs on the generated cluster, on a server no one has scraped yet.
 *
 * - the scrape's size: sample lines (series), per-Service and cluster series, bytes of the plain
 *   text and on the wire when asked as Prometheus asks (`Accept-Encoding: gzip`), duplicate series;
 * - the per-Service series against the cardinality formula `Services × (8 + 2 × zones) + cluster
 *   series`, and per metric family (which series a Service actually carries);
 * - the first scrape after sync (it renders and caches the per-Service block), then warm scrapes
 *   (cached block; gzip as Prometheus, and plain) beside `GET /api/v1/cluster` and the overview
 *   page measured the same way (sequential requests over keep-alive after warm-up requests);
 * - scrapes once a second for a while, with a reader requesting `/api/v1/cluster` back to back
 *   meanwhile: does scraping slow readers down? And the simulator's non-watch requests over the
 *   phase (scraping must never call the API server: 0);
 * - server RSS before the first scrape and after the scraping window;
 * - `promtool check metrics` on the plain scrape (exit code and lint lines).
 *
 * Then the phase's fields of the final JSON object and the table the bench prints. The scrape
 * itself is scrape.ts, the counting exposition.ts, the lint promtool.ts. Figures only: nothing
 * here asserts a time.
 */
import { nonWatchRequests, resetSimStats, simStats } from './cluster';
import type { ExpositionCounts } from './exposition';
import { countExposition, formulaSeries, perServiceFamilies } from './exposition';
import type { LatencyStats, Timed } from './http';
import { latencyStats, measure, timedRequest } from './http';
import type { PromtoolResult } from './promtool';
import { promtoolCheck } from './promtool';
import type { Scrape } from './scrape';
import { scrape } from './scrape';

/** What the metrics phase measured. */
export interface MetricsFigures {
  readonly path: string;
  readonly counts: ExpositionCounts;
  readonly formula: number;
  readonly plainBytes: number;
  /** Bytes on the wire when asked with `Accept-Encoding: gzip`, and the encoding the server used. */
  readonly gzipWireBytes: number;
  readonly contentEncoding: string;
  readonly contentType: string;
  /** The first scrape after sync (renders the per-Service block), as Prometheus asks. */
  readonly firstScrapeMs: number;
  /** Warm scrapes (cached block): with gzip as Prometheus asks, and plain. */
  readonly scrapeGzip: LatencyStats;
  readonly scrapePlain: LatencyStats;
  /** Server CPU time per warm scrape (every thread, so deflate on the thread pool counts), gzip and plain; `null` without /proc. */
  readonly cpuPerGzipScrapeMs: number | null;
  readonly cpuPerPlainScrapeMs: number | null;
  /** The same method on `/api/v1/cluster` and the overview page. */
  readonly cluster: LatencyStats;
  readonly page: LatencyStats;
  /** The scraping window: scrapes at `intervalMs` for `seconds` while a reader requests `/api/v1/cluster`. */
  readonly window: {
    readonly seconds: number;
    readonly intervalMs: number;
    readonly scrapes: LatencyStats;
    /** Each scrape's time in order (a slow one every few seconds is the block re-rendered for a new analysis or traffic answer). */
    readonly scrapeMs: readonly number[];
    readonly reader: LatencyStats;
  };
  /** Simulator requests other than watches from the first scrape to the end of the window. */
  readonly simRequests: number;
  readonly simRequestsByResourceVerb: Readonly<Record<string, number>>;
  readonly rssBeforeMiB: number;
  readonly rssAfterMiB: number;
  readonly promtool: PromtoolResult;
}

function asTimed(s: Scrape): Timed {
  return { status: s.status, ms: s.ms, bytes: s.wireBytes, body: '', headers: {} };
}

/** `n` sequential timed scrapes (after the caller's warm-up). */
async function scrapes(url: string, n: number, gzip: boolean): Promise<LatencyStats> {
  const samples: Timed[] = [];
  for (let i = 0; i < n; i++) samples.push(asTimed(await scrape(url, { gzip })));
  return latencyStats(samples);
}

/** One reader request; a transport error is a sample with status 0. */
async function attempt(url: string): Promise<Timed> {
  const startedAt = performance.now();
  try {
    return await timedRequest(url, { keepBody: false });
  } catch {
    return { status: 0, ms: performance.now() - startedAt, bytes: 0, body: '', headers: {} };
  }
}

/** Runs the metrics phase against a synced server that no one has scraped yet. */
export async function metricsPhase(options: {
  readonly serverUrl: string;
  readonly simUrl: string;
  /** Timed requests per URL (warm scrapes, `/api/v1/cluster`, the page). */
  readonly requests: number;
  /** Seconds of the scraping window (scrapes every `intervalMs`). */
  readonly seconds: number;
  readonly intervalMs?: number;
  /** Default `/metrics`. */
  readonly path?: string;
  /** Server RSS in MiB now. */
  readonly rssMiB: () => number;
  /** Server CPU time in ms so far (`treeCpuMs` of process-tree.ts), or `null` where it cannot be read. */
  readonly cpuMs?: () => number | null;
  readonly log: (line: string) => void;
}): Promise<MetricsFigures> {
  const { serverUrl, log } = options;
  const path = options.path ?? '/metrics';
  const url = `${serverUrl}${path}`;
  const intervalMs = options.intervalMs ?? 1000;
  const rssBeforeMiB = options.rssMiB();
  await resetSimStats(options.simUrl);

  const first = await scrape(url, { gzip: true, timeoutMs: 120_000 });
  if (first.status !== 200) throw new Error(`GET ${path} answered ${first.status}: ${first.text.slice(0, 200)}`);
  const plain = await scrape(url, { gzip: false, timeoutMs: 120_000 });
  const counts = countExposition(plain.text);
  const formula = formulaSeries(counts);
  log(
    `${path}: first scrape ${first.ms.toFixed(1)} ms (${first.contentEncoding}, ${(first.wireBytes / 1024).toFixed(0)} KiB); ${counts.series} series ` +
      `(${counts.serviceSeries} for ${counts.services} Services, ${counts.clusterSeries} cluster), ${(plain.wireBytes / 1024).toFixed(0)} KiB plain`,
  );
  if (counts.synced !== 1) log(`warning: the scrape says zonescope_cluster_synced ${counts.synced ?? 'absent'}`);
  const promtool = await promtoolCheck(plain.text);
  log(`promtool check metrics: exit ${promtool.exitCode ?? 'not run'} in ${promtool.ms.toFixed(0)} ms${promtool.lines.length ? `: ${promtool.lines.slice(0, 5).join(' | ')}` : ''}`);

  const cpu = options.cpuMs ?? (() => null);
  const perScrape = (before: number | null, n: number) => {
    const after = cpu();
    return before === null || after === null || after <= 0 ? null : (after - before) / n;
  };
  const warmUp = async (gzip: boolean) => {
    for (let i = 0; i < 2; i++) await scrape(url, { gzip });
  };
  await warmUp(true);
  let cpuBefore = cpu();
  const scrapeGzip = await scrapes(url, options.requests, true);
  const cpuPerGzipScrapeMs = perScrape(cpuBefore, options.requests);
  await warmUp(false);
  cpuBefore = cpu();
  const scrapePlain = await scrapes(url, options.requests, false);
  const cpuPerPlainScrapeMs = perScrape(cpuBefore, options.requests);
  const cluster = await measure(`${serverUrl}/api/v1/cluster`, options.requests);
  const page = await measure(`${serverUrl}/`, options.requests);
  const cpuText = cpuPerGzipScrapeMs !== null && cpuPerPlainScrapeMs !== null ? ` (server CPU per scrape ${cpuPerGzipScrapeMs.toFixed(1)} / ${cpuPerPlainScrapeMs.toFixed(1)} ms)` : '';
  log(`warm scrapes p50/p95: gzip ${scrapeGzip.p50.toFixed(1)}/${scrapeGzip.p95.toFixed(1)} ms, plain ${scrapePlain.p50.toFixed(1)}/${scrapePlain.p95.toFixed(1)} ms${cpuText}; /api/v1/cluster ${cluster.p95.toFixed(1)} ms p95, page / ${page.p95.toFixed(1)} ms p95`);

  // The window: a scrape every intervalMs (as Prometheus: the next starts on the tick, or when the previous ends), a reader back to back.
  const startedAt = performance.now();
  const until = startedAt + options.seconds * 1000;
  const windowScrapes: Timed[] = [];
  const reads: Timed[] = [];
  await Promise.all([
    (async () => {
      const ticks = Math.max(1, Math.ceil((options.seconds * 1000) / intervalMs));
      for (let tick = 0; tick < ticks; tick++) {
        const wait = startedAt + tick * intervalMs - performance.now();
        if (wait > 0) await new Promise((r) => setTimeout(r, wait));
        const sentAt = performance.now();
        // A failed scrape (reset, timeout) counts as an error with the time it took.
        windowScrapes.push(asTimed(await scrape(url, { gzip: true }).catch(() => ({ status: 0, ms: performance.now() - sentAt, wireBytes: 0, text: '', contentType: '', contentEncoding: '' }))));
      }
    })(),
    (async () => {
      while (performance.now() < until) reads.push(await attempt(`${serverUrl}/api/v1/cluster`));
    })(),
  ]);
  const window = { seconds: (performance.now() - startedAt) / 1000, intervalMs, scrapes: latencyStats(windowScrapes), scrapeMs: windowScrapes.map((s) => s.ms), reader: latencyStats(reads) };
  const sim = nonWatchRequests(await simStats(options.simUrl));
  const rssAfterMiB = options.rssMiB();
  log(
    `scraping every ${intervalMs} ms for ${window.seconds.toFixed(0)} s: ${window.scrapes.n} scrapes (p95 ${window.scrapes.p95.toFixed(1)} ms, max ${window.scrapes.max.toFixed(1)} ms); ` +
      `reader /api/v1/cluster ${window.reader.n} requests, p95 ${window.reader.p95.toFixed(1)} ms (without scraping ${cluster.p95.toFixed(1)} ms); simulator non-watch requests ${sim.total}; RSS ${rssBeforeMiB.toFixed(0)} → ${rssAfterMiB.toFixed(0)} MiB`,
  );
  return {
    path,
    counts,
    formula,
    plainBytes: plain.wireBytes,
    gzipWireBytes: first.wireBytes,
    contentEncoding: first.contentEncoding,
    contentType: plain.contentType,
    firstScrapeMs: first.ms,
    scrapeGzip,
    scrapePlain,
    cpuPerGzipScrapeMs,
    cpuPerPlainScrapeMs,
    cluster,
    page,
    window,
    simRequests: sim.total,
    simRequestsByResourceVerb: sim.byResourceVerb,
    rssBeforeMiB,
    rssAfterMiB,
    promtool,
  };
}

const r1 = (v: number) => Math.round(v * 10) / 10;

/** The flat fields of the final JSON object (documented in BENCHMARKS.md). */
export interface MetricsFields {
  readonly metricsSeries: number;
  readonly metricsServiceSeries: number;
  readonly metricsClusterSeries: number;
  readonly metricsServices: number;
  readonly metricsZones: number;
  readonly metricsFormulaSeries: number;
  readonly metricsDuplicateSeries: number;
  readonly metricsKiB: number;
  readonly metricsGzipKiB: number;
  readonly metricsContentEncoding: string;
  readonly metricsFirstScrapeMs: number;
  readonly metricsScrapeP50Ms: number;
  readonly metricsScrapeP95Ms: number;
  readonly metricsPlainScrapeP95Ms: number;
  /** Server CPU time per warm scrape, gzip and plain (`null` without /proc). */
  readonly metricsScrapeCpuMs: number | null;
  readonly metricsPlainScrapeCpuMs: number | null;
  readonly metricsClusterP95Ms: number;
  readonly metricsPageP95Ms: number;
  readonly metricsWindowScrapes: number;
  readonly metricsWindowScrapeP95Ms: number;
  readonly metricsWindowScrapeMaxMs: number;
  readonly metricsReaderP95Ms: number;
  readonly metricsReaderMaxMs: number;
  readonly metricsSimRequests: number;
  readonly metricsRssBeforeMiB: number;
  readonly metricsRssAfterMiB: number;
  /** `promtool check metrics` exit code (`null`: not installed) and its first output lines. */
  readonly promtoolExit: number | null;
  readonly promtoolLines: readonly string[];
}

export function metricsFields(f: MetricsFigures): MetricsFields {
  return {
    metricsSeries: f.counts.series,
    metricsServiceSeries: f.counts.serviceSeries,
    metricsClusterSeries: f.counts.clusterSeries,
    metricsServices: f.counts.services,
    metricsZones: f.counts.zones,
    metricsFormulaSeries: f.formula,
    metricsDuplicateSeries: f.counts.duplicateSeries,
    metricsKiB: r1(f.plainBytes / 1024),
    metricsGzipKiB: r1(f.gzipWireBytes / 1024),
    metricsContentEncoding: f.contentEncoding,
    metricsFirstScrapeMs: r1(f.firstScrapeMs),
    metricsScrapeP50Ms: r1(f.scrapeGzip.p50),
    metricsScrapeP95Ms: r1(f.scrapeGzip.p95),
    metricsPlainScrapeP95Ms: r1(f.scrapePlain.p95),
    metricsScrapeCpuMs: f.cpuPerGzipScrapeMs === null ? null : r1(f.cpuPerGzipScrapeMs),
    metricsPlainScrapeCpuMs: f.cpuPerPlainScrapeMs === null ? null : r1(f.cpuPerPlainScrapeMs),
    metricsClusterP95Ms: r1(f.cluster.p95),
    metricsPageP95Ms: r1(f.page.p95),
    metricsWindowScrapes: f.window.scrapes.n,
    metricsWindowScrapeP95Ms: r1(f.window.scrapes.p95),
    metricsWindowScrapeMaxMs: r1(f.window.scrapes.max),
    metricsReaderP95Ms: r1(f.window.reader.p95),
    metricsReaderMaxMs: r1(f.window.reader.max),
    metricsSimRequests: f.simRequests,
    metricsRssBeforeMiB: r1(f.rssBeforeMiB),
    metricsRssAfterMiB: r1(f.rssAfterMiB),
    promtoolExit: f.promtool.exitCode,
    promtoolLines: f.promtool.lines.slice(0, 20),
  };
}

function row(label: string, value: string): string {
  return `  ${label.padEnd(60)}${value}`;
}

/** The lines the bench prints for the metrics phase. */
export function metricsTable(f: MetricsFigures): string {
  const c = f.counts;
  const ms = (s: LatencyStats) => `p50 ${r1(s.p50)} / p95 ${r1(s.p95)} / max ${r1(s.max)} ms${s.errors ? ` (${s.errors} errors)` : ''}`;
  const families = perServiceFamilies(c)
    .map((x) => `${x.family.replace(/^zonescope_service_/, '')} ${r1(x.perService)}`)
    .join(', ');
  const exported = c.servicesExported !== null ? ` (exported ${c.servicesExported}, omitted ${c.servicesOmitted ?? '?'})` : '';
  const lines = [
    `metrics (issue 14) — GET ${f.path}, ${f.contentType || 'no content type'}`,
    row('series (sample lines)', `${c.series}: ${c.serviceSeries} per-Service for ${c.services} Services${exported}, ${c.clusterSeries} cluster (${c.runtimeSeries} process_/nodejs_)`),
    row(`formula Services × (8 + 2 × ${c.zones} zones) + cluster`, `${f.formula} (counted/formula ${f.formula > 0 ? r1(c.series / f.formula) : '—'}; ${c.services > 0 ? r1(c.serviceSeries / c.services) : '—'} series per Service counted)`),
    row('  per Service, by family', families || 'none'),
    row('duplicate series', String(c.duplicateSeries)),
    row('bytes, plain / on the wire with Accept-Encoding: gzip', `${r1(f.plainBytes / 1024)} KiB / ${r1(f.gzipWireBytes / 1024)} KiB (${f.contentEncoding})`),
    row('first scrape after sync (renders the per-Service block)', `${r1(f.firstScrapeMs)} ms`),
    row(`warm scrapes, gzip (n ${f.scrapeGzip.n})`, `${ms(f.scrapeGzip)}${f.cpuPerGzipScrapeMs !== null ? `; server CPU ${r1(f.cpuPerGzipScrapeMs)} ms a scrape` : ''}`),
    row(`warm scrapes, plain (n ${f.scrapePlain.n})`, `${ms(f.scrapePlain)}${f.cpuPerPlainScrapeMs !== null ? `; server CPU ${r1(f.cpuPerPlainScrapeMs)} ms a scrape` : ''}`),
    row('GET /api/v1/cluster, same method', ms(f.cluster)),
    row('page /, same method', ms(f.page)),
    row(`scrapes every ${f.window.intervalMs} ms for ${r1(f.window.seconds)} s (n ${f.window.scrapes.n})`, ms(f.window.scrapes)),
    row('  each scrape in order (ms)', f.window.scrapeMs.map((v) => Math.round(v)).join(' ')),
    row(`  reader /api/v1/cluster meanwhile (n ${f.window.reader.n})`, ms(f.window.reader)),
    row('simulator non-watch requests over the phase', `${f.simRequests}${f.simRequests > 0 ? ` ${JSON.stringify(f.simRequestsByResourceVerb)}` : ''} (must be 0)`),
    row('server RSS before the first scrape / after the window', `${r1(f.rssBeforeMiB)} / ${r1(f.rssAfterMiB)} MiB`),
    row('promtool check metrics', f.promtool.exitCode === null ? `not run: ${f.promtool.lines[0] ?? ''}` : `exit ${f.promtool.exitCode} in ${r1(f.promtool.ms)} ms${f.promtool.lines.length ? `, ${f.promtool.lines.length} lines` : ', no output'}`),
    ...f.promtool.lines.slice(0, 10).map((l) => `      ${l}`),
  ];
  return lines.join('\n');
}
