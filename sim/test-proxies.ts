/**
 * Real proxies for tests, on loopback, written with node:net: an HTTP CONNECT proxy and a SOCKS5
 * proxy (RFC 1928, with the username/password method of RFC 1929). Each records what it was asked
 * for (the target as the client named it: a host name or an address) and resolves host names
 * through its own table first — so a test can give the simulator a name that only the proxy
 * knows, which proves the request went through it and that the proxy, not the client, resolved it.
 *
 * And a TCP relay that can freeze ({@link startFreezingRelay}): in front of the simulator, it
 * makes it look like an API server that accepts connections and answers nothing (a stopped
 * process, a black-holed network path) until it thaws.
 */
import { createServer as createHttpServer } from 'node:http';
import type { AddressInfo, Server, Socket } from 'node:net';
import { connect, createServer as createNetServer } from 'node:net';

/** One connection a proxy was asked to open. */
export interface ProxiedConnection {
  /** The target host exactly as the client sent it (a name for remote DNS, else an address). */
  readonly host: string;
  readonly port: number;
  /** SOCKS5 address type: `domain`, `ipv4` or `ipv6` (CONNECT: `domain` or the address kind). */
  readonly addressType: 'domain' | 'ipv4' | 'ipv6';
  /** The `Proxy-Authorization` header (CONNECT) or `user:password` (SOCKS5), when sent. */
  readonly credentials: string | undefined;
  /** Whether the proxy let it through. */
  readonly accepted: boolean;
}

/** A running test proxy. */
export interface TestProxy {
  /** `http://127.0.0.1:<port>` or `socks5://127.0.0.1:<port>` (without credentials). */
  readonly url: string;
  readonly port: number;
  /** Every connection asked for, in order. */
  readonly connections: ProxiedConnection[];
  stop(): Promise<void>;
}

/** Options of the test proxies. */
export interface TestProxyOptions {
  /** Host names the proxy resolves itself (name → address), e.g. `{ 'sim.zonescope.test': '127.0.0.1' }`. */
  readonly hosts?: Readonly<Record<string, string>>;
  /** Credentials the proxy requires (`user:password`). */
  readonly credentials?: string;
}

function addressTypeOf(host: string): 'domain' | 'ipv4' | 'ipv6' {
  if (/^\d+\.\d+\.\d+\.\d+$/.test(host)) return 'ipv4';
  if (host.includes(':')) return 'ipv6';
  return 'domain';
}

function tunnel(client: Socket, host: string, port: number, hosts: Readonly<Record<string, string>>, onOpen: () => void, onFail: () => void): void {
  const upstream = connect({ host: hosts[host] ?? host, port });
  let opened = false;
  upstream.once('connect', () => {
    opened = true;
    onOpen();
    upstream.pipe(client);
    client.pipe(upstream);
  });
  upstream.on('error', () => {
    if (!opened) onFail();
    client.destroy();
  });
  client.on('error', () => upstream.destroy());
  client.on('close', () => upstream.destroy());
}

