/**
 * The per-cluster part of an analysis (SetNodes, CPU ratios, client nodes, dataplane, zone
 * analysis), done once per {@link prepareAnalysis} and shared by every Service analysis: each
 * Service then costs roughly its own endpoints (pods are looked up per namespace, never scanned
 * cluster-wide).
 *
 * A {@link PreparedAnalysis} is a plain value: everything about it (its inputs, its cache, whether
 * Services share shapes) is a field, so a copy (`{ ...prepared }`) is a preparation with the same
 * facts. It is never serialised.
 */
import type { DataplaneAnalysis } from '../analyses/analyze-dataplane';
import { analyzeDataplane, detectClusterPlatform } from '../analyses/analyze-dataplane';
import type { ZoneAnalysis } from '../analyses/analyze-zones';
import { analyzeZones } from '../analyses/analyze-zones';
import { defaultVolumeSettings, formatAmount } from '../analyses/service-volume';
import type { TrafficClientZone } from '../analyses/traffic';
import { MAX_TRAFFIC_ZONES, tooManyTrafficZones } from '../analyses/traffic';
import type { MeasuredTraffic, VolumeSettings } from '../analyses/traffic-volume';
import type { CrossZonePricing } from '../model/cloud-pricing';
import { resolvePricing } from '../model/cloud-pricing';
import type { ClusterContext } from '../model/cluster-context';
import type { AnalysisOptions } from '../model/analysis-options';
import { buildClusterContext, rebaseClusterContext } from '../model/cluster-context';
import type { ClusterIndex } from '../model/cluster-model';
import type { AnalysisCache } from './analysis-cache';
import type { KubernetesReport } from './analysis-schema';
import { DEFAULT_ATTENTION_MIN_SAVING } from './attention';
import type { ClusterAnswer, ServiceAnswer, UnknownAnswers, UnreadableResource } from './unknowns';
import { clusterUnknowns, serviceUnknowns, unreadableReport } from './unknowns';

/**
 * The options of a cluster analysis: {@link AnalysisOptions} plus the measured traffic (built by
 * the caller from Prometheus answers; the model layer that declares the other options does not
 * know its type).
 */
export interface ClusterAnalysisOptions extends AnalysisOptions {
  /** Measured volumes and zone matrices by Service; they win over set and assumed volumes. */
  readonly measured?: MeasuredTraffic | null;
  /** USD per month a Service's best change must save to enter the attention list on that alone (default {@link DEFAULT_ATTENTION_MIN_SAVING}). */
  readonly attentionMinSaving?: number | null;
}

/** Per-cluster work shared by every Service analysis. */
export interface PreparedAnalysis {
  readonly context: ClusterContext;
  /** How volumes are resolved and priced (from the options). */
  readonly volume: VolumeSettings;
  /** What a cross-zone GB costs: the operator's setting, else the detected cloud's price list, else AWS's (assumed). */
  readonly pricing: CrossZonePricing;
  /** See {@link ClusterAnalysisOptions.attentionMinSaving}. */
  readonly attentionMinSaving: number;
  /** Measured traffic given in the options, `null` when none. */
  readonly measured: MeasuredTraffic | null;
  readonly zones: ZoneAnalysis;
  readonly dataplane: DataplaneAnalysis;
  readonly clients: readonly TrafficClientZone[];
  readonly kubernetes: KubernetesReport;
  readonly assumptions: readonly string[];
  /** Types that could not be read, and the answers left unknown cluster-wide and per Service (see unknowns.ts). */
  readonly unreadable: readonly UnreadableResource[];
  readonly clusterUnknown: UnknownAnswers<ClusterAnswer>;
  readonly serviceUnknown: UnknownAnswers<ServiceAnswer>;
  /**
   * What the preparation was built from besides the nodes (server version, dataplane, options), as
   * one comparable string: {@link prepareAnalysis} reuses a previous preparation only when it is
   * the same. A plain (enumerable) field, so that copies of the preparation carry it.
   */
  readonly inputsKey: string;
  /**
   * {@link inputsKey} without the measured traffic: what the hints and traffic figures of a Service
   * shape read besides the nodes (server version, dataplane, options). Passes whose preparations
   * have the same nodes and this key may share those results (see `shapeMemoFor`).
   */
  readonly shapeInputsKey: string;
  /**
   * Whether a cluster pass shares results between Services of the same shape (see
   * report-shape.ts); `false` after {@link withoutShapeSharing}. Results are the same either way.
   */
  readonly shareShapes: boolean;
  /**
   * Per-Service results of earlier generations (see {@link AnalysisCache}): when set,
   * `analyzeClusterIn` and `analyzeServiceIn` reuse the results of Services whose inputs did not
   * change. Results are the same with or without it.
   */
  readonly cache?: AnalysisCache;
}

