/**
 * A minimal Prometheus HTTP API client: instant queries (`GET /api/v1/query?query=…&time=…`) and
 * range queries (`GET /api/v1/query_range?query=…&start=…&end=…&step=…`) over
 * node:http(s), with the bearer token read again from its file for every request, an optional CA
 * bundle, a deadline and a cap on the response size. Every failure is a {@link PrometheusError}
 * whose message is one sentence a user can act on; no credential is ever part of it.
 *
 * @see https://prometheus.io/docs/prometheus/latest/querying/api/#instant-queries
 * @see https://prometheus.io/docs/prometheus/latest/querying/api/#range-queries
 */
import { readFileSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import { redact, rememberSecret } from '../k8s/redact';
import type { MetricsConfig } from './config';

/** One sample of an instant vector: the series' labels and its value (NaN, ±Inf kept as such). */
export interface VectorSample {
  readonly metric: Readonly<Record<string, string>>;
  readonly value: number;
  /**
   * Read sample by sample ({@link InstantQueryOptions.perSample}): why this sample cannot be used
   * (its value or its timestamp is not a number); `value` is then NaN. Absent when it can.
   */
  readonly problem?: string;
}

/** How {@link queryInstant} reads an answer. */
export interface InstantQueryOptions {
  /**
   * A sample whose value or timestamp is not a number is kept, with its {@link VectorSample.problem},
   * instead of failing the whole answer: one broken series then costs only what reads it.
   */
  readonly perSample?: boolean;
}

/** Why a query failed. */
export type PrometheusErrorKind = 'unreachable' | 'timeout' | 'http' | 'malformed' | 'too-large' | 'query' | 'auth';

/**
 * A failed query, with a user-facing message. The message is redacted (lib/k8s/redact.ts) as the
 * Kubernetes path's are: a Prometheus or a proxy in front of it may echo the request's
 * `Authorization` header, a token or a password in an error body, and the message is shown in
 * every page header, `/api/v1/cluster` and History.
 */
export class PrometheusError extends Error {
  readonly kind: PrometheusErrorKind;
  constructor(kind: PrometheusErrorKind, message: string) {
    super(redact(message));
    this.name = 'PrometheusError';
    this.kind = kind;
  }
}

const MAX_DETAIL = 200;

function shorten(text: string): string {
  const one = text.replace(/\s+/g, ' ').trim();
  return one.length > MAX_DETAIL ? `${one.slice(0, MAX_DETAIL)}…` : one;
}

function sentence(text: string): string {
  return /[.!?…]$/.test(text) ? text : `${text}.`;
}

/** A sample value as Prometheus writes it (`"1.5"`, `"NaN"`, `"+Inf"`, `"-Inf"`), `null` when not a number at all. */
export function parseSampleValue(raw: unknown): number | null {
  if (typeof raw !== 'string') return null;
  if (raw === 'NaN') return Number.NaN;
  if (raw === '+Inf' || raw === 'Inf') return Number.POSITIVE_INFINITY;
  if (raw === '-Inf') return Number.NEGATIVE_INFINITY;
  if (raw.trim() === '') return null;
  const value = Number(raw);
  return Number.isNaN(value) ? null : value;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The `data` of a successful answer; throws {@link PrometheusError} for non-JSON, non-API and error envelopes. */
function parseEnvelope(body: string, where: string): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    throw new PrometheusError('malformed', `Prometheus at ${where} sent a response that is not JSON (is the URL a Prometheus server?).`);
  }
  if (!isRecord(parsed) || (parsed.status !== 'success' && parsed.status !== 'error')) {
    throw new PrometheusError('malformed', `Prometheus at ${where} sent JSON that is not a Prometheus API answer (no "status").`);
  }
  if (parsed.status === 'error') {
    const type = typeof parsed.errorType === 'string' ? parsed.errorType : 'error';
    const detail = typeof parsed.error === 'string' ? parsed.error : 'no detail';
    throw new PrometheusError('query', `Prometheus at ${where} rejected the query: ${type}: ${sentence(shorten(detail))}`);
  }
  const data = parsed.data;
  if (!isRecord(data)) throw new PrometheusError('malformed', `Prometheus at ${where} sent an answer without "data".`);
  return data;
}

