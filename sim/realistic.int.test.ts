/**
 * The simulator as a stand-in for a real cluster: loaded with a realistic dump (the
 * `generated:realistic-S` generator: Helm workloads, old ReplicaSets, terminating and NotReady
 * pods, EndpointSlices as the real controller writes them), its controllers write nothing, and
 * the dump written to disk loads in `analyze` and `sim --snapshot` alike. Over real HTTP.
 *
 * The controllers work on `setImmediate`, with no timers: flushing them (every queued sync now)
 * settles them, so "writes nothing" is checked on the settled simulator. That it then stays idle
 * for a long while is measured by `npx tsx scripts/bench/sim-idle.ts` (exit code 1 when the
 * resourceVersion moves).
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { loadSnapshot } from '../lib/k8s/snapshot/load';
import { writeGeneratedDump } from '../scripts/fixtures';
import type { SimChange, SimController } from './controller';
import { createEndpointSliceController } from './controllers/endpointslice-controller';
import { createWorkloadsController } from './controllers/workloads-controller';
import { defaultControllers } from './default-controllers';
import { generatedScenario, loadScenarioFile } from './scenario';
import type { Simulator } from './server';
import { startSimulator } from './server';
import { settleControllers } from './test-support';
import type { KubeObject } from './types';

const run = promisify(execFile);

/** A controller that only records every committed change (started first, so it sees the others' writes). */
function recorder(): SimController & { changes: string[] } {
  const changes: string[] = [];
  return {
    name: 'recorder',
    changes,
    start(ctx) {
      ctx.subscribe('*', (change: SimChange) => changes.push(`${change.type} ${change.resource} ${change.object.metadata.namespace ?? ''}/${change.object.metadata.name}`));
    },
    stop() {},
  };
}

async function getJson(sim: Simulator, path: string): Promise<Record<string, unknown>> {
  const response = await fetch(`${sim.url}${path}`, { headers: { Authorization: `Bearer ${sim.token}` } });
  expect(response.status, path).toBe(200);
  return (await response.json()) as Record<string, unknown>;
}

async function listResourceVersion(sim: Simulator): Promise<string> {
  const list = await getJson(sim, '/api/v1/pods?limit=1');
  return String((list.metadata as { resourceVersion: string }).resourceVersion);
}

function realisticS(): KubeObject[] {
  const scenario = generatedScenario('generated:realistic-S');
  if (typeof scenario === 'string') throw new Error(scenario);
  return scenario.objects;
}

