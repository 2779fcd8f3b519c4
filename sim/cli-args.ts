/**
 * Argument parsing of the simulator CLI (`npm run sim -- ...`, design.md §4).
 */
import type { SimAuth } from './kubeconfig';
import { SIM_AUTH_MODES } from './kubeconfig';
import type { TrafficMetricsOptions } from './traffic-series';
import { DEFAULT_TRAFFIC_METRICS_OPTIONS, FLOW_EXPORTERS } from './traffic-series';

/** Parsed CLI arguments. */
export interface CliOptions {
  /** Bundled scenario name (`fixtures/<name>.yaml`), exclusive with `snapshot`. */
  scenario: string | undefined;
  /** Snapshot file (YAML or JSON) or folder of them, exclusive with `scenario`. */
  snapshot: string | undefined;
  /** Port (0: random free port). */
  port: number;
  /** Where to write the kubeconfig (`undefined`: `.sim/kubeconfig` under the project). */
  kubeconfig: string | undefined;
  /** Kubernetes version to serve. */
  serverVersion: string | undefined;
  /** Serve HTTPS with a CA and server certificate generated at start-up. */
  tls: boolean;
  /** Extra names or addresses for the server certificate (`--tls-san`). */
  tlsNames: string[];
  /** What clients must present. */
  auth: SimAuth;
  /** The traffic metrics' exporter switches (`--flow-zone-labels`, `--exporter`, `--no-inter-zone`). */
  trafficMetrics: TrafficMetricsOptions;
}

/** The CLI's usage text. */
export const USAGE = `usage: npm run sim -- (--scenario NAME | --snapshot PATH) [--port N] [--kubeconfig FILE] [--server-version vX.Y.Z]
                      [--tls [--tls-san NAME,...]] [--auth none|token|client-cert|exec]
                      [--flow-zone-labels] [--exporter beyla|obi] [--no-inter-zone]

  --scenario NAME        serve the bundled scenario fixtures/NAME.yaml, or a generated cluster:
                         generated:S|M|L[,seed=N] or generated:nodes=N,services=N,pods=N[,hpas=N,zones=N,namespaces=N,seed=N],
                         or generated:realistic-S|M|L (an EKS-shaped dump: Helm, managedFields, uneven zones)
  --snapshot PATH        serve a snapshot (kubectl get ... -o yaml/json output, multi-document YAML or JSON),
                         or a folder of them (every .yaml/.yml/.json inside, merged)
  --port N               listen on 127.0.0.1:N (default 0: a free port)
  --kubeconfig FILE      write the kubeconfig here (default .sim/kubeconfig in the project)
  --server-version V     Kubernetes version to report (default: the scenario's ServerVersion, else v1.31.4)
  --tls                  serve HTTPS: a CA and a server certificate (127.0.0.1, ::1, localhost) are generated
                         at start-up; the kubeconfig carries the CA as certificate-authority-data
  --tls-san NAME,...     more host names or IP addresses for the server certificate (with --tls)
  --auth MODE            what clients must present (default none: the kubeconfig's token is not checked):
                           token        the kubeconfig's bearer token (401 without it)
                           client-cert  a client certificate signed by the generated CA (needs --tls);
                                        the kubeconfig carries it as client-certificate-data/client-key-data
                           exec         the bearer token, obtained by the kubeconfig's exec entry
                                        (node sim/exec-plugin.mjs, an ExecCredential)

  Traffic metrics (GET /__sim/metrics; scrape them with honor_labels: true, so that each simulated
  agent's instance label survives; PUT /__sim/traffic-options switches these at run time):
  --flow-zone-labels     put src_zone/dst_zone on the flow metric, as a Beyla whose attributes.select
                         adds src.zone/dst.zone does (default: off, Beyla's stock attribute set)
  --exporter NAME        beyla (beyla_network_* metrics, the default) or obi (obi_network_*, standalone
                         OpenTelemetry eBPF Instrumentation)
  --no-inter-zone        do not export <exporter>_network_inter_zone_bytes_total (Beyla's network_inter_zone
                         feature off; default: exported)
  -h, --help             show this help`;

/** Result of {@link parseCliArgs}. */
export type CliParse = { kind: 'run'; options: CliOptions } | { kind: 'help' } | { kind: 'error'; message: string };

const VALUE_FLAGS = new Set(['--scenario', '--snapshot', '--port', '--kubeconfig', '--server-version', '--tls-san', '--auth', '--exporter']);
const BOOLEAN_FLAGS = new Set(['--tls', '--flow-zone-labels', '--no-inter-zone']);

/** Parses CLI arguments (`--flag value` or `--flag=value`). */
export function parseCliArgs(argv: readonly string[]): CliParse {
  const values = new Map<string, string>();
  const switches = new Set<string>();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? '';
    if (arg === '-h' || arg === '--help') return { kind: 'help' };
    if (BOOLEAN_FLAGS.has(arg)) {
      if (switches.has(arg)) return { kind: 'error', message: `${arg} given twice` };
      switches.add(arg);
      continue;
    }
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
  const tls = switches.has('--tls');
  const rawNames = values.get('--tls-san');
  if (rawNames !== undefined && !tls) return { kind: 'error', message: '--tls-san needs --tls' };
  const tlsNames = (rawNames ?? '').split(',').map((name) => name.trim()).filter((name) => name !== '');
  const bad = tlsNames.find((name) => !/^[A-Za-z0-9.:*-]+$/.test(name));
  if (bad !== undefined) return { kind: 'error', message: `--tls-san takes host names or IP addresses, got "${bad}"` };
  const rawAuth = values.get('--auth') ?? 'none';
  const auth = SIM_AUTH_MODES.find((mode) => mode === rawAuth);
  if (auth === undefined) return { kind: 'error', message: `--auth must be one of ${SIM_AUTH_MODES.join(', ')}, got "${rawAuth}"` };
  if (auth === 'client-cert' && !tls) return { kind: 'error', message: '--auth client-cert needs --tls (client certificates are checked in the TLS handshake)' };
  const rawExporter = values.get('--exporter') ?? DEFAULT_TRAFFIC_METRICS_OPTIONS.exporter;
  const exporter = FLOW_EXPORTERS.find((name) => name === rawExporter);
  if (exporter === undefined) return { kind: 'error', message: `--exporter must be one of ${FLOW_EXPORTERS.join(', ')}, got "${rawExporter}"` };
  const trafficMetrics: TrafficMetricsOptions = { flowZoneLabels: switches.has('--flow-zone-labels'), exporter, interZone: !switches.has('--no-inter-zone') };
  return {
    kind: 'run',
    options: { scenario, snapshot, port: Number(rawPort), kubeconfig: values.get('--kubeconfig'), serverVersion, tls, tlsNames, auth, trafficMetrics },
  };
}
