/**
 * Cold sync over a remote link: a simulator with TLS (its own process, its own kubeconfig), then
 * the dashboard's list+watch path (`createClusterSource`, as scripts/bench/analyze-all.ts runs it)
 * synced from scratch in a fresh process, on loopback and through a link proxy (./link-proxy: a
 * round-trip time and a bandwidth limit per direction), each with keep-alive on and off
 * (`ZONESCOPE_KEEPALIVE=0`). Per case: sync seconds, TCP connections and bytes on the wire (the
 * simulator's `/__sim/stats`; the proxy's counters through the link), list pages and lists
 * started. Gzip is on (list pages ask for it). Progress goes to stderr; one JSON line, last, to
 * stdout.
 *
 * usage: npx tsx scripts/bench/link.ts [--scenario generated:realistic-L] [--rtt-ms 20] [--mbps 100] [--runs 1]
 *                                      [--cases loopback-on,loopback-off,link-on,link-off]
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import https from 'node:https';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse as parseYaml, stringify as stringifyYaml } from 'yaml';
import { configFromEnv } from '../../lib/config/config';
import { createClusterSource } from '../../lib/k8s/cluster-sources/create-source';
import { startLinkProxy } from './link-proxy';
import type { LinkCounters } from './link-proxy';
import { startChild, stop, stopAll } from './processes';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

/** The cases, in the order they run. */
const CASES = ['loopback-on', 'loopback-off', 'link-on', 'link-off'] as const;
type CaseName = (typeof CASES)[number];

interface Options {
  scenario: string;
  rttMs: number;
  mbps: number;
  runs: number;
  cases: CaseName[];
}

/** Parses the arguments; a string is the error message. */
export function parseLinkArgs(argv: readonly string[]): Options | string {
  const options: Options = { scenario: 'generated:realistic-L', rttMs: 20, mbps: 100, runs: 1, cases: [...CASES] };
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i] ?? '';
    const value = argv[i + 1];
    if (value === undefined || value.startsWith('--')) return `${flag} needs a value`;
    i++;
    const number = Number(value);
    switch (flag) {
      case '--scenario':
        options.scenario = value;
        break;
      case '--rtt-ms':
        if (!Number.isFinite(number) || number < 0) return `--rtt-ms must be a number ≥ 0 (got ${value})`;
        options.rttMs = number;
        break;
      case '--mbps':
        if (!Number.isFinite(number) || number <= 0) return `--mbps must be a number > 0 (got ${value})`;
        options.mbps = number;
        break;
      case '--runs':
        if (!Number.isInteger(number) || number < 1) return `--runs must be a whole number ≥ 1 (got ${value})`;
        options.runs = number;
        break;
      case '--cases': {
        const names = value.split(',').map((name) => name.trim());
        const unknown = names.filter((name) => !(CASES as readonly string[]).includes(name));
        if (unknown.length > 0 || names.length === 0) return `--cases takes ${CASES.join(', ')} (got ${value})`;
        options.cases = names as CaseName[];
        break;
      }
      default:
        return `unknown argument: ${flag}`;
    }
  }
  return options;
}

/** `/__sim/stats` as far as read here. */
interface SimStatsJson {
  requests: Record<string, Record<string, number>>;
  lists: Record<string, number>;
  connections: number;
  wireBytes: { received: number; sent: number };
}

/** A control request to the simulator over its TLS (the CA of its kubeconfig), on a connection of its own. */
function control(url: string, ca: string, method: 'GET' | 'POST', route: string): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const req = https.request(new URL(route, url), { method, ca, agent: false, headers: { 'Content-Type': 'application/json' } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        if ((res.statusCode ?? 0) >= 300) reject(new Error(`${route}: ${res.statusCode ?? 0} ${text}`));
        else resolve(JSON.parse(text) as unknown);
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(method === 'POST' ? '{}' : undefined);
  });
}

/** One synced-from-scratch measurement (the child side): prints `{ syncSeconds }`. */
async function measure(kubeconfig: string): Promise<void> {
  const startedAt = performance.now();
  const source = createClusterSource(configFromEnv({ KUBECONFIG: kubeconfig, HOME: process.env.HOME, ZONESCOPE_KEEPALIVE: process.env.ZONESCOPE_KEEPALIVE }));
  source.start();
  if (!(await source.waitForSync(20 * 60_000))) throw new Error('the cluster did not sync within 20 minutes');
  const syncSeconds = (performance.now() - startedAt) / 1000;
  const services = source.snapshot().services.length;
  await source.stop();
  console.log(JSON.stringify({ syncSeconds, services }));
}

interface CaseResult {
  readonly case: CaseName;
  readonly run: number;
  readonly syncSeconds: number;
  /** TCP connections the simulator accepted (the sync's; the stats read's own is not counted). */
  readonly connections: number;
  /** List requests (pages) and lists started, over every type. */
  readonly listPages: number;
  readonly listsStarted: number;
  /** Bytes on the wire at the simulator (TLS records). */
  readonly wireBytesDown: number;
  readonly wireBytesUp: number;
  /** The link proxy's counters (link cases only). */
  readonly link: LinkCounters | null;
}

function sum(values: Iterable<number>): number {
  let total = 0;
  for (const value of values) total += value;
  return total;
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[mid] ?? 0) : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2;
}

