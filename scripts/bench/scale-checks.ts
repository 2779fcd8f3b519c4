/**
 * `npm run bench -- --scale-checks`: the full-scale runs of behaviours the unit tests check at a
 * size that runs fast, in this process (no build, no simulator, no server). Each case checks the
 * same property as its unit test, at the size where it once broke or where it matters, and prints
 * how long it took and how much heap it used; figures, not timed assertions. A case whose result is
 * wrong is named and the run exits 1.
 *
 * | case | unit test (small) | why the full size |
 * |---|---|---|
 * | `zones-100000` | lib/topology/report/many-zones.test.ts (1,001 and 10,000 zones) | 100,000 zones never answered once (the traffic matrix has zones² cells) |
 * | `services-10000` | lib/topology/report/cluster-analysis.test.ts (300 Services) | the L cluster's size: 10,000 Services, 150,000 endpoints, 5,000 nodes in one pass |
 * | `dump-150000` | lib/k8s/snapshot-stream.test.ts (3,000 objects, streamed) | one push() of every object overflowed the stack from ~125,000 objects on |
 * | `sim-store-30000` | sim/store.test.ts (3,000 objects) | listing page by page stays linear after a bulk load |
 * | `endpoints-5000` | components/service/endpoint-table.test.ts (the same 5,000, untimed) | sorting a large Service's endpoints on a click |
 *
 * The last line printed is one JSON object: `{ scaleChecks: [{ name, ok, ms, heapMiB, problems, … }] }`.
 */
