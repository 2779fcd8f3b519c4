/**
 * Connection to an API server: a client-node `KubeConfig` built from a kubeconfig file (current
 * context or a chosen one) or the in-cluster service account, plus the raw HTTP requests the
 * informers use (buffered requests with a per-request timeout, and line-streamed watches).
 *
 * Raw HTTP (node:http/https with the options `KubeConfig.applyToHTTPSOptions` fills in: CA,
 * client certificates, bearer token — re-read on every request, so rotated tokens are picked up)
 * is used instead of the generated API clients for list and watch: it keeps objects as plain
 * JSON (no model classes, no Date conversion), exposes status codes, `Retry-After` and `Status`
 * bodies, and lets a watch be cut by our own watchdog.
 *
 * Connections are kept alive (see {@link KEEPALIVE_IDLE_TIMEOUT_MS}): one pooled agent for
 * buffered requests (at most {@link MAX_REQUEST_SOCKETS} connections) and one for watches (one
 * connection each, no limit, so open watches never hold up a list page), rebuilt when the TLS
 * material (CA, client certificate and key, server name, proxy) changes — a rotated bearer token
 * is a header and needs no new connection. Through an HTTP(S) proxy the CONNECT tunnel is kept
 * with the connection inside it. A GET sent on a kept connection that the server had closed
 * meanwhile (reset or hang-up before any byte of an answer) is sent once more on a new
 * connection; writes never are (the server may have applied them). `keepAlive: false`
 * (`ZONESCOPE_KEEPALIVE=0`) opens a connection per request instead, as before.
 *
 * Kubeconfigs are read as kubectl reads them (see {@link createConnection}): `KUBECONFIG` lists
 * with missing and empty files skipped, paths relative to the file that names them, `tokenFile`;
 * the proxy is the cluster's `proxy-url`, else `HTTPS_PROXY`/`HTTP_PROXY` unless `NO_PROXY`
 * matches (./proxy), handed to client-node's agent as the cluster's `proxyUrl`.
 *
 * Size limits: one watch line (one event) is cut at {@link MAX_WATCH_LINE_BYTES}, a buffered 2xx
 * body (a list page) at {@link MAX_RESPONSE_BYTES}; both fail with a `ResponseTooLargeError`
 * instead of growing without bound. The credentials every request carries are handed to the
 * redactor (`rememberSecret`), so an API server echoing them cannot make them shown or logged.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { isIPv6 } from 'node:net';
import http from 'node:http';
import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import https from 'node:https';
import { homedir } from 'node:os';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';
import { KubeConfig } from '@kubernetes/client-node';
import type { Cluster, Context, User } from '@kubernetes/client-node';
import { parse as parseYaml } from 'yaml';
import packageJson from '../../package.json';
import { KubeRequestError, rememberSecret, ResponseTooLargeError } from './errors';
import type { ProxyEnv } from './proxy';
import { chooseProxy, proxyCredentials } from './proxy';
import { TOKEN_FILE_AUTHENTICATOR, tokenFileAuthProvider } from './token-file';
import type { ExecCredential, ExecCredentialOptions, ExecCredentialProvider } from './exec-credential';
import { withExecCredentials } from './exec-credential';

/** Default timeout of one request (a list page, a patch, an access review). */
export const DEFAULT_REQUEST_TIMEOUT_MS = 30_000;

/**
 * Longest watch line (one JSON event) accepted: 8 MiB. etcd refuses objects over 1.5 MiB
 * (`--max-request-bytes`), and their JSON is larger than what etcd stores (protobuf; base64 of
 * `binaryData`, escaped strings), so about 3× that is the realistic worst case: 8 MiB leaves
 * headroom while a runaway line costs at most this much memory.
 */
export const MAX_WATCH_LINE_BYTES = 8 * 1024 * 1024;

/**
 * Largest buffered 2xx body accepted (a list page, `/version`): 32 MiB. A page of 500 typical
 * objects is a few MiB; informers that hit the limit fetch the page again with fewer objects,
 * so only a single object over 32 MiB (which etcd cannot store) makes a list fail.
 */
export const MAX_RESPONSE_BYTES = 32 * 1024 * 1024;

/**
 * How long a kept-alive connection may sit unused before zonescope closes it: 4 s, below the idle
 * timeouts of the servers and load balancers in front of API servers (Node's 5 s, nginx's 75 s,
 * AWS ALB's 60 s, Go's 90 s), so the client is the side that closes an idle connection, and a
 * request rarely meets one that the server is closing at that moment (that case is retried once).
 */
export const KEEPALIVE_IDLE_TIMEOUT_MS = 4_000;

/**
 * Most concurrent connections for buffered requests (list pages, `/version`, writes): cold start
 * lists about a dozen types at once, each with at most a page in flight and one asked ahead; more
 * than that waits for a free connection. Watches use their own pool without a limit (each holds
 * its connection for minutes).
 */
