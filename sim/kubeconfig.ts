/**
 * Kubeconfig files for the simulator, context `zonescope-sim`. The cluster is either an `http://`
 * server with `insecure-skip-tls-verify: true` (client-node needs it for plain HTTP) or an
 * `https://` server with the simulator's CA as `certificate-authority-data`. The user carries
 * a bearer token, a client certificate and key (`client-certificate-data`/`client-key-data`), or
 * an `exec` entry that runs {@link EXEC_PLUGIN_PATH} to obtain the token (an ExecCredential).
 */
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { stringify } from 'yaml';

/** Name of the cluster, user and context in generated kubeconfigs. */
export const SIM_CONTEXT = 'zonescope-sim';

/** The exec credential plugin (plain JavaScript, runs with `node` from a fresh clone). */
export const EXEC_PLUGIN_PATH = fileURLToPath(new URL('./exec-plugin.mjs', import.meta.url));

/** How clients of a simulator authenticate (see `SimulatorOptions.auth` in sim/server.ts). */
export type SimAuth = 'none' | 'token' | 'client-cert' | 'exec';

/** The authentication modes, for argument parsing. */
export const SIM_AUTH_MODES: readonly SimAuth[] = ['none', 'token', 'client-cert', 'exec'];

/** The credentials a generated kubeconfig gives its user. */
export type SimCredentials =
  | { readonly kind: 'token'; readonly token: string }
  | { readonly kind: 'client-cert'; readonly certificate: string; readonly key: string }
  | { readonly kind: 'exec'; readonly tokenFile: string };

/** Options of {@link renderKubeconfig}. */
export interface KubeconfigOptions {
  /** Server URL, e.g. `http://127.0.0.1:6443` or `https://127.0.0.1:6443`. */
  server: string;
  /** Bearer token of the user (used when {@link credentials} is not given). */
  token: string;
  /** The user's credentials (default: the bearer {@link token}). */
  credentials?: SimCredentials;
  /** PEM CA certificate of an `https://` server (becomes `certificate-authority-data`). */
  caCertificate?: string;
  /** The cluster's `proxy-url`. */
  proxyUrl?: string;
  /** Context name (default `zonescope-sim`). */
  context?: string;
  /** Default namespace of the context (default `default`). */
  namespace?: string;
}

const base64 = (pem: string): string => Buffer.from(pem, 'utf8').toString('base64');

function userEntry(options: KubeconfigOptions): Record<string, unknown> {
  const credentials = options.credentials ?? { kind: 'token', token: options.token };
  switch (credentials.kind) {
    case 'token':
      return { token: credentials.token };
    case 'client-cert':
      return { 'client-certificate-data': base64(credentials.certificate), 'client-key-data': base64(credentials.key) };
    case 'exec':
      return {
        exec: {
          apiVersion: 'client.authentication.k8s.io/v1',
          command: process.execPath,
          args: [EXEC_PLUGIN_PATH, credentials.tokenFile],
          interactiveMode: 'Never',
          provideClusterInfo: false,
        },
      };
  }
}

/** The cluster, user and context entries of one simulator, all named after its context. */
function kubeconfigEntries(options: KubeconfigOptions): { readonly name: string; readonly cluster: object; readonly user: object; readonly context: object } {
  const name = options.context ?? SIM_CONTEXT;
  const cluster: Record<string, unknown> = { server: options.server };
  if (options.caCertificate !== undefined) cluster['certificate-authority-data'] = base64(options.caCertificate);
  else cluster['insecure-skip-tls-verify'] = true;
  if (options.proxyUrl !== undefined) cluster['proxy-url'] = options.proxyUrl;
  return {
    name,
    cluster: { name, cluster },
    user: { name, user: userEntry(options) },
    context: { name, context: { cluster: name, user: name, namespace: options.namespace ?? 'default' } },
  };
}

/** Renders a kubeconfig as YAML. */
export function renderKubeconfig(options: KubeconfigOptions): string {
  return renderMultiContextKubeconfig([options]);
}

/**
 * Renders one kubeconfig with a context per entry (each entry's `context` names it), as several
 * clusters behind one kubeconfig; `current` is the current context (default: the first entry's).
 */
export function renderMultiContextKubeconfig(entries: readonly KubeconfigOptions[], current?: string): string {
  const parts = entries.map(kubeconfigEntries);
  return stringify({
    apiVersion: 'v1',
    kind: 'Config',
    preferences: {},
    clusters: parts.map((part) => part.cluster),
    users: parts.map((part) => part.user),
    contexts: parts.map((part) => part.context),
    'current-context': current ?? parts[0]?.name ?? SIM_CONTEXT,
  });
}

/** Writes a kubeconfig (creating its folder, mode 0600) and returns its absolute path. */
export async function writeKubeconfig(file: string, options: KubeconfigOptions): Promise<string> {
  const absolute = path.resolve(file);
  await mkdir(path.dirname(absolute), { recursive: true });
  await writeFile(absolute, renderKubeconfig(options), { mode: 0o600 });
  return absolute;
}
