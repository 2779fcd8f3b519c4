/**
 * The production server of one generator's run, started cold and timed until it serves: `next
 * start` as a child process against the simulator's kubeconfig (its analysis log on, the run's
 * Prometheus when there is one), polled until `GET /api/v1/cluster` answers 200 (every type
 * synced) and the overview page is served — the cold sync, with the first 200 of each timed on
 * its own and a fresh `/api/v1/cluster` right after; then the lists the server started per
 * resource type (the simulator's counters, reset when the server started), and the CPU time the
 * server and the simulator used over the cold sync (/proc). The analysis passes it logs are
 * collected for the change-latency phase and the figures.
 */
import { RssPhases } from './rss-phases';
import os from 'node:os';

import { serverEnv, serverNodeArgs } from '../node-flags';
import type { BenchOptions } from './args';
import type { SimStats } from './cluster';
import { listsStarted, resetSimStats, simStats } from './cluster';
import { childEnv, freePort, log, ROOT } from './environment';
import { getJson, poll, timedRequest } from './http';
import { treeCpuMs } from './process-tree';
import type { Child } from './processes';
import { startChild } from './processes';
import type { RunPrometheus } from './prometheus';
import type { BenchResult } from './report';
import { r1 } from './report';

/** One line of the server's analysis log (`ZONESCOPE_ANALYSIS_LOG=1`). */
export interface AnalysisLogLine {
  readonly services: number;
  readonly analysed: number;
  readonly reused: number;
  readonly ms: number;
  readonly full: boolean;
}

const ANALYSIS_LINE = /\[zonescope\] analysis: (\d+) services, (\d+) analysed, (\d+) reused, ([\d.]+) ms( \(full\))?/;

/** The analysis pass a server output line reports, `null` for any other line. */
export function parseAnalysisLine(line: string): AnalysisLogLine | null {
  const m = ANALYSIS_LINE.exec(line);
  return m ? { services: Number(m[1]), analysed: Number(m[2]), reused: Number(m[3]), ms: Number(m[4]), full: m[5] !== undefined } : null;
}

/** The cold sync's figures (fields of the final JSON object). */
export type ColdSync = Pick<BenchResult, 'coldSyncSeconds' | 'firstClusterMs' | 'clusterAfterSyncMs' | 'firstOverviewMs' | 'services' | 'coldSyncServerCpuSeconds' | 'coldSyncSimCpuSeconds' | 'coldSyncLoadAverage'>;

/** A server that has synced. */
export interface RunningServer {
  readonly child: Child;
  readonly url: string;
  /** The analysis passes it has logged so far (grows while it runs). */
  readonly analysisLines: readonly AnalysisLogLine[];
  readonly coldSync: ColdSync;
  /** Its RSS by phase of the run, sampled from its start (the caller names the later phases). */
  readonly rss: RssPhases;
}

/**
 * Starts the server cold and waits until it serves; rejects when `/api/v1/cluster` does not answer
 * 200 within 10 minutes or the overview page within 5 more. With a Prometheus, then waits (up to 5
 * minutes) for the server's first Prometheus answer with flows in it.
 */
