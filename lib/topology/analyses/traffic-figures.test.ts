import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import type { ProxyServicePort } from '../upstream/proxy-service-port';
import type { TrafficClientZone, TrafficInput } from './traffic';
import { computeTrafficFigures, computeTrafficMatrix, toTrafficEndpoints } from './traffic';
import { groupSliceList, groupTrafficEndpoints, sharedGroupedFigures, trafficFiguresKey } from './traffic-figures-memo';
import type { Endpoint, EndpointSlice } from '../upstream/types';
import { defaultFeatureGates } from '../upstream/version';

const release = { minor: 33, gates: defaultFeatureGates(33) };
const ZONES = ['a', 'b', 'c'];
const clients: TrafficClientZone[] = ZONES.map((zone, i) => ({
  zone,
  share: [0.5, 0.2, 0.3][i] as number,
  nodes: [1, 2].map((n) => ({ weight: n, proxyNode: { name: `node-${zone}-${n}`, labels: { 'topology.kubernetes.io/zone': zone } } })),
}));
const nodeZoneByName = new Map(ZONES.flatMap((zone) => [1, 2].map((n) => [`node-${zone}-${n}`, zone] as const)));

const endpointArb = fc.record({
  address: fc.integer({ min: 1, max: 12 }).map((n) => `10.0.0.${n}`),
  zone: fc.constantFrom<string | null>('a', 'b', 'c', null, ''),
  node: fc.constantFrom('node-a-1', 'node-a-2', 'node-b-1', 'node-c-2'),
  ready: fc.constantFrom<boolean | null>(true, true, false, null),
  serving: fc.constantFrom<boolean | null>(true, false, null),
  terminating: fc.constantFrom<boolean | null>(false, true, null),
  hints: fc.constantFrom<Endpoint['hints']>(null, { forZones: ['a'] }, { forZones: ['b'] }, { forZones: ['c'] }, { forZones: ['a', 'c'] }, { forZones: [] }),
});
const slicesArb = fc.array(fc.array(endpointArb, { maxLength: 8 }), { minLength: 1, maxLength: 3 }).map((slices): EndpointSlice[] =>
  slices.map((endpoints) => ({
    endpoints: endpoints.map((e) => ({ addresses: [e.address], zone: e.zone, nodeName: e.node, ready: e.ready, serving: e.serving, terminating: e.terminating, hints: e.hints })),
  })),
);
const serviceArb = fc.record({
  internalTrafficPolicy: fc.constantFrom<'Cluster' | 'Local'>('Cluster', 'Cluster', 'Local'),
  externalTrafficPolicy: fc.constantFrom<'Cluster' | 'Local'>('Cluster', 'Local'),
  externallyAccessible: fc.boolean(),
  hintsAnnotation: fc.constantFrom('', 'Auto', 'Disabled'),
});

function input(slices: readonly EndpointSlice[], service: ProxyServicePort, honoursHints: boolean, proxied: boolean): TrafficInput {
  return { endpoints: toTrafficEndpoints(slices, nodeZoneByName), service, release, clients, honoursHints, proxied, uniqueEndpoints: true };
}

describe('computeTrafficFigures: the figures of computeTrafficMatrix without the load list', () => {
  it('equals the matrix figures, by position or by string', () => {
    fc.assert(
      fc.property(slicesArb, serviceArb, fc.boolean(), fc.boolean(), (slices, service, honoursHints, proxied) => {
        const byPosition = input(slices, service, honoursHints, proxied);
        const matrix = computeTrafficMatrix({ ...byPosition, uniqueEndpoints: false });
        const figures = computeTrafficFigures(byPosition);
        expect(computeTrafficMatrix(byPosition)).toEqual(matrix);
        expect(figures).toEqual({
          clientShareByZone: matrix.clientShareByZone,
          droppedFraction: matrix.droppedFraction,
          crossZoneFraction: matrix.crossZoneFraction,
          maxRelativeLoad: matrix.maxRelativeLoad,
          selectionByZone: matrix.selectionByZone,
          loadedEndpoints: matrix.endpointLoads.length,
          matrix: matrix.matrix,
        });
      }),
      { numRuns: 300 },
    );
  });
});