export const MAX_REQUEST_SOCKETS = 32;

/** Where the connection's credentials come from. */
export type ConnectionSource = 'kubeconfig' | 'in-cluster';

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
  /** In-cluster: the API server host (default `KUBERNETES_SERVICE_HOST` of the process). */
  readonly serviceHost?: string;
  /** In-cluster: the API server port (default `KUBERNETES_SERVICE_PORT` of the process). */
  readonly servicePort?: string;
  /** In-cluster: the folder with `token`, `ca.crt` and `namespace` (default {@link DEFAULT_SERVICEACCOUNT_DIR}). */
  readonly serviceAccountDir?: string;
  /**
   * Where `HTTPS_PROXY`/`HTTP_PROXY`/`NO_PROXY` (and lower case) are read (default
   * `process.env`); a cluster's `proxy-url` wins over them (see ./proxy).
   */
  readonly proxyEnv?: ProxyEnv;
  /** Timeout of one request in ms (default {@link DEFAULT_REQUEST_TIMEOUT_MS}). */
  readonly requestTimeoutMs?: number;
  /** Credential plugins (`exec` users): time limit and backoff (see `./exec-credential`). */
  readonly exec?: ExecCredentialOptions;
  /**
   * Keep connections alive and reuse them (default true). `false` opens a new TCP (and TLS)
   * connection for every request and closes it after the answer: for comparison, or for a
   * middlebox that mishandles kept connections (`ZONESCOPE_KEEPALIVE=0`).
   */
  readonly keepAlive?: boolean;
}

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
  /** Largest 2xx body {@link KubeConnection.request} buffers (default {@link MAX_RESPONSE_BYTES}). */
  readonly maxResponseBytes?: number;
  /** Longest line {@link KubeConnection.openStream} buffers (default {@link MAX_WATCH_LINE_BYTES}). */
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

/** Where Kubernetes mounts a Pod's service-account token, CA and namespace. */
export const DEFAULT_SERVICEACCOUNT_DIR = '/var/run/secrets/kubernetes.io/serviceaccount';

/** A kubeconfig or in-cluster problem, with a message fit to show (files and fields, never credentials). */
export class KubeconfigError extends Error {}

function errorCode(error: unknown): string | undefined {
  const code = typeof error === 'object' && error !== null ? (error as { code?: unknown }).code : undefined;
  return typeof code === 'string' ? code : undefined;
}

/** A user's fields client-node does not keep: `tokenFile` (it only reads `token-file`, once). */
function rawUsers(document: unknown): Map<string, { tokenFile?: string }> {
  const users = new Map<string, { tokenFile?: string }>();
  const list = typeof document === 'object' && document !== null ? (document as { users?: unknown }).users : undefined;
  if (!Array.isArray(list)) return users;
  for (const entry of list as unknown[]) {
    if (typeof entry !== 'object' || entry === null) continue;
    const { name, user } = entry as { name?: unknown; user?: unknown };
    if (typeof name !== 'string' || typeof user !== 'object' || user === null) continue;
    const tokenFile = (user as { tokenFile?: unknown }).tokenFile;
    users.set(name, typeof tokenFile === 'string' && tokenFile !== '' ? { tokenFile } : {});
  }
  return users;
}

/**
 * One kubeconfig document as client-node reads it, with kubectl's file semantics added: relative
 * `certificate-authority`, `client-certificate`, `client-key` and `tokenFile` paths, and an exec
 * `command` with a path separator, are resolved against `dir` (the folder of the file that
 * defines them; bare command names are looked up in PATH when run); `tokenFile` is honoured,
 * re-read every minute as client-go does (./token-file), and wins over `token`. `null` for an
 * empty document.
 */
function parseKubeconfig(text: string, dir: string | null, what: string): KubeConfig | null {
  let document: unknown;
  try {
    document = parseYaml(text);
  } catch {
    throw new KubeconfigError(`Cannot load ${what}: it is not valid YAML.`);
  }
  if (document === null || document === undefined) return null;
  if (typeof document !== 'object' || Array.isArray(document)) throw new KubeconfigError(`Cannot load ${what}: it is not a kubeconfig (a YAML mapping).`);
  const kc = new KubeConfig();
  try {
    kc.loadFromString(text);
  } catch (error) {
    const message = error instanceof Error ? error.message : '';
    const field = /^(clusters|users|contexts)\[\d+\]\.[\w.]+ is missing$/.test(message) ? `: ${message}` : '';
    throw new KubeconfigError(`Cannot load ${what}${field || ': it is not a valid kubeconfig'}.`);
  }
  if (dir !== null) kc.makePathsAbsolute(dir);
  const resolve = (file: string): string => (dir === null || path.isAbsolute(file) ? file : path.join(dir, file));
  const extra = rawUsers(document);
  const users = kc.getUsers().map((user): User => {
    let next: User = user;
    const tokenFile = extra.get(user.name)?.tokenFile;
    if (tokenFile !== undefined && !user.authProvider && !user.exec) {
      next = { ...next, token: undefined, authProvider: tokenFileAuthProvider(resolve(tokenFile)) };
    }
    const exec = next.exec as { command?: unknown } | null | undefined;
    if (exec && typeof exec.command === 'string' && /[\\/]/.test(exec.command) && !path.isAbsolute(exec.command)) {
      next = { ...next, exec: { ...exec, command: resolve(exec.command) } };
    }
    return next;
  });
  kc.loadFromOptions({ clusters: kc.getClusters(), contexts: kc.getContexts(), users, currentContext: kc.getCurrentContext() });
  return kc;
}

