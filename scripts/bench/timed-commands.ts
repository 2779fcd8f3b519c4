/**
 * The command-line runs a generator's run times against the same simulator, each as a child
 * process that syncs on its own: the full-cluster analysis in-process (analyze-all.ts, its last
 * line of figures), `npm run analyze -- --format json` end to end (start to exit, the JSON's size),
 * and `kubectl get endpointslices -A -o json` (the median of 3). A failed run is logged and gives
 * `null`, not the run's failure.
 */
import { closeSync, mkdtempSync, openSync, readSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { SERVER_NODE_FLAGS } from '../node-flags';
import { bundleEntry } from '../bundle.mjs';
import { childEnv, log, ROOT } from './environment';
import { run } from './processes';
import { resumeTree } from './process-tree';
import { r1 } from './report';

/** What `scripts/bench/analyze-all.ts` prints as its last line (the fields used here). */
export interface AnalyzeAllFigures {
  readonly analyzeAllMs: number;
  readonly analyzeAllEagerMs: number;
  readonly analyzeAllDistinctMs: number;
  readonly serviceShapes: number;
  readonly incrementalMs: number;
  readonly trafficBlockMs?: number;
  readonly trafficBlockJsonMs?: number;
}

/**
 * `scripts/bench/analyze-all.ts` as a child: the in-process analysis figures, `null` when it failed.
 * With `settle`, the child lets that simulator settle between its sync and its timed runs, and keeps
 * it stopped while it times them (see there).
 * It runs bundled as the package's CLI is (scripts/bundle.mjs), not through tsx: tsx compiles
 * with esbuild's `keepNames`, which wraps every function the engine creates per Service in a
 * `__name()` call that neither the server's build nor the package has (~20 % of a realistic-L
 * pass, 1,040 → 840 ms measured side by side).
 */
export async function runAnalyzeAll(kubeconfig: string, runs: number, settle: { readonly simUrl: string; readonly simPid: number } | null = null): Promise<AnalyzeAllFigures | null> {
  const dir = mkdtempSync(path.join(tmpdir(), 'zonescope-analyze-all-'));
  const script = path.join(dir, 'analyze-all.mjs');
  const settleArgs = settle === null ? [] : ['--settle-sim', settle.simUrl, '--settle-pid', String(settle.simPid)];
  const child = await bundleEntry('scripts/bench/analyze-all.ts', script)
    .then(() =>
      run('analyze-all', process.execPath, [...SERVER_NODE_FLAGS, '--expose-gc', script, '--kubeconfig', kubeconfig, '--runs', String(runs), ...settleArgs], {
        cwd: ROOT,
        env: childEnv({}),
        timeoutMs: 15 * 60_000,
      }),
    )
    .finally(() => {
      rmSync(dir, { recursive: true, force: true });
      // The child stops the simulator while it times the engine and resumes it when done; a child
      // killed on its timeout could not.
      if (settle !== null) resumeTree(settle.simPid);
    });
  const last = child.output.filter((l) => l.startsWith('{')).pop();
  if (child.code === 0 && last) {
    log(`in-process analysis: ${last}`);
    return JSON.parse(last) as AnalyzeAllFigures;
  }
  log(`analyze-all failed (${child.code}): ${child.output.slice(-5).join(' | ')}`);
  return null;
}

/**
 * `npm run analyze -- --format json` (its command, scripts/analyze.mjs) against the simulator as a
 * child, timed from start to exit (the sync included). The command keeps its bundle between runs
 * (node_modules/.cache/zonescope): it is built first, untimed, by `--help`, so the timed run is
 * every run but the first after a change of the code.
 */
export async function runAnalyzeCommand(kubeconfig: string, outFile: string): Promise<{ seconds: number; bytes: number } | null> {
  const build = await run('analyze --help', process.execPath, ['scripts/analyze.mjs', '--help'], { cwd: ROOT, env: childEnv({}), timeoutMs: 5 * 60_000 });
  log(`npm run analyze: its bundle ready in ${r1(build.ms / 1000)} s (built or reused; not in the timed run)`);
  const child = await run('analyze', process.execPath, [...SERVER_NODE_FLAGS, 'scripts/analyze.mjs', '--format', 'json', '--timeout', '900'], {
    cwd: ROOT,
    env: childEnv({ KUBECONFIG: kubeconfig }),
    stdoutFile: outFile,
    timeoutMs: 20 * 60_000,
  });
  let bytes = 0;
  let starts = '';
  try {
    bytes = statSync(outFile).size;
    const fd = openSync(outFile, 'r');
    const head = Buffer.alloc(16);
    readSync(fd, head, 0, 16, 0);
    closeSync(fd);
    starts = head.toString('utf8').trimStart();
    rmSync(outFile, { force: true });
  } catch {
    // No output file.
  }
  if (child.code !== 0 || !starts.startsWith('{')) {
    log(`npm run analyze failed (${child.code}): ${child.output.slice(-5).join(' | ')}`);
    return null;
  }
  return { seconds: r1(child.ms / 1000), bytes };
}

/** `kubectl get endpointslices -A -o json` 3 times; the median in ms, `null` when kubectl failed (or is not installed). */
export async function kubectlList(kubeconfig: string): Promise<number | null> {
  const times: number[] = [];
  for (let i = 0; i < 3; i++) {
    const result = await run('kubectl', 'kubectl', ['--kubeconfig', kubeconfig, 'get', 'endpointslices', '-A', '-o', 'json'], { cwd: ROOT, env: childEnv({}), timeoutMs: 5 * 60_000 });
    if (result.code !== 0) {
      log(`kubectl failed (${result.code}): ${result.output.slice(-3).join(' | ')}`);
      return null;
    }
    times.push(result.ms);
  }
  times.sort((a, b) => a - b);
  return r1(times[1] ?? times[0] ?? 0);
}
