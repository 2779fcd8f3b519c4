/**
 * `GET /api/v1/services/{namespace}/{name}/endpoints`: one per-endpoint list of a Service in full,
 * for the panels of the Service page that render only the first rows on the server.
 */
import 'server-only';

import type { TrafficScenario } from '../../topology/analyses/traffic-scenarios';
import type { ServiceDetail } from '../../topology/report/analysis-schema';
import type { ClusterScope } from '../../server/clusters';
import type { EndpointListQuery } from '../../shared/endpoint-lists';
import { getServiceView } from './view';

interface EndpointListBase {
  readonly namespace: string;
  readonly name: string;
  /** Number of items (all of them are returned). */
  readonly total: number;
}

/** `GET /api/v1/services/{namespace}/{name}/endpoints`: one per-endpoint list of the Service, complete. */
export type EndpointListView =
  | (EndpointListBase & { readonly list: 'endpoints'; readonly scenario: null; readonly items: ServiceDetail['endpoints'] })
  | (EndpointListBase & { readonly list: 'diff'; readonly scenario: null; readonly items: ServiceDetail['diffEntries'] })
  | (EndpointListBase & { readonly list: 'loads'; readonly scenario: TrafficScenario; readonly items: ServiceDetail['trafficMatrix']['now']['endpointLoads'] });

/** Result of {@link getServiceEndpointList}. */
export type EndpointListResult =
  | { readonly ok: true; readonly value: EndpointListView }
  | { readonly ok: false; readonly error: { readonly kind: 'not-found' | 'syncing'; readonly message: string } };

/**
 * One per-endpoint list of a Service in full, for the panels of the Service page that render only
 * the first rows on the server: every endpoint (address, pod, node, zone, conditions, hints now and
 * expected), every endpoint whose hints differ from the controller's, or the load of every
 * endpoint in one traffic scenario (default traffic options, as the page).
 */
export function getServiceEndpointList(scope: ClusterScope, namespace: string, name: string, query: EndpointListQuery): EndpointListResult {
  const result = getServiceView(scope, namespace, name);
  if (!result.ok) return result;
  const { detail } = result.value;
  const base = { namespace, name };
  switch (query.list) {
    case 'endpoints':
      return { ok: true, value: { ...base, list: 'endpoints', scenario: null, total: detail.endpoints.length, items: detail.endpoints } };
    case 'diff':
      return { ok: true, value: { ...base, list: 'diff', scenario: null, total: detail.diffEntries.length, items: detail.diffEntries } };
    case 'loads': {
      const loads = detail.trafficMatrix[query.scenario].endpointLoads;
      return { ok: true, value: { ...base, list: 'loads', scenario: query.scenario, total: loads.length, items: loads } };
    }
  }
}
