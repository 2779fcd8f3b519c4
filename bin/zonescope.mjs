#!/usr/bin/env node
/**
 * The `zonescope` command of the installed package (and the same program as `kubectl-zonescope`,
 * which kubectl runs for `kubectl zonescope …` with the arguments after the plugin's name and its
 * own environment, KUBECONFIG included). Plain JavaScript: the package runs on Node alone. What it
 * runs is laid out by scripts/pack/build.ts (`npm run pack`) next to this file:
 *
 * - `analyze …`: the CLI (cli/analyze.ts, bundled as dist/analyze.mjs), in this process;
 * - `dashboard [--port N] [--host H] [--context NAME]`: the production build's standalone server
 *   (app/server.js) against the current kubeconfig context (or NAME), on 127.0.0.1:3000 unless
 *   told otherwise, started as `npm start` starts it (scripts/start.mjs);
 * - `demo [--port N] [--host H]`: the simulated `eks-demo` cluster (dist/demo-cluster.mjs) and the
 *   dashboard against it, in this process, until Ctrl-C.
 *
 * Exit codes: analyze's own; 2 for a bad command line; 1 when something cannot start.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { serveStandalone, startPlan, StartUsageError } from '../scripts/start.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const COMMAND = path.basename(process.argv[1] ?? '').startsWith('kubectl-') ? 'kubectl zonescope' : 'zonescope';

const USAGE = `usage: ${COMMAND} <command> [options]

Commands:
  analyze      the Topology Aware Routing analysis of a cluster or snapshot, as text or JSON
               (${COMMAND} analyze --help)
  dashboard    serves the dashboard against the current kubeconfig context
               (${COMMAND} dashboard --help)
  demo         serves the dashboard against a simulated cluster (${COMMAND} demo --help)

Options:
  -h, --help     this help
  -v, --version  the version`;

const DASHBOARD_USAGE = `usage: ${COMMAND} dashboard [--port N] [--host ADDRESS] [--context NAME]

Serves the zonescope dashboard against the cluster of the current kubeconfig context (KUBECONFIG,
else ~/.kube/config) and prints "zonescope is ready on URL". Runs until Ctrl-C.

Options:
  -p, --port N          port (default: PORT, else 3000)
  -H, --host ADDRESS    address to listen on (default: ZONESCOPE_HOST, else 127.0.0.1, this
                        machine only; 0.0.0.0 serves other machines too)
      --context NAME    the kubeconfig context to use instead of the current one
  -h, --help            this help

The dashboard's other settings are environment variables (docs/configuration.md in the zonescope
repository).`;

const DEMO_USAGE = `usage: ${COMMAND} demo [--port N] [--host ADDRESS]

Starts a simulated cluster (the eks-demo scenario: three zones, Services with and without
hints) on a free loopback port and serves the dashboard against it. Runs until Ctrl-C.

Options:
  -p, --port N          the dashboard's port (default: PORT, else 3000)
  -H, --host ADDRESS    the dashboard's address (default 127.0.0.1)
  -h, --help            this help`;

/** A bad command line: the message and the usage to print with it. */
class UsageError extends Error {
  /** @param {string} message @param {string} usage */
  constructor(message, usage) {
    super(message);
    this.usage = usage;
  }
}

/**
 * The options of `dashboard` / `demo`; throws {@link UsageError}.
 * @param {readonly string[]} argv
 * @param {boolean} withContext
 * @param {string} usage
 */
function serveOptions(argv, withContext, usage) {
  /** @type {import('node:util').ParseArgsConfig['options']} */
  const options = { port: { type: 'string', short: 'p' }, host: { type: 'string', short: 'H' }, help: { type: 'boolean', short: 'h' } };
  if (withContext) options.context = { type: 'string' };
  try {
    return parseArgs({ args: [...argv], options, strict: true, allowPositionals: false }).values;
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error), usage);
  }
}

/**
 * The plan of the standalone server for `values` in `env`, and the server itself.
 * @param {{ port?: string | boolean | (string | boolean)[], host?: string | boolean | (string | boolean)[] }} values
 * @param {Record<string, string | undefined>} env
 * @param {string} usage
 */
