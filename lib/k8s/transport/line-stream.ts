/**
 * A watch read as a stream of lines: each newline-delimited line of a 2xx response body (one watch
 * event) goes to `onLine` as it completes. A line longer than the line limit ends the stream with a
 * `ResponseTooLargeError` instead of growing without bound.
 */
import type { IncomingMessage } from 'node:http';
import type { KubeLineStream } from '../connection';
import { abortError, ResponseTooLargeError } from '../errors';

/**
 * Longest watch line (one JSON event) accepted: 8 MiB. etcd refuses objects over 1.5 MiB
 * (`--max-request-bytes`), and their JSON is larger than what etcd stores (protobuf; base64 of
 * `binaryData`, escaped strings), so about 3× that is the realistic worst case: 8 MiB leaves
 * headroom while a runaway line costs at most this much memory.
 */
export const MAX_WATCH_LINE_BYTES = 8 * 1024 * 1024;

/**
 * Reads `res` (a 2xx answer) line by line into `onLine` (non-empty lines, trimmed). `release` ends
 * the exchange once the stream ends, however it ends (see {@link KubeLineStream.done}).
 */
export function readLines(res: IncomingMessage, maxLineBytes: number, onLine: (line: string) => void, release: () => void): KubeLineStream {
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
    done,
    close: () => finish(null),
    get maxPendingBytes() {
      return maxPendingBytes;
    },
  };
}
