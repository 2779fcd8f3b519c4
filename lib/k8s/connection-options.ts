/**
 * What a connection connects with: {@link ConnectionOptions}, read from the configuration
 * ({@link connectionOptionsFromEnv}: a kubeconfig, else the in-cluster service account), and the
 * client-node `KubeConfig` they name ({@link loadKubeConfig}).
 */
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import type { Config } from '../config/variables';
import { getConfig } from '../config/process-config';
import type { ExecCredentialOptions } from './exec-credential/provider';
import { loadInCluster } from './in-cluster';
import { loadKubeconfigFiles, parseKubeconfig } from './kubeconfig';
import type { ProxyEnv } from './proxy';
import { TOKEN_FILE_AUTHENTICATOR } from './token-file';

/** How to connect. */
export interface ConnectionOptions {
  /** Kubeconfig path(s), separated by the platform's path delimiter as in `KUBECONFIG`. */
  readonly kubeconfig?: string;
  /** Kubeconfig content (tests, generated configs). Wins over {@link kubeconfig}. */
  readonly kubeconfigText?: string;
  /** Context to use instead of the current context. */
  readonly context?: string;
  /**
   * Use the in-cluster service account: the API server at {@link serviceHost}:{@link servicePort}
   * over HTTPS, the token (re-read every minute), CA and namespace of {@link serviceAccountDir}.
   */
  readonly inCluster?: boolean;
  /** In-cluster: the API server host (default `KUBERNETES_SERVICE_HOST` of the configuration). */
  readonly serviceHost?: string;
  /** In-cluster: the API server port (default `KUBERNETES_SERVICE_PORT` of the configuration). */
  readonly servicePort?: string;
  /** In-cluster: the folder with `token`, `ca.crt` and `namespace` (default `DEFAULT_SERVICEACCOUNT_DIR` of ./in-cluster). */
  readonly serviceAccountDir?: string;
  /**
   * Where `HTTPS_PROXY`/`HTTP_PROXY`/`NO_PROXY` (and lower case) are read (default the
   * configuration's); a cluster's `proxy-url` wins over them (see ./proxy).
   */
  readonly proxyEnv?: ProxyEnv;
  /** Timeout of one request in ms (default `DEFAULT_REQUEST_TIMEOUT_MS` of ./connection). */
  readonly requestTimeoutMs?: number;
  /** Credential plugins (`exec` users): time limit and backoff (see ./exec-credential/provider). */
  readonly exec?: ExecCredentialOptions;
  /**
   * Keep connections alive and reuse them (default true). `false` opens a new TCP (and TLS)
   * connection for every request and closes it after the answer: for comparison, or for a
   * middlebox that mishandles kept connections (`ZONESCOPE_KEEPALIVE=0`).
   */
  readonly keepAlive?: boolean;
}

/**
 * The merged `KubeConfig` of `options` as `createConnection` (./connection) reads it (kubeconfig text, a
 * `KUBECONFIG` list, or the in-cluster service account), current context set to
 * `options.context` when given (`setCurrentContext` does not check that it exists). Throws an
 * `KubeconfigError` (./kubeconfig) whose message is fit to show when the configuration cannot be read.
 * Also used by the cluster registry's entries (./cluster-entries), which list every context.
 */
export function loadKubeConfig(options: ConnectionOptions): KubeConfig {
  let kc: KubeConfig;
  if (options.kubeconfigText !== undefined) {
    kc = parseKubeconfig(options.kubeconfigText, null, 'the kubeconfig') ?? new KubeConfig();
  } else if (options.inCluster) {
    kc = loadInCluster(options);
  } else {
    kc = loadKubeconfigFiles(options.kubeconfig ?? '');
  }
  if (options.context !== undefined && options.context !== '') kc.setCurrentContext(options.context);
  kc.addAuthenticator(TOKEN_FILE_AUTHENTICATOR);
  return kc;
}

/** The proxy variables handed on to the connection (upper and lower case, as kubectl reads them). */
export const PROXY_VARIABLES = ['HTTPS_PROXY', 'https_proxy', 'HTTP_PROXY', 'http_proxy', 'NO_PROXY', 'no_proxy'] as const;

