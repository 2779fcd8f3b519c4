/**
 * "Send N requests from a client in zone X": the classic check of topology routing — a client pod
 * on one node curls the Service N times and counts which pods answer (`sort | uniq -c`) — worked
 * out from kube-proxy's endpoint selection for that node.
 *
 * - The selection is exactly the one the traffic model (traffic.ts) makes for that node in the
 *   scenario: `categorizeEndpoints` on the scenario's endpoints, hints dropped when the dataplane
 *   ignores them or the Service is headless, the local set with `internalTrafficPolicy: Local`,
 *   `isLocal` marked only where traffic.ts evaluates node by node.
 * - kube-proxy spreads connections evenly over what it selects (iptables' random rules, IPVS
 *   round robin, nftables' numgen), so each selected endpoint expects exactly N / k of N requests.
 * - The sampled counts are N uniform draws from a seeded generator (seeded-random.ts): the same
 *   Service, node, scenario and count always give the same histogram.
 * - Large Services: at most {@link MAX_LISTED_PODS} pods are listed (those answering most, then
 *   by zone and name); the rest are summed in `others`, so every count stays exact.
 *
 * Pure: no I/O, no clock, no unseeded randomness.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/master/pkg/proxy/topology.go (CategorizeEndpoints)
 * @see https://kubernetes.io/docs/concepts/services-networking/topology-aware-routing/
 */
import type { ProxyNode, ProxyRelease, TopologyMode } from '../upstream/proxy-topology';
import type { ProxyServicePort } from '../upstream/proxy-service-port';
import { categorizeEndpointsWithDecision, topologyModeForService } from '../upstream/proxy-topology';
import { LABEL_TOPOLOGY_ZONE } from '../upstream/constants';
import type { EndpointSlice } from '../upstream/types';
import type { ClientNode, ClusterContext } from '../model/cluster-context';
import type { EndpointSliceRecord, ServiceRecord } from '../model/cluster-model';
import type { DataplaneAnalysis } from './analyze-dataplane';
import { analyzeServiceHints } from './analyze-service';
import { createSeededRandom, hashSeed } from './seeded-random';
import { proxyServicePort } from './service-mechanism';
import type { TrafficEndpoint } from './traffic';
import { toTrafficEndpoints, UNKNOWN_ZONE } from './traffic';
import type { TrafficScenario } from './traffic-scenarios';
import { TRAFFIC_SCENARIOS } from './traffic-scenarios';

/** Fewest requests a sample sends. */
export const MIN_REQUESTS = 1;
/** Most requests a sample sends (a loop a person would run by hand). */
export const MAX_REQUESTS = 10_000;
/** Requests of the classic check. */
export const DEFAULT_REQUESTS = 100;
/** Pods listed one by one; the rest are summed in {@link RequestSample.others}. */
export const MAX_LISTED_PODS = 50;

/** Input of {@link sampleRequests}: one scenario's endpoints and Service, one client node. */
export interface RequestSampleInput {
  readonly endpoints: readonly TrafficEndpoint[];
  readonly service: ProxyServicePort;
  readonly release: ProxyRelease;
  /** The node the client pod runs on (its kube-proxy picks the endpoint). */
  readonly clientNode: ProxyNode;
  /** Requests sent: an integer from {@link MIN_REQUESTS} to {@link MAX_REQUESTS}. */
  readonly count: number;
  /** Seed of the sampled counts (see {@link requestSampleSeed}). */
  readonly seed: number;
  /** `false` when the Service dataplane ignores hints (e.g. Cilium without service topology). */
  readonly honoursHints: boolean;
  /** `false` for headless Services: clients resolve pod IPs through DNS and use any ready one. */
  readonly proxied: boolean;
  /** Pods listed one by one (default {@link MAX_LISTED_PODS}). */
  readonly maxListed?: number;
}

