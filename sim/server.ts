/**
 * Starts the simulated Kubernetes API server: loads a scenario into the store, starts the
 * in-process controllers and serves the API (plus `/__sim/` control endpoints) over node:http —
 * or, with `tls`, over node:https with a CA and server certificate generated at start-up. With
 * `auth` it requires credentials as a real cluster does: a bearer token, a client certificate
 * signed by its CA (checked in the TLS handshake), or a token that the kubeconfig's exec plugin
 * obtains.
 *
 * ```ts
 * const sim = await startSimulator({ objects: (await loadScenario('tiny')).objects });
 * await sim.writeKubeconfig('.sim/kubeconfig');
 * // ... kubectl / client-node against sim.url ...
 * await sim.stop();
 * ```
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { RequestListener, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { createServer as createHttpsServer } from 'node:https';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { ResetOptions, RestoreOptions } from './control';
import { handleControl } from './control';
import type { SimController } from './controller';
import { createSimContext } from './controller';
import { versionInfo } from './discovery';
import type { FaultRuleInput } from './faults/fault-rules';
import type { RbacConfigInput } from './faults/rbac';
import { seededRandom, SimFaults } from './faults';
import type { KubeconfigOptions, SimAuth, SimCredentials } from './kubeconfig';
import { renderKubeconfig, SIM_AUTH_MODES, writeKubeconfig } from './kubeconfig';
import { createRouter } from './router';
import { scenarioEntries } from './scenario';
import { SimStats } from './stats';
import type { SimTlsMaterial } from './tls';
import { generateSimTls } from './tls';
import { ObjectStore } from './store';
import { SimTrafficMetrics } from './traffic/counters';
import type { TrafficMetricsOptions } from './traffic/exporter-options';
import { DEFAULT_TRAFFIC_METRICS_OPTIONS, withTrafficMetricsOptions } from './traffic/exporter-options';
import { trafficProfileFor } from './traffic/profile';
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
  /** Reject requests without `Authorization: Bearer <token>` (401). Default false; the same as `auth: 'token'`. */
  requireToken?: boolean;
  /**
   * Serve HTTPS with a CA and a server certificate generated at start-up (for 127.0.0.1, ::1,
   * localhost and `names`); kubeconfigs then carry the CA as `certificate-authority-data`.
   * Default false.
   */
  tls?: boolean | { readonly names?: readonly string[] };
  /**
   * What clients must present (default `none`, or `token` with {@link requireToken}):
   * `token` — `Authorization: Bearer <token>` (else 401); `client-cert` — a client certificate
   * signed by the generated CA (needs {@link tls}; the TLS handshake fails without one), and
   * kubeconfigs carry it as `client-certificate-data`/`client-key-data`; `exec` — the bearer
   * token, which kubeconfigs obtain through an `exec` entry running sim/exec-plugin.mjs.
   */
  auth?: SimAuth;
  /** Clock (default: the system clock). */
  now?: () => Date;
  /**
   * The `fixtures/` name of the scenario served, when it has one: names the cluster in the traffic
   * metrics (`k8s_cluster_name`) and picks the scenario's deliberate traffic deviations (eks-demo's;
   * see sim/traffic/profile.ts). Without it, eks-demo is recognised by its Services.
   */
  scenarioName?: string;
  /**
   * The exporter switches of the traffic metrics at start (and after `POST /__sim/reset`): zone
   * labels on the flow metric (default off, as Beyla ships), the `beyla`/`obi` prefix and the
   * inter-zone metric (default on). Changeable at run time (`PUT /__sim/traffic-options`).
   */
  trafficMetrics?: Partial<TrafficMetricsOptions>;
  /** Diagnostics sink (default: stderr). */
  log?: (message: string) => void;
}

/** What a kubeconfig for a simulator may change (tests: a host name only a proxy resolves, a `proxy-url`). */
export interface KubeconfigOverrides {
  /** Server URL instead of {@link Simulator.url}. */
  readonly server?: string;
  /** The cluster's `proxy-url`. */
  readonly proxyUrl?: string;
  /** The name of the context, cluster and user (default `zonescope-sim`): unique names let `KUBECONFIG=a:b` hold two simulators. */
  readonly context?: string;
}

