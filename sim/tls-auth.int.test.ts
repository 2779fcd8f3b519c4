/**
 * The simulator as a stand-in for a real cluster's credentials: HTTPS with a CA generated at
 * start-up, and `auth` token / client-cert / exec. Each mode is checked with zonescope's own
 * connection (client-node's TLS options, over real HTTPS) and, when installed, the real kubectl
 * with the kubeconfig the simulator writes; and what a client without the credentials gets.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import https from 'node:https';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { createConnection } from '../lib/k8s/connection';
import { errorFromException } from '../lib/k8s/errors';
import type { Simulator, SimulatorOptions } from './server';
import { startSimulator } from './server';
import { node } from './test-support';

const KUBECTL = process.env.KUBECTL ?? '/usr/bin/kubectl';
const dir = mkdtempSync(path.join(tmpdir(), 'zonescope-sim-tls-'));
const running: Simulator[] = [];

afterEach(async () => {
  for (const sim of running.splice(0)) await sim.stop();
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function start(options: SimulatorOptions): Promise<Simulator> {
  const sim = await startSimulator({ objects: [node('node-a', 'zone-a')], log: () => undefined, ...options });
  running.push(sim);
  return sim;
}

async function listNodes(kubeconfigText: string): Promise<{ status: number; names: string[] }> {
  const result = createConnection({ kubeconfigText, requestTimeoutMs: 5000, proxyEnv: {} });
  if (!result.ok) throw new Error(result.message);
  const response = await result.connection.request({ path: '/api/v1/nodes' });
  const names = response.status === 200 ? (JSON.parse(response.body) as { items: { metadata: { name: string } }[] }).items.map((i) => i.metadata.name) : [];
  return { status: response.status, names };
}

/** A raw HTTPS GET trusting only `ca`, with optional headers and client certificate. */
function rawGet(url: string, options: { ca?: string; headers?: Record<string, string>; cert?: string; key?: string }): Promise<{ status: number } | { error: string }> {
  return new Promise((resolve) => {
    const req = https.get(`${url}/api/v1/nodes`, { ca: options.ca, headers: options.headers, cert: options.cert, key: options.key, agent: false }, (res) => {
      res.resume();
      resolve({ status: res.statusCode ?? 0 });
    });
    req.on('error', (error: NodeJS.ErrnoException) => resolve({ error: error.code ?? error.message }));
  });
}

function kubectl(kubeconfig: string, ...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      KUBECTL,
      [`--kubeconfig=${kubeconfig}`, `--cache-dir=${path.join(dir, 'cache')}`, '--request-timeout=10s', ...args],
      { env: { ...process.env, HOME: dir, KUBECONFIG: '', HTTPS_PROXY: '', https_proxy: '' }, timeout: 20_000 },
      (error, stdout, stderr) => resolve({ code: error === null ? 0 : typeof error.code === 'number' ? error.code : 1, stdout, stderr }),
    );
  });
}
const hasKubectl = existsSync(KUBECTL);

