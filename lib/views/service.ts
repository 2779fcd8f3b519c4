/**
 * The Service view: one Service with every panel for its page, the same as JSON for
 * `GET /api/v1/services/{namespace}/{name}`, and its per-endpoint lists in full for
 * `…/endpoints`. Per-Service work only: the analysis of one Service in the memoised per-cluster
 * preparation, never a whole-cluster pass.
 */
import 'server-only';

import type { ServiceRecord } from '../topology/model/cluster-model';
import { objectKey } from '../topology/model/cluster-model';
import type { AnalysisOptions } from '../topology/model/cluster-context';
import type { ServiceDetail, TrafficSummary } from '../topology/report/analysis-schema';
import { analyzeServiceIn } from '../topology/report/service-detail';
import type { TrafficScenario } from '../topology/analyses/traffic-scenarios';
import { TRAFFIC_SCENARIOS } from '../topology/analyses/traffic-scenarios';
import type { RequestSample, RequestSampleScenario } from '../topology/analyses/request-sample';
import {
  nodesWithOwnSelection,
  representativeNode,
  requestCountError,
  requestSampleScenarios,
  DEFAULT_REQUESTS,
  requestSampleSeed,
  sampleRequests,
  selectionDependsOnNode,
} from '../topology/analyses/request-sample';
import type { ClientNode } from '../topology/model/cluster-context';
import type { PreparedAnalysis } from '../topology/report/prepared-analysis';
import { isServing, prepared, preparedWith, source } from '../server/analysis';
import { isReadOnly, SYNCING } from './header';
import { getMeasuredTraffic, getMetricsStatus, getVolumeSettings } from './traffic';
import type { ModelScenarios } from '../topology/analyses/cluster-traffic';
import { applyVolumeToSummary, resolveServiceVolume } from '../topology/analyses/cluster-traffic';
import { loadBalancerLegCost } from '../topology/analyses/load-balancer';
import type { CrossZonePricing } from '../topology/model/cloud-pricing';
import { pricePerGbSetting, resolvePricing } from '../topology/model/cloud-pricing';
import type { MeasuredComparison } from '../topology/analyses/measured-vs-predicted';
import { compareMeasuredWithPredicted } from '../topology/analyses/measured-vs-predicted';
import type { MeasuredServiceTraffic, ServiceVolume } from '../topology/analyses/traffic-volume';
import type { JsonPiece } from '../server/spread-json';
import { jsonPieces, spreadJson } from '../server/spread-json';
import type { ClusterScope } from '../server/clusters';
import type { EndpointListQuery } from '../shared/service-query';

/** The Service view: the analysis detail plus the object's own state for the toggle. */
export interface ServiceView {
  readonly detail: ServiceDetail;
  readonly service: ServiceRecord;
  readonly release: string;
  readonly minor: number;
  readonly readOnly: boolean;
  /**
   * Changes whenever this Service's analysis changes (its endpoints, hints, events…) and only
   * then: client components that fetched a full per-endpoint list refetch when it changes.
   */
  readonly version: number;
}

/** Why a Service cannot be shown: the first sync is still running, or the cluster has no such Service. */
export type ServiceLookupError = typeof SYNCING | { readonly kind: 'not-found'; readonly message: string };

/** Result of {@link getServiceView}. */
export type ServiceViewResult = { readonly ok: true; readonly value: ServiceView } | { readonly ok: false; readonly error: ServiceLookupError };

/** The `not-found` error for a Service the cluster does not have. */
export function serviceNotFound(namespace: string, name: string): { readonly kind: 'not-found'; readonly message: string } {
  return { kind: 'not-found', message: `Service ${namespace}/${name} was not found.` };
}

/**
 * Whether the cluster has the Service, without analysing it: `null` when it does, `syncing`
 * before the first sync, `not-found` otherwise. One index lookup, so the Service page can decide
 * its 404 before anything streams (see app/services/[namespace]/[name]/layout.tsx).
 */
export function findService(scope: ClusterScope, namespace: string, name: string): ServiceLookupError | null {
  const state = source(scope.source);
  if (!isServing(scope.source)) return SYNCING;
  return state.index().servicesByKey.has(objectKey(namespace, name)) ? null : serviceNotFound(namespace, name);
}

const DETAIL_VERSIONS = new WeakMap<ServiceDetail, number>();
let nextDetailVersion = 1;