import { createWriteStream, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { EndpointView } from '../../lib/topology/analyses/analyze-service';
import { tooManyTrafficZones } from '../../lib/topology/analyses/traffic';
import type { EndpointSliceRecord, NodeRecord, ServiceRecord } from '../../lib/topology/model/cluster-model';
import { indexCluster } from '../../lib/topology/model/cluster-model';
import { testCluster, testEndpoints, testNode, testService, testSlice, testSnapshot } from '../../lib/topology/model/test-cluster';
import { analyzeClusterIn } from '../../lib/topology/report/cluster-analysis';
import { prepareAnalysis } from '../../lib/topology/report/prepared-analysis';
import { analyzeServiceIn } from '../../lib/topology/report/service-detail';
import type { Endpoint } from '../../lib/topology/upstream/types';
import { loadSnapshot } from '../../lib/k8s/snapshot/load';
import { ObjectStore } from '../../sim/store';
import { filterAndSortEndpoints } from '../../components/service/endpoint-table';

const AUTO = { 'service.kubernetes.io/topology-mode': 'Auto' };

/** One case's outcome. */
export interface ScaleCheck {
  readonly name: string;
  readonly what: string;
  readonly ok: boolean;
  readonly ms: number;
  /** Heap used after the case, before its data is dropped. */
  readonly heapMiB: number;
  readonly problems: readonly string[];
  readonly figures: Readonly<Record<string, number>>;
}

interface CaseRun {
  readonly problems: string[];
  readonly figures?: Record<string, number>;
}

/** `problems` collects every check that does not hold (a case goes on after one). */
function check(problems: string[], holds: boolean, what: string): void {
  if (!holds) problems.push(what);
}

/** `zones` zones of one 4-CPU node each; Service `web` with one endpoint in every zone but the first, or in every zone. */
function manyZones(zones: number, everyZone: boolean): CaseRun {
  const problems: string[] = [];
  const names = Array.from({ length: zones }, (_, i) => `z-${String(i).padStart(6, '0')}`);
  const counts = Object.fromEntries(names.slice(everyZone ? 0 : 1).map((zone) => [zone, 1]));
  const cluster = testCluster({ nodes: names.map((zone, i) => testNode(`n-${i}`, zone)), services: [testService('web', { annotations: AUTO })], endpointSlices: [testSlice('web', testEndpoints(counts))] });
  const prepared = prepareAnalysis(cluster, {});
  const analysis = analyzeClusterIn(prepared);
  const [report] = analysis.services;
  check(problems, report?.unknown.crossZone === tooManyTrafficZones(zones), 'the cluster pass says cross-zone figures are unknown for so many zones');
  check(problems, analysis.cluster.zones.length === zones, `the cluster pass lists all ${zones} zones`);
  if (everyZone) check(problems, report?.expected.hintsEnabled === true, 'hints expected on with an endpoint in every zone');
  else check(problems, report?.expected.event?.message === `Insufficient number of endpoints (${zones - 1} endpoints, ${zones} zones), addressType: IPv4`, "the controller's event for too few endpoints");
  const detail = analyzeServiceIn(prepared, 'default', 'web');
  check(problems, detail?.unknown.crossZone === tooManyTrafficZones(zones), 'the Service detail says cross-zone figures are unknown');
  check(problems, detail?.fixes.every((f) => f.kind !== 'add-endpoints' && f.kind !== 'remove-endpoints') === true, 'no endpoint fix is searched for');
  check(problems, detail?.lints.some((l) => l.id === 'too-many-zones') === true, 'the too-many-zones lint');
  return { problems };
}

/** 10,000 Services (half Auto) of 15 endpoints each over 5,000 nodes in 3 zones. */
function manyServices(services: number, endpointsPerService: number, nodeCount: number): CaseRun {
  const problems: string[] = [];
  const zones = ['us-east-1a', 'us-east-1b', 'us-east-1c'];
  const nodes: NodeRecord[] = Array.from({ length: nodeCount }, (_, i) => testNode(`node-${i}`, zones[i % 3] ?? null, '3920m'));
  const records: ServiceRecord[] = [];
  const slices: EndpointSliceRecord[] = [];
  for (let s = 0; s < services; s++) {
    const name = `svc-${s}`;
    records.push({ ...testService(name, s % 2 === 0 ? { annotations: AUTO } : {}), namespace: `ns-${s % 50}` });
    const endpoints: Endpoint[] = Array.from({ length: endpointsPerService }, (_, e) => {
      const node = nodes[(s * 7 + e * 13) % nodeCount] as NodeRecord;
      return { addresses: [`10.${s >> 8}.${s & 255}.${e}`], zone: node.zone, nodeName: node.name, ready: true, hints: s % 2 === 0 ? { forZones: [node.zone ?? ''] } : null };
    });
    slices.push({ ...testSlice(name, endpoints), namespace: `ns-${s % 50}` });
  }
  const started = performance.now();
  const prepared = prepareAnalysis(indexCluster(testSnapshot({ nodes, services: records, endpointSlices: slices })));
  const result = analyzeClusterIn(prepared);
  const passMs = performance.now() - started;
  check(problems, result.services.length === services, `a report for each of the ${services} Services`);
  check(problems, result.cluster.summary.hintsExpectedOn === services / 2, 'hints expected on for every Auto Service');
  check(problems, analyzeServiceIn(prepared, 'ns-2', 'svc-2')?.expected.hintsEnabled === true, 'the detail of an Auto Service expects hints');
  return { problems, figures: { services, endpoints: services * endpointsPerService, nodes: nodeCount, clusterPassMs: Math.round(passMs) } };
}

/** A `kubectl get pods -A -o json` List of `count` Pods, written through a stream. */
async function writePodList(file: string, count: number): Promise<void> {
  const out = createWriteStream(file);
  const put = (text: string) => new Promise<void>((resolve) => (out.write(text) ? resolve() : out.once('drain', () => resolve())));
  await put('{\n    "apiVersion": "v1",\n    "items": [\n');
  for (let i = 0; i < count; i++) {
    const pod = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: `p-${i}`, namespace: 'shop', labels: { app: 'cart' } },
      spec: { nodeName: `n-${i % 50}` },
      status: { podIP: `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`, conditions: [{ type: 'Ready', status: 'True' }] },
    };
    await put(`${i > 0 ? ',\n' : ''}${JSON.stringify(pod)}`);
  }
  await put('\n    ],\n    "kind": "List",\n    "metadata": {\n        "resourceVersion": ""\n    }\n}\n');
  await new Promise<void>((resolve) => out.end(() => resolve()));
}

