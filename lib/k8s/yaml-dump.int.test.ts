/**
 * A YAML dump reads as its JSON form does: the real kubectl dumps the simulator's realistic-S
 * cluster (an EKS-shaped cluster: managedFields, `last-applied-configuration` block scalars) with
 * `-o yaml` and `-o json`; the YAML file streamed item by item gives the JSON file's snapshot, and
 * `npm run analyze -- --format json` prints the same bytes for both. Skipped only when kubectl is
 * not installed (set KUBECTL to use another binary).
 */
import { spawn } from 'node:child_process';
import { createWriteStream, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generatedScenario } from '../../sim/scenario';
import type { Simulator } from '../../sim/server';
import { startSimulator } from '../../sim/server';
import { loadSnapshot } from './snapshot/load';
import { ok } from './snapshot-test-support';

const KUBECTL = process.env.KUBECTL ?? '/usr/bin/kubectl';
const PROJECT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const TYPES = 'nodes,services,endpointslices,pods,deployments,replicasets,hpa,events';

/** Runs a command with stdout into `file` (or collected), resolving with its exit code, stdout and stderr. */
function run(command: string, args: readonly string[], options: { readonly env?: NodeJS.ProcessEnv; readonly file?: string } = {}): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: PROJECT, env: options.env ?? process.env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    const sink = options.file !== undefined ? createWriteStream(options.file) : null;
    if (sink !== null) child.stdout.pipe(sink);
    else child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => {
      if (sink === null) resolve({ code, out, err });
      else sink.end(() => resolve({ code, out, err }));
    });
  });
}

describe.skipIf(!existsSync(KUBECTL))('a kubectl YAML dump of the simulator', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'zonescope-yaml-dump-'));
  const yamlFile = path.join(dir, 'dump.yaml');
  const jsonFile = path.join(dir, 'dump.json');
  let sim: Simulator | undefined;

  beforeAll(async () => {
    const scenario = generatedScenario('generated:realistic-S');
    if (typeof scenario === 'string') throw new Error(scenario);
    sim = await startSimulator({ objects: scenario.objects, log: () => undefined, ...(scenario.serverVersion !== undefined ? { version: scenario.serverVersion } : {}) });
    const kubeconfig = await sim.writeKubeconfig(path.join(dir, 'kubeconfig'));
    const env = { ...process.env, HOME: dir, KUBECONFIG: '' };
    const kubectl = ['--kubeconfig', kubeconfig, '--cache-dir', path.join(dir, 'cache'), 'get', TYPES, '-A'];
    for (const [format, file] of [['yaml', yamlFile], ['json', jsonFile]] as const) {
      const dumped = await run(KUBECTL, [...kubectl, '-o', format], { env, file });
      if (dumped.code !== 0) throw new Error(`kubectl -o ${format} failed (${dumped.code}): ${dumped.err}`);
    }
  }, 120_000);

  afterAll(async () => {
    await sim?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('is a kubectl List with block scalars, and streamed item by item gives the JSON dump snapshot', async () => {
    const text = readFileSync(yamlFile, 'utf8');
    expect(text.startsWith('apiVersion: v1\nitems:\n- ')).toBe(true);
    expect(text).toMatch(/^kind: List$/m);
    expect(text).toMatch(/last-applied-configuration: \|/);
    const yaml = ok(await loadSnapshot(yamlFile, { wholeFileBytes: 0, chunkBytes: 64 * 1024 }));
    const json = ok(await loadSnapshot(jsonFile, { wholeFileBytes: 0, chunkBytes: 64 * 1024 }));
    expect(yaml.snapshot.pods.length).toBeGreaterThan(500);
    expect(yaml.snapshot).toEqual(json.snapshot);
    expect(yaml.summary.records).toEqual(json.summary.records);
  }, 60_000);

  it('npm run analyze -- --format json prints the same bytes for the YAML and the JSON dump', async () => {
    const analyze = (file: string) => run(process.execPath, ['--import', 'tsx', 'cli/analyze.ts', '--snapshot', file, '--format', 'json']);
    const [yaml, json] = [await analyze(yamlFile), await analyze(jsonFile)];
    expect(yaml.code, yaml.err).toBe(0);
    expect(json.code, json.err).toBe(0);
    expect((JSON.parse(yaml.out) as { services: unknown[] }).services.length).toBeGreaterThan(50);
    expect(yaml.out).toBe(json.out);
  }, 120_000);
});
