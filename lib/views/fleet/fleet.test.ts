/**
 * A fleet row says what the cluster's own analysis says: two bundled scenarios (eks-demo, eligible
 * with hints working for some Services; missing-zone-label, where one node turns hints off
 * cluster-wide) analysed by the engine from their fixture snapshots, and eks-demo again with Nodes
 * unreadable. Rows without an analysis say why (syncing, error, limit, closed after idle) and keep
 * the cluster's last figures with their time; the leader is the cluster spending most.
 */
import { beforeAll, describe, expect, it } from 'vitest';

import type { ClusterEntry } from '../../k8s/cluster-entries';
import type { ClusterAnalysis } from '../../topology/report/analysis-schema';
import { configFromEnv } from '../../config/config';
import { hintsReasonCode } from '../../topology/report/hints-reason';
import { commonAttentionSentence } from './attention-words';
import { fleetLeader, fleetOffered } from './fleet';
import type { FleetRowInput } from './row';
import { fleetRow, withLastFigures } from './row';
import { switcherState } from './switcher';
import { analyseFixture } from './fleet-test-support';
import type { Freshness, HeaderView } from '../header';


function entry(id: string, extra: Partial<ClusterEntry> = {}): ClusterEntry {
  return { id, context: id, displayName: id, server: `https://${id}.example:6443`, isDefault: false, configError: null, ...extra };
}

const link = (id: string) => (path: string) => (id === 'default' ? path : `/c/${id}${path === '/' ? '' : path}`);

const FRESH: Freshness = {
  synced: true,
  analysis: null,
  staleSince: null,
  stale: [],
  forbidden: [],
  syncing: [],
  progress: { listed: 120, done: 9, types: 9 },
  problems: [],
  relisting: null,
};

function header(freshness: Partial<Freshness> = {}): Pick<HeaderView, 'mode' | 'freshness' | 'gitVersion' | 'release' | 'platform'> {
  return { mode: 'live', freshness: { ...FRESH, ...freshness }, gitVersion: 'v1.31.4-eks-2d98532', release: '1.31', platform: 'eks' };
}

const NOW = '2026-12-01T10:00:00.000Z';

/** The value, which the test expects to be there. */
function must<T>(value: T | null | undefined, what = 'value'): T {
  if (value === null || value === undefined) throw new Error(`no ${what}`);
  return value;
}

function open(id: string, analysis: ClusterAnalysis | null, extra: Partial<FleetRowInput> = {}): FleetRowInput {
  return { entry: entry(id), state: 'open', link: link(id), now: NOW, header: header(), status: { state: 'ready' }, analysis, ...extra };
}

let demo: ClusterAnalysis;
let missingZone: ClusterAnalysis;
let nodesForbidden: ClusterAnalysis;

beforeAll(async () => {
  [demo, missingZone, nodesForbidden] = await Promise.all([analyseFixture('eks-demo'), analyseFixture('missing-zone-label'), analyseFixture('eks-demo', ['nodes'])]);
});