/**
 * The settings read by {@link connectionOptionsFromEnv} (lib/config): `KUBECONFIG`,
 * `ZONESCOPE_CONTEXT`, `KUBERNETES_SERVICE_HOST`, `KUBERNETES_SERVICE_PORT`,
 * `ZONESCOPE_SERVICEACCOUNT_DIR`, `ZONESCOPE_REQUEST_TIMEOUT_MS`, `ZONESCOPE_EXEC_TIMEOUT_MS`,
 * `ZONESCOPE_KEEPALIVE`, `HOME`, and the proxy variables ({@link PROXY_VARIABLES}).
 */
export type ConnectionConfig = Pick<
  Config,
  | 'KUBECONFIG'
  | 'ZONESCOPE_CONTEXT'
  | 'KUBERNETES_SERVICE_HOST'
  | 'KUBERNETES_SERVICE_PORT'
  | 'ZONESCOPE_SERVICEACCOUNT_DIR'
  | 'ZONESCOPE_REQUEST_TIMEOUT_MS'
  | 'ZONESCOPE_EXEC_TIMEOUT_MS'
  | 'ZONESCOPE_KEEPALIVE'
  | 'HOME'
  | (typeof PROXY_VARIABLES)[number]
>;

/** The proxy variables of `config` that are set. */
export function proxyEnvOf(config: Pick<Config, (typeof PROXY_VARIABLES)[number]>): Record<string, string> {
  const proxyEnv: Record<string, string> = {};
  for (const name of PROXY_VARIABLES) {
    const value = config[name];
    if (value !== undefined) proxyEnv[name] = value;
  }
  return proxyEnv;
}

/**
 * Connection options from the configuration: `KUBECONFIG` (else `~/.kube/config` when it exists)
 * with `ZONESCOPE_CONTEXT` (else the current context); the in-cluster service account when
 * `KUBERNETES_SERVICE_HOST` is set and there is no kubeconfig — at `KUBERNETES_SERVICE_HOST`:
 * `KUBERNETES_SERVICE_PORT`, with the token, CA and namespace of `ZONESCOPE_SERVICEACCOUNT_DIR`
 * (default `DEFAULT_SERVICEACCOUNT_DIR` of ./in-cluster). The proxy variables that are set go into
 * `proxyEnv`. `ZONESCOPE_KEEPALIVE` off turns keep-alive off. `null` when there is nothing to
 * connect with.
 */
export function connectionOptionsFromEnv(config: ConnectionConfig = getConfig()): ConnectionOptions | null {
  const timeout = config.ZONESCOPE_REQUEST_TIMEOUT_MS;
  const execTimeout = config.ZONESCOPE_EXEC_TIMEOUT_MS;
  const common = {
    ...(config.ZONESCOPE_CONTEXT ? { context: config.ZONESCOPE_CONTEXT } : {}),
    ...(timeout !== undefined ? { requestTimeoutMs: timeout } : {}),
    ...(execTimeout !== undefined ? { exec: { timeoutMs: execTimeout } } : {}),
    ...(!config.ZONESCOPE_KEEPALIVE ? { keepAlive: false } : {}),
    proxyEnv: proxyEnvOf(config),
  };
  if (config.KUBECONFIG) return { kubeconfig: config.KUBECONFIG, ...common };
  const home = config.HOME ?? homedir();
  const defaultFile = path.join(home, '.kube', 'config');
  if (!config.KUBERNETES_SERVICE_HOST && existsSync(defaultFile)) return { kubeconfig: defaultFile, ...common };
  if (config.KUBERNETES_SERVICE_HOST) {
    return {
      inCluster: true,
      serviceHost: config.KUBERNETES_SERVICE_HOST,
      servicePort: config.KUBERNETES_SERVICE_PORT ?? '',
      ...(config.ZONESCOPE_SERVICEACCOUNT_DIR ? { serviceAccountDir: config.ZONESCOPE_SERVICEACCOUNT_DIR } : {}),
      ...common,
    };
  }
  return null;
}
