/**
 * The in-cluster configuration: the API server of `KUBERNETES_SERVICE_HOST`/`_PORT` and the Pod's
 * service account (token, CA, namespace), as client-go builds it.
 */
import { existsSync, readFileSync } from 'node:fs';
import { isIPv6 } from 'node:net';
import path from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { getConfig } from '../config/process-config';
import type { ConnectionOptions } from './connection-options';
import { errorCode } from './errors';
import { KubeconfigError } from './kubeconfig';
import { tokenFileAuthProvider } from './token-file';

/** Where Kubernetes mounts a Pod's service-account token, CA and namespace. */
export const DEFAULT_SERVICEACCOUNT_DIR = '/var/run/secrets/kubernetes.io/serviceaccount';

/**
 * The in-cluster configuration as client-go builds it: `https://KUBERNETES_SERVICE_HOST:PORT`,
 * the service account's CA (when mounted) and token (re-read every minute, so projected tokens
 * rotate), the namespace file as the default namespace.
 */
export function loadInCluster(options: Pick<ConnectionOptions, 'serviceHost' | 'servicePort' | 'serviceAccountDir'>): KubeConfig {
  const host = options.serviceHost ?? getConfig().KUBERNETES_SERVICE_HOST ?? '';
  const port = options.servicePort ?? getConfig().KUBERNETES_SERVICE_PORT ?? '';
  if (host === '' || port === '') {
    throw new KubeconfigError('Cannot use the in-cluster service account: KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT must both be set (Kubernetes sets them in every Pod).');
  }
  if (!/^\d{1,5}$/.test(port) || Number(port) > 65535) throw new KubeconfigError(`Cannot use the in-cluster service account: KUBERNETES_SERVICE_PORT must be a port number, got "${port}".`);
  const dir = options.serviceAccountDir ?? DEFAULT_SERVICEACCOUNT_DIR;
  const tokenFile = path.join(dir, 'token');
  try {
    readFileSync(tokenFile);
  } catch (error) {
    const code = errorCode(error);
    const hint = options.serviceAccountDir === undefined ? ' Is a service-account token mounted (automountServiceAccountToken)? ZONESCOPE_SERVICEACCOUNT_DIR names another folder.' : '';
    throw new KubeconfigError(`Cannot load the in-cluster service account: ${tokenFile} cannot be read${code !== undefined ? ` (${code})` : ''}.${hint}`);
  }
  const caFile = path.join(dir, 'ca.crt');
  let namespace: string | undefined;
  try {
    namespace = readFileSync(path.join(dir, 'namespace'), 'utf8').trim() || undefined;
  } catch {
    namespace = undefined;
  }
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [{ name: 'inCluster', server: `https://${isIPv6(host) ? `[${host}]` : host}:${port}`, skipTLSVerify: false, ...(existsSync(caFile) ? { caFile } : {}) }],
    users: [{ name: 'inClusterUser', authProvider: tokenFileAuthProvider(tokenFile) }],
    contexts: [{ name: 'inClusterContext', cluster: 'inCluster', user: 'inClusterUser', ...(namespace !== undefined ? { namespace } : {}) }],
    currentContext: 'inClusterContext',
  });
  return kc;
}
