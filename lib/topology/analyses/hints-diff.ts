/**
 * Observed against expected zone hints, endpoint by endpoint (by first address): hints missing,
 * hints that should not be there, and hints for other zones than expected.
 */
import type { EndpointSlice } from '../upstream/types';

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
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

/** The zone hints of each endpoint of `slices` by its first address (`null`: none). */
export function hintsByAddress(slices: readonly EndpointSlice[]): Map<string, readonly string[] | null> {
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