/** A number per analysis result: the per-Service cache hands out the same object until an input changes. */
function detailVersion(detail: ServiceDetail): number {
  let version = DETAIL_VERSIONS.get(detail);
  if (version === undefined) {
    version = nextDetailVersion++;
    DETAIL_VERSIONS.set(detail, version);
  }
  return version;
}

/**
 * One Service with every panel; `not-found` when the cluster has no such Service, `syncing`
 * before the first sync. `options` override traffic per zone, GB/month and $/GB.
 */
export function getServiceView(scope: ClusterScope, namespace: string, name: string, options: AnalysisOptions = {}): ServiceViewResult {
  const state = source(scope.source);
  if (!isServing(scope.source)) return { ok: false, error: SYNCING };
  const service = state.index().servicesByKey.get(objectKey(namespace, name));
  if (!service) return { ok: false, error: serviceNotFound(namespace, name) };
  const preparation = preparedWith(scope.source, options);
  const detail = analyzeServiceIn(preparation, namespace, name);
  if (!detail) return { ok: false, error: serviceNotFound(namespace, name) };
  return {
    ok: true,
    value: {
      detail,
      service,
      release: preparation.kubernetes.release,
      minor: preparation.kubernetes.minor,
      readOnly: isReadOnly(scope) || state.mode !== 'live',
      version: detailVersion(detail),
    },
  };
}

/** `GET /api/v1/services/{namespace}/{name}`: the analyze per-Service object, the detail panels and the Service's resourceVersion. */
export interface ServiceDetailView extends ServiceDetail {
  /** The Service's resourceVersion (also the `ETag`; send it as `If-Match` to the toggle). */
  readonly resourceVersion: string;
  /** The modelled release (`"1.31"`). */
  readonly release: string;
  readonly readOnly: boolean;
  /**
   * Zone-resolved flows measured by Prometheus against the model's prediction now (cross-zone
   * shares, difference in points, client shares, the known causes that fit); `null` when no flows
   * are measured for the Service.
   */
  readonly measuredVsPredicted: MeasuredComparison | null;
}

/** Result of {@link getServiceDetailView}. */
export type ServiceDetailResult =
  | { readonly ok: true; readonly value: ServiceDetailView }
  | { readonly ok: false; readonly error: { readonly kind: 'not-found' | 'bad-request' | 'syncing'; readonly message: string } };

/**
 * One Service with every panel and its resourceVersion, with optional traffic/cost overrides.
 * `trafficByZone` naming a zone the cluster does not have is a `bad-request` (checked against the
 * memoised preparation's zones, not a whole-cluster analysis).
 */
export function getServiceDetailView(scope: ClusterScope, namespace: string, name: string, options: AnalysisOptions = {}): ServiceDetailResult {
  const parts = detailViewParts(scope, namespace, name, options);
  if (!parts.ok) return parts;
  return { ok: true, value: { ...parts.detail, ...parts.overrides } };
}

/** What the Service API adds to (or replaces in) the analysis detail per request. */
type DetailOverrides = Pick<ServiceDetailView, 'traffic' | 'resourceVersion' | 'release' | 'readOnly' | 'measuredVsPredicted'>;

type DetailViewParts =
  | { readonly ok: true; readonly detail: ServiceDetail; readonly overrides: DetailOverrides }
  | { readonly ok: false; readonly error: { readonly kind: 'not-found' | 'bad-request' | 'syncing'; readonly message: string } };

