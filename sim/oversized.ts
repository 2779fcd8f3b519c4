/**
 * The `oversized` fault's answer: a 200 list body or a single watch event of a given size,
 * written in chunks with backpressure and stopped as soon as the client goes away (so a client
 * that enforces a size limit costs the simulator no more than it read).
 */
import type { ServerResponse } from 'node:http';

const CHUNK = 64 * 1024;

/**
 * Streams `bytes` bytes of valid JSON on `res`: for a list, a `List` with a padding field; for a
 * watch, one ADDED event of a Service `oversized` whose padding annotation pushes the line's
 * newline past `bytes`. Resolves when everything was written or the client closed the stream.
 */
export async function sendOversized(res: ServerResponse, verb: 'list' | 'watch', bytes: number): Promise<void> {
  const head = verb === 'watch'
    ? '{"type":"ADDED","object":{"apiVersion":"v1","kind":"Service","metadata":{"name":"oversized","namespace":"default","resourceVersion":"999999","annotations":{"padding":"'
    : '{"kind":"List","apiVersion":"v1","metadata":{"resourceVersion":"999999"},"items":[],"padding":"';
  const tail = verb === 'watch' ? '"}},"spec":{"ports":[{"port":80}]}}}\n' : '"}';
  res.writeHead(200, { 'Content-Type': 'application/json', 'Cache-Control': 'no-cache, private' });
  res.flushHeaders();
  let gone = false;
  res.on('close', () => {
    gone = true;
  });
  const chunk = Buffer.alloc(CHUNK, 'x');
  let left = Math.max(0, bytes - head.length - tail.length);
  if (!res.write(head)) await drained(res);
  while (left > 0 && !gone && !res.destroyed) {
    const piece = left >= CHUNK ? chunk : chunk.subarray(0, left);
    left -= piece.length;
    if (!res.write(piece)) await drained(res);
  }
  if (!gone && !res.destroyed) res.end(tail);
}

function drained(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });
}
