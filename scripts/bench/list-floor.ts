/**
 * The cold sync's floor (issue 30): every list the server makes at start, fetched as plain HTTP
 * and parsed, nothing else — what a client that only downloads and parses the cluster needs.
 * The same requests as the informers' (lib/k8s/informer/list-pages.ts through
 * lib/k8s/transport/http-connection.ts): each type's first API path (lib/k8s/resources.ts) with
 * its field selector, pages of the informers' default size following `continue`, `Accept:
 * application/json`, `Accept-Encoding: gzip`, over one kept-alive pool; every type at once, one
 * page in flight each (the informers start together and do not ask ahead by default). Each page
 * is gunzipped as a stream, joined, turned into a string and `JSON.parse`d, as the server's
 * transport does (lib/k8s/transport/response-body.ts); nothing is projected or kept.
 *
 * The bench runs it in a child process of its own (`node` with the server's V8 flags,
 * scripts/node-flags.ts: a fresh heap and a cold JIT, like the server's), before the server
 * starts and with Prometheus paused, so nothing else competes for the cores. The simulator keeps
 * each object's JSON once it has served it (sim/handlers/list.ts), so a first pass also pays its
 * serialisation of every object; the {@link FLOOR_PASSES} passes after it find the simulator in
 * the state the server's cold sync then finds it in, and the fastest of them is the floor. More
 * than one because the simulator's heap is several GiB: serving every list leaves it a major
 * collection or two (4–12 s of its CPU in the profiles), which lands in one pass or the next —
 * or in the server's cold sync. Before each pass, and before the bench starts the server, the
 * simulator is let settle (its CPU below 15 % of a core over 2 s).
 *
 * `npx tsx scripts/bench/list-floor.ts --measure KUBECONFIG` is that child: one pass against the
 * kubeconfig's current cluster (plain HTTP or HTTPS, a bearer token or none), one JSON line.
 */
import { readFileSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { createGunzip } from 'node:zlib';
import { parse as parseYaml } from 'yaml';

import { resolveInformerOptions } from '../../lib/k8s/informer/options';
import type { ResourceId } from '../../lib/k8s/resources';
import { RESOURCE_IDS, RESOURCES } from '../../lib/k8s/resources';
import { serverNodeArgs } from '../node-flags';
import { log, ROOT } from './environment';
import { treeCpuMs } from './process-tree';
import { startChild } from './processes';
import { r1 } from './report';

/** One resource type's lists in a floor pass. */
export interface FloorType {
  /** From the pass's start until its last page was parsed. */
  readonly seconds: number;
  readonly pages: number;
  readonly objects: number;
  /** Bytes of the bodies as received (gzip where the server compressed them). */
  readonly wireBytes: number;
  /** Bytes of the JSON once decoded. */
  readonly jsonBytes: number;
}

/** One pass: every type listed at once, until the last one is parsed. */
export interface FloorPass {
  readonly seconds: number;
  /** CPU time of the listing process over the pass (user + system, every thread). */
  readonly cpuSeconds: number;
  readonly byType: Partial<Record<ResourceId, FloorType>>;
}

/** Passes timed after the first one; the fastest is the floor. */
export const FLOOR_PASSES = 3;

/** What the bench measures of the floor: the passes, and the simulator's CPU over each. */
export interface FloorFigures {
  /** Against a simulator that has not served the objects yet (it serialises each one). */
  readonly firstPass: FloorPass;
  readonly firstPassSimCpuSeconds: number;
  /** The floor: the fastest pass after the first (the simulator in the state the server's cold sync finds it in). */
  readonly pass: FloorPass;
  readonly passSimCpuSeconds: number;
  /** Every pass after the first, in order (seconds). */
  readonly passSeconds: readonly number[];
  /** The machine's 1-minute load average before the first pass (other work on the cores). */
  readonly loadAverage: number;
}

/** The floor's fields of the final JSON object (BENCHMARKS.md). */
export interface FloorFields {
  /** The floor: every list of the cold start fetched and parsed, nothing else (the fastest pass after the first). */
  readonly floorSeconds: number;
  /** Every pass after the first (the simulator's major collections land in one or another). */
  readonly floorPassSeconds: readonly number[];
  /** The same against a simulator that had not served the objects yet (it serialised each one). */
  readonly floorFirstPassSeconds: number;
  /** `coldSyncSeconds ÷ floorSeconds` (issue 30: ≤ 1.5 on the realistic generator). */
  readonly coldSyncFloorRatio: number;
  /** CPU of the listing process and of the simulator over the floor pass. */
  readonly floorClientCpuSeconds: number;
  readonly floorSimCpuSeconds: number;
  /** The floor per type: seconds to its last page, pages, objects, KiB received and KiB of JSON. */
  readonly floorByType: Record<string, { readonly seconds: number; readonly pages: number; readonly objects: number; readonly wireKiB: number; readonly jsonKiB: number }>;
  /** The machine's 1-minute load average before the floor's first pass. */
  readonly floorLoadAverage: number;
}

/** Rounds to two decimals. */
function r2(value: number): number {
  return Math.round(value * 100) / 100;
}

/** The floor's fields against the cold sync measured in the same run. Pure. */
export function floorFields(floor: FloorFigures, coldSyncSeconds: number): FloorFields {
  const byType: FloorFields['floorByType'] = {};
  for (const id of RESOURCE_IDS) {
    const t = floor.pass.byType[id];
    if (t !== undefined) byType[id] = { seconds: r2(t.seconds), pages: t.pages, objects: t.objects, wireKiB: Math.round(t.wireBytes / 1024), jsonKiB: Math.round(t.jsonBytes / 1024) };
  }
  return {
    floorSeconds: r2(floor.pass.seconds),
    floorPassSeconds: floor.passSeconds.map(r2),
    floorFirstPassSeconds: r2(floor.firstPass.seconds),
    coldSyncFloorRatio: r2(coldSyncSeconds / floor.pass.seconds),
    floorClientCpuSeconds: r1(floor.pass.cpuSeconds),
    floorSimCpuSeconds: r1(floor.passSimCpuSeconds),
    floorByType: byType,
    floorLoadAverage: r2(floor.loadAverage),
  };
}

function cell(value: string | number, width: number): string {
  const text = String(value);
  return text.length >= width ? `${text} ` : text + ' '.repeat(width - text.length);
}

/** The floor per type, and the cold sync against it, as a table. Pure. */
export function floorTable(fields: FloorFields, coldSync: { readonly coldSyncSeconds: number; readonly coldSyncServerCpuSeconds?: number | null; readonly coldSyncSimCpuSeconds?: number | null }): string {
  const lines = [
    `cold sync ${coldSync.coldSyncSeconds} s against its floor ${fields.floorSeconds} s (every list fetched and parsed, nothing else): ${fields.coldSyncFloorRatio}× (goal ≤ 1.5× on the realistic generator)`,
    `  floor passes ${fields.floorPassSeconds.join(' / ')} s (the fastest counts); the first, the simulator serialising every object: ${fields.floorFirstPassSeconds} s; load average before: ${fields.floorLoadAverage}`,
    `  CPU over the floor: lister ${fields.floorClientCpuSeconds} s, simulator ${fields.floorSimCpuSeconds} s` +
      (coldSync.coldSyncServerCpuSeconds != null ? `; over the cold sync: server ${coldSync.coldSyncServerCpuSeconds} s, simulator ${coldSync.coldSyncSimCpuSeconds ?? '?'} s` : ''),
    `${cell('  type', 18)}${cell('s', 8)}${cell('pages', 7)}${cell('objects', 9)}${cell('KiB received', 14)}KiB of JSON`,
  ];
  for (const [id, t] of Object.entries(fields.floorByType)) lines.push(`${cell(`  ${id}`, 18)}${cell(t.seconds, 8)}${cell(t.pages, 7)}${cell(t.objects, 9)}${cell(t.wireKiB, 14)}${t.jsonKiB}`);
  return lines.join('\n');
}

/** Where and how to reach the cluster of a kubeconfig's current context. */
interface Target {
  readonly server: string;
  readonly headers: Record<string, string>;
  readonly agent: http.Agent;
}

/** The current context's server and bearer token (the simulator's kubeconfig); a clear error for anything else. */
function targetOf(kubeconfigPath: string): Target {
  const document = parseYaml(readFileSync(kubeconfigPath, 'utf8')) as {
    readonly 'current-context'?: string;
    readonly contexts?: readonly { readonly name: string; readonly context?: { readonly cluster?: string; readonly user?: string } }[];
    readonly clusters?: readonly { readonly name: string; readonly cluster?: { readonly server?: string; readonly 'insecure-skip-tls-verify'?: boolean; readonly 'certificate-authority-data'?: string } }[];
    readonly users?: readonly { readonly name: string; readonly user?: Record<string, unknown> }[];
  };
  const context = document.contexts?.find((c) => c.name === document['current-context'])?.context;
  const cluster = document.clusters?.find((c) => c.name === context?.cluster)?.cluster;
  const user = document.users?.find((u) => u.name === context?.user)?.user ?? {};
  if (cluster?.server === undefined) throw new Error(`${kubeconfigPath}: the current context names no cluster with a server`);
  if (Object.keys(user).some((key) => key !== 'token')) throw new Error(`${kubeconfigPath}: the floor lists with a bearer token or none, not ${Object.keys(user).join(', ')}`);
  const headers: Record<string, string> = { Accept: 'application/json', 'Accept-Encoding': 'gzip', 'User-Agent': 'zonescope-bench-floor' };
  if (typeof user.token === 'string') headers.Authorization = `Bearer ${user.token}`;
  // The server's pool of buffered requests: kept alive, at most 32 connections (lib/k8s/transport/agents.ts).
  const tls = cluster.server.startsWith('https:');
  const ca = cluster['certificate-authority-data'];
  const agent = tls
    ? new https.Agent({ keepAlive: true, maxSockets: 32, ...(ca !== undefined ? { ca: Buffer.from(ca, 'base64') } : {}), rejectUnauthorized: cluster['insecure-skip-tls-verify'] !== true })
    : new http.Agent({ keepAlive: true, maxSockets: 32 });
  return { server: cluster.server.replace(/\/$/, ''), headers, agent };
}

/** One page: its body decoded (gunzipped when compressed) and parsed, and its bytes. */
function fetchPage(target: Target, url: URL): Promise<{ readonly page: unknown; readonly wireBytes: number; readonly jsonBytes: number }> {
  return new Promise((resolve, reject) => {
    const transport = url.protocol === 'https:' ? https : http;
    const request = transport.request(url, { agent: target.agent, headers: target.headers }, (res) => {
      let wireBytes = 0;
      res.on('data', (chunk: Buffer) => {
        wireBytes += chunk.length;
      });
      let body: Readable = res;
      if (String(res.headers['content-encoding'] ?? '').toLowerCase() === 'gzip') {
        const gunzip = createGunzip();
        gunzip.on('error', reject);
        body = res.pipe(gunzip);
      }
      const chunks: Buffer[] = [];
      body.on('data', (chunk: Buffer) => chunks.push(chunk));
      body.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        if (res.statusCode !== 200) {
          reject(new Error(`${url.pathname}: HTTP ${res.statusCode ?? 0}: ${text.slice(0, 200)}`));
          return;
        }
        try {
          resolve({ page: JSON.parse(text) as unknown, wireBytes, jsonBytes: Buffer.byteLength(text) });
        } catch (error) {
          reject(error instanceof Error ? error : new Error(String(error)));
        }
      });
      res.on('error', reject);
    });
    request.on('error', reject);
    request.end();
  });
}

