/**
 * Per-Service hint analysis: the mechanism in effect and its lints, what the EndpointSlice
 * controller is expected to write (running the engine on the observed slices as its "unchanged"
 * existing slices, per address type), what the slices actually carry, and the difference.
 *
 * The expected result is the controller's next sync: `reconcileTopologyHints` with a topology
 * cache built from the cluster's nodes for the modelled release. Observed slices that still fit
 * the allocation stay as they are (as upstream keeps valid unchanged slices), so only real drift
 * shows up in the diff. The cache starts without the Service marked "populated", so an enabled
 * outcome carries the `TopologyAwareHintsEnabled` event the controller records on the transition.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/master/staging/src/k8s.io/endpointslice/reconciler.go
 * @see https://github.com/kubernetes/kubernetes/blob/master/staging/src/k8s.io/endpointslice/topologycache/topologycache.go
 */
import type { DataplaneAnalysis } from './analyze-dataplane';
import type { ClusterContext } from '../model/cluster-context';
import type { EndpointSliceRecord, ServiceRecord } from '../model/cluster-model';
import { ENDPOINTSLICE_CONTROLLER_NAME, MINIMUM_FACTOR } from '../upstream/constants';
import type { HintsMechanism } from '../upstream/reconciler';
import { hintsEnabled as annotationRequestsHints } from '../upstream/annotations';
import { canUseTrafficDistribution, reconcileTopologyHints } from '../upstream/reconciler';
import type { MechanismAnalysis, ServiceLint, TopologyAnnotationChange } from './service-mechanism';
import { lintService } from './service-mechanism';
import { sharedAllocationTable, sharedEnableChange, sharedMechanism } from './shared-values';
import type { SliceInfo } from '../upstream/slice-info';
import type { Allocation } from '../upstream/topology-cache';
import { computeAllocationTable, TopologyCache } from '../upstream/topology-cache';
import { sortedKeys, sortStrings } from '../upstream/sorted';
import { UNKNOWN_ZONE } from './traffic';
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

/** Zone-hint counts of ready endpoints (`ready: true`), one per listed zone, sorted by zone. */
export function countHintsByZone(slices: readonly EndpointSlice[]): ValueByZone<number> {
  const counts = new Map<string, number>();
  for (const slice of slices) {
    for (const endpoint of slice.endpoints) {
      const forZones = endpoint.ready === true && endpoint.hints !== null ? endpoint.hints.forZones : undefined;
      if (forZones === undefined) continue;
      for (const zone of forZones) counts.set(zone, (counts.get(zone) ?? 0) + 1);
    }
  }
  return sortedObject(counts);
}

/** A ready endpoint hinted for zones other than its own: it serves another zone's traffic. */
export interface DonatedEndpoint {
  readonly address: string;
  readonly podName: string | null;
  readonly nodeName: string | null;
  readonly fromZone: string;
  readonly toZones: readonly string[];
}

/** Ready endpoints whose zone hints do not include their own zone. */
export function findDonatedEndpoints(slices: readonly EndpointSlice[]): DonatedEndpoint[] {
  const donated: DonatedEndpoint[] = [];
  for (const slice of slices) {
    for (const endpoint of slice.endpoints) {
      const forZones = endpoint.hints?.forZones;
      if (endpoint.ready !== true || endpoint.zone === null || endpoint.zone === '' || !forZones || forZones.length === 0) continue;
      if (forZones.includes(endpoint.zone)) continue;
      donated.push({ address: endpoint.addresses[0] ?? '', podName: endpoint.podName ?? null, nodeName: endpoint.nodeName, fromZone: endpoint.zone, toZones: [...forZones] });
    }
  }
  return donated.sort((a, b) => (a.fromZone === b.fromZone ? compareText(a.address, b.address) : compareText(a.fromZone, b.fromZone)));
}

/** Number of ready endpoints whose zone hints do not include their own zone (`findDonatedEndpoints(slices).length`, without building the list). */
export function countDonatedEndpoints(slices: readonly EndpointSlice[]): number {
  let count = 0;
  for (const slice of slices) {
    for (const endpoint of slice.endpoints) {
      const forZones = endpoint.hints?.forZones;
      if (endpoint.ready !== true || endpoint.zone === null || endpoint.zone === '' || !forZones || forZones.length === 0) continue;
      if (!forZones.includes(endpoint.zone)) count++;
    }
  }
  return count;
}

