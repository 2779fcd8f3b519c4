/**
 * HTTP plumbing shared by the `/api/v1` route handlers: the error envelope, request validation
 * (names, query parameters, the exact topology-mode body, `If-Match`), the same-origin check that
 * guards the one mutation, and the audit identity.
 *
 * Every parser returns a value (`{ ok: true, value }` or `{ ok: false, response }` carrying the
 * finished error `Response`); nothing throws. Nothing here talks to the cluster, so each check can
 * run before any API server call.
 *
 * Errors are always `{ "error": { "code": "kind:surface", "message": "..." } }` (plus documented
 * extra fields such as `current` or `progress`); messages are fixed sentences or already-safe
 * {@link KubeError} messages, never raw bodies, headers or stacks.
 */
import { isValidNamespace, isValidServiceName } from '../k8s/mutations';
import type { PriceSetting } from '../topology/model/cloud-pricing';
import { parsePriceSetting, pricePerGbSetting } from '../topology/model/cloud-pricing';
import type { TrafficScenario } from '../topology/analyses/traffic-scenarios';
import { TRAFFIC_SCENARIOS } from '../topology/analyses/traffic-scenarios';
import { behindAuthProxy, checkWriteAllowed, proxyUser } from './exposure';
import type { ClusterScope } from './clusters';
import { ORIGINAL_HOST_HEADER } from './cluster-path';
import { getHeader, getSourceProblem, SYNCING } from './header';
import type { EndpointListKind, EndpointListQuery } from './service';
import { ENDPOINT_LISTS } from './service';
import type { ServiceSortKey } from './service-query';
import { MAX_QUERY_LENGTH, SERVICE_FILTER_PARAMS, SERVICE_SORT_KEYS } from './service-query';
import type { ServiceQuery } from './services';

// ---------------------------------------------------------------------------------------------
// Responses

/** The API surface named after the colon of an error code (`not-found:service`). */
export type ApiSurface = 'cluster' | 'clusters' | 'services' | 'service' | 'topology-mode' | 'api';

/** The error envelope of every `/api/v1` error. */
export interface ApiErrorBody {
  readonly error: { readonly code: string; readonly message: string };
}

/** Headers on every API response: never cached (the data is live), never sniffed. */
export const API_HEADERS: Readonly<Record<string, string>> = {
  'Cache-Control': 'no-store',
  'X-Content-Type-Options': 'nosniff',
};

/** A JSON response with {@link API_HEADERS}. */
export function jsonResponse(body: unknown, status = 200, headers: Readonly<Record<string, string>> = {}): Response {
  return Response.json(body, { status, headers: { ...API_HEADERS, ...headers } });
}

/**
 * An error response `{ error: { code: "<kind>:<surface>", message }, ...extra }`.
 * `extra` may not replace `error`.
 */
export function errorResponse(
  status: number,
  kind: string,
  surface: ApiSurface,
  message: string,
  extra: Readonly<Record<string, unknown>> = {},
  headers: Readonly<Record<string, string>> = {},
): Response {
  const { error: _replaced, ...rest } = extra;
  return jsonResponse({ error: { code: `${kind}:${surface}`, message }, ...rest }, status, headers);
}

/** 405 with `Allow`, for every method a route does not implement. */
export function methodNotAllowed(surface: ApiSurface, allow: readonly string[]): Response {
  return errorResponse(405, 'method-not-allowed', surface, `Only ${allow.join(' and ')} ${allow.length === 1 ? 'is' : 'are'} allowed here.`, {}, { Allow: allow.join(', ') });
}

/** Handlers answering 405 for the methods a route does not implement (spread into the route module). */
export function methodNotAllowedHandlers(surface: ApiSurface, allow: readonly string[]): Record<'POST' | 'PATCH' | 'DELETE' | 'OPTIONS', () => Response> {
  const handler = () => methodNotAllowed(surface, allow);
  return { POST: handler, PATCH: handler, DELETE: handler, OPTIONS: handler };
}

/** HTTP status of each error kind the data layer returns. */
export const STATUS_BY_KIND: Readonly<Record<string, number>> = {
  'bad-request': 400,
  'read-only': 403,
  forbidden: 403,
  'not-found': 404,
  conflict: 409,
  invalid: 422,
  'too-many-requests': 429,
  unauthorized: 502,
  upstream: 502,
  syncing: 503,
  unavailable: 503,
  timeout: 504,
};