/** What kube-proxy selects on the client node. */
export interface RequestSampleSelection {
  /** As in the traffic model's `selectionByZone`: a topology mode, `local` (internalTrafficPolicy Local) or `dns` (headless). */
  readonly mode: TopologyMode | 'local' | 'dns';
  /** kube-proxy's decision in one sentence (the same text as the traffic panel's selection). */
  readonly message: string;
  /** A short summary: "hints for zone us-east-1a: 3 of 9 endpoints". */
  readonly summary: string;
  /** Endpoints the node spreads requests over. */
  readonly selectedEndpoints: number;
  /** Ready endpoints of the Service in this scenario. */
  readonly readyEndpoints: number;
  readonly nodeName: string;
  /** Zone of the client node (`""` when it has no zone label). */
  readonly zone: string;
}

/** One pod's answers. */
export interface RequestSamplePod {
  readonly endpoint: string;
  /** What `curl …/hostname` prints: the pod name (the endpoint address when the slice names no pod). */
  readonly hostname: string;
  readonly podName: string | null;
  readonly nodeName: string | null;
  /** Endpoint zone ({@link UNKNOWN_ZONE} when unknown). */
  readonly zone: string;
  /** Same zone as the client node. */
  readonly sameZone: boolean;
  /** Expected answers: exactly count ÷ selected endpoints. */
  readonly expected: number;
  /** Answers in the seeded sample. */
  readonly sampled: number;
}

/** Answers summed per endpoint zone (every selected pod counted, listed or not). */
export interface RequestSampleZone {
  readonly zone: string;
  readonly sameZone: boolean;
  readonly pods: number;
  readonly expected: number;
  readonly sampled: number;
}

/** Result of {@link sampleRequests}. */
export interface RequestSample {
  readonly count: number;
  readonly seed: number;
  readonly selection: RequestSampleSelection;
  /** Listed pods, most answers first (then zone, then name); at most `maxListed`. */
  readonly pods: readonly RequestSamplePod[];
  /** The selected pods not listed, summed; `null` when every selected pod is listed. */
  readonly others: { readonly pods: number; readonly expected: number; readonly sampled: number } | null;
  /** Per endpoint zone, sorted by zone ({@link UNKNOWN_ZONE} last). */
  readonly byZone: readonly RequestSampleZone[];
  /** Requests that fail because the node selects no endpoint (all or nothing). */
  readonly dropped: number;
  /** Expected share of answers from another (known) zone, 0–1. */
  readonly expectedCrossZoneFraction: number;
  /** Sampled share of answers from another (known) zone, 0–1. */
  readonly sampledCrossZoneFraction: number;
}

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function zoneSortKey(zone: string): string {
  return zone === UNKNOWN_ZONE ? '\uffff' : zone;
}

