/**
 * The Prometheus of a generator's run (issue 13's traffic figures): a real one (sim/prometheus.ts)
 * scraping the simulator's traffic metrics, started when the traffic phase runs and the binary is
 * installed — else none, and the note the figures carry says why. It is paused while the server
 * syncs cold (server.ts) and stopped at the end of the run, on failure and at the deadline. One
 * at a time (one generator after the other), so how to stop it is this module's state: it is not
 * a tracked child of processes.ts.
 */
import { startPrometheus } from '../../sim/prometheus';
import type { BenchOptions } from './args';
import { log } from './environment';

let stopCurrent: () => Promise<void> = async () => undefined;

/** Stops the Prometheus the run started, if one runs (idempotent). */
export function stopPrometheus(): Promise<void> {
  return stopCurrent();
}

/** Pauses (SIGSTOP) or resumes (SIGCONT) the bench's Prometheus; a process already gone is fine. */
function signalPrometheus(pid: number, signal: 'SIGSTOP' | 'SIGCONT'): void {
  try {
    process.kill(pid, signal);
  } catch {
    // (exited)
  }
}

/** The run's Prometheus, or its absence. */
export interface RunPrometheus {
  /** Its URL for the server (`ZONESCOPE_PROMETHEUS_URL`), `null` when none runs. */
  readonly url: string | null;
  /** What the traffic figures were measured against: how it scrapes, or why none runs. */
  readonly note: string;
  /** Pauses it (SIGSTOP) / resumes it (SIGCONT); nothing when none runs. */
  pause(): void;
  resume(): void;
}

/**
 * Starts a Prometheus scraping the simulator on `simPort` when the run measures traffic, and waits
 * for its first flow series. A failure to start is not the run's failure: the note says why.
 */
export async function startRunPrometheus(options: BenchOptions, simPort: number, dataDir: string): Promise<RunPrometheus> {
  let url: string | null = null;
  let pid: number | null = null;
  let note = 'not configured (--no-prometheus)';
  if (options.prometheus && !options.metricsOnly && (options.trafficSeconds > 0 || options.trafficOnly)) {
    try {
      // At L the simulator exports hundreds of thousands of series (hundreds of MiB a scrape): scrape less often there.
      const scrapeSeconds = options.scale === 'L' ? 15 : 5;
      const prom = await startPrometheus({ scrapeTargets: [`127.0.0.1:${simPort}`], metricsPath: '/__sim/metrics', scrapeIntervalSeconds: scrapeSeconds, dataDir });
      stopCurrent = async () => {
        stopCurrent = async () => undefined;
        signalPrometheus(prom.pid, 'SIGCONT');
        await prom.stop();
      };
      await prom.waitForSeries('beyla_network_flow_bytes_total', 5 * 60_000);
      url = prom.url;
      pid = prom.pid;
      note = `a real Prometheus scraping the simulator's /__sim/metrics every ${scrapeSeconds} s; server refresh every ${options.prometheusRefreshSeconds} s`;
      log(`Prometheus up at ${prom.url}`);
    } catch (error) {
      await stopPrometheus();
      note = `not configured: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`;
      log(`Prometheus: ${note}`);
    }
  }
  const running = pid;
  return {
    url,
    note,
    pause: () => {
      if (running !== null) signalPrometheus(running, 'SIGSTOP');
    },
    resume: () => {
      if (running !== null) signalPrometheus(running, 'SIGCONT');
    },
  };
}
