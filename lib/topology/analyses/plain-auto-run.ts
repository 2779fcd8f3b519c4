/**
 * The `Auto` run of the cluster pass's most common Service, worked out in one walk over its
 * endpoints: `runHintsEngine` with the topology annotation set to `Auto`, on slices that the
 * EndpointSlice controller manages, of one address type, whose endpoints carry no hints yet (most
 * Services of a cluster that has not turned topology-aware routing on), with or without endpoints a
 * fix adds (fixes.ts). The engine copies every endpoint it hints and the traffic model then groups
 * the copies again; here the counts, the events and the grouped endpoints the traffic figures read
 * come straight from the slices.
 *
 * The result is the engine's own (hints-engine.ts, upstream/topology-cache.ts `addHints`, whose
 * steps it follows one by one): plain-auto-run.test.ts compares the two on every case it builds,
 * fixes-lean.test.ts the fixes found with each, and report/plain-shape.test.ts whole reports. What it leaves out is the rewritten
 * slices themselves: the result's `slices` is empty, as a cluster pass keeps it (see
 * `fixAutoRun` in report/service-computation.ts), and {@link PlainAutoRun.grouped} stands for them.
 */
import { MESSAGE_TOPOLOGY_AWARE_HINTS_ENABLED, REASON_HINTS_DISABLED, REASON_HINTS_ENABLED } from '../upstream/constants';
import { zoneHints } from '../upstream/slice-info';
import { sortedRecord } from '../upstream/sorted';
import type { AllocationTable } from '../upstream/topology-cache';
import { getAllocations } from '../upstream/topology-cache';
import { forEachRedistribution, formatWithAddressType, getGivingAndReceivingZones } from '../upstream/topology-cache-utils';
import type { AddressType, EndpointSlice, TopologyEvent, ValueByZone } from '../upstream/types';
import type { KubeMinor } from '../upstream/version';
import { endpointShapeParts, firstAddressesDistinct, shapeCodeOfParts, SliceListMemo, withZoneHintParts } from './endpoint-shape';
import { memoOnObject } from '../model/object-memo';
import type { HintsEngineResult } from './hints-engine';
import type { TrafficEndpoint } from './traffic';
import { toTrafficEndpoint } from './traffic';
import type { GroupedTrafficEndpoints } from './traffic-figures-memo';
import { groupedEndpoints } from './traffic-figures-memo';

/** Input of {@link plainAutoRun}. */
export interface PlainAutoInput {
  readonly addressType: AddressType;
  /**
   * The Service's slices, in order: every one managed by the EndpointSlice controller and of
   * `addressType`, no endpoint with hints, every endpoint with an address and no two sharing a
   * first address (the caller checks; see `plainHintsAndTraffic`).
   */
  readonly slices: readonly EndpointSlice[];
  /**
   * A slice the run creates (the controller's "to create" list: a fix's added endpoints, each ready,
   * with a zone and an address of its own), or none.
   */
  readonly created?: EndpointSlice | null;
  /**
   * Text that tells `created`'s endpoints apart from any other created slice's (their zones and
   * addresses, in order), when the caller has one shorter than those spelled out: the run is kept
   * under it (see `KeptRun`).
   */
  readonly createdKey?: string;
  readonly cpuRatiosByZone: Readonly<ValueByZone<number>> | null;
  /** `computeAllocationTable(cpuRatiosByZone, ready endpoints)` when the caller has it (ratios not null). */
  readonly table: AllocationTable | null;
  /** 1.26 or later (the releases that record events). */
  readonly minor: KubeMinor;
  readonly nodeZoneByName: ReadonlyMap<string, string | null>;
}

/** Result of {@link plainAutoRun}. */
export interface PlainAutoRun {
  /** The engine's result, without its slices. */
  readonly result: HintsEngineResult;
  /** Zone-hint counts of the ready endpoints after the run (`countHintsByZone` of its slices). */
  readonly hintCountsByZone: Readonly<ValueByZone<number>>;
  /** Ready endpoints hinted for another zone than their own after the run. */
  readonly donated: number;
  /**
   * `groupTrafficEndpoints` of the run's slices (its order: slices left unchanged, then the
   * rewritten ones, then the created one); `null` when the run writes no slice (its slices are the
   * input's).
   */
  readonly grouped: GroupedTrafficEndpoints | null;
}