/** A data-layer error as the routes map it (see {@link dataErrorResponse}). */
export interface DataError {
  readonly kind: string;
  readonly message: string;
  readonly retryAfterSeconds?: number;
  /** Re-read state after a 409 or timeout; passed through as `current`. */
  readonly current?: unknown;
  /** An unknown outcome resolved by the re-read (`applied`, `not-applied`, `unknown`); passed through as `outcome`. */
  readonly outcome?: string;
  /** Why the outcome was unknown (`timeout`, `connection-lost`, `server-error`); passed through as `cause`. */
  readonly cause?: string;
}

/**
 * The response for a data-layer error: status from {@link STATUS_BY_KIND} (502 for unknown
 * kinds), `current`, `outcome` and `cause` passed through when present, `Retry-After` on 429. A `not-found` is always
 * `not-found:service` (the Service is what is missing).
 */
export function dataErrorResponse(surface: ApiSurface, error: DataError): Response {
  const status = STATUS_BY_KIND[error.kind] ?? 502;
  const kind = STATUS_BY_KIND[error.kind] === undefined ? 'upstream' : error.kind;
  const extra = {
    ...(error.current !== undefined ? { current: error.current } : {}),
    ...(error.outcome !== undefined ? { outcome: error.outcome } : {}),
    ...(error.cause !== undefined ? { cause: error.cause } : {}),
  };
  const headers: Record<string, string> = error.retryAfterSeconds !== undefined ? { 'Retry-After': String(Math.max(0, Math.ceil(error.retryAfterSeconds))) } : {};
  return errorResponse(status, kind, kind === 'not-found' ? 'service' : surface, error.message, extra, headers);
}

/**
 * 503 `syncing:<surface>` (first sync still running) or `unavailable:<surface>` (no cluster
 * connected) with `progress` (the header's freshness: what is still syncing, stale or
 * forbidden) and `Retry-After: 2`. Call it when the data layer answered "not synced".
 */
export function notReadyResponse(scope: ClusterScope, surface: ApiSurface): Response {
  const problem = getSourceProblem(scope) ?? SYNCING;
  return errorResponse(503, problem.kind, surface, problem.message, { progress: getHeader(scope).freshness }, { 'Retry-After': '2' });
}

/**
 * The response for a data-layer error of a read: {@link notReadyResponse} for `syncing` (with
 * `progress` and `Retry-After`), else {@link dataErrorResponse}.
 */
export function readErrorResponse(scope: ClusterScope, surface: ApiSurface, error: DataError): Response {
  return error.kind === 'syncing' ? notReadyResponse(scope, surface) : dataErrorResponse(surface, error);
}

/** A parse result: the value, or the finished error response. */
export type Parsed<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly response: Response };

function fail(status: number, kind: string, surface: ApiSurface, message: string): { ok: false; response: Response } {
  return { ok: false, response: errorResponse(status, kind, surface, message) };
}

// ---------------------------------------------------------------------------------------------
// Names

/** A validated Service reference. */
export interface ServiceRef {
  readonly namespace: string;
  readonly name: string;
}

/**
 * Validates a namespace (RFC 1123 label) and a Service name (RFC 1035 label) from the path:
 * `..`, `.`, `a/b`, `%2e%2e`, empty, over 63 characters, uppercase and non-ASCII are refused
 * with 400 `bad-request:<surface>` before anything else happens.
 */
export function parseServiceRef(namespace: unknown, name: unknown, surface: ApiSurface): Parsed<ServiceRef> {
  if (typeof namespace !== 'string' || !isValidNamespace(namespace)) {
    return fail(400, 'bad-request', surface, 'The namespace is not a valid name (lowercase letters, digits and "-", at most 63 characters).');
  }
  if (typeof name !== 'string' || !isValidServiceName(name)) {
    return fail(400, 'bad-request', surface, 'The Service name is not a valid name (a lowercase letter, then lowercase letters, digits and "-", at most 63 characters).');
  }
  return { ok: true, value: { namespace, name } };
}

// ---------------------------------------------------------------------------------------------
// Query parameters

/** Default page size of `GET /api/v1/services`. */
export const DEFAULT_SERVICES_LIMIT = 100;
/** Largest page size; larger values are clamped to it (smaller than 1 to 1). */
export const MAX_SERVICES_LIMIT = 500;
/** Longest accepted search string (shared with the Services table). */
export { MAX_QUERY_LENGTH };
/** Largest accepted offset. */
export const MAX_OFFSET = 10_000_000;

const INTEGER = /^-?\d{1,12}$/;

