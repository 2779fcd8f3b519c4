/**
 * The simulated exporters' series, label for label: Beyla/OBI's flow and inter-zone metrics
 * rendered from per-agent flows (the default attribute set, zones only when selected, the
 * agent's `instance`), and cAdvisor's sandbox and root-cgroup series on containerd.
 */
import { describe, expect, it } from 'vitest';
import type { AgentFlow, FlowPeer } from './beyla-series';
import { FLOW_METRIC, flowSeriesId, flowSeriesParts, INTER_ZONE_METRIC } from './beyla-series';
import type { PodNetwork } from './cadvisor-series';
import { POD_RECEIVE_METRIC, POD_TRANSMIT_METRIC, podSeriesParts, sandboxId } from './cadvisor-series';
import { metricOrder } from './exporter-options';
import { escapeLabelValue, parseSeriesId, seriesId } from './exposition';

const client: FlowPeer = { namespace: 'shop', ownerName: 'loadgen', ownerType: 'Deployment', zone: 'zone-a' };
const server: FlowPeer = { namespace: 'shop', ownerName: 'cart', ownerType: 'Deployment', zone: 'zone-b' };
const options = { flowZoneLabels: false, exporter: 'beyla', interZone: true } as const;

function flow(instance: string, direction: AgentFlow['direction'], src: FlowPeer, dst: FlowPeer, bytesPerSecond: number): AgentFlow {
  return { instance, direction, src, dst, bytesPerSecond };
}

describe('series ids', () => {
  it('escapes label values as the text format requires, and reads them back', () => {
    expect(escapeLabelValue('a"b\\c\nd')).toBe('a\\"b\\\\c\\nd');
    expect(escapeLabelValue('ap-northeast-2a')).toBe('ap-northeast-2a');
    const id = seriesId('m', [['a', 'x"y\\z\nw'], ['b', ''], ['c', 'plain']]);
    expect(id).toBe('m{a="x\\"y\\\\z\\nw",b="",c="plain"}');
    expect(parseSeriesId(id)).toEqual({ metric: 'm', labels: { a: 'x"y\\z\nw', b: '', c: 'plain' } });
    expect(() => parseSeriesId('m')).toThrow('not a series id: m');
  });

  it('writes a flow series with Beyla\'s default attributes in ascending order, zones only when selected', () => {
    const request = flow('10.0.0.1:9090', 'request', client, server, 1);
    expect(Object.keys(parseSeriesId(flowSeriesId(FLOW_METRIC, request, 'c1', false)).labels)).toEqual([
      'direction', 'instance', 'k8s_cluster_name', 'k8s_dst_namespace', 'k8s_dst_owner_name', 'k8s_dst_owner_type', 'k8s_src_namespace', 'k8s_src_owner_name', 'k8s_src_owner_type',
    ]);
    const withZones = parseSeriesId(flowSeriesId(FLOW_METRIC, request, 'c1', true));
    expect(Object.keys(withZones.labels)).toEqual([
      'direction', 'dst_zone', 'instance', 'k8s_cluster_name', 'k8s_dst_namespace', 'k8s_dst_owner_name', 'k8s_dst_owner_type', 'k8s_src_namespace', 'k8s_src_owner_name', 'k8s_src_owner_type', 'src_zone',
    ]);
    expect(withZones.labels).toMatchObject({ direction: 'request', src_zone: 'zone-a', dst_zone: 'zone-b', k8s_src_owner_name: 'loadgen', k8s_dst_owner_name: 'cart', instance: '10.0.0.1:9090' });
    // The same text as the generic writer gives for those labels.
    expect(flowSeriesId(FLOW_METRIC, request, 'c1', true)).toBe(seriesId(FLOW_METRIC, Object.entries(withZones.labels)));
  });
});

