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
 */
import { existsSync } from 'node:fs';
import http from 'node:http';
import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import https from 'node:https';
import { homedir } from 'node:os';
import path from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';

/** Default timeout of one request (a list page, a patch, an access review). */
export const DEFAULT_REQUEST_TIMEOUT_MS = 30_000;

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
  /** Use the in-cluster service account (`KUBERNETES_SERVICE_HOST`, mounted token and CA). */
  readonly inCluster?: boolean;
  /** Timeout of one request in ms (default {@link DEFAULT_REQUEST_TIMEOUT_MS}). */
  readonly requestTimeoutMs?: number;
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
}

/** A buffered response. */
export interface KubeHttpResponse {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

/** An open line stream (a watch). */
export interface KubeLineStream {
  /** Resolves when the stream ends: `null` on a clean end, the error otherwise. */
  readonly done: Promise<Error | null>;
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
  /** Sends a request and buffers the answer (any status). Rejects on transport failure or timeout. */
  request(request: KubeHttpRequest): Promise<KubeHttpResponse>;
  /** Opens a newline-delimited stream; `onLine` gets every non-empty line. */
  openStream(request: KubeHttpRequest, onLine: (line: string) => void): Promise<OpenStreamResult>;
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

function loadKubeConfig(options: ConnectionOptions): KubeConfig {
  const kc = new KubeConfig();
  if (options.kubeconfigText !== undefined) {
    kc.loadFromString(options.kubeconfigText);
  } else if (options.inCluster) {
    kc.loadFromCluster();
  } else {
    const files = (options.kubeconfig ?? '').split(path.delimiter).filter((f) => f !== '');
    if (files.length === 0) throw new Error('no kubeconfig file was given');
    const [first, ...rest] = files;
    kc.loadFromFile(first ?? '');
    for (const file of rest) {
      const extra = new KubeConfig();
      extra.loadFromFile(file);
      // kubectl semantics: the first file to set a name wins.
      for (const cluster of extra.getClusters()) if (!kc.getCluster(cluster.name)) kc.addCluster(cluster);
      for (const user of extra.getUsers()) if (!kc.getUser(user.name)) kc.addUser(user);
      for (const context of extra.getContexts()) if (!kc.getContextObject(context.name)) kc.addContext(context);
      if (!kc.getCurrentContext()) kc.setCurrentContext(extra.getCurrentContext());
    }
  }
  if (options.context !== undefined && options.context !== '') kc.setCurrentContext(options.context);
  return kc;
}

/**
 * Builds a connection. Fails (as a value) when the kubeconfig cannot be read, the context does
 * not exist, it names no cluster, or an `http://` server lacks `insecure-skip-tls-verify: true`
 * (client-node refuses plain HTTP otherwise). Messages name files and contexts, never credentials.
 */
export function createConnection(options: ConnectionOptions): ConnectionResult {
  let kc: KubeConfig;
  try {
    kc = loadKubeConfig(options);
  } catch (error) {
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
  const cluster = kc.getCurrentCluster();
  if (!cluster) return { ok: false, message: `Context "${contextName}" names cluster "${context.cluster}", which the kubeconfig does not define.` };
  if (cluster.server.startsWith('http:') && !cluster.skipTLSVerify && !cluster.proxyUrl) {
    return { ok: false, message: `Cluster "${cluster.name}" uses plain http:// without insecure-skip-tls-verify: true, which client-node refuses.` };
  }
  const connection = new HttpKubeConnection(kc, contextName, cluster.server, options.inCluster ? 'in-cluster' : 'kubeconfig', options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS);
  return { ok: true, connection };
}

/**
 * Environment read by {@link connectionOptionsFromEnv}: `KUBECONFIG`, `ZONESCOPE_CONTEXT`,
 * `KUBERNETES_SERVICE_HOST`, `ZONESCOPE_REQUEST_TIMEOUT_MS`, `HOME`.
 */
export type ConnectionEnv = Readonly<Record<string, string | undefined>>;

/**
 * Connection options from the environment: `KUBECONFIG` (else `~/.kube/config` when it exists)
 * with `ZONESCOPE_CONTEXT`; the in-cluster service account when `KUBERNETES_SERVICE_HOST` is set
 * and there is no kubeconfig. `null` when there is nothing to connect with.
 */
export function connectionOptionsFromEnv(env: ConnectionEnv = process.env): ConnectionOptions | null {
  const timeout = Number(env.ZONESCOPE_REQUEST_TIMEOUT_MS);
  const common = {
    ...(env.ZONESCOPE_CONTEXT ? { context: env.ZONESCOPE_CONTEXT } : {}),
    ...(Number.isFinite(timeout) && timeout > 0 ? { requestTimeoutMs: timeout } : {}),
  };
  if (env.KUBECONFIG) return { kubeconfig: env.KUBECONFIG, ...common };
  const home = env.HOME ?? homedir();
  const defaultFile = path.join(home, '.kube', 'config');
  if (!env.KUBERNETES_SERVICE_HOST && existsSync(defaultFile)) return { kubeconfig: defaultFile, ...common };
  if (env.KUBERNETES_SERVICE_HOST) return { inCluster: true, ...common };
  return null;
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

function readAll(res: IncomingMessage, limit = Number.POSITIVE_INFINITY): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    res.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= limit) chunks.push(chunk);
    });
    res.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    res.on('error', reject);
    res.on('aborted', () => reject(abortError()));
  });
}

