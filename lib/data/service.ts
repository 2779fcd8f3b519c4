/**
 * The Service view: one Service with every panel for its page, the same as JSON for
 * `GET /api/v1/services/{namespace}/{name}`, and its per-endpoint lists in full for
 * `…/endpoints`. Per-Service work only: the analysis of one Service in the memoised per-cluster
 * preparation, never a whole-cluster pass.
 */
import 'server-only';

import type { ServiceRecord } from '../topology/model/cluster-model';
import { objectKey } from '../topology/model/cluster-model';
import type { AnalysisOptions } from '../topology/model/cluster-context';
import type { ServiceDetail } from '../topology/report/analysis-schema';
import { analyzeServiceIn } from '../topology/report/service-detail';
import type { TrafficScenario } from '../topology/analyses/traffic-scenarios';
import { prepared, preparedWith, source } from './analysis';
import { isReadOnly, SYNCING } from './header';

/** The Service view: the analysis detail plus the object's own state for the toggle. */
export interface ServiceView {
  readonly detail: ServiceDetail;
  readonly service: ServiceRecord;
  readonly release: string;
  readonly minor: number;
  readonly readOnly: boolean;
  /**
   * Changes whenever this Service's analysis changes (its endpoints, hints, events…) and only
   * then: client components that fetched a full per-endpoint list refetch when it changes.
   */
  readonly version: number;
}

/** Why a Service cannot be shown: the first sync is still running, or the cluster has no such Service. */
export type ServiceLookupError = typeof SYNCING | { readonly kind: 'not-found'; readonly message: string };

/** Result of {@link getServiceView}. */
export type ServiceViewResult = { readonly ok: true; readonly value: ServiceView } | { readonly ok: false; readonly error: ServiceLookupError };

/** The `not-found` error for a Service the cluster does not have. */
export function serviceNotFound(namespace: string, name: string): { readonly kind: 'not-found'; readonly message: string } {
  return { kind: 'not-found', message: `Service ${namespace}/${name} was not found.` };
}

/**
 * Whether the cluster has the Service, without analysing it: `null` when it does, `syncing`
 * before the first sync, `not-found` otherwise. One index lookup, so the Service page can decide
 * its 404 before anything streams (see app/services/[namespace]/[name]/layout.tsx).
 */
export function findService(namespace: string, name: string): ServiceLookupError | null {
  const state = source();
  if (!state.isSynced()) return SYNCING;
  return state.index().servicesByKey.has(objectKey(namespace, name)) ? null : serviceNotFound(namespace, name);
}

const DETAIL_VERSIONS = new WeakMap<ServiceDetail, number>();
let nextDetailVersion = 1;

/** A number per analysis result: the per-Service cache hands out the same object until an input changes. */
function detailVersion(detail: ServiceDetail): number {
  let version = DETAIL_VERSIONS.get(detail);
  if (version === undefined) {
    version = nextDetailVersion++;
    DETAIL_VERSIONS.set(detail, version);
  }
  return version;
}

/**
 * One Service with every panel; `not-found` when the cluster has no such Service, `syncing`
 * before the first sync. `options` override traffic per zone, GB/month and $/GB.
 */
export function getServiceView(namespace: string, name: string, options: AnalysisOptions = {}): ServiceViewResult {
  const state = source();
  if (!state.isSynced()) return { ok: false, error: SYNCING };
  const service = state.index().servicesByKey.get(objectKey(namespace, name));
  if (!service) return { ok: false, error: serviceNotFound(namespace, name) };
  const preparation = preparedWith(options);
  const detail = analyzeServiceIn(preparation, namespace, name);
  if (!detail) return { ok: false, error: serviceNotFound(namespace, name) };
  return {
    ok: true,
    value: {
      detail,
      service,
      release: preparation.kubernetes.release,
      minor: preparation.kubernetes.minor,
      readOnly: isReadOnly() || state.mode !== 'live',
      version: detailVersion(detail),
    },
  };
}

/** `GET /api/v1/services/{namespace}/{name}`: the analyze per-Service object, the detail panels and the Service's resourceVersion. */
export interface ServiceDetailView extends ServiceDetail {
  /** The Service's resourceVersion (also the `ETag`; send it as `If-Match` to the toggle). */
  readonly resourceVersion: string;
  /** The modelled release (`"1.31"`). */
  readonly release: string;
  readonly readOnly: boolean;
}

/** Result of {@link getServiceDetailView}. */
export type ServiceDetailResult =
  | { readonly ok: true; readonly value: ServiceDetailView }
  | { readonly ok: false; readonly error: { readonly kind: 'not-found' | 'bad-request' | 'syncing'; readonly message: string } };

/**
 * One Service with every panel and its resourceVersion, with optional traffic/cost overrides.
 * `trafficByZone` naming a zone the cluster does not have is a `bad-request` (checked against the
 * memoised preparation's zones, not a whole-cluster analysis).
 */
export function getServiceDetailView(namespace: string, name: string, options: AnalysisOptions = {}): ServiceDetailResult {
  if (!source().isSynced()) return { ok: false, error: SYNCING };
  const zones = new Set(prepared().zones.zones.map((zone) => zone.name));
  const unknownZone = Object.keys(options.trafficByZone ?? {}).find((zone) => !zones.has(zone));
  if (unknownZone !== undefined) {
    return { ok: false, error: { kind: 'bad-request', message: `traffic.${unknownZone}: the cluster has no zone "${unknownZone}" (zones: ${[...zones].join(', ') || 'none'}).` } };
  }
  const result = getServiceView(namespace, name, options);
  if (!result.ok) return result;
  const view = result.value;
  return { ok: true, value: { ...view.detail, resourceVersion: view.service.resourceVersion, release: view.release, readOnly: view.readOnly } };
}

/** The per-endpoint lists of the Service page, each served in full by {@link getServiceEndpointList}. */
export const ENDPOINT_LISTS = ['endpoints', 'diff', 'loads'] as const;
/** One per-endpoint list (see {@link ENDPOINT_LISTS}). */
export type EndpointListKind = (typeof ENDPOINT_LISTS)[number];

/** Which list `GET /api/v1/services/{namespace}/{name}/endpoints` returns. */
export interface EndpointListQuery {
  readonly list: EndpointListKind;
  /** The traffic scenario of `list=loads` (ignored otherwise). */
  readonly scenario: TrafficScenario;
}

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
export function getServiceEndpointList(namespace: string, name: string, query: EndpointListQuery): EndpointListResult {
  const result = getServiceView(namespace, name);
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