/** Every page of one type, one after the other, following `continue`. */
async function listType(target: Target, id: ResourceId, pageSize: number, startedAt: number): Promise<FloorType> {
  const descriptor = RESOURCES[id];
  let pages = 0;
  let objects = 0;
  let wireBytes = 0;
  let jsonBytes = 0;
  let continueToken: string | undefined;
  do {
    const url = new URL(`${target.server}${descriptor.paths[0] ?? ''}`);
    url.searchParams.set('limit', String(pageSize));
    if (continueToken !== undefined) url.searchParams.set('continue', continueToken);
    if (descriptor.fieldSelector !== undefined) url.searchParams.set('fieldSelector', descriptor.fieldSelector);
    const fetched = await fetchPage(target, url);
    const page = fetched.page as { metadata?: { continue?: string }; items?: unknown[] };
    pages++;
    objects += page.items?.length ?? 0;
    wireBytes += fetched.wireBytes;
    jsonBytes += fetched.jsonBytes;
    continueToken = page.metadata?.continue || undefined;
  } while (continueToken !== undefined);
  return { seconds: (performance.now() - startedAt) / 1000, pages, objects, wireBytes, jsonBytes };
}

/** One floor pass against the kubeconfig's cluster, in this process. */
export async function floorPass(kubeconfigPath: string): Promise<FloorPass> {
  const target = targetOf(kubeconfigPath);
  const { pageSize } = resolveInformerOptions({}, 0);
  const cpuBefore = process.cpuUsage();
  const startedAt = performance.now();
  try {
    const types = await Promise.all(RESOURCE_IDS.map(async (id) => [id, await listType(target, id, pageSize, startedAt)] as const));
    const seconds = (performance.now() - startedAt) / 1000;
    const cpu = process.cpuUsage(cpuBefore);
    return { seconds, cpuSeconds: (cpu.user + cpu.system) / 1e6, byType: Object.fromEntries(types) };
  } finally {
    target.agent.destroy();
  }
}

/** One pass in a child process of its own (the server's V8 flags), with the simulator's CPU over it. */
async function passInChild(kubeconfig: string, simPid: number): Promise<{ readonly pass: FloorPass; readonly simCpuSeconds: number }> {
  const simBefore = treeCpuMs(simPid);
  const child = startChild('floor', process.execPath, [...serverNodeArgs({}), '--import', 'tsx', path.relative(ROOT, fileURLToPath(import.meta.url)), '--measure', kubeconfig], { cwd: ROOT, env: { ...process.env } });
  const code = await child.exited;
  const simCpuSeconds = (treeCpuMs(simPid) - simBefore) / 1000;
  const line = child.lines.findLast((l) => l.startsWith('{'));
  if (code !== 0 || line === undefined) throw new Error(`the floor's lister ended with ${code}: ${child.lines.slice(-5).join('\n')}`);
  return { pass: JSON.parse(line) as FloorPass, simCpuSeconds };
}

