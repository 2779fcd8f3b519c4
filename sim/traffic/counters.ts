/**
 * The simulator's traffic counters: `GET /__sim/metrics` serves Prometheus counters in the exact
 * shapes Beyla/OBI (eBPF network flows, one agent per node; sim/traffic/beyla-series.ts) and the
 * kubelet's cAdvisor (pod network bytes on containerd; sim/traffic/cadvisor-series.ts) export,
 * generated from the simulator's own traffic model (sim/traffic/model.ts), and
 * `GET /__sim/traffic-rates` says exactly what was sent and which rate each exported series grows
 * at (sim/traffic/rates.ts). What each label is and why, with sources: docs/traffic-simulator.md.
 *
 * Counters = ∫ rate dt since the series appeared: a Service present at start counts rate ×
 * seconds since the simulator started, a Service that appears starts at 0, one that disappears
 * stops being exported; when a rate changes the counter carries on from where it was (monotonic),
 * so Prometheus' `rate()` recovers the rates exactly. The model is re-run at the first read after
 * the store changed (resourceVersion, resets and restores); switching the options
 * ({@link SimTrafficMetrics.setOptions}) keeps every series that stays the same; the others stop,
 * and new ones start at 0. The exposition reuses each series' label text, so a scrape of an
 * unchanged cluster only formats numbers. A model run that takes over a second (realistic-L:
 * seconds after a change, more cold) is not repeated within 10× its duration (at most 30 s) for
 * store changes: on a cluster that keeps changing, rates then follow the changes that much later,
 * and the simulator stays responsive.
 */
import type { VersionInfo } from '../discovery';
import type { ObjectStore } from '../store';
import { flowMetricName, interZoneMetricName } from './beyla-series';
import { POD_RECEIVE_METRIC, POD_TRANSMIT_METRIC } from './cadvisor-series';
import type { TrafficMetricsOptions } from './exporter-options';
import { DEFAULT_TRAFFIC_METRICS_OPTIONS, metricHelp, metricOrder, trafficOptionsKey, withTrafficMetricsOptions } from './exporter-options';
import { escapeHelp, formatValue, parseSeriesId } from './exposition';
import type { TrafficModel } from './model';
import { computeTrafficModel, newTrafficModelCache } from './model';
import type { TrafficProfile } from './profile';
import type { TrafficRatesDocument } from './rates';
import { LOADGEN_WORKLOAD, REPLY_FACTOR } from './service-traffic';
import { StoreRecords } from './store-records';

/** A model run slower than this (ms) is not repeated within 10× its duration, at most {@link MAX_THROTTLE_MS} (see `current`). */
const SLOW_MODEL_MS = 1_000;
const MAX_THROTTLE_MS = 30_000;

/** A counter: its value at `since` and the rate it grows at from then. */
interface Counter {
  /** The series id (metric and label text). */
  readonly id: string;
  readonly metric: string;
  /** `metric{labels} ` (the line before the value). */
  readonly prefix: string;
  readonly rate: number;
  readonly valueAtSince: number;
  readonly since: number;
}

/** Options of {@link SimTrafficMetrics}. */
export interface SimTrafficMetricsOptions {
  readonly profile: TrafficProfile;
  readonly version: VersionInfo;
  /** Clock (the simulator's). */
  readonly now: () => Date;
  /** The switches at start (default {@link DEFAULT_TRAFFIC_METRICS_OPTIONS}). */
  readonly trafficMetrics?: Partial<TrafficMetricsOptions>;
}

/**
 * The simulator's traffic counters over its store (see the file header). The model is re-run at
 * the first read after the store changed; counters carry on from the moment of the change.
 */
export class SimTrafficMetrics {
  readonly profile: TrafficProfile;
  private readonly startedAt: number;
  private readonly cache = newTrafficModelCache();
  private readonly records: StoreRecords;
  private readonly initialOptions: TrafficMetricsOptions;
  private trafficOptions: TrafficMetricsOptions;
  private model: TrafficModel | null = null;
  /** The store generation and the options the model was computed for. */
  private modelStoreKey = '';
  private modelOptionsKey = '';
  private epoch = 0;
  private generationCount = 0;
  private counters: Counter[] = [];
  /** When the store first changed after the model was computed (`null`: unchanged since). */
  private changedAt: number | null = null;
  /** When values were last served (a re-run never folds new rates in before this). */
  private servedAt = 0;
  /** Wall-clock cost and end (performance.now) of the last model run. */
  private lastCostMs = 0;
  private lastComputedAt = 0;
  private readonly unsubscribe: () => void;

  constructor(
    private readonly store: ObjectStore,
    private readonly config: SimTrafficMetricsOptions,
  ) {
    this.profile = config.profile;
    this.initialOptions = withTrafficMetricsOptions(DEFAULT_TRAFFIC_METRICS_OPTIONS, config.trafficMetrics ?? {});
    this.trafficOptions = this.initialOptions;
    this.startedAt = config.now().getTime();
    this.records = new StoreRecords(store, config.version);
    this.unsubscribe = store.subscribe('*', () => {
      this.changedAt ??= this.config.now().getTime();
    });
  }

  /** Marks the store as replaced (reset, restore: the store notifies no one then). */
  invalidate(): void {
    this.epoch++;
    this.changedAt ??= this.config.now().getTime();
  }

  /** The switches in force. */
  get options(): TrafficMetricsOptions {
    return this.trafficOptions;
  }

