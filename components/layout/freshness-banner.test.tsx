/** The stale-data banner and the page's "cannot be read" panel: permanent failures say to fix the cause, transient ones that they pass. */
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { syncProgress } from '@/lib/views/header';

type ResourceStatus = Parameters<typeof syncProgress>[0][number];
import type { HeaderView } from '@/lib/views/header';
import { ClusterStatusPanel } from '../shared/cluster-status';
import { FreshnessBadge, FreshnessBanner } from './site-header';

const text = (html: string) => html.replace(/<[^>]+>/g, ' ').replace(/&#x27;/g, "'").replace(/&quot;/g, '"').replace(/\s+/g, ' ').trim();

function header(message: string, permanent: boolean): HeaderView {
  return {
    clusterId: 'prod',
    isDefault: true,
    displayName: 'prod',
    configuredName: null,
    mode: 'live',
    contextName: 'prod',
    serverUrl: 'https://10.0.0.1',
    snapshotPath: null,
    gitVersion: null,
    release: 'unknown',
    platform: null,
    readOnly: false,
    readOnlyReason: null,
    freshness: {
      synced: false,
      analysis: null,
      staleSince: '2026-01-01T00:00:00.000Z',
      stale: [{ title: 'Services', since: '2026-01-01T00:00:00.000Z', message, permanent }],
      forbidden: [],
      syncing: [],
      progress: { listed: 0, done: 0, types: 10 },
      problems: [],
      relisting: null,
    },
    permissions: null,
    metrics: {
      state: 'not-configured', message: 'No Prometheus is configured.', url: null, window: '7d', lastSuccessAt: null, staleSince: null,
      queriesIssued: 0, queriesPerRefresh: 3, refreshSeconds: 60, hint: null,
    },
  } as HeaderView;
}

describe('FreshnessBanner', () => {
  it('a permanent failure: says it does not go away on its own, with the cause', () => {
    const html = text(renderToStaticMarkup(<FreshnessBanner header={header('The credential plugin "aws eks get-token" failed (exit code 255).', true)} />));
    expect(html).toContain('This does not go away on its own: fix the cause below');
    expect(html).not.toContain('this banner goes away on its own');
    expect(html).toContain('Services since');
    expect(html).toContain('The credential plugin "aws eks get-token" failed (exit code 255).');
  });

  it('a transient failure: the banner goes away on its own', () => {
    const html = text(renderToStaticMarkup(<FreshnessBanner header={header('Cannot reach the API server (connection refused, ECONNREFUSED).', false)} />));
    expect(html).toContain('zonescope keeps retrying in the background and this banner goes away on its own.');
    expect(html).not.toContain('fix the cause below');
  });
});

describe('ClusterStatusPanel', () => {
  it('a permanent failure asks for the fix; a transient one says the page updates on its own', () => {
    const permanent = text(renderToStaticMarkup(<ClusterStatusPanel what="the overview" status={{ state: 'unavailable', reason: 'TLS says no.', since: null, retrying: true, permanent: true }} />));
    expect(permanent).toContain('TLS says no. This does not go away on its own: fix the cause above.');
    const transient = text(renderToStaticMarkup(<ClusterStatusPanel what="the overview" status={{ state: 'unavailable', reason: 'Refused.', since: null, retrying: true, permanent: false }} />));
    expect(transient).toContain('this page updates on its own once the API server answers');
  });
});

describe('sync progress', () => {
  it('the header badge and the page body count the same objects (every type, the finished ones too)', () => {
    const status = (title: string, listed: number, synced: boolean): ResourceStatus => ({
      id: 'services', title, health: synced ? 'synced' : 'syncing', resourceVersion: null, syncedAt: synced ? '2026-01-01T00:00:00.000Z' : null,
      lastEventAt: null, staleSince: null, error: null, listing: !synced, listed, count: listed, lists: 0, watches: 0,
    });
    const statuses = [status('Nodes', 5_000, true), status('Services', 10_000, true), status('Pods', 42_052, false)];
    const progress = syncProgress(statuses);
    expect(progress).toEqual({ listed: 57_052, done: 2, types: 3 });
    const base = header('', false);
    const badge = text(renderToStaticMarkup(<FreshnessBadge header={{ ...base, freshness: { ...base.freshness, stale: [], staleSince: null, progress } }} />));
    expect(badge).toBe('Syncing: 57,052 objects listed');
    const body = text(renderToStaticMarkup(<ClusterStatusPanel what="the overview" status={{ state: 'syncing', progress, types: [] }} />));
    expect(body).toContain('Syncing: 57,052 objects listed so far (2 of 3 resource types done).');
  });
});
