/**
 * Cluster-wide traffic for pages and routes: the volumes and costs of every Service (measured
 * from Prometheus where it has series, else set, else assumed), memoised per analysis, measured
 * snapshot and settings, so a page render costs a map lookup and a new cluster generation or a new
 * Prometheus answer costs one O(Services × zones²) pass.
 *
 * Never waits for Prometheus: the traffic source refreshes in the background
 * (lib/prometheus/traffic-source.ts), and while it is slow, down or empty the figures are the
 * model's (assumed volumes) and {@link getMetricsStatus} says so.
 *
 * Per cluster: the default cluster reads the process-wide source (`ZONESCOPE_PROMETHEUS_URL`,
 * `_SELECTOR`), every other cluster — and the default when its context has an entry — the source
 * of its own `ZONESCOPE_PROMETHEUS_BY_CONTEXT` entry (lib/prometheus/cluster-traffic-sources.ts),
 * started as the cluster opens ({@link startClusterTraffic}) and stopped as the registry closes
 * it. A cluster without a configuration is `not-configured`, and its figures are assumed.
 *
 * Volume settings come from the configuration, read once (lib/server/volume-settings.ts):
 * `ZONESCOPE_CROSS_ZONE_PRICE`, `ZONESCOPE_PRICE_PER_GB`, `ZONESCOPE_GB_PER_ENDPOINT`,
 * `ZONESCOPE_GB_PER_SERVICE`, and `ZONESCOPE_TRAFFIC_VOLUMES` (path of a JSON file
 * `{ "namespace/name": GB per month, … }`). A value the configuration cannot read stops the start;
 * a volumes file that cannot be used is reported in the status (`settingsError`).
 */
import 'server-only';

import { getConfig } from '../config/process-config';
import type { ClusterTrafficLookup } from '../prometheus/cluster-traffic-sources';
import { getClusterTrafficSources } from '../prometheus/cluster-traffic-sources';
import type { TrafficMeasurement, TrafficSource } from '../prometheus/traffic-source';
import type { MetricsStatus } from '../prometheus/traffic-status';
import { getTrafficSource } from '../prometheus/traffic-source';
import type { ClusterIndex } from '../topology/model/cluster-model';
import { measuredTrafficFromSeries, measuredTrafficSteps } from '../topology/analyses/measured-traffic';
import { sameAttribution } from '../topology/analyses/same-attribution';
import type { MeasuredComparison } from '../topology/analyses/measured-vs-predicted';
import { compareMeasuredWithPredicted } from '../topology/analyses/measured-vs-predicted';
import type { ClusterTrafficReport, MeasuredServiceTraffic, MeasuredTraffic, ServiceTrafficCost, VolumeSettings } from '../topology/analyses/traffic-volume';
import type { ClusterAnalysis, ServiceDetail } from '../topology/report/analysis-schema';
import { clusterTrafficOf, passTrafficOf } from '../topology/report/cluster-analysis';
import type { ClusterSource } from '../k8s/cluster-source';
import { getClusterRegistry, getClusterSource } from '../k8s/source';
import { getClusterAnalysis, prepared, source } from '../server/analysis';
import type { ClusterScope } from '../server/clusters';
import { onScopeOpened } from '../server/clusters';
import { volumeSettingsMemo } from '../server/volume-settings';
import { refersTo, weakly } from './weak-identity';


/** What {@link getClusterTraffic} returns. */
export interface ClusterTraffic {
  readonly report: ClusterTrafficReport;
  readonly byService: ReadonlyMap<string, ServiceTrafficCost>;
  readonly status: MetricsStatus;
}

/** The metrics status, with why the volumes file cannot be used when it cannot. */
export type TrafficStatus = MetricsStatus & { readonly settingsError?: string | null };

/** A measurement mapped onto the cluster (the index it was mapped onto, or a later one it maps onto alike). */
interface MappedMeasurement {
  readonly index: ClusterIndex;
  readonly measurement: TrafficMeasurement;
  readonly traffic: MeasuredTraffic | null;
}

interface Memo {
  measured?: MappedMeasurement;
  /**
   * The last figures served, with what they were computed from, held weakly: the analysis the pass
   * published next (and its own figures) replace them, and a reader may not come again for a while.
   * Figures the pass computed are the analysis's own (kept by it as long as it is current); figures
   * computed here for a measurement newer than the pass are kept weakly too, so an idle server does
   * not keep a second set of every Service's figures (and the previous analysis) until the next request.
   */
  cluster?: {
    readonly analysis: WeakRef<ClusterAnalysis>;
    readonly measured: WeakRef<MeasuredTraffic> | null;
    readonly settings: VolumeSettings;
    readonly result: WeakRef<Omit<ClusterTraffic, 'status'>>;
  };
}

const KEY = Symbol.for('zonescope.trafficMemo');
type Holder = { [KEY]?: WeakMap<ClusterSource, Memo> };