describe('--tls', () => {
  // The first TLS simulator of a process makes its RSA keys (about a second on a busy machine).
  it('serves HTTPS with a generated CA, which the kubeconfig carries as certificate-authority-data', { timeout: 15_000 }, async () => {
    const sim = await start({ tls: true, auth: 'token' });
    expect(sim.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    expect(sim.tlsServerNames).toEqual(['127.0.0.1', '::1', 'localhost']);
    const config = parse(sim.kubeconfig()) as { clusters: { cluster: Record<string, unknown> }[] };
    const cluster = config.clusters[0]?.cluster ?? {};
    expect(Buffer.from(String(cluster['certificate-authority-data']), 'base64').toString()).toBe(sim.caCertificate);
    expect(cluster['insecure-skip-tls-verify']).toBeUndefined();
    expect(await listNodes(sim.kubeconfig())).toEqual({ status: 200, names: ['node-a'] });

    // A client that does not trust this CA refuses the server; one that does but has no token gets 401.
    const other = await start({ tls: true });
    expect(await rawGet(sim.url, { ca: other.caCertificate ?? '' })).toEqual({ error: 'UNABLE_TO_VERIFY_LEAF_SIGNATURE' });
    expect(await rawGet(sim.url, { ca: sim.caCertificate ?? '' })).toEqual({ status: 401 });
    expect(await rawGet(sim.url, { ca: sim.caCertificate ?? '', headers: { Authorization: `Bearer ${sim.token}` } })).toEqual({ status: 200 });
  });

  it('covers extra names in the server certificate, and refuses malformed ones', async () => {
    const sim = await start({ tls: { names: ['sim.zonescope.test', '10.0.0.7'] } });
    expect(sim.tlsServerNames).toEqual(['127.0.0.1', '::1', 'localhost', 'sim.zonescope.test', '10.0.0.7']);
    await expect(startSimulator({ tls: { names: ['bad name'] }, log: () => undefined })).rejects.toThrow('"bad name" is neither a host name nor an IP address');
  });

  it.skipIf(!hasKubectl)('kubectl works with the written kubeconfig (CA verified, token required)', async () => {
    const sim = await start({ tls: true, auth: 'token' });
    const file = await sim.writeKubeconfig(path.join(dir, 'token.kubeconfig'));
    const run = await kubectl(file, 'get', 'nodes', '-o', 'name');
    expect(run).toMatchObject({ code: 0, stdout: 'node/node-a\n' });
  });
});

describe('--auth client-cert', () => {
  it('needs TLS', async () => {
    await expect(startSimulator({ auth: 'client-cert', log: () => undefined })).rejects.toThrow('client-certificate authentication needs TLS');
  });

  it('requires a client certificate signed by its CA; the kubeconfig carries one', async () => {
    const sim = await start({ tls: true, auth: 'client-cert' });
    const config = parse(sim.kubeconfig()) as { users: { user: Record<string, unknown> }[] };
    const user = config.users[0]?.user ?? {};
    expect(Object.keys(user).sort()).toEqual(['client-certificate-data', 'client-key-data']);
    expect(await listNodes(sim.kubeconfig())).toEqual({ status: 200, names: ['node-a'] });

    // Without a certificate, or with one from another CA, the TLS handshake fails.
    const other = await start({ tls: true, auth: 'client-cert' });
    const ca = sim.caCertificate ?? '';
    expect(await rawGet(sim.url, { ca })).toEqual({ error: 'ERR_SSL_TLSV13_ALERT_CERTIFICATE_REQUIRED' });
    expect(await rawGet(sim.url, { ca, cert: other.clientCertificate?.certificate, key: other.clientCertificate?.key })).toMatchObject({ error: expect.stringMatching(/ERR_SSL|ECONNRESET/) });
    expect(await rawGet(sim.url, { ca, cert: sim.clientCertificate?.certificate, key: sim.clientCertificate?.key })).toEqual({ status: 200 });

    // zonescope without the certificate: a TLS failure, shown as such.
    const withoutCert = parse(sim.kubeconfig()) as { users: { user: Record<string, unknown> }[] };
    for (const entry of withoutCert.users) entry.user = { token: sim.token };
    const noCert = stringify(withoutCert);
    const result = createConnection({ kubeconfigText: noCert, requestTimeoutMs: 5000, proxyEnv: {} });
    if (!result.ok) throw new Error(result.message);
    const error = await result.connection.request({ path: '/api/v1/nodes' }).then(() => null, (e: unknown) => e);
    expect(errorFromException(error)).toMatchObject({ kind: 'unavailable' });
  });

  it.skipIf(!hasKubectl)('kubectl authenticates with the kubeconfig\'s client certificate', async () => {
    const sim = await start({ tls: true, auth: 'client-cert' });
    const file = await sim.writeKubeconfig(path.join(dir, 'cert.kubeconfig'));
    expect(await kubectl(file, 'get', 'nodes', '-o', 'name')).toMatchObject({ code: 0, stdout: 'node/node-a\n' });
  });
});

describe('--auth exec', () => {
  it('writes an exec entry whose plugin prints an ExecCredential with the current token', async () => {
    const sim = await start({ tls: true, auth: 'exec', token: 'exec-token-one' });
    const config = parse(sim.kubeconfig()) as { users: { user: { exec: { apiVersion: string; command: string; args: string[]; interactiveMode: string } } }[] };
    const exec = config.users[0]?.user.exec;
    expect(exec).toMatchObject({ apiVersion: 'client.authentication.k8s.io/v1', command: process.execPath, interactiveMode: 'Never' });
    expect(exec?.args[0]).toMatch(/sim[\\/]exec-plugin\.mjs$/);
    expect(readFileSync(exec?.args[1] ?? '', 'utf8')).toBe('exec-token-one');
    expect(await listNodes(sim.kubeconfig())).toEqual({ status: 200, names: ['node-a'] });
    expect(await rawGet(sim.url, { ca: sim.caCertificate ?? '' })).toEqual({ status: 401 });

    // Rotation: the plugin hands out the new token (a fresh connection runs it again).
    sim.rotateToken('exec-token-two');
    expect(readFileSync(exec?.args[1] ?? '', 'utf8')).toBe('exec-token-two');
    expect(await listNodes(sim.kubeconfig())).toEqual({ status: 200, names: ['node-a'] });
    const tokenDir = path.dirname(exec?.args[1] ?? '');
    await sim.stop();
    expect(existsSync(tokenDir)).toBe(false);
  });

  it.skipIf(!hasKubectl)('kubectl runs the plugin', async () => {
    const sim = await start({ tls: true, auth: 'exec' });
    const file = await sim.writeKubeconfig(path.join(dir, 'exec.kubeconfig'));
    expect(await kubectl(file, 'get', 'nodes', '-o', 'name')).toMatchObject({ code: 0, stdout: 'node/node-a\n' });
  });
});
