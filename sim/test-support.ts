/**
 * Small object builders and helpers for the simulator's tests (no client-node here: only test
 * files may import it).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { ENDPOINTSLICE_CONTROLLER_NAME, LABEL_MANAGED_BY, LABEL_SERVICE_NAME } from '../lib/topology/upstream/constants';
import type { KubeObject } from './types';
import { isRecord } from './types';

/** A Ready node in a zone with allocatable CPU. */
export function node(name: string, zone: string | undefined, cpu = '4'): KubeObject {
  const labels: Record<string, string> = { 'kubernetes.io/hostname': name };
  if (zone !== undefined) labels['topology.kubernetes.io/zone'] = zone;
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name, labels },
    spec: {},
    status: {
      allocatable: { cpu, memory: '16Gi', pods: '110' },
      capacity: { cpu, memory: '16Gi', pods: '110' },
      conditions: [{ type: 'Ready', status: 'True' }],
      nodeInfo: { kubeletVersion: 'v1.31.4' },
    },
  };
}

/** A ClusterIP Service selecting `app=<name>`. */
export function service(name: string, namespace = 'default', labels: Record<string, string> = {}): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name, namespace, labels: { app: name, ...labels } },
    spec: { selector: { app: name }, ports: [{ name: 'http', port: 80, targetPort: 8080, protocol: 'TCP' }] },
  };
}

/** A running pod on a node. */
export function pod(name: string, namespace: string, labels: Record<string, string>, nodeName: string): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace, labels },
    spec: { nodeName, containers: [{ name: 'app', image: 'nginx' }] },
    status: { phase: 'Running', podIP: '10.0.0.1', containerStatuses: [{ name: 'app', ready: true, restartCount: 0 }] },
  };
}

/** A Deployment selecting `app=<name>`. */
export function deployment(name: string, namespace = 'default', replicas = 3): KubeObject {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, namespace, labels: { app: name } },
    spec: {
      replicas,
      selector: { matchLabels: { app: name } },
      template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'app', image: 'nginx' }] } },
    },
    status: { replicas, readyReplicas: replicas, availableReplicas: replicas, updatedReplicas: replicas },
  };
}

/** An EndpointSlice of a Service with one endpoint per (address, zone). */
export function endpointSlice(name: string, namespace: string, serviceName: string, endpoints: [string, string][]): KubeObject {
  return {
    apiVersion: 'discovery.k8s.io/v1',
    kind: 'EndpointSlice',
    metadata: { name, namespace, labels: { [LABEL_SERVICE_NAME]: serviceName, [LABEL_MANAGED_BY]: ENDPOINTSLICE_CONTROLLER_NAME } },
    addressType: 'IPv4',
    ports: [{ name: 'http', port: 8080, protocol: 'TCP' }],
    endpoints: endpoints.map(([address, zone]) => ({ addresses: [address], conditions: { ready: true }, zone })),
  };
}

/** A core Event about an object. */
export function event(name: string, namespace: string, involved: { kind: string; name: string; uid?: string }, reason: string): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Event',
    metadata: { name, namespace },
    involvedObject: { kind: involved.kind, name: involved.name, namespace, ...(involved.uid ? { uid: involved.uid } : {}) },
    reason,
    message: `${reason} happened`,
    type: 'Normal',
    source: { component: 'endpoint-slice-controller' },
    count: 1,
  };
}

/** The fields of a `kind: Status` body tests look at. */
export interface StatusBody {
  kind: unknown;
  code: unknown;
  reason: unknown;
  message: unknown;
  details: unknown;
}

/** Parses a Status body (client-node's `ApiException.body` is the raw string). */
export function parseStatus(body: unknown): StatusBody {
  const value: unknown = typeof body === 'string' ? JSON.parse(body) : body;
  if (!isRecord(value)) throw new Error(`not a Status: ${String(body)}`);
  return { kind: value.kind, code: value.code, reason: value.reason, message: value.message, details: value.details };
}