function detailViewParts(scope: ClusterScope, namespace: string, name: string, options: AnalysisOptions): DetailViewParts {
  if (!isServing(scope.source)) return { ok: false, error: SYNCING };
  const zones = new Set(prepared(scope.source).zones.zones.map((zone) => zone.name));
  const unknownZone = Object.keys(options.trafficByZone ?? {}).find((zone) => !zones.has(zone));
  if (unknownZone !== undefined) {
    return { ok: false, error: { kind: 'bad-request', message: `traffic.${unknownZone}: the cluster has no zone "${unknownZone}" (zones: ${[...zones].join(', ') || 'none'}).` } };
  }
  const result = getServiceView(scope, namespace, name, options);
  if (!result.ok) return result;
  const view = result.value;
  // Volume as everywhere (measured > set > assumed); the request's gbPerMonth is a what-if that wins, its price too.
  const figures = getServiceTraffic(scope, view);
  const volume = options.gbPerMonth !== undefined && options.gbPerMonth !== null
    ? resolveServiceVolume(`${namespace}/${name}`, view.detail.observed.readyEndpoints, getVolumeSettings(), null, options.gbPerMonth)
    : figures.volume;
  const whatIfPrice = options.crossZonePrice ?? (options.pricePerGb !== undefined && options.pricePerGb !== null ? pricePerGbSetting(options.pricePerGb) : null);
  const pricing = whatIfPrice === null ? figures.pricing : resolvePricing(prepared(scope.source).dataplane.platform.platform, prepared(scope.source).dataplane.platform.evidence, whatIfPrice);
  const leg = figures.loadBalancerLeg;
  const traffic = {
    ...applyVolumeToSummary(view.detail.traffic, volume, pricing, modelScenarios(view.detail)),
    loadBalancerLeg: pricing === figures.pricing ? leg : loadBalancerLegCost(view.detail.loadBalancer?.leg ?? null, leg?.gbPerMonth ?? null, pricing),
  };
  return {
    ok: true,
    detail: view.detail,
    overrides: { traffic, resourceVersion: view.service.resourceVersion, release: view.release, readOnly: view.readOnly, measuredVsPredicted: figures.comparison },
  };
}

/** Result of {@link getServiceDetailBody}: the body of {@link getServiceDetailView} as UTF-8 JSON. */
export type ServiceDetailBodyResult =
  | { readonly ok: true; readonly body: Uint8Array<ArrayBuffer>; readonly resourceVersion: string }
  | { readonly ok: false; readonly error: { readonly kind: 'not-found' | 'bad-request' | 'syncing'; readonly message: string } };

/** A detail serialised once, and the last body sent with it (with the per-request fields it was sent with, as JSON). */
interface SerialisedDetail {
  readonly pieces: readonly JsonPiece[];
  last: { readonly overrides: string; readonly body: Uint8Array<ArrayBuffer> } | null;
}

/** Serialised details, most recently used last (a Map keeps insertion order). */
const SERIALISED = new Map<ServiceDetail, SerialisedDetail>();
/** Details kept serialised (a 5,000-endpoint Service's body is ~4.6 MB). */
export const DETAIL_JSON_CACHE_SIZE = 16;

function serialised(detail: ServiceDetail): SerialisedDetail {
  let entry = SERIALISED.get(detail);
  if (entry) SERIALISED.delete(detail);
  else entry = { pieces: jsonPieces(detail), last: null };
  SERIALISED.set(detail, entry);
  for (const stale of SERIALISED.keys()) {
    if (SERIALISED.size <= DETAIL_JSON_CACHE_SIZE) break;
    SERIALISED.delete(stale);
  }
  return entry;
}

/**
 * {@link getServiceDetailView}'s value as `JSON.stringify` writes it, in UTF-8, without
 * serialising and encoding the analysis detail on every request: the detail (the per-Service cache
 * hands out the same object until the Service's inputs change) is serialised once, the
 * per-request fields (traffic at the current volume and price, resourceVersion, release,
 * read-only, measured vs predicted) on each request, and while they too are unchanged the same
 * bytes are sent again.
 */
export function getServiceDetailBody(scope: ClusterScope, namespace: string, name: string, options: AnalysisOptions = {}): ServiceDetailBodyResult {
  const parts = detailViewParts(scope, namespace, name, options);
  if (!parts.ok) return parts;
  const resourceVersion = parts.overrides.resourceVersion;
  // What-if options give a detail of their own, not kept by the per-Service cache: serialise it directly.
  if (Object.values(options).some((value) => value !== undefined && value !== null)) {
    return { ok: true, body: Buffer.from(JSON.stringify({ ...parts.detail, ...parts.overrides })), resourceVersion };
  }
  const entry = serialised(parts.detail);
  const overrides = JSON.stringify(parts.overrides);
  if (entry.last?.overrides !== overrides) entry.last = { overrides, body: Buffer.from(spreadJson(entry.pieces, parts.overrides)) };
  return { ok: true, body: entry.last.body, resourceVersion };
}

interface EndpointListBase {
  readonly namespace: string;
  readonly name: string;
  /** Number of items (all of them are returned). */
  readonly total: number;
}

