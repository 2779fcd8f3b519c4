/**
 * The API server connection through proxies, against the simulator with TLS and a token: a real
 * HTTP CONNECT proxy and a real SOCKS5 proxy (sim/test-proxies.ts) in front of it. The
 * simulator's certificate also covers `sim.zonescope.test`, a name only the proxies resolve: a
 * request to it that succeeds went through a proxy, and for SOCKS5 the proxy must have been
 * given the name (remote DNS), not an address.
 */
import { CoreV1Api } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Simulator } from '../../sim/server';
import { startSimulator } from '../../sim/server';
import { node, waitFor } from '../../sim/test-support';
import type { TestProxy } from '../../sim/test-proxies';
import { startConnectProxy, startSocks5Proxy } from '../../sim/test-proxies';
import type { ProxyEnv } from './proxy';
import { LiveClusterSource } from './cluster-sources/live-source';
import { createConnection } from './connection';
import { errorFromException } from './errors';
import { redact } from './redact';

const NAME = 'sim.zonescope.test';
const PROXY_PASSWORD = 'pr0xy-s3cret-pw';

let sim: Simulator;
let httpProxy: TestProxy;
let authProxy: TestProxy;
let socksProxy: TestProxy;
let server: string;

beforeAll(async () => {
  sim = await startSimulator({ objects: [node('node-a', 'zone-a'), node('node-b', 'zone-b')], tls: { names: [NAME] }, auth: 'token', log: () => undefined });
  const hosts = { [NAME]: '127.0.0.1' };
  [httpProxy, authProxy, socksProxy] = await Promise.all([
    startConnectProxy({ hosts }),
    startConnectProxy({ hosts, credentials: `alice:${PROXY_PASSWORD}` }),
    startSocks5Proxy({ hosts }),
  ]);
  server = `https://${NAME}:${sim.port}`;
}, 15_000);

afterAll(async () => {
  await Promise.all([sim.stop(), httpProxy.stop(), authProxy.stop(), socksProxy.stop()]);
});

function clear(): void {
  for (const proxy of [httpProxy, authProxy, socksProxy]) proxy.connections.length = 0;
}

async function nodeNames(options: { kubeconfigText: string; proxyEnv: ProxyEnv }): Promise<string[]> {
  const result = createConnection({ ...options, requestTimeoutMs: 3000 });
  if (!result.ok) throw new Error(result.message);
  const response = await result.connection.request({ path: '/api/v1/nodes' });
  expect(response.status).toBe(200);
  return (JSON.parse(response.body) as { items: { metadata: { name: string } }[] }).items.map((item) => item.metadata.name);
}

async function failure(options: { kubeconfigText: string; proxyEnv: ProxyEnv }): Promise<unknown> {
  const result = createConnection({ ...options, requestTimeoutMs: 3000 });
  if (!result.ok) throw new Error(result.message);
  return result.connection.request({ path: '/api/v1/nodes' }).then(
    () => null,
    (error: unknown) => error,
  );
}

