/**
 * `npm run demo`: the dashboard's production build against the simulated `eks-demo` cluster.
 *
 * 1. Starts the simulator (`eks-demo`, its controllers and its Kubernetes version) on a free
 *    loopback port (`--sim-port N` pins it; scripts/demo-args.ts) and writes its kubeconfig to
 *    `.sim/demo-kubeconfig`, its context, cluster and user named `eks-demo`. Its Beyla is configured
 *    as docs/traffic.md asks (`src.zone`/`dst.zone` added to the flow metric's attributes), so
 *    the flow series carry zones (`trafficMetrics.flowZoneLabels`). When a Prometheus binary
 *    is found (`PROMETHEUS_BIN`, `prometheus` on PATH, /usr/bin/prometheus), starts it too
 *    (sim/prometheus.ts: a free loopback port unless `--prometheus-port N`, a temporary data folder) scraping the simulator's
 *    `/__sim/metrics` and the dashboard's own `/metrics` (job `zonescope`, so the History panels
 *    fill in while the demo runs; the dashboard starts later and Prometheus retries until then)
 *    every 5 s, evaluating zonescope's alert rules (deploy/prometheus/zonescope-rules.yaml, when
 *    present; see Prometheus' /alerts), and gives the dashboard `ZONESCOPE_PROMETHEUS_URL` (with
 *    `ZONESCOPE_PROMETHEUS_WINDOW` 10m and `ZONESCOPE_PROMETHEUS_REFRESH_SECONDS` 15 unless set: the
 *    demo's Prometheus only holds minutes of data); without one it says how to add measured traffic
 *    and the dashboard shows assumed volumes.
 * 2. Runs `next build` when `.next/BUILD_ID` is missing or older than any source file
 *    (app/, components/, lib/, public/, proxy.ts and the build configuration).
 * 3. Starts the build's standalone server as `npm start` does (scripts/start.mjs: static files
 *    linked next to it, no `next start` warning) on `PORT` (default 3000) and
 *    `ZONESCOPE_DEMO_HOST` or `ZONESCOPE_HOST` (default 127.0.0.1, passed on as `ZONESCOPE_HOST`
 *    so the server knows whether it is reachable beyond loopback) with `KUBECONFIG` pointing at
 *    the simulator and `ZONESCOPE_CLUSTER_NAME` naming the scenario (the header and page titles
 *    show it), waits until `/api/v1/cluster` answers 200 and prints the address it listens on:
 *    `zonescope is ready on http://127.0.0.1:3000 (simulated cluster eks-demo; measured traffic
 *    and history from Prometheus on http://127.0.0.1:PORT)`.
 * 4. Stops all of them on Ctrl-C / SIGTERM (and the others if the dashboard exits).
 *
 * The environment is checked first, as the dashboard checks it (lib/config): a variable whose
 * value cannot be used stops the demo before anything starts, with a message naming it.
 *
 * Exit codes: 0 stopped by a signal, 1 failed to start (build failed, port taken, no answer), 2 a
 * configuration value that cannot be used.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { defaultControllers } from '../sim/default-controllers';
import type { RunningPrometheus } from '../sim/prometheus';
import { startPrometheus } from '../sim/prometheus';
import { findPrometheus, PROMETHEUS_INSTALL_HINT } from '../sim/prometheus/binary';
import { formatConfigErrors, parseConfig } from '../lib/config/config';
import { formatLocation, loadScenario, ScenarioError } from '../sim/scenario';
import type { Simulator } from '../sim/server';
import { startSimulator } from '../sim/server';
import { FLOW_METRIC } from '../sim/traffic/beyla-series';
import { DEMO_USAGE, parseDemoArgs } from './demo-args';
import { prepareStandalone, startPlan } from './start.mjs';
import { serverEnv, serverNodeArgs } from './node-flags';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const NEXT_BIN = path.join(ROOT, 'node_modules', 'next', 'dist', 'bin', 'next');
const KUBECONFIG = path.join(ROOT, '.sim', 'demo-kubeconfig');
const SCENARIO = 'eks-demo';
const READY_TIMEOUT_MS = 120_000;
/** zonescope's alert rules: the demo's Prometheus evaluates them when the file is there. */
const RULES_FILE = path.join(ROOT, 'deploy', 'prometheus', 'zonescope-rules.yaml');
/** Seconds between the demo Prometheus' scrapes (the simulator's and the dashboard's). */
const SCRAPE_INTERVAL_SECONDS = 5;

