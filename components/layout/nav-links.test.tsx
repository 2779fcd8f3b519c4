/** The main navigation lists the Fleet page only with several clusters, and never under a cluster's prefix. */
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';

import { ClusterBaseProvider } from './cluster-base';
import { NavLinks } from './nav-links';

function nav(base: string, fleet: boolean): string {
  return renderToStaticMarkup(
    <ClusterBaseProvider base={base} clusterId={base === '' ? 'prod' : base.slice(3)} defaultId="prod">
      <NavLinks fleet={fleet} />
    </ClusterBaseProvider>,
  );
}

const hrefs = (html: string) => [...html.matchAll(/href="([^"]*)"/g)].map((m) => m[1]);

describe('NavLinks', () => {
  it('has no Fleet link with one cluster', () => {
    expect(hrefs(nav('', false))).toEqual(['/', '/services', '/dataplane']);
  });

  it('links the Fleet page with several clusters, the same from every cluster', () => {
    expect(hrefs(nav('', true))).toEqual(['/', '/services', '/dataplane', '/fleet']);
    expect(hrefs(nav('/c/staging', true))).toEqual(['/c/staging', '/c/staging/services', '/c/staging/dataplane', '/fleet']);
  });
});
