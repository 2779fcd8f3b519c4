/**
 * Measured against predicted: a Service's measured cross-zone share (zone-resolved flow bytes)
 * beside the share the model predicts now, the difference, and — when they disagree by more than
 * {@link AGREEMENT_POINTS} points — which known causes fit this Service, each with what was
 * checked. Pure: everything comes from the caller.
 */
import type { ClusterIndex, PodRecord, ServiceRecord } from '../model/cluster-model';
import { objectKey } from '../model/cluster-model';
import type { ValueByZone } from '../upstream/types';
import type { DataplaneAnalysis } from './analyze-dataplane';
import type { LoadBalancerAnalysis } from './load-balancer';
import { measuredCrossZoneFraction } from './measured-projection';
import { topOwnerName } from './workload-backing';
import type { TrafficMatrix } from './traffic';
import type { MeasuredServiceTraffic } from './traffic-volume';

/** Measured and predicted agree when they differ by at most this many percentage points. */
export const AGREEMENT_POINTS = 5;

/** Client shares differ "materially" when a zone's measured share is this many points off its predicted share. */
export const CLIENT_SHARE_POINTS = 10;

/** A known reason why measured and predicted differ. */
export type MeasuredCauseId = 'keep-alive' | 'mesh-bypass' | 'dataplane-ignores-hints' | 'client-share' | 'lb-ip-targets';

/** One known cause, whether it fits this Service, and why (what was checked). */
export interface MeasuredCause {
  readonly id: MeasuredCauseId;
  readonly title: string;
  readonly fits: boolean;
  readonly why: string;
}

/** Result of {@link compareMeasuredWithPredicted}. */
export interface MeasuredComparison {
  /** Cross-zone share of the measured bytes (0–1). */
  readonly measuredCrossZoneFraction: number;
  /** Cross-zone share of the delivered traffic the model predicts now (0–1). */
  readonly predictedCrossZoneFraction: number;
  /** (measured − predicted) × 100. */
  readonly differencePoints: number;
  /** `|differencePoints| ≤ AGREEMENT_POINTS`. */
  readonly agrees: boolean;
  /** Share of the measured bytes whose client is in each zone. */
  readonly measuredClientShareByZone: Readonly<ValueByZone<number>>;
  /** The model's client share per zone (CPU shares unless overridden). */
  readonly predictedClientShareByZone: Readonly<ValueByZone<number>>;
  /** Every known cause, fitting ones first (then in the order of {@link MeasuredCauseId}). */
  readonly causes: readonly MeasuredCause[];
}

/** What {@link compareMeasuredWithPredicted} reads. */
export interface MeasuredComparisonInput {
  /** The Service's measured traffic; only `measured-flows` (with a matrix) can be compared. */
  readonly measured: MeasuredServiceTraffic;
  /** The model's traffic matrix now (`ServiceDetail.trafficMatrix.now`). */
  readonly predicted: TrafficMatrix;
  readonly service: ServiceRecord;
  /** The cluster (endpoint pods and client pods are looked up in it). */
  readonly index: ClusterIndex;
  /** The cluster's dataplane (`ClusterAnalysis.cluster.dataplane`). */
  readonly dataplane: DataplaneAnalysis;
  /** The Service's load-balancer analysis (`ServiceReport.loadBalancer`), `null` when not a LoadBalancer/NodePort. */
  readonly loadBalancer: LoadBalancerAnalysis | null;
}

/** Pod labels or annotations that show a mesh sidecar (Istio, Linkerd). */
export const MESH_MARKERS: readonly { readonly key: string; readonly mesh: string }[] = [
  { key: 'sidecar.istio.io/status', mesh: 'Istio' },
  { key: 'security.istio.io/tlsMode', mesh: 'Istio' },
  { key: 'service.istio.io/canonical-name', mesh: 'Istio' },
  { key: 'linkerd.io/proxy-version', mesh: 'Linkerd' },
  { key: 'linkerd.io/control-plane-ns', mesh: 'Linkerd' },
  { key: 'linkerd.io/proxy-deployment', mesh: 'Linkerd' },
];

/** Workload names of common ingress controllers and gateways (they pick pods themselves, not through kube-proxy). */
const INGRESS_NAME = /(ingress|traefik|haproxy|contour|envoy|gateway|kong|emissary|ambassador|istio-ingressgateway)/i;

const CAUSE_TITLES: Readonly<Record<MeasuredCauseId, string>> = {
  'keep-alive': 'Long-lived or keep-alive connections',
  'mesh-bypass': 'A mesh or ingress that bypasses kube-proxy',
  'dataplane-ignores-hints': 'The dataplane ignores hints',
  'client-share': 'Client traffic not proportional to zone CPU',
  'lb-ip-targets': 'Load-balancer IP targets',
};

const CAUSE_ORDER: readonly MeasuredCauseId[] = ['keep-alive', 'mesh-bypass', 'dataplane-ignores-hints', 'client-share', 'lb-ip-targets'];

