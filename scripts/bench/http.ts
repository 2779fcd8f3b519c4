/**
 * HTTP at the client: timed requests over keep-alive connections (time to the last body byte),
 * latency statistics, and polling with backoff.
 */
import http from 'node:http';

import { staleConnection } from '../../lib/k8s/transport/agents';

/** One timed response. */
export interface Timed {
  readonly status: number;
  readonly ms: number;
  readonly bytes: number;
  readonly body: string;
  readonly headers: http.IncomingHttpHeaders;
}

/**
 * The bench's pool. An idle socket is closed after 4 s (the agent's `timeout` on a free socket),
 * below every server it talks to (Next's 5 s by default, the server's 65 s, the simulator's 30 s):
 * a request after a longer pause then opens a new connection instead of racing the server's close
 * on the old one. The retry below covers GETs only, and after the steady-RSS window (30 s without
 * requests) a POST to the simulator met its 30 s close and failed a run with ECONNRESET.
 */
const agent = new http.Agent({ keepAlive: true, maxSockets: 64, timeout: 4_000 });

type RequestOptions = { method?: string; body?: string; headers?: Record<string, string>; timeoutMs?: number; keepBody?: boolean; agent?: http.Agent };

/**
 * Sends one request and times it until the last body byte (on the shared keep-alive pool of 64
 * sockets, or on `agent`). Rejects on transport errors or after `timeoutMs`. A GET sent on a kept
 * connection that the server had just closed (its keep-alive timeout, 5 s by default, ends while
 * the request is on its way: a reset or hang-up before any answer) is sent once more on a new
 * connection, as browsers do and Node's documentation advises (`request.reusedSocket`); the time
 * is that of the second request.
 */
export function timedRequest(url: string, options: RequestOptions = {}): Promise<Timed> {
  const method = options.method ?? 'GET';
  return method === 'GET' || method === 'HEAD' ? onceMoreIfStale(() => sendTimed(url, options, true)) : sendTimed(url, options, false);
}

/** A transport error on a kept connection the server had closed (see `staleConnection`). */
class StaleConnection extends Error {
  constructor(readonly original: Error) {
    super(original.message);
  }
}

/**
 * What a request's `error` event rejects with: for a request that may be sent again (`retryable`),
 * a reset or hang-up on a kept connection the server had closed is marked (a {@link StaleConnection}
 * for {@link onceMoreIfStale}); anything else is the error itself.
 */
export function transportError(error: Error, request: http.ClientRequest, retryable: boolean): Error {
  return retryable && staleConnection(error, request) ? new StaleConnection(error) : error;
}

/**
 * `send()`, and once more when it failed with a {@link StaleConnection} (a kept connection the
 * server had just closed: the agent opens a new one); for idempotent requests only. Either
 * attempt's other errors, and the second's stale one as it was, are the caller's.
 */
export function onceMoreIfStale<T>(send: () => Promise<T>): Promise<T> {
  return send().catch((error: unknown) => {
    if (!(error instanceof StaleConnection)) throw error;
    return send().catch((again: unknown) => {
      throw again instanceof StaleConnection ? again.original : again;
    });
  });
}

function sendTimed(url: string, options: RequestOptions, retryable: boolean): Promise<Timed> {
  return new Promise((resolve, reject) => {
    const startedAt = performance.now();
    const request = http.request(
      url,
      { method: options.method ?? 'GET', agent: options.agent ?? agent, headers: { ...(options.body !== undefined ? { 'content-length': Buffer.byteLength(options.body) } : {}), ...options.headers } },
      (response) => {
        const chunks: Buffer[] = [];
        let bytes = 0;
        response.on('data', (chunk: Buffer) => {
          bytes += chunk.length;
          if (options.keepBody !== false) chunks.push(chunk);
        });
        response.on('end', () => {
          resolve({
            status: response.statusCode ?? 0,
            ms: performance.now() - startedAt,
            bytes,
            body: options.keepBody !== false ? Buffer.concat(chunks).toString('utf8') : '',
            headers: response.headers,
          });
        });
        response.on('error', reject);
      },
    );
    request.setTimeout(options.timeoutMs ?? 60_000, () => request.destroy(new Error(`timeout after ${options.timeoutMs ?? 60_000} ms: ${url}`)));
    request.on('error', (error) => reject(transportError(error, request, retryable)));
    if (options.body !== undefined) request.write(options.body);
    request.end();
  });
}

