/**
 * Credential plugins (kubeconfig `exec` users) against the simulator requiring a bearer token:
 * real plugin scripts in a temp folder that succeed, fail with a message, count their runs, wait
 * for a login, print a device code, or return no expirationTimestamp.
 */
import { chmodSync, existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Simulator } from '../../sim/server';
import { startSimulator } from '../../sim/server';
import { service, waitFor } from '../../sim/test-support';
import type { LiveClusterSourceOptions } from './cluster-sources/live-source';
import { LiveClusterSource } from './cluster-sources/live-source';
import type { KubeConnection } from './connection';
import { createConnection } from './connection';
import { errorFromException } from './errors';
import type { ExecCredentialOptions } from './exec-credential/provider';
import { canPatchService, patchServiceAnnotation, readServiceAnnotations } from './mutations';

const TOKEN = 'plugin-issued-token-1';
const running: { stop(): Promise<void> }[] = [];
afterEach(async () => {
  for (const item of running.splice(0).reverse()) await item.stop();
});

async function sim(): Promise<Simulator> {
  const s = await startSimulator({ port: 0, log: () => undefined, requireToken: true, token: TOKEN, objects: [service('web')] });
  running.push(s);
  return s;
}

/** A folder for one test's plugin, its run counter and its token file. */
function workdir(): string {
  return mkdtempSync(join(tmpdir(), 'zonescope-exec-'));
}

/**
 * Writes an executable node script `name` into `dir`. The script counts its runs in `runs` (one
 * line each) and records what it saw (stdin a terminal?, KUBERNETES_EXEC_INFO) in `seen.json`.
 */
function plugin(dir: string, name: string, body: string): string {
  const file = join(dir, name);
  const prelude = [
    `#!${process.execPath}`,
    `const fs = require('node:fs');`,
    `fs.appendFileSync(${JSON.stringify(join(dir, 'runs'))}, 'run\\n');`,
    `fs.writeFileSync(${JSON.stringify(join(dir, 'seen.json'))}, JSON.stringify({ stdinTTY: process.stdin.isTTY === true, info: process.env.KUBERNETES_EXEC_INFO, extra: process.env.EXTRA }));`,
    `const credential = (token, expiresInMs) => JSON.stringify({ apiVersion: 'client.authentication.k8s.io/v1', kind: 'ExecCredential', status: { token, ...(expiresInMs === undefined ? {} : { expirationTimestamp: new Date(Date.now() + expiresInMs).toISOString() }) } });`,
  ];
  writeFileSync(file, `${prelude.join('\n')}\n${body}\n`);
  chmodSync(file, 0o755);
  return file;
}

/**
 * A plugin that issues whatever token `tokenFile` holds (it starts with {@link TOKEN}), claiming it
 * is valid for an hour: rewrite the file to make the next run issue another token.
 */
function fileTokenPlugin(dir: string): { readonly tokenFile: string; readonly command: string } {
  const tokenFile = join(dir, 'token');
  writeFileSync(tokenFile, TOKEN);
  const command = plugin(dir, 'file-token', `process.stdout.write(credential(fs.readFileSync(${JSON.stringify(tokenFile)}, 'utf8'), 3600_000));`);
  return { tokenFile, command };
}

/** Writes an executable `sh` script `name` into `dir`. */
function shellPlugin(dir: string, name: string, body: string): string {
  const file = join(dir, name);
  writeFileSync(file, `#!/bin/sh\n${body}\n`);
  chmodSync(file, 0o755);
  return file;
}

function runs(dir: string): number {
  const file = join(dir, 'runs');
  return existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter((l) => l !== '').length : 0;
}

function kubeconfig(server: string, exec: Record<string, unknown>): string {
  return JSON.stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: 'sim', cluster: { server, 'insecure-skip-tls-verify': true } }],
    users: [{ name: 'plugin-user', user: { exec: { apiVersion: 'client.authentication.k8s.io/v1', interactiveMode: 'Never', ...exec } } }],
    contexts: [{ name: 'sim', context: { cluster: 'sim', user: 'plugin-user' } }],
    'current-context': 'sim',
  });
}

function connect(server: string, exec: Record<string, unknown>, options: ExecCredentialOptions = {}): KubeConnection {
  const result = createConnection({ kubeconfigText: kubeconfig(server, exec), requestTimeoutMs: 3000, exec: { backoff: { initialMs: 200, maxMs: 400 }, ...options } });
  if (!result.ok) throw new Error(result.message);
  return result.connection;
}