describe('a row of an analysed cluster', () => {
  it('carries the release, platform, eligibility, proxy mode and Service counts of its analysis', () => {
    const row = fleetRow(open('prod', demo));
    const s = demo.cluster.summary;
    expect(row).toMatchObject({
      id: 'prod',
      href: '/c/prod',
      state: 'open',
      release: '1.31',
      gitVersion: 'v1.31.4-eks-2d98532',
      platform: 'eks',
      eligible: true,
      proxyMode: 'iptables',
      serviceProxy: 'kube-proxy',
      honoursHints: true,
      services: s.services,
      askingForHints: s.byMechanism['topology-mode'] + s.byMechanism['legacy-annotation'] + s.byMechanism.trafficDistribution,
      hintsOn: s.hintsObservedOn,
      needingAttention: s.needingAttention,
      asOf: NOW,
      freshness: { kind: 'synced', label: 'Synced' },
      refused: null,
      unknown: [],
    });
    expect(row.eligibilityVerdict).toMatch(/^Eligible: 3 zones/);
    expect(row.askingForHints).toBe(9);
  });

  it('prices cross-zone traffic now and at best, and names the Service costing most with its fix and a link into its cluster', () => {
    const row = fleetRow(open('prod', demo));
    expect(row.crossZoneMonthly).toBeCloseTo(demo.traffic.totals.now.monthlyCost, 9);
    expect(row.bestMonthly).toBeCloseTo(demo.traffic.totals.best.monthlyCost, 9);
    expect(row.saving).toBeCloseTo(must(row.crossZoneMonthly) - must(row.bestMonthly), 9);
    expect(row.crossZoneMonthly).toBeGreaterThan(must(row.bestMonthly));
    const top = must(demo.traffic.topByCost[0]);
    expect(row.topService).toMatchObject({ namespace: top.namespace, name: top.name, monthlyCost: top.monthlyCost, fix: top.fix, href: `/c/prod/services/${top.namespace}/${top.name}` });
    expect(row.measured).toBe(false);
  });

  it('names the most common reason for attention with a link to those Services', () => {
    const row = fleetRow(open('prod', demo));
    const counts = new Map<string, number>();
    for (const item of demo.cluster.needsAttention) counts.set(item.reason, (counts.get(item.reason) ?? 0) + 1);
    const most = Math.max(...counts.values());
    const common = must(row.commonAttention);
    expect(common.services).toBe(most);
    expect(counts.get(common.reason)).toBe(most);
    expect(common.href).toBe(`/c/prod/services?attention=1&reason=${common.reason}&sort=crossZone&order=desc`);
  });

  it('says the common reason in words that hold for every Service it counts, never one Service\'s message', () => {
    for (const analysis of [demo, missingZone]) {
      const common = must(fleetRow(open('prod', analysis)).commonAttention);
      const theirs = analysis.services.filter((s) => s.needsAttention?.reason === common.reason);
      expect(theirs).toHaveLength(common.services);
      // No Service's own message (with its numbers) stands for all of them.
      expect(theirs.map((s) => s.needsAttention?.message)).not.toContain(common.message);
      expect(common.message).toBe(commonAttentionSentence(common.reason, common.causes));
      if (common.reason === 'hints-off') {
        // Every one of them counted under the bounded code of its controller reason.
        expect(common.causes.reduce((sum, c) => sum + c.services, 0)).toBe(common.services);
        for (const cause of common.causes) expect(theirs.filter((s) => hintsReasonCode(s) === cause.code)).toHaveLength(cause.services);
      } else {
        expect(common.causes).toEqual([]);
      }
    }
    // missing-zone-label: one unlabelled node turns hints off for both Services, for one reason.
    expect(fleetRow(open('prod', missingZone)).commonAttention).toMatchObject({
      reason: 'hints-off',
      services: 2,
      causes: [{ code: 'insufficient-node-info', services: 2 }],
      message: 'Hints off: a ready node lacks a zone label or allocatable CPU.',
    });
  });

  it('says why a cluster is not eligible, and why its costliest Service crosses zones', () => {
    const row = fleetRow(open('default', missingZone, { entry: entry('default', { isDefault: true, context: null }) }));
    expect(row.href).toBe('/');
    expect(row.eligible).toBe(false);
    expect(row.eligibilityVerdict).toMatch(/^Not eligible: node self-managed-node-1/);
    expect(row.saving).toBe(0);
    expect(row.topService).toMatchObject({ namespace: 'shop', name: 'web', href: '/services/shop/web' });
    expect(row.topService?.reason).toMatch(/Hints off|Insufficient Node information/);
    expect(row.topService?.fix).toMatch(/Label self-managed-node-1/);
    expect(row.commonAttention).toMatchObject({ reason: 'hints-off', services: 2 });
  });

  it('leaves eligibility unknown when Nodes are forbidden, and says so', () => {
    const row = fleetRow(open('eu', nodesForbidden, { header: header({ forbidden: [{ resource: 'nodes', title: 'Nodes', message: 'forbidden', unknown: 'unknown: zonescope could not read Nodes (forbidden)', affects: [], rule: '' }] }) }));
    expect(row.eligible).toBeNull();
    expect(row.eligibilityVerdict).toMatch(/could not read Nodes/);
    expect(row.unknown.join(' ')).toMatch(/could not read Nodes/);
    expect(row.freshness).toMatchObject({ kind: 'synced', label: 'Synced, 1 type forbidden' });
    expect(row.freshness.message).toMatch(/could not read Nodes \(forbidden\)/);
  });
});

