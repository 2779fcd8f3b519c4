/**
 * A real Prometheus for tests, the e2e suite and the demo: runs the `prometheus` binary
 * (Debian's package, 2.42 here) on a free loopback port with a generated configuration that
 * scrapes the simulator's `/__sim/metrics` (and, with `extraJobs`, more targets such as the
 * dashboard's own `/metrics`; with `ruleFiles`, evaluates rule files), waits until it is ready,
 * and stops it again.
 *
 * ```ts
 * const prometheus = await startPrometheus({ scrapeTargets: [`127.0.0.1:${sim.port}`] });
 * await prometheus.waitForSeries('beyla_network_flow_bytes_total', 15_000);
 * // ZONESCOPE_PROMETHEUS_URL = prometheus.url
 * await prometheus.stop();
 * ```
 *
 * The simulator's job scrapes with `honor_labels: true`, as a federation or Pushgateway job does:
 * one simulator serves what a cluster's many exporters would (a Beyla agent per node, a kubelet
 * per node), and each series carries its exporter's `instance` (`<node IP>:9090`,
 * `<node IP>:10250`; sim/traffic/beyla-series.ts, sim/traffic/cadvisor-series.ts). Without it Prometheus would rename that label
 * `exported_instance` and give every series the simulator's address, so the per-node agents that
 * report the same flow would collide into one series.
 *
 * The binary is `PROMETHEUS_BIN` when set, else `prometheus` on `PATH`, else /usr/bin/prometheus;
 * without one, {@link startPrometheus} throws {@link PrometheusNotInstalledError}. The data
 * folder is a new temporary folder removed on stop, unless the caller names one (kept then, so a
 * Prometheus started again on it finds its samples). Retention is short (default 1 day): these
 * instances live for a test run or a demo.
 *
 * This file runs the process (port, data folder, start, readiness, stop); finding the binary is
 * sim/prometheus/binary.ts, the prometheus.yml and the checks of the options
 * sim/prometheus/config.ts, the HTTP API queries sim/prometheus/http-api.ts.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DEFAULT_PROMETHEUS_BIN, findPrometheus, PrometheusNotInstalledError } from './prometheus/binary';
import type { PrometheusScrapeJob } from './prometheus/config';
import { prometheusConfig, prometheusOptionProblems } from './prometheus/config';
import type { PrometheusSample } from './prometheus/http-api';
import { answersReady, instantQuery, waitForSeries } from './prometheus/http-api';

/** Options of {@link startPrometheus}. */
export interface PrometheusOptions {
  /** `host:port` of every target to scrape (the simulator's address). */
  readonly scrapeTargets: readonly string[];
  /** Path scraped on each target (default `/__sim/metrics`). */
  readonly metricsPath?: string;
  /** Scheme of the targets (default `http`; `https` skips certificate verification, for the simulator's generated CA). */
  readonly scheme?: 'http' | 'https';
  /** Seconds between scrapes (default 1, for tests). */
  readonly scrapeIntervalSeconds?: number;
  /** Seconds a scrape may take (default: the interval, at most 10). */
  readonly scrapeTimeoutSeconds?: number;
  /** Data folder (created when missing, kept on stop); default a new temporary folder, removed on stop. */
  readonly dataDir?: string;
  /** Loopback port to listen on (default 0: a free one). */
  readonly port?: number;
  /** `--storage.tsdb.retention.time` (default `1d`). */
  readonly retention?: string;
  /** Job name of the scrape configuration (the `job` label; default `zonescope-sim`). */
  readonly jobName?: string;
  /**
   * `honor_labels` of that job (default true: the targets' own `instance` labels win, see the
   * file header); false gives every series the target's address as `instance`.
   */
  readonly honorLabels?: boolean;
  /** More scrape jobs besides the simulator's (e.g. the dashboard's `/metrics` as job `zonescope`); a target that is not up yet is just retried. */
  readonly extraJobs?: readonly PrometheusScrapeJob[];
  /**
   * Rule files to evaluate (recording and alerting rules, every `evaluation_interval` = the scrape
   * interval); each must be a readable file. Relative paths are taken from the current directory.
   */
  readonly ruleFiles?: readonly string[];
  /** The binary (default: see the file header). */
  readonly binary?: string;
  /** How long to wait for `/-/ready` (default 30,000 ms). */
  readonly readyTimeoutMs?: number;
  /** When set, also wait (up to `readyTimeoutMs`) until a series of this metric exists. */
  readonly waitForMetric?: string;
  /** Prometheus' own log lines (default: dropped; the last ones are quoted when it fails). */
  readonly log?: (line: string) => void;
}

/** A running Prometheus. */
export interface RunningPrometheus {
  /** `http://127.0.0.1:<port>`: what ZONESCOPE_PROMETHEUS_URL points at. */
  readonly url: string;
  readonly port: number;
  readonly pid: number;
  readonly dataDir: string;
  /** The binary that runs. */
  readonly binary: string;
  /** Whether the process still runs. */
  readonly running: boolean;
  /**
   * Resolves once a series of `metric` exists (an instant query answers at least one sample).
   * @throws Error after `timeoutMs`, saying what the scrape targets report.
   */
  waitForSeries(metric: string, timeoutMs?: number): Promise<void>;
  /** An instant query through the HTTP API: the `data.result` vector. @throws Error when Prometheus answers an error. */
  query(expression: string): Promise<readonly PrometheusSample[]>;
  /** Stops Prometheus (SIGTERM, then SIGKILL after 10 s) and waits for it to exit; removes its temporary data folder. */
  stop(): Promise<void>;
}

