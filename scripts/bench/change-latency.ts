/**
 * The change-latency phase of a generator's run: one endpoint of the bench's own Service
 * (cluster.ts: `bench/zonescope-bench-manual`) flipped ready and back on the simulator, 6 times,
 * each timed from the simulator accepting the patch until the Service API shows the new ready
 * count (5 s at most); and, from the server's analysis log, how many Services the next cluster
 * pass re-analysed for it.
 */
import { CHANGE_NAMESPACE, CHANGE_SERVICE, setChangeEndpointReady } from './cluster';
import { log } from './environment';
import { getJson, poll, timedRequest } from './http';
import type { BenchResult } from './report';
import { r1 } from './report';
import type { AnalysisLogLine } from './server';

/** The phase's figures (fields of the final JSON object). */
export type ChangeLatency = Required<Pick<BenchResult, 'changeLatencyMs' | 'changeLatencyMedianMs' | 'changeSimAckMaxMs' | 'changeReanalysedServices'>>;

export async function changeLatencyPhase(options: {
  readonly serverUrl: string;
  readonly simUrl: string;
  /** The server's analysis log so far (grows while the phase runs). */
  readonly analysisLines: readonly AnalysisLogLine[];
}): Promise<ChangeLatency> {
  const { serverUrl, simUrl, analysisLines } = options;
  const serviceUrl = `${serverUrl}/api/v1/services/${CHANGE_NAMESPACE}/${CHANGE_SERVICE}`;
  const readyNow = async () => (await getJson<{ observed: { readyEndpoints: number } }>(serviceUrl)).observed.readyEndpoints;
  const baseline = await readyNow();
  const latencies: number[] = [];
  const simAcks: number[] = [];
  let reanalysed: number | null = null;
  for (let i = 0; i < 6; i++) {
    const ready = i % 2 === 1;
    const linesBefore = analysisLines.length;
    const sentAt = performance.now();
    await setChangeEndpointReady(simUrl, 0, ready);
    // The clock starts when the simulator has accepted the patch (as an API server's write is
    // committed before its watchers hear of it): at L the simulator itself can take seconds to
    // answer while it renders its own metrics for Prometheus, which is not the dashboard's latency.
    const acceptedAt = performance.now();
    simAcks.push(acceptedAt - sentAt);
    const want = ready ? baseline : baseline - 1;
    const seen = await poll(async () => ((await readyNow()) === want ? true : null), 5000, 10);
    latencies.push(seen ? performance.now() - acceptedAt : 5000);
    // The Service API analyses its own Service; the cluster pass (what the count below reads from the
    // server's analysis log) runs on the next cluster-wide read.
    await timedRequest(`${serverUrl}/api/v1/cluster`, { keepBody: false });
    await new Promise((r) => setTimeout(r, 100));
    const passes = analysisLines.slice(linesBefore).filter((l) => !l.full);
    if (passes.length > 0) reanalysed = Math.max(reanalysed ?? 0, ...passes.map((l) => l.analysed));
  }
  const sortedLatencies = [...latencies].sort((a, b) => a - b);
  log(`change latency: ${latencies.map((l) => Math.round(l)).join(', ')} ms after the simulator accepted each patch (which took ${simAcks.map((l) => Math.round(l)).join(', ')} ms); Services re-analysed per change: ${reanalysed ?? 'unknown'}`);
  return {
    changeLatencyMs: r1(sortedLatencies[sortedLatencies.length - 1] ?? Number.NaN),
    changeLatencyMedianMs: r1(sortedLatencies[Math.floor(sortedLatencies.length / 2)] ?? Number.NaN),
    changeSimAckMaxMs: r1(Math.max(...simAcks)),
    changeReanalysedServices: reanalysed,
  };
}
