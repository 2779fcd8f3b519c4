import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { generateSimTls } from '../../sim/tls';
import type { MetricsConfig } from './config';
import { configFromEnv, parseConfig } from '../config/config';
import { metricsConfigFromEnv } from './config';
import { gzipSync } from 'node:zlib';
import type { InstantQueryOptions, VectorSample } from './client';
import { MAX_RANGE_POINTS, parseVectorResponse, PrometheusError, queryInstant, queryInstantEach, queryRange, VectorAnswerReader } from './client';

type Handler = (req: http.IncomingMessage, res: http.ServerResponse) => void;

let handler: Handler = (_req, res) => res.end();
let server: http.Server;
let base = '';
const seen: { url: string; authorization: string | undefined }[] = [];
let dir = '';

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'zonescope-prom-'));
  server = http.createServer((req, res) => {
    seen.push({ url: req.url ?? '', authorization: req.headers.authorization });
    handler(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  rmSync(dir, { recursive: true, force: true });
});

afterEach(() => {
  seen.length = 0;
});

function config(extra: Partial<MetricsConfig> = {}): MetricsConfig {
  return { baseUrl: base, basicAuth: null, tokenFile: null, ca: null, window: '7d', refreshSeconds: 60, timeoutMs: 2000, maxStaleSeconds: 600, maxResponseBytes: 64 * 1024 * 1024, selector: '', ...extra };
}

function json(res: http.ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'Content-Type': 'application/json' });
  res.end(JSON.stringify(body));
}

async function failure(promise: Promise<unknown>): Promise<PrometheusError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof PrometheusError) return error;
    throw error;
  }
  throw new Error('expected the query to fail');
}

