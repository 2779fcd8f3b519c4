/**
 * `npm run test:e2e [-- [--rebuild] [--no-prometheus] [--shards N] <playwright test arguments>]`:
 * the e2e suite against the production build.
 *
 * 1. Builds the dashboard into the production build folder the benchmark shares
 *    (scripts/build-folder.ts: `ZONESCOPE_DIST_DIR=.next-prod`, apart from a developer's `.next`;
 *    `ZONESCOPE_E2E_DIST_DIR` names another), but only when the sources that go into the build
 *    changed since it was built (a content hash kept next to the build), or with `--rebuild`;
 *    under the folder's lock, so a benchmark building it at the same time is waited for.
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
 *    simulator and the dashboard on that build as `npm start` runs it (scripts/start.mjs; both
 *    inherit this environment), and stops both at the end. Then Prometheus and its control server
 *    stop and its data folder is removed.
 *
 * Shards: a full run (no spec or test picked) runs two shards side by side, each with its share of
 * the spec files (about equal time: {@link shareSpecs}) and its own simulators, dashboard,
 * Prometheus and control server on its own ports
 * (the second 10 above the first: `ZONESCOPE_E2E_SIM_PORT`/`ZONESCOPE_E2E_APP_PORT`, see
 * e2e/clusters.ts) and its own `test-results/shard-N/`; their output lines are prefixed `[i/n]`.
 * The suite mostly waits (refreshes, scrapes, the browser), so this nearly halves it on 2 cores.
 * `--shards N` (1–4) chooses; picking specs or tests runs one.
 *
 * Screenshots are taken only by `npm run screenshots` (`UPDATE_SCREENSHOTS=1`: e2e/screenshots.spec.ts
 * writes the README's images); an ordinary run skips them.
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
 * Exit code: the build's when it fails, 1 when Prometheus cannot start, 2 for a bad `--shards`
 * (or another of the suite's own options: scripts/e2e-args.ts),
 * else Playwright's (the first failing shard's).
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import type { Server } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { APP_PORT, SIM_PORT } from '../e2e/clusters';
import { findPrometheus, PROMETHEUS_INSTALL_HINT } from '../sim/prometheus/binary';
import { buildWithStamp, builtAt, isBuildCurrent, PRODUCTION_DIST_DIR, withBuildLock } from './build-folder';
import { parseE2eArgs } from './e2e-args';
import { prometheusControlServer, SuitePrometheus } from './e2e-prometheus';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
/** The build folder: `ZONESCOPE_E2E_DIST_DIR` (playwright.config.ts reads the same), else the shared `.next-prod`. */
const DIST_DIR = process.env.ZONESCOPE_E2E_DIST_DIR?.trim() || PRODUCTION_DIST_DIR;
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
/** Ports between one shard's simulators and dashboard and the next shard's. */
const SHARD_PORT_STEP = 10;
/** Shards of a full run: the suite mostly waits (on the dashboard's refreshes, Prometheus, the browser), so two stacks side by side nearly halve it on 2 cores. */
const DEFAULT_SHARDS = 2;
/**
 * Seconds each spec file took on a 2-core machine (one shard, December 2026): only to share the
 * files out evenly between shards (longest first, each to the least loaded shard). A spec not
 * listed counts {@link UNLISTED_SPEC_SECONDS}.
 */
const SPEC_SECONDS: Readonly<Record<string, number>> = {
  'history.spec.ts': 76,
  'accessibility.spec.ts': 57,
  'services-table.spec.ts': 50,
  'fleet.spec.ts': 45,
  'live-updates.spec.ts': 40,
  'keyboard.spec.ts': 34,
  'layout.spec.ts': 31,
  'overview-traffic.spec.ts': 27,
  'user-path.spec.ts': 22,
  'long-lists.spec.ts': 13,
  'toggle-refusals.spec.ts': 12,
  'service-traffic.spec.ts': 10,
  'security.spec.ts': 9,
  'stale.spec.ts': 9,
  'titles.spec.ts': 8,
  'cluster-routing.spec.ts': 6,
  'gitops-owner.spec.ts': 6,
  'yaml-view.spec.ts': 6,
  'not-found.spec.ts': 4,
  'dataplane.spec.ts': 3,
  'overview.spec.ts': 3,
  'start.spec.ts': 1,
};
const UNLISTED_SPEC_SECONDS = 15;

