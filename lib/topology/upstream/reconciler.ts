import { hintsEnabled } from './annotations';
import { MESSAGE_TOPOLOGY_AWARE_HINTS_DISABLED, REASON_HINTS_DISABLED } from './constants';
import type { SliceInfo } from './slice-info';
import { cloneSliceInfoForWrite, removeHintsFromSlices } from './slice-info';
import type { Allocation, TopologyCache } from './topology-cache';
import { formatWithAddressType } from './topology-cache-utils';
import { isValidTrafficDistribution, reconcileHints } from './traffic-distribution';
import type { MutableEndpointSlice, TopologyEvent, TopologyNode, ValueByZone } from './types';
import type { FeatureGates, KubeMinor } from './version';

/** The Service fields the hint reconciliation reads. */
export interface TopologyServiceSpec {
  readonly key: string;
  readonly annotations: Readonly<Record<string, string>>;
  readonly trafficDistribution: string | null;
}

/** Which code path set (or cleared) the hints. */
export type HintsMechanism = 'topologyAnnotation' | 'trafficDistribution' | 'none';

/** Result of {@link reconcileTopologyHints}. */
export interface ReconcileTopologyResult {
  readonly mechanism: HintsMechanism;
  readonly toCreate: MutableEndpointSlice[];
  readonly toUpdate: MutableEndpointSlice[];
  readonly unchanged: MutableEndpointSlice[];
  readonly events: TopologyEvent[];
  /** From the `Auto` path: whether hints ended up on (`null` when that path did not run). */
  readonly autoOutcome: 'enabled' | 'disabled' | null;
  /** From the `Auto` path: the allocations used (`null` if allocation failed or the path did not run). */
  readonly allocations: ValueByZone<Allocation> | null;
}

/**
 * Whether the reconciler hands the Service to the trafficdist step (`canUseTrafficDistribution`):
 * never before 1.30; 1.30–1.32 whenever the ServiceTrafficDistribution gate is on and the annotation
 * is not `Auto` — whatever the field says, so an unset field strips hints; 1.33+ only for a valid
 * field value and no `Auto` annotation.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/master/staging/src/k8s.io/endpointslice/reconciler.go
 */
export function canUseTrafficDistribution(service: TopologyServiceSpec, minor: KubeMinor, gates: FeatureGates): boolean {
  if (minor < 30) return false;
  const gateOn = gates.ServiceTrafficDistribution || minor >= 36;
  if (!gateOn) return false;
  const annotationOn = hintsEnabled(service.annotations, minor);
  if (minor < 33) return !annotationOn;
  return isValidTrafficDistribution(service.trafficDistribution, minor, gates) && !annotationOn;
}

/**
 * The hint step at the end of a Service sync, for one address type (topology-semantics §3):
 * 1. topology cache present and annotation `Auto` → the proportional `Auto` heuristic (it wins
 *    over `trafficDistribution`);
 * 2. otherwise drop the cache entry (with a "has been disabled" Warning if the Service had
 *    annotation hints), and strip hints unless trafficdist will handle the Service;
 * 3. trafficdist reconciliation when it applies.
 * `cache` is `null` when the TopologyAwareHints gate is off (no cache, no node handlers).
 * The cache is updated; `info` is not mutated.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/master/staging/src/k8s.io/endpointslice/reconciler.go (reconcileByAddressType)
 */
export function reconcileTopologyHints(
  service: TopologyServiceSpec,
  info: SliceInfo,
  cache: TopologyCache | null,
  minor: KubeMinor,
  gates: FeatureGates,
): ReconcileTopologyResult {
  const useTrafficDistribution = canUseTrafficDistribution(service, minor, gates);
  const events: TopologyEvent[] = [];

  // 1. The annotation path.
  if (cache !== null && hintsEnabled(service.annotations, minor)) {
    const result = cache.addHints(info);
    return {
      mechanism: 'topologyAnnotation',
      toCreate: result.toCreate,
      toUpdate: result.toUpdate,
      unchanged: result.unchanged,
      events: result.events,
      autoOutcome: result.outcome,
      allocations: result.allocations,
    };
  }

  // 2. Not the annotation path: forget annotation state, strip hints unless trafficdist takes over.
  //    (Unchanged slices are only read: removeHintsFromSlices and trafficdist copy what they rewrite.)
  const si = cloneSliceInfoForWrite(info);
  if (cache !== null) {
    if (minor >= 26 && cache.hasPopulatedHints(si.serviceKey)) {
      events.push({ type: 'Warning', reason: REASON_HINTS_DISABLED, message: formatWithAddressType(MESSAGE_TOPOLOGY_AWARE_HINTS_DISABLED, si.addressType) });
    }
    cache.removeHints(si.serviceKey, si.addressType);
  }
  if (!useTrafficDistribution) removeHintsFromSlices(si);

  // 3. trafficDistribution.
  if (useTrafficDistribution) {
    const result = reconcileHints(service.trafficDistribution, si.toCreate, si.toUpdate, si.unchanged, minor);
    return { mechanism: 'trafficDistribution', ...result, events, autoOutcome: null, allocations: null };
  }
  return { mechanism: 'none', toCreate: si.toCreate, toUpdate: si.toUpdate, unchanged: si.unchanged, events, autoOutcome: null, allocations: null };
}

/**
 * Whether a node update makes the controller recompute topology: only a change of the Ready status
 * or of the zone label counts; allocatable CPU changes alone wait for the next qualifying event.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/master/pkg/controller/endpointslice/endpointslice_controller.go (updateNode)
 */
export function nodeUpdateRequiresRecompute(oldNode: TopologyNode, newNode: TopologyNode): boolean {
  return (oldNode.ready === true) !== (newNode.ready === true) || oldNode.zone !== newNode.zone;
}

/**
 * checkNodeTopologyDistribution: SetNodes with the full node list, then the keys of every cached
 * Service that is now overloaded (they are re-queued). Services whose hints are off have no cache
 * entry and are not re-queued. Returns `[]` when there is no cache.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/master/pkg/controller/endpointslice/endpointslice_controller.go (checkNodeTopologyDistribution)
 */
export function checkNodeTopologyDistribution(cache: TopologyCache | null, nodes: readonly TopologyNode[]): string[] {
  if (cache === null) return [];
  cache.setNodes(nodes);
  return cache.getOverloadedServices();
}