/** `GET /api/v1/services/{namespace}/{name}/endpoints`: one per-endpoint list of the Service, complete. */
export type EndpointListView =
  | (EndpointListBase & { readonly list: 'endpoints'; readonly scenario: null; readonly items: ServiceDetail['endpoints'] })
  | (EndpointListBase & { readonly list: 'diff'; readonly scenario: null; readonly items: ServiceDetail['diffEntries'] })
  | (EndpointListBase & { readonly list: 'loads'; readonly scenario: TrafficScenario; readonly items: ServiceDetail['trafficMatrix']['now']['endpointLoads'] });

/** Result of {@link getServiceEndpointList}. */
export type EndpointListResult =
  | { readonly ok: true; readonly value: EndpointListView }
  | { readonly ok: false; readonly error: { readonly kind: 'not-found' | 'syncing'; readonly message: string } };

/**
 * One per-endpoint list of a Service in full, for the panels of the Service page that render only
 * the first rows on the server: every endpoint (address, pod, node, zone, conditions, hints now and
 * expected), every endpoint whose hints differ from the controller's, or the load of every
 * endpoint in one traffic scenario (default traffic options, as the page).
 */
export function getServiceEndpointList(scope: ClusterScope, namespace: string, name: string, query: EndpointListQuery): EndpointListResult {
  const result = getServiceView(scope, namespace, name);
  if (!result.ok) return result;
  const { detail } = result.value;
  const base = { namespace, name };
  switch (query.list) {
    case 'endpoints':
      return { ok: true, value: { ...base, list: 'endpoints', scenario: null, total: detail.endpoints.length, items: detail.endpoints } };
    case 'diff':
      return { ok: true, value: { ...base, list: 'diff', scenario: null, total: detail.diffEntries.length, items: detail.diffEntries } };
    case 'loads': {
      const loads = detail.trafficMatrix[query.scenario].endpointLoads;
      return { ok: true, value: { ...base, list: 'loads', scenario: query.scenario, total: loads.length, items: loads } };
    }
  }
}

// ---------------------------------------------------------------------------------------------
// "Send N requests from a client in zone X"

/** Client nodes offered per zone by the node picker (nodes whose selection may differ listed first). */
export const MAX_NODE_OPTIONS = 100;

/** The scenario inputs of a Service's request samples, per analysis result (the cache hands out the same detail until an input changes). */
const SAMPLE_SCENARIOS = new WeakMap<ServiceDetail, Readonly<Record<TrafficScenario, RequestSampleScenario>>>();

function sampleScenariosFor(view: ServiceView, preparation: PreparedAnalysis): Readonly<Record<TrafficScenario, RequestSampleScenario>> {
  let scenarios = SAMPLE_SCENARIOS.get(view.detail);
  if (!scenarios) {
    const { context, dataplane } = preparation;
    const slices = context.index.slicesByService.get(objectKey(view.service.namespace, view.service.name)) ?? [];
    scenarios = requestSampleScenarios(context, dataplane, view.service, slices);
    SAMPLE_SCENARIOS.set(view.detail, scenarios);
  }
  return scenarios;
}

/** One client zone of the picker. */
export interface RequestSampleZoneOption {
  readonly zone: string;
  /** The node the traffic model reports for the zone (used when only the zone is picked). */
  readonly representative: string;
  /** Client nodes of the zone, at most {@link MAX_NODE_OPTIONS}: those with a selection of their own first, then by name. */
  readonly nodes: readonly string[];
  /** Client nodes the zone has (more than `nodes` when capped). */
  readonly totalNodes: number;
}

/** What the request-sample panel offers: client zones and their nodes. */
export interface RequestSampleOptions {
  readonly zones: readonly RequestSampleZoneOption[];
  /** Whether some node of a zone selects differently from the zone's other nodes (internalTrafficPolicy Local, node hints) in some scenario. */
  readonly nodeMatters: boolean;
}

/** A request sample asked for: the scenario, the number of requests, and the client zone and/or node. */
export interface RequestSampleQuery {
  readonly scenario: TrafficScenario;
  readonly count: number;
  readonly zone: string | null;
  readonly node: string | null;
}

