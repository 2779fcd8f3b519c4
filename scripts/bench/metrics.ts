/**
 * Issue 14's exporter figures in `npm run bench`: what a Prometheus scrape of the dashboard's
 * `GET /metrics` costs on the generated cluster.
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
 * Figures only: nothing here asserts a time.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import zlib from 'node:zlib';

import { nonWatchRequests, resetSimStats, simStats } from './cluster';
import type { LatencyStats, Timed } from './http';
import { latencyStats, measure, timedRequest } from './http';
import { processTree } from './processes';

/** The `Accept` header Prometheus 2.x sends when it scrapes (it prefers OpenMetrics, takes text 0.0.4). */
export const PROMETHEUS_ACCEPT = 'application/openmetrics-text;version=1.0.0,application/openmetrics-text;version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1';

/** One timed scrape. */
export interface Scrape {
  readonly status: number;
  /** Request sent → last body byte (decompression not included). */
  readonly ms: number;
  /** Bytes on the wire (compressed when the server compressed). */
  readonly wireBytes: number;
  /** The exposition text (decompressed). */
  readonly text: string;
  readonly contentType: string;
  /** `Content-Encoding` of the answer (`identity` when none). */
  readonly contentEncoding: string;
}

const agent = new http.Agent({ keepAlive: true, maxSockets: 4 });

/** `GET url` as Prometheus scrapes it (`gzip`: with `Accept-Encoding: gzip`), timed to the last byte. */
export function scrape(url: string, options: { readonly gzip: boolean; readonly timeoutMs?: number }): Promise<Scrape> {
  const timeoutMs = options.timeoutMs ?? 60_000;
  return new Promise((resolve, reject) => {
    const startedAt = performance.now();
    const request = http.request(
      url,
      {
        method: 'GET',
        agent,
        headers: {
          accept: PROMETHEUS_ACCEPT,
          'accept-encoding': options.gzip ? 'gzip' : 'identity',
          'user-agent': 'Prometheus/2.42.0 (zonescope bench)',
          'x-prometheus-scrape-timeout-seconds': String(timeoutMs / 1000),
        },
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('error', reject);
        response.on('end', () => {
          const ms = performance.now() - startedAt;
          const raw = Buffer.concat(chunks);
          const contentEncoding = String(response.headers['content-encoding'] ?? 'identity');
          let text: string;
          try {
            text = contentEncoding === 'gzip' ? zlib.gunzipSync(raw).toString('utf8') : raw.toString('utf8');
          } catch (error) {
            reject(new Error(`${url}: a ${contentEncoding} answer that does not decompress: ${error instanceof Error ? error.message : String(error)}`));
            return;
          }
          resolve({ status: response.statusCode ?? 0, ms, wireBytes: raw.length, text, contentType: String(response.headers['content-type'] ?? ''), contentEncoding });
        });
      },
    );
    request.setTimeout(timeoutMs, () => request.destroy(new Error(`timeout after ${timeoutMs} ms: ${url}`)));
    request.on('error', reject);
    request.end();
  });
}

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

/** The cardinality formula of the issue's docs: `Services × (8 + 2 × zones) + cluster series`. */
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

/** What `promtool check metrics` said of a scrape. */
export interface PromtoolResult {
  /** Exit code (0: accepted; 3: lint problems; 1: unparsable), `null` when promtool is not installed. */
  readonly exitCode: number | null;
  /** Its output lines (lint problems, parse errors), or why it did not run. */
  readonly lines: readonly string[];
  readonly ms: number;
}

/** The promtool binary: `PROMTOOL_BIN` when set, else `promtool` on `PATH`. */
export function promtoolBinary(env: NodeJS.ProcessEnv = process.env): string {
  return env.PROMTOOL_BIN || 'promtool';
}

/** Pipes `text` into `promtool check metrics`. */
export function promtoolCheck(text: string, binary = promtoolBinary()): Promise<PromtoolResult> {
  return new Promise((resolve) => {
    const startedAt = performance.now();
    const child = spawn(binary, ['check', 'metrics'], { stdio: ['pipe', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('error', (error: NodeJS.ErrnoException) => {
      resolve({ exitCode: null, lines: [error.code === 'ENOENT' ? `${binary} is not installed (apt-get install prometheus, or set PROMTOOL_BIN)` : error.message], ms: performance.now() - startedAt });
    });
    child.on('close', (code) => {
      resolve({ exitCode: code, lines: output.split('\n').filter((l) => l.trim() !== ''), ms: performance.now() - startedAt });
    });
    // promtool may exit before reading everything (a parse error): ignore the broken pipe.
    child.stdin.on('error', () => undefined);
    child.stdin.end(text);
  });
}

/** Clock ticks per second of /proc/PID/stat's utime and stime (USER_HZ: 100 on Linux). */
const USER_HZ = 100;

/** CPU time (user + system, every thread: zlib runs on the thread pool) of `pid` and its descendants in ms; 0 where /proc is not readable. */
export function treeCpuMs(pid: number): number {
  let ticks = 0;
  for (const p of processTree(pid)) {
    try {
      const stat = readFileSync(`/proc/${p}/stat`, 'utf8');
      const after = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      // Fields 14 and 15 (utime, stime) are the 12th and 13th after the command name.
      ticks += Number(after[11]) + Number(after[12]);
    } catch {
      // Gone meanwhile.
    }
  }
  return (ticks * 1000) / USER_HZ;
}

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
  /** Server CPU time in ms so far (see {@link treeCpuMs}), or `null` where it cannot be read. */
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

/** Closes the scrape connections (so the process can exit). */
export function closeScrapeConnections(): void {
  agent.destroy();
}
