/**
 * `GET /api/v1/cluster`: the analyze `cluster` object with the release, assumptions, the cluster's
 * zone traffic and its cost (`traffic`), the metrics source's health (`metrics`) and the header
 * freshness. `?gbPerEndpoint=&gbPerService=&pricePerGb=` are what-ifs that recompute the `traffic`
 * block only: the analysis's per-Service flows with other volume settings, no re-analysis.
 */
import type { ClusterTrafficQuery } from '@/lib/data/http';
import { jsonResponse, methodNotAllowed, notReadyResponse, parseClusterQuery } from '@/lib/data/http';
import { getClusterAnalysis } from '@/lib/data/analysis';
import { getHeader } from '@/lib/data/header';
import { getClusterTraffic, getMeasuredTraffic, getVolumeSettings } from '@/lib/data/traffic';
import { computeClusterTraffic } from '@/lib/topology/analyses/cluster-traffic';
import type { ClusterTrafficReport, VolumeSettings } from '@/lib/topology/analyses/traffic-volume';
import type { ClusterAnalysis } from '@/lib/topology/report/analysis-schema';
import { serviceFlowsOf } from '@/lib/topology/report/cluster-analysis';

export const dynamic = 'force-dynamic';

/** The cluster's volume settings with the request's what-ifs applied. */
function withWhatIfs(settings: VolumeSettings, query: ClusterTrafficQuery): VolumeSettings {
  return {
    ...settings,
    ...(query.pricePerGb !== undefined ? { pricePerGb: query.pricePerGb } : {}),
    // A per-endpoint what-if replaces a configured flat volume too: it asks for the per-endpoint assumption.
    ...(query.gbPerEndpoint !== undefined ? { gbPerEndpoint: query.gbPerEndpoint, gbPerService: null } : {}),
    ...(query.gbPerService !== undefined ? { gbPerService: query.gbPerService } : {}),
  };
}

/** The shared (memoised) block, or with what-ifs one O(Services × zones²) pass over the same flows and measurements. */
function trafficReport(analysis: ClusterAnalysis, query: ClusterTrafficQuery): ClusterTrafficReport {
  const whatIf = query.pricePerGb !== undefined || query.gbPerEndpoint !== undefined || query.gbPerService !== undefined;
  if (!whatIf) return getClusterTraffic()?.report ?? analysis.traffic;
  return computeClusterTraffic(serviceFlowsOf(analysis), withWhatIfs(getVolumeSettings(), query), getMeasuredTraffic()).report;
}

export function GET(request: Request): Response {
  const query = parseClusterQuery(new URL(request.url).searchParams);
  if (!query.ok) return query.response;
  const analysis = getClusterAnalysis();
  if (analysis === null) return notReadyResponse('cluster');
  const { schema, kubernetes, assumptions, cluster } = analysis;
  const traffic = trafficReport(analysis, query.value);
  const header = getHeader();
  return jsonResponse({ schema, kubernetes, assumptions, cluster, traffic, metrics: header.metrics, header });
}

const notAllowed = (): Response => methodNotAllowed('cluster', ['GET']);
export { notAllowed as POST, notAllowed as PUT, notAllowed as PATCH, notAllowed as DELETE, notAllowed as OPTIONS };
