/**
 * Services whose endpoints look alike to the traffic model share its figures: a key that spells
 * out what `computeTrafficFigures` (traffic.ts) reads of a Service's endpoints and settings (never
 * addresses, pod names or — without node-by-node evaluation — node names), and a bounded memo of
 * figures by that key for one set of clients and one release.
 */
import { endpointShapeCode, FirstAddresses } from './endpoint-shape';
import type { TrafficFigures, TrafficInput } from './traffic';
import type { EndpointSlice } from '../upstream/types';

/**
 * A key for `computeTrafficFigures` of the endpoints of `slices` (as `toTrafficEndpoints`
 * reads them) under `input`'s Service settings: two inputs with the same key and the same clients
 * and release get the same figures, because the figures never depend on addresses, pod names or —
 * without node-by-node evaluation — node names. `null` when node names may matter
 * (`internalTrafficPolicy: Local` or node hints), so the figures must be computed.
 */
export function trafficFiguresKey(
  slices: readonly EndpointSlice[],
  nodeZoneByName: ReadonlyMap<string, string | null>,
  input: Pick<TrafficInput, 'service' | 'honoursHints' | 'proxied'>,
  endpoints?: TrafficEndpointsKey,
): string | null {
  const { service } = input;
  if (service.internalTrafficPolicy === 'Local') return null;
  const endpointsPart = endpoints === undefined ? trafficEndpointsKey(slices, nodeZoneByName) : endpoints.key;
  if (endpointsPart === null) return null;
  return `${service.externalTrafficPolicy}|${service.externallyAccessible ? 1 : 0}|${input.honoursHints ? 1 : 0}|${input.proxied ? 1 : 0}|${JSON.stringify(service.hintsAnnotation)}${endpointsPart}`;
}

/** The endpoints' part of a {@link trafficFiguresKey}, computed once for slices that several keys read (see there). */
export interface TrafficEndpointsKey {
  readonly key: string | null;
}

/**
 * The part of {@link trafficFiguresKey} that spells out the endpoints of `slices` (each kept one
 * as the code of its shape, `shapeCode`), `null` when one carries node hints.
 */
export function trafficEndpointsKey(slices: readonly EndpointSlice[], nodeZoneByName: ReadonlyMap<string, string | null>, addressesDistinct = false): string | null {
  let key = '';
  // The endpoints toTrafficEndpoints keeps (first of each address), each by its traffic shape;
  // with `addressesDistinct` (no two share a first address) every endpoint with an address.
  const addresses = addressesDistinct ? null : new FirstAddresses(slices);
  for (const slice of slices) {
    for (const endpoint of slice.endpoints) {
      const address = endpoint.addresses[0];
      if (address === undefined || (addresses !== null && addresses.repeatOf(address) >= 0)) continue;
      if ((endpoint.hints?.forNodes?.length ?? 0) > 0) return null;
      key += endpointShapeCode(endpoint, nodeZoneByName, false);
    }
  }
  return key;
}

/** Entries a {@link TrafficFiguresMemo} keeps before it starts over. */
export const TRAFFIC_FIGURES_MEMO_LIMIT = 5_000;

/** Figures by {@link trafficFiguresKey}, for one set of clients and one release. Bounded. */
export class TrafficFiguresMemo {
  private figures = new Map<string, TrafficFigures>();

  /** The figures for `key`, computed by `compute` when not known yet. */
  get(key: string, compute: () => TrafficFigures): TrafficFigures {
    const known = this.figures.get(key);
    if (known !== undefined) return known;
    const value = compute();
    if (this.figures.size >= TRAFFIC_FIGURES_MEMO_LIMIT) this.figures = new Map();
    this.figures.set(key, value);
    return value;
  }

  get size(): number {
    return this.figures.size;
  }
}
