/**
 * Configuration errors fail the first sync at once, with their cause, instead of after the sync
 * timeout: a context typo, TLS failures (unknown CA, host name mismatch, https to a plain-HTTP
 * server), a token the API server refuses. Transient errors (connection refused) keep the wait.
 * Over real HTTP(S): the simulator, and a node:https server with a self-signed certificate made for the run.
 */
import { writeFileSync, mkdtempSync } from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../cli/analyze-cli';
import type { Simulator } from '../../sim/server';
import { startSimulator } from '../../sim/server';
import { generateSelfSignedServer } from '../../sim/tls';
import type { ClusterSource } from './cluster-source';
import { permanentFailure } from './cluster-source';
import { LiveClusterSource } from './cluster-sources/live-source';
import { createClusterSource } from './cluster-sources/create-source';
import { createConnection } from './connection';
import { configFromEnv } from '../config/config';

// Self-signed certificates for `zonescope.test`, made for this run: one valid now, one that
// expired (valid only during 2020).
let CERT = '';
let KEY = '';
let EXPIRED = { cert: '', key: '' };
beforeAll(async () => {
  ({ cert: CERT, key: KEY } = await generateSelfSignedServer({ names: ['zonescope.test'] }));
  EXPIRED = await generateSelfSignedServer({ names: ['zonescope.test'], notBefore: new Date('2020-01-01T00:00:00Z'), notAfter: new Date('2020-12-31T00:00:00Z') });
}, 30_000);

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function sim(options: { requireToken?: boolean } = {}): Promise<Simulator> {
  const s = await startSimulator({ port: 0, log: () => undefined, ...options });
  cleanups.push(() => s.stop());
  return s;
}

/** An HTTPS server with the self-signed certificate for `zonescope.test`, answering `{}`. */
async function tlsServer(material: { cert: string; key: string } = { cert: CERT, key: KEY }): Promise<string> {
  const server = https.createServer(material, (_req, res) => res.end('{}'));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

function kubeconfig(cluster: Record<string, unknown>, user: Record<string, unknown> = { token: 'zonescope-sim-token' }): string {
  return JSON.stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: 'c', cluster }],
    users: [{ name: 'u', user }],
    contexts: [{ name: 'c', context: { cluster: 'c', user: 'u' } }],
    'current-context': 'c',
  });
}

function live(text: string): LiveClusterSource {
  const connection = createConnection({ kubeconfigText: text, requestTimeoutMs: 3000 });
  if (!connection.ok) throw new Error(connection.message);
  const state = new LiveClusterSource(connection.connection, { informer: { backoff: { initialMs: 50, maxMs: 200 } } });
  cleanups.push(() => state.stop());
  state.start();
  return state;
}

/** Waits for the first sync with the default 60 s timeout; returns the outcome, the time taken and the cause. */
async function firstSync(state: ClusterSource): Promise<{ synced: boolean; ms: number; cause: string | null }> {
  const started = Date.now();
  const synced = await state.waitForSync();
  return { synced, ms: Date.now() - started, cause: permanentFailure(state.statuses())?.message ?? null };
}

