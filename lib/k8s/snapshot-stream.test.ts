/**
 * Real dumps: large files stream (no "Maximum call stack size exceeded", no out-of-memory), broken
 * ones fail with a message, duplicate keys and objects are refused, folders merge, and values the
 * API server would refuse are refused.
 */
import { createWriteStream, readFileSync } from 'node:fs';
import path from 'node:path';
import { parseAllDocuments, stringify } from 'yaml';
import { describe, expect, it } from 'vitest';
import { SnapshotClusterSource } from './cluster-sources/snapshot-source';
import { createClusterSource } from './cluster-sources/create-source';
import { MAX_NESTING } from './dump-stream/dump-events';
import { JsonDumpSplitter } from './dump-stream/json-splitter';
import { flowNestingDepth, YamlDumpSplitter } from './dump-stream/yaml-splitter';
import { findDuplicateJsonKey } from './dump-stream/json-problems';
import type { DumpEvent } from './dump-stream/dump-events';
import type { SnapshotProblem, SnapshotResult } from './snapshot/results';
import { formatProblem } from './snapshot/results';
import { snapshotFromText } from './snapshot/from-text';
import { loadSnapshot } from './snapshot/load';
import { projectNode } from './wire-to-record/node';
import { dumpFolder, ok } from './snapshot-test-support';
import { configFromEnv } from '../config/config';

const { dir: tmp, write } = dumpFolder('zonescope-stream-');

function problems(result: SnapshotResult): string[] {
  if (result.ok) throw new Error('expected failure');
  expect(Object.keys(result)).toEqual(['ok', 'errors']); // nothing half-loaded
  return result.errors.map((p: SnapshotProblem) => formatProblem(p));
}

const node = (name: string, zone: string, cpu: unknown = '4'): Record<string, unknown> => ({
  apiVersion: 'v1',
  kind: 'Node',
  metadata: { name, labels: { 'topology.kubernetes.io/zone': zone } },
  status: { allocatable: { cpu }, conditions: [{ type: 'Ready', status: 'True' }] },
});

const pod = (i: number): Record<string, unknown> => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: `p-${i}`, namespace: 'shop', labels: { app: 'cart' } },
  spec: { nodeName: `n-${i % 50}` },
  status: { podIP: `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`, conditions: [{ type: 'Ready', status: 'True' }] },
});

/** Writes a `kubectl get pods -A -o json` List of `count` Pods through a stream (no giant string). */
async function writePodList(file: string, count: number): Promise<void> {
  const out = createWriteStream(file);
  const put = (text: string) => new Promise<void>((resolve) => (out.write(text) ? resolve() : out.once('drain', () => resolve())));
  await put('{\n    "apiVersion": "v1",\n    "items": [\n');
  for (let i = 0; i < count; i++) await put(`${i > 0 ? ',\n' : ''}${JSON.stringify(pod(i))}`);
  await put('\n    ],\n    "kind": "List",\n    "metadata": {\n        "resourceVersion": ""\n    }\n}\n');
  await new Promise<void>((resolve) => out.end(() => resolve()));
}

function events(splitter: (emit: (e: DumpEvent) => void) => JsonDumpSplitter | YamlDumpSplitter, text: string, chunk: number): DumpEvent[] {
  const out: DumpEvent[] = [];
  const s = splitter((e) => out.push(e));
  const bytes = Buffer.from(text);
  for (let i = 0; i < bytes.length; i += chunk) s.push(bytes.subarray(i, i + chunk));
  s.end();
  return out;
}

