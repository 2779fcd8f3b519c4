/**
 * Per-Service hint analysis: the mechanism in effect and its lints, what the EndpointSlice
 * controller is expected to write (running the engine on the observed slices as its "unchanged"
 * existing slices, per address type), what the slices actually carry, and the difference.
 *
 * The expected result is the controller's next sync (hints-engine.ts) on the observed slices:
 * observed slices that still fit the allocation stay as they are, so only real drift shows up in
 * the diff. The parts: what the slices carry (observed-hints.ts), the diff (hints-diff.ts), the
 * per-zone minimum table (minimum-table.ts), and which slices the controller manages
 * (managed-slices.ts).
 *
 * @see https://github.com/kubernetes/kubernetes/blob/master/staging/src/k8s.io/endpointslice/reconciler.go
 * @see https://github.com/kubernetes/kubernetes/blob/master/staging/src/k8s.io/endpointslice/topologycache/topologycache.go
 */
import type { DataplaneAnalysis } from './analyze-dataplane';
import type { ClusterContext } from '../model/cluster-context';
import type { EndpointSliceRecord, ServiceRecord } from '../model/cluster-model';
import type { HintsEngineInput, HintsEngineResult } from './hints-engine';
import { runHintsEngine } from './hints-engine';
import type { HintsDiff } from './hints-diff';
import { diffHints, hintsByAddress } from './hints-diff';
import { isControllerManaged, notManagedExplanation } from './managed-slices';
import type { MinimumTable } from './minimum-table';
import { buildMinimumTable, minimumSumCheck } from './minimum-table';
import type { DonatedEndpoint, ObservedHints } from './observed-hints';
import { countDonatedEndpoints, countHintsByZone, findDonatedEndpoints, observeHints } from './observed-hints';
import type { HintsMechanism } from '../upstream/reconciler';
import type { MechanismAnalysis, ServiceLint, TopologyAnnotationChange } from './service-mechanism';
import { lintService } from './service-mechanism';
import { sharedAllocationTable, sharedEnableChange, sharedMechanism } from './shared-values';
import type { Allocation } from '../upstream/topology-cache';
import { sortedRecord } from '../upstream/sorted';
import type { AddressType, EndpointSlice, TopologyEvent, ValueByZone } from '../upstream/types';
import { serviceMemo, type ServiceRecordMemo } from '../model/record-memo';

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

function readyByZoneOf(slices: readonly EndpointSlice[]): ValueByZone<number> {
  const map = new Map<string, number>();
  for (const slice of slices) for (const e of slice.endpoints) if (e.ready === true && e.zone) map.set(e.zone, (map.get(e.zone) ?? 0) + 1);
  return sortedRecord(map);
}

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
  return NO_HINTS_VERDICT;
}

/** The verdict of a Service for which nothing asks for hints. */
export const NO_HINTS_VERDICT = 'No hints: nothing asks for them, so kube-proxy spreads traffic over every ready endpoint.';

function addressTypesOf(service: ServiceRecord, slices: readonly EndpointSliceRecord[]): AddressType[] {
  const present = new Set<AddressType>();
  for (let i = 0; i < slices.length; i++) {
    const { addressType } = slices[i] as EndpointSliceRecord;
    if (addressType !== 'FQDN') present.add(addressType);
  }
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
  memo: ServiceRecordMemo = serviceMemo(service),
): ServiceLint[] {
  const ratios = context.cpuRatiosByZone;
  const zoneCount = ratios ? zoneCountOf(ratios) : 0;
  const kept = memo.lints as KeptLints | undefined;
  if (
    kept !== undefined &&
    kept.mechanism === mechanism &&
    kept.gates === context.gates &&
    kept.minor === context.release.minor &&
    kept.topologyCacheEnabled === context.topologyCacheEnabled &&
    kept.honoursHints === dataplane.honoursHints &&
    kept.honoursHintsReason === dataplane.honoursHintsReason &&
    kept.readyEndpoints === readyEndpoints &&
    kept.zoneCount === zoneCount &&
    kept.slices === slices
  ) {
    return kept.lints;
  }
  const lints = lintService(service, mechanism, {
    minor: context.release.minor,
    gates: context.gates,
    topologyCacheEnabled: context.topologyCacheEnabled,
    dataplane,
    readyEndpoints,
    zoneCount,
    hasForeignSlices: slices.some((s) => !isControllerManaged(s)),
  });
  memo.lints = {
    mechanism,
    gates: context.gates,
    minor: context.release.minor,
    topologyCacheEnabled: context.topologyCacheEnabled,
    honoursHints: dataplane.honoursHints,
    honoursHintsReason: dataplane.honoursHintsReason,
    readyEndpoints,
    zoneCount,
    slices,
    lints,
  } satisfies KeptLints;
  return lints;
}

