/**
 * The link proxy of the link benchmark, over real TCP on loopback: bytes arrive complete and in
 * order, counters add up, half-closed connections still deliver, and the delay and rate are
 * applied (timing asserted as lower bounds with margin only: a loaded machine is slower, never
 * faster). The token bucket is checked on its own, without a clock.
 */
import { randomBytes } from 'node:crypto';
import type { AddressInfo, Server, Socket } from 'node:net';
import { connect, createServer } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import type { LinkProxy, LinkProxyOptions } from './link-proxy';
import { startLinkProxy, TokenBucket } from './link-proxy';

const servers: Server[] = [];
const links: LinkProxy[] = [];

afterEach(async () => {
  await Promise.all(links.splice(0).map((link) => link.stop()));
  await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
});

/** A TCP server on loopback running `handle` for each connection. */
async function tcpServer(handle: (socket: Socket) => void): Promise<number> {
  const server = createServer({ allowHalfOpen: true }, handle);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

async function link(options: Omit<LinkProxyOptions, 'targetPort'>, targetPort: number): Promise<LinkProxy> {
  const proxy = await startLinkProxy({ ...options, targetPort });
  links.push(proxy);
  return proxy;
}

/** Connects through `port`, writes `chunks` (then ends), and resolves with everything received until the server ends. */
function exchange(port: number, chunks: readonly Buffer[]): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const socket = connect({ port, host: '127.0.0.1', allowHalfOpen: true });
    const received: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => received.push(chunk));
    socket.on('end', () => {
      socket.end();
      resolve(Buffer.concat(received));
    });
    socket.on('error', reject);
    socket.on('connect', () => {
      for (const chunk of chunks) socket.write(chunk);
      socket.end();
    });
  });
}

describe('TokenBucket', () => {
  it('lets a burst go at once, then paces at the rate', () => {
    const bucket = new TokenBucket(10, 100); // 10 bytes/ms, 100 bytes held
    expect(bucket.departure(0, 100)).toBe(0);
    expect(bucket.departure(0, 50)).toBe(5);
    expect(bucket.departure(5, 50)).toBe(10);
    // Idle: the bucket fills up again, but never above its size.
    expect(bucket.departure(1000, 100)).toBe(1000);
    expect(bucket.departure(1000, 10)).toBe(1001);
  });

  it('never sends a piece before the one queued ahead of it', () => {
    const bucket = new TokenBucket(1, 10);
    const times = [5, 20, 3, 1].map((bytes) => bucket.departure(0, bytes));
    expect([...times].sort((a, b) => a - b)).toEqual(times);
    expect(times.at(-1)).toBe(19);
  });

  it('without a limit, sends when ready', () => {
    expect(new TokenBucket(Infinity, 0).departure(42, 1e9)).toBe(42);
  });
});

describe('startLinkProxy', () => {
  it('forwards every byte in order both ways, and counts connections and bytes', async () => {
    const port = await tcpServer((socket) => {
      socket.on('data', (chunk: Buffer) => socket.write(chunk));
      socket.on('end', () => socket.end());
    });
    const proxy = await link({ rttMs: 4, mbps: 400 }, port);
    const chunks = Array.from({ length: 200 }, (_, i) => randomBytes(1 + ((i * 7919) % 30_000)));
    const sent = Buffer.concat(chunks);
    const echoed = await exchange(proxy.port, chunks);
    expect(echoed.equals(sent)).toBe(true);
    const second = await exchange(proxy.port, [Buffer.from('again')]);
    expect(second.toString()).toBe('again');
    expect(proxy.counters()).toEqual({ connections: 2, bytesUp: sent.length + 5, bytesDown: sent.length + 5 });
    proxy.resetCounters();
    expect(proxy.counters()).toEqual({ connections: 0, bytesUp: 0, bytesDown: 0 });
  });

  it('delivers what the server sends after the client finished sending (half-close)', async () => {
    const port = await tcpServer((socket) => {
      let got = 0;
      socket.on('data', (chunk: Buffer) => (got += chunk.length));
      socket.on('end', () => socket.end(`got ${got}`));
    });
    const proxy = await link({ rttMs: 10 }, port);
    expect((await exchange(proxy.port, [Buffer.alloc(12_345)])).toString()).toBe('got 12345');
  });

  it('adds the round-trip time to a request and its answer', async () => {
    const port = await tcpServer((socket) => {
      socket.on('data', (chunk: Buffer) => socket.write(chunk));
      socket.on('end', () => socket.end());
    });
    const proxy = await link({ rttMs: 80 }, port);
    const started = performance.now();
    expect((await exchange(proxy.port, [Buffer.from('ping')])).toString()).toBe('ping');
    // Connecting is not delayed (the proxy accepts at once); the ping goes out and comes back.
    expect(performance.now() - started).toBeGreaterThanOrEqual(70);
  });

  it('makes the first exchange of a new connection wait one round trip more (the TCP handshake)', async () => {
    const port = await tcpServer((socket) => {
      socket.on('data', (chunk: Buffer) => socket.write(chunk));
      socket.on('end', () => socket.end());
    });
    const proxy = await link({ rttMs: 60 }, port);
    const socket = connect({ port: proxy.port, host: '127.0.0.1' });
    const ping = (text: string): Promise<number> =>
      new Promise((resolve) => {
        const started = performance.now();
        socket.once('data', (chunk: Buffer) => {
          expect(chunk.toString()).toBe(text);
          resolve(performance.now() - started);
        });
        socket.write(text);
      });
    await new Promise((resolve) => socket.once('connect', resolve));
    expect(await ping('first')).toBeGreaterThanOrEqual(110);
    expect(await ping('second')).toBeGreaterThanOrEqual(55);
    socket.destroy();
  });

  it('limits the throughput of a direction', async () => {
    const port = await tcpServer((socket) => {
      let got = 0;
      socket.on('data', (chunk: Buffer) => (got += chunk.length));
      socket.on('end', () => socket.end(String(got)));
    });
    // 20 Mbit/s = 2,500 bytes/ms; 500 kB minus the 64 KiB burst takes at least 174 ms.
    const proxy = await link({ mbps: 20 }, port);
    const started = performance.now();
    expect((await exchange(proxy.port, [Buffer.alloc(500_000, 7)])).toString()).toBe('500000');
    expect(performance.now() - started).toBeGreaterThanOrEqual(150);
    expect(proxy.counters().bytesUp).toBe(500_000);
  });

  it('refuses a negative delay or a rate that is not positive, with a clear message', async () => {
    await expect(startLinkProxy({ targetPort: 1, rttMs: -1 })).rejects.toThrow(/rttMs/);
    await expect(startLinkProxy({ targetPort: 1, mbps: 0 })).rejects.toThrow(/mbps/);
  });
});
