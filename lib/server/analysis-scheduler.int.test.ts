/**
 * The cluster analysis pass against the simulator over real HTTP, with a generated cluster of
 * 1,500 Services and one Service per slice (`ZONESCOPE_ANALYSIS_SLICE_MS=0`) so that each pass
 * spans well over a thousand macrotasks and can be watched from between its slices:
 * - after the sync, readiness and `/api/v1/cluster` answer 503 "syncing" with the pass's progress
 *   until the first pass is done, and the event loop keeps turning meanwhile;
 * - a Node added to the cluster starts a background re-analysis: readers get the previous analysis
 *   (same object, same generation for live refresh) with "Re-analysing after a node change" in the
 *   header, then the new one, whole;
 * - a second Node added mid-pass: the pass ends with the newest cluster.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GET as readyGET } from '../../app/api/health/ready/route';
import { GET as clusterGET } from '../../app/api/v1/cluster/route';
import { generatedScenario } from '../../sim/scenario';
import type { Simulator } from '../../sim/server';
import { DEFAULT_TOKEN, startSimulator } from '../../sim/server';
import { node } from '../../sim/test-support';
import { getClusterSource, resetClusterSource } from '../k8s/source';
import type { ClusterAnalysis } from '../topology/report/analysis-schema';
import { analysisPass, getClusterAnalysis, isServing, renderGeneration, waitForAnalysis } from './analysis';
import { getHeader, getLiveState, getRenderedLiveMark } from '../views/header';
import { isBehind } from '../shared/live-refresh';
import { defaultScope } from './clusters';

const SERVICES = 1_500;
const ENV = ['KUBECONFIG', 'ZONESCOPE_SNAPSHOT', 'ZONESCOPE_CONTEXT', 'KUBERNETES_SERVICE_HOST', 'ZONESCOPE_ANALYSIS_SLICE_MS'] as const;
let sim: Simulator;
let dir: string;
let kubeconfig: string;
const saved: Partial<Record<(typeof ENV)[number], string | undefined>> = {};

/** Yields one macrotask (after pending I/O), as a request handler between two slices would run. */
const turn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** Turns the event loop until `check` holds (at most `limit` turns). */
async function until(check: () => boolean, what: string, limit = 200_000): Promise<void> {
  for (let i = 0; i < limit; i++) {
    if (check()) return;
    await turn();
  }
  throw new Error(`gave up waiting for ${what}`);
}

