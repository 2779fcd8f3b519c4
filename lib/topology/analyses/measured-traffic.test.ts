import { describe, expect, it } from 'vitest';
import type { ClusterIndex, EndpointSliceRecord, PodRecord } from '../model/cluster-model';
import { testCluster, testEndpoints, testNode, testService, testSlice, testWorkload } from '../model/test-cluster';
import type { FlowSeries, MeasuredSeriesInput } from './measured-traffic';
import { gbPerMonthOf, measuredTrafficFromSeries, sameAttribution } from './measured-traffic';
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

function flow(src: [string, string, string], dst: [string, string, string], bytesPerSecond: number): FlowSeries {
  return { srcZone: src[0], srcNamespace: src[1], srcOwner: src[2], dstZone: dst[0], dstNamespace: dst[1], dstOwner: dst[2], bytesPerSecond };
}

const GB = (bytesPerSecond: number): number => (bytesPerSecond * SECONDS_PER_MONTH) / 1e9;

describe('measuredTrafficFromSeries: attribution', () => {
  it('bytes/s become GB per 30-day month', () => {
    expect(gbPerMonthOf(1000)).toBeCloseTo(2.592, 10);
  });

  it.each<{ name: string; flows: FlowSeries[]; service: string; matrix: Record<string, Record<string, number>> }>([
    {
      name: 'request to a Service workload: client zone = src, endpoint zone = dst',
      flows: [flow(['zone-a', 'default', 'loadgen'], ['zone-b', 'default', 'web'], 1000)],
      service: 'default/web',
      matrix: { 'zone-a': { 'zone-b': GB(1000) } },
    },
    {
      name: 'reply from a Service workload to a client behind no Service: client zone = dst, endpoint zone = src',
      flows: [flow(['zone-b', 'default', 'web'], ['zone-a', 'default', 'loadgen'], 3000)],
      service: 'default/web',
      matrix: { 'zone-a': { 'zone-b': GB(3000) } },
    },
    {
      name: 'request and reply add up in one cell; same-zone traffic stays on the diagonal',
      flows: [
        flow(['zone-a', 'default', 'loadgen'], ['zone-b', 'default', 'web'], 1000),
        flow(['zone-b', 'default', 'web'], ['zone-a', 'default', 'loadgen'], 3000),
        flow(['zone-a', 'default', 'loadgen'], ['zone-a', 'default', 'web'], 500),
      ],
      service: 'default/web',
      matrix: { 'zone-a': { 'zone-a': GB(500), 'zone-b': GB(4000) } },
    },
    {
      name: 'between two Service workloads the destination wins (each byte counts once)',
      flows: [flow(['zone-a', 'default', 'web'], ['zone-c', 'default', 'api'], 800)],
      service: 'default/api',
      matrix: { 'zone-a': { 'zone-c': GB(800) } },
    },
  ])('$name', ({ flows, service, matrix }) => {
    const measured = measuredTrafficFromSeries(input({ flows }), cluster());
    const entry = measured.byService.get(service);
    expect(entry?.kind).toBe('measured-flows');
    expect(entry?.matrix).toEqual(matrix);
    const total = Object.values(matrix).reduce((sum, row) => sum + Object.values(row).reduce((a, b) => a + b, 0), 0);
    expect(entry?.gbPerMonth).toBeCloseTo(total, 9);
    expect([...measured.byService.keys()]).toEqual([service]);
  });

  it('a workload behind two Services splits its bytes equally', () => {
    const measured = measuredTrafficFromSeries(input({ flows: [flow(['zone-a', 'default', 'loadgen'], ['zone-a', 'default', 'web'], 1000)] }), cluster({ alias: true }));
    expect(measured.byService.get('default/web')?.gbPerMonth).toBeCloseTo(GB(500), 9);
    expect(measured.byService.get('default/web-alias')?.gbPerMonth).toBeCloseTo(GB(500), 9);
  });

  it('the top owner goes through the ReplicaSet to the Deployment; other owners count by their own name', () => {
    const ss: PodRecord = { namespace: 'default', name: 'db-0', labels: { app: 'db' }, nodeName: 'node-a', phase: 'Running', ready: true, terminating: false, podIP: '10.0.9.1', owner: { kind: 'StatefulSet', name: 'db' } };
    const index = testCluster({
      services: [testService('db')],
      endpointSlices: [testSlice('db', [{ addresses: ['10.0.9.1'], zone: 'zone-a', nodeName: 'node-a', ready: true, hints: null, podName: 'db-0' }])],
      pods: [ss],
    });
    const measured = measuredTrafficFromSeries(input({ flows: [flow(['zone-b', 'default', 'loadgen'], ['zone-a', 'default', 'db'], 10)] }), index);
    expect(measured.byService.get('default/db')?.matrix).toEqual({ 'zone-b': { 'zone-a': GB(10) } });
    // web's pods are owned by ReplicaSet web-5d9f, whose owner is Deployment web: flows name "web".
    const web = measuredTrafficFromSeries(input({ flows: [flow(['zone-b', 'default', 'x'], ['zone-a', 'default', 'web-5d9f'], 10)] }), cluster());
    expect(web.byService.size).toBe(0);
    expect(web.quality.unattributedBytesPerSecond).toBe(10);
  });

  it('keeps the top client workloads of a Service by volume', () => {
    const measured = measuredTrafficFromSeries(
      input({
        flows: [
          flow(['zone-a', 'default', 'small'], ['zone-a', 'default', 'web'], 1),
          flow(['zone-a', 'ingress-nginx', 'ingress-nginx-controller'], ['zone-b', 'default', 'web'], 100),
          flow(['zone-b', 'default', 'web'], ['zone-a', 'default', 'small'], 3),
        ],
      }),
      cluster(),
    );
    expect(measured.byService.get('default/web')?.clientWorkloads).toEqual(['ingress-nginx/ingress-nginx-controller', 'default/small']);
  });
});

