/**
 * Starts the simulated Kubernetes API server: loads a scenario into the store, starts the
 * in-process controllers and serves the API (plus `/__sim/` control endpoints) over node:http.
 *
 * ```ts
 * const sim = await startSimulator({ objects: (await loadScenario('tiny')).objects });
 * await sim.writeKubeconfig('.sim/kubeconfig');
 * // ... kubectl / client-node against sim.url ...
 * await sim.stop();
 * ```
 */
import { createServer } from 'node:http';
import type { ServerResponse } from 'node:http';
import type { ResetOptions } from './control';
import { handleControl } from './control';
import type { SimController } from './controller';
import { createSimContext } from './controller';
import { versionInfo } from './discovery';
import type { FaultRuleInput, RbacConfigInput } from './faults';
import { seededRandom, SimFaults } from './faults';
import { renderKubeconfig, writeKubeconfig } from './kubeconfig';
import { createRouter } from './router';
import { scenarioEntries } from './scenario';
import { SimStats } from './stats';
import { ObjectStore } from './store';
import type { KubeObject } from './types';
import { ServiceAllocator } from './validation';
import { WatchHub } from './watch';

/** Options of {@link startSimulator}. */
export interface SimulatorOptions {
  /** Port to listen on (default 0: a random free port). */
  port?: number;
  /** Address to listen on (default `127.0.0.1`). */
  host?: string;
  /**
   * Scenario objects (wire form, e.g. `loadScenario(name).objects`). They are copied into the
   * store and kept for {@link Simulator.reset}: do not mutate them afterwards.
   */
  objects?: readonly KubeObject[];
  /** In-process controllers, started after the scenario is loaded. */
  controllers?: readonly SimController[];
  /** Kubernetes version served at `/version` (default `v1.31.4`). */
  version?: string;
  /** Events kept per resource kind for watch resume and paging (default 10,000). */
  historySize?: number;
  /** Interval of BOOKMARK events on watches that allow them (default 60,000 ms). */
  bookmarkIntervalMs?: number;
  /** Lifetime of a watch without timeoutSeconds (default 1800 s). */
  watchTimeoutSeconds?: number;
  /** Seed of every random choice (fault probabilities, generateName, controllers' `random()`). Default 1. */
  seed?: number;
  /** Initial RBAC configuration (default: everything allowed for the default user). */
  rbac?: RbacConfigInput;
  /** Initial fault rules. */
  faults?: FaultRuleInput[];
  /** Bearer token written into kubeconfigs (default `zonescope-sim-token`). */
  token?: string;
  /** Reject requests without `Authorization: Bearer <token>` (401). Default false. */
  requireToken?: boolean;
  /** Clock (default: the system clock). */
  now?: () => Date;
  /** Diagnostics sink (default: stderr). */
  log?: (message: string) => void;
}

/** A running simulator. */
export interface Simulator {
  /** `http://127.0.0.1:<port>` */
  readonly url: string;
  readonly host: string;
  readonly port: number;
  /** The served Kubernetes version. */
  readonly version: string;
  /** The object store (read it, or write directly as the system). */
  readonly store: ObjectStore;
  /** Faults and RBAC, changeable at runtime. */
  readonly faults: SimFaults;
  /** Request statistics. */
  readonly stats: SimStats;
  /**
   * Replaces the bearer token: from now on (with `requireToken`) only the new one is accepted, as
   * when a service-account token is rotated. Kubeconfigs written afterwards carry the new token.
   */
  rotateToken(token: string): void;
  /** Kubeconfig YAML for this simulator (context `zonescope-sim`). */
  kubeconfig(): string;
  /** Writes the kubeconfig to a file (mode 0600) and returns its absolute path. */
  writeKubeconfig(file: string): Promise<string>;
  /**
   * Resets state (each part default true): `objects` restores the initial scenario (new
   * resourceVersions, history cleared so old versions get 410, watches dropped, controllers
   * restarted); `faults`, `rbac` and `stats` return to their start values.
   */
  reset(options?: Partial<ResetOptions>): void;
  /** Stops controllers, closes every connection (watches, hung requests) and the listener. */
  stop(): Promise<void>;
}

/** Default token in generated kubeconfigs. */
export const DEFAULT_TOKEN = 'zonescope-sim-token';

