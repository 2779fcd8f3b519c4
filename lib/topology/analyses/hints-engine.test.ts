import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import { runHintsEngine } from './hints-engine';
import { findDonatedEndpoints } from './observed-hints';
import { testEndpoint, testEndpoints, testSlice } from '../model/test-cluster';
import type { Endpoint } from '../upstream/types';
import type { FeatureGates } from '../upstream/version';
import { defaultFeatureGates } from '../upstream/version';

const thirds = { 'zone-a': 1 / 3, 'zone-b': 1 / 3, 'zone-c': 1 / 3 };

describe('runHintsEngine', () => {
  it('a Service that asks for nothing and has no hints is left as it is', () => {
    const slice = testSlice('x', testEndpoints({ 'zone-a': 1 }));
    const result = runHintsEngine({ serviceKey: 'default/x', annotations: {}, trafficDistribution: null, addressType: 'IPv4', unchanged: [slice], cpuRatiosByZone: thirds, minor: 33, gates: defaultFeatureGates(33), topologyCacheEnabled: true });
    expect(result).toMatchObject({ mechanism: 'none', hintsEnabled: false, slicesToWrite: 0, event: null });
  });

  it('trafficDistribution PreferClose hints each endpoint for its own zone', () => {
    const slice = testSlice('x', testEndpoints({ 'zone-a': 1, 'zone-b': 1 }));
    const result = runHintsEngine({ serviceKey: 'default/x', annotations: {}, trafficDistribution: 'PreferClose', addressType: 'IPv4', unchanged: [slice], cpuRatiosByZone: thirds, minor: 33, gates: defaultFeatureGates(33), topologyCacheEnabled: true });
    expect(result.hintsEnabled).toBe(true);
    expect(findDonatedEndpoints(result.slices)).toEqual([]);
  });
});

