/**
 * The warm phase of a generator's run, on a synced server: `requests` sequential timed requests
 * (after warm-up requests) of each API route and page the figures name — the cluster, the
 * Services list's first page, "a Service" and the big Service (targets.ts) — then a concurrency
 * phase of `clients` clients over a mix of them. Around it, the simulator's counters: requests
 * other than watches (the read path must not call the API server: 0) and open watches per
 * resource type. After it, the server's RSS right away, steady (after 10 s without requests, the
 * median of {@link STEADY_SAMPLES} samples 1 s apart) and at its peak so far.
 */
import { nonWatchRequests, resetSimStats, simStats, watchRequests } from './cluster';
import { log } from './environment';
import type { LatencyStats, Timed } from './http';
import { latencyStats, measureWith, percentile, timedPageView, timedRequest } from './http';
import { treeHwmMiB, treeRssMiB } from './process-tree';
import { r1 } from './report';

/** What the warm phase measured. */
export interface WarmFigures {
  /** Latencies per label: `api.cluster`, `api.services`, `api.service`, `api.big`, `page.overview`, `page.services`, `page.service`, `page.big`, and `concurrent`. */
  readonly stats: Readonly<Record<string, LatencyStats>> & { readonly concurrent: LatencyStats };
  /** Simulator requests besides watches over the phase. */
  readonly readPath: { readonly total: number; readonly byResourceVerb: Readonly<Record<string, number>> };
  /** The most watches open on one resource type. */
  readonly watchesPerType: number;
  readonly rssAfterWarmMiB: number;
  readonly rssMiB: number;
  readonly rssPeakMiB: number;
}

/**
 * How many RSS samples, 1 s apart, the steady figure is the median of. The server is not idle in
 * that window when it reads Prometheus: an answer of the realistic L cluster (~225,000 series)
 * takes a second or two to map and leaves ~130 MiB resident until the idle collector runs (at
 * most every 10 s), and the bench refreshes every 10 s (`--prometheus-refresh-seconds`; the
 * server's default is 60 s). Five samples covered a third to half of one such cycle, so the figure
 * was the low or the high part of it depending on where the cycle fell (469 and 603.5 MiB in two
 * runs of one commit). Twenty cover two refreshes at least: the median is what the server sits at
 * most of the time, as a memory request should be sized; the highest sample is logged with it.
 */
export const STEADY_SAMPLES = 20;

/** The middle value of `samples` (the lower middle of an even count: the nearest-rank 50th percentile). */
export function steadyMedian(samples: readonly number[]): number {
  return percentile([...samples].sort((a, b) => a - b), 50);
}

export async function warmPhase(options: {
  readonly serverUrl: string;
  readonly simUrl: string;
  /** The server's process (its tree's RSS is measured). */
  readonly serverPid: number;
  /** `namespace/name` of "a Service" and of the big one. */
  readonly servicePath: string;
  readonly bigPath: string;
  readonly requests: number;
  readonly clients: number;
  /** Told each part of the phase as it begins (the server's RSS by phase). */
  readonly onPart?: (part: string) => void;
}): Promise<WarmFigures> {
  const part = options.onPart ?? (() => undefined);
  const { serverUrl, simUrl, serverPid, servicePath, bigPath } = options;
  await resetSimStats(simUrl);
  const n = options.requests;
  const api = {
    cluster: `${serverUrl}/api/v1/cluster`,
    services: `${serverUrl}/api/v1/services?limit=100&offset=0`,
    service: `${serverUrl}/api/v1/services/${servicePath}`,
    big: `${serverUrl}/api/v1/services/${bigPath}`,
  };
  const pages = {
    overview: `${serverUrl}/`,
    services: `${serverUrl}/services`,
    service: `${serverUrl}/services/${servicePath}`,
    big: `${serverUrl}/services/${bigPath}`,
  };
  const stats: Record<string, LatencyStats> = {};
  part('warm: API');
  for (const [label, url] of [...Object.entries(api).map(([k, u]) => [`api.${k}`, u]), ...Object.entries(pages).map(([k, u]) => [`page.${k}`, u])] as [string, string][]) {
    if (label === 'page.overview') part('warm: pages');
    // Pages as a browser loads them: the HTML and, for the Services page, the rows it loads after it.
    stats[label] = await measureWith(() => (label.startsWith('page.') ? timedPageView(url) : timedRequest(url, { keepBody: false })), n);
    log(`${label}: p50 ${r1(stats[label].p50)} ms, p95 ${r1(stats[label].p95)} ms`);
  }
  const concurrent: Timed[] = [];
  part('warm: concurrent clients');
  const urls = [api.cluster, api.services, api.service, pages.overview, pages.services];
  await Promise.all(
    Array.from({ length: options.clients }, async (_, c) => {
      for (let i = 0; i < Math.max(5, Math.ceil(n / 4)); i++) {
        const url = urls[(c + i) % urls.length] as string;
        concurrent.push(await (url === pages.overview || url === pages.services ? timedPageView(url) : timedRequest(url, { keepBody: false })));
      }
    }),
  );
  const concurrentStats = latencyStats(concurrent);
  const afterWarm = await simStats(simUrl);
  const readPath = nonWatchRequests(afterWarm);
  const watchesPerType = Math.max(0, ...Object.values(afterWarm.openWatches));
  const rssAfterWarmRaw = treeRssMiB(serverPid).total;
  const rssAfterWarmMiB = r1(rssAfterWarmRaw);
  part('warm: idle');
  // Steady RSS: after 10 s without requests (V8 shrinks its heap when idle), the median of STEADY_SAMPLES samples 1 s apart.
  await new Promise((r) => setTimeout(r, 10_000));
  const rssSamples: number[] = [];
  for (let i = 0; i < STEADY_SAMPLES; i++) {
    rssSamples.push(treeRssMiB(serverPid).total);
    await new Promise((r) => setTimeout(r, 1000));
  }
  const rssMiB = r1(steadyMedian(rssSamples));
  // Peak RSS (VmHWM) so far: cold sync, the first full analysis, the warm and concurrency phases and
  // the idle samples. Read after every RSS figure it must bound (a high-water mark read before an RSS
  // sample can be below it: the heap may grow in between). The kernel updates VmHWM lazily (on unmap
  // and at exit, not when pages are dropped with madvise), and a worker process may have exited since,
  // so the peak is also at least every RSS figure the bench saw itself.
  const rssPeakMiB = r1(Math.max(treeHwmMiB(serverPid), rssAfterWarmRaw, ...rssSamples));
  log(`read path: ${readPath.total} API requests besides watches (${watchRequests(afterWarm)} watch requests; ${afterWarm.health ?? 0} liveness probes, not counted); open watches ${JSON.stringify(afterWarm.openWatches)}; RSS ${rssMiB} MiB steady (median of ${rssSamples.length} samples 1 s apart: ${rssSamples.map((v) => Math.round(v)).join(', ')}; highest ${r1(Math.max(...rssSamples))}), peak ${rssPeakMiB} MiB, ${rssAfterWarmMiB} MiB right after the warm phase`);
  return { stats: { ...stats, concurrent: concurrentStats }, readPath, watchesPerType, rssAfterWarmMiB, rssMiB, rssPeakMiB };
}
