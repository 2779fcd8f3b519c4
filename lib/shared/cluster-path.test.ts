/** The cluster part of URLs (lib/shared/cluster-path.ts): prefix parsing and building, and the digest of an unavailable cluster. */
import { describe, expect, it } from 'vitest';
import { CLUSTER_ID_PATTERN as REGISTRY_ID_PATTERN } from '../k8s/cluster-ids';
import { CLUSTER_ID_PATTERN, clusterBaseOf, clusterUnavailableDigest, clusterUnavailableFromDigest, parseClusterPath, stripClusterBase, withClusterBase } from './cluster-path';

describe('cluster paths', () => {
  it('parses, builds and strips the prefix', () => {
    expect(parseClusterPath('/services')).toEqual({ kind: 'plain' });
    expect(parseClusterPath('/cart')).toEqual({ kind: 'plain' });
    expect(parseClusterPath('/c/a/b')).toEqual({ kind: 'cluster', id: 'a', rest: '/b' });
    expect(parseClusterPath('/c/')).toEqual({ kind: 'invalid' });
    expect(clusterBaseOf({ id: 'prod', isDefault: true })).toBe('');
    expect(clusterBaseOf({ id: 'staging', isDefault: false })).toBe('/c/staging');
    expect(withClusterBase('', '/services')).toBe('/services');
    expect(withClusterBase('/c/s', '/')).toBe('/c/s');
    expect(withClusterBase('/c/s', '/?q=1')).toBe('/c/s?q=1');
    expect(withClusterBase('/c/s', '/services/a/b#x')).toBe('/c/s/services/a/b#x');
    expect(withClusterBase('/c/s', '#traffic')).toBe('#traffic');
    expect(withClusterBase('/c/s', '//evil.example/x')).toBe('//evil.example/x');
    expect(stripClusterBase('/c/s/services/a')).toBe('/services/a');
    expect(stripClusterBase('/c/s')).toBe('/');
    expect(stripClusterBase('/dataplane')).toBe('/dataplane');
  });

  it('uses the registry\'s id syntax', () => {
    expect(CLUSTER_ID_PATTERN.source).toBe(REGISTRY_ID_PATTERN.source);
  });

  it("carries an unavailable cluster's message through the error digest, and nothing else", () => {
    const message = 'Cannot open cluster "prod-eu": 8 clusters are open, the most ZONESCOPE_MAX_OPEN_CLUSTERS allows. Zürich → später.';
    const digest = clusterUnavailableDigest('limit', message);
    expect(digest).toMatch(/^ZONESCOPE_CLUSTER_UNAVAILABLE;limit;[A-Za-z0-9_-]+$/);
    expect(clusterUnavailableFromDigest(digest)).toEqual({ reason: 'limit', message });
    expect(clusterUnavailableFromDigest(clusterUnavailableDigest('config', 'no such context'))).toEqual({ reason: 'config', message: 'no such context' });
    expect(clusterUnavailableFromDigest('2338471')).toBeNull();
    expect(clusterUnavailableFromDigest(null)).toBeNull();
    expect(clusterUnavailableFromDigest('ZONESCOPE_CLUSTER_UNAVAILABLE;other;YQ')).toBeNull();
    expect(clusterUnavailableFromDigest('ZONESCOPE_CLUSTER_UNAVAILABLE;limit;%%%')).toBeNull();
  });
});