/** GET returning parsed JSON (throws on non-2xx). */
export async function getJson<T>(url: string, timeoutMs = 60_000): Promise<T> {
  const response = await timedRequest(url, { timeoutMs });
  if (response.status < 200 || response.status >= 300) throw new Error(`GET ${url}: HTTP ${response.status} ${response.body.slice(0, 200)}`);
  return JSON.parse(response.body) as T;
}

/** Sends JSON with `method` and returns the parsed answer (throws on non-2xx). */
export async function sendJson<T>(url: string, method: string, body: unknown, contentType = 'application/json'): Promise<T> {
  const response = await timedRequest(url, { method, body: JSON.stringify(body), headers: { 'content-type': contentType } });
  if (response.status < 200 || response.status >= 300) throw new Error(`${method} ${url}: HTTP ${response.status} ${response.body.slice(0, 300)}`);
  return JSON.parse(response.body) as T;
}

/** Latency statistics in ms. */
export interface LatencyStats {
  readonly n: number;
  readonly p50: number;
  readonly p95: number;
  readonly max: number;
  readonly mean: number;
  /** Mean response size in bytes. */
  readonly bytes: number;
  /** Non-2xx answers among the timed requests. */
  readonly errors: number;
}

/** Nearest-rank percentile of sorted values. */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[Math.min(sorted.length, rank) - 1] as number;
}

/** Statistics of timed responses. */
export function latencyStats(samples: readonly Timed[]): LatencyStats {
  const ms = samples.map((s) => s.ms).sort((a, b) => a - b);
  return {
    n: samples.length,
    p50: percentile(ms, 50),
    p95: percentile(ms, 95),
    max: ms[ms.length - 1] ?? Number.NaN,
    mean: ms.reduce((a, b) => a + b, 0) / Math.max(1, ms.length),
    bytes: Math.round(samples.reduce((a, s) => a + s.bytes, 0) / Math.max(1, samples.length)),
    errors: samples.filter((s) => s.status < 200 || s.status >= 300).length,
  };
}

/** `warmup` untimed requests, then `n` sequential timed ones. */
export async function measure(url: string, n: number, warmup = 3): Promise<LatencyStats> {
  return measureWith(() => timedRequest(url, { keepBody: false }), n, warmup);
}

/** `warmup` untimed calls of `request`, then `n` sequential timed ones. */
export async function measureWith(request: () => Promise<Timed>, n: number, warmup = 3): Promise<LatencyStats> {
  for (let i = 0; i < warmup; i++) await request();
  const samples: Timed[] = [];
  for (let i = 0; i < n; i++) samples.push(await request());
  return latencyStats(samples);
}

/** The address of the data a page loads after it (the Services table's rows: `/api/v1/services/table?v=…`), as the page's HTML names it. */
const PAGE_DATA = /\/api\/v1\/services\/table\?v=[0-9a-z]+/;

/**
 * A page view at the server: the page's HTML, then the data the page loads from its own address
 * when it names one (the Services page's rows), one after the other as the browser asks for them;
 * timed from the first request to the last byte of the second, bytes added up, the worse status.
 * Without the second request a page that moved its data out of its HTML would look faster than
 * it is.
 */
export async function timedPageView(url: string): Promise<Timed> {
  const page = await timedRequest(url);
  const data = PAGE_DATA.exec(page.body)?.[0];
  if (data === undefined) return { ...page, body: '' };
  const rows = await timedRequest(new URL(data, url).toString(), { keepBody: false });
  return { status: page.status >= 200 && page.status < 300 ? rows.status : page.status, ms: page.ms + rows.ms, bytes: page.bytes + rows.bytes, body: '', headers: page.headers };
}

/** Calls `attempt` with backoff (50 ms doubling to `maxDelayMs`) until it returns a value, or `null` after `timeoutMs`. */
export async function poll<T>(attempt: () => Promise<T | null>, timeoutMs: number, maxDelayMs = 1000): Promise<T | null> {
  const deadline = performance.now() + timeoutMs;
  let delay = Math.min(50, maxDelayMs);
  while (performance.now() < deadline) {
    try {
      const value = await attempt();
      if (value !== null) return value;
    } catch {
      // Not up yet.
    }
    await new Promise((r) => setTimeout(r, Math.min(delay, Math.max(0, deadline - performance.now()))));
    delay = Math.min(maxDelayMs, delay * 2);
  }
  return null;
}

/** Closes idle keep-alive sockets (so the process can exit). */
export function closeConnections(): void {
  agent.destroy();
}
