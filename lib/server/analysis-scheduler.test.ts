/**
 * The analysis scheduler, stepped slice by slice over a small in-memory cluster: the first pass
 * serves nothing until done, small changes are analysed at once on read, a node change runs in the
 * background with the previous analysis served, a newer generation mid-pass restarts the pass on
 * the newest (keeping what it computed), a node change past half-way lets the pass finish first,
 * and every result equals a fresh analysis of the same cluster.
 */
import { describe, expect, it } from 'vitest';
import type { ResourceStatus } from '../k8s/informer/status';
import type { ClusterIndex, ClusterSnapshot } from '../topology/model/cluster-model';
import { indexCluster } from '../topology/model/cluster-model';
import { testEndpoints, testNode, testService, testSlice, testSnapshot, testZoneNodes } from '../topology/model/test-cluster';
import type { ClusterAnalysis } from '../topology/report/analysis-schema';
import { analyzeCluster } from '../topology/report/cluster-analysis';
import type { PassReport, SchedulerSource } from './analysis-scheduler';
import { configFromEnv, parseConfig } from '../config/config';
import { AnalysisScheduler, DEFAULT_SLICE_MS, sliceBudgetMs } from './analysis-scheduler';

const SERVICES = 12;

function cluster(parts: Partial<ClusterSnapshot> = {}): ClusterSnapshot {
  const names = Array.from({ length: SERVICES }, (_, i) => `svc-${String(i).padStart(2, '0')}`);
  return testSnapshot({
    services: names.map((name) => testService(name, { annotations: { 'service.kubernetes.io/topology-mode': 'Auto' } })),
    endpointSlices: names.map((name, i) => testSlice(name, testEndpoints({ 'zone-a': 1 + (i % 3), 'zone-b': 2, 'zone-c': 1 + (i % 2) }, { service: name }))),
    ...parts,
  });
}

/** A cluster source held in memory: `set` replaces the snapshot (a new generation) and notifies. */
class MemorySource implements SchedulerSource {
  generation = 1;
  synced = true;
  private snapshot: ClusterSnapshot;
  private indexed: { generation: number; index: ClusterIndex } | null = null;
  private readonly listeners = new Set<() => void>();
  constructor(snapshot: ClusterSnapshot) {
    this.snapshot = snapshot;
  }
  isSynced(): boolean {
    return this.synced;
  }
  index(): ClusterIndex {
    if (this.indexed?.generation !== this.generation) this.indexed = { generation: this.generation, index: indexCluster(this.snapshot) };
    return this.indexed.index;
  }
  statuses(): readonly ResourceStatus[] {
    return [];
  }
  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
  current(): ClusterSnapshot {
    return this.snapshot;
  }
  set(snapshot: ClusterSnapshot, notify = true): void {
    this.snapshot = snapshot;
    this.generation++;
    if (notify) for (const listener of this.listeners) listener();
  }
}

/** A scheduler whose slices run only when the test says so (one Service per slice). */
function stepped(source: MemorySource) {
  const queue: (() => void)[] = [];
  const passes: PassReport[] = [];
  const scheduler = new AnalysisScheduler(source, { options: () => ({}), sliceMs: 0, defer: (task) => queue.push(task), onPass: (report) => passes.push(report) });
  const step = (): boolean => {
    expect(queue.length).toBeLessThanOrEqual(1); // one pass, one slice queued at a time
    const task = queue.shift();
    task?.();
    return task !== undefined;
  };
  const drain = (): number => {
    let slices = 0;
    while (step()) slices++;
    return slices;
  };
  return { scheduler, queue, passes, step, drain };
}

const json = (analysis: ClusterAnalysis | null): string => JSON.stringify(analysis);
const fresh = (snapshot: ClusterSnapshot): string => json(analyzeCluster(indexCluster(snapshot)));

function withEndpoints(snapshot: ClusterSnapshot, service: string, counts: Record<string, number>): ClusterSnapshot {
  return { ...snapshot, endpointSlices: snapshot.endpointSlices.map((s) => (s.serviceName === service ? testSlice(service, testEndpoints(counts, { service })) : s)) };
}