/** A free TCP port on 127.0.0.1 (bound and released; a race with another process is possible, and retried). */
export function freeLoopbackPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => (port > 0 ? resolve(port) : reject(new Error('no free port'))));
    });
  });
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function exitedDescription(child: ChildProcess): string {
  return child.signalCode !== null ? `was killed by ${child.signalCode}` : `exited with code ${String(child.exitCode)}`;
}

/**
 * Starts Prometheus scraping `scrapeTargets` and resolves once `/-/ready` answers 200 (and, with
 * `waitForMetric`, once that metric has a series).
 * @throws PrometheusNotInstalledError without a binary; Error for bad options (nothing started)
 * or when Prometheus exits or is not ready in time (it is stopped then, its temporary folder removed).
 */
export async function startPrometheus(options: PrometheusOptions): Promise<RunningPrometheus> {
  const problems = prometheusOptionProblems(options);
  if (problems.length > 0) throw new Error(`cannot start Prometheus: ${problems.join('; ')}`);
  const binary = options.binary ?? findPrometheus();
  if (binary === null) throw new PrometheusNotInstalledError(`no prometheus on PATH, none at ${DEFAULT_PROMETHEUS_BIN}, PROMETHEUS_BIN not set`);
  if (!existsSync(binary)) throw new PrometheusNotInstalledError(`${binary} does not exist`);
  const readyTimeoutMs = options.readyTimeoutMs ?? 30_000;
  const ownDir = options.dataDir === undefined;
  const dataDir = options.dataDir ?? mkdtempSync(path.join(tmpdir(), 'zonescope-prometheus-'));
  mkdirSync(dataDir, { recursive: true });
  const configFile = path.join(dataDir, 'prometheus.yml');
  writeFileSync(configFile, prometheusConfig(options));
  const removeOwnDir = (): void => {
    if (ownDir) rmSync(dataDir, { recursive: true, force: true });
  };

  // A free port can be taken between the probe and Prometheus' bind: try a few.
  let lastError: Error | null = null;
  for (let attempt = 0; attempt < (options.port ? 1 : 3); attempt++) {
    const port = options.port || (await freeLoopbackPort());
    try {
      return await launch(binary, port, dataDir, configFile, options, readyTimeoutMs, removeOwnDir);
    } catch (error) {
      lastError = error instanceof Error ? error : new Error(String(error));
      if (!/address already in use/i.test(lastError.message)) break;
    }
  }
  removeOwnDir();
  throw lastError ?? new Error('Prometheus did not start');
}

async function launch(
  binary: string,
  port: number,
  dataDir: string,
  configFile: string,
  options: PrometheusOptions,
  readyTimeoutMs: number,
  removeOwnDir: () => void,
): Promise<RunningPrometheus> {
  const url = `http://127.0.0.1:${port}`;
  const args = [
    `--config.file=${configFile}`,
    `--web.listen-address=127.0.0.1:${port}`,
    `--storage.tsdb.path=${path.join(dataDir, 'data')}`,
    `--storage.tsdb.retention.time=${options.retention ?? '1d'}`,
    '--log.level=warn',
  ];
  const child = spawn(binary, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  const recent: string[] = [];
  const onOutput = (chunk: Buffer): void => {
    for (const line of chunk.toString('utf8').split('\n')) {
      if (line.trim() === '') continue;
      recent.push(line);
      if (recent.length > 20) recent.shift();
      options.log?.(line);
    }
  };
  child.stdout?.on('data', onOutput);
  child.stderr?.on('data', onOutput);
  let spawnError: Error | null = null;
  child.once('error', (error) => {
    spawnError = error;
  });
  const exited = new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve();
    else child.once('exit', () => resolve());
  });
  // Never leave a Prometheus behind when this process exits without stopping it.
  const killOnExit = (): void => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  };
  process.once('exit', killOnExit);

  let terminating: Promise<void> | null = null;
  const terminate = (): Promise<void> => {
    terminating ??= (async () => {
      if (child.exitCode === null && child.signalCode === null && spawnError === null) {
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
        await exited;
        clearTimeout(timer);
      }
      process.off('exit', killOnExit);
    })();
    return terminating;
  };
  let stopping: Promise<void> | null = null;
  const stop = (): Promise<void> => {
    stopping ??= terminate().then(removeOwnDir);
    return stopping;
  };
  const hasExited = (): boolean => child.exitCode !== null || child.signalCode !== null || spawnError !== null;
  const output = (): string => (recent.length > 0 ? `; its last output:\n${recent.join('\n')}` : '');

  const query = (expression: string): Promise<readonly PrometheusSample[]> => instantQuery(url, expression);
  const seriesOf = (metric: string, timeoutMs = 15_000): Promise<void> =>
    waitForSeries(url, metric, timeoutMs, () => (hasExited() ? { how: exitedDescription(child), output: output() } : null));

  // Ready?
  const deadline = Date.now() + readyTimeoutMs;
  let ready = false;
  while (Date.now() < deadline) {
    if (hasExited()) {
      await terminate();
      const reason = spawnError !== null ? `could not be run: ${(spawnError as Error).message}` : exitedDescription(child);
      throw new Error(`Prometheus (${binary}) ${reason}${output()}`);
    }
    if (await answersReady(url)) {
      ready = true;
      break;
    }
    await delay(100);
  }
  if (!ready) {
    await terminate();
    throw new Error(`Prometheus (${binary}) was not ready on ${url} within ${readyTimeoutMs} ms${output()}`);
  }
  const running: RunningPrometheus = {
    url,
    port,
    pid: child.pid ?? 0,
    dataDir,
    binary,
    get running() {
      return !hasExited();
    },
    waitForSeries: seriesOf,
    query,
    stop,
  };
  if (options.waitForMetric !== undefined) {
    try {
      await seriesOf(options.waitForMetric, Math.max(1_000, deadline - Date.now()));
    } catch (error) {
      await stop();
      throw error;
    }
  }
  return running;
}
