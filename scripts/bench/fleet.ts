/**
 * `npx tsx scripts/bench/fleet.ts [--clusters N] [--scale S|M|L] [--sync-timeout-seconds T] [--json-out FILE]`
 *
 * What N clusters of size M cost (issue 15): starts N simulators of `generated:{scale}` (each a
 * child process, one after the other; the second on with other seeds, so the clusters differ as
 * real ones do), writes one kubeconfig with a context per simulator
 * (`fleet-1` … `fleet-N`, the first current), builds a {@link ClusterRegistry} on it in this
 * process and opens every cluster at once, as `/fleet` does. Prints, per cluster, the time from
 * open to synced, the objects held, open watches (the simulator's `/__sim/stats`) and established
 * TCP connections to it (`/proc/net/tcp*`); then this process's RSS and heap (each after a full
 * GC) before opening, once all are synced, with every cluster's snapshot index built, with every
 * cluster's whole analysis computed and held (lib/topology, as the server runs it), and after an
 * idle sweep closed every cluster but the default; and the cost per cluster. The registry runs
 * in-process (no Next.js server): the figures are what grows with N (informers, records, indexes,
 * analyses, connections), not the server's fixed cost.
 */
import { spawnSync } from 'node:child_process';
import http from 'node:http';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { configFromEnv } from '../../lib/config/config';
import { ClusterRegistry } from '../../lib/k8s/clusters';
import { internStats, resetInternTables } from '../../lib/k8s/intern';
import { AnalysisCache } from '../../lib/topology/report/analysis-cache';
import { analyzeClusterIn } from '../../lib/topology/report/cluster-analysis';
import { prepareAnalysis, withAnalysisCache } from '../../lib/topology/report/prepared-analysis';
import { renderMultiContextKubeconfig } from '../../sim/kubeconfig';
import { SCALES } from '../../sim/scenarios/generator';
import { DEFAULT_TOKEN } from '../../sim/server';
import type { Child } from './processes';
import { hwmKiB } from './process-tree';
import { startChild, stop } from './processes';
import { establishedTo } from './self-connections';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const USAGE = 'usage: npx tsx scripts/bench/fleet.ts [--clusters N] [--scale S|M|L] [--sync-timeout-seconds T] [--json-out FILE]';

interface Options {
  clusters: number;
  scale: 'S' | 'M' | 'L';
  syncTimeoutMs: number;
  jsonOut: string | null;
}

function parseArgs(argv: readonly string[]): Options | string {
  const options: Options = { clusters: 3, scale: 'M', syncTimeoutMs: 300_000, jsonOut: null };
  for (let i = 0; i < argv.length; i += 2) {
    const flag = argv[i];
    const value = argv[i + 1];
    if (value === undefined) return `${String(flag)} needs a value`;
    if (flag === '--clusters' || flag === '--sync-timeout-seconds') {
      const n = Number(value);
      if (!Number.isInteger(n) || n < 1) return `${flag} must be a whole number ≥ 1, got "${value}"`;
      if (flag === '--clusters') options.clusters = n;
      else options.syncTimeoutMs = n * 1000;
    } else if (flag === '--scale') {
      if (value !== 'S' && value !== 'M' && value !== 'L') return `--scale must be S, M or L, got "${value}"`;
      options.scale = value;
    } else if (flag === '--json-out') options.jsonOut = value;
    else return `unknown argument: ${String(flag)}`;
  }
  return options;
}

const MiB = 1024 * 1024;
const mib = (bytes: number): string => `${(bytes / MiB).toFixed(0)} MiB`;

interface Memory {
  readonly rss: number;
  /** Peak RSS of the process so far (VmHWM), 0 off Linux. */
  readonly peakRss: number;
  readonly heapUsed: number;
  readonly external: number;
}

