/**
 * A TCP proxy that stands for the network between zonescope and a remote API server: every byte
 * is delayed by half the round-trip time in each direction, and each direction's throughput is
 * limited by a token bucket (so a 100 Mbit/s link moves 12.5 MB/s however fast loopback is).
 * A new connection's first bytes from the client wait one more round trip, as TCP's handshake
 * makes them wait (the proxy itself accepts on loopback at once), so a connection per request
 * costs what it costs on a real network.
 * Bytes are forwarded in the order they came, per connection and direction; it counts the
 * connections it accepted and the bytes it carried each way. It does not look into the stream, so
 * TLS goes through it end to end (the client's certificate check is against the real server's
 * certificate, which must cover the proxy's address: 127.0.0.1).
 *
 * ```ts
 * const link = await startLinkProxy({ targetPort: sim.port, rttMs: 20, mbps: 100 });
 * // clients connect to 127.0.0.1:link.port instead of sim.port
 * await link.stop();
 * ```
 */
import type { AddressInfo, Server, Socket } from 'node:net';
import { connect, createServer } from 'node:net';

/** Options of {@link startLinkProxy}. */
export interface LinkProxyOptions {
  /** Where to forward to (default 127.0.0.1). */
  readonly targetHost?: string;
  readonly targetPort: number;
  /** Round-trip time added, in ms (half each way; default 0). */
  readonly rttMs?: number;
  /** Throughput limit of each direction, in Mbit/s (10^6 bit/s; default: none). */
  readonly mbps?: number;
  /** Bytes the bucket holds: what may leave at once after an idle moment (default 64 KiB). */
  readonly burstBytes?: number;
  /** Port to listen on (default 0: a free port). */
  readonly port?: number;
}

/** What the link carried since the start or the last {@link LinkProxy.resetCounters}. */
export interface LinkCounters {
  /** TCP connections accepted. */
  readonly connections: number;
  /** Bytes from clients to the server. */
  readonly bytesUp: number;
  /** Bytes from the server to clients. */
  readonly bytesDown: number;
}

/** A running link proxy. */
export interface LinkProxy {
  /** The port it listens on (127.0.0.1). */
  readonly port: number;
  counters(): LinkCounters;
  resetCounters(): void;
  /** Closes every connection and the listener. */
  stop(): Promise<void>;
}

/** Largest piece scheduled at once: big reads are paced in pieces, not sent in one burst after a long wait. */
const PIECE_BYTES = 16 * 1024;
/** Queued bytes of one direction above which its source is paused (as a TCP window would). */
const HIGH_WATER_BYTES = 4 * 1024 * 1024;
const LOW_WATER_BYTES = 1024 * 1024;

/**
 * A token bucket: `rate` bytes per ms, at most `burst` bytes held. {@link departure} says when a
 * piece of `bytes` can leave if it is ready at `readyAt` (and takes the tokens).
 */
export class TokenBucket {
  private tokens: number;
  private at = 0;

  constructor(
    private readonly bytesPerMs: number,
    private readonly burst: number,
  ) {
    this.tokens = burst;
  }

  /** When a piece ready at `readyAt` (ms, non-decreasing across calls) leaves. */
  departure(readyAt: number, bytes: number): number {
    if (!Number.isFinite(this.bytesPerMs)) return readyAt;
    const start = Math.max(readyAt, this.at);
    this.tokens = Math.min(this.burst, this.tokens + (start - this.at) * this.bytesPerMs);
    this.at = start;
    if (this.tokens >= bytes) {
      this.tokens -= bytes;
      return start;
    }
    const wait = (bytes - this.tokens) / this.bytesPerMs;
    this.tokens = 0;
    this.at = start + wait;
    return this.at;
  }
}

/** One direction of one connection: pieces queued with the time they are due at the other end. */
class Direction {
  private readonly queue: { due: number; data: Buffer | null }[] = [];
  private queued = 0;
  private timer: ReturnType<typeof setTimeout> | null = null;
  private lastDue = 0;
  private readonly bucket: TokenBucket;

  constructor(
    private readonly from: Socket,
    private readonly to: Socket,
    private readonly delayMs: number,
    bytesPerMs: number,
    burst: number,
    private readonly count: (bytes: number) => void,
    /** Nothing leaves before this time (ms, `performance.now()`): the handshake. */
    private readonly openAt = 0,
  ) {
    this.bucket = new TokenBucket(bytesPerMs, burst);
    from.on('data', (chunk: Buffer) => {
      for (let offset = 0; offset < chunk.length; offset += PIECE_BYTES) this.push(chunk.subarray(offset, offset + PIECE_BYTES));
      if (this.queued > HIGH_WATER_BYTES) from.pause();
    });
    from.on('end', () => this.push(null));
  }