describe('AnalysisScheduler', () => {
  it('serves nothing until the first pass is done, one Service per slice, then the same analysis as a fresh one', () => {
    const source = new MemorySource(cluster());
    const { scheduler, queue, passes, step, drain } = stepped(source);
    expect(queue).toHaveLength(1);
    expect(scheduler.analysis()).toBeNull();
    expect(scheduler.isServing()).toBe(false);
    expect(scheduler.passState()).toMatchObject({ kind: 'first', reason: null, done: 0, total: SERVICES, shownGeneration: null });
    step();
    step();
    expect(scheduler.passState()?.done).toBe(2);
    expect(scheduler.analysis()).toBeNull();
    expect(drain()).toBeGreaterThanOrEqual(SERVICES - 2);
    expect(scheduler.isServing()).toBe(true);
    expect(scheduler.passState()).toBeNull();
    expect(json(scheduler.analysis())).toBe(fresh(source.current()));
    expect(passes).toEqual([expect.objectContaining({ mode: 'sliced', full: true, computed: SERVICES, services: SERVICES, restarts: 0 })]);
  });

  it('waits for the sync before the first pass', () => {
    const source = new MemorySource(cluster());
    source.synced = false;
    const { scheduler, queue } = stepped(source);
    expect(queue).toHaveLength(0);
    expect(scheduler.analysis()).toBeNull();
    source.synced = true;
    source.set(source.current());
    expect(queue).toHaveLength(1);
    expect(scheduler.passState()?.kind).toBe('first');
  });

  it('analyses a small change at once on read, without a background pass', () => {
    const source = new MemorySource(cluster());
    const { scheduler, queue, passes, drain } = stepped(source);
    drain();
    const before = scheduler.analysis();
    source.set(withEndpoints(source.current(), 'svc-03', { 'zone-a': 5 }));
    expect(queue).toHaveLength(0);
    expect(scheduler.servedGeneration()).toBe(source.generation);
    const after = scheduler.analysis();
    expect(after).not.toBe(before);
    expect(queue).toHaveLength(0);
    expect(json(after)).toBe(fresh(source.current()));
    expect(passes.at(-1)).toMatchObject({ mode: 'sync', computed: 1, reused: SERVICES - 1, full: false });
  });

  it('re-analyses a node change in the background, serving the previous analysis and preparation until the new one is whole', () => {
    const source = new MemorySource(cluster());
    const { scheduler, queue, passes, step, drain } = stepped(source);
    drain();
    const before = scheduler.analysis();
    const beforeGeneration = source.generation;
    const beforePrepared = scheduler.prepared();
    source.set({ ...source.current(), nodes: [...testZoneNodes(), testNode('node-a2', 'zone-a', '16')] });
    expect(queue).toHaveLength(1);
    expect(scheduler.passState()).toMatchObject({ kind: 'reanalysis', reason: 'node', shownGeneration: beforeGeneration, generation: source.generation, total: SERVICES });
    step();
    step();
    expect(scheduler.analysis()).toBe(before);
    expect(scheduler.servedGeneration()).toBe(beforeGeneration);
    expect(scheduler.isServing()).toBe(true);
    // Details read meanwhile go with the served analysis, on a cache of their own.
    const during = scheduler.prepared();
    expect(during.zones).toBe(beforePrepared.zones);
    expect(during.cache).toBeDefined();
    expect(during.cache).not.toBe(beforePrepared.cache);
    drain();
    const after = scheduler.analysis();
    expect(after).not.toBe(before);
    expect(after?.cluster.totalCpuMillis).toBe((before?.cluster.totalCpuMillis ?? 0) + 16_000);
    expect(json(after)).toBe(fresh(source.current()));
    expect(scheduler.servedGeneration()).toBe(source.generation);
    expect(scheduler.prepared().cache).toBe(beforePrepared.cache);
    expect(passes.at(-1)).toMatchObject({ mode: 'sliced', full: true, computed: SERVICES });
  });

  it.each([
    ['a server version change', 'version', (s: ClusterSnapshot): ClusterSnapshot => ({ ...s, version: { gitVersion: 'v1.31.1', minor: 31, platform: null } })],
    ['a dataplane change', 'dataplane', (s: ClusterSnapshot): ClusterSnapshot => ({ ...s, proxy: { mode: 'ipvs', modeAsWritten: 'ipvs', ipvsScheduler: 'rr', source: 'kube-system/kube-proxy-config' } })],
  ] as const)('re-analyses %s in the background too', (_label, reason, change) => {
    const source = new MemorySource(cluster());
    const { scheduler, queue, drain } = stepped(source);
    drain();
    const before = scheduler.analysis();
    source.set(change(source.current()));
    expect(queue).toHaveLength(1);
    expect(scheduler.passState()?.reason).toBe(reason);
    expect(scheduler.analysis()).toBe(before);
    drain();
    expect(json(scheduler.analysis())).toBe(fresh(source.current()));
  });

  it('starts the pass on the first read when the change was not notified', () => {
    const source = new MemorySource(cluster());
    const { scheduler, queue, drain } = stepped(source);
    drain();
    const before = scheduler.analysis();
    source.set({ ...source.current(), nodes: testZoneNodes(['zone-a', 'zone-b']) }, false);
    expect(queue).toHaveLength(0);
    expect(scheduler.analysis()).toBe(before);
    expect(queue).toHaveLength(1);
    expect(scheduler.passState()?.kind).toBe('reanalysis');
    drain();
    expect(json(scheduler.analysis())).toBe(fresh(source.current()));
  });

  it('restarts on the newest generation when one arrives mid-pass, keeping what the pass computed', () => {
    const source = new MemorySource(cluster());
    const { scheduler, passes, step, drain } = stepped(source);
    drain();
    const before = scheduler.analysis();
    source.set({ ...source.current(), nodes: [...testZoneNodes(), testNode('node-b2', 'zone-b', '8')] });
    for (let i = 0; i < 4; i++) step();
    // An EndpointSlice change: the pass moves to it; the Services already computed are kept.
    source.set(withEndpoints(source.current(), 'svc-10', { 'zone-c': 4 }));
    step();
    expect(scheduler.passState()).toMatchObject({ restarts: 1, generation: source.generation });
    expect(scheduler.analysis()).toBe(before);
    drain();
    expect(json(scheduler.analysis())).toBe(fresh(source.current()));
    const last = passes.at(-1);
    expect(last).toMatchObject({ restarts: 1 });
    // Four Services were computed before the restart and kept: the restarted pass computed the rest.
    expect(last?.computed).toBe(SERVICES - 4);
    expect(last?.reused).toBe(4);
  });

  it('restarts from scratch on a second node change early in the pass, and ends with the newest', () => {
    const source = new MemorySource(cluster());
    const { scheduler, passes, step, drain } = stepped(source);
    drain();
    const count = passes.length;
    source.set({ ...source.current(), nodes: [...testZoneNodes(), testNode('node-a2', 'zone-a', '8')] });
    step();
    step();
    source.set({ ...source.current(), nodes: [...testZoneNodes(), testNode('node-a2', 'zone-a', '8'), testNode('node-c2', 'zone-c', '8')] });
    drain();
    expect(passes.length).toBe(count + 1);
    expect(passes.at(-1)).toMatchObject({ restarts: 1, computed: SERVICES });
    expect(scheduler.analysis()?.cluster.nodes.map((n) => n.name)).toEqual(expect.arrayContaining(['node-a2', 'node-c2']));
    expect(json(scheduler.analysis())).toBe(fresh(source.current()));
  });

  it('finishes a pass past half-way before a second node change, then runs the next at once: never starved', () => {
    const source = new MemorySource(cluster());
    const { scheduler, passes, step, drain } = stepped(source);
    drain();
    const count = passes.length;
    const one = { ...source.current(), nodes: [...testZoneNodes(), testNode('node-a2', 'zone-a', '8')] };
    source.set(one);
    const firstTarget = source.generation;
    for (let i = 0; i < SERVICES - 2; i++) step();
    source.set({ ...one, nodes: [...one.nodes, testNode('node-c2', 'zone-c', '8')] });
    drain();
    // Two passes: the first change published whole, then the second.
    expect(passes.slice(count).map((p) => p.generation)).toEqual([firstTarget, source.generation]);
    expect(json(scheduler.analysis())).toBe(fresh(source.current()));
    expect(scheduler.passState()).toBeNull();
  });

  it('stops scheduling when stopped, keeping what it served', () => {
    const source = new MemorySource(cluster());
    const { scheduler, queue, drain } = stepped(source);
    drain();
    const before = scheduler.analysis();
    scheduler.stop();
    source.set({ ...source.current(), nodes: testZoneNodes(['zone-a']) });
    expect(queue).toHaveLength(0);
    expect(scheduler.passState()).toBeNull();
    expect(before).not.toBeNull();
  });
});

describe('sliceBudgetMs', () => {
  it('reads ZONESCOPE_ANALYSIS_SLICE_MS as whole milliseconds from 0 to 1000; anything else stops the start', () => {
    expect(sliceBudgetMs(configFromEnv({}))).toBe(DEFAULT_SLICE_MS);
    expect(sliceBudgetMs(configFromEnv({ ZONESCOPE_ANALYSIS_SLICE_MS: '' }))).toBe(DEFAULT_SLICE_MS);
    expect(sliceBudgetMs(configFromEnv({ ZONESCOPE_ANALYSIS_SLICE_MS: '0' }))).toBe(0);
    expect(sliceBudgetMs(configFromEnv({ ZONESCOPE_ANALYSIS_SLICE_MS: ' 40 ' }))).toBe(40);
    for (const bad of ['-1', '1.5', '1001', 'fast']) {
      const result = parseConfig({ ZONESCOPE_ANALYSIS_SLICE_MS: bad });
      expect(!result.ok && result.errors[0]?.message, bad).toBe(`ZONESCOPE_ANALYSIS_SLICE_MS must be a whole number from 0 to 1000, not "${bad}".`);
    }
  });
});