/** The spec files of a full run, shared out into `count` lists of about equal time. */
function shareSpecs(files: readonly string[], count: number): string[][] {
  const seconds = (file: string) => SPEC_SECONDS[file] ?? UNLISTED_SPEC_SECONDS;
  const shards = Array.from({ length: count }, () => ({ files: [] as string[], seconds: 0 }));
  for (const file of [...files].sort((a, b) => seconds(b) - seconds(a) || a.localeCompare(b))) {
    const least = shards.reduce((min, shard) => (shard.seconds < min.seconds ? shard : min));
    least.files.push(file);
    least.seconds += seconds(file);
  }
  return shards.map((shard) => shard.files.sort());
}

/** One shard: its spec files against its own simulators, dashboard and Prometheus. */
interface Shard {
  readonly index: number;
  readonly count: number;
  readonly simPort: number;
  readonly appPort: number;
  /** Its spec files (`e2e/…`); empty for a single shard (Playwright's own selection). */
  readonly specs: readonly string[];
}

const children = new Set<ReturnType<typeof spawn>>();
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    for (const child of children) child.kill(signal);
  });
}

/** Runs a child to its end; with `prefix`, its output lines are prefixed (shards run side by side). */
function run(command: string, args: readonly string[], env: NodeJS.ProcessEnv, prefix = ''): Promise<number> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd: ROOT, env, stdio: prefix === '' ? 'inherit' : ['ignore', 'pipe', 'pipe'] });
    children.add(child);
    if (prefix !== '') {
      for (const [stream, out] of [
        [child.stdout, process.stdout],
        [child.stderr, process.stderr],
      ] as const) {
        let rest = '';
        stream?.on('data', (chunk: Buffer) => {
          const lines = (rest + chunk.toString()).split('\n');
          rest = lines.pop() ?? '';
          for (const line of lines) out.write(`${prefix}${line}\n`);
        });
        stream?.on('end', () => {
          if (rest !== '') out.write(`${prefix}${rest}\n`);
        });
      }
    }
    child.on('exit', (code, signal) => {
      children.delete(child);
      resolve(code ?? (signal ? 128 : 1));
    });
  });
}

