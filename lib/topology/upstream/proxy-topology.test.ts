import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import { LABEL_TOPOLOGY_ZONE } from './constants';
import { availableForTopology, categorizeEndpoints, hintsAnnotationRule, isHintsAnnotationAccepted, topologyModeForService, topologyModeFromHints } from './proxy-topology';
import { usesClusterEndpoints, usesLocalEndpoints } from './proxy-service-port';
import type { HintsAnnotationRule, ProxyEndpoint, ProxyNode, ProxyRelease, SameNodeFallbackReason, SameZoneFallbackReason, TopologyMode } from './proxy-topology';
import type { ProxyServicePort } from './proxy-service-port';
import { resolveFeatureGates } from './version';
import type { FeatureGateOverrides, KubeMinor } from './version';

// ---- builders ----

function ep(endpoint: string, over: Partial<ProxyEndpoint> = {}): ProxyEndpoint {
  return { endpoint, zoneHints: null, nodeHints: null, ready: true, serving: true, terminating: false, isLocal: false, ...over };
}

function at(minor: KubeMinor, overrides: FeatureGateOverrides = {}): ProxyRelease {
  return { minor, gates: resolveFeatureGates(minor, overrides) };
}

function svc(over: Partial<ProxyServicePort> = {}): ProxyServicePort {
  return { internalTrafficPolicy: 'Cluster', externalTrafficPolicy: 'Cluster', externallyAccessible: false, hintsAnnotation: 'auto', ...over };
}

function nodeIn(zone: string | null, name = 'node-1'): ProxyNode {
  return { name, labels: zone === null ? {} : { [LABEL_TOPOLOGY_ZONE]: zone } };
}

const range = (from: KubeMinor, to: KubeMinor): KubeMinor[] => Array.from({ length: to - from + 1 }, (_, i) => from + i);
const names = (list: readonly ProxyEndpoint[] | null): string[] | null => (list === null ? null : list.map((e) => e.endpoint).sort());

/** Four ready endpoints hinted for zones a, b, c, a — the upstream test fixture. */
const zoneFixture: ProxyEndpoint[] = [
  ep('10.1.2.3:80', { zoneHints: ['zone-a'] }),
  ep('10.1.2.4:80', { zoneHints: ['zone-b'] }),
  ep('10.1.2.5:80', { zoneHints: ['zone-c'] }),
  ep('10.1.2.6:80', { zoneHints: ['zone-a'] }),
];
const ALL = ['10.1.2.3:80', '10.1.2.4:80', '10.1.2.5:80', '10.1.2.6:80'];
const ZONE_A = ['10.1.2.3:80', '10.1.2.6:80'];

// ---- the hints annotation rule ----

describe('hintsAnnotationRule / isHintsAnnotationAccepted', () => {
  const rules: { name: string; release: ProxyRelease; rule: HintsAnnotationRule; accepted: string[]; refused: string[] }[] = [
    { name: '1.21: only lowercase auto', release: at(21), rule: 'lowercase-auto-only', accepted: ['auto'], refused: ['Auto', 'AUTO', '', 'disabled'] },
    {
      name: '1.22–1.26: Auto or auto, nothing else',
      release: at(24),
      rule: 'auto-either-case',
      accepted: ['Auto', 'auto'],
      refused: ['aUto', 'AUTO', '', 'Disabled', 'example.com/custom'],
    },
    {
      name: '1.27–1.29: any non-empty value other than disabled/Disabled',
      release: at(28),
      rule: 'any-except-disabled',
      accepted: ['Auto', 'aUto', 'example.com/x', 'PreferZone'],
      refused: ['', 'disabled', 'Disabled'],
    },
    {
      name: '1.30 with ServiceTrafficDistribution off keeps the 1.27 rule',
      release: at(30, { ServiceTrafficDistribution: false }),
      rule: 'any-except-disabled',
      accepted: ['x'],
      refused: ['', 'Disabled'],
    },
    { name: '1.31 with ServiceTrafficDistribution on ignores the annotation', release: at(31), rule: 'not-consulted', accepted: ['', 'Disabled', 'x'], refused: [] },
    { name: '1.33+: annotation not consulted', release: at(36), rule: 'not-consulted', accepted: ['', 'disabled'], refused: [] },
  ];
  it.each(rules)('$name', ({ release, rule, accepted, refused }) => {
    expect(hintsAnnotationRule(release)).toBe(rule);
    for (const value of accepted) expect(isHintsAnnotationAccepted(value, release), value).toBe(true);
    for (const value of refused) expect(isHintsAnnotationAccepted(value, release), value).toBe(false);
  });
});

// ---- the cluster set, release by release ----

interface ClusterCase {
  name: string;
  minors: KubeMinor[];
  gates?: FeatureGateOverrides;
  legacyGates?: ProxyRelease['legacyGates'];
  service?: Partial<ProxyServicePort>;
  node?: ProxyNode;
  endpoints?: ProxyEndpoint[];
  cluster: string[];
}