async function listen(server: Server, scheme: string, connections: ProxiedConnection[], sockets: Set<Socket>): Promise<TestProxy> {
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `${scheme}://127.0.0.1:${port}`,
    port,
    connections,
    stop: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/** Starts an HTTP proxy that serves CONNECT (and nothing else: other requests get 405). */
export async function startConnectProxy(options: TestProxyOptions = {}): Promise<TestProxy> {
  const hosts = options.hosts ?? {};
  const connections: ProxiedConnection[] = [];
  const sockets = new Set<Socket>();
  const expected = options.credentials !== undefined ? `Basic ${Buffer.from(options.credentials).toString('base64')}` : undefined;
  const server = createHttpServer((_req, res) => {
    res.writeHead(405, { Allow: 'CONNECT' });
    res.end();
  });
  server.on('connect', (req, client: Socket, head: Buffer) => {
    const target = req.url ?? '';
    const colon = target.lastIndexOf(':');
    const host = target.slice(0, colon).replace(/^\[(.*)\]$/, '$1');
    const port = Number(target.slice(colon + 1));
    const credentials = req.headers['proxy-authorization'];
    const record = (accepted: boolean): void => {
      connections.push({ host, port, addressType: addressTypeOf(host), credentials, accepted });
    };
    if (expected !== undefined && credentials !== expected) {
      record(false);
      client.end('HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: Basic realm="test"\r\nContent-Length: 0\r\n\r\n');
      return;
    }
    tunnel(
      client,
      host,
      port,
      hosts,
      () => {
        record(true);
        client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
        if (head.length > 0) client.unshift(head);
      },
      () => {
        record(false);
      },
    );
  });
  return listen(server, 'http', connections, sockets);
}

/** Starts a SOCKS5 proxy (CONNECT command; no authentication, or username/password). */
export async function startSocks5Proxy(options: TestProxyOptions = {}): Promise<TestProxy> {
  const hosts = options.hosts ?? {};
  const connections: ProxiedConnection[] = [];
  const sockets = new Set<Socket>();
  const server = createNetServer((client) => {
    let buffer = Buffer.alloc(0);
    let stage: 'greeting' | 'auth' | 'request' | 'done' = 'greeting';
    let credentials: string | undefined;
    const onData = (chunk: Buffer): void => {
      buffer = Buffer.concat([buffer, chunk]);
      for (;;) {
        if (stage === 'greeting') {
          if (buffer.length < 2) return;
          const count = buffer[1] ?? 0;
          if (buffer.length < 2 + count) return;
          const methods = [...buffer.subarray(2, 2 + count)];
          buffer = buffer.subarray(2 + count);
          const wanted = options.credentials !== undefined ? 0x02 : 0x00;
          if (!methods.includes(wanted)) {
            client.end(Buffer.from([0x05, 0xff]));
            stage = 'done';
            return;
          }
          client.write(Buffer.from([0x05, wanted]));
          stage = wanted === 0x02 ? 'auth' : 'request';
        } else if (stage === 'auth') {
          if (buffer.length < 2) return;
          const userLength = buffer[1] ?? 0;
          if (buffer.length < 3 + userLength) return;
          const passwordLength = buffer[2 + userLength] ?? 0;
          if (buffer.length < 3 + userLength + passwordLength) return;
          const user = buffer.subarray(2, 2 + userLength).toString('utf8');
          const password = buffer.subarray(3 + userLength, 3 + userLength + passwordLength).toString('utf8');
          buffer = buffer.subarray(3 + userLength + passwordLength);
          credentials = `${user}:${password}`;
          if (credentials !== options.credentials) {
            client.end(Buffer.from([0x01, 0x01]));
            stage = 'done';
            return;
          }
          client.write(Buffer.from([0x01, 0x00]));
          stage = 'request';
        } else if (stage === 'request') {
          if (buffer.length < 5) return;
          const type = buffer[3];
          let host: string;
          let end: number;
          if (type === 0x01) {
            end = 4 + 4;
            if (buffer.length < end + 2) return;
            host = [...buffer.subarray(4, 8)].join('.');
          } else if (type === 0x03) {
            const length = buffer[4] ?? 0;
            end = 5 + length;
            if (buffer.length < end + 2) return;
            host = buffer.subarray(5, end).toString('utf8');
          } else if (type === 0x04) {
            end = 4 + 16;
            if (buffer.length < end + 2) return;
            const words: string[] = [];
            for (let i = 4; i < 20; i += 2) words.push(buffer.readUInt16BE(i).toString(16));
            host = words.join(':');
          } else {
            client.end(Buffer.from([0x05, 0x08, 0x00, 0x01, 0, 0, 0, 0, 0, 0]));
            stage = 'done';
            return;
          }
          const port = buffer.readUInt16BE(end);
          const rest = buffer.subarray(end + 2);
          buffer = Buffer.alloc(0);
          stage = 'done';
          client.off('data', onData);
          client.pause();
          const addressType = type === 0x03 ? 'domain' : type === 0x01 ? 'ipv4' : 'ipv6';
          tunnel(
            client,
            host,
            port,
            hosts,
            () => {
              connections.push({ host, port, addressType, credentials, accepted: true });
              client.write(Buffer.from([0x05, 0x00, 0x00, 0x01, 127, 0, 0, 1, 0, 0]));
              if (rest.length > 0) client.unshift(rest);
            },
            () => {
              connections.push({ host, port, addressType, credentials, accepted: false });
              client.end(Buffer.from([0x05, 0x04, 0x00, 0x01, 0, 0, 0, 0, 0, 0]));
            },
          );
          return;
        } else {
          return;
        }
      }
    };
    client.on('data', onData);
    client.on('error', () => client.destroy());
  });
  return listen(server, 'socks5', connections, sockets);
}

/** A TCP relay in front of a server that can be frozen: connections are accepted, nothing passes. */
export interface FreezingRelay {
  /** `http://127.0.0.1:<port>`: give it to a kubeconfig as the server instead of the simulator's URL. */
  readonly url: string;
  readonly port: number;
  /** Whether it is frozen now. */
  readonly frozen: boolean;
  /**
   * From now on no byte passes either way, on open connections and new ones (which are accepted,
   * as a kernel accepts them for a stopped process); what arrives is held, not dropped.
   */
  freeze(): void;
  /** Lets everything held through, in order, and relays again. */
  thaw(): void;
  stop(): Promise<void>;
}

/** One relayed connection: the client's socket, the server's (once connected) and what waits for a thaw. */
interface RelayedConnection {
  readonly client: Socket;
  upstream: Socket | null;
  readonly held: { readonly to: 'server' | 'client'; readonly chunk: Buffer }[];
}

/**
 * Starts a {@link FreezingRelay} on loopback to `target` (plain TCP: HTTP or TLS alike, the client
 * still talks to the server behind it).
 */
export async function startFreezingRelay(target: { readonly host: string; readonly port: number }): Promise<FreezingRelay> {
  let frozen = false;
  const pairs = new Set<RelayedConnection>();
  const sockets = new Set<Socket>();
  const forward = (pair: RelayedConnection, to: 'server' | 'client', chunk: Buffer): void => {
    const destination = to === 'server' ? pair.upstream : pair.client;
    if (frozen || destination === null) pair.held.push({ to, chunk });
    else destination.write(chunk);
  };
  const connectUpstream = (pair: RelayedConnection): void => {
    const upstream = connect({ host: target.host, port: target.port });
    pair.upstream = upstream;
    sockets.add(upstream);
    upstream.on('data', (chunk: Buffer) => forward(pair, 'client', chunk));
    upstream.on('error', () => pair.client.destroy());
    upstream.on('close', () => {
      sockets.delete(upstream);
      // A server closing is news like any other: held back while frozen.
      if (!frozen) pair.client.end();
    });
    upstream.once('connect', () => flush(pair));
  };
  const flush = (pair: RelayedConnection): void => {
    if (frozen || pair.upstream === null || pair.upstream.connecting) return;
    for (const { to, chunk } of pair.held.splice(0)) (to === 'server' ? pair.upstream : pair.client).write(chunk);
    if (pair.upstream.destroyed) pair.client.end();
  };
  const server = createNetServer((client: Socket) => {
    const pair: RelayedConnection = { client, upstream: null, held: [] };
    pairs.add(pair);
    sockets.add(client);
    client.on('data', (chunk: Buffer) => forward(pair, 'server', chunk));
    client.on('error', () => pair.upstream?.destroy());
    client.on('close', () => {
      sockets.delete(client);
      pairs.delete(pair);
      pair.upstream?.destroy();
    });
    // A frozen server does not even open the way to itself: the connection waits for the thaw.
    if (!frozen) connectUpstream(pair);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    get frozen() {
      return frozen;
    },
    freeze: () => {
      frozen = true;
    },
    thaw: () => {
      frozen = false;
      for (const pair of pairs) {
        if (pair.upstream === null) connectUpstream(pair);
        else flush(pair);
      }
    },
    stop: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
