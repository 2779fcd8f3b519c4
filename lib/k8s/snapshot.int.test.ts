/**
 * What kubectl really prints loads as a snapshot: dump the simulator with kubectl (YAML and
 * JSON), load the dump, and compare with what the live source reads from the same simulator.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { createEndpointSliceController } from '../../sim/controllers/endpointslice-controller';
import { createWorkloadsController } from '../../sim/controllers/workloads-controller';
import { loadScenario } from '../../sim/scenario';
import { startSimulator } from '../../sim/server';
import { settleControllers } from '../../sim/test-support';
import type { ClusterSnapshot } from '../topology/model/cluster-model';
import { LiveClusterSource } from './cluster-sources/live-source';
import { RESOURCE_IDS } from './resources';
import { createConnection } from './connection';
import { formatProblem } from './snapshot/results';
import { loadSnapshot } from './snapshot/load';

const run = promisify(execFile);
const KUBECTL = '/usr/bin/kubectl';
const tmp = mkdtempSync(path.join(tmpdir(), 'zonescope-kubectl-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** JSON with object keys sorted (kubectl prints maps sorted; the API server keeps insertion order). */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    typeof v === 'object' && v !== null && !Array.isArray(v) ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : 1))) : v,
  );
}

function comparable(snapshot: ClusterSnapshot): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(snapshot)) out[key] = Array.isArray(value) ? value.map(canonical).sort() : canonical(value);
  return out;
}

describe.skipIf(!existsSync(KUBECTL))('kubectl dumps', () => {
  it('a kubectl -o yaml / -o json dump of the simulator loads back as the same cluster', async () => {
    const scenario = await loadScenario('eks-demo');
    // The controllers `npm run sim` runs, kept here to settle them (flush: every queued sync now).
    const controllers = [createWorkloadsController(), createEndpointSliceController()];
    const sim = await startSimulator({
      port: 0,
      log: () => undefined,
      objects: scenario.objects,
      controllers,
      // Bookmarks carry the simulator's current resourceVersion: how the live source is seen to have caught up.
      bookmarkIntervalMs: 100,
      ...(scenario.serverVersion ? { version: scenario.serverVersion } : {}),
    });
    const connection = createConnection({ kubeconfigText: sim.kubeconfig() });
    if (!connection.ok) throw new Error(connection.message);
    const live = new LiveClusterSource(connection.connection);
    try {
      const kubeconfig = await sim.writeKubeconfig(path.join(tmp, 'kubeconfig'));
      live.start();
      expect(await live.waitForSync(5000)).toBe(true);
      // Settle the simulator's controllers (until a flush writes nothing), then wait until every
      // type of the live source has seen the simulator's resourceVersion: the comparison point.
      settleControllers(sim.store, controllers);
      const settledAt = String(sim.store.resourceVersion);
      await expect
        .poll(() => RESOURCE_IDS.filter((id) => live.status(id).resourceVersion !== settledAt), { message: `every type at resourceVersion ${settledAt}`, timeout: 5000, interval: 20 })
        .toEqual([]);
      expect(String(sim.store.resourceVersion)).toBe(settledAt);

      const kubectl = async (...args: string[]): Promise<string> =>
        (await run(KUBECTL, ['--kubeconfig', kubeconfig, ...args], { maxBuffer: 64 * 1024 * 1024 })).stdout;
      const yamlDir = path.join(tmp, 'yaml');
      const jsonDir = path.join(tmp, 'json');
      for (const [dir, format] of [[yamlDir, 'yaml'], [jsonDir, 'json']] as const) {
        const ext = format === 'yaml' ? 'yaml' : 'json';
        const main = await kubectl('get', 'nodes,services,endpointslices,pods,deployments,replicasets,hpa,events', '-A', '-o', format);
        const kubeSystem = await kubectl('get', 'configmaps,daemonsets', '-n', 'kube-system', '-o', format);
        const version = await kubectl('get', '--raw', '/version');
        for (const [name, text] of [[`cluster.${ext}`, main], [`kube-system.${ext}`, kubeSystem], ['version.json', version]] as const) {
          const file = path.join(dir, name);
          mkdirSync(dir, { recursive: true });
          writeFileSync(file, text);
        }
      }

      const want = comparable(live.snapshot());
      for (const dir of [yamlDir, jsonDir]) {
        const loaded = await loadSnapshot(dir);
        if (!loaded.ok) throw new Error(loaded.errors.map(formatProblem).join('\n'));
        expect(comparable(loaded.snapshot), dir).toEqual(want);
        expect(loaded.summary.versionSource).toContain('version.json');
      }
    } finally {
      await live.stop();
      await sim.stop();
    }
  }, 20_000);
});