describe('trafficFiguresKey: same key, same figures', () => {
  it('gives equal figures for inputs with equal keys (and no key when node names matter)', () => {
    fc.assert(
      fc.property(slicesArb, slicesArb, serviceArb, fc.boolean(), (a, b, service, honoursHints) => {
        const keyA = trafficFiguresKey(a, nodeZoneByName, { service, honoursHints, proxied: true });
        const keyB = trafficFiguresKey(b, nodeZoneByName, { service, honoursHints, proxied: true });
        if (service.internalTrafficPolicy === 'Local') expect(keyA).toBeNull();
        if (keyA !== null && keyA === keyB) {
          expect(computeTrafficFigures(input(a, service, honoursHints, true))).toEqual(computeTrafficFigures(input(b, service, honoursHints, true)));
        }
      }),
      { numRuns: 300 },
    );
  });

  it('ignores addresses and node names, not zones, hints or conditions', () => {
    const service: ProxyServicePort = { internalTrafficPolicy: 'Cluster', externalTrafficPolicy: 'Cluster', externallyAccessible: false, hintsAnnotation: 'Auto' };
    const slice = (address: string, node: string, extra: Partial<Endpoint> = {}): EndpointSlice[] => [
      { endpoints: [{ addresses: [address], zone: 'a', nodeName: node, ready: true, hints: { forZones: ['a'] }, ...extra }] },
    ];
    const key = (slices: EndpointSlice[]) => trafficFiguresKey(slices, nodeZoneByName, { service, honoursHints: true, proxied: true });
    expect(key(slice('10.0.0.1', 'node-a-1'))).toBe(key(slice('10.9.9.9', 'node-a-2')));
    expect(key(slice('10.0.0.1', 'node-a-1'))).not.toBe(key(slice('10.0.0.1', 'node-a-1', { zone: 'b' })));
    expect(key(slice('10.0.0.1', 'node-a-1'))).not.toBe(key(slice('10.0.0.1', 'node-a-1', { hints: { forZones: ['b'] } })));
    expect(key(slice('10.0.0.1', 'node-a-1'))).not.toBe(key(slice('10.0.0.1', 'node-a-1', { ready: false })));
    expect(key(slice('10.0.0.1', 'node-a-1', { hints: { forNodes: ['node-a-1'] } }))).toBeNull();
  });

  it('shares one figures object per key, clients and release, and keeps the last two client sets', () => {
    const service: ProxyServicePort = { internalTrafficPolicy: 'Cluster', externalTrafficPolicy: 'Cluster', externallyAccessible: false, hintsAnnotation: 'Auto' };
    const slices: EndpointSlice[] = [{ endpoints: ['a', 'b', 'b'].map((zone, i) => ({ addresses: [`10.0.5.${i}`], zone, nodeName: null, ready: true, hints: { forZones: [zone] } })) }];
    const { endpoints: _endpoints, ...settings } = input(slices, service, true, true);
    const grouped = groupTrafficEndpoints(slices, nodeZoneByName);
    // Another grouped object with the same groups (another Service of the shape): the same figures.
    const again = groupTrafficEndpoints(slices, nodeZoneByName);
    const first = sharedGroupedFigures(settings, grouped);
    expect(first).not.toBeNull();
    expect(sharedGroupedFigures(settings, grouped)).toBe(first);
    expect(sharedGroupedFigures(settings, again)).toBe(first);
    // Other clients: other figures; the first ones are still there for their clients.
    const other = clients.map((client, i) => ({ ...client, share: [0.2, 0.5, 0.3][i] as number }));
    const second = sharedGroupedFigures({ ...settings, clients: other }, grouped);
    expect(second).not.toBe(first);
    expect(sharedGroupedFigures(settings, grouped)).toBe(first);
    expect(sharedGroupedFigures({ ...settings, clients: other }, grouped)).toBe(second);
    // A third set pushes the oldest out: the first clients get figures equal to, not the same as, theirs.
    const third = clients.map((client, i) => ({ ...client, share: [0.1, 0.1, 0.8][i] as number }));
    sharedGroupedFigures({ ...settings, clients: third }, grouped);
    sharedGroupedFigures({ ...settings, clients: other }, grouped);
    const recomputed = sharedGroupedFigures(settings, grouped);
    expect(recomputed).not.toBe(first);
    expect(recomputed).toEqual(first);
    // A prefix (a state with other gates) and every setting the key spells keep figures apart.
    expect(sharedGroupedFigures(settings, grouped, 'gates-on|')).not.toBe(recomputed);
    for (const changed of [
      { ...settings, honoursHints: false },
      { ...settings, proxied: false },
      { ...settings, service: { ...service, hintsAnnotation: 'Disabled' } },
      { ...settings, service: { ...service, externalTrafficPolicy: 'Local' as const } },
      { ...settings, service: { ...service, externallyAccessible: true } },
    ]) {
      const figures = sharedGroupedFigures(changed, grouped);
      expect(figures).not.toBe(recomputed);
      expect(JSON.stringify(figures)).toBe(JSON.stringify(computeTrafficFigures({ ...changed, endpoints: grouped.endpoints, counts: grouped.counts })));
    }
    // Node names matter with internalTrafficPolicy: Local: no shared figures.
    expect(sharedGroupedFigures({ ...settings, service: { ...service, internalTrafficPolicy: 'Local' } }, grouped)).toBeNull();
  });
});

