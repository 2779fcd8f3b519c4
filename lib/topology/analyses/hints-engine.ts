/**
 * One controller sync of the hint step for a Service and address type: `reconcileTopologyHints`
 * with a fresh topology cache built from the cluster's CPU ratios for the modelled release. Observed
 * slices passed as the controller's "unchanged" list that still fit the allocation stay as they are
 * (as upstream keeps valid unchanged slices). The cache starts without the Service marked
 * "populated", so an enabled outcome carries the `TopologyAwareHintsEnabled` event the controller
 * records on the transition; releases before 1.26, which record no events, are given the 1.26
 * wording of the same decision.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/master/staging/src/k8s.io/endpointslice/reconciler.go
 */
import { hintsEnabled as annotationRequestsHints } from '../upstream/annotations';
import type { HintsMechanism } from '../upstream/reconciler';
import { canUseTrafficDistribution, reconcileTopologyHints } from '../upstream/reconciler';
import type { SliceInfo } from '../upstream/slice-info';
import { TopologyCache } from '../upstream/topology-cache';
import type { AddressType, EndpointSlice, TopologyEvent, ValueByZone } from '../upstream/types';
import type { FeatureGates, KubeMinor } from '../upstream/version';

/** Input of {@link runHintsEngine}. */
export interface HintsEngineInput {
  readonly serviceKey: string;
  readonly annotations: Readonly<Record<string, string>>;
  readonly trafficDistribution: string | null;
  readonly addressType: AddressType;
  /** Existing slices (the controller's "unchanged" list). */
  readonly unchanged: readonly EndpointSlice[];
  /** Slices being created (e.g. for simulated extra endpoints). */
  readonly toCreate?: readonly EndpointSlice[];
  readonly cpuRatiosByZone: Readonly<ValueByZone<number>> | null;
  readonly minor: KubeMinor;
  readonly gates: FeatureGates;
  readonly topologyCacheEnabled: boolean;
}

/** Result of {@link runHintsEngine}. */
export interface HintsEngineResult {
  readonly mechanism: HintsMechanism;
  readonly hintsEnabled: boolean;
  readonly autoOutcome: 'enabled' | 'disabled' | null;
  /** Events the release records (none before 1.26). */
  readonly events: readonly TopologyEvent[];
  /** The Warning event if any, else the first event; `null` when none is recorded. */
  readonly event: TopologyEvent | null;
  /** The event describing the outcome even where the release records none (1.26 wording). */
  readonly reason: TopologyEvent | null;
  /** Every slice after the sync (unchanged ones, then updated, then created). */
  readonly slices: readonly EndpointSlice[];
  /** Slices the controller would write. */
  readonly slicesToWrite: number;
}

/** A fresh topology cache holding `ratios`, as the controller's is after SetNodes. */
function engineCache(minor: KubeMinor, ratios: Readonly<ValueByZone<number>> | null): TopologyCache {
  const cache = new TopologyCache(minor);
  cache.setCpuRatiosByZone(ratios);
  return cache;
}

/** Whether any endpoint of the slice carries hints (module-level helpers: these run for every Service). */
function hasAnyHints(slice: EndpointSlice): boolean {
  return slice.endpoints.some((e) => e.hints !== null);
}

function pickEvent(events: readonly TopologyEvent[]): TopologyEvent | null {
  return events.find((e) => e.type === 'Warning') ?? events[0] ?? null;
}

/**
 * One controller sync of the hint step for a Service and address type, on a fresh topology cache
 * holding the given CPU ratios (`null` ratios reproduce "Insufficient Node information").
 *
 * @see https://github.com/kubernetes/kubernetes/blob/master/staging/src/k8s.io/endpointslice/reconciler.go (reconcileByAddressType)
 */
export function runHintsEngine(input: HintsEngineInput): HintsEngineResult {
  const info: SliceInfo = { serviceKey: input.serviceKey, addressType: input.addressType, toCreate: input.toCreate ?? [], toUpdate: [], unchanged: input.unchanged };
  const service = { key: input.serviceKey, annotations: input.annotations, trafficDistribution: input.trafficDistribution };
  // Nothing requests hints and no slice carries any: the sync leaves every slice as it is.
  const hasHints = info.toCreate.some(hasAnyHints) || info.unchanged.some(hasAnyHints);
  if (!hasHints && !annotationRequestsHints(input.annotations, input.minor) && !canUseTrafficDistribution(service, input.minor, input.gates)) {
    const slices = [...info.unchanged, ...info.toCreate];
    return { mechanism: 'none', hintsEnabled: false, autoOutcome: null, events: [], event: null, reason: null, slices, slicesToWrite: info.toCreate.length };
  }
  const result = reconcileTopologyHints(service, info, input.topologyCacheEnabled ? engineCache(input.minor, input.cpuRatiosByZone) : null, input.minor, input.gates);
  const slices = [...result.unchanged, ...result.toUpdate, ...result.toCreate];
  let hintsEnabled: boolean;
  if (result.mechanism === 'topologyAnnotation') hintsEnabled = result.autoOutcome === 'enabled';
  else if (result.mechanism === 'trafficDistribution') hintsEnabled = slices.some((s) => s.endpoints.some((e) => e.ready === true && e.hints !== null));
  else hintsEnabled = false;
  const event = pickEvent(result.events);
  let reason = event;
  if (reason === null && result.mechanism === 'topologyAnnotation' && input.minor < 26) {
    // Releases before 1.26 decide silently; the 1.26 run names the same decision.
    reason = pickEvent(engineCache(26, input.cpuRatiosByZone).addHints(info).events);
  }
  return {
    mechanism: result.mechanism,
    hintsEnabled,
    autoOutcome: result.autoOutcome,
    events: result.events,
    event,
    reason,
    slices,
    slicesToWrite: result.toCreate.length + result.toUpdate.length,
  };
}
