/**
 * Behind a reverse proxy that buffers responses (nginx's `proxy_buffering on`, the default), a
 * watch's response headers arrive only with its first byte: on a quiet type that is the API
 * server's first bookmark, about a minute in. The wait for a watch's headers is the informer's
 * silence watchdog, not the request timeout; with the request timeout every quiet type turned
 * stale one request timeout after the sync.
 *
 * Scaled down: the simulator sends bookmarks every 1.5 s, requests time out after 0.4 s, the
 * watchdog allows 6 s of silence.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { stringify } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Simulator } from '../../sim/server';
import { startSimulator } from '../../sim/server';
import { service, waitForAsync } from '../../sim/test-support';
import { createConnection } from './connection';
import { ResourceInformer } from './informer/informer';
import { RESOURCES } from './resources';

let sim: Simulator;
let proxy: http.Server;
let proxyUrl = '';

/** A reverse proxy that sends a response's status and headers only together with its first body byte. */
function bufferingProxy(target: URL): http.Server {
  return http.createServer((req, res) => {
    const upstream = http.request({ host: target.hostname, port: target.port, method: req.method, path: req.url, headers: req.headers }, (answer) => {
      let started = false;
      const start = () => {
        if (started) return;
        started = true;
        res.writeHead(answer.statusCode ?? 502, answer.headers);
      };
      answer.on('data', (chunk: Buffer) => {
        start();
        res.write(chunk);
      });
      answer.on('end', () => {
        start();
        res.end();
      });
    });
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
    res.on('close', () => upstream.destroy());
  });
}

beforeAll(async () => {
  sim = await startSimulator({ objects: [service('web', 'shop')], bookmarkIntervalMs: 1500, log: () => undefined });
  proxy = bufferingProxy(new URL(sim.url));
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
});

afterAll(async () => {
  proxy.closeAllConnections();
  await new Promise<void>((resolve) => proxy.close(() => resolve()));
  await sim.stop();
});

describe('a watch behind a header-buffering proxy', () => {
  it('stays synced: its headers are waited for as long as the watchdog allows silence, not the request timeout', async () => {
    const kubeconfigText = stringify({
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [{ name: 'behind-nginx', cluster: { server: proxyUrl } }],
      users: [{ name: 'u', user: { token: 'zonescope-sim-token' } }],
      contexts: [{ name: 'c', context: { cluster: 'behind-nginx', user: 'u' } }],
      'current-context': 'c',
    });
    const result = createConnection({ kubeconfigText, requestTimeoutMs: 400 });
    if (!result.ok) throw new Error(result.message);
    const informer = new ResourceInformer(result.connection, RESOURCES.services, () => undefined, { watchdogMs: 6000 });
    informer.start();
    try {
      await waitForAsync(async () => informer.status().health === 'synced', 5000, 'the first list');
      // The first bookmark comes 1.5 s into the watch, long after the 0.4 s request timeout.
      await waitForAsync(async () => informer.status().lastEventAt !== null, 5000, 'a bookmark through the proxy');
      expect(informer.status()).toMatchObject({ health: 'synced', error: null, staleSince: null });
    } finally {
      await informer.stop();
    }
  });
});