/** What the production build is made from. */
const SOURCE_DIRS = ['app', 'components', 'lib', 'public'];
const SOURCE_FILES = ['proxy.ts', 'next.config.js', 'package.json', 'package-lock.json', 'postcss.config.mjs', 'tsconfig.json'];

function log(message: string): void {
  console.log(`demo: ${message}`);
}

/** Newest modification time (ms) of the build's sources (tests excluded). */
async function newestSourceMtime(): Promise<number> {
  let newest = 0;
  const visit = async (entry: string): Promise<void> => {
    const info = await stat(entry).catch(() => null);
    if (info === null) return;
    if (info.isDirectory()) {
      for (const child of await readdir(entry)) if (child !== 'node_modules' && !child.startsWith('.')) await visit(path.join(entry, child));
    } else if (!/\.test\.tsx?$/.test(entry)) {
      newest = Math.max(newest, info.mtimeMs);
    }
  };
  for (const name of [...SOURCE_DIRS, ...SOURCE_FILES]) await visit(path.join(ROOT, name));
  return newest;
}

/** Why a build is needed, or `null` when `.next/BUILD_ID` is newer than every source. */
async function buildReason(): Promise<string | null> {
  const buildId = await stat(path.join(ROOT, '.next', 'BUILD_ID')).catch(() => null);
  if (buildId === null) return 'no production build yet (.next/BUILD_ID is missing)';
  if ((await newestSourceMtime()) > buildId.mtimeMs) return 'sources changed since the last build';
  return null;
}

function childEnv(port: number, host: string, prometheusUrl: string | null = null): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, KUBECONFIG, PORT: String(port), ZONESCOPE_HOST: host, ZONESCOPE_CLUSTER_NAME: SCENARIO, NEXT_TELEMETRY_DISABLED: '1' };
  // The simulator's kubeconfig and its current context, nothing else; the build in .next.
  delete env.ZONESCOPE_SNAPSHOT;
  delete env.ZONESCOPE_CONTEXT;
  delete env.ZONESCOPE_DIST_DIR;
  // Measured traffic only from the demo's own Prometheus (another one has no series of the simulated cluster).
  delete env.ZONESCOPE_PROMETHEUS_TOKEN_FILE;
  delete env.ZONESCOPE_PROMETHEUS_CA_FILE;
  if (prometheusUrl === null) {
    delete env.ZONESCOPE_PROMETHEUS_URL;
  } else {
    env.ZONESCOPE_PROMETHEUS_URL = prometheusUrl;
    env.ZONESCOPE_PROMETHEUS_WINDOW ||= '10m';
    env.ZONESCOPE_PROMETHEUS_REFRESH_SECONDS ||= '15';
  }
  return env;
}

/**
 * Where the demo's Prometheus reaches the dashboard listening on `host`:`port`: loopback when it
 * listens on every address (or on loopback), else that address (bracketed when IPv6).
 */
function dashboardScrapeTarget(host: string, port: number): string {
  if (host === '' || host === '0.0.0.0' || host === '::' || host === '[::]' || host === 'localhost') return `127.0.0.1:${port}`;
  if (host.includes(':') && !host.startsWith('[')) return `[${host}]:${port}`;
  return `${host}:${port}`;
}

