import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { stringify } from 'yaml';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import type { ClusterSnapshot, EndpointSliceRecord, HpaRecord, PodRecord } from '../topology/model/cluster-model';
import { indexCluster } from '../topology/model/cluster-model';
import { createClusterSource, indexIncrementally, listPagesAhead, LiveClusterSource, SnapshotClusterSource, UnavailableClusterSource } from './cluster-source';
import { getClusterSource, resetClusterSource } from './source';
import { snapshotFromText } from './snapshot';
import { readFileSync } from 'node:fs';

const TESTDATA = path.join(__dirname, 'testdata');
const tmp = mkdtempSync(path.join(tmpdir(), 'zonescope-state-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

function dumpSnapshot(): ClusterSnapshot {
  const result = snapshotFromText(readFileSync(path.join(TESTDATA, 'kubectl-dump.yaml'), 'utf8'), 'dump.yaml');
  if (!result.ok) throw new Error('bad testdata');
  return result.snapshot;
}

/** Maps as sorted entries, so two indexes can be compared by content. */
function content(index: ReturnType<typeof indexCluster>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(index)) {
    if (value instanceof Map) out[key] = [...value.entries()].sort(([a], [b]) => (a < b ? -1 : 1));
  }
  return out;
}

describe('indexIncrementally', () => {
  it('equals indexCluster and reuses the lookups of unchanged types', () => {
    const first = dumpSnapshot();
    const index1 = indexIncrementally(first, null);
    expect(content(index1)).toEqual(content(indexCluster(first)));

    const second: ClusterSnapshot = { ...first, services: first.services.slice(1) };
    const index2 = indexIncrementally(second, index1);
    expect(content(index2)).toEqual(content(indexCluster(second)));
    expect(index2.snapshot).toBe(second);
    expect(index2.podsByNamespace).toBe(index1.podsByNamespace); // pods unchanged: reused
    expect(index2.nodesByName).toBe(index1.nodesByName);
    expect(index2.servicesByKey).not.toBe(index1.servicesByKey);
    expect(index2.servicesByKey.size).toBe(1);
  });
});

describe('indexIncrementally: patching replaced records', () => {
  const pod = (namespace: string, name: string, ready = true): PodRecord => ({ namespace, name, labels: {}, nodeName: null, phase: 'Running', ready, terminating: false, podIP: null, owner: null });
  const slice = (namespace: string, service: string | null, name: string, rv = '1'): EndpointSliceRecord => ({
    namespace,
    name,
    resourceVersion: rv,
    serviceName: service,
    managedBy: null,
    addressType: 'IPv4',
    ports: [],
    endpoints: [],
  });
  const hpa = (name: string, target: string, min = 1): HpaRecord => ({ namespace: 'ns', name, scaleTargetRef: { kind: 'Deployment', name: target }, minReplicas: min, maxReplicas: 5, currentReplicas: null, desiredReplicas: null });
  /** Lookups with their entries in iteration order (order counts too). */
  const ordered = (index: ReturnType<typeof indexCluster>) => Object.fromEntries(Object.entries(index).filter(([, v]) => v instanceof Map).map(([k, v]) => [k, [...(v as Map<string, unknown>).entries()]]));

  it('equals indexCluster, order included, after in-place replacements, additions and removals', () => {
    const base: ClusterSnapshot = {
      ...dumpSnapshot(),
      pods: Array.from({ length: 40 }, (_, i) => pod(`ns-${i % 4}`, `p-${i}`)),
      endpointSlices: Array.from({ length: 20 }, (_, i) => slice(`ns-${i % 3}`, i % 5 === 0 ? null : `svc-${i % 7}`, `s-${i}`)),
      hpas: [hpa('a', 'web'), hpa('b', 'web'), hpa('c', 'api')],
    };
    fc.assert(
      fc.property(
        fc.array(fc.record({ kind: fc.constantFrom('pod', 'slice', 'hpa', 'add-pod', 'drop-slice'), at: fc.nat() }), { minLength: 1, maxLength: 6 }),
        (changes) => {
          let before = base;
          let index = indexIncrementally(before, null);
          for (const change of changes) {
            const after: ClusterSnapshot = { ...before };
            if (change.kind === 'pod') {
              const pods = [...before.pods];
              const i = change.at % pods.length;
              pods[i] = { ...(pods[i] as PodRecord), ready: !(pods[i] as PodRecord).ready };
              Object.assign(after, { pods });
            } else if (change.kind === 'slice') {
              const slices = [...before.endpointSlices];
              const i = change.at % slices.length;
              slices[i] = { ...(slices[i] as EndpointSliceRecord), resourceVersion: `${change.at}` };
              Object.assign(after, { endpointSlices: slices });
            } else if (change.kind === 'hpa') {
              const hpas = [...before.hpas];
              const i = change.at % hpas.length;
              hpas[i] = { ...(hpas[i] as HpaRecord), minReplicas: change.at };
              Object.assign(after, { hpas });
            } else if (change.kind === 'add-pod') {
              Object.assign(after, { pods: [...before.pods, pod(`ns-${change.at % 5}`, `new-${change.at}`)] });
            } else {
              Object.assign(after, { endpointSlices: before.endpointSlices.filter((_, i) => i !== change.at % before.endpointSlices.length) });
            }
            const next = indexIncrementally(after, index);
            expect(ordered(next)).toEqual(ordered(indexCluster(after)));
            // Groups whose records did not change keep their list.
            for (const [namespace, list] of next.podsByNamespace) {
              const old = index.podsByNamespace.get(namespace);
              if (old && old.length === list.length && old.every((p, i) => p === list[i])) expect(list).toBe(old);
            }
            before = after;
            index = next;
          }
        },
      ),
      { numRuns: 200 },
    );
  });
});

describe('SnapshotClusterSource', () => {
  it('loads a folder on start and reports every type synced', async () => {
    const state = new SnapshotClusterSource(TESTDATA);
    expect(state.isSynced()).toBe(false);
    expect(state.status('nodes').health).toBe('syncing');
    state.start();
    expect(await state.waitForSync(5000)).toBe(true);
    expect(state.mode).toBe('snapshot');
    expect(state.snapshotPath).toBe(TESTDATA);
    expect(state.connection).toBeNull();
    expect(state.serverVersion()?.gitVersion).toBe('v1.30.2-eks-db838b0');
    expect(state.status('nodes')).toMatchObject({ health: 'synced', count: 2 });
    expect(state.statuses()).toHaveLength(10);
    expect(state.problems()).toEqual([]);
    expect(state.generation).toBe(1);
    const snapshot = state.snapshot();
    expect(state.snapshot()).toBe(snapshot);
    expect(state.index()).toBe(state.index());
    expect(state.index().servicesByKey.has('shop/checkout')).toBe(true);
    expect(state.loadSummary()?.records.services).toBe(2);
    await state.stop();
  });

  it('keeps the last good snapshot and reports problems when a reload fails', async () => {
    const file = path.join(tmp, 'snap.yaml');
    writeFileSync(file, stringify({ apiVersion: 'v1', kind: 'Node', metadata: { name: 'n1' } }));
    const state = new SnapshotClusterSource(file);
    const changes: boolean[] = [];
    state.onChange((change) => changes.push(change.dataChanged));
    expect((await state.reload()).ok).toBe(true);
    writeFileSync(file, 'kind: Node\nmetadata: [');
    expect((await state.reload()).ok).toBe(false);
    expect(state.snapshot().nodes.map((n) => n.name)).toEqual(['n1']);
    expect(state.problems()[0]).toMatch(/snap\.yaml, document 1 \(line \d+, column \d+\): YAML syntax error/);
    expect(state.status('nodes')).toMatchObject({ health: 'stale', error: { kind: 'invalid' } });
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(changes.length).toBeGreaterThan(0);
  });

  it('serves a snapshot given directly', () => {
    const state = new SnapshotClusterSource({ snapshot: dumpSnapshot(), label: 'test' });
    expect(state.isSynced()).toBe(true);
    expect(state.snapshotPath).toBe('test');
    expect(state.snapshot().services).toHaveLength(2);
  });
});

describe('createClusterSource', () => {
  it('chooses a snapshot from ZONESCOPE_SNAPSHOT', () => {
    const state = createClusterSource({ ZONESCOPE_SNAPSHOT: `${TESTDATA},${path.join(tmp, 'x')}`, KUBECONFIG: '/ignored' });
    expect(state).toBeInstanceOf(SnapshotClusterSource);
    expect(state.snapshotPath).toBe(`${TESTDATA}, ${path.join(tmp, 'x')}`);
  });

  it('chooses live from KUBECONFIG and ZONESCOPE_CONTEXT', () => {
    const file = path.join(tmp, 'kubeconfig');
    writeFileSync(
      file,
      stringify({
        apiVersion: 'v1',
        kind: 'Config',
        clusters: [{ name: 'c', cluster: { server: 'https://10.0.0.1:6443' } }],
        users: [{ name: 'u', user: { token: 't' } }],
        contexts: [
          { name: 'a', context: { cluster: 'c', user: 'u' } },
          { name: 'b', context: { cluster: 'c', user: 'u' } },
        ],
        'current-context': 'a',
      }),
    );
    const state = createClusterSource({ KUBECONFIG: file, ZONESCOPE_CONTEXT: 'b', HOME: tmp });
    expect(state).toBeInstanceOf(LiveClusterSource);
    expect(state.contextName).toBe('b');
    expect(state.serverUrl).toBe('https://10.0.0.1:6443');
    expect(state.isSynced()).toBe(false);

    const missing = createClusterSource({ KUBECONFIG: file, ZONESCOPE_CONTEXT: 'zzz', HOME: tmp });
    expect(missing).toBeInstanceOf(UnavailableClusterSource);
    expect(missing.problems()[0]).toMatch(/Context "zzz" is not in the kubeconfig/);
    expect(missing.status('pods')).toMatchObject({ health: 'stale', error: { kind: 'unavailable' } });
  });

  it('is unavailable, saying why, when nothing is configured', () => {
    const state = createClusterSource({ HOME: tmp });
    expect(state).toBeInstanceOf(UnavailableClusterSource);
    expect(state.problems()[0]).toMatch(/No cluster configured/);
    expect(state.snapshot().nodes).toEqual([]);
  });
});

describe('getClusterSource', () => {
  const saved = process.env.ZONESCOPE_SNAPSHOT;
  afterEach(async () => {
    await resetClusterSource();
    if (saved === undefined) delete process.env.ZONESCOPE_SNAPSHOT;
    else process.env.ZONESCOPE_SNAPSHOT = saved;
  });

  it('creates one started source per process and returns it to every caller', async () => {
    process.env.ZONESCOPE_SNAPSHOT = TESTDATA;
    const a = getClusterSource();
    const b = getClusterSource();
    expect(a).toBe(b);
    expect(await a.waitForSync(5000)).toBe(true);
    expect(a.snapshot().nodes).toHaveLength(2);
    await resetClusterSource();
    expect(getClusterSource()).not.toBe(a);
  });
});

describe('ZONESCOPE_LIST_PAGES_AHEAD', () => {
  it('turns asking for pages ahead on or off, and leaves the default for anything else', () => {
    for (const on of ['1', 'true', 'ON', ' yes ']) expect(listPagesAhead(on), on).toBe(true);
    for (const off of ['0', 'false', 'Off', 'no']) expect(listPagesAhead(off), off).toBe(false);
    for (const other of [undefined, '', 'maybe', '2']) expect(listPagesAhead(other), String(other)).toBeUndefined();
  });
});
