/**
 * The order of the per-endpoint tables of the Service page, shared by the server (which renders
 * the first rows) and the browser (which sorts the complete list when it is loaded): what needs a
 * look first — not ready, hints that differ from the controller's, donated, without hints — then
 * by zone and address.
 */
import type { EndpointView } from '@/lib/topology/analyses/analyze-service';
import type { HintsDiffEntry } from '@/lib/topology/analyses/hints-diff';
import type { EndpointLoad } from '@/lib/topology/analyses/traffic';

function text(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function sameZones(a: readonly string[] | null, b: readonly string[] | null): boolean {
  const x = a ?? [];
  const y = b ?? [];
  return x.length === y.length && x.every((zone) => y.includes(zone));
}

function hintedAway(endpoint: EndpointView, hints: readonly string[] | null): boolean {
  return hints !== null && hints.some((zone) => zone !== endpoint.zone);
}

/** Whether observed and expected hints of an endpoint differ. */
export function hintsDiffer(endpoint: EndpointView): boolean {
  return !sameZones(endpoint.observedHints, endpoint.expectedHints);
}

/** 0 not ready, 1 hints differ from the expected ones, 2 donated (now or after sync), 3 no hint now, 4 the rest. */
export function endpointRank(endpoint: EndpointView): number {
  if (endpoint.ready === false) return 0;
  if (hintsDiffer(endpoint)) return 1;
  if (hintedAway(endpoint, endpoint.observedHints) || hintedAway(endpoint, endpoint.expectedHints)) return 2;
  if (!endpoint.observedHints || endpoint.observedHints.length === 0) return 3;
  return 4;
}

/** The endpoints in table order (a sorted copy). */
export function sortEndpoints(endpoints: readonly EndpointView[]): EndpointView[] {
  const ranked = endpoints.map((endpoint) => ({ endpoint, rank: endpointRank(endpoint), zone: endpoint.zone ?? '\uffff' }));
  ranked.sort((a, b) => a.rank - b.rank || text(a.zone, b.zone) || text(a.endpoint.address, b.endpoint.address));
  return ranked.map((r) => r.endpoint);
}

const DIFF_RANK: Record<HintsDiffEntry['kind'], number> = { stale: 0, missing: 1, unexpected: 2 };

/** Differing endpoints in table order: stale, missing, then unexpected hints; by zone and address. */
export function sortDiffEntries(entries: readonly HintsDiffEntry[]): HintsDiffEntry[] {
  return [...entries].sort((a, b) => DIFF_RANK[a.kind] - DIFF_RANK[b.kind] || text(a.zone ?? '\uffff', b.zone ?? '\uffff') || text(a.address, b.address));
}

/** Endpoint loads, busiest first (ties by address). */
export function sortLoads<T extends Pick<EndpointLoad, 'endpoint' | 'relativeLoad'>>(loads: readonly T[]): T[] {
  return [...loads].sort((a, b) => b.relativeLoad - a.relativeLoad || text(a.endpoint, b.endpoint));
}
