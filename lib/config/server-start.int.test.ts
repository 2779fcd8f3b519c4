/**
 * The configuration as the real server start meets it. `npm start` (scripts/start.mjs loading the
 * production build's standalone server, whose instrumentation hook reads the configuration) and
 * `npm run dev` (`next dev`, the same hook) stop before serving anything when a variable's value
 * cannot be used: the message on stderr names the variable and what it accepts, the exit code is 2.
 * `ZONESCOPE_READ_ONLY=yes` — a flag spelling every variable now accepts — starts a dashboard that
 * refuses writes, against the simulator over real HTTP.
 *
 * Uses the shared production build (scripts/build-folder.ts, the e2e suite's), building it first
 * when the sources changed since it was made (a few minutes on a 2-core machine).
 */
import type { ChildProcess } from 'node:child_process';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { startScenarioSimulator } from '../../app/api/v1/_testing/harness';
import { buildWithStamp, isBuildCurrent, PRODUCTION_DIST_DIR, withBuildLock } from '../../scripts/build-folder';
import { freeLoopbackPort } from '../../sim/prometheus';
import type { Simulator } from '../../sim/server';
import type { ApiErrorResponse, TopologyModeResponse } from '../views/api-types';

const ROOT = path.resolve(__dirname, '..', '..');
const NEXT_BIN = path.join(ROOT, 'node_modules', 'next', 'dist', 'bin', 'next');
const BAD_LIMIT = 'ZONESCOPE_MAX_OPEN_CLUSTERS must be a whole number of at least 1, not "eight".';

interface Run {
  readonly child: ChildProcess;
  stdout: string;
  stderr: string;
  readonly exited: Promise<number | null>;
}

/** The environment of a started part: this process' without any ZONESCOPE_ variable, plus `extra`. */
function environment(extra: Record<string, string>): Record<string, string | undefined> {
  const env: Record<string, string | undefined> = { NEXT_TELEMETRY_DISABLED: '1' };
  for (const [key, value] of Object.entries(process.env)) if (!key.startsWith('ZONESCOPE_') && key !== 'KUBECONFIG' && key !== 'NODE_ENV' && key !== 'PORT') env[key] = value;
  return { ...env, ...extra };
}

function start(command: readonly string[], env: Record<string, string | undefined>): Run {
  const child = spawn(process.execPath, command, { cwd: ROOT, env: env as NodeJS.ProcessEnv, stdio: ['ignore', 'pipe', 'pipe'] });
  const run: Run = {
    child,
    stdout: '',
    stderr: '',
    exited: new Promise((resolve) => child.once('exit', (code) => resolve(code))),
  };
  child.stdout?.on('data', (chunk: Buffer) => (run.stdout += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (run.stderr += chunk.toString()));
  return run;
}

/** The exit code, or a failure naming what the part printed when it is still running after `timeoutMs`. */
async function exitCode(run: Run, timeoutMs: number): Promise<number | null> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), timeoutMs)));
  const code = await Promise.race([run.exited, late]);
  clearTimeout(timer);
  if (code === 'late') {
    run.child.kill('SIGKILL');
    throw new Error(`still running after ${timeoutMs} ms:\n${run.stdout.slice(-2000)}\n${run.stderr.slice(-2000)}`);
  }
  return code;
}

async function stop(run: Run): Promise<void> {
  if (run.child.exitCode === null && run.child.signalCode === null) run.child.kill('SIGTERM');
  await exitCode(run, 10_000).catch(() => undefined);
}

/** Polls `url` until it answers 200, failing with the server's output when it exits or `timeoutMs` passes. */
async function waitFor200(run: Run, url: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (run.child.exitCode !== null) throw new Error(`the server exited (${run.child.exitCode}):\n${run.stderr.slice(-2000)}`);
    const status = await fetch(url, { signal: AbortSignal.timeout(5_000) })
      .then(async (response) => {
        await response.arrayBuffer();
        return response.status;
      })
      .catch(() => null);
    if (status === 200) return;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(`${url} did not answer 200 within ${timeoutMs} ms:\n${run.stderr.slice(-2000)}`);
}

/** The shared production build, made when the sources changed since the last one. */
async function ensureBuild(): Promise<void> {
  await withBuildLock(ROOT, PRODUCTION_DIST_DIR, async () => {
    if (isBuildCurrent(ROOT, PRODUCTION_DIST_DIR)) return;
    const code = await buildWithStamp(ROOT, PRODUCTION_DIST_DIR, async () => {
      const build = start([NEXT_BIN, 'build'], environment({ ZONESCOPE_DIST_DIR: PRODUCTION_DIST_DIR, NODE_ENV: 'production' }));
      return exitCode(build, 15 * 60_000);
    });
    if (code !== 0) throw new Error(`next build failed (${code})`);
  });
}

