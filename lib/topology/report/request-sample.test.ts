/**
 * The "N requests from a client in zone X" samples use exactly the selection the Service's traffic
 * matrices were computed with, in every scenario: per node, weighted by CPU as the model weights
 * clients, the expected answers per endpoint zone add up to each matrix row, and the zone's
 * representative node reports the model's selection (mode, message, endpoints).
 */
import { describe, expect, it } from 'vitest';

import { representativeNode, requestSampleScenarios, sampleRequests } from '../analyses/request-sample';
import { TRAFFIC_SCENARIOS } from '../analyses/traffic-scenarios';
import type { ClusterIndex } from '../model/cluster-model';
import { testCluster, testEndpoint, testEndpoints, testNode, testService, testSlice } from '../model/test-cluster';
import { prepareAnalysis } from './prepared-analysis';
import { analyzeService } from './service-detail';
import { AUTO, publicCases } from './test-public-cases';

/** The value, or a test failure naming what is missing. */
function must<T>(value: T | null | undefined, what = 'value'): T {
  if (value === null || value === undefined) throw new Error(`missing ${what}`);
  return value;
}


const TWO_NODES_PER_ZONE = ['a', 'b', 'c'].flatMap((z) => [testNode(`node-${z}`, `zone-${z}`, '4'), testNode(`node-${z}2`, `zone-${z}`, z === 'a' ? '8' : '2')]);

const clusters: [string, ClusterIndex, readonly string[]][] = [
  ['public cases (Auto, no hints written yet)', publicCases(), ['web', 'api', 'two']],
  [
    '5/1/1 with Auto hints written, 1.31',
    testCluster({
      version: { gitVersion: 'v1.31.2', minor: 31, platform: null },
      nodes: TWO_NODES_PER_ZONE,
      services: [testService('ledger', { annotations: AUTO }), testService('plain')],
      endpointSlices: [
        testSlice('ledger', [
          ...testEndpoints({ 'zone-a': 5 }, { service: 'ledger', hinted: true }),
          testEndpoint('10.0.1.1', 'zone-b', { forZones: ['zone-b'] }, { podName: 'ledger-b-1' }),
          testEndpoint('10.0.2.1', 'zone-c', { forZones: ['zone-c'] }, { podName: 'ledger-c-1' }),
        ]),
        testSlice('plain', testEndpoints({ 'zone-a': 2, 'zone-b': 2, 'zone-c': 2 }, { service: 'plain', hinted: true })),
      ],
    }),
    ['ledger', 'plain'],
  ],
  [
    'internalTrafficPolicy Local and headless',
    testCluster({
      nodes: TWO_NODES_PER_ZONE,
      services: [testService('local', { internalTrafficPolicy: 'Local', annotations: AUTO }), testService('headless', { clusterIP: 'None', annotations: AUTO })],
      endpointSlices: [
        testSlice('local', testEndpoints({ 'zone-a': 2, 'zone-b': 1 }, { service: 'local' })),
        testSlice('headless', testEndpoints({ 'zone-a': 2, 'zone-b': 2, 'zone-c': 2 }, { service: 'headless', hinted: true })),
      ],
    }),
    ['local', 'headless'],
  ],
  [
    'PreferSameNode node hints, 1.34',
    testCluster({
      version: { gitVersion: 'v1.34.1', minor: 34, platform: null },
      nodes: TWO_NODES_PER_ZONE,
      services: [testService('node-local', { trafficDistribution: 'PreferSameNode' })],
      endpointSlices: [
        testSlice('node-local', [
          testEndpoint('10.0.0.1', 'zone-a', { forZones: ['zone-a'], forNodes: ['node-a'] }, { podName: 'nl-a' }),
          testEndpoint('10.0.1.1', 'zone-b', { forZones: ['zone-b'], forNodes: ['node-b'] }, { podName: 'nl-b' }),
          testEndpoint('10.0.2.1', 'zone-c', { forZones: ['zone-c'], forNodes: ['node-c'] }, { podName: 'nl-c' }),
        ]),
      ],
    }),
    ['node-local'],
  ],
  [
    'Cilium without service topology (hints ignored)',
    publicCases({ cni: { cilium: { kubeProxyReplacement: 'true', serviceTopology: false, source: 'kube-system/cilium-config' }, calico: null, awsVpcCni: false } }),
    ['web', 'api'],
  ],
];

