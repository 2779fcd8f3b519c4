import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import type { FixedState, FixInput } from './fixes';
import { autoStateOf, findFixes, fixAfterMatrix } from './fixes';
import { runHintsEngine } from './hints-engine';
import { determineMechanism, topologyAnnotationChange } from './service-mechanism';
import type { TrafficClientZone } from './traffic';
import { computeTrafficFigures } from './traffic';
import { groupTrafficEndpoints } from './traffic-figures-memo';
import { buildClusterContext } from '../model/cluster-context';
import { indexCluster } from '../model/cluster-model';
import { testNode, testService, testSlice, testSnapshot } from '../model/test-cluster';
import type { Endpoint } from '../upstream/types';

// Uneven zones (CPU 12 / 4 / 2 / 6): small Services cannot be allocated, so a fix adds endpoints.
const NODES = [testNode('node-a-1', 'zone-a', '12'), testNode('node-b-1', 'zone-b'), testNode('node-c-1', 'zone-c', '2'), testNode('node-d-1', 'zone-d', '6')];

const caseArb = fc.record({
  minor: fc.constantFrom(26, 29, 31, 33, 35),
  zones: fc.array(fc.constantFrom('zone-a', 'zone-a', 'zone-b', 'zone-c', 'zone-d'), { minLength: 1, maxLength: 14 }),
  notReady: fc.array(fc.constantFrom('zone-a', 'zone-b'), { maxLength: 2 }),
  slices: fc.integer({ min: 1, max: 2 }),
});

describe('findFixes with the Auto runs of added endpoints worked out in one walk', () => {
  it('finds the same fixes, with the same traffic after them, as with the engine', () => {
    let lean = 0;
    fc.assert(
      fc.property(caseArb, ({ minor, zones, notReady, slices: sliceCount }) => {
        const endpoints: Endpoint[] = [
          ...zones.map((zone, i) => ({ addresses: [`10.4.0.${i}`], zone, nodeName: null, ready: true, hints: null })),
          ...notReady.map((zone, i) => ({ addresses: [`10.4.1.${i}`], zone, nodeName: null, ready: false, hints: null })),
        ];
        const lists: Endpoint[][] = Array.from({ length: sliceCount }, () => []);
        endpoints.forEach((e, i) => (lists[i % sliceCount] as Endpoint[]).push(e));
        const service = testService('web');
        const slices = lists.map((list, i) => testSlice('web', list, { name: `web-${i}` }));
        const context = buildClusterContext(indexCluster(testSnapshot({ version: { gitVersion: `v1.${minor}.1`, minor, platform: null }, nodes: NODES, services: [service], endpointSlices: slices })));
        const change = topologyAnnotationChange(service.annotations, minor, true);
        const ifAutoResult = runHintsEngine({ serviceKey: 'default/web', annotations: change.annotations, trafficDistribution: null, addressType: 'IPv4', unchanged: slices, cpuRatiosByZone: context.cpuRatiosByZone, minor, gates: context.gates, topologyCacheEnabled: context.topologyCacheEnabled });
        const clients: TrafficClientZone[] = [...context.clientNodesByZone].map(([zone, nodes]) => ({ zone, share: context.clientShareByZone[zone] ?? 0, nodes: nodes.map((node) => ({ weight: node.cpuMilli, proxyNode: node.proxyNode })) }));
        let grouped = 0;
        const trafficAfter = (state: FixedState) => {
          if (state.grouped !== undefined) grouped++;
          const groups = state.grouped ?? groupTrafficEndpoints(state.slices, context.nodeZoneByName, true);
          const service = { internalTrafficPolicy: 'Cluster' as const, externalTrafficPolicy: 'Cluster' as const, externallyAccessible: false, hintsAnnotation: 'Auto' };
          return computeTrafficFigures({ endpoints: groups.endpoints, counts: groups.counts, service, release: context.proxyRelease, clients, honoursHints: true, proxied: true, uniqueEndpoints: true });
        };
        const input: FixInput = {
          context,
          service,
          mechanism: determineMechanism(service, minor, context.gates, context.topologyCacheEnabled),
          addressType: 'IPv4',
          managedSlices: slices,
          expectedHintsEnabled: false,
          ifAutoResult,
          workload: null,
          trafficAfter,
          autoState: ifAutoResult.hintsEnabled ? autoStateOf(ifAutoResult, trafficAfter({ annotations: change.annotations, gatesOn: false, slices: ifAutoResult.slices })) : null,
        };
        const reference = findFixes({ ...input, leanRuns: false });
        const found = findFixes(input);
        expect(JSON.stringify(found)).toBe(JSON.stringify(reference));
        expect(JSON.stringify(found.map(fixAfterMatrix))).toBe(JSON.stringify(reference.map(fixAfterMatrix)));
        if (grouped > 0) lean++;
      }),
      { numRuns: 200, seed: 3 },
    );
    // Most of these Services are too small for Auto: their fix adds endpoints, on the walk.
    expect(lean).toBeGreaterThan(50);
  });
});
