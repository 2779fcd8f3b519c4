/**
 * Reads from a resourceVersion the simulator has not reached, over real HTTP, answered as
 * kube-apiserver answers them (sim/watch.ts, sim/handlers/list.ts): a watch is accepted and says
 * nothing until the store gets there; a watch-list and a list the watch cache serves wait 3 s, then
 * 504 `ResourceVersionTooLarge`; a list handed to etcd (`limit`, `Exact`) is refused at once.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { Simulator } from './server';
import { startSimulator } from './server';
import { service } from './test-support';
import { BLOCK_TIMEOUT_MS } from './watch';

const sims: Simulator[] = [];
afterEach(async () => {
  await Promise.all(sims.splice(0).map((sim) => sim.stop()));
});

async function startSim(): Promise<Simulator> {
  const sim = await startSimulator({ port: 0, log: () => undefined, objects: [service('a')], bookmarkIntervalMs: 20 });
  sims.push(sim);
  return sim;
}

/** A watch read line by line as it arrives. */
interface OpenWatch {
  readonly status: number;
  readonly lines: { type: string; object: { metadata?: { name?: string; resourceVersion?: string }; code?: number; reason?: string; message?: string; details?: { causes?: { reason: string }[]; retryAfterSeconds?: number } } }[];
  /** Resolves when the server ended the stream. */
  readonly ended: Promise<void>;
  close(): void;
}

async function openWatch(sim: Simulator, query: string): Promise<OpenWatch> {
  const controller = new AbortController();
  const response = await fetch(`${sim.url}/api/v1/namespaces/default/services?watch=1&${query}`, { signal: controller.signal });
  const lines: OpenWatch['lines'] = [];
  const reader = response.body?.getReader();
  const decoder = new TextDecoder();
  const ended = (async () => {
    let pending = '';
    for (;;) {
      let chunk;
      try {
        chunk = await reader?.read();
      } catch {
        return;
      }
      if (chunk === undefined || chunk.done) return;
      pending += decoder.decode(chunk.value, { stream: true });
      let newline = pending.indexOf('\n');
      while (newline >= 0) {
        lines.push(JSON.parse(pending.slice(0, newline)) as OpenWatch['lines'][number]);
        pending = pending.slice(newline + 1);
        newline = pending.indexOf('\n');
      }
    }
  })();
  return { status: response.status, lines, ended, close: () => controller.abort() };
}

function create(sim: Simulator, name: string): number {
  return Number(sim.store.create('services', service(name)).metadata.resourceVersion);
}

describe('a watch from a resourceVersion the server has not reached', () => {
  it('is accepted and sends nothing, not even a bookmark, until the store passes that version; then what comes after it', async () => {
    const sim = await startSim();
    const ahead = sim.store.resourceVersion + 2;
    const watch = await openWatch(sim, `resourceVersion=${ahead}&allowWatchBookmarks=true`);
    expect(watch.status).toBe(200);
    // Bookmarks every 20 ms: the first that may be sent is at `ahead`, once the store is there.
    create(sim, 'b');
    create(sim, 'c');
    expect(sim.store.resourceVersion).toBe(ahead);
    create(sim, 'd');
    await expect.poll(() => watch.lines.filter((l) => l.type !== 'BOOKMARK').map((l) => `${l.type} ${l.object.metadata?.name ?? ''}`), { timeout: 3000, interval: 10 }).toEqual(['ADDED d']);
    // Every bookmark is at or after the version asked for.
    for (const line of watch.lines) if (line.type === 'BOOKMARK') expect(Number(line.object.metadata?.resourceVersion)).toBeGreaterThanOrEqual(ahead);
    await expect.poll(() => watch.lines.some((l) => l.type === 'BOOKMARK'), { timeout: 3000, interval: 10 }).toBe(true);
    watch.close();
  });

  it('with sendInitialEvents waits 3 s for the store, then ends with an ERROR event carrying 504 ResourceVersionTooLarge', async () => {
    const sim = await startSim();
    const current = sim.store.resourceVersion;
    const startedAt = Date.now();
    const watch = await openWatch(sim, `resourceVersion=${current + 50}&resourceVersionMatch=NotOlderThan&sendInitialEvents=true&allowWatchBookmarks=true`);
    await watch.ended;
    expect(Date.now() - startedAt).toBeGreaterThanOrEqual(BLOCK_TIMEOUT_MS - 50);
    expect(watch.status).toBe(200);
    expect(watch.lines).toHaveLength(1);
    expect(watch.lines[0]).toMatchObject({
      type: 'ERROR',
      object: { code: 504, reason: 'Timeout', message: `Timeout: Too large resource version: ${current + 50}, current: ${current}`, details: { causes: [{ reason: 'ResourceVersionTooLarge' }], retryAfterSeconds: 1 } },
    });
  });

  it('with sendInitialEvents sends the initial state once the store catches up within the wait', async () => {
    const sim = await startSim();
    const ahead = sim.store.resourceVersion + 1;
    const watching = openWatch(sim, `resourceVersion=${ahead}&resourceVersionMatch=NotOlderThan&sendInitialEvents=true&allowWatchBookmarks=true`);
    // The watch is waiting (the server holds the answer): the write lets it through.
    await expect.poll(() => sim.stats.snapshot().requests.services?.watch ?? 0, { timeout: 3000, interval: 10 }).toBe(1);
    create(sim, 'b');
    const watch = await watching;
    expect(watch.status).toBe(200);
    await expect.poll(() => watch.lines.map((l) => `${l.type} ${l.object.metadata?.name ?? ''}`).slice(0, 3), { timeout: 3000, interval: 10 }).toEqual(['ADDED a', 'ADDED b', 'BOOKMARK ']);
    watch.close();
  });
});