describe('request samples select as the traffic matrices do', () => {
  it.each(clusters)('%s', (_label, index, names) => {
    const prepared = prepareAnalysis(index);
    const { context, dataplane } = prepared;
    let checked = 0;
    for (const name of names) {
      const detail = analyzeService(index, 'default', name);
      const service = context.index.servicesByKey.get(`default/${name}`);
      if (!detail || !service) throw new Error(`no Service ${name}`);
      const scenarios = requestSampleScenarios(context, dataplane, service, context.index.slicesByService.get(`default/${name}`) ?? []);
      for (const scenario of TRAFFIC_SCENARIOS) {
        const matrix = detail.trafficMatrix[scenario];
        const input = scenarios[scenario];
        for (const client of prepared.clients) {
          const total = client.nodes.reduce((s, n) => s + n.weight, 0);
          // Every node of the zone, weighted by CPU: the matrix row and the dropped share.
          const row: Record<string, number> = {};
          let dropped = 0;
          for (const n of client.nodes) {
            const s = sampleRequests({ ...input, clientNode: n.proxyNode, count: 100, seed: 1 });
            const w = n.weight / total;
            if (s.dropped > 0) dropped += w;
            for (const z of s.byZone) row[z.zone] = (row[z.zone] ?? 0) + (w * z.expected) / 100;
          }
          const zones = new Set([...Object.keys(row), ...Object.keys(matrix.matrix[client.zone] ?? {})]);
          for (const zone of zones) expect(row[zone] ?? 0, `${name} ${scenario} ${client.zone}→${zone}`).toBeCloseTo((matrix.matrix[client.zone]?.[zone] ?? 0) / client.share, 12);
          expect(dropped, `${name} ${scenario} ${client.zone} dropped`).toBeCloseTo((matrix.droppedByZone[client.zone] ?? 0) / client.share, 12);
          // The zone's representative node: the model's selection text.
          const rep = representativeNode(client.nodes, input);
          const s = sampleRequests({ ...input, clientNode: must(rep).proxyNode, count: 100, seed: 1 });
          const selection = must(matrix.selectionByZone.find((z) => z.zone === client.zone));
          expect({ mode: s.selection.mode, message: s.selection.message, selected: s.selection.selectedEndpoints }, `${name} ${scenario} ${client.zone}`).toEqual({
            mode: selection.mode,
            message: selection.message,
            selected: selection.selectedEndpoints,
          });
          checked++;
        }
      }
    }
    expect(checked).toBe(names.length * TRAFFIC_SCENARIOS.length * prepared.clients.length);
  });

  it('after sync differs from now when the controller has hints to write: Auto on 3/3/3 without hints yet', () => {
    const index = testCluster({ services: [testService('fresh', { annotations: AUTO })], endpointSlices: [testSlice('fresh', testEndpoints({ 'zone-a': 3, 'zone-b': 3, 'zone-c': 3 }, { service: 'fresh' }))] });
    const prepared = prepareAnalysis(index);
    const service = must(prepared.context.index.servicesByKey.get('default/fresh'));
    const scenarios = requestSampleScenarios(prepared.context, prepared.dataplane, service, prepared.context.index.slicesByService.get('default/fresh') ?? []);
    const nodeA = must(must(prepared.clients.find((c) => c.zone === 'zone-a')).nodes[0]).proxyNode;
    const now = sampleRequests({ ...scenarios.now, clientNode: nodeA, count: 100, seed: 1 });
    const expected = sampleRequests({ ...scenarios.expected, clientNode: nodeA, count: 100, seed: 1 });
    expect(now.selection.summary).toBe('no topology: all 9 ready endpoints');
    expect(expected.selection.summary).toBe('hints for zone zone-a: 3 of 9 ready endpoints');
    expect(expected.byZone.every((z) => z.sameZone)).toBe(true);
  });
});
