import { describe, expect, it } from 'vitest';
import type { ClusterIndex, EndpointSliceRecord, PodRecord } from '../model/cluster-model';
import { testCluster, testEndpoints, testNode, testService, testSlice, testWorkload } from '../model/test-cluster';
import type { FlowSeries, MeasuredSeriesInput } from './measured-traffic';
import { measuredTrafficFromSeries, zoneLabelsHint } from './measured-traffic';
import { sameAttribution } from './same-attribution';
import { gbPerMonthOf } from './traffic-volume';
import { SECONDS_PER_MONTH } from './traffic-volume';

/** Two Services: `web` (Deployment web, 2 pods a/b) and `api` (Deployment api, 1 pod in c); plus `web-alias` selecting web's pods too when asked. */
function cluster(options: { alias?: boolean; extraPods?: PodRecord[] } = {}) {
  const webEndpoints = testEndpoints({ 'zone-a': 1, 'zone-b': 1 }, { service: 'web' });
  const apiEndpoints = testEndpoints({ 'zone-c': 1 }, { service: 'api' });
  const web = testWorkload('web', webEndpoints);
  const api = testWorkload('api', apiEndpoints);
  const services = [testService('web'), testService('api'), ...(options.alias ? [testService('web-alias')] : [])];
  const slices = [testSlice('web', webEndpoints), testSlice('api', apiEndpoints), ...(options.alias ? [testSlice('web-alias', webEndpoints, { name: 'web-alias-xyz' })] : [])];
  return testCluster({
    services,
    endpointSlices: slices,
    pods: [...web.pods, ...api.pods, ...(options.extraPods ?? [])],
    replicaSets: [...web.replicaSets, ...api.replicaSets],
    deployments: [...web.deployments, ...api.deployments],
  });
}

function input(parts: Partial<MeasuredSeriesInput>): MeasuredSeriesInput {
  return {
    flows: [],
    podBytes: [],
    interZone: [],
    window: '7d',
    measuredAt: '2026-01-01T00:00:00.000Z',
    flowMetric: 'beyla_network_flow_bytes_total',
    podMetric: 'container_network_receive_bytes_total+container_network_transmit_bytes_total',
    ...parts,
  };
}

/**
 * One flow series as the flow query returns it (summed over the agents): `[zone, namespace, owner]`
 * of each end, the bytes/s, and the labels Beyla's default attribute set adds.
 */
function flow(src: [string, string, string], dst: [string, string, string], bytesPerSecond: number, extra: Partial<FlowSeries> = {}): FlowSeries {
  return { srcZone: src[0], srcNamespace: src[1], srcOwner: src[2], dstZone: dst[0], dstNamespace: dst[1], dstOwner: dst[2], bytesPerSecond, ...extra };
}

const request = (src: [string, string, string], dst: [string, string, string], bytesPerSecond: number) => flow(src, dst, bytesPerSecond, { direction: 'request', srcOwnerType: 'Deployment', dstOwnerType: 'Deployment' });
const response = (src: [string, string, string], dst: [string, string, string], bytesPerSecond: number) => flow(src, dst, bytesPerSecond, { direction: 'response', srcOwnerType: 'Deployment', dstOwnerType: 'Deployment' });

const GB = (bytesPerSecond: number): number => (bytesPerSecond * SECONDS_PER_MONTH) / 1e9;