const clusterCases: ClusterCase[] = [
  { name: '1.21: lowercase auto enables hint filtering', minors: [21], gates: { TopologyAwareHints: true }, cluster: ZONE_A },
  { name: '1.21: capitalised Auto is refused', minors: [21], gates: { TopologyAwareHints: true }, service: { hintsAnnotation: 'Auto' }, cluster: ALL },
  { name: '1.22–1.26: Auto enables hints', minors: range(22, 26), gates: { TopologyAwareHints: true }, service: { hintsAnnotation: 'Auto' }, cluster: ZONE_A },
  { name: '1.22–1.26: wrong casing aUto is refused', minors: range(22, 26), gates: { TopologyAwareHints: true }, service: { hintsAnnotation: 'aUto' }, cluster: ALL },
  {
    name: '1.27–1.29: any non-empty annotation other than disabled enables hint use',
    minors: range(27, 29),
    service: { hintsAnnotation: 'example.com/custom' },
    cluster: ZONE_A,
  },
  { name: '1.27–1.29: Disabled keeps every endpoint', minors: range(27, 29), service: { hintsAnnotation: 'Disabled' }, cluster: ALL },
  { name: '1.24–1.29: no annotation keeps every endpoint', minors: range(24, 29), service: { hintsAnnotation: '' }, cluster: ALL },
  {
    name: '1.30: ServiceTrafficDistribution off → empty annotation keeps every endpoint',
    minors: [30],
    gates: { ServiceTrafficDistribution: false },
    service: { hintsAnnotation: '' },
    cluster: ALL,
  },
  {
    name: '1.30–1.32: ServiceTrafficDistribution on → annotation not consulted, hints used',
    minors: range(30, 32),
    gates: { ServiceTrafficDistribution: true },
    service: { hintsAnnotation: '' },
    cluster: ZONE_A,
  },
  { name: '1.33+: hints used whatever the annotation says', minors: range(33, 36), service: { hintsAnnotation: 'Disabled' }, cluster: ZONE_A },
  { name: '1.22–1.32: TopologyAwareHints gate off keeps every endpoint', minors: range(22, 32), gates: { TopologyAwareHints: false }, cluster: ALL },
  { name: '1.33+: TopologyAwareHints gate is no longer checked', minors: range(33, 36), gates: { TopologyAwareHints: false }, cluster: ZONE_A },
  { name: 'node in a zone nobody is hinted for keeps every endpoint', minors: range(21, 36), gates: { TopologyAwareHints: true }, node: nodeIn('zone-z'), cluster: ALL },
  {
    name: 'multiple hints per endpoint: any endpoint whose hints include the zone',
    minors: range(21, 36),
    gates: { TopologyAwareHints: true },
    node: nodeIn('zone-c'),
    endpoints: [
      ep('10.1.2.3:80', { zoneHints: ['zone-a', 'zone-b', 'zone-c'] }),
      ep('10.1.2.4:80', { zoneHints: ['zone-b', 'zone-c'] }),
      ep('10.1.2.5:80', { zoneHints: ['zone-b', 'zone-d'] }),
      ep('10.1.2.6:80', { zoneHints: ['zone-c'] }),
    ],
    cluster: ['10.1.2.3:80', '10.1.2.4:80', '10.1.2.6:80'],
  },
  {
    name: 'an endpoint without a zone hint disables topology (transition safety)',
    minors: range(21, 36),
    gates: { TopologyAwareHints: true },
    endpoints: [ep('10.1.2.3:80', { zoneHints: ['zone-a'] }), ep('10.1.2.4:80', { zoneHints: null }), ep('10.1.2.5:80', { zoneHints: ['zone-b'] })],
    cluster: ['10.1.2.3:80', '10.1.2.4:80', '10.1.2.5:80'],
  },
  {
    name: 'an empty forZones list counts as no hint',
    minors: range(21, 36),
    gates: { TopologyAwareHints: true },
    endpoints: [ep('10.1.2.3:80', { zoneHints: ['zone-a'] }), ep('10.1.2.4:80', { zoneHints: [] })],
    cluster: ['10.1.2.3:80', '10.1.2.4:80'],
  },
  {
    name: '1.21–1.32: node without zone label never uses hints, even ones for the empty zone',
    minors: range(21, 32),
    gates: { TopologyAwareHints: true },
    node: nodeIn(null),
    endpoints: [ep('10.1.2.3:80', { zoneHints: [''] }), ep('10.1.2.4:80', { zoneHints: ['zone-a'] })],
    cluster: ['10.1.2.3:80', '10.1.2.4:80'],
  },
  {
    name: '1.33+: node without zone label matches only endpoints hinted for the empty zone',
    minors: range(33, 36),
    node: nodeIn(null),
    endpoints: [ep('10.1.2.3:80', { zoneHints: [''] }), ep('10.1.2.4:80', { zoneHints: ['zone-a'] })],
    cluster: ['10.1.2.3:80'],
  },
  { name: '1.33+: node with an empty zone label and no "" hints keeps every endpoint', minors: range(33, 36), node: nodeIn(''), cluster: ALL },
  {
    name: '1.23+: an unready endpoint without hints does not block topology',
    minors: range(23, 36),
    gates: { TopologyAwareHints: true },
    endpoints: [ep('10.1.2.3:80', { zoneHints: ['zone-a'] }), ep('10.1.2.4:80', { zoneHints: ['zone-b'] }), ep('10.1.2.9:80', { ready: false, serving: false })],
    cluster: ['10.1.2.3:80'],
  },
  {
    name: '1.21–1.22: readiness-blind check — an unready unhinted endpoint blocks topology',
    minors: [21, 22],
    gates: { TopologyAwareHints: true },
    endpoints: [ep('10.1.2.3:80', { zoneHints: ['zone-a'] }), ep('10.1.2.4:80', { zoneHints: ['zone-b'] }), ep('10.1.2.9:80', { ready: false, serving: false })],
    cluster: ['10.1.2.3:80', '10.1.2.4:80'],
  },
  {
    name: '1.23+: only unready endpoints in the zone → no filtering, ready ones elsewhere serve',
    minors: range(23, 36),
    gates: { TopologyAwareHints: true },
    endpoints: [
      ep('10.1.2.3:80', { zoneHints: ['zone-a'], ready: false, serving: false }),
      ep('10.1.2.4:80', { zoneHints: ['zone-b'] }),
      ep('10.1.2.5:80', { zoneHints: ['zone-c'] }),
    ],
    cluster: ['10.1.2.4:80', '10.1.2.5:80'],
  },
  {
    name: '1.21–1.22: only unready endpoints in the zone → filtered to them, leaving no usable endpoint',
    minors: [21, 22],
    gates: { TopologyAwareHints: true },
    endpoints: [
      ep('10.1.2.3:80', { zoneHints: ['zone-a'], ready: false, serving: false }),
      ep('10.1.2.4:80', { zoneHints: ['zone-b'] }),
      ep('10.1.2.5:80', { zoneHints: ['zone-c'] }),
    ],
    cluster: [],
  },
  {
    name: '1.33+ PreferSameNode gate on: only endpoints hinted for this node',
    minors: range(33, 36),
    gates: { PreferSameTrafficDistribution: true },
    endpoints: [
      ep('10.1.2.3:80', { zoneHints: ['zone-a'], nodeHints: ['node-1'] }),
      ep('10.1.2.4:80', { zoneHints: ['zone-b'], nodeHints: ['node-2'] }),
      ep('10.1.2.6:80', { zoneHints: ['zone-a'], nodeHints: ['node-4'] }),
    ],
    cluster: ['10.1.2.3:80'],
  },
  {
    name: '1.33+ PreferSameTrafficDistribution gate off: node hints ignored, zone hints used',
    minors: range(33, 36),
    gates: { PreferSameTrafficDistribution: false },
    endpoints: [
      ep('10.1.2.3:80', { zoneHints: ['zone-a'], nodeHints: ['node-1'] }),
      ep('10.1.2.4:80', { zoneHints: ['zone-b'], nodeHints: ['node-2'] }),
      ep('10.1.2.6:80', { zoneHints: ['zone-a'], nodeHints: ['node-4'] }),
    ],
    cluster: ['10.1.2.3:80', '10.1.2.6:80'],
  },
  {
    name: 'before 1.33 node hints are not read, even with the PreferSame gate forced on',
    minors: range(24, 32),
    gates: { PreferSameTrafficDistribution: true },
    endpoints: [ep('10.1.2.3:80', { zoneHints: ['zone-a'], nodeHints: ['node-1'] }), ep('10.1.2.6:80', { zoneHints: ['zone-a'], nodeHints: ['node-4'] })],
    cluster: ['10.1.2.3:80', '10.1.2.6:80'],
  },
  {
    name: '1.33+ PreferSameNode: no endpoint hinted for this node → zone hints used',
    minors: range(33, 36),
    gates: { PreferSameTrafficDistribution: true },
    endpoints: [
      ep('10.1.2.4:80', { zoneHints: ['zone-b'], nodeHints: ['node-2'] }),
      ep('10.1.2.6:80', { zoneHints: ['zone-a'], nodeHints: ['node-4'] }),
    ],
    cluster: ['10.1.2.6:80'],
  },
  {
    name: '1.33+ PreferSameNode: a ready endpoint without node hint → every ready endpoint',
    minors: range(33, 36),
    gates: { PreferSameTrafficDistribution: true },
    endpoints: [ep('10.1.2.3:80', { zoneHints: ['zone-a'], nodeHints: ['node-1'] }), ep('10.1.2.4:80'), ep('10.1.2.5:80', { zoneHints: ['zone-c'], nodeHints: ['node-3'] })],
    cluster: ['10.1.2.3:80', '10.1.2.4:80', '10.1.2.5:80'],
  },
  {
    name: '1.21–1.23: externalTrafficPolicy Local on an external Service disables hint filtering',
    minors: range(21, 23),
    gates: { TopologyAwareHints: true },
    service: { externalTrafficPolicy: 'Local', externallyAccessible: true },
    cluster: ALL,
  },
  {
    name: '1.24+: externalTrafficPolicy Local still gets topology for the cluster set',
    minors: range(24, 36),
    service: { externalTrafficPolicy: 'Local', externallyAccessible: true },
    cluster: ZONE_A,
  },
  {
    name: '1.21: EndpointSliceProxying gate off → no hints',
    minors: [21],
    gates: { TopologyAwareHints: true },
    legacyGates: { EndpointSliceProxying: false },
    cluster: ALL,
  },
];