/** This process's memory after a full GC (twice: weak references and finalisers settle). */
async function memory(): Promise<Memory> {
  const gc = (globalThis as { gc?: () => void }).gc;
  for (let i = 0; i < 2; i++) {
    gc?.();
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  const usage = process.memoryUsage();
  return { rss: usage.rss, peakRss: hwmKiB(process.pid) * 1024, heapUsed: usage.heapUsed, external: usage.external + usage.arrayBuffers };
}

interface SimStatsBody {
  readonly openWatches: Record<string, number>;
  readonly total: number;
  readonly connections?: number;
}

/** `GET /__sim/stats` on a connection of its own, closed after the answer (not counted as a kept connection). */
function simStats(url: string): Promise<SimStatsBody> {
  return new Promise((resolve, reject) => {
    const request = http.get(`${url}/__sim/stats`, { agent: false, headers: { Connection: 'close' } }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => {
        if (response.statusCode !== 200) reject(new Error(`${url}/__sim/stats: HTTP ${response.statusCode ?? '?'}`));
        else resolve(JSON.parse(Buffer.concat(chunks).toString('utf8')) as SimStatsBody);
      });
      response.on('error', reject);
    });
    request.on('error', reject);
  });
}

const sum = (record: Record<string, number>): number => Object.values(record).reduce((a, b) => a + b, 0);

interface RunningSim {
  readonly child: Child;
  readonly url: string;
  readonly port: number;
  readonly objects: number;
}

async function startSim(index: number, scenario: string, dir: string): Promise<RunningSim> {
  const child = startChild(`sim-${index}`, process.execPath, ['--import', 'tsx', 'sim/cli.ts', '--scenario', scenario, '--port', '0', '--kubeconfig', path.join(dir, `sim-${index}.yaml`)], { cwd: ROOT, env: { ...process.env } });
  const line = await child.waitForLine(/ at http:\/\/127\.0\.0\.1:\d+/, 10 * 60_000);
  await child.waitForLine(/^kubeconfig: /, 60_000);
  const url = /(http:\/\/127\.0\.0\.1:(\d+))/.exec(line);
  if (!url?.[1] || !url[2]) throw new Error(`sim-${index}: no URL in "${line}"`);
  return { child, url: url[1], port: Number(url[2]), objects: Number(/\((\d+) objects\)/.exec(line)?.[1] ?? NaN) };
}


function writeFleetKubeconfig(file: string, sims: readonly RunningSim[]): void {
  writeFileSync(file, renderMultiContextKubeconfig(sims.map((sim, i) => ({ server: sim.url, token: DEFAULT_TOKEN, context: `fleet-${i + 1}` }))), { mode: 0o600 });
}

interface ClusterFigures {
  readonly id: string;
  readonly synced: boolean;
  readonly syncMs: number;
  readonly objects: number;
  readonly watches: number;
  readonly tcp: number | null;
  readonly watchesAfterSweep: number;
  readonly tcpAfterSweep: number | null;
}

interface Measured {
  readonly allSyncedMs: number;
  readonly synced: Memory;
  readonly read: Memory;
  readonly after: Memory;
  readonly analysisMs: readonly number[];
  readonly figures: ClusterFigures[];
  /** The default cluster's analysis (the server keeps it while the cluster is open). */
  readonly kept: unknown;
}

/**
 * Opens every cluster at once and measures them synced, indexed and analysed. A function of its
 * own: the sources and analyses it touches must not stay referenced from `main`'s frame (an async
 * function keeps its locals alive across awaits), or closed clusters could not be collected.
 */