/**
 * Whether {@link plainAutoRun} takes these slices' endpoints: none with hints, every one with a
 * first address, no two sharing it (the caller checks the slices' manager and address type).
 */
export function plainSlices(slices: readonly EndpointSlice[]): boolean {
  return memoOnObject(PLAIN, slices, (list) => everyEndpointPlain(list) && firstAddressesDistinct(list));
}

/** {@link plainSlices} by slice list: it reads only the (immutable) slices, and the cluster pass and the fixes ask it of the same list. */
const PLAIN = new WeakMap<readonly EndpointSlice[], boolean>();

function everyEndpointPlain(slices: readonly EndpointSlice[]): boolean {
  for (const slice of slices) for (const endpoint of slice.endpoints) if (endpoint.hints !== null || endpoint.addresses.length === 0) return false;
  return true;
}

const EVENTS = new Map<string, readonly TopologyEvent[]>();

/** The one event of a run, one frozen list per message (runs of one cluster say few different things). */
function eventList(type: TopologyEvent['type'], reason: string, message: string): readonly TopologyEvent[] {
  const key = `${type}\u0000${reason}\u0000${message}`;
  let events = EVENTS.get(key);
  if (events === undefined) {
    if (EVENTS.size >= 1_024) EVENTS.clear();
    events = Object.freeze([Object.freeze({ type, reason, message })]);
    EVENTS.set(key, events);
  }
  return events;
}

const NO_SLICES: readonly EndpointSlice[] = Object.freeze([]);

function outcome(hintsEnabled: boolean, events: readonly TopologyEvent[], slicesToWrite: number): HintsEngineResult {
  const event = events[0] ?? null;
  return { mechanism: 'topologyAnnotation', hintsEnabled, autoOutcome: hintsEnabled ? 'enabled' : 'disabled', events, event, reason: event, slices: NO_SLICES, slicesToWrite };
}

/**
 * The `Auto` run on plain slices (see the module comment and {@link PlainAutoInput}); `null` when
 * the run would take a path this walk does not follow (a ready endpoint without a zone, which turns
 * the hints off after the slices were copied), so that the caller runs the engine instead.
 */
