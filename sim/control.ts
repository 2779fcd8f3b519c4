/**
 * The simulator's control endpoints under `/__sim/` (JSON in, JSON out; errors are
 * `{"error": "..."}` with 400/404/405):
 *
 * | method + path                 | body                                                    | answer |
 * |-------------------------------|---------------------------------------------------------|--------|
 * | `GET /__sim/stats`            |                                                         | {@link StatsSnapshot} + `resourceVersion`, `objects` per resource |
 * | `POST /__sim/stats/reset`     |                                                         | `{ok: true}` |
 * | `GET /__sim/faults`           |                                                         | `{rules, seed}` |
 * | `POST /__sim/faults`          | `{rules: FaultRuleInput[], replace?, seed?}`            | `{ids, rules, seed}` |
 * | `DELETE /__sim/faults[/<id>]` |                                                         | `{rules, seed}` |
 * | `GET /__sim/rbac`             |                                                         | `RbacConfig` |
 * | `POST /__sim/rbac`            | `{user?, deny: RbacRuleInput[], allow?: RbacRuleInput[]}` (replaces) | `RbacConfig` |
 * | `DELETE /__sim/rbac`          |                                                         | the start configuration |
 * | `POST /__sim/watches/drop`    | `{resource?, abrupt?}`                                  | `{dropped}` |
 * | `POST /__sim/reset`           | `{objects?, faults?, rbac?, stats?, traffic?}` (each default true) | `{ok: true, resourceVersion}` |
 * | `POST /__sim/restore`         | `{scenario?, objects?, fromResourceVersion?}`           | `{ok: true, resourceVersion, objects}` |
 * | `POST /__sim/gc`              |                                                         | `{heapBeforeMiB, heapAfterMiB, ms}`: the simulator collects its garbage now (benchmark hygiene) |
 * | `GET /__sim/metrics`          |                                                         | Prometheus text format 0.0.4: Beyla flow and cAdvisor pod byte counters (sim/traffic/counters.ts) |
 * | `GET /__sim/traffic-rates[?service=ns/name][&series=false]` |                           | {@link TrafficRatesDocument}: the exact rate of every exported series |
 * | `GET /__sim/traffic-options`  |                                                         | the `TrafficMetricsOptions` in force (sim/traffic/exporter-options.ts) |
 * | `PUT /__sim/traffic-options`  | `{flowZoneLabels?, exporter?: "beyla"\|"obi", interZone?}` (those left out keep their value) | the options now in force |
 *
 * `POST /__sim/restore` is the API server restarting on an older state (an etcd restore, another
 * cluster on the same address): every object is replaced by the named scenario's (`scenario`,
 * a `fixtures/` name), the given wire objects (`objects`), or by default the start scenario; their
 * resourceVersions are numbered after `fromResourceVersion` (default 0), so clients' versions are
 * ahead of the server (lists from them answer 504 `ResourceVersionTooLarge`; watches from them
 * are accepted and stay silent, as kube-apiserver's are: sim/watch.ts; continue tokens get 410);
 * history is dropped, every watch and every hung request is cut as a restart would cut them, and
 * the controllers start again. A bad body changes nothing (400).
 *
 * `PUT /__sim/traffic-options` switches what the traffic metrics look like (sim/traffic/exporter-options.ts):
 * `src_zone`/`dst_zone` on the flow metric, the `beyla_`/`obi_` prefix, the inter-zone metric.
 * From the next scrape, series that stay the same carry on, the others stop being exported, and
 * new ones start at 0. `POST /__sim/reset` returns them to the start values (`traffic: false` keeps them).
 */