describe('large dumps stream', () => {
  // The loader used to spread every object into one push(): "Maximum call stack size exceeded"
  // from ~125,000 objects on, and the dashboard then said "syncing" forever. Here a List streamed
  // in small chunks, item by item; the 150,000-object List (~31 MiB) is a benchmark:
  // `npm run bench -- --scale-checks dump-150000` (scripts/bench/scale-checks.ts).
  it('loads a 3,000-object JSON List streamed in small chunks, item by item, every object in order', async () => {
    const file = path.join(tmp, 'pods.json');
    await writePodList(file, 3_000);
    const { snapshot, summary } = ok(await loadSnapshot(file, { wholeFileBytes: 0, chunkBytes: 4093 }));
    expect(snapshot.pods).toHaveLength(3_000);
    expect(snapshot.pods[2_999]?.name).toBe('p-2999');
    expect(snapshot.pods.map((p) => p.name)).toEqual(Array.from({ length: 3_000 }, (_, i) => `p-${i}`));
    expect(summary.documents).toBe(1);
  });

  it('streams YAML Lists item by item with the same result as reading the file whole', async () => {
    const items = Array.from({ length: 500 }, (_, i) => pod(i));
    const text = stringify({ apiVersion: 'v1', items, kind: 'List', metadata: { resourceVersion: '' } });
    const file = write('pods.yaml', text);
    const whole = ok(await loadSnapshot(file));
    const streamed = ok(await loadSnapshot(file, { wholeFileBytes: 0, chunkBytes: 4093 }));
    expect(streamed.snapshot).toEqual(whole.snapshot);
    expect(whole.snapshot.pods).toHaveLength(500);
  }, 20_000);

  it.each(['eks-demo', 'missing-zone-label', 'cilium-kpr', 'ipvs'])('fixture %s: YAML whole, YAML streamed and JSON streamed give the same snapshot', async (name) => {
    const file = path.join('fixtures', `${name}.yaml`);
    const whole = ok(await loadSnapshot(file));
    expect(ok(await loadSnapshot(file, { wholeFileBytes: 0, chunkBytes: 997 })).snapshot).toEqual(whole.snapshot);
    const docs = parseAllDocuments(readFileSync(file, 'utf8'))
      .map((d) => d.toJS() as unknown)
      .filter((d) => d !== null);
    const json = write(`${name}.json`, docs.map((d) => JSON.stringify(d, null, 2)).join('\n'));
    expect(ok(await loadSnapshot(json, { wholeFileBytes: 0, chunkBytes: 1009 })).snapshot).toEqual(whole.snapshot);
  }, 20_000);

  it('refuses 5 MB of unbalanced brackets (JSON and YAML) with a message, quickly', async () => {
    const json = write('brackets.json', '['.repeat(5 * 1024 * 1024));
    const yaml = write('brackets.yaml', `metadata: ${'{'.repeat(5 * 1024 * 1024)}`);
    expect(problems(await loadSnapshot(json))).toEqual([`${json}, document 1 (line 1, column ${MAX_NESTING + 1}): nesting deeper than ${MAX_NESTING} levels of [ and {: not a Kubernetes dump (unbalanced brackets?)`]);
    expect(problems(await loadSnapshot(yaml))).toEqual([`${yaml}, document 1 (line 1): [ and { nested deeper than ${MAX_NESTING} levels: not a Kubernetes dump (unbalanced brackets?)`]);
    expect(problems(await loadSnapshot(write('closing.json', ']'.repeat(1000))))[0]).toMatch(/document 1 \(line 1, column 1\): expected a Kubernetes object or List/);
    expect(problems(await loadSnapshot(write('cut.json', '{"kind": "List", "items": [{"kind": "Pod"'))) [0]).toMatch(/unexpected end of the file: 3 bracket\(s\) not closed/);
  }, 20_000);

  it('loads kubectl output appended several times to one JSON file', () => {
    const text = `${JSON.stringify({ apiVersion: 'v1', kind: 'List', items: [node('a', 'z1')] })}\n${JSON.stringify({ apiVersion: 'v1', kind: 'NodeList', items: [{ metadata: { name: 'b', labels: { 'topology.kubernetes.io/zone': 'z2' } } }] })}`;
    const { snapshot, summary } = ok(snapshotFromText(text, 'two.json'));
    expect(snapshot.nodes.map((n) => `${n.name}@${n.zone}`)).toEqual(['a@z1', 'b@z2']);
    expect(summary.documents).toBe(2);
  });
});