describe('measuredTrafficFromSeries: a conversation belongs to its server', () => {
  it('bytes/s become GB per 30-day month', () => {
    expect(gbPerMonthOf(1000)).toBeCloseTo(2.592, 10);
  });

  it('a request and its response both count for the server\'s Service: client zone = the client\'s, endpoint zone = the server\'s', () => {
    // Cross-zone: both nodes' agents report each byte, so the series carry twice the traffic.
    const measured = measuredTrafficFromSeries(
      input({ flows: [request(['zone-a', 'default', 'loadgen'], ['zone-b', 'default', 'web'], 2000), response(['zone-b', 'default', 'web'], ['zone-a', 'default', 'loadgen'], 6000)] }),
      cluster(),
    );
    expect(measured.byService.get('default/web')).toMatchObject({ kind: 'measured-flows', matrix: { 'zone-a': { 'zone-b': GB(4000) } } });
    expect(measured.byService.get('default/web')?.gbPerMonth).toBeCloseTo(GB(4000), 9);
    expect(measured.flowZones).toBe('labelled');
  });

  it('a caller is not billed for the responses it receives: web calls api, api gets both directions, web is measured at 0', () => {
    const measured = measuredTrafficFromSeries(
      input({ flows: [request(['zone-a', 'default', 'web'], ['zone-c', 'default', 'api'], 200), response(['zone-c', 'default', 'api'], ['zone-a', 'default', 'web'], 2000)] }),
      cluster(),
    );
    expect(measured.byService.get('default/api')?.matrix).toEqual({ 'zone-a': { 'zone-c': GB(1100) } });
    // Beyla sees web's pods (they call api) and nobody calls web: measured, at 0 — not assumed.
    expect(measured.byService.get('default/web')).toMatchObject({ kind: 'measured-flows', gbPerMonth: 0, matrix: {} });
  });

  it('without direction (removed from the attribute set) the destination is the server when it backs a Service, else the source', () => {
    const measured = measuredTrafficFromSeries(
      input({ flows: [flow(['zone-a', 'default', 'loadgen'], ['zone-b', 'default', 'web'], 1000), flow(['zone-b', 'default', 'web'], ['zone-a', 'default', 'loadgen'], 3000)] }),
      cluster(),
    );
    expect(measured.byService.get('default/web')?.matrix).toEqual({ 'zone-a': { 'zone-b': GB(2000) } });
  });

  it('a workload behind two Services splits its bytes equally', () => {
    const measured = measuredTrafficFromSeries(input({ flows: [request(['zone-a', 'default', 'loadgen'], ['zone-a', 'default', 'web'], 1000)] }), cluster({ alias: true }));
    expect(measured.byService.get('default/web')?.gbPerMonth).toBeCloseTo(GB(500), 9);
    expect(measured.byService.get('default/web-alias')?.gbPerMonth).toBeCloseTo(GB(500), 9);
  });

  it('the top owner goes through the ReplicaSet to the Deployment; other owners count by their own name', () => {
    const ss: PodRecord = { namespace: 'default', name: 'db-0', labels: { app: 'db' }, nodeName: 'node-a', phase: 'Running', ready: true, terminating: false, owner: { kind: 'StatefulSet', name: 'db' } };
    const index = testCluster({
      services: [testService('db')],
      endpointSlices: [testSlice('db', [{ addresses: ['10.0.9.1'], zone: 'zone-a', nodeName: 'node-a', ready: true, hints: null, podName: 'db-0' }])],
      pods: [ss],
    });
    const measured = measuredTrafficFromSeries(input({ flows: [request(['zone-b', 'default', 'loadgen'], ['zone-a', 'default', 'db'], 20)] }), index);
    expect(measured.byService.get('default/db')?.matrix).toEqual({ 'zone-b': { 'zone-a': GB(10) } });
    // web's pods are owned by ReplicaSet web-5d9f, whose owner is Deployment web: flows name "web".
    const web = measuredTrafficFromSeries(input({ flows: [request(['zone-b', 'default', 'x'], ['zone-a', 'default', 'web-5d9f'], 10)] }), cluster());
    expect(web.byService.size).toBe(0);
    expect(web.quality.unattributedBytesPerSecond).toBe(5);
  });

  it('keeps the top client workloads of a Service by volume', () => {
    const measured = measuredTrafficFromSeries(
      input({
        flows: [
          request(['zone-a', 'default', 'small'], ['zone-a', 'default', 'web'], 1),
          request(['zone-a', 'ingress-nginx', 'ingress-nginx-controller'], ['zone-b', 'default', 'web'], 100),
          response(['zone-a', 'default', 'web'], ['zone-a', 'default', 'small'], 3),
        ],
      }),
      cluster(),
    );
    expect(measured.byService.get('default/web')?.clientWorkloads).toEqual(['ingress-nginx/ingress-nginx-controller', 'default/small']);
  });
});

