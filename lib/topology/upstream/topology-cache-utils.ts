/**
 * The helpers of the EndpointSlice controller's topology cache, as upstream keeps them apart from
 * the cache itself: the address-type suffix of event messages, the validation of a slice's existing
 * hints against the allocation (`getHintsByZone`), the whole endpoints each zone gives or receives
 * (`getGivingAndReceivingZones`, here computed in one step by {@link moveEndpoints}), the re-hinting
 * of giving zones' endpoints (`redistributeHints`), and the overload re-check after a node change
 * (`serviceOverloaded`). Ties upstream leaves to Go map order are broken by sorted zone name.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/master/staging/src/k8s.io/endpointslice/topologycache/utils.go
 */
import { MINIMUM_FACTOR } from './constants';
import { isEndpointReady, zoneHints } from './slice-info';
import { sortedKeys, sortedKeysOf, sortedRecord } from './sorted';
import type { Allocation } from './topology-cache';
import type { AddressType, EndpointSlice, MutableEndpointSlice, ValueByZone } from './types';
import type { KubeMinor } from './version';

/** Appends the address type to an event message (`FormatWithAddressType`). */
export function formatWithAddressType(message: string, addressType: AddressType): string {
  return `${message}, addressType: ${addressType}`;
}

/* -------------------------------------------------------------------------------------------- */
/* Hints by zone, giving / receiving, redistribution                                            */
/* -------------------------------------------------------------------------------------------- */

/**
 * Counts the zone hints of a slice's ready endpoints and checks they still fit the allocations:
 * returns `null` ("rewrite this slice") when a ready endpoint has no zone hints, hints a zone
 * without allocation, or when a zone would exceed its maximum together with `allocatedHintsByZone`.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/master/staging/src/k8s.io/endpointslice/topologycache/utils.go (getHintsByZone)
 */
export function getHintsByZone(
  slice: EndpointSlice,
  allocatedHintsByZone: Readonly<ValueByZone<number>>,
  allocations: Readonly<ValueByZone<Pick<Allocation, 'maximum'>>>,
  minor: KubeMinor,
): ValueByZone<number> | null {
  const hintsByZone = new Map<string, number>();
  // Indexed loops: a for…of makes an iterator result per step until the JIT has optimised the function.
  const { endpoints } = slice;
  for (let e = 0; e < endpoints.length; e++) {
    const endpoint = endpoints[e] as EndpointSlice['endpoints'][number];
    if (!isEndpointReady(endpoint, minor)) continue;
    const forZones = endpoint.hints?.forZones;
    if (!forZones || forZones.length === 0) return null;
    for (let z = 0; z < forZones.length; z++) {
      const zone = forZones[z] as string;
      if (!Object.prototype.hasOwnProperty.call(allocations, zone)) return null;
      hintsByZone.set(zone, (hintsByZone.get(zone) ?? 0) + 1);
    }
  }
  for (const [zone, numHints] of hintsByZone) {
    const allocation = allocations[zone];
    if (!allocation || numHints + (allocatedHintsByZone[zone] ?? 0) > allocation.maximum) return null;
  }
  return sortedRecord(hintsByZone);
}

/** Largest surplus (or shortage) the move loop can work through exactly. */
const MAX_MOVE_VALUE = 2 ** 52;

/**
 * One side of upstream's move loop (the surplus, or the shortage, per zone) split into whole
 * levels and fractions, for moving many endpoints at once.
 *
 * The loop takes 1 from the zone with the largest value, again and again, so the k-th endpoint it
 * moves comes from the zone of the k-th largest of the values `v − j` (j = 0, 1, 2, … per zone),
 * ties to the first zone by name. Split exactly as `v = level + fraction` (`level = floor(v)`,
 * fraction in [0, 1)), `v − j` is level `level − j` with the zone's fraction, and two values
 * compare by level, then fraction, then zone. Exactness: the loop only subtracts 1 from values
 * ≥ 0.5, which below 2^52 always leaves a representable result, so its doubles are the real
 * numbers `v − j`; and `v − floor(v)` is exact (Sterbenz's lemma for v ≥ 1, trivially below).
 *
 * Arrays are indexed like the sorted zone list (their first `n` places); a zone not on this side
 * has level −1. The two sides {@link moveEndpoints} fills are module-level scratch records, grown
 * to the largest zone count met: a pass after a Node change runs the loop a few thousand times,
 * and the arrays and records each call made (a dozen) were ~4 MB of garbage a pass. The loop
 * calls nothing that could run it again meanwhile.
 */
