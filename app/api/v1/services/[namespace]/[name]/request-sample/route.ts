/**
 * `GET /api/v1/services/{namespace}/{name}/request-sample?zone=&node=&count=&scenario=`: "send N
 * requests from a client in zone X" — kube-proxy's selection on that client node for the
 * scenario, the exact expected answers per pod, a seeded sample (the same query always gives the
 * same counts), the commands to check it by hand, and the measured split of that zone when
 * zone-resolved flows are measured. The Service page's request-sample panel reads it.
 */
import { scopeFromRequest } from '@/lib/server/clusters';
import { errorResponse, jsonResponse, methodNotAllowed } from '@/lib/server/http';
import { parseServiceRef } from '@/lib/server/requests';
import { readErrorResponse } from '@/lib/views/responses';
import type { Parsed } from '@/lib/server/http';
import type { RequestSampleQuery } from '@/lib/views/service/request-sample';
import { getRequestSample } from '@/lib/views/service/request-sample';
import { DEFAULT_REQUESTS, MAX_REQUESTS, MIN_REQUESTS } from '@/lib/topology/analyses/request-sample';
import type { TrafficScenario } from '@/lib/topology/analyses/traffic-scenarios';
import { TRAFFIC_SCENARIOS } from '@/lib/topology/analyses/traffic-scenarios';

export const dynamic = 'force-dynamic';

const KNOWN = ['zone', 'node', 'count', 'scenario'] as const;
/** Zone label values and node names: at most 253 printable characters without spaces. */
const NAME = /^[A-Za-z0-9]([-A-Za-z0-9_.]{0,251}[A-Za-z0-9])?$/;

function bad(message: string): { ok: false; response: Response } {
  return { ok: false, response: errorResponse(400, 'bad-request', 'service', message) };
}

function printable(text: string): string {
  const clean = text.replace(/[^\x20-\x7e]/g, '?');
  return clean.length > 64 ? `${clean.slice(0, 63)}…` : clean;
}

/** Parses the query; unknown or repeated parameters, malformed names and counts are 400. */
function parseRequestSampleQuery(params: URLSearchParams): Parsed<RequestSampleQuery> {
  for (const key of params.keys()) {
    if (!(KNOWN as readonly string[]).includes(key)) return bad(`Unknown query parameter "${printable(key)}"; known: ${KNOWN.join(', ')}.`);
    if (params.getAll(key).length > 1) return bad(`The query parameter "${key}" is given more than once.`);
  }
  const scenario = params.get('scenario') ?? 'now';
  if (!(TRAFFIC_SCENARIOS as readonly string[]).includes(scenario)) return bad(`scenario must be one of ${TRAFFIC_SCENARIOS.join(', ')}.`);
  const countText = params.get('count');
  const count = countText === null ? DEFAULT_REQUESTS : /^\d{1,6}$/.test(countText) ? Number(countText) : Number.NaN;
  if (!(count >= MIN_REQUESTS && count <= MAX_REQUESTS)) return bad(`count must be a whole number from ${MIN_REQUESTS} to ${MAX_REQUESTS}.`);
  const zone = params.get('zone');
  const node = params.get('node');
  if (zone !== null && !NAME.test(zone)) return bad(`zone: "${printable(zone)}" is not a valid zone name.`);
  if (node !== null && !NAME.test(node)) return bad(`node: "${printable(node)}" is not a valid node name.`);
  return { ok: true, value: { scenario: scenario as TrafficScenario, count, zone, node } };
}

export async function GET(request: Request, context: { params: Promise<{ namespace: string; name: string }> }): Promise<Response> {
  const scope = scopeFromRequest(request);
  if (scope instanceof Response) return scope;
  const { namespace, name } = await context.params;
  const ref = parseServiceRef(namespace, name, 'service');
  if (!ref.ok) return ref.response;
  const query = parseRequestSampleQuery(new URL(request.url).searchParams);
  if (!query.ok) return query.response;
  const result = getRequestSample(scope, ref.value.namespace, ref.value.name, query.value);
  if (result.ok) return jsonResponse(result.value);
  return readErrorResponse(scope, 'service', result.error);
}

const notAllowed = (): Response => methodNotAllowed('service', ['GET']);
export { notAllowed as POST, notAllowed as PUT, notAllowed as PATCH, notAllowed as DELETE, notAllowed as OPTIONS };
