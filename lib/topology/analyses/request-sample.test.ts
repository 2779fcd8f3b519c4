import { describe, expect, it } from 'vitest';

import type { ProxyNode } from '../upstream/proxy-topology';
import type { ProxyServicePort } from '../upstream/proxy-service-port';
import { defaultFeatureGates } from '../upstream/version';
import type { RequestSampleInput } from './request-sample';
import { MAX_LISTED_PODS, representativeNode, requestCountError, requestSampleSeed, sampleRequests } from './request-sample';
import type { TrafficEndpoint } from './traffic';
import { computeTrafficMatrix, UNKNOWN_ZONE } from './traffic';

/** The value, or a test failure naming what is missing. */
function must<T>(value: T | null | undefined, what = 'value'): T {
  if (value === null || value === undefined) throw new Error(`missing ${what}`);
  return value;
}


const release = { minor: 31, gates: defaultFeatureGates(31) };
const svc = (extra: Partial<ProxyServicePort> = {}): ProxyServicePort => ({
  internalTrafficPolicy: 'Cluster',
  externalTrafficPolicy: 'Cluster',
  externallyAccessible: false,
  hintsAnnotation: 'Auto',
  ...extra,
});
const node = (zone: string, suffix = '1'): ProxyNode => ({ name: `node-${zone}-${suffix}`, labels: { 'topology.kubernetes.io/zone': zone } });
const ep = (id: string, zone: string | null, zoneHints: string[] | null, extra: Partial<TrafficEndpoint> = {}): TrafficEndpoint => ({
  endpoint: `${id}:8080`,
  zone,
  nodeName: zone ? `node-${zone}-1` : null,
  podName: `pod-${id}`,
  zoneHints,
  nodeHints: null,
  ready: true,
  serving: true,
  terminating: false,
  isLocal: false,
  ...extra,
});

/** 5/1/1 with Auto hints: zone a keeps three, donates one to b and one to c (like payments/ledger). */
const ledger = [
  ep('a1', 'a', ['a']), ep('a2', 'a', ['a']), ep('a3', 'a', ['a']), ep('a4', 'a', ['b']), ep('a5', 'a', ['c']),
  ep('b1', 'b', ['b']), ep('c1', 'c', ['c']),
];

function input(extra: Partial<RequestSampleInput> = {}): RequestSampleInput {
  return { endpoints: ledger, service: svc(), release, clientNode: node('a'), count: 100, seed: 7, honoursHints: true, proxied: true, ...extra };
}

const sum = (values: readonly number[]) => values.reduce((a, b) => a + b, 0);