/** What the controller is expected to leave on the slices. */
export interface ExpectedHints {
  readonly addressType: AddressType;
  /** `false` when the EndpointSlice controller does not manage the Service (no selector). */
  readonly applicable: boolean;
  readonly mechanism: HintsMechanism;
  readonly hintsEnabled: boolean;
  /** The event the release records for this outcome (`null` when none, e.g. before 1.26). */
  readonly event: TopologyEvent | null;
  /** The decision in upstream's words even where no event is recorded. */
  readonly reason: TopologyEvent | null;
  /** minimum / desired / maximum per zone whenever the cluster has CPU ratios (also when they do not fit). */
  readonly allocationsByZone: Readonly<ValueByZone<Allocation>> | null;
  readonly minimumTotal: number | null;
  readonly readyEndpoints: number;
  readonly hintCountsByZone: Readonly<ValueByZone<number>>;
  /** Ready endpoints hinted for another zone than their own. */
  readonly donatedEndpoints: number;
  readonly donated: readonly DonatedEndpoint[];
  /** Slices the controller would rewrite on its next sync. */
  readonly slicesToWrite: number;
  readonly verdict: string;
}

/** What the slices carry now. */
export interface ObservedHints {
  readonly addressType: AddressType;
  readonly slices: number;
  readonly totalEndpoints: number;
  /** Ready endpoints (`ready: true`). */
  readonly readyEndpoints: number;
  /** Endpoints per zone ({@link UNKNOWN_ZONE} for endpoints without zone). */
  readonly endpointsByZone: Readonly<ValueByZone<{ readonly ready: number; readonly notReady: number }>>;
  readonly hintCountsByZone: Readonly<ValueByZone<number>>;
  readonly hintsPresent: boolean;
  /** Ready endpoints without a zone hint; with hints present, kube-proxy then ignores hints altogether. */
  readonly readyEndpointsWithoutHints: number;
  readonly donatedEndpoints: number;
}

/** One endpoint whose hints differ between the slices and the expectation. */
export interface HintsDiffEntry {
  readonly address: string;
  readonly zone: string | null;
  readonly observed: readonly string[] | null;
  readonly expected: readonly string[] | null;
  /** `missing`: expected hints absent; `unexpected`: hints that should not be there; `stale`: different zones. */
  readonly kind: 'missing' | 'unexpected' | 'stale';
}

/** Observed vs expected hints. */
export interface HintsDiff {
  readonly inSync: boolean;
  readonly missing: number;
  readonly unexpected: number;
  readonly stale: number;
  readonly entries: readonly HintsDiffEntry[];
}

/** One row of the per-zone minimum table. */
export interface MinimumTableRow {
  readonly zone: string;
  readonly cpuRatio: number;
  /** Ready endpoints located in the zone. */
  readonly readyEndpoints: number;
  readonly minimum: number;
  readonly desired: number;
  readonly maximum: number;
  /** `ceil(11 × 0.3333 / 1.2) = ceil(3.0556) = 4`. */
  readonly formula: string;
  /** Whether the zone holds at least its minimum itself (if not, other zones donate). */
  readonly meetsMinimum: boolean;
}

/** The per-zone minimum table with the sum check. */
export interface MinimumTable {
  readonly formula: string;
  readonly readyEndpoints: number;
  readonly rows: readonly MinimumTableRow[];
  readonly minimumTotal: number;
  /** Σ minimum ≤ ready endpoints (and at least as many endpoints as zones). */
  readonly fits: boolean;
  /** `4 + 4 + 4 = 12 > 11 ready endpoints → hints off`. */
  readonly sumCheck: string;
  /** Set when floating point gives a different minimum than exact arithmetic would. */
  readonly floatNote: string | null;
}

/** One endpoint on the Service's zone map. */
export interface EndpointView {
  readonly address: string;
  readonly podName: string | null;
  readonly nodeName: string | null;
  readonly zone: string | null;
  readonly ready: boolean | null;
  readonly serving: boolean | null;
  readonly terminating: boolean | null;
  readonly observedHints: readonly string[] | null;
  readonly expectedHints: readonly string[] | null;
  /** Expected zone hint when it is not the endpoint's own zone. */
  readonly donatedTo: string | null;
}