function pct(fraction: number): string {
  return `${Math.round(fraction * 100)} %`;
}

/** Pods behind the Service's EndpointSlices (by `podName`), in slice order, each once. */
function endpointPods(index: ClusterIndex, service: ServiceRecord): PodRecord[] {
  const pods = index.podsByNamespace.get(service.namespace) ?? [];
  const byName = new Map(pods.map((pod) => [pod.name, pod]));
  const seen = new Set<string>();
  const out: PodRecord[] = [];
  for (const slice of index.slicesByService.get(objectKey(service.namespace, service.name)) ?? []) {
    for (const endpoint of slice.endpoints) {
      const name = endpoint.podName;
      if (!name || seen.has(name)) continue;
      seen.add(name);
      const pod = byName.get(name);
      if (pod) out.push(pod);
    }
  }
  return out;
}

/** Pods of a workload (`namespace/owner`): those whose top owner has that name. */
function workloadPods(index: ClusterIndex, workload: string): PodRecord[] {
  const slash = workload.indexOf('/');
  if (slash < 0) return [];
  const namespace = workload.slice(0, slash);
  const owner = workload.slice(slash + 1);
  return (index.podsByNamespace.get(namespace) ?? []).filter((pod) => topOwnerName(pod, index) === owner);
}

/** The first mesh marker among the pods' labels, as "Istio (label security.istio.io/tlsMode on pod x)". */
function meshMarker(pods: readonly PodRecord[]): string | null {
  for (const pod of pods) {
    for (const marker of MESH_MARKERS) {
      if (Object.prototype.hasOwnProperty.call(pod.labels, marker.key)) return `${marker.mesh} (${marker.key} on pod ${pod.namespace}/${pod.name})`;
    }
  }
  return null;
}

function shareOfMatrix(matrix: Readonly<ValueByZone<ValueByZone<number>>>): { total: number; byClient: ValueByZone<number> } {
  let total = 0;
  const byClient: ValueByZone<number> = {};
  for (const [clientZone, row] of Object.entries(matrix)) {
    let sum = 0;
    for (const value of Object.values(row)) sum += value;
    byClient[clientZone] = sum;
    total += sum;
  }
  if (total > 0) for (const zone of Object.keys(byClient)) byClient[zone] = (byClient[zone] ?? 0) / total;
  return { total, byClient };
}

/**
 * Compares a Service's measured flows with the model's prediction now; `null` when the measurement
 * has no zone matrix (pod bytes) or no bytes.
 */
