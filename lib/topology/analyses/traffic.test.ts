import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import type { ProxyServicePort } from '../upstream/proxy-service-port';
import type { TrafficClientZone, TrafficEndpoint } from './traffic';
import { computeTrafficMatrix, toTrafficEndpoints, UNKNOWN_ZONE } from './traffic';
import { defaultFeatureGates } from '../upstream/version';

const release = { minor: 33, gates: defaultFeatureGates(33) };
const service = (extra: Partial<ProxyServicePort> = {}): ProxyServicePort => ({
  internalTrafficPolicy: 'Cluster',
  externalTrafficPolicy: 'Cluster',
  externallyAccessible: false,
  hintsAnnotation: 'Auto',
  ...extra,
});
const zoneNode = (zone: string, suffix = '') => ({ weight: 1, proxyNode: { name: `node-${zone}${suffix}`, labels: { 'topology.kubernetes.io/zone': zone } } });
const clients = (shares: Record<string, number>): TrafficClientZone[] =>
  Object.entries(shares).map(([zone, share]) => ({ zone, share, nodes: [zoneNode(zone)] }));
const ep = (id: string, zone: string | null, zoneHints: string[] | null = null, extra: Partial<TrafficEndpoint> = {}): TrafficEndpoint => ({
  endpoint: id,
  zone,
  nodeName: zone ? `node-${zone}` : null,
  podName: null,
  zoneHints,
  nodeHints: null,
  ready: true,
  serving: true,
  terminating: false,
  isLocal: false,
  ...extra,
});
const thirds = { a: 1 / 3, b: 1 / 3, c: 1 / 3 };

describe('computeTrafficMatrix: worked examples', () => {
  it('no hints, one endpoint per zone, equal clients: each zone sends 2/3 of its traffic away', () => {
    const m = computeTrafficMatrix({ endpoints: [ep('1', 'a'), ep('2', 'b'), ep('3', 'c')], service: service(), release, clients: clients(thirds), honoursHints: true, proxied: true });
    expect(m.matrix.a?.a).toBeCloseTo(1 / 9);
    expect(m.matrix.a?.b).toBeCloseTo(1 / 9);
    expect(m.crossZoneFraction).toBeCloseTo(2 / 3);
    expect(m.endpointLoads.map((e) => e.relativeLoad)).toEqual([1, 1, 1].map((v) => expect.closeTo(v)));
  });

  it('same-zone hints keep all traffic in zone', () => {
    const m = computeTrafficMatrix({
      endpoints: [ep('1', 'a', ['a']), ep('2', 'b', ['b']), ep('3', 'c', ['c'])],
      service: service(),
      release,
      clients: clients(thirds),
      honoursHints: true,
      proxied: true,
    });
    expect(m.crossZoneFraction).toBe(0);
    expect(m.selectionByZone.map((s) => s.mode)).toEqual(['PreferSameZone', 'PreferSameZone', 'PreferSameZone']);
  });

  it('5/2/2 with Auto hints (one zone-a endpoint donated to b and one to c): 2/9 crosses zones', () => {
    // Zone a: 3 endpoints for a, 1 hinted for b, 1 for c. Zones b and c: 2 own + 1 from a each.
    const endpoints = [
      ep('a1', 'a', ['b']), ep('a2', 'a', ['c']), ep('a3', 'a', ['a']), ep('a4', 'a', ['a']), ep('a5', 'a', ['a']),
      ep('b1', 'b', ['b']), ep('b2', 'b', ['b']), ep('c1', 'c', ['c']), ep('c2', 'c', ['c']),
    ];
    const m = computeTrafficMatrix({ endpoints, service: service(), release, clients: clients(thirds), honoursHints: true, proxied: true });
    expect(m.matrix.b?.a).toBeCloseTo(1 / 9);
    expect(m.crossZoneFraction).toBeCloseTo(2 / 9);
    expect(m.maxRelativeLoad).toBeCloseTo(1);
  });

  it('hints on one zone only: a ready endpoint without hints makes kube-proxy ignore them everywhere', () => {
    const m = computeTrafficMatrix({ endpoints: [ep('1', 'a', ['a']), ep('2', 'b')], service: service(), release, clients: clients({ a: 0.5, b: 0.5 }), honoursHints: true, proxied: true });
    expect(m.crossZoneFraction).toBeCloseTo(0.5);
    expect(m.selectionByZone[0]?.message).toContain('no zone hint');
  });

  it('a dataplane that ignores hints spreads as if there were none', () => {
    const endpoints = [ep('1', 'a', ['a']), ep('2', 'b', ['b'])];
    const m = computeTrafficMatrix({ endpoints, service: service(), release, clients: clients({ a: 0.5, b: 0.5 }), honoursHints: false, proxied: true });
    expect(m.crossZoneFraction).toBeCloseTo(0.5);
  });

  it('internalTrafficPolicy Local: nodes without a local endpoint drop their traffic', () => {
    const m = computeTrafficMatrix({
      endpoints: [ep('1', 'a')],
      service: service({ internalTrafficPolicy: 'Local' }),
      release,
      clients: [{ zone: 'a', share: 0.5, nodes: [zoneNode('a'), zoneNode('a', '-2')] }, { zone: 'b', share: 0.5, nodes: [zoneNode('b')] }],
      honoursHints: true,
      proxied: true,
    });
    expect(m.droppedFraction).toBeCloseTo(0.75);
    expect(m.crossZoneFraction).toBe(0);
    expect(m.droppedByZone).toEqual({ a: expect.closeTo(0.25), b: expect.closeTo(0.5) });
  });

  it('endpoints of unknown zone are neither same- nor cross-zone', () => {
    const m = computeTrafficMatrix({ endpoints: [ep('1', 'a'), ep('2', null)], service: service(), release, clients: clients({ a: 1 }), honoursHints: true, proxied: true });
    expect(m.unknownZoneFraction).toBeCloseTo(0.5);
    expect(m.endpointZones).toEqual(['a', UNKNOWN_ZONE]);
  });

  it('client shares weight the zones: 80 % of clients in a, one endpoint in a and one in b', () => {
    const m = computeTrafficMatrix({ endpoints: [ep('1', 'a'), ep('2', 'b')], service: service(), release, clients: clients({ a: 0.8, b: 0.2 }), honoursHints: true, proxied: true });
    expect(m.crossZoneFraction).toBeCloseTo(0.5);
    expect(m.sameZoneFraction).toBeCloseTo(0.5);
  });
});