/** The demo's Prometheus scraping the simulator and the dashboard, or `null` (with one line saying why and how to add it). */
async function startDemoPrometheus(sim: Simulator, dashboardTarget: string, port: number): Promise<RunningPrometheus | null> {
  let binary: string | null;
  try {
    binary = findPrometheus();
  } catch (error) {
    log(`${error instanceof Error ? error.message : String(error)}; traffic volumes are assumed`);
    return null;
  }
  if (binary === null) {
    log(`traffic volumes are assumed; to add measured traffic, install Prometheus (${PROMETHEUS_INSTALL_HINT}) and run npm run demo again`);
    return null;
  }
  try {
    const ruleFiles = existsSync(RULES_FILE) ? [RULES_FILE] : [];
    const prometheus = await startPrometheus({
      scrapeTargets: [`127.0.0.1:${sim.port}`],
      metricsPath: '/__sim/metrics',
      scrapeIntervalSeconds: SCRAPE_INTERVAL_SECONDS,
      extraJobs: [{ jobName: 'zonescope', targets: [dashboardTarget], metricsPath: '/metrics' }],
      ruleFiles,
      retention: '7d',
      binary,
      ...(port !== 0 ? { port } : {}),
    });
    const rules = ruleFiles.length > 0 ? `, evaluating the alert rules in ${path.relative(ROOT, RULES_FILE)} (${prometheus.url}/alerts)` : '';
    log(`Prometheus (${binary}) on ${prometheus.url}, scraping the simulator's traffic metrics and the dashboard's /metrics at ${dashboardTarget} every ${SCRAPE_INTERVAL_SECONDS} s${rules}`);
    return prometheus;
  } catch (error) {
    log(`Prometheus did not start (${error instanceof Error ? (error.message.split('\n')[0] ?? '') : String(error)}); traffic volumes are assumed`);
    return null;
  }
}

function run(args: readonly string[], env: NodeJS.ProcessEnv): ChildProcess {
  return spawn(process.execPath, [NEXT_BIN, ...args], { cwd: ROOT, env, stdio: 'inherit' });
}

function exited(child: ChildProcess): Promise<number> {
  if (child.exitCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolve) => child.once('exit', (code, signal) => resolve(code ?? (signal ? 1 : 0))));
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
  await exited(child);
  clearTimeout(timer);
}

/** Polls the dashboard until `/api/v1/cluster` answers 200 (the cluster is synced). */
async function waitUntilReady(url: string, child: ChildProcess): Promise<boolean> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) return false;
    try {
      const response = await fetch(`${url}/api/v1/cluster`, { signal: AbortSignal.timeout(5000) });
      await response.arrayBuffer();
      if (response.status === 200) return true;
    } catch {
      // Not listening yet.
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  return false;
}