  /**
   * Switches options (those left out keep their value) and returns the options in force. From
   * the next read, series that stay the same carry on, the others stop, and new ones start at 0.
   * @throws Error on an unknown exporter (nothing changes then).
   */
  setOptions(change: Partial<TrafficMetricsOptions>): TrafficMetricsOptions {
    const next = withTrafficMetricsOptions(this.trafficOptions, change);
    if (trafficOptionsKey(next) !== trafficOptionsKey(this.trafficOptions)) {
      this.trafficOptions = next;
      this.changedAt ??= this.config.now().getTime();
    }
    return this.trafficOptions;
  }

  /** Returns to the options of the start. */
  resetOptions(): TrafficMetricsOptions {
    return this.setOptions(this.initialOptions);
  }

  /** Stops following the store. */
  dispose(): void {
    this.unsubscribe();
  }

  /** The model of the current store and options, re-run when either changed; counters folded at the change. */
  private current(): { model: TrafficModel; at: number } {
    const storeKey = `${this.store.resourceVersion}/${this.epoch}`;
    const optionsKey = trafficOptionsKey(this.trafficOptions);
    const now = this.config.now().getTime();
    // An expensive model (a large cluster) is re-run for a changed store at most every 10× its
    // cost, so that a store that keeps changing does not keep the simulator busy; the counters grow
    // at the old rates meanwhile. A switched option always applies at once.
    const throttled = this.lastCostMs > SLOW_MODEL_MS && performance.now() - this.lastComputedAt < Math.min(10 * this.lastCostMs, MAX_THROTTLE_MS);
    if (this.model !== null && optionsKey === this.modelOptionsKey && (storeKey === this.modelStoreKey || throttled)) {
      this.servedAt = now;
      return { model: this.model, at: now };
    }
    const started = performance.now();
    const model = computeTrafficModel(this.records.read(), this.profile, this.trafficOptions, this.cache);
    const at = this.config.now().getTime();
    // New rates apply from the change, but never before a value already served at the old rates (counters only grow).
    const foldAt = this.model === null ? this.startedAt : Math.min(Math.max(this.changedAt ?? at, this.servedAt), at);
    const previous = new Map<string, Counter>();
    for (const counter of this.counters) previous.set(counter.id, counter);
    // Families in metricOrder; inside one, the model's order (Services by namespace/name).
    const byMetric = new Map<string, Counter[]>(metricOrder(this.trafficOptions).map((metric) => [metric, []]));
    for (const [id, s] of model.series) {
      const old = previous.get(id);
      const valueAtSince = old ? old.valueAtSince + (old.rate * Math.max(0, foldAt - old.since)) / 1000 : 0;
      byMetric.get(s.metric)?.push({ id, metric: s.metric, prefix: old?.prefix ?? `${id} `, rate: s.bytesPerSecond, valueAtSince, since: foldAt });
    }
    this.counters = [...byMetric.values()].flat();
    this.model = model;
    this.modelStoreKey = storeKey;
    this.modelOptionsKey = optionsKey;
    this.changedAt = null;
    this.generationCount++;
    this.servedAt = at;
    this.lastComputedAt = performance.now();
    this.lastCostMs = this.lastComputedAt - started;
    return { model, at };
  }

  /** The exposition (text format 0.0.4) at this moment. */
  exposition(): string {
    const { at } = this.current();
    const lines: string[] = [];
    let family = '';
    for (const counter of this.counters) {
      if (counter.metric !== family) {
        family = counter.metric;
        lines.push(`# HELP ${family} ${escapeHelp(metricHelp(family))}`, `# TYPE ${family} counter`);
      }
      lines.push(counter.prefix + formatValue(counter.valueAtSince + counter.rate * Math.max(0, at - counter.since) / 1000));
    }
    lines.push('');
    return lines.join('\n');
  }

  /** What `GET /__sim/traffic-rates` answers: every Service's rates and (unless `series` is false) every series' rate. */
  rates(options: { readonly service?: string; readonly series?: boolean } = {}): TrafficRatesDocument {
    const { model, at } = this.current();
    const seriesCount: Record<string, number> = {};
    for (const metric of metricOrder(this.trafficOptions)) seriesCount[metric] = 0;
    for (const counter of this.counters) seriesCount[counter.metric] = (seriesCount[counter.metric] ?? 0) + 1;
    const services = options.service === undefined ? model.services : model.services.filter((s) => `${s.namespace}/${s.name}` === options.service);
    let interZone = 0;
    let flowInterZone = 0;
    for (const service of model.services) {
      interZone += service.crossZoneBytesPerSecond;
      if (service.coverage === 'flows-and-pod-bytes') flowInterZone += service.crossZoneBytesPerSecond;
    }
    const { exporter } = this.trafficOptions;
    return {
      clusterName: this.profile.clusterName,
      startedAt: new Date(this.startedAt).toISOString(),
      at: new Date(at).toISOString(),
      generation: this.generationCount,
      options: this.trafficOptions,
      replyFactor: REPLY_FACTOR,
      clientWorkload: { kind: 'Deployment', name: LOADGEN_WORKLOAD },
      metrics: { flows: flowMetricName(exporter), interZone: interZoneMetricName(exporter), podReceive: POD_RECEIVE_METRIC, podTransmit: POD_TRANSMIT_METRIC },
      services,
      interZoneBytesPerSecond: interZone,
      flowInterZoneBytesPerSecond: flowInterZone,
      ...(options.series === false ? {} : { series: this.counters.map((c) => ({ metric: c.metric, labels: parseSeriesId(c.id).labels, bytesPerSecond: c.rate })) }),
      seriesCount,
    };
  }
}
