/** The `oversized` fault and `echoToken` on error faults, over real HTTP. */
import http from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import type { Simulator } from './server';
import { startSimulator } from './server';
import { service } from './test-support';

const running: Simulator[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((sim) => sim.stop()));
});

async function start(): Promise<Simulator> {
  const sim = await startSimulator({ port: 0, log: () => undefined, objects: [service('a')] });
  running.push(sim);
  return sim;
}

describe('echoToken', () => {
  it('puts the request\'s bearer token into the message, raw, base64 and URL-encoded', async () => {
    const sim = await start();
    sim.faults.add({ type: 'error', code: 401, reason: 'Unauthorized', echoToken: true, verb: 'list', count: 1 });
    sim.faults.add({ type: 'error', code: 500, echoToken: true, verb: 'get', message: 'x {token} {token:base64} {token:url}' });
    const token = 'abc/def+ghi';
    const list = await fetch(`${sim.url}/api/v1/services`, { headers: { Authorization: `Bearer ${token}` } });
    expect(list.status).toBe(401);
    expect(await list.json()).toMatchObject({ kind: 'Status', reason: 'Unauthorized', message: `Unauthorized: token ${token} is invalid` });
    const get = await fetch(`${sim.url}/api/v1/namespaces/default/services/a`, { headers: { Authorization: `Bearer ${token}` } });
    expect(((await get.json()) as { message: string }).message).toBe(`x ${token} ${Buffer.from(token).toString('base64')} ${encodeURIComponent(token)}`);
  });

  it('is accepted by the control endpoint', async () => {
    const sim = await start();
    const res = await fetch(`${sim.url}/__sim/faults`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ rules: [{ type: 'error', code: 401, echoToken: true }, { type: 'oversized', bytes: 1000, verb: 'watch' }] }),
    });
    expect(res.status).toBe(200);
    expect(sim.faults.list().map((r) => r.type)).toEqual(['error', 'oversized']);
  });
});

describe('oversized', () => {
  it('answers a list with a valid JSON body of the given size', async () => {
    const sim = await start();
    sim.faults.add({ type: 'oversized', bytes: 300_000, verb: 'list', count: 1 });
    const res = await fetch(`${sim.url}/api/v1/services`);
    const text = await res.text();
    expect(res.status).toBe(200);
    expect(text.length).toBe(300_000);
    expect(JSON.parse(text)).toMatchObject({ kind: 'List', items: [] });
    // The next list is normal.
    expect(((await (await fetch(`${sim.url}/api/v1/services`)).json()) as { items: unknown[] }).items).toHaveLength(1);
  });

  it('answers a watch with one event whose newline comes after the given size', async () => {
    const sim = await start();
    sim.faults.add({ type: 'oversized', bytes: 200_000, verb: 'watch', count: 1 });
    const text = await (await fetch(`${sim.url}/api/v1/services?watch=1`)).text();
    expect(text.length).toBe(200_000);
    expect(text.indexOf('\n')).toBe(200_000 - 1);
    expect(JSON.parse(text)).toMatchObject({ type: 'ADDED', object: { kind: 'Service', metadata: { name: 'oversized' } } });
  });

  it('stops writing when the client goes away', async () => {
    const sim = await start();
    sim.faults.add({ type: 'oversized', bytes: 1_000_000_000, verb: 'watch', count: 1 });
    let received = 0;
    await new Promise<void>((resolve, reject) => {
      const req = http.get(`${sim.url}/api/v1/services?watch=1`, (res) => {
        res.on('data', (chunk: Buffer) => {
          received += chunk.length;
          if (received > 1_000_000) req.destroy();
        });
        res.on('close', () => resolve());
      });
      req.on('error', (error) => (received > 1_000_000 ? resolve() : reject(error)));
    });
    // The simulator is still answering (it did not try to push a gigabyte).
    expect((await fetch(`${sim.url}/api/v1/services`)).status).toBe(200);
    expect(received).toBeLessThan(100_000_000);
  });
});
