import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import { filterEndpoints, filterEndpointsWithHints, filterLocalEndpoint } from './proxy-legacy';
import { LABEL_TOPOLOGY_ZONE } from './constants';
import { categorizeEndpoints } from './proxy-topology';
import { usesClusterEndpoints } from './proxy-service-port';
import type { LegacyProxyFeatureGates, ProxyEndpoint, ProxyNode, ProxyRelease } from './proxy-topology';
import type { ProxyServicePort } from './proxy-service-port';
import { resolveFeatureGates } from './version';
import type { FeatureGateOverrides, KubeMinor } from './version';

function ep(endpoint: string, over: Partial<ProxyEndpoint> = {}): ProxyEndpoint {
  return { endpoint, zoneHints: null, nodeHints: null, ready: true, serving: true, terminating: false, isLocal: false, ...over };
}

function at(minor: KubeMinor, overrides: FeatureGateOverrides = {}, legacyGates?: Partial<LegacyProxyFeatureGates>): ProxyRelease {
  return { minor, gates: resolveFeatureGates(minor, overrides), legacyGates };
}

function svc(over: Partial<ProxyServicePort> = {}): ProxyServicePort {
  return { internalTrafficPolicy: 'Cluster', externalTrafficPolicy: 'Cluster', externallyAccessible: true, hintsAnnotation: 'auto', ...over };
}

const zoneLabels = (zone: string | null): Record<string, string> => (zone === null ? {} : { [LABEL_TOPOLOGY_ZONE]: zone });
const nodeIn = (zone: string | null): ProxyNode => ({ name: 'test-node', labels: zoneLabels(zone) });
const ids = (list: readonly ProxyEndpoint[]): string[] => list.map((e) => e.endpoint);

/** The upstream fixture: four endpoints hinted for zones a, b, c, a. */
const fixture = [
  ep('10.1.2.3', { zoneHints: ['zone-a'] }),
  ep('10.1.2.4', { zoneHints: ['zone-b'] }),
  ep('10.1.2.5', { zoneHints: ['zone-c'] }),
  ep('10.1.2.6', { zoneHints: ['zone-a'] }),
];
const ALL = ['10.1.2.3', '10.1.2.4', '10.1.2.5', '10.1.2.6'];
const ZONE_A = ['10.1.2.3', '10.1.2.6'];
const LEGACY_MINORS: KubeMinor[] = [21, 22, 23];

