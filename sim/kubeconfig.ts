/**
 * Kubeconfig files for the simulator: an `http://` server with `insecure-skip-tls-verify: true`
 * (client-node needs it for plain HTTP), a token user and a context named `zonescope-sim`.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { stringify } from 'yaml';

/** Name of the cluster, user and context in generated kubeconfigs. */
export const SIM_CONTEXT = 'zonescope-sim';

/** Options of {@link renderKubeconfig}. */
export interface KubeconfigOptions {
  /** Server URL, e.g. `http://127.0.0.1:6443`. */
  server: string;
  /** Bearer token of the user. */
  token: string;
  /** Context name (default `zonescope-sim`). */
  context?: string;
  /** Default namespace of the context (default `default`). */
  namespace?: string;
}

/** Renders a kubeconfig as YAML. */
export function renderKubeconfig(options: KubeconfigOptions): string {
  const name = options.context ?? SIM_CONTEXT;
  return stringify({
    apiVersion: 'v1',
    kind: 'Config',
    preferences: {},
    clusters: [{ name, cluster: { server: options.server, 'insecure-skip-tls-verify': true } }],
    users: [{ name, user: { token: options.token } }],
    contexts: [{ name, context: { cluster: name, user: name, namespace: options.namespace ?? 'default' } }],
    'current-context': name,
  });
}

/** Writes a kubeconfig (creating its folder, mode 0600) and returns its absolute path. */
export async function writeKubeconfig(file: string, options: KubeconfigOptions): Promise<string> {
  const absolute = path.resolve(file);
  await mkdir(path.dirname(absolute), { recursive: true });
  await writeFile(absolute, renderKubeconfig(options), { mode: 0o600 });
  return absolute;
}
