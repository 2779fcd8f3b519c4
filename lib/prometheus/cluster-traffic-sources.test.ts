/**
 * The per-cluster traffic sources and the cluster registry's lifecycle: a real `ClusterRegistry`
 * (lib/k8s/clusters.ts) over a kubeconfig of four contexts, with sources that only count starts and
 * stops (no API server is needed to open or close a cluster), and a stand-in for Prometheus' query
 * API that records each query. A cluster the registry closes — idle, to make room, or the registry
 * stopping — stops its traffic source; one opened again gets a new one.
 */
import http from 'node:http';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { UnavailableClusterSource } from '../k8s/cluster-sources/unavailable-source';
import type { ClusterEntry } from '../k8s/cluster-entries';
import { ClusterRegistry } from '../k8s/clusters';
import { ClusterTrafficSources } from './cluster-traffic-sources';
import { PROMETHEUS_BY_CONTEXT } from '../config/prometheus-syntax';
import { configFromEnv } from '../config/config';

const tmp = mkdtempSync(path.join(tmpdir(), 'zonescope-traffic-sources-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** Queries received, with the path prefix they were sent to (`/shared` or `/south`). */
const received: { readonly prefix: string; readonly query: string }[] = [];
let server: http.Server;
let base = '';

beforeAll(async () => {
  server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '', 'http://x');
    received.push({ prefix: url.pathname.split('/api/')[0] ?? '', query: url.searchParams.get('query') ?? '' });
    res.writeHead(200, { 'Content-Type': 'application/json' });
    res.end(JSON.stringify({ status: 'success', data: { resultType: 'vector', result: [] } }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

beforeEach(() => {
  received.length = 0;
});

/** A cluster source that only counts starts and stops. */
class CountingSource extends UnavailableClusterSource {
  stops = 0;
  override start(): void {}
  override async stop(): Promise<void> {
    this.stops++;
  }
}

const kubeconfig = path.join(tmp, 'config');
const CONTEXTS = ['east', 'west', 'south', 'north'];
writeFileSync(
  kubeconfig,
  stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: CONTEXTS.map((name) => ({ name, cluster: { server: `https://${name}.example:6443` } })),
    users: CONTEXTS.map((name) => ({ name, user: { token: name } })),
    contexts: CONTEXTS.map((name) => ({ name, context: { cluster: name, user: name } })),
    'current-context': 'east',
  }),
);

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

/** A registry (east the default; idle after 10 min; at most `maxOpen` open, the default counted) and the traffic sources following it. */
function setup(maxOpen = 3) {
  let time = 1_000_000;
  const registry = new ClusterRegistry({
    config: configFromEnv({ HOME: tmp, KUBECONFIG: kubeconfig, ZONESCOPE_CLUSTER_IDLE_MINUTES: '10', ZONESCOPE_MAX_OPEN_CLUSTERS: String(maxOpen) }),
    now: () => time,
    sweepIntervalMs: 0,
    createSource: (entry) => new CountingSource('fake', entry.context),
  });
  const logs: string[] = [];
  const sources = new ClusterTrafficSources({
    config: configFromEnv({
      ZONESCOPE_PROMETHEUS_URL: `${base}/shared`,
      ZONESCOPE_PROMETHEUS_WINDOW: '1m',
      // One refresh when started; the test asks for the others.
      ZONESCOPE_PROMETHEUS_REFRESH_SECONDS: '3600',
      [PROMETHEUS_BY_CONTEXT]: JSON.stringify({ west: { selector: 'cluster="west"' }, south: { url: `${base}/south` } }),
    }),
    source: { log: (line) => logs.push(line) },
  });
  sources.follow(registry);
  cleanups.push(async () => {
    await registry.stop();
    await sources.stopAll();
  });
  /** Opens `id` as a page (or the fleet) would and asks for its traffic source, as lib/views does. */
  const open = (id: string, options: { for?: 'page' | 'fleet' } = {}) => {
    const opened = registry.open(id, options);
    if (!opened.ok) throw new Error(opened.message);
    const entry = registry.entry(id) as ClusterEntry;
    return { owner: opened.source, lookup: sources.sourceFor(entry, opened.source) };
  };
  return { registry, sources, open, logs, advance: (ms: number) => (time += ms) };
}

describe('per-cluster traffic sources', () => {
  it('one running source per configured cluster, reading its own series; none for a cluster without a configuration or the default without an entry', async () => {
    const { sources, open, registry } = setup(4);
    const west = open('west');
    const south = open('south');
    const north = open('north');
    expect(west.lookup.kind).toBe('source');
    expect(south.lookup.kind).toBe('source');
    if (west.lookup.kind !== 'source' || south.lookup.kind !== 'source') return;
    expect(west.lookup.source.running).toBe(true);
    // Asked again by the same opening (every page, the fleet): the same source, no second timer.
    expect(sources.sourceFor(registry.entry('west') as ClusterEntry, west.owner)).toEqual(west.lookup);
    expect(sources.ids()).toEqual(['west', 'south']);

    await Promise.all([west.lookup.source.refresh(), south.lookup.source.refresh()]);
    const westQueries = received.filter((r) => r.query.includes('cluster="west"'));
    expect(westQueries.length).toBeGreaterThan(0);
    expect(westQueries.every((r) => r.prefix === '/shared')).toBe(true);
    // south's own Prometheus, without a selector; nobody else asks it.
    expect(received.filter((r) => r.prefix === '/south').every((r) => !r.query.includes('cluster='))).toBe(true);
    expect(received.filter((r) => r.prefix === '/south').length).toBeGreaterThan(0);
    expect(received.filter((r) => r.prefix === '/shared').every((r) => r.query.includes('cluster="west"'))).toBe(true);
    // Nothing matches here: the status names the selector (a typo in it reads as no series).
    expect(west.lookup.source.status()).toMatchObject({ state: 'no-series', url: `${base}/shared` });
    expect(west.lookup.source.status().message).toContain('matching {cluster="west"}: traffic volumes are assumed.');

    // north: no entry, so no source and no query; its status says how to add one.
    expect(north.lookup.kind).toBe('none');
    if (north.lookup.kind === 'none') {
      expect(north.lookup.status).toMatchObject({ state: 'not-configured', url: null, queriesIssued: 0 });
      expect(north.lookup.status.hint).toContain('Add "north" to ZONESCOPE_PROMETHEUS_BY_CONTEXT');
    }
    // The default cluster without an entry reads the process-wide source, not one of these.
    expect(sources.serves(registry.defaultEntry())).toBe(false);
    expect(sources.serves(registry.entry('west') as ClusterEntry)).toBe(true);
  });

  it('a cluster the registry closes after idleness stops its source; opened again, it gets a new one', async () => {
    const { registry, sources, open, advance } = setup();
    const first = open('west');
    if (first.lookup.kind !== 'source') throw new Error('west has no source');
    const source = first.lookup.source;
    await source.refresh();
    advance(11 * 60_000);
    expect(registry.sweep()).toEqual(['west']);
    expect(source.running).toBe(false);
    expect(sources.peek('west')).toBeNull();

    const again = open('west');
    expect(again.owner).not.toBe(first.owner);
    if (again.lookup.kind !== 'source') throw new Error('west has no source');
    expect(again.lookup.source).not.toBe(source);
    expect(again.lookup.source.running).toBe(true);
    // A late close of the earlier opening leaves the new source alone.
    expect(sources.release('west', first.owner)).toBe(false);
    expect(again.lookup.source.running).toBe(true);
  });

  it('a cluster closed to make room for one a user opens stops its source; stopping the registry stops the rest', () => {
    const { registry, sources, open } = setup();
    open('east');
    const west = open('west', { for: 'fleet' });
    const south = open('south', { for: 'fleet' });
    if (west.lookup.kind !== 'source' || south.lookup.kind !== 'source') throw new Error('no source');
    // At the limit (3), a user opens north: west, the one only the fleet opened longest ago, closes.
    open('north');
    expect(registry.closedFor('west')?.id).toBe('north');
    expect(west.lookup.source.running).toBe(false);
    expect(south.lookup.source.running).toBe(true);
    expect(sources.ids()).toEqual(['south']);

    void registry.stop();
    expect(south.lookup.source.running).toBe(false);
    expect(sources.ids()).toEqual([]);
  });

  it('a source whose cluster was opened again by another owner is replaced, the old one stopped', () => {
    const { sources, registry } = setup();
    const entry = registry.entry('south') as ClusterEntry;
    const ownerA = new CountingSource('a', 'south');
    const ownerB = new CountingSource('b', 'south');
    const a = sources.sourceFor(entry, ownerA);
    const b = sources.sourceFor(entry, ownerB);
    if (a.kind !== 'source' || b.kind !== 'source') throw new Error('no source');
    expect(a.source.running).toBe(false);
    expect(b.source.running).toBe(true);
    expect(sources.peek('south')).toBe(b.source);
  });

  it('an owner the registry closed already (a request still holding it) gets no source, only a status', async () => {
    const { registry, sources, open, advance } = setup();
    const west = open('west');
    advance(11 * 60_000);
    registry.sweep();
    const late = sources.sourceFor(registry.entry('west') as ClusterEntry, west.owner, { open: registry.peek('west') === west.owner });
    expect(late.kind).toBe('none');
    if (late.kind === 'none') expect(late.status).toMatchObject({ state: 'pending', url: `${base}/shared`, queriesIssued: 0 });
    expect(sources.ids()).toEqual([]);
  });

  it('a failing cluster logs under its context, never with credentials', async () => {
    const sources = new ClusterTrafficSources({
      config: configFromEnv({ [PROMETHEUS_BY_CONTEXT]: JSON.stringify({ gone: { url: 'http://reader:hunter2@127.0.0.1:1' } }), ZONESCOPE_PROMETHEUS_REFRESH_SECONDS: '3600', ZONESCOPE_PROMETHEUS_TIMEOUT_MS: '500' }),
      source: { log: (line) => logs.push(line) },
    });
    const logs: string[] = [];
    cleanups.push(() => sources.stopAll());
    const lookup = sources.sourceFor({ id: 'gone', context: 'gone', isDefault: false }, {});
    if (lookup.kind !== 'source') throw new Error('no source');
    await lookup.source.refresh();
    expect(lookup.source.status().state).toBe('unreachable');
    expect(logs).toHaveLength(1);
    expect(logs[0]).toMatch(/^\[zonescope gone\] metrics: Prometheus at http:\/\/127\.0\.0\.1:1 is unreachable/);
    expect(JSON.stringify([logs, lookup.source.status()])).not.toContain('hunter2');
  });
});