function unknownParams(params: URLSearchParams, known: (key: string) => boolean): string | null {
  for (const key of params.keys()) if (!known(key)) return key;
  return null;
}

function single(params: URLSearchParams, key: string): string | undefined | { repeated: true } {
  const values = params.getAll(key);
  if (values.length > 1) return { repeated: true };
  return values[0];
}

/**
 * Parses `q`, `namespace`, `attention`, `sort`, `order`, `offset` and `limit` of
 * `GET /api/v1/services`. Unknown or repeated parameters, malformed values, a bad namespace, an
 * unknown sort key or a negative or huge offset are 400; `limit` is clamped to 1–500
 * (default 100).
 */
export function parseServiceQuery(params: URLSearchParams): Parsed<ServiceQuery & { offset: number; limit: number }> {
  // The mechanism/reason/type filters and the export format are parsed by the route (parseServiceFilterParams).
  const KNOWN = ['q', 'namespace', 'attention', 'sort', 'order', 'offset', 'limit', ...SERVICE_FILTER_PARAMS];
  const unknown = unknownParams(params, (key) => KNOWN.includes(key));
  if (unknown !== null) return fail(400, 'bad-request', 'services', `Unknown query parameter "${truncate(unknown)}"; known: ${KNOWN.join(', ')}.`);
  const get = (key: string): string | undefined | null => {
    const value = single(params, key);
    return typeof value === 'object' ? null : value;
  };
  for (const key of KNOWN) if (get(key) === null) return fail(400, 'bad-request', 'services', `The query parameter "${key}" is given more than once.`);

  const q = get('q') ?? undefined;
  if (q !== undefined && q.length > MAX_QUERY_LENGTH) return fail(400, 'bad-request', 'services', `q is longer than ${MAX_QUERY_LENGTH} characters.`);
  const namespace = get('namespace') ?? undefined;
  if (namespace !== undefined && namespace !== '' && !isValidNamespace(namespace)) return fail(400, 'bad-request', 'services', 'namespace is not a valid namespace name.');
  const attentionText = get('attention') ?? undefined;
  let attention: boolean | undefined;
  if (attentionText !== undefined) {
    if (attentionText === 'true' || attentionText === '1') attention = true;
    else if (attentionText === 'false' || attentionText === '0' || attentionText === '') attention = false;
    else return fail(400, 'bad-request', 'services', 'attention must be true, false, 1 or 0.');
  }
  const sortText = get('sort') ?? undefined;
  if (sortText !== undefined && sortText !== '' && !(SERVICE_SORT_KEYS as readonly string[]).includes(sortText)) {
    return fail(400, 'bad-request', 'services', `sort must be one of ${SERVICE_SORT_KEYS.join(', ')}.`);
  }
  const orderText = get('order') ?? undefined;
  if (orderText !== undefined && orderText !== '' && orderText !== 'asc' && orderText !== 'desc') return fail(400, 'bad-request', 'services', 'order must be asc or desc.');
  const offsetText = get('offset') ?? undefined;
  let offset = 0;
  if (offsetText !== undefined && offsetText !== '') {
    if (!INTEGER.test(offsetText)) return fail(400, 'bad-request', 'services', 'offset must be an integer.');
    offset = Number(offsetText);
    if (offset < 0 || offset > MAX_OFFSET) return fail(400, 'bad-request', 'services', `offset must be between 0 and ${MAX_OFFSET}.`);
  }
  const limitText = get('limit') ?? undefined;
  let limit = DEFAULT_SERVICES_LIMIT;
  if (limitText !== undefined && limitText !== '') {
    if (!INTEGER.test(limitText)) return fail(400, 'bad-request', 'services', 'limit must be an integer (it is clamped to 1–500).');
    limit = Math.min(MAX_SERVICES_LIMIT, Math.max(1, Number(limitText)));
  }
  return {
    ok: true,
    value: {
      ...(q !== undefined && q !== '' ? { q } : {}),
      ...(namespace !== undefined && namespace !== '' ? { namespace } : {}),
      ...(attention !== undefined ? { attention } : {}),
      ...(sortText !== undefined && sortText !== '' ? { sort: sortText as ServiceSortKey } : {}),
      ...(orderText === 'asc' || orderText === 'desc' ? { order: orderText } : {}),
      offset,
      limit,
    },
  };
}