/**
 * Waits until process `pid` (and its descendants) used at most `maxCoreShare` of one core over
 * `windowMs`, or `timeoutMs` passed; resolves with the seconds waited.
 */
export async function waitUntilQuiet(pid: number, options: { readonly maxCoreShare?: number; readonly windowMs?: number; readonly timeoutMs?: number } = {}): Promise<number> {
  const { maxCoreShare = 0.15, windowMs = 2000, timeoutMs = 90_000 } = options;
  const startedAt = performance.now();
  for (;;) {
    const before = treeCpuMs(pid);
    await new Promise((resolve) => setTimeout(resolve, windowMs));
    const waited = (performance.now() - startedAt) / 1000;
    if (treeCpuMs(pid) - before <= maxCoreShare * windowMs) return waited;
    if (waited * 1000 >= timeoutMs) {
      log(`the simulator is still busy after ${Math.round(waited)} s; going on`);
      return waited;
    }
  }
}

/**
 * Has the simulator collect its garbage (`POST /__sim/gc`, docs/simulator.md) so that the full
 * collection it owes after a pass over every list is not charged to the next timed phase; the
 * words for the log (empty when the simulator did not answer).
 */
async function collectSimulatorGarbage(simUrl: string): Promise<string> {
  try {
    const response = await fetch(`${simUrl}/__sim/gc`, { method: 'POST', signal: AbortSignal.timeout(120_000) });
    if (!response.ok) return '';
    const { heapBeforeMiB, heapAfterMiB, ms } = (await response.json()) as { heapBeforeMiB: number; heapAfterMiB: number; ms: number };
    return ` (its garbage collected first: heap ${heapBeforeMiB} → ${heapAfterMiB} MiB in ${ms} ms)`;
  } catch {
    return '';
  }
}

/**
 * Lets the simulator at `simUrl` (process `simPid`) settle: collects its garbage, then waits until
 * it is idle; the words for the log ("after N s", and what was collected).
 */
export async function settleSimulator(simUrl: string, simPid: number): Promise<string> {
  const collected = await collectSimulatorGarbage(simUrl);
  return `after ${r1(await waitUntilQuiet(simPid))} s${collected}`;
}

/**
 * The floor of the simulator `simPid` serves at `kubeconfig`: a first pass, then
 * {@link FLOOR_PASSES} timed ones (see the module comment), the simulator let settle before each
 * and after the last (the server starts next).
 */
export async function measureFloor(options: { readonly kubeconfig: string; readonly simPid: number; readonly simUrl: string; readonly loadAverage: number }): Promise<FloorFigures> {
  const settle = async (before: string): Promise<void> => {
    log(`simulator quiet before ${before} ${await settleSimulator(options.simUrl, options.simPid)}`);
  };
  await settle("the floor's first pass");
  const first = await passInChild(options.kubeconfig, options.simPid);
  log(`floor, first pass (the simulator serialising every object): ${r1(first.pass.seconds)} s, simulator CPU ${r1(first.simCpuSeconds)} s`);
  const passes: { readonly pass: FloorPass; readonly simCpuSeconds: number }[] = [];
  for (let i = 1; i <= FLOOR_PASSES; i++) {
    await settle(`floor pass ${i}`);
    const timed = await passInChild(options.kubeconfig, options.simPid);
    log(`floor pass ${i}: every list fetched and parsed in ${r1(timed.pass.seconds)} s (lister CPU ${r1(timed.pass.cpuSeconds)} s, simulator CPU ${r1(timed.simCpuSeconds)} s)`);
    passes.push(timed);
  }
  await settle('the server');
  const fastest = passes.reduce((a, b) => (b.pass.seconds < a.pass.seconds ? b : a));
  return { firstPass: first.pass, firstPassSimCpuSeconds: first.simCpuSeconds, pass: fastest.pass, passSimCpuSeconds: fastest.simCpuSeconds, passSeconds: passes.map((p) => p.pass.seconds), loadAverage: options.loadAverage };
}

if (process.argv[2] === '--measure' && process.argv[1] !== undefined && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const kubeconfig = process.argv[3];
  if (kubeconfig === undefined) {
    console.error('usage: npx tsx scripts/bench/list-floor.ts --measure KUBECONFIG');
    process.exit(2);
  }
  floorPass(kubeconfig).then(
    (pass) => console.log(JSON.stringify(pass)),
    (error: unknown) => {
      console.error(`floor: ${error instanceof Error ? error.message : String(error)}`);
      process.exit(1);
    },
  );
}