const mb = (bytes: number): number => Math.round(bytes / 1e4) / 100;

async function main(): Promise<void> {
  if (process.argv[2] === '--measure') {
    await measure(process.argv[3] ?? '');
    return;
  }
  const parsed = parseLinkArgs(process.argv.slice(2));
  if (typeof parsed === 'string') {
    console.error(`link: ${parsed}`);
    process.exitCode = 2;
    return;
  }
  const options = parsed;
  const dir = mkdtempSync(path.join(tmpdir(), 'zonescope-link-'));
  const kubeconfig = path.join(dir, 'kubeconfig');
  const linkKubeconfig = path.join(dir, 'kubeconfig-link');
  const log = (message: string): void => void process.stderr.write(`link: ${message}\n`);
  log(`starting the simulator with --tls on ${options.scenario} (L takes minutes)…`);
  const sim = startChild('sim', process.execPath, ['--max-old-space-size=12288', '--import', 'tsx', 'sim/cli.ts', '--scenario', options.scenario, '--tls', '--kubeconfig', kubeconfig], {
    cwd: ROOT,
    env: process.env,
  });
  const results: CaseResult[] = [];
  let proxy: Awaited<ReturnType<typeof startLinkProxy>> | null = null;
  try {
    const served = await sim.waitForLine(/ at https:\/\/127\.0\.0\.1:\d+$/, 20 * 60_000);
    await sim.waitForLine(/^kubeconfig: /, 60_000);
    const url = /(https:\/\/127\.0\.0\.1:\d+)$/.exec(served)?.[1] ?? '';
    const port = Number(new URL(url).port);
    const document = parseYaml(readFileSync(kubeconfig, 'utf8')) as { clusters: { cluster: { server: string; 'certificate-authority-data': string } }[] };
    const cluster = document.clusters[0]?.cluster;
    if (cluster === undefined) throw new Error('the simulator wrote a kubeconfig without a cluster');
    const ca = Buffer.from(cluster['certificate-authority-data'], 'base64').toString('utf8');
    proxy = await startLinkProxy({ targetPort: port, rttMs: options.rttMs, mbps: options.mbps });
    cluster.server = `https://127.0.0.1:${proxy.port}`;
    writeFileSync(linkKubeconfig, stringifyYaml(document), { mode: 0o600 });
    log(`simulator at ${url}; link proxy at 127.0.0.1:${proxy.port} (${options.rttMs} ms RTT, ${options.mbps} Mbit/s each way)`);

    for (let run = 1; run <= options.runs; run++) {
      for (const name of options.cases) {
        const throughLink = name.startsWith('link');
        const keepAlive = name.endsWith('-on');
        await control(url, ca, 'POST', '/__sim/stats/reset');
        proxy.resetCounters();
        const child = startChild(`measure ${name}`, process.execPath, ['--import', 'tsx', 'scripts/bench/link.ts', '--measure', throughLink ? linkKubeconfig : kubeconfig], {
          cwd: ROOT,
          env: { ...process.env, ZONESCOPE_KEEPALIVE: keepAlive ? '1' : '0' },
        });
        const code = await child.exited;
        const last = [...child.lines].reverse().find((line) => line.startsWith('{'));
        if (code !== 0 || last === undefined) throw new Error(`${name}: the measuring process failed (${code}):\n${child.lines.slice(-15).join('\n')}`);
        const { syncSeconds } = JSON.parse(last) as { syncSeconds: number };
        const stats = (await control(url, ca, 'GET', '/__sim/stats')) as SimStatsJson;
        const result: CaseResult = {
          case: name,
          run,
          syncSeconds: Math.round(syncSeconds * 100) / 100,
          connections: stats.connections - 1,
          listPages: sum(Object.values(stats.requests).map((verbs) => verbs.list ?? 0)),
          listsStarted: sum(Object.values(stats.lists)),
          wireBytesDown: stats.wireBytes.sent,
          wireBytesUp: stats.wireBytes.received,
          link: throughLink ? proxy.counters() : null,
        };
        results.push(result);
        log(
          `run ${run} ${name.padEnd(12)} sync ${result.syncSeconds.toFixed(1)} s, ${result.connections} connections, ${result.listPages} list pages (${result.listsStarted} lists), ${mb(result.wireBytesDown)} MB down / ${mb(result.wireBytesUp)} MB up`,
        );
      }
    }
  } finally {
    await proxy?.stop();
    await stop(sim);
    await stopAll();
    rmSync(dir, { recursive: true, force: true });
  }
  const summary = Object.fromEntries(
    options.cases.map((name) => {
      const mine = results.filter((r) => r.case === name);
      return [name, { syncSeconds: Math.round(median(mine.map((r) => r.syncSeconds)) * 100) / 100, connections: median(mine.map((r) => r.connections)), listPages: median(mine.map((r) => r.listPages)), wireBytesDown: median(mine.map((r) => r.wireBytesDown)) }];
    }),
  );
  console.log(JSON.stringify({ scenario: options.scenario, rttMs: options.rttMs, mbps: options.mbps, runs: options.runs, summary, results }));
}

if (process.argv[1] !== undefined && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main().catch((error: unknown) => {
    console.error(`link: ${error instanceof Error ? error.message : String(error)}`);
    process.exitCode = 1;
  });
}