export function plainAutoRun(input: PlainAutoInput): PlainAutoRun | null {
  const { slices, addressType } = input;
  const created = input.created ?? null;
  if (input.minor < 26) return null;
  if (created !== null && !allReady(created)) return null;
  // 1. Ready endpoints (`ready: true`, as `EndpointReady` from 1.22 on) of every list, counted with
  //    step 2's counts (they read only the slices and the created one: kept by both).
  const counts = created === null ? readyCountsOf(slices) : createdCountsOf(created, slices);
  const ready = counts.ready;
  const allocation = getAllocations(input.cpuRatiosByZone, ready, input.table ?? undefined);
  // A created slice is written even when the hints are off: left to the engine.
  if (!allocation.ok && created !== null) return null;
  if (!allocation.ok) {
    // Disabled: no slice carries hints, so none is written (`removeHintsFromSlices`).
    return {
      result: outcome(false, eventList('Warning', REASON_HINTS_DISABLED, formatWithAddressType(allocation.event.message, addressType)), 0),
      hintCountsByZone: {},
      donated: 0,
      grouped: null,
    };
  }
  // 2. Every slice with a ready endpoint fails validation (a ready endpoint without hints) and is
  //    rewritten; its ready endpoints get their own zone. A ready endpoint without a zone disables
  //    the hints after that: left to the engine.
  if (counts.zoneless || counts.allocated.size === 0) return null;
  // 3. Giving and receiving zones, then the re-hinting (`redistributeHints`: first ready endpoints
  //    of a giving zone first, in slice order, each to the first receiving zone by name with room).
  const { givingZones, receivingZones } = getGivingAndReceivingZones(allocation.allocations, counts.allocated);
  // What follows reads only the slices, the created slice, the release and these two plans: a run
  // with the same ones (the next pass after a Node change, whose new CPU ratios rarely move a
  // Service's plan) is the run kept for them.
  const runs = RUNS.kept(slices, input.nodeZoneByName) ?? RUNS.keep(slices, input.nodeZoneByName, []);
  // 0: none created; 1: the caller's text for it; 2: its endpoints spelled out.
  const createdMode = created === null ? 0 : input.createdKey !== undefined ? 1 : 2;
  const createdText = created === null ? '' : (input.createdKey ?? spelledCreated(created));
  for (let i = 0; i < runs.length; i++) {
    const known = runs[i] as KeptRun;
    if (known.minor === input.minor && known.addressType === addressType && known.createdMode === createdMode && known.createdText === createdText && samePlan(givingZones, known.giving) && samePlan(receivingZones, known.receiving)) return known.run;
  }
  // The created slice comes first on the list the controller hints, then the rewritten ones.
  const run = redistributed(input, created === null ? slices : [created, ...slices], counts, givingZones, receivingZones);
  if (runs.length >= RUNS_PER_LIST) runs.length = 0;
  runs.push({ minor: input.minor, addressType, createdMode, createdText, giving: planEntries(givingZones), receiving: planEntries(receivingZones), run });
  return run;
}

/** Whether a slice has endpoints and every one is ready. */
function allReady(slice: EndpointSlice): boolean {
  const { endpoints } = slice;
  if (endpoints.length === 0) return false;
  for (let i = 0; i < endpoints.length; i++) if ((endpoints[i] as EndpointSlice['endpoints'][number]).ready !== true) return false;
  return true;
}

/** Runs {@link RUNS} keeps per slice list before it starts over (a list meets few plans). */
const RUNS_PER_LIST = 16;

/**
 * {@link plainAutoRun}'s runs that allocate, by slice list (with the node zones their groups read,
 * see `SliceListMemo`), each with what it read besides the list (see {@link KeptRun}).
 */
const RUNS = new SliceListMemo<KeptRun[]>();

/**
 * A run kept for a slice list with what it read besides the list: the release, the address type
 * (the event's text), the created slice's endpoints (the caller's text for them, else their zones
 * and addresses in order) and the giving and receiving plans (zones in sorted order, as
 * `getGivingAndReceivingZones` builds them). Compared field by field, not through a key spelled
 * per call: a pass after a Node change asks ~2,800 times (each plain shape, each fix that adds
 * endpoints), and a fresh key was hashed each time.
 */
interface KeptRun {
  readonly minor: KubeMinor;
  readonly addressType: AddressType;
  /** 0: nothing created; 1: `createdText` is the caller's text for the created slice; 2: its endpoints spelled out. */
  readonly createdMode: 0 | 1 | 2;
  readonly createdText: string;
  /** Zone, count, zone, count… in the plan's order. */
  readonly giving: readonly (string | number)[];
  readonly receiving: readonly (string | number)[];
  readonly run: PlainAutoRun | null;
}

/** A created slice's endpoints spelled out (zone and address, in order), for a caller without a text of its own. */
function spelledCreated(created: EndpointSlice): string {
  let text = '';
  for (const endpoint of created.endpoints) text += `${endpoint.zone ?? ''}\u0000${endpoint.addresses[0] ?? ''}\u0001`;
  return text;
}

/** A plan as {@link KeptRun} keeps it. */
function planEntries(plan: Readonly<ValueByZone<number>>): (string | number)[] {
  const entries: (string | number)[] = [];
  for (const zone in plan) entries.push(zone, plan[zone] as number);
  return entries;
}