describe('HTTPS_PROXY / NO_PROXY', () => {
  it('tunnels through the HTTP CONNECT proxy of HTTPS_PROXY, with its credentials', async () => {
    clear();
    const proxyUrl = authProxy.url.replace('://', `://alice:${PROXY_PASSWORD}@`);
    expect(await nodeNames({ kubeconfigText: sim.kubeconfig({ server }), proxyEnv: { HTTPS_PROXY: proxyUrl } })).toEqual(['node-a', 'node-b']);
    expect(authProxy.connections).toEqual([
      { host: NAME, port: sim.port, addressType: 'domain', credentials: `Basic ${Buffer.from(`alice:${PROXY_PASSWORD}`).toString('base64')}`, accepted: true },
    ]);
    // The lower-case variable works too, and a value without a scheme means http://.
    clear();
    expect(await nodeNames({ kubeconfigText: sim.kubeconfig({ server }), proxyEnv: { https_proxy: httpProxy.url.replace('http://', '') } })).toHaveLength(2);
    expect(httpProxy.connections.map((c) => c.host)).toEqual([NAME]);
  });

  it('carries the informers\' lists and watches: a change made after the sync arrives through the proxy', async () => {
    clear();
    const result = createConnection({ kubeconfigText: sim.kubeconfig({ server, proxyUrl: socksProxy.url }), proxyEnv: {}, requestTimeoutMs: 3000 });
    if (!result.ok) throw new Error(result.message);
    const state = new LiveClusterSource(result.connection, { resources: ['nodes'] });
    state.start();
    try {
      expect(await state.waitForSync(5000)).toBe(true);
      sim.store.create('nodes', node('node-c', 'zone-c'));
      await waitFor(() => state.index().nodesByName.has('node-c'), 5000, 'the watch event');
      expect(socksProxy.connections.length).toBeGreaterThanOrEqual(2);
      expect(new Set(socksProxy.connections.map((c) => c.host))).toEqual(new Set([NAME]));
    } finally {
      await state.stop();
      sim.store.delete('nodes', undefined, 'node-c');
    }
  });

  it('goes through the generated clients too (the writes of the toggle)', async () => {
    clear();
    const result = createConnection({ kubeconfigText: sim.kubeconfig({ server }), proxyEnv: { HTTPS_PROXY: httpProxy.url } });
    if (!result.ok) throw new Error(result.message);
    const list = await result.connection.kubeConfig.makeApiClient(CoreV1Api).listNode();
    expect(list.items.map((item) => item.metadata?.name)).toEqual(['node-a', 'node-b']);
    expect(httpProxy.connections.map((c) => c.host)).toEqual([NAME]);
  });

  it('bypasses the proxy for NO_PROXY matches and for loopback, as kubectl does', async () => {
    for (const noProxy of ['.zonescope.test', 'zonescope.test', '*.zonescope.test', `${NAME}:${sim.port}`, '*', 'example.com, sim.zonescope.test']) {
      clear();
      // Direct: the name does not resolve here, so the request fails without reaching the proxy.
      const error = await failure({ kubeconfigText: sim.kubeconfig({ server }), proxyEnv: { HTTPS_PROXY: httpProxy.url, NO_PROXY: noProxy } });
      expect(errorFromException(error).kind, noProxy).toBe('unavailable');
      expect(httpProxy.connections, noProxy).toEqual([]);
    }
    // Entries that do not match (another port, another domain, a suffix that is not a label) leave it proxied.
    for (const noProxy of [`${NAME}:1`, 'example.com', 'zonescope.test.example', 'ope.test']) {
      clear();
      expect(await nodeNames({ kubeconfigText: sim.kubeconfig({ server }), proxyEnv: { HTTPS_PROXY: httpProxy.url, no_proxy: noProxy } })).toHaveLength(2);
      expect(httpProxy.connections.map((c) => c.host), noProxy).toEqual([NAME]);
    }
    // 127.0.0.1 never goes through the environment's proxy.
    clear();
    expect(await nodeNames({ kubeconfigText: sim.kubeconfig(), proxyEnv: { HTTPS_PROXY: httpProxy.url } })).toHaveLength(2);
    expect(httpProxy.connections).toEqual([]);
  });

  it('uses HTTP_PROXY only for http:// servers', async () => {
    clear();
    const error = await failure({ kubeconfigText: sim.kubeconfig({ server }), proxyEnv: { HTTP_PROXY: httpProxy.url } });
    expect(errorFromException(error).kind).toBe('unavailable');
    expect(httpProxy.connections).toEqual([]);
  });

  it('never shows the proxy password: a refused proxy, a malformed or unsupported proxy URL', async () => {
    clear();
    const wrong = authProxy.url.replace('://', `://alice:${PROXY_PASSWORD}-old@`);
    const error = await failure({ kubeconfigText: sim.kubeconfig({ server }), proxyEnv: { HTTPS_PROXY: wrong } });
    expect(authProxy.connections.map((c) => c.accepted)).toEqual([false]);
    const shown = errorFromException(error).message;
    expect(shown).not.toContain(PROXY_PASSWORD);
    expect(redact(String(error instanceof Error ? error.message : error))).not.toContain(PROXY_PASSWORD);

    const unsupported = createConnection({ kubeconfigText: sim.kubeconfig({ server }), proxyEnv: { HTTPS_PROXY: `ftp://alice:${PROXY_PASSWORD}@proxy.example` } });
    expect(unsupported).toEqual({ ok: false, message: 'HTTPS_PROXY uses the unsupported proxy scheme "ftp" (kubectl supports http, https and socks5).' });
    const invalid = createConnection({ kubeconfigText: sim.kubeconfig({ server }), proxyEnv: { HTTPS_PROXY: `http://alice:${PROXY_PASSWORD}@[bad` } });
    expect(invalid).toEqual({ ok: false, message: 'HTTPS_PROXY is not a valid proxy URL.' });
    const badProxyUrl = createConnection({ kubeconfigText: sim.kubeconfig({ server, proxyUrl: `socks4://alice:${PROXY_PASSWORD}@127.0.0.1:1080` }), proxyEnv: {} });
    expect(badProxyUrl).toEqual({ ok: false, message: 'The proxy-url of cluster "zonescope-sim" uses the unsupported proxy scheme "socks4" (kubectl supports http, https and socks5).' });
  });
});

describe('proxy-url', () => {
  it('a socks5:// proxy-url resolves the API server name at the proxy (remote DNS)', async () => {
    clear();
    expect(await nodeNames({ kubeconfigText: sim.kubeconfig({ server, proxyUrl: socksProxy.url }), proxyEnv: {} })).toEqual(['node-a', 'node-b']);
    expect(socksProxy.connections).toEqual([{ host: NAME, port: sim.port, addressType: 'domain', credentials: undefined, accepted: true }]);
  });

  it('wins over HTTPS_PROXY and NO_PROXY, also for loopback servers', async () => {
    clear();
    expect(await nodeNames({ kubeconfigText: sim.kubeconfig({ server, proxyUrl: socksProxy.url }), proxyEnv: { HTTPS_PROXY: httpProxy.url, NO_PROXY: '*' } })).toHaveLength(2);
    expect(socksProxy.connections.map((c) => c.host)).toEqual([NAME]);
    expect(httpProxy.connections).toEqual([]);
    clear();
    expect(await nodeNames({ kubeconfigText: sim.kubeconfig({ proxyUrl: httpProxy.url }), proxyEnv: {} })).toHaveLength(2);
    expect(httpProxy.connections.map((c) => [c.host, c.addressType])).toEqual([['127.0.0.1', 'ipv4']]);
  });

  it('a socks5:// HTTPS_PROXY also resolves remotely', async () => {
    clear();
    expect(await nodeNames({ kubeconfigText: sim.kubeconfig({ server }), proxyEnv: { HTTPS_PROXY: socksProxy.url } })).toHaveLength(2);
    expect(socksProxy.connections.map((c) => [c.host, c.addressType])).toEqual([[NAME, 'domain']]);
  });
});
