/**
 * `npx tsx scripts/bench/cluster-routing.ts [--readers N] [--seconds S] [--scenario NAME]
 * [--build auto|always|never] [--json-out FILE]`: what serving a second cluster under `/c/{id}`
 * costs against the default cluster (issue 29).
 *
 * Starts two simulators of the same scenario (`eks-demo` unless `--scenario`; each a child
 * process), writes one kubeconfig with a context per simulator (`prod`, the current one and so the
 * default cluster, and `staging`), and starts the production server on it as `npm start` runs it
 * (scripts/start.mjs, bound to 127.0.0.1, the production build of scripts/build-folder.ts:
 * `.next-prod` or `ZONESCOPE_DIST_DIR`, built first when its sources changed). Once both clusters
 * answer, three phases of `--seconds` each (default 20), every reader on keep-alive connections
 * of its own, sending its next request when the last one ended:
 *
 * 1. `default`: `--readers` (default 64) readers of `GET /api/v1/cluster`;
 * 2. `second`: as many readers of `GET /c/staging/api/v1/cluster`;
 * 3. `both`: both sets at once.
 *
 * Prints per phase and target the requests, throughput, p50/p95/max latency to the last body
 * byte, errors (non-2xx answers and transport failures, with the first messages) and the most
 * connections the server held to its own port meanwhile (scripts/bench/self-connections.ts,
 * sampled every 100 ms: what an HTTP request of the server to itself would show); then the
 * second's p95 over the default's, and one JSON object as the last line. Issue 29's goals: no
 * errors, the second's p95 within 2× the default's, no connection of the server to itself
 * (`goalsMissed` names what was missed). Exit code 0 when the run completed (even with goals
 * missed), 1 when it could not run, 2 for bad arguments.
 */
import http from 'node:http';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { renderMultiContextKubeconfig } from '../../sim/kubeconfig';
import { DEFAULT_TOKEN } from '../../sim/server';
import { serverEnv, serverNodeArgs } from '../node-flags';
import { BENCH_DIST_DIR } from './args';
import { childEnv, freePort, log, machineLine, ROOT } from './environment';
import type { Timed } from './http';
import { percentile, poll, timedRequest } from './http';
import type { Child } from './processes';
import { startChild, stopAll } from './processes';
import { ensureProductionBuild } from './production-build';
import { selfConnections } from './self-connections';

const USAGE = `usage: npx tsx scripts/bench/cluster-routing.ts [options]

  --readers N            concurrent readers per target (default 64)
  --seconds S            length of each phase (default 20)
  --scenario NAME        the scenario both simulators serve (default eks-demo; generated:S works too)
  --build auto|always|never   the production build (.next-prod or $ZONESCOPE_DIST_DIR): when its
                         sources changed (default), always, or never
  --json-out FILE        also write the final JSON object to FILE`;

/** The second cluster's context, and so its URL id. */
const SECOND = 'staging';
/** Longest a reader waits for one answer (Next.js's own limit for a proxied request is 30 s). */
const REQUEST_TIMEOUT_MS = 30_000;
/** Distinct error messages kept per target. */
const ERROR_SAMPLES = 3;

interface Options {
  readonly readers: number;
  readonly seconds: number;
  readonly scenario: string;
  readonly build: 'auto' | 'always' | 'never';
  readonly jsonOut: string | null;
}

function parseOptions(argv: readonly string[]): Options | 'help' | string {
  let values;
  try {
    values = parseArgs({
      args: [...argv],
      options: { help: { type: 'boolean', short: 'h' }, readers: { type: 'string' }, seconds: { type: 'string' }, scenario: { type: 'string' }, build: { type: 'string' }, 'json-out': { type: 'string' } },
      strict: true,
      allowPositionals: false,
    }).values;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
  if (values.help === true) return 'help';
  const whole = (flag: string, text: string | undefined, fallback: number, min: number): number | string => {
    if (text === undefined) return fallback;
    const n = Number(text);
    return Number.isInteger(n) && n >= min ? n : `${flag} must be a whole number ≥ ${min}, got "${text}"`;
  };
  const readers = whole('--readers', values.readers, 64, 1);
  if (typeof readers === 'string') return readers;
  const seconds = whole('--seconds', values.seconds, 20, 1);
  if (typeof seconds === 'string') return seconds;
  const build = values.build ?? 'auto';
  if (build !== 'auto' && build !== 'always' && build !== 'never') return `--build must be auto, always or never, got "${build}"`;
  const scenario = values.scenario ?? 'eks-demo';
  if (scenario.trim() === '') return '--scenario needs a name';
  return { readers, seconds, scenario, build, jsonOut: values['json-out'] ?? null };
}

/** What one target's readers saw in a phase. */
interface TargetFigures {
  readonly target: string;
  readonly requests: number;
  readonly perSecond: number;
  readonly p50Ms: number;
  readonly p95Ms: number;
  readonly maxMs: number;
  readonly errors: number;
  readonly errorSamples: readonly string[];
}

/** One phase: its targets and the most connections the server held to itself meanwhile. */
interface PhaseFigures {
  readonly phase: string;
  readonly readers: number;
  readonly targets: readonly TargetFigures[];
  readonly selfConnectionsMax: number | null;
}

const round1 = (n: number): number => Math.round(n * 10) / 10;

/** `readers` readers of `url` until `deadline` (performance.now()), each on a keep-alive connection of its own. */
async function read(url: string, readers: number, deadline: number, startedAt: number): Promise<TargetFigures> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: readers });
  const samples: Timed[] = [];
  const failures: string[] = [];
  const reader = async (): Promise<void> => {
    while (performance.now() < deadline) {
      try {
        const answer = await timedRequest(url, { keepBody: false, timeoutMs: REQUEST_TIMEOUT_MS, agent });
        samples.push(answer);
        if (answer.status < 200 || answer.status >= 300) failures.push(`HTTP ${answer.status}`);
      } catch (error) {
        failures.push(error instanceof Error ? error.message : String(error));
      }
    }
  };
  await Promise.all(Array.from({ length: readers }, reader));
  const elapsedS = (performance.now() - startedAt) / 1000;
  agent.destroy();
  const ms = samples.map((s) => s.ms).sort((a, b) => a - b);
  return {
    target: `GET ${new URL(url).pathname}`,
    requests: samples.length + failures.filter((f) => !f.startsWith('HTTP ')).length,
    perSecond: round1(samples.length / elapsedS),
    p50Ms: round1(percentile(ms, 50)),
    p95Ms: round1(percentile(ms, 95)),
    maxMs: round1(ms[ms.length - 1] ?? Number.NaN),
    errors: failures.length,
    errorSamples: [...new Set(failures)].slice(0, ERROR_SAMPLES),
  };
}