describe('the dashboard server start', () => {
  const tmp = mkdtempSync(path.join(tmpdir(), 'zonescope-config-start-'));
  let sim: Simulator;
  const kubeconfig = path.join(tmp, 'kubeconfig');

  beforeAll(async () => {
    sim = await startScenarioSimulator('eks-demo');
    await sim.writeKubeconfig(kubeconfig);
    await ensureBuild();
  }, 20 * 60_000);

  afterAll(async () => {
    await sim?.stop();
    rmSync(tmp, { recursive: true, force: true });
  });

  it('npm start stops on ZONESCOPE_MAX_OPEN_CLUSTERS=eight: the message on stderr names the variable, exit code 2, never ready', async () => {
    const port = await freeLoopbackPort();
    const run = start(['scripts/start.mjs', '-p', String(port)], environment({ ZONESCOPE_DIST_DIR: PRODUCTION_DIST_DIR, KUBECONFIG: kubeconfig, HOME: tmp, ZONESCOPE_MAX_OPEN_CLUSTERS: 'eight' }));
    try {
      expect(await exitCode(run, 90_000), run.stderr).toBe(2);
      expect(run.stderr).toContain(BAD_LIMIT);
      expect(run.stderr).toContain('docs/configuration.md');
      expect(run.stdout).not.toContain('zonescope is ready');
    } finally {
      await stop(run);
    }
  }, 120_000);

  it('npm start with ZONESCOPE_AUTH_PROXY=1 stops without a usable secret file, saying how to set it and never what the file holds', async () => {
    const startExit = async (extra: Record<string, string>) => {
      const port = await freeLoopbackPort();
      const run = start(['scripts/start.mjs', '-p', String(port)], environment({ ZONESCOPE_DIST_DIR: PRODUCTION_DIST_DIR, KUBECONFIG: kubeconfig, HOME: tmp, ...extra }));
      try {
        return Object.assign(run, { code: await exitCode(run, 90_000) });
      } finally {
        await stop(run);
      }
    };
    const none = await startExit({ ZONESCOPE_AUTH_PROXY: '1' });
    expect(none.code, none.stderr).toBe(2);
    expect(none.stderr).toContain('ZONESCOPE_AUTH_PROXY is on but ZONESCOPE_AUTH_PROXY_SECRET_FILE is not set');
    expect(none.stderr).toContain('X-Zonescope-Proxy-Secret');
    expect(none.stdout).not.toContain('zonescope is ready');
    const short = path.join(tmp, 'proxy-secret');
    writeFileSync(short, 'hunter2\n');
    const weak = await startExit({ ZONESCOPE_AUTH_PROXY: '1', ZONESCOPE_AUTH_PROXY_SECRET_FILE: short });
    expect(weak.code, weak.stderr).toBe(2);
    expect(weak.stderr).toContain(`ZONESCOPE_AUTH_PROXY_SECRET_FILE (${short}) holds fewer than 16 characters`);
    expect(weak.stdout + weak.stderr).not.toContain('hunter2');
  }, 200_000);

  it('npm start with ZONESCOPE_READ_ONLY=yes serves a read-only dashboard: the toggle says why, a write is refused and reaches no cluster', async () => {
    const port = await freeLoopbackPort();
    const base = `http://127.0.0.1:${port}`;
    const run = start(['scripts/start.mjs', '-p', String(port)], environment({ ZONESCOPE_DIST_DIR: PRODUCTION_DIST_DIR, KUBECONFIG: kubeconfig, HOME: tmp, ZONESCOPE_READ_ONLY: 'yes' }));
    try {
      await waitFor200(run, `${base}/api/health/ready`, 90_000);
      const stateResponse = await fetch(`${base}/api/v1/services/shop/recommendations/topology-mode`);
      expect(stateResponse.status).toBe(200);
      const state = (await stateResponse.json()) as TopologyModeResponse;
      expect(state).toMatchObject({ readOnly: true, canPatch: false, readOnlyReason: 'The dashboard runs read-only (ZONESCOPE_READ_ONLY is on).' });
      const patchesBefore = sim.stats.count('patch', 'services');
      const write = await fetch(`${base}/api/v1/services/shop/recommendations/topology-mode`, {
        method: 'PUT',
        headers: { origin: base, 'sec-fetch-site': 'same-origin', 'content-type': 'application/json', 'if-match': `"${state.resourceVersion}"` },
        body: JSON.stringify({ mode: 'Auto' }),
      });
      expect(write.status).toBe(403);
      expect(((await write.json()) as ApiErrorResponse).error.code).toBe('read-only:topology-mode');
      expect(sim.stats.count('patch', 'services')).toBe(patchesBefore);
    } finally {
      await stop(run);
    }
  }, 150_000);
});

describe('the development server start', () => {
  /** Runs `next dev` with `extra` until it exits (it must, within 90 s); `next dev` may rewrite tsconfig.json and next-env.d.ts (its type globs): they are put back. */
  async function devStartExit(extra: Record<string, string>): Promise<Run & { code: number | null }> {
    const kept = ['tsconfig.json', 'next-env.d.ts'].filter((file) => existsSync(path.join(ROOT, file))).map((file) => ({ file, text: readFileSync(path.join(ROOT, file), 'utf8') }));
    const port = await freeLoopbackPort();
    const run = start([NEXT_BIN, 'dev', '-p', String(port), '-H', '127.0.0.1'], environment(extra));
    try {
      const code = await exitCode(run, 90_000);
      return Object.assign(run, { code });
    } finally {
      await stop(run);
      for (const { file, text } of kept) if (readFileSync(path.join(ROOT, file), 'utf8') !== text) writeFileSync(path.join(ROOT, file), text);
    }
  }

  it('npm run dev stops on ZONESCOPE_MAX_OPEN_CLUSTERS=eight with the message on stderr and exit code 2', async () => {
    const run = await devStartExit({ ZONESCOPE_MAX_OPEN_CLUSTERS: 'eight' });
    expect(run.code, run.stderr).toBe(2);
    expect(run.stderr).toContain(BAD_LIMIT);
  }, 120_000);
});