describe('queryInstant', () => {
  it('sends the query and time, and parses the vector with NaN and ±Inf kept as numbers', async () => {
    handler = (_req, res) =>
      json(res, 200, {
        status: 'success',
        data: {
          resultType: 'vector',
          result: [
            { metric: { pod: 'a' }, value: [1700000000, '12.5'] },
            { metric: { pod: 'b' }, value: [1700000000, 'NaN'] },
            { metric: { pod: 'c' }, value: [1700000000, '+Inf'] },
            { metric: { pod: 'd' }, value: [1700000000, '-Inf'] },
          ],
        },
      });
    const samples = await queryInstant(config(), 'sum by (pod) (rate(x[7d]))', 1700000000.5);
    expect(samples.map((s) => [s.metric.pod, s.value])).toEqual([
      ['a', 12.5],
      ['b', Number.NaN],
      ['c', Number.POSITIVE_INFINITY],
      ['d', Number.NEGATIVE_INFINITY],
    ]);
    const url = new URL(seen[0]?.url ?? '', base);
    expect(url.pathname).toBe('/api/v1/query');
    expect(url.searchParams.get('query')).toBe('sum by (pod) (rate(x[7d]))');
    expect(url.searchParams.get('time')).toBe('1700000000.500');
  });

  it.each([
    {
      name: '503 with a text body',
      respond: (res: http.ServerResponse) => {
        res.writeHead(503, 'Service Unavailable', { 'Content-Type': 'text/plain' });
        res.end('Service Unavailable: too many queries');
      },
      kind: 'http',
      message: (u: string) => `Prometheus at ${u} answered HTTP 503 Service Unavailable: Service Unavailable: too many queries.`,
    },
    {
      name: '400 with an error envelope',
      respond: (res: http.ServerResponse) => json(res, 400, { status: 'error', errorType: 'bad_data', error: 'invalid parameter "query": 1:5: parse error' }),
      kind: 'query',
      message: (u: string) => `Prometheus at ${u} rejected the query: bad_data: invalid parameter "query": 1:5: parse error.`,
    },
    {
      name: '422 execution error',
      respond: (res: http.ServerResponse) => json(res, 422, { status: 'error', errorType: 'execution', error: 'query processing would load too many samples into memory' }),
      kind: 'query',
      message: (u: string) => `Prometheus at ${u} rejected the query: execution: query processing would load too many samples into memory.`,
    },
    {
      name: '404 HTML page',
      respond: (res: http.ServerResponse) => {
        res.writeHead(404, 'Not Found', { 'Content-Type': 'text/html' });
        res.end('<html><body>nope</body></html>');
      },
      kind: 'http',
      message: (u: string) => `Prometheus at ${u} answered HTTP 404 Not Found.`,
    },
    {
      name: '401',
      respond: (res: http.ServerResponse) => {
        res.writeHead(401, 'Unauthorized');
        res.end('unauthorized');
      },
      kind: 'auth',
      message: (u: string) => `Prometheus at ${u} answered HTTP 401 Unauthorized: check the bearer token (ZONESCOPE_PROMETHEUS_TOKEN_FILE) or the URL's credentials.`,
    },
    {
      name: 'a body that is not JSON',
      respond: (res: http.ServerResponse) => {
        res.writeHead(200, { 'Content-Type': 'text/html' });
        res.end('<html>Grafana</html>');
      },
      kind: 'malformed',
      message: (u: string) => `Prometheus at ${u} sent a response that is not JSON (is the URL a Prometheus server?).`,
    },
    {
      name: 'JSON without a status',
      respond: (res: http.ServerResponse) => json(res, 200, { hello: 'world' }),
      kind: 'malformed',
      message: (u: string) => `Prometheus at ${u} sent JSON that is not a Prometheus API answer (no "status").`,
    },
    {
      name: 'a matrix where a vector was expected',
      respond: (res: http.ServerResponse) => json(res, 200, { status: 'success', data: { resultType: 'matrix', result: [] } }),
      kind: 'malformed',
      message: (u: string) => `Prometheus at ${u} answered with a matrix result where an instant vector was expected.`,
    },
    {
      name: 'a sample without a value pair',
      respond: (res: http.ServerResponse) => json(res, 200, { status: 'success', data: { resultType: 'vector', result: [{ metric: {}, value: ['1'] }] } }),
      kind: 'malformed',
      message: (u: string) => `Prometheus at ${u} sent a vector sample that is not {metric, value: [time, "value"]}.`,
    },
    {
      name: 'a sample value that is not a number',
      respond: (res: http.ServerResponse) => json(res, 200, { status: 'success', data: { resultType: 'vector', result: [{ metric: {}, value: [1, 'lots'] }] } }),
      kind: 'malformed',
      message: (u: string) => `Prometheus at ${u} sent a sample value that is not a number.`,
    },
  ])('$name → a clear message', async ({ respond, kind, message }) => {
    handler = (_req, res) => respond(res);
    const error = await failure(queryInstant(config(), 'up', 1));
    expect(error.kind).toBe(kind);
    expect(error.message).toBe(message(base));
  });

  it('caps what it holds: a vector answer read sample by sample may be larger in all, up to its own cap; other answers may not', async () => {
    const STREAMED_CAP_FACTOR = 16;
    const vector = (count: number) => JSON.stringify({ status: 'success', data: { resultType: 'vector', result: Array.from({ length: count }, (_, i) => ({ metric: { pod: `p${i}` }, value: [1, '1'] })) } });
    const chunked = (body: string): Handler => (_req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json', 'Transfer-Encoding': 'chunked' });
      for (let i = 0; i < body.length; i += 1000) res.write(body.slice(i, i + 1000));
      res.end();
    };
    const tooLarge = (size: string) => `Prometheus at ${base} sent a response too large (over ${size}); the queries aggregate by a few labels, so check that the URL points at Prometheus.`;
    const capped = config({ maxResponseBytes: 8192, maxStreamedResponseBytes: 8192 * STREAMED_CAP_FACTOR });
    // ~17 KB: over the 8 KiB cap, but read sample by sample it never holds more than a chunk.
    const fits = vector(500);
    expect(fits.length).toBeGreaterThan(8192);
    for (const respond of [chunked(fits), ((_req, res) => json(res, 200, JSON.parse(fits))) as Handler]) {
      handler = respond;
      expect(await queryInstant(capped, 'up', 1)).toHaveLength(500);
    }
    // Over STREAMED_CAP_FACTOR × the cap in all: refused, whether declared or streamed.
    const runaway = vector(5000);
    expect(runaway.length).toBeGreaterThan(8192 * STREAMED_CAP_FACTOR);
    handler = (_req, res) => json(res, 200, JSON.parse(runaway));
    const declared = await failure(queryInstant(capped, 'up', 1));
    expect(declared.kind).toBe('too-large');
    expect(declared.message).toBe(tooLarge('128 KiB'));
    handler = chunked(runaway);
    expect((await failure(queryInstant(capped, 'up', 1))).message).toBe(tooLarge('128 KiB'));
    // Another layout (pretty-printed) must be held whole: the cap applies to it as it is.
    handler = chunked(JSON.stringify(JSON.parse(fits), null, 1));
    const whole = await failure(queryInstant(capped, 'up', 1));
    expect(whole.kind).toBe('too-large');
    expect(whole.message).toBe(tooLarge('8 KiB'));
    // A range answer is held whole too.
    handler = chunked(JSON.stringify({ status: 'success', data: { resultType: 'matrix', result: Array.from({ length: 300 }, (_, i) => ({ metric: { pod: `p${i}` }, values: [[1, '1']] })) } }));
    expect((await failure(queryRange(capped, 'up', 0, 60, 15))).message).toBe(tooLarge('8 KiB'));
    // Without a cap of its own, a vector answer may not be larger than what may be held.
    handler = chunked(fits);
    expect((await failure(queryInstant(config({ maxResponseBytes: 8192 }), 'up', 1))).message).toBe(tooLarge('8 KiB'));
  });

  it('gives up on a slow Prometheus after the timeout', async () => {
    handler = (_req, res) => {
      setTimeout(() => json(res, 200, { status: 'success', data: { resultType: 'vector', result: [] } }), 2000).unref();
    };
    const started = Date.now();
    const error = await failure(queryInstant(config({ timeoutMs: 150 }), 'up', 1));
    expect(error.kind).toBe('timeout');
    expect(error.message).toBe(`Prometheus at ${base} did not answer within 150 ms.`);
    expect(Date.now() - started).toBeLessThan(1500);
  });

  it('says "connection refused" when nothing listens', async () => {
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const error = await failure(queryInstant(config({ baseUrl: `http://127.0.0.1:${port}` }), 'up', 1));
    expect(error.kind).toBe('unreachable');
    expect(error.message).toBe(`Prometheus at http://127.0.0.1:${port} is unreachable: connection refused.`);
  });

  it('reads the bearer token again for every request and never puts it in a message', async () => {
    const tokenFile = path.join(dir, 'token');
    writeFileSync(tokenFile, 'first-secret-token\n');
    handler = (_req, res) => json(res, 200, { status: 'success', data: { resultType: 'vector', result: [] } });
    const cfg = config({ tokenFile });
    await queryInstant(cfg, 'up', 1);
    writeFileSync(tokenFile, 'second-secret-token');
    await queryInstant(cfg, 'up', 1);
    expect(seen.map((s) => s.authorization)).toEqual(['Bearer first-secret-token', 'Bearer second-secret-token']);
    handler = (_req, res) => {
      res.writeHead(403, 'Forbidden');
      res.end('token second-secret-token is not allowed');
    };
    const error = await failure(queryInstant(cfg, 'up', 1));
    expect(error.message).not.toContain('second-secret-token');
    rmSync(tokenFile);
    const missing = await failure(queryInstant(cfg, 'up', 1));
    expect(missing.message).toBe('The Prometheus bearer token file (ZONESCOPE_PROMETHEUS_TOKEN_FILE) cannot be read.');
  });

  it('redacts credentials an error body echoes: an Authorization header, the token file\'s token however encoded', async () => {
    const tokenFile = path.join(dir, 'echoed-token');
    writeFileSync(tokenFile, 'prom-token-9f8e7d6c5b4a\n');
    handler = (req, res) => {
      res.writeHead(500, 'Internal Server Error');
      res.end(`upstream failed; request headers: Authorization: ${req.headers.authorization ?? ''}; raw=${Buffer.from('prom-token-9f8e7d6c5b4a').toString('base64')}`);
    };
    const error = await failure(queryInstant(config({ tokenFile }), 'up', 1));
    expect(error.message).toMatch(/^Prometheus at http:\/\/127\.0\.0\.1:\d+ answered HTTP 500 Internal Server Error: upstream failed; request headers: Authorization: /);
    expect(error.message).not.toContain('prom-token-9f8e7d6c5b4a');
    expect(error.message).not.toContain(Buffer.from('prom-token-9f8e7d6c5b4a').toString('base64'));
    expect(error.message).toContain('[redacted]');
    // A bearer token from elsewhere (a proxy's own) is caught by its shape.
    handler = (_req, res) => {
      res.writeHead(502, 'Bad Gateway');
      res.end('proxy said: Authorization: Bearer eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ4In0.c2lnbmF0dXJl');
    };
    const proxied = await failure(queryInstant(config(), 'up', 1));
    expect(proxied.message).not.toContain('eyJhbGciOiJSUzI1NiJ9');
  });

  it('sends basic auth from the URL userinfo without showing it', async () => {
    handler = (_req, res) => json(res, 200, { status: 'success', data: { resultType: 'vector', result: [] } });
    const result = metricsConfigFromEnv(configFromEnv({ ZONESCOPE_PROMETHEUS_URL: base.replace('http://', 'http://alice:s3cret@') + '/?x=1' }));
    if (result.kind !== 'ok') throw new Error(JSON.stringify(result));
    expect(result.config.baseUrl).toBe(base);
    await queryInstant(result.config, 'up', 1);
    expect(seen[0]?.authorization).toBe(`Basic ${Buffer.from('alice:s3cret').toString('base64')}`);
  });
});