/** `GET /api/v1/services/{namespace}/{name}/request-sample`: N requests from one client node. */
export interface RequestSampleView {
  readonly namespace: string;
  readonly name: string;
  readonly scenario: TrafficScenario;
  readonly count: number;
  readonly zone: string;
  readonly node: string;
  /** `true` when the node was asked for; `false` when it is the zone's representative node. */
  readonly nodePicked: boolean;
  /** Every client node of the zone selects the same endpoints in this scenario (a zone nodeSelector reproduces it). */
  readonly sameOnEveryNodeOfZone: boolean;
  /** The client nodes a node picker lists for {@link zone} (its zone's `nodes` in {@link getRequestSampleOptions}). */
  readonly zoneNodes: readonly string[];
  readonly sample: RequestSample;
  /** The check by hand: start a client pod there, curl N times, clean up. */
  readonly commands: { readonly run: string; readonly loop: string; readonly cleanup: string };
  /** Measured share of this zone's bytes per endpoint zone (zone-resolved flows only), else `null`. */
  readonly measured: {
    readonly metric: string;
    readonly window: string | null;
    readonly gbPerMonth: number;
    readonly byZone: readonly { readonly zone: string; readonly sameZone: boolean; readonly share: number }[];
  } | null;
}

/** Result of {@link getRequestSample}. */
export type RequestSampleResult =
  | { readonly ok: true; readonly value: RequestSampleView }
  | { readonly ok: false; readonly error: { readonly kind: 'not-found' | 'bad-request' | 'syncing'; readonly message: string } };

function clientZonesOf(preparation: PreparedAnalysis): ReadonlyMap<string, readonly ClientNode[]> {
  return preparation.context.clientNodesByZone;
}

/** The picker's options per analysis result and preparation (both unchanged between cluster generations that leave the Service alone). */
const SAMPLE_OPTIONS = new WeakMap<ServiceDetail, { readonly preparation: PreparedAnalysis; readonly options: RequestSampleOptions }>();

/** The zones and nodes the request-sample panel offers for a Service (`null` when it cannot be shown). */
export function getRequestSampleOptions(scope: ClusterScope, namespace: string, name: string): RequestSampleOptions | null {
  const result = getServiceView(scope, namespace, name);
  if (!result.ok) return null;
  const preparation = prepared(scope.source);
  const cached = SAMPLE_OPTIONS.get(result.value.detail);
  if (cached && cached.preparation === preparation) return cached.options;
  const scenarios = sampleScenariosFor(result.value, preparation);
  const own = new Set<string>();
  for (const id of TRAFFIC_SCENARIOS) for (const node of nodesWithOwnSelection(scenarios[id])) own.add(node);
  const zones: RequestSampleZoneOption[] = [];
  for (const [zone, nodes] of clientZonesOf(preparation)) {
    const representative = representativeNode(nodes, scenarios.now)?.name ?? nodes[0]?.name;
    if (representative === undefined) continue;
    const first = nodes.filter((n) => own.has(n.name));
    const rest = nodes.filter((n) => !own.has(n.name));
    zones.push({ zone, representative, nodes: [...first, ...rest].slice(0, MAX_NODE_OPTIONS).map((n) => n.name), totalNodes: nodes.length });
  }
  const options: RequestSampleOptions = { zones, nodeMatters: own.size > 0 };
  SAMPLE_OPTIONS.set(result.value.detail, { preparation, options });
  return options;
}

/** A DNS-1123 pod name for the client pod: `curl-<zone or node>`. */
function clientPodName(where: string): string {
  const cleaned = where.toLowerCase().replace(/[^a-z0-9-]+/g, '-').replace(/^-+|-+$/g, '');
  return `curl-${cleaned}`.slice(0, 63).replace(/-+$/, '');
}

function shellQuote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

function sampleCommands(service: ServiceRecord, count: number, selector: Readonly<Record<string, string>>, where: string): RequestSampleView['commands'] {
  const pod = clientPodName(where);
  const ns = service.namespace;
  const port = service.ports[0]?.port ?? 80;
  const url = `http://${service.name}.${ns}${port === 80 ? '' : `:${port}`}/hostname`;
  const overrides = JSON.stringify({ apiVersion: 'v1', spec: { nodeSelector: selector } });
  return {
    run: `kubectl run ${pod} -n ${ns} --image=curlimages/curl --restart=Never --overrides=${shellQuote(overrides)} --command -- sleep 3600`,
    loop: `kubectl exec -n ${ns} ${pod} -- sh -c ${shellQuote(`for i in $(seq ${count}); do curl -s ${url}; echo; done | sort | uniq -c`)}`,
    cleanup: `kubectl delete pod -n ${ns} ${pod}`,
  };
}

