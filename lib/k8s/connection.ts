/**
 * The connection to one API server: the {@link KubeConnection} contract the informers, writes and
 * identity reads talk to, and {@link createConnection}, which checks what the options name (a
 * kubeconfig context or the in-cluster service account, its cluster, its proxy) and builds one.
 *
 * Raw HTTP (./transport/http-connection) is used instead of the generated API clients for list and
 * watch: it keeps objects as plain JSON (no model classes, no Date conversion), exposes status
 * codes, `Retry-After` and `Status` bodies, and lets a watch be cut by our own watchdog. The
 * options come from ./connection-options (kubeconfigs read as kubectl reads them: ./kubeconfig,
 * ./in-cluster); the proxy is the cluster's `proxy-url`, else `HTTPS_PROXY`/`HTTP_PROXY` unless
 * `NO_PROXY` matches (./proxy), handed to client-node's agent as the cluster's `proxyUrl`.
 *
 * Size limits: one watch line (one event) is cut at `MAX_WATCH_LINE_BYTES`
 * (./transport/line-stream), a buffered 2xx body (a list page) at `MAX_RESPONSE_BYTES`
 * (./transport/response-body); both fail with a `ResponseTooLargeError` instead of growing without
 * bound. The credentials every request carries are handed to the redactor (../redact), so an API
 * server echoing them cannot make them shown or logged.
 */
import { accessSync, constants } from 'node:fs';
import type { IncomingHttpHeaders } from 'node:http';
import type { Cluster, KubeConfig, User } from '@kubernetes/client-node';
import { getConfig } from '../config/process-config';
import type { ConnectionOptions } from './connection-options';
import { loadKubeConfig, proxyEnvOf } from './connection-options';
import { errorCode } from './errors';
import { KubeconfigError } from './kubeconfig';
import { chooseProxy, proxyCredentials } from './proxy';
import { rememberSecret } from './redact';
import { HttpKubeConnection } from './transport/http-connection';
import { rememberUserCredentials } from './transport/request-credentials';

/** Default timeout of one request (a list page, a patch, an access review). */
export const DEFAULT_REQUEST_TIMEOUT_MS = 30_000;

/** Where the connection's credentials come from. */
export type ConnectionSource = 'kubeconfig' | 'in-cluster';

/** A request to the API server. */
export interface KubeHttpRequest {
  readonly method?: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';
  /** Path below the server URL, e.g. `/api/v1/pods`. */
  readonly path: string;
  readonly query?: Readonly<Record<string, string | number | boolean | undefined>>;
  readonly body?: string;
  readonly contentType?: string;
  /** Overrides the connection's request timeout (ms). For streams it bounds the wait for headers. */
  readonly timeoutMs?: number;
  readonly signal?: AbortSignal;
  /** Largest 2xx body {@link KubeConnection.request} buffers (default `MAX_RESPONSE_BYTES`, 32 MiB). */
  readonly maxResponseBytes?: number;
  /** Longest line {@link KubeConnection.openStream} buffers (default `MAX_WATCH_LINE_BYTES`, 8 MiB). */
  readonly maxLineBytes?: number;
}

