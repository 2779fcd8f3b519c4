import { describe, expect, it } from 'vitest';
import { buildClusterContext } from '../model/cluster-context';
import type { ClusterIndex, PodRecord, ServiceRecord } from '../model/cluster-model';
import { testCluster, testEndpoints, testService, testSlice, testWorkload } from '../model/test-cluster';
import { resolveFeatureGates } from '../upstream/version';
import { analyzeDataplane } from './analyze-dataplane';
import { analyzeLoadBalancer } from './load-balancer';
import type { MeasuredCauseId, MeasuredComparisonInput } from './measured-vs-predicted';
import { compareMeasuredWithPredicted } from './measured-vs-predicted';
import type { TrafficMatrix, ZoneSelection } from './traffic';
import type { MeasuredServiceTraffic } from './traffic-volume';

const ZONES = ['zone-a', 'zone-b', 'zone-c'];

/** A predicted matrix with the fields the comparison reads. */
function predicted(crossZoneFraction: number, options: { hints?: boolean; share?: Record<string, number>; dropped?: number } = {}): TrafficMatrix {
  const share = options.share ?? { 'zone-a': 1 / 3, 'zone-b': 1 / 3, 'zone-c': 1 / 3 };
  const dropped = options.dropped ?? 0;
  const selectionByZone: ZoneSelection[] = ZONES.map((zone) => ({ zone, mode: options.hints ? 'PreferSameZone' : 'none', message: '', selectedEndpoints: 1, droppedShare: 0 }));
  return {
    clientZones: ZONES,
    endpointZones: ZONES,
    clientShareByZone: share,
    matrix: {},
    droppedByZone: {},
    deliveredFraction: 1 - dropped,
    droppedFraction: dropped,
    crossZoneFraction,
    sameZoneFraction: 1 - dropped - crossZoneFraction,
    unknownZoneFraction: 0,
    endpointLoads: [],
    maxRelativeLoad: 1,
    selectionByZone,
  };
}

/** Measured flows: `cross` GB split evenly over the off-diagonal cells, `same` over the diagonal, clients equal per zone unless `rows` says otherwise. */
function measured(same: number, cross: number, clientWorkloads: string[] = ['default/loadgen']): MeasuredServiceTraffic {
  const matrix: Record<string, Record<string, number>> = {};
  for (const c of ZONES) {
    matrix[c] = {};
    for (const e of ZONES) (matrix[c] as Record<string, number>)[e] = c === e ? same / 3 : cross / 6;
  }
  return { kind: 'measured-flows', metric: 'beyla_network_flow_bytes_total', gbPerMonth: same + cross, matrix, clientWorkloads };
}

function cluster(options: { podLabels?: Record<string, string>; service?: Partial<ServiceRecord>; extraPods?: PodRecord[] } = {}): { index: ClusterIndex; service: ServiceRecord } {
  const endpoints = testEndpoints({ 'zone-a': 1, 'zone-b': 1, 'zone-c': 1 }, { service: 'web' });
  const workload = testWorkload('web', endpoints);
  const service = testService('web', options.service);
  const pods = workload.pods.map((pod) => ({ ...pod, labels: { ...pod.labels, ...options.podLabels } }));
  const index = testCluster({ services: [service], endpointSlices: [testSlice('web', endpoints)], pods: [...pods, ...(options.extraPods ?? [])], replicaSets: workload.replicaSets, deployments: workload.deployments });
  return { index, service };
}

function input(parts: Partial<MeasuredComparisonInput> & { index?: ClusterIndex; service?: ServiceRecord } = {}): MeasuredComparisonInput {
  const c = parts.index && parts.service ? { index: parts.index, service: parts.service } : cluster();
  const release = { minor: 30 as const, gates: resolveFeatureGates(30) };
  return {
    measured: measured(60, 40),
    predicted: predicted(0.1, { hints: true }),
    dataplane: analyzeDataplane(c.index.snapshot.proxy, c.index.snapshot.cni, release),
    loadBalancer: null,
    ...parts,
    index: c.index,
    service: c.service,
  };
}

function fits(result: ReturnType<typeof compareMeasuredWithPredicted>): MeasuredCauseId[] {
  return (result?.causes ?? []).filter((c) => c.fits).map((c) => c.id);
}

