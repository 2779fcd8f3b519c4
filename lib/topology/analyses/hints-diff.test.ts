import { describe, expect, it } from 'vitest';

import { diffHints } from './hints-diff';

describe('diffHints', () => {
  it('classifies stale hints', () => {
    const observed = [{ endpoints: [{ addresses: ['1'], zone: 'zone-a', nodeName: null, ready: true, hints: { forZones: ['zone-b'] } }] }];
    const expected = [{ endpoints: [{ addresses: ['1'], zone: 'zone-a', nodeName: null, ready: true, hints: { forZones: ['zone-a'] } }] }];
    expect(diffHints(observed, expected).entries).toEqual([{ address: '1', zone: 'zone-a', observed: ['zone-b'], expected: ['zone-a'], kind: 'stale' }]);
  });
});