/** The traffic memo of one cluster's source. */
function memo(state: ClusterSource): Memo {
  const holder = globalThis as unknown as Holder;
  const all = (holder[KEY] ??= new WeakMap());
  let m = all.get(state);
  if (m === undefined) {
    m = {};
    all.set(state, m);
  }
  return m;
}

/** The cluster's volume settings (price, assumptions, per-Service volumes), from the configuration once. */
export function getVolumeSettings(): VolumeSettings {
  return volumeSettingsMemo().settings;
}

/**
 * The cluster's metrics source health (from memory; starts its source on first use): its own
 * source's status, or — for a cluster without a usable configuration — `not-configured` with a
 * hint naming `ZONESCOPE_PROMETHEUS_BY_CONTEXT` and its context, or `error` with the reason.
 */
export function getMetricsStatus(scope: Pick<ClusterScope, 'entry' | 'source'>): TrafficStatus {
  const lookup = trafficSourceOf(scope);
  const own: MetricsStatus = lookup.kind === 'source' ? lookup.source.status() : lookup.status;
  const error = volumeSettingsMemo().error;
  return error === null ? own : { ...own, settingsError: error };
}

/**
 * Starts the traffic source of a cluster as it opens (lib/server/clusters.ts `scopeFor`), so its
 * first answer is under way before a page asks; nothing for a cluster without a configuration.
 */
export function startClusterTraffic(scope: Pick<ClusterScope, 'entry' | 'source'>): void {
  trafficSourceOf(scope);
}

onScopeOpened(startClusterTraffic);

/** Work per slice of the mapping of a new Prometheus answer, in milliseconds (as a sliced analysis pass). */
export const MAPPING_SLICE_MS = 15;

/**
 * The cluster's traffic source, with the data layer's mapping of each new measurement onto that
 * cluster before it is published: the process-wide one for the default cluster (unless its
 * context has an entry of `ZONESCOPE_PROMETHEUS_BY_CONTEXT`), else the cluster's own, created on
 * first use while it is open; or the status of a cluster that has none.
 */
function trafficSourceOf(scope: Pick<ClusterScope, 'entry' | 'source'>): ClusterTrafficLookup {
  const sources = getClusterTrafficSources();
  if (!sources.serves(scope.entry)) {
    const traffic = getTrafficSource();
    if (!PREPARED.has(traffic)) {
      PREPARED.add(traffic);
      // The default cluster's source as it is at each refresh (a registry reset replaces it).
      traffic.setPrepare((measurement) => prepareMeasurement(measurement));
    }
    return { kind: 'source', source: traffic };
  }
  // A cluster the registry closes (idle, to make room, reset) stops its traffic source.
  const registry = getClusterRegistry();
  sources.follow(registry);
  const state = scope.source;
  return sources.sourceFor(scope.entry, state, {
    prepare: (measurement) => prepareMeasurement(measurement, state),
    // A request may still hold a cluster closed since: no source for it (nothing would stop it).
    open: registry.peek(scope.entry.id) === state,
  });
}

const PREPARED = new WeakSet<TrafficSource>();

/**
 * What Prometheus measured, mapped onto the current cluster's Services; `null` when there is no
 * usable measurement (not configured, pending, unreachable, no series, stale for too long).
 *
 * Mapping is O(series + endpoints) — at scale ~150k flow series, most of a second — so it stays
 * off the request path:
 * - a new Prometheus answer is mapped in slices of about {@link MAPPING_SLICE_MS} between other
 *   requests before the traffic source publishes it ({@link prepareMeasurement});
 * - a new cluster generation that leaves every Service's pods and their owners as they were (an
 *   endpoint's conditions, hints, a pod's status: see `sameAttribution`) keeps the mapping, the
 *   same object, so that what is memoised on it stays valid too;
 * - only a change of the pods behind some Service (or an answer that arrived before the first
 *   sync) is mapped on the read, at once, so that no byte is attributed to a pod a Service no
 *   longer has.
 */
export function getMeasuredTraffic(scope: ClusterScope): MeasuredTraffic | null {
  const lookup = trafficSourceOf(scope);
  if (lookup.kind !== 'source') return null;
  const measurement = lookup.source.measurement();
  if (measurement === null) return null;
  const state = source(scope.source);
  if (!state.isSynced()) return null;
  const index = state.index();
  const m = memo(state);
  const published = m.measured;
  if (published !== undefined && published.measurement === measurement) {
    if (published.index === index) return published.traffic;
    if (sameAttribution(published.index, index)) {
      m.measured = { ...published, index };
      return published.traffic;
    }
  }
  const traffic = mapped(() => measuredTrafficFromSeries(measurement, index));
  m.measured = { index, measurement, traffic };
  return traffic;
}

/** `map()`, or `null` when it throws (never into a page: the figures stay on the model, logged once per measurement). */
function mapped(map: () => MeasuredTraffic): MeasuredTraffic | null {
  try {
    return map();
  } catch (error) {
    return mappingFailed(error);
  }
}