describe('compareMeasuredWithPredicted', () => {
  it('measures the cross-zone share of the matrix and the difference in points', () => {
    const result = compareMeasuredWithPredicted(input());
    expect(result?.measuredCrossZoneFraction).toBeCloseTo(0.4, 10);
    expect(result?.predictedCrossZoneFraction).toBeCloseTo(0.1, 10);
    expect(result?.differencePoints).toBeCloseTo(30, 10);
    expect(result?.agrees).toBe(false);
    for (const zone of ZONES) expect(result?.measuredClientShareByZone[zone]).toBeCloseTo(1 / 3, 12);
    expect(result?.causes.map((c) => c.id).sort()).toEqual(['client-share', 'dataplane-ignores-hints', 'keep-alive', 'lb-ip-targets', 'mesh-bypass']);
  });

  it('compares with the share of delivered traffic when part of it is dropped', () => {
    const result = compareMeasuredWithPredicted(input({ measured: measured(80, 20), predicted: predicted(0.1, { hints: true, dropped: 0.5 }) }));
    expect(result?.predictedCrossZoneFraction).toBeCloseTo(0.2, 10);
    expect(result?.agrees).toBe(true);
  });

  it('is null for pod bytes (no zone matrix) and for an empty matrix', () => {
    expect(compareMeasuredWithPredicted(input({ measured: { kind: 'measured-pod-bytes', metric: 'x', gbPerMonth: 5, matrix: null } }))).toBeNull();
    expect(compareMeasuredWithPredicted(input({ measured: { kind: 'measured-flows', metric: 'x', gbPerMonth: 0, matrix: {} } }))).toBeNull();
  });

  it('within 5 points: agrees, and no cause fits even where the fact holds', () => {
    const c = cluster({ podLabels: { 'security.istio.io/tlsMode': 'istio' } });
    const result = compareMeasuredWithPredicted(input({ ...c, measured: measured(88, 12), predicted: predicted(0.1, { hints: true }) }));
    expect(result?.agrees).toBe(true);
    expect(fits(result)).toEqual([]);
    expect(result?.causes.find((x) => x.id === 'mesh-bypass')?.why).toContain('(measured agrees with the prediction, so nothing needs explaining)');
  });

  it.each([
    {
      name: 'hints on, measured above predicted: keep-alive fits',
      parts: { measured: measured(50, 50), predicted: predicted(0.02, { hints: true }) },
      fit: ['keep-alive'],
      why: { 'keep-alive': 'kube-proxy picks an endpoint per connection, not per request' },
    },
    {
      name: 'hints on, measured below predicted: keep-alive does not fit',
      parts: { measured: measured(95, 5), predicted: predicted(0.4, { hints: true }) },
      fit: [],
      why: { 'keep-alive': 'long-lived connections would push it up, not down' },
    },
    {
      name: 'hints off: keep-alive fits either way',
      parts: { measured: measured(95, 5), predicted: predicted(0.66, { hints: false }) },
      fit: ['keep-alive'],
      why: { 'keep-alive': 'Without hints kube-proxy spreads connections evenly' },
    },
    {
      name: 'clients far from the CPU shares: client-share fits, naming the zone',
      parts: {
        measured: { kind: 'measured-flows' as const, metric: 'm', gbPerMonth: 100, matrix: { 'zone-a': { 'zone-a': 50, 'zone-b': 20 }, 'zone-b': { 'zone-b': 20 }, 'zone-c': { 'zone-c': 10 } } },
        predicted: predicted(0.02, { hints: true, share: { 'zone-a': 0.45, 'zone-b': 0.33, 'zone-c': 0.22 } }),
      },
      fit: ['keep-alive', 'client-share'],
      why: { 'client-share': 'Clients in zone-a send 70 % of the measured bytes, but the prediction gives that zone 45 % (its share of the CPU)' },
    },
  ])('$name', ({ parts, fit, why }) => {
    const result = compareMeasuredWithPredicted(input(parts));
    expect(fits(result)).toEqual(fit);
    for (const [id, text] of Object.entries(why)) expect(result?.causes.find((c) => c.id === id)?.why).toContain(text);
  });

  it('mesh: a sidecar label on the endpoint pods fits; without one it says what was checked', () => {
    const meshed = cluster({ podLabels: { 'security.istio.io/tlsMode': 'istio' } });
    const withMesh = compareMeasuredWithPredicted(input({ ...meshed }));
    expect(fits(withMesh)).toContain('mesh-bypass');
    expect(withMesh?.causes.find((c) => c.id === 'mesh-bypass')?.why).toBe(
      'Istio (security.istio.io/tlsMode on pod default/web-zone-a-1) shows a mesh sidecar: the sidecar balances requests over endpoints itself (its own locality settings, not EndpointSlice hints).',
    );
    const plain = compareMeasuredWithPredicted(input());
    expect(fits(plain)).not.toContain('mesh-bypass');
    expect(plain?.causes.find((c) => c.id === 'mesh-bypass')?.why).toContain('checked the labels of 3 endpoint pods and of the pods of the top client workloads (default/loadgen) for sidecar.istio.io/status');
  });

  it('mesh: a client pod with a Linkerd sidecar, or an ingress controller as the client, fits', () => {
    const client: PodRecord = { namespace: 'default', name: 'loadgen-1', labels: { 'linkerd.io/proxy-deployment': 'loadgen' }, nodeName: 'node-a', phase: 'Running', ready: true, terminating: false, owner: null };
    const c = cluster({ extraPods: [client] });
    const viaClient = compareMeasuredWithPredicted(input({ ...c, measured: measured(60, 40, ['default/loadgen-1']) }));
    expect(fits(viaClient)).toContain('mesh-bypass');
    expect(viaClient?.causes.find((x) => x.id === 'mesh-bypass')?.why).toContain('Linkerd (linkerd.io/proxy-deployment on pod default/loadgen-1)');
    const viaIngress = compareMeasuredWithPredicted(input({ measured: measured(60, 40, ['ingress-nginx/ingress-nginx-controller']) }));
    expect(viaIngress?.causes.find((x) => x.id === 'mesh-bypass')).toMatchObject({ fits: true, why: 'Client ingress-nginx/ingress-nginx-controller looks like an ingress controller or gateway: it sends to pod IPs it picks itself, so hints and kube-proxy are not on its path.' });
  });

  it('dataplane: Cilium without service topology fits, with the dataplane analysis reason', () => {
    const c = cluster();
    const release = { minor: 30 as const, gates: resolveFeatureGates(30) };
    const cilium = analyzeDataplane(null, { cilium: { kubeProxyReplacement: 'true', serviceTopology: false, source: 'kube-system/cilium-config' }, calico: null, awsVpcCni: false }, release);
    const result = compareMeasuredWithPredicted(input({ ...c, dataplane: cilium }));
    const cause = result?.causes.find((x) => x.id === 'dataplane-ignores-hints');
    expect(cause?.fits).toBe(true);
    expect(cause?.why).toBe(`The dataplane does not honour hints: ${cilium.honoursHintsReason}`);
    expect(result?.causes[0]?.fits).toBe(true);
    const kubeProxy = compareMeasuredWithPredicted(input());
    expect(kubeProxy?.causes.find((x) => x.id === 'dataplane-ignores-hints')?.fits).toBe(false);
  });

  it('load balancer: AWS IP targets fit; instance targets and ClusterIP do not', () => {
    const ipService: Partial<ServiceRecord> = {
      type: 'LoadBalancer',
      annotations: { 'service.beta.kubernetes.io/aws-load-balancer-type': 'external', 'service.beta.kubernetes.io/aws-load-balancer-nlb-target-type': 'ip' },
    };
    const c = cluster({ service: ipService });
    const context = buildClusterContext(c.index);
    const slices = c.index.slicesByService.get('default/web') ?? [];
    const lb = analyzeLoadBalancer(context, c.service, slices);
    const result = compareMeasuredWithPredicted(input({ ...c, loadBalancer: lb }));
    const cause = result?.causes.find((x) => x.id === 'lb-ip-targets');
    expect(cause?.fits).toBe(true);
    expect(cause?.why).toContain('The load balancer sends external traffic straight to pod IPs (AWS target type ip, from service.beta.kubernetes.io/aws-load-balancer-nlb-target-type)');
    const instance = cluster({ service: { type: 'LoadBalancer', annotations: { 'service.beta.kubernetes.io/aws-load-balancer-type': 'nlb' } } });
    const instanceLb = analyzeLoadBalancer(buildClusterContext(instance.index), instance.service, instance.index.slicesByService.get('default/web') ?? []);
    expect(compareMeasuredWithPredicted(input({ ...instance, loadBalancer: instanceLb }))?.causes.find((x) => x.id === 'lb-ip-targets')?.fits).toBe(false);
    expect(compareMeasuredWithPredicted(input())?.causes.find((x) => x.id === 'lb-ip-targets')?.why).toBe('A ClusterIP Service: no load balancer sends to it.');
  });
});