describe('a large instant answer is read sample by sample as it arrives', () => {
  /** A vector answer as Prometheus writes it, with label values that look like the sample separator. */
  function bigAnswer(extra: Record<string, unknown> = {}): string {
    const result = Array.from({ length: 9000 }, (_, i) => ({
      metric: { k8s_dst_owner_name: i % 97 === 0 ? 'tricky},{"metric":{"x":"y"}' : `web-${i}`, k8s_dst_namespace: 'shöp', src_zone: `zone-${i % 3}`, pad: 'p'.repeat(100) },
      value: [1700000000, i % 500 === 0 ? 'NaN' : String(i * 1.5)],
    }));
    return JSON.stringify({ status: 'success', data: { resultType: 'vector', result }, ...extra });
  }

  /** `body` fed to a reader in pieces of `size` characters. */
  function readInPieces(body: string, size: number, options: InstantQueryOptions = {}): { samples: VectorSample[]; mostHeld: number } {
    const reader = new VectorAnswerReader('http://prom', options);
    let mostHeld = 0;
    for (let i = 0; i < body.length; i += size) {
      reader.write(body.slice(i, i + size));
      mostHeld = Math.max(mostHeld, reader.heldChars);
    }
    return { samples: reader.end(), mostHeld };
  }

  it('gives the samples of one parse whatever the pieces, holding only the text after the last complete sample', () => {
    for (const body of [bigAnswer(), bigAnswer({ warnings: ['PromQL info: metric might not be a counter'] })]) {
      const whole = parseVectorResponse(body, 'http://prom');
      expect(whole).toHaveLength(9000);
      for (const size of [7, 1000, 65_536, body.length]) {
        const { samples, mostHeld } = readInPieces(body, size);
        expect(samples).toEqual(whole);
        // A piece and at most one sample (~200 characters) are held, never the answer.
        if (size < body.length) expect(mostHeld).toBeLessThan(size + 400);
      }
    }
  });

  it('small answers, error envelopes and other layouts are read whole at the end, with the same result or error', () => {
    const small = JSON.stringify({ status: 'success', data: { resultType: 'vector', result: [{ metric: { pod: 'a' }, value: [1, '2'] }] } });
    expect(readInPieces(small, 5).samples).toEqual([{ metric: { pod: 'a' }, value: 2 }]);
    const empty = JSON.stringify({ status: 'success', data: { resultType: 'vector', result: [] } });
    expect(readInPieces(empty, 3).samples).toEqual([]);
    const rejected = JSON.stringify({ status: 'error', errorType: 'bad_data', error: 'parse error' });
    expect(() => readInPieces(rejected, 4)).toThrow('Prometheus at http://prom rejected the query: bad_data: parse error.');
    // Pretty-printed, or value before metric: no cut at sample boundaries, the same samples.
    const answer = JSON.parse(bigAnswer()) as { data: { result: { metric: unknown; value: unknown }[] } };
    const pretty = JSON.stringify(answer, null, 1);
    const reordered = JSON.stringify({ status: 'success', data: { resultType: 'vector', result: answer.data.result.map((r) => ({ value: r.value, metric: r.metric })) } });
    for (const body of [pretty, reordered]) expect(readInPieces(body, 4096).samples).toEqual(parseVectorResponse(body, 'http://prom'));
    // Not JSON after the vector's start: malformed, as one parse says.
    expect(() => readInPieces(`${bigAnswer().slice(0, 5000)}},{"metric":{"pod":}`, 1000)).toThrow('Prometheus at http://prom sent a response that is not JSON (is the URL a Prometheus server?).');
  });

  it('a bad sample in a middle piece fails as one parse does', () => {
    const body = bigAnswer().replace('"value":[1700000000,"3"]', '"value":[1700000000,"three"]');
    expect(() => readInPieces(body, 1000)).toThrow('Prometheus at http://prom sent a sample value that is not a number.');
  });

  it('read with perSample, a bad value or timestamp costs only its own sample', () => {
    const body = bigAnswer().replace('"value":[1700000000,"3"]', '"value":[1700000000,"three"]').replace('"value":[1700000000,"4.5"]', '"value":["later","4.5"]');
    const { samples } = readInPieces(body, 1000, { perSample: true });
    expect(samples).toHaveLength(9000);
    expect(samples.filter((s) => s.problem !== undefined).map((s) => s.problem)).toEqual(['its value "three" is not a number', 'its timestamp "later" is not a time']);
    expect(samples.slice(2, 4).map((s) => [s.metric.k8s_dst_owner_name, s.value])).toEqual([['web-2', Number.NaN], ['web-3', Number.NaN]]);
    expect(samples.filter((s) => s.problem === undefined && !Number.isNaN(s.value))).toHaveLength(9000 - 2 - 18);
  });

  it('queryInstant asks for gzip and reads a large vector plain, chunked or gzipped', async () => {
    const body = bigAnswer();
    const encodings: (string | undefined)[] = [];
    for (const gzip of [false, true]) {
      handler = (req, res) => {
        encodings.push(req.headers['accept-encoding']);
        res.writeHead(200, { 'Content-Type': 'application/json', ...(gzip ? { 'Content-Encoding': 'gzip' } : {}) });
        const bytes = gzip ? gzipSync(body) : Buffer.from(body);
        for (let i = 0; i < bytes.length; i += 16_384) res.write(bytes.subarray(i, i + 16_384));
        res.end();
      };
      expect(await queryInstant(config(), 'x', 1)).toEqual(parseVectorResponse(body, base));
    }
    expect(encodings).toEqual(['gzip', 'gzip']);
  });

  it('queryInstantEach hands over each sample as it is read, in order, and keeps none; an error envelope still rejects', async () => {
    const body = bigAnswer();
    const small = JSON.stringify({ status: 'success', data: { resultType: 'vector', result: [{ metric: { pod: 'a' }, value: [1, '2'] }] } });
    for (const answer of [body, small, JSON.stringify(JSON.parse(body), null, 1)]) {
      handler = (_req, res) => {
        res.writeHead(200, { 'Content-Type': 'application/json' });
        for (let i = 0; i < answer.length; i += 16_384) res.write(answer.slice(i, i + 16_384));
        res.end();
      };
      const seen: VectorSample[] = [];
      await queryInstantEach(config(), 'x', 1, (sample) => seen.push(sample));
      expect(seen).toEqual(parseVectorResponse(answer, base));
    }
    // The reader itself: with a sink it collects nothing.
    const handed: VectorSample[] = [];
    const reader = new VectorAnswerReader('http://prom', {}, (sample) => handed.push(sample));
    for (let i = 0; i < body.length; i += 1000) reader.write(body.slice(i, i + 1000));
    expect(reader.end()).toEqual([]);
    expect(handed).toHaveLength(9000);
    handler = (_req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify({ status: 'error', errorType: 'bad_data', error: 'parse error' }));
    };
    const error = await failure(queryInstantEach(config(), 'x', 1, () => undefined));
    expect(error.message).toBe(`Prometheus at ${base} rejected the query: bad_data: parse error.`);
  });

  it('a gzip answer that does not decompress is malformed, not a crash', async () => {
    handler = (_req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Encoding': 'gzip' });
      res.end('not gzip at all');
    };
    const error = await failure(queryInstant(config(), 'x', 1));
    expect(error.kind).toBe('malformed');
    expect(error.message).toBe(`Prometheus at ${base} sent a gzip answer that could not be decompressed.`);
  });
});