async function bigDump(count: number): Promise<CaseRun> {
  const problems: string[] = [];
  const dir = mkdtempSync(path.join(tmpdir(), 'zonescope-scale-'));
  try {
    const file = path.join(dir, 'pods.json');
    await writePodList(file, count);
    const bytes = statSync(file).size;
    const started = performance.now();
    const result = await loadSnapshot(file);
    const loadMs = performance.now() - started;
    if (!result.ok) problems.push(`the dump loads (${result.errors.length} problem(s))`);
    else {
      check(problems, result.snapshot.pods.length === count, `all ${count} Pods`);
      check(problems, result.snapshot.pods[count - 1]?.name === `p-${count - 1}`, 'the last Pod last');
      check(problems, result.summary.documents === 1, 'one document');
    }
    return { problems, figures: { objects: count, fileMiB: Math.round((bytes / 2 ** 20) * 10) / 10, loadMs: Math.round(loadMs) } };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function simStore(count: number): CaseRun {
  const problems: string[] = [];
  const store = new ObjectStore({ historySize: 100 });
  const loadStarted = performance.now();
  for (let i = 0; i < count; i++) store.create('pods', { apiVersion: 'v1', kind: 'Pod', metadata: { name: `p${i}`, namespace: `ns${i % 30}` } });
  const loadMs = performance.now() - loadStarted;
  const started = performance.now();
  let listed = 0;
  let pages = 0;
  let startAfter: string | undefined;
  for (;;) {
    const page = store.list('pods', { limit: 500, ...(startAfter !== undefined ? { startAfter } : {}) });
    listed += page.items.length;
    pages += 1;
    if (!page.more) break;
    startAfter = page.lastKey;
  }
  const pagedMs = performance.now() - started;
  check(problems, listed === count, `every one of the ${count} objects listed`);
  check(problems, store.list('pods', { namespace: 'ns7' }).items.length === count / 30, 'a namespace lists its share');
  return { problems, figures: { objects: count, bulkLoadMs: Math.round(loadMs), pages, pagedListMs: Math.round(pagedMs) } };
}

function endpointSort(count: number): CaseRun {
  const problems: string[] = [];
  const many: EndpointView[] = Array.from({ length: count }, (_, i) => {
    const zone = ['a', 'b', 'c'][i % 3] ?? 'a';
    const address = `10.1.${Math.floor(i / 250)}.${i % 250}`;
    return { address, podName: `pod-${address}`, nodeName: `node-${zone}`, zone, ready: true, serving: true, terminating: false, observedHints: [zone], expectedHints: [zone], donatedTo: null };
  });
  const started = performance.now();
  const sorted = filterAndSortEndpoints(many, '10.1.1', 'pod', 'desc');
  const all = filterAndSortEndpoints(many, '', 'address', 'asc');
  const sortMs = (performance.now() - started) / 2;
  check(problems, sorted.length > 0 && sorted.every((e) => e.address.includes('10.1.1')), 'the filter keeps only matching addresses');
  check(problems, all.length === count, 'no filter keeps every endpoint');
  return { problems, figures: { endpoints: count, sortMs: Math.round(sortMs * 10) / 10 } };
}

const CASES: readonly { readonly name: string; readonly what: string; readonly run: () => CaseRun | Promise<CaseRun> }[] = [
  { name: 'zones-100000', what: '100,000 zones, an endpoint in all but one: cluster pass and Service detail', run: () => manyZones(100_000, false) },
  { name: 'zones-100000-every-zone', what: '100,000 zones, an endpoint in every zone: cluster pass and Service detail', run: () => manyZones(100_000, true) },
  { name: 'services-10000', what: '10,000 Services over 150,000 endpoints and 5,000 nodes in one pass', run: () => manyServices(10_000, 15, 5_000) },
  { name: 'dump-150000', what: 'one 150,000-object JSON List (~31 MiB) loaded item by item', run: () => bigDump(150_000) },
  { name: 'sim-store-30000', what: "the simulator's store: 30,000 objects listed 500 a page after a bulk load", run: () => simStore(30_000) },
  { name: 'endpoints-5000', what: "a Service's 5,000 endpoints filtered and sorted, as on a click", run: () => endpointSort(5_000) },
];

/** Runs every case (or those named in `only`) one after the other; prints a line per case. */
export async function runScaleChecks(only: readonly string[] = [], print: (line: string) => void = (line) => console.log(line)): Promise<ScaleCheck[]> {
  const unknown = only.filter((name) => !CASES.some((c) => c.name === name));
  if (unknown.length > 0) throw new Error(`unknown scale check(s) ${unknown.join(', ')}; the cases are ${CASES.map((c) => c.name).join(', ')}`);
  const results: ScaleCheck[] = [];
  for (const c of CASES.filter((x) => only.length === 0 || only.includes(x.name))) {
    const started = performance.now();
    let outcome: CaseRun;
    try {
      outcome = await c.run();
    } catch (error) {
      outcome = { problems: [`threw: ${error instanceof Error ? error.message : String(error)}`] };
    }
    const ms = Math.round(performance.now() - started);
    const heapMiB = Math.round(process.memoryUsage().heapUsed / 2 ** 20);
    const result: ScaleCheck = { name: c.name, what: c.what, ok: outcome.problems.length === 0, ms, heapMiB, problems: outcome.problems, figures: outcome.figures ?? {} };
    results.push(result);
    const figures = Object.entries(result.figures)
      .map(([k, v]) => `${k} ${v}`)
      .join(', ');
    print(`${result.ok ? 'ok  ' : 'FAIL'} ${c.name.padEnd(24)} ${String(ms).padStart(7)} ms  heap ${String(heapMiB).padStart(5)} MiB  ${c.what}${figures ? ` (${figures})` : ''}`);
    for (const problem of result.problems) print(`       not so: ${problem}`);
  }
  return results;
}
