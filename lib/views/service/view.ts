/**
 * The Service view: one Service with every panel for its page, from the analysis of that one
 * Service in the memoised per-cluster preparation (never a whole-cluster pass), and whether the
 * cluster has the Service at all (the page's 404, decided before anything streams).
 */
import 'server-only';

import type { ServiceRecord } from '../../topology/model/cluster-model';
import { objectKey } from '../../topology/model/cluster-model';
import type { AnalysisOptions } from '../../topology/model/analysis-options';
import type { ServiceDetail } from '../../topology/report/analysis-schema';
import { analyzeServiceIn } from '../../topology/report/service-detail';
import { isServing, preparedWith, source } from '../../server/analysis';
import type { ClusterScope } from '../../server/clusters';
import { isReadOnly, SYNCING } from '../header';

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
export function findService(scope: ClusterScope, namespace: string, name: string): ServiceLookupError | null {
  const state = source(scope.source);
  if (!isServing(scope.source)) return SYNCING;
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
export function getServiceView(scope: ClusterScope, namespace: string, name: string, options: AnalysisOptions = {}): ServiceViewResult {
  const state = source(scope.source);
  if (!isServing(scope.source)) return { ok: false, error: SYNCING };
  const service = state.index().servicesByKey.get(objectKey(namespace, name));
  if (!service) return { ok: false, error: serviceNotFound(namespace, name) };
  const preparation = preparedWith(scope.source, options);
  const detail = analyzeServiceIn(preparation, namespace, name);
  if (!detail) return { ok: false, error: serviceNotFound(namespace, name) };
  return {
    ok: true,
    value: {
      detail,
      service,
      release: preparation.kubernetes.release,
      minor: preparation.kubernetes.minor,
      readOnly: isReadOnly(scope) || state.mode !== 'live',
      version: detailVersion(detail),
    },
  };
}