/** One phase of `seconds`: `readers` readers on each of `urls` at once, the server's connections to itself sampled meanwhile. */
async function phase(name: string, urls: readonly string[], readers: number, seconds: number, server: { pid: number; port: number }): Promise<PhaseFigures> {
  log(`${name}: ${readers} reader(s) on ${urls.map((u) => new URL(u).pathname).join(' and ')} for ${seconds} s…`);
  let selfMax: number | null = selfConnections(server.pid, server.port);
  const sampler = setInterval(() => {
    const now = selfConnections(server.pid, server.port);
    if (now !== null) selfMax = Math.max(selfMax ?? 0, now);
  }, 100);
  const startedAt = performance.now();
  const deadline = startedAt + seconds * 1000;
  try {
    const targets = await Promise.all(urls.map((url) => read(url, readers, deadline, startedAt)));
    return { phase: name, readers, targets, selfConnectionsMax: selfMax };
  } finally {
    clearInterval(sampler);
  }
}

async function startSim(index: number, scenario: string, dir: string): Promise<{ child: Child; url: string }> {
  const child = startChild(`sim-${index}`, process.execPath, ['--import', 'tsx', 'sim/cli.ts', '--scenario', scenario, '--port', '0', '--kubeconfig', path.join(dir, `sim-${index}.yaml`)], { cwd: ROOT, env: childEnv({}) });
  const line = await child.waitForLine(/ at http:\/\/127\.0\.0\.1:\d+/, 10 * 60_000);
  await child.waitForLine(/^kubeconfig: /, 60_000);
  const url = /(http:\/\/127\.0\.0\.1:\d+)/.exec(line)?.[1];
  if (url === undefined) throw new Error(`sim-${index}: no URL in "${line}"`);
  return { child, url };
}

/** Polls `url` until it answers 200; throws after `timeoutMs`. */
async function until200(url: string, timeoutMs: number): Promise<Timed> {
  const answer = await poll(async () => {
    const response = await timedRequest(url, { timeoutMs: 60_000 });
    return response.status === 200 ? response : null;
  }, timeoutMs, 500);
  if (answer === null) throw new Error(`${url} did not answer 200 within ${Math.round(timeoutMs / 1000)} s`);
  return answer;
}