/** A buffered response. */
export interface KubeHttpResponse {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

/** An open line stream (a watch). */
export interface KubeLineStream {
  /**
   * Resolves when the stream ends: `null` on a clean end, the error otherwise (a
   * `ResponseTooLargeError` when a line exceeded the line limit; the stream is then closed).
   */
  readonly done: Promise<Error | null>;
  /** The most bytes held so far for a line not yet complete (never above the line limit). */
  readonly maxPendingBytes: number;
  /** Ends the stream now (idempotent); `done` then resolves with `null`. */
  close(): void;
}

/** Result of opening a stream: the stream on 2xx, the buffered error response otherwise. */
export type OpenStreamResult = { readonly ok: true; readonly stream: KubeLineStream } | { readonly ok: false; readonly response: KubeHttpResponse };

/** A connection to one API server. */
export interface KubeConnection {
  /** The client-node configuration (for the generated API clients used by mutations). */
  readonly kubeConfig: KubeConfig;
  /** Context name (`inClusterContext` in-cluster). */
  readonly contextName: string;
  /** Server URL without credentials, for display. */
  readonly serverUrl: string;
  readonly source: ConnectionSource;
  readonly requestTimeoutMs: number;
  /**
   * Sends a request and buffers the answer (any status). Rejects on transport failure, timeout,
   * or a 2xx body over the response limit (`ResponseTooLargeError`); error bodies are truncated
   * at 1 MiB.
   */
  request(request: KubeHttpRequest): Promise<KubeHttpResponse>;
  /** Opens a newline-delimited stream; `onLine` gets every non-empty line (lines over the line limit end it). */
  openStream(request: KubeHttpRequest, onLine: (line: string) => void): Promise<OpenStreamResult>;
  /**
   * A request through {@link kubeConfig} (a generated client) got 401: drops a credential-plugin
   * credential so the next request runs the plugin again. `true` when a retry may succeed (a fresh
   * credential will be fetched); `false` without a plugin or when the credential was itself fresh.
   */
  credentialsRejected?(): boolean;
}

/** Result of {@link createConnection}. */
export type ConnectionResult = { readonly ok: true; readonly connection: KubeConnection } | { readonly ok: false; readonly message: string };

/** The server URL without user-info, query or fragment. */
export function displayServerUrl(server: string): string {
  try {
    const url = new URL(server);
    url.username = '';
    url.password = '';
    url.search = '';
    url.hash = '';
    return url.toString().replace(/\/$/, '');
  } catch {
    return '(invalid server URL)';
  }
}

/**
 * The first file the context's cluster or user names that cannot be read (a certificate
 * authority, a client certificate or key), in words naming it and why — as kubectl says at once,
 * rather than every request failing with ENOENT until the sync gives up.
 */
function unreadableFile(cluster: Cluster, user: User | null): string | null {
  const files: readonly (readonly [string, string | undefined, string])[] = [
    ['certificate-authority', cluster.caFile, `cluster "${cluster.name}"`],
    ['client-certificate', user?.certFile, `user "${user?.name ?? ''}"`],
    ['client-key', user?.keyFile, `user "${user?.name ?? ''}"`],
  ];
  for (const [field, file, owner] of files) {
    if (file === undefined || file === '') continue;
    try {
      accessSync(file, constants.R_OK);
    } catch (error) {
      const code = errorCode(error);
      const why = code === 'ENOENT' ? 'no such file' : code === 'EACCES' ? 'permission denied' : (code ?? 'unreadable');
      return `Cannot read the ${field} file ${file} of ${owner} (${why}).`;
    }
  }
  return null;
}

/**
 * Builds a connection. Fails (as a value) when the kubeconfig cannot be read (no file of the
 * list exists, one is unreadable or not a kubeconfig), the in-cluster environment is incomplete,
 * the context does not exist, it names no cluster, its proxy (`proxy-url` or the environment's)
 * is malformed or of an unsupported scheme, or a certificate-authority, client-certificate or
 * client-key file it names cannot be read. A plain `http://` server is used as kubectl uses it
 * (`kubectl proxy`), without `insecure-skip-tls-verify`. Messages name
 * files, contexts and variables, never credentials or proxy URLs.
 */
export function createConnection(options: ConnectionOptions): ConnectionResult {
  let kc: KubeConfig;
  try {
    kc = loadKubeConfig(options);
  } catch (error) {
    if (error instanceof KubeconfigError) return { ok: false, message: error.message };
    const what = options.inCluster ? 'the in-cluster service account' : options.kubeconfigText !== undefined ? 'the kubeconfig' : `kubeconfig ${options.kubeconfig ?? ''}`;
    const code = errorCode(error);
    return { ok: false, message: `Cannot load ${what}${code !== undefined ? ` (${code})` : ''}.` };
  }
  const contextName = kc.getCurrentContext();
  if (!contextName) return { ok: false, message: 'The kubeconfig has no current context; choose one with ZONESCOPE_CONTEXT.' };
  const context = kc.getContextObject(contextName);
  if (!context) {
    const known = kc.getContexts().map((c) => c.name).join(', ');
    return { ok: false, message: `Context "${contextName}" is not in the kubeconfig (contexts: ${known || 'none'}).` };
  }
  const kubeconfigCluster = kc.getCurrentCluster();
  if (!kubeconfigCluster) return { ok: false, message: `Context "${contextName}" names cluster "${context.cluster}", which the kubeconfig does not define.` };
  // The proxy (proxy-url, else HTTPS_PROXY/HTTP_PROXY unless NO_PROXY matches) goes into the
  // cluster's proxyUrl, so that client-node's agent — for our requests and for the generated
  // clients alike — goes through it.
  const proxy = chooseProxy(kubeconfigCluster.server, kubeconfigCluster.proxyUrl, options.proxyEnv ?? proxyEnvOf(getConfig()), kubeconfigCluster.name);
  if (!proxy.ok) return { ok: false, message: proxy.message };
  const proxied: Cluster = proxy.proxy === null ? { ...kubeconfigCluster, proxyUrl: undefined } : { ...kubeconfigCluster, proxyUrl: proxy.proxy.url };
  // A plain http:// server (`kubectl proxy`, a local API server) has no certificate to verify, and
  // kubectl connects to it as it is; client-node refuses plain HTTP unless told to skip TLS
  // verification, which here skips nothing.
  const cluster: Cluster = proxied.server.startsWith('http:') && !proxied.skipTLSVerify ? { ...proxied, skipTLSVerify: true } : proxied;
  const clusters = kc.getClusters();
  clusters.splice(clusters.indexOf(kubeconfigCluster), 1, cluster);
  for (const secret of proxy.proxy === null ? [] : proxyCredentials(proxy.proxy.url)) rememberSecret(secret);
  const unreadable = unreadableFile(cluster, kc.getCurrentUser());
  if (unreadable !== null) return { ok: false, message: unreadable };
  rememberUserCredentials(kc);
  const connection = new HttpKubeConnection(
    kc,
    contextName,
    cluster.server,
    displayServerUrl(cluster.server),
    options.inCluster ? 'in-cluster' : 'kubeconfig',
    options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS,
    options.exec,
    options.keepAlive ?? true,
  );
  return { ok: true, connection };
}