/** What enabling topology mode would do. */
export interface IfAutoPrediction {
  readonly change: TopologyAnnotationChange;
  readonly hintsEnabled: boolean;
  readonly event: TopologyEvent | null;
  readonly reason: TopologyEvent | null;
  readonly hintCountsByZone: Readonly<ValueByZone<number>>;
  readonly donatedEndpoints: number;
}

/** Expected and observed state for one address type. */
export interface AddressTypeAnalysis {
  readonly addressType: AddressType;
  readonly expected: ExpectedHints;
  readonly observed: ObservedHints;
  readonly diff: HintsDiff;
}

/** Result of {@link analyzeServiceHints} (plain data). */
export interface ServiceHintsAnalysis {
  readonly mechanism: MechanismAnalysis;
  readonly lints: readonly ServiceLint[];
  readonly primaryAddressType: AddressType;
  /** Primary address type first. */
  readonly byAddressType: readonly AddressTypeAnalysis[];
  readonly expected: ExpectedHints;
  readonly observed: ObservedHints;
  readonly diff: HintsDiff;
  readonly ifAuto: IfAutoPrediction;
  readonly minimumTable: MinimumTable | null;
  readonly endpoints: readonly EndpointView[];
}

/** Slices of the primary address type in each state, for the traffic model and fixes (not JSON output). */
export interface ServiceHintSlices {
  readonly addressType: AddressType;
  readonly observed: readonly EndpointSliceRecord[];
  /** Slices the EndpointSlice controller manages (the engine's input). */
  readonly managed: readonly EndpointSlice[];
  readonly expected: readonly EndpointSlice[];
  readonly ifAuto: readonly EndpointSlice[];
  readonly ifAutoResult: HintsEngineResult;
}

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function sortedObject<T>(map: Map<string, T>): ValueByZone<T> {
  const out: ValueByZone<T> = {};
  for (const key of sortStrings([...map.keys()])) out[key] = map.get(key) as T;
  return out;
}

/** Whether the EndpointSlice controller manages a slice (its managed-by label, absent counts as managed). */
export function isControllerManaged(slice: EndpointSliceRecord): boolean {
  return slice.managedBy === null || slice.managedBy === ENDPOINTSLICE_CONTROLLER_NAME;
}

function observe(addressType: AddressType, slices: readonly EndpointSlice[]): ObservedHints {
  const byZone = new Map<string, { ready: number; notReady: number }>();
  let totalEndpoints = 0;
  let readyEndpoints = 0;
  let hintsPresent = false;
  let readyWithoutHints = 0;
  for (const slice of slices) {
    for (const endpoint of slice.endpoints) {
      totalEndpoints++;
      const zone = endpoint.zone === null || endpoint.zone === '' ? UNKNOWN_ZONE : endpoint.zone;
      const tally = byZone.get(zone) ?? { ready: 0, notReady: 0 };
      if (endpoint.ready === true) {
        tally.ready++;
        readyEndpoints++;
        if (!endpoint.hints?.forZones || endpoint.hints.forZones.length === 0) readyWithoutHints++;
      } else {
        tally.notReady++;
      }
      byZone.set(zone, tally);
      if (endpoint.hints !== null && ((endpoint.hints.forZones?.length ?? 0) > 0 || (endpoint.hints.forNodes?.length ?? 0) > 0)) hintsPresent = true;
    }
  }
  return {
    addressType,
    slices: slices.length,
    totalEndpoints,
    readyEndpoints,
    endpointsByZone: sortedObject(byZone),
    hintCountsByZone: countHintsByZone(slices),
    hintsPresent,
    readyEndpointsWithoutHints: hintsPresent ? readyWithoutHints : readyEndpoints,
    donatedEndpoints: countDonatedEndpoints(slices),
  };
}

function hintsByAddress(slices: readonly EndpointSlice[]): Map<string, readonly string[] | null> {
  const map = new Map<string, readonly string[] | null>();
  for (const slice of slices) {
    for (const endpoint of slice.endpoints) {
      const address = endpoint.addresses[0];
      if (address === undefined) continue;
      const zones = endpoint.hints?.forZones;
      map.set(address, zones && zones.length > 0 ? zones : null);
    }
  }
  return map;
}

function sameZones(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  const sortedA = [...a].sort();
  const sortedB = [...b].sort();
  return sortedA.every((zone, i) => zone === sortedB[i]);
}

