/**
 * The traffic source: ONE per cluster with a Prometheus configuration (the default cluster's is
 * process-wide, {@link getTrafficSource}; the others' live as long as their cluster is open,
 * lib/prometheus/cluster-traffic-sources.ts). Every `refreshSeconds` it runs the fixed set of
 * PromQL queries of lib/prometheus/queries.ts for the whole cluster (three in the steady state,
 * whatever the number of Services, pages or browsers; plus cheap coverage probes while the data is
 * younger than the window, traffic-coverage.ts), keeps the last good answer and a health
 * status. Readers never wait for Prometheus: {@link TrafficSource.measurement} and
 * {@link TrafficSource.status} answer from memory, and a refresh already running is shared
 * (single-flight). Nothing here throws into a caller.
 *
 * When refreshes fail the last good measurement is still used for `maxStaleSeconds` (state
 * `stale`, with the time it went stale); after that, or when there never was one, the figures fall
 * back to the model: state `unreachable` when Prometheus is down or too slow, `error` when it
 * answers with something unusable (4xx/5xx, an error envelope, malformed, too large) — and `error`
 * too when the configuration is invalid.
 */
import type { FlowSeries, InterZoneSeries, MeasuredSeriesInput, PodBytesSeries } from '../topology/analyses/measured-traffic';
import type { MetricsConfig, MetricsConfigResult } from './config';
import { getConfig } from '../config/process-config';
import { defaultClusterMetricsConfig } from './prometheus-by-context';
import type { PrometheusErrorKind, VectorSample } from './client';
import { PrometheusError, queryInstant, queryInstantEach } from './client';
import type { FlowPrefix } from './queries';
import { FLOW_PREFIXES, flowMetric, flowProbeSelector, flowQuery, formatPromDuration, interZoneQuery, POD_METRIC_LABEL, podBytesExclusions, podBytesQuery, podProbeSelector, promDurationSeconds } from './queries';
import { zoneLabelsHint } from '../topology/analyses/measured-traffic';
import { FlowSeriesTable } from '../topology/analyses/flow-series-table';
import { CoverageProbes, MIN_DATA_SECONDS } from './traffic-coverage';
import type { MetricsStatus } from './traffic-status';
import { unusableConfigStatus } from './traffic-status';

/** What a refresh read: the series, ready for `measuredTrafficFromSeries` (plus counts for the status). */
export interface TrafficMeasurement extends MeasuredSeriesInput {
  /** Which flow family answered, `null` when neither had series. */
  readonly flowPrefix: FlowPrefix | null;
  /** Some flow series carry `src_zone`/`dst_zone` (added by `attributes.select`; off by default). */
  readonly flowZones: boolean;
}

/** Queries of a refresh in the steady state: flows, inter-zone, pod bytes. */
export const STEADY_QUERIES_PER_REFRESH = 3;

/** Test and script hooks. */
export interface TrafficSourceOptions {
  /** Clock (default `Date.now`). */
  readonly now?: () => number;
  /** Called with one line per state change (never with credentials). Default: console.warn for failures. */
  readonly log?: (line: string) => void;
}

function labelOf(sample: VectorSample, name: string): string {
  return sample.metric[name] ?? '';
}

/** The exporter's label behind each field of a flow series. */
const FLOW_LABELS: Readonly<Record<Exclude<keyof FlowSeries, 'bytesPerSecond'>, string>> = {
  srcZone: 'src_zone',
  dstZone: 'dst_zone',
  srcNamespace: 'k8s_src_namespace',
  srcOwner: 'k8s_src_owner_name',
  srcOwnerType: 'k8s_src_owner_type',
  dstNamespace: 'k8s_dst_namespace',
  dstOwner: 'k8s_dst_owner_name',
  dstOwnerType: 'k8s_dst_owner_type',
  direction: 'direction',
};

function iso(ms: number): string {
  return new Date(ms).toISOString();
}

/** A cluster's traffic source: the process-wide one of the default cluster, one per configured cluster (lib/prometheus/cluster-traffic-sources.ts), or one per test. */
export class TrafficSource {
  private readonly configResult: MetricsConfigResult;
  private readonly now: () => number;
  private readonly log: (line: string) => void;
  private timer: ReturnType<typeof setInterval> | null = null;
  private inFlight: Promise<void> | null = null;
  private last: TrafficMeasurement | null = null;
  private lastSuccessMs: number | null = null;
  private lastOutcome: 'none' | 'ok' | 'no-series' | 'young' | 'failed' = 'none';
  private lastError: string | null = null;
  private lastErrorKind: PrometheusErrorKind | null = null;
  private failingSinceMs: number | null = null;
  private queriesIssued = 0;
  private queriesLastRefresh = STEADY_QUERIES_PER_REFRESH;
  private preferredPrefix: FlowPrefix = FLOW_PREFIXES[0];
  private readonly probes = new CoverageProbes((config, promql, timeSeconds) => this.query(config, promql, timeSeconds));
  /** Metrics with series but less than {@link MIN_DATA_SECONDS} of data at the last refresh. */
  private youngMetrics: string[] = [];
  private lastState: MetricsStatus['state'] | null = null;
  private prepareHook: ((measurement: TrafficMeasurement) => Promise<void>) | null = null;