  /** Schedules a piece (`null`: the end of the stream), never before the one before it. */
  private push(data: Buffer | null): void {
    const now = Math.max(performance.now(), this.openAt);
    const left = data === null ? now : this.bucket.departure(now, data.length);
    const due = Math.max(this.lastDue, left + this.delayMs);
    this.lastDue = due;
    this.queue.push({ due, data });
    this.queued += data?.length ?? 0;
    this.schedule();
  }

  private schedule(): void {
    if (this.timer !== null || this.queue.length === 0) return;
    const head = this.queue[0];
    if (head === undefined) return;
    this.timer = setTimeout(() => this.deliver(), Math.max(0, head.due - performance.now()));
  }

  private deliver(): void {
    this.timer = null;
    const now = performance.now();
    while (this.queue.length > 0 && (this.queue[0]?.due ?? Infinity) <= now + 0.5) {
      const piece = this.queue.shift();
      if (piece === undefined) break;
      if (piece.data === null) {
        this.to.end();
        continue;
      }
      this.queued -= piece.data.length;
      this.count(piece.data.length);
      if (!this.to.destroyed) this.to.write(piece.data);
    }
    if (this.queued < LOW_WATER_BYTES && this.from.isPaused()) this.from.resume();
    this.schedule();
  }

  dispose(): void {
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    this.queue.length = 0;
    this.queued = 0;
  }
}

/** Starts a link proxy on 127.0.0.1. */
export async function startLinkProxy(options: LinkProxyOptions): Promise<LinkProxy> {
  const rttMs = options.rttMs ?? 0;
  const mbps = options.mbps;
  if (!Number.isFinite(rttMs) || rttMs < 0) throw new Error(`rttMs must be a number ≥ 0 (got ${String(options.rttMs)})`);
  if (mbps !== undefined && (!Number.isFinite(mbps) || mbps <= 0)) throw new Error(`mbps must be a number > 0 (got ${String(mbps)})`);
  const bytesPerMs = mbps === undefined ? Infinity : (mbps * 1e6) / 8 / 1000;
  const burst = options.burstBytes ?? 64 * 1024;
  const sockets = new Set<Socket>();
  let counters = { connections: 0, bytesUp: 0, bytesDown: 0 };
  // Half-open: each direction ends (FIN) when its own queue is delivered, not when the other ends.
  const server: Server = createServer({ allowHalfOpen: true }, (client) => {
    counters.connections++;
    const upstream = connect({ host: options.targetHost ?? '127.0.0.1', port: options.targetPort, allowHalfOpen: true });
    sockets.add(client);
    sockets.add(upstream);
    client.setNoDelay(true);
    upstream.setNoDelay(true);
    // Each direction: one-way delay half the round trip, its own bucket.
    // The client's first bytes wait for the SYN/SYN-ACK round trip a real connection takes.
    const up = new Direction(client, upstream, rttMs / 2, bytesPerMs, burst, (n) => (counters.bytesUp += n), performance.now() + rttMs);
    const down = new Direction(upstream, client, rttMs / 2, bytesPerMs, burst, (n) => (counters.bytesDown += n));
    // A reset on either side resets the other (what was still in flight is lost, as on a network).
    const abort = (): void => {
      up.dispose();
      down.dispose();
      client.destroy();
      upstream.destroy();
    };
    client.on('error', abort);
    upstream.on('error', abort);
    const closed = (): void => {
      if (!client.destroyed || !upstream.destroyed) return;
      up.dispose();
      down.dispose();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    // A socket is destroyed once both of its halves ended: it then needs nothing more.
    for (const socket of [client, upstream]) {
      socket.on('end', () => {
        if (socket.writableEnded) socket.destroy();
      });
      socket.on('finish', () => {
        if (socket.readableEnded) socket.destroy();
      });
      socket.on('close', closed);
    }
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  return {
    port,
    counters: () => ({ ...counters }),
    resetCounters: () => {
      counters = { connections: 0, bytesUp: 0, bytesDown: 0 };
    },
    stop: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        sockets.clear();
        server.close(() => resolve());
      }),
  };
}