const MEASURED_KEYS = new WeakMap<MeasuredTraffic, string>();
let measuredCount = 0;

/** A key of measured traffic by identity (its maps do not serialise): a new measurement is a new input. */
function measuredKey(measured: MeasuredTraffic | null | undefined): string | null {
  if (!measured) return null;
  let key = MEASURED_KEYS.get(measured);
  if (key === undefined) {
    key = `measured#${++measuredCount} ${measured.window} ${measured.measuredAt}`;
    MEASURED_KEYS.set(measured, key);
  }
  return key;
}

/**
 * The volume settings of `options`: `previous` itself when it says the same (a preparation after a
 * Node change), so what is kept by settings object (the assumed volumes per endpoint count, their
 * labels) is found again rather than made for every count in every pass.
 */
function sameVolumeSettings(previous: VolumeSettings | null, options: ClusterContext['options']): VolumeSettings {
  const fresh = defaultVolumeSettings({
    priceSetting: options.priceSetting,
    gbPerEndpoint: options.gbPerEndpoint,
    gbPerService: options.gbPerMonth,
    setByService: new Map(Object.entries(options.volumesByService)),
  });
  if (
    previous !== null &&
    previous.gbPerEndpoint === fresh.gbPerEndpoint &&
    previous.gbPerService === fresh.gbPerService &&
    JSON.stringify(previous.priceSetting) === JSON.stringify(fresh.priceSetting) &&
    previous.setByService.size === fresh.setByService.size &&
    [...fresh.setByService].every(([key, gb]) => previous.setByService.get(key) === gb)
  )
    return previous;
  return fresh;
}

function preparedInputs(index: ClusterIndex, options: ClusterAnalysisOptions, measured: string | null = measuredKey(options.measured)): string {
  const { version, proxy, cni } = index.snapshot;
  return JSON.stringify([version, proxy, cni, { ...options, measured }]);
}

/**
 * Builds the per-cluster part of an analysis once (O(nodes)); reuse it for many Services.
 *
 * With `previous` (an earlier preparation, typically of the previous cluster generation) whose
 * nodes (same array), server version, dataplane and options are unchanged, the per-cluster work
 * is reused and only the index is replaced — the result equals a fresh preparation, and keeps
 * `previous`'s other fields — otherwise the preparation is fresh and `previous.cache` is carried
 * over.
 */
export function prepareAnalysis(index: ClusterIndex, options: ClusterAnalysisOptions = {}, previous: PreparedAnalysis | null = null): PreparedAnalysis {
  const inputsKey = preparedInputs(index, options);
  if (previous !== null && previous.context.index.snapshot.nodes === index.snapshot.nodes && previous.inputsKey === inputsKey) {
    return { ...previous, context: rebaseClusterContext(previous.context, index) };
  }
  const prepared = prepareFresh(index, options, inputsKey, previous);
  return previous?.cache ? { ...prepared, cache: previous.cache } : prepared;
}

/** The preparation with `cache` attached (see {@link PreparedAnalysis.cache}). */
export function withAnalysisCache(prepared: PreparedAnalysis, cache: AnalysisCache): PreparedAnalysis {
  return { ...prepared, cache };
}

/**
 * The preparation with report sharing between Services of the same shape switched off: every
 * Service is analysed on its own. Results are the same; benchmarks use it for the worst case of a
 * cluster where no two Services look alike.
 */
export function withoutShapeSharing(prepared: PreparedAnalysis): PreparedAnalysis {
  return { ...prepared, shareShapes: false };
}

