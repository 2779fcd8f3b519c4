import {
  TRAFFIC_DISTRIBUTION_PREFER_CLOSE,
  TRAFFIC_DISTRIBUTION_PREFER_SAME_NODE,
  TRAFFIC_DISTRIBUTION_PREFER_SAME_ZONE,
} from './constants';
import { cloneSlice, zoneHints } from './slice-info';
import type { EndpointSlice, MutableEndpointSlice } from './types';
import type { FeatureGates, KubeMinor } from './version';

/** The heuristic the trafficdist reconciler applies. */
export type TrafficDistributionHeuristic = 'default' | 'preferSameZone' | 'preferSameNode';

/**
 * Which heuristic `spec.trafficDistribution` selects inside the trafficdist helper at `minor`:
 * 1.30–1.32 know only `PreferClose` (zone hints); from 1.33 `PreferClose`/`PreferSameZone` give
 * zone hints and `PreferSameNode` zone and node hints. Anything else (including unset) is the
 * default heuristic, which strips hints.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/master/staging/src/k8s.io/endpointslice/trafficdist/trafficdist.go (ReconcileHints)
 */
export function trafficDistributionHeuristic(trafficDistribution: string | null | undefined, minor: KubeMinor): TrafficDistributionHeuristic {
  if (trafficDistribution === TRAFFIC_DISTRIBUTION_PREFER_CLOSE) return 'preferSameZone';
  if (minor >= 33 && trafficDistribution === TRAFFIC_DISTRIBUTION_PREFER_SAME_ZONE) return 'preferSameZone';
  if (minor >= 33 && trafficDistribution === TRAFFIC_DISTRIBUTION_PREFER_SAME_NODE) return 'preferSameNode';
  return 'default';
}

/**
 * Whether the reconciler treats the field as valid at `minor` (1.33+ `validTrafficDistribution`):
 * `PreferClose`, or `PreferSameZone`/`PreferSameNode` with the PreferSameTrafficDistribution gate.
 * Before 1.33 the field's value is not checked by the reconciler (any value passes the gate check).
 *
 * @see https://github.com/kubernetes/kubernetes/blob/master/staging/src/k8s.io/endpointslice/reconciler.go
 */
export function isValidTrafficDistribution(trafficDistribution: string | null | undefined, minor: KubeMinor, gates: FeatureGates): boolean {
  if (minor < 30) return false;
  if (trafficDistribution === TRAFFIC_DISTRIBUTION_PREFER_CLOSE) return true;
  if (minor < 33) return false;
  return (
    (trafficDistribution === TRAFFIC_DISTRIBUTION_PREFER_SAME_ZONE || trafficDistribution === TRAFFIC_DISTRIBUTION_PREFER_SAME_NODE) &&
    gates.PreferSameTrafficDistribution
  );
}

/** Same single-element list? */
function isExactly(list: readonly string[] | undefined, value: string): boolean {
  return list !== undefined && list.length === 1 && list[0] === value;
}

/** Whether the close heuristics must rewrite an unchanged slice (topology-semantics §10). */
function closeNeedsUpdate(slice: EndpointSlice, heuristic: 'preferSameZone' | 'preferSameNode', minor: KubeMinor): boolean {
  for (const endpoint of slice.endpoints) {
    if (endpoint.ready !== true) continue;
    const forZones = endpoint.hints?.forZones;
    const forNodes = endpoint.hints?.forNodes;
    if (minor < 33) {
      // 1.30–1.32: every ready endpoint wants exactly one zone hint equal to its zone ("" when absent).
      if (!isExactly(forZones, endpoint.zone ?? '')) return true;
      continue;
    }
    if (endpoint.zone !== null) {
      if (!isExactly(forZones, endpoint.zone)) return true;
    } else if (forZones !== undefined && forZones.length > 0) {
      return true;
    }
    if (heuristic === 'preferSameNode' && endpoint.nodeName !== null) {
      if (!isExactly(forNodes, endpoint.nodeName)) return true;
    } else if (forNodes !== undefined && forNodes.length > 0) {
      return true;
    }
  }
  return false;
}

/** Rewrites the hints of every ready endpoint for the close heuristics; unready endpoints keep theirs. */
function closeUpdate(slice: MutableEndpointSlice, heuristic: 'preferSameZone' | 'preferSameNode', minor: KubeMinor): void {
  for (const endpoint of slice.endpoints) {
    if (endpoint.ready !== true) continue;
    if (minor < 33) {
      endpoint.hints = zoneHints(endpoint.zone ?? '');
      continue;
    }
    const hints: { forZones?: string[]; forNodes?: string[] } = {};
    if (endpoint.zone !== null) hints.forZones = [endpoint.zone];
    if (heuristic === 'preferSameNode' && endpoint.nodeName !== null) hints.forNodes = [endpoint.nodeName];
    endpoint.hints = hints.forZones === undefined && hints.forNodes === undefined ? null : hints;
  }
}

/** The lists after trafficdist reconciliation. */
export interface TrafficDistributionResult {
  readonly toCreate: MutableEndpointSlice[];
  readonly toUpdate: MutableEndpointSlice[];
  readonly unchanged: MutableEndpointSlice[];
}

/**
 * ReconcileHints of the trafficdist package: picks the heuristic from the field, moves unchanged
 * slices that need new hints (as deep copies, appended in order) to the update list, then rewrites
 * hints on every slice to create or update. The close heuristics hint each ready endpoint for its
 * own zone (and node for PreferSameNode) with no CPU proportions and no events; the default
 * heuristic strips all hints. Input slices are not mutated.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/master/staging/src/k8s.io/endpointslice/trafficdist/trafficdist.go
 */
export function reconcileHints(
  trafficDistribution: string | null | undefined,
  slicesToCreate: readonly EndpointSlice[],
  slicesToUpdate: readonly EndpointSlice[],
  slicesUnchanged: readonly EndpointSlice[],
  minor: KubeMinor,
): TrafficDistributionResult {
  const heuristic = trafficDistributionHeuristic(trafficDistribution, minor);
  const needsUpdate = (slice: EndpointSlice) =>
    heuristic === 'default' ? slice.endpoints.some((endpoint) => endpoint.hints !== null) : closeNeedsUpdate(slice, heuristic, minor);
  // 1. Unchanged slices needing new hints are copied onto the end of the update list.
  const fromUnchanged: MutableEndpointSlice[] = [];
  const unchanged: MutableEndpointSlice[] = [];
  for (const slice of slicesUnchanged) {
    if (needsUpdate(slice)) fromUnchanged.push(cloneSlice(slice));
    // Kept as is: unchanged slices are not written.
    else unchanged.push(slice as MutableEndpointSlice);
  }
  const toCreate = slicesToCreate.map(cloneSlice);
  const toUpdate = [...slicesToUpdate.map(cloneSlice), ...fromUnchanged];
  // 2. Rewrite hints on everything being written.
  for (const slice of [...toCreate, ...toUpdate]) {
    if (heuristic === 'default') for (const endpoint of slice.endpoints) endpoint.hints = null;
    else closeUpdate(slice, heuristic, minor);
  }
  return { toCreate, toUpdate, unchanged };
}
