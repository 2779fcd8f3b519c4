/**
 * The traffic model's series as the exporters would ship them, read straight from
 * {@link SimTrafficMetrics} over a store (no HTTP): per-node agents (the client-side agent reports
 * a whole cell, the server-side one its cross-node part), request and response series swapped,
 * Service-typed duplicates on kube-proxy only, per-agent inter-zone bytes, hostNetwork pods named
 * by their Node, and the option switches keeping the counters monotonic. The same over HTTP and
 * through a real Prometheus: traffic-metrics.int.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { versionInfo } from '../discovery';
import { loadScenario, scenarioEntries } from '../scenario';
import { ObjectStore } from '../store';
import type { KubeObject } from '../types';
import { FLOW_METRIC, INTER_ZONE_METRIC } from './beyla-series';
import { POD_RECEIVE_METRIC } from './cadvisor-series';
import { SimTrafficMetrics } from './counters';
import type { TrafficMetricsOptions } from './exporter-options';
import { seriesId } from './exposition';
import { trafficProfileFor } from './profile';
import type { SeriesRate, ServiceTrafficRates, TrafficRatesDocument } from './rates';
import { LOADGEN_WORKLOAD, REPLY_FACTOR } from './service-traffic';

const START = Date.parse('2026-12-01T10:00:00Z');

/** The default flow labels of Beyla in Kubernetes, plus the agent's `instance`. */
const DEFAULT_FLOW_LABELS = ['direction', 'instance', 'k8s_cluster_name', 'k8s_dst_namespace', 'k8s_dst_owner_name', 'k8s_dst_owner_type', 'k8s_src_namespace', 'k8s_src_owner_name', 'k8s_src_owner_type'];

function metricsOver(objects: readonly KubeObject[], trafficMetrics: Partial<TrafficMetricsOptions> = {}): { metrics: SimTrafficMetrics; advance: (seconds: number) => void } {
  let ms = START;
  const now = () => new Date(ms);
  const store = new ObjectStore({ now });
  store.replaceAll(scenarioEntries(objects));
  const metrics = new SimTrafficMetrics(store, { profile: trafficProfileFor(objects), version: versionInfo('v1.31.4'), now, trafficMetrics });
  return { metrics, advance: (seconds) => (ms += seconds * 1000) };
}

async function scenario(name: string): Promise<KubeObject[]> {
  return [...(await loadScenario(name)).objects];
}

function near(actual: number, expected: number, what: string): void {
  expect(Math.abs(actual - expected), `${what}: ${actual} vs ${expected}`).toBeLessThanOrEqual(Math.max(1e-9, Math.abs(expected) * 1e-9));
}

const sum = (list: readonly SeriesRate[]): number => list.reduce((total, s) => total + s.bytesPerSecond, 0);
const flows = (document: TrafficRatesDocument): SeriesRate[] => (document.series ?? []).filter((s) => s.metric === document.metrics.flows);

/** The request series of a Service's workloads (every agent). */
function workloadRequests(document: TrafficRatesDocument, service: ServiceTrafficRates): SeriesRate[] {
  return flows(document).filter(
    (s) => s.labels.direction === 'request' && s.labels.k8s_src_owner_name === LOADGEN_WORKLOAD && s.labels.k8s_src_namespace === service.namespace &&
      s.labels.k8s_dst_owner_type !== 'Service' && service.workloads.some((w) => w.kind === s.labels.k8s_dst_owner_type && w.name === s.labels.k8s_dst_owner_name),
  );
}

/** Node name → zone and InternalIP, from the scenario. */
function nodesOf(objects: readonly KubeObject[]): Map<string, { zone: string; agent: string; cpu: number }> {
  const nodes = new Map<string, { zone: string; agent: string; cpu: number }>();
  for (const node of objects.filter((o) => o.kind === 'Node')) {
    const status = node.status as { addresses: { type: string; address: string }[]; allocatable: { cpu: string } };
    const ip = status.addresses.find((a) => a.type === 'InternalIP')?.address ?? node.metadata.name;
    nodes.set(node.metadata.name, { zone: node.metadata.labels?.['topology.kubernetes.io/zone'] ?? '', agent: `${ip}:9090`, cpu: Number.parseFloat(status.allocatable.cpu) });
  }
  return nodes;
}

