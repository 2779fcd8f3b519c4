/**
 * `npm run bench:smoke` (the Vitest project `bench`): the cluster-routing benchmark
 * (scripts/bench/cluster-routing.ts, issue 29) for 5 s a phase with 64 readers per target, against
 * the production build the e2e suite shares (built first when its sources changed). Every answer
 * of both clusters is a 200, alone and read at the same time, and the server never holds a
 * connection to itself: `/c/{id}` is served in its process. The latencies and their ratio are
 * figures for BENCHMARKS.md, not asserted here (the 2× goal is the benchmark's, on its full 20 s).
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { BENCH_DIST_DIR } from './args';
import { isBuildCurrent } from '../build-folder';
import { runBenchScript } from './run-bench-script';

const ROOT = path.resolve(__dirname, '..', '..');
const BUILT = isBuildCurrent(ROOT, process.env.ZONESCOPE_DIST_DIR || BENCH_DIST_DIR);

interface Figures {
  readers: number;
  phases: { phase: string; targets: { target: string; requests: number; p50Ms: number; p95Ms: number; errors: number; errorSamples: string[] }[]; selfConnectionsMax: number | null }[];
  p95RatioAlone: number;
  p95RatioBoth: number;
  goalsMissed: string[];
}

function runBench(args: readonly string[], timeoutMs: number): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return runBenchScript('scripts/bench/cluster-routing.ts', args, timeoutMs);
}

describe('the cluster-routing bench (smoke, 5 s a phase)', () => {
  it(
    'serves 64 readers of /c/staging/api/v1/cluster and 64 of /api/v1/cluster without an error, and never through a connection to itself',
    async () => {
      const { code, stdout, stderr } = await runBench(['--seconds', '5', '--readers', '64'], (BUILT ? 150 : 330) * 1000);
      expect(code, stderr.slice(-3000)).toBe(0);
      const figures = JSON.parse(stdout.trim().split('\n').pop() ?? '') as Figures;
      expect(figures.phases.map((p) => [p.phase, p.targets.map((t) => t.target)])).toEqual([
        ['default', ['GET /api/v1/cluster']],
        ['second', ['GET /c/staging/api/v1/cluster']],
        ['both', ['GET /api/v1/cluster', 'GET /c/staging/api/v1/cluster']],
      ]);
      for (const phase of figures.phases) {
        for (const target of phase.targets) {
          expect({ phase: phase.phase, target: target.target, errors: target.errors, samples: target.errorSamples }).toEqual({ phase: phase.phase, target: target.target, errors: 0, samples: [] });
          expect(target.requests, `${phase.phase} ${target.target}`).toBeGreaterThan(64);
          expect(target.p95Ms).toBeGreaterThanOrEqual(target.p50Ms);
        }
        // Linux: read from /proc (null elsewhere).
        if (process.platform === 'linux') expect(phase.selfConnectionsMax, phase.phase).toBe(0);
      }
      expect(stdout).toMatch(/second\/default p95: [\d.]+× one after the other, [\d.]+× at the same time/);
    },
    360_000,
  );
});
