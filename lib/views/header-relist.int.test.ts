/**
 * The header while the API server's history went backwards, against the simulator over real
 * HTTP: the page's cluster is a live source, the simulator restarts on an older state, and the
 * header data says it is re-listing (pages keep the previous data) until every type is swapped.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { Simulator } from '../../sim/server';
import { startSimulator } from '../../sim/server';
import { node, service } from '../../sim/test-support';
import { LiveClusterSource } from '../k8s/cluster-sources/live-source';
import { createConnection } from '../k8s/connection';
import { resetClusterSource } from '../k8s/source';
import { getHeader } from './header';

let sim: Simulator | null = null;
let live: LiveClusterSource | null = null;

afterEach(async () => {
  await resetClusterSource();
  await live?.stop();
  live = null;
  await sim?.stop();
  sim = null;
});

describe('header freshness when the history goes backwards', () => {
  it('says "Re-listing after the API server\'s history went backwards" while the old data is shown, then is live again', { timeout: 15_000 }, async () => {
    sim = await startSimulator({ port: 0, log: () => undefined, objects: [node('old-node', 'us-east-1a'), ...Array.from({ length: 13 }, (_, i) => service(`old-${i + 1}`, 'shop'))] });
    const connection = createConnection({ kubeconfigText: sim.kubeconfig(), requestTimeoutMs: 2000 });
    if (!connection.ok) throw new Error(connection.message);
    const state = new LiveClusterSource(connection.connection, { informer: { backoff: { initialMs: 20, maxMs: 200 }, listTimeoutMs: 2000 } });
    live = state;
    // The cluster as pages read it: its registry entry and this source.
    const scope = { id: 'sim', entry: { id: 'sim', context: 'zonescope-sim', displayName: 'sim', server: sim.url, isDefault: true, configError: null }, source: state };
    state.start();
    expect(await state.waitForSync(5000)).toBe(true);
    expect(getHeader(scope).freshness.relisting).toBeNull();

    // Every watch open first: a watch still on its way would reach the restarted server, which
    // accepts it and stays silent until the watchdog (as kube-apiserver would).
    const deadlineOpen = Date.now() + 5000;
    while (sim.stats.openWatches() < state.statuses().length) {
      if (Date.now() > deadlineOpen) throw new Error('the watches never opened');
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    // The restarted server lists Services slowly: the re-list lasts long enough to be seen.
    sim.faults.add({ type: 'latency', ms: 400, verb: 'list', resource: 'services' });
    sim.restore({ objects: [node('new-node', 'us-east-1a'), service('new-1', 'shop')], fromResourceVersion: 0 });
    const deadline = Date.now() + 5000;
    while (state.relisting() === null) {
      if (Date.now() > deadline) throw new Error('the re-list never began');
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    const during = getHeader(scope).freshness;
    expect(during.relisting?.message).toBe("Re-listing after the API server's history went backwards");
    expect(during.relisting?.reason).toMatch(/Too large resource version|older than/);
    // Meanwhile the old cluster, whole.
    expect(state.snapshot().services.map((s) => s.name)).toHaveLength(13);

    while (state.relisting() !== null) {
      if (Date.now() > deadline) throw new Error('the re-list never ended');
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    expect(getHeader(scope).freshness.relisting).toBeNull();
    expect(state.snapshot().services.map((s) => s.name)).toEqual(['new-1']);
    expect(state.snapshot().nodes.map((n) => n.name)).toEqual(['new-node']);
  });
});