  constructor(configResult: MetricsConfigResult, options: TrafficSourceOptions = {}) {
    this.configResult = configResult;
    this.now = options.now ?? Date.now;
    this.log = options.log ?? ((line) => console.warn(line));
  }

  /** The configuration in use, `null` when not configured or invalid. */
  get config(): MetricsConfig | null {
    return this.configResult.kind === 'ok' ? this.configResult.config : null;
  }

  /**
   * Sets what runs on each new measurement before it is published, that is before
   * {@link measurement} returns it and before the refresh resolves: the data layer maps the series
   * onto the cluster there, a slice at a time, so that no reader does it on its request. A hook
   * that rejects does not keep the measurement from being published.
   */
  setPrepare(hook: ((measurement: TrafficMeasurement) => Promise<void>) | null): void {
    this.prepareHook = hook;
  }

  /** Starts refreshing every `refreshSeconds` (first refresh now). No-op when not configured, invalid, or started. */
  start(): void {
    const config = this.config;
    if (config === null || this.timer !== null) return;
    void this.refresh();
    this.timer = setInterval(() => void this.refresh(), config.refreshSeconds * 1000);
    this.timer.unref?.();
  }

  /** Whether the timer runs (started and not stopped). */
  get running(): boolean {
    return this.timer !== null;
  }

  /** Stops the timer and waits for a refresh under way. */
  async stop(): Promise<void> {
    if (this.timer !== null) clearInterval(this.timer);
    this.timer = null;
    await this.inFlight;
  }

  /** Runs one refresh now, or joins the one under way. Never rejects. */
  refresh(): Promise<void> {
    const config = this.config;
    if (config === null) return Promise.resolve();
    if (this.inFlight !== null) return this.inFlight;
    const run = this.runRefresh(config).finally(() => {
      this.inFlight = null;
    });
    this.inFlight = run;
    return run;
  }

  /**
   * The measurement the figures should use now: the last good one while it is fresh or stale for
   * at most `maxStaleSeconds`; `null` when there is none to use (not configured, never reached,
   * no series, or stale for too long). The same object is returned until the next good refresh.
   */
  measurement(): TrafficMeasurement | null {
    const config = this.config;
    if (config === null || this.last === null) return null;
    if (this.lastOutcome === 'no-series' || this.lastOutcome === 'young') return null;
    if (this.lastOutcome === 'failed' && this.failingSinceMs !== null && this.now() - this.failingSinceMs > config.maxStaleSeconds * 1000) return null;
    return this.last;
  }

