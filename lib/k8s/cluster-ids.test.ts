/** Cluster ids (lib/k8s/cluster-ids.ts): context names kept when they are URL segments, readable hashed slugs otherwise, unique per kubeconfig. */
import { describe, expect, it } from 'vitest';
import { assignClusterIds, CLUSTER_ID_PATTERN, clusterSlug } from './cluster-ids';

const EKS = 'arn:aws:eks:eu-west-1:123456789012:cluster/prod';
const GKE = 'gke_proj_europe-west1_prod';

describe('cluster ids', () => {
  it('keeps context names that are valid URL segments, hashes the others into readable slugs', () => {
    expect(clusterSlug('kind-dev')).toBe('kind-dev');
    expect(clusterSlug('prod.eu_1')).toBe('prod.eu_1');
    // gcloud's names are valid segments (underscores are allowed): kept as they are.
    expect(clusterSlug(GKE)).toBe(GKE);
    const eks = clusterSlug(EKS);
    expect(eks).toMatch(/^prod-[0-9a-f]{6}$/);
    expect(clusterSlug('arn:aws:eks:us-east-1:123456789012:cluster/prod')).toMatch(/^prod-[0-9a-f]{6}$/);
    expect(clusterSlug('arn:aws:eks:us-east-1:123456789012:cluster/prod')).not.toBe(eks);
    expect(clusterSlug('team a/staging')).toMatch(/^team-a-staging-[0-9a-f]{6}$/);
    expect(clusterSlug('-x')).toMatch(/^x-[0-9a-f]{6}$/);
    expect(clusterSlug('a'.repeat(63))).toBe('a'.repeat(63));
    expect(clusterSlug('a'.repeat(64))).toMatch(new RegExp(`^a{40}-[0-9a-f]{6}$`));
    expect(clusterSlug(EKS)).toBe(eks);
    for (const id of [eks, clusterSlug('x'.repeat(200) + '/'), clusterSlug('///')]) expect(id).toMatch(CLUSTER_ID_PATTERN);
    expect(clusterSlug('///')).toMatch(/^cluster-[0-9a-f]{6}$/);
  });

  it('resolves collisions: a context named like another one’s slug keeps its name, the slug grows', () => {
    const slug = clusterSlug(EKS);
    const assigned = assignClusterIds([EKS, slug]);
    expect(assigned.get(slug)).toBe(slug);
    expect(assigned.get(EKS)).not.toBe(slug);
    expect(assigned.get(EKS)).toMatch(/^prod-[0-9a-f]{12}$/);
    // And when the longer one is taken too, a counter.
    const longer = assigned.get(EKS) ?? '';
    const again = assignClusterIds([EKS, slug, longer]);
    expect(again.get(EKS)).toBe(`${longer}-2`);
    expect(new Set(again.values()).size).toBe(3);
  });
});
