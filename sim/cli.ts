/**
 * `npm run sim -- --scenario NAME | --snapshot FILE|FOLDER [--port N] [--kubeconfig FILE] [--tls]
 * [--auth MODE] [--flow-zone-labels] [--exporter beyla|obi] [--no-inter-zone]`: serves a scenario
 * on 127.0.0.1 (HTTPS with `--tls`), writes a kubeconfig for it (with the generated CA and the
 * credentials `--auth` requires), prints its URL, the traffic metrics' switches and the
 * `export KUBECONFIG` line, and runs until SIGINT/SIGTERM. Exit codes: 0 stopped by a signal, 1 cannot start
 * (bad scenario, port taken), 2 bad arguments.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseCliArgs, USAGE } from './cli-args';
import { defaultControllers } from './default-controllers';
import type { Scenario } from './scenario';
import { formatLocation, GENERATED_PREFIX, generatedScenario, loadScenario, ScenarioError } from './scenario';
import { loadScenarioPath } from './snapshot-path';
import type { SimAuth } from './server';
import { startSimulator } from './server';

const PROJECT_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

const AUTH_TEXT: Readonly<Record<SimAuth, string>> = {
  none: 'none required (the kubeconfig carries a token that is not checked)',
  token: 'bearer token required (in the kubeconfig)',
  'client-cert': 'client certificate signed by the generated CA required (in the kubeconfig)',
  exec: 'bearer token required, obtained by the exec plugin in the kubeconfig (sim/exec-plugin.mjs)',
};

async function main(argv: readonly string[]): Promise<number> {
  const parsed = parseCliArgs(argv);
  if (parsed.kind === 'help') {
    console.log(USAGE);
    return 0;
  }
  if (parsed.kind === 'error') {
    console.error(`sim: ${parsed.message}\n\n${USAGE}`);
    return 2;
  }
  const { options } = parsed;

  // 1. The scenario.
  let scenario: Scenario;
  let label: string;
  try {
    if (options.snapshot !== undefined) {
      scenario = await loadScenarioPath(options.snapshot);
      label = `snapshot ${options.snapshot}`;
    } else if (options.scenario?.startsWith(GENERATED_PREFIX)) {
      const generated = generatedScenario(options.scenario);
      if (typeof generated === 'string') {
        console.error(`sim: ${generated}\n\n${USAGE}`);
        return 2;
      }
      scenario = generated;
      label = `generated cluster ${options.scenario.slice(GENERATED_PREFIX.length)}`;
    } else {
      const name = options.scenario ?? '';
      scenario = await loadScenario(name);
      label = `scenario "${name}"`;
    }
  } catch (error) {
    console.error(error instanceof ScenarioError ? `sim: ${error.message}` : `sim: ${String(error)}`);
    return 1;
  }
  for (const warning of scenario.warnings) console.error(`sim: warning: ${formatLocation(warning)}: ${warning.message}`);

  // 2. The server and its kubeconfig.
  const version = options.serverVersion ?? scenario.serverVersion;
  let sim;
  try {
    sim = await startSimulator({
      port: options.port,
      objects: scenario.objects,
      controllers: defaultControllers(),
      ...(version !== undefined ? { version } : {}),
      ...(options.tls ? { tls: { names: options.tlsNames } } : {}),
      auth: options.auth,
      trafficMetrics: options.trafficMetrics,
    });
  } catch (error) {
    console.error(`sim: cannot start: ${error instanceof Error ? error.message : String(error)}`);
    return 1;
  }
  const kubeconfig = await sim.writeKubeconfig(options.kubeconfig ?? path.join(PROJECT_ROOT, '.sim', 'kubeconfig'), { context: options.context });
  console.log(`zonescope simulator (Kubernetes ${sim.version}) serving ${label} (${scenario.objects.length} objects) at ${sim.url}`);
  if (sim.caCertificate !== undefined) {
    console.log(`TLS: server certificate for ${sim.tlsServerNames.join(', ')}, signed by a CA generated at start-up (in the kubeconfig as certificate-authority-data)`);
  }
  console.log(`auth: ${AUTH_TEXT[sim.auth]}`);
  const { flowZoneLabels, exporter, interZone } = sim.traffic.options;
  console.log(
    `traffic metrics: ${sim.url}/__sim/metrics (${exporter} flows ${flowZoneLabels ? 'with' : 'without'} src_zone/dst_zone, inter-zone metric ${interZone ? 'on' : 'off'}; scrape with honor_labels: true)`,
  );
  console.log(`kubeconfig: ${kubeconfig} (context ${options.context})`);
  console.log(`export KUBECONFIG=${kubeconfig}`);

  // 3. Run until stopped.
  const signal = await new Promise<NodeJS.Signals>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  process.once(signal, () => process.exit(130));
  console.log(`sim: ${signal}, stopping`);
  await sim.stop();
  return 0;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(`sim: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    process.exit(1);
  },
);
