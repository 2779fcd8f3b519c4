/**
 * Request validation of the `/api/v1` route handlers: names, query parameters, the exact
 * topology-mode body and `If-Match`.
 *
 * Every parser returns a value (`{ ok: true, value }` or `{ ok: false, response }` carrying the
 * finished error `Response`); nothing throws. Nothing here talks to the cluster, so each check can
 * run before any API server call.
 */
import { isValidNamespace, isValidServiceName } from '../k8s/mutations';
import type { PriceSetting } from '../topology/model/cloud-pricing';
import { parsePriceSetting, pricePerGbSetting } from '../topology/model/cloud-pricing';
import type { TrafficScenario } from '../topology/analyses/traffic-scenarios';
import { TRAFFIC_SCENARIOS } from '../topology/analyses/traffic-scenarios';
import type { EndpointListKind, EndpointListQuery, ServiceQuery, ServiceSortKey } from '../shared/service-query';
import { ENDPOINT_LISTS, MAX_QUERY_LENGTH, SERVICE_FILTER_PARAMS, SERVICE_SORT_KEYS } from '../shared/service-query';
import type { ApiSurface, Parsed } from './http';
import { fail, truncate } from './http';

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
