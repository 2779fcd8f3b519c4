/**
 * What a Service's EndpointSlices carry now: endpoints per zone (ready or not), zone-hint counts of
 * the ready endpoints, whether any hints are present, ready endpoints without a hint, and the
 * endpoints hinted for another zone than their own (donated: they serve another zone's traffic).
 */
import { UNKNOWN_ZONE } from './traffic';
import { sortedRecord } from '../upstream/sorted';
import type { AddressType, EndpointSlice, ValueByZone } from '../upstream/types';

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Zone-hint counts of ready endpoints (`ready: true`), one per listed zone, sorted by zone. */
export function countHintsByZone(slices: readonly EndpointSlice[]): ValueByZone<number> {
  const counts = new Map<string, number>();
  // Indexed loops: a for…of makes an iterator result per step until the JIT has optimised the
  // function, and this runs for thousands of Services a pass.
  for (let s = 0; s < slices.length; s++) {
    const { endpoints } = slices[s] as EndpointSlice;
    for (let e = 0; e < endpoints.length; e++) {
      const endpoint = endpoints[e] as EndpointSlice['endpoints'][number];
      const forZones = endpoint.ready === true && endpoint.hints !== null ? endpoint.hints.forZones : undefined;
      if (forZones === undefined) continue;
      for (let z = 0; z < forZones.length; z++) {
        const zone = forZones[z] as string;
        counts.set(zone, (counts.get(zone) ?? 0) + 1);
      }
    }
  }
  return sortedRecord(counts);
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

const OBSERVED = new WeakMap<readonly EndpointSlice[], ObservedHints>();

/**
 * What `slices` (of one address type) carry now: one walk over the endpoints, once per slice list
 * (it reads nothing but the slices, which are immutable: a pass after a Node change, which
 * analyses every Service again, finds the counts of each unchanged list).
 */
export function observeHints(addressType: AddressType, slices: readonly EndpointSlice[]): ObservedHints {
  const known = OBSERVED.get(slices);
  if (known !== undefined && known.addressType === addressType) return known;
  const observed = countObserved(addressType, slices);
  OBSERVED.set(slices, observed);
  return observed;
}

function countObserved(addressType: AddressType, slices: readonly EndpointSlice[]): ObservedHints {
  const byZone = new Map<string, { ready: number; notReady: number }>();
  const hintCounts = new Map<string, number>();
  let totalEndpoints = 0;
  let readyEndpoints = 0;
  let hintsPresent = false;
  let readyWithoutHints = 0;
  let donated = 0;
  for (const slice of slices) {
    for (const endpoint of slice.endpoints) {
      totalEndpoints++;
      const zone = endpoint.zone === null || endpoint.zone === '' ? UNKNOWN_ZONE : endpoint.zone;
      let tally = byZone.get(zone);
      if (tally === undefined) {
        tally = { ready: 0, notReady: 0 };
        byZone.set(zone, tally);
      }
      const hints = endpoint.hints;
      const forZones = hints !== null ? hints.forZones : undefined;
      if (endpoint.ready === true) {
        tally.ready++;
        readyEndpoints++;
        if (forZones === undefined || forZones.length === 0) readyWithoutHints++;
        else {
          // countHintsByZone and countDonatedEndpoints, in the same walk.
          for (const hinted of forZones) hintCounts.set(hinted, (hintCounts.get(hinted) ?? 0) + 1);
          if (endpoint.zone !== null && endpoint.zone !== '' && !forZones.includes(endpoint.zone)) donated++;
        }
      } else {
        tally.notReady++;
      }
      if (hints !== null && ((forZones?.length ?? 0) > 0 || (hints.forNodes?.length ?? 0) > 0)) hintsPresent = true;
    }
  }
  return {
    addressType,
    slices: slices.length,
    totalEndpoints,
    readyEndpoints,
    endpointsByZone: sortedRecord(byZone),
    hintCountsByZone: sortedRecord(hintCounts),
    hintsPresent,
    readyEndpointsWithoutHints: hintsPresent ? readyWithoutHints : readyEndpoints,
    donatedEndpoints: donated,
  };
}
