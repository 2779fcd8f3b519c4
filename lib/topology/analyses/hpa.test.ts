import { describe, expect, it } from 'vitest';

import { buildClusterContext } from '../model/cluster-context';
import { testCluster, testEndpoints, testService, testSlice, testWorkload, testWorkloadCluster } from '../model/test-cluster';
import { analyzeHpa, hpaRangeRisk } from './hpa';
import { scaleDownSeed } from './scale-down-risk';
import { findServiceWorkload } from './service-workload';
import { checkSpreadConstraint } from './spread-constraint';

describe('scale-down estimates: the same situation gets the same figures', () => {
  it('two Services with the same 300/250/200 pods and minReplicas share one seeded Monte Carlo estimate', () => {
    const counts = { 'zone-a': 300, 'zone-b': 250, 'zone-c': 200 };
    const built = ['batch', 'batch-copy'].map((name) => {
      const endpoints = testEndpoints(counts, { service: name });
      return { service: testService(name), slices: [testSlice(name, endpoints)], workload: testWorkload(name, endpoints, { hpa: { minReplicas: 210, maxReplicas: 760 } }) };
    });
    const index = testWorkloadCluster(built);
    const context = buildClusterContext(index);
    const [first, second] = built.map(({ service, slices }) => {
      const found = findServiceWorkload(context, service, slices);
      if (!found) throw new Error(`no workload for ${service.name}`);
      return analyzeHpa(context, found, 0).scaleDown;
    });
    expect(first?.method).toBe('monte-carlo');
    expect(first?.seed).toBe(scaleDownSeed(counts, 210, 'current'));
    expect(second).toEqual(first);
    // A different situation is seeded differently.
    expect(scaleDownSeed({ ...counts, 'zone-c': 201 }, 210, 'current')).not.toBe(first?.seed);
  });
});

describe('analyzeHpa: the Deployment behind a Service', () => {
  const endpoints = testEndpoints({ 'zone-a': 5, 'zone-b': 2, 'zone-c': 2 }, { service: 'api' });
  const build = (spread = testWorkload('api', endpoints).deployments[0]?.topologySpreadConstraints ?? []) => {
    const workload = testWorkload('api', endpoints, { hpa: { minReplicas: 3, maxReplicas: 12 }, spread });
    const service = testService('api');
    const slices = [testSlice('api', endpoints)];
    const index = testCluster({ services: [service], endpointSlices: slices, ...workload });
    const context = buildClusterContext(index);
    const found = findServiceWorkload(context, service, slices);
    if (!found) throw new Error('workload not found');
    return analyzeHpa(context, found, 2);
  };

  it('finds Service → pods → ReplicaSet → Deployment → HPA', () => {
    const hpa = build();
    expect(hpa.deployment.name).toBe('api');
    expect(hpa.autoscaler).toMatchObject({ name: 'api', minReplicas: 3, maxReplicas: 12 });
  });

  it('5/2/2 ready pods against a minimum of 3 per zone: hints on, b and c below minimum, 2 donated', () => {
    const hpa = build();
    expect(hpa.podsByZone.map((z) => [z.zone, z.readyPods, z.minimum, z.belowMinimum])).toEqual([
      ['zone-a', 5, 3, false],
      ['zone-b', 2, 3, true],
      ['zone-c', 2, 3, true],
    ]);
    expect(hpa.hintsEnabledNow).toBe(true);
    expect(hpa.truths.placement).toContain('2 endpoints are donated');
  });

  it('scans 3..12 and shows both truths', () => {
    const hpa = build();
    expect(hpa.hintsOffAt).toEqual([4, 5, 8, 11]);
    expect(hpa.truths.count).toContain('hints are off at 4, 5, 8, 11 replicas');
    expect(hpa.scaleDown).toMatchObject({ from: 'current', fromReplicas: 9, toReplicas: 3, pHintsOff: 0 });
  });

  it('without a zone spread constraint it recommends one, the descheduler and per-zone Deployments', () => {
    const hpa = build();
    expect(hpa.spreadConstraint.present).toBe(false);
    expect(hpa.recommendations.map((r) => r.id)).toEqual(['topology-spread-constraints', 'descheduler', 'per-zone-deployments', 'avoid-replica-counts']);
    expect(hpa.recommendations[0]?.snippet).toBe(
      [
        '# kubectl patch deployment/api -n default --type strategic --patch-file spread.yaml',
        'spec:',
        '  template:',
        '    spec:',
        '      topologySpreadConstraints:',
        '        - maxSkew: 1',
        '          topologyKey: topology.kubernetes.io/zone',
        '          whenUnsatisfiable: DoNotSchedule',
        '          labelSelector:',
        '            matchLabels:',
        '              app: api',
      ].join('\n'),
    );
  });

  it('hints on now but off at counts the HPA may reach: the risk sentence and the patch that avoids it', () => {
    const hpa = build();
    expect(hpaRangeRisk(hpa)).toEqual({
      text: "Hints are on now, but turn off at 4, 5, 8 and 11 replicas within the HPA's range 3–12.",
      safeMinReplicas: 12,
      advice: 'Only 12 replicas avoid it: minReplicas 12 pins the HPA at 12. Otherwise use trafficDistribution: PreferClose, which has no per-zone minimums.',
      command: `kubectl patch hpa api -n default --type merge -p '{"spec":{"minReplicas":12}}'`,
    });
    const wider = { ...hpa, autoscaler: hpa.autoscaler && { ...hpa.autoscaler, maxReplicas: 14 } };
    expect(hpaRangeRisk(wider)?.advice).toBe('Raising minReplicas to 12 keeps hints on at every count from 12 to 14.');
    expect(hpaRangeRisk({ ...hpa, hintsOffAt: [4, 5, 8, 12] })).toMatchObject({ safeMinReplicas: null, command: null });
    expect(hpaRangeRisk({ ...hpa, hintsOffAt: [] })).toBeNull();
    expect(hpaRangeRisk({ ...hpa, hintsEnabledNow: false })).toBeNull();
  });

  it('a DoNotSchedule constraint with maxSkew 1 bounds the worst placement', () => {
    const hpa = build([{ topologyKey: 'topology.kubernetes.io/zone', maxSkew: 1, whenUnsatisfiable: 'DoNotSchedule', labelSelector: { matchLabels: { app: 'api' }, matchExpressions: [] }, minDomains: null }]);
    expect(hpa.spreadConstraint).toMatchObject({ present: true, hard: true, maxSkew: 1, selectorMatchesPods: true });
    expect(hpa.scan?.find((r) => r.replicas === 9)?.worstSpread.donated).toBe(0);
    expect(hpa.recommendations.map((r) => r.id)).not.toContain('topology-spread-constraints');
  });

  it('a constraint whose selector misses the pods spreads nothing', () => {
    const deployment = testWorkload('api', endpoints, {
      spread: [{ topologyKey: 'topology.kubernetes.io/zone', maxSkew: 1, whenUnsatisfiable: 'DoNotSchedule', labelSelector: { matchLabels: { app: 'other' }, matchExpressions: [] }, minDomains: null }],
    }).deployments[0];
    if (!deployment) throw new Error('no deployment');
    expect(checkSpreadConstraint(deployment)).toMatchObject({ present: true, hard: false, selectorMatchesPods: false });
  });
});
