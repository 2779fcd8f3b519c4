import { describe, expect, it } from 'vitest';

import { AnalysisCache, DETAIL_CACHE_SIZE, sameItems } from './analysis-cache';
import type { PreparedAnalysis } from './prepared-analysis';
import { analyzeClusterIn, analyzeClusterSteps } from './cluster-analysis';
import { prepareAnalysis, withAnalysisCache, withoutShapeSharing } from './prepared-analysis';
import { reportShapeKey } from './report-shape';
import type { ShapeMemo } from './service-computation';
import { shapeMemoFor } from './service-computation';
import type { MeasuredTraffic } from '../analyses/traffic-volume';
import { analyzeServiceIn } from './service-detail';
import type { ClusterSnapshot, EndpointSliceRecord, PodRecord, ServiceRecord } from '../model/cluster-model';
import { indexCluster } from '../model/cluster-model';
import { testEndpoints, testNode, testService, testSlice, testSnapshot, testWorkload } from '../model/test-cluster';

const AUTO = { 'service.kubernetes.io/topology-mode': 'Auto' };

/**
 * An analysis as its readers get it: the JSON (a cached pass's reports read their HPA, workload
 * and fixes on first access, through getters, and write them with `toJSON`).
 */
function asJson(value: unknown): unknown {
  return JSON.parse(JSON.stringify(value));
}

/** Six Services in two namespaces, each with its slice, pods, ReplicaSet, Deployment and HPA. */
function cluster(): ClusterSnapshot {
  type Mutable<K extends keyof ClusterSnapshot> = { -readonly [P in K]: ClusterSnapshot[P] extends readonly (infer T)[] ? T[] : never };
  const parts: Mutable<'services' | 'endpointSlices' | 'pods' | 'replicaSets' | 'deployments' | 'hpas'> = {
    services: [],
    endpointSlices: [],
    pods: [],
    replicaSets: [],
    deployments: [],
    hpas: [],
  };
  ['a', 'b', 'c', 'd', 'e', 'f'].forEach((name, i) => {
    const namespace = i < 3 ? 'team-1' : 'team-2';
    const endpoints = testEndpoints({ 'zone-a': 2 + i, 'zone-b': 2, 'zone-c': 3 }, { service: name, hinted: i % 2 === 0 });
    const workload = testWorkload(name, endpoints, { hpa: { minReplicas: 3, maxReplicas: 9 + i } });
    parts.services.push(testService(name, { namespace, annotations: i % 3 === 0 ? {} : AUTO }));
    parts.endpointSlices.push(testSlice(name, endpoints, { namespace }));
    parts.pods.push(...workload.pods.map((p) => ({ ...p, namespace })));
    parts.replicaSets.push(...workload.replicaSets.map((r) => ({ ...r, namespace })));
    parts.deployments.push(...workload.deployments.map((d) => ({ ...d, namespace })));
    parts.hpas.push(...workload.hpas.map((h) => ({ ...h, namespace })));
  });
  return testSnapshot(parts);
}

function cached(snapshot: ClusterSnapshot, previous: PreparedAnalysis | null): PreparedAnalysis {
  const index = indexCluster(snapshot);
  return previous ? prepareAnalysis(index, {}, previous) : withAnalysisCache(prepareAnalysis(index), new AnalysisCache());
}

/** The test cluster analysed once with a cache, then prepared again after a Node joined (the cache carried over, not yet run). */
function afterNodeChange(): { snapshot: ClusterSnapshot; nodes: ClusterSnapshot['nodes']; second: PreparedAnalysis } {
  const snapshot = cluster();
  const first = cached(snapshot, null);
  analyzeClusterIn(first);
  const nodes = [...snapshot.nodes, testNode('node-d', 'zone-a', '16')];
  return { snapshot, nodes, second: cached({ ...snapshot, nodes }, first) };
}

