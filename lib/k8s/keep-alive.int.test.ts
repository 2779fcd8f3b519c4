/**
 * Kept-alive connections to the API server, against the simulator over real HTTP and HTTPS (the
 * simulator counts the TCP connections it accepts: `connections` in `/__sim/stats`): list pages
 * share one connection, through a CONNECT proxy too; a connection the server closed while idle,
 * or one cut under a GET, costs no error and no list restart; writes are never sent twice; open
 * watches do not hold up list pages; `keepAlive: false` opens one connection per request.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { rootCertificates } from 'node:tls';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml, stringify as stringifyYaml } from 'yaml';
import type { Simulator } from '../../sim/server';
import { startSimulator } from '../../sim/server';
import { node, service, waitFor } from '../../sim/test-support';
import type { TestProxy } from '../../sim/test-proxies';
import { startConnectProxy, startSocks5Proxy } from '../../sim/test-proxies';
import { LiveClusterSource } from './cluster-sources/live-source';
import type { KubeConnection, KubeLineStream } from './connection';
import { createConnection } from './connection';
import { connectionOptionsFromEnv } from './connection-options';
import { MAX_REQUEST_SOCKETS } from './transport/agents';
import type { InformerLogEvent } from './informer/options';
import { configFromEnv } from '../config/config';

const SERVICES = 12;
const objects = [node('node-a', 'zone-a'), ...Array.from({ length: SERVICES }, (_, i) => service(`svc-${String(i).padStart(2, '0')}`, 'shop'))];

let plain: Simulator;
let tls: Simulator;
let proxy: TestProxy;
let socks: TestProxy;
const sources: LiveClusterSource[] = [];
const streams: KubeLineStream[] = [];

beforeAll(async () => {
  [plain, tls, proxy, socks] = await Promise.all([
    startSimulator({ objects, log: () => undefined }),
    startSimulator({ objects, tls: true, auth: 'token', log: () => undefined }),
    startConnectProxy(),
    startSocks5Proxy(),
  ]);
}, 15_000);

afterEach(async () => {
  for (const stream of streams.splice(0)) stream.close();
  await Promise.all(sources.splice(0).map((source) => source.stop()));
  for (const sim of [plain, tls]) {
    sim.faults.clear();
    sim.closeIdleConnections();
  }
  proxy.connections.length = 0;
  socks.connections.length = 0;
});

afterAll(async () => {
  await Promise.all([plain.stop(), tls.stop(), proxy.stop(), socks.stop()]);
});

function connect(sim: Simulator, options: { keepAlive?: boolean; proxyUrl?: string } = {}): KubeConnection {
  const result = createConnection({
    kubeconfigText: sim.kubeconfig(options.proxyUrl !== undefined ? { proxyUrl: options.proxyUrl } : {}),
    requestTimeoutMs: 3000,
    proxyEnv: {},
    ...(options.keepAlive !== undefined ? { keepAlive: options.keepAlive } : {}),
  });
  if (!result.ok) throw new Error(result.message);
  return result.connection;
}

/** Lists Services page by page (`limit`), calling `between` after each page; returns the names and the page count. */
async function listPages(connection: KubeConnection, limit: number, between: () => void = () => undefined): Promise<{ names: string[]; pages: number }> {
  const names: string[] = [];
  let token: string | undefined;
  let pages = 0;
  do {
    const response = await connection.request({ path: '/api/v1/services', query: { limit, continue: token } });
    expect(response.status).toBe(200);
    const body = JSON.parse(response.body) as { items: { metadata: { name: string } }[]; metadata: { continue?: string } };
    names.push(...body.items.map((item) => item.metadata.name));
    token = body.metadata.continue || undefined;
    pages++;
    between();
  } while (token !== undefined);
  return { names, pages };
}

