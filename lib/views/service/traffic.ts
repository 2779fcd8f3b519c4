/**
 * A Service's traffic figures for its page and its API answer: the volume resolved as everywhere
 * (measured flows > measured pod bytes > set > assumed), the cost at that volume and the cluster's
 * price, the load balancer's own leg, and — with zone-resolved flows — what Prometheus measured
 * against the model's prediction (memoised per analysis result and measurement).
 */
import 'server-only';

import type { ServiceDetail, TrafficSummary } from '../../topology/report/analysis-schema';
import type { ModelScenarios } from '../../topology/analyses/scenario-costs';
import { applyVolumeToSummary } from '../../topology/analyses/scenario-costs';
import { resolveServiceVolume } from '../../topology/analyses/service-volume';
import { loadBalancerLegCost } from '../../topology/analyses/load-balancer-leg';
import type { CrossZonePricing } from '../../topology/model/cloud-pricing';
import type { MeasuredComparison } from '../../topology/analyses/measured-vs-predicted';
import { compareMeasuredWithPredicted } from '../../topology/analyses/measured-vs-predicted';
import type { MeasuredServiceTraffic, ServiceVolume } from '../../topology/analyses/traffic-volume';
import { prepared } from '../../server/analysis';
import type { ClusterScope } from '../../server/clusters';
import { getMeasuredTraffic, getMetricsStatus, getVolumeSettings } from '../traffic';
import type { ServiceView } from './view';

/** The Service's traffic volume (with its source), its cost, and what Prometheus measured for it. */
export interface ServiceTrafficView {
  /** Measured, set or assumed: as the cluster-wide figures count it (the page's what-if is separate). */
  readonly volume: ServiceVolume;
  /** What a cross-zone GB costs on the cluster's cloud (or as set). */
  readonly pricing: CrossZonePricing;
  /**
   * Monthly cost with {@link volume}: now, after the sync, with Auto, without hints (measured: the
   * measurement now and the model's change applied to it for the others).
   */
  readonly monthlyCost: TrafficSummary['monthlyCost'];
  /** The load balancer's own cross-zone leg at the measured external volume, `null` when unknown. */
  readonly loadBalancerLeg: TrafficSummary['loadBalancerLeg'];
  /** What Prometheus measured for this Service, `null` when nothing usable. */
  readonly measured: MeasuredServiceTraffic | null;
  readonly window: string | null;
  readonly measuredAt: string | null;
  /** Measured flows against the model's prediction now; `null` without zone-resolved flows. */
  readonly comparison: MeasuredComparison | null;
  /** The metrics source's state and its sentence (why nothing is measured, when nothing is). */
  readonly metrics: { readonly state: string; readonly message: string };
}

const COMPARISONS = new WeakMap<ServiceDetail, { readonly measured: MeasuredServiceTraffic; readonly comparison: MeasuredComparison | null }>();

/**
 * The traffic figures of a Service's page: its volume resolved as everywhere (measured flows >
 * measured pod bytes > set > assumed), the cost at that volume and the cluster's price, and —
 * with zone-resolved flows — the comparison with the model (memoised per analysis and measurement).
 */
export function getServiceTraffic(scope: ClusterScope, view: ServiceView): ServiceTrafficView {
  const { detail, service } = view;
  const key = `${service.namespace}/${service.name}`;
  const settings = getVolumeSettings();
  const measuredTraffic = getMeasuredTraffic(scope);
  const measured = measuredTraffic?.byService.get(key) ?? null;
  const volume = resolveServiceVolume(key, detail.observed.readyEndpoints, settings, measuredTraffic);
  const { pricing } = prepared(scope.source);
  const costed = applyVolumeToSummary(detail.traffic, volume, pricing, modelScenarios(detail));
  let comparison: MeasuredComparison | null = null;
  if (measured !== null && measured.kind === 'measured-flows') {
    const cached = COMPARISONS.get(detail);
    if (cached && cached.measured === measured) comparison = cached.comparison;
    else {
      const preparation = prepared(scope.source);
      comparison = compareMeasuredWithPredicted({
        measured,
        predicted: detail.trafficMatrix.now,
        service,
        index: preparation.context.index,
        dataplane: preparation.dataplane,
        loadBalancer: detail.loadBalancer,
      });
      COMPARISONS.set(detail, { measured, comparison });
    }
  }
  const status = getMetricsStatus(scope);
  return {
    volume,
    pricing,
    monthlyCost: costed.monthlyCost,
    loadBalancerLeg: loadBalancerLegCost(detail.loadBalancer?.leg ?? null, measured?.externalGbPerMonth ?? null, pricing),
    measured,
    window: measuredTraffic?.window ?? null,
    measuredAt: measuredTraffic?.measuredAt ?? null,
    comparison,
    metrics: { state: status.state, message: status.message },
  };
}

/** The model's fraction matrices of a detail's scenarios (what a measurement is projected with). */
export function modelScenarios(detail: ServiceDetail): ModelScenarios {
  const { now, expected, ifAuto, ifNone } = detail.trafficMatrix;
  return { now: now.matrix, expected: expected.matrix, ifAuto: ifAuto.matrix, ifNone: ifNone.matrix };
}