function measuredSplit(scope: ClusterScope, namespace: string, name: string, zone: string): RequestSampleView['measured'] {
  const measured = getMeasuredTraffic(scope);
  const service = measured?.byService.get(`${namespace}/${name}`);
  if (!measured || !service || service.kind !== 'measured-flows' || service.matrix === null) return null;
  const row = service.matrix[zone];
  if (!row) return null;
  let total = 0;
  for (const value of Object.values(row)) total += value;
  if (!(total > 0)) return null;
  const byZone = Object.keys(row)
    .sort()
    .map((to) => ({ zone: to, sameZone: to === zone, share: (row[to] ?? 0) / total }));
  return { metric: service.metric, window: measured.window, gbPerMonth: total, byZone };
}

/**
 * N requests from a client node of a Service (see lib/topology/analyses/request-sample.ts): the
 * node is the one asked for, else the zone's representative node, else the first client zone's.
 * A zone or node the cluster has no client node for is a `bad-request`.
 */
export function getRequestSample(scope: ClusterScope, namespace: string, name: string, query: RequestSampleQuery): RequestSampleResult {
  const result = getServiceView(scope, namespace, name);
  if (!result.ok) return result;
  const countError = requestCountError(query.count);
  if (countError !== null) return { ok: false, error: { kind: 'bad-request', message: countError } };
  const preparation = prepared(scope.source);
  // The Service page asks for the same first sample on every render: kept per analysis result, preparation, measurement and object.
  const measured = getMeasuredTraffic(scope);
  const first = query.scenario === 'now' && query.count === DEFAULT_REQUESTS && query.zone === null && query.node === null;
  const cached = first ? FIRST_SAMPLES.get(result.value.detail) : undefined;
  if (cached && cached.preparation === preparation && cached.measured === measured && cached.service === result.value.service) return cached.result;
  const sampled = requestSample(scope, namespace, name, result.value, preparation, query);
  if (first) FIRST_SAMPLES.set(result.value.detail, { preparation, measured, service: result.value.service, result: sampled });
  return sampled;
}

/** The page's first sample (see {@link getRequestSample}) per analysis result. */
const FIRST_SAMPLES = new WeakMap<
  ServiceDetail,
  { readonly preparation: PreparedAnalysis; readonly measured: ReturnType<typeof getMeasuredTraffic>; readonly service: ServiceRecord; readonly result: RequestSampleResult }
>();

