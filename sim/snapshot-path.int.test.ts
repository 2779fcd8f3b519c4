/**
 * `npm run sim -- --snapshot FOLDER`: the folder's dump files merged into one served cluster
 * (checked over HTTP), an object given in two files refused naming both, a support bundle's
 * `kubectl version` output read for the version, and a dump taken mid-rollout served as it is.
 */
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { stringify } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultControllers } from './default-controllers';
import { loadScenarioPath } from './snapshot-path';
import { ScenarioError } from './scenario';
import { startSimulator } from './server';
import { node, service, waitFor } from './test-support';
import type { KubeObject } from './types';

const PROJECT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'sim-snapshot-folder-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function folder(name: string, files: Record<string, string>): Promise<string> {
  const root = path.join(dir, name);
  for (const [file, text] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(root, file)), { recursive: true });
    await writeFile(path.join(root, file), text);
  }
  return root;
}

describe('--snapshot FOLDER', () => {
  it('loadScenarioPath merges the files in name order, with the ServerVersion of any of them', async () => {
    const root = await folder('merge', {
      'b/services.json': JSON.stringify({ apiVersion: 'v1', kind: 'List', items: [service('web', 'shop')] }),
      'a-nodes.yaml': `${stringify(node('n1', 'z1'))}---\n${stringify(node('n2', 'z2'))}`,
      'version.yaml': stringify({ apiVersion: 'zonescope.dev/v1', kind: 'ServerVersion', gitVersion: 'v1.30.2' }),
      'README.md': '# not read',
    });
    const scenario = await loadScenarioPath(root);
    expect(scenario.objects.map((o) => `${o.kind}/${o.metadata.name}`)).toEqual(['Node/n1', 'Node/n2', 'Service/web']);
    expect(scenario.serverVersion).toBe('v1.30.2');
  });

  it('refuses an object given in two files, naming both, and an empty folder', async () => {
    const root = await folder('dups', { '1.yaml': stringify(node('n1', 'z1')), '2.json': JSON.stringify(node('n1', 'z1')) });
    const error = await loadScenarioPath(root).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ScenarioError);
    expect((error as ScenarioError).message).toContain(`Node "n1" is given twice: in ${path.join(root, '1.yaml')} and in ${path.join(root, '2.json')}; keep one of them`);
    const empty = await folder('empty', { 'notes.txt': 'x' });
    expect(((await loadScenarioPath(empty).catch((e: unknown) => e)) as Error).message).toContain('no .yaml, .yml or .json files found');
  });

  it('the CLI serves the merged folder over HTTP', async () => {
    const root = await folder('served', {
      'nodes.yaml': `${stringify(node('n1', 'z1'))}---\n${stringify(node('n2', 'z2'))}`,
      'svc/web.json': JSON.stringify(service('web', 'shop')),
    });
    const child: ChildProcessWithoutNullStreams = spawn(process.execPath, ['--import', 'tsx', 'sim/cli.ts', '--snapshot', root, '--port', '0', '--kubeconfig', path.join(dir, 'kubeconfig')], { cwd: PROJECT });
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
    const exit = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    try {
      await waitFor(() => out.includes('export KUBECONFIG=') || err.includes('sim:'), 30_000, 'the simulator to start');
      expect(err).toBe('');
      expect(out).toContain(`serving snapshot ${root} (3 objects)`);
      const url = /at (https?:\/\/127\.0\.0\.1:\d+)/.exec(out)?.[1] ?? '';
      const nodes = (await (await fetch(`${url}/api/v1/nodes`)).json()) as { items: { metadata: { name: string } }[] };
      expect(nodes.items.map((n) => n.metadata.name).sort()).toEqual(['n1', 'n2']);
      const services = (await (await fetch(`${url}/api/v1/namespaces/shop/services`)).json()) as { items: { metadata: { name: string } }[] };
      expect(services.items.map((s) => s.metadata.name)).toEqual(['web']);
    } finally {
      child.kill('SIGTERM');
      await exit;
    }
  }, 40_000);

  it('reads a support bundle\'s `kubectl version -o yaml|json` output: its serverVersion is served unless a ServerVersion document names one', async () => {
    const kubectlVersion = {
      clientVersion: { major: '1', minor: '31', gitVersion: 'v1.31.2', gitCommit: '5864a4677267e6adeae276ad85882a8714d69d9d', platform: 'linux/amd64' },
      kustomizeVersion: 'v5.4.2',
      serverVersion: { major: '1', minor: '30+', gitVersion: 'v1.30.5-eks-ce1d5eb', gitCommit: '0e2b2b8f', platform: 'linux/amd64' },
    };
    const bundle = await folder('bundle', { 'cluster.yaml': stringify(node('n1', 'z1')), 'version.yaml': stringify(kubectlVersion) });
    expect((await loadScenarioPath(bundle)).serverVersion).toBe('v1.30.5-eks-ce1d5eb');
    // As JSON, and the raw /version (`kubectl get --raw /version`) too.
    const json = await folder('bundle-json', { 'cluster.json': JSON.stringify(node('n1', 'z1')), 'version.json': JSON.stringify(kubectlVersion) });
    expect((await loadScenarioPath(json)).serverVersion).toBe('v1.30.5-eks-ce1d5eb');
    const raw = await folder('bundle-raw', { 'cluster.json': JSON.stringify(node('n1', 'z1')), 'version.json': JSON.stringify(kubectlVersion.serverVersion) });
    expect((await loadScenarioPath(raw)).serverVersion).toBe('v1.30.5-eks-ce1d5eb');
    // The server could not be reached when the bundle was taken: client and kustomize only, skipped.
    const clientOnly = await folder('bundle-client-only', { 'cluster.yaml': stringify(node('n1', 'z1')), 'version.yaml': stringify({ clientVersion: kubectlVersion.clientVersion, kustomizeVersion: 'v5.4.2' }) });
    const skipped = await loadScenarioPath(clientOnly);
    expect(skipped.serverVersion).toBeUndefined();
    expect(skipped.objects.map((o) => o.metadata.name)).toEqual(['n1']);
    // A ServerVersion document is what the dump says it is: it wins, in either order.
    const both = await folder('bundle-both', { 'a-version.yaml': stringify(kubectlVersion), 'b.yaml': `${stringify({ apiVersion: 'zonescope.dev/v1', kind: 'ServerVersion', gitVersion: 'v1.29.3' })}---\n${stringify(node('n1', 'z1'))}` });
    expect((await loadScenarioPath(both)).serverVersion).toBe('v1.29.3');
    // Other documents without a kind keep their clear error.
    const stray = await folder('stray', { 'cluster.yaml': stringify(node('n1', 'z1')), 'notes.yaml': stringify({ owner: 'team-a' }) });
    expect(((await loadScenarioPath(stray).catch((e: unknown) => e)) as Error).message).toContain(`${path.join(stray, 'notes.yaml')}, document 1: `);
  });

  it('starts on a dump taken mid-rollout, whose ReplicaSet holds the new ReplicaSet\'s name with another template, and serves both', async () => {
    const template = (image: string, hash?: string): Record<string, unknown> => ({
      metadata: { labels: { app: 'web', ...(hash !== undefined ? { 'pod-template-hash': hash } : {}) } },
      spec: { containers: [{ name: 'app', image }] },
    });
    const deployment: KubeObject = {
      apiVersion: 'apps/v1', kind: 'Deployment',
      metadata: { name: 'web', namespace: 'shop', uid: '7d0b2c1e-0000-4000-8000-000000000001', labels: { app: 'web' }, annotations: { 'deployment.kubernetes.io/revision': '2' } },
      spec: { replicas: 2, selector: { matchLabels: { app: 'web' } }, template: template('nginx:1.27') },
    };
    // The name the controller gives the Deployment's new ReplicaSet: what it creates without one.
    const probe = await startSimulator({ port: 0, log: () => undefined, objects: [node('n1', 'z1'), structuredClone(deployment)], controllers: defaultControllers() });
    const taken = probe.store.all('replicasets', 'shop').map((rs) => rs.metadata.name);
    await probe.stop();
    expect(taken).toHaveLength(1);
    const name = taken[0] ?? '';
    const hash = name.slice('web-'.length);
    // The dump: that name on a ReplicaSet of the old template (nginx:1.25), with its two pods.
    const replicaSet: KubeObject = {
      apiVersion: 'apps/v1', kind: 'ReplicaSet',
      metadata: {
        name, namespace: 'shop', uid: '7d0b2c1e-0000-4000-8000-000000000002', labels: { app: 'web', 'pod-template-hash': hash },
        annotations: { 'deployment.kubernetes.io/revision': '1' },
        ownerReferences: [{ apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', uid: '7d0b2c1e-0000-4000-8000-000000000001', controller: true, blockOwnerDeletion: true }],
      },
      spec: { replicas: 2, selector: { matchLabels: { app: 'web', 'pod-template-hash': hash } }, template: template('nginx:1.25', hash) },
      status: { replicas: 2, readyReplicas: 2, availableReplicas: 2 },
    };
    const pods = ['x1', 'x2'].map((suffix): KubeObject => ({
      apiVersion: 'v1', kind: 'Pod',
      metadata: { name: `${name}-${suffix}`, namespace: 'shop', labels: { app: 'web', 'pod-template-hash': hash }, ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name, uid: '7d0b2c1e-0000-4000-8000-000000000002', controller: true }] },
      spec: { nodeName: 'n1', containers: [{ name: 'app', image: 'nginx:1.25' }] },
      status: { phase: 'Running', podIP: `10.0.0.${suffix === 'x1' ? 11 : 12}`, conditions: [{ type: 'Ready', status: 'True' }], containerStatuses: [{ name: 'app', ready: true, restartCount: 0 }] },
    }));
    const root = await folder('mid-rollout', {
      'nodes.yaml': stringify(node('n1', 'z1')),
      'workloads.yaml': stringify({ apiVersion: 'v1', kind: 'List', items: [deployment, replicaSet, ...pods] }),
    });
    const sim = await startSimulator({ port: 0, log: () => undefined, objects: (await loadScenarioPath(root)).objects, controllers: defaultControllers() });
    try {
      const served = (await (await fetch(`${sim.url}/apis/apps/v1/namespaces/shop/replicasets`)).json()) as { items: { metadata: { name: string; labels: Record<string, string> }; spec: { replicas: number; template: { spec: { containers: { image: string }[] } } } }[] };
      const byImage = Object.fromEntries(served.items.map((rs) => [rs.spec.template.spec.containers[0]?.image ?? '', rs]));
      expect(Object.keys(byImage).sort()).toEqual(['nginx:1.25', 'nginx:1.27']);
      // The old one keeps its name, scaled to 0; the new one has a name of its own and the replicas.
      expect(byImage['nginx:1.25']).toMatchObject({ metadata: { name }, spec: { replicas: 0 } });
      const fresh = byImage['nginx:1.27'];
      expect(fresh?.metadata.name).not.toBe(name);
      expect(fresh?.metadata.name).toBe(`web-${fresh?.metadata.labels['pod-template-hash'] ?? ''}`);
      expect(fresh?.spec.replicas).toBe(2);
      const web = (await (await fetch(`${sim.url}/apis/apps/v1/namespaces/shop/deployments/web`)).json()) as { status: { collisionCount?: number } };
      expect(web.status.collisionCount).toBe(1);
      const running = (await (await fetch(`${sim.url}/api/v1/namespaces/shop/pods`)).json()) as { items: { metadata: { name: string } }[] };
      expect(running.items.map((p) => p.metadata.name).filter((p) => p.startsWith(`${fresh?.metadata.name ?? ''}-`))).toHaveLength(2);
    } finally {
      await sim.stop();
    }
  });
});