describe('measuredTrafficFromSeries: pod bytes', () => {
  it('sums receive and transmit over the endpoint pods; flows win where a Service has both', () => {
    const measured = measuredTrafficFromSeries(
      input({
        flows: [flow(['zone-a', 'default', 'loadgen'], ['zone-c', 'default', 'api'], 7)],
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
        flows: [flow(['zone-a', 'default', 'loadgen'], ['zone-a', 'default', 'web'], value), flow(['zone-a', 'default', 'loadgen'], ['zone-a', 'default', 'web'], 10)],
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
          flow(['us-east-1z', 'default', 'loadgen'], ['zone-a', 'default', 'web'], 30),
          flow(['zone-a', 'default', 'loadgen'], ['', 'default', 'web'], 20),
          flow(['zone-a', 'default', 'loadgen'], ['zone-a', 'default', 'web'], 5),
        ],
      }),
      cluster(),
    );
    expect(measured.quality.unknownZoneBytesPerSecond).toBe(50);
    expect(measured.quality.notes).toEqual(['1 flow series has no zone label; not counted.', '1 flow series names zone "us-east-1z", which no node has; not counted.']);
    expect(measured.byService.get('default/web')?.matrix).toEqual({ 'zone-a': { 'zone-a': GB(5) } });
  });

  it('reports flows where neither side backs a Service as unattributed, naming the workloads', () => {
    const measured = measuredTrafficFromSeries(input({ flows: [flow(['zone-a', 'batch', 'etl'], ['zone-b', 'batch', 'warehouse'], 12)] }), cluster());
    expect(measured.byService.size).toBe(0);
    expect(measured.quality.unattributedBytesPerSecond).toBe(12);
    expect(measured.quality.notes).toEqual(['1 workload in flow series backs no Service (batch/warehouse); their bytes are unattributed.']);
  });

  it('sums the cross-zone pairs of the inter-zone family; absent family is null', () => {
    const measured = measuredTrafficFromSeries(
      input({
        interZone: [
          { srcZone: 'zone-a', dstZone: 'zone-b', bytesPerSecond: 100 },
          { srcZone: 'zone-b', dstZone: 'zone-a', bytesPerSecond: 300 },
          { srcZone: 'zone-a', dstZone: 'zone-a', bytesPerSecond: 999 },
        ],
      }),
      cluster(),
    );
    expect(measured.interZoneGbPerMonth).toBeCloseTo(GB(400), 9);
    expect(measured.quality.seriesRead).toBe(3);
    expect(measuredTrafficFromSeries(input({}), cluster()).interZoneGbPerMonth).toBeNull();
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
    const flows = [flow(['zone-a', 'default', 'loadgen'], ['zone-a', 'default', 'web-renamed'], 10)];
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
    flows: [flow(['zone-a', 'default', 'loadgen'], ['zone-b', 'default', 'web'], 1000), flow(['zone-a', 'default', 'web'], ['zone-c', 'default', 'api'], 300)],
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