describe('measuredTrafficFromSeries: one count per byte however many agents report it', () => {
  /** web's pods on nodes a1/a2 of zone-a as given, a client workload `caller` likewise. */
  function twoNodeZone(webNodes: readonly string[], callerNodes: readonly string[]) {
    const webEndpoints = webNodes.map((node, i) => ({ addresses: [`10.0.1.${i + 1}`], zone: 'zone-a', nodeName: node, ready: true, hints: null, podName: `web-${i}` }));
    const web = testWorkload('web', webEndpoints);
    const caller = testWorkload('caller', callerNodes.map((node, i) => ({ addresses: [`10.0.2.${i + 1}`], zone: 'zone-a', nodeName: node, ready: true, hints: null, podName: `caller-${i}` })));
    return testCluster({
      nodes: [testNode('a1', 'zone-a'), testNode('a2', 'zone-a'), testNode('node-b', 'zone-b')],
      services: [testService('web')],
      endpointSlices: [testSlice('web', webEndpoints)],
      pods: [...web.pods, ...caller.pods],
      replicaSets: [...web.replicaSets, ...caller.replicaSets],
      deployments: [...web.deployments, ...caller.deployments],
    });
  }
  const sameZone = (bytes: number) => [request(['zone-a', 'default', 'caller'], ['zone-a', 'default', 'web'], bytes)];

  it.each([
    { name: 'the two ends always on one node: one agent saw it', web: ['a1'], caller: ['a1'], reported: 1000, truth: 1000 },
    { name: 'never on one node: both agents saw it', web: ['a1'], caller: ['a2'], reported: 2000, truth: 1000 },
    { name: 'on one node half the time: 1.5 reports per byte', web: ['a1', 'a2'], caller: ['a1', 'a2'], reported: 1500, truth: 1000 },
  ])('same zone, $name', ({ web, caller, reported, truth }) => {
    const measured = measuredTrafficFromSeries(input({ flows: sameZone(reported) }), twoNodeZone(web, caller));
    expect(measured.byService.get('default/web')?.gbPerMonth).toBeCloseTo(GB(truth), 6);
  });

  it('a client workload zonescope cannot place is spread over the zone\'s nodes by CPU, as the traffic model\'s clients are', () => {
    // loadgen has no pods: a1 and a2 each take half; web runs on a1 only: s = 0.5.
    const measured = measuredTrafficFromSeries(input({ flows: [request(['zone-a', 'default', 'loadgen'], ['zone-a', 'default', 'web'], 1500)] }), twoNodeZone(['a1'], ['a1']));
    expect(measured.byService.get('default/web')?.gbPerMonth).toBeCloseTo(GB(1000), 6);
  });

  it('a flow from outside the cluster is seen by the server\'s agent only: the Service\'s external bytes, kept out of its in-cluster volume', () => {
    const external = request(['', '', ''], ['zone-b', 'default', 'web'], 700);
    const measured = measuredTrafficFromSeries(input({ flows: [{ ...external, srcOwnerType: '' }, request(['zone-a', 'default', 'loadgen'], ['zone-b', 'default', 'web'], 200)] }), cluster());
    expect(measured.byService.get('default/web')).toMatchObject({ gbPerMonth: GB(100), externalGbPerMonth: GB(700) });
  });

  it('series naming a Service as an end repeat the workload series: not counted, and said so', () => {
    const measured = measuredTrafficFromSeries(
      input({
        flows: [
          request(['zone-a', 'default', 'loadgen'], ['zone-b', 'default', 'web'], 2000),
          flow(['zone-a', 'default', 'loadgen'], ['', 'default', 'web'], 1000, { direction: 'request', srcOwnerType: 'Deployment', dstOwnerType: 'Service' }),
        ],
      }),
      cluster(),
    );
    expect(measured.byService.get('default/web')?.gbPerMonth).toBeCloseTo(GB(1000), 9);
    expect(measured.quality.serviceAddressedBytesPerSecond).toBe(1000);
    expect(measured.quality.notes).toContain('1.0 kB/s of flow series name a Service as an end (seen before kube-proxy translated its ClusterIP); they repeat the workload series and are not counted.');
  });
});

