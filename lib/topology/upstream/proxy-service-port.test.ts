import { describe, expect, it } from 'vitest';

import { ANNOTATION_TOPOLOGY_MODE, DEPRECATED_ANNOTATION_TOPOLOGY_AWARE_HINTS } from './constants';
import type { ProxyServicePort } from './proxy-service-port';
import { effectiveHintsAnnotation, usesClusterEndpoints, usesLocalEndpoints } from './proxy-service-port';
import type { ProxyRelease } from './proxy-topology';
import { resolveFeatureGates } from './version';
import type { FeatureGateOverrides, KubeMinor } from './version';

function at(minor: KubeMinor, overrides: FeatureGateOverrides = {}): ProxyRelease {
  return { minor, gates: resolveFeatureGates(minor, overrides) };
}

function svc(over: Partial<ProxyServicePort> = {}): ProxyServicePort {
  return { internalTrafficPolicy: 'Cluster', externalTrafficPolicy: 'Cluster', externallyAccessible: false, hintsAnnotation: 'auto', ...over };
}

describe('effectiveHintsAnnotation', () => {
  const cases: { name: string; annotations: Record<string, string> | null; minor?: KubeMinor; expected: string }[] = [
    {
      name: 'deprecated key wins when present, even with an empty value',
      annotations: { [DEPRECATED_ANNOTATION_TOPOLOGY_AWARE_HINTS]: '', [ANNOTATION_TOPOLOGY_MODE]: 'Auto' },
      minor: 30,
      expected: '',
    },
    {
      name: 'deprecated key wins over topology-mode when both carry values',
      annotations: { [DEPRECATED_ANNOTATION_TOPOLOGY_AWARE_HINTS]: 'disabled', [ANNOTATION_TOPOLOGY_MODE]: 'Auto' },
      minor: 28,
      expected: 'disabled',
    },
    { name: '1.27+: topology-mode is used when the deprecated key is absent', annotations: { [ANNOTATION_TOPOLOGY_MODE]: 'Auto' }, minor: 27, expected: 'Auto' },
    { name: 'before 1.27 only the deprecated key is known', annotations: { [ANNOTATION_TOPOLOGY_MODE]: 'Auto' }, minor: 26, expected: '' },
    { name: 'before 1.27 the deprecated key is read', annotations: { [DEPRECATED_ANNOTATION_TOPOLOGY_AWARE_HINTS]: 'auto' }, minor: 24, expected: 'auto' },
    { name: 'no key → empty value', annotations: { unrelated: 'x' }, minor: 33, expected: '' },
    { name: 'no annotations at all → empty value', annotations: null, expected: '' },
    { name: 'without a release the newest behaviour applies (topology-mode known)', annotations: { [ANNOTATION_TOPOLOGY_MODE]: 'Auto' }, expected: 'Auto' },
  ];
  it.each(cases)('$name', ({ annotations, minor, expected }) => {
    expect(effectiveHintsAnnotation(annotations, minor)).toBe(expected);
  });
});

describe('usesClusterEndpoints / usesLocalEndpoints', () => {
  const cases: { name: string; service: ProxyServicePort; release: ProxyRelease; cluster: boolean; local: boolean }[] = [
    { name: 'iTP Cluster, not external: cluster only', service: svc(), release: at(30), cluster: true, local: false },
    { name: 'iTP Local, internal only: local only', service: svc({ internalTrafficPolicy: 'Local' }), release: at(30), cluster: false, local: true },
    {
      name: 'iTP Local but externally accessible: both (external traffic uses eTP Cluster)',
      service: svc({ internalTrafficPolicy: 'Local', externallyAccessible: true }),
      release: at(30),
      cluster: true,
      local: true,
    },
    {
      name: 'eTP Local and externally accessible: both (cluster set serves node-originated traffic)',
      service: svc({ externalTrafficPolicy: 'Local', externallyAccessible: true }),
      release: at(30),
      cluster: true,
      local: true,
    },
    { name: 'eTP Local is ignored when not externally accessible', service: svc({ externalTrafficPolicy: 'Local' }), release: at(30), cluster: true, local: false },
    {
      name: 'before 1.26 iTP Local needs the ServiceInternalTrafficPolicy gate',
      service: svc({ internalTrafficPolicy: 'Local' }),
      release: at(25, { ServiceInternalTrafficPolicy: false }),
      cluster: true,
      local: false,
    },
    {
      name: '1.26+: ServiceInternalTrafficPolicy is GA, a gate override is ignored',
      service: svc({ internalTrafficPolicy: 'Local' }),
      release: at(26, { ServiceInternalTrafficPolicy: false }),
      cluster: false,
      local: true,
    },
  ];
  it.each(cases)('$name', ({ service, release, cluster, local }) => {
    expect(usesClusterEndpoints(service, release)).toBe(cluster);
    expect(usesLocalEndpoints(service, release)).toBe(local);
  });
});
