import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import { buildClusterContext } from '../model/cluster-context';
import { analyzeHpa, checkSpreadConstraint, evenSpread, findServiceWorkload, hpaRangeRisk, scaleDownRisk, scaleDownSeed, scanReplicaCounts, worstSpread } from './hpa';
import { testCluster, testEndpoints, testService, testSlice, testWorkload, testWorkloadCluster } from '../model/test-cluster';

const thirds = { 'zone-a': 1 / 3, 'zone-b': 1 / 3, 'zone-c': 1 / 3 };

describe('the count: hints off exactly where Σ minimum > replicas', () => {
  it('three equal zones, 3..12 replicas: off exactly at 4, 5, 8 and 11', () => {
    const rows = scanReplicaCounts(thirds, 3, 12, null);
    expect(rows.filter((r) => !r.hintsEnabled).map((r) => r.replicas)).toEqual([4, 5, 8, 11]);
    expect(rows.map((r) => r.minimumTotal)).toEqual([3, 6, 6, 6, 6, 9, 9, 9, 12, 12]);
    expect(rows.find((r) => r.replicas === 4)?.reason).toBe('Unable to allocate minimum required endpoints to each zone without exceeding overload threshold (4 endpoints, 3 zones)');
  });

  it('even spread over equal zones donates nothing; the unconstrained worst placement (all in one zone) donates the rest', () => {
    const rows = scanReplicaCounts(thirds, 9, 9, null);
    expect(rows[0]?.evenSpread).toEqual({ countsByZone: { 'zone-a': 3, 'zone-b': 3, 'zone-c': 3 }, donated: 0 });
    expect(rows[0]?.worstSpread).toEqual({ countsByZone: { 'zone-a': 9, 'zone-b': 0, 'zone-c': 0 }, donated: 6 });
  });

  it('maxSkew 1 allows 4/3/2? No: 4/4/3 or 3/3/3 only — and with 10 replicas 4/3/3 donates 0', () => {
    expect(worstSpread(thirds, 10, 1)).toEqual({ countsByZone: { 'zone-a': 3, 'zone-b': 4, 'zone-c': 3 }, donated: 0 });
    expect(worstSpread(thirds, 9, 2).donated).toBe(1);
  });

  it('evenSpread gives the remainder to the first zones by name', () => {
    expect(evenSpread(['zone-c', 'zone-a', 'zone-b'], 8)).toEqual({ 'zone-a': 3, 'zone-b': 3, 'zone-c': 2 });
  });
});