describe('the simulator on a realistic dump (realistic-S)', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'zonescope-realistic-'));
  });
  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it('settles with no write at all: its controllers, settled, leave the resourceVersion as loaded', async () => {
    const objects = realisticS();
    const rec = recorder();
    const controllers = [createWorkloadsController(), createEndpointSliceController()];
    const sim = await startSimulator({ port: 0, objects, controllers: [rec, ...controllers], version: 'v1.31.4-eks-2d98532', log: () => undefined });
    try {
      expect(rec.changes).toEqual([]);
      const before = await listResourceVersion(sim);
      const version = await getJson(sim, '/version');
      expect(version.gitVersion).toBe('v1.31.4-eks-2d98532');
      settleControllers(sim.store, controllers);
      expect(await listResourceVersion(sim)).toBe(before);
      expect(rec.changes).toEqual([]);
      // Every pod of the dump is still there, the terminating ones included, as loaded.
      const pods = (await getJson(sim, '/api/v1/pods')).items as KubeObject[];
      expect(pods).toHaveLength(objects.filter((o) => o.kind === 'Pod').length);
      expect(pods.filter((p) => typeof p.metadata.deletionTimestamp === 'string').length).toBeGreaterThan(0);
      const replicaSets = (await getJson(sim, '/apis/apps/v1/replicasets')).items as KubeObject[];
      expect(replicaSets).toHaveLength(objects.filter((o) => o.kind === 'ReplicaSet').length);
    } finally {
      await sim.stop();
    }
  });

  it('still reacts after settling: scaling a Deployment down creates the writes it should', async () => {
    const objects = realisticS();
    const rec = recorder();
    const controllers = [createWorkloadsController(), createEndpointSliceController()];
    const sim = await startSimulator({ port: 0, objects, controllers: [rec, ...controllers], version: 'v1.31.4-eks-2d98532', log: () => undefined });
    try {
      const deployments = (await getJson(sim, '/apis/apps/v1/deployments')).items as KubeObject[];
      const target = deployments.find((d) => ((d.spec as { replicas: number }).replicas ?? 0) >= 3) as KubeObject;
      const namespace = target.metadata.namespace ?? '';
      const response = await fetch(`${sim.url}/apis/apps/v1/namespaces/${namespace}/deployments/${target.metadata.name}/scale`, {
        method: 'PATCH',
        headers: { Authorization: `Bearer ${sim.token}`, 'Content-Type': 'application/merge-patch+json' },
        body: JSON.stringify({ spec: { replicas: 1 } }),
      });
      expect(response.status).toBe(200);
      await expect.poll(() => rec.changes.some((c) => c.startsWith(`DELETED pods ${namespace}/${target.metadata.name}-`)), { message: 'the scale-down deletes pods' }).toBe(true);
      // Once settled, nothing more.
      settleControllers(sim.store, controllers);
      const before = await listResourceVersion(sim);
      settleControllers(sim.store, controllers);
      expect(await listResourceVersion(sim)).toBe(before);
    } finally {
      await sim.stop();
    }
  });

  it('written as a kubectl -o json dump, it loads in analyze and in sim --snapshot', async () => {
    const written = writeGeneratedDump('realistic-S', dir);
    expect(typeof written).toBe('number');
    const snapshot = await loadSnapshot(dir);
    if (!snapshot.ok) throw new Error(JSON.stringify(snapshot.errors));
    expect(snapshot.snapshot.services).toHaveLength(100);

    const { stdout } = await run(process.execPath, ['--import', 'tsx', 'cli/analyze.ts', '--snapshot', dir, '--format', 'json'], { cwd: process.cwd(), maxBuffer: 64 * 1024 * 1024 });
    const report = JSON.parse(stdout) as { cluster: { zones: { name: string }[] }; services: unknown[] };
    expect(report.services).toHaveLength(100);
    expect(report.cluster.zones.map((z) => z.name)).toEqual(['us-east-1a', 'us-east-1b', 'us-east-1c']);

    const scenario = await loadScenarioFile(join(dir, 'cluster.json'));
    expect(scenario.objects).toHaveLength(written as number);
    // Read as a stream, item by item (what a dump larger than one string takes): the same objects.
    const streamed = await loadScenarioFile(join(dir, 'cluster.json'), { streamJsonAboveBytes: 0 });
    expect(streamed.objects.map((o) => `${o.kind}/${o.metadata.namespace ?? ''}/${o.metadata.name}`)).toEqual(scenario.objects.map((o) => `${o.kind}/${o.metadata.namespace ?? ''}/${o.metadata.name}`));
    expect(streamed.objects[0]).toEqual(scenario.objects[0]);
    const rec = recorder();
    const sim = await startSimulator({ port: 0, objects: scenario.objects, controllers: [rec, ...defaultControllers()], version: 'v1.31.4-eks-2d98532', log: () => undefined });
    try {
      expect(rec.changes).toEqual([]);
      const services = (await getJson(sim, '/api/v1/services')).items as KubeObject[];
      expect(services).toHaveLength(100);
    } finally {
      await sim.stop();
    }
  }, 30_000);
});

describe('npm run sim -- --scenario generated:realistic-…', () => {
  it('rejects an unknown size with exit code 2, naming the sizes', async () => {
    const failure = await run(process.execPath, ['--import', 'tsx', 'sim/cli.ts', '--scenario', 'generated:realistic-XL'], { cwd: process.cwd() }).then(
      () => null,
      (error: unknown) => error as { code: number; stderr: string },
    );
    expect(failure?.code).toBe(2);
    expect(failure?.stderr).toContain('sim: unknown realistic size "XL" (expected realistic-S, realistic-M or realistic-L)');
  });
});

