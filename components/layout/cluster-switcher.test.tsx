/**
 * The header's cluster switcher: where choosing a cluster goes from each view, the search over
 * name, context and server, what each key does in the search box (a user's key sequences), and
 * the markup a screen reader gets — the button with `aria-expanded`, the combobox pointing at the
 * listbox and its marked option, the options with their state, and the fleet link — plus nothing
 * at all with one cluster.
 */
import { renderToStaticMarkup } from 'react-dom/server';
import { AppRouterContext } from 'next/dist/shared/lib/app-router-context.shared-runtime';
import type { AppRouterInstance } from 'next/dist/shared/lib/app-router-context.shared-runtime';
import { describe, expect, it } from 'vitest';

import { htmlText } from '../test-support';
import type { SwitcherOption } from './cluster-switcher';
import { ClusterSwitcher, ClusterSwitcherPanel, clusterViewPath, filterClusters, switcherKeyAction, switchHref } from './cluster-switcher';

const CLUSTERS: readonly SwitcherOption[] = [
  { id: 'prod', displayName: 'prod', context: 'arn:aws:eks:eu-west-1:123456789012:cluster/prod', server: 'https://ABC.gr7.eu-west-1.eks.amazonaws.com', state: 'open · synced', tone: 'ok', base: '' },
  { id: 'staging', displayName: 'staging', context: 'gke_proj_europe-west1_staging', server: 'https://34.1.2.3', state: 'open · syncing', tone: 'info', base: '/c/staging' },
  { id: 'lab', displayName: 'lab', context: 'lab', server: 'https://10.0.0.9:6443', state: 'error: Cannot reach the API server (connection refused, ECONNREFUSED).', tone: 'error', base: '/c/lab' },
  { id: 'old', displayName: 'old', context: 'old', server: null, state: 'closed after idle', tone: 'neutral', base: '/c/old' },
];

const noop = () => {};
const router: AppRouterInstance = { back: noop, forward: noop, refresh: noop, push: noop, replace: noop, prefetch: noop, bfcacheId: 'test' };

describe('where choosing a cluster goes', () => {
  it('keeps the view: Overview, Services, Dataplane; a Service page becomes a search for it', () => {
    expect(clusterViewPath('/')).toBe('/');
    expect(clusterViewPath('/c/staging')).toBe('/');
    expect(clusterViewPath('/services')).toBe('/services');
    expect(clusterViewPath('/c/lab/services')).toBe('/services');
    expect(clusterViewPath('/services/shop/cart')).toBe('/services?q=cart');
    expect(clusterViewPath('/c/lab/services/shop/cart/yaml')).toBe('/services?q=cart');
    expect(clusterViewPath('/services/shop/a%20b')).toBe('/services?q=a%20b');
    expect(clusterViewPath('/dataplane')).toBe('/dataplane');
    expect(clusterViewPath('/fleet')).toBe('/');
  });

  it('puts the view under the chosen cluster’s prefix, none for the default', () => {
    const [prod, staging] = CLUSTERS;
    expect(prod && switchHref(prod, '/c/staging/services/shop/cart')).toBe('/services?q=cart');
    expect(staging && switchHref(staging, '/services/shop/cart')).toBe('/c/staging/services?q=cart');
    expect(staging && switchHref(staging, '/')).toBe('/c/staging');
    expect(staging && switchHref(staging, '/dataplane')).toBe('/c/staging/dataplane');
  });
});

describe('the search', () => {
  const ids = (query: string) => filterClusters(CLUSTERS, query).map((c) => c.id);
  it('matches the display name, the context, the server and the id, in any case', () => {
    expect(ids('')).toEqual(['prod', 'staging', 'lab', 'old']);
    expect(ids('STAG')).toEqual(['staging']);
    expect(ids('eu-west-1')).toEqual(['prod']);
    expect(ids('10.0.0.9')).toEqual(['lab']);
    expect(ids('gke_')).toEqual(['staging']);
    expect(ids('nothing-like-it')).toEqual([]);
  });
});

