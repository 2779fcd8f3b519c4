/**
 * The e2e suite's Prometheus (scripts/e2e.ts): one instance that a spec can stop and start again
 * on the same port and data folder, scraping the simulator's `/__sim/metrics` and (with
 * `dashboardTarget`) the dashboard's own `/metrics` as job `zonescope`, evaluating `ruleFiles`;
 * and the loopback control server specs reach through
 * `ZONESCOPE_E2E_PROMETHEUS_CONTROL` (e2e/prometheus.ts): `GET /` → `{state, url}`, `POST /stop`,
 * `POST /start` (each answers once done; requests run one at a time).
 */
import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { RunningPrometheus } from '../sim/prometheus';
import { startPrometheus } from '../sim/prometheus';
import type { PrometheusScrapeJob } from '../sim/prometheus/config';
import { FLOW_METRIC } from '../sim/traffic/beyla-series';

/** The job name of the dashboard's own `/metrics` (what the history queries and alert rules select). */
export const DASHBOARD_JOB = 'zonescope';

/** What else the suite's Prometheus does besides scraping the simulator. */
export interface SuitePrometheusOptions {
  /** `host:port` of the dashboard: its `/metrics` is scraped every second as job {@link DASHBOARD_JOB} (it may start later: Prometheus retries). */
  readonly dashboardTarget?: string;
  /** Rule files to evaluate (zonescope's alert rules). */
  readonly ruleFiles?: readonly string[];
}

/** The suite's Prometheus: started, stopped and started again on the same port and data folder. */
export class SuitePrometheus {
  private current: RunningPrometheus | null = null;
  private port = 0;
  private queue: Promise<unknown> = Promise.resolve();
  private readonly extraJobs: readonly PrometheusScrapeJob[];

  constructor(
    private readonly target: string,
    private readonly dataDir: string,
    private readonly options: SuitePrometheusOptions = {},
  ) {
    this.extraJobs = options.dashboardTarget === undefined ? [] : [{ jobName: DASHBOARD_JOB, targets: [options.dashboardTarget], metricsPath: '/metrics', scrapeIntervalSeconds: 1 }];
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  get state(): 'running' | 'stopped' {
    return this.current?.running ? 'running' : 'stopped';
  }

  /** Runs `action` after every earlier one (control requests never overlap). */
  private serial<T>(action: () => Promise<T>): Promise<T> {
    const next = this.queue.then(action, action);
    this.queue = next.catch(() => undefined);
    return next;
  }

  /** Starts it (the first time on a free port); waits for the flow series once the simulator is up (`waitForSeries`). */
  start(waitForSeries: boolean): Promise<void> {
    return this.serial(async () => {
      if (this.current?.running) return;
      this.current = await startPrometheus({
        scrapeTargets: [this.target],
        metricsPath: '/__sim/metrics',
        scrapeIntervalSeconds: 1,
        dataDir: this.dataDir,
        retention: '1d',
        extraJobs: this.extraJobs,
        ruleFiles: this.options.ruleFiles ?? [],
        ...(this.port > 0 ? { port: this.port } : {}),
      });
      this.port = this.current.port;
      if (waitForSeries) await this.current.waitForSeries(FLOW_METRIC, 20_000);
    });
  }

  stop(): Promise<void> {
    return this.serial(async () => {
      await this.current?.stop();
      this.current = null;
    });
  }
}

function send(res: ServerResponse, code: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(code, { 'Content-Type': 'application/json', 'Content-Length': String(Buffer.byteLength(text)) });
  res.end(text);
}

/** The control server of scripts/e2e.ts' header, on a free loopback port. */
export function prometheusControlServer(prometheus: SuitePrometheus): Promise<{ server: Server; url: string }> {
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const method = req.method ?? 'GET';
    const route = (req.url ?? '/').split('?')[0];
    const view = () => ({ state: prometheus.state, url: prometheus.url });
    const act = (action: Promise<void>) =>
      action.then(
        () => send(res, 200, view()),
        (error: unknown) => send(res, 500, { ...view(), error: error instanceof Error ? error.message : String(error) }),
      );
    req.resume();
    if (route === '/' && method === 'GET') send(res, 200, view());
    else if (route === '/stop' && method === 'POST') void act(prometheus.stop());
    else if (route === '/start' && method === 'POST') void act(prometheus.start(true));
    else if (route === '/' || route === '/stop' || route === '/start') send(res, 405, { error: `${method} is not supported on ${route}` });
    else send(res, 404, { error: `unknown path ${route} (GET /, POST /stop, POST /start)` });
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      resolve({ server, url: `http://127.0.0.1:${typeof address === 'object' && address !== null ? address.port : 0}` });
    });
  });
}
