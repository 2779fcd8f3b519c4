/**
 * Route-handler integration test support: the eks-demo scenario on the simulator over real HTTP,
 * the process environment pointed at it, the process-wide cluster source reset and synced, and
 * `Request` builders for same-origin and cross-site calls. Not a route (`_testing` is private).
 */
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { waitForAnalysis } from '../../../../lib/server/analysis';
import { getClusterSource, resetClusterSource } from '../../../../lib/k8s/source';
import { resetTrafficSource } from '../../../../lib/prometheus/traffic-source';
import type { RunningPrometheus } from '../../../../sim/prometheus';
import { startPrometheus } from '../../../../sim/prometheus';
import { defaultControllers } from '../../../../sim/default-controllers';
import { loadScenario } from '../../../../sim/scenario';
import type { SimAuth } from '../../../../sim/kubeconfig';
import type { Simulator } from '../../../../sim/server';
import { startSimulator } from '../../../../sim/server';
import { afterAll, afterEach, beforeAll, beforeEach, vi } from 'vitest';

/** The origin the test requests pretend the dashboard is served at. */
export const ORIGIN = 'http://localhost:3000';

const ENV_KEYS = [
  'KUBECONFIG', 'HOME', 'KUBERNETES_SERVICE_HOST', 'ZONESCOPE_SNAPSHOT', 'ZONESCOPE_CONTEXT', 'ZONESCOPE_READ_ONLY',
  'ZONESCOPE_TRUSTED_ORIGINS', 'ZONESCOPE_AUTH_PROXY', 'ZONESCOPE_AUTH_PROXY_SECRET_FILE', 'ZONESCOPE_WRITE_TIMEOUT_MS',
  'ZONESCOPE_HOST', 'ZONESCOPE_ALLOWED_HOSTS', 'ZONESCOPE_ALLOW_UNAUTHENTICATED_WRITES',
  'ZONESCOPE_CONTEXTS', 'ZONESCOPE_READ_ONLY_CONTEXTS', 'ZONESCOPE_MAX_OPEN_CLUSTERS', 'ZONESCOPE_CLUSTER_IDLE_MINUTES',
] as const;

/** A running simulator with the process's cluster source synced to it. */
export interface ApiHarness {
  readonly sim: Simulator;
  readonly kubeconfig: string;
  /** Points the environment back at the simulator, resets the source and waits for the sync. */
  reconnect(): Promise<void>;
  /** Stops the source and the simulator, restores the environment, removes temp files. */
  stop(): Promise<void>;
}

/** Resets the process-wide source and waits for its first sync and its first analysis pass (until then everything answers "syncing"). */
export async function syncSource(timeoutMs = 15_000): Promise<void> {
  await resetClusterSource();
  const synced = await getClusterSource().waitForSync(timeoutMs);
  if (!synced) throw new Error('the cluster source did not sync');
  if (!(await waitForAnalysis(timeoutMs))) throw new Error('the first analysis pass did not finish');
}

/**
 * A simulator of the scenario `name` on a free port, with the default controllers and the
 * scenario's server version. Its Beyla series carry zones (configured as docs/traffic.md says)
 * unless `flowZoneLabels: false` asks for Beyla's stock attribute set; `tls` and `auth` as the
 * simulator takes them (plain HTTP, no credential required by default).
 */
export async function startScenarioSimulator(name: string, options: { readonly flowZoneLabels?: boolean; readonly tls?: boolean; readonly auth?: SimAuth } = {}): Promise<Simulator> {
  const scenario = await loadScenario(name);
  return startSimulator({
    port: 0,
    objects: scenario.objects,
    controllers: defaultControllers(),
    ...(scenario.serverVersion !== undefined ? { version: scenario.serverVersion } : {}),
    ...(options.tls === true ? { tls: {} } : {}),
    ...(options.auth !== undefined ? { auth: options.auth } : {}),
    trafficMetrics: { flowZoneLabels: options.flowZoneLabels ?? true },
    log: () => undefined,
  });
}