export function compareMeasuredWithPredicted(input: MeasuredComparisonInput): MeasuredComparison | null {
  const { measured, predicted, service, index, dataplane, loadBalancer } = input;
  if (measured.kind !== 'measured-flows' || measured.matrix === null) return null;
  const { total, byClient } = shareOfMatrix(measured.matrix);
  if (total <= 0) return null;

  const measuredFraction = measuredCrossZoneFraction(measured.matrix);
  const predictedFraction = predicted.deliveredFraction > 0 ? predicted.crossZoneFraction / predicted.deliveredFraction : predicted.crossZoneFraction;
  const differencePoints = (measuredFraction - predictedFraction) * 100;
  const agrees = Math.abs(differencePoints) <= AGREEMENT_POINTS;
  const sortedClient: ValueByZone<number> = {};
  for (const zone of Object.keys(byClient).sort()) sortedClient[zone] = byClient[zone] ?? 0;
  const predictedShare = predicted.clientShareByZone;
  const differs = agrees ? ' (measured agrees with the prediction, so nothing needs explaining)' : '';

  // 1. Keep-alive: kube-proxy picks an endpoint per connection.
  const hintsUsed = predicted.selectionByZone.some((s) => s.mode === 'PreferSameZone' || s.mode === 'PreferSameNode');
  const higher = measuredFraction > predictedFraction;
  const keepAliveFact = higher || !hintsUsed;
  const keepAliveWhy = hintsUsed
    ? higher
      ? `kube-proxy picks an endpoint per connection, not per request: connections opened before the hints were written, or pooled keep-alive / HTTP/2 / gRPC connections to endpoints in other zones, keep carrying bytes across zones although hints are on now (measured ${pct(measuredFraction)} cross-zone, predicted ${pct(predictedFraction)}).`
      : `Hints are on and the measured cross-zone share (${pct(measuredFraction)}) is not above the prediction (${pct(predictedFraction)}); long-lived connections would push it up, not down.`
    : `Without hints kube-proxy spreads connections evenly over the endpoints, but bytes follow connections: a few long-lived keep-alive / HTTP/2 / gRPC connections carry most bytes to wherever they landed, so the measured split (${pct(measuredFraction)} cross-zone) need not match the even spread the prediction assumes (${pct(predictedFraction)}).`;

  // 2. Mesh or ingress bypassing kube-proxy.
  const pods = endpointPods(index, service);
  const clients = measured.clientWorkloads ?? [];
  const serviceMesh = meshMarker(pods);
  let clientMesh: string | null = null;
  for (const client of clients) {
    clientMesh = meshMarker(workloadPods(index, client));
    if (clientMesh !== null) break;
  }
  const ingressClient = clients.find((client) => INGRESS_NAME.test(client.slice(client.indexOf('/') + 1))) ?? null;
  const checked = `checked the labels of ${pods.length} endpoint pod${pods.length === 1 ? '' : 's'}${clients.length > 0 ? ` and of the pods of the top client workloads (${clients.join(', ')})` : ''} for ${MESH_MARKERS.map((m) => m.key).join(', ')}`;
  const meshFact = serviceMesh !== null || clientMesh !== null || ingressClient !== null;
  const meshWhy =
    ingressClient !== null
      ? `Client ${ingressClient} looks like an ingress controller or gateway: it sends to pod IPs it picks itself, so hints and kube-proxy are not on its path.`
      : serviceMesh !== null || clientMesh !== null
        ? `${serviceMesh ?? clientMesh} shows a mesh sidecar: the sidecar balances requests over endpoints itself (its own locality settings, not EndpointSlice hints).`
        : `No sign of a mesh or ingress: ${checked}; no top client is named like an ingress controller. (Pod annotations are not read, so a sidecar shown only by annotations would be missed.)`;

  // 3. Dataplane.
  const dataplaneFact = !dataplane.honoursHints;
  const dataplaneWhy = dataplane.honoursHints ? `The dataplane honours hints: ${dataplane.honoursHintsReason}` : `The dataplane does not honour hints: ${dataplane.honoursHintsReason}`;

  // 4. Client share vs zone CPU.
  let worst: { zone: string; measured: number; predicted: number } | null = null;
  for (const zone of new Set([...Object.keys(sortedClient), ...Object.keys(predictedShare)])) {
    const m = sortedClient[zone] ?? 0;
    const p = predictedShare[zone] ?? 0;
    if (worst === null || Math.abs(m - p) > Math.abs(worst.measured - worst.predicted)) worst = { zone, measured: m, predicted: p };
  }
  const shareFact = worst !== null && Math.abs(worst.measured - worst.predicted) * 100 > CLIENT_SHARE_POINTS;
  const shareWhy =
    worst === null
      ? 'No client zones to compare.'
      : shareFact
        ? `Clients in ${worst.zone} send ${pct(worst.measured)} of the measured bytes, but the prediction gives that zone ${pct(worst.predicted)} (its share of the CPU): hints and the prediction assume clients in proportion to CPU.`
        : `Measured client shares are within ${CLIENT_SHARE_POINTS} points of the predicted ones in every zone (largest gap: ${worst.zone}, ${pct(worst.measured)} measured vs ${pct(worst.predicted)} predicted).`;

  // 5. Load-balancer IP targets.
  const ipTargets = loadBalancer !== null && (loadBalancer.path === 'lb-to-pod' || loadBalancer.aws?.targetType === 'ip');
  const lbWhy =
    loadBalancer === null || service.type !== 'LoadBalancer'
      ? `A ${service.type} Service: no load balancer sends to it.`
      : ipTargets
        ? `The load balancer sends external traffic straight to pod IPs (${loadBalancer.aws ? `AWS target type ip, from ${loadBalancer.aws.targetTypeSource}` : 'IP targets'})${loadBalancer.aws?.crossZoneEnabled ? ' with cross-zone load balancing on' : ''}: kube-proxy and hints are not on that path, and the load balancer's own zone spread decides.`
        : `The load balancer sends to nodes (${loadBalancer.aws ? `AWS target type ${loadBalancer.aws.targetType}` : loadBalancer.path}), and kube-proxy on the node picks the endpoint.`;

  const facts: Record<MeasuredCauseId, { fact: boolean; why: string }> = {
    'keep-alive': { fact: keepAliveFact, why: keepAliveWhy },
    'mesh-bypass': { fact: meshFact, why: meshWhy },
    'dataplane-ignores-hints': { fact: dataplaneFact, why: dataplaneWhy },
    'client-share': { fact: shareFact, why: shareWhy },
    'lb-ip-targets': { fact: ipTargets, why: lbWhy },
  };
  const causes: MeasuredCause[] = CAUSE_ORDER.map((id) => ({ id, title: CAUSE_TITLES[id], fits: !agrees && facts[id].fact, why: `${facts[id].why}${facts[id].fact ? differs : ''}` }));
  causes.sort((a, b) => Number(b.fits) - Number(a.fits) || CAUSE_ORDER.indexOf(a.id) - CAUSE_ORDER.indexOf(b.id));
  return {
    measuredCrossZoneFraction: measuredFraction,
    predictedCrossZoneFraction: predictedFraction,
    differencePoints,
    agrees,
    measuredClientShareByZone: sortedClient,
    predictedClientShareByZone: predictedShare,
    causes,
  };
}