/** node:http(s) transport with the kubeconfig's TLS and auth options. */
class HttpKubeConnection implements KubeConnection {
  readonly serverUrl: string;

  constructor(
    readonly kubeConfig: KubeConfig,
    readonly contextName: string,
    private readonly server: string,
    readonly source: ConnectionSource,
    readonly requestTimeoutMs: number,
  ) {
    this.serverUrl = displayServerUrl(server);
  }

  /** Starts a request; resolves with the response once headers arrive (timeout covers that wait). */
  private async start(request: KubeHttpRequest, timeoutMs: number): Promise<{ res: IncomingMessage; destroy: () => void; agent: http.Agent | undefined }> {
    const options: https.RequestOptions = {};
    await this.kubeConfig.applyToHTTPSOptions(options);
    const url = buildPath(this.server, request);
    const headers: Record<string, string> = { Accept: 'application/json' };
    for (const [key, value] of Object.entries(options.headers ?? {})) {
      if (typeof value === 'string' || typeof value === 'number') headers[key] = String(value);
    }
    if (request.body !== undefined) {
      headers['Content-Type'] = request.contentType ?? 'application/json';
      headers['Content-Length'] = String(Buffer.byteLength(request.body));
    }
    const agent = options.agent instanceof http.Agent ? options.agent : undefined;
    const requestOptions: https.RequestOptions = {
      ...options,
      method: request.method ?? 'GET',
      protocol: url.protocol,
      hostname: url.hostname.replace(/^\[(.*)\]$/, '$1'),
      port: url.port || (url.protocol === 'https:' ? 443 : 80),
      path: `${url.pathname}${url.search}`,
      headers,
    };
    const transport = url.protocol === 'http:' ? http : https;
    return new Promise((resolve, reject) => {
      let settled = false;
      const req = transport.request(requestOptions);
      const destroy = (): void => {
        req.destroy();
        agent?.destroy();
      };
      const fail = (error: Error): void => {
        clearTimeout(timer);
        request.signal?.removeEventListener('abort', onAbort);
        destroy();
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
      req.on('error', (error) => fail(error));
      req.on('response', (res) => {
        clearTimeout(timer);
        request.signal?.removeEventListener('abort', onAbort);
        settled = true;
        resolve({ res, destroy, agent });
      });
      if (request.body !== undefined) req.write(request.body);
      req.end();
    });
  }

  async request(request: KubeHttpRequest): Promise<KubeHttpResponse> {
    const timeoutMs = request.timeoutMs ?? this.requestTimeoutMs;
    const deadline = Date.now() + timeoutMs;
    const { res, destroy } = await this.start(request, timeoutMs);
    const remaining = Math.max(1, deadline - Date.now());
    let timer: ReturnType<typeof setTimeout> | undefined;
    let onAbort: (() => void) | undefined;
    try {
      const status = res.statusCode ?? 0;
      const body = await Promise.race([
        readAll(res, status >= 200 && status < 300 ? Number.POSITIVE_INFINITY : MAX_ERROR_BODY),
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(timeoutError(timeoutMs)), remaining);
          onAbort = () => reject(abortError());
          request.signal?.addEventListener('abort', onAbort, { once: true });
        }),
      ]);
      return { status, headers: res.headers, body };
    } finally {
      clearTimeout(timer);
      if (onAbort) request.signal?.removeEventListener('abort', onAbort);
      destroy();
    }
  }

  async openStream(request: KubeHttpRequest, onLine: (line: string) => void): Promise<OpenStreamResult> {
    const timeoutMs = request.timeoutMs ?? this.requestTimeoutMs;
    const { res, destroy } = await this.start(request, timeoutMs);
    const status = res.statusCode ?? 0;
    if (status < 200 || status >= 300) {
      try {
        const body = await readAll(res, MAX_ERROR_BODY);
        return { ok: false, response: { status, headers: res.headers, body } };
      } finally {
        destroy();
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
      destroy();
      resolveDone(error);
    };
    let buffered = '';
    res.setEncoding('utf8');
    res.on('data', (chunk: string) => {
      if (closed) return;
      buffered += chunk;
      let newline = buffered.indexOf('\n');
      while (newline >= 0 && !closed) {
        const line = buffered.slice(0, newline).trim();
        buffered = buffered.slice(newline + 1);
        if (line !== '') onLine(line);
        newline = buffered.indexOf('\n');
      }
    });
    res.on('end', () => {
      const rest = buffered.trim();
      buffered = '';
      if (rest !== '' && !closed) onLine(rest);
      finish(null);
    });
    res.on('aborted', () => finish(abortError()));
    res.on('error', (error) => finish(error));
    res.on('close', () => finish(res.complete ? null : abortError()));
    return { ok: true, stream: { done, close: () => finish(null) } };
  }
}