  /** The health status (from memory). */
  status(): MetricsStatus {
    const result = this.configResult;
    if (result.kind !== 'ok') return unusableConfigStatus(result);
    const config = result.config;
    const base = {
      url: config.baseUrl,
      // The window of the figures in use (shorter than the configured one while the data is younger).
      window: this.measurement()?.window ?? config.window,
      lastSuccessAt: this.lastSuccessMs === null ? null : iso(this.lastSuccessMs),
      queriesIssued: this.queriesIssued,
      queriesPerRefresh: this.queriesLastRefresh,
      refreshSeconds: config.refreshSeconds,
      hint: null,
    };
    if (this.lastOutcome === 'young') {
      return {
        ...base,
        state: 'pending',
        message: `Prometheus at ${config.baseUrl} has less than ${formatPromDuration(Math.min(MIN_DATA_SECONDS, promDurationSeconds(config.window)))} of ${this.youngMetrics.join(' / ')} yet: traffic volumes are assumed until it has more.`,
        staleSince: null,
      };
    }
    if (this.lastOutcome === 'none') {
      return { ...base, state: 'pending', message: `Waiting for the first answer from Prometheus at ${config.baseUrl}: traffic volumes are assumed until then.`, staleSince: null };
    }
    if (this.lastOutcome === 'no-series') {
      return {
        ...base,
        state: 'no-series',
        // With a selector (a shared Prometheus), say which: a typo in it reads as no series.
        message: `Prometheus at ${config.baseUrl} answers, but has no series of beyla_/obi_network_flow_bytes_total or ${POD_METRIC_LABEL.replace('+', ' / ')}${config.selector === '' ? '' : ` matching {${config.selector}}`}: traffic volumes are assumed.`,
        staleSince: null,
      };
    }
    const measured = this.last;
    if (this.lastOutcome === 'ok' && measured !== null) {
      const over =
        measured.window === config.window ? `rate over ${config.window}` : `rate over ${measured.window} — the data only reaches back that far (configured window ${config.window})`;
      if (measured.flowPrefix !== null && measured.flows.length > 0 && !measured.flowZones) {
        return {
          ...base,
          state: 'no-zones',
          message: `Prometheus at ${config.baseUrl} has ${measured.flows.length} flow series (${measured.flowMetric}) without src_zone/dst_zone — the exporter's default attribute set: cross-zone traffic cannot be measured by zone. Services use ${measured.podBytes.length} pod series (${POD_METRIC_LABEL.replace('+', ' + ')}) with the model's zone split, ${over}.`,
          staleSince: null,
          hint: zoneLabelsHint(measured.flowMetric),
        };
      }
      const flows = measured.flowPrefix === null ? 'no flow series' : `${measured.flows.length} flow series (${measured.flowMetric})`;
      return { ...base, state: 'ok', message: `Measured from Prometheus at ${config.baseUrl}: ${flows} and ${measured.podBytes.length} pod series, ${over}.`, staleSince: null };
    }
    const since = this.failingSinceMs === null ? null : iso(this.failingSinceMs);
    const reason = this.lastError ?? 'the last refresh failed.';
    if (this.measurement() !== null && this.lastSuccessMs !== null) {
      return { ...base, state: 'stale', message: `${reason} Showing the measurement of ${iso(this.lastSuccessMs)} (stale since ${since ?? 'now'}).`, staleSince: since };
    }
    const fallback = this.lastSuccessMs === null ? ', so traffic volumes are assumed.' : `; the last measurement (${iso(this.lastSuccessMs)}) is too old to use, so traffic volumes are assumed.`;
    // Down or slow: unreachable. Answering with something unusable (4xx/5xx, malformed, too large): error.
    const state = this.lastErrorKind === 'unreachable' || this.lastErrorKind === 'timeout' ? 'unreachable' : 'error';
    return { ...base, state, message: `${reason} Failing since ${since ?? 'now'}${fallback}`, staleSince: since };
  }

  private async query(config: MetricsConfig, promql: string, timeSeconds: number): Promise<VectorSample[]> {
    this.queriesIssued += 1;
    return queryInstant(config, promql, timeSeconds);
  }

  /** {@link query}, each sample handed to `each` as it is read. */
  private async queryEach(config: MetricsConfig, promql: string, timeSeconds: number, each: (sample: VectorSample) => void): Promise<void> {
    this.queriesIssued += 1;
    await queryInstantEach(config, promql, timeSeconds, each);
  }