describe('flow series on eks-demo (kube-proxy)', async () => {
  const objects = await scenario('eks-demo');
  const nodes = nodesOf(objects);

  it('carry exactly Beyla\'s default attributes and the agent by default, no zones', () => {
    const document = metricsOver(objects).metrics.rates();
    expect(document.options).toEqual({ flowZoneLabels: false, exporter: 'beyla', interZone: true });
    const series = flows(document);
    expect(series.length).toBeGreaterThan(0);
    for (const s of series) expect(Object.keys(s.labels), JSON.stringify(s.labels)).toEqual(DEFAULT_FLOW_LABELS);
    expect(new Set(series.map((s) => s.labels.instance))).toEqual(new Set([...nodes.values()].map((n) => n.agent)));
  });

  it('report each conversation as a request series and a response series with src and dst swapped, 3× the bytes', () => {
    const series = flows(metricsOver(objects, { flowZoneLabels: true }).metrics.rates());
    const swapped = (labels: Readonly<Record<string, string>>) => JSON.stringify({
      direction: 'response', dst_zone: labels.src_zone, instance: labels.instance, k8s_cluster_name: labels.k8s_cluster_name,
      k8s_dst_namespace: labels.k8s_src_namespace, k8s_dst_owner_name: labels.k8s_src_owner_name, k8s_dst_owner_type: labels.k8s_src_owner_type,
      k8s_src_namespace: labels.k8s_dst_namespace, k8s_src_owner_name: labels.k8s_dst_owner_name, k8s_src_owner_type: labels.k8s_dst_owner_type, src_zone: labels.dst_zone,
    });
    const responses = new Map(series.filter((s) => s.labels.direction === 'response').map((s) => [JSON.stringify(s.labels), s.bytesPerSecond]));
    const requests = series.filter((s) => s.labels.direction === 'request');
    expect(requests.length).toBe(responses.size);
    for (const request of requests) near(responses.get(swapped(request.labels)) ?? 0, request.bytesPerSecond * REPLY_FACTOR, `response of ${JSON.stringify(request.labels)}`);
  });

  it('are reported by the client-side agent for the whole cell and by the server-side agent for its cross-node part', () => {
    const document = metricsOver(objects, { flowZoneLabels: true }).metrics.rates();
    let cells = 0;
    let sameNodeCells = 0;
    for (const service of document.services.filter((s) => s.coverage === 'flows-and-pod-bytes')) {
      // Each Service here is the only one of its workload, so its series are its own.
      expect(document.services.filter((s) => s.workloads.some((w) => service.workloads.some((v) => v.name === w.name && v.kind === w.kind)) && s.namespace === service.namespace)).toHaveLength(1);
      const requests = workloadRequests(document, service);
      for (const pair of service.byZonePair) {
        cells++;
        const cell = requests.filter((s) => s.labels.src_zone === pair.clientZone && s.labels.dst_zone === pair.endpointZone);
        // The sameNodeFraction from first principles: Σₙ w(n)·q(n) within one zone, 0 across.
        const zonePods = service.pods.filter((p) => p.node !== null && nodes.get(p.node)?.zone === pair.endpointZone);
        const zoneRx = zonePods.reduce((t, p) => t + p.rxBytesPerSecond, 0);
        const zoneCpu = [...nodes.values()].filter((n) => n.zone === pair.clientZone).reduce((t, n) => t + n.cpu, 0);
        const expectedSameNode = pair.clientZone !== pair.endpointZone ? 0 : zonePods.reduce((t, p) => t + ((nodes.get(p.node ?? '')?.cpu ?? 0) / zoneCpu) * (p.rxBytesPerSecond / zoneRx), 0);
        near(pair.sameNodeFraction, expectedSameNode, `${service.name} ${pair.clientZone}→${pair.endpointZone} sameNodeFraction`);
        if (pair.sameNodeFraction > 0) sameNodeCells++;
        // Summed over agents: same-node bytes once, cross-node bytes twice.
        near(sum(cell), pair.requestBytesPerSecond * (2 - pair.sameNodeFraction), `${service.name} ${pair.clientZone}→${pair.endpointZone} over agents`);
        // The client-side agent sits in the client zone and has the whole cell; the server-side one is the busiest endpoint's node.
        expect(nodes.get([...nodes].find(([, n]) => n.agent === pair.clientAgent)?.[0] ?? '')?.zone).toBe(pair.clientZone);
        const busiest = [...zonePods].sort((a, b) => b.rxBytesPerSecond - a.rxBytesPerSecond || ((a.node ?? '') < (b.node ?? '') ? -1 : 1))[0];
        expect(pair.serverAgent).toBe(nodes.get(busiest?.node ?? '')?.agent);
        const byAgent = (agent: string | null) => sum(cell.filter((s) => s.labels.instance === agent));
        if (pair.clientAgent === pair.serverAgent) near(byAgent(pair.clientAgent), pair.requestBytesPerSecond * (2 - pair.sameNodeFraction), `${service.name} one agent`);
        else {
          near(byAgent(pair.clientAgent), pair.requestBytesPerSecond, `${service.name} client-side agent`);
          near(byAgent(pair.serverAgent), pair.requestBytesPerSecond * (1 - pair.sameNodeFraction), `${service.name} server-side agent`);
        }
      }
    }
    expect(cells).toBeGreaterThan(20);
    expect(sameNodeCells).toBeGreaterThan(5);
  });

  it('add Service-typed duplicates from the client-side agent for ClusterIP Services, not for headless ones', async () => {
    const headless = objects.map((o) => (o.kind === 'Service' && o.metadata.name === 'notifier' ? { ...o, spec: { ...(o.spec as object), clusterIP: 'None', clusterIPs: ['None'] } } : o));
    const document = metricsOver(headless, { flowZoneLabels: true }).metrics.rates();
    const serviceTyped = flows(document).filter((s) => s.labels.k8s_dst_owner_type === 'Service' || s.labels.k8s_src_owner_type === 'Service');
    for (const service of document.services.filter((s) => s.coverage === 'flows-and-pod-bytes')) {
      const mine = serviceTyped.filter((s) => s.labels.k8s_dst_namespace === service.namespace && (s.labels.k8s_dst_owner_name === service.name || s.labels.k8s_src_owner_name === service.name));
      expect(service.serviceTypedFlows, service.name).toBe(service.name !== 'notifier');
      if (service.name === 'notifier') {
        expect(mine).toEqual([]);
        continue;
      }
      for (const clientZone of new Set(service.byZonePair.map((p) => p.clientZone))) {
        const pairs = service.byZonePair.filter((p) => p.clientZone === clientZone);
        const request = mine.filter((s) => s.labels.direction === 'request' && s.labels.src_zone === clientZone);
        expect(request.map((s) => [s.labels.instance, s.labels.dst_zone, s.labels.k8s_dst_owner_type])).toEqual([[pairs[0]?.clientAgent, '', 'Service']]);
        near(sum(request), sum(pairs.map((p) => ({ metric: '', labels: {}, bytesPerSecond: p.requestBytesPerSecond }))), `${service.name} from ${clientZone} to the ClusterIP`);
        const response = mine.filter((s) => s.labels.direction === 'response' && s.labels.dst_zone === clientZone);
        expect(response.map((s) => [s.labels.src_zone, s.labels.k8s_src_owner_type, s.labels.k8s_dst_owner_name])).toEqual([['', 'Service', LOADGEN_WORKLOAD]]);
        near(sum(response), sum(request) * REPLY_FACTOR, `${service.name} from the ClusterIP to ${clientZone}`);
      }
    }
  });

  it('count inter-zone bytes per agent: its workload flows between two different zones', () => {
    const document = metricsOver(objects, { flowZoneLabels: true }).metrics.rates();
    const interZone = (document.series ?? []).filter((s) => s.metric === INTER_ZONE_METRIC);
    expect(Object.keys(interZone[0]?.labels ?? {})).toEqual(['dst_zone', 'instance', 'k8s_cluster_name', 'src_zone']);
    for (const s of interZone) {
      const seen = flows(document).filter((f) => f.labels.instance === s.labels.instance && f.labels.src_zone === s.labels.src_zone && f.labels.dst_zone === s.labels.dst_zone);
      near(s.bytesPerSecond, sum(seen), `inter-zone ${JSON.stringify(s.labels)}`);
    }
    // Every cross-zone byte has two agents (one per zone); the truth counts it once.
    near(sum(interZone), 2 * document.flowInterZoneBytesPerSecond, 'inter-zone over agents');
    near(document.interZoneBytesPerSecond, document.services.reduce((t, s) => t + s.crossZoneBytesPerSecond, 0), 'the cluster\'s inter-zone bytes');
    expect(document.interZoneBytesPerSecond).toBeGreaterThan(document.flowInterZoneBytesPerSecond);
  });
});

