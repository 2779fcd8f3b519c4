/**
 * The traffic sources of the clusters other than the process-wide default one: ONE
 * {@link TrafficSource} per open cluster that has a configuration of its own
 * (`ZONESCOPE_PROMETHEUS_BY_CONTEXT`, lib/prometheus/prometheus-by-context.ts), so a fleet of N
 * configured clusters runs N sources' queries every refresh interval, whatever the number of
 * pages, and a cluster without one runs none.
 *
 * Lifecycle, tied to the cluster registry's (lib/k8s/clusters.ts) through its owner — the
 * cluster's open source object:
 * - {@link ClusterTrafficSources.sourceFor} creates and starts the cluster's source on first use
 *   after the cluster opened (lib/server/clusters.ts asks as it opens one);
 * - {@link ClusterTrafficSources.release} stops and forgets it when the registry closes the
 *   cluster (idle, to make room, registry stopped: {@link ClusterTrafficSources.follow} subscribes
 *   to the registry's closings); a cluster opened again (a new owner) gets a fresh source, as its
 *   watches start afresh.
 *
 * The configuration is taken once, when the set is created (its result per cluster too).
 */
import { getConfig } from '../config/process-config';
import type { MetricsConfigResult } from './config';
import type { PrometheusByContext } from '../config/prometheus-syntax';
import type { ByContextEnv, TrafficCluster } from './prometheus-by-context';
import { hasContextEntry, metricsConfigForCluster, prometheusByContextOf } from './prometheus-by-context';
import type { TrafficMeasurement, TrafficSourceOptions } from './traffic-source';
import { TrafficSource } from './traffic-source';
import type { MetricsStatus } from './traffic-status';
import { unusableConfigStatus } from './traffic-status';

/** Options of {@link ClusterTrafficSources}. */
export interface ClusterTrafficSourcesOptions {
  /** The configuration (default the process'). */
  readonly config?: ByContextEnv;
  /** Options of every source created (clock, log); the log line is prefixed with the cluster. */
  readonly source?: TrafficSourceOptions;
}

/** What {@link ClusterTrafficSources.sourceFor} answers: the cluster's running source, or its status when it has none. */
export type ClusterTrafficLookup = { readonly kind: 'source'; readonly source: TrafficSource } | { readonly kind: 'none'; readonly status: MetricsStatus };

/** What {@link ClusterTrafficSources.follow} needs of a cluster registry (`ClusterRegistry.onClose` of lib/k8s/clusters.ts). */
export interface ClosingRegistry<Owner extends object> {
  onClose(listener: (entry: { readonly id: string }, source: Owner) => void): () => void;
}

interface Running<Owner extends object> {
  readonly owner: Owner;
  readonly source: TrafficSource;
}

/** The per-cluster traffic sources of one process (or one test). `Owner` is the cluster's open source object. */
export class ClusterTrafficSources<Owner extends object = object> {
  /** The parsed `ZONESCOPE_PROMETHEUS_BY_CONTEXT`. */
  readonly byContext: PrometheusByContext;
  private readonly config: ByContextEnv;
  private readonly sourceOptions: TrafficSourceOptions;
  private readonly configs = new Map<string, MetricsConfigResult>();
  private readonly running = new Map<string, Running<Owner>>();
  /** The registries followed, with their unsubscribe functions. */
  private readonly followed = new Map<ClosingRegistry<Owner>, () => void>();

  constructor(options: ClusterTrafficSourcesOptions = {}) {
    this.config = options.config ?? getConfig();
    this.sourceOptions = options.source ?? {};
    this.byContext = prometheusByContextOf(this.config);
  }

  /**
   * Whether the set serves this cluster: every cluster but the default one without an entry of
   * its own (whose source is the process-wide one of `getTrafficSource`).
   */
  serves(cluster: Pick<TrafficCluster, 'context' | 'isDefault'>): boolean {
    return !cluster.isDefault || hasContextEntry(this.byContext, cluster.context);
  }

  /** The cluster's configuration, worked out once per cluster id. */
  configFor(cluster: TrafficCluster): MetricsConfigResult {
    let config = this.configs.get(cluster.id);
    if (config === undefined) {
      config = metricsConfigForCluster(this.config, cluster, this.byContext);
      this.configs.set(cluster.id, config);
    }
    return config;
  }

