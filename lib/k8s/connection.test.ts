import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { stringify } from 'yaml';
import { afterAll, describe, expect, it } from 'vitest';
import { createConnection, displayServerUrl } from './connection';
import { errorFromException } from './errors';

const SECRET = 'super-secret-token-value';

function kubeconfig(options: { server?: string; skipTls?: boolean; current?: string } = {}): string {
  return stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: 'c1', cluster: { server: options.server ?? 'https://10.0.0.1:6443', ...(options.skipTls ? { 'insecure-skip-tls-verify': true } : {}) } }],
    users: [{ name: 'u1', user: { token: SECRET } }],
    contexts: [
      { name: 'prod', context: { cluster: 'c1', user: 'u1' } },
      { name: 'broken', context: { cluster: 'missing', user: 'u1' } },
    ],
    'current-context': options.current ?? 'prod',
  });
}

const tmp = mkdtempSync(path.join(tmpdir(), 'zonescope-conn-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('createConnection', () => {
  it('uses the current context, exposes its name and the server URL, never the token', () => {
    const result = createConnection({ kubeconfigText: kubeconfig() });
    if (!result.ok) throw new Error(result.message);
    expect(result.connection.contextName).toBe('prod');
    expect(result.connection.serverUrl).toBe('https://10.0.0.1:6443');
    expect(result.connection.source).toBe('kubeconfig');
    expect(JSON.stringify({ ...result.connection, kubeConfig: undefined })).not.toContain(SECRET);
  });

  it('selects a named context, and names the known ones when it does not exist', () => {
    expect(createConnection({ kubeconfigText: kubeconfig(), context: 'nope' })).toEqual({
      ok: false,
      message: 'Context "nope" is not in the kubeconfig (contexts: prod, broken).',
    });
    expect(createConnection({ kubeconfigText: kubeconfig(), context: 'broken' })).toEqual({
      ok: false,
      message: 'Context "broken" names cluster "missing", which the kubeconfig does not define.',
    });
  });

  it('takes a plain http:// server as kubectl does (kubectl proxy), with or without insecure-skip-tls-verify', () => {
    const result = createConnection({ kubeconfigText: kubeconfig({ server: 'http://127.0.0.1:8080' }) });
    if (!result.ok) throw new Error(result.message);
    expect(result.connection.serverUrl).toBe('http://127.0.0.1:8080');
    expect(createConnection({ kubeconfigText: kubeconfig({ server: 'http://127.0.0.1:8080', skipTls: true }) }).ok).toBe(true);
  });

  it('takes a user with an empty `user:` (YAML null) as kubectl does: a user without credentials', () => {
    const text = kubeconfig().replace(/user:\n\s+token: super-secret-token-value/, 'user:');
    expect(text).toMatch(/- name: u1\n\s+user:\n/);
    const result = createConnection({ kubeconfigText: text });
    if (!result.ok) throw new Error(result.message);
    expect(result.connection.contextName).toBe('prod');
    expect(result.connection.serverUrl).toBe('https://10.0.0.1:6443');
  });

  it('names a certificate-authority or client-certificate file that cannot be read, at once, as kubectl does', () => {
    const ca = path.join(tmp, 'no-such-ca.crt');
    const withCa = stringify({
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [{ name: 'c1', cluster: { server: 'https://10.0.0.1:6443', 'certificate-authority': ca } }],
      users: [{ name: 'u1', user: { 'client-certificate': path.join(tmp, 'no-such-client.crt'), 'client-key': path.join(tmp, 'no-such-client.key') } }],
      contexts: [{ name: 'prod', context: { cluster: 'c1', user: 'u1' } }],
      'current-context': 'prod',
    });
    expect(createConnection({ kubeconfigText: withCa })).toEqual({ ok: false, message: `Cannot read the certificate-authority file ${ca} of cluster "c1" (no such file).` });
    writeFileSync(ca, 'not checked here');
    expect(createConnection({ kubeconfigText: withCa })).toEqual({ ok: false, message: `Cannot read the client-certificate file ${path.join(tmp, 'no-such-client.crt')} of user "u1" (no such file).` });
  });

  it('reports an unreadable kubeconfig with its path and error code only', () => {
    const result = createConnection({ kubeconfig: path.join(tmp, 'missing.yaml') });
    expect(result).toEqual({ ok: false, message: `Cannot load kubeconfig ${path.join(tmp, 'missing.yaml')} (ENOENT).` });
  });

  it('merges several kubeconfig files like kubectl (first one wins)', () => {
    const a = path.join(tmp, 'a.yaml');
    const b = path.join(tmp, 'b.yaml');
    writeFileSync(a, kubeconfig({ current: 'prod' }));
    writeFileSync(
      b,
      stringify({
        apiVersion: 'v1',
        kind: 'Config',
        clusters: [{ name: 'c2', cluster: { server: 'https://10.9.9.9' } }],
        users: [{ name: 'u2', user: { token: 'x' } }],
        contexts: [{ name: 'staging', context: { cluster: 'c2', user: 'u2' } }],
        'current-context': 'staging',
      }),
    );
    const result = createConnection({ kubeconfig: `${a}${path.delimiter}${b}`, context: 'staging' });
    if (!result.ok) throw new Error(result.message);
    expect(result.connection.serverUrl).toBe('https://10.9.9.9');
  });

  it('removes user-info from the displayed URL', () => {
    expect(displayServerUrl('https://admin:pw@k8s.example.com:6443/prefix/?x=1')).toBe('https://k8s.example.com:6443/prefix');
    expect(displayServerUrl('not a url')).toBe('(invalid server URL)');
  });
});

describe('requests', () => {
  it('sends the bearer token, honours a path prefix, and times out a silent server', async () => {
    const seen: { url: string; auth: string }[] = [];
    const server = http.createServer((req, res) => {
      seen.push({ url: req.url ?? '', auth: req.headers.authorization ?? '' });
      if (req.url?.includes('hang')) return; // never answers
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end('{"ok":true}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const result = createConnection({ kubeconfigText: kubeconfig({ server: `http://127.0.0.1:${port}/k8s/clusters/c-1`, skipTls: true }), requestTimeoutMs: 150 });
      if (!result.ok) throw new Error(result.message);
      const response = await result.connection.request({ path: '/api/v1/nodes', query: { limit: 500, continue: undefined } });
      expect(response).toMatchObject({ status: 200, body: '{"ok":true}' });
      expect(seen[0]).toEqual({ url: '/k8s/clusters/c-1/api/v1/nodes?limit=500', auth: `Bearer ${SECRET}` });

      const started = Date.now();
      const failure = await result.connection.request({ path: '/hang' }).then(
        () => null,
        (error: unknown) => error,
      );
      expect(errorFromException(failure).kind).toBe('timeout');
      expect(Date.now() - started).toBeLessThan(1000);
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
