/**
 * `npm run analyze` without `--snapshot`: the live cluster of the kubeconfig's current context,
 * or the Pod's service account in a cluster; `--context` overrides. Against the simulator.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { ClusterAnalysis } from '../lib/topology/report/analysis-schema';
import { loadScenario } from '../sim/scenario';
import type { Simulator } from '../sim/server';
import { startSimulator } from '../sim/server';
import { podEnvironment } from '../sim/test-support';
import { main } from './analyze-cli';

const root = mkdtempSync(path.join(tmpdir(), 'zonescope-analyze-live-'));
const home = path.join(root, 'home');
let sim: Simulator;

beforeAll(async () => {
  mkdirSync(home, { recursive: true });
  sim = await startSimulator({ objects: (await loadScenario('eks-demo')).objects, tls: true, auth: 'token', log: () => undefined });
}, 15_000);
afterEach(() => vi.unstubAllEnvs());
afterAll(async () => {
  await sim.stop();
  rmSync(root, { recursive: true, force: true });
});

/** Only this environment counts for the connection (a developer's own KUBECONFIG or proxy must not). */
function environment(env: Record<string, string>): void {
  for (const name of ['KUBECONFIG', 'ZONESCOPE_CONTEXT', 'ZONESCOPE_SNAPSHOT', 'KUBERNETES_SERVICE_HOST', 'KUBERNETES_SERVICE_PORT', 'ZONESCOPE_SERVICEACCOUNT_DIR', 'HTTPS_PROXY', 'https_proxy']) {
    vi.stubEnv(name, '');
  }
  vi.stubEnv('HOME', home);
  for (const [name, value] of Object.entries(env)) vi.stubEnv(name, value);
}

async function run(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await main(argv, { out: (t) => (out += t), err: (t) => (err += t) });
  return { code, out, err };
}

const zones = (out: string): string[] => (JSON.parse(out) as ClusterAnalysis).cluster.zones.map((z) => z.name);

describe('analyze live mode', () => {
  it('reads the current context when neither --snapshot nor --context is given', async () => {
    environment({ KUBECONFIG: await sim.writeKubeconfig(path.join(root, 'kubeconfig')) });
    const { code, out } = await run('--format', 'json', '--timeout', '20');
    expect(code).toBe(0);
    expect(zones(out)).toEqual(['ap-northeast-2a', 'ap-northeast-2b', 'ap-northeast-2c']);
  });

  it('--context still picks another context', async () => {
    environment({ KUBECONFIG: await sim.writeKubeconfig(path.join(root, 'kubeconfig')) });
    const { code, err } = await run('--context', 'elsewhere', '--timeout', '5');
    expect(code).toBe(3);
    expect(err).toContain('Context "elsewhere" is not in the kubeconfig (contexts: zonescope-sim).');
  });

  it('uses the service account when run in a Pod without a kubeconfig', async () => {
    environment(podEnvironment(sim, path.join(root, 'serviceaccount')));
    const { code, out } = await run('--format', 'json', '--timeout', '20');
    expect(code).toBe(0);
    expect(zones(out)).toEqual(['ap-northeast-2a', 'ap-northeast-2b', 'ap-northeast-2c']);
  });

  it('still refuses --snapshot with --context', async () => {
    const { code, err } = await run('--snapshot', 'fixtures/eks-demo.yaml', '--context', 'x');
    expect(code).toBe(2);
    expect(err).toContain('--snapshot and --context are exclusive');
  });
});
