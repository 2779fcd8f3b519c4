import { describe, expect, it } from 'vitest';

import { resolveRelease } from './modelled-release';

describe('resolveRelease', () => {
  it.each([
    ['1.30', '1.30', 'override'],
    ['v1.29.4', '1.29', 'override'],
    [28, '1.28', 'override'],
    ['31', '1.31', 'override'],
  ])('override %s → %s', (override, release, source) => {
    expect(resolveRelease(override, null)).toMatchObject({ release, source, note: null });
  });

  it('takes the cluster version, else assumes 1.33 and says so', () => {
    expect(resolveRelease(null, { gitVersion: 'v1.27.3-eks-a5565ad', minor: 27, platform: 'eks' })).toMatchObject({ minor: 27, source: 'cluster', platform: 'eks' });
    expect(resolveRelease(null, null)).toMatchObject({ minor: 33, source: 'assumed', note: expect.stringContaining('1.33 is assumed') });
  });

  it('clamps releases outside 1.21–1.36, with a note', () => {
    expect(resolveRelease('1.19', null)).toMatchObject({ minor: 21, note: expect.stringContaining('predates topology hints') });
    expect(resolveRelease('1.40', null)).toMatchObject({ minor: 36, note: expect.stringContaining('newer') });
  });
});
