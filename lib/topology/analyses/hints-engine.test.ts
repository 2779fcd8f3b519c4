import { describe, expect, it } from 'vitest';

import { runHintsEngine } from './hints-engine';
import { findDonatedEndpoints } from './observed-hints';
import { testEndpoints, testSlice } from '../model/test-cluster';
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
