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
 * `<node IP>:10250`; sim/traffic-series.ts). Without it Prometheus would rename that label
 * `exported_instance` and give every series the simulator's address, so the per-node agents that
 * report the same flow would collide into one series.
 *
 * The binary is `PROMETHEUS_BIN` when set, else `prometheus` on `PATH`, else /usr/bin/prometheus;
 * without one, {@link startPrometheus} throws {@link PrometheusNotInstalledError}. The data
 * folder is a new temporary folder removed on stop, unless the caller names one (kept then, so a
 * Prometheus started again on it finds its samples). Retention is short (default 1 day): these
 * instances live for a test run or a demo.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { accessSync, constants, existsSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';

/** Where Debian and most packages install the binary. */
export const DEFAULT_PROMETHEUS_BIN = '/usr/bin/prometheus';

/** How to install Prometheus, for messages. */
export const PROMETHEUS_INSTALL_HINT =
  'apt-get install prometheus (Debian/Ubuntu), or download it from https://prometheus.io/download/ and set PROMETHEUS_BIN to the binary';

/** No Prometheus binary was found. */
export class PrometheusNotInstalledError extends Error {
  constructor(detail?: string) {
    super(`Prometheus is not installed${detail ? ` (${detail})` : ''}: ${PROMETHEUS_INSTALL_HINT}`);
    this.name = 'PrometheusNotInstalledError';
  }
}

/** One more scrape job of {@link PrometheusOptions.extraJobs} (plain HTTP). */
export interface PrometheusScrapeJob {
  /** The job's name (its `job` label): letters, digits, `_` and `-`, unique in the configuration. */
  readonly jobName: string;
  /** `host:port` of every target. */
  readonly targets: readonly string[];
  /** Path scraped on each target (e.g. `/metrics`). */
  readonly metricsPath: string;
  /** Seconds between scrapes (default: the global interval); a scrape may take the interval, at most 10 s. */
  readonly scrapeIntervalSeconds?: number;
  /** Target labels put on every series of the job (e.g. `{ cluster: 'eu' }`, as a fleet's Prometheus names each installation's cluster). */
  readonly labels?: Readonly<Record<string, string>>;
  /** `honor_labels: true`: the target's own labels win over the target labels (default false: they are renamed `exported_…`). */
  readonly honorLabels?: boolean;
}

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

/** One element of an instant vector. */
export interface PrometheusSample {
  readonly metric: Readonly<Record<string, string>>;
  readonly value: readonly [number, string];
}

function isExecutable(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * The Prometheus binary to run: `PROMETHEUS_BIN` (which must be executable), else `prometheus`
 * on `PATH`, else {@link DEFAULT_PROMETHEUS_BIN}; `null` when there is none.
 * @throws PrometheusNotInstalledError when `PROMETHEUS_BIN` names a file that is not executable.
 */
export function findPrometheus(env: Readonly<Record<string, string | undefined>> = process.env): string | null {
  const explicit = env.PROMETHEUS_BIN;
  if (explicit !== undefined && explicit !== '') {
    if (!isExecutable(explicit)) throw new PrometheusNotInstalledError(`PROMETHEUS_BIN=${explicit} is not an executable file`);
    return explicit;
  }
  for (const dir of (env.PATH ?? '').split(path.delimiter)) {
    if (dir === '') continue;
    const candidate = path.join(dir, 'prometheus');
    if (isExecutable(candidate)) return candidate;
  }
  return isExecutable(DEFAULT_PROMETHEUS_BIN) ? DEFAULT_PROMETHEUS_BIN : null;
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

const TARGET = /^(\[[0-9a-fA-F:]+\]|[A-Za-z0-9.-]+):\d{1,5}$/;
const DURATION = /^\d+(ms|s|m|h|d|w|y)$/;
const JOB_NAME = /^[A-Za-z_][A-Za-z0-9_-]*$/;

/** The prometheus.yml for `options` (YAML; every value is quoted JSON, which YAML reads as is). */
export function prometheusConfig(
  options: Pick<PrometheusOptions, 'scrapeTargets' | 'metricsPath' | 'scheme' | 'scrapeIntervalSeconds' | 'scrapeTimeoutSeconds' | 'jobName' | 'honorLabels' | 'extraJobs' | 'ruleFiles'>,
): string {
  const interval = options.scrapeIntervalSeconds ?? 1;
  const timeout = options.scrapeTimeoutSeconds ?? Math.min(interval, 10);
  const scheme = options.scheme ?? 'http';
  const targets = (list: readonly string[]): string => `      - targets: [${list.map((t) => JSON.stringify(t)).join(', ')}]`;
  const ruleFiles = options.ruleFiles ?? [];
  const lines = [
    '# Generated by zonescope (sim/prometheus.ts).',
    'global:',
    `  scrape_interval: ${JSON.stringify(`${interval}s`)}`,
    `  scrape_timeout: ${JSON.stringify(`${timeout}s`)}`,
    `  evaluation_interval: ${JSON.stringify(`${interval}s`)}`,
    ...(ruleFiles.length > 0 ? ['rule_files:', ...ruleFiles.map((file) => `  - ${JSON.stringify(path.resolve(file))}`)] : []),
    'scrape_configs:',
    `  - job_name: ${JSON.stringify(options.jobName ?? 'zonescope-sim')}`,
    ...(options.honorLabels === false ? [] : ['    honor_labels: true']),
    `    metrics_path: ${JSON.stringify(options.metricsPath ?? '/__sim/metrics')}`,
    `    scheme: ${JSON.stringify(scheme)}`,
    ...(scheme === 'https' ? ['    tls_config:', '      insecure_skip_verify: true'] : []),
    '    static_configs:',
    targets(options.scrapeTargets),
  ];
  for (const job of options.extraJobs ?? []) {
    lines.push(`  - job_name: ${JSON.stringify(job.jobName)}`);
    if (job.scrapeIntervalSeconds !== undefined) {
      // A job's timeout may not exceed its interval: give it its own.
      lines.push(`    scrape_interval: ${JSON.stringify(`${job.scrapeIntervalSeconds}s`)}`, `    scrape_timeout: ${JSON.stringify(`${Math.min(job.scrapeIntervalSeconds, 10)}s`)}`);
    }
    if (job.honorLabels === true) lines.push('    honor_labels: true');
    lines.push(`    metrics_path: ${JSON.stringify(job.metricsPath)}`, '    scheme: "http"', '    static_configs:', targets(job.targets));
    const labels = Object.entries(job.labels ?? {});
    if (labels.length > 0) lines.push(`        labels: {${labels.map(([name, value]) => `${JSON.stringify(name)}: ${JSON.stringify(value)}`).join(', ')}}`);
  }
  lines.push('');
  return lines.join('\n');
}

function intervalProblem(name: string, interval: number): string | null {
  return !Number.isInteger(interval) || interval < 1 || interval > 3600 ? `${name} must be a whole number of seconds from 1 to 3600, not ${interval}` : null;
}

function metricsPathProblem(name: string, metricsPath: string): string | null {
  return !metricsPath.startsWith('/') || /[\s"]/.test(metricsPath) ? `${name} ${JSON.stringify(metricsPath)} must be a path starting with /` : null;
}

function isReadableFile(file: string): boolean {
  try {
    accessSync(file, constants.R_OK);
    return statSync(file).isFile();
  } catch {
    return false;
  }
}

/** The options' problems, one sentence each (empty when they are fine). */
function optionProblems(options: PrometheusOptions): string[] {
  const problems: string[] = [];
  if (options.scrapeTargets.length === 0) problems.push('scrapeTargets is empty: give at least one host:port');
  for (const target of options.scrapeTargets) if (!TARGET.test(target)) problems.push(`scrape target ${JSON.stringify(target)} is not host:port`);
  const metricsPath = metricsPathProblem('metricsPath', options.metricsPath ?? '/__sim/metrics');
  if (metricsPath !== null) problems.push(metricsPath);
  const interval = options.scrapeIntervalSeconds ?? 1;
  const intervalError = intervalProblem('scrapeIntervalSeconds', interval);
  if (intervalError !== null) problems.push(intervalError);
  const timeout = options.scrapeTimeoutSeconds;
  if (timeout !== undefined && (!Number.isInteger(timeout) || timeout < 1 || timeout > interval)) problems.push(`scrapeTimeoutSeconds must be a whole number of seconds from 1 to the interval (${interval}), not ${timeout}`);
  const retention = options.retention ?? '1d';
  if (!DURATION.test(retention)) problems.push(`retention must be a Prometheus duration such as 1d or 12h, not ${JSON.stringify(retention)}`);
  if (options.port !== undefined && (!Number.isInteger(options.port) || options.port < 0 || options.port > 65535)) problems.push(`port must be 0–65535, not ${options.port}`);
  const jobNames = new Set([options.jobName ?? 'zonescope-sim']);
  if (!JOB_NAME.test(options.jobName ?? 'zonescope-sim')) problems.push(`jobName ${JSON.stringify(options.jobName)} must be letters, digits, _ and - (starting with a letter or _)`);
  for (const [index, job] of (options.extraJobs ?? []).entries()) {
    const name = `extraJobs[${index}]`;
    if (!JOB_NAME.test(job.jobName)) problems.push(`${name}.jobName ${JSON.stringify(job.jobName)} must be letters, digits, _ and - (starting with a letter or _)`);
    else if (jobNames.has(job.jobName)) problems.push(`${name}.jobName ${JSON.stringify(job.jobName)} is already the name of another job: job names must be unique`);
    jobNames.add(job.jobName);
    if (job.targets.length === 0) problems.push(`${name}.targets is empty: give at least one host:port`);
    for (const target of job.targets) if (!TARGET.test(target)) problems.push(`${name} target ${JSON.stringify(target)} is not host:port`);
    const jobPath = metricsPathProblem(`${name}.metricsPath`, job.metricsPath);
    if (jobPath !== null) problems.push(jobPath);
    for (const label of Object.keys(job.labels ?? {})) {
      if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(label) || label.startsWith('__')) problems.push(`${name}.labels: ${JSON.stringify(label)} is not a label name`);
    }
    if (job.scrapeIntervalSeconds !== undefined) {
      const jobInterval = intervalProblem(`${name}.scrapeIntervalSeconds`, job.scrapeIntervalSeconds);
      if (jobInterval !== null) problems.push(jobInterval);
    }
  }
  for (const file of options.ruleFiles ?? []) {
    if (file === '' || /["\n\r]/.test(file)) problems.push(`rule file ${JSON.stringify(file)} is not a usable path`);
    else if (!isReadableFile(file)) problems.push(`rule file ${JSON.stringify(file)} is not a readable file`);
  }
  return problems;
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

async function getJson(url: string, timeoutMs: number): Promise<{ status: number; body: unknown }> {
  const response = await fetch(url, { signal: AbortSignal.timeout(timeoutMs) });
  const text = await response.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text) as unknown;
  } catch {
    // Not JSON (e.g. /-/ready's plain text).
  }
  return { status: response.status, body };
}

interface TargetsBody {
  data?: { activeTargets?: { scrapeUrl?: string; health?: string; lastError?: string }[] };
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
  const problems = optionProblems(options);
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

  const query = async (expression: string): Promise<readonly PrometheusSample[]> => {
    const { status, body } = await getJson(`${url}/api/v1/query?query=${encodeURIComponent(expression)}`, 10_000);
    const parsed = body as { status?: string; error?: string; data?: { resultType?: string; result?: PrometheusSample[] } };
    if (status !== 200 || parsed.status !== 'success') throw new Error(`Prometheus query ${expression} failed (${status}): ${parsed.error ?? JSON.stringify(body).slice(0, 200)}`);
    if (parsed.data?.resultType !== 'vector') throw new Error(`Prometheus query ${expression} is not an instant vector (${String(parsed.data?.resultType)})`);
    return parsed.data.result ?? [];
  };
  const targetsReport = async (): Promise<string> => {
    try {
      const { body } = await getJson(`${url}/api/v1/targets`, 5_000);
      const targets = (body as TargetsBody).data?.activeTargets ?? [];
      if (targets.length === 0) return 'no active targets';
      return targets.map((t) => `${t.scrapeUrl ?? '?'} ${t.health ?? '?'}${t.lastError ? ` (${t.lastError})` : ''}`).join('; ');
    } catch (error) {
      return `targets unknown: ${error instanceof Error ? error.message : String(error)}`;
    }
  };
  const waitForSeries = async (metric: string, timeoutMs = 15_000): Promise<void> => {
    if (!/^[a-zA-Z_:][a-zA-Z0-9_:]*$/.test(metric)) throw new Error(`not a metric name: ${JSON.stringify(metric)}`);
    const deadline = Date.now() + timeoutMs;
    let last = '';
    while (Date.now() < deadline) {
      if (hasExited()) throw new Error(`Prometheus ${exitedDescription(child)} while waiting for ${metric}${output()}`);
      try {
        if ((await query(`count(${metric})`)).length > 0) return;
        last = 'no series yet';
      } catch (error) {
        last = error instanceof Error ? error.message : String(error);
      }
      await delay(200);
    }
    throw new Error(`no series of ${metric} in Prometheus at ${url} after ${timeoutMs} ms (${last}); scrape targets: ${await targetsReport()}`);
  };

  // Ready?
  const deadline = Date.now() + readyTimeoutMs;
  let ready = false;
  while (Date.now() < deadline) {
    if (hasExited()) {
      await terminate();
      const reason = spawnError !== null ? `could not be run: ${(spawnError as Error).message}` : exitedDescription(child);
      throw new Error(`Prometheus (${binary}) ${reason}${output()}`);
    }
    try {
      const { status } = await getJson(`${url}/-/ready`, 2_000);
      if (status === 200) {
        ready = true;
        break;
      }
    } catch {
      // Not listening yet.
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
    waitForSeries,
    query,
    stop,
  };
  if (options.waitForMetric !== undefined) {
    try {
      await waitForSeries(options.waitForMetric, Math.max(1_000, deadline - Date.now()));
    } catch (error) {
      await stop();
      throw error;
    }
  }
  return running;
}