interface MoveSide {
  levels: Float64Array;
  fractions: Float64Array;
  /** The zones filled in. */
  n: number;
  /** How many values `v − j` are ≥ 0.5 (the loop stops at the first one below). */
  atLeastHalf: number;
  /** How many values `v − j` are ≥ 1. */
  atLeastOne: number;
}

function scratchSide(): MoveSide {
  return { levels: new Float64Array(8), fractions: new Float64Array(8), n: 0, atLeastHalf: 0, atLeastOne: 0 };
}

const GIVE = scratchSide();
const TAKE = scratchSide();

/**
 * Fills `side` with each zone's surplus (`giving`: allocated above desired) or shortage (below),
 * 0 for a zone on the other side or at its allocation.
 */
function fillSide(side: MoveSide, zones: readonly string[], desired: ArrayLike<number>, allocated: ArrayLike<number>, giving: boolean): MoveSide {
  const n = zones.length;
  if (side.levels.length < n) {
    side.levels = new Float64Array(n);
    side.fractions = new Float64Array(n);
  }
  const { levels, fractions } = side;
  let atLeastHalf = 0;
  let atLeastOne = 0;
  for (let i = 0; i < n; i++) {
    const a = allocated[i] as number;
    const t = desired[i] as number;
    const value = giving ? (a > t ? a - t : 0) : a < t ? t - a : 0;
    if (value === 0) {
      levels[i] = -1;
      fractions[i] = 0;
      continue;
    }
    // Values are strictly positive; an infinite (or huge) one would never stop the loop.
    if (!(value < MAX_MOVE_VALUE)) throw new RangeError(`getGivingAndReceivingZones: zone ${JSON.stringify(zones[i])} is ${value} endpoints off its allocation`);
    const level = Math.floor(value);
    const fraction = value - level;
    levels[i] = level;
    fractions[i] = fraction;
    atLeastOne += level;
    atLeastHalf += level + (fraction >= 0.5 ? 1 : 0);
  }
  side.n = n;
  side.atLeastHalf = atLeastHalf;
  side.atLeastOne = atLeastOne;
  return side;
}

/**
 * How many steps of the loop pass before its largest value is zone `''`'s (`Infinity` when the
 * side has no zone `''`): upstream's `getMost` returns `''` for "no zone", so the loop stops there.
 * Zones are sorted, so `''` can only be the first, and it wins every tie.
 */
function stepsBeforeEmptyZone(zones: readonly string[], side: MoveSide): number {
  if (zones[0] !== '' || (side.levels[0] as number) < 0) return Infinity;
  const level = side.levels[0] as number;
  const fraction = side.fractions[0] as number;
  let before = 0;
  for (let i = 1; i < zones.length; i++) {
    const other = side.levels[i] as number;
    if (other > level) before += other - level;
    if (other >= level && (side.fractions[i] as number) > fraction) before++;
  }
  return before;
}

/** How many values of the side (its first `n` levels) are at `level` or above. */
function valuesAtOrAbove(levels: Float64Array, n: number, level: number): number {
  let count = 0;
  for (let i = 0; i < n; i++) {
    const l = levels[i] as number;
    if (l >= level) count += l - level + 1;
  }
  return count;
}

/** Adds to `out` (indexed like the zones) the endpoints the loop's first `steps` steps take per zone. */
function takeSteps(side: MoveSide, steps: number, out: number[] | Float64Array): void {
  if (steps <= 0) return;
  const { levels, fractions, n } = side;
  // 1. The level L of the last value taken: the highest with at least `steps` values at or above it.
  let lo = 0;
  let hi = 0;
  for (let i = 0; i < n; i++) hi = Math.max(hi, (levels[i] as number) + 1);
  while (hi - lo > 1) {
    const mid = lo + Math.floor((hi - lo) / 2);
    if (valuesAtOrAbove(levels, n, mid) >= steps) lo = mid;
    else hi = mid;
  }
  // 2. Every value above L, then the zones at level L by fraction (largest first), then by name.
  let left = steps - valuesAtOrAbove(levels, n, lo + 1);
  for (let i = 0; i < n; i++) {
    const l = levels[i] as number;
    if (l > lo) out[i] = (out[i] as number) + (l - lo);
  }
  let lastFraction = Infinity;
  let lastIndex = -1;
  while (left > 0) {
    // The next zone at level L after (lastFraction, lastIndex) in the loop's order.
    let next = -1;
    for (let i = 0; i < n; i++) {
      if ((levels[i] as number) < lo) continue;
      const f = fractions[i] as number;
      if (f > lastFraction || (f === lastFraction && i <= lastIndex)) continue;
      if (next < 0 || f > (fractions[next] as number)) next = i;
    }
    out[next] = (out[next] as number) + 1;
    lastFraction = fractions[next] as number;
    lastIndex = next;
    left--;
  }
}