  /**
   * The running source of `cluster` as opened by `owner`: created and started on the first call
   * (with `options.prepare` as its hook, see `TrafficSource.setPrepare`), the same object
   * afterwards. A different owner (the cluster was closed and opened again) stops the old source
   * and starts a new one. A cluster whose configuration is missing or invalid gets no source: its
   * status says why. An owner the registry has closed already (`options.open` false: a request
   * still holding it) gets none either — nothing would stop it — and a `pending` status.
   */
  sourceFor(cluster: TrafficCluster, owner: Owner, options: { readonly prepare?: (measurement: TrafficMeasurement) => Promise<void>; readonly open?: boolean } = {}): ClusterTrafficLookup {
    const current = this.running.get(cluster.id);
    if (current !== undefined && current.owner === owner) return { kind: 'source', source: current.source };
    const config = this.configFor(cluster);
    if (config.kind !== 'ok') return { kind: 'none', status: unusableConfigStatus(config) };
    // Never started, so it only says what it would read.
    if (options.open === false) return { kind: 'none', status: new TrafficSource(config).status() };
    if (current !== undefined) this.stopQuietly(cluster.id, current);
    const where = cluster.context ?? cluster.id;
    const log = this.sourceOptions.log ?? ((line: string) => console.warn(line));
    const source = new TrafficSource(config, { ...this.sourceOptions, log: (line) => log(line.replace(/^\[zonescope\]/, `[zonescope ${where}]`)) });
    if (options.prepare !== undefined) source.setPrepare(options.prepare);
    this.running.set(cluster.id, { owner, source });
    source.start();
    return { kind: 'source', source };
  }

  /** The running source of the cluster, without creating one (`null` when none runs). */
  peek(id: string): TrafficSource | null {
    return this.running.get(id)?.source ?? null;
  }

  /** Ids of the clusters whose source runs. */
  ids(): readonly string[] {
    return [...this.running.keys()];
  }

  /**
   * Stops and forgets the cluster's source — only when it was created for `owner`, when given (a
   * late close of an earlier opening leaves the new one alone). Whether one was stopped.
   */
  release(id: string, owner?: Owner): boolean {
    const current = this.running.get(id);
    if (current === undefined || (owner !== undefined && current.owner !== owner)) return false;
    this.stopQuietly(id, current);
    return true;
  }

  /**
   * Stops a cluster's source when `registry` closes the cluster (idle, to make room, registry
   * stopped), the closed source being its owner. Subscribes once per registry.
   */
  follow(registry: ClosingRegistry<Owner>): void {
    if (this.followed.has(registry)) return;
    this.followed.set(
      registry,
      registry.onClose((entry, owner) => {
        this.release(entry.id, owner);
      }),
    );
  }

  /** Stops every source and unsubscribes from the registries followed (tests; a changed environment). */
  async stopAll(): Promise<void> {
    for (const unsubscribe of this.followed.values()) unsubscribe();
    this.followed.clear();
    const all = [...this.running.values()];
    this.running.clear();
    await Promise.all(all.map((current) => current.source.stop()));
  }

  private stopQuietly(id: string, current: Running<Owner>): void {
    this.running.delete(id);
    // stop() never rejects (a refresh under way settles on its own); nothing to wait for here.
    void current.source.stop();
  }
}

const KEY = Symbol.for('zonescope.clusterTrafficSources');
type Holder = { [KEY]?: ClusterTrafficSources };

/**
 * The process's per-cluster traffic sources, with `ZONESCOPE_PROMETHEUS_BY_CONTEXT` read on first
 * use (kept on `globalThis`, as the process-wide source, so dev reloads do not start more timers).
 */
export function getClusterTrafficSources(): ClusterTrafficSources {
  const holder = globalThis as unknown as Holder;
  return (holder[KEY] ??= new ClusterTrafficSources());
}

/** Stops and forgets every per-cluster source; the variable is read again on next use (tests; a changed environment). */
export async function resetClusterTrafficSources(): Promise<void> {
  const holder = globalThis as unknown as Holder;
  const sources = holder[KEY];
  holder[KEY] = undefined;
  await sources?.stopAll();
}
