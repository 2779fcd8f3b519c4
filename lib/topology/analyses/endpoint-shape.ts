/**
 * Shapes of endpoints: what the analyses of a Service read of an endpoint, spelled out as text
 * without the endpoint's identity (addresses, pod and node names), for memo keys. Two keys build on
 * it: `trafficFiguresKey` (traffic-figures-memo.ts: the endpoints as the traffic model reads them) and
 * `reportShapeKey` (report/report-shape.ts: exactly, as the hints analysis reads them too).
 *
 * Keys use control characters as markers and separators: they never occur in a zone (a label
 * value), so keys built from these parts are unambiguous.
 */
import type { Endpoint, EndpointSlice } from '../upstream/types';

/** Separates the parts of a key (slices, endpoints of the traffic key). */
export const SHAPE_PART = '\u0002';
/** Starts an endpoint in a list of endpoints; separates the zones of a hint list. */
export const SHAPE_ITEM = '\u0004';
/** Marks an absent value (no zone, no hints). */
const NONE = '\u0001';
/** Separates the fields of one endpoint's shape. */
const FIELD = '\u0003';
/** Marks an empty zone (`""`, present but empty). */
const EMPTY = '\u0005';
/** Marks a hints object without a zone list (exact shapes only). */
const NO_ZONE_LIST = '\u0006';

/** The zone of an endpoint: its `zone` field, else its node's zone; `null` when unknown. */
export function endpointZone(endpoint: Endpoint, nodeZoneByName: ReadonlyMap<string, string | null>): string | null {
  return endpoint.zone !== null && endpoint.zone !== '' ? endpoint.zone : endpoint.nodeName === null ? null : (nodeZoneByName.get(endpoint.nodeName) ?? null);
}

/** A zone in a shape: `null` and `""` are told apart from each other and from any zone. */
function zoneShape(zone: string | null): string {
  return zone === null ? NONE : zone === '' ? EMPTY : zone;
}

function condition(value: boolean | null | undefined): number {
  return value === true ? 1 : value === false ? 2 : 0;
}

/**
 * The shape of an endpoint, without its identity. Node hints are not spelled out: a key must
 * decline endpoints that carry them (node names then matter).
 *
 * - `exact: false`, as the traffic model reads it (`toTrafficEndpoints`): its zone (see
 *   {@link endpointZone}), its zone hints, and whether it is ready, serving and terminating.
 * - `exact: true`, as the hints analysis reads it besides: the zone as written and, when that is
 *   empty, as resolved through the node; whether each condition is true, false or unset; and
 *   whether a hints object without a zone list is present.
 */
export function endpointShape(endpoint: Endpoint, nodeZoneByName: ReadonlyMap<string, string | null>, exact: boolean): string {
  const hints = endpoint.hints;
  const forZones = hints?.forZones;
  const zoneHints =
    forZones !== undefined
      ? `${forZones.length}:${forZones.length === 1 ? forZones[0] : forZones.join(SHAPE_ITEM)}`
      : exact && hints !== null
        ? NO_ZONE_LIST
        : NONE;
  if (!exact) {
    const flags = (endpoint.ready !== false ? 1 : 0) + (endpoint.serving !== false ? 2 : 0) + (endpoint.terminating === true ? 4 : 0);
    return `${zoneShape(endpointZone(endpoint, nodeZoneByName))}${FIELD}${zoneHints}${FIELD}${flags}`;
  }
  const zone = endpoint.zone;
  const resolved = zone !== null && zone !== '' ? '' : zoneShape(endpointZone(endpoint, nodeZoneByName));
  const flags = condition(endpoint.ready) * 9 + condition(endpoint.serving) * 3 + condition(endpoint.terminating);
  return `${zoneShape(zone)}${FIELD}${resolved}${FIELD}${zoneHints}${FIELD}${flags}`;
}

/** The first one-character code of an endpoint shape: above Latin-1, so no marker or digit of a key is a code. */
const FIRST_CODE = 0x100;
/** The last: below the UTF-16 surrogates. */
const LAST_CODE = 0xd7ff;
/** Wraps a shape's text once every code is taken (a zone is a label value: never this character). */
const LITERAL = '\u0007';
const CODES = new Map<string, string>();

/**
 * One character standing for an endpoint shape's text ({@link endpointShape}), the same for equal
 * texts and different for different ones for the life of the process; once the ~55,000 codes are
 * taken, the text itself between two {@link LITERAL} marks. Keys spell each endpoint as its code:
 * a Service of 4,000 endpoints gives a key of ~4,000 characters instead of ~80,000, which the
 * memos hash on every look-up (at realistic L that hashing was ~90 ms of a ~700 ms pass). A
 * cluster has few distinct shapes (zones × hints × conditions), so the table stays small.
 */
