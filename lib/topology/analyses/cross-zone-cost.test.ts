import { describe, expect, it } from 'vitest';

import { resolvePricing } from '../model/cloud-pricing';
import { crossZoneCost } from './cross-zone-cost';

describe('crossZoneCost', () => {
  it('AWS: 1000 GB/month, 2/3 cross-zone, $0.01/GB each way: 666.7 GB × $0.02 = $13.33', () => {
    const cost = crossZoneCost(2 / 3, 1000, resolvePricing('eks', null, null));
    expect(cost.crossZoneGbPerMonth).toBeCloseTo(666.667, 2);
    expect(cost.monthlyCost).toBeCloseTo(13.333, 3);
    expect(cost.formula).toBe('1000 GB × 66.7 % cross-zone × $0.01/GB × 2 directions = $13.33/month');
  });

  it('Google Cloud: charged once per GiB; Azure: not charged', () => {
    const gcp = crossZoneCost(2 / 3, 1000, resolvePricing('gke', null, null));
    expect(gcp.monthlyCost).toBeCloseTo((666.667e9 / 2 ** 30) * 0.01, 3);
    expect(gcp.formula).toBe('1000 GB × 66.7 % cross-zone × $0.01/GiB × 1 direction ÷ 1.074 GB per GiB = $6.21/month');
    const azure = crossZoneCost(2 / 3, 1000, resolvePricing('aks', null, null));
    expect(azure.monthlyCost).toBe(0);
    expect(azure.formula).toBe('1000 GB × 66.7 % cross-zone × $0 (not charged) = $0.00/month');
  });
});