describe('filterEndpoints (1.21–1.23 FilterEndpoints)', () => {
  interface Case {
    name: string;
    minors: KubeMinor[];
    gates?: FeatureGateOverrides;
    legacyGates?: Partial<LegacyProxyFeatureGates>;
    service?: Partial<ProxyServicePort>;
    endpoints?: ProxyEndpoint[];
    expected: string[];
  }
  const hintsOn = { TopologyAwareHints: true };
  const cases: Case[] = [
    { name: '1.21: annotation auto filters to the zone’s endpoints, in input order', minors: [21], gates: hintsOn, expected: ZONE_A },
    { name: '1.21: capitalised Auto is wrong capitalisation, hints ignored', minors: [21], gates: hintsOn, service: { hintsAnnotation: 'Auto' }, expected: ALL },
    { name: '1.22–1.23: Auto filters', minors: [22, 23], gates: hintsOn, service: { hintsAnnotation: 'Auto' }, expected: ZONE_A },
    { name: '1.22–1.23: auto filters', minors: [22, 23], gates: hintsOn, expected: ZONE_A },
    { name: '1.22–1.23: aUto is wrong capitalisation, hints ignored', minors: [22, 23], gates: hintsOn, service: { hintsAnnotation: 'aUto' }, expected: ALL },
    { name: '1.21–1.23: disabled annotation, hints ignored', minors: LEGACY_MINORS, gates: hintsOn, service: { hintsAnnotation: 'disabled' }, expected: ALL },
    { name: '1.21–1.23: TopologyAwareHints gate off (the default), hints ignored', minors: LEGACY_MINORS, expected: ALL },
    {
      name: '1.21–1.23: externalTrafficPolicy Local returns every endpoint unfiltered',
      minors: LEGACY_MINORS,
      gates: hintsOn,
      service: { externalTrafficPolicy: 'Local' },
      expected: ALL,
    },
    {
      name: 'externalTrafficPolicy Local on a Service nobody reaches from outside does not stop filtering',
      minors: LEGACY_MINORS,
      gates: hintsOn,
      service: { externalTrafficPolicy: 'Local', externallyAccessible: false },
      expected: ZONE_A,
    },
    { name: '1.21: EndpointSliceProxying gate off → every endpoint', minors: [21], gates: hintsOn, legacyGates: { EndpointSliceProxying: false }, expected: ALL },
    { name: '1.21: ServiceTopology gate on takes precedence, hints ignored', minors: [21], gates: hintsOn, legacyGates: { ServiceTopology: true }, expected: ALL },
    {
      name: 'internalTrafficPolicy Local with its gate → only local endpoints, ready or not, before hints',
      minors: LEGACY_MINORS,
      gates: { ...hintsOn, ServiceInternalTrafficPolicy: true },
      service: { internalTrafficPolicy: 'Local' },
      endpoints: [ep('10.0.0.0', { isLocal: true, zoneHints: ['zone-b'] }), ep('10.0.0.1', { zoneHints: ['zone-a'] }), ep('10.0.0.2', { isLocal: true, ready: false })],
      expected: ['10.0.0.0', '10.0.0.2'],
    },
    {
      name: 'internalTrafficPolicy Local without its gate (1.21 default) is ignored; hints apply',
      minors: [21],
      gates: hintsOn,
      service: { internalTrafficPolicy: 'Local' },
      expected: ZONE_A,
    },
  ];
  it.each(cases)('$name', (c) => {
    for (const minor of c.minors) {
      expect(ids(filterEndpoints(c.endpoints ?? fixture, svc(c.service), nodeIn('zone-a'), at(minor, c.gates, c.legacyGates))), `at 1.${minor}`).toEqual(c.expected);
    }
  });

  it('exists only in 1.21–1.23: other releases are a RangeError', () => {
    for (const minor of [20, 24, 33]) {
      expect(() => filterEndpoints(fixture, svc(), nodeIn('zone-a'), at(minor))).toThrow(RangeError);
      expect(() => filterEndpointsWithHints(fixture, 'auto', zoneLabels('zone-a'), minor)).toThrow(RangeError);
    }
  });
});