/** Runs one shard's Playwright, with a Prometheus of its own unless `binary` is null (`--no-prometheus`). */
async function runShard(shard: Shard, args: readonly string[], baseEnv: NodeJS.ProcessEnv, binary: string | null): Promise<number> {
  const label = shard.count > 1 ? `e2e ${shard.index}/${shard.count}` : 'e2e';
  const prefix = shard.count > 1 ? `[${shard.index}/${shard.count}] ` : '';
  const env: NodeJS.ProcessEnv = {
    ...baseEnv,
    ZONESCOPE_E2E_SIM_PORT: String(shard.simPort),
    ZONESCOPE_E2E_APP_PORT: String(shard.appPort),
  };
  const playwright = [...args, ...(shard.count > 1 ? ['--output', path.join('test-results', `shard-${shard.index}`)] : []), ...shard.specs];
  if (binary === null) return run('npx', ['--no-install', 'playwright', 'test', ...playwright], env, prefix);
  const dashboardTarget = `127.0.0.1:${shard.appPort}`;
  const dataDir = mkdtempSync(path.join(tmpdir(), 'zonescope-e2e-prometheus-'));
  const ruleFiles = existsSync(RULES_FILE) ? [RULES_FILE] : [];
  const prometheus = new SuitePrometheus(`127.0.0.1:${shard.simPort}`, dataDir, { dashboardTarget, ruleFiles });
  let control: { server: Server; url: string } | null = null;
  try {
    // The simulator is not up yet (Playwright starts it): only wait for Prometheus to be ready.
    await prometheus.start(false);
    control = await prometheusControlServer(prometheus);
    const rules = ruleFiles.length > 0 ? `, evaluating ${path.relative(ROOT, RULES_FILE)}` : '';
    console.log(`${label}: Prometheus (${binary}) on ${prometheus.url} scraping the simulator at 127.0.0.1:${shard.simPort} and the dashboard at ${dashboardTarget} (job zonescope)${rules}; control on ${control.url}`);
    return await run('npx', ['--no-install', 'playwright', 'test', ...playwright], { ...env, ...E2E_PROMETHEUS_ENV, ZONESCOPE_PROMETHEUS_URL: prometheus.url, ZONESCOPE_E2E_PROMETHEUS_CONTROL: control.url }, prefix);
  } catch (error) {
    console.error(`${label}: ${error instanceof Error ? error.message : String(error)}`);
    return 1;
  } finally {
    control?.server.close();
    control?.server.closeAllConnections();
    await prometheus.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

async function main(argv: readonly string[]): Promise<number> {
  const parsed = parseE2eArgs(argv);
  if (typeof parsed === 'string') {
    console.error(`e2e: ${parsed}`);
    return 2;
  }
  const { rebuild, withPrometheus, playwright: args } = parsed;
  // Without --shards: 2 for a full run, 1 when specs or tests are picked or screenshots are taken (they run after the history spec, on its Prometheus).
  const shards = parsed.shards ?? (args.some((a) => !a.startsWith('-')) || process.env.UPDATE_SCREENSHOTS === '1' ? 1 : DEFAULT_SHARDS);
  const env: NodeJS.ProcessEnv = { ...process.env, ZONESCOPE_DIST_DIR: DIST_DIR, ZONESCOPE_E2E_DIST_DIR: DIST_DIR, NEXT_TELEMETRY_DISABLED: '1' };
  for (const key of ['ZONESCOPE_PROMETHEUS_URL', 'ZONESCOPE_PROMETHEUS_TOKEN_FILE', 'ZONESCOPE_PROMETHEUS_CA_FILE', 'ZONESCOPE_E2E_PROMETHEUS_CONTROL']) Reflect.deleteProperty(env, key);

  // 1. Build when needed.
  const code = await withBuildLock(
    ROOT,
    DIST_DIR,
    async () => {
      if (!rebuild && isBuildCurrent(ROOT, DIST_DIR)) {
        console.log(`e2e: ${DIST_DIR} is up to date (built ${builtAt(ROOT, DIST_DIR)?.toISOString() ?? 'earlier'})`);
        return 0;
      }
      console.log(`e2e: building the dashboard into ${DIST_DIR}${rebuild ? ' (--rebuild)' : ' (sources changed since it was built)'}`);
      return buildWithStamp(ROOT, DIST_DIR, () => run('npx', ['--no-install', 'next', 'build'], env));
    },
    (lock) => console.log(`e2e: waiting for the build another process is making (${lock})`),
  );
  if (code !== 0) return code;

  // 2. Prometheus (one per shard, with its control server).
  let binary: string | null = null;
  if (!withPrometheus) {
    console.log('e2e: --no-prometheus: the dashboard shows assumed traffic only; specs that need Prometheus skip');
  } else {
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
  }

  // 3. The shards, side by side, each on its own ports with its share of the spec files.
  const specs = shards > 1 ? shareSpecs(readdirSync(path.join(ROOT, 'e2e')).filter((f) => f.endsWith('.spec.ts') && f !== 'screenshots.spec.ts'), shards) : [[]];
  if (shards > 1) {
    console.log(`e2e: ${shards} shards side by side (simulators from ${SIM_PORT}, dashboards from ${APP_PORT}, ${SHARD_PORT_STEP} ports apart); --shards 1 runs one`);
    specs.forEach((files, i) => console.log(`e2e: shard ${i + 1}: ${files.join(' ')}`));
  }
  const codes = await Promise.all(
    specs.map((files, i) =>
      runShard({ index: i + 1, count: shards, simPort: SIM_PORT + i * SHARD_PORT_STEP, appPort: APP_PORT + i * SHARD_PORT_STEP, specs: files.map((f) => `e2e/${f}`) }, args, env, withPrometheus ? binary : null),
    ),
  );
  return codes.find((c) => c !== 0) ?? 0;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(`e2e: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  },
);
