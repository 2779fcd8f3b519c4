/**
 * The traffic figures of issue 13 in `npm run bench`:
 *
 * - what the cluster-wide `traffic` block costs `GET /api/v1/cluster`: its size in the answer, and
 *   the p95 when the block is recomputed for every request (a what-if query parameter: the same
 *   per-Service flows, other volume settings) beside the p95 of the shared, memoised block;
 * - Prometheus queries per minute while 1 and while 20 clients read the dashboard (a mix of
 *   `/api/v1/cluster`, the Services list, one Service and the overview page), from the
 *   `metrics.queriesIssued` counter of `/api/v1/cluster` — the queries are per refresh for the
 *   whole server, so both should be the same.
 *
 * Then the phase's fields of the final JSON object and the lines the bench prints. Figures only:
 * nothing here asserts a time.
 */
import type { LatencyStats, Timed } from './http';
import { getJson, latencyStats, measure, timedRequest } from './http';
import type { BenchResult } from './report';
import { r1 } from './report';

/** What the traffic phase measured. */
export interface TrafficFigures {
  /** Bytes of the `traffic` and `metrics` blocks in the `/api/v1/cluster` answer. */
  readonly trafficBlockBytes: number;
  readonly metricsBlockBytes: number;
  /** The whole answer. */
  readonly clusterBytes: number;
  /** Volume sources of the block (`measured-flows`: n Services, …) as the server counted them. */
  readonly sources: Readonly<Record<string, number>>;
  /** `/api/v1/cluster?pricePerGb=…`: the block recomputed on every request. */
  readonly whatIf: LatencyStats;
  /** The metrics source's state at the end of the phase. */
  readonly metricsState: string;
  readonly refreshSeconds: number | null;
  readonly queriesPerRefresh: number | null;
  /** Per client count: requests served, queries issued meanwhile, queries per minute. */
  readonly load: readonly LoadFigures[];
}

/** One load level of the queries-per-minute measurement. */
export interface LoadFigures {
  readonly clients: number;
  readonly seconds: number;
  readonly requests: number;
  readonly errors: number;
  readonly p95Ms: number;
  readonly queries: number;
  readonly queriesPerMinute: number;
  /** `/api/v1/cluster/generation` (O(types), no analysis) polled every 200 ms meanwhile: its worst time shows event-loop stalls, e.g. while a Prometheus answer is mapped. */
  readonly probeMaxMs: number;
  readonly probeP95Ms: number;
}

interface ClusterAnswer {
  readonly traffic?: { readonly sources?: Readonly<Record<string, { readonly services: number }>> } | null;
  readonly metrics?: { readonly state: string; readonly queriesIssued: number; readonly queriesPerRefresh: number; readonly refreshSeconds: number } | null;
}

async function metricsNow(serverUrl: string): Promise<NonNullable<ClusterAnswer['metrics']> | null> {
  return (await getJson<ClusterAnswer>(`${serverUrl}/api/v1/cluster`)).metrics ?? null;
}

/** One request; a transport error (reset, timeout) is a sample with status 0, counted as an error. */
async function attempt(url: string): Promise<Timed> {
  const startedAt = performance.now();
  try {
    return await timedRequest(url, { keepBody: false });
  } catch {
    await new Promise((resolve) => setTimeout(resolve, 100));
    return { status: 0, ms: performance.now() - startedAt, bytes: 0, body: '', headers: {} };
  }
}