describe('the splitters', () => {
  it('JSON: items come one by one, the header without them, at any chunk size', () => {
    const text = '{"apiVersion":"v1","items":[{"kind":"Pod","metadata":{"name":"a\\"]}"}}, {"kind":"Pod","metadata":{"name":"b"}}],"kind":"List"}';
    for (const chunk of [1, 2, 3, 7, 1000]) {
      expect(events((emit) => new JsonDumpSplitter(emit), text, chunk)).toEqual([
        { type: 'item', document: 1, item: 0, value: { kind: 'Pod', metadata: { name: 'a"]}' } } },
        { type: 'item', document: 1, item: 1, value: { kind: 'Pod', metadata: { name: 'b' } } },
        { type: 'document', document: 1, value: { apiVersion: 'v1', items: [], kind: 'List' }, splitItems: 2 },
      ]);
    }
  });

  it('JSON: stray commas between items are syntax errors', () => {
    const errorsOf = (text: string) => events((emit) => new JsonDumpSplitter(emit), text, 4).filter((e) => e.type === 'error').map((e) => e.type === 'error' && e.message);
    expect(errorsOf('{"items": [,]}')).toEqual(['JSON syntax error: unexpected , in items']);
    expect(errorsOf('{"items": [{}, ]}')).toEqual(['JSON syntax error: unexpected ] in items']);
    expect(errorsOf('{"items": [{} {}]}')).toEqual(['JSON syntax error: expected , or ] after items[0]']);
  });

  it('YAML: a kubectl List splits into items; line numbers stay those of the file', () => {
    const text = 'apiVersion: v1\nitems:\n- kind: Pod\n  metadata:\n    name: a\n- kind: Pod\n  metadata:\n    name: [b\nkind: List\n';
    const out = events((emit) => new YamlDumpSplitter(emit, 100), text, 5);
    expect(out[0]).toEqual({ type: 'item', document: 1, item: 0, value: { kind: 'Pod', metadata: { name: 'a' } } });
    expect(out[1]).toMatchObject({ type: 'error', document: 1, item: 1, line: 9 });
    expect(out[2]).toEqual({ type: 'document', document: 1, value: { apiVersion: 'v1', items: [], kind: 'List' }, splitItems: 2 });
  });

  it('finds duplicate JSON keys by path, and bounds flow nesting', () => {
    expect(findDuplicateJsonKey('{"a": {"b": [{"c": 1, "c": 2}]}}')).toBe('a.b[0].c');
    expect(findDuplicateJsonKey('{"a": 1, "b": {"a": 2}}')).toBeNull();
    expect(flowNestingDepth('a: [1, [2, {b: 3}]]\nmessage: it is [ok] isn\'t it')).toBe(3);
  });
});

describe('refused input', () => {
  it('JSON duplicate keys: an error naming the key and the object', () => {
    const text = '{"apiVersion": "v1", "kind": "List", "items": [\n{"apiVersion": "v1", "kind": "Service", "metadata": {"name": "cart", "namespace": "shop", "annotations": {"service.kubernetes.io/topology-mode": "Auto", "service.kubernetes.io/topology-mode": "Disabled"}}}]}';
    expect(problems(snapshotFromText(text, 'dump.json'))).toEqual([
      'dump.json, document 1, items[0] (Service shop/cart): duplicate key "metadata.annotations.service.kubernetes.io/topology-mode": JSON would silently keep only its last value, and Kubernetes refuses such an object',
    ]);
    expect(problems(snapshotFromText('{"kind": "Node", "kind": "Pod", "metadata": {"name": "x"}}', 'x.json'))[0]).toMatch(/^x\.json, document 1 \(Pod x\): duplicate key "kind"/);
  });

  it.each([
    ['-4', 'status.allocatable.cpu "-4" is negative; the API server refuses a negative quantity'],
    ['1e306', 'status.allocatable.cpu "1e306" is more than 9223372036854775807m, which Kubernetes cannot count (MilliValue() is an int64)'],
    ['four', 'status.allocatable.cpu "four" is not a Kubernetes quantity (such as "4" or "3920m"); the API server refuses it'],
  ])('a Node with allocatable CPU %s is refused', (cpu, message) => {
    const text = [node('good', 'z1'), node('bad', 'z2', cpu)].map((n) => JSON.stringify(n)).join('\n');
    expect(problems(snapshotFromText(text, 'nodes.json'))).toEqual([`nodes.json, document 2 (Node bad): ${message}`]);
  });

  it('a live Node with such a CPU reads as missing CPU, never as a number that makes ratios NaN', () => {
    expect(['-4', '1e306', 'four', '4', 4].map((cpu) => projectNode(node('n', 'z1', cpu)).allocatableCpu)).toEqual([null, null, null, '4', '4']);
  });

  it('accepts a numeric CPU and the int64 maximum', () => {
    const text = [node('a', 'z1', 4), node('b', 'z2', '9223372036854775807m')].map((n) => JSON.stringify(n)).join('\n');
    expect(ok(snapshotFromText(text, 'nodes.json')).snapshot.nodes.map((n) => n.allocatableCpu)).toEqual(['4', '9223372036854775807m']);
  });
});