describe('a row without an analysis', () => {
  it('shows the sync progress of a cluster still listing, with the release its server reported', () => {
    const row = fleetRow(open('prod', null, { header: header({ synced: false, progress: { listed: 1204, done: 3, types: 9 } }), status: null }));
    expect(row.freshness).toMatchObject({ kind: 'syncing', label: 'Syncing: 1,204 objects listed', message: '3 of 9 resource types done' });
    expect(row).toMatchObject({ release: '1.31', platform: 'eks', crossZoneMonthly: null, services: null, asOf: null });
  });

  it('shows the analysis progress once every type is listed', () => {
    const analysis = { kind: 'first' as const, reason: null, done: 40, total: 90, since: NOW, generation: 3, shownGeneration: null, message: 'Analysing Services: 40 of 90' };
    const row = fleetRow(open('prod', null, { header: header({ synced: false, analysis }) }));
    expect(row.freshness).toMatchObject({ kind: 'syncing', label: 'Analysing Services: 40 of 90', progress: { done: 40, total: 90 } });
  });

  it('shows the error of an unreachable cluster', () => {
    const row = fleetRow(open('down', null, { status: { state: 'unavailable', reason: 'connect ECONNREFUSED 127.0.0.1:1', since: NOW, retrying: true, permanent: false }, header: header({ synced: false }) }));
    expect(row.freshness).toMatchObject({ kind: 'error', label: 'Error', message: 'connect ECONNREFUSED 127.0.0.1:1', since: NOW });
  });

  it('shows a stale watch with its time and cause, keeping the figures it has', () => {
    const stale = [{ title: 'Pods', since: '2026-12-01T09:58:12.000Z', message: 'connection reset', permanent: false }];
    const row = fleetRow(open('prod', demo, { header: header({ stale, staleSince: must(stale[0]).since }) }));
    expect(row.freshness).toMatchObject({ kind: 'stale', label: 'Stale since 09:58:12 UTC', message: 'Pods: connection reset' });
    expect(row.services).toBe(demo.cluster.summary.services);
  });

  it('shows the limit message of a cluster the registry refused to open', () => {
    const message = 'Cannot open cluster "c9": 8 clusters are open, the most ZONESCOPE_MAX_OPEN_CLUSTERS allows.';
    const row = fleetRow({ entry: entry('c9'), state: 'idle', link: link('c9'), now: NOW, refused: { reason: 'limit', message } });
    expect(row.freshness).toMatchObject({ kind: 'not-connected', label: 'Not connected', message });
    expect(row.refused).toEqual({ reason: 'limit', message });
  });

  it('shows a configuration error', () => {
    const row = fleetRow({ entry: entry('ghost', { configError: 'ZONESCOPE_CONTEXTS names "ghost", which the kubeconfig does not have.' }), state: 'error', link: link('ghost'), now: NOW });
    expect(row.freshness).toMatchObject({ kind: 'error', label: 'Configuration error' });
    expect(row.freshness.message).toMatch(/ghost/);
  });

  it('keeps the last figures, with their time, of a cluster closed after idle', () => {
    const last = fleetRow(open('prod', demo));
    const closedAt = Date.parse('2026-12-01T10:20:00.000Z');
    const row = withLastFigures(fleetRow({ entry: entry('prod'), state: 'closed-idle', link: link('prod'), now: '2026-12-01T10:30:00.000Z', closedAt }), last);
    expect(row.freshness).toMatchObject({ kind: 'closed-idle', label: 'Closed after idle', since: '2026-12-01T10:20:00.000Z' });
    expect(row.state).toBe('closed-idle');
    expect(row.asOf).toBe(NOW);
    expect(row.crossZoneMonthly).toBe(last.crossZoneMonthly);
    expect(row.topService).toEqual(last.topService);
  });

  it('says which cluster took the place of one closed to make room, keeping its last figures', () => {
    const last = fleetRow(open('staging', demo));
    const closedAt = Date.parse('2026-12-01T10:20:00.000Z');
    const row = withLastFigures(fleetRow({ entry: entry('staging'), state: 'closed-idle', link: link('staging'), now: '2026-12-01T10:30:00.000Z', closedAt, closedFor: 'prod-eu' }), last);
    expect(row.freshness).toMatchObject({ kind: 'closed-idle', label: 'Closed to make room', since: '2026-12-01T10:20:00.000Z' });
    expect(row.freshness.message).toBe(
      'Its watches were closed when prod-eu was opened at the open-cluster limit (ZONESCOPE_MAX_OPEN_CLUSTERS): only the fleet page had opened it. Opening it connects again.',
    );
    expect(row.crossZoneMonthly).toBe(last.crossZoneMonthly);
  });

  it('never replaces current figures with older ones', () => {
    const old = fleetRow(open('prod', missingZone, { now: '2026-12-01T09:00:00.000Z' }));
    const current = fleetRow(open('prod', demo));
    expect(withLastFigures(current, old)).toBe(current);
  });
});