function mappingFailed(error: unknown): null {
  console.warn(`[zonescope] metrics: the measured series could not be mapped to Services (${error instanceof Error ? error.message : 'unknown error'}); traffic volumes are assumed.`);
  return null;
}

/**
 * Maps a new measurement onto the cluster it measures (`state`, that cluster's open source; the
 * default cluster's by default) as it is now, in slices of about {@link MAPPING_SLICE_MS} with a
 * macrotask between them, and keeps the result for {@link getMeasuredTraffic}. The cluster's
 * traffic source awaits it before publishing the measurement. Before the first sync there is
 * nothing to map onto: the first read maps it.
 */
export function prepareMeasurement(measurement: TrafficMeasurement, state: ClusterSource = getClusterSource()): Promise<void> {
  if (!state.isSynced()) return Promise.resolve();
  const index = state.index();
  const steps = measuredTrafficSteps(measurement, index);
  const startedAt = performance.now();
  let workMs = 0;
  let slices = 0;
  return new Promise((resolve) => {
    const finish = (traffic: MeasuredTraffic | null): void => {
      memo(state).measured = { index, measurement, traffic };
      if (getConfig().ZONESCOPE_ANALYSIS_LOG) {
        const series = measurement.flows.length + measurement.podBytes.length + measurement.interZone.length;
        console.log(`[zonescope] metrics mapping: ${series} series, ${workMs.toFixed(1)} ms in ${slices} slices (${(performance.now() - startedAt).toFixed(0)} ms wall)`);
      }
      resolve();
    };
    const slice = (): void => {
      const began = performance.now();
      let result: { readonly traffic: MeasuredTraffic | null } | null = null;
      try {
        for (;;) {
          const step = steps.next();
          if (step.done === true) {
            result = { traffic: step.value };
            break;
          }
          if (performance.now() - began >= MAPPING_SLICE_MS) break;
        }
      } catch (error) {
        result = { traffic: mappingFailed(error) };
      }
      workMs += performance.now() - began;
      slices += 1;
      if (result === null) setImmediate(slice);
      else finish(result.traffic);
    };
    setImmediate(slice);
  });
}

/** One Service's measured traffic, `null` when nothing usable is measured for it. */
export function getMeasuredFor(scope: ClusterScope, namespace: string, name: string): MeasuredServiceTraffic | null {
  return getMeasuredTraffic(scope)?.byService.get(`${namespace}/${name}`) ?? null;
}

/**
 * The cluster-wide traffic figures with the metrics status, or `null` before the first sync.
 * Memoised per analysis object × measured snapshot × settings.
 */
export function getClusterTraffic(scope: ClusterScope): ClusterTraffic | null {
  const analysis = getClusterAnalysis(scope.source);
  if (analysis === null) return null;
  const measured = getMeasuredTraffic(scope);
  const settings = getVolumeSettings();
  const m = memo(scope.source);
  const cached = m.cluster;
  let result = cached && refersTo(cached.analysis, analysis) && refersTo(cached.measured, measured) && cached.settings === settings ? cached.result.deref() : undefined;
  if (result === undefined) {
    // The pass computed the same figures when it ran with these settings and this measurement.
    const pass = passTrafficOf(analysis);
    result = pass !== null && pass.measured === measured && sameVolumeSettings(pass.volume, settings) ? pass.result : clusterTrafficOf(analysis, settings, measured);
    m.cluster = { analysis: new WeakRef(analysis), measured: weakly(measured), settings, result: new WeakRef(result) };
  }
  return { report: result.report, byService: result.byService, status: getMetricsStatus(scope) };
}

/** Whether two volume settings price and resolve volumes alike. */
function sameVolumeSettings(a: VolumeSettings, b: VolumeSettings): boolean {
  if (a === b) return true;
  if (JSON.stringify(a.priceSetting) !== JSON.stringify(b.priceSetting) || a.gbPerEndpoint !== b.gbPerEndpoint || a.gbPerService !== b.gbPerService || a.setByService.size !== b.setByService.size) return false;
  for (const [key, value] of a.setByService) if (b.setByService.get(key) !== value) return false;
  return true;
}

/**
 * "Measured vs predicted" of one Service (its detail from `analyzeServiceIn`): `null` when its
 * traffic is not measured with zone-resolved flows.
 */
export function getMeasuredComparison(scope: ClusterScope, detail: ServiceDetail): MeasuredComparison | null {
  const measured = getMeasuredFor(scope, detail.namespace, detail.name);
  if (measured === null || measured.kind !== 'measured-flows') return null;
  const index = source(scope.source).index();
  const service = index.servicesByKey.get(`${detail.namespace}/${detail.name}`);
  if (service === undefined) return null;
  return compareMeasuredWithPredicted({
    measured,
    predicted: detail.trafficMatrix.now,
    service,
    index,
    dataplane: prepared(scope.source).dataplane,
    loadBalancer: detail.loadBalancer,
  });
}