/**
 * Each Service record's last lints with everything `lintService` read for them: the mechanism (one
 * shared object per release and topology annotations: shared-values.ts), the release, the
 * dataplane's answer on hints, the ready endpoints, the zone count and the slices. A pass after a
 * Node change (new context, same Services) finds them again. A Service's lints are never changed
 * by their readers.
 */
/** The ratios last counted and their zone count: every Service of a pass asks with the same ratios object (no array of its keys each time). */
let countedRatios: { readonly ratios: object; readonly count: number } | null = null;

function zoneCountOf(ratios: object): number {
  if (countedRatios === null || countedRatios.ratios !== ratios) countedRatios = { ratios, count: Object.keys(ratios).length };
  return countedRatios.count;
}

interface KeptLints {
  readonly mechanism: MechanismAnalysis;
  readonly gates: ClusterContext['gates'];
  readonly minor: number;
  readonly topologyCacheEnabled: boolean;
  readonly honoursHints: boolean;
  readonly honoursHintsReason: string | null;
  readonly readyEndpoints: number;
  readonly zoneCount: number;
  readonly slices: readonly EndpointSliceRecord[];
  readonly lints: ServiceLint[];
}

/**
 * How much {@link analyzeServiceHints} builds: `true` everything; `false` everything but the endpoint
 * zone map; `'report'` only what a cluster-wide report keeps — no zone map, no per-zone minimum
 * table (`minimumTable: null`) and no donated-endpoint lists (`donated: []`; the counts stay).
 */
export type ServiceHintsDetail = boolean | 'report';

/** Whether every slice is of `addressType` (a loop, not a callback: this runs for every shape of a pass). */
function allOfType(slices: readonly EndpointSliceRecord[], addressType: AddressType): boolean {
  for (let i = 0; i < slices.length; i++) if ((slices[i] as EndpointSliceRecord).addressType !== addressType) return false;
  return true;
}

/**
 * A run's slices followed by the observed slices of its type that the controller does not manage
 * (it leaves them as they are): the run's own list when it manages every one (the usual case), else
 * one list per run and observed list. A run kept for its slices (hints-engine.ts) thus gives the
 * same list to later passes, which find what is kept by slice list (grouped endpoints, counts).
 */
function withUnmanaged(run: readonly EndpointSlice[], typed: readonly EndpointSliceRecord[], allManaged: boolean): readonly EndpointSlice[] {
  if (allManaged) return run;
  const known = WITH_UNMANAGED.get(run);
  if (known !== undefined && known.typed === typed) return known.slices;
  const slices = [...run, ...typed.filter((s) => !isControllerManaged(s))];
  WITH_UNMANAGED.set(run, { typed, slices });
  return slices;
}

