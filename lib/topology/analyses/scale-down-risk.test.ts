import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import { scaleDownRisk } from './scale-down-risk';

const thirds = { 'zone-a': 1 / 3, 'zone-b': 1 / 3, 'zone-c': 1 / 3 };

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