/**
 * Starts eks-demo (with the default controllers and its server version) and syncs the source to
 * it; `flowZoneLabels: false` gives it Beyla's stock attribute set (no zones on the flow metric).
 */
export async function startApiHarness(options: { readonly flowZoneLabels?: boolean } = {}): Promise<ApiHarness> {
  const saved = Object.fromEntries(ENV_KEYS.map((key) => [key, process.env[key]]));
  const sim = await startScenarioSimulator('eks-demo', options);
  const dir = await mkdtemp(path.join(tmpdir(), 'zonescope-api-'));
  const kubeconfig = await sim.writeKubeconfig(path.join(dir, 'kubeconfig'));
  const reconnect = async (): Promise<void> => {
    for (const key of ENV_KEYS) if (key !== 'HOME') Reflect.deleteProperty(process.env, key);
    process.env.KUBECONFIG = kubeconfig;
    // As `npm start` runs it: bound to loopback, so writes need no auth proxy.
    process.env.ZONESCOPE_HOST = '127.0.0.1';
    await syncSource();
  };
  await reconnect();
  return {
    sim,
    kubeconfig,
    reconnect,
    stop: async () => {
      await resetClusterSource();
      await sim.stop();
      await rm(dir, { recursive: true, force: true });
      for (const key of ENV_KEYS) {
        const value = saved[key];
        if (value === undefined) Reflect.deleteProperty(process.env, key);
        else process.env[key] = value;
      }
    },
  };
}

/**
 * One harness for the calling test file: started before its tests, stopped after them. Returns
 * the harness getter (the harness exists only once `beforeAll` has run).
 */
export function harnessForFile(options: { readonly flowZoneLabels?: boolean } = {}): () => ApiHarness {
  let harness: ApiHarness | undefined;
  beforeAll(async () => {
    harness = await startApiHarness(options);
  }, 30_000);
  afterAll(async () => {
    await harness?.stop();
  });
  return () => {
    if (harness === undefined) throw new Error('The API harness starts in beforeAll; use it inside hooks and tests.');
    return harness;
  };
}

/**
 * Before each test of the calling file: the simulator reset to its scenario, the source reconnected
 * and `console.log` captured (the audit log); restored after each test. Returns the lines logged
 * by the current test.
 */
export function freshClusterPerTest(harness: () => ApiHarness): () => readonly string[] {
  let logged: string[] = [];
  beforeEach(async () => {
    harness().sim.reset();
    await harness().reconnect();
    logged = [];
    vi.spyOn(console, 'log').mockImplementation((...args: unknown[]) => {
      logged.push(args.map(String).join(' '));
    });
  });
  afterEach(() => {
    vi.restoreAllMocks();
  });
  return () => logged;
}

/** A GET (or other) request to `path` on {@link ORIGIN} with a matching Host header. */
export function apiRequest(pathAndQuery: string, init: { method?: string; headers?: Record<string, string>; body?: string } = {}): Request {
  return new Request(`${ORIGIN}${pathAndQuery}`, {
    method: init.method ?? 'GET',
    headers: { host: new URL(ORIGIN).host, ...init.headers },
    ...(init.body !== undefined ? { body: init.body } : {}),
  });
}

/** Headers of a same-origin `fetch` from the dashboard's own page. */
export function sameOriginHeaders(ifMatch: string | null, extra: Record<string, string> = {}): Record<string, string> {
  return {
    origin: ORIGIN,
    'sec-fetch-site': 'same-origin',
    'content-type': 'application/json',
    ...(ifMatch !== null ? { 'if-match': `"${ifMatch}"` } : {}),
    ...extra,
  };
}

/** The second argument Next.js passes to a dynamic route handler. */
export function routeContext<T extends Record<string, string>>(params: T): { params: Promise<T> } {
  return { params: Promise.resolve(params) };
}

