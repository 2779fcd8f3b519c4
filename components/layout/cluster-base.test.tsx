/** Links of the client leaves stay in the page's cluster; the provider knows which cluster a browser path addresses. */
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { ClusterBaseProvider, ClusterLink, clusterIdOfPath } from './cluster-base';

function links(base: string): string {
  return renderToStaticMarkup(
    <ClusterBaseProvider base={base} clusterId={base === '' ? 'prod' : base.slice(3)} defaultId="prod">
      <ClusterLink href="/services?attention=1">Services</ClusterLink>
      <ClusterLink href="/">Overview</ClusterLink>
    </ClusterBaseProvider>,
  );
}

describe('ClusterLink', () => {
  it('prefixes internal links with the cluster of the page, and leaves the default cluster\'s alone', () => {
    expect(links('')).toContain('href="/services?attention=1"');
    expect(links('')).toContain('href="/"');
    expect(links('/c/staging')).toContain('href="/c/staging/services?attention=1"');
    expect(links('/c/staging')).toContain('href="/c/staging"');
  });
});

describe('clusterIdOfPath', () => {
  it('is the prefix\'s cluster, the default without one, and nothing for a malformed prefix', () => {
    expect(clusterIdOfPath('/c/staging/services', 'prod')).toBe('staging');
    expect(clusterIdOfPath('/c/prod', 'prod')).toBe('prod');
    expect(clusterIdOfPath('/services/shop/cart', 'prod')).toBe('prod');
    expect(clusterIdOfPath('/fleet', 'prod')).toBe('prod');
    expect(clusterIdOfPath('/c/', 'prod')).toBeNull();
  });
});