/** Traffic and cost inputs of `GET /api/v1/services/{namespace}/{name}`. */
export interface TrafficOptionsQuery {
  readonly gbPerMonth?: number;
  /** From `price` (`aws`, `gcp`, `azure`, `0.01/GB x2`) or the legacy `pricePerGb` (USD per GB in each of two directions). */
  readonly crossZonePrice?: PriceSetting;
  readonly trafficByZone?: Readonly<Record<string, number>>;
}

/** Largest accepted `gbPerMonth` (1 EB). */
export const MAX_GB_PER_MONTH = 1e9;
/** Largest accepted `pricePerGb` (USD). */
export const MAX_PRICE_PER_GB = 100;
const DECIMAL = /^(\d{1,15}(\.\d{1,12})?|\.\d{1,12})$/;
const ZONE_LABEL = /^[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$/;
const MAX_TRAFFIC_ZONES = 64;

function decimal(text: string): number | null {
  return DECIMAL.test(text) ? Number(text) : null;
}

/**
 * The price what-if of a query: `price` (a price setting: `aws`, `gcp`, `azure` or `0.01/GB x2`)
 * or the legacy `pricePerGb` (0–100, USD per GB in each of two directions), not both.
 */
function priceWhatIf(params: URLSearchParams, surface: ApiSurface): Parsed<PriceSetting | null> {
  const text = params.get('price');
  const legacy = params.get('pricePerGb');
  if (text !== null && legacy !== null) return fail(400, 'bad-request', surface, 'Give price or pricePerGb, not both: pricePerGb is the same as price=<USD>/GB x2.');
  if (text !== null) {
    const parsed = parsePriceSetting(text);
    return parsed.ok ? { ok: true, value: parsed.setting } : fail(400, 'bad-request', surface, `price ${parsed.message}.`);
  }
  if (legacy === null) return { ok: true, value: null };
  const value = decimal(legacy);
  if (value === null || value > MAX_PRICE_PER_GB) return fail(400, 'bad-request', surface, `pricePerGb must be a plain decimal number from 0 to ${MAX_PRICE_PER_GB} (USD per cross-zone GB in each direction); got "${truncate(legacy, 32)}".`);
  return { ok: true, value: pricePerGbSetting(value) };
}

/**
 * Parses `gbPerMonth` (0–1e9), the price (`price` or `pricePerGb`, see {@link priceWhatIf}) and
 * `traffic.<zone>=<share>` (0–1 each, shares summing to at most 1, zone a valid label value) of the
 * Service endpoint. Unknown or repeated parameters and malformed numbers are 400
 * `bad-request:service`. Whether the zones exist is checked by the caller (it needs the cluster).
 */
export function parseTrafficOptions(params: URLSearchParams): Parsed<TrafficOptionsQuery> {
  const unknown = unknownParams(params, (key) => key === 'gbPerMonth' || key === 'pricePerGb' || key === 'price' || key.startsWith('traffic.'));
  if (unknown !== null) return fail(400, 'bad-request', 'service', `Unknown query parameter "${truncate(unknown)}"; known: gbPerMonth, price, pricePerGb, traffic.<zone>.`);
  const seen = new Set<string>();
  for (const key of params.keys()) {
    if (seen.has(key)) return fail(400, 'bad-request', 'service', `The query parameter "${truncate(key)}" is given more than once.`);
    seen.add(key);
  }
  const out: { gbPerMonth?: number; crossZonePrice?: PriceSetting; trafficByZone?: Record<string, number> } = {};
  const gb = params.get('gbPerMonth');
  if (gb !== null) {
    const value = decimal(gb);
    if (value === null || value > MAX_GB_PER_MONTH) return fail(400, 'bad-request', 'service', `gbPerMonth must be a number from 0 to ${MAX_GB_PER_MONTH}.`);
    out.gbPerMonth = value;
  }
  const price = priceWhatIf(params, 'service');
  if (!price.ok) return price;
  if (price.value !== null) out.crossZonePrice = price.value;
  const traffic: Record<string, number> = Object.create(null) as Record<string, number>;
  let zones = 0;
  let sum = 0;
  for (const [key, text] of params) {
    if (!key.startsWith('traffic.')) continue;
    const zone = key.slice('traffic.'.length);
    if (!ZONE_LABEL.test(zone)) return fail(400, 'bad-request', 'service', `"${truncate(zone)}" is not a valid zone name.`);
    const value = decimal(text);
    if (value === null || value > 1) return fail(400, 'bad-request', 'service', `traffic.${zone} must be a share from 0 to 1.`);
    if (++zones > MAX_TRAFFIC_ZONES) return fail(400, 'bad-request', 'service', `At most ${MAX_TRAFFIC_ZONES} traffic.<zone> parameters.`);
    traffic[zone] = value;
    sum += value;
  }
  if (sum > 1 + 1e-9) return fail(400, 'bad-request', 'service', `The traffic.<zone> shares add up to ${round(sum)}, more than 1.`);
  if (zones > 0) out.trafficByZone = { ...traffic };
  return { ok: true, value: out };
}

/** What-if volume and price settings of `GET /api/v1/cluster` (they recompute only its `traffic` block). */
export interface ClusterTrafficQuery {
  readonly gbPerEndpoint?: number;
  readonly gbPerService?: number;
  /** From `price` or the legacy `pricePerGb` (see {@link priceWhatIf}). */
  readonly priceSetting?: PriceSetting;
}

/** The numeric query parameters of `GET /api/v1/cluster`, with their accepted ranges (the price: `price` or `pricePerGb`). */
export const CLUSTER_QUERY_PARAMS: readonly { readonly key: 'gbPerEndpoint' | 'gbPerService'; readonly max: number; readonly what: string }[] = [
  { key: 'gbPerEndpoint', max: MAX_GB_PER_MONTH, what: 'GB per ready endpoint per month' },
  { key: 'gbPerService', max: MAX_GB_PER_MONTH, what: 'GB per Service per month' },
];

/**
 * Parses the what-ifs of `GET /api/v1/cluster`: `gbPerEndpoint` (0–1e9, GB per ready endpoint per
 * month), `gbPerService` (0–1e9, a flat GB per Service per month instead) and the price (`price` or
 * `pricePerGb`, see {@link priceWhatIf}). Each applies to the Services whose volume is assumed (the
 * price to all). Unknown or
 * repeated parameters and malformed or out-of-range numbers are 400 `bad-request:cluster` naming
 * the parameter and its range.
 */
export function parseClusterQuery(params: URLSearchParams): Parsed<ClusterTrafficQuery> {
  const known = [...CLUSTER_QUERY_PARAMS.map((p) => p.key as string), 'price', 'pricePerGb'];
  const unknown = unknownParams(params, (key) => known.includes(key));
  if (unknown !== null) return fail(400, 'bad-request', 'cluster', `Unknown query parameter "${truncate(unknown)}"; known: ${known.join(', ')}.`);
  for (const key of ['price', 'pricePerGb']) if (params.getAll(key).length > 1) return fail(400, 'bad-request', 'cluster', `The query parameter "${key}" is given more than once.`);
  const out: { gbPerEndpoint?: number; gbPerService?: number; priceSetting?: PriceSetting } = {};
  const price = priceWhatIf(params, 'cluster');
  if (!price.ok) return price;
  if (price.value !== null) out.priceSetting = price.value;
  for (const { key, max, what } of CLUSTER_QUERY_PARAMS) {
    const values = params.getAll(key);
    if (values.length > 1) return fail(400, 'bad-request', 'cluster', `The query parameter "${key}" is given more than once.`);
    const text = values[0];
    if (text === undefined) continue;
    const value = decimal(text);
    if (value === null || value > max) {
      return fail(400, 'bad-request', 'cluster', `${key} must be a plain decimal number from 0 to ${max} (${what}); got "${truncate(text, 32)}".`);
    }
    out[key] = value;
  }
  if (out.gbPerEndpoint !== undefined && out.gbPerService !== undefined) {
    return fail(400, 'bad-request', 'cluster', 'Give gbPerEndpoint or gbPerService, not both: gbPerService replaces the per-endpoint assumption with a flat volume per Service.');
  }
  return { ok: true, value: out };
}

/**
 * Parses `list` (`endpoints`, `diff` or `loads`; default `endpoints`) and `scenario` (`now`,
 * `expected`, `ifAuto` or `ifNone`; default `now`; only with `list=loads`) of the Service's
 * per-endpoint lists. Unknown, repeated or bad parameters are 400 `bad-request:service`.
 */
export function parseEndpointListQuery(params: URLSearchParams): Parsed<EndpointListQuery> {
  const unknown = unknownParams(params, (key) => key === 'list' || key === 'scenario');
  if (unknown !== null) return fail(400, 'bad-request', 'service', `Unknown query parameter "${truncate(unknown)}"; known: list, scenario.`);
  if (params.getAll('list').length > 1 || params.getAll('scenario').length > 1) return fail(400, 'bad-request', 'service', 'A query parameter is given more than once.');
  const list = params.get('list') ?? 'endpoints';
  if (!(ENDPOINT_LISTS as readonly string[]).includes(list)) return fail(400, 'bad-request', 'service', `list must be one of ${ENDPOINT_LISTS.join(', ')}.`);
  const scenario = params.get('scenario');
  if (scenario !== null && list !== 'loads') return fail(400, 'bad-request', 'service', 'scenario applies to list=loads only.');
  if (scenario !== null && !(TRAFFIC_SCENARIOS as readonly string[]).includes(scenario)) return fail(400, 'bad-request', 'service', `scenario must be one of ${TRAFFIC_SCENARIOS.join(', ')}.`);
  return { ok: true, value: { list: list as EndpointListKind, scenario: (scenario ?? 'now') as TrafficScenario } };
}

function round(value: number): number {
  return Math.round(value * 1000) / 1000;
}

function truncate(text: string, max = 64): string {
  const clean = text.replace(/[^\x20-\x7e]/g, '?');
  return clean.length > max ? `${clean.slice(0, max - 1)}…` : clean;
}

// ---------------------------------------------------------------------------------------------
// The topology-mode write

/** Largest accepted body of `PUT …/topology-mode`. */
export const MAX_BODY_BYTES = 1024;

/** The two values the toggle writes. */
export type TopologyModeValue = 'Auto' | 'Disabled';

/** A validated topology-mode write request. */
export interface TopologyModeRequest {
  readonly mode: TopologyModeValue;
  /** The resourceVersion from `If-Match` (without quotes). */
  readonly ifMatch: string;
}

/** Whether the request's Content-Type is `application/json` (parameters such as `charset=utf-8` allowed). */
export function isJsonContentType(value: string | null): boolean {
  if (value === null) return false;
  const [type = '', ...parameters] = value.split(';');
  if (type.trim().toLowerCase() !== 'application/json') return false;
  return parameters.every((p) => /^\s*charset\s*=\s*"?utf-8"?\s*$/i.test(p));
}

/**
 * Reads at most `maxBytes` of the body: `null` when it is larger (by `Content-Length` or by what
 * arrives).
 */
export async function readBodyLimited(request: Request, maxBytes = MAX_BODY_BYTES): Promise<string | null> {
  const length = request.headers.get('content-length');
  if (length !== null && (!/^\d{1,15}$/.test(length.trim()) || Number(length) > maxBytes)) return null;
  if (request.body === null) return '';
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > maxBytes) {
        await reader.cancel().catch(() => undefined);
        return null;
      }
      chunks.push(value);
    }
  } catch {
    return null;
  }
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * Parses the body of `PUT …/topology-mode`: exactly `{"mode":"Auto"}` or `{"mode":"Disabled"}`
 * (insignificant whitespace allowed). Extra fields, `__proto__`, duplicate keys, other types and
 * other spellings (`"auto"`) are refused.
 */