describe('filterEndpointsWithHints', () => {
  interface Case {
    name: string;
    minors: KubeMinor[];
    annotation?: string;
    zone?: string | null;
    endpoints?: ProxyEndpoint[];
    expected: string[];
  }
  const cases: Case[] = [
    { name: 'normal filtering keeps the zone’s endpoints in input order', minors: LEGACY_MINORS, expected: ZONE_A },
    { name: 'empty annotation → no filtering', minors: LEGACY_MINORS, annotation: '', expected: ALL },
    { name: 'empty zone label → no filtering', minors: LEGACY_MINORS, zone: '', expected: ALL },
    { name: 'no zone label → no filtering', minors: LEGACY_MINORS, zone: null, expected: ALL },
    { name: 'node in a zone nobody is hinted for → no filtering', minors: LEGACY_MINORS, zone: 'zone-z', expected: ALL },
    {
      name: 'multiple hints per endpoint: any endpoint whose hints include the zone',
      minors: LEGACY_MINORS,
      zone: 'zone-c',
      endpoints: [
        ep('10.1.2.3', { zoneHints: ['zone-a', 'zone-b', 'zone-c'] }),
        ep('10.1.2.4', { zoneHints: ['zone-b', 'zone-c'] }),
        ep('10.1.2.5', { zoneHints: ['zone-b', 'zone-d'] }),
        ep('10.1.2.6', { zoneHints: ['zone-c'] }),
      ],
      expected: ['10.1.2.3', '10.1.2.4', '10.1.2.6'],
    },
    {
      name: 'an endpoint without zone hints → no filtering',
      minors: LEGACY_MINORS,
      endpoints: [ep('10.1.2.3', { zoneHints: ['zone-a'] }), ep('10.1.2.4')],
      expected: ['10.1.2.3', '10.1.2.4'],
    },
    {
      name: '1.23: an unready endpoint is dropped from the filtered result',
      minors: [23],
      endpoints: [ep('10.1.2.3', { zoneHints: ['zone-a'] }), ep('10.1.2.4', { zoneHints: ['zone-b'] }), ep('10.1.2.6', { zoneHints: ['zone-a'], ready: false })],
      expected: ['10.1.2.3'],
    },
    {
      name: '1.21–1.22: readiness-blind, an unready zone endpoint stays in the filtered result',
      minors: [21, 22],
      endpoints: [ep('10.1.2.3', { zoneHints: ['zone-a'] }), ep('10.1.2.4', { zoneHints: ['zone-b'] }), ep('10.1.2.6', { zoneHints: ['zone-a'], ready: false })],
      expected: ['10.1.2.3', '10.1.2.6'],
    },
    {
      name: '1.23: only unready endpoints in the zone → whole list returned, unready included',
      minors: [23],
      endpoints: [
        ep('10.1.2.3', { zoneHints: ['zone-a'], ready: false }),
        ep('10.1.2.4', { zoneHints: ['zone-b'] }),
        ep('10.1.2.6', { zoneHints: ['zone-a'], ready: false }),
      ],
      expected: ['10.1.2.3', '10.1.2.4', '10.1.2.6'],
    },
    {
      name: '1.21–1.22: only unready endpoints in the zone → filtered to those unready endpoints',
      minors: [21, 22],
      endpoints: [
        ep('10.1.2.3', { zoneHints: ['zone-a'], ready: false }),
        ep('10.1.2.4', { zoneHints: ['zone-b'] }),
        ep('10.1.2.6', { zoneHints: ['zone-a'], ready: false }),
      ],
      expected: ['10.1.2.3', '10.1.2.6'],
    },
    {
      name: '1.23: an unready endpoint without hints does not block filtering',
      minors: [23],
      endpoints: [ep('10.1.2.3', { zoneHints: ['zone-a'] }), ep('10.1.2.9', { ready: false })],
      expected: ['10.1.2.3'],
    },
    {
      name: '1.21–1.22: an unready endpoint without hints blocks filtering',
      minors: [21, 22],
      endpoints: [ep('10.1.2.3', { zoneHints: ['zone-a'] }), ep('10.1.2.9', { ready: false })],
      expected: ['10.1.2.3', '10.1.2.9'],
    },
    { name: 'empty list stays empty', minors: LEGACY_MINORS, endpoints: [], expected: [] },
  ];
  it.each(cases)('$name', (c) => {
    for (const minor of c.minors) {
      const labels = zoneLabels(c.zone === undefined ? 'zone-a' : c.zone);
      expect(ids(filterEndpointsWithHints(c.endpoints ?? fixture, c.annotation ?? 'auto', labels, minor)), `at 1.${minor}`).toEqual(c.expected);
    }
  });

  it('1.21 refuses Auto, 1.22–1.23 accept it', () => {
    expect(ids(filterEndpointsWithHints(fixture, 'Auto', zoneLabels('zone-a'), 21))).toEqual(ALL);
    expect(ids(filterEndpointsWithHints(fixture, 'Auto', zoneLabels('zone-a'), 22))).toEqual(ZONE_A);
  });
});

describe('filterLocalEndpoint', () => {
  it('keeps the local endpoints in input order, ready or not', () => {
    const eps = [ep('10.0.0.0:80', { isLocal: true }), ep('10.0.0.1:80'), ep('10.0.0.2:80', { isLocal: true, ready: false })];
    expect(ids(filterLocalEndpoint(eps))).toEqual(['10.0.0.0:80', '10.0.0.2:80']);
  });
  it('nothing local → empty list (upstream: nil)', () => {
    expect(filterLocalEndpoint([ep('10.0.0.1:80')])).toEqual([]);
  });
});

// ---- properties ----

const endpointsArb: fc.Arbitrary<ProxyEndpoint[]> = fc
  .uniqueArray(fc.integer({ min: 0, max: 40 }), { maxLength: 8 })
  .chain((keys) =>
    fc
      .tuple(
        ...keys.map(() =>
          fc.record({
            zoneHints: fc.option(fc.uniqueArray(fc.constantFrom('zone-a', 'zone-b'), { maxLength: 2 }), { nil: null }),
            ready: fc.boolean(),
            serving: fc.boolean(),
            terminating: fc.boolean(),
            isLocal: fc.boolean(),
          }),
        ),
      )
      .map((eps) => eps.map((e, i) => ({ endpoint: `10.0.0.${keys[i]}:80`, nodeHints: null, ...e }))),
  );