function withoutHints(endpoint: TrafficEndpoint): TrafficEndpoint {
  return { ...endpoint, zoneHints: null, nodeHints: null };
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

/** Whether `internalTrafficPolicy: Local` is in effect (as traffic.ts decides it). */
function internalLocalOf(service: ProxyServicePort, release: ProxyRelease): boolean {
  return service.internalTrafficPolicy === 'Local' && (release.minor >= 26 || release.gates.ServiceInternalTrafficPolicy);
}

/** The endpoints as the traffic model reads them for a scenario (hints dropped where ignored). */
function effectiveEndpoints(input: Pick<RequestSampleInput, 'endpoints' | 'honoursHints' | 'proxied'>): readonly TrafficEndpoint[] {
  return input.honoursHints && input.proxied ? input.endpoints : input.endpoints.map(withoutHints);
}

/**
 * Whether the selection depends on the node itself, not only on its zone (traffic.ts evaluates
 * such Services node by node): `internalTrafficPolicy: Local`, or node hints on some endpoint.
 */
export function selectionDependsOnNode(input: Pick<RequestSampleInput, 'endpoints' | 'service' | 'release' | 'honoursHints' | 'proxied'>): boolean {
  if (!input.proxied) return false;
  if (internalLocalOf(input.service, input.release)) return true;
  return effectiveEndpoints(input).some((e) => (e.nodeHints?.length ?? 0) > 0);
}

/** Nodes whose selection may differ from their zone's other nodes (hosts of endpoints, nodes named by node hints). */
export function nodesWithOwnSelection(input: Pick<RequestSampleInput, 'endpoints' | 'service' | 'release' | 'honoursHints' | 'proxied'>): ReadonlySet<string> {
  const out = new Set<string>();
  if (!selectionDependsOnNode(input)) return out;
  for (const endpoint of effectiveEndpoints(input)) {
    if (endpoint.nodeName !== null) out.add(endpoint.nodeName);
    if (endpoint.nodeHints) for (const name of endpoint.nodeHints) out.add(name);
  }
  return out;
}

/**
 * The node whose selection the traffic model reports for a zone (its `selectionByZone` entry):
 * the zone's first client node, or — when the selection depends on the node — its first node that
 * hosts no endpoint (all such nodes select alike), else its first node. `null` for no nodes.
 */
export function representativeNode<N extends { readonly proxyNode: ProxyNode }>(
  zoneNodes: readonly N[],
  input: Pick<RequestSampleInput, 'endpoints' | 'service' | 'release' | 'honoursHints' | 'proxied'>,
): N | null {
  const first = zoneNodes[0];
  if (first === undefined) return null;
  const own = nodesWithOwnSelection(input);
  if (own.size === 0) return first;
  return zoneNodes.find((node) => !own.has(node.proxyNode.name)) ?? first;
}

function nodeZone(node: ProxyNode): string {
  return node.labels[LABEL_TOPOLOGY_ZONE] ?? '';
}

/** What the client node selects: the same steps as the traffic model's per-node selection. */
function selectFor(input: RequestSampleInput): { selected: readonly TrafficEndpoint[]; mode: RequestSampleSelection['mode']; message: string } {
  const endpoints = effectiveEndpoints(input);
  const node = input.clientNode;
  if (!input.proxied) {
    return { selected: endpoints.filter((e) => e.ready), mode: 'dns', message: 'headless: clients pick any ready pod IP from DNS' };
  }
  const internalLocal = internalLocalOf(input.service, input.release);
  const perNode = selectionDependsOnNode(input);
  // isLocal only changes the local set, which traffic.ts reads only node by node.
  const local = perNode ? endpoints.map((e) => (e.nodeName === node.name ? { ...e, isLocal: true } : e)) : endpoints;
  const { categorized, decision } = categorizeEndpointsWithDecision(local, input.service, node, input.release);
  const selected = (internalLocal ? categorized.localEndpoints : categorized.clusterEndpoints) ?? [];
  if (internalLocal) return { selected, mode: 'local', message: 'internalTrafficPolicy: Local — only endpoints on the client node' };
  const chosen = decision ?? topologyModeForService(local, input.service, node, input.release);
  return { selected, mode: chosen.mode, message: chosen.message };
}

function summaryOf(mode: RequestSampleSelection['mode'], selected: number, ready: number, node: ProxyNode): string {
  const of = `${selected} of ${plural(ready, 'ready endpoint')}`;
  if (selected === 0) return `no endpoint selected on node ${node.name}: every request fails`;
  switch (mode) {
    case 'PreferSameZone':
      return `hints for zone ${nodeZone(node) || '""'}: ${of}`;
    case 'PreferSameNode':
      return `hints for node ${node.name}: ${of}`;
    case 'local':
      return `internalTrafficPolicy Local: ${of}, those on node ${node.name}`;
    case 'dns':
      return `headless: DNS answers with ${of}`;
    case 'none':
      return selected === ready ? `no topology: all ${plural(ready, 'ready endpoint')}` : `no topology: ${of}`;
  }
}

/** The seed of a sample: from the Service key, the client node, the scenario and the count. */
export function requestSampleSeed(serviceKey: string, nodeName: string, scenario: string, count: number): number {
  return hashSeed(`${serviceKey}\u0000${nodeName}\u0000${scenario}\u0000${count}`);
}

/** Why a count is refused, `null` when it is a whole number from {@link MIN_REQUESTS} to {@link MAX_REQUESTS}. */
export function requestCountError(count: number): string | null {
  return Number.isInteger(count) && count >= MIN_REQUESTS && count <= MAX_REQUESTS
    ? null
    : `The number of requests must be a whole number from ${MIN_REQUESTS} to ${MAX_REQUESTS.toLocaleString('en-US')}.`;
}

/**
 * N requests from one client node: kube-proxy's selection for that node, the exact expected
 * answers per pod (N ÷ selected endpoints each) and a seeded sample of N uniform picks, per pod
 * (top {@link MAX_LISTED_PODS}, the rest summed) and per zone. Throws on a count outside 1–10,000.
 */
export function sampleRequests(input: RequestSampleInput): RequestSample {
  const countError = requestCountError(input.count);
  if (countError !== null) throw new RangeError(countError);
  const { count, seed } = input;
  const maxListed = Math.max(0, Math.floor(input.maxListed ?? MAX_LISTED_PODS));
  const clientZone = nodeZone(input.clientNode);
  const { selected, mode, message } = selectFor(input);
  let readyEndpoints = 0;
  for (const e of input.endpoints) if (e.ready) readyEndpoints++;
  const k = selected.length;
  const selection: RequestSampleSelection = {
    mode,
    message,
    summary: summaryOf(mode, k, readyEndpoints, input.clientNode),
    selectedEndpoints: k,
    readyEndpoints,
    nodeName: input.clientNode.name,
    zone: clientZone,
  };
  if (k === 0) {
    return { count, seed, selection, pods: [], others: null, byZone: [], dropped: count, expectedCrossZoneFraction: 0, sampledCrossZoneFraction: 0 };
  }

  // 1. N uniform picks over the selected endpoints (each kube-proxy pick is independent per connection).
  const hits = new Uint32Array(k);
  const random = createSeededRandom(seed);
  for (let i = 0; i < count; i++) {
    const pick = Math.min(k - 1, Math.floor(random() * k));
    hits[pick] = (hits[pick] as number) + 1;
  }
  const expected = count / k;

  // 2. Per zone (every selected endpoint) and cross-zone shares.
  const zoneOf = (e: TrafficEndpoint) => e.zone ?? UNKNOWN_ZONE;
  const zones = new Map<string, { pods: number; sampled: number }>();
  let crossPods = 0;
  let crossSampled = 0;
  selected.forEach((e, i) => {
    const zone = zoneOf(e);
    const entry = zones.get(zone) ?? { pods: 0, sampled: 0 };
    entry.pods++;
    entry.sampled += hits[i] as number;
    zones.set(zone, entry);
    if (zone !== UNKNOWN_ZONE && zone !== clientZone) {
      crossPods++;
      crossSampled += hits[i] as number;
    }
  });
  const byZone: RequestSampleZone[] = [...zones.entries()]
    .sort(([a], [b]) => compareText(zoneSortKey(a), zoneSortKey(b)))
    .map(([zone, z]) => ({ zone, sameZone: zone === clientZone, pods: z.pods, expected: z.pods * expected, sampled: z.sampled }));

  // 3. Pods: most answers first, then zone and name; the rest summed.
  const order = selected.map((_, i) => i);
  const hostname = (e: TrafficEndpoint) => e.podName ?? e.endpoint;
  order.sort((a, b) => {
    const ea = selected[a] as TrafficEndpoint;
    const eb = selected[b] as TrafficEndpoint;
    return (hits[b] as number) - (hits[a] as number) || compareText(zoneSortKey(zoneOf(ea)), zoneSortKey(zoneOf(eb))) || compareText(hostname(ea), hostname(eb)) || compareText(ea.endpoint, eb.endpoint);
  });
  const listed = order.slice(0, maxListed);
  const pods: RequestSamplePod[] = listed.map((i) => {
    const e = selected[i] as TrafficEndpoint;
    const zone = zoneOf(e);
    return { endpoint: e.endpoint, hostname: hostname(e), podName: e.podName, nodeName: e.nodeName, zone, sameZone: zone === clientZone, expected, sampled: hits[i] as number };
  });
  let othersSampled = 0;
  for (const i of order.slice(maxListed)) othersSampled += hits[i] as number;
  const othersCount = k - listed.length;
  return {
    count,
    seed,
    selection,
    pods,
    others: othersCount > 0 ? { pods: othersCount, expected: othersCount * expected, sampled: othersSampled } : null,
    byZone,
    dropped: 0,
    expectedCrossZoneFraction: crossPods / k,
    sampledCrossZoneFraction: crossSampled / count,
  };
}

/** One scenario's input to {@link sampleRequests}, without the client node, count and seed. */
export type RequestSampleScenario = Omit<RequestSampleInput, 'clientNode' | 'count' | 'seed' | 'maxListed'>;

/**
 * The four scenarios' inputs of one Service, as the Service's traffic matrices are computed
 * (report/service-computation.ts, step 2): now = the observed slices; after sync = the slices the
 * controller is expected to write; if Auto = its slices for `topology-mode: Auto` with the Auto
 * annotations; without hints = the observed slices with hints ignored. Where the traffic step
 * reuses one scenario's matrix for another, the same input is reused here.
 */
export function requestSampleScenarios(
  context: ClusterContext,
  dataplane: Pick<DataplaneAnalysis, 'honoursHints' | 'honoursHintsReason'>,
  service: ServiceRecord,
  slices: readonly EndpointSliceRecord[],
): Readonly<Record<TrafficScenario, RequestSampleScenario>> {
  const { analysis, slices: hintSlices } = analyzeServiceHints(context, dataplane, service, slices, 'report');
  const proxied = service.type !== 'ExternalName' && service.clusterIP !== 'None';
  const endpointsOf = (sliceSet: readonly EndpointSlice[]) => (service.type === 'ExternalName' ? [] : toTrafficEndpoints(sliceSet, context.nodeZoneByName));
  const svcNow = proxyServicePort(service, service.annotations, context);
  const svcAuto = proxyServicePort(service, analysis.ifAuto.change.annotations, context);
  const base = { release: context.proxyRelease, proxied };
  const observed = endpointsOf(hintSlices.observed);
  const now: RequestSampleScenario = { ...base, endpoints: observed, service: svcNow, honoursHints: dataplane.honoursHints };
  const noNodeHints =
    !hintSlices.observed.some((s) => s.endpoints.some((e) => (e.hints?.forNodes?.length ?? 0) > 0)) && analysis.mechanism.trafficDistributionHeuristic !== 'preferSameNode';
  const expected: RequestSampleScenario = analysis.diff.inSync && noNodeHints ? now : { ...now, endpoints: endpointsOf(hintSlices.expected) };
  const ifAuto: RequestSampleScenario =
    analysis.mechanism.annotationActive && svcAuto.hintsAnnotation === svcNow.hintsAnnotation && analysis.ifAuto.change.remove.length === 0
      ? expected
      : { ...base, endpoints: endpointsOf(hintSlices.ifAuto), service: svcAuto, honoursHints: dataplane.honoursHints };
  const ifNone: RequestSampleScenario = analysis.observed.hintsPresent ? { ...now, honoursHints: false } : now;
  const out = { now, expected, ifAuto, ifNone };
  // (Display order as TRAFFIC_SCENARIOS.)
  return Object.fromEntries(TRAFFIC_SCENARIOS.map((id) => [id, out[id]])) as Record<TrafficScenario, RequestSampleScenario>;
}

/** A client node of the cluster (re-exported for callers picking a node). */
export type { ClientNode };