export function parseModeBody(text: string): { ok: true; mode: TopologyModeValue } | { ok: false; message: string } {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text) as unknown;
  } catch {
    return { ok: false, message: 'The body is not JSON; send {"mode":"Auto"} or {"mode":"Disabled"}.' };
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    return { ok: false, message: 'The body must be a JSON object: {"mode":"Auto"} or {"mode":"Disabled"}.' };
  }
  const keys = Object.keys(parsed);
  if (keys.length !== 1 || keys[0] !== 'mode' || Object.getPrototypeOf(parsed) !== Object.prototype) {
    return { ok: false, message: 'The body must have exactly one field, "mode".' };
  }
  const mode = (parsed as { mode: unknown }).mode;
  if (mode !== 'Auto' && mode !== 'Disabled') return { ok: false, message: 'mode must be the string "Auto" or "Disabled".' };
  // Same text as the canonical form once whitespace is dropped: no duplicate keys, no escapes.
  if (text.replace(/[ \t\n\r]/g, '') !== JSON.stringify({ mode })) {
    return { ok: false, message: 'The body must be exactly {"mode":"Auto"} or {"mode":"Disabled"}.' };
  }
  return { ok: true, mode };
}

const ETAG = /^"([A-Za-z0-9._:-]{1,128})"$/;

