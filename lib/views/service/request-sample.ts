/**
 * "Send N requests from a client in zone X": the client zones and nodes the request-sample panel
 * offers for a Service, and N requests sampled from one client node as kube-proxy would route them
 * in a traffic scenario (lib/topology/analyses/request-sample.ts), with the kubectl commands that
 * check it by hand and, with zone-resolved flows, what was measured from that zone.
 */
import 'server-only';

import type { ServiceRecord } from '../../topology/model/cluster-model';
import { objectKey } from '../../topology/model/cluster-model';
import type { ServiceDetail } from '../../topology/report/analysis-schema';
import type { TrafficScenario } from '../../topology/analyses/traffic-scenarios';
import { TRAFFIC_SCENARIOS } from '../../topology/analyses/traffic-scenarios';
import type { RequestSample, RequestSampleScenario } from '../../topology/analyses/request-sample';
import {
  nodesWithOwnSelection,
  representativeNode,
  requestCountError,
  requestSampleScenarios,
  DEFAULT_REQUESTS,
  requestSampleSeed,
  sampleRequests,
  selectionDependsOnNode,
} from '../../topology/analyses/request-sample';
import type { ClientNode } from '../../topology/model/cluster-context';
import type { PreparedAnalysis } from '../../topology/report/prepared-analysis';
import { prepared } from '../../server/analysis';
import type { ClusterScope } from '../../server/clusters';
import { getMeasuredTraffic } from '../traffic';
import { refersTo, weakly } from '../weak-identity';
import type { ServiceView } from './view';
import { getServiceView } from './view';

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

/**
 * The picker's options per analysis result and preparation (both unchanged between cluster
 * generations that leave the Service alone). The preparation is held weakly: a Service's detail
 * outlives many preparations (each Prometheus refresh makes one), and a strong reference kept the
 * last one it was viewed with alive, with its measured traffic for every Service of the cluster.
 */
const SAMPLE_OPTIONS = new WeakMap<ServiceDetail, { readonly preparation: WeakRef<PreparedAnalysis>; readonly options: RequestSampleOptions }>();

/** The zones and nodes the request-sample panel offers for a Service (`null` when it cannot be shown). */
export function getRequestSampleOptions(scope: ClusterScope, namespace: string, name: string): RequestSampleOptions | null {
  const result = getServiceView(scope, namespace, name);
  if (!result.ok) return null;
  const preparation = prepared(scope.source);
  const cached = SAMPLE_OPTIONS.get(result.value.detail);
  if (cached && refersTo(cached.preparation, preparation)) return cached.options;
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
  SAMPLE_OPTIONS.set(result.value.detail, { preparation: new WeakRef(preparation), options });
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
  if (cached && refersTo(cached.preparation, preparation) && refersTo(cached.measured, measured) && cached.service === result.value.service) return cached.result;
  const sampled = requestSample(scope, namespace, name, result.value, preparation, query);
  if (first) FIRST_SAMPLES.set(result.value.detail, { preparation: new WeakRef(preparation), measured: weakly(measured), service: result.value.service, result: sampled });
  return sampled;
}

/**
 * The page's first sample (see {@link getRequestSample}) per analysis result, with the preparation
 * and measurement it was drawn from held weakly (see {@link SAMPLE_OPTIONS}).
 */
const FIRST_SAMPLES = new WeakMap<
  ServiceDetail,
  {
    readonly preparation: WeakRef<PreparedAnalysis>;
    readonly measured: WeakRef<NonNullable<ReturnType<typeof getMeasuredTraffic>>> | null;
    readonly service: ServiceRecord;
    readonly result: RequestSampleResult;
  }
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