function live(connection: KubeConnection, options: LiveClusterSourceOptions = {}): LiveClusterSource {
  const state = new LiveClusterSource(connection, { informer: { backoff: { initialMs: 20, maxMs: 100 }, listTimeoutMs: 3000 }, ...options });
  running.push(state);
  state.start();
  return state;
}

/** When each run of a shell plugin that appends `date +%s%3N` to `runs` started (ms since the epoch). */
function runTimes(dir: string): number[] {
  return readFileSync(join(dir, 'runs'), 'utf8')
    .split('\n')
    .filter((l) => l !== '')
    .map(Number);
}

describe('credential plugins', () => {
  it('runs the plugin once for every informer and the writes, non-interactively, and caches the credential until it expires', { timeout: 15_000 }, async () => {
    const s = await sim();
    const dir = workdir();
    const command = plugin(dir, 'issue-token', `process.stdout.write(credential(${JSON.stringify(TOKEN)}, 3600_000));`);
    const connection = connect(s.url, { command, env: [{ name: 'EXTRA', value: 'from-kubeconfig' }] });
    const state = live(connection);
    const ok = await state.waitForSync(8000);
    if (!ok) console.log(JSON.stringify(state.statuses().map((x) => [x.id, x.health, x.error])));
    expect(ok).toBe(true);
    // Ten informers, the version lookup, a read and two generated-client calls: one run.
    expect(await readServiceAnnotations(connection, 'default', 'web')).toMatchObject({ ok: true });
    expect(await canPatchService(connection, 'default', 'web')).toMatchObject({ ok: true });
    const read = await readServiceAnnotations(connection, 'default', 'web');
    if (!read.ok) throw new Error(read.error.message);
    expect(await patchServiceAnnotation(connection, 'default', 'web', 'example.com/owner', 'sre', read.resourceVersion)).toMatchObject({ ok: true });
    expect(runs(dir)).toBe(1);
    // Serialising the connection shows neither the token nor the plugin's environment.
    expect(JSON.stringify({ ...connection, kubeConfig: undefined })).not.toMatch(new RegExp(`${TOKEN}|from-kubeconfig`));
    const seen = JSON.parse(readFileSync(join(dir, 'seen.json'), 'utf8')) as { stdinTTY: boolean; info: string; extra: string };
    expect(seen.stdinTTY).toBe(false);
    expect(seen.extra).toBe('from-kubeconfig');
    expect(JSON.parse(seen.info)).toEqual({ apiVersion: 'client.authentication.k8s.io/v1', kind: 'ExecCredential', spec: { interactive: false } });
  });

  it('runs a plugin that gives no expirationTimestamp once, and an abort while it is still running neither crashes nor runs it again', { timeout: 15_000 }, async () => {
    const s = await sim();
    const dir = workdir();
    const command = plugin(dir, 'slow-token', `setTimeout(() => process.stdout.write(credential(${JSON.stringify(TOKEN)})), 700);`);
    const connection = connect(s.url, { command });
    const controller = new AbortController();
    const aborted = connection.request({ path: '/version', signal: controller.signal });
    const other = connection.request({ path: '/api/v1/namespaces/default/services/web' });
    // Abort once the plugin runs (it takes 700 ms to answer).
    await waitFor(() => runs(dir) === 1, 5000, 'the plugin to start');
    controller.abort();
    await expect(aborted).rejects.toMatchObject({ name: 'AbortError' });
    expect(errorFromException(await aborted.catch((e: unknown) => e)).kind).toBe('timeout');
    // The run goes on for the other caller.
    expect((await other).status).toBe(200);
    for (let i = 0; i < 5; i++) expect((await connection.request({ path: '/version' })).status).toBe(200);
    // An abort signalled before the request starts fails it at once, also without a run.
    const already = new AbortController();
    already.abort();
    await expect(connection.request({ path: '/version', signal: already.signal })).rejects.toMatchObject({ name: 'AbortError' });
    expect(runs(dir)).toBe(1);
  });

  it('shows the message of a failing aws plugin, its command and the login to run, fails the first sync at once, and backs off', { timeout: 15_000 }, async () => {
    const s = await sim();
    const dir = workdir();
    // A shell script (starts in milliseconds, so only the backoff keeps the runs down).
    const command = shellPlugin(dir, 'aws', `date +%s%3N >> "${join(dir, 'runs')}"; printf '\\nError loading SSO Token: Token for dev does not exist\\n' >&2; exit 255`);
    const connection = connect(s.url, { command, args: ['eks', 'get-token', '--cluster-name', 'prod', '--profile', 'dev'] });
    const started = Date.now();
    const state = live(connection);
    expect(await state.waitForSync(60_000)).toBe(false);
    expect(Date.now() - started).toBeLessThan(2000);
    const message = state.status('services').error?.message ?? '';
    expect(message).toContain('Error loading SSO Token: Token for dev does not exist');
    expect(message).toContain(`"${command} eks get-token --cluster-name prod --profile dev" failed (exit code 255)`);
    expect(message).toContain('Run `aws sso login --profile dev` in a terminal');
    expect(state.status('services').error?.permanent).toBe(true);
    // Ten informers retry every 20–100 ms; the plugin runs again only after its own backoff (200,
    // then 400 ms after each failure): it does run again, and never sooner.
    await waitFor(() => runs(dir) >= 3, 5000, 'two more runs of the plugin');
    const [first, second, third] = runTimes(dir) as [number, number, number];
    expect(second - first).toBeGreaterThanOrEqual(200);
    expect(third - second).toBeGreaterThanOrEqual(400);
  });

  it('says how to install a missing gke-gcloud-auth-plugin, with the kubeconfig installHint', { timeout: 10_000 }, async () => {
    const s = await sim();
    const missing = join(workdir(), 'gke-gcloud-auth-plugin');
    const connection = connect(s.url, { command: missing, installHint: 'Install gke-gcloud-auth-plugin for use with kubectl.' });
    const state = live(connection);
    expect(await state.waitForSync(60_000)).toBe(false);
    const message = state.status('nodes').error?.message ?? '';
    expect(message).toContain(`The credential plugin "${missing}" was not found (ENOENT)`);
    expect(message).toContain('gcloud components install gke-gcloud-auth-plugin');
    expect(message).toContain('The kubeconfig says: Install gke-gcloud-auth-plugin for use with kubectl.');
  });

  it('surfaces the device-code login a kubelogin plugin waits for, at once, and gives up after the time limit', { timeout: 15_000 }, async () => {
    const s = await sim();
    const dir = workdir();
    const command = plugin(
      dir,
      'kubelogin',
      `process.stderr.write('To sign in, use a web browser to open the page https://microsoft.com/devicelogin and enter the code FJQ2XKL9P to authenticate.\\n'); setInterval(() => undefined, 1000);`,
    );
    const connection = connect(s.url, { command, args: ['get-token', '--login', 'devicecode'] }, { timeoutMs: 3000 });
    const started = Date.now();
    const state = live(connection, { resources: ['services'] });
    expect(await state.waitForSync(60_000)).toBe(false);
    expect(Date.now() - started).toBeLessThan(2500);
    const prompt = state.status('services').error?.message ?? '';
    expect(prompt).toContain('is waiting for an interactive login');
    expect(prompt).toContain('https://microsoft.com/devicelogin and enter the code FJQ2XKL9P');
    expect(prompt).toContain('`az login`');
    expect(prompt).toContain('`kubelogin convert-kubeconfig -l azurecli`');
    // After the time limit the plugin is stopped and the message says to log in in a terminal first.
    await waitFor(() => (state.status('services').error?.message ?? '').includes('did not finish within 3 s'), 5000, 'the time limit');
    const timedOut = state.status('services').error?.message ?? '';
    expect(timedOut).toContain('It printed: "To sign in');
    expect(timedOut).toContain('Log in first in a terminal');
  });

  it('does not take a URL in a warning of a plugin that then returns a credential for a login prompt', { timeout: 10_000 }, async () => {
    const s = await sim();
    const dir = workdir();
    const command = plugin(dir, 'noisy-token', `process.stderr.write('warning: see https://docs.example.com/auth for the new flags\\n'); setTimeout(() => process.stdout.write(credential(${JSON.stringify(TOKEN)}, 3600_000)), 100);`);
    const state = live(connect(s.url, { command }), { resources: ['services'] });
    expect(await state.waitForSync(5000)).toBe(true);
    expect(state.status('services').health).toBe('synced');
    expect(runs(dir)).toBe(1);
  });

  it('stops a plugin that waits for input without printing anything when its time limit is up', { timeout: 10_000 }, async () => {
    const s = await sim();
    const dir = workdir();
    // Reads stdin (not a terminal: it gets end-of-file at once), then hangs in a child process that keeps its pipes open.
    const command = shellPlugin(dir, 'prompt-for-password', `echo run >> "${join(dir, 'runs')}"; read answer; sleep 30 & echo $! > "${join(dir, 'child.pid')}"; wait`);
    const connection = connect(s.url, { command }, { timeoutMs: 500, backoff: { initialMs: 5000, maxMs: 5000 } });
    const started = Date.now();
    await expect(connection.request({ path: '/version' })).rejects.toMatchObject({ error: { kind: 'unauthorized', permanent: true } });
    expect(Date.now() - started).toBeLessThan(2500);
    const error = await connection.request({ path: '/version' }).catch((e: unknown) => errorFromException(e));
    expect(error).toMatchObject({ message: expect.stringContaining('did not finish within 1 s; it is probably waiting for an interactive login') });
    expect(runs(dir)).toBe(1);
    // What the plugin started is stopped with it.
    const child = Number(readFileSync(join(dir, 'child.pid'), 'utf8'));
    const alive = (): boolean => {
      try {
        process.kill(child, 0);
        return true;
      } catch {
        return false;
      }
    };
    await waitFor(() => !alive(), 3000, 'the plugin\'s child process to be stopped');
  });

  it('refuses interactiveMode: Always without running the plugin', async () => {
    const s = await sim();
    const dir = workdir();
    const command = plugin(dir, 'interactive', `process.stdout.write(credential('x'));`);
    const connection = connect(s.url, { command, interactiveMode: 'Always' });
    const error = await connection.request({ path: '/version' }).catch((e: unknown) => errorFromException(e));
    expect(error).toMatchObject({ kind: 'unauthorized', message: expect.stringContaining('requires an interactive terminal (interactiveMode: Always)') });
    expect(runs(dir)).toBe(0);
  });

  it('a write (generated client) that gets a 401 runs the shared plugin once more and succeeds', { timeout: 10_000 }, async () => {
    const s = await sim();
    const dir = workdir();
    const { tokenFile, command } = fileTokenPlugin(dir);
    const connection = connect(s.url, { command });
    const read = await readServiceAnnotations(connection, 'default', 'web');
    if (!read.ok) throw new Error(read.error.message);
    s.rotateToken('plugin-issued-token-2');
    writeFileSync(tokenFile, 'plugin-issued-token-2');
    expect(await patchServiceAnnotation(connection, 'default', 'web', 'example.com/owner', 'sre', read.resourceVersion)).toMatchObject({ ok: true, annotations: { 'example.com/owner': 'sre' } });
    expect(runs(dir)).toBe(2);
    // The raw requests use the refreshed credential too.
    expect((await connection.request({ path: '/api/v1/namespaces/default/services/web' })).status).toBe(200);
    expect(runs(dir)).toBe(2);
  });

  it('on a 401 drops the credential, runs the plugin once more and retries; a second 401 is reported with the command', { timeout: 15_000 }, async () => {
    const s = await sim();
    const dir = workdir();
    // The credential claims to be valid for an hour.
    const { tokenFile, command } = fileTokenPlugin(dir);
    const connection = connect(s.url, { command });
    const state = live(connection, { resources: ['services'] });
    expect(await state.waitForSync(5000)).toBe(true);
    expect(runs(dir)).toBe(1);

    // 1. The server revokes the token before its expirationTimestamp; the plugin would issue a new one.
    s.rotateToken('plugin-issued-token-2');
    writeFileSync(tokenFile, 'plugin-issued-token-2');
    s.faults.dropWatches();
    s.store.create('services', service('api'));
    await waitFor(() => state.index().servicesByKey.has('default/api'), 3000, 'the watch to come back with the new token');
    expect(runs(dir)).toBe(2);

    // 2. The new token is refused too: one refresh, one retry, then the message names the command.
    s.rotateToken('plugin-issued-token-3');
    const error = await connection.request({ path: '/api/v1/services' }).catch((e: unknown) => errorFromException(e));
    expect(error).toMatchObject({ kind: 'unauthorized', permanent: true });
    expect(error).toMatchObject({ message: expect.stringContaining(`The API server rejected the credentials from the credential plugin "${command}" (401 Unauthorized), also after running it again.`) });
    expect(runs(dir)).toBe(3);
    // Further requests within the backoff do not run the plugin again.
    await connection.request({ path: '/api/v1/services' }).catch(() => undefined);
    expect(runs(dir)).toBe(3);
  });
});
