/**
 * The measured figures against a truth worked out pod by pod: five Services of a shop on six nodes
 * in three zones, traffic between pods, and the series Beyla's agents export for it as the upstream
 * code emits them (default attribute set plus `src.zone`/`dst.zone`, `direction`, one agent per
 * node that reports every flow touching its node — de-duplicated within the host only — and the
 * Service-addressed copies the client's agent sees before DNAT), summed over the agents as the
 * flow query does. zonescope must get each Service's GB and $ within 3 %, bill nobody for a
 * Service nobody calls, and agree with Beyla's own inter-zone counter.
 */
import { describe, expect, it } from 'vitest';

import { resolvePricing } from '../model/cloud-pricing';
import type { PodRecord } from '../model/cluster-model';
import { testCluster, testNode, testService, testSlice, testWorkload } from '../model/test-cluster';
import type { Endpoint } from '../upstream/types';
import type { FlowSeries, InterZoneSeries } from './measured-traffic';
import { measuredTrafficFromSeries } from './measured-traffic';
import { gbPerMonthOf } from './traffic-volume';

const NODES: Record<string, string> = { a1: 'zone-a', a2: 'zone-a', b1: 'zone-b', b2: 'zone-b', c1: 'zone-c', c2: 'zone-c' };

/** Where each workload's pods run. */
const PLACEMENT: Record<string, readonly string[]> = {
  frontend: ['a1', 'b1', 'c2'],
  catalog: ['a1', 'a2', 'b2', 'c1'],
  checkout: ['a2', 'b1'],
  cart: ['a1', 'b2', 'c2'],
  ledger: ['a2', 'c1'],
};

/** Who calls whom: request bytes/s per client pod, responses per request byte, and how kube-proxy picks (all endpoints, or the client's zone when it has one). */
const CALLS: readonly { readonly client: string; readonly server: string; readonly requestPerPod: number; readonly responseFactor: number; readonly pick: 'any' | 'zone' }[] = [
  { client: 'frontend', server: 'catalog', requestPerPod: 40_000, responseFactor: 10, pick: 'any' },
  { client: 'frontend', server: 'cart', requestPerPod: 20_000, responseFactor: 2, pick: 'any' },
  { client: 'frontend', server: 'checkout', requestPerPod: 15_000, responseFactor: 3, pick: 'any' },
  { client: 'cart', server: 'checkout', requestPerPod: 10_000, responseFactor: 1, pick: 'any' },
  { client: 'checkout', server: 'ledger', requestPerPod: 30_000, responseFactor: 2, pick: 'zone' },
];

/** Requests from outside the cluster (the load balancer) per frontend pod, and its responses per request byte. */
const EXTERNAL_PER_FRONTEND_POD = 50_000;
const EXTERNAL_RESPONSE_FACTOR = 4;

interface Pod {
  readonly workload: string;
  readonly name: string;
  readonly node: string;
  readonly zone: string;
}

const PODS: readonly Pod[] = Object.entries(PLACEMENT).flatMap(([workload, nodes]) => nodes.map((node, i) => ({ workload, name: `${workload}-${i}`, node, zone: NODES[node] as string })));

function cluster() {
  const built = Object.keys(PLACEMENT).map((workload) => {
    const endpoints: Endpoint[] = PODS.filter((p) => p.workload === workload).map((p, i) => ({ addresses: [`10.${Object.keys(PLACEMENT).indexOf(workload)}.0.${i + 1}`], zone: p.zone, nodeName: p.node, ready: true, hints: null, podName: p.name }));
    return { service: testService(workload, { namespace: 'shop' }), slice: testSlice(workload, endpoints, { namespace: 'shop' }), workload: testWorkload(workload, endpoints) };
  });
  const inShop = <T extends { namespace: string }>(items: readonly T[]): T[] => items.map((item) => ({ ...item, namespace: 'shop' }));
  return testCluster({
    nodes: Object.entries(NODES).map(([name, zone]) => testNode(name, zone, name === 'c1' ? '8' : '4')),
    services: built.map((b) => b.service),
    endpointSlices: built.map((b) => b.slice),
    pods: inShop(built.flatMap((b) => b.workload.pods)) as PodRecord[],
    replicaSets: inShop(built.flatMap((b) => b.workload.replicaSets)),
    deployments: inShop(built.flatMap((b) => b.workload.deployments)),
  });
}