export async function startServerCold(options: {
  readonly options: BenchOptions;
  readonly nextBin: string;
  readonly distDir: string;
  readonly kubeconfig: string;
  readonly simUrl: string;
  readonly prometheus: RunPrometheus;
  /** The simulator's process: its CPU time over the cold sync is measured too. */
  readonly simPid: number;
}): Promise<RunningServer> {
  const { options: bench, nextBin, distDir, kubeconfig, simUrl, prometheus, simPid } = options;
  // The simulator's counters start with the server (the cold-start lists).
  // Prometheus is paused until the cold sync is measured: the simulator renders its flow metrics
  // (hundreds of MiB a scrape at L) on the thread that serves the lists, which a real API server does not
  // (its flows come from agents on the nodes); scraping during the sync made it 2–5 times slower.
  prometheus.pause();
  await resetSimStats(simUrl);
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const startedAt = performance.now();
  const simCpuBefore = treeCpuMs(simPid);
  const child = startChild('server', process.execPath, [...serverNodeArgs({ NODE_OPTIONS: bench.serverNodeOptions ?? '' }), nextBin, 'start', '-p', String(port), '-H', '127.0.0.1'], {
    cwd: ROOT,
    env: childEnv({
      // As `npm start` sets it (package.json), unless this environment sets its own.
      ...serverEnv(process.env),
      KUBECONFIG: kubeconfig,
      ZONESCOPE_ANALYSIS_LOG: '1',
      ...(prometheus.url !== null
        ? { ZONESCOPE_PROMETHEUS_URL: prometheus.url, ZONESCOPE_PROMETHEUS_REFRESH_SECONDS: String(bench.prometheusRefreshSeconds), ZONESCOPE_PROMETHEUS_TIMEOUT_MS: '60000' }
        : {}),
      NODE_ENV: 'production',
      PORT: String(port),
      ZONESCOPE_DIST_DIR: distDir,
      ...(bench.serverNodeOptions ? { NODE_OPTIONS: bench.serverNodeOptions } : {}),
    }),
  });
  const rss = new RssPhases(child.pid, 'cold sync');
  const analysisLines: AnalysisLogLine[] = [];
  child.onLine((line) => {
    const parsedLine = parseAnalysisLine(line);
    if (parsedLine) analysisLines.push(parsedLine);
  });
  let sawSyncing = false;
  const apiReady = await poll(async () => {
    const response = await timedRequest(`${url}/api/v1/cluster`, { keepBody: false, timeoutMs: 120_000 });
    if (response.status === 503) sawSyncing = true;
    return response.status === 200 ? response : null;
  }, 10 * 60_000, 250);
  if (!apiReady) throw new Error(`the server did not serve /api/v1/cluster within 10 minutes; last output:\n${child.lines.slice(-20).join('\n')}`);
  const overview = await poll(async () => {
    const response = await timedRequest(`${url}/`, { keepBody: false, timeoutMs: 120_000 });
    return response.status === 200 ? response : null;
  }, 5 * 60_000, 250);
  if (!overview) throw new Error('the overview page did not answer 200');
  const coldSyncSeconds = r1((performance.now() - startedAt) / 1000);
  // CPU over the cold sync: the server's process tree from its start, the simulator's since then.
  const coldSyncServerCpuSeconds = r1(treeCpuMs(child.pid) / 1000);
  const coldSyncSimCpuSeconds = r1((treeCpuMs(simPid) - simCpuBefore) / 1000);
  const coldSyncLoadAverage = Math.round((os.loadavg()[0] ?? 0) * 100) / 100;
  prometheus.resume();
  const firstClusterMs = r1(apiReady.ms);
  const firstOverviewMs = r1(overview.ms);
  const clusterAfterSyncMs = r1((await timedRequest(`${url}/api/v1/cluster`, { keepBody: false, timeoutMs: 120_000 })).ms);
  const clusterSummary = await getJson<{ cluster: { summary: { services: number } } }>(`${url}/api/v1/cluster`);
  log(`cold sync: ${coldSyncSeconds} s${sawSyncing ? ' (answered 503 syncing meanwhile)' : ''}; first 200 of /api/v1/cluster ${firstClusterMs} ms, the next ${clusterAfterSyncMs} ms; first 200 of / ${firstOverviewMs} ms; CPU: server ${coldSyncServerCpuSeconds} s, simulator ${coldSyncSimCpuSeconds} s; load average ${coldSyncLoadAverage}`);
  rss.enter('after ready');
  if (prometheus.url !== null) {
    // The warm phase measures the measured path: wait for the server's first Prometheus answer with
    // flows in it (Prometheus was paused during the sync, so its first scrapes, which create every
    // series, and the server's first mapping of them happen now, not during the warm phase).
    const state = await poll(async () => {
      const metrics = (await getJson<{ metrics?: { state: string; message: string } }>(`${url}/api/v1/cluster`)).metrics;
      return metrics && metrics.state !== 'pending' && metrics.state !== 'no-series' ? metrics : null;
    }, 5 * 60_000, 1000);
    log(`metrics source: ${state ? `${state.state} — ${state.message}` : 'still pending after 5 minutes'}`);
  }
  return { child, url, analysisLines, rss, coldSync: { services: clusterSummary.cluster.summary.services, coldSyncSeconds, firstClusterMs, clusterAfterSyncMs, firstOverviewMs, coldSyncServerCpuSeconds, coldSyncSimCpuSeconds, coldSyncLoadAverage } };
}

/** The cold start's lists figures: the simulator's `lists`/`connections` counters, or the estimate from list pages (cluster.ts). */
export type ColdStartLists = Pick<BenchResult, 'coldStartLists' | 'coldStartListsMax' | 'coldStartListsSource' | 'coldStartConnections'>;

/** The cold start's figures from the simulator's counters. */
export function coldStartFigures(stats: SimStats): ColdStartLists {
  const lists = listsStarted(stats);
  return {
    coldStartLists: lists.byResource,
    coldStartListsMax: Math.max(0, ...Object.values(lists.byResource)),
    coldStartListsSource: lists.source,
    coldStartConnections: stats.connections ?? null,
  };
}

/** What the server said about its lists and watches (a re-list, an expired watch): the lines that tell why a type was listed again. */
export function listLines(lines: readonly string[], most = 12): string[] {
  return lines.filter((line) => /went backwards|re-?list|expired|\b410\b|Gone|watch|stale|answers again/i.test(line)).slice(0, most);
}

/**
 * The lists the server started from its start on, read a second after it served (a second list
 * right after sync counts too). When a type was listed more than once, the server's lines about
 * its lists and watches are logged with it, so that a run says why.
 */
export async function coldStartLists(simUrl: string, serverLines: readonly string[] = []): Promise<ColdStartLists> {
  await new Promise((r) => setTimeout(r, 1000));
  const stats = await simStats(simUrl);
  const coldStart = coldStartFigures(stats);
  log(`cold start: lists per type (${coldStart.coldStartListsSource}) ${JSON.stringify(coldStart.coldStartLists)}${coldStart.coldStartConnections !== null ? `, ${coldStart.coldStartConnections} TCP connections` : ''}`);
  // Resume checks follow a watch that ended or a silence of the simulator (its collections at L):
  // one-item reads, not lists, but worth seeing next to the connections they open.
  const checks = Object.entries(stats.resumeChecks ?? {}).filter(([, count]) => count > 0);
  const said = listLines(serverLines);
  if (checks.length > 0) log(`cold start: watch resume checks (one-item lists, not counted above) ${JSON.stringify(Object.fromEntries(checks))}; the server said:\n  ${said.join('\n  ') || '(nothing about its watches)'}`);
  if (coldStart.coldStartListsMax > 1) {
    log(said.length > 0 ? `cold start: a type was listed again; the server said:\n  ${said.join('\n  ')}` : 'cold start: a type was listed again; the server said nothing about its lists or watches');
  }
  return coldStart;
}
