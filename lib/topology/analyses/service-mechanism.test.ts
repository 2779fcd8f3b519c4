import { describe, expect, it } from 'vitest';

import type { ServiceRecord } from '../model/cluster-model';
import type { LintContext } from './service-mechanism';
import { determineMechanism, lintService, topologyAnnotationChange } from './service-mechanism';
import { testService } from '../model/test-cluster';
import { defaultFeatureGates, resolveFeatureGates } from '../upstream/version';

const MODE = 'service.kubernetes.io/topology-mode';
const LEGACY = 'service.kubernetes.io/topology-aware-hints';
const mech = (service: ServiceRecord, minor = 33) => determineMechanism(service, minor, defaultFeatureGates(minor), minor >= 24);
const ctx = (minor = 33, extra: Partial<LintContext> = {}): LintContext => ({
  minor,
  gates: defaultFeatureGates(minor),
  topologyCacheEnabled: minor >= 24,
  dataplane: { honoursHints: true, honoursHintsReason: 'kube-proxy' },
  readyEndpoints: 9,
  zoneCount: 3,
  hasForeignSlices: false,
  ...extra,
});
const lintIds = (service: ServiceRecord, minor = 33, extra: Partial<LintContext> = {}) =>
  lintService(service, determineMechanism(service, minor, extra.gates ?? defaultFeatureGates(minor), extra.topologyCacheEnabled ?? minor >= 24), ctx(minor, extra)).map((l) => `${l.severity}:${l.id}`);

describe('determineMechanism', () => {
  it.each([
    ['topology-mode: Auto on 1.27+', { [MODE]: 'Auto' }, null, 33, 'topology-mode'],
    ['legacy key auto on 1.26', { [LEGACY]: 'auto' }, null, 26, 'legacy-annotation'],
    ['legacy key wins on 1.30 even when topology-mode is set', { [LEGACY]: 'auto', [MODE]: 'Disabled' }, null, 30, 'legacy-annotation'],
    ['topology-mode is unknown before 1.27', { [MODE]: 'Auto' }, null, 26, 'none'],
    ['trafficDistribution PreferClose on 1.31', {}, 'PreferClose', 31, 'trafficDistribution'],
    ['trafficDistribution is ignored before 1.30', {}, 'PreferClose', 29, 'none'],
    ['the annotation wins over trafficDistribution', { [MODE]: 'Auto' }, 'PreferClose', 33, 'topology-mode'],
    ['Disabled is none', { [MODE]: 'Disabled' }, null, 33, 'none'],
  ])('%s', (_rule, annotations, trafficDistribution, minor, expected) => {
    expect(mech(testService('s', { annotations, trafficDistribution }), minor).mechanism).toBe(expected);
  });

  it('without the TopologyAwareHints gate (1.23 default) the annotation does nothing', () => {
    const service = testService('s', { annotations: { [LEGACY]: 'auto' } });
    expect(determineMechanism(service, 23, defaultFeatureGates(23), false).mechanism).toBe('none');
  });
});

describe('lintService: settings that override hints', () => {
  it('externalTrafficPolicy Local on a LoadBalancer Service: external traffic ignores hints', () => {
    const service = testService('lb', {
      type: 'LoadBalancer',
      externalTrafficPolicy: 'Local',
      annotations: { [MODE]: 'Auto' },
      ports: [{ name: 'http', protocol: 'TCP', port: 80, nodePort: 30080 }],
      loadBalancerIngress: ['a1b2.elb.amazonaws.com'],
    });
    const lint = lintService(service, mech(service), ctx()).find((l) => l.id === 'external-traffic-policy-local');
    expect(lint?.severity).toBe('warning');
    expect(lint?.message).toContain('only to endpoints on the receiving node');
    expect(lint?.message).toContain('client source IP kept');
  });

  it('internalTrafficPolicy Local makes the hints useless', () => {
    expect(lintIds(testService('s', { internalTrafficPolicy: 'Local', annotations: { [MODE]: 'Auto' } }))).toContain('error:internal-traffic-policy-local');
  });
});

describe('lintService: keys and values', () => {
  it('a legacy key overriding topology-mode with a different effect is an error, with the fix', () => {
    const service = testService('s', { annotations: { [LEGACY]: 'Disabled', [MODE]: 'Auto' } });
    const lint = lintService(service, mech(service, 30), ctx(30)).find((l) => l.id === 'legacy-key-overrides-topology-mode');
    expect(lint).toMatchObject({ severity: 'error', fix: `kubectl annotate service s -n default ${LEGACY}-` });
  });

  it('the legacy key alone on 1.27+ is only deprecated', () => {
    expect(lintIds(testService('s', { annotations: { [LEGACY]: 'auto' } }), 30)).toContain('info:legacy-key-deprecated');
  });

  it.each([['auto '], ['Enabled'], ['AUTO'], ['true']])('topology-mode: "%s" does nothing', (value) => {
    const service = testService('s', { annotations: { [MODE]: value } });
    const lint = lintService(service, mech(service), ctx()).find((l) => l.id === 'annotation-value-ignored');
    expect(lint?.severity).toBe('error');
    expect(lint?.fix).toBe(`kubectl annotate service s -n default ${MODE}=Auto --overwrite`);
  });

  it('on 1.28 kube-proxy would accept such a value but no hints are written for it', () => {
    const service = testService('s', { annotations: { [MODE]: 'Enabled' } });
    expect(lintService(service, mech(service, 28), ctx(28)).find((l) => l.id === 'annotation-value-ignored')?.message).toContain('kube-proxy 1.28 would accept');
  });

  it('topology-mode before 1.27 is unsupported; use the legacy key', () => {
    expect(lintIds(testService('s', { annotations: { [MODE]: 'Auto' } }), 26)).toContain('error:topology-mode-key-unsupported');
  });

  it('Disabled and no annotation at all are not lints', () => {
    expect(lintIds(testService('s', { annotations: { [MODE]: 'Disabled' } }))).toEqual([]);
    expect(lintIds(testService('s'))).toEqual([]);
  });

  it('the gate being off on 1.23 is an error', () => {
    expect(lintIds(testService('s', { annotations: { [LEGACY]: 'auto' } }), 23, { topologyCacheEnabled: false })).toContain('error:topology-aware-hints-gate-off');
  });
});