/** The truth, each byte once, and what the agents export. */
function worked() {
  const truth = new Map<string, { bytes: number; cross: number; external: number }>(Object.keys(PLACEMENT).map((w) => [w, { bytes: 0, cross: 0, external: 0 }]));
  /** Flow series by label set, summed over the reporting agents (the flow query's `sum by`). */
  const flows = new Map<string, FlowSeries>();
  const interZone = new Map<string, InterZoneSeries>();
  let trueInterZone = 0;
  const add = (series: FlowSeries) => {
    const key = JSON.stringify({ ...series, bytesPerSecond: 0 });
    const found = flows.get(key);
    flows.set(key, found ? { ...found, bytesPerSecond: found.bytesPerSecond + series.bytesPerSecond } : series);
  };
  const addInterZone = (src: string, dst: string, bytes: number) => {
    const key = `${src}>${dst}`;
    interZone.set(key, { srcZone: src, dstZone: dst, bytesPerSecond: (interZone.get(key)?.bytesPerSecond ?? 0) + bytes });
  };
  /** One pod-to-pod conversation as every agent that sees it reports it. */
  const conversation = (client: Pod, server: Pod, requestBytes: number, responseBytes: number) => {
    const t = truth.get(server.workload) as { bytes: number; cross: number };
    t.bytes += requestBytes + responseBytes;
    const crossZone = client.zone !== server.zone;
    if (crossZone) {
      t.cross += requestBytes + responseBytes;
      trueInterZone += requestBytes + responseBytes;
    }
    const c = { zone: client.zone, namespace: 'shop', owner: client.workload, type: 'Deployment' };
    const s = { zone: server.zone, namespace: 'shop', owner: server.workload, type: 'Deployment' };
    const series = (from: typeof c, to: typeof c, direction: string, bytes: number): FlowSeries => ({
      srcZone: from.zone, srcNamespace: from.namespace, srcOwner: from.owner, srcOwnerType: from.type,
      dstZone: to.zone, dstNamespace: to.namespace, dstOwner: to.owner, dstOwnerType: to.type,
      direction, bytesPerSecond: bytes,
    });
    // Each node's agent reports what crosses its host's interfaces, once per host.
    for (const _agent of new Set([client.node, server.node])) {
      add(series(c, s, 'request', requestBytes));
      add(series(s, c, 'response', responseBytes));
      if (crossZone) {
        addInterZone(client.zone, server.zone, requestBytes);
        addInterZone(server.zone, client.zone, responseBytes);
      }
    }
    // The client's agent also sees the packets addressed to the ClusterIP, before DNAT.
    const service = { zone: '', namespace: 'shop', owner: server.workload, type: 'Service' };
    add(series(c, service, 'request', requestBytes));
    add(series(service, c, 'response', responseBytes));
  };
  for (const call of CALLS) {
    for (const client of PODS.filter((p) => p.workload === call.client)) {
      const servers = PODS.filter((p) => p.workload === call.server);
      const local = servers.filter((p) => p.zone === client.zone);
      const picked = call.pick === 'zone' && local.length > 0 ? local : servers;
      for (const server of picked) conversation(client, server, call.requestPerPod / picked.length, (call.requestPerPod * call.responseFactor) / picked.length);
    }
  }
  // The Internet → frontend: only the frontend pod's agent sees it; no metadata, no zone on the outside end.
  for (const pod of PODS.filter((p) => p.workload === 'frontend')) {
    (truth.get('frontend') as { external: number }).external += EXTERNAL_PER_FRONTEND_POD * (1 + EXTERNAL_RESPONSE_FACTOR);
    const outside = { zone: '', namespace: '', owner: '', type: '' };
    const inside = { zone: pod.zone, namespace: 'shop', owner: 'frontend', type: 'Deployment' };
    add({ srcZone: outside.zone, srcNamespace: '', srcOwner: '', srcOwnerType: '', dstZone: inside.zone, dstNamespace: 'shop', dstOwner: 'frontend', dstOwnerType: 'Deployment', direction: 'request', bytesPerSecond: EXTERNAL_PER_FRONTEND_POD });
    add({ srcZone: inside.zone, srcNamespace: 'shop', srcOwner: 'frontend', srcOwnerType: 'Deployment', dstZone: '', dstNamespace: '', dstOwner: '', dstOwnerType: '', direction: 'response', bytesPerSecond: EXTERNAL_PER_FRONTEND_POD * EXTERNAL_RESPONSE_FACTOR });
  }
  return { truth, flows: [...flows.values()], interZone: [...interZone.values()], trueInterZone };
}