describe('sampleRequests: 100 requests from a client node', () => {
  it('hints on: only the pods hinted for the client zone answer, 100/3 each expected, the sample sums to 100', () => {
    const s = sampleRequests(input());
    expect(s.selection.mode).toBe('PreferSameZone');
    expect(s.selection.summary).toBe('hints for zone a: 3 of 7 ready endpoints');
    expect(s.selection.message).toBe('Same zone: kube-proxy uses the endpoints hinted for zone "a"');
    expect(s.pods.map((p) => p.hostname).sort()).toEqual(['pod-a1', 'pod-a2', 'pod-a3']);
    for (const p of s.pods) expect(p.expected).toBeCloseTo(100 / 3, 12);
    expect(sum(s.pods.map((p) => p.sampled))).toBe(100);
    expect(sum(s.pods.map((p) => p.expected))).toBeCloseTo(100, 9);
    expect(s.pods.every((p) => p.sameZone)).toBe(true);
    expect(s.expectedCrossZoneFraction).toBe(0);
    expect(s.dropped).toBe(0);
  });

  it('zone b also gets the pod zone a donated: half its requests cross zones', () => {
    const s = sampleRequests(input({ clientNode: node('b') }));
    expect(s.selection.summary).toBe('hints for zone b: 2 of 7 ready endpoints');
    expect(s.byZone).toEqual([
      { zone: 'a', sameZone: false, pods: 1, expected: 50, sampled: expect.any(Number) },
      { zone: 'b', sameZone: true, pods: 1, expected: 50, sampled: expect.any(Number) },
    ]);
    expect(s.expectedCrossZoneFraction).toBe(0.5);
    expect(must(s.byZone[0]).sampled + must(s.byZone[1]).sampled).toBe(100);
  });

  it('without hints (dataplane ignores them) every ready pod answers, 100/7 each', () => {
    const s = sampleRequests(input({ honoursHints: false }));
    expect(s.selection.mode).toBe('none');
    expect(s.selection.summary).toBe('no topology: all 7 ready endpoints');
    expect(s.pods).toHaveLength(7);
    for (const p of s.pods) expect(p.expected).toBeCloseTo(100 / 7, 12);
    expect(s.expectedCrossZoneFraction).toBeCloseTo(2 / 7, 12);
    expect(sum(s.pods.map((p) => p.sampled))).toBe(100);
  });

  it('falls back to every endpoint when one ready endpoint lacks a hint (transition safety)', () => {
    const s = sampleRequests(input({ endpoints: [...ledger, ep('c2', 'c', null)] }));
    expect(s.selection.mode).toBe('none');
    expect(s.selection.message).toContain('no zone hint');
    expect(s.selection.selectedEndpoints).toBe(8);
  });

  it('is reproducible: the same seed gives the same histogram, another seed another one', () => {
    const a = sampleRequests(input({ count: 1000, honoursHints: false }));
    const b = sampleRequests(input({ count: 1000, honoursHints: false }));
    const c = sampleRequests(input({ count: 1000, honoursHints: false, seed: 8 }));
    expect(b).toEqual(a);
    expect(c.pods.map((p) => p.sampled)).not.toEqual(a.pods.map((p) => p.sampled));
    expect(requestSampleSeed('payments/ledger', 'node-a-1', 'now', 100)).toBe(requestSampleSeed('payments/ledger', 'node-a-1', 'now', 100));
    expect(requestSampleSeed('payments/ledger', 'node-a-1', 'now', 100)).not.toBe(requestSampleSeed('payments/ledger', 'node-a-1', 'ifNone', 100));
  });

  it('the sample follows the expected counts: 10,000 requests over 7 pods stay within 5 % of 10,000/7', () => {
    const s = sampleRequests(input({ count: 10_000, honoursHints: false }));
    for (const p of s.pods) expect(Math.abs(p.sampled - 10_000 / 7)).toBeLessThan(0.05 * (10_000 / 7) + 1);
  });

  it('lists at most 50 pods, most answers first, and sums the rest so the counts stay exact', () => {
    const many = Array.from({ length: 120 }, (_, i) => ep(`p${String(i).padStart(3, '0')}`, ['a', 'b', 'c'][i % 3] as string, null));
    const s = sampleRequests(input({ endpoints: many, count: 1000 }));
    expect(s.pods).toHaveLength(MAX_LISTED_PODS);
    expect(s.others?.pods).toBe(70);
    expect(s.others?.expected).toBeCloseTo(70 * (1000 / 120), 9);
    expect(sum(s.pods.map((p) => p.sampled)) + (s.others?.sampled ?? 0)).toBe(1000);
    expect(sum(s.pods.map((p) => p.expected)) + (s.others?.expected ?? 0)).toBeCloseTo(1000, 9);
    const sampled = s.pods.map((p) => p.sampled);
    expect(sampled).toEqual([...sampled].sort((x, y) => y - x));
    expect(Math.min(...sampled)).toBeGreaterThanOrEqual(0);
    expect(sum(s.byZone.map((z) => z.pods))).toBe(120);
    expect(sum(s.byZone.map((z) => z.sampled))).toBe(1000);
  });

  it('a node that selects nothing drops every request (internalTrafficPolicy Local without a local pod)', () => {
    const s = sampleRequests(input({ service: svc({ internalTrafficPolicy: 'Local' }), clientNode: node('b', '2') }));
    expect(s.selection.mode).toBe('local');
    expect(s.dropped).toBe(100);
    expect(s.pods).toEqual([]);
    expect(s.selection.summary).toBe('no endpoint selected on node node-b-2: every request fails');
  });

  it('internalTrafficPolicy Local on a node with pods: only its own pods answer', () => {
    const s = sampleRequests(input({ service: svc({ internalTrafficPolicy: 'Local' }), clientNode: node('a') }));
    expect(s.selection.selectedEndpoints).toBe(5);
    expect(s.pods.every((p) => p.nodeName === 'node-a-1')).toBe(true);
  });

  it('headless: any ready pod from DNS, hints ignored', () => {
    const s = sampleRequests(input({ proxied: false }));
    expect(s.selection.mode).toBe('dns');
    expect(s.selection.selectedEndpoints).toBe(7);
  });

  it('unknown-zone pods are neither same- nor cross-zone', () => {
    const s = sampleRequests(input({ endpoints: [ep('x', null, null), ep('a1', 'a', null)], count: 10 }));
    expect(s.byZone.map((z) => z.zone)).toEqual(['a', UNKNOWN_ZONE]);
    expect(s.expectedCrossZoneFraction).toBe(0);
  });

  it.each([0, -1, 10_001, 2.5, Number.NaN])('refuses %s requests with a clear error', (count) => {
    expect(requestCountError(count)).toBe('The number of requests must be a whole number from 1 to 10,000.');
    expect(() => sampleRequests(input({ count }))).toThrow('The number of requests must be a whole number from 1 to 10,000.');
  });
});