describe('the cluster spending most', () => {
  it('is the row with the highest cross-zone cost now, with its share of the fleet', () => {
    const rows = [fleetRow(open('a', missingZone)), fleetRow(open('b', demo)), fleetRow({ entry: entry('c'), state: 'idle', link: link('c'), now: NOW })];
    const leader = fleetLeader(rows);
    expect(leader?.row.id).toBe('b');
    expect(leader?.counted).toBe(2);
    expect(leader?.total).toBeCloseTo(demo.traffic.totals.now.monthlyCost + missingZone.traffic.totals.now.monthlyCost, 9);
    expect(leader?.share).toBeCloseTo(demo.traffic.totals.now.monthlyCost / must(leader).total, 9);
  });

  it('is none when no cluster has a figure', () => {
    expect(fleetLeader([fleetRow({ entry: entry('c'), state: 'idle', link: link('c'), now: NOW })])).toBeNull();
  });
});

describe('the switcher\'s words for a cluster', () => {
  const synced = fleetRow(open('prod', demo)).freshness;
  it('says how an open cluster is, and that the others are not connected or closed', () => {
    expect(switcherState('open', entry('prod'), synced)).toEqual({ state: 'open · synced', tone: 'ok' });
    expect(switcherState('open', entry('prod'), fleetRow(open('prod', null, { header: header({ synced: false }) })).freshness)).toEqual({ state: 'open · syncing', tone: 'info' });
    const down = fleetRow(open('down', null, { status: { state: 'unavailable', reason: 'Cannot reach the API server.', since: null, retrying: true, permanent: false } })).freshness;
    expect(switcherState('open', entry('down'), down)).toEqual({ state: 'error: Cannot reach the API server.', tone: 'error' });
    const stale = [{ title: 'Pods', since: '2026-12-01T09:58:12.000Z', message: 'connection reset', permanent: false }];
    expect(switcherState('open', entry('prod'), fleetRow(open('prod', demo, { header: header({ stale, staleSince: '2026-12-01T09:58:12.000Z' }) })).freshness)).toEqual({ state: 'open · stale since 09:58:12 UTC', tone: 'warn' });
    expect(switcherState('idle', entry('eu'), null)).toEqual({ state: 'not connected', tone: 'neutral' });
    expect(switcherState('closed-idle', entry('eu'), null)).toEqual({ state: 'closed after idle', tone: 'neutral' });
    expect(switcherState('error', entry('ghost', { configError: 'no such context' }), null)).toEqual({ state: 'error: no such context', tone: 'error' });
  });
});

describe('the Fleet link', () => {
  it('is offered with several clusters, or with one cluster and a fleet Prometheus to read the others from', () => {
    expect(fleetOffered(1, configFromEnv({}))).toBe(false);
    expect(fleetOffered(1, configFromEnv({ ZONESCOPE_FLEET_PROMETHEUS_URL: '  ' }))).toBe(false);
    expect(fleetOffered(3, configFromEnv({}))).toBe(true);
    expect(fleetOffered(1, configFromEnv({ ZONESCOPE_FLEET_PROMETHEUS_URL: 'http://thanos-query.monitoring:9090' }))).toBe(true);
  });
});