/** A running simulator. */
export interface Simulator {
  /** `http://127.0.0.1:<port>`, or `https://127.0.0.1:<port>` with TLS. */
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
  /** The traffic counters served at `/__sim/metrics` and `/__sim/traffic-rates`. */
  readonly traffic: SimTrafficMetrics;
  /** How clients authenticate. */
  readonly auth: SimAuth;
  /** The generated CA certificate (PEM) with TLS, else undefined. */
  readonly caCertificate: string | undefined;
  /** Names and addresses the server certificate covers (empty without TLS). */
  readonly tlsServerNames: readonly string[];
  /** The client certificate and key (PEM) signed by the CA, with TLS. */
  readonly clientCertificate: { readonly certificate: string; readonly key: string } | undefined;
  /**
   * Replaces the bearer token: from now on (with `requireToken`) only the new one is accepted, as
   * when a service-account token is rotated. Kubeconfigs written afterwards carry the new token;
   * with `auth: 'exec'` the plugin's token file is rewritten, so the plugin hands out the new one.
   */
  rotateToken(token: string): void;
  /** The bearer token accepted now. */
  readonly token: string;
  /** Kubeconfig YAML for this simulator (context `zonescope-sim`), with its CA and credentials. */
  kubeconfig(overrides?: KubeconfigOverrides): string;
  /** Writes the kubeconfig to a file (mode 0600) and returns its absolute path. */
  writeKubeconfig(file: string, overrides?: KubeconfigOverrides): Promise<string>;
  /**
   * Resets state (each part default true): `objects` restores the initial scenario (new
   * resourceVersions, history cleared so old versions get 410, watches dropped, controllers
   * restarted); `faults`, `rbac`, `stats` and the traffic metrics' switches (`traffic`) return to
   * their start values.
   */
  reset(options?: Partial<ResetOptions>): void;
  /**
   * Restarts on another state, as after an etcd restore (`POST /__sim/restore`): the objects
   * (default: the start scenario) numbered after `fromResourceVersion`, history dropped, every
   * watch and hung request cut, controllers restarted. Throws, changing nothing, when the objects
   * cannot be loaded.
   */
  restore(options: RestoreOptions): void;
  /**
   * Closes every kept-alive connection that carries no request now, as a server's idle timeout
   * does (tests: a client must open a new connection for its next request, without an error).
   */
  closeIdleConnections(): void;
  /** Stops controllers, closes every connection (watches, hung requests) and the listener. */
  stop(): Promise<void>;
}

export type { SimAuth } from './kubeconfig';
export { SIM_AUTH_MODES } from './kubeconfig';

/** Default token in generated kubeconfigs. */
export const DEFAULT_TOKEN = 'zonescope-sim-token';

/**
 * Starts a simulator.
 * @throws ApiError when the scenario has duplicate objects; Error when the port is taken, the
 * version is malformed, `auth: 'client-cert'` comes without `tls`, a TLS name is malformed, or
 * `trafficMetrics.exporter` is unknown.
 */