describe('queryRange', () => {
  it('sends query, start, end and step, and parses the matrix in time order with NaN kept', async () => {
    handler = (_req, res) =>
      json(res, 200, {
        status: 'success',
        data: {
          resultType: 'matrix',
          result: [
            { metric: { series: 'observed' }, values: [[1700000010, '0'], [1700000000, '1']] },
            { metric: { zone: 'a', odd: 3 }, values: [[1700000000, 'NaN'], [1700000005, '+Inf']] },
          ],
        },
      });
    const series = await queryRange(config(), 'max(zonescope_service_hints_observed_ratio)', 1700000000, 1700000010.25, 5);
    expect(series).toEqual([
      { metric: { series: 'observed' }, values: [{ t: 1700000000, v: 1 }, { t: 1700000010, v: 0 }] },
      { metric: { zone: 'a' }, values: [{ t: 1700000000, v: Number.NaN }, { t: 1700000005, v: Number.POSITIVE_INFINITY }] },
    ]);
    const url = new URL(seen[0]?.url ?? '', base);
    expect(url.pathname).toBe('/api/v1/query_range');
    expect(Object.fromEntries(url.searchParams)).toEqual({ query: 'max(zonescope_service_hints_observed_ratio)', start: '1700000000.000', end: '1700000010.250', step: '5' });
  });

  it.each([
    {
      name: 'a vector where a matrix was expected',
      body: { status: 'success', data: { resultType: 'vector', result: [] } },
      message: (u: string) => `Prometheus at ${u} answered with a vector result where a range matrix was expected.`,
    },
    {
      name: 'a series without values',
      body: { status: 'success', data: { resultType: 'matrix', result: [{ metric: {}, value: [1, '1'] }] } },
      message: (u: string) => `Prometheus at ${u} sent a matrix series that is not {metric, values: [[time, "value"], …]}.`,
    },
    {
      name: 'a sample with a string time',
      body: { status: 'success', data: { resultType: 'matrix', result: [{ metric: {}, values: [['1', '1']] }] } },
      message: (u: string) => `Prometheus at ${u} sent a matrix sample that is not [time, "value"].`,
    },
    {
      name: 'a value that is not a number',
      body: { status: 'success', data: { resultType: 'matrix', result: [{ metric: {}, values: [[1, 'x']] }] } },
      message: (u: string) => `Prometheus at ${u} sent a sample value that is not a number.`,
    },
    {
      name: 'no result list',
      body: { status: 'success', data: { resultType: 'matrix' } },
      message: (u: string) => `Prometheus at ${u} sent a matrix answer without a "result" list.`,
    },
  ])('$name → malformed with a clear message', async ({ body, message }) => {
    handler = (_req, res) => json(res, 200, body);
    const error = await failure(queryRange(config(), 'up', 0, 60, 15));
    expect(error.kind).toBe('malformed');
    expect(error.message).toBe(message(base));
  });

  it('shows the error envelope of a 400 and the deadline, as instant queries do', async () => {
    handler = (_req, res) => json(res, 400, { status: 'error', errorType: 'bad_data', error: 'exceeded maximum resolution of 11,000 points per timeseries' });
    const rejected = await failure(queryRange(config(), 'up', 0, 60, 15));
    expect(rejected.kind).toBe('query');
    expect(rejected.message).toBe(`Prometheus at ${base} rejected the query: bad_data: exceeded maximum resolution of 11,000 points per timeseries.`);
    handler = (_req, res) => {
      setTimeout(() => json(res, 200, { status: 'success', data: { resultType: 'matrix', result: [] } }), 2000).unref();
    };
    const slow = await failure(queryRange(config({ timeoutMs: 150 }), 'up', 0, 60, 15));
    expect(slow.message).toBe(`Prometheus at ${base} did not answer within 150 ms.`);
  });

  it('refuses an empty range, a bad step or too many points before sending anything', async () => {
    expect((await failure(queryRange(config(), 'up', 100, 50, 5))).message).toBe('A range query needs start ≤ end and a positive step (got start 100, end 50, step 5).');
    expect((await failure(queryRange(config(), 'up', 0, 50, 0))).kind).toBe('query');
    expect((await failure(queryRange(config(), 'up', 0, MAX_RANGE_POINTS * 10, 1))).message).toBe(`A range query of ${MAX_RANGE_POINTS * 10} s at a 1 s step would exceed ${MAX_RANGE_POINTS} points per series.`);
    expect(seen).toHaveLength(0);
  });

  it('sends the bearer token, read for every request', async () => {
    const tokenFile = path.join(dir, 'range-token');
    writeFileSync(tokenFile, 'range-secret');
    handler = (_req, res) => json(res, 200, { status: 'success', data: { resultType: 'matrix', result: [] } });
    expect(await queryRange(config({ tokenFile }), 'up', 0, 60, 15)).toEqual([]);
    expect(seen[0]?.authorization).toBe('Bearer range-secret');
  });
});