/**
 * The files of a `KUBECONFIG` list merged as kubectl merges them: missing and empty files are
 * skipped, the first file to define a name (cluster, user, context) or `current-context` wins.
 * Fails when none of the files exists, naming them.
 */
function loadKubeconfigFiles(list: string): KubeConfig {
  const files = list.split(path.delimiter).filter((f) => f !== '');
  if (files.length === 0) throw new KubeconfigError('Cannot load the kubeconfig: no kubeconfig file was given.');
  const clusters: Cluster[] = [];
  const users: User[] = [];
  const contexts: Context[] = [];
  let currentContext = '';
  const missing: string[] = [];
  for (const file of files) {
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch (error) {
      const code = errorCode(error);
      if (code === 'ENOENT') {
        missing.push(file);
        continue;
      }
      throw new KubeconfigError(`Cannot load kubeconfig ${file}${code !== undefined ? ` (${code})` : ''}.`);
    }
    const kc = parseKubeconfig(text, path.dirname(path.resolve(file)), `kubeconfig ${file}`);
    if (kc === null) continue;
    for (const cluster of kc.getClusters()) if (!clusters.some((c) => c.name === cluster.name)) clusters.push(cluster);
    for (const user of kc.getUsers()) if (!users.some((u) => u.name === user.name)) users.push(user);
    for (const context of kc.getContexts()) if (!contexts.some((c) => c.name === context.name)) contexts.push(context);
    if (!currentContext) currentContext = kc.getCurrentContext() ?? '';
  }
  if (missing.length === files.length) {
    throw new KubeconfigError(
      files.length === 1 ? `Cannot load kubeconfig ${files[0] ?? ''} (ENOENT).` : `Cannot load the kubeconfig: none of its files exists (${files.join(', ')}).`,
    );
  }
  const kc = new KubeConfig();
  kc.loadFromOptions({ clusters, users, contexts, currentContext });
  return kc;
}

/**
 * The in-cluster configuration as client-go builds it: `https://KUBERNETES_SERVICE_HOST:PORT`,
 * the service account's CA (when mounted) and token (re-read every minute, so projected tokens
 * rotate), the namespace file as the default namespace.
 */
