import { describe, expect, it } from 'vitest';

import { defaultFeatureGates, expandReleaseRange, parseKubeMinor, resolveFeatureGates } from './version';

describe('release handling', () => {
  it.each([
    ['v1.30.2-eks-7f9249a', 30],
    ['1.29', 29],
    ['v1.28.3+k3s1', 28],
    ['v2.0.0', null],
    ['nonsense', null],
  ])('parses %s as minor %s', (text, minor) => {
    expect(parseKubeMinor(text)).toBe(minor);
  });

  it('parses /version objects with a "+" minor, as EKS serves them', () => {
    expect(parseKubeMinor({ major: '1', minor: '31+' })).toBe(31);
  });

  it.each([
    ['1.26', [26]],
    ['1.22-1.24', [22, 23, 24]],
    ['>=1.34', [34, 35, 36]],
    ['1.x', null],
    ['1.30-1.29', null],
  ])('expands %s', (range, minors) => {
    expect(expandReleaseRange(range)).toEqual(minors);
  });

  it('gate defaults follow the release table', () => {
    expect(defaultFeatureGates(23).TopologyAwareHints).toBe(false);
    expect(defaultFeatureGates(24).TopologyAwareHints).toBe(true);
    expect(defaultFeatureGates(30).ServiceTrafficDistribution).toBe(false);
    expect(defaultFeatureGates(31).ServiceTrafficDistribution).toBe(true);
    expect(defaultFeatureGates(33).PreferSameTrafficDistribution).toBe(false);
    expect(defaultFeatureGates(34).PreferSameTrafficDistribution).toBe(true);
    expect(resolveFeatureGates(30, { ServiceTrafficDistribution: true, Unknown: true }).ServiceTrafficDistribution).toBe(true);
  });
});
