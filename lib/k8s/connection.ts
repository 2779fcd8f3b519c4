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
 * Size limits: one watch line (one event) is cut at {@link MAX_WATCH_LINE_BYTES}, a buffered 2xx
 * body (a list page) at {@link MAX_RESPONSE_BYTES}; both fail with a `ResponseTooLargeError`
 * instead of growing without bound. The credentials every request carries are handed to the
 * redactor (`rememberSecret`), so an API server echoing them cannot make them shown or logged.
 */
import { existsSync } from 'node:fs';
import http from 'node:http';
import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import https from 'node:https';
import { homedir } from 'node:os';
import path from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { rememberSecret, ResponseTooLargeError } from './errors';

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
  rememberUserCredentials(kc);
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
 * Buffers a response body. Beyond `limit` bytes: `truncate` keeps the first `limit` bytes (error
 * bodies), `fail` stops reading and rejects with a {@link ResponseTooLargeError} (the caller
 * destroys the response).
 */
function readAll(res: IncomingMessage, limit: number, overLimit: 'truncate' | 'fail'): Promise<string> {
  return new Promise((resolve, reject) => {
    const declared = Number(res.headers['content-length']);
    if (overLimit === 'fail' && Number.isFinite(declared) && declared > limit) {
      reject(new ResponseTooLargeError('body', limit));
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    res.on('data', (chunk: Buffer) => {
      if (size > limit) return;
      size += chunk.length;
      if (size <= limit) chunks.push(chunk);
      else if (overLimit === 'truncate') chunks.push(chunk.subarray(0, chunk.length - (size - limit)));
      else {
        chunks.length = 0;
        res.pause();
        reject(new ResponseTooLargeError('body', limit));
      }
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
    rememberRequestCredentials(options);
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
      // Before anything can destroy `req` (an abort that came while the credentials were being
      // obtained): a destroyed request without an error listener crashes the process.
      req.on('error', (error) => fail(error));
      if (request.signal?.aborted) {
        fail(abortError());
        return;
      }
      request.signal?.addEventListener('abort', onAbort, { once: true });
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
        status >= 200 && status < 300 ? readAll(res, request.maxResponseBytes ?? MAX_RESPONSE_BYTES, 'fail') : readAll(res, MAX_ERROR_BODY, 'truncate'),
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
        const body = await readAll(res, MAX_ERROR_BODY, 'truncate');
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
