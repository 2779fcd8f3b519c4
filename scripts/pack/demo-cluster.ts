/**
 * The simulated cluster of the packaged `zonescope demo` (bin/zonescope.mjs), bundled by
 * scripts/pack/build.ts into the package's dist/demo-cluster.mjs: the `eks-demo` scenario with
 * the default controllers and a Beyla that carries zones, on a free loopback port, and its
 * kubeconfig (context `eks-demo`) written to `kubeconfigPath`. No Prometheus: the packaged
 * demo's dashboard shows assumed traffic volumes (`npm run demo` in a checkout adds one).
 */
import { defaultControllers } from '../../sim/default-controllers';
import { formatLocation, loadScenario } from '../../sim/scenario';
import { startSimulator } from '../../sim/server';

/** The scenario the demo serves. */
export const DEMO_SCENARIO = 'eks-demo';

/** A running demo cluster. */
export interface DemoCluster {
  readonly url: string;
  readonly version: string;
  readonly kubeconfig: string;
  stop(): Promise<void>;
}

/** Starts the demo cluster; `warn` gets the scenario's warnings. */
export async function startDemoCluster(kubeconfigPath: string, warn: (message: string) => void): Promise<DemoCluster> {
  const scenario = await loadScenario(DEMO_SCENARIO);
  for (const warning of scenario.warnings) warn(`${formatLocation(warning)}: ${warning.message}`);
  const sim = await startSimulator({
    port: 0,
    host: '127.0.0.1',
    objects: scenario.objects,
    controllers: defaultControllers(),
    ...(scenario.serverVersion !== undefined ? { version: scenario.serverVersion } : {}),
    trafficMetrics: { flowZoneLabels: true },
    log: () => undefined,
  });
  const kubeconfig = await sim.writeKubeconfig(kubeconfigPath, { context: DEMO_SCENARIO });
  return { url: sim.url, version: sim.version, kubeconfig, stop: () => sim.stop() };
}