describe('categorizeEndpoints: cluster set by release', () => {
  for (const c of clusterCases) {
    it(c.name, () => {
      for (const minor of c.minors) {
        const release: ProxyRelease = { ...at(minor, c.gates), legacyGates: c.legacyGates };
        const result = categorizeEndpoints(c.endpoints ?? zoneFixture, svc(c.service), c.node ?? nodeIn('zone-a'), release);
        expect(names(result.clusterEndpoints), `at 1.${minor}`).toEqual([...c.cluster].sort());
      }
    });
  }
});

// ---- terminating fallback, local policy, reachable union ----

describe('categorizeEndpoints: terminating fallback and local policy', () => {
  const terminating = [ep('10.0.0.0:80', { ready: false, serving: true, terminating: true, isLocal: true }), ep('10.0.0.1:80', { ready: false, serving: true, terminating: true })];

  it('1.26+: cluster set falls back to serving-terminating endpoints when none is ready', () => {
    for (const minor of range(26, 36)) {
      const r = categorizeEndpoints(terminating, svc({ hintsAnnotation: '' }), nodeIn(null), at(minor, { ProxyTerminatingEndpoints: true }));
      expect(names(r.clusterEndpoints), `1.${minor}`).toEqual(['10.0.0.0:80', '10.0.0.1:80']);
      expect(r.hasAnyEndpoints).toBe(true);
    }
  });

  it('1.24–1.25: no cluster-wide terminating fallback, even with ProxyTerminatingEndpoints on', () => {
    for (const minor of [24, 25]) {
      const r = categorizeEndpoints(terminating, svc(), nodeIn(null), at(minor, { ProxyTerminatingEndpoints: true }));
      expect(r.clusterEndpoints).toEqual([]);
      expect(r.hasAnyEndpoints).toBe(false);
    }
  });

  it('1.26–1.27 with ProxyTerminatingEndpoints off: terminating endpoints neither serve nor count', () => {
    for (const minor of [26, 27]) {
      const r = categorizeEndpoints(terminating, svc(), nodeIn(null), at(minor, { ProxyTerminatingEndpoints: false }));
      expect(r.clusterEndpoints).toEqual([]);
      expect(r.hasAnyEndpoints).toBe(false);
    }
  });

  it('1.28+: ProxyTerminatingEndpoints is GA, a gate override does not stop the fallback', () => {
    const r = categorizeEndpoints(terminating, svc(), nodeIn(null), at(28, { ProxyTerminatingEndpoints: false }));
    expect(names(r.clusterEndpoints)).toEqual(['10.0.0.0:80', '10.0.0.1:80']);
  });

  it('the terminating fallback ignores topology', () => {
    const hinted = [
      ep('10.0.0.0:80', { ready: false, serving: true, terminating: true, zoneHints: ['zone-b'] }),
      ep('10.0.0.1:80', { ready: false, serving: true, terminating: true, zoneHints: ['zone-a'] }),
    ];
    const r = categorizeEndpoints(hinted, svc(), nodeIn('zone-a'), at(33));
    expect(names(r.clusterEndpoints)).toEqual(['10.0.0.0:80', '10.0.0.1:80']);
  });

  it('unready endpoints that are not serving-terminating are never used', () => {
    const r = categorizeEndpoints([ep('10.0.0.0:80', { ready: false, serving: true, terminating: false })], svc(), nodeIn(null), at(36));
    expect(r.clusterEndpoints).toEqual([]);
    expect(r.hasAnyEndpoints).toBe(false);
  });

  it('iTP Local internal-only Service: cluster null, local = this node’s ready endpoints', () => {
    const eps = [ep('10.0.0.0:80', { isLocal: true }), ep('10.0.0.1:80')];
    const r = categorizeEndpoints(eps, svc({ internalTrafficPolicy: 'Local' }), nodeIn(null), at(30));
    expect(r.clusterEndpoints).toBeNull();
    expect(names(r.localEndpoints)).toEqual(['10.0.0.0:80']);
    expect(names(r.allReachableEndpoints)).toEqual(['10.0.0.0:80']);
    expect(r.hasAnyEndpoints).toBe(true);
  });

  it('Local policy with no local endpoint: [] (used but empty), not null; hasAny still true', () => {
    const eps = [ep('10.0.0.0:80'), ep('10.0.0.1:80')];
    const r = categorizeEndpoints(eps, svc({ internalTrafficPolicy: 'Local', externalTrafficPolicy: 'Local', externallyAccessible: true }), nodeIn(null), at(30));
    expect(r.localEndpoints).toEqual([]);
    expect(names(r.clusterEndpoints)).toEqual(['10.0.0.0:80', '10.0.0.1:80']);
    expect(r.hasAnyEndpoints).toBe(true);
  });

  it('eTP Local: local falls back to local serving-terminating endpoints and reachable is the union', () => {
    const eps = [
      ep('10.0.0.0:80'),
      ep('10.0.0.1:80', { ready: false, serving: false, isLocal: true }),
      ep('10.0.0.2:80', { ready: false, serving: true, terminating: true, isLocal: true }),
      ep('10.0.0.3:80', { ready: false, serving: true, terminating: true }),
    ];
    const service = svc({ externalTrafficPolicy: 'Local', externallyAccessible: true, hintsAnnotation: '' });
    const r = categorizeEndpoints(eps, service, nodeIn(null), at(33));
    expect(names(r.clusterEndpoints)).toEqual(['10.0.0.0:80']);
    expect(names(r.localEndpoints)).toEqual(['10.0.0.2:80']);
    expect(names(r.allReachableEndpoints)).toEqual(['10.0.0.0:80', '10.0.0.2:80']);
  });

  it('topology narrowing the cluster set makes reachable the union with local endpoints', () => {
    const eps = [
      ep('10.0.0.0:80', { zoneHints: ['zone-a'], isLocal: true }),
      ep('10.0.0.1:80', { zoneHints: ['zone-b'], isLocal: true }),
      ep('10.0.0.2:80', { zoneHints: ['zone-a'] }),
      ep('10.0.0.3:80', { zoneHints: ['zone-b'] }),
    ];
    const r = categorizeEndpoints(eps, svc({ externalTrafficPolicy: 'Local', externallyAccessible: true }), nodeIn('zone-a'), at(33));
    expect(names(r.clusterEndpoints)).toEqual(['10.0.0.0:80', '10.0.0.2:80']);
    expect(names(r.localEndpoints)).toEqual(['10.0.0.0:80', '10.0.0.1:80']);
    expect(names(r.allReachableEndpoints)).toEqual(['10.0.0.0:80', '10.0.0.1:80', '10.0.0.2:80']);
  });

  it('1.21–1.23: iTP Local on an externally accessible Service restricts every chain to local endpoints', () => {
    const eps = [ep('10.0.0.0:80', { isLocal: true }), ep('10.0.0.1:80')];
    for (const minor of [22, 23]) {
      const r = categorizeEndpoints(eps, svc({ internalTrafficPolicy: 'Local', externallyAccessible: true }), nodeIn(null), at(minor));
      expect(names(r.clusterEndpoints)).toEqual(['10.0.0.0:80']);
    }
    const modern = categorizeEndpoints(eps, svc({ internalTrafficPolicy: 'Local', externallyAccessible: true }), nodeIn(null), at(24));
    expect(names(modern.clusterEndpoints)).toEqual(['10.0.0.0:80', '10.0.0.1:80']);
  });

  it('empty endpoint list: 1.35+ returns null lists, 1.24–1.34 an empty local list', () => {
    const service = svc({ internalTrafficPolicy: 'Local' });
    for (const minor of range(24, 34)) {
      expect(categorizeEndpoints([], service, nodeIn(null), at(minor))).toEqual({
        clusterEndpoints: null,
        localEndpoints: [],
        allReachableEndpoints: [],
        hasAnyEndpoints: false,
      });
    }
    for (const minor of [35, 36]) {
      expect(categorizeEndpoints([], service, nodeIn(null), at(minor))).toEqual({
        clusterEndpoints: null,
        localEndpoints: null,
        allReachableEndpoints: null,
        hasAnyEndpoints: false,
      });
    }
  });
});