async function main(): Promise<number> {
  const args = parseDemoArgs(process.argv.slice(2));
  if (args === 'help') {
    console.log(DEMO_USAGE);
    return 0;
  }
  if (typeof args === 'string') {
    console.error(`demo: ${args}\n${DEMO_USAGE}`);
    return 2;
  }
  const given = parseConfig(process.env);
  if (!given.ok) {
    console.error(`demo: ${formatConfigErrors(given.errors)}`);
    return 2;
  }
  const port = given.config.PORT ?? 3000;
  const host = given.config.ZONESCOPE_DEMO_HOST ?? given.config.ZONESCOPE_HOST ?? '127.0.0.1';
  // The dashboard's own environment (the simulator's kubeconfig, a Prometheus URL the demo may add), checked now rather than after the build.
  const served = parseConfig(childEnv(port, host, 'http://127.0.0.1:9090'));
  if (!served.ok) {
    console.error(`demo: ${formatConfigErrors(served.errors)}`);
    return 2;
  }
  for (const warning of given.warnings) log(`warning: ${warning}`);
  if (!existsSync(NEXT_BIN)) {
    console.error('demo: next is not installed; run npm install first');
    return 1;
  }

  // 1. The simulated cluster.
  let sim: Simulator;
  try {
    const scenario = await loadScenario(SCENARIO);
    for (const warning of scenario.warnings) console.error(`demo: warning: ${formatLocation(warning)}: ${warning.message}`);
    sim = await startSimulator({
      port: args.simPort,
      host: '127.0.0.1',
      objects: scenario.objects,
      controllers: defaultControllers(),
      ...(scenario.serverVersion !== undefined ? { version: scenario.serverVersion } : {}),
      // A cluster whose Beyla selects the zone attributes, as docs/traffic.md asks.
      trafficMetrics: { flowZoneLabels: true },
    });
  } catch (error) {
    console.error(`demo: cannot start the simulator: ${error instanceof ScenarioError || error instanceof Error ? error.message : String(error)}`);
    return 1;
  }
  // The context, cluster and user are named after the scenario: KUBECONFIG=.sim/demo-kubeconfig:other merges.
  await sim.writeKubeconfig(KUBECONFIG, { context: SCENARIO });
  log(`simulated cluster "${SCENARIO}" (Kubernetes ${sim.version}) at ${sim.url}, kubeconfig ${path.relative(ROOT, KUBECONFIG)}`);
  const prometheus = await startDemoPrometheus(sim, dashboardScrapeTarget(host, port), args.prometheusPort);
  const everything = prometheus ? 'the dashboard, Prometheus and the simulator' : 'the dashboard and the simulator';
  const stopBackends = async (): Promise<void> => {
    await prometheus?.stop();
    await sim.stop();
  };

  let child: ChildProcess | null = null;
  let stopping = false;
  const stop = async (signal: NodeJS.Signals): Promise<void> => {
    if (stopping) return;
    stopping = true;
    log(`${signal}, stopping ${everything}`);
    if (child !== null) await stopChild(child);
    await stopBackends();
    process.exit(0);
  };
  process.once('SIGINT', (signal) => void stop(signal));
  process.once('SIGTERM', (signal) => void stop(signal));

  // 2. The production build, when missing or stale.
  const reason = await buildReason();
  if (reason !== null) {
    log(`running next build: ${reason}`);
    child = run(['build'], childEnv(port, host));
    const code = await exited(child);
    child = null;
    if (stopping) return 0;
    if (code !== 0) {
      console.error(`demo: next build failed (exit ${code})`);
      await stopBackends();
      return 1;
    }
  } else {
    log('the production build is up to date');
  }

  // 3. The dashboard: the standalone server, as npm start runs it.
  // The dashboard's first refresh should find series: the first scrapes land within seconds.
  if (prometheus !== null) {
    await prometheus.waitForSeries(FLOW_METRIC, 30_000).catch((error: unknown) => log(`warning: ${error instanceof Error ? error.message : String(error)}`));
  }
  const plan = startPlan(['-p', String(port), '-H', host], childEnv(port, host, prometheus?.url ?? null), ROOT);
  let server: string;
  try {
    server = prepareStandalone(ROOT, path.join(ROOT, '.next'));
  } catch (error) {
    console.error(`demo: ${error instanceof Error ? error.message : String(error)}`);
    await stopBackends();
    return 1;
  }
  log(`starting the dashboard on ${host}:${port}`);
  child = spawn(process.execPath, [...serverNodeArgs(plan.env), server], { env: { ...serverEnv(plan.env), ...plan.env } as NodeJS.ProcessEnv, stdio: 'inherit' });
  const dashboard = child;
  const probeUrl = plan.url;
  if (!(await waitUntilReady(probeUrl, dashboard))) {
    if (stopping) return 0;
    console.error(`demo: the dashboard did not answer on ${probeUrl} (is port ${port} taken? set PORT)`);
    await stopChild(dashboard);
    await stopBackends();
    return 1;
  }
  const measured = prometheus !== null ? `; measured traffic and history from Prometheus on ${prometheus.url}` : '';
  console.log(`zonescope is ready on ${plan.url} (simulated cluster ${SCENARIO}${measured}); Ctrl-C stops ${everything}`);

  // 4. Until stopped (or the dashboard exits on its own).
  const code = await exited(dashboard);
  if (stopping) return new Promise<number>(() => undefined); // stop() exits
  console.error(`demo: the dashboard exited (code ${code}); stopping ${prometheus ? 'Prometheus and ' : ''}the simulator`);
  await stopBackends();
  return 1;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(`demo: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    process.exit(1);
  },
);