describe.each([
  ['HTTP', () => plain],
  ['HTTPS', () => tls],
])('over %s', (_, sim) => {
  it('sends N sequential list pages on one TCP connection', async () => {
    const connection = connect(sim());
    sim().stats.reset();
    const { names, pages } = await listPages(connection, 2);
    expect(names).toHaveLength(SERVICES);
    expect(pages).toBe(SERVICES / 2);
    expect(sim().stats.count('list', 'services')).toBe(pages);
    expect(sim().stats.listsStarted('services')).toBe(1);
    expect(sim().stats.connections()).toBe(1);
  });

  it('with keep-alive off (ZONESCOPE_KEEPALIVE=0), opens a connection per request', async () => {
    expect(connectionOptionsFromEnv(configFromEnv({ KUBECONFIG: '/nonexistent', ZONESCOPE_KEEPALIVE: '0' }))?.keepAlive).toBe(false);
    expect(connectionOptionsFromEnv(configFromEnv({ KUBECONFIG: '/nonexistent' }))?.keepAlive).toBeUndefined();
    const connection = connect(sim(), { keepAlive: false });
    sim().stats.reset();
    const { pages } = await listPages(connection, 3);
    expect(pages).toBe(SERVICES / 3);
    expect(sim().stats.connections()).toBe(pages);
  });

  it('survives the server closing idle connections between pages: a new connection, no error', async () => {
    const connection = connect(sim());
    sim().stats.reset();
    const { names, pages } = await listPages(connection, 4, () => sim().closeIdleConnections());
    expect(names).toHaveLength(SERVICES);
    expect(sim().stats.count('list', 'services')).toBe(pages);
    expect(sim().stats.connections()).toBe(pages);
  });

  it('sends a GET cut on a kept connection once more, so an informer lists once, without a restart', { timeout: 10_000 }, async () => {
    const connection = connect(sim());
    // Page 2 of the Services list is cut before an answer, once (as a connection the server
    // closed at the moment it was reused).
    sim().faults.add({ type: 'reset', verbs: ['list'], resources: ['services'], page: 2, count: 1 });
    sim().stats.reset();
    const logs: InformerLogEvent[] = [];
    const source = new LiveClusterSource(connection, {
      log: (event) => logs.push(event),
      informer: { backoff: { initialMs: 20, maxMs: 200 }, pageSize: 4, listTimeoutMs: 3000 },
    });
    sources.push(source);
    source.start();
    expect(await source.waitForSync(5000)).toBe(true);
    expect(source.snapshot().services).toHaveLength(SERVICES);
    // Pages 1, 2 (cut), 2 again, 3: one list, never restarted.
    expect(sim().stats.count('list', 'services')).toBe(4);
    expect(sim().stats.listsStarted('services')).toBe(1);
    expect(logs.filter((event) => /restarting it from the first page/.test(event.message))).toEqual([]);
  });

  it('never sends a write twice: a PATCH cut on a kept connection fails', async () => {
    const connection = connect(sim());
    await connection.request({ path: '/version' }); // the connection is now kept, and reused below
    sim().faults.add({ type: 'reset', verbs: ['patch'], resources: ['services'], count: 1 });
    sim().stats.reset();
    await expect(
      connection.request({
        method: 'PATCH',
        path: '/api/v1/namespaces/shop/services/svc-00',
        body: JSON.stringify({ metadata: { labels: { patched: 'yes' } } }),
        contentType: 'application/merge-patch+json',
      }),
    ).rejects.toThrow();
    expect(sim().stats.count('patch', 'services')).toBe(1);
    expect(sim().stats.connections()).toBe(0);
    expect(sim().store.get('services', 'shop', 'svc-00')?.metadata.labels?.patched).toBeUndefined();
  });

  it('keeps list pages moving while more watches are open than list connections are allowed', { timeout: 10_000 }, async () => {
    const connection = connect(sim());
    for (let i = 0; i < MAX_REQUEST_SOCKETS + 4; i++) {
      const opened = await connection.openStream({ path: '/api/v1/services', query: { watch: 1, timeoutSeconds: 60 } }, () => undefined);
      if (!opened.ok) throw new Error(`watch refused: ${opened.response.status}`);
      streams.push(opened.stream);
    }
    await waitFor(() => sim().stats.openWatches('services') === MAX_REQUEST_SOCKETS + 4, 3000, 'watches open');
    sim().stats.reset();
    const { names } = await listPages(connection, 5);
    expect(names).toHaveLength(SERVICES);
    expect(sim().stats.connections()).toBe(1);
  });
});

