/**
 * `GET /api/v1/services/{namespace}/{name}`: the analyze per-Service object with every panel, the
 * Service's resourceVersion and the request's traffic/cost what-ifs (volume, price, traffic per
 * zone) applied to its figures. detail-body.ts serialises it.
 */
import 'server-only';

import type { AnalysisOptions } from '../../topology/model/analysis-options';
import type { ServiceDetail } from '../../topology/report/analysis-schema';
import { applyVolumeToSummary } from '../../topology/analyses/scenario-costs';
import { resolveServiceVolume } from '../../topology/analyses/service-volume';
import { loadBalancerLegCost } from '../../topology/analyses/load-balancer-leg';
import { pricePerGbSetting, resolvePricing } from '../../topology/model/cloud-pricing';
import type { MeasuredComparison } from '../../topology/analyses/measured-vs-predicted';
import { isServing, prepared } from '../../server/analysis';
import type { ClusterScope } from '../../server/clusters';
import { SYNCING } from '../header';
import { getVolumeSettings } from '../traffic';
import { getServiceTraffic, modelScenarios } from './traffic';
import { getServiceView } from './view';

/** `GET /api/v1/services/{namespace}/{name}`: the analyze per-Service object, the detail panels and the Service's resourceVersion. */
export interface ServiceDetailView extends ServiceDetail {
  /** The Service's resourceVersion (also the `ETag`; send it as `If-Match` to the toggle). */
  readonly resourceVersion: string;
  /** The modelled release (`"1.31"`). */
  readonly release: string;
  readonly readOnly: boolean;
  /**
   * Zone-resolved flows measured by Prometheus against the model's prediction now (cross-zone
   * shares, difference in points, client shares, the known causes that fit); `null` when no flows
   * are measured for the Service.
   */
  readonly measuredVsPredicted: MeasuredComparison | null;
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
export function getServiceDetailView(scope: ClusterScope, namespace: string, name: string, options: AnalysisOptions = {}): ServiceDetailResult {
  const parts = detailViewParts(scope, namespace, name, options);
  if (!parts.ok) return parts;
  return { ok: true, value: { ...parts.detail, ...parts.overrides } };
}

/** What the Service API adds to (or replaces in) the analysis detail per request. */
export type DetailOverrides = Pick<ServiceDetailView, 'traffic' | 'resourceVersion' | 'release' | 'readOnly' | 'measuredVsPredicted'>;

/** The detail and the per-request fields of {@link getServiceDetailView}, or why there is none. */
export type DetailViewParts =
  | { readonly ok: true; readonly detail: ServiceDetail; readonly overrides: DetailOverrides }
  | { readonly ok: false; readonly error: { readonly kind: 'not-found' | 'bad-request' | 'syncing'; readonly message: string } };

/**
 * The detail and its per-request fields. `trafficByZone` naming a zone the cluster does not have is
 * a `bad-request`.
 */
export function detailViewParts(scope: ClusterScope, namespace: string, name: string, options: AnalysisOptions): DetailViewParts {
  if (!isServing(scope.source)) return { ok: false, error: SYNCING };
  const zones = new Set(prepared(scope.source).zones.zones.map((zone) => zone.name));
  const unknownZone = Object.keys(options.trafficByZone ?? {}).find((zone) => !zones.has(zone));
  if (unknownZone !== undefined) {
    return { ok: false, error: { kind: 'bad-request', message: `traffic.${unknownZone}: the cluster has no zone "${unknownZone}" (zones: ${[...zones].join(', ') || 'none'}).` } };
  }
  const result = getServiceView(scope, namespace, name, options);
  if (!result.ok) return result;
  const view = result.value;
  // Volume as everywhere (measured > set > assumed); the request's gbPerMonth is a what-if that wins, its price too.
  const figures = getServiceTraffic(scope, view);
  const volume = options.gbPerMonth !== undefined && options.gbPerMonth !== null
    ? resolveServiceVolume(`${namespace}/${name}`, view.detail.observed.readyEndpoints, getVolumeSettings(), null, options.gbPerMonth)
    : figures.volume;
  const whatIfPrice = options.crossZonePrice ?? (options.pricePerGb !== undefined && options.pricePerGb !== null ? pricePerGbSetting(options.pricePerGb) : null);
  const pricing = whatIfPrice === null ? figures.pricing : resolvePricing(prepared(scope.source).dataplane.platform.platform, prepared(scope.source).dataplane.platform.evidence, whatIfPrice);
  const leg = figures.loadBalancerLeg;
  const traffic = {
    ...applyVolumeToSummary(view.detail.traffic, volume, pricing, modelScenarios(view.detail)),
    loadBalancerLeg: pricing === figures.pricing ? leg : loadBalancerLegCost(view.detail.loadBalancer?.leg ?? null, leg?.gbPerMonth ?? null, pricing),
  };
  return {
    ok: true,
    detail: view.detail,
    overrides: { traffic, resourceVersion: view.service.resourceVersion, release: view.release, readOnly: view.readOnly, measuredVsPredicted: figures.comparison },
  };
}