// ---- the typed fallback reasons ----

describe('topologyModeForService: mode and typed fallback reason', () => {
  interface ReasonCase {
    name: string;
    release: ProxyRelease;
    service?: Partial<ProxyServicePort>;
    node?: ProxyNode;
    endpoints?: ProxyEndpoint[];
    mode: TopologyMode;
    reason: SameZoneFallbackReason | null;
    sameNodeReason: SameNodeFallbackReason | null;
    messageIncludes: string;
  }
  const nodeHinted = [
    ep('10.0.0.1:80', { zoneHints: ['zone-a'], nodeHints: ['node-1'] }),
    ep('10.0.0.2:80', { zoneHints: ['zone-a'], nodeHints: ['node-2'] }),
  ];
  const cases: ReasonCase[] = [
    { name: 'hints usable → PreferSameZone; before 1.33 node hints unsupported', release: at(29), mode: 'PreferSameZone', reason: null, sameNodeReason: 'node-hints-not-supported', messageIncludes: 'zone-a' },
    { name: 'gate off (≤1.32) → topology-aware-hints-gate-off', release: at(24, { TopologyAwareHints: false }), mode: 'none', reason: 'topology-aware-hints-gate-off', sameNodeReason: 'node-hints-not-supported', messageIncludes: 'TopologyAwareHints' },
    { name: 'annotation refused → annotation-not-accepted naming the release rule', release: at(21, { TopologyAwareHints: true }), service: { hintsAnnotation: 'Auto' }, mode: 'none', reason: 'annotation-not-accepted', sameNodeReason: 'node-hints-not-supported', messageIncludes: 'exactly "auto"' },
    { name: 'no annotation in 1.27 → annotation-not-accepted (not set)', release: at(27), service: { hintsAnnotation: '' }, mode: 'none', reason: 'annotation-not-accepted', sameNodeReason: 'node-hints-not-supported', messageIncludes: 'not set' },
    { name: 'node without zone label (≤1.32) → node-missing-zone-label', release: at(28), node: nodeIn(null), mode: 'none', reason: 'node-missing-zone-label', sameNodeReason: 'node-hints-not-supported', messageIncludes: LABEL_TOPOLOGY_ZONE },
    { name: 'node without zone label (1.33+) and no "" hints → node-missing-zone-label', release: at(33), node: nodeIn(null), mode: 'none', reason: 'node-missing-zone-label', sameNodeReason: 'prefer-same-traffic-distribution-gate-off', messageIncludes: LABEL_TOPOLOGY_ZONE },
    { name: 'an endpoint has no zone hint → endpoint-missing-zone-hint', release: at(30), endpoints: [ep('10.0.0.1:80', { zoneHints: ['zone-a'] }), ep('10.0.0.2:80')], mode: 'none', reason: 'endpoint-missing-zone-hint', sameNodeReason: 'node-hints-not-supported', messageIncludes: 'no zone hint' },
    { name: 'no endpoint hinted for the zone → no-endpoint-for-zone', release: at(30), node: nodeIn('zone-z'), mode: 'none', reason: 'no-endpoint-for-zone', sameNodeReason: 'node-hints-not-supported', messageIncludes: 'zone-z' },
    { name: 'no endpoints → no-endpoints', release: at(30), endpoints: [], mode: 'none', reason: 'no-endpoints', sameNodeReason: 'node-hints-not-supported', messageIncludes: 'no endpoints' },
    { name: '1.33+: nothing ready → no-ready-endpoints for both modes', release: at(34), endpoints: [ep('10.0.0.1:80', { ready: false })], mode: 'none', reason: 'no-ready-endpoints', sameNodeReason: 'no-ready-endpoints', messageIncludes: 'ready' },
    { name: '1.24+: iTP Local internal-only Service → internal-traffic-policy-local', release: at(34), service: { internalTrafficPolicy: 'Local' }, mode: 'none', reason: 'internal-traffic-policy-local', sameNodeReason: 'internal-traffic-policy-local', messageIncludes: 'internalTrafficPolicy' },
    { name: '1.21–1.23: eTP Local → external-traffic-policy-local', release: at(23, { TopologyAwareHints: true }), service: { externalTrafficPolicy: 'Local', externallyAccessible: true }, mode: 'none', reason: 'external-traffic-policy-local', sameNodeReason: 'node-hints-not-supported', messageIncludes: 'externalTrafficPolicy' },
    { name: '1.21: ServiceTopology gate on → service-topology-gate-on', release: { ...at(21, { TopologyAwareHints: true }), legacyGates: { ServiceTopology: true } }, mode: 'none', reason: 'service-topology-gate-on', sameNodeReason: 'node-hints-not-supported', messageIncludes: 'ServiceTopology' },
    { name: '1.21: EndpointSliceProxying gate off → endpoint-slice-proxying-gate-off', release: { ...at(21, { TopologyAwareHints: true }), legacyGates: { EndpointSliceProxying: false } }, mode: 'none', reason: 'endpoint-slice-proxying-gate-off', sameNodeReason: 'node-hints-not-supported', messageIncludes: 'EndpointSliceProxying' },
    { name: '1.33+ with the PreferSame gate and this node hinted → PreferSameNode', release: at(34), endpoints: nodeHinted, mode: 'PreferSameNode', reason: null, sameNodeReason: null, messageIncludes: 'node-1' },
    { name: '1.33 PreferSame gate off (its default) → zone mode, reason names the gate', release: at(33), endpoints: nodeHinted, mode: 'PreferSameZone', reason: null, sameNodeReason: 'prefer-same-traffic-distribution-gate-off', messageIncludes: 'zone-a' },
    { name: '1.34+: other node → PreferSameZone with no-endpoint-for-node', release: at(34), node: nodeIn('zone-a', 'node-9'), endpoints: nodeHinted, mode: 'PreferSameZone', reason: null, sameNodeReason: 'no-endpoint-for-node', messageIncludes: 'node-9' },
    { name: '1.34+: an endpoint lacks node hints → PreferSameZone with endpoint-missing-node-hint', release: at(35), mode: 'PreferSameZone', reason: null, sameNodeReason: 'endpoint-missing-node-hint', messageIncludes: 'no node hint' },
  ];
  it.each(cases)('$name', (c) => {
    const decision = topologyModeForService(c.endpoints ?? zoneFixture, svc(c.service), c.node ?? nodeIn('zone-a'), c.release);
    expect(decision.mode).toBe(c.mode);
    expect(decision.reason).toBe(c.reason);
    expect(decision.sameNodeReason).toBe(c.sameNodeReason);
    expect(decision.message).toContain(c.messageIncludes);
  });

  it('topologyModeFromHints does not check traffic policy or the TopologyAwareHints gate', () => {
    const decision = topologyModeFromHints(zoneFixture, 'auto', nodeIn('zone-a'), at(24, { TopologyAwareHints: false }));
    expect(decision.mode).toBe('PreferSameZone');
  });

  it('availableForTopology: none accepts all, zone/node modes need a matching hint', () => {
    const e = ep('1.1.1.1:1', { zoneHints: ['zone-a', 'zone-b'], nodeHints: ['node-1'] });
    expect(availableForTopology(e, 'none', 'x', 'y')).toBe(true);
    expect(availableForTopology(e, 'PreferSameZone', 'x', 'zone-b')).toBe(true);
    expect(availableForTopology(e, 'PreferSameZone', 'x', 'zone-c')).toBe(false);
    expect(availableForTopology(e, 'PreferSameNode', 'node-1', 'zone-c')).toBe(true);
    expect(availableForTopology(e, 'PreferSameNode', 'node-2', 'zone-a')).toBe(false);
  });
});