/** Whether `plan` has the zones of `entries`, in their order, with their counts. */
function samePlan(plan: Readonly<ValueByZone<number>>, entries: readonly (string | number)[]): boolean {
  let at = 0;
  for (const zone in plan) {
    if (at >= entries.length || entries[at] !== zone || entries[at + 1] !== plan[zone]) return false;
    at += 2;
  }
  return at === entries.length;
}

/** Steps 3–4 of {@link plainAutoRun} once its plans are known. */
function redistributed(
  input: PlainAutoInput,
  hinted: readonly EndpointSlice[],
  counts: ReadyCounts,
  givingZones: Readonly<ValueByZone<number>>,
  receivingZones: Readonly<ValueByZone<number>>,
): PlainAutoRun | null {
  const { slices, addressType } = input;
  const created = input.created ?? null;
  const { allocated, written } = counts;
  const hintCounts = new Map(allocated);
  /** The zone each moved endpoint is hinted for, by the endpoint. */
  const moved = new Map<EndpointSlice['endpoints'][number], string>();
  forEachRedistribution(hinted, givingZones, receivingZones, input.minor, (endpoint, fromZone, toZone) => {
    moved.set(endpoint, toZone);
    hintCounts.set(fromZone, (hintCounts.get(fromZone) ?? 0) - 1);
    hintCounts.set(toZone, (hintCounts.get(toZone) ?? 0) + 1);
  });
  // 4. The run's slices as the traffic model groups them: unchanged slices (no ready endpoint) first,
  //    then the rewritten ones, each endpoint with its hint.
  // Nothing moved and nothing created: every ready endpoint is hinted for its own zone, which the slices alone decide.
  const grouped = created === null && moved.size === 0 ? ownZoneGroups(slices, input.nodeZoneByName) : groupHinted(created === null ? slices : [...slices, created], moved, input.nodeZoneByName);
  if (grouped === null) return null;
  const positive = new Map<string, number>();
  for (const [zone, count] of hintCounts) if (count > 0) positive.set(zone, count);
  return {
    result: outcome(true, eventList('Normal', REASON_HINTS_ENABLED, formatWithAddressType(MESSAGE_TOPOLOGY_AWARE_HINTS_ENABLED, addressType)), written),
    hintCountsByZone: sortedRecord(positive),
    donated: moved.size,
    grouped,
  };
}

/** Steps 1–2's counts of a list of slices: ready endpoints, per zone, and the slices holding one. */
interface ReadyCounts {
  readonly ready: number;
  /** Ready endpoints by zone, in the order the zones first appear. */
  readonly allocated: ReadonlyMap<string, number>;
  /** Slices with a ready endpoint (each is rewritten). */
  readonly written: number;
  /** A ready endpoint has no zone (the run then turns to the engine). */
  readonly zoneless: boolean;
}

function countReady(slices: readonly EndpointSlice[]): ReadyCounts {
  const allocated = new Map<string, number>();
  let ready = 0;
  let written = 0;
  let zoneless = false;
  // Indexed loops: a for…of makes an iterator result per step until the JIT has optimised the function.
  for (let s = 0; s < slices.length; s++) {
    let any = false;
    const { endpoints } = slices[s] as EndpointSlice;
    for (let e = 0; e < endpoints.length; e++) {
      const endpoint = endpoints[e] as EndpointSlice['endpoints'][number];
      if (endpoint.ready !== true) continue;
      ready++;
      any = true;
      const zone = endpoint.zone;
      if (zone === null || zone === '') zoneless = true;
      else allocated.set(zone, (allocated.get(zone) ?? 0) + 1);
    }
    if (any) written++;
  }
  return { ready, allocated, written, zoneless };
}

/**
 * {@link countReady} by slice list. A Service's slices are immutable and read by every pass: one
 * after a Node change (new CPU ratios, every Service analysed again) counts only what changed.
 */
const READY_COUNTS = new WeakMap<readonly EndpointSlice[], ReadyCounts>();

function readyCountsOf(slices: readonly EndpointSlice[]): ReadyCounts {
  return memoOnObject(READY_COUNTS, slices, countReady);
}

