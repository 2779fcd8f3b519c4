/**
 * `npm run bench:smoke` (the Vitest project `bench`, not part of `npm test`): `npm run bench` at a
 * reduced S scale on both generators (the reference cluster, then the realistic one): the whole
 * pipeline (simulator, production server, timings, request counts, change latency, in-process
 * analysis and the analyze command, the exporter's `/metrics` phase with promtool, the browser)
 * runs on each, and its last line is one JSON object with sane figures for both; then the
 * many-clusters bench. About 3 minutes on a 2-core machine.
 *
 * It runs on the production build the e2e suite uses (scripts/build-folder.ts, `.next-prod`, or
 * `ZONESCOPE_DIST_DIR`): after `npm run test:e2e` it is current and nothing is built; else the
 * bench builds it first (about 1–2 minutes more).
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { BENCH_DIST_DIR } from './args';
import { isBuildCurrent } from '../build-folder';
import { runBenchScript } from './run-bench-script';

const ROOT = path.resolve(__dirname, '..', '..');
const BUILT = isBuildCurrent(ROOT, process.env.ZONESCOPE_DIST_DIR || BENCH_DIST_DIR);

function runBench(args: readonly string[], timeoutMs: number, script = 'scripts/bench.ts'): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return runBenchScript(script, args, timeoutMs);
}

describe('npm run bench (smoke, scale S, both generators)', () => {
  it(
    'runs end to end on each generator and prints the figures of both as one JSON object on its last line',
    async () => {
      const { code, stdout, stderr } = await runBench(['--scale', 'S', '--requests', '5', '--clients', '2', '--analyze-runs', '1', '--lcp-loads', '1', '--traffic-seconds', '3', '--metrics-seconds', '3', '--timeout-minutes', '6'], (BUILT ? 300 : 450) * 1000);
      expect(code, stderr.slice(-3000)).toBe(0);
      const last = stdout.trim().split('\n').pop() ?? '';
      const both = JSON.parse(last) as { scale: string; generator: string; reference: Record<string, unknown>; realistic: Record<string, unknown>; goalsMissed: string[] };
      expect(both).toMatchObject({ scale: 'S', generator: 'both' });
      const result = both.reference;
      const realistic = both.realistic;
      // Every missed goal is named with its generator.
      expect(both.goalsMissed).toEqual([...(result.goalsMissed as string[]).map((g) => `reference: ${g}`), ...(realistic.goalsMissed as string[]).map((g) => `realistic: ${g}`)]);
      expect(result).toMatchObject({ scale: 'S', generator: 'reference', scenario: 'generated:S', readPathApiRequests: 0, watchesPerType: 1, bigServiceEndpoints: 250, serviceTarget: 'bench/big-250', filterTexts: ['team-1', 'big-'] });
      // From the server's analysis log (null with a build older than that log).
      expect([1, null]).toContain(result.changeReanalysedServices);
      expect(result.services).toBeGreaterThanOrEqual(200);
      for (const key of ['coldSyncSeconds', 'clusterP95Ms', 'servicesP95Ms', 'serviceP95Ms', 'bigServiceP95Ms', 'analyzeAllMs', 'rssMiB', 'changeLatencyMs']) {
        expect(typeof result[key], key).toBe('number');
        expect(result[key] as number, key).toBeGreaterThan(0);
      }
      expect(result.coldSyncSeconds as number).toBeLessThan(60);
      expect(result.changeLatencyMs as number).toBeLessThan(1000);
      for (const key of ['kubectlListMs', 'overviewVsKubectl']) expect(result[key] === null || typeof result[key] === 'number', key).toBe(true);
      expect(stdout).toContain('GET /api/v1/cluster');
      // The traffic figures (issue 13): against a real Prometheus where the binary is installed, else unconfigured, and it says which.
      expect(typeof result.prometheus).toBe('string');
      expect(result.trafficBlockKiB as number).toBeGreaterThan(0);
      expect(typeof result.promQueriesPerMin1).toBe('number');
      expect(stdout).toContain('Prometheus queries/min, 20 client(s)');
      // The exporter's figures (issue 14): a scrape of every Service, no API-server request for it, promtool accepts it.
      expect(stdout).toContain('metrics (issue 14) — GET /metrics');
      expect(result.metricsServices).toBe(result.services);
      expect(result.metricsServiceSeries as number).toBeGreaterThan((result.services as number) * 8);
      expect(result).toMatchObject({ metricsSimRequests: 0, metricsDuplicateSeries: 0, metricsContentEncoding: 'gzip' });
      expect(result.metricsWindowScrapes).toBe(3);
      for (const key of ['metricsFirstScrapeMs', 'metricsScrapeP95Ms', 'metricsReaderP95Ms', 'metricsGzipKiB']) expect(result[key] as number, key).toBeGreaterThan(0);
      if (existsSync(process.env.PROMTOOL_BIN ?? '/usr/bin/promtool')) expect({ exit: result.promtoolExit, lines: result.promtoolLines }).toEqual({ exit: 0, lines: [] });
      // The browser phase runs wherever chromium is installed (CI installs it).
      if (existsSync(process.env.CHROMIUM_PATH ?? '/usr/bin/chromium')) {
        expect(result.servicesRows).toBe(result.services);
        expect(result.servicesDomNodes as number).toBeGreaterThan(100);
        for (const key of ['sortMaxMs', 'filterMaxMs', 'serviceLcpMs']) expect(result[key] as number, key).toBeGreaterThan(0);
      }

      // The realistic generator: every phase ran on Services picked from that cluster.
      expect(realistic).toMatchObject({ scale: 'S', generator: 'realistic', scenario: 'generated:realistic-S', readPathApiRequests: 0, watchesPerType: 1, metricsSimRequests: 0 });
      expect(realistic.services as number).toBeGreaterThanOrEqual(100);
      expect(realistic.bigServiceTarget).not.toMatch(/^bench\//);
      expect(realistic.bigServiceEndpoints as number).toBeGreaterThanOrEqual(realistic.serviceEndpoints as number);
      expect((realistic.filterTexts as string[]).length).toBeGreaterThan(0);
      expect(realistic.changeLatencyMs as number).toBeLessThan(1000);
      expect(stdout).toContain(`GET /api/v1/services/${realistic.serviceTarget as string}`);
      // Issue 17's figures, on both generators.
      for (const run of [result, realistic]) {
        for (const key of ['firstClusterMs', 'clusterAfterSyncMs', 'firstOverviewMs', 'analyzeCliMs', 'analyzeCommandSeconds', 'rssPeakMiB', 'rssMiB', 'clusterP95Ms']) expect(run[key] as number, `${run.generator as string} ${key}`).toBeGreaterThan(0);
        expect(run.rssPeakMiB as number).toBeGreaterThanOrEqual(run.rssAfterWarmMiB as number);
        // The server listed every type it watches (issue 17: each once; a goal of the realistic run).
        const lists = run.coldStartLists as Record<string, number>;
        for (const type of ['services', 'endpointslices', 'pods', 'nodes']) expect(lists[type], `${run.generator as string} lists of ${type}`).toBeGreaterThanOrEqual(1);
        expect(run.coldStartListsMax).toBe(Math.max(...Object.values(lists)));
        expect(['simulator', 'estimated']).toContain(run.coldStartListsSource);
      }
      if (existsSync(process.env.CHROMIUM_PATH ?? '/usr/bin/chromium')) {
        expect(realistic.servicesRows).toBe(realistic.services);
        for (const key of ['sortMaxMs', 'filterMaxMs', 'serviceLcpMs', 'bigServiceLcpMs']) expect(realistic[key] as number, `realistic ${key}`).toBeGreaterThan(0);
      }
    },
    480_000,
  );

  it(
    'the many-clusters bench opens two clusters as the fleet page does, then the idle sweep closes all but the default',
    async () => {
      const { code, stdout, stderr } = await runBench(['--clusters', '2', '--scale', 'S'], 180_000, 'scripts/bench/fleet.ts');
      expect(code, stderr.slice(-3000)).toBe(0);
      const summary = JSON.parse(stdout.trim().split('\n').pop() ?? '') as {
        clusters: number;
        perClusterFigures: { id: string; synced: boolean; objects: number; watches: number; watchesAfterSweep: number }[];
        memory: { perCluster: { heapUsed: number } };
      };
      expect(summary.clusters).toBe(2);
      const [first, second] = summary.perClusterFigures;
      expect(summary.perClusterFigures.every((f) => f.synced && f.objects > 0 && f.watches > 0)).toBe(true);
      // The default keeps its watches; the other's are closed by the sweep.
      expect(first?.watchesAfterSweep).toBe(first?.watches);
      expect(second?.watchesAfterSweep).toBe(0);
      expect(summary.memory.perCluster.heapUsed).toBeGreaterThan(0);
    },
    200_000,
  );
});
