/**
 * The error boundary's view: a cluster the open-cluster limit (or its configuration) keeps closed
 * arrives as a digest and is shown as its message with a way on — not as a bug in zonescope.
 */
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';

import { clusterUnavailableDigest } from '@/lib/shared/cluster-path';
import { htmlText } from '../test-support';
import { ClusterBaseProvider } from './cluster-base';
import { ErrorView } from './error-view';

function render(digest: string): string {
  const error = Object.assign(new Error('An error occurred in the Server Components render.'), { digest });
  return renderToStaticMarkup(
    <ClusterBaseProvider base="/c/staging" clusterId="staging" defaultId="prod">
      <ErrorView error={error} retry={() => undefined} what="This Service" />
    </ClusterBaseProvider>,
  );
}

const LIMIT = 'Cannot open cluster "staging": 8 clusters are open, the most ZONESCOPE_MAX_OPEN_CLUSTERS allows. Clusters unused for 15 min close (ZONESCOPE_CLUSTER_IDLE_MINUTES); raise the limit or try again later.';

describe('ErrorView', () => {
  it('shows the open-cluster limit as the registry’s message, with the default cluster and the fleet to go to', () => {
    const html = render(clusterUnavailableDigest('limit', LIMIT));
    const text = htmlText(html);
    expect(text).toContain('Too many clusters open');
    expect(text).toContain(LIMIT);
    expect(text).not.toContain('This is a bug in zonescope');
    expect(html).toContain('role="alert"');
    expect([...html.matchAll(/href="([^"]*)"/g)].map((m) => m[1])).toEqual(['/', '/fleet']);
  });

  it('shows a misconfigured context as such', () => {
    const text = htmlText(render(clusterUnavailableDigest('config', 'ZONESCOPE_CONTEXTS names "ghost", which the kubeconfig does not have.')));
    expect(text).toContain('This cluster cannot be opened');
    expect(text).toContain('Fix the kubeconfig or ZONESCOPE_CONTEXTS, then restart zonescope.');
  });

  it('shows any other failure as a bug, with its digest to find in the server log', () => {
    const text = htmlText(render('1234567890'));
    expect(text).toContain('This Service could not be shown');
    expect(text).toContain('Error digest: 1234567890 (search the server log for it)');
  });
});