export async function startSimulator(options: SimulatorOptions = {}): Promise<Simulator> {
  const host = options.host ?? '127.0.0.1';
  const auth: SimAuth = options.auth ?? (options.requireToken ? 'token' : 'none');
  if (!SIM_AUTH_MODES.includes(auth)) throw new Error(`unknown auth mode "${String(auth)}" (${SIM_AUTH_MODES.join(', ')})`);
  if (auth === 'client-cert' && !options.tls) throw new Error('client-certificate authentication needs TLS');
  const trafficMetrics = withTrafficMetricsOptions(DEFAULT_TRAFFIC_METRICS_OPTIONS, options.trafficMetrics ?? {});
  const tls: SimTlsMaterial | undefined = options.tls
    ? await generateSimTls({ extraNames: [...(host === '0.0.0.0' || host === '::' ? [] : [host]), ...(typeof options.tls === 'object' ? (options.tls.names ?? []) : [])] })
    : undefined;
  const tokenRequired = auth === 'token' || auth === 'exec' || options.requireToken === true;
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
  const traffic = new SimTrafficMetrics(store, { profile: trafficProfileFor(initialObjects, options.scenarioName), version, now, trafficMetrics });

  const hanging = new Set<ServerResponse>();
  const reset = (what: Partial<ResetOptions> = {}): void => {
    if (what.objects ?? true) {
      stopControllers();
      hub.drop(undefined, false);
      store.replaceAll(scenarioEntries(initialObjects));
      traffic.invalidate();
      startControllers();
    }
    if (what.faults ?? true) {
      faults.clear();
      faults.setSeed(seed);
      for (const rule of initialFaults) faults.add(rule);
    }
    if (what.rbac ?? true) faults.resetRbac();
    if (what.stats ?? true) stats.reset();
    if (what.traffic ?? true) traffic.resetOptions();
  };
  const restore = (what: RestoreOptions): void => {
    const entries = scenarioEntries(what.objects ?? initialObjects);
    stopControllers();
    try {
      store.replaceAll(entries, { fromResourceVersion: what.fromResourceVersion });
      traffic.invalidate();
    } catch (error) {
      startControllers();
      throw error;
    }
    // A restarted server: no connection of the old one survives.
    hub.drop(undefined, true);
    for (const res of hanging) res.destroy();
    hanging.clear();
    startControllers();
  };

  let address = `${host}:0`;
  const apiRandom = seededRandom(seed + 1);
  const router: RequestListener = createRouter({
    store, faults, hub, stats, allocator: new ServiceAllocator(), now, random: apiRandom, version, log, hanging,
    serverAddress: () => address,
    requiredToken: () => (tokenRequired ? token : undefined),
    control: (req, res, url) => handleControl({ store, faults, stats, reset, restore, traffic }, req, res, url),
  });
  const server = tls
    ? createHttpsServer(
        {
          key: tls.serverKey,
          cert: tls.serverCertificate,
          ...(auth === 'client-cert' ? { ca: tls.caCertificate, requestCert: true, rejectUnauthorized: true } : {}),
        },
        router,
      )
    : createServer(router);
  server.keepAliveTimeout = 30_000;
  // Every TCP connection (for TLS: before the handshake), for `connections` and `wireBytes` in `/__sim/stats`.
  server.on('connection', (socket: Socket) => stats.recordConnection(socket));

  // The exec plugin's token file (rewritten on rotation), in a folder of its own removed on stop.
  const execDir = auth === 'exec' ? mkdtempSync(path.join(tmpdir(), 'zonescope-sim-exec-')) : undefined;
  const execTokenFile = execDir !== undefined ? path.join(execDir, 'token') : undefined;
  const writeExecToken = (): void => {
    if (execTokenFile !== undefined) writeFileSync(execTokenFile, token, { mode: 0o600 });
  };
  const removeExecDir = (): void => {
    if (execDir !== undefined) rmSync(execDir, { recursive: true, force: true });
  };
  writeExecToken();

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
    traffic.dispose();
    removeExecDir();
    throw error;
  }
  const bound = server.address();
  if (bound === null || typeof bound === 'string') throw new Error('the simulator is not listening on a TCP port');
  const port = bound.port;
  address = `${host}:${port}`;
  const url = `${tls ? 'https' : 'http'}://${host.includes(':') ? `[${host}]` : host}:${port}`;
  const credentials = (): SimCredentials => {
    if (auth === 'client-cert' && tls) return { kind: 'client-cert', certificate: tls.clientCertificate, key: tls.clientKey };
    if (execTokenFile !== undefined) return { kind: 'exec', tokenFile: execTokenFile };
    return { kind: 'token', token };
  };
  const kubeconfigOptions = (overrides: KubeconfigOverrides = {}): KubeconfigOptions => ({
    server: overrides.server ?? url,
    token,
    credentials: credentials(),
    ...(tls ? { caCertificate: tls.caCertificate } : {}),
    ...(overrides.proxyUrl !== undefined ? { proxyUrl: overrides.proxyUrl } : {}),
    ...(overrides.context !== undefined ? { context: overrides.context } : {}),
  });

  let stopping: Promise<void> | undefined;
  return {
    url,
    host,
    port,
    version: gitVersion,
    store,
    faults,
    stats,
    traffic,
    auth,
    caCertificate: tls?.caCertificate,
    tlsServerNames: tls?.serverNames ?? [],
    clientCertificate: tls ? { certificate: tls.clientCertificate, key: tls.clientKey } : undefined,
    get token() {
      return token;
    },
    rotateToken: (next) => {
      token = next;
      writeExecToken();
    },
    kubeconfig: (overrides) => renderKubeconfig(kubeconfigOptions(overrides)),
    writeKubeconfig: (file, overrides) => writeKubeconfig(file, kubeconfigOptions(overrides)),
    reset,
    restore,
    closeIdleConnections: () => server.closeIdleConnections(),
    stop: () => {
      stopping ??= new Promise<void>((resolve) => {
        stopControllers();
        hub.shutdown();
        traffic.dispose();
        removeExecDir();
        for (const res of hanging) res.destroy();
        hanging.clear();
        server.close(() => resolve());
        server.closeAllConnections();
      });
      return stopping;
    },
  };
}
