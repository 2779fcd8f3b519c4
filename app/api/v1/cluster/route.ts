/**
 * `GET /api/v1/cluster`: the analyze `cluster` object with the release, assumptions, the cluster's
 * zone traffic and its cost (`traffic`), the metrics source's health (`metrics`) and the header
 * freshness. `?gbPerEndpoint=&gbPerService=&price=` (or the legacy `pricePerGb=`) are what-ifs that recompute the `traffic`
 * block only: the analysis's per-Service flows with other volume settings, no re-analysis.
 */
import type { ClusterTrafficQuery } from '@/lib/server/requests';
import { API_HEADERS, methodNotAllowed } from '@/lib/server/http';
import { parseClusterQuery } from '@/lib/server/requests';
import { notReadyResponse } from '@/lib/views/responses';
import { getClusterAnalysis } from '@/lib/server/analysis';
import type { ClusterScope } from '@/lib/server/clusters';
import { scopeFromRequest } from '@/lib/server/clusters';
import { getHeader } from '@/lib/views/header';
import { getClusterTraffic, getMeasuredTraffic, getVolumeSettings } from '@/lib/views/traffic';
import type { ClusterTrafficReport, VolumeSettings } from '@/lib/topology/analyses/traffic-volume';
import { memoOnObject } from '@/lib/topology/model/object-memo';
import type { ClusterAnalysis } from '@/lib/topology/report/analysis-schema';
import { clusterTrafficOf } from '@/lib/topology/report/cluster-analysis';

export const dynamic = 'force-dynamic';

/** The cluster's volume settings with the request's what-ifs applied. */
function withWhatIfs(settings: VolumeSettings, query: ClusterTrafficQuery): VolumeSettings {
  return {
    ...settings,
    ...(query.priceSetting !== undefined ? { priceSetting: query.priceSetting } : {}),
    // A per-endpoint what-if replaces a configured flat volume too: it asks for the per-endpoint assumption.
    ...(query.gbPerEndpoint !== undefined ? { gbPerEndpoint: query.gbPerEndpoint, gbPerService: null } : {}),
    ...(query.gbPerService !== undefined ? { gbPerService: query.gbPerService } : {}),
  };
}

/** The shared (memoised) block, or with what-ifs one O(Services × zones²) pass over the same flows and measurements. */
function trafficReport(scope: ClusterScope, analysis: ClusterAnalysis, query: ClusterTrafficQuery): ClusterTrafficReport {
  const whatIf = query.priceSetting !== undefined || query.gbPerEndpoint !== undefined || query.gbPerService !== undefined;
  if (!whatIf) return getClusterTraffic(scope)?.report ?? analysis.traffic;
  return clusterTrafficOf(analysis, withWhatIfs(getVolumeSettings(), query), getMeasuredTraffic(scope)).report;
}

/**
 * `{"schema":…,"kubernetes":…,"assumptions":…,"cluster":…` of an analysis (no closing brace),
 * serialised once per analysis: at 5,000 nodes the cluster object is over a megabyte of JSON, the
 * same for every request until the cluster changes.
 */
const ANALYSIS_JSON = new WeakMap<ClusterAnalysis, string>();
/** The JSON of a traffic block (the shared one is memoised per analysis, measurement and settings). */
const TRAFFIC_JSON = new WeakMap<ClusterTrafficReport, string>();

function analysisJson(analysis: ClusterAnalysis): string {
  let json = ANALYSIS_JSON.get(analysis);
  if (json === undefined) {
    const { schema, kubernetes, assumptions, cluster } = analysis;
    json = JSON.stringify({ schema, kubernetes, assumptions, cluster }).slice(0, -1);
    ANALYSIS_JSON.set(analysis, json);
  }
  return json;
}

function trafficJson(report: ClusterTrafficReport): string {
  return memoOnObject(TRAFFIC_JSON, report, (r) => JSON.stringify(r));
}

/**
 * The response body: `{ schema, kubernetes, assumptions, cluster, traffic, metrics, header }`, the
 * per-analysis parts from their memo, the header and metrics status (which change between
 * requests) serialised anew.
 */
function clusterBody(analysis: ClusterAnalysis, traffic: ClusterTrafficReport, header: ReturnType<typeof getHeader>): string {
  return `${analysisJson(analysis)},"traffic":${trafficJson(traffic)},"metrics":${JSON.stringify(header.metrics)},"header":${JSON.stringify(header)}}`;
}

export function GET(request: Request): Response {
  const scope = scopeFromRequest(request);
  if (scope instanceof Response) return scope;
  const query = parseClusterQuery(new URL(request.url).searchParams);
  if (!query.ok) return query.response;
  const analysis = getClusterAnalysis(scope.source);
  if (analysis === null) return notReadyResponse(scope, 'cluster');
  const traffic = trafficReport(scope, analysis, query.value);
  const header = getHeader(scope);
  return new Response(clusterBody(analysis, traffic, header), { status: 200, headers: { ...API_HEADERS, 'Content-Type': 'application/json' } });
}

const notAllowed = (): Response => methodNotAllowed('cluster', ['GET']);
export { notAllowed as POST, notAllowed as PUT, notAllowed as PATCH, notAllowed as DELETE, notAllowed as OPTIONS };