/**
 * Upstream's move loop over zones given as arrays: `zones` sorted and unique, `desired[i]` and
 * `allocated[i]` that zone's desired and allocated endpoints. Returns how many endpoints move (the
 * sum of the giving counts, and of the receiving counts); when `giving` / `receiving` are given
 * (as long as `zones`, zero-filled), adds each zone's count to them. See
 * {@link getGivingAndReceivingZones}.
 */
export function moveEndpoints(
  zones: readonly string[],
  desired: ArrayLike<number>,
  allocated: ArrayLike<number>,
  giving: number[] | Float64Array | null = null,
  receiving: number[] | Float64Array | null = null,
): number {
  // 1. Exact surplus or shortage per zone (0: not on that side).
  const give = fillSide(GIVE, zones, desired, allocated, true);
  const take = fillSide(TAKE, zones, desired, allocated, false);
  // 2. How many whole endpoints the loop moves: step t runs while the t-th largest surplus and the
  //    t-th largest shortage are both ≥ 0.5, not both < 1, and neither is zone '' (its "none").
  const steps = Math.min(
    give.atLeastHalf,
    take.atLeastHalf,
    Math.max(give.atLeastOne, take.atLeastOne),
    stepsBeforeEmptyZone(zones, give),
    stepsBeforeEmptyZone(zones, take),
  );
  // 3. Which zones those steps took from and gave to.
  if (giving) takeSteps(give, steps, giving);
  if (receiving) takeSteps(take, steps, receiving);
  return steps;
}

/**
 * Turns the gap between allocated and desired endpoints into whole endpoints to give and receive
 * per zone. A zone keeps its own endpoints unless its excess is large enough (see
 * topology-semantics §6 step 5). Upstream picks among equal largest values in Go map order; we
 * pick the first zone in sorted order, which never changes the resulting integer maps in upstream's
 * cases.
 *
 * Upstream moves one endpoint per loop iteration, from the zone with the largest surplus to the
 * zone with the largest shortage, until the largest surplus or shortage is below 0.5 or both are
 * below 1. Here the number of iterations that loop runs, and the zone each one takes from and gives
 * to, are computed from the values directly ({@link moveEndpoints}: O(zones² + zones · log
 * endpoints) instead of O(zones · endpoints); see {@link MoveSide}). The property tests in
 * topology-cache-utils.test.ts compare it with the one-at-a-time loop.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/master/staging/src/k8s.io/endpointslice/topologycache/utils.go (getGivingAndReceivingZones)
 */
export function getGivingAndReceivingZones(
  allocations: Readonly<ValueByZone<Pick<Allocation, 'desired'>>>,
  allocatedHintsByZone: Readonly<ValueByZone<number>> | ReadonlyMap<string, number>,
): { givingZones: ValueByZone<number>; receivingZones: ValueByZone<number> } {
  // One sorted list per allocation object (shared per CPU ratios and endpoint count).
  const zones = sortedKeysOf(allocations);
  const n = zones.length;
  const { desired, allocated, giving, receiving } = planScratch(n);
  for (let i = 0; i < n; i++) {
    const zone = zones[i] as string;
    desired[i] = allocations[zone]?.desired ?? 0;
    allocated[i] = (allocatedHintsByZone instanceof Map ? allocatedHintsByZone.get(zone) : (allocatedHintsByZone as Readonly<ValueByZone<number>>)[zone]) ?? 0;
    giving[i] = 0;
    receiving[i] = 0;
  }
  moveEndpoints(zones, desired, allocated, giving, receiving);
  const givingZones: ValueByZone<number> = {};
  const receivingZones: ValueByZone<number> = {};
  for (let i = 0; i < n; i++) {
    const zone = zones[i] as string;
    if ((giving[i] as number) > 0) givingZones[zone] = giving[i] as number;
    if ((receiving[i] as number) > 0) receivingZones[zone] = receiving[i] as number;
  }
  return { givingZones, receivingZones };
}

/** {@link getGivingAndReceivingZones}' per-zone numbers: module-level scratch arrays (see {@link MoveSide}), grown to the zone count. */
let PLAN_SCRATCH = { desired: new Float64Array(8), allocated: new Float64Array(8), giving: new Float64Array(8), receiving: new Float64Array(8) };