/** Compares zone hints endpoint by endpoint (by first address). */
export function diffHints(observed: readonly EndpointSlice[], expected: readonly EndpointSlice[]): HintsDiff {
  const expectedHints = hintsByAddress(expected);
  const entries: HintsDiffEntry[] = [];
  for (const slice of observed) {
    for (const endpoint of slice.endpoints) {
      const address = endpoint.addresses[0];
      if (address === undefined || !expectedHints.has(address)) continue;
      const obs = endpoint.hints?.forZones && endpoint.hints.forZones.length > 0 ? endpoint.hints.forZones : null;
      const exp = expectedHints.get(address) ?? null;
      let kind: HintsDiffEntry['kind'] | null = null;
      if (obs === null && exp !== null) kind = 'missing';
      else if (obs !== null && exp === null) kind = 'unexpected';
      else if (obs !== null && exp !== null && !sameZones(obs, exp)) kind = 'stale';
      if (kind) entries.push({ address, zone: endpoint.zone, observed: obs, expected: exp, kind });
    }
  }
  entries.sort((a, b) => compareText(a.address, b.address));
  const count = (kind: HintsDiffEntry['kind']) => entries.filter((e) => e.kind === kind).length;
  return { inSync: entries.length === 0, missing: count('missing'), unexpected: count('unexpected'), stale: count('stale'), entries };
}

function trimNumber(value: number, digits = 4): string {
  return String(Number(value.toFixed(digits)));
}

/**
 * The per-zone minimum table for `readyEndpoints` endpoints: `minimum = ceil(total × cpuRatio / 1.2)`
 * per zone with the arithmetic spelled out, and the sum check that decides whether hints can be on.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/master/staging/src/k8s.io/endpointslice/topologycache/topologycache.go (getAllocations)
 */
export function buildMinimumTable(
  cpuRatiosByZone: Readonly<ValueByZone<number>>,
  readyEndpoints: number,
  readyByZone: Readonly<ValueByZone<number>>,
): MinimumTable {
  const { allocations, minimumTotal } = computeAllocationTable(cpuRatiosByZone, readyEndpoints);
  const zones = sortedKeys(allocations);
  const floatZones: string[] = [];
  const rows: MinimumTableRow[] = zones.map((zone) => {
    const allocation = allocations[zone] as Allocation;
    const ratio = cpuRatiosByZone[zone] ?? 0;
    const product = ratio * readyEndpoints * MINIMUM_FACTOR;
    // Exact arithmetic would land on a whole number here; the double lands just above it.
    const nearest = Math.round(product);
    if (Math.abs(product - nearest) < 1e-9 && nearest !== allocation.minimum) floatZones.push(`${zone} (${allocation.minimum} instead of ${nearest})`);
    const inZone = readyByZone[zone] ?? 0;
    return {
      zone,
      cpuRatio: ratio,
      readyEndpoints: inZone,
      minimum: allocation.minimum,
      desired: allocation.desired,
      maximum: allocation.maximum,
      formula: `ceil(${readyEndpoints} × ${trimNumber(ratio)} / 1.2) = ceil(${trimNumber(product)}) = ${allocation.minimum}`,
      meetsMinimum: inZone >= allocation.minimum,
    };
  });
  const fits = zones.length >= 2 && zones.length <= readyEndpoints && minimumTotal <= readyEndpoints;
  const sumCheck = minimumSumCheck(allocations, minimumTotal, readyEndpoints);
  return {
    formula: 'minimum = ceil(total ready endpoints × zone CPU ratio / 1.2); Σ minimum must not exceed the total',
    readyEndpoints,
    rows,
    minimumTotal,
    fits,
    sumCheck,
    floatNote:
      floatZones.length > 0
        ? `Upstream multiplies by 1/1.2 = 0.8333333333333334 in floating point, which rounds up differently from exact division for ${floatZones.join(', ')}.`
        : null,
  };
}

/** The sum check line of {@link buildMinimumTable} (`4 + 4 + 4 = 12 > 11 ready endpoints → hints off`). */
function minimumSumCheck(allocations: Readonly<ValueByZone<Allocation>>, minimumTotal: number, readyEndpoints: number): string {
  const zones = sortedKeys(allocations);
  if (zones.length > readyEndpoints) return `${readyEndpoints} ready endpoints < ${zones.length} zones → hints off`;
  const sum = `${zones.map((zone) => (allocations[zone] as Allocation).minimum).join(' + ')} = ${minimumTotal}`;
  return `${sum} ${minimumTotal <= readyEndpoints ? '≤' : '>'} ${readyEndpoints} ready endpoints → hints ${minimumTotal <= readyEndpoints ? 'can be on' : 'off'}`;
}

