/**
 * The e2e suite's Prometheus control (scripts/e2e-prometheus.ts) with a real Prometheus scraping
 * a simulator: a spec's `POST /stop` leaves Prometheus unreachable, `POST /start` brings it back
 * on the same address with the samples it had, and bad requests get clear errors. Skipped, saying
 * why, without a Prometheus binary.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import type { Server } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findPrometheus } from '../sim/prometheus';
import { loadScenario } from '../sim/scenario';
import type { Simulator } from '../sim/server';
import { startSimulator } from '../sim/server';
import { prometheusControlServer, SuitePrometheus } from './e2e-prometheus';

const BINARY = findPrometheus();

describe.skipIf(BINARY === null)(`the e2e Prometheus control${BINARY === null ? ' — SKIPPED: Prometheus is not installed (apt-get install prometheus)' : ''}`, { timeout: 60_000 }, () => {
  let sim: Simulator;
  let dir: string;
  let prometheus: SuitePrometheus;
  let control: { server: Server; url: string };

  beforeAll(async () => {
    const scenario = await loadScenario('eks-demo');
    sim = await startSimulator({ objects: scenario.objects, log: () => undefined });
    dir = mkdtempSync(path.join(tmpdir(), 'zonescope-e2e-control-test-'));
    prometheus = new SuitePrometheus(`127.0.0.1:${sim.port}`, dir);
    await prometheus.start(true);
    control = await prometheusControlServer(prometheus);
  }, 60_000);

  afterAll(async () => {
    control?.server.close();
    control?.server.closeAllConnections();
    await prometheus?.stop();
    await sim?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const call = async (method: string, route: string): Promise<{ status: number; body: Record<string, unknown> }> => {
    const response = await fetch(`${control.url}${route}`, { method });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };

  it('stops Prometheus and starts it again on the same address, samples kept', async () => {
    const url = prometheus.url;
    expect(await call('GET', '/')).toEqual({ status: 200, body: { state: 'running', url } });
    const count = async () => ((await (await fetch(`${url}/api/v1/query?query=${encodeURIComponent('count(beyla_network_flow_bytes_total)')}`)).json()) as { data: { result: { value: [number, string] }[] } }).data.result[0]?.value[1];
    const before = await count();
    expect(Number(before)).toBeGreaterThan(0);

    expect(await call('POST', '/stop')).toEqual({ status: 200, body: { state: 'stopped', url } });
    await expect(fetch(`${url}/-/ready`)).rejects.toThrow();
    expect(await call('POST', '/stop')).toEqual({ status: 200, body: { state: 'stopped', url } });

    expect(await call('POST', '/start')).toEqual({ status: 200, body: { state: 'running', url } });
    expect((await fetch(`${url}/-/ready`)).status).toBe(200);
    expect(await count()).toBe(before);
    expect(await call('POST', '/start')).toEqual({ status: 200, body: { state: 'running', url } });
  });

  it('answers bad requests with what it supports', async () => {
    expect(await call('DELETE', '/stop')).toEqual({ status: 405, body: { error: 'DELETE is not supported on /stop' } });
    expect(await call('GET', '/restart')).toEqual({ status: 404, body: { error: 'unknown path /restart (GET /, POST /stop, POST /start)' } });
  });
});
