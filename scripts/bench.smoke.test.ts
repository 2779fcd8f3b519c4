/**
 * Smoke run of `npm run bench` at a reduced S scale: the whole pipeline (simulator, production
 * server, timings, request counts, change latency, in-process analysis, the exporter's `/metrics`
 * phase with promtool) runs and its last line is
 * a JSON object with sane figures. Uses the benchmark's production build (`.next-bench`); builds it
 * first when it is missing or older than the sources (about 20–60 s on a 2-core machine).
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { BENCH_DIST_DIR } from './bench/args';
import { isBuildCurrent } from './build-folder';

const ROOT = path.resolve(__dirname, '..');
const BUILT = isBuildCurrent(ROOT, process.env.ZONESCOPE_DIST_DIR || BENCH_DIST_DIR);

function runBench(args: readonly string[], timeoutMs: number): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/bench.ts', ...args], { cwd: ROOT, env: { ...process.env, NEXT_TELEMETRY_DISABLED: '1' } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => {
      child.kill('SIGINT'); // the bench stops its own children on SIGINT
      reject(new Error(`bench did not finish within ${timeoutMs} ms:\n${stderr.slice(-2000)}`));
    }, timeoutMs);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

describe('npm run bench (smoke, scale S)', () => {
  it(
    'runs end to end and prints the figures as one JSON object on its last line',
    async () => {
      const { code, stdout, stderr } = await runBench(['--scale', 'S', '--requests', '5', '--clients', '2', '--analyze-runs', '1', '--traffic-seconds', '3', '--metrics-seconds', '3', '--timeout-minutes', '4'], (BUILT ? 180 : 330) * 1000);
      expect(code, stderr.slice(-3000)).toBe(0);
      const last = stdout.trim().split('\n').pop() ?? '';
      const result = JSON.parse(last) as Record<string, unknown>;
      expect(result).toMatchObject({ scale: 'S', readPathApiRequests: 0, watchesPerType: 1, bigServiceEndpoints: 250 });
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
    },
    360_000,
  );
});