/** `clients` readers in a loop over `urls` for `seconds`; the queries the server sent to Prometheus meanwhile. */
async function underLoad(serverUrl: string, urls: readonly string[], clients: number, seconds: number): Promise<LoadFigures> {
  const before = await metricsNow(serverUrl);
  const startedAt = performance.now();
  const until = startedAt + seconds * 1000;
  const samples: Timed[] = [];
  const probes: Timed[] = [];
  const probe = async () => {
    while (performance.now() < until) {
      probes.push(await attempt(`${serverUrl}/api/v1/cluster/generation`));
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  };
  await Promise.all([
    probe(),
    ...Array.from({ length: clients }, async (_, c) => {
      for (let i = c; performance.now() < until; i++) samples.push(await attempt(urls[i % urls.length] as string));
    }),
  ]);
  const elapsed = (performance.now() - startedAt) / 1000;
  const after = await metricsNow(serverUrl);
  const queries = before !== null && after !== null ? after.queriesIssued - before.queriesIssued : 0;
  const stats = latencyStats(samples);
  const probeStats = latencyStats(probes);
  return {
    clients,
    seconds: elapsed,
    requests: samples.length,
    errors: stats.errors,
    p95Ms: stats.p95,
    queries,
    queriesPerMinute: (queries / elapsed) * 60,
    probeMaxMs: probeStats.max,
    probeP95Ms: probeStats.p95,
  };
}

/** Runs the traffic phase against a synced server. */
export async function trafficPhase(options: {
  readonly serverUrl: string;
  readonly requests: number;
  /** Seconds of each load level. */
  readonly seconds: number;
  readonly clientCounts: readonly number[];
  readonly servicePath: string;
  readonly log: (line: string) => void;
}): Promise<TrafficFigures> {
  const { serverUrl, log } = options;
  const whole = await timedRequest(`${serverUrl}/api/v1/cluster`);
  if (whole.status !== 200) throw new Error(`/api/v1/cluster answered ${whole.status}`);
  const body = JSON.parse(whole.body) as ClusterAnswer;
  const trafficBlockBytes = Buffer.byteLength(JSON.stringify(body.traffic ?? null));
  const metricsBlockBytes = Buffer.byteLength(JSON.stringify(body.metrics ?? null));
  const sources = Object.fromEntries(Object.entries(body.traffic?.sources ?? {}).map(([kind, value]) => [kind, value.services]));
  log(`traffic block: ${Math.round(trafficBlockBytes / 102.4) / 10} KiB of ${Math.round(whole.bytes / 1024)} KiB; sources ${JSON.stringify(sources)}`);

  // A price a hair off the default: the block is recomputed on every request (no re-analysis).
  const whatIf = await measure(`${serverUrl}/api/v1/cluster?pricePerGb=0.0101`, options.requests);
  log(`/api/v1/cluster with a what-if (block recomputed per request): p50 ${whatIf.p50.toFixed(1)} ms, p95 ${whatIf.p95.toFixed(1)} ms`);

  const urls = [`${serverUrl}/api/v1/cluster`, `${serverUrl}/api/v1/services?limit=100&offset=0`, `${serverUrl}/api/v1/services/${options.servicePath}`, `${serverUrl}/`];
  const load: LoadFigures[] = [];
  for (const clients of options.clientCounts) {
    const figures = await underLoad(serverUrl, urls, clients, options.seconds);
    load.push(figures);
    log(
      `${clients} client(s) for ${figures.seconds.toFixed(0)} s: ${figures.requests} requests, ${figures.queries} Prometheus queries (${figures.queriesPerMinute.toFixed(1)}/min); generation probe p95 ${figures.probeP95Ms.toFixed(0)} ms, max ${figures.probeMaxMs.toFixed(0)} ms`,
    );
  }
  const last = await metricsNow(serverUrl);
  return {
    trafficBlockBytes,
    metricsBlockBytes,
    clusterBytes: whole.bytes,
    sources,
    whatIf,
    metricsState: last?.state ?? 'absent',
    refreshSeconds: last?.refreshSeconds ?? null,
    queriesPerRefresh: last?.queriesPerRefresh ?? null,
    load,
  };
}

/** The flat traffic fields of the final JSON object (`prometheus`: what they were measured against; alone when the phase did not measure). */
export function trafficFields(figures: TrafficFigures | null, prometheus: string): Pick<BenchResult, 'prometheus' | 'trafficBlockKiB' | 'clusterWhatIfP95Ms' | 'promQueriesPerMin1' | 'promQueriesPerMin20'> {
  if (figures === null) return { prometheus };
  const perMinute = (clients: number) => figures.load.find((l) => l.clients === clients)?.queriesPerMinute;
  const one = perMinute(1);
  const twenty = perMinute(20);
  return {
    prometheus,
    trafficBlockKiB: r1(figures.trafficBlockBytes / 1024),
    clusterWhatIfP95Ms: r1(figures.whatIf.p95),
    ...(one !== undefined ? { promQueriesPerMin1: r1(one) } : {}),
    ...(twenty !== undefined ? { promQueriesPerMin20: r1(twenty) } : {}),
  };
}

/** The lines the bench prints for the traffic phase. */
export function trafficTable(figures: TrafficFigures, clusterP95Ms: number, prometheus: string): string {
  const lines = [
    `traffic (issue 13) — Prometheus: ${prometheus}; metrics state at the end: ${figures.metricsState}` +
      (figures.refreshSeconds !== null ? `, ${figures.queriesPerRefresh ?? '?'} queries per ${figures.refreshSeconds} s refresh` : ''),
    `  traffic block in /api/v1/cluster               ${r1(figures.trafficBlockBytes / 1024)} KiB of ${r1(figures.clusterBytes / 1024)} KiB (metrics block ${r1(figures.metricsBlockBytes / 1024)} KiB)`,
    `  volume sources (Services)                      ${Object.entries(figures.sources).map(([k, v]) => `${k} ${v}`).join(', ') || 'none'}`,
    `  /api/v1/cluster p95, shared block              ${r1(clusterP95Ms)} ms`,
    `  /api/v1/cluster p95, block recomputed (what-if) ${r1(figures.whatIf.p95)} ms (p50 ${r1(figures.whatIf.p50)} ms)`,
  ];
  for (const l of figures.load) {
    lines.push(
      `  Prometheus queries/min, ${String(l.clients).padStart(2)} client(s)            ${r1(l.queriesPerMinute)} (${l.queries} in ${r1(l.seconds)} s; ${l.requests} requests, p95 ${r1(l.p95Ms)} ms${l.errors ? `, ${l.errors} errors` : ''}; /api/v1/cluster/generation p95 ${r1(l.probeP95Ms)} ms, max ${r1(l.probeMaxMs)} ms)`,
    );
  }
  return lines.join('\n');
}