  private async runRefresh(config: MetricsConfig): Promise<void> {
    const startedMs = this.now();
    const timeSeconds = startedMs / 1000;
    const issuedBefore = this.queriesIssued;
    try {
      // How far back each source's data reaches: a rate over a window longer than the data would
      // divide its bytes by time that has no data, and come out too small.
      const windowSeconds = promDurationSeconds(config.window);
      const podSelector = podProbeSelector(config.selector);
      const [flowCov, podCov] = await Promise.all([this.probes.flowCoverage(config, this.preferredPrefix, windowSeconds, timeSeconds), this.probes.coverage(config, podSelector, windowSeconds, timeSeconds)]);
      const usable = [flowCov.coverage, podCov].flatMap((c) => (c.kind === 'since' ? [c.seconds] : []));
      this.youngMetrics = [
        ...(flowCov.coverage.kind === 'young' && flowCov.prefix !== null ? [flowMetric(flowCov.prefix)] : []),
        ...(podCov.kind === 'young' ? [POD_METRIC_LABEL.replace('+', ' / ')] : []),
      ];
      const effectiveSeconds = usable.length === 0 ? windowSeconds : Math.min(...usable);
      const window = effectiveSeconds >= windowSeconds ? config.window : formatPromDuration(effectiveSeconds);

      const flowPrefix: FlowPrefix | null = flowCov.coverage.kind === 'since' ? flowCov.prefix : null;
      const none = Promise.resolve<VectorSample[]>([]);
      // The flow series go into columns as the answer is read (flow-series-table.ts): the samples,
      // each with its label map (~40 MiB at 225,000 series), are never all held.
      const flows = new FlowSeriesTable();
      // Pod bytes only where flows do not answer: zone-labelled flows measure every Service of the
      // workloads they name (at 0 when nobody calls it), so the pods of those namespaces would be
      // read for nothing (at scale most of the series of a refresh). Flows without zones measure
      // nothing: then every namespace's pods are read.
      let flowZones = false;
      const workloadEnds = new Set<string>();
      if (flowPrefix !== null) {
        await this.queryEach(config, flowQuery(flowPrefix, window, config.selector), timeSeconds, (sample) => {
          flows.add((name) => labelOf(sample, FLOW_LABELS[name]), sample.value);
          if (labelOf(sample, 'src_zone') === '' && labelOf(sample, 'dst_zone') === '') return;
          flowZones = true;
          if (labelOf(sample, 'k8s_src_owner_type') !== 'Service') workloadEnds.add(labelOf(sample, 'k8s_src_namespace'));
          if (labelOf(sample, 'k8s_dst_owner_type') !== 'Service') workloadEnds.add(labelOf(sample, 'k8s_dst_namespace'));
        });
        flows.trim();
      }
      const excluded = podBytesExclusions(workloadEnds);
      const podPromise = podCov.kind === 'since' ? this.query(config, podBytesQuery(window, excluded, config.selector), timeSeconds) : none;
      // Attach a handler now: a pod-bytes failure is reported once, after the inter-zone query settles.
      podPromise.catch(() => undefined);
      const interZoneSamples = usable.length === 0 ? [] : await this.query(config, interZoneQuery(flowPrefix ?? this.preferredPrefix, window, config.selector), timeSeconds);
      const podSamples = await podPromise;
      if (flowPrefix !== null) this.preferredPrefix = flowPrefix;
      // Series gone since the probe (exporter removed): probe again next time. (A restricted
      // pod-bytes query may rightly find nothing: the probe counted every namespace.)
      if (flowPrefix !== null && flows.length === 0) this.probes.forget(flowProbeSelector(flowPrefix, config.selector));
      if (podCov.kind === 'since' && podSamples.length === 0 && excluded.length === 0) this.probes.forget(podSelector);

      const interZone: InterZoneSeries[] = interZoneSamples.map((s) => ({ srcZone: labelOf(s, 'src_zone'), dstZone: labelOf(s, 'dst_zone'), bytesPerSecond: s.value }));
      const podBytes: PodBytesSeries[] = podSamples.map((s) => ({ namespace: labelOf(s, 'namespace'), pod: labelOf(s, 'pod'), bytesPerSecond: s.value }));
      const young = usable.length === 0 && this.youngMetrics.length > 0;
      const noSeries = flows.length === 0 && podBytes.length === 0 && interZone.length === 0;
      const measurement: TrafficMeasurement | null =
        young || noSeries ? null : { flows, podBytes, interZone, window, measuredAt: iso(startedMs), flowMetric: flowMetric(flowPrefix ?? this.preferredPrefix), podMetric: POD_METRIC_LABEL, flowPrefix, flowZones };
      if (measurement !== null && this.prepareHook !== null) await this.prepareHook(measurement).catch(() => undefined);
      this.queriesLastRefresh = this.queriesIssued - issuedBefore;
      this.lastSuccessMs = startedMs;
      this.failingSinceMs = null;
      this.lastError = null;
      this.lastErrorKind = null;
      if (young) {
        this.lastOutcome = 'young';
        this.last = null;
      } else if (noSeries) {
        this.lastOutcome = 'no-series';
        this.last = null;
      } else {
        this.lastOutcome = 'ok';
        this.last = measurement;
      }
    } catch (error) {
      this.queriesLastRefresh = this.queriesIssued - issuedBefore;
      this.lastOutcome = 'failed';
      this.lastError = error instanceof PrometheusError ? error.message : 'The Prometheus query failed unexpectedly.';
      this.lastErrorKind = error instanceof PrometheusError ? error.kind : 'malformed';
      this.failingSinceMs ??= startedMs;
    }
    const state = this.status().state;
    if (state !== this.lastState) {
      if (state === 'stale' || state === 'unreachable' || state === 'error' || state === 'no-series' || state === 'no-zones') this.log(`[zonescope] metrics: ${this.status().message}`);
      this.lastState = state;
    }
  }
}

const KEY = Symbol.for('zonescope.trafficSource');
type Holder = { [KEY]?: TrafficSource };

/**
 * The process-wide traffic source of the default cluster, configured from the configuration
 * (`ZONESCOPE_PROMETHEUS_URL`, `_SELECTOR`, …) and started on first use (kept on `globalThis` so
 * dev reloads do not start a second timer). When `ZONESCOPE_PROMETHEUS_BY_CONTEXT` has an entry for
 * the default cluster's context, the data layer reads that cluster's own source instead.
 */
export function getTrafficSource(): TrafficSource {
  const holder = globalThis as unknown as Holder;
  let source = holder[KEY];
  if (source === undefined) {
    source = new TrafficSource(defaultClusterMetricsConfig(getConfig()));
    holder[KEY] = source;
    source.start();
  }
  return source;
}

/** Stops and forgets the process-wide source (tests; a changed environment). */
export async function resetTrafficSource(): Promise<void> {
  const holder = globalThis as unknown as Holder;
  const source = holder[KEY];
  holder[KEY] = undefined;
  await source?.stop();
}
