/**
 * Argument parsing of the simulator CLI (`npm run sim -- ...`, design.md §4).
 */
import { parseArgs } from 'node:util';

import { checkedOptions, oneOf, wholeNumber } from '../lib/shared/command-line';
import type { OptionSpecs } from '../lib/shared/command-line';
import type { SimAuth } from './kubeconfig';
import { SIM_AUTH_MODES } from './kubeconfig';
import { FLOW_EXPORTERS } from './traffic/beyla-series';
import type { TrafficMetricsOptions } from './traffic/exporter-options';
import { DEFAULT_TRAFFIC_METRICS_OPTIONS } from './traffic/exporter-options';

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
  /** The kubeconfig's context, cluster and user name (default: after the scenario or snapshot, {@link defaultContextName}). */
  context: string;
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
export const USAGE = `usage: npm run sim -- (--scenario NAME | --snapshot PATH) [--port N] [--kubeconfig FILE] [--context NAME] [--server-version vX.Y.Z]
                      [--tls [--tls-san NAME,...]] [--auth none|token|client-cert|exec]
                      [--flow-zone-labels] [--exporter beyla|obi] [--no-inter-zone]

  --scenario NAME        serve the bundled scenario fixtures/NAME.yaml, or a generated cluster:
                         generated:S|M|L[,seed=N] or generated:nodes=N,services=N,pods=N[,hpas=N,zones=N,namespaces=N,seed=N],
                         or generated:realistic-S|M|L (an EKS-shaped dump: Helm, managedFields, uneven zones)
  --snapshot PATH        serve a snapshot (kubectl get ... -o yaml/json output, multi-document YAML or JSON),
                         or a folder of them (every .yaml/.yml/.json inside, merged)
  --port N               listen on 127.0.0.1:N (default 0: a free port)
  --kubeconfig FILE      write the kubeconfig here (default .sim/kubeconfig in the project)
  --context NAME         name of the kubeconfig's context, cluster and user (default: the scenario's or the
                         snapshot file's name, e.g. eks-demo), so KUBECONFIG=a:b can hold two simulators
  --server-version V     Kubernetes version to report (default: the scenario's ServerVersion or /version document,
                         else the serverVersion of kubectl version output in it, else v1.31.4)
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

/** A context name the kubeconfig and kubectl take without quoting. */
const CONTEXT_NAME = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,252}$/;

/**
 * The kubeconfig names of a simulator serving `source` (a scenario or a snapshot path): the
 * scenario (`eks-demo`, `generated:realistic-S` → `generated-realistic-s`) or the snapshot's file
 * name without its extension, so two simulators' kubeconfigs merge without one hiding the other.
 */
export function defaultContextName(source: string): string {
  const base = source.includes('/') || /\.(ya?ml|json)$/i.test(source) ? (source.split('/').filter((part) => part !== '').pop() ?? '').replace(/\.(ya?ml|json)$/i, '') : source;
  const name = base.toLowerCase().replace(/[^a-z0-9.-]+/g, '-').replace(/^[-.]+|[-.]+$/g, '');
  return CONTEXT_NAME.test(name) ? name : 'zonescope-sim';
}

/** Result of {@link parseCliArgs}. */
export type CliParse = { kind: 'run'; options: CliOptions } | { kind: 'help' } | { kind: 'error'; message: string };

/** The options, as `parseArgs` takes them. */
const OPTIONS = {
  help: { type: 'boolean', short: 'h' },
  scenario: { type: 'string' },
  snapshot: { type: 'string' },
  port: { type: 'string' },
  kubeconfig: { type: 'string' },
  context: { type: 'string' },
  'server-version': { type: 'string' },
  tls: { type: 'boolean' },
  'tls-san': { type: 'string' },
  auth: { type: 'string' },
  'flow-zone-labels': { type: 'boolean' },
  exporter: { type: 'string' },
  'no-inter-zone': { type: 'boolean' },
} as const satisfies OptionSpecs;

/** Parses CLI arguments (`--flag value` or `--flag=value`, each at most once). */
export function parseCliArgs(argv: readonly string[]): CliParse {
  const parsed = parseArgs({ args: [...argv], options: OPTIONS, strict: false, tokens: true });
  if (parsed.tokens.some((token) => token.kind === 'option' && token.name === 'help')) return { kind: 'help' };
  const values = checkedOptions(argv, parsed, OPTIONS, { once: true });
  const error = (message: string): CliParse => ({ kind: 'error', message });
  if (typeof values === 'string') return error(values);
  const { scenario, snapshot, tls = false } = values;
  if (scenario === undefined && snapshot === undefined) return error('one of --scenario or --snapshot is required');
  if (scenario !== undefined && snapshot !== undefined) return error('--scenario and --snapshot are exclusive');
  const port = wholeNumber('--port', values.port ?? '0', { max: 65535 });
  if (typeof port === 'string') return error(port);
  const context = values.context ?? defaultContextName(scenario ?? snapshot ?? '');
  if (!CONTEXT_NAME.test(context)) return error(`--context takes letters, digits, ".", "_", ":" and "-" (at most 253, starting with a letter or digit), got "${context}"`);
  const serverVersion = values['server-version'];
  if (serverVersion !== undefined && !/^v\d+\.\d+\.\d+/.test(serverVersion)) return error(`--server-version must look like v1.31.4, got "${serverVersion}"`);
  const rawNames = values['tls-san'];
  if (rawNames !== undefined && !tls) return error('--tls-san needs --tls');
  const tlsNames = (rawNames ?? '').split(',').map((name) => name.trim()).filter((name) => name !== '');
  const bad = tlsNames.find((name) => !/^[A-Za-z0-9.:*-]+$/.test(name));
  if (bad !== undefined) return error(`--tls-san takes host names or IP addresses, got "${bad}"`);
  const auth = oneOf('--auth', values.auth ?? 'none', SIM_AUTH_MODES);
  if (typeof auth === 'string') return error(auth);
  if (auth.value === 'client-cert' && !tls) return error('--auth client-cert needs --tls (client certificates are checked in the TLS handshake)');
  const exporter = oneOf('--exporter', values.exporter ?? DEFAULT_TRAFFIC_METRICS_OPTIONS.exporter, FLOW_EXPORTERS);
  if (typeof exporter === 'string') return error(exporter);
  const trafficMetrics: TrafficMetricsOptions = { flowZoneLabels: values['flow-zone-labels'] ?? false, exporter: exporter.value, interZone: !values['no-inter-zone'] };
  return {
    kind: 'run',
    options: { scenario, snapshot, port, kubeconfig: values.kubeconfig, context, serverVersion, tls, tlsNames, auth: auth.value, trafficMetrics },
  };
}
