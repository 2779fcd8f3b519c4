import { describe, expect, it } from 'vitest';

import { BYTES_PER_GIB, crossZoneDollars, formatPriceSetting, parsePriceSetting, priceFormula, pricePerGbSetting, resolvePricing } from './cloud-pricing';

describe('resolvePricing: the price of the cloud the cluster runs on', () => {
  it.each([
    ['eks', 'aws', 'detected', 0.02, 'AWS (detected: server gitVersion v1.31.4-eks-1): $0.01/GB leaving one zone and $0.01/GB entering the other — $0.02 per cross-zone GB.'],
    ['gke', 'gcp', 'detected', (0.01 * 1e9) / BYTES_PER_GIB, 'Google Cloud (detected: server gitVersion v1.31.4-eks-1): $0.01 per GiB between zones of a region, charged once — $0.00931 per cross-zone GB (1 GiB = 1.074 GB).'],
    ['aks', 'azure', 'detected', 0, 'Azure (detected: server gitVersion v1.31.4-eks-1): traffic between availability zones of a region is not charged — a cross-zone GB costs nothing.'],
  ] as const)('%s: %s', (platform, cloud, basis, cost, note) => {
    const pricing = resolvePricing(platform, 'server gitVersion v1.31.4-eks-1', null);
    expect(pricing).toMatchObject({ cloud, basis });
    expect(pricing.costPerCrossZoneGb).toBeCloseTo(cost, 12);
    expect(pricing.note).toBe(note);
  });

  it('an unrecognised platform is priced as AWS and the note says it is assumed and how to set it', () => {
    const pricing = resolvePricing('other', null, null);
    expect(pricing).toMatchObject({ cloud: 'aws', basis: 'assumed', costPerCrossZoneGb: 0.02 });
    expect(pricing.note).toContain('assumed');
    expect(pricing.note).toContain('ZONESCOPE_CROSS_ZONE_PRICE');
  });

  it('a setting wins over the platform: a cloud, or a price and directions of its own', () => {
    expect(resolvePricing('eks', null, { kind: 'cloud', cloud: 'gcp' })).toMatchObject({ cloud: 'gcp', basis: 'set', unit: 'GiB', directions: 1 });
    const custom = resolvePricing('gke', null, { kind: 'custom', pricePerUnit: 0.02, unit: 'GB', directions: 1 });
    expect(custom).toMatchObject({ cloud: 'custom', basis: 'set', costPerCrossZoneGb: 0.02 });
    expect(custom.note).toBe('Set: $0.02/GB, charged once — $0.02 per cross-zone GB.');
    expect(resolvePricing('eks', null, pricePerGbSetting(0.01)).costPerCrossZoneGb).toBeCloseTo(0.02, 12);
  });

  it('dollars are cross-zone GB × the cost of one; the formula names price, unit and directions', () => {
    expect(crossZoneDollars(1000, resolvePricing('eks', null, null))).toBeCloseTo(20, 12);
    expect(priceFormula(resolvePricing('eks', null, null))).toBe('$0.01/GB × 2 directions');
    expect(priceFormula(resolvePricing('gke', null, null))).toBe('$0.01/GiB × 1 direction ÷ 1.074 GB per GiB');
    expect(priceFormula(resolvePricing('aks', null, null))).toBe('$0 (not charged)');
  });
});

describe('parsePriceSetting', () => {
  it.each([
    ['aws', { kind: 'cloud', cloud: 'aws' }],
    [' GCP ', { kind: 'cloud', cloud: 'gcp' }],
    ['0.01/GB x2', { kind: 'custom', pricePerUnit: 0.01, unit: 'GB', directions: 2 }],
    ['0.01/GiB', { kind: 'custom', pricePerUnit: 0.01, unit: 'GiB', directions: 1 }],
    ['0.02 / gb × 1', { kind: 'custom', pricePerUnit: 0.02, unit: 'GB', directions: 1 }],
    ['0/GB x0', { kind: 'custom', pricePerUnit: 0, unit: 'GB', directions: 0 }],
  ] as const)('reads %j', (text, setting) => {
    expect(parsePriceSetting(text)).toEqual({ ok: true, setting });
  });

  it.each(['', 'aws-ish', '0.01', '-1/GB', '0.01/TB x2', '0.01/GB x3', '101/GB'])('refuses %j with what it takes', (text) => {
    const result = parsePriceSetting(text);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.message).toContain('"0.01/GB x2"');
  });

  it('writes a setting back the way it reads it', () => {
    expect(formatPriceSetting({ kind: 'custom', pricePerUnit: 0.01, unit: 'GiB', directions: 1 })).toBe('0.01/GiB x1');
    expect(formatPriceSetting({ kind: 'cloud', cloud: 'azure' })).toBe('azure');
  });
});