describe('flow series on cilium-kpr (kube-proxy replacement)', () => {
  it('have no Service-typed duplicates: Cilium translates the ClusterIP at connect()', async () => {
    const document = metricsOver(await scenario('cilium-kpr'), { flowZoneLabels: true }).metrics.rates();
    expect(document.services.map((s) => [s.name, s.serviceTypedFlows])).toEqual([['web', false]]);
    const series = flows(document);
    expect(series.length).toBeGreaterThan(0);
    expect(series.filter((s) => s.labels.k8s_dst_owner_type === 'Service' || s.labels.k8s_src_owner_type === 'Service')).toEqual([]);
  });
});

describe('hostNetwork endpoint pods', async () => {
  const base = await scenario('eks-demo');
  const objects = base.map((o) => (o.kind === 'Pod' && o.metadata.namespace === 'shop' && o.metadata.name.startsWith('cart-') ? { ...o, spec: { ...(o.spec as object), hostNetwork: true } } : o));
  const document = metricsOver(objects, { flowZoneLabels: true }).metrics.rates();
  const cart = document.services.find((s) => s.name === 'cart');

  it('are named by their Node, with no namespace, as Beyla resolves the node\'s IP', () => {
    expect(cart?.pods.every((p) => p.hostNetwork)).toBe(true);
    const cartNodes = new Set(cart?.pods.map((p) => p.node));
    expect(cart?.workloads).toEqual([...cartNodes].sort().map((name) => ({ kind: 'Node', name })));
    const requests = flows(document).filter((s) => s.labels.direction === 'request' && s.labels.k8s_dst_owner_type === 'Node');
    expect(new Set(requests.map((s) => s.labels.k8s_dst_owner_name))).toEqual(cartNodes);
    for (const s of requests) expect(s.labels.k8s_dst_namespace).toBe('');
    near(sum(requests), sum(workloadRequests(document, cart as ServiceTrafficRates)), 'cart requests');
    expect(flows(document).some((s) => s.labels.k8s_dst_owner_name === 'cart' && s.labels.k8s_dst_owner_type === 'Deployment')).toBe(false);
  });

  it('report the host interface and the node\'s total on their sandbox series, as cAdvisor does', () => {
    const podSeries = (document.series ?? []).filter((s) => s.metric === POD_RECEIVE_METRIC);
    for (const pod of cart?.pods ?? []) {
      const [sandbox] = podSeries.filter((s) => s.labels.pod === pod.pod);
      expect(sandbox?.labels).toMatchObject({ interface: 'ens5', container: '', image: 'registry.k8s.io/pause:3.10' });
      const root = podSeries.find((s) => s.labels.id === '/' && s.labels.instance === sandbox?.labels.instance);
      expect(sandbox?.bytesPerSecond).toBe(root?.bytesPerSecond);
      expect(sandbox?.bytesPerSecond).toBeGreaterThan(pod.rxBytesPerSecond);
    }
    // A root series holds its node's pods' bytes: their receive rates added up.
    const kubelets = new Set(podSeries.filter((s) => s.labels.id === '/').map((s) => s.labels.instance));
    expect(kubelets.size).toBeGreaterThan(1);
  });
});