import { Session } from 'node:inspector/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { z } from 'zod';
import type { SimFaults } from './faults';
import { dropWatchesRequestSchema } from './faults';
import { faultsRequestSchema } from './faults/fault-rules';
import { rbacRequestSchema } from './faults/rbac';
import { readBody, sendJson } from './http';
import { RESOURCE_KEYS } from './resources';
import { loadScenario, ScenarioError } from './scenario';
import type { KubeObject } from './types';
import { kubeObjectProblem } from './types';
import type { SimStats, StatsSnapshot } from './stats';
import type { ObjectStore } from './store';
import { FLOW_EXPORTERS } from './traffic/beyla-series';
import type { SimTrafficMetrics } from './traffic/counters';
import type { TrafficRatesDocument } from './traffic/rates';

/** Body of `POST /__sim/reset`. */
export const resetRequestSchema = z.object({
  objects: z.boolean().default(true),
  faults: z.boolean().default(true),
  rbac: z.boolean().default(true),
  stats: z.boolean().default(true),
  traffic: z.boolean().default(true),
});

/** Body of `PUT /__sim/traffic-options`: the switches to change. */
export const trafficOptionsRequestSchema = z
  .object({
    flowZoneLabels: z.boolean().optional(),
    exporter: z.enum(FLOW_EXPORTERS).optional(),
    interZone: z.boolean().optional(),
  })
  .strict();

/** What to reset. */
export type ResetOptions = z.infer<typeof resetRequestSchema>;

/** Body of `POST /__sim/restore`. */
export const restoreRequestSchema = z
  .object({
    scenario: z.string().min(1).optional(),
    objects: z.array(z.unknown()).optional(),
    fromResourceVersion: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER - 1e9).default(0),
  })
  .refine((body) => body.scenario === undefined || body.objects === undefined, { message: 'give either scenario or objects, not both' });

/** What to restore: the objects (`undefined`: the start scenario) and where their resourceVersions start. */
export interface RestoreOptions {
  readonly objects?: readonly KubeObject[];
  readonly fromResourceVersion: number;
}

/** What the control endpoints act on. */
export interface ControlDeps {
  store: ObjectStore;
  faults: SimFaults;
  stats: SimStats;
  reset: (options: ResetOptions) => void;
  /**
   * Restarts the server on another state (see `POST /__sim/restore`).
   * @throws when the objects cannot be loaded (nothing changed then).
   */
  restore: (options: RestoreOptions) => void;
  /** The traffic counters of `/__sim/metrics` and `/__sim/traffic-rates` (both 404 without). */
  traffic?: SimTrafficMetrics;
}

/** Statistics plus store facts, as `GET /__sim/stats` returns them. */
export interface ControlStats extends StatsSnapshot {
  resourceVersion: string;
  objects: Record<string, number>;
}

/** Current statistics and object counts. */
export function controlStats(deps: Pick<ControlDeps, 'store' | 'stats'>): ControlStats {
  const objects: Record<string, number> = {};
  for (const key of RESOURCE_KEYS) objects[key] = deps.store.count(key);
  return { ...deps.stats.snapshot(), resourceVersion: String(deps.store.resourceVersion), objects };
}

class ControlError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