// ---- properties ----

const ZONES = ['zone-a', 'zone-b', ''];
const NODES = ['node-1', 'node-2'];

const hintsArb = (pool: string[]) => fc.option(fc.uniqueArray(fc.constantFrom(...pool), { maxLength: 3 }), { nil: null });

const endpointArb: fc.Arbitrary<Omit<ProxyEndpoint, 'endpoint'>> = fc.record({
  zoneHints: hintsArb(ZONES),
  nodeHints: hintsArb(NODES),
  ready: fc.boolean(),
  serving: fc.boolean(),
  terminating: fc.boolean(),
  isLocal: fc.boolean(),
});

const endpointsArb: fc.Arbitrary<ProxyEndpoint[]> = fc
  .uniqueArray(fc.integer({ min: 0, max: 40 }), { maxLength: 8 })
  .chain((ids) => fc.tuple(...ids.map(() => endpointArb)).map((eps) => eps.map((e, i) => ({ endpoint: `10.0.0.${ids[i]}:80`, ...e }))));

const releaseArb: fc.Arbitrary<ProxyRelease> = fc
  .record({
    minor: fc.integer({ min: 21, max: 36 }),
    overrides: fc.record(
      {
        TopologyAwareHints: fc.boolean(),
        ServiceTrafficDistribution: fc.boolean(),
        PreferSameTrafficDistribution: fc.boolean(),
        ProxyTerminatingEndpoints: fc.boolean(),
        ServiceInternalTrafficPolicy: fc.boolean(),
      },
      { requiredKeys: [] },
    ),
  })
  .map(({ minor, overrides }) => at(minor, overrides));