export function shapeCode(text: string): string {
  let code = CODES.get(text);
  if (code === undefined) {
    if (FIRST_CODE + CODES.size > LAST_CODE) return `${LITERAL}${text}${LITERAL}`;
    code = String.fromCharCode(FIRST_CODE + CODES.size);
    CODES.set(text, code);
  }
  return code;
}

/** Small numbers for zones in {@link endpointShapeCode}'s look-up (0: none, 1: empty). */
const ZONE_NUMBERS = new Map<string, number>();
/** Zones {@link endpointShapeCode} numbers before it leaves further ones to the text. */
const MAX_ZONE_NUMBER = 255;
/** Codes by a number made of the shape's parts, one table per kind of shape. */
const CODES_BY_PARTS: readonly [Map<number, string>, Map<number, string>] = [new Map(), new Map()];

function zoneNumber(zone: string | null | undefined): number {
  if (zone === null || zone === undefined) return 0;
  if (zone === '') return 1;
  let known = ZONE_NUMBERS.get(zone);
  if (known === undefined) {
    if (ZONE_NUMBERS.size + 2 > MAX_ZONE_NUMBER) return -1;
    known = ZONE_NUMBERS.size + 2;
    ZONE_NUMBERS.set(zone, known);
  }
  return known;
}

/**
 * `shapeCode(endpointShape(endpoint, nodeZoneByName, exact))`, without spelling the shape out for
 * the usual endpoint (no hints or one zone hint, at most 254 zones in the process): its parts are
 * numbered and the code looked up by that number, the text built once per distinct shape. Keys
 * call this for every endpoint of every Service they spell.
 */
export function endpointShapeCode(endpoint: Endpoint, nodeZoneByName: ReadonlyMap<string, string | null>, exact: boolean): string {
  return shapeCodeOfParts(endpointShapeParts(endpoint, nodeZoneByName, exact), endpoint, nodeZoneByName, exact);
}

/**
 * The number {@link endpointShapeCode} looks an endpoint's code up by: equal for endpoints of equal
 * shape (and different for different ones) as long as it is not negative; `-1` for the unusual
 * endpoint whose shape only its text spells (several zone hints, beyond 254 zones).
 */
export function endpointShapeParts(endpoint: Endpoint, nodeZoneByName: ReadonlyMap<string, string | null>, exact: boolean): number {
  const hints = endpoint.hints;
  const forZones = hints?.forZones;
  let hinted: number;
  if (hints === null) hinted = 0;
  else if (forZones !== undefined && forZones.length === 1) {
    const numbered = zoneNumber(forZones[0]);
    hinted = numbered < 0 ? -1 : numbered + 1;
  } else hinted = -1;
  if (hinted < 0 || hinted > MAX_ZONE_NUMBER) return -1;
  if (exact) {
    const zone = endpoint.zone;
    const written = zoneNumber(zone);
    const resolved = zone !== null && zone !== '' ? 0 : zoneNumber(endpointZone(endpoint, nodeZoneByName)) + 1;
    const flags = condition(endpoint.ready) * 9 + condition(endpoint.serving) * 3 + condition(endpoint.terminating);
    return written >= 0 && resolved > 0 === (zone === null || zone === '') && resolved <= MAX_ZONE_NUMBER ? ((written * 256 + resolved) * 256 + hinted) * 32 + flags : -1;
  }
  const zone = zoneNumber(endpointZone(endpoint, nodeZoneByName));
  const flags = (endpoint.ready !== false ? 1 : 0) + (endpoint.serving !== false ? 2 : 0) + (endpoint.terminating === true ? 4 : 0);
  return zone >= 0 ? (zone * 256 + hinted) * 32 + flags : -1;
}

/**
 * {@link endpointShapeParts} (`exact: false`) of an endpoint without hints whose parts are `parts`,
 * once it carries the one zone hint `zone` (what the controller's `Auto` run gives it); `-1` when
 * that shape has no number (see there).
 */
export function withZoneHintParts(parts: number, zone: string): number {
  const numbered = zoneNumber(zone);
  if (parts < 0 || numbered < 0 || numbered + 1 > MAX_ZONE_NUMBER) return -1;
  return parts + (numbered + 1) * 32;
}