async function jsonBody<T>(req: IncomingMessage, schema: z.ZodType<T>): Promise<T> {
  const text = (await readBody(req)).toString('utf8').trim();
  let raw: unknown = {};
  if (text !== '') {
    try {
      raw = JSON.parse(text) as unknown;
    } catch (error) {
      throw new ControlError(400, `body is not JSON: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  const parsed = schema.safeParse(raw);
  if (!parsed.success) throw new ControlError(400, z.prettifyError(parsed.error));
  return parsed.data;
}

/** The objects of a `fixtures/` scenario, or 400 naming the problem. */
async function scenarioObjects(name: string): Promise<readonly KubeObject[]> {
  if (!/^[a-z0-9][a-z0-9-]*$/.test(name)) throw new ControlError(400, `scenario must be a fixtures/ scenario name, not ${JSON.stringify(name)}`);
  try {
    return (await loadScenario(name)).objects;
  } catch (error) {
    throw new ControlError(400, error instanceof ScenarioError ? error.message : `cannot load scenario ${name}: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/** Wire objects of a restore body, or 400 naming the first malformed one. */
function wireObjects(values: readonly unknown[]): KubeObject[] {
  return values.map((value, i) => {
    const problem = kubeObjectProblem(value);
    if (problem !== undefined) throw new ControlError(400, `objects[${i}]: ${problem}`);
    return value as KubeObject;
  });
}

/** `GET /__sim/traffic-rates`: `service=namespace/name` keeps one Service (404 when it sends nothing), `series=false` leaves the series out. */
function trafficRates(traffic: SimTrafficMetrics, query: URLSearchParams): TrafficRatesDocument {
  for (const name of query.keys()) if (name !== 'service' && name !== 'series') throw new ControlError(400, `unknown parameter ${JSON.stringify(name)} (service, series)`);
  const service = query.get('service') ?? undefined;
  if (service !== undefined && !/^[a-z0-9]([-a-z0-9]*[a-z0-9])?\/[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/.test(service)) throw new ControlError(400, `service must be namespace/name, not ${JSON.stringify(service)}`);
  const seriesParam = query.get('series');
  if (seriesParam !== null && seriesParam !== 'true' && seriesParam !== 'false') throw new ControlError(400, `series must be true or false, not ${JSON.stringify(seriesParam)}`);
  const document = traffic.rates({ ...(service !== undefined ? { service } : {}), series: seriesParam !== 'false' });
  if (service !== undefined && document.services.length === 0) throw new ControlError(404, `Service ${service} sends no traffic (it does not exist or has no ready endpoints)`);
  return document;
}

/**
 * `POST /__sim/gc`: the simulator collects all its garbage now (V8's low-memory collection, through
 * an in-process inspector session). The simulator is not an API server: serialising ~850 MB of
 * lists leaves a multi-GB heap whose next full collection costs it seconds of CPU, landing in
 * whatever the benchmark measures next (a floor pass or a cold sync took 25 s instead of 15 with
 * the simulator's CPU at 20 s instead of 6). The benchmark asks for it before each timed phase,
 * so that debt is paid outside the measurement. Answers the heap in use before and after, in MiB.
 */
async function collectGarbage(): Promise<{ readonly heapBeforeMiB: number; readonly heapAfterMiB: number; readonly ms: number }> {
  const heapMiB = () => Math.round(process.memoryUsage().heapUsed / 1048576);
  const heapBeforeMiB = heapMiB();
  const startedAt = performance.now();
  const session = new Session();
  session.connect();
  // Awaited, not in the reply's callback: disconnecting there blocks the thread (Node 20 and 24).
  await session.post('HeapProfiler.collectGarbage');
  session.disconnect();
  return { heapBeforeMiB, heapAfterMiB: heapMiB(), ms: Math.round(performance.now() - startedAt) };
}

/** Handles one `/__sim/...` request. */
export async function handleControl(deps: ControlDeps, req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
  const method = (req.method ?? 'GET').toUpperCase();
  const path = url.pathname.replace(/\/+$/, '');
  const faultsView = (): Record<string, unknown> => ({ rules: deps.faults.list(), seed: deps.faults.currentSeed });
  try {
    if (path === '/__sim/stats' && method === 'GET') {
      sendJson(res, 200, controlStats(deps));
    } else if (path === '/__sim/stats/reset' && method === 'POST') {
      deps.stats.reset();
      sendJson(res, 200, { ok: true });
    } else if (path === '/__sim/faults' && method === 'GET') {
      sendJson(res, 200, faultsView());
    } else if (path === '/__sim/faults' && method === 'POST') {
      const body = await jsonBody(req, faultsRequestSchema);
      if (body.replace) deps.faults.clear();
      if (body.seed !== undefined) deps.faults.setSeed(body.seed);
      const ids = body.rules.map((rule) => deps.faults.add(rule));
      sendJson(res, 200, { ids, ...faultsView() });
    } else if (path === '/__sim/faults' && method === 'DELETE') {
      deps.faults.clear();
      sendJson(res, 200, faultsView());
    } else if (path.startsWith('/__sim/faults/') && method === 'DELETE') {
      const id = decodeURIComponent(path.slice('/__sim/faults/'.length));
      if (!deps.faults.remove(id)) throw new ControlError(404, `no fault rule ${id}`);
      sendJson(res, 200, faultsView());
    } else if (path === '/__sim/rbac' && method === 'GET') {
      sendJson(res, 200, deps.faults.rbac);
    } else if (path === '/__sim/rbac' && method === 'POST') {
      const body = await jsonBody(req, rbacRequestSchema);
      deps.faults.setRbac(body);
      sendJson(res, 200, deps.faults.rbac);
    } else if (path === '/__sim/rbac' && method === 'DELETE') {
      deps.faults.resetRbac();
      sendJson(res, 200, deps.faults.rbac);
    } else if (path === '/__sim/watches/drop' && method === 'POST') {
      const body = await jsonBody(req, dropWatchesRequestSchema);
      sendJson(res, 200, { dropped: deps.faults.dropWatches(body.resource, body.abrupt) });
    } else if (path === '/__sim/reset' && method === 'POST') {
      const body = await jsonBody(req, resetRequestSchema);
      deps.reset(body);
      sendJson(res, 200, { ok: true, resourceVersion: String(deps.store.resourceVersion) });
    } else if (path === '/__sim/restore' && method === 'POST') {
      const body = await jsonBody(req, restoreRequestSchema);
      const objects = body.scenario !== undefined ? await scenarioObjects(body.scenario) : body.objects !== undefined ? wireObjects(body.objects) : undefined;
      try {
        deps.restore({ fromResourceVersion: body.fromResourceVersion, ...(objects !== undefined ? { objects } : {}) });
      } catch (error) {
        throw new ControlError(400, `cannot restore: ${error instanceof Error ? error.message : String(error)}`);
      }
      const counts: Record<string, number> = {};
      for (const key of RESOURCE_KEYS) counts[key] = deps.store.count(key);
      sendJson(res, 200, { ok: true, resourceVersion: String(deps.store.resourceVersion), objects: counts });
    } else if (path === '/__sim/gc' && method === 'POST') {
      sendJson(res, 200, await collectGarbage());
    } else if (path === '/__sim/metrics' && (method === 'GET' || method === 'HEAD') && deps.traffic !== undefined) {
      const text = deps.traffic.exposition();
      res.writeHead(200, { 'Content-Type': 'text/plain; version=0.0.4; charset=utf-8', 'Content-Length': String(Buffer.byteLength(text)), 'Cache-Control': 'no-cache, private' });
      res.end(method === 'HEAD' ? undefined : text);
    } else if (path === '/__sim/traffic-rates' && method === 'GET' && deps.traffic !== undefined) {
      sendJson(res, 200, trafficRates(deps.traffic, url.searchParams));
    } else if (path === '/__sim/traffic-options' && method === 'GET' && deps.traffic !== undefined) {
      sendJson(res, 200, deps.traffic.options);
    } else if (path === '/__sim/traffic-options' && method === 'PUT' && deps.traffic !== undefined) {
      const body = await jsonBody(req, trafficOptionsRequestSchema);
      sendJson(res, 200, deps.traffic.setOptions(body));
    } else if (['/__sim/stats', '/__sim/stats/reset', '/__sim/faults', '/__sim/rbac', '/__sim/watches/drop', '/__sim/reset', '/__sim/restore', '/__sim/gc', ...(deps.traffic ? ['/__sim/metrics', '/__sim/traffic-rates', '/__sim/traffic-options'] : [])].includes(path)) {
      throw new ControlError(405, `${method} is not supported on ${path}`);
    } else {
      throw new ControlError(404, `unknown control endpoint ${path}`);
    }
  } catch (error) {
    if (res.headersSent) {
      res.destroy();
      return;
    }
    if (error instanceof ControlError) sendJson(res, error.code, { error: error.message });
    else sendJson(res, 500, { error: error instanceof Error ? error.message : String(error) });
  }
}
