/**
 * Request validation of the `/api/v1` route handlers: names, query parameters, the exact
 * topology-mode body and `If-Match`.
 *
 * Every parser returns a value (`{ ok: true, value }` or `{ ok: false, response }` carrying the
 * finished error `Response`); nothing throws. Nothing here talks to the cluster, so each check can
 * run before any API server call.
 *
 * Names and query parameters are read with zod schemas (the shared steps and value syntaxes are in
 * ./query-params.ts: unknown and repeated parameters first, then the values in the order the checks
 * run, the first problem being the 400's message). The `traffic.<zone>` shares, the topology-mode
 * body and `If-Match` are checked by hand (see there for why).
 */
import { z } from 'zod';

import { isValidNamespace, isValidServiceName } from '../k8s/mutations';
import type { PriceSetting } from '../topology/model/cloud-pricing';
import { MAX_GB_PER_MONTH } from '../topology/model/analysis-options';
import { TRAFFIC_SCENARIOS } from '../topology/analyses/traffic-scenarios';
import type { EndpointListQuery } from '../shared/endpoint-lists';
import { ENDPOINT_LISTS } from '../shared/endpoint-lists';
import type { ExportFormat, ServiceQuery } from '../shared/service-query';
import { ATTENTION_REASONS, EXPORT_FORMATS, HPA_FILTERS, MAX_MEASURED_DIFF, MAX_QUERY_LENGTH, SERVICE_MECHANISMS, SERVICE_SORT_KEYS, SERVICE_TYPES } from '../shared/service-query';
import type { ApiSurface, Parsed } from './http';
import { fail, truncate } from './http';
import type { QueryShape } from './query-params';
import { decimal, decimalParam, integerParam, once, oneOf, parsePriceWhatIf, parseWith, queryValues, switchParam, unlessEmpty } from './query-params';

// ---------------------------------------------------------------------------------------------
// Names

/** A validated Service reference. */
export interface ServiceRef {
  readonly namespace: string;
  readonly name: string;
}

const NAMESPACE_MESSAGE = 'The namespace is not a valid name (lowercase letters, digits and "-", at most 63 characters).';
const NAME_MESSAGE = 'The Service name is not a valid name (a lowercase letter, then lowercase letters, digits and "-", at most 63 characters).';

const serviceRefSchema = z.object({
  namespace: z.string({ error: NAMESPACE_MESSAGE }).refine(isValidNamespace, { error: NAMESPACE_MESSAGE }),
  name: z.string({ error: NAME_MESSAGE }).refine(isValidServiceName, { error: NAME_MESSAGE }),
});

/**
 * Validates a namespace (RFC 1123 label) and a Service name (RFC 1035 label) from the path:
 * `..`, `.`, `a/b`, `%2e%2e`, empty, over 63 characters, uppercase and non-ASCII are refused
 * with 400 `bad-request:<surface>` before anything else happens.
 */
export function parseServiceRef(namespace: unknown, name: unknown, surface: ApiSurface): Parsed<ServiceRef> {
  return parseWith(serviceRefSchema, { namespace, name }, surface);
}

// ---------------------------------------------------------------------------------------------
// GET /api/v1/services

/** Default page size of `GET /api/v1/services`. */
export const DEFAULT_SERVICES_LIMIT = 100;
/** Largest page size; larger values are clamped to it (smaller than 1 to 1). */
export const MAX_SERVICES_LIMIT = 500;
/** Largest accepted offset. */
export const MAX_OFFSET = 10_000_000;

/** The parameters of `GET /api/v1/services` read by {@link parseServiceQuery}. */
const SERVICE_QUERY_PARAMS = ['q', 'namespace', 'attention', 'sort', 'order', 'offset', 'limit'] as const;
/** The parameters read by {@link parseServiceFilterParams} (on top of {@link SERVICE_QUERY_PARAMS}). */
export const SERVICE_FILTER_PARAMS = ['mechanism', 'reason', 'type', 'hpa', 'measuredDiff', 'searchReasons', 'format'] as const;
const SERVICES_PARAMS: readonly string[] = [...SERVICE_QUERY_PARAMS, ...SERVICE_FILTER_PARAMS];