describe('groupTrafficEndpoints: one endpoint per shape, with its count', () => {
  // Few shapes, many endpoints of each, in any order: what a Deployment's slices look like.
  const manyArb = fc
    .array(
      fc.record({
        zone: fc.constantFrom<string | null>('a', 'b', 'c', null),
        ready: fc.constantFrom<boolean | null>(true, true, true, false),
        terminating: fc.constantFrom<boolean | null>(false, false, true),
        hints: fc.constantFrom<Endpoint['hints']>(null, { forZones: ['a'] }, { forZones: ['b'] }, { forZones: ['c'] }, { forZones: ['a', 'b'] }),
        repeat: fc.integer({ min: 0, max: 9 }),
      }),
      { maxLength: 60 },
    )
    .chain((endpoints) => fc.integer({ min: 1, max: 3 }).map((sliceCount): EndpointSlice[] => {
      const slices: EndpointSlice[] = Array.from({ length: sliceCount }, () => ({ endpoints: [] as Endpoint[] }));
      endpoints.forEach((e, i) => {
        // Every tenth endpoint or so repeats an earlier address (kube-proxy keeps the first copy).
        const address = e.repeat === 0 && i > 0 ? `10.0.1.${i - 1}` : `10.0.1.${i}`;
        (slices[i % sliceCount] as { endpoints: Endpoint[] }).endpoints.push({ addresses: [address], zone: e.zone, nodeName: 'node-b-1', ready: e.ready, serving: null, terminating: e.terminating, hints: e.hints });
      });
      return slices;
    }));
  const clusterServiceArb = serviceArb.filter((service) => service.internalTrafficPolicy === 'Cluster');

  it('gives the figures of the list spelled out, bit for bit and key for key', () => {
    fc.assert(
      fc.property(fc.oneof(manyArb, slicesArb), clusterServiceArb, fc.boolean(), fc.boolean(), (slices, service, honoursHints, proxied) => {
        const spelled = computeTrafficFigures(input(slices, service, honoursHints, proxied));
        const grouped = groupTrafficEndpoints(slices, nodeZoneByName);
        expect(grouped.key).not.toBeNull();
        const figures = computeTrafficFigures({ ...input(slices, service, honoursHints, proxied), endpoints: grouped.endpoints, counts: grouped.counts });
        // JSON text: the same digits and the same key order (the cluster flows add rows in that order).
        expect(JSON.stringify(figures)).toBe(JSON.stringify(spelled));
        expect(grouped.counts.reduce((sum, count) => sum + count, 0)).toBe(toTrafficEndpoints(slices, nodeZoneByName).length);
      }),
      { numRuns: 500 },
    );
  });

  it('keys the shapes in the order they first appear, not the order of every endpoint', () => {
    const endpoint = (address: string, zone: string, hint: string): Endpoint => ({ addresses: [address], zone, nodeName: null, ready: true, hints: { forZones: [hint] } });
    const key = (zones: string[]) => groupTrafficEndpoints([{ endpoints: zones.map((zone, i) => endpoint(`10.0.2.${i}`, zone, zone)) }], nodeZoneByName).key;
    expect(key(['a', 'b', 'a', 'b', 'c'])).toBe(key(['a', 'b', 'b', 'c', 'a']));
    expect(key(['a', 'b', 'a', 'b', 'c'])).not.toBe(key(['b', 'a', 'a', 'b', 'c']));
    expect(key(['a', 'b', 'a'])).not.toBe(key(['a', 'b', 'b']));
    expect(groupTrafficEndpoints([{ endpoints: [{ ...endpoint('10.0.2.9', 'a', 'a'), hints: { forNodes: ['node-a-1'] } }] }], nodeZoneByName)).toEqual({ key: null, endpoints: [], counts: [] });
  });

  it('refuses counts where they cannot hold: the full matrix, or node-by-node selection', () => {
    const service: ProxyServicePort = { internalTrafficPolicy: 'Cluster', externalTrafficPolicy: 'Cluster', externallyAccessible: false, hintsAnnotation: 'Auto' };
    const slices: EndpointSlice[] = [{ endpoints: [{ addresses: ['10.0.3.1'], zone: 'a', nodeName: 'node-a-1', ready: true, hints: { forNodes: ['node-a-1'] } }] }];
    const spelled = input(slices, service, true, true);
    expect(() => computeTrafficMatrix({ ...spelled, counts: [1] })).toThrow(/grouped/);
    expect(() => computeTrafficFigures({ ...spelled, counts: [1] })).toThrow(/node by node/);
  });
});

