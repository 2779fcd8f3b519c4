/**
 * A scrape as Prometheus makes it: `GET` with Prometheus 2.x's `Accept`, `User-Agent` and
 * scrape-timeout headers, with or without `Accept-Encoding: gzip`, timed from the request to the
 * last body byte, the body decompressed afterwards (not timed). Its own keep-alive pool, apart
 * from the readers' (http.ts), as a Prometheus server's connections are apart from the browsers'.
 */
import http from 'node:http';
import zlib from 'node:zlib';

import { onceMoreIfStale, transportError } from './http';

/** The `Accept` header Prometheus 2.x sends when it scrapes (it prefers OpenMetrics, takes text 0.0.4). */
export const PROMETHEUS_ACCEPT = 'application/openmetrics-text;version=1.0.0,application/openmetrics-text;version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1';

/** One timed scrape. */
export interface Scrape {
  readonly status: number;
  /** Request sent → last body byte (decompression not included). */
  readonly ms: number;
  /** Bytes on the wire (compressed when the server compressed). */
  readonly wireBytes: number;
  /** The exposition text (decompressed). */
  readonly text: string;
  readonly contentType: string;
  /** `Content-Encoding` of the answer (`identity` when none). */
  readonly contentEncoding: string;
}

/**
 * An idle connection is closed after 4 s, below the dashboard's keep-alive timeout (Next's 5 s), as
 * the readers' pool is (http.ts): the metrics phase pauses between scrapes (promtool, counting the
 * exposition: seconds on a slow host), and a scrape sent as the server closed the kept connection
 * failed a run with ECONNRESET.
 */
const agent = new http.Agent({ keepAlive: true, maxSockets: 4, timeout: 4_000 });

type ScrapeOptions = { readonly gzip: boolean; readonly timeoutMs?: number };

/**
 * `GET url` as Prometheus scrapes it (`gzip`: with `Accept-Encoding: gzip`), timed to the last
 * byte. Sent once more on a new connection when a kept one turns out closed by the server before
 * any answer (the time is the second request's).
 */
export function scrape(url: string, options: ScrapeOptions): Promise<Scrape> {
  return onceMoreIfStale(() => scrapeOnce(url, options));
}

function scrapeOnce(url: string, options: ScrapeOptions): Promise<Scrape> {
  const timeoutMs = options.timeoutMs ?? 60_000;
  return new Promise((resolve, reject) => {
    const startedAt = performance.now();
    const request = http.request(
      url,
      {
        method: 'GET',
        agent,
        headers: {
          accept: PROMETHEUS_ACCEPT,
          'accept-encoding': options.gzip ? 'gzip' : 'identity',
          'user-agent': 'Prometheus/2.42.0 (zonescope bench)',
          'x-prometheus-scrape-timeout-seconds': String(timeoutMs / 1000),
        },
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('error', reject);
        response.on('end', () => {
          const ms = performance.now() - startedAt;
          const raw = Buffer.concat(chunks);
          const contentEncoding = String(response.headers['content-encoding'] ?? 'identity');
          let text: string;
          try {
            text = contentEncoding === 'gzip' ? zlib.gunzipSync(raw).toString('utf8') : raw.toString('utf8');
          } catch (error) {
            reject(new Error(`${url}: a ${contentEncoding} answer that does not decompress: ${error instanceof Error ? error.message : String(error)}`));
            return;
          }
          resolve({ status: response.statusCode ?? 0, ms, wireBytes: raw.length, text, contentType: String(response.headers['content-type'] ?? ''), contentEncoding });
        });
      },
    );
    request.setTimeout(timeoutMs, () => request.destroy(new Error(`timeout after ${timeoutMs} ms: ${url}`)));
    request.on('error', (error) => reject(transportError(error, request, true)));
    request.end();
  });
}

/** Closes the scrape connections (so the process can exit). */
export function closeScrapeConnections(): void {
  agent.destroy();
}