describe('scale-down risk: zone-blind removal is a multivariate hypergeometric draw', () => {
  it('3/3/3 → 6: hints stay on; 27 of 84 ways keep 2/2/2, so P(donation) = 57/84', () => {
    const risk = scaleDownRisk(thirds, { 'zone-a': 3, 'zone-b': 3, 'zone-c': 3 }, 6, 1);
    expect(risk.method).toBe('exact');
    expect(risk.pHintsOff).toBe(0);
    expect(risk.pDonation).toBeCloseTo(57 / 84, 12);
    expect(risk.outcomes).toBe(10);
    // 2/2/2 → 0 donated (27/84); 3/2/1 orders → 1 donated (6 × 9/84); 3/3/0 orders → 2 donated (3 × 1/84).
    expect(risk.donatedDistribution).toEqual([
      { donated: 0, probability: expect.closeTo(27 / 84, 12) },
      { donated: 1, probability: expect.closeTo(54 / 84, 12) },
      { donated: 2, probability: expect.closeTo(3 / 84, 12) },
    ]);
    expect(risk.pZoneWithoutLocalEndpoints).toBeCloseTo(3 / 84, 12);
  });

  it('to 5 replicas hints are off whichever pods go: the count decides', () => {
    const risk = scaleDownRisk(thirds, { 'zone-a': 3, 'zone-b': 3, 'zone-c': 3 }, 5, 1);
    expect(risk.pHintsOff).toBe(1);
    expect(risk.explanation).toContain('the count decides');
  });

  it('Monte Carlo agrees with the exact answer within 4 standard errors and is reproducible', () => {
    const from = { 'zone-a': 10, 'zone-b': 10, 'zone-c': 10 };
    const exact = scaleDownRisk(thirds, from, 12, 99);
    const mc = scaleDownRisk(thirds, from, 12, 99, 'current', { maxExactOutcomes: 5, samples: 4000 });
    expect(mc.method).toBe('monte-carlo');
    expect(mc.seed).toBe(99);
    expect(Math.abs(mc.pDonation - exact.pDonation)).toBeLessThan(4 * mc.standardError + 1e-9);
    expect(scaleDownRisk(thirds, from, 12, 99, 'current', { maxExactOutcomes: 5, samples: 4000 })).toEqual(mc);
  });

  it('the zone-by-zone Monte Carlo follows the exact law: 2–5 uneven zones, every probability within 4.5 standard errors', () => {
    const cases: { ratios: Record<string, number>; from: Record<string, number>; to: number }[] = [
      { ratios: { a: 0.6, b: 0.4 }, from: { a: 30, b: 9 }, to: 20 },
      { ratios: thirds, from: { 'zone-a': 14, 'zone-b': 5, 'zone-c': 9 }, to: 15 },
      { ratios: { a: 0.38, b: 0.32, c: 0.2, d: 0.1 }, from: { a: 20, b: 17, c: 11, d: 4 }, to: 30 },
      { ratios: { a: 0.3, b: 0.25, c: 0.2, d: 0.15, e: 0.1 }, from: { a: 12, b: 0, c: 8, d: 6, e: 3 }, to: 18 },
    ];
    for (const [i, { ratios, from, to }] of cases.entries()) {
      const exact = scaleDownRisk(ratios, from, to, 1);
      const mc = scaleDownRisk(ratios, from, to, 1000 + i, 'current', { maxExactOutcomes: 0, samples: 20_000 });
      expect([exact.method, mc.method]).toEqual(['exact', 'monte-carlo']);
      const within = (p: number, q: number) => Math.abs(p - q) <= 4.5 * Math.sqrt((q * (1 - q)) / 20_000) + 1e-9;
      for (const key of ['pDonation', 'pZoneWithoutLocalEndpoints', 'pZoneWithoutHints'] as const) expect(within(mc[key], exact[key]), `case ${i} ${key}: ${mc[key]} vs ${exact[key]}`).toBe(true);
      for (const { donated, probability } of exact.donatedDistribution) {
        const sampled = mc.donatedDistribution.find((d) => d.donated === donated)?.probability ?? 0;
        expect(within(sampled, probability), `case ${i} P(donated = ${donated}): ${sampled} vs ${probability}`).toBe(true);
      }
    }
  });

  it('probabilities stay in [0, 1] and the donated distribution sums to 1', () => {
    fc.assert(
      fc.property(fc.tuple(fc.nat(8), fc.nat(8), fc.nat(8)), fc.nat(24), fc.integer({ min: 0, max: 2 ** 31 }), ([a, b, c], to, seed) => {
        const risk = scaleDownRisk(thirds, { 'zone-a': a, 'zone-b': b, 'zone-c': c }, to, seed, 'current', { maxExactOutcomes: 20, samples: 200 });
        for (const p of [risk.pHintsOff, risk.pDonation, risk.pZoneWithoutHints, risk.pZoneWithoutLocalEndpoints]) {
          expect(p).toBeGreaterThanOrEqual(0);
          expect(p).toBeLessThanOrEqual(1);
        }
        if (a + b + c > 0) expect(risk.donatedDistribution.reduce((s, d) => s + d.probability, 0)).toBeCloseTo(1, 9);
      }),
      { numRuns: 200 },
    );
  });
});

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
