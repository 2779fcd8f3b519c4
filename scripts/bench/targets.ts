/**
 * What the benchmark's phases request on a cluster: the Service measured as "a Service" (about
 * 250 endpoints), the one measured as "big" (the most ready endpoints), and the texts the browser
 * phase types into the Services page's search box.
 *
 * On the reference generator these are its own bench Services (`bench/big-250`,
 * `bench/big-<largest>`) and the filters `team-1`, `big-`. On any other cluster (the realistic
 * generator) they are picked from the cluster itself, through the dashboard's own Services API,
 * once it has synced: the choice is deterministic for a given cluster and reported with the figures.
 */
import type { Scale } from './args';
import { getJson } from './http';

/** A Service the phases request, with its ready endpoints as the dashboard counts them. */
export interface ServiceTarget {
  readonly namespace: string;
  readonly name: string;
  readonly readyEndpoints: number;
}

/** The benchmark's targets on one cluster. */
export interface BenchTargets {
  /** The Service of `serviceP95Ms`, `servicePageP95Ms`, `serviceLcpMs` and the traffic phase. */
  readonly service: ServiceTarget;
  /** The Service of `bigServiceP95Ms`, `bigServicePageP95Ms` and `bigServiceLcpMs`. */
  readonly big: ServiceTarget;
  /** Texts typed into the Services page's search box, one after the other (then cleared). */
  readonly filterTexts: readonly string[];
  /** How they were chosen (printed with the figures). */
  readonly note: string;
}

/** `namespace/name` of a target (the path segment of its API and page). */
export function targetPath(target: ServiceTarget): string {
  return `${target.namespace}/${target.name}`;
}

/** The endpoint count the "a Service" figures aim at (the reference generator's `big-250`). */
export const SERVICE_ENDPOINTS = 250;

/**
 * The big target (most ready endpoints; ties by `namespace/name`) and the Service nearest to
 * {@link SERVICE_ENDPOINTS} ready endpoints among the others (ties: more endpoints, then by name;
 * the big one itself when it is the only Service with endpoints). `exclude` (e.g. the change-latency
 * target) is never picked. `null` when no Service has a ready endpoint.
 */
export function pickServiceTargets(rows: readonly ServiceTarget[], exclude: ReadonlySet<string> = new Set()): { service: ServiceTarget; big: ServiceTarget } | null {
  const candidates = rows.filter((r) => r.readyEndpoints > 0 && !exclude.has(targetPath(r)));
  if (candidates.length === 0) return null;
  const byName = (a: ServiceTarget, b: ServiceTarget) => (targetPath(a) < targetPath(b) ? -1 : targetPath(a) > targetPath(b) ? 1 : 0);
  const big = [...candidates].sort((a, b) => b.readyEndpoints - a.readyEndpoints || byName(a, b))[0] as ServiceTarget;
  const others = candidates.filter((r) => r !== big);
  const distance = (r: ServiceTarget) => Math.abs(r.readyEndpoints - SERVICE_ENDPOINTS);
  const service = others.length === 0 ? big : ([...others].sort((a, b) => distance(a) - distance(b) || b.readyEndpoints - a.readyEndpoints || byName(a, b))[0] as ServiceTarget);
  return { service, big };
}

/**
 * Candidate search texts of a cluster, best first: namespace prefixes (a namespace's name up to its
 * first `-`, plus `-` when that leaves a longer name: `payments-` matches `payments-cache/…`) and
 * name fragments (the words of Service names split at `-`, at least 4 characters), each ranked by
 * how near the Services it matches in `namespace/name` come to a tenth of the cluster.
 */