describe('runHintsEngine: runs kept by slice list', () => {
  const ZONES = ['zone-a', 'zone-b', 'zone-c'] as const;
  const endpointArb = fc.record({
    zone: fc.constantFrom(...ZONES),
    hint: fc.constantFrom<'own' | 'other' | 'none' | 'a'>('own', 'own', 'own', 'other', 'none', 'a'),
    ready: fc.constantFrom<boolean | null>(true, true, true, false),
  });
  const slicesArb = fc.array(fc.array(endpointArb, { minLength: 1, maxLength: 12 }), { minLength: 1, maxLength: 3 }).map((slices) =>
    slices.map((endpoints, s) =>
      testSlice(`svc`, endpoints.map((e, i): Endpoint => {
        const other = ZONES[(ZONES.indexOf(e.zone) + 1) % 3] as string;
        const hints = e.hint === 'none' ? null : { forZones: [e.hint === 'own' ? e.zone : e.hint === 'other' ? other : 'zone-a'] };
        return testEndpoint(`10.1.${s}.${i}`, e.zone, hints, { ready: e.ready });
      }), { name: `svc-${s}` }),
    ),
  );
  // CPU ratios: an even split nudged a little (a Node change), or far apart (another cluster shape).
  const ratiosArb = fc.tuple(fc.integer({ min: 1, max: 60 }), fc.integer({ min: 1, max: 60 }), fc.integer({ min: 1, max: 60 }), fc.boolean()).map(([a, b, c, nudged]) => {
    const [x, y, z] = nudged ? [1000 + (a % 7), 1000 + (b % 7), 1000 + (c % 7)] : [a, b, c];
    const total = x + y + z;
    return { 'zone-a': x / total, 'zone-b': y / total, 'zone-c': z / total };
  });

  // One gates object per release, as contexts hand them: runs are kept by it.
  const gatesOf = new Map([29, 31, 33].map((minor) => [minor, defaultFeatureGates(minor)]));

  it('gives the run made afresh, under CPU ratios that move between asks', () => {
    fc.assert(
      fc.property(
        slicesArb,
        fc.array(ratiosArb, { minLength: 2, maxLength: 4 }),
        fc.constantFrom<Record<string, string>>({ 'service.kubernetes.io/topology-mode': 'Auto' }, {}, { 'service.kubernetes.io/topology-aware-hints': 'auto' }),
        fc.constantFrom<string | null>(null, 'PreferClose'),
        fc.constantFrom(29, 31, 33),
        (slices, ratiosList, annotations, trafficDistribution, minor) => {
          for (const ratios of ratiosList) {
            const input = { serviceKey: 'default/svc', annotations, trafficDistribution, addressType: 'IPv4' as const, unchanged: slices, cpuRatiosByZone: ratios, minor, gates: gatesOf.get(minor) as FeatureGates, topologyCacheEnabled: true };
            // A copy of the list is a list never seen: its run is made afresh.
            expect(runHintsEngine(input)).toEqual(runHintsEngine({ ...input, unchanged: [...slices] }));
          }
        },
      ),
      { numRuns: 400 },
    );
  });

  it('gives the same run object back while the allocation reads the same, and a new one when a zone\'s maximum moves', () => {
    const slices = [testSlice('svc', testEndpoints({ 'zone-a': 4, 'zone-b': 4, 'zone-c': 4 }, { hinted: true }))];
    // One gates object, as every context of a release and gate values hands (model/cluster-context.ts).
    const gates = defaultFeatureGates(33);
    const at = (ratios: Record<string, number>) =>
      runHintsEngine({ serviceKey: 'default/svc', annotations: { 'service.kubernetes.io/topology-mode': 'Auto' }, trafficDistribution: null, addressType: 'IPv4', unchanged: slices, cpuRatiosByZone: ratios, minor: 33, gates, topologyCacheEnabled: true });
    const first = at(thirds);
    expect(first).toMatchObject({ hintsEnabled: true, slicesToWrite: 0 });
    expect(at({ 'zone-a': 0.334, 'zone-b': 0.333, 'zone-c': 0.333 })).toBe(first);
    // Zone a's share falls so far that its 4 hinted endpoints exceed its maximum: the slice is rewritten.
    const skewed = at({ 'zone-a': 0.1, 'zone-b': 0.45, 'zone-c': 0.45 });
    expect(skewed).not.toBe(first);
    expect(skewed.slicesToWrite).toBe(1);
  });
  it('gives a run that rewrites slices back while the endpoints each zone gives and receives stay the same', () => {
    // No hints yet: the Auto run rewrites the slice. 5 / 4 / 3 endpoints under even shares: zone a gives one to zone c.
    const slices = [testSlice('svc', testEndpoints({ 'zone-a': 5, 'zone-b': 4, 'zone-c': 3 }))];
    const gates = defaultFeatureGates(33);
    const input = (ratios: Record<string, number>) => ({
      serviceKey: 'default/svc',
      annotations: { 'service.kubernetes.io/topology-mode': 'Auto' },
      trafficDistribution: null,
      addressType: 'IPv4' as const,
      unchanged: slices,
      cpuRatiosByZone: ratios,
      minor: 33 as const,
      gates,
      topologyCacheEnabled: true,
    });
    const first = runHintsEngine(input(thirds));
    expect(first).toMatchObject({ hintsEnabled: true, slicesToWrite: 1 });
    expect(findDonatedEndpoints(first.slices)).toHaveLength(1);
    // A Node change nudges the shares: the same plan, so the same run object.
    expect(runHintsEngine(input({ 'zone-a': 0.334, 'zone-b': 0.333, 'zone-c': 0.333 }))).toBe(first);
    // Zone a's share grows to half: now zone b gives, zone a receives; a new run, as made afresh.
    const moved = runHintsEngine(input({ 'zone-a': 0.5, 'zone-b': 0.25, 'zone-c': 0.25 }));
    expect(moved).not.toBe(first);
    expect(moved).toEqual(runHintsEngine({ ...input({ 'zone-a': 0.5, 'zone-b': 0.25, 'zone-c': 0.25 }), unchanged: [...slices] }));
    expect(moved.slices).not.toEqual(first.slices);
  });
});