describe('rotated credentials', () => {
  it('opens new connections when the CA file changes, instead of riding on the old one', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'zonescope-keepalive-'));
    try {
      const caFile = path.join(dir, 'ca.crt');
      await writeFile(caFile, tls.caCertificate ?? '');
      const document = parseYaml(tls.kubeconfig()) as { clusters: { cluster: Record<string, unknown> }[] };
      const cluster = document.clusters[0]?.cluster ?? {};
      delete cluster['certificate-authority-data'];
      cluster['certificate-authority'] = caFile;
      const result = createConnection({ kubeconfigText: stringifyYaml(document), requestTimeoutMs: 3000, proxyEnv: {} });
      if (!result.ok) throw new Error(result.message);
      const connection = result.connection;
      tls.stats.reset();
      expect((await connection.request({ path: '/version' })).status).toBe(200);
      expect((await connection.request({ path: '/version' })).status).toBe(200);
      expect(tls.stats.connections()).toBe(1);
      // Another CA (one that did not sign the simulator's certificate): the kept connection,
      // verified with the old CA, is not used; the new one fails its certificate check.
      await writeFile(caFile, rootCertificates[0] ?? '');
      await expect(connection.request({ path: '/version' })).rejects.toThrow();
      await writeFile(caFile, tls.caCertificate ?? '');
      expect((await connection.request({ path: '/version' })).status).toBe(200);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('/__sim/stats', () => {
  it('tells lists from pages, and counts connections and bytes on the wire', async () => {
    const connection = connect(plain);
    await fetch(`${plain.url}/__sim/stats/reset`, { method: 'POST' });
    const { pages } = await listPages(connection, 5);
    const stats = (await (await fetch(`${plain.url}/__sim/stats`)).json()) as {
      requests: Record<string, Record<string, number>>;
      lists: Record<string, number>;
      connections: number;
      wireBytes: { received: number; sent: number };
    };
    expect(stats.requests.services?.list).toBe(pages);
    expect(stats.lists).toEqual({ services: 1 });
    // The pages' connection, and maybe the one this read came on (fetch may reuse the reset's).
    expect(stats.connections).toBeGreaterThanOrEqual(1);
    expect(stats.connections).toBeLessThanOrEqual(2);
    expect(stats.wireBytes.sent).toBeGreaterThan(SERVICES * 100);
    expect(stats.wireBytes.received).toBeGreaterThan(pages * 50);
  });
});

describe('through a proxy', () => {
  it('keeps the tunnel and the TLS connection inside it for every page', async () => {
    const connection = connect(tls, { proxyUrl: proxy.url });
    tls.stats.reset();
    const { names, pages } = await listPages(connection, 3);
    expect(names).toHaveLength(SERVICES);
    expect(pages).toBe(SERVICES / 3);
    expect(proxy.connections.filter((c) => c.accepted)).toHaveLength(1);
    expect(tls.stats.connections()).toBe(1);
  });

  it('through a SOCKS5 proxy too', async () => {
    const connection = connect(tls, { proxyUrl: socks.url });
    tls.stats.reset();
    const { names } = await listPages(connection, 3);
    expect(names).toHaveLength(SERVICES);
    expect(socks.connections.filter((c) => c.accepted)).toHaveLength(1);
    expect(tls.stats.connections()).toBe(1);
  });

  it('with keep-alive off, tunnels once per request', async () => {
    const connection = connect(tls, { proxyUrl: proxy.url, keepAlive: false });
    const { pages } = await listPages(connection, 3);
    expect(proxy.connections.filter((c) => c.accepted)).toHaveLength(pages);
  });
});