function loadInCluster(options: ConnectionOptions): KubeConfig {
  const host = options.serviceHost ?? process.env.KUBERNETES_SERVICE_HOST ?? '';
  const port = options.servicePort ?? process.env.KUBERNETES_SERVICE_PORT ?? '';
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

/**
 * The merged `KubeConfig` of `options` as {@link createConnection} reads it (kubeconfig text, a
 * `KUBECONFIG` list, or the in-cluster service account), current context set to
 * `options.context` when given (`setCurrentContext` does not check that it exists). Throws an
 * {@link KubeconfigError} whose message is fit to show when the configuration cannot be read.
 * Exported for the cluster registry (./clusters), which lists every context.
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

/**
 * Builds a connection. Fails (as a value) when the kubeconfig cannot be read (no file of the
 * list exists, one is unreadable or not a kubeconfig), the in-cluster environment is incomplete,
 * the context does not exist, it names no cluster, its proxy (`proxy-url` or the environment's)
 * is malformed or of an unsupported scheme, or an `http://` server lacks
 * `insecure-skip-tls-verify: true` (client-node refuses plain HTTP otherwise). Messages name
 * files, contexts and variables, never credentials or proxy URLs.
 */
export function createConnection(options: ConnectionOptions): ConnectionResult {
  let kc: KubeConfig;
  try {
    kc = loadKubeConfig(options);
  } catch (error) {
    if (error instanceof KubeconfigError) return { ok: false, message: error.message };
    const what = options.inCluster ? 'the in-cluster service account' : options.kubeconfigText !== undefined ? 'the kubeconfig' : `kubeconfig ${options.kubeconfig ?? ''}`;
    const code = typeof error === 'object' && error !== null && typeof (error as { code?: unknown }).code === 'string' ? ` (${(error as { code: string }).code})` : '';
    return { ok: false, message: `Cannot load ${what}${code}.` };
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
  const proxy = chooseProxy(kubeconfigCluster.server, kubeconfigCluster.proxyUrl, options.proxyEnv ?? process.env, kubeconfigCluster.name);
  if (!proxy.ok) return { ok: false, message: proxy.message };
  const cluster: Cluster = proxy.proxy === null ? { ...kubeconfigCluster, proxyUrl: undefined } : { ...kubeconfigCluster, proxyUrl: proxy.proxy.url };
  const clusters = kc.getClusters();
  clusters.splice(clusters.indexOf(kubeconfigCluster), 1, cluster);
  for (const secret of proxy.proxy === null ? [] : proxyCredentials(proxy.proxy.url)) rememberSecret(secret);
  if (cluster.server.startsWith('http:') && !cluster.skipTLSVerify && !cluster.proxyUrl) {
    return { ok: false, message: `Cluster "${cluster.name}" uses plain http:// without insecure-skip-tls-verify: true, which client-node refuses.` };
  }
  rememberUserCredentials(kc);
  const connection = new HttpKubeConnection(
    kc,
    contextName,
    cluster.server,
    options.inCluster ? 'in-cluster' : 'kubeconfig',
    options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS,
    options.exec,
    options.keepAlive ?? true,
  );
  return { ok: true, connection };
}

/**
 * Environment read by {@link connectionOptionsFromEnv}: `KUBECONFIG`, `ZONESCOPE_CONTEXT`,
 * `KUBERNETES_SERVICE_HOST`, `KUBERNETES_SERVICE_PORT`, `ZONESCOPE_SERVICEACCOUNT_DIR`,
 * `ZONESCOPE_REQUEST_TIMEOUT_MS`, `ZONESCOPE_KEEPALIVE`, `HOME`, and the proxy variables
 * ({@link PROXY_VARIABLES}).
 */
export type ConnectionEnv = Readonly<Record<string, string | undefined>>;

/** The proxy variables handed on to the connection (upper and lower case, as kubectl reads them). */
export const PROXY_VARIABLES = ['HTTPS_PROXY', 'https_proxy', 'HTTP_PROXY', 'http_proxy', 'NO_PROXY', 'no_proxy'] as const;

/**
 * Connection options from the environment: `KUBECONFIG` (else `~/.kube/config` when it exists)
 * with `ZONESCOPE_CONTEXT` (else the current context); the in-cluster service account when
 * `KUBERNETES_SERVICE_HOST` is set and there is no kubeconfig — at `KUBERNETES_SERVICE_HOST`:
 * `KUBERNETES_SERVICE_PORT`, with the token, CA and namespace of `ZONESCOPE_SERVICEACCOUNT_DIR`
 * (default {@link DEFAULT_SERVICEACCOUNT_DIR}). The proxy variables of `env` (only those) go
 * into `proxyEnv`. `ZONESCOPE_KEEPALIVE=0` (or `false`, `off`, `no`) turns keep-alive off. `null`
 * when there is nothing to connect with.
 */
export function connectionOptionsFromEnv(env: ConnectionEnv = process.env): ConnectionOptions | null {
  const timeout = Number(env.ZONESCOPE_REQUEST_TIMEOUT_MS);
  const proxyEnv: Record<string, string> = {};
  for (const name of PROXY_VARIABLES) {
    const value = env[name];
    if (value !== undefined) proxyEnv[name] = value;
  }
  const common = {
    ...(env.ZONESCOPE_CONTEXT ? { context: env.ZONESCOPE_CONTEXT } : {}),
    ...(Number.isFinite(timeout) && timeout > 0 ? { requestTimeoutMs: timeout } : {}),
    ...(/^(0|false|off|no)$/i.test(env.ZONESCOPE_KEEPALIVE?.trim() ?? '') ? { keepAlive: false } : {}),
    proxyEnv,
  };
  if (env.KUBECONFIG) return { kubeconfig: env.KUBECONFIG, ...common };
  const home = env.HOME ?? homedir();
  const defaultFile = path.join(home, '.kube', 'config');
  if (!env.KUBERNETES_SERVICE_HOST && existsSync(defaultFile)) return { kubeconfig: defaultFile, ...common };
  if (env.KUBERNETES_SERVICE_HOST) {
    return {
      inCluster: true,
      serviceHost: env.KUBERNETES_SERVICE_HOST,
      servicePort: env.KUBERNETES_SERVICE_PORT ?? '',
      ...(env.ZONESCOPE_SERVICEACCOUNT_DIR ? { serviceAccountDir: env.ZONESCOPE_SERVICEACCOUNT_DIR } : {}),
      ...common,
    };
  }
  return null;
}

/** Hands the current user's credentials from the kubeconfig (token, password, key and cert data, auth-provider tokens) to the redactor. */
function rememberUserCredentials(kc: KubeConfig): void {
  const user = kc.getCurrentUser();
  if (!user) return;
  rememberSecret(user.token);
  rememberSecret(user.password);
  for (const data of [user.keyData, user.certData]) {
    if (data === undefined || data === '') continue;
    rememberSecret(data); // the kubeconfig's base64 `client-key-data` as written
    rememberSecret(Buffer.from(data, 'base64'));
  }
  for (const [key, value] of Object.entries(user.authProvider?.config ?? {})) {
    if (typeof value === 'string' && /token|secret|password/i.test(key)) rememberSecret(value);
  }
}

/**
 * Hands the credentials of one request's options (as `applyToHTTPSOptions` filled them: the
 * `Authorization` header — static, token-file, auth-provider or exec-plugin token, refreshed ones
 * included — basic auth, client key and certificate, passphrase) to the redactor.
 */
function rememberRequestCredentials(options: https.RequestOptions): void {
  for (const [key, value] of Object.entries(options.headers ?? {})) {
    if (key.toLowerCase() !== 'authorization' || typeof value !== 'string') continue;
    const credential = value.replace(/^\s*(bearer|basic)\s+/i, '');
    rememberSecret(credential);
    if (/^\s*basic\s/i.test(value)) rememberSecret(Buffer.from(credential, 'base64').toString('utf8'));
  }
  if (typeof options.auth === 'string' && options.auth !== '') {
    rememberSecret(options.auth);
    const colon = options.auth.indexOf(':');
    if (colon >= 0) rememberSecret(options.auth.slice(colon + 1));
  }
  for (const material of [options.key, options.cert, options.pfx, options.passphrase]) {
    for (const item of Array.isArray(material) ? material : [material]) {
      if (typeof item === 'string' || item instanceof Uint8Array) rememberSecret(item);
      else if (typeof item === 'object' && item !== null && 'pem' in item) {
        const pem = (item as { pem?: unknown }).pem;
        if (typeof pem === 'string' || pem instanceof Uint8Array) rememberSecret(pem);
      }
    }
  }
}

function buildPath(server: string, request: KubeHttpRequest): URL {
  const base = new URL(server);
  const prefix = base.pathname.replace(/\/$/, '');
  const url = new URL(`${prefix}${request.path}`, base);
  for (const [key, value] of Object.entries(request.query ?? {})) if (value !== undefined) url.searchParams.set(key, String(value));
  return url;
}

function timeoutError(ms: number): Error {
  const error = new Error(`request timed out after ${ms} ms`);
  error.name = 'TimeoutError';
  return error;
}

function abortError(): Error {
  const error = new Error('request aborted');
  error.name = 'AbortError';
  return error;
}

const MAX_ERROR_BODY = 1 << 20;

/**
 * What zonescope calls itself in the API server's audit log and metrics (`user_agent`), shaped like
 * kubectl's `kubectl/v1.31.0 (linux/amd64) kubernetes/…`.
 */
export const USER_AGENT = `zonescope/${packageJson.version} (${process.platform}/${process.arch}) node/${process.version}`;

/**
 * Buffers a response body, gunzipping it when the server compressed it (`Content-Encoding:
 * gzip`: buffered requests ask for it; the API server compresses large responses, a list page at
 * size L by ~20×). The limit counts the decoded bytes. Beyond `limit`: `truncate` keeps the first
 * `limit` bytes (error bodies), `fail` stops reading and rejects with a
 * {@link ResponseTooLargeError} (the caller destroys the response).
 */
function readAll(res: IncomingMessage, limit: number, overLimit: 'truncate' | 'fail'): Promise<string> {
  return new Promise((resolve, reject) => {
    const gzipped = String(res.headers['content-encoding'] ?? '').trim().toLowerCase() === 'gzip';
    const declared = Number(res.headers['content-length']);
    if (overLimit === 'fail' && !gzipped && Number.isFinite(declared) && declared > limit) {
      reject(new ResponseTooLargeError('body', limit));
      return;
    }
    let body: Readable = res;
    if (gzipped) {
      const gunzip = createGunzip();
      gunzip.on('error', (error) => reject(new Error(`the API server sent a gzip body that does not decode (${error.message})`)));
      body = res.pipe(gunzip);
    }
    const chunks: Buffer[] = [];
    let size = 0;
    body.on('data', (chunk: Buffer) => {
      if (size > limit) return;
      size += chunk.length;
      if (size <= limit) chunks.push(chunk);
      else if (overLimit === 'truncate') chunks.push(chunk.subarray(0, chunk.length - (size - limit)));
      else {
        chunks.length = 0;
        body.pause();
        res.pause();
        reject(new ResponseTooLargeError('body', limit));
      }
    });
    body.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    res.on('error', reject);
    res.on('aborted', () => reject(abortError()));
  });
}

/** Which pool a request's connection comes from. */
type AgentKind = 'request' | 'watch';

/** The pooled agent of one kind, and the TLS material it was built with (a digest of it). */
interface PooledAgent {
  readonly key: string;
  readonly agent: http.Agent;
}

/** client-node's agent factory (private in its typings): the same proxy agents its generated clients get. */
type AgentFactory = (cluster: Cluster | null, options: https.AgentOptions) => http.Agent;

/**
 * A digest of what an agent's connections are bound to (CA, client certificate and key, PFX,
 * passphrase, certificate checking, server name, proxy): a change means new connections. The
 * digest, not the material, is kept; headers (a bearer token) are not part of it.
 */
function agentKey(options: https.RequestOptions, proxyUrl: string | undefined): string {
  const hash = createHash('sha256');
  const part = (value: unknown): void => {
    const items = Array.isArray(value) ? value : [value];
    for (const item of items) {
      if (typeof item === 'string' || item instanceof Uint8Array) hash.update(item);
      else if (typeof item === 'object' && item !== null && 'pem' in item) part((item as { pem?: unknown }).pem);
      else hash.update(String(item));
      hash.update('\0');
    }
    hash.update('\x01');
  };
  for (const value of [options.ca, options.cert, options.key, options.pfx, options.passphrase, options.rejectUnauthorized, options.servername, proxyUrl]) part(value);
  return hash.digest('hex');
}

/** Closes an agent's idle connections (in use ones finish their request, then close on their idle timeout). */
function closeIdleSockets(agent: http.Agent): void {
  for (const sockets of Object.values(agent.freeSockets)) for (const socket of sockets ?? []) socket.destroy();
}

/**
 * Whether a request failed because the kept connection it was sent on had been closed by the
 * server: a reset or a hang-up before any answer, on a reused connection.
 */
function staleConnection(error: Error, req: http.ClientRequest): boolean {
  if (!req.reusedSocket) return false;
  const code = errorCode(error);
  return code === 'ECONNRESET' || code === 'EPIPE' || error.message === 'socket hang up';
}

/**
 * node:http(s) transport with the kubeconfig's TLS and auth options. A user with a credential
 * plugin (`exec`) gets its credentials from one {@link ExecCredentialProvider} shared by every
 * request and by the generated clients of {@link kubeConfig}; a 401 drops that credential, runs
 * the plugin once more and retries the request once.
 */
class HttpKubeConnection implements KubeConnection {
  readonly serverUrl: string;
  readonly kubeConfig: KubeConfig;
  /** The credential plugin of the current user, `null` without one. */
  private readonly exec: ExecCredentialProvider | null;
  /** The kept-alive agents (with {@link keepAlive}), one per kind. */
  private readonly agents = new Map<AgentKind, PooledAgent>();

  constructor(
    kubeConfig: KubeConfig,
    readonly contextName: string,
    private readonly server: string,
    readonly source: ConnectionSource,
    readonly requestTimeoutMs: number,
    execOptions: ExecCredentialOptions = {},
    private readonly keepAlive = true,
  ) {
    this.serverUrl = displayServerUrl(server);
    const wired = withExecCredentials(kubeConfig, execOptions);
    this.kubeConfig = wired?.kubeConfig ?? kubeConfig;
    this.exec = wired?.provider ?? null;
  }

  /**
   * Fills in TLS and auth options. With a credential plugin, waits for its credential first
   * (abortable: an abort ends this request's wait, not the plugin run others share) and returns
   * the credential used.
   */
  private async applyCredentials(options: https.RequestOptions, signal: AbortSignal | undefined): Promise<ExecCredential | null> {
    if (this.exec !== null) await this.exec.get(signal);
    await this.kubeConfig.applyToHTTPSOptions(options);
    return this.exec?.credentialOf(options) ?? null;
  }

  credentialsRejected(): boolean {
    return this.exec?.rejectCurrent() ?? false;
  }

  /** After a 401 with `credential`: whether to retry (the credential is dropped, so the retry runs the plugin again). */
  private retryAfterUnauthorized(status: number, credential: ExecCredential | null, attempt: number): boolean {
    if (this.exec === null || credential === null) return false;
    if (status !== 401) {
      this.exec.accepted(credential);
      return false;
    }
    if (!this.exec.reject(credential) || attempt > 0) throw new KubeRequestError(this.exec.rejectedError().error);
    return true;
  }

  /**
   * The agent for a request whose options `applyToHTTPSOptions` filled in. With keep-alive: the
   * pooled agent of `kind`, built anew (the old one's idle connections closed) when the TLS
   * material or proxy changed — a rotated CA or an exec plugin's new client certificate must not
   * ride on connections made with the old ones. Without: client-node's fresh agent, used once.
   */
  private agentFor(kind: AgentKind, options: https.RequestOptions): { agent: http.Agent | undefined; oneShot: boolean } {
    const fresh = options.agent instanceof http.Agent ? options.agent : undefined;
    if (!this.keepAlive) return { agent: fresh, oneShot: true };
    const cluster = this.kubeConfig.getCurrentCluster();
    const key = agentKey(options, cluster?.proxyUrl);
    const current = this.agents.get(kind);
    if (current !== undefined && current.key === key) return { agent: current.agent, oneShot: false };
    if (current !== undefined) closeIdleSockets(current.agent);
    const factory = (this.kubeConfig as unknown as { createAgent?: unknown }).createAgent;
    if (typeof factory !== 'function') return { agent: fresh, oneShot: true };
    const agentOptions: https.AgentOptions = {
      ca: options.ca,
      cert: options.cert,
      key: options.key,
      pfx: options.pfx,
      passphrase: options.passphrase,
      ...(options.rejectUnauthorized !== undefined ? { rejectUnauthorized: options.rejectUnauthorized } : {}),
      ...(options.servername !== undefined ? { servername: options.servername } : {}),
      keepAlive: true,
      // An idle connection is closed after this long (the agent's `timeout` applies to free sockets).
      timeout: KEEPALIVE_IDLE_TIMEOUT_MS,
      scheduling: 'lifo',
      ...(kind === 'request' ? { maxSockets: MAX_REQUEST_SOCKETS, maxFreeSockets: MAX_REQUEST_SOCKETS } : {}),
    };
    const agent = (factory as AgentFactory).call(this.kubeConfig, cluster, agentOptions);
    this.agents.set(kind, { key, agent });
    return { agent, oneShot: false };
  }

  /**
   * Starts a request; resolves with the response once headers arrive (timeout covers that wait,
   * a retry included). A GET whose kept connection turns out closed by the server is sent once
   * more, after the pool's other idle connections are closed (they are likely stale too).
   * `release` ends the exchange: a fully read response leaves its connection to the pool, any
   * other is cut.
   */
  private async start(
    request: KubeHttpRequest,
    timeoutMs: number,
    kind: AgentKind,
  ): Promise<{ res: IncomingMessage; release: () => void; credential: ExecCredential | null }> {
    const options: https.RequestOptions = {};
    const credential = await this.applyCredentials(options, request.signal);
    rememberRequestCredentials(options);
    const url = buildPath(this.server, request);
    // Buffered requests (list pages) ask for gzip; watches do not (the API server does not
    // compress them, and each event must reach us as it happens).
    const headers: Record<string, string> = { Accept: 'application/json', 'User-Agent': USER_AGENT, ...(kind === 'request' ? { 'Accept-Encoding': 'gzip' } : {}) };
    for (const [key, value] of Object.entries(options.headers ?? {})) {
      if (typeof value === 'string' || typeof value === 'number') headers[key] = String(value);
    }
    if (request.body !== undefined) {
      headers['Content-Type'] = request.contentType ?? 'application/json';
      headers['Content-Length'] = String(Buffer.byteLength(request.body));
    }
    const { agent, oneShot } = this.agentFor(kind, options);
    const method = request.method ?? 'GET';
    const requestOptions: https.RequestOptions = {
      ...options,
      agent,
      method,
      protocol: url.protocol,
      hostname: url.hostname.replace(/^\[(.*)\]$/, '$1'),
      port: url.port || (url.protocol === 'https:' ? 443 : 80),
      path: `${url.pathname}${url.search}`,
      headers,
    };
    const transport = url.protocol === 'http:' ? http : https;
    const idempotent = method === 'GET' && request.body === undefined;
    return new Promise((resolve, reject) => {
      let settled = false;
      let req: http.ClientRequest | undefined;
      const cut = (): void => {
        req?.destroy();
        if (oneShot) agent?.destroy();
      };
      const fail = (error: Error): void => {
        clearTimeout(timer);
        request.signal?.removeEventListener('abort', onAbort);
        cut();
        if (!settled) {
          settled = true;
          reject(error);
        }
      };
      const onAbort = (): void => fail(abortError());
      const timer = setTimeout(() => fail(timeoutError(timeoutMs)), timeoutMs);
      if (request.signal?.aborted) {
        fail(abortError());
        return;
      }
      request.signal?.addEventListener('abort', onAbort, { once: true });
      const send = (attempt: number): void => {
        const current = transport.request(requestOptions);
        req = current;
        // Before anything can destroy `current`: a destroyed request without an error listener
        // crashes the process.
        current.on('error', (error) => {
          if (current !== req || settled) return;
          if (attempt === 0 && idempotent && !oneShot && staleConnection(error, current)) {
            if (agent !== undefined) closeIdleSockets(agent);
            send(1);
            return;
          }
          fail(error);
        });
        current.on('response', (res) => {
          clearTimeout(timer);
          request.signal?.removeEventListener('abort', onAbort);
          settled = true;
          const release = (): void => {
            if (!res.complete) current.destroy();
            if (oneShot) agent?.destroy();
          };
          resolve({ res, release, credential });
        });
        if (request.body !== undefined) current.write(request.body);
        current.end();
      };
      send(0);
    });
  }

  async request(request: KubeHttpRequest): Promise<KubeHttpResponse> {
    for (let attempt = 0; ; attempt++) {
      const { response, credential } = await this.requestOnce(request);
      if (!this.retryAfterUnauthorized(response.status, credential, attempt)) return response;
    }
  }

  private async requestOnce(request: KubeHttpRequest): Promise<{ response: KubeHttpResponse; credential: ExecCredential | null }> {
    const timeoutMs = request.timeoutMs ?? this.requestTimeoutMs;
    const deadline = Date.now() + timeoutMs;
    const { res, release, credential } = await this.start(request, timeoutMs, 'request');
    const remaining = Math.max(1, deadline - Date.now());
    let timer: ReturnType<typeof setTimeout> | undefined;
    let onAbort: (() => void) | undefined;
    try {
      const status = res.statusCode ?? 0;
      const body = await Promise.race([
        status >= 200 && status < 300 ? readAll(res, request.maxResponseBytes ?? MAX_RESPONSE_BYTES, 'fail') : readAll(res, MAX_ERROR_BODY, 'truncate'),
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(timeoutError(timeoutMs)), remaining);
          onAbort = () => reject(abortError());
          request.signal?.addEventListener('abort', onAbort, { once: true });
        }),
      ]);
      return { response: { status, headers: res.headers, body }, credential };
    } finally {
      clearTimeout(timer);
      if (onAbort) request.signal?.removeEventListener('abort', onAbort);
      release();
    }
  }

  async openStream(request: KubeHttpRequest, onLine: (line: string) => void): Promise<OpenStreamResult> {
    for (let attempt = 0; ; attempt++) {
      const opened = await this.openStreamOnce(request, onLine);
      if (!this.retryAfterUnauthorized(opened.ok ? 200 : opened.response.status, opened.credential, attempt)) return opened.ok ? { ok: true, stream: opened.stream } : { ok: false, response: opened.response };
    }
  }

  private async openStreamOnce(request: KubeHttpRequest, onLine: (line: string) => void): Promise<OpenStreamResult & { readonly credential: ExecCredential | null }> {
    const timeoutMs = request.timeoutMs ?? this.requestTimeoutMs;
    const { res, release, credential } = await this.start(request, timeoutMs, 'watch');
    const status = res.statusCode ?? 0;
    if (status < 200 || status >= 300) {
      try {
        const body = await readAll(res, MAX_ERROR_BODY, 'truncate');
        return { ok: false, response: { status, headers: res.headers, body }, credential };
      } finally {
        release();
      }
    }
    let closed = false;
    let resolveDone: (value: Error | null) => void = () => undefined;
    const done = new Promise<Error | null>((resolve) => {
      resolveDone = resolve;
    });
    const finish = (error: Error | null): void => {
      if (closed) return;
      closed = true;
      release();
      resolveDone(error);
    };
    // The incomplete line: chunks kept as they came (no re-concatenation per chunk, no re-scan
    // of old bytes: only new chunks are searched for newlines), bounded by the line limit.
    const maxLineBytes = request.maxLineBytes ?? MAX_WATCH_LINE_BYTES;
    let pending: Buffer[] = [];
    let pendingBytes = 0;
    let maxPendingBytes = 0;
    const emit = (last: Buffer): void => {
      const bytes = pending.length === 0 ? last : Buffer.concat([...pending, last], pendingBytes + last.length);
      pending = [];
      pendingBytes = 0;
      const line = bytes.toString('utf8').trim();
      if (line !== '') onLine(line);
    };
    res.on('data', (chunk: Buffer) => {
      let start = 0;
      let newline = chunk.indexOf(0x0a);
      while (newline >= 0 && !closed) {
        if (pendingBytes + (newline - start) > maxLineBytes) {
          finish(new ResponseTooLargeError('line', maxLineBytes));
          return;
        }
        emit(chunk.subarray(start, newline));
        start = newline + 1;
        newline = chunk.indexOf(0x0a, start);
      }
      if (closed || start >= chunk.length) return;
      if (pendingBytes + (chunk.length - start) > maxLineBytes) {
        pending = [];
        pendingBytes = 0;
        finish(new ResponseTooLargeError('line', maxLineBytes));
        return;
      }
      pending.push(start === 0 ? chunk : chunk.subarray(start));
      pendingBytes += chunk.length - start;
      maxPendingBytes = Math.max(maxPendingBytes, pendingBytes);
    });
    res.on('end', () => {
      if (!closed && pendingBytes > 0) emit(Buffer.alloc(0));
      pending = [];
      pendingBytes = 0;
      finish(null);
    });
    res.on('aborted', () => finish(abortError()));
    res.on('error', (error) => finish(error));
    res.on('close', () => finish(res.complete ? null : abortError()));
    return {
      ok: true,
      credential,
      stream: {
        done,
        close: () => finish(null),
        get maxPendingBytes() {
          return maxPendingBytes;
        },
      },
    };
  }
}
