/**
 * KUBECONFIG lists and the file references inside them, as kubectl reads them, against the
 * simulator over real HTTP(S): missing and empty files skipped, `tokenFile` honoured and re-read,
 * relative exec commands and certificate paths resolved against the folder of the file that
 * names them (the tests run from the project folder, elsewhere).
 */
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { stringify } from 'yaml';
import type { Simulator, SimulatorOptions } from '../../sim/server';
import { startSimulator } from '../../sim/server';
import { node } from '../../sim/test-support';
import { createConnection } from './connection';

const root = mkdtempSync(path.join(tmpdir(), 'zonescope-kubeconfig-files-'));
const running: Simulator[] = [];
afterEach(async () => {
  vi.useRealTimers();
  vi.unstubAllEnvs();
  for (const sim of running.splice(0)) await sim.stop();
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

async function start(options: SimulatorOptions = {}): Promise<Simulator> {
  const sim = await startSimulator({ objects: [node('node-a', 'zone-a')], log: () => undefined, ...options });
  running.push(sim);
  return sim;
}

function folder(name: string): string {
  const dir = path.join(root, name);
  mkdirSync(dir, { recursive: true });
  return dir;
}

/** A kubeconfig with one cluster, user and context named `name`. */
function kubeconfig(name: string, cluster: Record<string, unknown>, user: Record<string, unknown>, current: string | undefined = name): string {
  return stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name, cluster }],
    users: [{ name, user }],
    contexts: [{ name, context: { cluster: name, user: name } }],
    ...(current !== undefined ? { 'current-context': current } : {}),
  });
}

async function status(list: string): Promise<number> {
  const result = createConnection({ kubeconfig: list, requestTimeoutMs: 5000, proxyEnv: {} });
  if (!result.ok) throw new Error(result.message);
  return (await result.connection.request({ path: '/api/v1/nodes' })).status;
}

const join = (...files: string[]): string => files.join(path.delimiter);

describe('KUBECONFIG lists', () => {
  it('skips missing and empty files, as kubectl does', async () => {
    const sim = await start({ requireToken: true, token: 'list-token' });
    const dir = folder('list');
    const empty = path.join(dir, 'empty.yaml');
    const comments = path.join(dir, 'comments.yaml');
    const real = path.join(dir, 'real.yaml');
    writeFileSync(empty, '');
    writeFileSync(comments, '# nothing here yet\n');
    writeFileSync(real, kubeconfig('sim', { server: sim.url, 'insecure-skip-tls-verify': true }, { token: 'list-token' }));
    expect(await status(join(path.join(dir, 'missing.yaml'), empty, comments, real))).toBe(200);
  });

  it('names the files when none of them exists, and says when no context is left', () => {
    const a = path.join(root, 'nope-a.yaml');
    const b = path.join(root, 'nope-b.yaml');
    expect(createConnection({ kubeconfig: join(a, b) })).toEqual({ ok: false, message: `Cannot load the kubeconfig: none of its files exists (${a}, ${b}).` });
    expect(createConnection({ kubeconfig: a })).toEqual({ ok: false, message: `Cannot load kubeconfig ${a} (ENOENT).` });
    // A folder mounted where the file was expected (a Secret volume mounted at the file's path).
    const dir = folder('a-folder');
    expect(createConnection({ kubeconfig: dir })).toEqual({ ok: false, message: `Cannot load kubeconfig ${dir} (EISDIR): it is a folder, not a file.` });
    const empty = path.join(folder('empty-only'), 'config');
    writeFileSync(empty, '\n');
    expect(createConnection({ kubeconfig: join(a, empty) })).toEqual({ ok: false, message: 'The kubeconfig has no current context; choose one with ZONESCOPE_CONTEXT.' });
  });

  it('reports a file that is not YAML, naming it and not its content', () => {
    const bad = path.join(folder('bad'), 'config');
    writeFileSync(bad, 'users: [\n  token: secret-looking-value\n');
    expect(createConnection({ kubeconfig: bad })).toEqual({ ok: false, message: `Cannot load kubeconfig ${bad}: it is not valid YAML.` });
    writeFileSync(bad, stringify({ clusters: [{ name: 'c', cluster: {} }] }));
    expect(createConnection({ kubeconfig: bad })).toEqual({ ok: false, message: `Cannot load kubeconfig ${bad}: clusters[0].cluster.server is missing.` });
  });
});

