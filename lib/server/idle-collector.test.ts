import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';

import type { CollectorHooks } from './idle-collector';
import { CHECK_MS, IdleCollector, MIN_INTERVAL_MS } from './idle-collector';

const MiB = 1048576;

/** A collector on a fake clock, loop meter and memory; `check()` is driven by the test. */
function fake(start: { rssMiB: number }) {
  const state = { now: 0, utilization: 0, rssMiB: start.rssMiB, heapMiB: 300, collections: 0, timers: 0 };
  const events: Parameters<CollectorHooks['onCollect']>[0][] = [];
  const collector = new IdleCollector({
    collect: async () => {
      state.collections++;
      state.heapMiB = 200;
    },
    meter: { mark: () => null, utilizationSince: () => state.utilization },
    setTimer: () => {
      state.timers++;
      return {};
    },
    now: () => state.now,
    rss: () => state.rssMiB * MiB,
    heapUsed: () => state.heapMiB * MiB,
    onCollect: (event) => events.push(event),
  });
  const look = async (change: Partial<typeof state>) => {
    Object.assign(state, change);
    state.now += CHECK_MS;
    await collector.check();
  };
  return { collector, state, events, look };
}

describe('IdleCollector', () => {
  it('collects once the loop is idle and resident memory has grown, not while busy', async () => {
    const { state, events, look } = fake({ rssMiB: 150 });
    await look({ rssMiB: 600, utilization: 0.9 }); // a cold sync: grown, but busy
    expect(state.collections).toBe(0);
    await look({ rssMiB: 700, utilization: 0.02 }); // quiet now
    expect(state.collections).toBe(1);
    expect(events[0]).toMatchObject({ rssBeforeMiB: 700, heapBeforeMiB: 300, heapAfterMiB: 200 });
    // The pages go back a moment later; the lowest resident memory is the new reference.
    await look({ rssMiB: 500, utilization: 0 });
    expect(state.collections).toBe(1);
  });

  it('waits for real growth and for the least interval between collections', async () => {
    const { state, look } = fake({ rssMiB: 500 });
    await look({ rssMiB: 540, utilization: 0 }); // 40 MiB: not worth a pause
    expect(state.collections).toBe(0);
    await look({ rssMiB: 600, utilization: 0 });
    expect(state.collections).toBe(1);
    await look({ rssMiB: 480, utilization: 0 });
    await look({ rssMiB: 700, utilization: 0 }); // grown again, but too soon
    expect(state.collections).toBe(1);
    state.now += MIN_INTERVAL_MS;
    await look({ rssMiB: 700, utilization: 0 });
    expect(state.collections).toBe(2);
  });

  it('looks again after every look once started, and does nothing before', async () => {
    const { collector, state } = fake({ rssMiB: 100 });
    expect(state.timers).toBe(0);
    collector.start();
    collector.start();
    expect(state.timers).toBe(1);
    await collector.check();
    expect(state.timers).toBe(2);
  });

  it("V8's low-memory collection frees the heap and the process goes on (a disconnect inside the reply's callback blocked the thread)", () => {
    const script = `
      const { lowMemoryCollect } = require('./lib/server/idle-collector.ts');
      (async () => {
        let garbage = [];
        for (let i = 0; i < 400000; i++) garbage.push({ i, text: 'x' + i });
        garbage = null;
        const before = process.memoryUsage().heapUsed;
        await lowMemoryCollect();
        const after = process.memoryUsage().heapUsed;
        await new Promise((resolve) => setTimeout(resolve, 10));
        console.log(JSON.stringify({ before, after }));
      })();
    `;
    const child = spawnSync(process.execPath, ['--import', 'tsx', '-e', script], { encoding: 'utf8', timeout: 30_000 });
    expect(child.error).toBeUndefined();
    expect(child.status).toBe(0);
    const { before, after } = JSON.parse(child.stdout.trim().split('\n').pop() ?? '{}') as { before: number; after: number };
    expect(after).toBeLessThan(before / 2);
  });
});