/** {@link endpointShapeCode} of an endpoint whose {@link endpointShapeParts} are `parts`. */
export function shapeCodeOfParts(parts: number, endpoint: Endpoint, nodeZoneByName: ReadonlyMap<string, string | null>, exact: boolean): string {
  if (parts < 0) return shapeCode(endpointShape(endpoint, nodeZoneByName, exact));
  const table = CODES_BY_PARTS[exact ? 1 : 0];
  let code = table.get(parts);
  if (code === undefined) {
    code = shapeCode(endpointShape(endpoint, nodeZoneByName, exact));
    table.set(parts, code);
  }
  return code;
}

/**
 * Whether what is derived from `slices` reads the node zones: only an endpoint without a zone of
 * its own that names a node takes its node's (see {@link endpointZone}). What is kept by slice list
 * is then kept with the node zones it read.
 */
export function readsNodeZones(slices: readonly EndpointSlice[]): boolean {
  for (const slice of slices) for (const endpoint of slice.endpoints) if ((endpoint.zone === null || endpoint.zone === '') && endpoint.nodeName !== null) return true;
  return false;
}

/**
 * Values derived from a Service's slice list (as the index holds it: immutable), kept by the list
 * with the node zones they read ({@link readsNodeZones}): a pass after a Node change finds the value
 * of every unchanged list whose endpoints carry their zones.
 */
export class SliceListMemo<V> {
  readonly #kept = new WeakMap<readonly EndpointSlice[], { readonly zones: ReadonlyMap<string, string | null> | null; readonly value: V }>();

  /** The value kept for `slices` under `nodeZoneByName`, else `compute()`'s, kept. */
  get(slices: readonly EndpointSlice[], nodeZoneByName: ReadonlyMap<string, string | null>, compute: () => V): V {
    const known = this.kept(slices, nodeZoneByName);
    return known !== undefined ? known : this.keep(slices, nodeZoneByName, compute());
  }

  /**
   * The value kept for `slices` under `nodeZoneByName`, `undefined` when none is (with
   * {@link keep}: {@link get} without a closure, for the callers that run for every Service).
   */
  kept(slices: readonly EndpointSlice[], nodeZoneByName: ReadonlyMap<string, string | null>): V | undefined {
    const known = this.#kept.get(slices);
    return known !== undefined && (known.zones === null || known.zones === nodeZoneByName) ? known.value : undefined;
  }

  /** Keeps `value` for `slices` under `nodeZoneByName`, and returns it. */
  keep(slices: readonly EndpointSlice[], nodeZoneByName: ReadonlyMap<string, string | null>, value: V): V {
    this.#kept.set(slices, { zones: readsNodeZones(slices) ? nodeZoneByName : null, value });
    return value;
  }
}

const DISTINCT = new WeakMap<readonly EndpointSlice[], boolean>();

/**
 * Whether no two endpoints of `slices` share a first address (then every endpoint counts on its
 * own, and the callers can skip looking for repeats); found once per slice list. Slices the
 * controller derives from these (the same endpoints with other hints, or a subset) keep it.
 */
export function firstAddressesDistinct(slices: readonly EndpointSlice[]): boolean {
  let distinct = DISTINCT.get(slices);
  if (distinct === undefined) {
    const addresses = new FirstAddresses(slices);
    distinct = true;
    outer: for (const slice of slices) {
      for (const endpoint of slice.endpoints) {
        const address = endpoint.addresses[0];
        if (address !== undefined && addresses.repeatOf(address) >= 0) {
          distinct = false;
          break outer;
        }
      }
    }
    DISTINCT.set(slices, distinct);
  }
  return distinct;
}

/** Services up to this many endpoints find repeated addresses by scanning, larger ones with a map. */
const SCAN_LIMIT = 32;

/**
 * The distinct first addresses of a Service's endpoints, in order of appearance: tells which
 * endpoints repeat an earlier one (kube-proxy programs an address once; the hints diff keys on it).
 */
export class FirstAddresses {
  private readonly scanned: string[] | null;
  private readonly ordinals: Map<string, number> | null;

  /** For the endpoints of `slices` (the count picks scanning or a map). */
  constructor(slices: readonly EndpointSlice[]) {
    let total = 0;
    for (const slice of slices) total += slice.endpoints.length;
    this.scanned = total <= SCAN_LIMIT ? [] : null;
    this.ordinals = this.scanned === null ? new Map() : null;
  }

  /** The ordinal of `address` among the distinct addresses seen so far, or -1 when it is new (it is then recorded). */
  repeatOf(address: string): number {
    const known = this.scanned !== null ? this.scanned.indexOf(address) : (this.ordinals?.get(address) ?? -1);
    if (known >= 0) return known;
    if (this.scanned !== null) this.scanned.push(address);
    else this.ordinals?.set(address, this.ordinals.size);
    return -1;
  }
}