/**
 * {@link countReady} of a created slice followed by a Service's slices, by both: the fixes ask for
 * the same additions (one shared slice per change, see fixes.ts `sharedSyntheticEndpoints`) to the
 * same list in every pass after a Node change.
 */
const CREATED_COUNTS = new WeakMap<EndpointSlice, WeakMap<readonly EndpointSlice[], ReadyCounts>>();

function createdCountsOf(created: EndpointSlice, slices: readonly EndpointSlice[]): ReadyCounts {
  let bySlices = CREATED_COUNTS.get(created);
  if (bySlices === undefined) {
    bySlices = new WeakMap();
    CREATED_COUNTS.set(created, bySlices);
  }
  let counts = bySlices.get(slices);
  if (counts === undefined) {
    counts = countReady([created, ...slices]);
    bySlices.set(slices, counts);
  }
  return counts;
}

const NOTHING_MOVED: ReadonlyMap<EndpointSlice['endpoints'][number], string> = new Map();

/** Groups of a run that moved nothing, by slice list. */
const OWN_ZONE_GROUPS = new SliceListMemo<GroupedTrafficEndpoints | null>();

/** {@link groupHinted} of the slices with every ready endpoint hinted for its own zone, kept by slice list. */
function ownZoneGroups(slices: readonly EndpointSlice[], nodeZoneByName: ReadonlyMap<string, string | null>): GroupedTrafficEndpoints | null {
  return OWN_ZONE_GROUPS.get(slices, nodeZoneByName, () => groupHinted(slices, NOTHING_MOVED, nodeZoneByName));
}

/** `groupTrafficEndpoints` of the run's slices (see {@link plainAutoRun} step 4), without copying an endpoint. */
function groupHinted(slices: readonly EndpointSlice[], moved: ReadonlyMap<EndpointSlice['endpoints'][number], string>, nodeZoneByName: ReadonlyMap<string, string | null>): GroupedTrafficEndpoints | null {
  const groupOf = new Map<number, number>();
  const byCode = new Map<string, number>();
  const codes: string[] = [];
  const endpoints: TrafficEndpoint[] = [];
  const counts: number[] = [];
  const rewritten = slices.map((slice) => slice.endpoints.some((endpoint) => endpoint.ready === true));
  const anyMoved = moved.size > 0;
  for (const pass of [false, true]) {
    for (let s = 0; s < slices.length; s++) {
      if (rewritten[s] !== pass) continue;
      for (const endpoint of (slices[s] as EndpointSlice).endpoints) {
        const address = endpoint.addresses[0];
        if (address === undefined) return null;
        const hintZone = endpoint.ready !== true ? null : anyMoved ? (moved.get(endpoint) ?? (endpoint.zone as string)) : (endpoint.zone as string);
        const plain = endpointShapeParts(endpoint, nodeZoneByName, false);
        const parts = hintZone === null ? plain : withZoneHintParts(plain, hintZone);
        // Shapes without a number (beyond the zones numbered in this process) go by their text, as
        // groupTrafficEndpoints groups them (a shape has a number or not: the two never meet).
        const hinted = parts >= 0 || hintZone === null ? endpoint : { ...endpoint, hints: zoneHints(hintZone) };
        const code = parts >= 0 ? null : shapeCodeOfParts(parts, hinted, nodeZoneByName, false);
        const group = code === null ? groupOf.get(parts) : byCode.get(code);
        if (group !== undefined) {
          counts[group] = (counts[group] as number) + 1;
          continue;
        }
        const first = parts >= 0 && hintZone !== null ? { ...endpoint, hints: zoneHints(hintZone) } : hinted;
        if (code === null) groupOf.set(parts, codes.length);
        else byCode.set(code, codes.length);
        codes.push(code ?? shapeCodeOfParts(parts, first, nodeZoneByName, false));
        endpoints.push(toTrafficEndpoint(first, address, nodeZoneByName));
        counts.push(1);
      }
    }
  }
  return groupedEndpoints(codes, endpoints, counts);
}