/**
 * Starts a simulator.
 * @throws ApiError when the scenario has duplicate objects; Error when the port is taken or the
 * version is malformed.
 */
export async function startSimulator(options: SimulatorOptions = {}): Promise<Simulator> {
  const host = options.host ?? '127.0.0.1';
  const gitVersion = options.version ?? 'v1.31.4';
  const version = versionInfo(gitVersion);
  const now = options.now ?? (() => new Date());
  const log = options.log ?? ((message: string) => console.error(message));
  const seed = options.seed ?? 1;
  let token = options.token ?? DEFAULT_TOKEN;
  // Kept (not copied) for reset(): scenarioEntries copies on every load.
  const initialObjects = options.objects ?? [];
  const initialFaults = options.faults ?? [];

  const store = new ObjectStore({ historySize: options.historySize ?? 10_000, now });
  const stats = new SimStats();
  const faults = new SimFaults({ seed, faults: initialFaults, ...(options.rbac !== undefined ? { rbac: options.rbac } : {}) });
  const hub = new WatchHub(store, stats, {
    now,
    ...(options.bookmarkIntervalMs !== undefined ? { bookmarkIntervalMs: options.bookmarkIntervalMs } : {}),
    ...(options.watchTimeoutSeconds !== undefined ? { defaultTimeoutSeconds: options.watchTimeoutSeconds } : {}),
  });
  faults.attachWatchDropper((resource, abrupt) => hub.drop(resource, abrupt));
  store.replaceAll(scenarioEntries(initialObjects));

  // Controllers: each gets its own context so its subscriptions can be dropped when it stops.
  const controllers = options.controllers ?? [];
  let running: { controller: SimController; dispose: () => void }[] = [];
  const startControllers = (): void => {
    const random = seededRandom(seed);
    running = controllers.map((controller) => {
      const { context, dispose } = createSimContext(store, { now, random, serverVersion: gitVersion, log });
      controller.start(context);
      return { controller, dispose };
    });
  };
  const stopControllers = (): void => {
    for (const { controller, dispose } of running) {
      try {
        controller.stop();
      } catch (error) {
        log(`sim: controller ${controller.name} failed to stop: ${String(error)}`);
      }
      dispose();
    }
    running = [];
  };
  startControllers();

  const hanging = new Set<ServerResponse>();
  const reset = (what: Partial<ResetOptions> = {}): void => {
    if (what.objects ?? true) {
      stopControllers();
      hub.drop(undefined, false);
      store.replaceAll(scenarioEntries(initialObjects));
      startControllers();
    }
    if (what.faults ?? true) {
      faults.clear();
      faults.setSeed(seed);
      for (const rule of initialFaults) faults.add(rule);
    }
    if (what.rbac ?? true) faults.resetRbac();
    if (what.stats ?? true) stats.reset();
  };

  let address = `${host}:0`;
  const apiRandom = seededRandom(seed + 1);
  const server = createServer(
    createRouter({
      store, faults, hub, stats, allocator: new ServiceAllocator(), now, random: apiRandom, version, log, hanging,
      serverAddress: () => address,
      requiredToken: () => (options.requireToken ? token : undefined),
      control: (req, res, url) => handleControl({ store, faults, stats, reset }, req, res, url),
    }),
  );
  server.keepAliveTimeout = 30_000;

  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(options.port ?? 0, host, () => {
        server.off('error', reject);
        resolve();
      });
    });
  } catch (error) {
    stopControllers();
    hub.shutdown();
    throw error;
  }
  const bound = server.address();
  if (bound === null || typeof bound === 'string') throw new Error('the simulator is not listening on a TCP port');
  const port = bound.port;
  address = `${host}:${port}`;
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;

  let stopping: Promise<void> | undefined;
  return {
    url,
    host,
    port,
    version: gitVersion,
    store,
    faults,
    stats,
    rotateToken: (next) => {
      token = next;
    },
    kubeconfig: () => renderKubeconfig({ server: url, token }),
    writeKubeconfig: (file) => writeKubeconfig(file, { server: url, token }),
    reset,
    stop: () => {
      stopping ??= new Promise<void>((resolve) => {
        stopControllers();
        hub.shutdown();
        for (const res of hanging) res.destroy();
        hanging.clear();
        server.close(() => resolve());
        server.closeAllConnections();
      });
      return stopping;
    },
  };
}
