/**
 * `npm run test:e2e [-- [--rebuild] [--no-prometheus] <playwright test arguments>]`: the e2e
 * suite against the production build.
 *
 * 1. Builds the dashboard into its own folder (`ZONESCOPE_DIST_DIR=.next-e2e`, so it never races
 *    a build of `.next`; `ZONESCOPE_E2E_DIST_DIR` names another), but only when the sources that
 *    go into the build changed since the last e2e build (a content hash kept next to the build),
 *    or with `--rebuild`.
 * 2. Starts a real Prometheus (sim/prometheus.ts: Debian's `prometheus`, a free loopback port, a
 *    temporary data folder) scraping the e2e simulator's `/__sim/metrics` and the dashboard's own
 *    `/metrics` (127.0.0.1:3210, job `zonescope`: the history panels read it back) every second,
 *    evaluating zonescope's alert rules (deploy/prometheus/zonescope-rules.yaml, when the file
 *    exists), and a small control server for it (below). Only the default cluster's simulator
 *    is scraped (measured traffic is the default cluster's; see e2e/clusters.ts), with
 *    `honor_labels` so each simulated node agent keeps its `instance` (sim/prometheus.ts); whether
 *    its flows carry zones is that simulator's `trafficMetrics` start option (e2e/sim-server.ts). Playwright starts the dashboard after
 *    Prometheus: until then that target is down and Prometheus retries. Without a Prometheus
 *    binary the run stops with how to install one, unless `--no-prometheus` is given (the
 *    dashboard then shows assumed traffic only and no history).
 * 3. Runs `playwright test` with the remaining arguments; playwright.config.ts starts the
 *    simulator and `next start` on that build (both inherit this environment), and stops both at
 *    the end. Then Prometheus and its control server stop and its data folder is removed.
 *
 * Environment given to Playwright (and so to the simulator, the dashboard and every spec):
 * - `ZONESCOPE_PROMETHEUS_URL` — the Prometheus the dashboard reads measured traffic from;
 * - `ZONESCOPE_PROMETHEUS_WINDOW=2m`, `ZONESCOPE_PROMETHEUS_REFRESH_SECONDS=2`,
 *   `ZONESCOPE_PROMETHEUS_TIMEOUT_MS=2000`, `ZONESCOPE_PROMETHEUS_MAX_STALE_SECONDS=8` — a short
 *   rate window, frequent refreshes, a quick timeout and a short stale period, so the suite sees
 *   measured figures and the fallback within seconds;
 * - `ZONESCOPE_E2E_PROMETHEUS_CONTROL` — `http://127.0.0.1:PORT` of the control server:
 *   - `GET /` → `{"state": "running" | "stopped", "url": ZONESCOPE_PROMETHEUS_URL}`;
 *   - `POST /stop` → stops Prometheus and answers once it has exited (`{"state": "stopped", …}`):
 *     the dashboard's next refresh finds it unreachable and falls back to the model;
 *   - `POST /start` → starts it again on the same port and data folder (the samples scraped so
 *     far survive) and answers once it is ready and the flow series are back (`{"state": "running", …}`).
 *   Both are idempotent; requests are handled one at a time (scripts/e2e-prometheus.ts).
 *   e2e/prometheus.ts wraps them for specs (`stopPrometheus()`, `startPrometheus()`,
 *   `PROMETHEUS_AVAILABLE`: specs that need Prometheus skip without it).
 *
 * `next build` rewrites tsconfig.json (it adds the build folder's type globs to `include`); the
 * file is put back as it was, so an e2e run leaves the working tree as it found it.
 * Exit code: the build's when it fails, 1 when Prometheus cannot start, else Playwright's.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import type { Server } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { APP_PORT, SIM_PORT } from '../e2e/clusters';
import { findPrometheus, PROMETHEUS_INSTALL_HINT } from '../sim/prometheus';
import { buildWithStamp, builtAt, isBuildCurrent } from './build-folder';
import { prometheusControlServer, SuitePrometheus } from './e2e-prometheus';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
/** The build folder: `ZONESCOPE_E2E_DIST_DIR` (playwright.config.ts reads the same), else `.next-e2e`. */
const DIST_DIR = process.env.ZONESCOPE_E2E_DIST_DIR?.trim() || '.next-e2e';
/** The dashboard's address during the suite (playwright.config.ts). */
const DASHBOARD_TARGET = `127.0.0.1:${APP_PORT}`;
/** zonescope's alert rules, evaluated by the suite's Prometheus when present. */
const RULES_FILE = path.join(ROOT, 'deploy', 'prometheus', 'zonescope-rules.yaml');
/** What the dashboard is told about Prometheus during the suite. */
const E2E_PROMETHEUS_ENV = {
  ZONESCOPE_PROMETHEUS_WINDOW: '2m',
  ZONESCOPE_PROMETHEUS_REFRESH_SECONDS: '2',
  ZONESCOPE_PROMETHEUS_TIMEOUT_MS: '2000',
  // The fallback spec stops Prometheus: the last answer is kept this long, then the model takes over.
  ZONESCOPE_PROMETHEUS_MAX_STALE_SECONDS: '8',
} as const;

