/**
 * The e2e suite's Prometheus control (scripts/e2e-prometheus.ts) with a real Prometheus scraping
 * a simulator: a spec's `POST /stop` leaves Prometheus unreachable, `POST /start` brings it back
 * on the same address with the samples it had, and bad requests get clear errors; it also scrapes
 * the dashboard's `/metrics` as job `zonescope` (here a stand-in server that starts after
 * Prometheus, as Playwright's dashboard does) and evaluates the rule files it is given, before and
 * after a restart. Skipped, saying why, without a Prometheus binary.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freeLoopbackPort } from '../sim/prometheus';
import { findPrometheus } from '../sim/prometheus/binary';
import { loadScenario } from '../sim/scenario';
import type { Simulator } from '../sim/server';
import { startSimulator } from '../sim/server';
import { delay } from '../sim/test-support';
import { prometheusControlServer, SuitePrometheus } from './e2e-prometheus';

const BINARY = findPrometheus();

describe.skipIf(BINARY === null)(`the e2e Prometheus control${BINARY === null ? ' — SKIPPED: Prometheus is not installed (apt-get install prometheus)' : ''}`, { timeout: 60_000 }, () => {
  let sim: Simulator;
  let dir: string;
  let prometheus: SuitePrometheus;
  let control: { server: Server; url: string };
  let dashboard: Server | null = null;
  let dashboardPort = 0;

  beforeAll(async () => {
    const scenario = await loadScenario('eks-demo');
    sim = await startSimulator({ objects: scenario.objects, log: () => undefined });
    dir = mkdtempSync(path.join(tmpdir(), 'zonescope-e2e-control-test-'));
    const rules = path.join(dir, 'rules.yaml');
    writeFileSync(rules, ['groups:', '  - name: zonescope-test', '    rules:', '      - alert: ZonescopeTestBuild', '        expr: zonescope_build_info == 1', ''].join('\n'));
    // The dashboard's port, reserved now and served only after Prometheus is up (Playwright's order).
    dashboardPort = await freeLoopbackPort();
    prometheus = new SuitePrometheus(`127.0.0.1:${sim.port}`, path.join(dir, 'prometheus'), { dashboardTarget: `127.0.0.1:${dashboardPort}`, ruleFiles: [rules] });
    await prometheus.start(true);
    control = await prometheusControlServer(prometheus);
  }, 60_000);

  afterAll(async () => {
    control?.server.close();
    control?.server.closeAllConnections();
    dashboard?.close();
    await prometheus?.stop();
    await sim?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const instant = async (expression: string): Promise<{ metric: Record<string, string>; value: [number, string] }[]> =>
    ((await (await fetch(`${prometheus.url}/api/v1/query?query=${encodeURIComponent(expression)}`)).json()) as { data: { result: { metric: Record<string, string>; value: [number, string] }[] } }).data.result;
  const eventually = async (expression: string, timeoutMs = 20_000): Promise<{ metric: Record<string, string>; value: [number, string] }[]> => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const result = await instant(expression);
      if (result.length > 0 || Date.now() > deadline) return result;
      await delay(200);
    }
  };

  it('scrapes the dashboard as job zonescope once it listens, and evaluates the rule files', async () => {
    const target = `127.0.0.1:${dashboardPort}`;
    // Not listening yet: the target is down, and Prometheus keeps trying.
    expect(await eventually(`up{job="zonescope"} == 0`)).toEqual([{ metric: { __name__: 'up', instance: target, job: 'zonescope' }, value: [expect.any(Number), '0'] }]);
    const paths: string[] = [];
    dashboard = createServer((req, res) => {
      paths.push(req.url ?? '');
      res.writeHead(200, { 'Content-Type': 'text/plain; version=0.0.4; charset=utf-8' });
      res.end('zonescope_build_info{version="0.0.0-test",node_version="v0"} 1\n');
    });
    await new Promise<void>((resolve) => dashboard?.listen(dashboardPort, '127.0.0.1', resolve));
    expect((await eventually('zonescope_build_info'))[0]?.metric).toEqual({ __name__: 'zonescope_build_info', instance: target, job: 'zonescope', version: '0.0.0-test', node_version: 'v0' });
    expect(new Set(paths)).toEqual(new Set(['/metrics']));
    expect((await eventually('ALERTS{alertname="ZonescopeTestBuild"}'))[0]?.metric).toMatchObject({ alertstate: 'firing', job: 'zonescope', version: '0.0.0-test' });
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
    // The restarted instance has the dashboard's job and the rules again.
    expect((await eventually('zonescope_build_info', 20_000)).length).toBe(1);
    const rules = (await (await fetch(`${url}/api/v1/rules`)).json()) as { data: { groups: { name: string }[] } };
    expect(rules.data.groups.map((g) => g.name)).toEqual(['zonescope-test']);
    expect(await call('POST', '/start')).toEqual({ status: 200, body: { state: 'running', url } });
  });

  it('answers bad requests with what it supports', async () => {
    expect(await call('DELETE', '/stop')).toEqual({ status: 405, body: { error: 'DELETE is not supported on /stop' } });
    expect(await call('GET', '/restart')).toEqual({ status: 404, body: { error: 'unknown path /restart (GET /, POST /stop, POST /start)' } });
  });
});