/** Resolves after `ms`. */
export function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Polls `check` until it returns true or `timeoutMs` passes. */
export async function waitFor(check: () => boolean, timeoutMs = 3000, what = 'condition'): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await delay(10);
  }
}

/**
 * Runs `attempt` until it resolves (every `intervalMs`) and returns its value: for conditions
 * that take a while to hold, such as series a Prometheus has yet to scrape.
 * @throws the last error of `attempt` after `timeoutMs`.
 */
export async function eventually<T>(attempt: () => Promise<T> | T, timeoutMs = 15_000, intervalMs = 250): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await attempt();
    } catch (error) {
      if (Date.now() > deadline) throw error;
    }
    await delay(intervalMs);
  }
}

/** The part of a running simulator {@link podEnvironment} needs. */
interface SimEndpoint {
  readonly port: number;
  readonly token: string;
  readonly caCertificate: string | undefined;
}

/**
 * Writes a service-account folder for `sim` (as Kubernetes mounts one in a Pod: `token`,
 * `ca.crt` when the simulator serves TLS, `namespace`) into `dir`, and returns the environment
 * of a Pod using it: `KUBERNETES_SERVICE_HOST`/`KUBERNETES_SERVICE_PORT` and
 * `ZONESCOPE_SERVICEACCOUNT_DIR`.
 */
export function podEnvironment(sim: SimEndpoint, dir: string, namespace = 'default'): Record<string, string> {
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, 'token'), sim.token);
  if (sim.caCertificate !== undefined) writeFileSync(path.join(dir, 'ca.crt'), sim.caCertificate);
  writeFileSync(path.join(dir, 'namespace'), namespace);
  return { KUBERNETES_SERVICE_HOST: '127.0.0.1', KUBERNETES_SERVICE_PORT: String(sim.port), ZONESCOPE_SERVICEACCOUNT_DIR: dir };
}

/**
 * Runs `controllers`' queued work until a pass writes nothing to `store`: the simulator's
 * controllers work on `setImmediate`, with no timers, so this settles them at once.
 */
export function settleControllers(store: { readonly resourceVersion: number }, controllers: readonly { flush(): void }[]): void {
  for (let pass = 0; pass < 100; pass++) {
    const before = store.resourceVersion;
    for (const controller of controllers) controller.flush();
    if (store.resourceVersion === before) return;
  }
  throw new Error('the controllers kept writing after 100 passes');
}

/** The part of a running Prometheus the waits below query. */
interface QueryablePrometheus {
  query(expression: string): Promise<readonly { readonly value: readonly [number, string] }[]>;
}

/**
 * Resolves once `prometheus` has scraped `metric` at or after `unixSeconds` (its newest sample's
 * time): the samples a rate window ending now covers are then all newer than some moment.
 */
export async function scrapedSince(prometheus: QueryablePrometheus, metric: string, unixSeconds: number, timeoutMs = 30_000): Promise<void> {
  await waitForAsync(async () => Number((await prometheus.query(`max(timestamp(${metric}))`))[0]?.value[1] ?? 0) >= unixSeconds, timeoutMs, `a scrape of ${metric} at or after ${new Date(unixSeconds * 1000).toISOString()}`);
}

/** Resolves once `prometheus` holds at least `samples` samples of one series of `metric` (over the last hour). */
export async function samplesHeld(prometheus: QueryablePrometheus, metric: string, samples: number, timeoutMs = 60_000): Promise<void> {
  await waitForAsync(async () => Number((await prometheus.query(`max(count_over_time(${metric}[1h]))`))[0]?.value[1] ?? 0) >= samples, timeoutMs, `${samples} samples of ${metric}`);
}

/** Polls the async `check` (every 100 ms) until it holds or `timeoutMs` passes. */
export async function waitForAsync(check: () => Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await delay(100);
  }
}