function dashboardPlan(values, env, usage) {
  const argv = [];
  if (typeof values.port === 'string') argv.push('--port', values.port);
  if (typeof values.host === 'string') argv.push('--hostname', values.host);
  let plan;
  try {
    plan = startPlan(argv, env, process.cwd());
  } catch (error) {
    if (error instanceof StartUsageError) throw new UsageError(error.message.replace('--hostname', '--host'), usage);
    throw error;
  }
  const server = path.join(ROOT, 'app', 'server.js');
  if (!existsSync(server)) throw new Error(`this installation has no dashboard build (${server} is missing): reinstall zonescope`);
  return { plan, server };
}

/** @param {readonly string[]} argv */
async function analyze(argv) {
  const bundle = path.join(ROOT, 'dist', 'analyze.mjs');
  // The bundle reads its arguments from process.argv, as `npm run analyze` does.
  process.argv = [process.argv[0] ?? process.execPath, bundle, ...argv];
  await import(pathToFileURL(bundle).href);
}

/** @param {readonly string[]} argv */
async function dashboard(argv) {
  const values = serveOptions(argv, true, DASHBOARD_USAGE);
  if (values.help === true) {
    console.log(DASHBOARD_USAGE);
    return;
  }
  /** @type {Record<string, string | undefined>} */
  const env = { ...process.env };
  if (typeof values.context === 'string') env.ZONESCOPE_CONTEXT = values.context;
  const { plan, server } = dashboardPlan(values, env, DASHBOARD_USAGE);
  await serveStandalone(server, plan);
}

/** @param {readonly string[]} argv */
async function demo(argv) {
  const values = serveOptions(argv, false, DEMO_USAGE);
  if (values.help === true) {
    console.log(DEMO_USAGE);
    return;
  }
  /** @type {Record<string, string | undefined>} */
  const env = { ...process.env, ZONESCOPE_HOST: undefined, ZONESCOPE_SNAPSHOT: undefined, ZONESCOPE_CONTEXT: undefined, ZONESCOPE_PROMETHEUS_URL: undefined };
  const planned = dashboardPlan(values, env, DEMO_USAGE);
  const dir = mkdtempSync(path.join(tmpdir(), 'zonescope-demo-'));
  process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  /** @type {{ startDemoCluster(file: string, warn: (m: string) => void): Promise<{ url: string, version: string, kubeconfig: string, stop(): Promise<void> }>, DEMO_SCENARIO: string }} */
  const demoCluster = await import(pathToFileURL(path.join(ROOT, 'dist', 'demo-cluster.mjs')).href);
  const cluster = await demoCluster.startDemoCluster(path.join(dir, 'kubeconfig'), (message) => console.error(`demo: warning: ${message}`));
  console.log(`demo: simulated cluster "${demoCluster.DEMO_SCENARIO}" (Kubernetes ${cluster.version}) at ${cluster.url}`);
  const stop = () => {
    void cluster.stop().finally(() => process.exit(0));
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  const plan = { ...planned.plan, env: { ...planned.plan.env, KUBECONFIG: cluster.kubeconfig, ZONESCOPE_CLUSTER_NAME: demoCluster.DEMO_SCENARIO } };
  await serveStandalone(planned.server, plan, ` (simulated cluster ${demoCluster.DEMO_SCENARIO}); Ctrl-C stops it`);
}

/** @param {readonly string[]} argv */
async function main(argv) {
  const [command, ...rest] = argv;
  switch (command) {
    case 'analyze':
      return analyze(rest);
    case 'dashboard':
      return dashboard(rest);
    case 'demo':
      return demo(rest);
    case '-v':
    case '--version':
      console.log(JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')).version);
      return;
    case undefined:
    case '-h':
    case '--help':
    case 'help':
      console.log(USAGE);
      return;
    default:
      throw new UsageError(`unknown command "${command}"`, USAGE);
  }
}

main(process.argv.slice(2)).catch((error) => {
  if (error instanceof UsageError) {
    console.error(`${COMMAND}: ${error.message}\n\n${error.usage}`);
    process.exit(2);
  }
  console.error(`${COMMAND}: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
