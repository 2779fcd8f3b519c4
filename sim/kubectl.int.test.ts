/**
 * The real kubectl against the simulator (through a generated kubeconfig). Skipped only when
 * kubectl is not installed (set KUBECTL to use another binary).
 */
import { execFile, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadScenario, parseScenario } from './scenario';
import type { Simulator } from './server';
import { startSimulator } from './server';
import { endpointSlice, event, service, waitFor } from './test-support';
import type { KubeObject } from './types';

const KUBECTL = process.env.KUBECTL ?? '/usr/bin/kubectl';
/** A fixed clock, so AGE columns of two simulators compare equal. */
const now = (): Date => new Date('2025-06-01T12:00:00Z');

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

describe.skipIf(!existsSync(KUBECTL))('kubectl against the simulator', () => {
  let sim: Simulator;
  let dir: string;
  let kubeconfig: string;

  function kubectlWith(config: string, args: string[]): Promise<Run> {
    return new Promise((resolve) => {
      execFile(
        KUBECTL,
        [`--kubeconfig=${config}`, `--cache-dir=${path.join(dir, 'cache')}`, '--request-timeout=10s', ...args],
        { env: { ...process.env, HOME: dir, KUBECONFIG: '' }, timeout: 20_000 },
        (error, stdout, stderr) => {
          const code = error === null ? 0 : typeof error.code === 'number' ? error.code : 1;
          resolve({ code, stdout, stderr });
        },
      );
    });
  }

  const kubectl = (...args: string[]): Promise<Run> => kubectlWith(kubeconfig, args);

  async function ok(...args: string[]): Promise<string> {
    const run = await kubectl(...args);
    if (run.code !== 0) throw new Error(`kubectl ${args.join(' ')} failed (${run.code}): ${run.stderr}`);
    return run.stdout;
  }

  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'sim-kubectl-'));
    sim = await startSimulator({ port: 0, objects: (await loadScenario('tiny')).objects, log: () => undefined, now });
    kubeconfig = await sim.writeKubeconfig(path.join(dir, 'kubeconfig'));
  });

  afterAll(async () => {
    await sim.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it('get nodes -L topology.kubernetes.io/zone shows the zone column', async () => {
    const lines = (await ok('get', 'nodes', '-L', 'topology.kubernetes.io/zone')).trim().split('\n');
    expect(lines[0]).toMatch(/^NAME\s+STATUS\s+ROLES\s+AGE\s+VERSION\s+ZONE$/);
    expect(lines.slice(1).map((l) => l.split(/\s+/))).toEqual([
      ['node-a', 'Ready', '<none>', '151d', 'v1.31.4', 'us-east-1a'],
      ['node-b', 'Ready', '<none>', '151d', 'v1.31.4', 'us-east-1b'],
      ['node-c', 'Ready', '<none>', '151d', 'v1.31.4', 'us-east-1c'],
    ]);
  });

  it('get svc -A and get endpointslices -A', async () => {
    const svc = (await ok('get', 'svc', '-A')).trim().split('\n');
    expect(svc[0]).toMatch(/^NAMESPACE\s+NAME\s+TYPE\s+CLUSTER-IP\s+EXTERNAL-IP\s+PORT\(S\)\s+AGE$/);
    expect(svc[1]).toMatch(/^default\s+web\s+ClusterIP\s+10\.96\.0\.100\s+<none>\s+80\/TCP\s+\S+$/);

    sim.store.create('endpointslices', endpointSlice('web-x7k2p', 'default', 'web', [['10.0.1.20', 'us-east-1a'], ['10.0.2.20', 'us-east-1b']]));
    const slices = (await ok('get', 'endpointslices', '-A')).trim().split('\n');
    expect(slices[0]).toMatch(/^NAMESPACE\s+NAME\s+ADDRESSTYPE\s+PORTS\s+ENDPOINTS\s+AGE$/);
    expect(slices[1]).toMatch(/^default\s+web-x7k2p\s+IPv4\s+8080\s+10\.0\.1\.20,10\.0\.2\.20\s+\S+$/);
  });

  it('describe svc shows the Service and its events', async () => {
    const uid = sim.store.get('services', 'default', 'web')?.metadata.uid;
    sim.store.create('events', event('web.hints', 'default', { kind: 'Service', name: 'web', ...(uid ? { uid } : {}) }, 'TopologyAwareHintsEnabled'));
    const out = await ok('describe', 'svc', 'web');
    expect(out).toMatch(/^Name:\s+web$/m);
    expect(out).toMatch(/^Selector:\s+app=web$/m);
    expect(out).toMatch(/^IP:\s+10\.96\.0\.100$/m);
    expect(out).toMatch(/Normal\s+TopologyAwareHintsEnabled\s+.*TopologyAwareHintsEnabled happened/);
    expect(await ok('describe', 'node', 'node-a')).toMatch(/topology\.kubernetes\.io\/zone=us-east-1a/);
  });

  it('annotate svc then read the annotation back with jsonpath', async () => {
    expect(await ok('annotate', 'svc', 'web', 'service.kubernetes.io/topology-mode=Auto')).toContain('service/web annotated');
    expect(await ok('get', 'svc', 'web', '-o', 'jsonpath={.metadata.annotations.service\\.kubernetes\\.io/topology-mode}')).toBe('Auto');
    expect(sim.store.get('services', 'default', 'web')?.metadata.annotations).toMatchObject({ 'service.kubernetes.io/topology-mode': 'Auto' });
  });

  it('scale deploy stores the new replica count through the scale subresource', async () => {
    const before = sim.stats.count('patch', 'deployments/scale');
    expect(await ok('scale', 'deploy', 'web', '--replicas=5')).toContain('deployment.apps/web scaled');
    const stored = sim.store.get('deployments', 'default', 'web');
    expect(stored?.spec).toMatchObject({ replicas: 5 });
    expect(stored?.metadata.generation).toBe(2);
    expect(sim.stats.count('patch', 'deployments/scale')).toBe(before + 1);
  });

  it('get -w prints objects as they change', async () => {
    const child = spawn(KUBECTL, [`--kubeconfig=${kubeconfig}`, `--cache-dir=${path.join(dir, 'cache')}`, 'get', 'svc', '-w'], {
      env: { ...process.env, HOME: dir, KUBECONFIG: '' },
    });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
    });
    const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
    try {
      await waitFor(() => out.includes('web') && sim.stats.openWatches('services') === 1, 10_000, 'kubectl to list and watch');
      sim.store.create('services', service('watched'));
      await waitFor(() => out.includes('watched'), 10_000, 'the new service in kubectl output');
      expect(out.split('\n')[0]).toMatch(/^NAME\s+TYPE\s+CLUSTER-IP/);
      expect(out).toMatch(/^watched\s+ClusterIP\s+/m);
    } finally {
      child.kill('SIGTERM');
      await exited;
    }
    sim.store.delete('services', 'default', 'watched');
  });

  it('auth can-i and Forbidden errors follow the RBAC configuration', async () => {
    sim.faults.deny({ verb: 'patch', resource: 'services' });
    try {
      const denied = await kubectl('auth', 'can-i', 'patch', 'services');
      expect(denied.stdout.trim()).toBe('no');
      expect(denied.code).toBe(1);
      expect((await kubectl('auth', 'can-i', 'get', 'services')).stdout.trim()).toBe('yes');
      const annotate = await kubectl('annotate', 'svc', 'web', 'x=y');
      expect(annotate.code).not.toBe(0);
      expect(annotate.stderr).toContain('Error from server (Forbidden): services "web" is forbidden: User "system:serviceaccount:zonescope:zonescope" cannot patch resource "services"');
    } finally {
      sim.faults.resetRbac();
    }
  });

  it('a -o yaml dump loads back as a snapshot that kubectl sees the same way', async () => {
    const kinds = 'nodes,services,endpointslices,pods,deployments,replicasets,hpa,events';
    const dump = await ok('get', kinds, '-A', '-o', 'yaml');
    const scenario = parseScenario(dump, 'dump.yaml', { unknownKinds: 'error' });
    const key = (o: KubeObject) => `${o.kind}/${o.metadata.namespace ?? ''}/${o.metadata.name}`;
    const stored = (['nodes', 'services', 'endpointslices', 'pods', 'deployments', 'replicasets', 'horizontalpodautoscalers', 'events'] as const)
      .flatMap((r) => sim.store.all(r));
    expect(scenario.objects.map(key).sort()).toEqual(stored.map(key).sort());
    for (const object of scenario.objects) {
      const original = stored.find((o) => key(o) === key(object));
      expect(object.metadata.labels).toEqual(original?.metadata.labels);
      expect(object.spec).toEqual(original?.spec);
    }

    const copy = await startSimulator({ port: 0, objects: scenario.objects, log: () => undefined, now });
    try {
      const copyConfig = await copy.writeKubeconfig(path.join(dir, 'copy-kubeconfig'));
      const view = ['get', 'nodes,svc,deploy,rs,pods,endpointslices', '-A', '-L', 'topology.kubernetes.io/zone'];
      const a = await kubectl(...view);
      const b = await kubectlWith(copyConfig, view);
      expect(b.code).toBe(0);
      expect(b.stdout).toBe(a.stdout);
      const owner = copy.store.get('replicasets', 'default', 'web-6d8f9c7b5')?.metadata.ownerReferences?.[0]?.uid;
      expect(owner).toBe(copy.store.get('deployments', 'default', 'web')?.metadata.uid);
    } finally {
      await copy.stop();
    }
  });
});
