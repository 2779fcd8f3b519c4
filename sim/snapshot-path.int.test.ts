/**
 * `npm run sim -- --snapshot FOLDER`: the folder's dump files merged into one served cluster
 * (checked over HTTP), and an object given in two files refused naming both.
 */
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { stringify } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadScenarioPath } from './snapshot-path';
import { ScenarioError } from './scenario';
import { node, service, waitFor } from './test-support';

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
});