describe('measuredTrafficFromSeries: zones and hostNetwork', () => {
  it('a stock install (no zone labels) measures no Service from flows: pod bytes for all, and the setting that adds zones', () => {
    const measured = measuredTrafficFromSeries(
      input({
        flows: [flow(['', 'default', 'loadgen'], ['', 'default', 'web'], 1000, { direction: 'request', srcOwnerType: 'Deployment', dstOwnerType: 'Deployment' })],
        podBytes: [{ namespace: 'default', pod: 'web-zone-a-1', bytesPerSecond: 300 }],
      }),
      cluster(),
    );
    expect(measured.flowZones).toBe('missing');
    expect(measured.byService.get('default/web')).toMatchObject({ kind: 'measured-pod-bytes', gbPerMonth: GB(300) });
    expect(measured.quality.notes[0]).toContain('carry no src_zone/dst_zone');
    expect(measured.quality.notes[0]).toContain("Add src.zone and dst.zone to Beyla's attributes.select.beyla_network_flow_bytes.include");
    expect(measuredTrafficFromSeries(input({}), cluster()).flowZones).toBe('none');
  });

  it('OBI names its own section', () => {
    expect(zoneLabelsHint('obi_network_flow_bytes_total')).toContain("OBI's attributes.select.obi_network_flow_bytes.include");
  });

  it('flows served by a node (hostNetwork pods, which Beyla names by their node) are not a Service\'s; their pods\' cAdvisor bytes are the node\'s and not counted', () => {
    const hostPod: PodRecord = { namespace: 'default', name: 'web-zone-a-1', labels: { app: 'web' }, nodeName: 'node-a', phase: 'Running', ready: true, terminating: false, owner: null, hostNetwork: true };
    const base = cluster();
    const pods = (base.podsByNamespace.get('default') ?? []).map((p) => (p.name === hostPod.name ? hostPod : p));
    const index = testCluster({ ...base.snapshot, pods: [...pods, ...[...base.podsByNamespace].filter(([ns]) => ns !== 'default').flatMap(([, list]) => list)] });
    const measured = measuredTrafficFromSeries(
      input({
        flows: [flow(['zone-b', 'default', 'loadgen'], ['zone-a', '', 'node-a'], 400, { direction: 'request', srcOwnerType: 'Deployment', dstOwnerType: 'Node' })],
        podBytes: [
          { namespace: 'default', pod: 'web-zone-a-1', bytesPerSecond: 9e6 },
          { namespace: 'default', pod: 'web-zone-b-1', bytesPerSecond: 100 },
        ],
      }),
      index,
    );
    expect(measured.byService.get('default/web')).toMatchObject({ kind: 'measured-pod-bytes', gbPerMonth: GB(100) });
    expect(measured.quality.hostNetworkPods).toBe(1);
    expect(measured.quality.notes).toContain("1 hostNetwork pod reports the node's network counters in cAdvisor; not counted.");
    expect(measured.quality.notes.some((note) => note.includes('served by a node'))).toBe(true);
  });
});

describe('measuredTrafficFromSeries: pod bytes', () => {
  it('sums receive and transmit over the endpoint pods; flows win where a Service has both', () => {
    const measured = measuredTrafficFromSeries(
      input({
        flows: [request(['zone-a', 'default', 'loadgen'], ['zone-c', 'default', 'api'], 14)],
        podBytes: [
          { namespace: 'default', pod: 'web-zone-a-1', bytesPerSecond: 100 },
          { namespace: 'default', pod: 'web-zone-a-1', bytesPerSecond: 50 },
          { namespace: 'default', pod: 'web-zone-b-1', bytesPerSecond: 250 },
          { namespace: 'default', pod: 'api-zone-c-1', bytesPerSecond: 1e6 },
        ],
      }),
      cluster(),
    );
    expect(measured.byService.get('default/web')).toEqual({ kind: 'measured-pod-bytes', metric: 'container_network_receive_bytes_total+container_network_transmit_bytes_total', gbPerMonth: GB(400), matrix: null });
    expect(measured.byService.get('default/api')?.kind).toBe('measured-flows');
    expect(measured.byService.get('default/api')?.gbPerMonth).toBeCloseTo(GB(7), 9);
  });

  it('a pod behind two Services splits its bytes; a pod behind none is unattributed', () => {
    const measured = measuredTrafficFromSeries(
      input({
        podBytes: [
          { namespace: 'default', pod: 'web-zone-a-1', bytesPerSecond: 100 },
          { namespace: 'default', pod: 'loadgen-1', bytesPerSecond: 40 },
        ],
      }),
      cluster({ alias: true }),
    );
    expect(measured.byService.get('default/web')?.gbPerMonth).toBeCloseTo(GB(50), 9);
    expect(measured.byService.get('default/web-alias')?.gbPerMonth).toBeCloseTo(GB(50), 9);
    expect(measured.quality.unattributedBytesPerSecond).toBe(40);
    expect(measured.quality.notes).toContain('1 pod with network bytes backs no Service; their bytes are unattributed.');
  });
});

