/**
 * Buffered response bodies: a list page, `/version`, an error `Status`. Gzip bodies are decoded, and
 * a size limit keeps a runaway answer from growing without bound: a 2xx body over it fails with a
 * `ResponseTooLargeError`, an error body is cut.
 */
import type { IncomingMessage } from 'node:http';
import type { Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';
import { abortError, ResponseTooLargeError } from '../errors';

/**
 * Largest buffered 2xx body accepted (a list page, `/version`): 32 MiB. A page of 500 typical
 * objects is a few MiB; informers that hit the limit fetch the page again with fewer objects,
 * so only a single object over 32 MiB (which etcd cannot store) makes a list fail.
 */
export const MAX_RESPONSE_BYTES = 32 * 1024 * 1024;

/** Longest error body kept (the rest is cut): a `Status` is a few hundred bytes. */
export const MAX_ERROR_BODY = 1 << 20;

/**
 * Buffers a response body, gunzipping it when the server compressed it (`Content-Encoding:
 * gzip`: buffered requests ask for it; the API server compresses large responses, a list page at
 * size L by ~20×). The limit counts the decoded bytes. Beyond `limit`: `truncate` keeps the first
 * `limit` bytes (error bodies), `fail` stops reading and rejects with a
 * {@link ResponseTooLargeError} (the caller destroys the response).
 */
export function readAll(res: IncomingMessage, limit: number, overLimit: 'truncate' | 'fail'): Promise<string> {
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