describe('groupSliceList: the groups of a slice list, kept by the list', () => {
  const endpoint = (address: string, zone: string | null, nodeName: string): Endpoint => ({ addresses: [address], zone, nodeName, ready: true, serving: true, terminating: false, hints: null });

  it('gives groupTrafficEndpoints\' groups, and the same object again for the same list', () => {
    fc.assert(
      fc.property(slicesArb, fc.boolean(), (slices, distinct) => {
        const kept = groupSliceList(slices, nodeZoneByName, distinct);
        expect(kept).toEqual(groupTrafficEndpoints(slices, nodeZoneByName, distinct));
        expect(groupSliceList(slices, nodeZoneByName, distinct)).toBe(kept);
      }),
      { numRuns: 150 },
    );
  });

  it('follows a node relabelled to another zone when an endpoint takes its zone from its node', () => {
    const slices: EndpointSlice[] = [{ endpoints: [endpoint('10.0.2.1', 'a', 'node-a-1'), endpoint('10.0.2.2', null, 'node-x')] }];
    const before = groupSliceList(slices, new Map([['node-x', 'b']]), true);
    const after = groupSliceList(slices, new Map([['node-x', 'c']]), true);
    expect(before.endpoints.map((e) => e.zone)).toEqual(['a', 'b']);
    expect(after.endpoints.map((e) => e.zone)).toEqual(['a', 'c']);
  });

  it('keeps the groups across node maps when every endpoint carries its zone', () => {
    const slices: EndpointSlice[] = [{ endpoints: [endpoint('10.0.3.1', 'a', 'node-a-1'), endpoint('10.0.3.2', 'b', 'node-b-1')] }];
    const first = groupSliceList(slices, new Map([['node-a-1', 'a']]), true);
    expect(groupSliceList(slices, new Map(), true)).toBe(first);
    // Asked without the distinct-addresses promise, the list is grouped again (repeats are then looked for).
    expect(groupSliceList(slices, new Map(), false)).not.toBe(first);
  });
});


