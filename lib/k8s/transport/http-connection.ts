/**
 * The connection's transport: requests over node:http(s) with the options client-node's
 * `KubeConfig.applyToHTTPSOptions` fills in (CA, client certificates, bearer token — read again on
 * every request, so rotated tokens are picked up), through kept-alive agents (./agents).
 *
 * A buffered request has one time limit for the whole exchange and its 2xx body a size limit
 * (./response-body); a watch is a line stream (./line-stream) whose time limit covers the wait for
 * its headers. A GET sent on a kept connection that the server had closed meanwhile (reset or
 * hang-up before any byte of an answer) is sent once more on a new connection; writes never are
 * (the server may have applied them). A credential plugin's credential that gets a 401 is dropped,
 * the plugin run again and the request sent once more.
 */
import http from 'node:http';
import type { IncomingMessage } from 'node:http';
import https from 'node:https';
import type { KubeConfig } from '@kubernetes/client-node';
import packageJson from '../../../package.json';
import type { ConnectionSource, KubeConnection, KubeHttpRequest, KubeHttpResponse, OpenStreamResult } from '../connection';
import { abortError, KubeRequestError, timeoutError } from '../errors';
import type { ExecCredential } from '../exec-credential/credential';
import type { ExecCredentialOptions, ExecCredentialProvider } from '../exec-credential/provider';
import { withExecCredentials } from '../exec-credential/provider';
import type { AgentKind } from './agents';
import { AgentPool, closeIdleSockets, staleConnection } from './agents';
import { MAX_WATCH_LINE_BYTES, readLines } from './line-stream';
import { rememberRequestCredentials } from './request-credentials';
import { MAX_ERROR_BODY, MAX_RESPONSE_BYTES, readAll } from './response-body';

/**
 * What zonescope calls itself in the API server's audit log and metrics (`user_agent`), shaped like
 * kubectl's `kubectl/v1.31.0 (linux/amd64) kubernetes/…`.
 */
export const USER_AGENT = `zonescope/${packageJson.version} (${process.platform}/${process.arch}) node/${process.version}`;

function buildPath(server: string, request: KubeHttpRequest): URL {
  const base = new URL(server);
  const prefix = base.pathname.replace(/\/$/, '');
  const url = new URL(`${prefix}${request.path}`, base);
  for (const [key, value] of Object.entries(request.query ?? {})) if (value !== undefined) url.searchParams.set(key, String(value));
  return url;
}

/**
 * node:http(s) transport with the kubeconfig's TLS and auth options. A user with a credential
 * plugin (`exec`) gets its credentials from one {@link ExecCredentialProvider} shared by every
 * request and by the generated clients of {@link kubeConfig}; a 401 drops that credential, runs
 * the plugin once more and retries the request once.
 */
export class HttpKubeConnection implements KubeConnection {
  readonly kubeConfig: KubeConfig;
  /** The credential plugin of the current user, `null` without one. */
  private readonly exec: ExecCredentialProvider | null;
  /** The agents its requests go through (kept alive unless keep-alive is off). */
  private readonly agents: AgentPool;

  constructor(
    kubeConfig: KubeConfig,
    readonly contextName: string,
    private readonly server: string,
    /** {@link server} without credentials, for display. */
    readonly serverUrl: string,
    readonly source: ConnectionSource,
    readonly requestTimeoutMs: number,
    execOptions: ExecCredentialOptions = {},
    keepAlive = true,
  ) {
    const wired = withExecCredentials(kubeConfig, execOptions);
    this.kubeConfig = wired?.kubeConfig ?? kubeConfig;
    this.exec = wired?.provider ?? null;
    this.agents = new AgentPool(this.kubeConfig, keepAlive);
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
    const { agent, oneShot } = this.agents.agentFor(kind, options);
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
    return { ok: true, credential, stream: readLines(res, request.maxLineBytes ?? MAX_WATCH_LINE_BYTES, onLine, release) };
  }
}
