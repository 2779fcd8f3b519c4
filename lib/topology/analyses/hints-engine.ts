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
import { getTotalReadyEndpoints, isEndpointReady } from '../upstream/slice-info';
import { getGivingAndReceivingZones, getHintsByZone } from '../upstream/topology-cache-utils';
import type { Allocation, AllocationResult } from '../upstream/topology-cache';
import { getAllocations, TopologyCache } from '../upstream/topology-cache';
import { memoOnObject } from '../model/object-memo';
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
  // Kept only for existing slices alone, on releases whose runs read the CPU ratios only in the Auto path's allocations (1.26+).
  if (input.minor < 26 || (input.toCreate?.length ?? 0) > 0) return syncOnce(input);
  const runs = memoOnObject(KEPT_RUNS, input.unchanged, () => new Map<string, KeptRun>());
  const key = `${input.minor}|${gatesId(input.gates)}|${input.topologyCacheEnabled ? 1 : 0}|${input.addressType}|${annotationRequestsHints(input.annotations, input.minor) ? 1 : 0}|${input.trafficDistribution ?? '\u0000'}|${input.serviceKey}`;
  const kept = runs.get(key);
  let allocation: string | undefined;
  if (kept !== undefined) {
    if (kept.allocation === null) return kept.result;
    allocation = allocationSignature(input);
    if (allocation === kept.allocation && (kept.plan === null || kept.plan === planSignature(input, allocation))) return kept.result;
  }
  const result = syncOnce(input);
  if (result.mechanism !== 'topologyAnnotation') keep(runs, key, { result, allocation: null, plan: null });
  else {
    allocation ??= allocationSignature(input);
    // A run that rewrote slices read the giving and receiving plans too (made from the desired shares).
    const plan = result.slicesToWrite === 0 || !allocation.startsWith('ok') ? null : planSignature(input, allocation);
    keep(runs, key, { result, allocation, plan });
  }
  return result;
}

/**
 * A run kept for its unchanged slices (see {@link KEPT_RUNS}): `allocation` is the
 * {@link allocationSignature} it was made under (`null`: a path that does not read the CPU ratios),
 * `plan` the {@link planSignature} of a run that rewrote slices (`null`: one that wrote none).
 */
interface KeptRun {
  readonly result: HintsEngineResult;
  readonly allocation: string | null;
  readonly plan: string | null;
}

/**
 * Runs by the list of unchanged slices (a Service's own, as the index holds it), then by what else
 * they read: the release, the gates, whether the annotation asks for Auto, the trafficDistribution
 * field, the address type and the Service. A Node change moves the CPU ratios, which only the Auto
 * path reads, through its allocations: a run of that path that kept every slice as it was read
 * only their zones and maximums (the validation of existing hints), and one that turned hints off
 * only its message; that is {@link allocationSignature}, and a run is given back under the same
 * one. An Auto run that rewrites slices also reads the desired shares, through the whole endpoints
 * each zone gives or receives: it is given back when those plans are the same too
 * ({@link planSignature}; a Node change rarely moves them).
 */
const KEPT_RUNS = new WeakMap<readonly EndpointSlice[], Map<string, KeptRun>>();

/** Runs {@link KEPT_RUNS} keeps per slice list before it starts over (a list meets few keys). */
const RUNS_PER_LIST = 16;

function keep(runs: Map<string, KeptRun>, key: string, run: KeptRun): void {
  if (runs.size >= RUNS_PER_LIST) runs.clear();
  runs.set(key, run);
}

const GATE_IDS = new WeakMap<FeatureGates, number>();
let nextGateId = 0;

/** A number per gates object (contexts share one per release and gate values: model/cluster-context.ts). */
function gatesId(gates: FeatureGates): number {
  return memoOnObject(GATE_IDS, gates, () => nextGateId++);
}

/** Ready endpoints of a slice list as the allocation counts them, by list and release. */
const READY_TOTALS = new WeakMap<readonly EndpointSlice[], Map<KubeMinor, number>>();

/** Ready endpoints of `input.unchanged` as the allocation counts them (see {@link READY_TOTALS}). */
function readyTotal(input: HintsEngineInput): number {
  const totals = memoOnObject(READY_TOTALS, input.unchanged, () => new Map<KubeMinor, number>());
  let total = totals.get(input.minor);
  if (total === undefined) {
    total = getTotalReadyEndpoints({ toCreate: [], toUpdate: [], unchanged: input.unchanged }, input.minor).totalReadyEndpoints;
    totals.set(input.minor, total);
  }
  return total;
}