describe('toTrafficEndpoints', () => {
  it('kube-proxy view: absent ready counts as ready, zone falls back to the node zone, duplicates merge', () => {
    const out = toTrafficEndpoints(
      [{ endpoints: [{ addresses: ['10.0.0.1'], zone: null, nodeName: 'n1', ready: null, hints: { forZones: ['a'] } }, { addresses: ['10.0.0.1'], zone: 'b', nodeName: 'n2', ready: true, hints: null }] }],
      new Map([['n1', 'a']]),
    );
    expect(out).toEqual([expect.objectContaining({ endpoint: '10.0.0.1', zone: 'a', ready: true, serving: true, terminating: false, zoneHints: ['a'] })]);
  });
});

describe('computeTrafficMatrix: properties', () => {
  const zones = ['a', 'b', 'c'];
  const arbitraryInput = fc.record({
    endpoints: fc.array(
      fc.record({
        zone: fc.constantFrom('a', 'b', 'c', null),
        hint: fc.option(fc.constantFrom('a', 'b', 'c'), { nil: null }),
        ready: fc.boolean(),
        terminating: fc.boolean(),
      }),
      { maxLength: 12 },
    ),
    weights: fc.tuple(fc.nat(10), fc.nat(10), fc.nat(10)),
    local: fc.boolean(),
    honoursHints: fc.boolean(),
  });

  it('each client zone row plus its dropped share equals the zone share; fractions stay in [0, 1]', () => {
    fc.assert(
      fc.property(arbitraryInput, (input) => {
        const total = input.weights.reduce((s, w) => s + w, 0) || 1;
        const clientZones = zones.map((zone, i) => ({ zone, share: (input.weights[i] ?? 0) / total, nodes: [zoneNode(zone), zoneNode(zone, '-2')] }));
        const endpoints = input.endpoints.map((e, i) =>
          ep(`e${i}`, e.zone, e.hint ? [e.hint] : null, { ready: e.ready, terminating: e.terminating, serving: true, nodeName: e.zone ? `node-${e.zone}` : null }),
        );
        const m = computeTrafficMatrix({ endpoints, service: service({ internalTrafficPolicy: input.local ? 'Local' : 'Cluster' }), release, clients: clientZones, honoursHints: input.honoursHints, proxied: true });
        for (const client of clientZones) {
          const row = Object.values(m.matrix[client.zone] ?? {}).reduce((s, v) => s + v, 0);
          expect(row + (m.droppedByZone[client.zone] ?? 0)).toBeCloseTo(client.share, 9);
        }
        for (const fraction of [m.crossZoneFraction, m.sameZoneFraction, m.droppedFraction, m.deliveredFraction, m.unknownZoneFraction]) {
          expect(fraction).toBeGreaterThanOrEqual(0);
          expect(fraction).toBeLessThanOrEqual(1);
        }
        expect(m.crossZoneFraction + m.sameZoneFraction + m.unknownZoneFraction + m.droppedFraction).toBeCloseTo(input.weights.some((w) => w > 0) ? 1 : 0, 9);
      }),
    );
  });
});
