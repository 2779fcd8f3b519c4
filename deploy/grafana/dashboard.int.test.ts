/**
 * Every query of the Grafana dashboard (deploy/grafana/zonescope.json) against a real Prometheus:
 * eks-demo on the simulator, zonescope's real `GET /metrics` route served over loopback HTTP, and
 * Debian's `prometheus` scraping it every second as job `zonescope` (honor_labels, as the
 * ServiceMonitor does) with the alert rules of deploy/prometheus/zonescope-rules.yaml loaded.
 * eks-demo has Services that ask for hints the controller will not write (ZonescopeServiceHintsOff
 * is pending from the first evaluation) and a budget below today's spend is set
 * (ZonescopeCrossZoneSpendOverBudget pending too), so the alert panels have series.
 *
 * The template variables are resolved as Grafana does on load: each query variable's
 * `label_values(…)` through Prometheus' label-values API, with the variables above it set; All
 * where the variable includes it. Then each panel target, with the variables substituted, runs as
 * Grafana runs it (an instant query for instant targets, a range query over the data so far
 * otherwise) and must return at least one series.
 */
import { readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { GET as getMetrics } from '../../app/metrics/route';
import type { RunningPrometheus } from '../../sim/prometheus';
import { startPrometheus } from '../../sim/prometheus';
import type { ScrapedCluster } from '../prometheus/sim-scrapes';
import { sampleValue, startScrapedCluster } from '../prometheus/sim-scrapes';
import { DASHBOARD_FILE } from './dashboard';
import type { Dashboard, Target, VariableValue } from './model';
import { dataPanels, substitute } from './model';

const dashboard = JSON.parse(readFileSync(DASHBOARD_FILE, 'utf8')) as Dashboard;
/** Grafana's interval variables, as a 1 h view of data scraped every second would set them. */
const GLOBALS = { __interval: '15s', __rate_interval: '1m', __range: '1h' };

let cluster: ScrapedCluster | null = null;
let server: http.Server | null = null;
let prometheus: RunningPrometheus | null = null;
let startedAt = 0;

beforeAll(async () => {
  cluster = await startScrapedCluster({ scenario: 'eks-demo', budgetDollars: '10' });
  server = http.createServer((_request, response) => {
    void (async () => {
      const answer = await getMetrics();
      response.writeHead(answer.status, { 'Content-Type': answer.headers.get('content-type') ?? 'text/plain' });
      response.end(await answer.text());
    })();
  });
  await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  startedAt = Date.now() / 1000;
  prometheus = await startPrometheus({
    scrapeTargets: [`127.0.0.1:${port}`],
    metricsPath: '/metrics',
    jobName: 'zonescope',
    scrapeIntervalSeconds: 1,
    ruleFiles: ['deploy/prometheus/zonescope-rules.yaml'],
    waitForMetric: 'zonescope_service_hints_observed_ratio',
  });
}, 60_000);

afterAll(async () => {
  await prometheus?.stop();
  if (server !== null) {
    const closing = server;
    closing.closeAllConnections();
    await new Promise<void>((resolve) => closing.close(() => resolve()));
  }
  await cluster?.stop();
});

interface ApiAnswer<T> {
  status: string;
  error?: string;
  data: T;
}

async function api<T>(path: string, params: Record<string, string | string[]>): Promise<T> {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) for (const v of [value].flat()) search.append(key, v);
  const response = await fetch(`${(prometheus as RunningPrometheus).url}${path}?${search.toString()}`);
  const body = (await response.json()) as ApiAnswer<T>;
  if (body.status !== 'success') throw new Error(`${path} ${search.toString()}: ${body.error ?? response.status}`);
  return body.data;
}

type Series = { metric: Record<string, string> }[];

/** Runs a target as Grafana's Prometheus data source does: instant, or range over the data so far at 1 s steps. */
async function run(target: Target, expr: string): Promise<Series> {
  if (target.instant === true) return (await api<{ result: Series }>('/api/v1/query', { query: expr })).result;
  const end = Date.now() / 1000;
  return (await api<{ result: Series }>('/api/v1/query_range', { query: expr, start: String(startedAt), end: String(end), step: '1' })).result;
}

/** Polls `check` every 200 ms until it returns a value, or fails naming `what` after `timeoutMs`. */
async function eventually<T>(check: () => Promise<T | null>, what: string, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== null) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/**
 * The variables as Grafana sets them on load, and the options each lists: `label_values(selector,
 * label)` for each, in order, with the variables above it set.
 */
