/**
 * Small node:http helpers: bounded body reading, JSON responses, Status errors and content
 * negotiation of the `Accept` header (JSON, `as=Table`, `as=PartialObjectMetadata[List]`).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { gzipSync } from 'node:zlib';
import { parse as parseYaml } from 'yaml';
import { ApiError, badRequest } from './status';

/** Largest request body accepted (the API server's limit is 3 MiB). */
export const MAX_BODY_BYTES = 3 * 1024 * 1024;

/**
 * Reads a request body.
 * @throws ApiError 413 when it exceeds {@link MAX_BODY_BYTES}.
 */
export async function readBody(req: IncomingMessage, limit = MAX_BODY_BYTES): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    const buffer = Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk));
    size += buffer.length;
    if (size > limit) throw new ApiError(413, 'RequestEntityTooLarge', 'Request entity too large: limit is 3145728');
    chunks.push(buffer);
  }
  return Buffer.concat(chunks);
}

/** The media type of a Content-Type header, lower-cased, without parameters. */
export function mediaType(header: string | undefined): string {
  return (header ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
}

/**
 * Parses a JSON (or, for `application/yaml`, YAML) request body.
 * @throws ApiError 400 when it does not parse, 415 for other media types.
 */
export function parseBody(body: Buffer, contentType: string | undefined): unknown {
  const media = mediaType(contentType);
  const text = body.toString('utf8');
  if (media === 'application/yaml' || media === 'application/x-yaml' || media === 'text/yaml') {
    try {
      return parseYaml(text);
    } catch (error) {
      throw badRequest(`error converting YAML to JSON: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  if (media !== '' && media !== 'application/json' && media !== '*/*') {
    throw new ApiError(
      415,
      'UnsupportedMediaType',
      `the body of the request was in an unknown format - accepted media types include: application/json, application/yaml`,
    );
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw badRequest(`json: cannot unmarshal request body: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/** Responses at least this large are gzipped for a client that accepts it, as the API server does (its threshold, 128 KiB). */
export const GZIP_THRESHOLD_BYTES = 128 * 1024;

/** Whether `Accept-Encoding` allows gzip (`gzip`, `x-gzip` or `*`, not with `q=0`). */
export function acceptsGzip(header: string | string[] | undefined): boolean {
  const value = Array.isArray(header) ? header.join(',') : (header ?? '');
  return value.split(',').some((part) => {
    const [coding = '', ...params] = part.trim().toLowerCase().split(';');
    const name = coding.trim();
    if (name !== 'gzip' && name !== 'x-gzip' && name !== '*') return false;
    const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    return q === undefined || Number(q.slice(2)) > 0;
  });
}

/**
 * Writes a JSON response; gzipped (fastest level) when the client accepts gzip and the body is at
 * least {@link GZIP_THRESHOLD_BYTES}, like kube-apiserver's response compression, so clients are
 * tested against compressed list pages (kubectl and zonescope both ask for them).
 */
export function sendJson(res: ServerResponse, code: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  const length = Buffer.byteLength(text);
  const gzip = length >= GZIP_THRESHOLD_BYTES && acceptsGzip(res.req?.headers['accept-encoding']);
  const payload = gzip ? gzipSync(text, { level: 1 }) : text;
  res.writeHead(code, {
    'Content-Type': 'application/json',
    'Content-Length': String(gzip ? payload.length : length),
    'Cache-Control': 'no-cache, private',
    ...(gzip ? { 'Content-Encoding': 'gzip', Vary: 'Accept-Encoding' } : {}),
    ...headers,
  });
  res.end(payload);
}

/** What the client accepts. */
export interface AcceptInfo {
  /** `meta.k8s.io/v1` (or v1beta1) when a Table is preferred. */
  table: string | undefined;
  /** `meta.k8s.io/v1` (or v1beta1) when PartialObjectMetadata(List) is preferred. */
  partial: string | undefined;
}

/**
 * Negotiates the response form from an `Accept` header: the first acceptable media range wins
 * (Table, PartialObjectMetadata, or plain JSON). Protobuf-only clients get 406.
 * @throws ApiError 406 NotAcceptable.
 */
export function negotiate(header: string | undefined): AcceptInfo {
  if (header === undefined || header.trim() === '') return { table: undefined, partial: undefined };
  for (const range of header.split(',')) {
    const [type, ...rawParams] = range.split(';').map((part) => part.trim());
    const params = new Map<string, string>();
    for (const p of rawParams) {
      const eq = p.indexOf('=');
      if (eq > 0) params.set(p.slice(0, eq).trim().toLowerCase(), p.slice(eq + 1).trim());
    }
    const media = (type ?? '').toLowerCase();
    if (media !== 'application/json' && media !== '*/*' && media !== 'application/*') continue;
    const as = params.get('as');
    if (as === undefined) return { table: undefined, partial: undefined };
    const version = params.get('v');
    if (params.get('g') !== 'meta.k8s.io' || (version !== 'v1' && version !== 'v1beta1')) continue;
    if (as === 'Table') return { table: `meta.k8s.io/${version}`, partial: undefined };
    if (as === 'PartialObjectMetadata' || as === 'PartialObjectMetadataList') {
      return { table: undefined, partial: `meta.k8s.io/${version}` };
    }
  }
  throw new ApiError(406, 'NotAcceptable', `only the following media types are accepted: application/json, application/yaml`);
}
