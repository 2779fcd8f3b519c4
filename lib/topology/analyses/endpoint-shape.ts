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