describe('sampleRequests makes the same selection as the traffic model', () => {
  const cases: [string, Partial<RequestSampleInput>][] = [
    ['hints on', {}],
    ['hints ignored', { honoursHints: false }],
    ['annotation not accepted', { service: svc({ hintsAnnotation: 'Disabled' }) }],
    ['headless', { proxied: false }],
  ];
  it.each(cases)('%s: per zone, the expected answers per endpoint zone equal the matrix row', (_label, extra) => {
    const base = input(extra);
    const clients = ['a', 'b', 'c'].map((zone) => ({ zone, share: 1 / 3, nodes: [{ weight: 1, proxyNode: node(zone) }] }));
    const m = computeTrafficMatrix({ endpoints: base.endpoints, service: base.service, release, clients, honoursHints: base.honoursHints, proxied: base.proxied });
    for (const client of clients) {
      const s = sampleRequests({ ...base, clientNode: must(client.nodes[0]).proxyNode });
      const selection = must(m.selectionByZone.find((z) => z.zone === client.zone));
      expect({ mode: s.selection.mode, message: s.selection.message, selected: s.selection.selectedEndpoints }).toEqual({
        mode: selection.mode,
        message: selection.message,
        selected: selection.selectedEndpoints,
      });
      for (const z of s.byZone) expect(z.expected / s.count).toBeCloseTo((m.matrix[client.zone]?.[z.zone] ?? 0) / client.share, 12);
    }
  });

  it('node hints: the representative node is one without endpoints, as the model reports per zone', () => {
    const endpoints = [ep('a1', 'a', ['a'], { nodeHints: ['node-a-1'] }), ep('b1', 'b', ['b'], { nodeHints: ['node-b-1'] })];
    const nodes = [{ proxyNode: node('a', '1') }, { proxyNode: node('a', '2') }];
    const rep = representativeNode(nodes, { endpoints, service: svc(), release: { minor: 34, gates: defaultFeatureGates(34) }, honoursHints: true, proxied: true });
    expect(rep?.proxyNode.name).toBe('node-a-2');
    expect(representativeNode(nodes, { endpoints: ledger, service: svc(), release, honoursHints: true, proxied: true })?.proxyNode.name).toBe('node-a-1');
  });
});