/**
 * The resourceVersion of an `If-Match: "<resourceVersion>"` header: `null` when absent (428),
 * `undefined` when malformed (400: weak tags, `*`, lists, unquoted values).
 */
export function parseIfMatch(value: string | null): string | null | undefined {
  if (value === null || value.trim() === '') return null;
  const match = ETAG.exec(value.trim());
  return match ? match[1] : undefined;
}

/**
 * Validates the Content-Type (415), size (413), body (400) and `If-Match` (428 when missing, 400
 * when malformed) of `PUT …/topology-mode`, in that order.
 */
export async function parseTopologyModeRequest(request: Request): Promise<Parsed<TopologyModeRequest>> {
  if (!isJsonContentType(request.headers.get('content-type'))) {
    return fail(415, 'unsupported-media-type', 'topology-mode', 'The body must be sent as Content-Type: application/json.');
  }
  const text = await readBodyLimited(request, MAX_BODY_BYTES);
  if (text === null) return fail(413, 'payload-too-large', 'topology-mode', `The body is larger than ${MAX_BODY_BYTES} bytes.`);
  const body = parseModeBody(text);
  if (!body.ok) return fail(400, 'bad-request', 'topology-mode', body.message);
  const ifMatch = parseIfMatch(request.headers.get('if-match'));
  if (ifMatch === null) {
    return fail(428, 'precondition-required', 'topology-mode', 'Send If-Match: "<resourceVersion>" with the resourceVersion you saw (from GET …/topology-mode or the ETag).');
  }
  if (ifMatch === undefined) return fail(400, 'bad-request', 'topology-mode', 'If-Match must be one strong entity tag: "<resourceVersion>".');
  return { ok: true, value: { mode: body.mode, ifMatch } };
}