function labelsOf(metric: Record<string, unknown>): Record<string, string> {
  const labels: Record<string, string> = {};
  for (const [key, label] of Object.entries(metric)) if (typeof label === 'string') labels[key] = label;
  return labels;
}

/** Parses the `{status, data:{resultType:'vector', result:[…]}}` envelope of an instant query. Throws {@link PrometheusError}. */
export function parseVectorResponse(body: string, where: string, options: InstantQueryOptions = {}): VectorSample[] {
  const data = parseEnvelope(body, where);
  if (data.resultType !== 'vector') {
    throw new PrometheusError('malformed', `Prometheus at ${where} answered with a ${typeof data.resultType === 'string' ? data.resultType : 'missing'} result where an instant vector was expected.`);
  }
  if (!Array.isArray(data.result)) throw new PrometheusError('malformed', `Prometheus at ${where} sent a vector answer without a "result" list.`);
  const samples: VectorSample[] = [];
  for (const entry of data.result as unknown[]) samples.push(vectorSampleOf(entry, where, options));
  return samples;
}

/** A value of an answer as a message shows it: JSON, at most 40 characters. */
function shownValue(raw: unknown): string {
  const text = raw === undefined ? 'nothing' : JSON.stringify(raw);
  return text.length > 40 ? `${text.slice(0, 40)}…` : text;
}

/** A sample's timestamp (Unix seconds, a float; a numeric string is accepted), `null` when it is none. */
function sampleTime(raw: unknown): number | null {
  const time = typeof raw === 'number' ? raw : typeof raw === 'string' && raw.trim() !== '' ? Number(raw) : Number.NaN;
  return Number.isFinite(time) ? time : null;
}

function vectorSampleOf(entry: unknown, where: string, options: InstantQueryOptions = {}): VectorSample {
  if (!isRecord(entry) || !isRecord(entry.metric) || !Array.isArray(entry.value) || entry.value.length !== 2) {
    throw new PrometheusError('malformed', `Prometheus at ${where} sent a vector sample that is not {metric, value: [time, "value"]}.`);
  }
  const value = parseSampleValue(entry.value[1]);
  if (options.perSample === true) {
    const metric = labelsOf(entry.metric);
    if (sampleTime(entry.value[0]) === null) return { metric, value: Number.NaN, problem: `its timestamp ${shownValue(entry.value[0])} is not a time` };
    if (value === null) return { metric, value: Number.NaN, problem: `its value ${shownValue(entry.value[1])} is not a number` };
    return { metric, value };
  }
  if (value === null) throw new PrometheusError('malformed', `Prometheus at ${where} sent a sample value that is not a number.`);
  return { metric: labelsOf(entry.metric), value };
}

/** How Prometheus (compact JSON, `metric` before `value`) starts a successful instant-vector answer. */
const VECTOR_PREFIX = '{"status":"success","data":{"resultType":"vector","result":[';
/**
 * What stands between two samples of such an answer. It cannot occur inside a JSON string (a quote
 * there is always escaped), so every occurrence separates two samples of the result list.
 */
const SAMPLE_SEPARATOR = '},{"metric":';
/** Below this many characters an answer is parsed in one go (a few milliseconds at most). */
export const SLICED_PARSE_MIN_CHARS = 1 << 20;
/** Samples parsed per slice of {@link parseVectorResponseInSlices} by default (~250 KB of JSON). */
export const SAMPLES_PER_SLICE = 1000;

/**
 * {@link parseVectorResponse} that does not hold the event loop on a large answer: at scale a flow
 * query answers ~150k series (~40 MB of JSON), which one `JSON.parse` turns into seconds of
 * blocked requests on a busy machine. An answer laid out as Prometheus writes it is cut at the
 * sample boundaries and parsed `samplesPerSlice` samples at a time with a macrotask between
 * slices; the envelope is checked on the last sample with the answer's own tail. Anything else —
 * a small answer, an error envelope, another layout, a cut that does not parse — goes through
 * {@link parseVectorResponse} (synchronously when decided up front), so the result and the errors
 * are always the same.
 */
