/**
 * The churn run: `rate` changes per second for a while, alternating pod readiness flips (which the
 * simulator's EndpointSlice controller turns into EndpointSlice updates, as a real cluster would)
 * and direct EndpointSlice edits, while a light reader keeps the dashboard analysing every
 * generation; the server's RSS is sampled every 10 s.
 */
import type { ChurnPod } from './cluster';
import { CHANGE_NAMESPACE, CHANGE_SERVICE, setChangeEndpointReady, setPodReady } from './cluster';
import type { LatencyStats, Timed } from './http';
import { latencyStats, timedRequest } from './http';

/** What the churn run measured. */
export interface ChurnResult {
  readonly minutes: number;
  readonly changesSent: number;
  readonly changeErrors: number;
  /** Server RSS samples (MiB), one every 10 s. */
  readonly rssSamplesMiB: readonly number[];
  /**
   * Growth of the low envelope: lowest sample of the last third minus lowest of the first third,
   * after the first 2 minutes (the working set grows from idle to churn first). RSS is a sawtooth
   * under churn — garbage piles up until a full GC — so the lows show what stays.
   */
  readonly rssGrowthMiB: number;
  readonly rssMaxMiB: number;
  /** `/api/v1/cluster` and Service reads during churn. */
  readonly readsDuringChurn: LatencyStats;
}

export async function churn(options: {
  simUrl: string;
  serverUrl: string;
  pods: readonly ChurnPod[];
  minutes: number;
  rate: number;
  rssMiB: () => number;
  log: (line: string) => void;
}): Promise<ChurnResult> {
  const { simUrl, serverUrl, pods, rate } = options;
  const endAt = performance.now() + options.minutes * 60_000;
  const unready = new Set<number>();
  const manualUnready = new Set<number>();
  let sent = 0;
  let errors = 0;
  let tick = 0;
  const samples: number[] = [];
  const reads: Timed[] = [];
  let stopping = false;

  // 1. Changes: one every 1000/rate ms, each awaited so the simulator is never flooded.
  const changes = (async () => {
    const interval = 1000 / rate;
    let next = performance.now();
    while (performance.now() < endAt) {
      tick++;
      try {
        if (tick % 2 === 0 || pods.length === 0) {
          // Direct EndpointSlice edit: flip one endpoint of the benchmark's own slice.
          const index = tick % 30;
          const ready = manualUnready.has(index);
          await setChangeEndpointReady(simUrl, index, ready);
          if (ready) manualUnready.delete(index);
          else manualUnready.add(index);
        } else {
          // Pod readiness: flip a pod; flip it back on a later pass so the cluster stays near its start.
          const index = (tick * 7919) % pods.length;
          const pod = pods[index] as ChurnPod;
          const ready = unready.has(index);
          await setPodReady(simUrl, pod, ready);
          if (ready) unready.delete(index);
          else unready.add(index);
        }
        sent++;
      } catch {
        errors++;
      }
      next += interval;
      const wait = next - performance.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      else next = performance.now();
    }
  })();

  // 2. A light reader (two requests a second) so every generation gets analysed.
  const reader = (async () => {
    let i = 0;
    while (!stopping && performance.now() < endAt) {
      const url = i % 2 === 0 ? `${serverUrl}/api/v1/cluster` : `${serverUrl}/api/v1/services/${CHANGE_NAMESPACE}/${CHANGE_SERVICE}`;
      i++;
      try {
        reads.push(await timedRequest(url, { keepBody: false }));
      } catch {
        // Counted as missing samples.
      }
      await new Promise((r) => setTimeout(r, 500));
    }
  })();

  // 3. RSS every 10 s.
  samples.push(options.rssMiB());
  const sampler = setInterval(() => {
    const rss = options.rssMiB();
    samples.push(rss);
    options.log(`churn: ${sent} changes, ${errors} errors, server RSS ${rss.toFixed(0)} MiB`);
  }, 10_000);
  await changes;
  stopping = true;
  await reader;
  clearInterval(sampler);
  samples.push(options.rssMiB());

  // Leave the cluster as it was.
  for (const index of unready) await setPodReady(simUrl, pods[index] as ChurnPod, true).catch(() => undefined);
  for (const index of manualUnready) await setChangeEndpointReady(simUrl, index, true).catch(() => undefined);

  // Samples are 10 s apart; skip the warm-up (2 min, or the first sample of a short run).
  const settled = samples.length > 18 ? samples.slice(12) : samples.slice(1);
  const third = Math.max(1, Math.floor(settled.length / 3));
  const head = settled.slice(0, third);
  const tail = settled.slice(-third);
  return {
    minutes: options.minutes,
    changesSent: sent,
    changeErrors: errors,
    rssSamplesMiB: samples.map((s) => Math.round(s)),
    rssGrowthMiB: Math.round((Math.min(...tail) - Math.min(...head)) * 10) / 10,
    rssMaxMiB: Math.round(Math.max(...samples)),
    readsDuringChurn: latencyStats(reads),
  };
}