async function resolveVariables(): Promise<{ values: Map<string, VariableValue>; options: Map<string, string[]> }> {
  const values = new Map<string, VariableValue>();
  const listed = new Map<string, string[]>();
  for (const variable of dashboard.templating.list) {
    if (variable.type !== 'query') continue;
    const match = /^label_values\((.+), (\w+)\)$/.exec(variable.query);
    if (match === null) throw new Error(`variable ${variable.name}: ${variable.query} is not label_values(selector, label)`);
    const selector = substitute(match[1] ?? '', dashboard.templating.list, values, GLOBALS);
    const options = await api<string[]>(`/api/v1/label/${match[2] ?? ''}/values`, { 'match[]': selector, start: String(startedAt) });
    if (variable.includeAll === true) values.set(variable.name, { all: true });
    else {
      const current = typeof variable.current?.value === 'string' ? variable.current.value : undefined;
      // The saved value when Prometheus has it, else the first option (what Grafana falls back to).
      const chosen = current !== undefined && options.includes(current) ? current : options[0];
      if (chosen === undefined) throw new Error(`variable ${variable.name} has no value: ${selector} has no ${match[2] ?? ''} label`);
      values.set(variable.name, { values: [chosen] });
    }
    listed.set(variable.name, options);
  }
  return { values, options: listed };
}

describe('the Grafana dashboard against a real Prometheus scraping zonescope', () => {
  it('resolves its variables and every panel query returns data', async () => {
    const live = prometheus as RunningPrometheus;
    // The rules have been evaluated on a scrape with the alerts' conditions true (pending), and a
    // range query has more than one step.
    await eventually(async () => ((await live.query('ALERTS{alertname="ZonescopeCrossZoneSpendOverBudget"}')).length > 0 ? true : null), 'ZonescopeCrossZoneSpendOverBudget pending');
    await eventually(async () => ((await live.query('ALERTS{alertname="ZonescopeServiceHintsOff"}')).length > 0 ? true : null), 'ZonescopeServiceHintsOff pending');
    await eventually(async () => ((await live.query('count_over_time(zonescope_cluster_synced[1m]) >= 3')).length > 0 ? true : null), 'three scrapes');

    const { values, options } = await resolveVariables();
    expect(values.get('job')).toEqual({ values: ['zonescope'] });
    expect(options.get('instance')).toEqual([expect.stringMatching(/^127\.0\.0\.1:\d+$/)]);
    // A single installation: no fleet label, so the cluster variable lists nothing and All matches.
    expect(options.get('cluster')).toEqual([]);
    expect(options.get('namespace')).toEqual(['kube-system', 'payments', 'platform', 'shop']);

    const empty: string[] = [];
    let queries = 0;
    for (const panel of dataPanels(dashboard)) {
      for (const target of panel.targets ?? []) {
        const expr = substitute(target.expr, dashboard.templating.list, values, GLOBALS);
        const series = await run(target, expr);
        queries++;
        if (series.length === 0) empty.push(`${panel.title} ${target.refId}: ${expr}`);
      }
    }
    expect(empty, 'panel queries without data').toEqual([]);
    expect(queries).toBeGreaterThan(25);
  }, 60_000);

  it('shows what zonescope exports: the scenarios\' $/month, the Services whose hints are off, and the pending alerts', async () => {
    const { values } = await resolveVariables();
    const panel = (title: string) => {
      const found = dataPanels(dashboard).find((p) => p.title === title);
      if (found === undefined) throw new Error(`no panel ${title}`);
      return found;
    };
    const instant = async (title: string, refId = 'A') => {
      const target = panel(title).targets?.find((t) => t.refId === refId);
      if (target === undefined) throw new Error(`${title} has no ${refId}`);
      return (await api<{ result: { metric: Record<string, string>; value: [number, string] }[] }>('/api/v1/query', { query: substitute(target.expr, dashboard.templating.list, values, GLOBALS) })).result;
    };
    const scrape = await (cluster as ScrapedCluster).scrape();
    const cost = await instant('Cross-zone $/month', 'C');
    expect(Number(cost[0]?.value[1])).toBeCloseTo(sampleValue(scrape, 'zonescope_cross_zone_cost_dollars_per_month', { scenario: 'best' }) ?? NaN, 6);

    const off = (await instant('Hints on Services that ask for them')).filter((s) => s.value[1] === '0').map((s) => `${s.metric.namespace ?? ''}/${s.metric.service ?? ''}`);
    expect(off.sort()).toEqual(['shop/api-gateway', 'shop/cart', 'shop/catalog']);

    const alerts = (await instant('Alerts now')).map((s) => `${s.metric.alertname ?? ''} ${s.metric.alertstate ?? ''} ${s.metric.service ?? ''}`);
    expect(alerts.sort()).toEqual([
      'ZonescopeCrossZoneSpendOverBudget pending ',
      'ZonescopeServiceHintsOff pending api-gateway',
      'ZonescopeServiceHintsOff pending cart',
      'ZonescopeServiceHintsOff pending catalog',
    ]);
  }, 30_000);
});