const releaseArb: fc.Arbitrary<ProxyRelease> = fc
  .tuple(
    fc.constantFrom(...LEGACY_MINORS),
    fc.record({ TopologyAwareHints: fc.boolean(), ServiceInternalTrafficPolicy: fc.boolean(), ProxyTerminatingEndpoints: fc.boolean() }, { requiredKeys: [] }),
    fc.record({ EndpointSliceProxying: fc.boolean(), ServiceTopology: fc.boolean() }, { requiredKeys: [] }),
  )
  .map(([minor, overrides, legacy]) => at(minor, overrides, legacy));

const serviceArb: fc.Arbitrary<ProxyServicePort> = fc.record({
  internalTrafficPolicy: fc.constantFrom('Cluster' as const, 'Local' as const),
  externalTrafficPolicy: fc.constantFrom('Cluster' as const, 'Local' as const),
  externallyAccessible: fc.boolean(),
  hintsAnnotation: fc.constantFrom('', 'auto', 'Auto', 'disabled'),
});

const zoneArb = fc.option(fc.constantFrom('zone-a', 'zone-b', ''), { nil: null });

const isSubsequence = (sub: readonly ProxyEndpoint[], of: readonly ProxyEndpoint[]): boolean => {
  let i = 0;
  for (const e of of) if (i < sub.length && sub[i] === e) i++;
  return i === sub.length;
};

describe('legacy filtering properties', () => {
  it('results are order-preserving subsequences of the input, in a new array', () => {
    fc.assert(
      fc.property(endpointsArb, serviceArb, zoneArb, releaseArb, (endpoints, service, zone, release) => {
        const filtered = filterEndpoints(endpoints, service, nodeIn(zone), release);
        const hinted = filterEndpointsWithHints(endpoints, service.hintsAnnotation, zoneLabels(zone), release.minor);
        expect(isSubsequence(filtered, endpoints)).toBe(true);
        expect(isSubsequence(hinted, endpoints)).toBe(true);
        expect(filtered).not.toBe(endpoints);
        expect(hinted).not.toBe(endpoints);
      }),
    );
  });

  it('filterEndpointsWithHints returns the whole list or a non-empty list of endpoints hinted for the zone', () => {
    fc.assert(
      fc.property(endpointsArb, fc.constantFrom('auto', 'Auto'), zoneArb, fc.constantFrom(...LEGACY_MINORS), (endpoints, annotation, zone, minor) => {
        const out = filterEndpointsWithHints(endpoints, annotation, zoneLabels(zone), minor);
        if (ids(out).join() !== ids(endpoints).join()) {
          expect(out.length).toBeGreaterThan(0);
          expect(out.every((e) => zone !== null && e.zoneHints !== null && e.zoneHints.includes(zone))).toBe(true);
          if (minor >= 23) expect(out.every((e) => e.ready)).toBe(true);
        }
      }),
    );
  });

  it('filterLocalEndpoint keeps exactly the local endpoints', () => {
    fc.assert(
      fc.property(endpointsArb, (endpoints) => {
        expect(filterLocalEndpoint(endpoints)).toEqual(endpoints.filter((e) => e.isLocal));
      }),
    );
  });

  it('categorizeEndpoints for 1.21–1.23 uses the ready part of FilterEndpoints as its cluster set', () => {
    fc.assert(
      fc.property(endpointsArb, serviceArb, zoneArb, releaseArb, (endpoints, service, zone, release) => {
        fc.pre(usesClusterEndpoints(service, release));
        const cluster = categorizeEndpoints(endpoints, service, nodeIn(zone), release).clusterEndpoints;
        expect(cluster).toEqual(filterEndpoints(endpoints, service, nodeIn(zone), release).filter((e) => e.ready));
      }),
    );
  });

  it('inputs are never mutated', () => {
    fc.assert(
      fc.property(endpointsArb, serviceArb, zoneArb, releaseArb, (endpoints, service, zone, release) => {
        const node = nodeIn(zone);
        const before = structuredClone({ endpoints, service, node });
        filterEndpoints(endpoints, service, node, release);
        filterEndpointsWithHints(endpoints, service.hintsAnnotation, node.labels, release.minor);
        filterLocalEndpoint(endpoints);
        expect({ endpoints, service, node }).toEqual(before);
      }),
    );
  });
});