const servicesShape: QueryShape = { known: (key) => SERVICES_PARAMS.includes(key), knownText: SERVICES_PARAMS.join(', '), refuseRepeated: SERVICES_PARAMS };

const serviceQuerySchema = z.object({
  q: unlessEmpty(z.string().max(MAX_QUERY_LENGTH, { error: `q is longer than ${MAX_QUERY_LENGTH} characters.` })),
  namespace: unlessEmpty(z.string().refine(isValidNamespace, { error: 'namespace is not a valid namespace name.' })),
  // Unlike the other parameters, an empty `attention` means false.
  attention: z.enum(['true', '1', 'false', '0', ''], { error: 'attention must be true, false, 1 or 0.' }).transform((text) => text === 'true' || text === '1').optional(),
  sort: unlessEmpty(oneOf('sort', SERVICE_SORT_KEYS)),
  order: unlessEmpty(z.enum(['asc', 'desc'], { error: 'order must be asc or desc.' })),
  offset: unlessEmpty(
    integerParam('offset must be an integer.').refine((offset) => offset >= 0 && offset <= MAX_OFFSET, { error: `offset must be between 0 and ${MAX_OFFSET}.` }),
  ).transform((offset) => offset ?? 0),
  limit: unlessEmpty(integerParam(`limit must be an integer (it is clamped to 1–${MAX_SERVICES_LIMIT}).`))
    .transform((limit) => (limit === undefined ? DEFAULT_SERVICES_LIMIT : Math.min(MAX_SERVICES_LIMIT, Math.max(1, limit)))),
});

/**
 * Parses `q`, `namespace`, `attention`, `sort`, `order`, `offset` and `limit` of
 * `GET /api/v1/services`. Unknown or repeated parameters, malformed values, a bad namespace, an
 * unknown sort key or a negative or huge offset are 400; `limit` is clamped to 1–500
 * (default 100).
 */
export function parseServiceQuery(params: URLSearchParams): Parsed<ServiceQuery & { offset: number; limit: number }> {
  const values = queryValues(params, servicesShape, 'services');
  return values.ok ? parseWith(serviceQuerySchema, values.value, 'services') : values;
}

/** The mechanism/reason/type/HPA/measured-difference filters, the reason search and the export format of a Services query. */
export interface ServiceFilterParams {
  readonly mechanism?: string;
  readonly reason?: string;
  readonly type?: string;
  readonly hpa?: string;
  /** Points of cross-zone share, 0–100. */
  readonly measuredDiff?: number;
  readonly searchReasons?: boolean;
  readonly format?: ExportFormat;
}

/** Each filter in its turn: given twice, then its value (an empty one: not given). */
const serviceFilterSchema = z.object({
  mechanism: unlessEmpty(once('mechanism', oneOf('mechanism', SERVICE_MECHANISMS))),
  reason: unlessEmpty(once('reason', oneOf('reason', ATTENTION_REASONS))),
  type: unlessEmpty(once('type', oneOf('type', SERVICE_TYPES))),
  hpa: unlessEmpty(once('hpa', oneOf('hpa', HPA_FILTERS))),
  measuredDiff: unlessEmpty(
    once(
      'measuredDiff',
      decimalParam(MAX_MEASURED_DIFF, (text) => `measuredDiff must be a plain decimal number of percentage points from 0 to ${MAX_MEASURED_DIFF}; got "${truncate(text, 32)}".`),
    ),
  ),
  searchReasons: unlessEmpty(once('searchReasons', switchParam('searchReasons must be true, false, 1 or 0.'))),
  format: unlessEmpty(once('format', oneOf('format', EXPORT_FORMATS))),
});

/**
 * Parses {@link SERVICE_FILTER_PARAMS} of `GET /api/v1/services` (the other parameters are
 * {@link parseServiceQuery}'s): each at most once, an empty value meaning "not given"; anything
 * else than the listed values is 400 `bad-request:services`.
 */
export function parseServiceFilterParams(params: URLSearchParams): Parsed<ServiceFilterParams> {
  const values = queryValues(params, { known: () => true, knownText: '', refuseRepeated: [] }, 'services');
  return values.ok ? parseWith(serviceFilterSchema, values.value, 'services') : values;
}