describe('tokenFile', () => {
  it('is honoured (over token), relative to its kubeconfig, and re-read every minute so rotation works', { timeout: 15_000 }, async () => {
    const sim = await start({ requireToken: true, token: 'file-token-1' });
    const dir = folder('token-file');
    writeFileSync(path.join(dir, 'token'), 'file-token-1\n');
    const file = path.join(dir, 'config');
    writeFileSync(file, kubeconfig('sim', { server: sim.url, 'insecure-skip-tls-verify': true }, { tokenFile: 'token', token: 'stale-static-token' }));
    const result = createConnection({ kubeconfig: file, requestTimeoutMs: 5000, proxyEnv: {} });
    if (!result.ok) throw new Error(result.message);
    const { connection } = result;
    expect((await connection.request({ path: '/api/v1/nodes' })).status).toBe(200);

    // The token rotates: refused until the file is read again (at most a minute, as client-go).
    sim.rotateToken('file-token-2');
    writeFileSync(path.join(dir, 'token'), 'file-token-2\n');
    expect((await connection.request({ path: '/api/v1/nodes' })).status).toBe(401);
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(new Date(Date.now() + 61_000));
    expect((await connection.request({ path: '/api/v1/nodes' })).status).toBe(200);
  });
});

describe('exec commands', () => {
  function plugin(file: string, token: string): void {
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(
      file,
      `#!${process.execPath}\nprocess.stdout.write(JSON.stringify({ apiVersion: 'client.authentication.k8s.io/v1', kind: 'ExecCredential', status: { token: ${JSON.stringify(token)} } }));\n`,
    );
    chmodSync(file, 0o755);
  }
  const exec = (command: string) => ({ exec: { apiVersion: 'client.authentication.k8s.io/v1', command, interactiveMode: 'Never' } });

  it('resolves a relative command with a path separator against the kubeconfig folder', async () => {
    const sim = await start({ requireToken: true, token: 'exec-relative' });
    const dir = folder('exec-relative');
    plugin(path.join(dir, 'bin', 'get-token'), 'exec-relative');
    const file = path.join(dir, 'config');
    writeFileSync(file, kubeconfig('sim', { server: sim.url, 'insecure-skip-tls-verify': true }, exec('./bin/get-token')));
    expect(process.cwd()).not.toBe(dir);
    expect(await status(file)).toBe(200);
  });

  it('looks a bare command name up in PATH, not in the kubeconfig folder', async () => {
    const sim = await start({ requireToken: true, token: 'exec-bare' });
    const dir = folder('exec-bare');
    const binDir = folder('exec-bare-bin');
    plugin(path.join(binDir, 'zonescope-test-get-token'), 'exec-bare');
    plugin(path.join(dir, 'zonescope-test-get-token'), 'wrong-token-from-kubeconfig-folder');
    const file = path.join(dir, 'config');
    writeFileSync(file, kubeconfig('sim', { server: sim.url, 'insecure-skip-tls-verify': true }, exec('zonescope-test-get-token')));
    vi.stubEnv('PATH', `${binDir}${path.delimiter}${process.env.PATH ?? ''}`);
    expect(await status(file)).toBe(200);
  });
});

describe('certificate paths', () => {
  // The first TLS simulator of this file makes the RSA keys: allow for a busy machine.
  it('resolves relative certificate-authority, client-certificate and client-key against the file that names them', { timeout: 15_000 }, async () => {
    const sim = await start({ tls: true, auth: 'client-cert' });
    const first = folder('certs-first');
    const second = folder('certs-second');
    mkdirSync(path.join(second, 'pki'), { recursive: true });
    writeFileSync(path.join(second, 'pki', 'ca.crt'), sim.caCertificate ?? '');
    writeFileSync(path.join(second, 'pki', 'client.crt'), sim.clientCertificate?.certificate ?? '');
    writeFileSync(path.join(second, 'pki', 'client.key'), sim.clientCertificate?.key ?? '');
    // The first file only chooses the context; the second defines it with paths relative to itself.
    writeFileSync(path.join(first, 'config'), stringify({ apiVersion: 'v1', kind: 'Config', 'current-context': 'tls' }));
    writeFileSync(
      path.join(second, 'config'),
      kubeconfig('tls', { server: sim.url, 'certificate-authority': 'pki/ca.crt' }, { 'client-certificate': 'pki/client.crt', 'client-key': './pki/client.key' }, 'ignored'),
    );
    expect(await status(join(path.join(first, 'config'), path.join(second, 'config')))).toBe(200);
  });
});
