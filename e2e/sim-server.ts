/**
 * The simulated clusters of the e2e suite (e2e/clusters.ts), in one process, behind one kubeconfig:
 * - the default cluster `zonescope-sim`: eks-demo as `npm run sim -- --scenario eks-demo`
 *   (sim/cli.ts) serves it, with one difference — watch BOOKMARK events every second instead of
 *   every minute (below);
 * - two more simulators with other scenarios (`ipvs-lab`, and the `restricted` EKS context whose
 *   RBAC denies Nodes);
 * - a context whose server is a closed port (`decommissioned`): checked closed at start.
 * The kubeconfig's current-context is the default cluster, so a dashboard started on it shows
 * eks-demo unless told otherwise.
 *
 * Why bookmarks every second: the suite resets the default cluster between tests, every few
 * seconds. A reset compacts the watch history, so each watch of the dashboard then ends in 410 and
 * re-lists. Like client-go's reflector, the dashboard's informers treat two 410s in a row without
 * progress as a list/expire loop and back off (up to 30 s); a bookmark is progress. A real API
 * server bookmarks about once a minute and compacts every five; the suite compresses both time
 * scales alike. The other clusters are not reset, so they keep the simulator's default.
 *
 * Usage (playwright.config.ts): `tsx e2e/sim-server.ts KUBECONFIG`. Stops on SIGINT/SIGTERM.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { connect } from 'node:net';
import path from 'node:path';
import { parse, stringify } from 'yaml';
import { defaultControllers } from '../sim/default-controllers';
import { loadScenario } from '../sim/scenario';
import type { Simulator } from '../sim/server';
import { startSimulator } from '../sim/server';
import type { E2eCluster } from './clusters';
import { E2E_CLUSTERS } from './clusters';

/** The token of the closed port's user (nothing ever reads it). */
const UNREACHABLE_TOKEN = 'zonescope-e2e-unreachable';

/** Whether something accepts connections on 127.0.0.1:`port`. */
function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

async function startCluster(cluster: E2eCluster & { scenario: string }): Promise<Simulator> {
  const scenario = await loadScenario(cluster.scenario);
  return startSimulator({
    port: cluster.port,
    objects: scenario.objects,
    controllers: defaultControllers(),
    scenarioName: cluster.scenario,
    // The e2e cluster's Beyla is configured as docs/traffic.md says: zones on the flow metric.
    trafficMetrics: { flowZoneLabels: true },
    ...(cluster.bookmarkIntervalMs !== undefined ? { bookmarkIntervalMs: cluster.bookmarkIntervalMs } : {}),
    ...(cluster.rbac !== undefined ? { rbac: cluster.rbac } : {}),
    ...(scenario.serverVersion !== undefined ? { version: scenario.serverVersion } : {}),
  });
}

/** The server and bearer token a simulator's own kubeconfig gives its user. */
function credentialsOf(sim: Simulator): { server: string; token: string } {
  const config = parse(sim.kubeconfig()) as { clusters: { cluster: { server: string } }[]; users: { user: { token?: string } }[] };
  const server = config.clusters[0]?.cluster.server;
  const token = config.users[0]?.user.token;
  if (server === undefined || token === undefined) throw new Error(`the simulator at ${sim.url} wrote a kubeconfig without a server or token`);
  return { server, token };
}

interface KubeconfigEntry {
  readonly context: string;
  readonly server: string;
  readonly token: string;
}

/** One kubeconfig with a cluster, user and context per entry (same name for all three); current-context the first. */
function renderFleetKubeconfig(entries: readonly KubeconfigEntry[]): string {
  const first = entries[0];
  if (first === undefined) throw new Error('no clusters');
  // sim/kubeconfig.ts renders one context per file; this is the same shape with several.
  return stringify({
    apiVersion: 'v1',
    kind: 'Config',
    preferences: {},
    clusters: entries.map((e) => ({ name: e.context, cluster: { server: e.server, 'insecure-skip-tls-verify': true } })),
    users: entries.map((e) => ({ name: e.context, user: { token: e.token } })),
    contexts: entries.map((e) => ({ name: e.context, context: { cluster: e.context, user: e.context, namespace: 'default' } })),
    'current-context': first.context,
  });
}

async function main([kubeconfig = '.sim/e2e-kubeconfig']: readonly string[]): Promise<number> {
  const sims: Simulator[] = [];
  const stopAll = () => Promise.allSettled(sims.map((sim) => sim.stop()));
  try {
    const entries: KubeconfigEntry[] = [];
    for (const cluster of E2E_CLUSTERS) {
      if (cluster.scenario === null) {
        if (await listening(cluster.port)) throw new Error(`port ${cluster.port} must be closed (context ${cluster.context} is the unreachable cluster), but something listens on it`);
        entries.push({ context: cluster.context, server: `http://127.0.0.1:${cluster.port}`, token: UNREACHABLE_TOKEN });
        console.log(`e2e cluster ${cluster.context}: nothing at 127.0.0.1:${cluster.port} (unreachable)`);
        continue;
      }
      const sim = await startCluster({ ...cluster, scenario: cluster.scenario });
      sims.push(sim);
      entries.push({ context: cluster.context, ...credentialsOf(sim) });
      const rbac = cluster.rbac !== undefined ? `, RBAC denies ${JSON.stringify(cluster.rbac.deny)}` : '';
      console.log(`e2e cluster ${cluster.context}: simulator (Kubernetes ${sim.version}, ${cluster.scenario}, ${sim.store.count('nodes')} nodes) at ${sim.url}${rbac}`);
    }
    const written = await writeFleetKubeconfig(kubeconfig, renderFleetKubeconfig(entries));
    console.log(`e2e kubeconfig ${written}: ${entries.map((e) => e.context).join(', ')} (current: ${entries[0]?.context ?? ''})`);
  } catch (error) {
    await stopAll();
    throw error;
  }
  const signal = await new Promise<NodeJS.Signals>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  process.once(signal, () => process.exit(130));
  await stopAll();
  return 0;
}

/** Writes `content` as the kubeconfig file (folder created, mode 0600) and returns its absolute path. */
async function writeFleetKubeconfig(file: string, content: string): Promise<string> {
  const absolute = path.resolve(file);
  await mkdir(path.dirname(absolute), { recursive: true });
  await writeFile(absolute, content, { mode: 0o600 });
  return absolute;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(`e2e simulator: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    process.exit(1);
  },
);