// ---------------------------------------------------------------------------------------------
// Same-origin check (CSRF, DNS rebinding, CVE-2025-29927)

/**
 * Environment read by the origin check: `ZONESCOPE_TRUSTED_ORIGINS`, comma-separated origins
 * (`https://zonescope.example.com`) the dashboard is served at besides loopback; a listed
 * origin's host is also trusted as `X-Forwarded-Host`.
 */
export type OriginEnv = Readonly<Record<string, string | undefined>>;

/** Result of {@link checkSameOrigin}. */
export type OriginCheck = { readonly ok: true } | { readonly ok: false; readonly reason: string };

const LOOPBACK_HOSTNAMES = new Set(['localhost', '127.0.0.1', '[::1]']);

/** `scheme://host[:port]` with default ports dropped and lowercase, or `null`. */
export function normaliseOrigin(value: string): string | null {
  try {
    const url = new URL(value);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
    if (url.username !== '' || url.password !== '' || (url.pathname !== '/' && url.pathname !== '') || url.search !== '' || url.hash !== '') return null;
    return url.origin.toLowerCase();
  } catch {
    return null;
  }
}

/** The trusted origins of `ZONESCOPE_TRUSTED_ORIGINS` (invalid entries are ignored). */
export function trustedOrigins(env: OriginEnv = process.env): Set<string> {
  const out = new Set<string>();
  for (const entry of (env.ZONESCOPE_TRUSTED_ORIGINS ?? '').split(',')) {
    const origin = normaliseOrigin(entry.trim());
    if (origin !== null) out.add(origin);
  }
  return out;
}

function hostWithPort(host: string, protocol: string): string {
  const lower = host.trim().toLowerCase();
  const defaultPort = protocol === 'https:' ? ':443' : ':80';
  return lower.endsWith(defaultPort) ? lower.slice(0, -defaultPort.length) : lower;
}

/**
 * Whether a state-changing request comes from a page of this dashboard. Refused:
 * - any `x-middleware-subrequest` header (CVE-2025-29927: a forged internal sub-request);
 * - `Sec-Fetch-Site` other than `same-origin` (when the browser sends it);
 * - a missing, `null` or malformed `Origin`;
 * - an `X-Forwarded-Host` differing from `Host` whose origin is not in `ZONESCOPE_TRUSTED_ORIGINS`;
 * - an `Origin` whose host differs from the request's host (`Host`, or the trusted
 *   `X-Forwarded-Host`);
 * - an `Origin` that is neither loopback (`localhost`, `127.0.0.1`, `[::1]`, any port: the
 *   dashboard on this machine or through `kubectl port-forward`) nor listed in
 *   `ZONESCOPE_TRUSTED_ORIGINS` — this stops DNS rebinding, where a foreign name resolves to the
 *   dashboard and Origin and Host agree.
 */