describe('a list from a resourceVersion the server has not reached', () => {
  it('from the watch cache (no limit) waits 3 s, then answers 504 with a retry after 1 s', async () => {
    const sim = await startSim();
    const current = sim.store.resourceVersion;
    const startedAt = Date.now();
    const response = await fetch(`${sim.url}/api/v1/services?resourceVersion=${current + 50}`);
    expect(Date.now() - startedAt).toBeGreaterThanOrEqual(BLOCK_TIMEOUT_MS - 50);
    expect(response.status).toBe(504);
    expect(response.headers.get('retry-after')).toBe('1');
    expect(await response.json()).toMatchObject({
      kind: 'Status', code: 504, reason: 'Timeout', message: `Timeout: Too large resource version: ${current + 50}, current: ${current}`,
      details: { causes: [{ reason: 'ResourceVersionTooLarge', message: 'Too large resource version' }], retryAfterSeconds: 1 },
    });
  });

  it('from the watch cache answers once the store catches up within the wait', async () => {
    const sim = await startSim();
    const ahead = sim.store.resourceVersion + 1;
    const answer = fetch(`${sim.url}/api/v1/namespaces/default/services?resourceVersion=${ahead}&resourceVersionMatch=NotOlderThan`);
    await expect.poll(() => sim.stats.snapshot().requests.services?.list ?? 0, { timeout: 3000, interval: 10 }).toBe(1);
    create(sim, 'b');
    const response = await answer;
    expect(response.status).toBe(200);
    const body = (await response.json()) as { metadata: { resourceVersion: string }; items: { metadata: { name: string } }[] };
    expect(body.items.map((i) => i.metadata.name)).toEqual(['a', 'b']);
    expect(Number(body.metadata.resourceVersion)).toBe(ahead);
  });

  it('a one-item resume check counts as such, not as a list of the type (the bench counts lists per type)', async () => {
    const sim = await startSim();
    const current = sim.store.resourceVersion;
    expect((await fetch(`${sim.url}/api/v1/services?limit=1&resourceVersion=${current}&resourceVersionMatch=NotOlderThan`)).status).toBe(200);
    expect((await fetch(`${sim.url}/api/v1/services?limit=500`)).status).toBe(200);
    expect((await fetch(`${sim.url}/api/v1/services?limit=1`)).status).toBe(200);
    const stats = sim.stats.snapshot();
    expect(stats.resumeChecks).toEqual({ services: 1 });
    // The page of 500 and the one-item list without a resourceVersion to check are lists.
    expect(stats.lists).toEqual({ services: 2 });
    expect(stats.requests.services?.list).toBe(3);
  });

  it('handed to etcd (limit, or Exact) is refused at once, without a retry', async () => {
    const sim = await startSim();
    const current = sim.store.resourceVersion;
    for (const query of [`limit=1&resourceVersion=${current + 5}&resourceVersionMatch=NotOlderThan`, `resourceVersion=${current + 5}&resourceVersionMatch=Exact`]) {
      const startedAt = Date.now();
      const response = await fetch(`${sim.url}/api/v1/services?${query}`);
      expect(Date.now() - startedAt, query).toBeLessThan(BLOCK_TIMEOUT_MS / 2);
      expect(response.status, query).toBe(504);
      expect(response.headers.get('retry-after'), query).toBeNull();
      const status = (await response.json()) as { message: string; details: { causes: { reason: string }[]; retryAfterSeconds?: number } };
      expect(status.message).toBe(`Timeout: Too large resource version: ${current + 5}, current: ${current}`);
      expect(status.details.causes[0]?.reason).toBe('ResourceVersionTooLarge');
      expect(status.details.retryAfterSeconds).toBeUndefined();
    }
  });
});