/** {@link withUnmanaged}'s lists by run list, with the observed list each was made with. */
const WITH_UNMANAGED = new WeakMap<readonly EndpointSlice[], { readonly typed: readonly EndpointSliceRecord[]; readonly slices: readonly EndpointSlice[] }>();

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
  // Engine inputs are spelled out (no spread of a shared base): they are built for every Service of a pass.
  const engineInput = (annotations: Readonly<Record<string, string>>, trafficDistribution: string | null, addressType: AddressType, unchanged: readonly EndpointSlice[]): HintsEngineInput => ({
    serviceKey: key,
    annotations,
    trafficDistribution,
    addressType,
    unchanged,
    cpuRatiosByZone: ratios,
    minor,
    gates: context.gates,
    topologyCacheEnabled: context.topologyCacheEnabled,
  });

  // 1. Per address type: observed, expected (engine on the observed slices), diff.
  const byAddressType: AddressTypeAnalysis[] = [];
  const minimumTables: (MinimumTable | null)[] = [];
  let primarySlices: ServiceHintSlices | null = null;
  let primaryEngine: HintsEngineResult | null = null;
  for (const addressType of addressTypesOf(service, slices)) {
    // The list itself when every slice is of this type (the usual case): what is kept by slice list is found again.
    const typed = allOfType(slices, addressType) ? slices : slices.filter((s) => s.addressType === addressType);
    const managed = typed.every(isControllerManaged) ? typed : typed.filter(isControllerManaged);
    const observed = observeHints(addressType, typed);
    const allManaged = managed.length === typed.length;
    const engine = applicable
      ? runHintsEngine(engineInput(service.annotations, service.trafficDistribution, addressType, managed))
      : null;
    const sameAsAuto = engine !== null && mechanism.annotationActive && change.remove.length === 0;
    const expectedSlices = engine ? withUnmanaged(engine.slices, typed, allManaged) : typed;
    const ready = allManaged ? observed.readyEndpoints : observeHints(addressType, managed).readyEndpoints;
    const table = ratios ? sharedAllocationTable(context, ratios, ready) : null;
    // A sync that writes nothing leaves the observed slices as they are (the same objects, see
    // runHintsEngine), so the expected counts are the observed ones: not counted again.
    const unwritten = engine === null || engine.slicesToWrite === 0;
    const donated = reportOnly ? [] : findDonatedEndpoints(expectedSlices);
    const donatedCount = !reportOnly ? donated.length : unwritten ? observed.donatedEndpoints : countDonatedEndpoints(expectedSlices);
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
      hintCountsByZone: unwritten ? observed.hintCountsByZone : countHintsByZone(expectedSlices),
      donatedEndpoints: donatedCount,
      donated,
      slicesToWrite: engine?.slicesToWrite ?? 0,
      verdict: verdictFor(engine, mechanism, donatedCount, sumCheck, applicable ? null : notManagedExplanation(service, typed)),
    };
    // A sync that writes nothing leaves every hint as observed.
    const diff = engine && engine.slicesToWrite > 0 ? diffHints(typed, expectedSlices) : { inSync: true, missing: 0, unexpected: 0, stale: 0, entries: [] };
    byAddressType.push({ addressType, expected, observed, diff });
    if (primarySlices === null) {
      primaryEngine = engine;
      const ifAutoResult = sameAsAuto
        ? engine
        : applicable
        ? runHintsEngine(engineInput(change.annotations, service.trafficDistribution, addressType, managed))
        : (engine ?? runHintsEngine(engineInput(change.annotations, null, addressType, [])));
      primarySlices = {
        addressType,
        observed: typed,
        managed,
        expected: expectedSlices,
        ifAuto: applicable ? withUnmanaged(ifAutoResult.slices, typed, allManaged) : typed,
        ifAutoResult,
      };
    }
  }
  const primary = byAddressType[0] as AddressTypeAnalysis;
  const sliceState = primarySlices as ServiceHintSlices;

  // 2. Prediction for the toggle. Its counts are the observed ones when the Auto sync writes nothing
  //    (or the controller does not manage the Service), the expected ones when it is the same sync.
  const autoResult = sliceState.ifAutoResult;
  const autoCounts =
    !applicable || autoResult.slicesToWrite === 0
      ? primary.observed
      : autoResult === primaryEngine
        ? primary.expected
        : { hintCountsByZone: countHintsByZone(sliceState.ifAuto), donatedEndpoints: countDonatedEndpoints(sliceState.ifAuto) };
  const ifAuto: IfAutoPrediction = {
    change,
    hintsEnabled: applicable && autoResult.hintsEnabled,
    event: applicable ? autoResult.event : null,
    reason: applicable ? autoResult.reason : null,
    hintCountsByZone: autoCounts.hintCountsByZone,
    donatedEndpoints: autoCounts.donatedEndpoints,
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