async function openAndMeasure(registry: ClusterRegistry, sims: readonly RunningSim[], syncTimeoutMs: number): Promise<Measured> {
  const opened = performance.now();
  const results = await Promise.all(
    registry.entries().map(async (entry) => {
      const result = registry.open(entry.id, { for: 'fleet' });
      if (!result.ok) throw new Error(`cannot open ${entry.id}: ${result.message}`);
      const synced = await result.source.waitForSync(syncTimeoutMs);
      return { id: entry.id, source: result.source, synced, syncMs: performance.now() - opened };
    }),
  );
  const allSyncedMs = performance.now() - opened;
  // Let the watches settle (each type's watch starts right after its list).
  await new Promise((resolve) => setTimeout(resolve, 2000));
  const synced = await memory();
  // What the first page read builds: the snapshot and its lookups…
  for (const result of results) result.source.index();
  const read = await memory();
  // …and the whole-cluster analysis the server keeps per cluster (lib/topology, as the server runs it).
  const analysed: unknown[] = [];
  const analysisMs: number[] = [];
  for (const result of results) {
    const started = performance.now();
    analysed.push(analyzeClusterIn(withAnalysisCache(prepareAnalysis(result.source.index()), new AnalysisCache())));
    analysisMs.push(performance.now() - started);
  }
  const after = await memory();
  const figures: ClusterFigures[] = [];
  for (const [i, result] of results.entries()) {
    const sim = sims[i];
    if (sim === undefined) throw new Error('simulator missing');
    const snapshot = result.source.snapshot();
    const objects = Object.values(snapshot).reduce((count: number, value) => count + (Array.isArray(value) ? value.length : 0), 0);
    // Connections first: the stats request is a connection of its own.
    const tcp = establishedTo(sim.port);
    const stats = await simStats(sim.url);
    figures.push({ id: result.id, synced: result.synced, syncMs: result.syncMs, objects, watches: sum(stats.openWatches), tcp, watchesAfterSweep: 0, tcpAfterSweep: null });
  }
  return { allSyncedMs, synced, read, after, analysisMs, figures, kept: analysed[0] ?? null };
}