function readyByZoneOf(slices: readonly EndpointSlice[]): ValueByZone<number> {
  const map = new Map<string, number>();
  for (const slice of slices) for (const e of slice.endpoints) if (e.ready === true && e.zone) map.set(e.zone, (map.get(e.zone) ?? 0) + 1);
  return sortedObject(map);
}

/**
 * Why the EndpointSlice controller has nothing to do with a Service, in one sentence; `null` when
 * it manages the Service. ExternalName Services are a DNS CNAME: kube-proxy does not route them
 * and no EndpointSlice exists. Selector-less Services get slices from whoever writes them (the
 * `endpointslice.kubernetes.io/managed-by` values seen are named); the controller writes no hints.
 */
export function notManagedExplanation(service: ServiceRecord, slices: readonly EndpointSliceRecord[]): string | null {
  if (service.type === 'ExternalName') {
    return 'ExternalName: a DNS CNAME answered by cluster DNS. kube-proxy does not route it and it has no EndpointSlices, so topology routing does not apply.';
  }
  if (service.selector !== null) return null;
  const owners = sortStrings([...new Set(slices.map((s) => s.managedBy ?? '(no managed-by label)'))]);
  const seen =
    slices.length === 0
      ? 'no EndpointSlice exists for it yet'
      : `its EndpointSlices are written by ${owners.map((o) => (o.startsWith('(') ? o : `endpointslice.kubernetes.io/managed-by: ${o}`)).join(', ')}`;
  // The mirroring controller copies a hand-written Endpoints object, which cannot carry hints.
  if (owners.length === 1 && owners[0] === ENDPOINTSLICE_MIRRORING_CONTROLLER_NAME) {
    return `No selector: ${seen}, mirrored from a hand-written Endpoints object, which has no hints. The EndpointSlice controller does not write hints for it, so topology routing does not apply.`;
  }
  return `No selector: ${seen}. The EndpointSlice controller does not write hints for it; only that writer can.`;
}

/** `endpointslice.kubernetes.io/managed-by` of the EndpointSlice mirroring controller (slices mirrored from Endpoints). */
const ENDPOINTSLICE_MIRRORING_CONTROLLER_NAME = 'endpointslicemirroring-controller.k8s.io';

function verdictFor(engine: HintsEngineResult | null, mechanism: MechanismAnalysis, donated: number, sumCheck: () => string | null, notManaged: string | null): string {
  if (engine === null) return notManaged ?? 'Not managed by the EndpointSlice controller.';
  if (engine.mechanism === 'topologyAnnotation') {
    if (!engine.hintsEnabled) return `Hints off: ${engine.reason?.message ?? 'the Auto heuristic could not allocate endpoints'}.`;
    const check = sumCheck();
    const sum = check !== null ? ` (${check.replace(/ → .*/, '')})` : '';
    return `Hints on${sum}${donated > 0 ? `; ${donated} endpoint${donated === 1 ? ' is' : 's are'} donated to other zones, so some traffic still crosses zones` : ''}.`;
  }
  if (mechanism.mechanism === 'trafficDistribution') {
    return engine.hintsEnabled ? `Hints on via trafficDistribution ${mechanism.trafficDistribution}: each ready endpoint serves its own zone.` : 'trafficDistribution sets no hints (no ready endpoint with a zone).';
  }
  return 'No hints: nothing asks for them, so kube-proxy spreads traffic over every ready endpoint.';
}

function addressTypesOf(service: ServiceRecord, slices: readonly EndpointSliceRecord[]): AddressType[] {
  const present = new Set<AddressType>();
  for (const slice of slices) if (slice.addressType !== 'FQDN') present.add(slice.addressType);
  const families = service.ipFamilies.filter((f): f is AddressType => f === 'IPv4' || f === 'IPv6');
  const ordered: AddressType[] = [];
  for (const family of families) if (present.has(family) && !ordered.includes(family)) ordered.push(family);
  for (const family of ['IPv4', 'IPv6'] as const) if (present.has(family) && !ordered.includes(family)) ordered.push(family);
  if (ordered.length === 0) ordered.push(families[0] ?? 'IPv4');
  return ordered;
}

