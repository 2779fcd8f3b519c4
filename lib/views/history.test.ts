/**
 * The history data layer against a local HTTP server speaking Prometheus' range-query wire format:
 * one set of queries per cache key however many viewers ask at once, refinement queries only for
 * transitions, and the status for an error answer or a bad range parameter.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { configFromEnv, parseConfig } from '../config/config';
import { CLUSTER_QUERY_COUNT } from '../prometheus/history/queries';
import { clearHistoryCache, getClusterHistory, HISTORY_DEFAULT_CLUSTER_ONLY, parseHistoryQuery } from './history';

/** The default cluster (the one the Prometheus scraping zonescope is about), and another. */
const DEFAULT = { entry: { id: 'prod', context: 'prod', displayName: 'prod', server: null, isDefault: true, configError: null } } as const;
const OTHER = { entry: { ...DEFAULT.entry, id: 'staging', context: 'staging', displayName: 'staging', isDefault: false } } as const;

let server: http.Server;
let base = '';
const queries: URLSearchParams[] = [];
let respond: (params: URLSearchParams, res: http.ServerResponse) => void = (_p, res) => matrix(res, []);

function matrix(res: http.ServerResponse, result: unknown[]): void {
  res.writeHead(200, { 'Content-Type': 'application/json' });
  res.end(JSON.stringify({ status: 'success', data: { resultType: 'matrix', result } }));
}

beforeAll(async () => {
  server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    queries.push(url.searchParams);
    // Answer a little later, so that concurrent callers overlap.
    setTimeout(() => respond(url.searchParams, res), 20);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

beforeEach(() => {
  clearHistoryCache();
  queries.length = 0;
  respond = (_p, res) => matrix(res, []);
});

const NOW = 1_700_000_000;

describe('getClusterHistory', () => {
  it('runs one set of queries for many concurrent viewers of the same range', async () => {
    const env = { ZONESCOPE_PROMETHEUS_URL: base };
    const answers = await Promise.all(Array.from({ length: 6 }, () => getClusterHistory(DEFAULT, '24h', { config: configFromEnv(env), now: NOW })));
    expect(queries).toHaveLength(CLUSTER_QUERY_COUNT);
    expect(new Set(answers).size).toBe(1);
    expect(answers[0]?.status.state).toBe('no-data');
    expect(queries.every((q) => q.get('step') === '120' && q.get('start') === String(NOW - 86400) + '.000')).toBe(true);
    // Another range is another key.
    await getClusterHistory(DEFAULT, '1h', { config: configFromEnv(env), now: NOW });
    expect(queries).toHaveLength(2 * CLUSTER_QUERY_COUNT);
  });

  it('refines an eligibility change with one short query', async () => {
    respond = (params, res) => {
      const query = params.get('query') ?? '';
      const start = Number(params.get('start'));
      const end = Number(params.get('end'));
      const step = Number(params.get('step'));
      const values: [number, string][] = [];
      // Eligible until NOW − 1000 s, ineligible after.
      for (let t = start; t <= end + 1e-9; t += step) values.push([t, t >= NOW - 1000 ? '0' : '1']);
      if (query.includes('"series", "eligible"')) matrix(res, [{ metric: { series: 'eligible' }, values }]);
      else if (query.startsWith('max(zonescope_cluster_eligible')) matrix(res, [{ metric: {}, values }]);
      else matrix(res, []);
    };
    const history = await getClusterHistory(DEFAULT, '1h', { config: configFromEnv({ ZONESCOPE_PROMETHEUS_URL: base }), now: NOW });
    expect(history.status).toEqual({ state: 'ok' });
    // 5 s steps refine at 1 s: the change is exact.
    expect(history.transitions).toMatchObject([{ kind: 'ineligible', at: NOW - 1000, precisionSeconds: 1, text: 'The cluster became ineligible.' }]);
    expect(queries).toHaveLength(CLUSTER_QUERY_COUNT + 1);
    expect(queries.at(-1)?.get('step')).toBe('1');
  });

  it('says unavailable with Prometheus\' message for an error answer, and not-configured for a bad URL', async () => {
    respond = (_p, res) => {
      res.writeHead(503, 'Service Unavailable', { 'Content-Type': 'text/plain' });
      res.end('overloaded');
    };
    const down = await getClusterHistory(DEFAULT, '6h', { config: configFromEnv({ ZONESCOPE_PROMETHEUS_URL: base }), now: NOW });
    expect(down).toMatchObject({ stepSeconds: 30, prometheus: base, status: { state: 'unavailable', message: `Prometheus at ${base} answered HTTP 503 Service Unavailable: overloaded.` } });
    // A URL that is not http(s) stops the start, naming the variable and never its credentials.
    const bad = parseConfig({ ZONESCOPE_PROMETHEUS_URL: 'ftp://user:secret@prom' });
    expect(!bad.ok && bad.errors).toEqual([{ variable: 'ZONESCOPE_PROMETHEUS_URL', message: 'ZONESCOPE_PROMETHEUS_URL must start with http:// or https://, not ftp://.' }]);
    expect(JSON.stringify(bad)).not.toContain('secret');
  });

  it('reads nothing for a cluster other than the default and says the history is the default cluster\'s', async () => {
    const before = queries.length;
    const other = await getClusterHistory(OTHER, '1h', { config: configFromEnv({ ZONESCOPE_PROMETHEUS_URL: base }), now: NOW });
    expect(other.status).toEqual({ state: 'not-configured', message: HISTORY_DEFAULT_CLUSTER_ONLY });
    expect(other.prometheus).toBeNull();
    expect(queries.length).toBe(before);
  });
});

describe('parseHistoryQuery', () => {
  it('leaves the range to the data when none is given, and accepts each range', () => {
    expect(parseHistoryQuery(new URLSearchParams(''))).toEqual({ ok: true, value: null });
    for (const range of ['1h', '6h', '24h', '7d']) expect(parseHistoryQuery(new URLSearchParams({ range }))).toEqual({ ok: true, value: range });
  });

  it.each([
    ['range=2d', 'range must be one of 1h, 6h, 24h, 7d (none: the range the data covers), not "2d".'],
    ['range=1h&range=7d', 'The query parameter "range" is given more than once; give one of 1h, 6h, 24h, 7d.'],
    ['from=0', 'Unknown query parameter "from"; known: range (1h, 6h, 24h, 7d).'],
  ])('refuses %s with 400 bad-request:api', async (query, message) => {
    const parsed = parseHistoryQuery(new URLSearchParams(query));
    if (parsed.ok) throw new Error('expected a 400');
    expect(parsed.response.status).toBe(400);
    expect(await parsed.response.json()).toEqual({ error: { code: 'bad-request:api', message } });
  });
});