describe('queryInstant over https', () => {
  it('trusts the server with ZONESCOPE_PROMETHEUS_CA_FILE, and says what is wrong without it', async () => {
    const tls = await generateSimTls();
    const secure = https.createServer({ cert: tls.serverCertificate, key: tls.serverKey }, (_req, res) => json(res, 200, { status: 'success', data: { resultType: 'vector', result: [{ metric: {}, value: [1, '3'] }] } }));
    await new Promise<void>((resolve) => secure.listen(0, '127.0.0.1', resolve));
    try {
      const caFile = path.join(dir, 'prom-ca.pem');
      writeFileSync(caFile, tls.caCertificate);
      const url = `https://127.0.0.1:${(secure.address() as AddressInfo).port}`;
      const trusted = metricsConfigFromEnv(configFromEnv({ ZONESCOPE_PROMETHEUS_URL: url, ZONESCOPE_PROMETHEUS_CA_FILE: caFile }));
      if (trusted.kind !== 'ok') throw new Error(JSON.stringify(trusted));
      expect((await queryInstant(trusted.config, 'up', 1)).map((sample) => sample.value)).toEqual([3]);
      const untrusted = metricsConfigFromEnv(configFromEnv({ ZONESCOPE_PROMETHEUS_URL: url }));
      if (untrusted.kind !== 'ok') throw new Error(JSON.stringify(untrusted));
      const error = await failure(queryInstant(untrusted.config, 'up', 1));
      expect(error.message).toBe(`Prometheus at ${url} presented a certificate that is not trusted (set ZONESCOPE_PROMETHEUS_CA_FILE to the CA that signs it).`);
    } finally {
      secure.closeAllConnections();
      await new Promise<void>((resolve) => secure.close(() => resolve()));
    }
  }, 20_000);
});