const AWS = resolvePricing('eks', 'test', null);

describe('measured traffic against a truth worked out pod by pod', () => {
  const { truth, flows, interZone, trueInterZone } = worked();
  const measured = measuredTrafficFromSeries(
    { flows, podBytes: [], interZone, window: '7d', measuredAt: '2026-12-01T00:00:00Z', flowMetric: 'beyla_network_flow_bytes_total', podMetric: 'pod bytes' },
    cluster(),
  );
  const crossOf = (matrix: Readonly<Record<string, Readonly<Record<string, number>>>>) => {
    let cross = 0;
    for (const [client, row] of Object.entries(matrix)) for (const [zone, gb] of Object.entries(row)) if (zone !== client) cross += gb;
    return cross;
  };

  it.each(Object.keys(PLACEMENT).filter((w) => w !== 'frontend'))('%s: GB and $ per month within 3 % of the truth', (workload) => {
    const entry = measured.byService.get(`shop/${workload}`);
    const t = truth.get(workload) as { bytes: number; cross: number };
    expect(entry?.kind).toBe('measured-flows');
    expect(Math.abs((entry?.gbPerMonth ?? 0) / gbPerMonthOf(t.bytes) - 1)).toBeLessThan(0.03);
    const dollars = crossOf(entry?.matrix ?? {}) * AWS.costPerCrossZoneGb;
    expect(Math.abs(dollars / (gbPerMonthOf(t.cross) * AWS.costPerCrossZoneGb) - 1)).toBeLessThan(0.03);
  });

  it('frontend, which no Service of the cluster calls, is not billed: 0 GB in the cluster, its Internet traffic apart', () => {
    const frontend = measured.byService.get('shop/frontend');
    expect(frontend).toMatchObject({ kind: 'measured-flows', gbPerMonth: 0 });
    expect(frontend?.externalGbPerMonth).toBeCloseTo(gbPerMonthOf((truth.get('frontend') as { external: number }).external), 6);
  });

  it('the cluster total and Beyla\'s own inter-zone counter (each byte once) agree with the truth', () => {
    let total = 0;
    let cross = 0;
    for (const entry of measured.byService.values()) {
      total += entry.gbPerMonth;
      cross += crossOf(entry.matrix ?? {});
    }
    const trueTotal = [...truth.values()].reduce((sum, t) => sum + t.bytes, 0);
    expect(Math.abs(total / gbPerMonthOf(trueTotal) - 1)).toBeLessThan(0.03);
    expect(Math.abs(cross / gbPerMonthOf(trueInterZone) - 1)).toBeLessThan(0.03);
    expect(measured.interZoneGbPerMonth).toBeCloseTo(gbPerMonthOf(trueInterZone), 6);
    expect(measured.reconciliation?.agrees).toBe(true);
    expect(measured.quality.serviceAddressedBytesPerSecond).toBeGreaterThan(0);
  });

  it('summing the agents without de-duplication would have been far off (the mistake this guards against)', () => {
    const naive = flows.filter((f) => f.srcOwnerType !== 'Service' && f.dstOwnerType !== 'Service' && f.srcZone !== '' && f.dstZone !== '').reduce((sum, f) => sum + f.bytesPerSecond, 0);
    const trueInCluster = [...truth.values()].reduce((sum, t) => sum + t.bytes, 0);
    expect(naive / trueInCluster).toBeGreaterThan(1.5);
  });
});
