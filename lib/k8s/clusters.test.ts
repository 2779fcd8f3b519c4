import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { UnavailableClusterSource } from './cluster-sources/unavailable-source';
import type { ClusterRegistryOptions } from './clusters';
import type { ClusterEntry } from './cluster-entries';
import { ClusterRegistry } from './clusters';
import { clusterSlug } from './cluster-ids';
import { configFromEnv, parseConfig } from '../config/config';

const EKS = 'arn:aws:eks:eu-west-1:123456789012:cluster/prod';
const GKE = 'gke_proj_europe-west1_prod';

const tmp = mkdtempSync(path.join(tmpdir(), 'zonescope-clusters-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

let fileCount = 0;
/** A kubeconfig file with one cluster and user per context (server `https://{n}.example:6443`). */
function kubeconfigFile(contexts: readonly string[], current?: string): string {
  const file = path.join(tmp, `config-${++fileCount}`);
  writeFileSync(
    file,
    stringify({
      apiVersion: 'v1',
      kind: 'Config',
      clusters: contexts.map((name, i) => ({ name: `c${i}`, cluster: { server: `https://user:pw@${i}.example:6443/?q=1` } })),
      users: contexts.map((_, i) => ({ name: `u${i}`, user: { token: `token-${i}` } })),
      contexts: contexts.map((name, i) => ({ name, context: { cluster: `c${i}`, user: `u${i}` } })),
      ...(current !== undefined ? { 'current-context': current } : {}),
    }),
  );
  return file;
}

/** A source that counts starts and stops. */
class FakeSource extends UnavailableClusterSource {
  starts = 0;
  stops = 0;
  override start(): void {
    this.starts++;
  }
  override async stop(): Promise<void> {
    this.stops++;
  }
}

const registries: ClusterRegistry[] = [];
afterEach(async () => {
  for (const registry of registries.splice(0)) await registry.stop();
});

function setup(env: Record<string, string | undefined>, options: Partial<ClusterRegistryOptions> = {}) {
  let time = 1_000_000;
  const created: { entry: ClusterEntry; source: FakeSource }[] = [];
  const registry = new ClusterRegistry({
    config: configFromEnv({ HOME: tmp, ...env }),
    now: () => time,
    sweepIntervalMs: 0,
    createSource: (entry) => {
      const source = new FakeSource('fake', entry.context);
      created.push({ entry, source });
      return source;
    },
    ...options,
  });
  registries.push(registry);
  return {
    registry,
    created,
    advance: (ms: number) => {
      time += ms;
    },
  };
}

const ids = (registry: ClusterRegistry) => registry.entries().map((e) => e.id);

describe('environment', () => {
  it('reads the limits and the list; a limit it cannot use stops the start (it used to fall back to the default)', () => {
    const registry = (env: Record<string, string>) => setup({ KUBECONFIG: kubeconfigFile(['a', 'b', 'c'], 'a'), ...env }).registry;
    expect(registry({})).toMatchObject({ idleMs: 15 * 60_000, maxOpen: 8 });
    expect(registry({ ZONESCOPE_CLUSTER_IDLE_MINUTES: '0', ZONESCOPE_MAX_OPEN_CLUSTERS: '3' })).toMatchObject({ idleMs: 0, maxOpen: 3 });
    expect(registry({ ZONESCOPE_CLUSTER_IDLE_MINUTES: '2.5' }).idleMs).toBe(150_000);
    for (const [name, value] of [['ZONESCOPE_CLUSTER_IDLE_MINUTES', '-1'], ['ZONESCOPE_MAX_OPEN_CLUSTERS', '0'], ['ZONESCOPE_MAX_OPEN_CLUSTERS', '2.5'], ['ZONESCOPE_MAX_OPEN_CLUSTERS', 'eight']] as const) {
      const result = parseConfig({ [name]: value });
      expect(!result.ok && result.errors.map((e) => e.variable), `${name}=${value}`).toEqual([name]);
    }
    expect(configFromEnv({}).ZONESCOPE_CONTEXTS).toBeNull();
    expect(configFromEnv({ ZONESCOPE_CONTEXTS: ' * ' }).ZONESCOPE_CONTEXTS).toBeNull();
    expect(configFromEnv({ ZONESCOPE_CONTEXTS: 'b, a,,b ' }).ZONESCOPE_CONTEXTS).toEqual(['b', 'a']);
  });
});

describe('entries', () => {
  it('lists every context in kubeconfig order, the current context first, with names and servers without credentials', () => {
    const { registry } = setup({ KUBECONFIG: kubeconfigFile(['a', EKS, GKE], GKE) });
    expect(registry.mode).toBe('kubeconfig');
    const entries = registry.entries();
    expect(entries.map((e) => e.context)).toEqual([GKE, 'a', EKS]);
    expect(entries.map((e) => e.isDefault)).toEqual([true, false, false]);
    expect(entries.map((e) => e.displayName)).toEqual(['prod', 'a', 'prod']);
    expect(entries.map((e) => e.id)).toEqual([GKE, 'a', clusterSlug(EKS)]);
    expect(entries[1]?.server).toBe('https://0.example:6443');
    expect(JSON.stringify(entries)).not.toMatch(/token-|pw@/);
    expect(registry.defaultEntry().id).toBe(clusterSlug(GKE));
    expect(registry.entry(clusterSlug(EKS))?.context).toBe(EKS);
    expect(registry.entry('nope')).toBeNull();
    expect(entries.every((e) => e.configError === null)).toBe(true);
  });

  it('merges a KUBECONFIG list; ZONESCOPE_CONTEXT picks the default, ZONESCOPE_CLUSTER_NAME names only it', () => {
    const list = [kubeconfigFile(['a', 'b'], 'a'), kubeconfigFile(['c'])].join(path.delimiter);
    const { registry } = setup({ KUBECONFIG: list, ZONESCOPE_CONTEXT: 'c', ZONESCOPE_CLUSTER_NAME: 'Production' });
    expect(ids(registry)).toEqual(['c', 'a', 'b']);
    expect(registry.entries().map((e) => e.displayName)).toEqual(['Production', 'a', 'b']);
  });

  it('follows ZONESCOPE_CONTEXTS order; an unknown name is an entry with a configuration error that cannot open', () => {
    const { registry, created } = setup({ KUBECONFIG: kubeconfigFile(['a', 'b', 'c'], 'a'), ZONESCOPE_CONTEXTS: 'c, missing, a' });
    expect(ids(registry)).toEqual(['a', 'c', 'missing']);
    const missing = registry.entry('missing');
    expect(missing?.configError).toBe('Context "missing" is not in the kubeconfig (contexts: a, b, c).');
    expect(missing?.server).toBeNull();
    expect(registry.state('missing')).toBe('error');
    expect(registry.open('missing')).toEqual({ ok: false, reason: 'config', message: missing?.configError });
    expect(registry.open('b')).toMatchObject({ ok: false, reason: 'unknown' });
    expect(created).toHaveLength(0);
    expect(registry.open('c').ok).toBe(true);
  });

  it('takes the first listed context when the current one is not listed, and `*` expands in place', () => {
    expect(ids(setup({ KUBECONFIG: kubeconfigFile(['a', 'b', 'c'], 'a'), ZONESCOPE_CONTEXTS: 'c,b' }).registry)).toEqual(['c', 'b']);
    expect(ids(setup({ KUBECONFIG: kubeconfigFile(['a', 'b', 'c'], 'a'), ZONESCOPE_CONTEXTS: 'c,*' }).registry)).toEqual(['a', 'c', 'b']);
    expect(ids(setup({ KUBECONFIG: kubeconfigFile(['a', 'b'], 'gone') }).registry)).toEqual(['a', 'b']);
  });

  it('a default context the kubeconfig lacks still opens, its source saying why (as with one cluster)', () => {
    const { registry, created } = setup({ KUBECONFIG: kubeconfigFile(['a'], 'a'), ZONESCOPE_CONTEXT: 'gone' });
    expect(ids(registry)).toEqual(['gone', 'a']);
    expect(registry.defaultEntry().configError).toMatch(/^Context "gone" is not in the kubeconfig/);
    expect(registry.open('gone').ok).toBe(true);
    expect(created[0]?.entry.context).toBe('gone');
  });

  it('snapshot, in-cluster and unconfigured installations have one entry, `default`', () => {
    const snapshot = setup({ ZONESCOPE_SNAPSHOT: '/data/dump.json', KUBECONFIG: kubeconfigFile(['a', 'b']) }).registry;
    expect(snapshot.mode).toBe('snapshot');
    expect(snapshot.entries()).toEqual([{ id: 'default', context: null, displayName: 'dump.json', server: null, isDefault: true, configError: null }]);
    expect(snapshot.open('default').ok).toBe(true);
    expect(snapshot.sweep()).toEqual([]);

    const inCluster = setup({ KUBERNETES_SERVICE_HOST: '10.96.0.1', KUBERNETES_SERVICE_PORT: '443' }).registry;
    expect(inCluster.mode).toBe('in-cluster');
    expect(inCluster.entries()).toEqual([{ id: 'default', context: null, displayName: 'in-cluster', server: 'https://10.96.0.1', isDefault: true, configError: null }]);

    const none = setup({}).registry;
    expect(none.mode).toBe('unconfigured');
    expect(ids(none)).toEqual(['default']);
    expect(none.defaultEntry().configError).toMatch(/^No cluster configured/);
    expect(none.open('default').ok).toBe(true);

    const broken = setup({ KUBECONFIG: path.join(tmp, 'does-not-exist') }).registry;
    expect(ids(broken)).toEqual(['default']);
    expect(broken.defaultEntry().configError).toMatch(/ENOENT/);
  });

  it('the real source factory gives a failing context a source that reports its error, not an exception', async () => {
    const registry = new ClusterRegistry({ config: configFromEnv({ HOME: tmp, KUBECONFIG: kubeconfigFile(['a', 'b'], 'a'), ZONESCOPE_CONTEXTS: 'a,b' }), sweepIntervalMs: 0 });
    registries.push(registry);
    const opened = registry.open('b');
    if (!opened.ok) throw new Error(opened.message);
    expect(opened.source.contextName).toBe('b');
    expect(registry.openIds()).toEqual(['b']);
    await registry.stop();
    expect(registry.openIds()).toEqual([]);
  });
});

describe('open, limit and idle close', () => {
  const contexts = ['d', 'a', 'b', 'c'];

  it('opens lazily, once, and returns the same source while open', () => {
    const { registry, created } = setup({ KUBECONFIG: kubeconfigFile(contexts, 'd') });
    expect(registry.state('a')).toBe('idle');
    expect(registry.peek('a')).toBeNull();
    const first = registry.open('a');
    const second = registry.open('a');
    expect(first.ok && second.ok && first.source === second.source).toBe(true);
    expect(created.map((c) => c.entry.id)).toEqual(['a']);
    expect(created[0]?.source.starts).toBe(1);
    expect(registry.peek('a')).toBe(created[0]?.source);
    expect(registry.state('a')).toBe('open');
    expect(registry.state('nope')).toBeNull();
  });

  it('refuses beyond ZONESCOPE_MAX_OPEN_CLUSTERS (the default keeps its place) with the message the UI shows', () => {
    const { registry, created } = setup({ KUBECONFIG: kubeconfigFile(contexts, 'd'), ZONESCOPE_MAX_OPEN_CLUSTERS: '3' });
    expect(registry.maxOpen).toBe(3);
    expect(registry.open('a').ok).toBe(true);
    expect(registry.open('b').ok).toBe(true);
    expect(registry.open('c')).toEqual({
      ok: false,
      reason: 'limit',
      message: 'Cannot open cluster "c": 3 clusters are open, the most ZONESCOPE_MAX_OPEN_CLUSTERS allows. Clusters unused for 15 min close (ZONESCOPE_CLUSTER_IDLE_MINUTES); raise the limit or try again later.',
    });
    // The default opens whatever the others do, and the count stays within the limit.
    expect(registry.open('d').ok).toBe(true);
    expect(registry.openIds()).toEqual(['d', 'a', 'b']);
    expect(created).toHaveLength(3);
  });

  it('closes clusters unused for the idle time (never the default), keeps their last use, and reopens afresh', () => {
    const { registry, created, advance } = setup({ KUBECONFIG: kubeconfigFile(contexts, 'd'), ZONESCOPE_CLUSTER_IDLE_MINUTES: '10', ZONESCOPE_MAX_OPEN_CLUSTERS: '3' });
    registry.open('d');
    registry.open('a');
    advance(5 * 60_000);
    registry.open('b');
    const bUsed = registry.lastUsed('b');
    advance(4 * 60_000);
    registry.touch('a');
    expect(registry.sweep()).toEqual([]);
    advance(7 * 60_000); // b unused for 11 min, a for 7, d for 16 (the default)
    expect(registry.sweep()).toEqual(['b']);
    expect(registry.state('b')).toBe('closed-idle');
    expect(registry.closedAt('b')).not.toBeNull();
    expect(registry.lastUsed('b')).toBe(bUsed);
    expect(registry.peek('b')).toBeNull();
    expect(created.find((c) => c.entry.id === 'b')?.source.stops).toBe(1);
    expect(registry.openIds()).toEqual(['d', 'a']);
    // Its place is free again.
    expect(registry.open('c').ok).toBe(true);
    // At the limit, a cluster idle by now closes to make room, without waiting for the timer.
    expect(registry.open('b').ok).toBe(false);
    advance(9 * 60_000); // a unused for 16 min, c for 9
    expect(registry.open('b').ok).toBe(true);
    expect(registry.openIds()).toEqual(['d', 'b', 'c']);
    expect(registry.state('a')).toBe('closed-idle');
    advance(60 * 60_000);
    expect(registry.sweep()).toEqual(['b', 'c']);
    const reopened = registry.open('b');
    const firstB = created.find((c) => c.entry.id === 'b')?.source;
    expect(reopened.ok && firstB !== undefined && reopened.source !== firstB).toBe(true);
    expect(created.filter((c) => c.entry.id === 'b')).toHaveLength(3);
    expect(registry.state('b')).toBe('open');
    expect(registry.closedAt('b')).toBeNull();
    expect(created.find((c) => c.entry.id === 'd')?.source.stops).toBe(0);
  });

  it('the fleet page opens clusters without keeping them: its reads leave the idle clock alone, and at the limit a user’s cluster takes the place of one only the fleet opened', () => {
    const { registry, created, advance } = setup({ KUBECONFIG: kubeconfigFile(contexts, 'd'), ZONESCOPE_CLUSTER_IDLE_MINUTES: '10', ZONESCOPE_MAX_OPEN_CLUSTERS: '3' });
    registry.open('d');
    // The fleet page opens a and b (the limit is then full: d, a, b).
    expect(registry.open('a', { for: 'fleet' }).ok).toBe(true);
    advance(60_000);
    expect(registry.open('b', { for: 'fleet' }).ok).toBe(true);
    // Reading them again for the fleet does not count as use...
    advance(8 * 60_000);
    registry.open('a', { for: 'fleet' });
    registry.open('b', { for: 'fleet' });
    // ...and the fleet opens nothing beyond the limit.
    const refused = registry.open('c', { for: 'fleet' });
    expect(refused.ok === false && refused.reason).toBe('limit');
    expect(registry.openIds()).toEqual(['d', 'a', 'b']);
    // A user opens c: a, the one only the fleet opened longest ago, closes to make room.
    expect(registry.open('c').ok).toBe(true);
    expect(registry.openIds()).toEqual(['d', 'b', 'c']);
    expect(registry.state('a')).toBe('closed-idle');
    expect(registry.closedFor('a')?.id).toBe('c');
    expect(created.find((x) => x.entry.id === 'a')?.source.stops).toBe(1);
    // A user viewing b makes it theirs: it no longer gives its place, and the next user cluster is refused.
    registry.open('b');
    const full = registry.open('a');
    expect(full.ok === false && full.reason).toBe('limit');
    expect(registry.closedFor('a')?.id).toBe('c');
    // Fleet reads never restarted b's clock before the user's view; the user's view did.
    advance(9 * 60_000);
    expect(registry.sweep()).toEqual([]);
    advance(2 * 60_000);
    expect(registry.sweep()).toEqual(['b', 'c']);
    // Reopened (by anyone), a is no longer "closed to make room".
    expect(registry.open('a', { for: 'fleet' }).ok).toBe(true);
    expect(registry.closedFor('a')).toBeNull();
  });

  it('never closes with ZONESCOPE_CLUSTER_IDLE_MINUTES=0, and says so when refusing', () => {
    const { registry, advance } = setup({ KUBECONFIG: kubeconfigFile(contexts, 'd'), ZONESCOPE_CLUSTER_IDLE_MINUTES: '0', ZONESCOPE_MAX_OPEN_CLUSTERS: '2' });
    registry.open('a');
    advance(24 * 3_600_000);
    expect(registry.sweep()).toEqual([]);
    const refused = registry.open('b');
    expect(refused.ok === false && refused.message).toBe(
      'Cannot open cluster "b": 2 clusters are open, the most ZONESCOPE_MAX_OPEN_CLUSTERS allows. Clusters do not close for idleness (ZONESCOPE_CLUSTER_IDLE_MINUTES=0); raise the limit.',
    );
  });

  it('a factory that throws, or a source whose start throws, becomes an open source reporting it; others are unaffected', () => {
    let calls = 0;
    const { registry } = setup(
      { KUBECONFIG: kubeconfigFile(contexts, 'd') },
      {
        createSource: (entry) => {
          calls++;
          if (entry.id === 'a') throw new Error('boom');
          if (entry.id === 'b') {
            const source = new FakeSource('x', 'b');
            source.start = () => {
              throw new Error('cannot start');
            };
            return source;
          }
          return new FakeSource('fine', entry.context);
        },
      },
    );
    const a = registry.open('a');
    const b = registry.open('b');
    const c = registry.open('c');
    expect(a.ok && a.source.problems()).toEqual(['Cannot connect to cluster "a": boom']);
    expect(b.ok && b.source.problems()).toEqual(['Cannot start cluster "b": cannot start']);
    expect(c.ok && c.source.problems()).toEqual(['fine']);
    expect(registry.openIds()).toEqual(['a', 'b', 'c']);
    expect(calls).toBe(3);
  });

  it('runs the sweep on an unref’d timer', async () => {
    let time = 0;
    const registry = new ClusterRegistry({
      config: configFromEnv({ HOME: tmp, KUBECONFIG: kubeconfigFile(contexts, 'd') }),
      now: () => time,
      idleMs: 1000,
      sweepIntervalMs: 20,
      createSource: (entry) => new FakeSource('fake', entry.context),
    });
    registries.push(registry);
    registry.open('a');
    time = 5000;
    // The next sweep (every 20 ms) finds it idle.
    await expect.poll(() => registry.state('a'), { message: 'the sweep closes the idle cluster', timeout: 2000, interval: 10 }).toBe('closed-idle');
  });
});