export function filterCandidates(rows: readonly { namespace: string; name: string }[]): { prefixes: string[]; fragments: string[] } {
  const keys = rows.map((r) => `${r.namespace}/${r.name}`.toLowerCase());
  const count = (text: string) => keys.reduce((n, key) => n + (key.includes(text) ? 1 : 0), 0);
  const target = Math.max(1, Math.round(rows.length / 10));
  const rank = (texts: Set<string>) =>
    [...texts]
      .map((text) => ({ text, n: count(text) }))
      .filter((c) => c.n > 0 && c.n < rows.length)
      .sort((a, b) => Math.abs(a.n - target) - Math.abs(b.n - target) || (a.text < b.text ? -1 : a.text > b.text ? 1 : 0))
      .map((c) => c.text);
  const prefixes = new Set<string>();
  const fragments = new Set<string>();
  for (const row of rows) {
    const ns = row.namespace.toLowerCase();
    const dash = ns.indexOf('-');
    prefixes.add(dash > 0 ? ns.slice(0, dash + 1) : `${ns}/`);
    for (const word of row.name.toLowerCase().split('-')) if (word.length >= 4 && !/^\d+$/.test(word)) fragments.add(word);
  }
  return { prefixes: rank(prefixes), fragments: rank(fragments) };
}

/**
 * Two search texts the browser phase can time: each must change the count line the page shows
 * (`matches(text)` = the Services the table lists for it, between 1 and `total − 1`, and the
 * second a different count from the first, so the page's count changes at every step: all →
 * first → second → all). One namespace prefix and one name fragment when the cluster has them.
 */
export async function pickFilterTexts(
  candidates: { prefixes: readonly string[]; fragments: readonly string[] },
  total: number,
  matches: (text: string) => Promise<number>,
): Promise<string[]> {
  const chosen: { text: string; n: number }[] = [];
  for (const list of [candidates.prefixes, candidates.fragments]) {
    for (const text of list.slice(0, 10)) {
      const n = await matches(text);
      if (n > 0 && n < total && !chosen.some((c) => c.n === n)) {
        chosen.push({ text, n });
        break;
      }
    }
  }
  return chosen.map((c) => c.text);
}

/** Endpoints of the reference generator's two named large Services per scale (sim/scenarios/generator.ts). */
export const REFERENCE_BIG_SERVICES: Readonly<Record<Scale, readonly number[]>> = { S: [250], M: [250, 2000], L: [250, 5000] };

/** The reference generator's own targets (sim/scenarios/generator.ts: `bench/big-<size>`, namespaces `team-N`). */
export function referenceTargets(bigSizes: readonly number[]): BenchTargets {
  const biggest = Math.max(...bigSizes);
  return {
    service: { namespace: 'bench', name: 'big-250', readyEndpoints: 250 },
    big: { namespace: 'bench', name: `big-${biggest}`, readyEndpoints: biggest },
    filterTexts: ['team-1', 'big-'],
    note: `the reference generator's bench Services${biggest < 5000 ? ` (no 5,000-endpoint Service at this scale: "big" is the biggest, ${biggest})` : ''}`,
  };
}

interface ServiceRow {
  readonly namespace: string;
  readonly name: string;
  readonly readyEndpoints: number;
}

/**
 * Targets picked from the cluster behind a synced server (`GET /api/v1/services?format=json`, and
 * `?q=…&searchReasons=1` — the table's own search — for each candidate filter text).
 */
export async function discoverTargets(serverUrl: string, exclude: ReadonlySet<string>): Promise<BenchTargets> {
  const all = await getJson<{ total: number; items: ServiceRow[] }>(`${serverUrl}/api/v1/services?format=json`, 120_000);
  const rows = all.items.map((r) => ({ namespace: r.namespace, name: r.name, readyEndpoints: r.readyEndpoints }));
  const picked = pickServiceTargets(rows, exclude);
  if (picked === null) throw new Error('the cluster has no Service with a ready endpoint to measure');
  const matches = async (text: string) => (await getJson<{ total: number }>(`${serverUrl}/api/v1/services?q=${encodeURIComponent(text)}&searchReasons=1&limit=1`)).total;
  const filterTexts = await pickFilterTexts(filterCandidates(rows), all.total, matches);
  return {
    ...picked,
    filterTexts,
    note: `picked from the cluster: "big" = most ready endpoints (${targetPath(picked.big)}, ${picked.big.readyEndpoints}), "a Service" = nearest to ${SERVICE_ENDPOINTS} (${targetPath(picked.service)}, ${picked.service.readyEndpoints}); filters ${filterTexts.map((t) => JSON.stringify(t)).join(', ') || 'none'}`,
  };
}