async function addNode(name: string, zone: string): Promise<void> {
  const response = await fetch(`${sim.url}/api/v1/nodes`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${DEFAULT_TOKEN}`, 'Content-Type': 'application/json' },
    body: JSON.stringify(node(name, zone, '8')),
  });
  if (!response.ok) throw new Error(`creating node ${name}: ${response.status} ${await response.text()}`);
}

function nodeNames(analysis: ClusterAnalysis | null): string[] {
  return (analysis?.cluster.nodes ?? []).map((n) => n.name);
}

beforeAll(async () => {
  for (const key of ENV) saved[key] = process.env[key];
  const scenario = generatedScenario(`generated:nodes=30,zones=3,services=${SERVICES},pods=3000,hpas=0,namespaces=10,seed=7`);
  if (typeof scenario === 'string') throw new Error(scenario);
  sim = await startSimulator({ port: 0, objects: scenario.objects, log: () => undefined, ...(scenario.serverVersion !== undefined ? { version: scenario.serverVersion } : {}) });
  dir = await mkdtemp(path.join(tmpdir(), 'zonescope-scheduler-'));
  kubeconfig = await sim.writeKubeconfig(path.join(dir, 'kubeconfig'));
  for (const key of ENV) Reflect.deleteProperty(process.env, key);
  process.env.KUBECONFIG = kubeconfig;
  process.env.ZONESCOPE_ANALYSIS_SLICE_MS = '0';
}, 60_000);

afterAll(async () => {
  await resetClusterSource();
  await sim?.stop();
  await rm(dir, { recursive: true, force: true });
  for (const key of ENV) {
    const value = saved[key];
    if (value === undefined) Reflect.deleteProperty(process.env, key);
    else process.env[key] = value;
  }
});

describe('the first analysis pass', () => {
  it('keeps readiness and /api/v1/cluster at 503 "syncing" with the pass progress until every Service is analysed, while the event loop turns', { timeout: 60_000 }, async () => {
    await resetClusterSource();
    expect(await getClusterSource().waitForSync(30_000)).toBe(true);

    // Listed, not analysed: not ready, and the answers say how far the analysis is.
    const ready = readyGET();
    expect(ready.status).toBe(503);
    const readyBody = (await ready.json()) as { status: string; analysis: { kind: string; done: number; total: number; message: string } | null };
    expect(readyBody.status).toBe('syncing');
    expect(readyBody.analysis?.kind).toBe('first');
    expect(readyBody.analysis?.total).toBe(SERVICES);
    const cluster = clusterGET(new Request('http://localhost:3000/api/v1/cluster'));
    expect(cluster.status).toBe(503);
    expect(cluster.headers.get('retry-after')).toBe('2');
    const clusterBody = (await cluster.json()) as { error: { code: string; message: string }; progress: { synced: boolean; analysis: { message: string } | null } };
    expect(clusterBody.error.code).toBe('syncing:cluster');
    expect(clusterBody.progress.synced).toBe(false);
    expect(clusterBody.progress.analysis?.message).toMatch(/^Analysing Services: [\d,]+ of 1,500$/);
    expect(getClusterAnalysis(defaultScope().source)).toBeNull();

    // Watched from between slices: the count climbs, never backwards, and the loop keeps turning.
    const seen: number[] = [];
    let turns = 0;
    while (!isServing(defaultScope().source)) {
      const pass = analysisPass(defaultScope().source);
      if (pass !== null) seen.push(pass.done);
      expect(readyGET().status).toBe(503);
      await turn();
      turns++;
      if (turns > 200_000) throw new Error('the first pass never finished');
    }
    expect(seen.some((done) => done > 0 && done < SERVICES)).toBe(true);
    expect(seen).toEqual([...seen].sort((a, b) => a - b));
    expect(turns).toBeGreaterThan(100);

    // Done: ready, and the cluster answers with every Service.
    expect(readyGET().status).toBe(200);
    expect(analysisPass(defaultScope().source)).toBeNull();
    const after = clusterGET(new Request('http://localhost:3000/api/v1/cluster'));
    expect(after.status).toBe(200);
    expect(getClusterAnalysis(defaultScope().source)?.services).toHaveLength(SERVICES);
    expect(getHeader(defaultScope()).freshness).toMatchObject({ synced: true, analysis: null });
  });
});

describe('a background re-analysis after a node change', () => {
  it('serves the previous analysis, says so, then swaps in the new one whole; a second node mid-pass ends with the newest', { timeout: 90_000 }, async () => {
    expect(await waitForAnalysis(30_000)).toBe(true);
    const state = getClusterSource();
    const before = getClusterAnalysis(defaultScope().source);
    expect(before).not.toBeNull();
    const beforeNodes = nodeNames(before);
    const beforeGeneration = getLiveState(defaultScope()).generation;
    expect(beforeGeneration).toBe(state.generation);

    await addNode('karpenter-1', 'zone-a');
    await until(() => analysisPass(defaultScope().source)?.kind === 'reanalysis', 'the re-analysis to start');

    // During the pass: the previous analysis, the previous generation for live refresh, and the header says why.
    expect(getClusterAnalysis(defaultScope().source)).toBe(before);
    expect(isServing(defaultScope().source)).toBe(true);
    expect(readyGET().status).toBe(200);
    const during = getHeader(defaultScope()).freshness.analysis;
    expect(during?.kind).toBe('reanalysis');
    expect(during?.message).toMatch(/^Re-analysing after a node change: [\d,]+ of 1,5\d\d Services$/);
    expect(during?.shownGeneration).toBe(beforeGeneration);
    expect(getLiveState(defaultScope()).generation).toBe(beforeGeneration);
    expect(state.generation).toBeGreaterThan(beforeGeneration);
    const pageMark = getRenderedLiveMark(defaultScope());
    expect(renderGeneration(defaultScope().source)).toBe(beforeGeneration);
    const duringBody = (await clusterGET(new Request('http://localhost:3000/api/v1/cluster')).json()) as { cluster: { nodes: { name: string }[] }; header: { freshness: { analysis: { kind: string } | null } } };
    expect(duringBody.cluster.nodes.map((n) => n.name)).toEqual(beforeNodes);
    expect(duringBody.header.freshness.analysis?.kind).toBe('reanalysis');

    // A second node while the first re-analysis runs.
    await addNode('karpenter-2', 'zone-b');
    await until(() => state.index().nodesByName.has('karpenter-2'), 'the second node to reach the cache');
    // Readers still get one whole analysis: the one from before, or one with the first new node.
    const mid = getClusterAnalysis(defaultScope().source);
    expect([beforeNodes.length, beforeNodes.length + 1]).toContain(nodeNames(mid).length);

    await until(() => analysisPass(defaultScope().source) === null && getLiveState(defaultScope()).generation === state.generation, 'the re-analysis to end on the newest generation');
    const after = getClusterAnalysis(defaultScope().source);
    expect(after).not.toBe(before);
    expect(nodeNames(after)).toEqual(expect.arrayContaining([...beforeNodes, 'karpenter-1', 'karpenter-2']));
    expect(after?.services).toHaveLength(SERVICES);
    expect(after?.cluster.totalCpuMillis).toBe((before?.cluster.totalCpuMillis ?? 0) + 16_000);
    expect(getHeader(defaultScope()).freshness.analysis).toBeNull();
    // The page rendered during the pass is now behind: live refresh re-renders it.
    expect(isBehind(pageMark, getLiveState(defaultScope()))).toBe(true);
  });
});