describe('measuredTrafficFromSeries: data quality', () => {
  it.each([
    { name: 'NaN', value: Number.NaN },
    { name: '+Inf', value: Number.POSITIVE_INFINITY },
    { name: '-Inf', value: Number.NEGATIVE_INFINITY },
    { name: 'negative', value: -5 },
  ])('drops and counts a $name sample', ({ value }) => {
    const measured = measuredTrafficFromSeries(
      input({
        flows: [request(['zone-a', 'default', 'loadgen'], ['zone-a', 'default', 'web'], value), request(['zone-a', 'default', 'loadgen'], ['zone-a', 'default', 'web'], 10)],
        podBytes: [{ namespace: 'default', pod: 'api-zone-c-1', bytesPerSecond: value }],
        interZone: [{ srcZone: 'zone-a', dstZone: 'zone-b', bytesPerSecond: value }],
      }),
      cluster(),
    );
    expect(measured.quality.invalidSamples).toBe(3);
    expect(measured.quality.notes[0]).toBe('3 samples were NaN, infinite or negative and were dropped (1 flow, 1 pod-bytes, 1 inter-zone).');
    expect(measured.byService.get('default/web')?.gbPerMonth).toBeCloseTo(GB(10), 9);
    expect(measured.byService.has('default/api')).toBe(false);
    expect(measured.interZoneGbPerMonth).toBe(0);
  });

  it('does not count flows naming a zone no node has, or no zone, and says so', () => {
    const measured = measuredTrafficFromSeries(
      input({
        flows: [
          request(['us-east-1z', 'default', 'loadgen'], ['zone-a', 'default', 'web'], 30),
          request(['zone-a', 'default', 'loadgen'], ['', 'default', 'web'], 20),
          request(['zone-a', 'default', 'loadgen'], ['zone-a', 'default', 'web'], 5),
        ],
      }),
      cluster(),
    );
    expect(measured.quality.unknownZoneBytesPerSecond).toBe(50);
    expect(measured.quality.notes).toEqual(['1 flow series has no zone label; not counted.', '1 flow series names zone "us-east-1z", which no node has; not counted.']);
    expect(measured.byService.get('default/web')?.matrix).toEqual({ 'zone-a': { 'zone-a': GB(5) } });
  });

  it('reports flows whose server backs no Service as unattributed, naming the workloads', () => {
    const measured = measuredTrafficFromSeries(input({ flows: [request(['zone-a', 'batch', 'etl'], ['zone-b', 'batch', 'warehouse'], 24)] }), cluster());
    expect(measured.byService.size).toBe(0);
    expect(measured.quality.unattributedBytesPerSecond).toBe(12);
    expect(measured.quality.notes).toEqual(['1 workload serving in flow series backs no Service (batch/warehouse); their bytes are unattributed.']);
  });

  it('a flow to a server without Kubernetes metadata (the Internet) is nobody\'s, and the note says so without naming "(none)"', () => {
    const measured = measuredTrafficFromSeries(input({ flows: [flow(['zone-a', 'default', 'web'], ['', '', ''], 500, { direction: 'request', srcOwnerType: 'Deployment', dstOwnerType: '' })] }), cluster());
    expect(measured.quality.unattributedBytesPerSecond).toBe(500);
    expect(measured.quality.notes).toEqual(['500 B/s of flows go to servers without Kubernetes metadata (outside the cluster, or pods the exporter could not name); not attributed to a Service.']);
  });

  it('halves the inter-zone counter (both agents of every inter-zone flow report it) and reconciles it with the flows', () => {
    const measured = measuredTrafficFromSeries(
      input({
        flows: [request(['zone-a', 'default', 'loadgen'], ['zone-b', 'default', 'web'], 400), request(['zone-a', 'batch', 'etl'], ['zone-b', 'batch', 'warehouse'], 400)],
        interZone: [
          { srcZone: 'zone-a', dstZone: 'zone-b', bytesPerSecond: 100 },
          { srcZone: 'zone-b', dstZone: 'zone-a', bytesPerSecond: 700 },
          { srcZone: 'zone-a', dstZone: 'zone-a', bytesPerSecond: 999 },
        ],
      }),
      cluster(),
    );
    expect(measured.interZoneGbPerMonth).toBeCloseTo(GB(400), 9);
    expect(measured.reconciliation).toMatchObject({ servicesGbPerMonth: GB(200), otherGbPerMonth: GB(200), interZoneGbPerMonth: GB(400), agrees: true });
    expect(measuredTrafficFromSeries(input({}), cluster()).interZoneGbPerMonth).toBeNull();
    const off = measuredTrafficFromSeries(input({ flows: [request(['zone-a', 'default', 'loadgen'], ['zone-b', 'default', 'web'], 4e6)], interZone: [{ srcZone: 'zone-a', dstZone: 'zone-b', bytesPerSecond: 8e5 }] }), cluster());
    expect(off.reconciliation?.agrees).toBe(false);
    expect(off.quality.notes[0]).toMatch(/^Cross-zone bytes disagree: flows 5,184 GB\/month .* against the inter-zone counter's 1,037 GB\/month\. The flows count more/);
  });
});

describe('measuredTrafficFromSeries: notes read as sentences', () => {
  it('singular and plural agree with their counts', () => {
    const one = measuredTrafficFromSeries(input({ podBytes: [{ namespace: 'default', pod: 'x', bytesPerSecond: Number.NaN }] }), cluster());
    expect(one.quality.notes).toEqual(['1 sample was NaN, infinite or negative and was dropped (1 pod-bytes).']);
    const two = measuredTrafficFromSeries(
      input({
        podBytes: [
          { namespace: 'default', pod: 'x', bytesPerSecond: 1 },
          { namespace: 'default', pod: 'y', bytesPerSecond: 1 },
        ],
      }),
      cluster(),
    );
    expect(two.quality.notes).toEqual(['2 pods with network bytes back no Service; their bytes are unattributed.']);
  });
});

describe('measuredTrafficFromSeries: across cluster generations', () => {
  it('re-reads owners when the ReplicaSets change, even when the pod list is the same', () => {
    const first = cluster();
    const flows = [request(['zone-a', 'default', 'loadgen'], ['zone-a', 'default', 'web-renamed'], 10)];
    expect(measuredTrafficFromSeries(input({ flows }), first).byService.size).toBe(0);
    const replicaSetsByKey = new Map(first.replicaSetsByKey);
    replicaSetsByKey.set('default/web-5d9f', { namespace: 'default', name: 'web-5d9f', replicas: 2, owner: { kind: 'Deployment', name: 'web-renamed' } });
    const second = { ...first, replicaSetsByKey };
    expect(second.podsByNamespace).toBe(first.podsByNamespace);
    expect(measuredTrafficFromSeries(input({ flows }), second).byService.get('default/web')?.gbPerMonth).toBeCloseTo(GB(10), 9);
  });
});

describe('sameAttribution: when a new generation can keep the mapping of the last', () => {
  // Flows and pod bytes that touch both Services, so any change of attribution shows in the mapping.
  const series = input({
    flows: [request(['zone-a', 'default', 'loadgen'], ['zone-b', 'default', 'web'], 1000), request(['zone-a', 'default', 'web'], ['zone-c', 'default', 'api'], 300)],
    podBytes: [
      { namespace: 'default', pod: 'web-zone-a-1', bytesPerSecond: 50 },
      { namespace: 'default', pod: 'api-zone-c-1', bytesPerSecond: 70 },
    ],
  });

  /** `index` with the slices of `default/<service>` replaced by `slices` (new lists, as the cluster source makes them). */
  function withSlices(index: ClusterIndex, service: string, slices: readonly EndpointSliceRecord[]): ClusterIndex {
    return { ...index, slicesByService: new Map(index.slicesByService).set(`default/${service}`, slices) };
  }

  function webSlice(index: ClusterIndex): EndpointSliceRecord {
    const slice = index.slicesByService.get('default/web')?.[0];
    if (slice === undefined) throw new Error('the test cluster has no web slice');
    return slice;
  }

  it('an endpoint turning unready (a new slice, the same pods) keeps it, and mapping again gives the same result', () => {
    const before = cluster();
    const slice = webSlice(before);
    const flipped = { ...slice, resourceVersion: '2', endpoints: slice.endpoints.map((e, i) => (i === 0 ? { ...e, ready: false } : e)) };
    const after = withSlices(before, 'web', [flipped]);
    expect(sameAttribution(before, after)).toBe(true);
    expect(measuredTrafficFromSeries(series, after)).toEqual(measuredTrafficFromSeries(series, before));
  });

  it('a pod status change (a new pod list for the namespace, the same owners) keeps it', () => {
    const before = cluster();
    const pods = (before.podsByNamespace.get('default') ?? []).map((p, i) => (i === 0 ? { ...p, ready: false } : p));
    const after = { ...before, podsByNamespace: new Map(before.podsByNamespace).set('default', pods) };
    expect(sameAttribution(before, after)).toBe(true);
    expect(measuredTrafficFromSeries(series, after)).toEqual(measuredTrafficFromSeries(series, before));
  });

  it('new node and ReplicaSet lookups with the same zones and owners keep it', () => {
    const before = cluster();
    const nodes = before.snapshot.nodes.map((n) => ({ ...n }));
    const after = { ...before, snapshot: { ...before.snapshot, nodes }, replicaSetsByKey: new Map(before.replicaSetsByKey), deploymentsByKey: new Map(before.deploymentsByKey) };
    expect(sameAttribution(before, after)).toBe(true);
  });

  it.each<{ name: string; change: (index: ClusterIndex) => ClusterIndex }>([
    {
      name: 'an endpoint now backed by another pod',
      change: (index) => {
        const slice = webSlice(index);
        return withSlices(index, 'web', [{ ...slice, endpoints: slice.endpoints.map((e, i) => (i === 0 ? { ...e, podName: 'api-zone-c-1' } : e)) }]);
      },
    },
    { name: 'a Service losing its slices', change: (index) => ({ ...index, slicesByService: new Map([...index.slicesByService].filter(([key]) => key !== 'default/web')) }) },
    { name: 'a Service deleted (its slices still listed)', change: (index) => ({ ...index, servicesByKey: new Map([...index.servicesByKey].filter(([key]) => key !== 'default/api')) }) },
    {
      name: 'a ReplicaSet now owned by another Deployment',
      change: (index) => ({ ...index, replicaSetsByKey: new Map(index.replicaSetsByKey).set('default/web-5d9f', { namespace: 'default', name: 'web-5d9f', replicas: 2, owner: { kind: 'Deployment', name: 'web-v2' } }) }),
    },
    {
      name: "web's pods now owned by another ReplicaSet",
      change: (index) => ({ ...index, podsByNamespace: new Map(index.podsByNamespace).set('default', (index.podsByNamespace.get('default') ?? []).map((p) => (p.name.startsWith('web-') ? { ...p, owner: { kind: 'ReplicaSet', name: 'other-1a2b' } } : p))) }),
    },
    { name: 'the nodes losing a zone', change: (index) => ({ ...index, snapshot: { ...index.snapshot, nodes: [testNode('node-a', 'zone-a'), testNode('node-b', 'zone-b')] } }) },
  ])('$name does not keep it, and mapping again does differ', ({ change }) => {
    const before = cluster();
    const after = change(before);
    expect(sameAttribution(before, after)).toBe(false);
    expect(measuredTrafficFromSeries(series, after)).not.toEqual(measuredTrafficFromSeries(series, before));
  });
});

describe('sameAttribution: placement enters the one-count-per-byte rule', () => {
  it('a pod moving to another node does not keep the mapping', () => {
    const before = cluster();
    const pods = (before.podsByNamespace.get('default') ?? []).map((p, i) => (i === 0 ? { ...p, nodeName: 'node-b' } : p));
    const after = { ...before, podsByNamespace: new Map(before.podsByNamespace).set('default', pods) };
    expect(sameAttribution(before, after)).toBe(false);
  });

  it('a node added to a zone (new client weights) does not keep it', () => {
    const before = cluster();
    const after = { ...before, snapshot: { ...before.snapshot, nodes: [...before.snapshot.nodes, testNode('node-a2', 'zone-a')] } };
    expect(sameAttribution(before, after)).toBe(false);
  });
});