describe('folders', () => {
  it('merges every dump file in name order, recursively', async () => {
    write('merge/b-nodes.json', JSON.stringify({ apiVersion: 'v1', kind: 'List', items: [node('n2', 'z2')] }));
    write('merge/a-nodes.yaml', stringify(node('n1', 'z1')));
    write('merge/sub/pods.yml', stringify({ apiVersion: 'v1', kind: 'PodList', items: [{ metadata: { name: 'p', namespace: 'shop' } }] }));
    write('merge/notes.txt', 'not a dump');
    const { snapshot, summary } = ok(await loadSnapshot(path.join(tmp, 'merge')));
    expect(snapshot.nodes.map((n) => n.name)).toEqual(['n1', 'n2']);
    expect(snapshot.pods.map((p) => p.name)).toEqual(['p']);
    expect(summary.files.map((f) => path.relative(path.join(tmp, 'merge'), f))).toEqual(['a-nodes.yaml', 'b-nodes.json', path.join('sub', 'pods.yml')]);
  });

  it('refuses an object given in two files, naming both', async () => {
    const first = write('dups/1.yaml', stringify({ apiVersion: 'v1', kind: 'List', items: [node('n1', 'z1'), node('n2', 'z2')] }));
    const second = write('dups/2.json', JSON.stringify({ apiVersion: 'v1', kind: 'List', items: [node('n2', 'z2')] }));
    expect(problems(await loadSnapshot(path.join(tmp, 'dups')))).toEqual([`${second}, document 1, items[0] (Node n2): given twice: also in ${first}, document 1, items[1]; keep one of them`]);
  });
});

describe('the dashboard source', () => {
  it('ZONESCOPE_SNAPSHOT=FOLDER loads every dump file of the folder', async () => {
    write('dash/nodes.yaml', stringify({ apiVersion: 'v1', kind: 'List', items: [node('n1', 'z1'), node('n2', 'z2')] }));
    write('dash/more/pods.json', JSON.stringify({ apiVersion: 'v1', kind: 'PodList', items: [pod(1)] }));
    const source = createClusterSource(configFromEnv({ ZONESCOPE_SNAPSHOT: path.join(tmp, 'dash') }));
    source.start();
    expect(await source.waitForSync(10_000)).toBe(true);
    expect(source.index().snapshot.nodes.map((n) => n.name)).toEqual(['n1', 'n2']);
    expect(source.index().snapshot.pods).toHaveLength(1);
    await source.stop();
  });


  it('shows why a snapshot cannot be loaded instead of syncing forever', async () => {
    const file = write('broken.json', '['.repeat(100_000));
    const source = new SnapshotClusterSource(file);
    const result = await source.reload();
    expect(result.ok).toBe(false);
    expect(source.isSynced()).toBe(false);
    const status = source.status('nodes');
    expect(status.health).toBe('stale');
    expect(status.error?.message).toContain('nesting deeper than 500 levels');
    expect(source.problems()[0]).toContain(file);
    await source.stop();
  });
});
