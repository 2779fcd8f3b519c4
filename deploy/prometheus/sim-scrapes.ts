/**
 * Test support for the alert-rule tests: a bundled scenario on the simulator over real HTTP, the
 * process-wide cluster source synced to it (as the route tests do), and scrapes of the real
 * `GET /metrics` route. Only test files import this.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { GET } from '../../app/metrics/route';
import { resetMetricsSettings, scrapeMetrics } from '../../lib/views/metrics-endpoint';
import { waitForAnalysis } from '../../lib/server/analysis';
import { defaultScope } from '../../lib/server/clusters';
import { getClusterSource, resetClusterSource } from '../../lib/k8s/source';
import { defaultControllers } from '../../sim/default-controllers';
import type { FaultRuleInput } from '../../sim/faults/fault-rules';
import type { RbacConfigInput } from '../../sim/faults/rbac';
import { loadScenario } from '../../sim/scenario';
import type { Simulator } from '../../sim/server';
import { startSimulator } from '../../sim/server';
import { parseExposition } from './scrape-to-promtool';

const ENV_KEYS = ['KUBECONFIG', 'KUBERNETES_SERVICE_HOST', 'ZONESCOPE_SNAPSHOT', 'ZONESCOPE_CONTEXT', 'ZONESCOPE_HOST', 'ZONESCOPE_CROSS_ZONE_BUDGET_DOLLARS', 'ZONESCOPE_PROMETHEUS_URL'] as const;

/** What {@link startScrapedCluster} starts. */
export interface ScrapedClusterOptions {
  /** A bundled scenario (fixtures/NAME.yaml). */
  readonly scenario: string;
  /** The Kubernetes version the simulator serves instead of the scenario's. */
  readonly version?: string;
  /** `ZONESCOPE_CROSS_ZONE_BUDGET_DOLLARS` for the exporter. */
  readonly budgetDollars?: string;
  /** RBAC of the simulator's user from the start. */
  readonly rbac?: RbacConfigInput;
  /** Faults from the start. */
  readonly faults?: FaultRuleInput[];
  /** Wait for the first sync (default true). */
  readonly waitForSync?: boolean;
}

/** A running simulated cluster with zonescope's source synced to it. */
export interface ScrapedCluster {
  readonly sim: Simulator;
  /** The text of `GET /metrics` now. */
  scrape(): Promise<string>;
  /** The exposition as rendered at `nowMs` (what the route serves then: the clock moved on, nothing else). */
  scrapeAt(nowMs: number): Promise<string>;
  /** Scrapes until `check` accepts the text (the source has seen a change), or throws after `timeoutMs`. */
  scrapeUntil(check: (text: string) => boolean, what: string, timeoutMs?: number): Promise<string>;
  /** Sends a merge patch to the simulator as another client would (kubectl). */
  patch(apiPath: string, body: unknown): Promise<void>;
  /** Stops the simulator only (the API server goes away; zonescope keeps running). */
  stopSimulator(): Promise<void>;
  /** Stops the source and the simulator and restores the environment. */
  stop(): Promise<void>;
}

/** Starts `options.scenario` on the simulator with its controllers and points zonescope at it. */
export async function startScrapedCluster(options: ScrapedClusterOptions): Promise<ScrapedCluster> {
  const saved = Object.fromEntries(ENV_KEYS.map((key) => [key, process.env[key]]));
  const scenario = await loadScenario(options.scenario);
  const version = options.version ?? scenario.serverVersion;
  const sim = await startSimulator({
    port: 0,
    objects: scenario.objects,
    controllers: defaultControllers(),
    ...(version !== undefined ? { version } : {}),
    ...(options.rbac !== undefined ? { rbac: options.rbac } : {}),
    ...(options.faults !== undefined ? { faults: options.faults } : {}),
    log: () => undefined,
  });
  const dir = await mkdtemp(path.join(tmpdir(), 'zonescope-rules-'));
  const kubeconfig = await sim.writeKubeconfig(path.join(dir, 'kubeconfig'));
  for (const key of ENV_KEYS) Reflect.deleteProperty(process.env, key);
  process.env.KUBECONFIG = kubeconfig;
  process.env.ZONESCOPE_HOST = '127.0.0.1';
  if (options.budgetDollars !== undefined) process.env.ZONESCOPE_CROSS_ZONE_BUDGET_DOLLARS = options.budgetDollars;
  resetMetricsSettings();
  await resetClusterSource();
  if (options.waitForSync !== false && !(await getClusterSource().waitForSync(20_000))) throw new Error(`the cluster source did not sync to ${options.scenario}`);
  // Served once the first analysis pass is done too (until then /metrics reports syncing).
  if (options.waitForSync !== false && !(await waitForAnalysis(20_000))) throw new Error(`the first analysis of ${options.scenario} did not finish`);
  let simRunning = true;
  const scrape = async (): Promise<string> => {
    const response = await GET();
    if (response.status !== 200) throw new Error(`GET /metrics answered ${response.status}`);
    return response.text();
  };
  return {
    sim,
    scrape,
    scrapeAt: (nowMs) => scrapeMetrics(defaultScope(), nowMs),
    scrapeUntil: async (check, what, timeoutMs = 15_000) => {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const text = await scrape();
        if (check(text)) return text;
        if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    },
    patch: async (apiPath, body) => {
      const response = await fetch(`${sim.url}${apiPath}`, {
        method: 'PATCH',
        headers: { 'Content-Type': 'application/merge-patch+json', Authorization: `Bearer ${sim.token}` },
        body: JSON.stringify(body),
      });
      if (!response.ok) throw new Error(`PATCH ${apiPath}: ${response.status} ${await response.text()}`);
    },
    stopSimulator: async () => {
      if (!simRunning) return;
      simRunning = false;
      await sim.stop();
    },
    stop: async () => {
      await resetClusterSource();
      if (simRunning) await sim.stop();
      simRunning = false;
      await rm(dir, { recursive: true, force: true });
      for (const key of ENV_KEYS) {
        const value = saved[key];
        if (value === undefined) Reflect.deleteProperty(process.env, key);
        else process.env[key] = value;
      }
      resetMetricsSettings();
    },
  };
}

/** The value of the one sample of `name` with exactly these labels in a scrape, or undefined. */
export function sampleValue(text: string, name: string, labels: Readonly<Record<string, string>> = {}): number | undefined {
  const wanted = JSON.stringify(Object.entries(labels).sort());
  return parseExposition(text).find((s) => s.name === name && JSON.stringify(Object.entries(s.labels).sort()) === wanted)?.value;
}