/** The sentences of the assumptions list that say how volumes are found and priced. */
function volumeAssumptions(options: ClusterContext['options'], measured: MeasuredTraffic | null, pricing: CrossZonePricing): string[] {
  const set = Object.keys(options.volumesByService).length;
  const assumed =
    options.gbPerMonth !== null
      ? `${formatAmount(options.gbPerMonth)} GB per Service per month (flat)`
      : `${formatAmount(options.gbPerEndpoint)} GB per ready endpoint per month`;
  const sources = [
    measured !== null ? `measured rates over ${measured.window} × 30 days (evaluated ${measured.measuredAt})` : null,
    set > 0 ? `the volume set for ${set} Service${set === 1 ? '' : 's'}` : null,
  ].filter((part): part is string => part !== null);
  return [
    `Traffic volume per Service: ${sources.length > 0 ? `${sources.join(', then ')}; otherwise ` : ''}${assumed}, assumed.`,
    `Cross-zone transfer: ${pricing.note}`,
    ...options.problems.map((problem) => `Option not used: ${problem}`),
  ];
}

function prepareFresh(index: ClusterIndex, options: ClusterAnalysisOptions, inputsKey: string, previous: PreparedAnalysis | null): PreparedAnalysis {
  const built = buildClusterContext(index, options);
  const measured = options.measured ?? null;
  // The measured traffic is an input of every Service's report: caches keyed on the options re-key on it.
  const context: ClusterContext = measured === null ? built : { ...built, options: { ...built.options, measuredKey: measuredKey(measured) } };
  const volume = sameVolumeSettings(previous?.volume ?? null, context.options);

  const clusterUnknown = clusterUnknowns(context.options.unreadable);
  const analysed = analyzeZones(index.snapshot.nodes, context.release.minor, context.nodeTopology);
  // Without Nodes, "no node has a zone" is the identity's view, not the cluster's: no verdict.
  const zones = clusterUnknown.eligibility === undefined ? analysed : { ...analysed, eligible: false, verdict: clusterUnknown.eligibility, ineligibleNodes: [], verification: null };
  const platform = detectClusterPlatform(index.snapshot.nodes, index.snapshot.version);
  const dataplane = analyzeDataplane(index.snapshot.proxy, index.snapshot.cni, context.proxyRelease, platform);
  const pricing = resolvePricing(platform.platform, platform.evidence, context.options.priceSetting);
  const allClients: TrafficClientZone[] = [...context.clientNodesByZone.entries()].map(([zone, nodes]) => ({
    zone,
    share: context.clientShareByZone[zone] ?? 0,
    nodes: nodes.map((node) => ({ weight: node.cpuMilli, proxyNode: node.proxyNode })),
    totalWeight: nodes.reduce((sum, node) => sum + node.cpuMilli, 0),
  }));
  // Beyond MAX_TRAFFIC_ZONES client zones the traffic model is not run (it is zones × endpoints per
  // Service): no clients, and the cross-zone figures are marked unknown.
  const tooManyZones = allClients.length > MAX_TRAFFIC_ZONES ? tooManyTrafficZones(allClients.length) : null;
  const clients = tooManyZones === null ? allClients : [];
  const unreadableUnknown = serviceUnknowns(context.options.unreadable);
  const serviceUnknown = tooManyZones !== null && unreadableUnknown.crossZone === undefined ? { ...unreadableUnknown, crossZone: tooManyZones } : unreadableUnknown;
  const assumptions: string[] = [];
  if (context.release.note) assumptions.push(context.release.note);
  assumptions.push(
    context.clientShareSource === 'equal'
      ? 'Client traffic is split equally between zones (no CPU information).'
      : `Client traffic per zone is proportional to zone CPU${context.clientShareSource === 'cpu-with-overrides' ? ', with the given per-zone overrides' : ''} (the controller's own assumption).`,
    ...volumeAssumptions(context.options, measured, pricing),
    'Expected hints are the EndpointSlice controller\'s next sync on the observed slices; an enabled outcome carries the event recorded on the transition.',
  );
  return {
    context,
    volume,
    pricing,
    attentionMinSaving: options.attentionMinSaving ?? DEFAULT_ATTENTION_MIN_SAVING,
    measured,
    zones,
    dataplane,
    clients,
    kubernetes: { ...context.release, featureGates: context.gates, topologyCacheEnabled: context.topologyCacheEnabled },
    assumptions,
    unreadable: unreadableReport(context.options.unreadable),
    clusterUnknown,
    serviceUnknown,
    inputsKey,
    shapeInputsKey: preparedInputs(index, options, null),
    shareShapes: true,
  };
}