describe('metricsConfigFromEnv', () => {
  it('is not configured without a URL, with defaults', () => {
    expect(metricsConfigFromEnv(configFromEnv({}))).toEqual({ kind: 'not-configured', window: '7d', refreshSeconds: 60 });
  });

  it('reads every variable', () => {
    const result = metricsConfigFromEnv(configFromEnv({
      ZONESCOPE_PROMETHEUS_URL: 'https://prom.example:9090/prometheus/',
      ZONESCOPE_PROMETHEUS_WINDOW: '1h30m',
      ZONESCOPE_PROMETHEUS_REFRESH_SECONDS: '15',
      ZONESCOPE_PROMETHEUS_TIMEOUT_MS: '2500',
      ZONESCOPE_PROMETHEUS_MAX_STALE_SECONDS: '30',
    }));
    expect(result).toMatchObject({ kind: 'ok', config: { baseUrl: 'https://prom.example:9090/prometheus', window: '1h30m', refreshSeconds: 15, timeoutMs: 2500, maxStaleSeconds: 30, basicAuth: null, tokenFile: null, ca: null } });
  });

  it.each([
    { env: { ZONESCOPE_PROMETHEUS_URL: 'not a url' }, message: 'ZONESCOPE_PROMETHEUS_URL is not a valid URL (expected e.g. http://prometheus:9090).' },
    { env: { ZONESCOPE_PROMETHEUS_URL: 'ftp://prom:21' }, message: 'ZONESCOPE_PROMETHEUS_URL must start with http:// or https://, not ftp://.' },
    { env: { ZONESCOPE_PROMETHEUS_URL: 'http://prom:9090', ZONESCOPE_PROMETHEUS_WINDOW: '7 days' }, message: 'ZONESCOPE_PROMETHEUS_WINDOW must be a PromQL duration such as 7d, 24h or 30m, not "7 days".' },
    { env: { ZONESCOPE_PROMETHEUS_URL: 'http://prom:9090', ZONESCOPE_PROMETHEUS_REFRESH_SECONDS: '0' }, message: 'ZONESCOPE_PROMETHEUS_REFRESH_SECONDS must be a number of at least 0.1, not "0".' },
    { env: { ZONESCOPE_PROMETHEUS_URL: 'http://prom:9090', ZONESCOPE_PROMETHEUS_TIMEOUT_MS: '1.5' }, message: 'ZONESCOPE_PROMETHEUS_TIMEOUT_MS must be a whole number of at least 1, not "1.5".' },
  ])('stops the start: $message', ({ env, message }) => {
    const result = parseConfig(env);
    expect(result.ok).toBe(false);
    expect(result.ok ? [] : result.errors.map((e) => e.message)).toEqual([message]);
  });

  it.each([
    { env: { ZONESCOPE_PROMETHEUS_URL: 'http://prom:9090', ZONESCOPE_PROMETHEUS_TOKEN_FILE: '/nonexistent/zonescope/token' }, message: 'ZONESCOPE_PROMETHEUS_TOKEN_FILE (/nonexistent/zonescope/token) cannot be read: no such file.' },
    { env: { ZONESCOPE_PROMETHEUS_URL: 'https://prom:9090', ZONESCOPE_PROMETHEUS_CA_FILE: '/nonexistent/zonescope/ca.pem' }, message: 'ZONESCOPE_PROMETHEUS_CA_FILE (/nonexistent/zonescope/ca.pem) cannot be read: no such file.' },
  ])('$message', ({ env, message }) => {
    const result = metricsConfigFromEnv(configFromEnv(env));
    expect(result.kind).toBe('error');
    expect(result.kind === 'error' ? result.message : '').toBe(message);
  });

  it('rejects a CA file without a certificate and an empty token file', () => {
    const ca = path.join(dir, 'ca.pem');
    writeFileSync(ca, 'hello');
    const token = path.join(dir, 'empty-token');
    writeFileSync(token, '  \n');
    expect(metricsConfigFromEnv(configFromEnv({ ZONESCOPE_PROMETHEUS_URL: 'https://p:1', ZONESCOPE_PROMETHEUS_CA_FILE: ca }))).toMatchObject({ kind: 'error', message: `ZONESCOPE_PROMETHEUS_CA_FILE (${ca}) holds no PEM certificate.` });
    expect(metricsConfigFromEnv(configFromEnv({ ZONESCOPE_PROMETHEUS_URL: 'https://p:1', ZONESCOPE_PROMETHEUS_TOKEN_FILE: token }))).toMatchObject({ kind: 'error', message: `ZONESCOPE_PROMETHEUS_TOKEN_FILE (${token}) is empty.` });
  });

  it('never shows URL credentials, even for a URL it cannot use', () => {
    const token = path.join(dir, 'missing-token');
    const bad = metricsConfigFromEnv(configFromEnv({ ZONESCOPE_PROMETHEUS_URL: 'http://bob:hunter2@prom:9090', ZONESCOPE_PROMETHEUS_TOKEN_FILE: token }));
    expect(JSON.stringify(bad)).not.toContain('hunter2');
    expect(bad).toMatchObject({ kind: 'error', url: 'http://prom:9090' });
    const invalid = parseConfig({ ZONESCOPE_PROMETHEUS_URL: 'http://bob:hunter2@[bad' });
    expect(invalid.ok).toBe(false);
    expect(JSON.stringify(invalid)).not.toContain('hunter2');
    // A URL given on the command line (npm run analyze -- --prometheus) is checked here.
    const given = metricsConfigFromEnv({ ...configFromEnv({}), ZONESCOPE_PROMETHEUS_URL: 'http://bob:hunter2@[bad' });
    expect(given.kind).toBe('error');
    expect(JSON.stringify(given)).not.toContain('hunter2');
  });
});