async function main(): Promise<number> {
  const options = parseArgs(process.argv.slice(2));
  if (typeof options === 'string') {
    console.error(`fleet: ${options}\n${USAGE}`);
    return 2;
  }
  // Memory figures need a full GC between phases: run again with --expose-gc when it is missing.
  if (typeof (globalThis as { gc?: unknown }).gc !== 'function') {
    const self = fileURLToPath(import.meta.url);
    const rerun = spawnSync(process.execPath, ['--expose-gc', '--import', 'tsx', self, ...process.argv.slice(2)], { cwd: ROOT, stdio: 'inherit' });
    return rerun.status ?? 1;
  }
  const scenario = `generated:${options.scale}`;
  const dir = mkdtempSync(path.join(tmpdir(), 'zonescope-fleet-'));
  const sims: RunningSim[] = [];
  let registry: ClusterRegistry | null = null;
  try {
    const simsStarted = performance.now();
    // One at a time: generating a cluster is CPU-bound, and the machine is shared.
    // Distinct clusters of one size: the first is `generated:M` itself, the others the same sizes
    // with other seeds (other pod names and placements), so that nothing is shared between them
    // that real clusters would not share (record strings are interned process-wide).
    for (let i = 1; i <= options.clusters; i++) sims.push(await startSim(i, i === 1 ? scenario : `${scenario},seed=${SCALES[options.scale].seed + i - 1}`, dir));
    console.log(`${options.clusters} simulator(s) of ${scenario} (seeds ${SCALES[options.scale].seed}…${SCALES[options.scale].seed + options.clusters - 1}) up in ${((performance.now() - simsStarted) / 1000).toFixed(1)} s (${sims[0]?.objects ?? '?'} objects each)`);
    const kubeconfig = path.join(dir, 'fleet.yaml');
    writeFleetKubeconfig(kubeconfig, sims);

    let offsetMs = 0;
    registry = new ClusterRegistry({
      config: configFromEnv({ HOME: dir, KUBECONFIG: kubeconfig }),
      maxOpen: options.clusters,
      idleMs: 60_000,
      sweepIntervalMs: 0,
      now: () => Date.now() + offsetMs,
    });
    const before = await memory();
    const { allSyncedMs, synced, read, after, analysisMs, figures, kept } = await openAndMeasure(registry, sims, options.syncTimeoutMs);

    // Every cluster but the default unused for longer than the idle time.
    offsetMs = 61_000;
    const closed = registry.sweep();
    await new Promise((resolve) => setTimeout(resolve, 5000));
    const swept = await memory();
    // Interned strings and records are shared process-wide and outlive a closed cluster until their
    // table starts over (lib/k8s/intern.ts, bounded): how much of what stays after the sweep is theirs.
    const interned = internStats();
    resetInternTables();
    const sweptWithoutIntern = await memory();
    for (const [i, sim] of sims.entries()) {
      const entry = figures[i];
      if (entry === undefined) continue;
      const tcp = establishedTo(sim.port);
      const stats = await simStats(sim.url);
      figures[i] = { ...entry, watchesAfterSweep: sum(stats.openWatches), tcpAfterSweep: tcp };
    }

    console.log('');
    console.log('cluster      synced  sync s  objects  watches  TCP   after sweep: watches  TCP');
    for (const f of figures) {
      console.log(
        `${f.id.padEnd(12)} ${String(f.synced).padEnd(6)} ${(f.syncMs / 1000).toFixed(1).padStart(6)} ${String(f.objects).padStart(8)} ${String(f.watches).padStart(8)} ${String(f.tcp ?? 'n/a').padStart(4)}   ${String(f.watchesAfterSweep).padStart(20)} ${String(f.tcpAfterSweep ?? 'n/a').padStart(4)}`,
      );
    }
    const n = options.clusters;
    console.log('');
    console.log(`all ${n} synced in ${(allSyncedMs / 1000).toFixed(1)} s (opened at once); sweep closed ${closed.length}: ${closed.join(', ') || 'none'}`);
    console.log(`process        RSS       heap used  external+buffers  peak RSS`);
    for (const [label, m] of [['before open', before], ['synced', synced], ['+ index', read], ['+ analysis', after], ['after sweep', swept]] as const) {
      console.log(`${label.padEnd(12)} ${mib(m.rss).padStart(9)} ${mib(m.heapUsed).padStart(11)} ${mib(m.external).padStart(11)} ${mib(m.peakRss).padStart(13)}`);
    }
    const per = (a: Memory, b: Memory) => ({ rss: (a.rss - b.rss) / n, heapUsed: (a.heapUsed - b.heapUsed) / n, external: (a.external - b.external) / n });
    const perCluster = per(after, before);
    const perClusterSynced = per(synced, before);
    console.log(`per cluster  ${mib(perClusterSynced.rss).padStart(9)} ${mib(perClusterSynced.heapUsed).padStart(11)} ${mib(perClusterSynced.external).padStart(11)}   synced only: (synced − before open) / ${n}`);
    console.log(`per cluster  ${mib(perCluster.rss).padStart(9)} ${mib(perCluster.heapUsed).padStart(11)} ${mib(perCluster.external).padStart(11)}   with index and analysis: (+ analysis − before open) / ${n}`);
    console.log(`analysis per cluster: ${analysisMs.map((ms) => `${Math.round(ms)} ms`).join(', ')}`);
    // The default keeps its records, index and analysis; the closed ones' are released.
    const releasedPerClosed = closed.length > 0 ? (after.heapUsed - swept.heapUsed) / closed.length : null;
    if (releasedPerClosed !== null) console.log(`heap released per closed cluster: ${mib(releasedPerClosed)}; RSS after sweep ${mib(swept.rss)} (V8 keeps freed pages for reuse)`);
    console.log(`intern tables after the sweep: ${interned.strings} strings, ${interned.stringMaps} maps, ${interned.records} records, ${mib(swept.heapUsed - sweptWithoutIntern.heapUsed)} of heap (emptied for this figure)`);

    const summary = {
      scenario,
      clusters: n,
      allSyncedMs: Math.round(allSyncedMs),
      memory: { before, synced, read, after, swept, sweptWithoutIntern, interned, perClusterSynced, perCluster, releasedHeapPerClosedCluster: releasedPerClosed },
      analysisMs: analysisMs.map((ms) => Math.round(ms)),
      perClusterFigures: figures.map((f) => ({ ...f, syncMs: Math.round(f.syncMs) })),
    };
    if (options.jsonOut !== null) writeFileSync(options.jsonOut, `${JSON.stringify(summary, null, 2)}\n`);
    console.log(JSON.stringify(summary));
    // The default cluster's analysis stays referenced until here, as the server keeps it.
    if (kept === null) throw new Error('no analysis of the default cluster');
    return figures.every((f) => f.synced) ? 0 : 1;
  } finally {
    await registry?.stop();
    for (const sim of sims) await stop(sim.child);
    rmSync(dir, { recursive: true, force: true });
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(`fleet: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  },
);
