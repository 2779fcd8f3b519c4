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
import { StringDecoder } from 'node:string_decoder';
import zlib from 'node:zlib';
import { internString } from '../k8s/intern';
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

function labelsOf(metric: Record<string, unknown>, shared = false): Record<string, string> {
  const labels: Record<string, string> = {};
  for (const key in metric) {
    const label = metric[key];
    if (typeof label === 'string') labels[key] = shared ? internString(label) : label;
  }
  return labels;
}

/** Parses the `{status, data:{resultType:'vector', result:[…]}}` envelope of an instant query. Throws {@link PrometheusError}. */
export function parseVectorResponse(body: string, where: string, options: InstantQueryOptions = {}, shared = false): VectorSample[] {
  const data = parseEnvelope(body, where);
  if (data.resultType !== 'vector') {
    throw new PrometheusError('malformed', `Prometheus at ${where} answered with a ${typeof data.resultType === 'string' ? data.resultType : 'missing'} result where an instant vector was expected.`);
  }
  if (!Array.isArray(data.result)) throw new PrometheusError('malformed', `Prometheus at ${where} sent a vector answer without a "result" list.`);
  const samples: VectorSample[] = [];
  for (const entry of data.result as unknown[]) samples.push(vectorSampleOf(entry, where, options, shared));
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

function vectorSampleOf(entry: unknown, where: string, options: InstantQueryOptions = {}, shared = false): VectorSample {
  if (!isRecord(entry) || !isRecord(entry.metric) || !Array.isArray(entry.value) || entry.value.length !== 2) {
    throw new PrometheusError('malformed', `Prometheus at ${where} sent a vector sample that is not {metric, value: [time, "value"]}.`);
  }
  const value = parseSampleValue(entry.value[1]);
  if (options.perSample === true) {
    const metric = labelsOf(entry.metric, shared);
    if (sampleTime(entry.value[0]) === null) return { metric, value: Number.NaN, problem: `its timestamp ${shownValue(entry.value[0])} is not a time` };
    if (value === null) return { metric, value: Number.NaN, problem: `its value ${shownValue(entry.value[1])} is not a number` };
    return { metric, value };
  }
  if (value === null) throw new PrometheusError('malformed', `Prometheus at ${where} sent a sample value that is not a number.`);
  return { metric: labelsOf(entry.metric, shared), value };
}

/** How Prometheus (compact JSON, `metric` before `value`) starts a successful instant-vector answer. */
const VECTOR_PREFIX = '{"status":"success","data":{"resultType":"vector","result":[';
/**
 * What stands between two samples of such an answer. It cannot occur inside a JSON string (a quote
 * there is always escaped), so every occurrence separates two samples of the result list.
 */
const SAMPLE_SEPARATOR = '},{"metric":';

/** Reads an answer as it arrives (see {@link VectorAnswerReader}); `end` gives the result or throws {@link PrometheusError}. */
interface AnswerReader<T> {
  write(text: string): void;
  /** Characters received and not yet read (what the response cap bounds). */
  readonly heldChars: number;
  end(): T[];
}

/** An answer read in one go at its end (range queries, error envelopes). */
class WholeAnswerReader<T> implements AnswerReader<T> {
  private text = '';
  constructor(private readonly parse: (body: string) => T[]) {}
  write(text: string): void {
    this.text += text;
  }
  get heldChars(): number {
    return this.text.length;
  }
  end(): T[] {
    return this.parse(this.text);
  }
}

/**
 * An instant-vector answer read sample by sample as it arrives. At scale a flow query with zone
 * labels answers hundreds of thousands of series (~100 MB of JSON at realistic L): held whole,
 * that is the text, then one parse of it, on top of the samples. An answer laid out as Prometheus
 * writes it (compact, `metric` before `value`) is cut at the sample boundaries as the chunks come
 * in, and only the text after the last complete sample is kept; the envelope is checked with the
 * last sample and the answer's tail. Any other layout (or an error envelope) is read whole at the
 * end, so its result and its errors are {@link parseVectorResponse}'s. Label values are shared
 * (`internString`: a flow answer repeats each namespace, owner and zone thousands of times, and the
 * cluster's records hold the same names).
 */
export class VectorAnswerReader implements AnswerReader<VectorSample> {
  private text = '';
  private mode: 'start' | 'samples' | 'whole' = 'start';
  private readonly samples: VectorSample[] = [];

  /**
   * `sink`: each sample is handed to it as it is read, and none is kept (`end()` then returns
   * none): a caller that keeps less than the samples (a few labels of each) never holds them all.
   */
  constructor(
    private readonly where: string,
    private readonly options: InstantQueryOptions = {},
    private readonly sink: ((sample: VectorSample) => void) | null = null,
  ) {}

  private take(sample: VectorSample): void {
    if (this.sink === null) this.samples.push(sample);
    else this.sink(sample);
  }

  get heldChars(): number {
    return this.text.length;
  }

  write(text: string): void {
    this.text += text;
    if (this.mode === 'start') {
      if (this.text.length < VECTOR_PREFIX.length) {
        if (!VECTOR_PREFIX.startsWith(this.text)) this.mode = 'whole';
        return;
      }
      if (!this.text.startsWith(VECTOR_PREFIX)) {
        this.mode = 'whole';
        return;
      }
      this.mode = 'samples';
      this.text = this.text.slice(VECTOR_PREFIX.length);
    }
    if (this.mode !== 'samples') return;
    // Every complete sample so far: up to the last separator.
    const cut = this.text.lastIndexOf(SAMPLE_SEPARATOR);
    if (cut < 0) return;
    let list: unknown;
    try {
      list = JSON.parse(`[${this.text.slice(0, cut + 1)}]`);
    } catch {
      throw new PrometheusError('malformed', `Prometheus at ${this.where} sent a response that is not JSON (is the URL a Prometheus server?).`);
    }
    this.text = this.text.slice(cut + 2);
    for (const entry of list as unknown[]) this.take(vectorSampleOf(entry, this.where, this.options, true));
  }

  end(): VectorSample[] {
    if (this.mode !== 'samples') {
      const whole = parseVectorResponse(this.text, this.where, this.options);
      if (this.sink === null) return whole;
      for (const entry of whole) this.sink(entry);
      return [];
    }
    // The last sample (if any) with the answer's tail, behind the prefix: the envelope is checked there.
    for (const entry of parseVectorResponse(`${VECTOR_PREFIX}${this.text}`, this.where, this.options, true)) this.take(entry);
    this.text = '';
    return this.samples;
  }
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
 * error envelope, or sends something that is not a vector answer or is larger than the caps (read
 * sample by sample, see {@link VectorAnswerReader}, a vector answer may be up to
 * `maxStreamedResponseBytes` in all while what is held stays under `maxResponseBytes`).
 */
export function queryInstant(config: MetricsConfig, promql: string, timeSeconds: number, options: InstantQueryOptions = {}): Promise<VectorSample[]> {
  return apiGet(config, '/api/v1/query', { query: promql, time: timeSeconds.toFixed(3) }, (where) => new VectorAnswerReader(where, options));
}

/**
 * {@link queryInstant}, handing each sample to `each` as it is read instead of collecting them:
 * resolves when the answer is read whole (and rejects like queryInstant). A sample handed over
 * before a later failure (a cut answer, an error envelope at its end) is not taken back: the
 * caller drops what it built when the promise rejects.
 */
export async function queryInstantEach(config: MetricsConfig, promql: string, timeSeconds: number, each: (sample: VectorSample) => void, options: InstantQueryOptions = {}): Promise<void> {
  await apiGet(config, '/api/v1/query', { query: promql, time: timeSeconds.toFixed(3) }, (where) => new VectorAnswerReader(where, options, each));
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
  return apiGet(config, '/api/v1/query_range', { query: promql, start: start.toFixed(3), end: end.toFixed(3), step: String(stepSeconds) }, (where) => new WholeAnswerReader((body) => parseMatrixResponse(body, where)));
}

/**
 * One GET of the HTTP API with credentials, deadline and size caps, gzip accepted; a 2xx body is
 * read by the answer's reader as it arrives (`maxResponseBytes` bounds what it holds; a reader
 * reading sample by sample may receive `maxStreamedResponseBytes` in all), other
 * bodies whole (the error envelope of a 400/422 through the reader too).
 */
function apiGet<T>(config: MetricsConfig, apiPath: string, params: Readonly<Record<string, string>>, readerFor: (where: string) => AnswerReader<T>): Promise<T[]> {
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
      headers = { Accept: 'application/json', 'Accept-Encoding': 'gzip' };
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
        const success = status >= 200 && status < 300;
        // A 2xx body goes to the answer's reader as it arrives; a 400/422 (Prometheus' error
        // envelope) too, at the end; anything else is kept whole for its message.
        const reader = success || status === 400 || status === 422 ? readerFor(where) : null;
        const streamedCap = Math.max(config.maxResponseBytes, config.maxStreamedResponseBytes ?? config.maxResponseBytes);
        const tooLarge = (cap: number): void => {
          done(new PrometheusError('too-large', `Prometheus at ${where} sent a response too large (over ${formatBytes(cap)}); the queries aggregate by a few labels, so check that the URL points at Prometheus.`));
          response.destroy();
          request.destroy();
        };
        const encoding = String(response.headers['content-encoding'] ?? '').toLowerCase();
        const gzipped = encoding === 'gzip';
        const declared = Number(response.headers['content-length']);
        if (!gzipped && Number.isFinite(declared) && declared > (success ? streamedCap : config.maxResponseBytes)) {
          tooLarge(success ? streamedCap : config.maxResponseBytes);
          return;
        }
        const body: NodeJS.ReadableStream = gzipped ? response.pipe(zlib.createGunzip()) : response;
        const decoder = new StringDecoder('utf8');
        let text = '';
        let size = 0;
        const take = (chunk: string): void => {
          if (reader !== null && success) {
            reader.write(chunk);
            if (reader.heldChars > config.maxResponseBytes) tooLarge(config.maxResponseBytes);
          } else text += chunk;
        };
        body.on('data', (chunk: Buffer) => {
          if (settled) return;
          size += chunk.length;
          // In all: a 2xx answer's reader bounds what it holds itself (`take`).
          const cap = reader !== null && success ? streamedCap : config.maxResponseBytes;
          if (size > cap) {
            tooLarge(cap);
            return;
          }
          try {
            take(decoder.write(chunk));
          } catch (error) {
            done(error instanceof PrometheusError ? error : new PrometheusError('malformed', `Prometheus at ${where} sent an answer that could not be read.`));
            response.destroy();
            request.destroy();
          }
        });
        const cut = (): void => done(new PrometheusError('unreachable', `Prometheus at ${where} closed the connection before the answer was complete.`));
        response.on('error', cut);
        response.on('aborted', cut);
        if (gzipped) body.on('error', () => done(new PrometheusError('malformed', `Prometheus at ${where} sent a gzip answer that could not be decompressed.`)));
        body.on('end', () => {
          if (settled) return;
          // Prometheus answers 400 (bad query) and 422 (execution) with an error envelope: show its message.
          try {
            take(decoder.end());
            if (success) {
              done(null, (reader as AnswerReader<T>).end());
              return;
            }
          } catch (error) {
            done(error instanceof PrometheusError ? error : new PrometheusError('malformed', `Prometheus at ${where} sent an answer that could not be read.`));
            return;
          }
          if (reader !== null) {
            try {
              reader.write(text);
              reader.end();
            } catch (error) {
              if (error instanceof PrometheusError && error.kind === 'query') {
                done(error);
                return;
              }
            }
          }
          done(httpMessage(status, response.statusMessage ?? '', text, where));
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
