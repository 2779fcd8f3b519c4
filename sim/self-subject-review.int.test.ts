/**
 * `kubectl auth whoami` against the simulator: the SelfSubjectReview names the user the simulator's
 * RBAC knows, with its groups, even for a user allowed nothing else. Skipped when kubectl is not
 * installed (set KUBECTL to use another binary).
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Simulator } from './server';
import { startSimulator } from './server';

const KUBECTL = process.env.KUBECTL ?? '/usr/bin/kubectl';

describe.skipIf(!existsSync(KUBECTL))('kubectl auth whoami against the simulator', () => {
  let sim: Simulator;
  let dir: string;
  let kubeconfig: string;

  const whoami = (): Promise<{ code: number; stdout: string; stderr: string }> =>
    new Promise((resolve) => {
      execFile(
        KUBECTL,
        [`--kubeconfig=${kubeconfig}`, `--cache-dir=${path.join(dir, 'cache')}`, '--request-timeout=10s', 'auth', 'whoami', '-o', 'json'],
        { env: { ...process.env, HOME: dir, KUBECONFIG: '' }, timeout: 20_000 },
        (error, stdout, stderr) => resolve({ code: error === null ? 0 : typeof error.code === 'number' ? error.code : 1, stdout, stderr }),
      );
    });

  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'sim-whoami-'));
    sim = await startSimulator({ port: 0, log: () => undefined });
    kubeconfig = await sim.writeKubeconfig(path.join(dir, 'kubeconfig'));
  });

  afterAll(async () => {
    await sim.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it('names the default service account with its groups', async () => {
    const run = await whoami();
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const review = JSON.parse(run.stdout) as { kind: string; apiVersion: string; status: { userInfo: { username: string; groups: string[] } } };
    expect(review).toMatchObject({ kind: 'SelfSubjectReview', apiVersion: 'authentication.k8s.io/v1' });
    expect(review.status.userInfo).toEqual({ username: 'system:serviceaccount:zonescope:zonescope', groups: ['system:serviceaccounts', 'system:serviceaccounts:zonescope', 'system:authenticated'] });
  });

  it('answers a user whom RBAC allows nothing else', async () => {
    sim.faults.setRbac({ user: 'alice@example.com', allow: [] });
    const run = await whoami();
    expect(run.code).toBe(0);
    expect((JSON.parse(run.stdout) as { status: { userInfo: { username: string } } }).status.userInfo.username).toBe('alice@example.com');
  });
});