describe('fail fast on configuration errors', () => {
  it('a context typo: the source says so at once, and so does npm run analyze', async () => {
    const s = await sim();
    const dir = mkdtempSync(join(tmpdir(), 'zonescope-failfast-'));
    const file = join(dir, 'kubeconfig');
    writeFileSync(file, s.kubeconfig());
    const state = createClusterSource(configFromEnv({ KUBECONFIG: file, ZONESCOPE_CONTEXT: 'prod-typo' }));
    state.start();
    const result = await firstSync(state);
    expect(result).toMatchObject({ synced: false, cause: expect.stringContaining('Context "prod-typo" is not in the kubeconfig (contexts: zonescope-sim)') });
    expect(result.ms).toBeLessThan(1000);

    const saved = process.env.KUBECONFIG;
    process.env.KUBECONFIG = file;
    cleanups.push(() => {
      if (saved === undefined) delete process.env.KUBECONFIG;
      else process.env.KUBECONFIG = saved;
    });
    let err = '';
    const started = Date.now();
    const code = await main(['--context', 'prod-typo'], { out: () => undefined, err: (text) => (err += text) });
    expect(code).toBe(3);
    expect(Date.now() - started).toBeLessThan(2000);
    expect(err).toContain('analyze: cannot read the cluster: Context "prod-typo" is not in the kubeconfig');
  });

  it('a server certificate from an unknown CA', async () => {
    const server = await tlsServer();
    const result = await firstSync(live(kubeconfig({ server })));
    expect(result.synced).toBe(false);
    expect(result.ms).toBeLessThan(2000);
    expect(result.cause).toMatch(/^The API server's TLS certificate is not signed by a CA zonescope trusts \((DEPTH_ZERO_SELF_SIGNED_CERT|SELF_SIGNED_CERT_IN_CHAIN|UNABLE_TO_VERIFY_LEAF_SIGNATURE)\): set certificate-authority/);
  });

  it('a server certificate for another host name', async () => {
    const server = await tlsServer();
    const result = await firstSync(live(kubeconfig({ server, 'certificate-authority-data': Buffer.from(CERT).toString('base64') })));
    expect(result.synced).toBe(false);
    expect(result.ms).toBeLessThan(2000);
    expect(result.cause).toContain('The API server\'s TLS certificate is not valid for the host name "127.0.0.1" of the server URL (ERR_TLS_CERT_ALTNAME_INVALID)');
    // The same server under the certificate's name syncs far enough to pass TLS (tls-server-name).
    const named = live(kubeconfig({ server, 'certificate-authority-data': Buffer.from(CERT).toString('base64'), 'tls-server-name': 'zonescope.test' }));
    // The server answers every request with `{}`: a list that came back (not a list, so stale) got past TLS.
    await expect.poll(() => named.status('nodes').error?.message ?? null, { message: 'the first list answered', timeout: 5000, interval: 20 }).toMatch(/not a JSON list/);
    expect(permanentFailure(named.statuses())).toBeNull();
  });

  it('an expired server certificate', async () => {
    const server = await tlsServer(EXPIRED);
    const result = await firstSync(live(kubeconfig({ server, 'certificate-authority-data': Buffer.from(EXPIRED.cert).toString('base64'), 'tls-server-name': 'zonescope.test' })));
    expect(result.synced).toBe(false);
    expect(result.ms).toBeLessThan(2000);
    expect(result.cause).toBe("The API server's TLS certificate has expired (CERT_HAS_EXPIRED): renew the server certificate, or check the clock of this machine.");
  });

  it('https:// to a plain-HTTP API server', async () => {
    const s = await sim();
    const result = await firstSync(live(kubeconfig({ server: s.url.replace(/^http:/, 'https:'), 'insecure-skip-tls-verify': true })));
    expect(result.synced).toBe(false);
    expect(result.ms).toBeLessThan(2000);
    expect(result.cause).toMatch(/^The API server did not answer with TLS \((ERR_SSL_[A-Z_]+|EPROTO: wrong version number)\): check the server URL's scheme/);
  });

  it('a token the API server refuses', async () => {
    const s = await sim({ requireToken: true });
    const result = await firstSync(live(kubeconfig({ server: s.url, 'insecure-skip-tls-verify': true }, { token: 'not-the-right-token' })));
    expect(result.synced).toBe(false);
    expect(result.ms).toBeLessThan(2000);
    expect(result.cause).toBe('The API server rejected the credentials (401 Unauthorized): check the token or client certificate of the kubeconfig user, or get new ones.');
  });

  it('keeps waiting (and retrying) while the API server refuses connections', async () => {
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const port = (probe.address() as AddressInfo).port;
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    const state = live(kubeconfig({ server: `http://127.0.0.1:${port}`, 'insecure-skip-tls-verify': true }));
    const started = Date.now();
    expect(await state.waitForSync(1200)).toBe(false);
    expect(Date.now() - started).toBeGreaterThanOrEqual(1100);
    expect(permanentFailure(state.statuses())).toBeNull();
    expect(state.status('services').error?.message).toContain('connection refused');
  });
});