/**
 * What the Auto path of a run over `input.unchanged` alone reads of the CPU ratios when it keeps
 * every slice: whether the allocation succeeds and, if so, each zone with its maximum (`ok|…`),
 * else the message it turns hints off with (`no|…`).
 */
function allocationSignature(input: HintsEngineInput): string {
  const allocation = getAllocations(input.cpuRatiosByZone, readyTotal(input));
  // getAllocations gives one outcome object per ratios and count: its signature is spelled once.
  let signature = SIGNATURES.get(allocation);
  if (signature === undefined) {
    if (!allocation.ok) signature = `no|${allocation.event.message}`;
    else {
      signature = 'ok';
      for (const zone in allocation.allocations) signature += `|${zone}\u0000${(allocation.allocations[zone] as Allocation).maximum}`;
    }
    SIGNATURES.set(allocation, signature);
  }
  return signature;
}

/**
 * What an Auto run over `input.unchanged` alone that rewrites slices reads of the desired shares:
 * the whole endpoints each zone gives and receives (`getGivingAndReceivingZones` of the allocation
 * and the hint counts after addHints' steps 2–3, see {@link ownZoneCounts}), zones in sorted order;
 * `zoneless` when a ready endpoint to hint has no zone (the run then turns hints off before any
 * plan). `allocation` is the run's {@link allocationSignature} (`ok|…`).
 */
function planSignature(input: HintsEngineInput, allocation: string): string {
  const outcome = getAllocations(input.cpuRatiosByZone, readyTotal(input));
  if (!outcome.ok) return allocation;
  const counts = ownZoneCounts(input, allocation, outcome.allocations);
  if (counts === null) return 'zoneless';
  const { givingZones, receivingZones } = getGivingAndReceivingZones(outcome.allocations, counts);
  let signature = '';
  for (const zone in givingZones) signature += `${zone}\u0000${givingZones[zone] as number}\u0001`;
  signature += '|';
  for (const zone in receivingZones) signature += `${zone}\u0000${receivingZones[zone] as number}\u0001`;
  return signature;
}

/**
 * The hint counts by zone of addHints after its steps 2–3 on `input.unchanged` alone: each slice
 * whose hints still fit the allocation (`getHintsByZone`, against the counts so far, in order) adds
 * its hints; every other slice is rewritten, each ready endpoint hinted for its own zone. `null`
 * when such an endpoint has no zone. It reads `allocations`' zones and maximums only, so it is
 * kept by slice list, release and {@link allocationSignature} (`allocation`).
 */
function ownZoneCounts(input: HintsEngineInput, allocation: string, allocations: Readonly<ValueByZone<Allocation>>): ReadonlyMap<string, number> | null {
  const byKey = memoOnObject(OWN_ZONE_COUNTS, input.unchanged, () => new Map<string, ReadonlyMap<string, number> | null>());
  const key = `${input.minor}|${allocation}`;
  const known = byKey.get(key);
  if (known !== undefined) return known;
  const counts = new Map<string, number>();
  const rewritten: EndpointSlice[] = [];
  for (const slice of input.unchanged) {
    const hints = getHintsByZone(slice, Object.fromEntries(counts), allocations, input.minor);
    if (hints === null) rewritten.push(slice);
    else for (const zone in hints) counts.set(zone, (counts.get(zone) ?? 0) + (hints[zone] as number));
  }
  let result: ReadonlyMap<string, number> | null = counts;
  for (const slice of rewritten) {
    for (const endpoint of slice.endpoints) {
      if (!isEndpointReady(endpoint, input.minor)) continue;
      if (endpoint.zone === null || endpoint.zone === '') {
        result = null;
        break;
      }
      counts.set(endpoint.zone, (counts.get(endpoint.zone) ?? 0) + 1);
    }
    if (result === null) break;
  }
  if (byKey.size >= RUNS_PER_LIST) byKey.clear();
  byKey.set(key, result);
  return result;
}

/** {@link ownZoneCounts} by slice list, then release and allocation signature. */
const OWN_ZONE_COUNTS = new WeakMap<readonly EndpointSlice[], Map<string, ReadonlyMap<string, number> | null>>();

/** {@link allocationSignature}s by allocation outcome. */
const SIGNATURES = new WeakMap<AllocationResult, string>();

/** {@link runHintsEngine} worked out. */
function syncOnce(input: HintsEngineInput): HintsEngineResult {
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
