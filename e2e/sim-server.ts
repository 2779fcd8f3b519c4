/**
 * The simulated cluster for the e2e suite: `npm run sim -- --scenario eks-demo` (sim/cli.ts) with
 * one difference — watch BOOKMARK events every second instead of every minute.
 *
 * Why: the suite resets the cluster between tests, every few seconds. A reset compacts the watch
 * history, so each watch of the dashboard then ends in 410 and re-lists. Like client-go's
 * reflector, the dashboard's informers treat two 410s in a row without progress as a list/expire
 * loop and back off (up to 30 s); a bookmark is progress. A real API server bookmarks about once a
 * minute and compacts every five; the suite compresses both time scales alike.
 *
 * Usage (playwright.config.ts): `tsx e2e/sim-server.ts PORT KUBECONFIG`. Stops on SIGINT/SIGTERM.
 */
import { defaultControllers } from '../sim/default-controllers';
import { loadScenario } from '../sim/scenario';
import { startSimulator } from '../sim/server';

const BOOKMARK_INTERVAL_MS = 1_000;

async function main([port = '6590', kubeconfig = '.sim/e2e-kubeconfig']: readonly string[]): Promise<number> {
  const scenario = await loadScenario('eks-demo');
  const sim = await startSimulator({
    port: Number(port),
    objects: scenario.objects,
    controllers: defaultControllers(),
    bookmarkIntervalMs: BOOKMARK_INTERVAL_MS,
    ...(scenario.serverVersion !== undefined ? { version: scenario.serverVersion } : {}),
  });
  const written = await sim.writeKubeconfig(kubeconfig);
  console.log(`e2e simulator (Kubernetes ${sim.version}, eks-demo, ${scenario.objects.length} objects) at ${sim.url}; kubeconfig ${written}`);
  const signal = await new Promise<NodeJS.Signals>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  process.once(signal, () => process.exit(130));
  await sim.stop();
  return 0;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(`e2e simulator: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    process.exit(1);
  },
);