describe('keys in the search box', () => {
  /** Presses `keys` from `active` over `count` options; the marked option after each move, or what ended it. */
  function press(keys: readonly string[], active: number, count: number): (number | string)[] {
    const out: (number | string)[] = [];
    let at = active;
    for (const key of keys) {
      const action = switcherKeyAction(key, at, count);
      if (action === null) out.push(`ignored ${key}`);
      else if (action.kind === 'move') out.push((at = action.to));
      else if (action.kind === 'choose') out.push(`choose ${action.index}`);
      else out.push('close');
    }
    return out;
  }

  it('moves with the arrows, stops at the ends, jumps with Home and End, chooses with Enter', () => {
    expect(press(['ArrowDown', 'ArrowDown', 'ArrowDown', 'ArrowDown', 'ArrowUp', 'Home', 'ArrowUp', 'End', 'Enter'], 0, 4)).toEqual([1, 2, 3, 3, 2, 0, 0, 3, 'choose 3']);
  });

  it('closes with Escape and leaves typing keys to the input', () => {
    expect(press(['a', 'Backspace', 'Escape'], 1, 4)).toEqual(['ignored a', 'ignored Backspace', 'close']);
  });

  it('does nothing but close when nothing matches', () => {
    expect(press(['ArrowDown', 'Home', 'End', 'Enter', 'Escape'], 0, 0)).toEqual(['ignored ArrowDown', 'ignored Home', 'ignored End', 'ignored Enter', 'close']);
  });
});

describe('the markup', () => {
  it('is a button naming the current cluster, closed, with the number of clusters', () => {
    const html = renderToStaticMarkup(
      <AppRouterContext.Provider value={router}>
        <ClusterSwitcher clusters={CLUSTERS} currentId="staging" />
      </AppRouterContext.Provider>,
    );
    expect(html).toMatch(/<button[^>]*aria-haspopup="dialog"[^>]*aria-expanded="false"/);
    expect(htmlText(html)).toBe('Switch cluster, current: staging · 4');
    expect(html).not.toContain('role="listbox"');
  });

  it('is nothing with one cluster', () => {
    const html = renderToStaticMarkup(
      <AppRouterContext.Provider value={router}>
        <ClusterSwitcher clusters={CLUSTERS.slice(0, 1)} currentId="prod" />
      </AppRouterContext.Provider>,
    );
    expect(html).toBe('');
  });

  const panel = (query: string, active: number) =>
    renderToStaticMarkup(
      <ClusterSwitcherPanel id="sw" options={CLUSTERS} shown={filterClusters(CLUSTERS, query)} query={query} active={active} currentId="prod" fleetHref="/fleet" onQuery={noop} onKey={noop} onChoose={noop} onHover={noop} />,
    );

  it('opens on a labelled combobox that controls the listbox and points at the marked option', () => {
    const html = panel('', 2);
    expect(html).toMatch(/<label for="sw-search"[^>]*>Search 4 clusters<\/label>/);
    expect(html).toMatch(/<input id="sw-search" type="search" role="combobox" aria-expanded="true" aria-controls="sw-list" aria-autocomplete="list" aria-activedescendant="sw-option-2"/);
    expect(html).toMatch(/<ul id="sw-list" role="listbox" aria-label="Clusters"/);
    const options = [...html.matchAll(/<li id="(sw-option-\d)" role="option" aria-selected="(true|false)" data-cluster="([^"]+)"/g)].map((m) => [m[1], m[2], m[3]]);
    expect(options).toEqual([
      ['sw-option-0', 'false', 'prod'],
      ['sw-option-1', 'false', 'staging'],
      ['sw-option-2', 'true', 'lab'],
      ['sw-option-3', 'false', 'old'],
    ]);
  });

  it('lists each cluster with its context, server and state, marks the current one, and links to the fleet', () => {
    const html = panel('', 0);
    const text = htmlText(html);
    expect(text).toContain('prod (current)');
    expect(text).toContain('Context: arn:aws:eks:eu-west-1:123456789012:cluster/prod');
    expect(text).toContain('Server: https://ABC.gr7.eu-west-1.eks.amazonaws.com');
    expect(text).toContain('open · syncing');
    // The state's head in the badge, its detail below.
    expect(html).toMatch(/<span class="[^"]*bg-red-100[^"]*"><svg[^>]*>.*?<\/svg>error<\/span>/);
    expect(text).toContain('error Cannot reach the API server (connection refused, ECONNREFUSED).');
    expect(text).toContain('closed after idle');
    // A context equal to the name is not repeated.
    expect(text).not.toContain('Context: lab');
    expect(html).toMatch(/<a[^>]*href="\/fleet"[^>]*>All clusters →<\/a>/);
  });

  it('says when nothing matches, with no option marked', () => {
    const html = panel('zzz', -1);
    expect(html).not.toContain('role="option"');
    expect(html).not.toContain('aria-activedescendant');
    expect(htmlText(html)).toContain('No cluster matches “zzz”.');
  });
});