// ---------------------------------------------------------------------------------------------
// GET /api/v1/services/{namespace}/{name}

/** Traffic and cost inputs of `GET /api/v1/services/{namespace}/{name}`. */
export interface TrafficOptionsQuery {
  readonly gbPerMonth?: number;
  /** From `price` (`aws`, `gcp`, `azure`, `0.01/GB x2`) or the legacy `pricePerGb` (USD per GB in each of two directions). */
  readonly crossZonePrice?: PriceSetting;
  readonly trafficByZone?: Readonly<Record<string, number>>;
}

const ZONE_LABEL = /^[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$/;
const MAX_TRAFFIC_ZONES = 64;

const trafficShape: QueryShape = {
  known: (key) => key === 'gbPerMonth' || key === 'pricePerGb' || key === 'price' || key.startsWith('traffic.'),
  knownText: 'gbPerMonth, price, pricePerGb, traffic.<zone>',
  refuseRepeated: 'sent',
};

const volumeWhatIfSchema = z.object({
  gbPerMonth: decimalParam(MAX_GB_PER_MONTH, () => `gbPerMonth must be a number from 0 to ${MAX_GB_PER_MONTH}.`).optional(),
});

/**
 * The `traffic.<zone>=<share>` parameters, in the order sent: a zone name that is a valid label
 * value, a share from 0 to 1, at most {@link MAX_TRAFFIC_ZONES}, shares adding up to at most 1.
 * Checked by hand: the keys are the zones, and the count and the sum span the parameters.
 */
function trafficShares(params: URLSearchParams): Parsed<Readonly<Record<string, number>> | null> {
  const traffic: Record<string, number> = Object.create(null) as Record<string, number>;
  let zones = 0;
  let sum = 0;
  for (const [key, text] of params) {
    if (!key.startsWith('traffic.')) continue;
    const zone = key.slice('traffic.'.length);
    if (!ZONE_LABEL.test(zone)) return fail(400, 'bad-request', 'service', `"${truncate(zone)}" is not a valid zone name.`);
    const value = decimal(text, 1);
    if (value === null) return fail(400, 'bad-request', 'service', `traffic.${zone} must be a share from 0 to 1.`);
    if (++zones > MAX_TRAFFIC_ZONES) return fail(400, 'bad-request', 'service', `At most ${MAX_TRAFFIC_ZONES} traffic.<zone> parameters.`);
    traffic[zone] = value;
    sum += value;
  }
  if (sum > 1 + 1e-9) return fail(400, 'bad-request', 'service', `The traffic.<zone> shares add up to ${Math.round(sum * 1000) / 1000}, more than 1.`);
  return { ok: true, value: zones > 0 ? { ...traffic } : null };
}

/**
 * Parses `gbPerMonth` (0–1e9), the price (`price`: `aws`, `gcp`, `azure` or `0.01/GB x2`; or the
 * legacy `pricePerGb`, 0–100 USD per GB in each of two directions; not both) and
 * `traffic.<zone>=<share>` (0–1 each, shares summing to at most 1, zone a valid label value) of the
 * Service endpoint. Unknown or repeated parameters and malformed numbers are 400
 * `bad-request:service`. Whether the zones exist is checked by the caller (it needs the cluster).
 */
export function parseTrafficOptions(params: URLSearchParams): Parsed<TrafficOptionsQuery> {
  const values = queryValues(params, trafficShape, 'service');
  if (!values.ok) return values;
  const volume = parseWith(volumeWhatIfSchema, values.value, 'service');
  if (!volume.ok) return volume;
  const price = parsePriceWhatIf(values.value, 'service');
  if (!price.ok) return price;
  const shares = trafficShares(params);
  if (!shares.ok) return shares;
  return {
    ok: true,
    value: { ...volume.value, ...(price.value !== null ? { crossZonePrice: price.value } : {}), ...(shares.value !== null ? { trafficByZone: shares.value } : {}) },
  };
}

// ---------------------------------------------------------------------------------------------
// GET /api/v1/cluster

/** What-if volume and price settings of `GET /api/v1/cluster` (they recompute only its `traffic` block). */
export interface ClusterTrafficQuery {
  readonly gbPerEndpoint?: number;
  readonly gbPerService?: number;
  /** From `price` or the legacy `pricePerGb`. */
  readonly priceSetting?: PriceSetting;
}

const CLUSTER_PARAMS = ['gbPerEndpoint', 'gbPerService', 'price', 'pricePerGb'] as const;

const clusterShape: QueryShape = {
  known: (key) => (CLUSTER_PARAMS as readonly string[]).includes(key),
  knownText: CLUSTER_PARAMS.join(', '),
  // The price's first; the volumes' in their turn (see clusterVolumeSchema).
  refuseRepeated: ['price', 'pricePerGb'],
};

/** A volume what-if of the cluster: a plain decimal from 0 to 1e9, named with what it is. */
function volumeParam(key: string, what: string) {
  return decimalParam(MAX_GB_PER_MONTH, (text) => `${key} must be a plain decimal number from 0 to ${MAX_GB_PER_MONTH} (${what}); got "${truncate(text, 32)}".`);
}

const clusterVolumeSchema = z.object({
  gbPerEndpoint: once('gbPerEndpoint', volumeParam('gbPerEndpoint', 'GB per ready endpoint per month')).optional(),
  gbPerService: once('gbPerService', volumeParam('gbPerService', 'GB per Service per month')).optional(),
});

/**
 * Parses the what-ifs of `GET /api/v1/cluster`: `gbPerEndpoint` (0–1e9, GB per ready endpoint per
 * month), `gbPerService` (0–1e9, a flat GB per Service per month instead) and the price (`price` or
 * `pricePerGb`, as for {@link parseTrafficOptions}). Each applies to the Services whose volume is
 * assumed (the price to all). Unknown or repeated parameters and malformed or out-of-range numbers
 * are 400 `bad-request:cluster` naming the parameter and its range.
 */
export function parseClusterQuery(params: URLSearchParams): Parsed<ClusterTrafficQuery> {
  const values = queryValues(params, clusterShape, 'cluster');
  if (!values.ok) return values;
  const price = parsePriceWhatIf(values.value, 'cluster');
  if (!price.ok) return price;
  const volumes = parseWith(clusterVolumeSchema, values.value, 'cluster');
  if (!volumes.ok) return volumes;
  if (volumes.value.gbPerEndpoint !== undefined && volumes.value.gbPerService !== undefined) {
    return fail(400, 'bad-request', 'cluster', 'Give gbPerEndpoint or gbPerService, not both: gbPerService replaces the per-endpoint assumption with a flat volume per Service.');
  }
  return { ok: true, value: { ...(price.value !== null ? { priceSetting: price.value } : {}), ...volumes.value } };
}

// ---------------------------------------------------------------------------------------------
// GET /api/v1/services/{namespace}/{name}/endpoints

const endpointListShape: QueryShape = {
  known: (key) => key === 'list' || key === 'scenario',
  knownText: 'list, scenario',
  refuseRepeated: ['list', 'scenario'],
  repeated: () => 'A query parameter is given more than once.',
};

/** The list first (default `endpoints`); then a scenario, only with `list=loads` (default `now`). */
const endpointListSchema = z
  .object({ list: oneOf('list', ENDPOINT_LISTS).default('endpoints'), scenario: z.string().optional() })
  .refine((query) => query.scenario === undefined || query.list === 'loads', { error: 'scenario applies to list=loads only.' })
  .pipe(z.object({ list: z.enum(ENDPOINT_LISTS), scenario: oneOf('scenario', TRAFFIC_SCENARIOS).default('now') }));

/**
 * Parses `list` (`endpoints`, `diff` or `loads`; default `endpoints`) and `scenario` (`now`,
 * `expected`, `ifAuto` or `ifNone`; default `now`; only with `list=loads`) of the Service's
 * per-endpoint lists. Unknown, repeated or bad parameters are 400 `bad-request:service`.
 */
export function parseEndpointListQuery(params: URLSearchParams): Parsed<EndpointListQuery> {
  const values = queryValues(params, endpointListShape, 'service');
  return values.ok ? parseWith(endpointListSchema, values.value, 'service') : values;
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