function planScratch(n: number): typeof PLAN_SCRATCH {
  if (PLAN_SCRATCH.desired.length < n) PLAN_SCRATCH = { desired: new Float64Array(n), allocated: new Float64Array(n), giving: new Float64Array(n), receiving: new Float64Array(n) };
  return PLAN_SCRATCH;
}

/**
 * Re-hints ready endpoints of giving zones (first ones first, in slice order) to receiving zones,
 * mutating `slices` in place. Returns the signed change
 * per zone. Upstream picks the receiving zone in Go map order; we take the first zone in sorted order
 * that still has room. Unlike upstream, the two plans passed in are not consumed.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/master/staging/src/k8s.io/endpointslice/topologycache/utils.go (redistributeHints)
 */
export function redistributeHints(
  slices: MutableEndpointSlice[],
  givingZones: Readonly<ValueByZone<number>>,
  receivingZones: Readonly<ValueByZone<number>>,
  minor: KubeMinor,
): ValueByZone<number> {
  const redistributions = new Map<string, number>();
  forEachRedistribution(slices, givingZones, receivingZones, minor, (endpoint, fromZone, toZone) => {
    endpoint.hints = zoneHints(toZone);
    redistributions.set(fromZone, (redistributions.get(fromZone) ?? 0) - 1);
    redistributions.set(toZone, (redistributions.get(toZone) ?? 0) + 1);
  });
  return sortedRecord(redistributions);
}

/**
 * The walk of {@link redistributeHints} without its writes: calls `move` for each ready endpoint it
 * re-hints, in order, with the zone it leaves and the zone it is hinted for (for callers that only
 * need to know which endpoints move, such as a run that does not copy the slices).
 */
export function forEachRedistribution<E extends EndpointSlice['endpoints'][number]>(
  slices: readonly { readonly endpoints: readonly E[] }[],
  givingZones: Readonly<ValueByZone<number>>,
  receivingZones: Readonly<ValueByZone<number>>,
  minor: KubeMinor,
  move: (endpoint: E, fromZone: string, toZone: string) => void,
): void {
  const giving = new Map(Object.entries(givingZones));
  const receiving = new Map(Object.entries(receivingZones));
  for (const slice of slices) {
    for (const endpoint of slice.endpoints) {
      if (!isEndpointReady(endpoint, minor)) continue;
      if (giving.size === 0 || receiving.size === 0) return;
      if (endpoint.zone === null || endpoint.zone === '') continue;
      const fromZone = endpoint.zone;
      const left = giving.get(fromZone);
      if (left === undefined) continue;
      let toZone: string | undefined;
      for (const zone of receiving.keys()) if (toZone === undefined || zone < toZone) toZone = zone;
      if (toZone === undefined) return;
      move(endpoint, fromZone, toZone);
      if (left <= 1) giving.delete(fromZone);
      else giving.set(fromZone, left - 1);
      const room = receiving.get(toZone) ?? 0;
      if (room <= 1) receiving.delete(toZone);
      else receiving.set(toZone, room - 1);
    }
  }
}

/* -------------------------------------------------------------------------------------------- */
/* Overload re-check                                                                            */
/* -------------------------------------------------------------------------------------------- */

/**
 * serviceOverloaded: whether a Service's cached hint counts per zone would overload a zone under the
 * current CPU ratios. No entry → false; null/empty ratios → true; a ratio zone missing from the entry
 * → true; `count < ceil(total × ratio × (1/1.2))` → true. The total includes zones not in the ratios.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/master/staging/src/k8s.io/endpointslice/topologycache/utils.go (serviceOverloaded)
 */
export function isServiceOverloaded(
  endpointsByZone: Readonly<ValueByZone<number>>,
  cpuRatiosByZone: Readonly<ValueByZone<number>> | null,
): boolean {
  const entries = Object.entries(endpointsByZone);
  if (entries.length === 0) return false;
  if (cpuRatiosByZone === null || Object.keys(cpuRatiosByZone).length === 0) return true;
  let totalEndpoints = 0;
  for (const [, count] of entries) totalEndpoints += count;
  for (const zone of sortedKeys(cpuRatiosByZone)) {
    const count = endpointsByZone[zone];
    if (count === undefined) return true;
    const minimum = Math.ceil(totalEndpoints * (cpuRatiosByZone[zone] ?? 0) * MINIMUM_FACTOR);
    if (count < minimum) return true;
  }
  return false;
}