/**
 * The lints of one Service ({@link ServiceHintsAnalysis.lints}); `readyEndpoints` are the ready
 * endpoints observed for its primary address type. Lints name the Service (their fix commands), so
 * they are never shared between Services.
 */
export function serviceLints(
  context: ClusterContext,
  dataplane: Pick<DataplaneAnalysis, 'honoursHints' | 'honoursHintsReason'>,
  service: ServiceRecord,
  mechanism: MechanismAnalysis,
  readyEndpoints: number,
  slices: readonly EndpointSliceRecord[],
): ServiceLint[] {
  const ratios = context.cpuRatiosByZone;
  return lintService(service, mechanism, {
    minor: context.release.minor,
    gates: context.gates,
    topologyCacheEnabled: context.topologyCacheEnabled,
    dataplane,
    readyEndpoints,
    zoneCount: ratios ? Object.keys(ratios).length : 0,
    hasForeignSlices: slices.some((s) => !isControllerManaged(s)),
  });
}

/**
 * How much {@link analyzeServiceHints} builds: `true` everything; `false` everything but the endpoint
 * zone map; `'report'` only what a cluster-wide report keeps — no zone map, no per-zone minimum
 * table (`minimumTable: null`) and no donated-endpoint lists (`donated: []`; the counts stay).
 */
export type ServiceHintsDetail = boolean | 'report';

/**
 * Mechanism, lints, expected and observed hints, their diff, the "if Auto" prediction, the
 * per-zone minimum table and (with `withDetail`) the endpoint zone map of one Service.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/master/staging/src/k8s.io/endpointslice/reconciler.go
 */