describe('autoscaling/v1 HorizontalPodAutoscalers', () => {
  it('serves v2 objects as v1 (targetCPUUtilizationPercentage, the rest in annotations), with discovery', async () => {
    const hpa: KubeObject = {
      apiVersion: 'autoscaling/v2', kind: 'HorizontalPodAutoscaler',
      metadata: { name: 'web', namespace: 'shop' },
      spec: {
        scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' }, minReplicas: 2, maxReplicas: 10,
        metrics: [
          { type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 70 } } },
          { type: 'Resource', resource: { name: 'memory', target: { type: 'Utilization', averageUtilization: 80 } } },
        ],
      },
      status: { currentReplicas: 3, desiredReplicas: 4, currentMetrics: [{ type: 'Resource', resource: { name: 'cpu', current: { averageUtilization: 91, averageValue: '455m' } } }] },
    };
    const sim = await startSimulator({ port: 0, objects: [hpa], log: () => undefined });
    try {
      const v1 = await getJson(sim, '/apis/autoscaling/v1/namespaces/shop/horizontalpodautoscalers/web');
      expect(v1.apiVersion).toBe('autoscaling/v1');
      expect(v1.spec).toEqual({ scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' }, minReplicas: 2, maxReplicas: 10, targetCPUUtilizationPercentage: 70 });
      expect(v1.status).toEqual({ currentReplicas: 3, desiredReplicas: 4, currentCPUUtilizationPercentage: 91 });
      const annotations = (v1.metadata as { annotations: Record<string, string> }).annotations;
      expect(JSON.parse(annotations['autoscaling.alpha.kubernetes.io/metrics'] ?? '[]')).toEqual([{ type: 'Resource', resource: { name: 'memory', target: { type: 'Utilization', averageUtilization: 80 } } }]);
      const list = await getJson(sim, '/apis/autoscaling/v1/horizontalpodautoscalers');
      expect(list.kind).toBe('HorizontalPodAutoscalerList');
      expect((list.items as KubeObject[]).map((i) => i.apiVersion)).toEqual(['autoscaling/v1']);
      // v2 stays the stored, preferred version.
      const v2 = await getJson(sim, '/apis/autoscaling/v2/namespaces/shop/horizontalpodautoscalers/web');
      expect((v2.spec as { metrics: unknown[] }).metrics).toHaveLength(2);
      const group = await getJson(sim, '/apis/autoscaling');
      expect(group.versions).toEqual([{ groupVersion: 'autoscaling/v2', version: 'v2' }, { groupVersion: 'autoscaling/v1', version: 'v1' }]);
      expect(group.preferredVersion).toEqual({ groupVersion: 'autoscaling/v2', version: 'v2' });
      const resources = await getJson(sim, '/apis/autoscaling/v1');
      expect((resources.resources as { name: string }[]).map((r) => r.name)).toContain('horizontalpodautoscalers');

      // Created through v1, it reads back through v2 with the CPU metric.
      const created = await fetch(`${sim.url}/apis/autoscaling/v1/namespaces/shop/horizontalpodautoscalers`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${sim.token}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ apiVersion: 'autoscaling/v1', kind: 'HorizontalPodAutoscaler', metadata: { name: 'api', namespace: 'shop' }, spec: { scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'api' }, maxReplicas: 5, targetCPUUtilizationPercentage: 55 } }),
      });
      expect(created.status).toBe(201);
      const back = await getJson(sim, '/apis/autoscaling/v2/namespaces/shop/horizontalpodautoscalers/api');
      expect((back.spec as { metrics: unknown[] }).metrics).toEqual([{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 55 } } }]);
    } finally {
      await sim.stop();
    }
  });
});
