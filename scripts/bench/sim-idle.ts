/**
 * `npx tsx scripts/bench/sim-idle.ts [--scenario generated:realistic-L] [--seconds 30] [--interval 1]`
 *
 * Does the simulator settle on a realistic cluster? Starts `npm run sim` with the scenario (by
 * default the 5,000-node realistic dump) in a child process, then once a second for `--seconds`
 * reads the store's resourceVersion (`GET /api/v1/namespaces?limit=1`) and times `GET /version`,
 * and prints one line per sample plus a summary: the writes made while settling (resourceVersion
 * after start minus the objects loaded), resourceVersion growth over the window (0 when the
 * controllers are idle), object counts at the start and end, and `/version` latency. Exit
 * code 1 when the resourceVersion moved.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { startChild, stop } from './processes';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const USAGE = 'usage: npx tsx scripts/bench/sim-idle.ts [--scenario generated:realistic-L] [--seconds 30] [--interval 1] [--max-old-space-size MiB]';

interface Options {
  scenario: string;
  seconds: number;
  interval: number;
  heapMiB: number;
}

function parse(argv: readonly string[]): Options | string {
  const options: Options = { scenario: 'generated:realistic-L', seconds: 30, interval: 1, heapMiB: 12_288 };
  for (let i = 0; i < argv.length; i += 2) {
    const flag = argv[i];
    const value = argv[i + 1];
    if (value === undefined) return `${String(flag)} needs a value`;
    if (flag === '--scenario') options.scenario = value;
    else if (flag === '--seconds' || flag === '--interval' || flag === '--max-old-space-size') {
      const n = Number(value);
      if (!Number.isFinite(n) || n <= 0) return `${flag} must be a positive number, got "${value}"`;
      if (flag === '--seconds') options.seconds = n;
      else if (flag === '--interval') options.interval = n;
      else options.heapMiB = Math.round(n);
    } else return `unknown argument: ${String(flag)}`;
  }
  return options;
}

async function timedJson(url: string): Promise<{ ms: number; body: Record<string, unknown> }> {
  const started = performance.now();
  const response = await fetch(url);
  const body = (await response.json()) as Record<string, unknown>;
  if (!response.ok) throw new Error(`${url}: HTTP ${response.status}`);
  return { ms: performance.now() - started, body };
}

async function counts(url: string): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const [name, listPath] of [['pods', '/api/v1/pods'], ['replicasets', '/apis/apps/v1/replicasets'], ['endpointslices', '/apis/discovery.k8s.io/v1/endpointslices'], ['events', '/api/v1/events']] as const) {
    const { body } = await timedJson(`${url}${listPath}?limit=1`);
    const meta = body.metadata as { remainingItemCount?: number };
    out[name] = (body.items as unknown[]).length + (meta.remainingItemCount ?? 0);
  }
  return out;
}

async function main(): Promise<number> {
  const options = parse(process.argv.slice(2));
  if (typeof options === 'string') {
    console.error(`sim-idle: ${options}\n${USAGE}`);
    return 2;
  }
  const tmp = mkdtempSync(path.join(tmpdir(), 'zonescope-sim-idle-'));
  const startedAt = performance.now();
  const sim = startChild('sim', process.execPath, [`--max-old-space-size=${options.heapMiB}`, '--import', 'tsx', 'sim/cli.ts', '--scenario', options.scenario, '--port', '0', '--kubeconfig', path.join(tmp, 'kubeconfig')], { cwd: ROOT, env: { ...process.env } });
  try {
    const line = await sim.waitForLine(/ at http:\/\/127\.0\.0\.1:\d+/, 20 * 60_000);
    const url = /(http:\/\/127\.0\.0\.1:\d+)/.exec(line)?.[1] ?? '';
    const loaded = Number(/\((\d+) objects\)/.exec(line)?.[1] ?? NaN);
    await sim.waitForLine(/^kubeconfig: /, 60_000);
    console.log(`${options.scenario}: simulator up in ${((performance.now() - startedAt) / 1000).toFixed(1)} s at ${url}`);
    const before = await counts(url);
    console.log(`objects at start: ${JSON.stringify(before)}`);
    const samples: { t: number; rv: number; versionMs: number }[] = [];
    const windowStart = performance.now();
    for (let i = 0; ; i++) {
      const target = windowStart + i * options.interval * 1000;
      const wait = target - performance.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      const version = await timedJson(`${url}/version`);
      const list = await timedJson(`${url}/api/v1/namespaces?limit=1`);
      const rv = Number((list.body.metadata as { resourceVersion: string }).resourceVersion);
      const t = (performance.now() - windowStart) / 1000;
      samples.push({ t, rv, versionMs: version.ms });
      console.log(`t=${t.toFixed(1).padStart(5)} s  resourceVersion ${rv}  /version ${version.ms.toFixed(1)} ms`);
      if (t >= options.seconds) break;
    }
    const after = await counts(url);
    // Loading numbers the objects 1…N (plus the default namespaces a dump may lack): beyond that, the controllers wrote.
    if (Number.isFinite(loaded) && samples[0]) console.log(`loaded ${loaded} objects; resourceVersion after settling ${samples[0].rv}: ${samples[0].rv - loaded} writes while settling (default namespaces added count too)`);
    const first = samples[0];
    const last = samples[samples.length - 1];
    const growth = first && last ? last.rv - first.rv : 0;
    const latencies = samples.map((s) => s.versionMs).sort((a, b) => a - b);
    const p = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0;
    console.log(`objects at end:   ${JSON.stringify(after)}`);
    console.log(`resourceVersion ${first?.rv ?? '?'} → ${last?.rv ?? '?'} over ${(last?.t ?? 0).toFixed(1)} s: ${growth === 0 ? 'idle (no writes)' : `${growth} writes (${(growth / Math.max(1, last?.t ?? 1)).toFixed(1)}/s)`}`);
    console.log(`/version: median ${p(0.5).toFixed(1)} ms, max ${(latencies[latencies.length - 1] ?? 0).toFixed(1)} ms`);
    return growth === 0 ? 0 : 1;
  } finally {
    await stop(sim);
    rmSync(tmp, { recursive: true, force: true });
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(`sim-idle: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  },
);