export function analyzeServiceHints(
  context: ClusterContext,
  dataplane: Pick<DataplaneAnalysis, 'honoursHints' | 'honoursHintsReason'>,
  service: ServiceRecord,
  slices: readonly EndpointSliceRecord[],
  withDetail: ServiceHintsDetail = true,
): { analysis: ServiceHintsAnalysis; slices: ServiceHintSlices } {
  const reportOnly = withDetail === 'report';
  const { minor } = context.release;
  const key = `${service.namespace}/${service.name}`;
  const mechanism = sharedMechanism(context, service);
  const applicable = service.selector !== null && service.type !== 'ExternalName';
  const ratios = context.cpuRatiosByZone;
  const change = sharedEnableChange(context, service.annotations);
  const engineBase = { serviceKey: key, cpuRatiosByZone: ratios, minor, gates: context.gates, topologyCacheEnabled: context.topologyCacheEnabled };

  // 1. Per address type: observed, expected (engine on the observed slices), diff.
  const byAddressType: AddressTypeAnalysis[] = [];
  const minimumTables: (MinimumTable | null)[] = [];
  let primarySlices: ServiceHintSlices | null = null;
  for (const addressType of addressTypesOf(service, slices)) {
    const typed = slices.filter((s) => s.addressType === addressType);
    const managed = typed.filter(isControllerManaged);
    const observed = observe(addressType, typed);
    const allManaged = managed.length === typed.length;
    const engine = applicable
      ? runHintsEngine({ ...engineBase, annotations: service.annotations, trafficDistribution: service.trafficDistribution, addressType, unchanged: managed })
      : null;
    const sameAsAuto = engine !== null && mechanism.annotationActive && change.remove.length === 0;
    const expectedSlices = engine ? [...engine.slices, ...typed.filter((s) => !isControllerManaged(s))] : typed;
    const ready = allManaged ? observed.readyEndpoints : observe(addressType, managed).readyEndpoints;
    const table = ratios ? sharedAllocationTable(context, ratios, ready) : null;
    const donated = reportOnly ? [] : findDonatedEndpoints(expectedSlices);
    const donatedCount = reportOnly ? countDonatedEndpoints(expectedSlices) : donated.length;
    const minimumTable = ratios && !reportOnly ? buildMinimumTable(ratios, ready, readyByZoneOf(managed)) : null;
    if (minimumTables.length === 0) minimumTables.push(minimumTable);
    // buildMinimumTable(ratios, ready, …).sumCheck, computed from the same allocation table.
    const sumCheck = () => (minimumTable ? minimumTable.sumCheck : table ? minimumSumCheck(table.allocations, table.minimumTotal, ready) : null);
    const expected: ExpectedHints = {
      addressType,
      applicable,
      mechanism: engine?.mechanism ?? 'none',
      hintsEnabled: engine ? engine.hintsEnabled : observed.hintsPresent,
      event: engine?.event ?? null,
      reason: engine?.reason ?? null,
      allocationsByZone: table?.allocations ?? null,
      minimumTotal: table?.minimumTotal ?? null,
      readyEndpoints: ready,
      hintCountsByZone: countHintsByZone(expectedSlices),
      donatedEndpoints: donatedCount,
      donated,
      slicesToWrite: engine?.slicesToWrite ?? 0,
      verdict: verdictFor(engine, mechanism, donatedCount, sumCheck, applicable ? null : notManagedExplanation(service, typed)),
    };
    // A sync that writes nothing leaves every hint as observed.
    const diff = engine && engine.slicesToWrite > 0 ? diffHints(typed, expectedSlices) : { inSync: true, missing: 0, unexpected: 0, stale: 0, entries: [] };
    byAddressType.push({ addressType, expected, observed, diff });
    if (primarySlices === null) {
      const ifAutoResult = sameAsAuto
        ? engine
        : applicable
        ? runHintsEngine({ ...engineBase, annotations: change.annotations, trafficDistribution: service.trafficDistribution, addressType, unchanged: managed })
        : (engine ?? runHintsEngine({ ...engineBase, annotations: change.annotations, trafficDistribution: null, addressType, unchanged: [] }));
      primarySlices = {
        addressType,
        observed: typed,
        managed,
        expected: expectedSlices,
        ifAuto: applicable ? [...ifAutoResult.slices, ...typed.filter((s) => !isControllerManaged(s))] : typed,
        ifAutoResult,
      };
    }
  }
  const primary = byAddressType[0] as AddressTypeAnalysis;
  const sliceState = primarySlices as ServiceHintSlices;

  // 2. Prediction for the toggle.
  const ifAuto: IfAutoPrediction = {
    change,
    hintsEnabled: applicable && sliceState.ifAutoResult.hintsEnabled,
    event: applicable ? sliceState.ifAutoResult.event : null,
    reason: applicable ? sliceState.ifAutoResult.reason : null,
    hintCountsByZone: countHintsByZone(sliceState.ifAuto),
    donatedEndpoints: countDonatedEndpoints(sliceState.ifAuto),
  };

  // 3. Zone map of the primary address type's endpoints (detail only).
  const zoneMap = withDetail === true;
  const expectedByAddress = zoneMap ? hintsByAddress(sliceState.expected) : new Map<string, readonly string[] | null>();
  const endpoints: EndpointView[] = [];
  const seen = new Set<string>();
  for (const slice of zoneMap ? sliceState.observed : []) {
    for (const endpoint of slice.endpoints) {
      const address = endpoint.addresses[0];
      if (address === undefined || seen.has(address)) continue;
      seen.add(address);
      const expectedHints = expectedByAddress.get(address) ?? null;
      const own = endpoint.zone;
      const foreign = expectedHints?.find((zone) => zone !== own) ?? null;
      endpoints.push({
        address,
        podName: endpoint.podName ?? null,
        nodeName: endpoint.nodeName,
        zone: own,
        ready: endpoint.ready,
        serving: endpoint.serving ?? null,
        terminating: endpoint.terminating ?? null,
        observedHints: endpoint.hints?.forZones && endpoint.hints.forZones.length > 0 ? endpoint.hints.forZones : null,
        expectedHints,
        donatedTo: expectedHints !== null && own !== null && !expectedHints.includes(own) ? foreign : null,
      });
    }
  }
  endpoints.sort((a, b) => compareText(a.zone ?? '\uffff', b.zone ?? '\uffff') || compareText(a.address, b.address));

  // 4. Lints.
  const lints = serviceLints(context, dataplane, service, mechanism, primary.observed.readyEndpoints, slices);

  return {
    analysis: {
      mechanism,
      lints,
      primaryAddressType: primary.addressType,
      byAddressType,
      expected: primary.expected,
      observed: primary.observed,
      diff: primary.diff,
      ifAuto,
      minimumTable: minimumTables[0] ?? null,
      endpoints,
    },
    slices: sliceState,
  };
}