export function checkSameOrigin(headers: Headers, env: OriginEnv = process.env): OriginCheck {
  if (headers.has('x-middleware-subrequest')) return { ok: false, reason: 'internal sub-request header' };
  const fetchSite = headers.get('sec-fetch-site');
  if (fetchSite !== null && fetchSite.trim().toLowerCase() !== 'same-origin') return { ok: false, reason: `Sec-Fetch-Site: ${truncate(fetchSite, 20)}` };
  const originHeader = headers.get('origin');
  if (originHeader === null || originHeader.trim() === '') return { ok: false, reason: 'no Origin header' };
  if (originHeader.trim().toLowerCase() === 'null') return { ok: false, reason: 'Origin: null' };
  const origin = normaliseOrigin(originHeader.trim());
  if (origin === null) return { ok: false, reason: 'malformed Origin' };
  const originUrl = new URL(origin);
  const trusted = trustedOrigins(env);

  // Under `/c/{id}/…` the host the browser asked for, which proxy.ts passes on (Next.js serves its
  // rewrite under its own host name); the proxy removes any such header a client sends.
  const host = headers.get(ORIGINAL_HOST_HEADER) ?? headers.get('host');
  if (host === null || host.trim() === '') return { ok: false, reason: 'no Host header' };
  let requestHost = hostWithPort(host, originUrl.protocol);
  const forwarded = headers.get('x-forwarded-host');
  if (forwarded !== null && forwarded.trim() !== '') {
    const first = hostWithPort(forwarded.split(',')[0] ?? '', originUrl.protocol);
    if (first !== requestHost) {
      // Next.js itself fills X-Forwarded-Host with Host; a different value came from a proxy
      // (or a forger) and counts only when it names a trusted origin.
      const forwardedOrigin = normaliseOrigin(`${originUrl.protocol}//${first}`);
      if (forwardedOrigin === null || !trusted.has(forwardedOrigin)) return { ok: false, reason: 'untrusted X-Forwarded-Host' };
      requestHost = first;
    }
  }
  if (hostWithPort(originUrl.host, originUrl.protocol) !== requestHost) return { ok: false, reason: 'Origin differs from the requested host' };
  if (trusted.has(origin) || LOOPBACK_HOSTNAMES.has(originUrl.hostname)) return { ok: true };
  return { ok: false, reason: 'Origin is not loopback and not in ZONESCOPE_TRUSTED_ORIGINS' };
}

/** 403 `cross-site:<surface>` when {@link checkSameOrigin} refuses, else `null`. */
export function refuseCrossSite(request: Request, surface: ApiSurface, env: OriginEnv = process.env): Response | null {
  const check = checkSameOrigin(request.headers, env);
  if (check.ok) return null;
  return errorResponse(403, 'cross-site', surface, `Refused: this change must come from the dashboard's own pages (${check.reason}).`);
}

// ---------------------------------------------------------------------------------------------
// Writes beyond loopback

/**
 * 403 `unauthenticated-write:<surface>` when the dashboard listens beyond loopback and the write
 * is neither behind the authenticating proxy (`ZONESCOPE_AUTH_PROXY=1` and its user header on the
 * request) nor explicitly allowed (`ZONESCOPE_ALLOW_UNAUTHENTICATED_WRITES=1`); see
 * `exposure.ts`. Else `null`.
 */
export function refuseUnauthenticatedWrite(request: Request, surface: ApiSurface, env: OriginEnv = process.env): Response | null {
  const check = checkWriteAllowed(request.headers, env);
  return check.ok ? null : errorResponse(403, 'unauthenticated-write', surface, check.reason);
}

// ---------------------------------------------------------------------------------------------
// Audit identity

/**
 * Environment read by {@link auditUser}: `ZONESCOPE_AUTH_PROXY=1` says an auth proxy in front
 * sets (and strips client-sent) user headers.
 */
export type AuditEnv = Readonly<Record<string, string | undefined>>;

/** Who made a request, for the audit log. */
export interface AuditUser {
  /** `X-Forwarded-User` / `X-Auth-Request-User` behind an auth proxy, else `anonymous`. */
  readonly user: string;
  /** A user header sent without `ZONESCOPE_AUTH_PROXY=1` (unverified: anyone can send it). */
  readonly unverifiedUser: string | null;
}

/** The audit identity of a request (see {@link AuditUser}). */
export function auditUser(headers: Headers, env: AuditEnv = process.env): AuditUser {
  const claimed = proxyUser(headers);
  if (behindAuthProxy(env)) return { user: claimed ?? 'anonymous', unverifiedUser: null };
  return { user: 'anonymous', unverifiedUser: claimed };
}