describe('shared figures: kube-proxy\'s selections kept for other client shares', () => {
  const clusterServiceArb = serviceArb.filter((service) => service.internalTrafficPolicy === 'Cluster');
  const sharesArb = fc.tuple(fc.integer({ min: 0, max: 9 }), fc.integer({ min: 0, max: 9 }), fc.integer({ min: 1, max: 9 })).map(([a, b, c]) => [a / (a + b + c), b / (a + b + c), c / (a + b + c)]);
  // The same node objects under every share split, as contexts built after a Node change hand them.
  const withShares = (shares: readonly number[]): TrafficClientZone[] => clients.map((client, i) => ({ ...client, share: shares[i] as number }));

  it('gives, under each new split of the shares, the figures computed afresh, bit for bit', () => {
    fc.assert(
      fc.property(slicesArb, clusterServiceArb, fc.boolean(), fc.boolean(), fc.array(sharesArb, { minLength: 2, maxLength: 4 }), (slices, service, honoursHints, proxied, splits) => {
        const grouped = groupTrafficEndpoints(slices, nodeZoneByName);
        if (grouped.key === null) return;
        const { endpoints: _endpoints, ...settings } = input(slices, service, honoursHints, proxied);
        for (const shares of splits) {
          const kept = sharedGroupedFigures({ ...settings, clients: withShares(shares) }, grouped);
          const fresh = computeTrafficFigures({ ...settings, clients: withShares(shares), endpoints: grouped.endpoints, counts: grouped.counts });
          expect(JSON.stringify(kept)).toBe(JSON.stringify(fresh));
        }
      }),
      { numRuns: 300 },
    );
  });

  it('keeps the selections apart by release and by node', () => {
    const service: ProxyServicePort = { internalTrafficPolicy: 'Cluster', externalTrafficPolicy: 'Cluster', externallyAccessible: false, hintsAnnotation: 'Auto' };
    const slices: EndpointSlice[] = [
      { endpoints: ['a', 'b', 'c'].map((zone, i) => ({ addresses: [`10.0.4.${i}`], zone, nodeName: null, ready: true, hints: { forZones: [zone] } })) },
    ];
    const grouped = groupTrafficEndpoints(slices, nodeZoneByName);
    const { endpoints: _endpoints, ...settings } = input(slices, service, true, true);
    const fresh = (changed: typeof settings) => computeTrafficFigures({ ...changed, endpoints: grouped.endpoints, counts: grouped.counts });
    // Zone hints honoured on 1.33: each zone keeps its own endpoint.
    const hinted = sharedGroupedFigures(settings, grouped);
    expect(hinted?.crossZoneFraction).toBe(0);
    // The same endpoints and settings on 1.23 with its default gates (TopologyAwareHints off) ignore them: other selections.
    const gateOff = { ...settings, release: { minor: 23, gates: defaultFeatureGates(23) } };
    expect(sharedGroupedFigures(gateOff, grouped)).toEqual(fresh(gateOff));
    expect(sharedGroupedFigures(gateOff, grouped)?.crossZoneFraction).toBeGreaterThan(0);
    // Other nodes, relabelled into other zones, under the same key: their own selections.
    const moved = { ...settings, clients: clients.map((client, i) => ({ ...client, nodes: client.nodes.map((node) => ({ ...node, proxyNode: { name: node.proxyNode.name, labels: { 'topology.kubernetes.io/zone': ZONES[(i + 1) % 3] as string } } })) })) };
    expect(sharedGroupedFigures(moved, grouped)).toEqual(fresh(moved));
    expect(sharedGroupedFigures(moved, grouped)?.crossZoneFraction).toBeGreaterThan(0);
    // And back: the first release and nodes, new shares, the plan's selections again.
    const back = { ...settings, clients: clients.map((client) => ({ ...client })) };
    expect(sharedGroupedFigures(back, grouped)).toEqual(fresh(back));
  });
});