export function parseVectorResponseInSlices(body: string, where: string, samplesPerSlice: number = SAMPLES_PER_SLICE, options: InstantQueryOptions = {}): VectorSample[] | Promise<VectorSample[]> {
  if (body.length < SLICED_PARSE_MIN_CHARS || !body.startsWith(VECTOR_PREFIX)) return parseVectorResponse(body, where, options);
  return parseInSlices(body, where, Math.max(1, samplesPerSlice), options).catch((error: unknown) => {
    // A cut that does not parse (an unexpected layout): the whole answer in one go, errors included.
    if (error instanceof SyntaxError) return parseVectorResponse(body, where, options);
    throw error;
  });
}

async function parseInSlices(body: string, where: string, samplesPerSlice: number, options: InstantQueryOptions): Promise<VectorSample[]> {
  const samples: VectorSample[] = [];
  let start = VECTOR_PREFIX.length;
  for (;;) {
    // The next `samplesPerSlice` samples: up to the separator after the last of them.
    let cut = start;
    let found = 0;
    while (found < samplesPerSlice) {
      const next = body.indexOf(SAMPLE_SEPARATOR, cut);
      if (next < 0) break;
      cut = next + 1;
      found += 1;
    }
    if (found === 0) break;
    const slice: unknown = JSON.parse(`[${body.slice(start, cut)}]`);
    if (!Array.isArray(slice)) throw new SyntaxError('not a list of samples');
    for (const entry of slice) samples.push(vectorSampleOf(entry, where, options));
    start = cut + 1;
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
  // The last sample with the answer's tail, behind the prefix: a whole answer of one sample (or none).
  for (const entry of parseVectorResponse(`${VECTOR_PREFIX}${body.slice(start)}`, where, options)) samples.push(entry);
  return samples;
}

/** One sample of a range series: evaluation time (Unix seconds) and value. */
export interface MatrixPoint {
  readonly t: number;
  readonly v: number;
}

/** One series of a range query: its labels and its samples, oldest first. */
export interface MatrixSeries {
  readonly metric: Readonly<Record<string, string>>;
  readonly values: readonly MatrixPoint[];
}

/**
 * Parses the `{status, data:{resultType:'matrix', result:[{metric, values:[[t,"v"],…]}]}}`
 * envelope of a range query (samples sorted by time). Throws {@link PrometheusError}.
 */
export function parseMatrixResponse(body: string, where: string): MatrixSeries[] {
  const data = parseEnvelope(body, where);
  if (data.resultType !== 'matrix') {
    throw new PrometheusError('malformed', `Prometheus at ${where} answered with a ${typeof data.resultType === 'string' ? data.resultType : 'missing'} result where a range matrix was expected.`);
  }
  if (!Array.isArray(data.result)) throw new PrometheusError('malformed', `Prometheus at ${where} sent a matrix answer without a "result" list.`);
  const series: MatrixSeries[] = [];
  for (const entry of data.result as unknown[]) {
    if (!isRecord(entry) || !isRecord(entry.metric) || !Array.isArray(entry.values)) {
      throw new PrometheusError('malformed', `Prometheus at ${where} sent a matrix series that is not {metric, values: [[time, "value"], …]}.`);
    }
    const values: MatrixPoint[] = [];
    for (const pair of entry.values as unknown[]) {
      if (!Array.isArray(pair) || pair.length !== 2 || typeof pair[0] !== 'number' || !Number.isFinite(pair[0])) {
        throw new PrometheusError('malformed', `Prometheus at ${where} sent a matrix sample that is not [time, "value"].`);
      }
      const value = parseSampleValue(pair[1]);
      if (value === null) throw new PrometheusError('malformed', `Prometheus at ${where} sent a sample value that is not a number.`);
      values.push({ t: pair[0], v: value });
    }
    values.sort((a, b) => a.t - b.t);
    series.push({ metric: labelsOf(entry.metric), values });
  }
  return series;
}

function readToken(file: string): string {
  let token: string;
  try {
    token = readFileSync(file, 'utf8').trim();
  } catch {
    throw new PrometheusError('auth', 'The Prometheus bearer token file (ZONESCOPE_PROMETHEUS_TOKEN_FILE) cannot be read.');
  }
  if (token === '') throw new PrometheusError('auth', 'The Prometheus bearer token file (ZONESCOPE_PROMETHEUS_TOKEN_FILE) is empty.');
  return token;
}

function networkMessage(error: NodeJS.ErrnoException, where: string): string {
  switch (error.code) {
    case 'ECONNREFUSED':
      return `Prometheus at ${where} is unreachable: connection refused.`;
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return `Prometheus at ${where} is unreachable: the host name does not resolve.`;
    case 'ECONNRESET':
    case 'EPIPE':
      return `Prometheus at ${where} closed the connection before answering.`;
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return `Prometheus at ${where} is unreachable: no route to the host.`;
    case 'DEPTH_ZERO_SELF_SIGNED_CERT':
    case 'SELF_SIGNED_CERT_IN_CHAIN':
    case 'UNABLE_TO_VERIFY_LEAF_SIGNATURE':
    case 'UNABLE_TO_GET_ISSUER_CERT_LOCALLY':
      return `Prometheus at ${where} presented a certificate that is not trusted (set ZONESCOPE_PROMETHEUS_CA_FILE to the CA that signs it).`;
    case 'ERR_TLS_CERT_ALTNAME_INVALID':
      return `Prometheus at ${where} presented a certificate for another host name.`;
    case 'CERT_HAS_EXPIRED':
      return `Prometheus at ${where} presented an expired certificate.`;
    default:
      return `Prometheus at ${where} is unreachable: ${error.code ?? 'network error'}.`;
  }
}

function httpMessage(status: number, statusText: string, body: string, where: string): PrometheusError {
  let detail = '';
  try {
    const parsed: unknown = JSON.parse(body);
    if (isRecord(parsed) && typeof parsed.error === 'string') detail = `${typeof parsed.errorType === 'string' ? `${parsed.errorType}: ` : ''}${parsed.error}`;
  } catch {
    detail = body.trim().startsWith('<') ? '' : body;
  }
  const head = `Prometheus at ${where} answered HTTP ${status}${statusText ? ` ${statusText}` : ''}`;
  if (status === 401 || status === 403) {
    return new PrometheusError('auth', `${head}: check the bearer token (ZONESCOPE_PROMETHEUS_TOKEN_FILE) or the URL's credentials.`);
  }
  return new PrometheusError('http', detail.trim() === '' ? `${head}.` : `${head}: ${sentence(shorten(detail))}`);
}

function formatBytes(bytes: number): string {
  return bytes >= 1024 * 1024 ? `${Math.round(bytes / (1024 * 1024))} MiB` : `${Math.round(bytes / 1024)} KiB`;
}

/**
 * Runs one instant query at `timeSeconds` (Unix seconds). Resolves to the vector's samples;
 * rejects with a {@link PrometheusError} when Prometheus is down, slow, answers 4xx/5xx or an
 * error envelope, or sends something that is not a vector answer or is larger than the cap.
 */
export function queryInstant(config: MetricsConfig, promql: string, timeSeconds: number, options: InstantQueryOptions = {}): Promise<VectorSample[]> {
  return apiGet(config, '/api/v1/query', { query: promql, time: timeSeconds.toFixed(3) }, (body, where) => parseVectorResponseInSlices(body, where, SAMPLES_PER_SLICE, options));
}

/** Most points Prometheus returns per series of a range query (its own limit is 11,000). */
export const MAX_RANGE_POINTS = 11_000;

/**
 * Runs one range query from `start` to `end` (Unix seconds) every `stepSeconds`. Resolves to the
 * matrix's series; rejects with a {@link PrometheusError} as {@link queryInstant} does, and before
 * sending anything when the range is empty or would exceed {@link MAX_RANGE_POINTS} points.
 */
export function queryRange(config: MetricsConfig, promql: string, start: number, end: number, stepSeconds: number): Promise<MatrixSeries[]> {
  if (!Number.isFinite(start) || !Number.isFinite(end) || !Number.isFinite(stepSeconds) || stepSeconds <= 0 || end < start) {
    return Promise.reject(new PrometheusError('query', `A range query needs start ≤ end and a positive step (got start ${start}, end ${end}, step ${stepSeconds}).`));
  }
  if ((end - start) / stepSeconds + 1 > MAX_RANGE_POINTS) {
    return Promise.reject(new PrometheusError('query', `A range query of ${end - start} s at a ${stepSeconds} s step would exceed ${MAX_RANGE_POINTS} points per series.`));
  }
  return apiGet(config, '/api/v1/query_range', { query: promql, start: start.toFixed(3), end: end.toFixed(3), step: String(stepSeconds) }, parseMatrixResponse);
}

/** One GET of the HTTP API with credentials, deadline and size cap; `parse` reads a 2xx body (and the error envelope of a 400/422). */
function apiGet<T>(config: MetricsConfig, apiPath: string, params: Readonly<Record<string, string>>, parse: (body: string, where: string) => T[] | Promise<T[]>): Promise<T[]> {
  const where = config.baseUrl;
  return new Promise<T[]>((resolve, reject) => {
    let settled = false;
    const done = (error: PrometheusError | null, samples?: T[]): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (error) reject(error);
      else resolve(samples ?? []);
    };
    let headers: Record<string, string>;
    try {
      headers = { Accept: 'application/json' };
      if (config.tokenFile !== null) {
        const token = readToken(config.tokenFile);
        // Known to redaction, so an error body that echoes it (in any encoding) never shows it.
        rememberSecret(token);
        headers.Authorization = `Bearer ${token}`;
      } else if (config.basicAuth !== null) {
        rememberSecret(config.basicAuth.password);
        rememberSecret(`${config.basicAuth.username}:${config.basicAuth.password}`);
        headers.Authorization = `Basic ${Buffer.from(`${config.basicAuth.username}:${config.basicAuth.password}`).toString('base64')}`;
      }
    } catch (error) {
      settled = true;
      reject(error instanceof PrometheusError ? error : new PrometheusError('auth', 'The Prometheus credentials could not be prepared.'));
      return;
    }
    const url = new URL(`${config.baseUrl}${apiPath}`);
    for (const [key, value] of Object.entries(params)) url.searchParams.set(key, value);
    const transport = url.protocol === 'https:' ? https : http;
    const request = transport.request(
      url,
      { method: 'GET', headers, ...(url.protocol === 'https:' && config.ca !== null ? { ca: config.ca } : {}), agent: false },
      (response) => {
        const status = response.statusCode ?? 0;
        const declared = Number(response.headers['content-length']);
        const tooLarge = (): void => {
          done(new PrometheusError('too-large', `Prometheus at ${where} sent a response too large (over ${formatBytes(config.maxResponseBytes)}); the queries aggregate by a few labels, so check that the URL points at Prometheus.`));
          response.destroy();
          request.destroy();
        };
        if (Number.isFinite(declared) && declared > config.maxResponseBytes) {
          tooLarge();
          return;
        }
        const chunks: Buffer[] = [];
        let size = 0;
        response.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > config.maxResponseBytes) {
            tooLarge();
            return;
          }
          chunks.push(chunk);
        });
        response.on('error', () => done(new PrometheusError('unreachable', `Prometheus at ${where} closed the connection before the answer was complete.`)));
        response.on('aborted', () => done(new PrometheusError('unreachable', `Prometheus at ${where} closed the connection before the answer was complete.`)));
        response.on('end', () => {
          if (settled) return;
          const body = Buffer.concat(chunks).toString('utf8');
          // Prometheus answers 400 (bad query) and 422 (execution) with an error envelope: show its message.
          if (status >= 200 && status < 300) {
            const unreadable = (error: unknown): PrometheusError =>
              error instanceof PrometheusError ? error : new PrometheusError('malformed', `Prometheus at ${where} sent an answer that could not be read.`);
            let parsed: T[] | Promise<T[]>;
            try {
              parsed = parse(body, where);
            } catch (error) {
              done(unreadable(error));
              return;
            }
            if (Array.isArray(parsed)) done(null, parsed);
            else parsed.then((samples) => done(null, samples), (error: unknown) => done(unreadable(error)));
            return;
          }
          if (status === 400 || status === 422) {
            try {
              const parsed = parse(body, where);
              // Only a success envelope parses in slices, and it is no error message: nothing to wait for.
              if (!Array.isArray(parsed)) parsed.catch(() => undefined);
            } catch (error) {
              if (error instanceof PrometheusError && error.kind === 'query') {
                done(error);
                return;
              }
            }
          }
          done(httpMessage(status, response.statusMessage ?? '', body, where));
        });
      },
    );
    const timer = setTimeout(() => {
      done(new PrometheusError('timeout', `Prometheus at ${where} did not answer within ${config.timeoutMs} ms.`));
      request.destroy();
    }, config.timeoutMs);
    request.on('error', (error: NodeJS.ErrnoException) => done(new PrometheusError('unreachable', networkMessage(error, where))));
    request.end();
  });
}