describe('lintService: trafficDistribution', () => {
  it('topology-mode overrides trafficDistribution', () => {
    expect(lintIds(testService('s', { annotations: { [MODE]: 'Auto' }, trafficDistribution: 'PreferClose' }))).toContain('warning:topology-mode-overrides-traffic-distribution');
  });

  it('ignored before 1.30, and on 1.30 with its alpha gate off', () => {
    expect(lintIds(testService('s', { trafficDistribution: 'PreferClose' }), 29)).toContain('error:traffic-distribution-unsupported');
    expect(lintIds(testService('s', { trafficDistribution: 'PreferClose' }), 30)).toContain('error:traffic-distribution-unsupported');
    expect(lintIds(testService('s', { trafficDistribution: 'PreferClose' }), 31)).toEqual([]);
  });

  it('PreferSameZone is unknown before 1.33; PreferSameNode needs its gate on 1.33', () => {
    expect(lintIds(testService('s', { trafficDistribution: 'PreferSameZone' }), 32)).toContain('error:traffic-distribution-ignored');
    expect(lintIds(testService('s', { trafficDistribution: 'PreferSameNode' }), 33)).toContain('error:traffic-distribution-ignored');
    expect(lintIds(testService('s', { trafficDistribution: 'PreferSameNode' }), 34)).toEqual([]);
    const gates = resolveFeatureGates(33, { PreferSameTrafficDistribution: true });
    expect(lintIds(testService('s', { trafficDistribution: 'PreferSameNode' }), 33, { gates })).toEqual([]);
  });
});

describe('lintService: hints that cannot matter', () => {
  it('a Service without selector: the controller does not manage its slices', () => {
    expect(lintIds(testService('s', { selector: null, annotations: { [MODE]: 'Auto' } }))).toContain('warning:no-selector');
  });

  it('headless Services are not proxied', () => {
    expect(lintIds(testService('s', { clusterIP: 'None', annotations: { [MODE]: 'Auto' } }))).toContain('warning:headless');
  });

  it('Cilium kube-proxy replacement without service topology: hints ignored', () => {
    const ids = lintIds(testService('s', { annotations: { [MODE]: 'Auto' } }), 33, {
      dataplane: { honoursHints: false, honoursHintsReason: "Cilium's kube-proxy replacement ignores hints" },
    });
    expect(ids).toContain('error:dataplane-ignores-hints');
  });

  it('fewer than 3 endpoints per zone is noted', () => {
    expect(lintIds(testService('s', { annotations: { [MODE]: 'Auto' } }), 33, { readyEndpoints: 6 })).toContain('info:few-endpoints-per-zone');
  });
});

describe('topologyAnnotationChange', () => {
  it('1.27+: topology-mode Auto, removing a leftover legacy key', () => {
    expect(topologyAnnotationChange({ [LEGACY]: 'Disabled', other: 'x' }, 30, true)).toEqual({
      set: { [MODE]: 'Auto' },
      remove: [LEGACY],
      annotations: { other: 'x', [MODE]: 'Auto' },
    });
  });

  it('1.24–1.26: the legacy key with auto', () => {
    expect(topologyAnnotationChange({}, 25, true).set).toEqual({ [LEGACY]: 'auto' });
  });

  it('disabling removes every topology key the Service carries and sets nothing, on every release', () => {
    expect(topologyAnnotationChange({ [LEGACY]: 'auto', other: 'x' }, 25, false)).toEqual({ set: {}, remove: [LEGACY], annotations: { other: 'x' } });
    expect(topologyAnnotationChange({ [MODE]: 'Auto', [LEGACY]: 'auto' }, 33, false)).toEqual({ set: {}, remove: [MODE, LEGACY], annotations: {} });
  });

  it('enable then disable on a Service with no topology annotation leaves it with none', () => {
    const enabled = topologyAnnotationChange({ other: 'x' }, 33, true).annotations;
    expect(enabled).toEqual({ other: 'x', [MODE]: 'Auto' });
    expect(topologyAnnotationChange(enabled, 33, false).annotations).toEqual({ other: 'x' });
    expect(topologyAnnotationChange({ other: 'x' }, 33, false)).toEqual({ set: {}, remove: [], annotations: { other: 'x' } });
  });
});
