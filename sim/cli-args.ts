/**
 * Argument parsing of the simulator CLI (`npm run sim -- ...`, design.md §4).
 */

/** Parsed CLI arguments. */
export interface CliOptions {
  /** Bundled scenario name (`fixtures/<name>.yaml`), exclusive with `snapshot`. */
  scenario: string | undefined;
  /** Snapshot file (YAML or JSON), exclusive with `scenario`. */
  snapshot: string | undefined;
  /** Port (0: random free port). */
  port: number;
  /** Where to write the kubeconfig (`undefined`: `.sim/kubeconfig` under the project). */
  kubeconfig: string | undefined;
  /** Kubernetes version to serve. */
  serverVersion: string | undefined;
}

/** The CLI's usage text. */
export const USAGE = `usage: npm run sim -- (--scenario NAME | --snapshot FILE) [--port N] [--kubeconfig FILE] [--server-version vX.Y.Z]

  --scenario NAME        serve the bundled scenario fixtures/NAME.yaml, or a generated cluster:
                         generated:S|M|L or generated:nodes=N,services=N,pods=N[,hpas=N,zones=N,namespaces=N,seed=N]
  --snapshot FILE        serve a snapshot (kubectl get ... -o yaml/json output, multi-document YAML or JSON)
  --port N               listen on 127.0.0.1:N (default 0: a free port)
  --kubeconfig FILE      write the kubeconfig here (default .sim/kubeconfig in the project)
  --server-version V     Kubernetes version to report (default: the scenario's ServerVersion, else v1.31.4)
  -h, --help             show this help`;

/** Result of {@link parseCliArgs}. */
export type CliParse = { kind: 'run'; options: CliOptions } | { kind: 'help' } | { kind: 'error'; message: string };

const VALUE_FLAGS = new Set(['--scenario', '--snapshot', '--port', '--kubeconfig', '--server-version']);

/** Parses CLI arguments (`--flag value` or `--flag=value`). */
export function parseCliArgs(argv: readonly string[]): CliParse {
  const values = new Map<string, string>();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? '';
    if (arg === '-h' || arg === '--help') return { kind: 'help' };
    const eq = arg.indexOf('=');
    const flag = eq > 0 ? arg.slice(0, eq) : arg;
    if (!VALUE_FLAGS.has(flag)) return { kind: 'error', message: `unknown argument: ${arg}` };
    let value: string | undefined;
    if (eq > 0) {
      value = arg.slice(eq + 1);
    } else {
      value = argv[i + 1];
      i++;
    }
    if (value === undefined || value === '' || (eq < 0 && value.startsWith('--'))) return { kind: 'error', message: `${flag} needs a value` };
    if (values.has(flag)) return { kind: 'error', message: `${flag} given twice` };
    values.set(flag, value);
  }
  const scenario = values.get('--scenario');
  const snapshot = values.get('--snapshot');
  if (scenario === undefined && snapshot === undefined) return { kind: 'error', message: 'one of --scenario or --snapshot is required' };
  if (scenario !== undefined && snapshot !== undefined) return { kind: 'error', message: '--scenario and --snapshot are exclusive' };
  const rawPort = values.get('--port') ?? '0';
  if (!/^\d+$/.test(rawPort) || Number(rawPort) > 65535) return { kind: 'error', message: `--port must be an integer from 0 to 65535, got "${rawPort}"` };
  const serverVersion = values.get('--server-version');
  if (serverVersion !== undefined && !/^v\d+\.\d+\.\d+/.test(serverVersion)) {
    return { kind: 'error', message: `--server-version must look like v1.31.4, got "${serverVersion}"` };
  }
  return {
    kind: 'run',
    options: { scenario, snapshot, port: Number(rawPort), kubeconfig: values.get('--kubeconfig'), serverVersion },
  };
}
