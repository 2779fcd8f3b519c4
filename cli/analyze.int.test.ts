/**
 * `npm run analyze` as a process (`node scripts/analyze.mjs`, what the npm script runs: the command
 * bundled, then run): everything written reaches a slow pipe (`| jq`), exit codes, and folder input.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { stringify } from 'yaml';
import { afterAll, describe, expect, it } from 'vitest';
import { main } from './analyze-cli';

const PROJECT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const tmp = mkdtempSync(path.join(tmpdir(), 'zonescope-analyze-cli-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const ARGS = ['scripts/analyze.mjs'];

/**
 * Runs the CLI with stdout to an OS pipe whose reader waits `delaySeconds` before reading, as
 * `npm run analyze … | jq` does when jq is slow to start. (A child's stdout from `spawn` is a
 * socket with a larger buffer, which hides the problem; the shell makes a real pipe.)
 */
function runPiped(args: readonly string[], delaySeconds: number): Promise<{ out: Buffer; err: string }> {
  return new Promise((resolve, reject) => {
    const script = `"$0" ${ARGS.join(' ')} "$@" | { sleep ${delaySeconds}; cat; }`;
    const child = spawn('sh', ['-c', script, process.execPath, ...args], { cwd: PROJECT, stdio: ['ignore', 'pipe', 'pipe'] });
    const chunks: Buffer[] = [];
    let err = '';
    child.stdout.on('data', (chunk: Buffer) => chunks.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
    child.on('error', reject);
    child.on('close', () => resolve({ out: Buffer.concat(chunks), err }));
  });
}

/** Runs the CLI with stdout and stderr to this process (exit code and messages). */
function run(args: readonly string[]): Promise<{ code: number | null; out: Buffer; err: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...ARGS, ...args], { cwd: PROJECT, stdio: ['ignore', 'pipe', 'pipe'] });
    const chunks: Buffer[] = [];
    let err = '';
    child.stdout.on('data', (chunk: Buffer) => chunks.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, out: Buffer.concat(chunks), err }));
  });
}

/** Runs the command in-process: exactly what it writes (what `> report.json` receives). */
async function runInProcess(args: readonly string[]): Promise<{ code: number; out: Buffer; err: string }> {
  let out = '';
  let err = '';
  const code = await main(args, { out: (t) => (out += t), err: (t) => (err += t) });
  return { code, out: Buffer.from(out, 'utf8'), err };
}

const SCENARIOS = ['eks-demo', 'missing-zone-label', 'single-zone', 'cilium-kpr', 'ipvs', 'tiny'];

describe('npm run analyze | a slow reader', () => {
  // The CLI used to exit right after its write: a pipe got the first 64 KiB (eks-demo: 131,072
  // of 162,617 bytes), and `| jq` saw invalid JSON.
  it.each(SCENARIOS)('%s: the piped JSON is byte-identical to what the command writes', async (name) => {
    const args = ['--snapshot', `fixtures/${name}.yaml`, '--format', 'json'];
    const [piped, written] = await Promise.all([runPiped(args, 1), runInProcess(args).then((r) => r.out)]);
    expect(piped.err).toBe('');
    expect(written.length).toBeGreaterThan(10_000);
    expect(piped.out.length).toBe(written.length);
    expect(piped.out.equals(written)).toBe(true);
    expect(() => JSON.parse(piped.out.toString('utf8')) as unknown).not.toThrow();
  }, 30_000);
});

describe('npm run analyze exit codes', () => {
  it('an empty dump exits 3 saying it contains nothing zonescope reads, even with --fail-on', async () => {
    const empty = path.join(tmp, 'empty.yaml');
    writeFileSync(empty, stringify({ apiVersion: 'v1', kind: 'List', items: [{ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'shop' } }] }));
    const result = await run(['--snapshot', empty, '--fail-on', 'hints-off']);
    expect(result.code).toBe(3);
    expect(result.out.toString()).toBe('');
    expect(result.err).toContain('analyze: the snapshot contains no objects zonescope reads (no Services and no Nodes)');
    expect(result.err).toContain('kinds zonescope does not read: 1 Namespace');
  }, 30_000);

  it('a folder merges its files; an object in two files exits 3 naming both', async () => {
    const folder = path.join(tmp, 'split');
    mkdirSync(folder, { recursive: true });
    const docs = readFileSync(path.join(PROJECT, 'fixtures', 'tiny.yaml'), 'utf8');
    writeFileSync(path.join(folder, 'a.yaml'), docs);
    const merged = await runInProcess(['--snapshot', folder, '--format', 'json']);
    expect(merged.code).toBe(0);
    const single = await runInProcess(['--snapshot', 'fixtures/tiny.yaml', '--format', 'json']);
    expect(merged.out.equals(single.out)).toBe(true);

    writeFileSync(path.join(folder, 'b.yaml'), docs);
    const twice = await runInProcess(['--snapshot', folder]);
    expect(twice.code).toBe(3);
    expect(twice.err).toMatch(new RegExp(`${path.join(folder, 'b.yaml').replace(/[.\\/]/g, '\\$&')}, document \\d+.*given twice: also in ${path.join(folder, 'a.yaml').replace(/[.\\/]/g, '\\$&')}`));
  }, 30_000);
});

describe('npm run analyze: who re-applies a Service', () => {
  // fixtures/ownership.yaml's checkout: a Helm chart applied by Argo CD 2.x with its default label
  // tracking (app.kubernetes.io/instance) and client-side apply, whose last-applied configuration
  // declares topology-mode: Auto. It used to get no warning (or "the next helm upgrade").
  it('names Argo CD and the last-applied source, in the JSON and in the text report', async () => {
    const json = await runInProcess(['--snapshot', 'fixtures/ownership.yaml', '--format', 'json']);
    expect(json.code).toBe(0);
    const analysis = JSON.parse(json.out.toString('utf8')) as { services: { name: string; gitOps: { tool: string; source: string; declared: Record<string, string>; liveChange: string; warning: string } | null }[] };
    const checkout = analysis.services.find((s) => s.name === 'checkout');
    expect(checkout?.gitOps).toMatchObject({ tool: 'Argo CD', source: 'last-applied', declared: { 'service.kubernetes.io/topology-mode': 'Auto' }, liveChange: 'reverted' });
    expect(analysis.services.find((s) => s.name === 'web-public')?.gitOps?.tool).toBe('Helm');
    expect(analysis.services.find((s) => s.name === 'payments-db')?.gitOps).toBeNull();
    const text = await runInProcess(['--snapshot', 'fixtures/ownership.yaml']);
    expect(text.out.toString('utf8')).toContain(
      "Managed by Argo CD (label app.kubernetes.io/instance=storefront, Argo CD's default tracking label, with a last-applied configuration, a Helm chart rendered by Argo CD): the Git source declares service.kubernetes.io/topology-mode: Auto (read from its kubectl.kubernetes.io/last-applied-configuration) — the next Argo CD sync puts it back. Make the change in Git.",
    );
  }, 30_000);
});