function requestSample(scope: ClusterScope, namespace: string, name: string, view: ServiceView, preparation: PreparedAnalysis, query: RequestSampleQuery): RequestSampleResult {
  const scenarios = sampleScenariosFor(view, preparation);
  const input = scenarios[query.scenario];
  const byZone = clientZonesOf(preparation);
  const zoneNames = [...byZone.keys()];
  let zone: string;
  let node: ClientNode;
  if (query.node !== null) {
    const found = [...byZone.values()].flat().find((n) => n.name === query.node);
    if (!found) return { ok: false, error: { kind: 'bad-request', message: `node: the cluster has no ready client node "${query.node}" with a zone and CPU.` } };
    if (query.zone !== null && query.zone !== found.zone) {
      return { ok: false, error: { kind: 'bad-request', message: `node: "${found.name}" is in zone "${found.zone}", not "${query.zone}".` } };
    }
    zone = found.zone;
    node = found;
  } else {
    const wanted = query.zone ?? zoneNames[0];
    const nodes = wanted === undefined ? undefined : byZone.get(wanted);
    const rep = nodes ? representativeNode(nodes, input) : null;
    if (wanted === undefined || !rep) {
      return {
        ok: false,
        error: { kind: 'bad-request', message: zoneNames.length === 0 ? 'The cluster has no ready worker node with a zone and CPU to send requests from.' : `zone: the cluster has no client nodes in zone "${wanted}" (zones: ${zoneNames.join(', ')}).` },
      };
    }
    zone = wanted;
    node = rep;
  }
  const key = `${namespace}/${name}`;
  const sample = sampleRequests({ ...input, clientNode: node.proxyNode, count: query.count, seed: requestSampleSeed(key, node.name, query.scenario, query.count) });
  const sameOnEveryNodeOfZone = !selectionDependsOnNode(input);
  const selector: Record<string, string> = sameOnEveryNodeOfZone && query.node === null ? { 'topology.kubernetes.io/zone': zone } : { 'kubernetes.io/hostname': node.name };
  return {
    ok: true,
    value: {
      namespace,
      name,
      scenario: query.scenario,
      count: query.count,
      zone,
      node: node.name,
      nodePicked: query.node !== null,
      sameOnEveryNodeOfZone,
      zoneNodes: getRequestSampleOptions(scope, namespace, name)?.zones.find((z) => z.zone === zone)?.nodes ?? [],
      sample,
      commands: sampleCommands(view.service, query.count, selector, sameOnEveryNodeOfZone && query.node === null ? zone : node.name),
      measured: measuredSplit(scope, namespace, name, zone),
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Volume, cost and measured against predicted

/** The Service's traffic volume (with its source), its cost, and what Prometheus measured for it. */
export interface ServiceTrafficView {
  /** Measured, set or assumed: as the cluster-wide figures count it (the page's what-if is separate). */
  readonly volume: ServiceVolume;
  /** What a cross-zone GB costs on the cluster's cloud (or as set). */
  readonly pricing: CrossZonePricing;
  /**
   * Monthly cost with {@link volume}: now, after the sync, with Auto, without hints (measured: the
   * measurement now and the model's change applied to it for the others).
   */
  readonly monthlyCost: TrafficSummary['monthlyCost'];
  /** The load balancer's own cross-zone leg at the measured external volume, `null` when unknown. */
  readonly loadBalancerLeg: TrafficSummary['loadBalancerLeg'];
  /** What Prometheus measured for this Service, `null` when nothing usable. */
  readonly measured: MeasuredServiceTraffic | null;
  readonly window: string | null;
  readonly measuredAt: string | null;
  /** Measured flows against the model's prediction now; `null` without zone-resolved flows. */
  readonly comparison: MeasuredComparison | null;
  /** The metrics source's state and its sentence (why nothing is measured, when nothing is). */
  readonly metrics: { readonly state: string; readonly message: string };
}

const COMPARISONS = new WeakMap<ServiceDetail, { readonly measured: MeasuredServiceTraffic; readonly comparison: MeasuredComparison | null }>();

/**
 * The traffic figures of a Service's page: its volume resolved as everywhere (measured flows >
 * measured pod bytes > set > assumed), the cost at that volume and the cluster's price, and —
 * with zone-resolved flows — the comparison with the model (memoised per analysis and measurement).
 */
export function getServiceTraffic(scope: ClusterScope, view: ServiceView): ServiceTrafficView {
  const { detail, service } = view;
  const key = `${service.namespace}/${service.name}`;
  const settings = getVolumeSettings();
  const measuredTraffic = getMeasuredTraffic(scope);
  const measured = measuredTraffic?.byService.get(key) ?? null;
  const volume = resolveServiceVolume(key, detail.observed.readyEndpoints, settings, measuredTraffic);
  const { pricing } = prepared(scope.source);
  const costed = applyVolumeToSummary(detail.traffic, volume, pricing, modelScenarios(detail));
  let comparison: MeasuredComparison | null = null;
  if (measured !== null && measured.kind === 'measured-flows') {
    const cached = COMPARISONS.get(detail);
    if (cached && cached.measured === measured) comparison = cached.comparison;
    else {
      const preparation = prepared(scope.source);
      comparison = compareMeasuredWithPredicted({
        measured,
        predicted: detail.trafficMatrix.now,
        service,
        index: preparation.context.index,
        dataplane: preparation.dataplane,
        loadBalancer: detail.loadBalancer,
      });
      COMPARISONS.set(detail, { measured, comparison });
    }
  }
  const status = getMetricsStatus(scope);
  return {
    volume,
    pricing,
    monthlyCost: costed.monthlyCost,
    loadBalancerLeg: loadBalancerLegCost(detail.loadBalancer?.leg ?? null, measured?.externalGbPerMonth ?? null, pricing),
    measured,
    window: measuredTraffic?.window ?? null,
    measuredAt: measuredTraffic?.measuredAt ?? null,
    comparison,
    metrics: { state: status.state, message: status.message },
  };
}

/** The model's fraction matrices of a detail's scenarios (what a measurement is projected with). */
function modelScenarios(detail: ServiceDetail): ModelScenarios {
  const { now, expected, ifAuto, ifNone } = detail.trafficMatrix;
  return { now: now.matrix, expected: expected.matrix, ifAuto: ifAuto.matrix, ifNone: ifNone.matrix };
}