describe('flowSeriesParts', () => {
  const flows = [
    flow('10.0.0.1:9090', 'request', client, server, 10),
    flow('10.0.0.1:9090', 'response', server, client, 30),
    flow('10.0.0.2:9090', 'request', client, server, 10),
    flow('10.0.0.2:9090', 'response', server, client, 30),
    // Same zones (no inter-zone bytes), and a Service end (no zone).
    flow('10.0.0.1:9090', 'request', client, { ...server, zone: 'zone-a' }, 5),
    flow('10.0.0.1:9090', 'request', client, { namespace: 'shop', ownerName: 'cart', ownerType: 'Service', zone: '' }, 15),
  ];

  it('sums flows with the same labels: without zones, the two cells of an agent are one series', () => {
    const parts = flowSeriesParts(flows, 'c1', options).filter((p) => p.metric === FLOW_METRIC);
    const byId = new Map(parts.map((p) => [p.id, p.bytesPerSecond]));
    expect(byId.get(flowSeriesId(FLOW_METRIC, flows[0] as AgentFlow, 'c1', false))).toBe(15);
    expect(parts).toHaveLength(5);
    expect(flowSeriesParts(flows, 'c1', { ...options, flowZoneLabels: true }).filter((p) => p.metric === FLOW_METRIC)).toHaveLength(6);
  });

  it('counts inter-zone bytes per agent and zone pair, only between two different known zones', () => {
    const interZone = flowSeriesParts(flows, 'c1', options).filter((p) => p.metric === INTER_ZONE_METRIC);
    expect(interZone.map((p) => [parseSeriesId(p.id).labels, p.bytesPerSecond])).toEqual([
      [{ dst_zone: 'zone-b', instance: '10.0.0.1:9090', k8s_cluster_name: 'c1', src_zone: 'zone-a' }, 10],
      [{ dst_zone: 'zone-a', instance: '10.0.0.1:9090', k8s_cluster_name: 'c1', src_zone: 'zone-b' }, 30],
      [{ dst_zone: 'zone-b', instance: '10.0.0.2:9090', k8s_cluster_name: 'c1', src_zone: 'zone-a' }, 10],
      [{ dst_zone: 'zone-a', instance: '10.0.0.2:9090', k8s_cluster_name: 'c1', src_zone: 'zone-b' }, 30],
    ]);
    expect(flowSeriesParts(flows, 'c1', { ...options, interZone: false }).some((p) => p.metric === INTER_ZONE_METRIC)).toBe(false);
  });

  it('names the metrics after the exporter', () => {
    const obi = flowSeriesParts(flows, 'c1', { ...options, exporter: 'obi' });
    expect(new Set(obi.map((p) => p.metric))).toEqual(new Set(['obi_network_flow_bytes_total', 'obi_network_inter_zone_bytes_total']));
    expect(metricOrder({ ...options, exporter: 'obi' })).toEqual(['obi_network_flow_bytes_total', 'obi_network_inter_zone_bytes_total', POD_RECEIVE_METRIC, POD_TRANSMIT_METRIC]);
  });
});

describe('podSeriesParts', () => {
  const uid = '0b6c1f4e-8a2d-4c47-9d3e-2f1a5b7c9e01';
  const pods: PodNetwork[] = [
    { namespace: 'shop', pod: 'cart-1', uid, kubelet: '10.0.0.1:10250', hostNetwork: false, rxBytesPerSecond: 10, txBytesPerSecond: 30 },
    { namespace: 'shop', pod: 'cart-2', uid: 'u2', kubelet: '10.0.0.1:10250', hostNetwork: false, rxBytesPerSecond: 1, txBytesPerSecond: 3 },
    { namespace: 'shop', pod: 'agent', uid: 'u3', kubelet: '10.0.0.1:10250', hostNetwork: true, rxBytesPerSecond: 100, txBytesPerSecond: 300 },
    { namespace: 'shop', pod: 'cart-3', uid: 'u4', kubelet: '10.0.0.2:10250', hostNetwork: false, rxBytesPerSecond: 2, txBytesPerSecond: 6 },
  ];
  const parts = podSeriesParts(pods);
  const find = (metric: string, match: Record<string, string>) => parts.filter((p) => p.metric === metric && Object.entries(match).every(([k, v]) => parseSeriesId(p.id).labels[k] === v));

  it('exports each pod\'s bytes on its sandbox series only, labelled as the kubelet labels a containerd pause container', () => {
    const [sandbox] = find(POD_RECEIVE_METRIC, { pod: 'cart-1' });
    const id = sandboxId('shop', 'cart-1', uid);
    expect(id).toMatch(/^[0-9a-f]{64}$/);
    expect(parseSeriesId(sandbox?.id ?? '').labels).toEqual({
      container: '',
      id: `/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod0b6c1f4e_8a2d_4c47_9d3e_2f1a5b7c9e01.slice/cri-containerd-${id}.scope`,
      image: 'registry.k8s.io/pause:3.10',
      instance: '10.0.0.1:10250',
      interface: 'eth0',
      name: id,
      namespace: 'shop',
      pod: 'cart-1',
    });
    expect(sandbox?.bytesPerSecond).toBe(10);
    expect(find(POD_TRANSMIT_METRIC, { pod: 'cart-1' })[0]?.bytesPerSecond).toBe(30);
    expect(sandboxId('shop', 'cart-1', uid)).toBe(id);
    expect(sandboxId('shop', 'cart-2', uid)).not.toBe(id);
  });

  it('adds one root-cgroup series per node on the host interface with the node\'s total; a hostNetwork pod\'s sandbox repeats it', () => {
    const roots = find(POD_RECEIVE_METRIC, { id: '/' });
    expect(roots.map((p) => [parseSeriesId(p.id).labels, p.bytesPerSecond])).toEqual([
      [{ id: '/', instance: '10.0.0.1:10250', interface: 'ens5' }, 111],
      [{ id: '/', instance: '10.0.0.2:10250', interface: 'ens5' }, 2],
    ]);
    const [host] = find(POD_RECEIVE_METRIC, { pod: 'agent' });
    expect(parseSeriesId(host?.id ?? '').labels.interface).toBe('ens5');
    expect(host?.bytesPerSecond).toBe(0);
    expect(host?.mirrors).toBe(roots[0]?.id);
  });
});
