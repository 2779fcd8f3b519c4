/**
 * An API server that freezes — accepts connections, answers nothing — against the simulator
 * behind a relay that can freeze (sim/test-proxies.ts), with the product's timings: the live
 * source shows every type stale, saying why, well before the watches' 90 s watchdog would; and
 * live again once the server answers.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { Simulator } from '../../../sim/server';
import { startSimulator } from '../../../sim/server';
import type { FreezingRelay } from '../../../sim/test-proxies';
import { startFreezingRelay } from '../../../sim/test-proxies';
import { node, service } from '../../../sim/test-support';
import { createConnection } from '../connection';
import type { InformerLogEvent } from '../informer/options';
import { LiveClusterSource } from './live-source';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function start(): Promise<{ sim: Simulator; relay: FreezingRelay; source: LiveClusterSource; logs: InformerLogEvent[] }> {
  const sim = await startSimulator({ port: 0, log: () => undefined, objects: [node('n1', 'us-east-1a'), node('n2', 'us-east-1b'), service('web', 'shop')] });
  cleanups.push(() => sim.stop());
  const relay = await startFreezingRelay({ host: '127.0.0.1', port: sim.port });
  cleanups.push(() => relay.stop());
  const connection = createConnection({ kubeconfigText: sim.kubeconfig({ server: relay.url }) });
  if (!connection.ok) throw new Error(connection.message);
  const logs: InformerLogEvent[] = [];
  // Default timings everywhere: the probe's 15 s / 5 s / two failures, the watches' 90 s watchdog.
  const source = new LiveClusterSource(connection.connection, { log: (event) => logs.push(event) });
  cleanups.push(() => source.stop());
  source.start();
  expect(await source.waitForSync(10_000)).toBe(true);
  return { sim, relay, source, logs };
}

describe('an API server that stops answering', () => {
  it('shows every type stale within 40 s with the reason, and live again when it answers', { timeout: 120_000 }, async () => {
    const { relay, source, logs } = await start();
    expect(source.statuses().every((s) => s.health === 'synced')).toBe(true);

    const frozenAt = Date.now();
    relay.freeze();
    await expect
      .poll(() => source.statuses().filter((s) => s.health !== 'stale').map((s) => s.id), { message: 'every type stale', timeout: 60_000, interval: 100 })
      .toEqual([]);
    const staleAfter = Date.now() - frozenAt;
    // The next probe within 15 s, 5 s without an answer, a second at once and 5 s more: at most
    // 25 s after the freeze (40 s leaves room for a loaded machine), far from the watchdog's 90 s.
    expect(staleAfter).toBeLessThanOrEqual(40_000);
    for (const status of source.statuses()) {
      expect(status.error?.message, status.id).toMatch(/^The API server has not answered for \d+ s\.$/);
      expect(Date.parse(status.staleSince ?? '')).toBeLessThanOrEqual(frozenAt);
    }
    // Still the cluster it synced: the data stays, the first sync is not undone.
    expect(source.isSynced()).toBe(true);
    expect(source.snapshot().nodes.map((n) => n.name).sort()).toEqual(['n1', 'n2']);
    expect(logs.filter((l) => /The API server has not answered for \d+ s\. Every resource type is shown as stale/.test(l.message))).toHaveLength(1);

    relay.thaw();
    await expect
      .poll(() => source.statuses().filter((s) => s.health !== 'synced' || s.error !== null).map((s) => s.id), { message: 'every type synced again', timeout: 30_000, interval: 100 })
      .toEqual([]);
    expect(logs.some((l) => l.message === 'the API server answers again; restarting the watches')).toBe(true);
  });
});
