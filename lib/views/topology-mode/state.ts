/**
 * What the topology-mode toggle shows: the preview the Service page renders with itself (current
 * annotations, the version-aware edits, the prediction; no API request) and the whole state the
 * toggle reads (`GET …/topology-mode`), which adds the permission.
 *
 * Results are values (`{ ok: true, value }` / `{ ok: false, error }`); nothing throws.
 */
import 'server-only';

import { topologyAnnotationChange } from '../../topology/analyses/service-mechanism';
import type { ServiceDetail } from '../../topology/report/analysis-schema';
import { ANNOTATION_TOPOLOGY_MODE } from '../../topology/upstream/constants';
import { prepared, source } from '../../server/analysis';
import type { ClusterScope } from '../../server/clusters';
import { getSourceProblem } from '../header';
import type { ServiceView } from '../service/view';
import { getServiceView } from '../service/view';
import { describeTopologyAnnotations, topologyModeNotApplicable } from './annotations';
import { permission } from './permission';
import { predictTopologyMode } from './prediction';
import { readOnlyReason } from './settings';
import { refersTo } from '../weak-identity';
import type { TopologyModePrediction, TopologyModePreview, TopologyModeResult, TopologyModeState } from './types';

/**
 * Predictions per analysed Service, resourceVersion and prepared analysis: the analysis hands out
 * the same detail until the Service's inputs change. The preparation is held weakly: the detail
 * outlives many preparations (one per Prometheus refresh), and a strong reference kept the last
 * one alive with its measured traffic for every Service.
 */
const PREDICTIONS = new WeakMap<ServiceDetail, { readonly resourceVersion: string; readonly prepared: WeakRef<object>; readonly prediction: TopologyModePrediction }>();

/** The toggle's state without the permission, from a Service's view ({@link getServiceView}). */
export function topologyModePreview(scope: ClusterScope, view: ServiceView): TopologyModePreview {
  const state = source(scope.source);
  const readOnly = readOnlyReason(scope);
  const { detail, service, minor, release } = view;
  const enable = topologyAnnotationChange(service.annotations, minor, true);
  const change = { enable, disable: topologyAnnotationChange(service.annotations, minor, false) };
  const analysis = prepared(state);
  let memo = PREDICTIONS.get(detail);
  if (memo?.resourceVersion !== service.resourceVersion || !refersTo(memo.prepared, analysis)) {
    memo = { resourceVersion: service.resourceVersion, prepared: new WeakRef(analysis), prediction: predictTopologyMode(state, detail, service, change) };
    PREDICTIONS.set(detail, memo);
  }
  return {
    namespace: service.namespace,
    name: service.name,
    cluster: { id: scope.entry.id, name: scope.entry.displayName, context: scope.entry.context },
    readOnly: readOnly !== null,
    readOnlyReason: readOnly,
    current: describeTopologyAnnotations(service.annotations, service.resourceVersion, minor),
    release,
    minor,
    key: Object.keys(enable.set)[0] ?? ANNOTATION_TOPOLOGY_MODE,
    resourceVersion: service.resourceVersion,
    change,
    prediction: memo.prediction,
  };
}

/**
 * What the toggle of one Service shows: read-only state, permission (SelfSubjectAccessReview,
 * skipped when read-only, cached ~30 s per Service), the current annotations and resourceVersion
 * from the cache, the version-aware edits for Enable and Disable, and the predicted outcome.
 * Errors: `unavailable`, `syncing`, `not-found`.
 */
export async function getTopologyModeState(scope: ClusterScope, namespace: string, name: string): Promise<TopologyModeResult<TopologyModeState>> {
  const state = source(scope.source);
  const problem = getSourceProblem(scope);
  if (problem) return { ok: false, error: problem };
  const view = getServiceView(scope, namespace, name);
  if (!view.ok) return view;
  const preview = topologyModePreview(scope, view.value);
  const notApplicable = topologyModeNotApplicable(view.value.service);
  const allowed =
    preview.readOnlyReason !== null
      ? { allowed: false, reason: preview.readOnlyReason }
      : notApplicable !== null
        ? { allowed: false, reason: notApplicable }
        : await permission(state, preview.cluster.name, namespace, name);
  return {
    ok: true,
    value: {
      ...preview,
      canPatch: allowed.allowed,
      notAllowedReason: allowed.allowed ? null : allowed.reason,
      permissionCheckFailed: 'checkFailed' in allowed && allowed.checkFailed === true,
    },
  };
}
