import { describe, expect, it } from 'vitest';

import { resolveAnalysisOptions } from './analysis-options';

describe('resolveAnalysisOptions', () => {
  it('defaults: 50 GB per ready endpoint, no flat volume, nothing set, $0.01/GB each way', () => {
    expect(resolveAnalysisOptions({})).toMatchObject({ gbPerMonth: null, gbPerEndpoint: 50, volumesByService: {}, priceSetting: null, problems: [] });
  });

  it('keeps valid values (per-Service volumes sorted by key) and leaves out each bad one, saying why', () => {
    const resolved = resolveAnalysisOptions({
      gbPerMonth: 2000,
      gbPerEndpoint: Number.POSITIVE_INFINITY,
      pricePerGb: -0.01,
      volumesByService: { 'shop/web': 10, 'a/b': 0, 'no-slash': 1, 'shop/huge': 2e9 },
    });
    expect(resolved).toMatchObject({ gbPerMonth: 2000, gbPerEndpoint: 50, priceSetting: null });
    expect(Object.entries(resolved.volumesByService)).toEqual([['a/b', 0], ['shop/web', 10]]);
    expect(resolved.problems).toEqual([
      'volumesByService: "no-slash" is not namespace/name; ignored.',
      'volumesByService["shop/huge"] must be a number of GB from 0 to 1000000000, got 2000000000; ignored.',
      'gbPerEndpoint must be a number from 0 to 1000000000, got Infinity; ignored.',
      'pricePerGb must be a number from 0 to 100, got -0.01; ignored.',
    ]);
  });
});