const serviceArb: fc.Arbitrary<ProxyServicePort> = fc.record({
  internalTrafficPolicy: fc.constantFrom('Cluster' as const, 'Local' as const),
  externalTrafficPolicy: fc.constantFrom('Cluster' as const, 'Local' as const),
  externallyAccessible: fc.boolean(),
  hintsAnnotation: fc.constantFrom('', 'auto', 'Auto', 'disabled', 'example.com/x'),
});

const nodeArb: fc.Arbitrary<ProxyNode> = fc.record({
  name: fc.constantFrom(...NODES),
  labels: fc.option(fc.constantFrom(...ZONES), { nil: null }).map((zone): Record<string, string> => (zone === null ? {} : { [LABEL_TOPOLOGY_ZONE]: zone })),
});

const subsetOf = (list: readonly ProxyEndpoint[] | null, of: readonly ProxyEndpoint[]) => list === null || list.every((e) => of.includes(e));

describe('categorizeEndpoints properties', () => {
  it('every returned list is a subset of the input; local ones are local; reachable = cluster ∪ local', () => {
    fc.assert(
      fc.property(endpointsArb, serviceArb, nodeArb, releaseArb, (endpoints, service, node, release) => {
        const r = categorizeEndpoints(endpoints, service, node, release);
        expect(subsetOf(r.clusterEndpoints, endpoints)).toBe(true);
        expect(subsetOf(r.localEndpoints, endpoints)).toBe(true);
        expect(subsetOf(r.allReachableEndpoints, endpoints)).toBe(true);
        expect((r.localEndpoints ?? []).every((e) => e.isLocal)).toBe(true);
        if (r.allReachableEndpoints !== null) {
          const union = new Set([...(r.clusterEndpoints ?? []), ...(r.localEndpoints ?? [])].map((e) => e.endpoint));
          expect(names(r.allReachableEndpoints)).toEqual([...union].sort());
        }
      }),
    );
  });

  it('the cluster set is null exactly when the Service never uses it; local likewise', () => {
    fc.assert(
      fc.property(endpointsArb, serviceArb, nodeArb, releaseArb, (endpoints, service, node, release) => {
        fc.pre(endpoints.length > 0);
        const r = categorizeEndpoints(endpoints, service, node, release);
        expect(r.clusterEndpoints === null).toBe(!usesClusterEndpoints(service, release));
        expect(r.localEndpoints === null).toBe(!usesLocalEndpoints(service, release));
      }),
    );
  });

  it('cluster set: ready endpoints only, unless none qualify and it fell back to serving-terminating ones', () => {
    fc.assert(
      fc.property(endpointsArb, serviceArb, nodeArb, releaseArb, (endpoints, service, node, release) => {
        const cluster = categorizeEndpoints(endpoints, service, node, release).clusterEndpoints ?? [];
        const allReady = cluster.every((e) => e.ready);
        const allServingTerminating = cluster.every((e) => e.serving && e.terminating);
        expect(allReady || allServingTerminating).toBe(true);
        if (!allReady) expect(endpoints.some((e) => e.ready)).toBe(false);
      }),
    );
  });

  it('with every endpoint hinted for the node’s zone, every ready endpoint is selected', () => {
    fc.assert(
      fc.property(endpointsArb, releaseArb, fc.constantFrom('zone-a', 'zone-b'), (raw, release, zone) => {
        const endpoints = raw.map((e) => ({ ...e, zoneHints: [zone], nodeHints: null }));
        fc.pre(endpoints.some((e) => e.ready));
        const on: ProxyRelease = { ...release, gates: { ...release.gates, TopologyAwareHints: true } };
        const r = categorizeEndpoints(endpoints, svc({ hintsAnnotation: 'auto' }), nodeIn(zone), on);
        expect(names(r.clusterEndpoints)).toEqual(names(endpoints.filter((e) => e.ready)));
        expect(topologyModeForService(endpoints, svc({ hintsAnnotation: 'auto' }), nodeIn(zone), on).mode).toBe('PreferSameZone');
      }),
    );
  });

  it('1.24+: with no topology the cluster set is every ready endpoint (when any is ready)', () => {
    fc.assert(
      fc.property(endpointsArb, serviceArb, nodeArb, releaseArb, (endpoints, service, node, release) => {
        fc.pre(release.minor >= 24 && usesClusterEndpoints(service, release) && endpoints.some((e) => e.ready));
        if (topologyModeForService(endpoints, service, node, release).mode !== 'none') return;
        const r = categorizeEndpoints(endpoints, service, node, release);
        expect(names(r.clusterEndpoints)).toEqual(names(endpoints.filter((e) => e.ready)));
      }),
    );
  });

  it('hasAnyEndpoints false ⇒ cluster and local lists are empty (or unused)', () => {
    fc.assert(
      fc.property(endpointsArb, serviceArb, nodeArb, releaseArb, (endpoints, service, node, release) => {
        const r = categorizeEndpoints(endpoints, service, node, release);
        if (!r.hasAnyEndpoints) {
          expect(r.clusterEndpoints ?? []).toEqual([]);
          expect(r.localEndpoints ?? []).toEqual([]);
        }
      }),
    );
  });

  it('decision reasons are consistent with the mode; PreferSameNode needs 1.33+ and its gate', () => {
    fc.assert(
      fc.property(endpointsArb, serviceArb, nodeArb, releaseArb, (endpoints, service, node, release) => {
        const d = topologyModeForService(endpoints, service, node, release);
        expect(d.reason === null).toBe(d.mode !== 'none');
        expect(d.sameNodeReason === null).toBe(d.mode === 'PreferSameNode');
        if (d.mode === 'PreferSameNode') expect(release.minor >= 33 && release.gates.PreferSameTrafficDistribution).toBe(true);
        expect(d.message.length).toBeGreaterThan(0);
      }),
    );
  });

  it('inputs are never mutated (deeply frozen inputs work and stay equal)', () => {
    const deepFreeze = <T>(value: T): T => {
      if (value !== null && typeof value === 'object') {
        for (const inner of Object.values(value)) deepFreeze(inner);
        Object.freeze(value);
      }
      return value;
    };
    fc.assert(
      fc.property(endpointsArb, serviceArb, nodeArb, releaseArb, (endpoints, service, node, release) => {
        const before = structuredClone({ endpoints, service, node, release });
        deepFreeze({ endpoints, service, node, release });
        categorizeEndpoints(endpoints, service, node, release);
        topologyModeForService(endpoints, service, node, release);
        expect({ endpoints, service, node, release }).toEqual(before);
      }),
    );
  });

  it('same input, same output', () => {
    fc.assert(
      fc.property(endpointsArb, serviceArb, nodeArb, releaseArb, (endpoints, service, node, release) => {
        const copy = structuredClone({ endpoints, service, node, release });
        expect(categorizeEndpoints(copy.endpoints, copy.service, copy.node, copy.release)).toEqual(categorizeEndpoints(endpoints, service, node, release));
        expect(topologyModeForService(copy.endpoints, copy.service, copy.node, copy.release)).toEqual(topologyModeForService(endpoints, service, node, release));
      }),
    );
  });
});
