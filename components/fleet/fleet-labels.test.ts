/** The fleet's words for a cluster's most common reason for attention. */
import { describe, expect, it } from 'vitest';

import { commonAttentionWords } from './fleet-labels';

describe('commonAttentionWords', () => {
  it('says the reason and the one controller reason all its Services share, with their count', () => {
    expect(commonAttentionWords({ reason: 'hints-off', services: 12, causes: [{ code: 'insufficient-number-of-endpoints', services: 12 }] })).toBe(
      'Hints off — fewer ready endpoints than zones (12 Services)',
    );
    expect(commonAttentionWords({ reason: 'hints-off', services: 1, causes: [{ code: 'no-zone-specified', services: 1 }] })).toBe('Hints off — some endpoints have no zone (1 Service)');
  });

  it('counts each controller reason when there are several', () => {
    expect(
      commonAttentionWords({
        reason: 'hints-off',
        services: 1200,
        causes: [
          { code: 'insufficient-number-of-endpoints', services: 900 },
          { code: 'min-allocation-exceeds-overload-threshold', services: 300 },
        ],
      }),
    ).toBe('Hints off (1,200 Services): fewer ready endpoints than zones (900), a zone cannot get its minimum share of endpoints (300)');
  });

  it('says the label of any other reason', () => {
    expect(commonAttentionWords({ reason: 'out-of-sync', services: 3, causes: [] })).toBe('Out of sync (3 Services)');
  });
});