function run(command: string, args: readonly string[], env: NodeJS.ProcessEnv): Promise<number> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd: ROOT, env, stdio: 'inherit' });
    const forward = (signal: NodeJS.Signals) => child.kill(signal);
    process.on('SIGINT', forward);
    process.on('SIGTERM', forward);
    child.on('exit', (code, signal) => {
      process.off('SIGINT', forward);
      process.off('SIGTERM', forward);
      resolve(code ?? (signal ? 128 : 1));
    });
  });
}

async function main(argv: readonly string[]): Promise<number> {
  const rebuild = argv.includes('--rebuild');
  const withPrometheus = !argv.includes('--no-prometheus');
  const args = argv.filter((a) => a !== '--rebuild' && a !== '--no-prometheus');
  const env: NodeJS.ProcessEnv = { ...process.env, ZONESCOPE_DIST_DIR: DIST_DIR, ZONESCOPE_E2E_DIST_DIR: DIST_DIR, NEXT_TELEMETRY_DISABLED: '1' };
  for (const key of ['ZONESCOPE_PROMETHEUS_URL', 'ZONESCOPE_PROMETHEUS_TOKEN_FILE', 'ZONESCOPE_PROMETHEUS_CA_FILE', 'ZONESCOPE_E2E_PROMETHEUS_CONTROL']) Reflect.deleteProperty(env, key);

  // 1. Build when needed.
  const built = isBuildCurrent(ROOT, DIST_DIR);
  if (rebuild || !built) {
    console.log(`e2e: building the dashboard into ${DIST_DIR}${rebuild ? ' (--rebuild)' : ' (sources changed since the last e2e build)'}`);
    const code = await buildWithStamp(ROOT, DIST_DIR, () => run('npx', ['--no-install', 'next', 'build'], env));
    if (code !== 0) return code;
  } else {
    console.log(`e2e: ${DIST_DIR} is up to date (built ${builtAt(ROOT, DIST_DIR)?.toISOString() ?? 'earlier'})`);
  }

  // 2. Prometheus and its control server.
  if (!withPrometheus) {
    console.log('e2e: --no-prometheus: the dashboard shows assumed traffic only; specs that need Prometheus skip');
    return run('npx', ['--no-install', 'playwright', 'test', ...args], env);
  }
  let binary: string | null;
  try {
    binary = findPrometheus();
  } catch (error) {
    console.error(`e2e: ${error instanceof Error ? error.message : String(error)}`);
    return 1;
  }
  if (binary === null) {
    console.error(`e2e: Prometheus is not installed: ${PROMETHEUS_INSTALL_HINT}; or pass --no-prometheus to run the suite without measured traffic`);
    return 1;
  }
  const dataDir = mkdtempSync(path.join(tmpdir(), 'zonescope-e2e-prometheus-'));
  const ruleFiles = existsSync(RULES_FILE) ? [RULES_FILE] : [];
  const prometheus = new SuitePrometheus(`127.0.0.1:${SIM_PORT}`, dataDir, { dashboardTarget: DASHBOARD_TARGET, ruleFiles });
  let control: { server: Server; url: string } | null = null;
  try {
    // The simulator is not up yet (Playwright starts it): only wait for Prometheus to be ready.
    await prometheus.start(false);
    control = await prometheusControlServer(prometheus);
    const rules = ruleFiles.length > 0 ? `, evaluating ${path.relative(ROOT, RULES_FILE)}` : '';
    console.log(`e2e: Prometheus (${binary}) on ${prometheus.url} scraping the simulator at 127.0.0.1:${SIM_PORT} and the dashboard at ${DASHBOARD_TARGET} (job zonescope)${rules}; control on ${control.url}`);
    return await run('npx', ['--no-install', 'playwright', 'test', ...args], {
      ...env,
      ...E2E_PROMETHEUS_ENV,
      ZONESCOPE_PROMETHEUS_URL: prometheus.url,
      ZONESCOPE_E2E_PROMETHEUS_CONTROL: control.url,
    });
  } catch (error) {
    console.error(`e2e: ${error instanceof Error ? error.message : String(error)}`);
    return 1;
  } finally {
    control?.server.close();
    control?.server.closeAllConnections();
    await prometheus.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(`e2e: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  },
);