describe('AnalysisCache: re-analyse only what a change affects', () => {
  it('gives the same analysis as a fresh run, and reuses everything when nothing changed', () => {
    const snapshot = cluster();
    const first = cached(snapshot, null);
    expect(asJson(analyzeClusterIn(first))).toEqual(asJson(analyzeClusterIn(prepareAnalysis(indexCluster(snapshot)))));
    expect(first.cache?.lastRun).toMatchObject({ services: 6, computed: 6, reused: 0, full: true });
    const second = cached({ ...snapshot }, first);
    expect(asJson(analyzeClusterIn(second))).toEqual(asJson(analyzeClusterIn(prepareAnalysis(indexCluster(snapshot)))));
    expect(second.cache?.lastRun).toMatchObject({ computed: 0, reused: 6, full: false });
  });

  it('a changed EndpointSlice re-analyses only its Service', () => {
    const snapshot = cluster();
    const first = cached(snapshot, null);
    analyzeClusterIn(first);
    const slice = snapshot.endpointSlices[4] as EndpointSliceRecord;
    const changed: EndpointSliceRecord = { ...slice, resourceVersion: '2', endpoints: slice.endpoints.slice(1) };
    const next = { ...snapshot, endpointSlices: snapshot.endpointSlices.map((s) => (s === slice ? changed : s)) };
    const second = cached(next, first);
    const result = analyzeClusterIn(second);
    expect(second.cache?.lastRun).toMatchObject({ computed: 1, reused: 5 });
    expect(asJson(result)).toEqual(asJson(analyzeClusterIn(prepareAnalysis(indexCluster(next)))));
    expect(result.services.find((s) => s.name === 'e')?.observed.totalEndpoints).toBe(slice.endpoints.length - 1);
  });

  it('a changed pod re-analyses the Services of its namespace only', () => {
    const snapshot = cluster();
    const first = cached(snapshot, null);
    analyzeClusterIn(first);
    const pod = snapshot.pods.find((p) => p.namespace === 'team-2') as PodRecord;
    const next = { ...snapshot, pods: snapshot.pods.map((p) => (p === pod ? { ...pod, ready: false } : p)) };
    const second = cached(next, first);
    const result = analyzeClusterIn(second);
    expect(second.cache?.lastRun).toMatchObject({ computed: 3, reused: 3 });
    expect(asJson(result)).toEqual(asJson(analyzeClusterIn(prepareAnalysis(indexCluster(next)))));
  });

  it('a changed node or server version re-analyses everything', () => {
    const { snapshot, nodes, second } = afterNodeChange();
    expect(asJson(analyzeClusterIn(second))).toEqual(asJson(analyzeClusterIn(prepareAnalysis(indexCluster({ ...snapshot, nodes })))));
    expect(second.cache?.lastRun).toMatchObject({ computed: 6, full: true });
    const version = { gitVersion: 'v1.26.1', minor: 26, platform: null };
    const third = cached({ ...snapshot, nodes, version }, second);
    expect(asJson(analyzeClusterIn(third))).toEqual(asJson(analyzeClusterIn(prepareAnalysis(indexCluster({ ...snapshot, nodes, version })))));
    expect(third.cache?.lastRun).toMatchObject({ computed: 6, full: true });
  });

  it('a new measurement re-prices every Service from the shape results it kept; new nodes or no cache start them anew', () => {
    const snapshot = cluster();
    const index = indexCluster(snapshot);
    const first = cached(snapshot, null);
    analyzeClusterIn(first);
    const memo = shapeMemoFor(first) as ShapeMemo;
    expect(memo.size).toBe(6);
    const key = reportShapeKey(snapshot.services[1] as ServiceRecord, [snapshot.endpointSlices[1] as EndpointSliceRecord], first.context.nodeZoneByName) as string;
    const kept = memo.get(key);
    expect(kept).toBeDefined();
    // team-1/b measured at 900 GB a month, all of it in zone-a.
    const measured: MeasuredTraffic = {
      window: '7d',
      measuredAt: '2026-12-05T12:00:00Z',
      byService: new Map([['team-1/b', { kind: 'measured-flows', metric: 'beyla_network_flow_bytes_total', gbPerMonth: 900, matrix: { 'zone-a': { 'zone-a': 600, 'zone-b': 300 } } }]]),
      interZoneGbPerMonth: null,
      flowZones: 'labelled',
      reconciliation: null,
      quality: { seriesRead: 2, invalidSamples: 0, unknownZoneBytesPerSecond: 0, unattributedBytesPerSecond: 0, notes: [] },
    };
    const second = prepareAnalysis(index, { measured }, first);
    const result = analyzeClusterIn(second);
    // Every Service computed again (they are priced anew), the same as a fresh pass…
    expect(second.cache?.lastRun).toMatchObject({ computed: 6, full: true });
    expect(asJson(result)).toEqual(asJson(analyzeClusterIn(prepareAnalysis(index, { measured }))));
    expect(result.services.find((s) => s.name === 'b')?.traffic.volume.gbPerMonth).toBe(900);
    // …from the shapes' results of the first pass: the same memo, no shape computed again.
    expect(shapeMemoFor(second)).toBe(memo);
    expect(memo.size).toBe(6);
    expect(memo.get(key)).toBe(kept);
    // A node change (a new nodes list) starts the shapes anew; without a cache each pass has its own.
    const third = prepareAnalysis(indexCluster({ ...snapshot, nodes: [...snapshot.nodes, testNode('node-d', 'zone-a')] }), { measured }, second);
    expect(shapeMemoFor(third)).not.toBe(memo);
    const uncached = prepareAnalysis(index);
    expect(shapeMemoFor(uncached)).not.toBe(shapeMemoFor(uncached));
    expect(shapeMemoFor(withoutShapeSharing(first))).toBeNull();
  });

  it('after a Node change, a pass stopped part way leaves only what it computed under the new Nodes to reuse', () => {
    const { snapshot, nodes, second } = afterNodeChange();
    const steps = analyzeClusterSteps(second);
    // Two Services computed, then the pass is dropped (a newer generation arrived).
    expect(steps.next().value).toMatchObject({ done: 1, computed: 1 });
    expect(steps.next().value).toMatchObject({ done: 2, computed: 2 });
    steps.return(undefined as never);
    // The same Nodes again (an unrelated re-analysis): the two are reused, the four others (the
    // Node change dropped their entries) are computed.
    const third = cached({ ...snapshot, nodes }, second);
    expect(asJson(analyzeClusterIn(third))).toEqual(asJson(analyzeClusterIn(prepareAnalysis(indexCluster({ ...snapshot, nodes })))));
    expect(third.cache?.lastRun).toMatchObject({ services: 6, computed: 4, reused: 2 });
  });

  it('two caches over the same records, with other volumes, never take each other\'s reports', () => {
    // The reports live in the records' memos: a second analysis of the same snapshot (another
    // assumed volume) must price its own, and the first must not find the second's afterwards.
    const index = indexCluster(cluster());
    const ten = withAnalysisCache(prepareAnalysis(index, { gbPerEndpoint: 10 }), new AnalysisCache());
    const thousand = withAnalysisCache(prepareAnalysis(index, { gbPerEndpoint: 1000 }), new AnalysisCache());
    const tenFirst = asJson(analyzeClusterIn(ten));
    const thousandFirst = asJson(analyzeClusterIn(thousand));
    expect(thousandFirst).toEqual(asJson(analyzeClusterIn(prepareAnalysis(index, { gbPerEndpoint: 1000 }))));
    expect(thousandFirst).not.toEqual(tenFirst);
    expect(thousand.cache?.lastRun).toMatchObject({ services: 6, computed: 6, reused: 0 });
    // The first cache's next pass over the same index: the second one's entries are not its own.
    expect(asJson(analyzeClusterIn(ten))).toEqual(tenFirst);
    expect(ten.cache?.lastRun).toMatchObject({ services: 6, computed: 6, reused: 0 });
    // Its own, stored again, are found by the pass after.
    expect(asJson(analyzeClusterIn(ten))).toEqual(tenFirst);
    expect(ten.cache?.lastRun).toMatchObject({ services: 6, computed: 0, reused: 6 });
  });

  it('deleted and added Services are dropped and analysed', () => {
    const snapshot = cluster();
    const first = cached(snapshot, null);
    analyzeClusterIn(first);
    const next = { ...snapshot, services: [...snapshot.services.slice(1), testService('g', { namespace: 'team-3' })] };
    const second = cached(next, first);
    const result = analyzeClusterIn(second);
    expect(asJson(result)).toEqual(asJson(analyzeClusterIn(prepareAnalysis(indexCluster(next)))));
    expect(second.cache?.lastRun).toMatchObject({ services: 6, computed: 1, reused: 5 });
  });

  it('keeps Service details until their inputs change, at most DETAIL_CACHE_SIZE of them', () => {
    const snapshot = cluster();
    const first = cached(snapshot, null);
    const detail = analyzeServiceIn(first, 'team-1', 'a');
    expect(detail).toEqual(analyzeServiceIn(prepareAnalysis(indexCluster(snapshot)), 'team-1', 'a'));
    expect(analyzeServiceIn(cached({ ...snapshot }, first), 'team-1', 'a')).toBe(detail);
    const service = snapshot.services[0];
    const next = { ...snapshot, services: snapshot.services.map((s) => (s === service ? { ...s, resourceVersion: '9' } : s)) };
    expect(analyzeServiceIn(cached(next, first), 'team-1', 'a')).not.toBe(detail);
    expect(DETAIL_CACHE_SIZE).toBeGreaterThan(0);
  });

  it('sameItems compares lists by their items', () => {
    const a = { namespace: 'x' };
    expect(sameItems([a], [a])).toBe(true);
    expect(sameItems([a], [{ ...a }])).toBe(false);
    expect(sameItems(undefined, [])).toBe(false);
  });
});