/** Requests the simulator served that are not list/watch (reads, writes, reviews, discovery). */
export function nonWatchRequests(sim: Simulator): number {
  const snapshot = sim.stats.snapshot();
  let count = snapshot.discovery;
  for (const verbs of Object.values(snapshot.requests)) {
    for (const [verb, n] of Object.entries(verbs)) if (verb !== 'list' && verb !== 'watch') count += n;
  }
  return count;
}

/** Polls `check` until it returns a truthy value. */
export async function eventually<T>(check: () => Promise<T | null | undefined | false> | T | null | undefined | false, timeoutMs = 10_000, what = 'condition'): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** The invalid name classes every name-taking endpoint must refuse with 400 before any cluster call. */
export const BAD_NAMES: readonly { readonly label: string; readonly namespace: string; readonly name: string }[] = [
  { label: '".." namespace', namespace: '..', name: 'checkout' },
  { label: '"." name', namespace: 'shop', name: '.' },
  { label: '"a/b" name', namespace: 'shop', name: 'a/b' },
  { label: '"%2e%2e" namespace', namespace: '%2e%2e', name: 'checkout' },
  { label: 'empty name', namespace: 'shop', name: '' },
  { label: 'over-long name', namespace: 'shop', name: `a${'b'.repeat(63)}` },
  { label: 'uppercase name', namespace: 'shop', name: 'Checkout' },
  { label: 'unicode namespace', namespace: 'shöp', name: 'checkout' },
  { label: 'leading digit Service name', namespace: 'shop', name: '1checkout' },
  { label: 'over-long namespace', namespace: 'n'.repeat(64), name: 'checkout' },
];

/** The parsed JSON body of a response, typed by the caller. */
export async function readJson<T>(response: Response): Promise<T> {
  return (await response.json()) as T;
}

/** Whether a `prometheus` binary is installed (Debian's, or one on `PATH`): the tests that scrape the simulator need it. */
export const PROMETHEUS_INSTALLED = ['/usr/bin/prometheus', ...(process.env.PATH ?? '').split(':').filter(Boolean).map((dir) => path.join(dir, 'prometheus'))].some((file) => existsSync(file));

/**
 * A real Prometheus for the calling test file, scraping the harness simulator's traffic metrics
 * every second: started before its tests (once both Beyla's flows and cAdvisor's pod bytes have
 * series), with `ZONESCOPE_PROMETHEUS_URL` pointing at it and `env` set, the traffic source reset;
 * stopped after them with those variables removed. Returns its getter (`null` once stopped early).
 */
export function prometheusForFile(harness: () => ApiHarness, env: Readonly<Record<string, string>> = {}): { readonly get: () => RunningPrometheus | null; readonly stop: () => Promise<void> } {
  let prometheus: RunningPrometheus | null = null;
  const keys = ['ZONESCOPE_PROMETHEUS_URL', ...Object.keys(env)];
  beforeAll(async () => {
    const address = new URL(harness().sim.url);
    prometheus = await startPrometheus({ scrapeTargets: [address.host], scheme: address.protocol === 'https:' ? 'https' : 'http', metricsPath: '/__sim/metrics', scrapeIntervalSeconds: 1 });
    await prometheus.waitForSeries('beyla_network_flow_bytes_total', 20_000);
    await prometheus.waitForSeries('container_network_receive_bytes_total', 20_000);
    process.env.ZONESCOPE_PROMETHEUS_URL = prometheus.url;
    for (const [key, value] of Object.entries(env)) process.env[key] = value;
    await resetTrafficSource();
  }, 60_000);
  const stop = async (): Promise<void> => {
    await prometheus?.stop();
    prometheus = null;
  };
  afterAll(async () => {
    await resetTrafficSource();
    for (const key of keys) Reflect.deleteProperty(process.env, key);
    await stop();
  });
  return { get: () => prometheus, stop };
}