describe('option switches', async () => {
  const objects = await scenario('eks-demo');

  it('rename the metrics for OBI', () => {
    const { metrics } = metricsOver(objects, { exporter: 'obi' });
    const document = metrics.rates();
    expect(document.metrics).toEqual({ flows: 'obi_network_flow_bytes_total', interZone: 'obi_network_inter_zone_bytes_total', podReceive: 'container_network_receive_bytes_total', podTransmit: 'container_network_transmit_bytes_total' });
    expect(Object.keys(document.seriesCount)).toEqual(['obi_network_flow_bytes_total', 'obi_network_inter_zone_bytes_total', 'container_network_receive_bytes_total', 'container_network_transmit_bytes_total']);
    expect(metrics.exposition()).not.toContain('beyla_');
    expect(metricsOver(objects, { interZone: false }).metrics.rates().seriesCount).toMatchObject({ [INTER_ZONE_METRIC]: 0 });
    expect(() => metrics.setOptions({ exporter: 'otel' as 'obi' })).toThrow('unknown flow exporter "otel" (beyla, obi)');
  });

  it('keep the counters monotonic: series that stay carry on, others stop, new ones start at 0', () => {
    const { metrics, advance } = metricsOver(objects);
    const values = () => new Map(metrics.exposition().split('\n').filter((l) => l !== '' && !l.startsWith('#')).map((l) => [l.slice(0, l.lastIndexOf(' ')), Number(l.slice(l.lastIndexOf(' ') + 1))]));
    advance(10);
    const before = values();
    expect(metrics.rates().series?.length).toBe(before.size);
    expect(metrics.setOptions({ flowZoneLabels: true })).toEqual({ flowZoneLabels: true, exporter: 'beyla', interZone: true });
    advance(5);
    const after = values();
    const document = metrics.rates();
    expect(document.series?.length).toBe(after.size);
    for (const s of document.series ?? []) {
      const value = after.get(seriesId(s.metric, Object.entries(s.labels))) ?? Number.NaN;
      if (s.metric === FLOW_METRIC) near(value, s.bytesPerSecond * 5, `new ${JSON.stringify(s.labels)}`);
      else near(value, s.bytesPerSecond * 15, `kept ${JSON.stringify(s.labels)}`);
    }
    for (const key of before.keys()) if (key.startsWith(FLOW_METRIC)) expect(after.has(key), key).toBe(false);
    // Back to Beyla's defaults: the zone-less flow series start again from 0.
    metrics.resetOptions();
    advance(2);
    const again = values();
    for (const [key, value] of again) if (key.startsWith(FLOW_METRIC)) expect(value).toBeLessThan((before.get(key) ?? Number.POSITIVE_INFINITY) / 4);
    expect(metrics.options).toEqual({ flowZoneLabels: false, exporter: 'beyla', interZone: true });
  });
});
