/**
 * The cluster registry against two simulators behind one kubeconfig (two contexts), over real
 * HTTP: each cluster opens and syncs on its own, an idle sweep closes the other cluster's watches
 * on its simulator (the default's stay), and opening it again syncs afresh.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { renderMultiContextKubeconfig } from '../../sim/kubeconfig';
import type { Simulator } from '../../sim/server';
import { startSimulator } from '../../sim/server';
import { node, service } from '../../sim/test-support';
import { ClusterRegistry } from './clusters';
import { RESOURCE_IDS } from './resources';
import { configFromEnv } from '../config/config';

/** One watch per resource type once a cluster is synced and watching. */
const WATCHES = RESOURCE_IDS.length;

const tmp = mkdtempSync(path.join(tmpdir(), 'zonescope-clusters-int-'));
const sims: Simulator[] = [];
const registries: ClusterRegistry[] = [];
afterEach(async () => {
  vi.restoreAllMocks();
  await Promise.all(registries.splice(0).map((registry) => registry.stop()));
  await Promise.all(sims.splice(0).map((sim) => sim.stop()));
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

async function startSim(zone: string): Promise<Simulator> {
  const sim = await startSimulator({ port: 0, log: () => undefined, objects: [node(`node-${zone}`, zone), service(`svc-${zone}`)] });
  sims.push(sim);
  return sim;
}



/** One kubeconfig file with a context per simulator (the first is current). */
function kubeconfigFor(named: readonly (readonly [string, Simulator])[]): string {
  const file = path.join(tmp, 'config');
  writeFileSync(file, renderMultiContextKubeconfig(named.map(([context, sim]) => ({ server: sim.url, token: sim.token, context }))), { mode: 0o600 });
  return file;
}

async function openWatches(sim: Simulator): Promise<number> {
  const response = await fetch(`${sim.url}/__sim/stats`);
  const stats = (await response.json()) as { openWatches: Record<string, number> };
  return Object.values(stats.openWatches).reduce((a, b) => a + b, 0);
}

async function waitFor(check: () => Promise<boolean>, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('cluster registry with two simulators', () => {
  it('opens and syncs each cluster, closes the idle one’s watches, and reopens it', { timeout: 40_000 }, async () => {
    const east = await startSim('zone-east');
    const west = await startSim('zone-west');
    let time = 0;
    const registry = new ClusterRegistry({ config: configFromEnv({ HOME: tmp, KUBECONFIG: kubeconfigFor([['east', east], ['west', west]]) }), now: () => time, idleMs: 60_000, sweepIntervalMs: 0 });
    registries.push(registry);
    expect(registry.entries().map((e) => [e.id, e.server, e.isDefault])).toEqual([
      ['east', east.url, true],
      ['west', west.url, false],
    ]);
    // Nothing connects before a cluster is opened.
    expect(await openWatches(east)).toBe(0);
    expect(await openWatches(west)).toBe(0);

    const a = registry.open('east');
    const b = registry.open('west');
    if (!a.ok || !b.ok) throw new Error('open failed');
    expect(await a.source.waitForSync(10_000)).toBe(true);
    expect(await b.source.waitForSync(10_000)).toBe(true);
    expect(a.source.snapshot().nodes.map((n) => n.name)).toEqual(['node-zone-east']);
    expect(b.source.snapshot().nodes.map((n) => n.name)).toEqual(['node-zone-west']);
    await waitFor(async () => (await openWatches(east)) === WATCHES && (await openWatches(west)) === WATCHES, 'a watch per type on both simulators');

    time += 61_000;
    expect(registry.sweep()).toEqual(['west']);
    expect(registry.state('west')).toBe('closed-idle');
    await waitFor(async () => (await openWatches(west)) === 0, 'the idle cluster’s watches to close');
    expect(await openWatches(east)).toBe(WATCHES);

    const again = registry.open('west');
    if (!again.ok) throw new Error(again.message);
    expect(again.source).not.toBe(b.source);
    expect(await again.source.waitForSync(10_000)).toBe(true);
    expect(again.source.snapshot().services.map((s) => s.name)).toEqual(['svc-zone-west']);
    await waitFor(async () => (await openWatches(west)) === WATCHES, 'a watch per type again after reopening');
    expect(registry.openIds()).toEqual(['east', 'west']);
  });

  it('an unreachable cluster is open, failing on its own, while the other syncs', { timeout: 30_000 }, async () => {
    const east = await startSim('zone-east');
    const gone = await startSim('zone-gone');
    const file = kubeconfigFor([['east', east], ['gone', gone]]);
    await gone.stop();
    sims.splice(sims.indexOf(gone), 1);
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    const registry = new ClusterRegistry({ config: configFromEnv({ HOME: tmp, KUBECONFIG: file, ZONESCOPE_REQUEST_TIMEOUT_MS: '2000' }), sweepIntervalMs: 0 });
    registries.push(registry);
    const down = registry.open('gone');
    const up = registry.open('east');
    if (!down.ok || !up.ok) throw new Error('open failed');
    expect(await up.source.waitForSync(10_000)).toBe(true);
    await waitFor(async () => down.source.statuses().some((s) => s.error !== null), 'the unreachable cluster to report an error');
    expect(down.source.isSynced()).toBe(false);
    expect(registry.state('gone')).toBe('open');
    // Its warnings name it; the default cluster logs nothing.
    const lines = warn.mock.calls.map((call) => String(call[0]));
    expect(lines.length).toBeGreaterThan(0);
    expect(lines.every((line) => line.startsWith('[zonescope gone] '))).toBe(true);
  });
});