async function main(argv: readonly string[]): Promise<number> {
  const options = parseOptions(argv);
  if (options === 'help') {
    console.log(USAGE);
    return 0;
  }
  if (typeof options === 'string') {
    console.error(`cluster-routing: ${options}\n\n${USAGE}`);
    return 2;
  }
  const distDir = process.env.ZONESCOPE_DIST_DIR || BENCH_DIST_DIR;
  const nextBin = createRequire(import.meta.url).resolve('next/dist/bin/next');
  await ensureProductionBuild({ build: options.build, distDir, nextBin });

  const dir = mkdtempSync(path.join(tmpdir(), 'zonescope-cluster-routing-'));
  try {
    log(`two simulators of ${options.scenario}…`);
    const sims = [await startSim(1, options.scenario, dir), await startSim(2, options.scenario, dir)];
    const kubeconfig = path.join(dir, 'fleet.yaml');
    writeFileSync(kubeconfig, renderMultiContextKubeconfig(sims.map((sim, i) => ({ server: sim.url, token: DEFAULT_TOKEN, context: i === 0 ? 'prod' : SECOND }))), { mode: 0o600 });

    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    // As `npm start` runs it (and as the e2e suite does): one Node process, bound to loopback.
    const server = startChild('server', process.execPath, [...serverNodeArgs({}), 'scripts/start.mjs', '-p', String(port), '-H', '127.0.0.1'], {
      cwd: ROOT,
      env: childEnv({ ...serverEnv(process.env), KUBECONFIG: kubeconfig, ZONESCOPE_DIST_DIR: distDir, PORT: String(port) }),
    });
    await server.waitForLine(/zonescope is ready on /, 120_000);
    await until200(`${base}/api/v1/cluster`, 5 * 60_000);
    await until200(`${base}/c/${SECOND}/api/v1/cluster`, 5 * 60_000);
    // The prefix serves the second cluster (both simulators serve the same scenario).
    const page = await until200(`${base}/c/${SECOND}`, 60_000);
    if (!page.body.includes(`· ${SECOND} ·`)) throw new Error(`/c/${SECOND} is not the ${SECOND} cluster's overview`);
    const urls = { default: `${base}/api/v1/cluster`, second: `${base}/c/${SECOND}/api/v1/cluster` };
    // Warm both paths (compiled routes, the analyses, connections) before timing.
    await phase('warm-up', [urls.default, urls.second], 4, 2, { pid: server.pid, port });

    const target = { pid: server.pid, port };
    // Connections the server made to itself before the phases close first: scripts/start.mjs's
    // readiness probe keeps one for a few seconds, and a server that proxies to itself keeps its
    // warm-up's until they idle out (5 s).
    const settled = await poll(async () => (selfConnections(server.pid, port) ?? 0) === 0 || null, 15_000, 250);
    if (settled === null) log(`the server still holds ${selfConnections(server.pid, port) ?? '?'} connection(s) to itself before the phases`);
    const phases = [
      await phase('default', [urls.default], options.readers, options.seconds, target),
      await phase('second', [urls.second], options.readers, options.seconds, target),
      await phase('both', [urls.default, urls.second], options.readers, options.seconds, target),
    ];

    console.log('');
    console.log(`cluster routing (issue 29): ${options.scenario} on both clusters, ${options.readers} reader(s) per target, ${options.seconds} s per phase; ${machineLine()}`);
    console.log('phase    target                                 requests    req/s   p50 ms   p95 ms   max ms  errors  self-conn');
    for (const p of phases) {
      for (const t of p.targets) {
        console.log(
          `${p.phase.padEnd(8)} ${t.target.padEnd(38)} ${String(t.requests).padStart(8)} ${t.perSecond.toFixed(1).padStart(8)} ${t.p50Ms.toFixed(1).padStart(8)} ${t.p95Ms.toFixed(1).padStart(8)} ${t.maxMs.toFixed(1).padStart(8)} ${String(t.errors).padStart(7)} ${String(p.selfConnectionsMax ?? 'n/a').padStart(10)}`,
        );
        for (const sample of t.errorSamples) console.log(`         error: ${sample}`);
      }
    }
    const [alone, second, both] = phases;
    const p95 = (p: PhaseFigures | undefined, i: number) => p?.targets[i]?.p95Ms ?? Number.NaN;
    const ratio = (a: number, b: number) => Math.round((a / b) * 100) / 100;
    const p95RatioAlone = ratio(p95(second, 0), p95(alone, 0));
    const p95RatioBoth = ratio(p95(both, 1), p95(both, 0));
    console.log(`second/default p95: ${p95RatioAlone}× one after the other, ${p95RatioBoth}× at the same time (goal ≤ 2×)`);

    const goalsMissed: string[] = [];
    const errors = phases.flatMap((p) => p.targets.map((t) => ({ phase: p.phase, ...t }))).filter((t) => t.errors > 0);
    for (const t of errors) goalsMissed.push(`${t.phase}: ${t.errors} error(s) on ${t.target}`);
    if (!(p95RatioAlone <= 2)) goalsMissed.push(`second/default p95 ${p95RatioAlone}× (> 2×) one after the other`);
    if (!(p95RatioBoth <= 2)) goalsMissed.push(`second/default p95 ${p95RatioBoth}× (> 2×) at the same time`);
    const selfMax = Math.max(...phases.map((p) => p.selfConnectionsMax ?? 0));
    if (selfMax > 0) goalsMissed.push(`the server held up to ${selfMax} connection(s) to itself`);
    console.log(goalsMissed.length === 0 ? 'goals met' : `goals missed: ${goalsMissed.join('; ')}`);

    const json = JSON.stringify({ scenario: options.scenario, readers: options.readers, seconds: options.seconds, machine: machineLine(), phases, p95RatioAlone, p95RatioBoth, goalsMissed });
    if (options.jsonOut !== null) writeFileSync(options.jsonOut, `${json}\n`);
    console.log(json);
    return 0;
  } finally {
    await stopAll(3000);
    rmSync(dir, { recursive: true, force: true });
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  async (error: unknown) => {
    console.error(`cluster-routing: ${error instanceof Error ? error.message : String(error)}`);
    await stopAll(1500);
    process.exit(1);
  },
);
